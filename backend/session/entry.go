// Package session is the format-neutral model of a coding agent's session:
// the Header, the Entries (messages with their content blocks, compactions,
// summaries, labels, ...), their Usage and Cost, and the Problems a reader
// reports. Every agent reader produces it: backend/pisession (pi, whose
// version 3 meaning the model keeps), backend/claudecode and backend/codex
// (which fill in the fields pi leaves empty, and prefix their own line types).
// EntryText and ViewEntry read an entry for search and for a person.
//
// See ../shared/specs/ERRATA.md, "The pi session format (what real files
// contain)", for the entry types and roles.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrNoHeader matches (errors.Is) the error a reader returns when a file
// does not start a session of its format: empty file, no JSON object, first
// object of another type, header without id, or a header still being
// written.
var ErrNoHeader = errors.New("session: no session header")

// MaxStoredProblems bounds the problems a reader keeps of each kind
// (malformed lines, warnings), so that a file of garbage does not fill
// memory; the counts go on.
const MaxStoredProblems = 10000

// Header is the first object of a session file:
// {"type":"session","version":3,"id","timestamp","cwd","parentSession"?}.
// Version 1 headers have no version field (Version is then 1) and may carry
// Provider, ModelID, ThinkingLevel and BranchedFrom.
type Header struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
	Provider      string `json:"provider,omitempty"`
	ModelID       string `json:"modelId,omitempty"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	BranchedFrom  string `json:"branchedFrom,omitempty"`

	// Set by the readers of other agents' logs (backend/claudecode,
	// backend/codex), which synthesise the header from the file's first
	// lines (Type is then "session", Version 0 and Raw nil: every line of
	// those files is an entry). pi headers leave them empty.

	// Format names the file's format: "claude-code", "qwen-code",
	// "copilot-cli" or "codex".
	Format string `json:"format,omitempty"`
	// AgentVersion is the version of the program that wrote the file
	// (Claude Code's "version", Codex's "cli_version").
	AgentVersion string `json:"agentVersion,omitempty"`
	// AgentID names the sub-agent whose conversation the file records
	// (Claude Code agentId, Codex sub-agent thread); ParentSession then
	// names the session that spawned it.
	AgentID string `json:"agentId,omitempty"`

	// Raw is the header object exactly as it appears in the file.
	Raw json.RawMessage `json:"-"`
}

// Parent is the path of the session h was forked from: parentSession, or in
// pi version 1 files branchedFrom; "" for a session that is not a fork.
func (h *Header) Parent() string {
	if h.ParentSession != "" {
		return h.ParentSession
	}
	return h.BranchedFrom
}

// Entry types written by pi (ERRATA.md). Unknown types are kept with their
// raw JSON and Type as found.
const (
	TypeMessage             = "message"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeModelChange         = "model_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Message roles (ERRATA.md). RoleHookMessage is the version 1 and 2 name of
// RoleCustom; the reader renames it.
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
	RoleHookMessage       = "hookMessage"
)

// Entry is one session entry after the header, read with version 3 meaning:
// version 1 entries get synthetic ids forming a linear chain in file order, a
// compaction's firstKeptEntryIndex becomes FirstKeptEntryID, and the
// hookMessage role becomes custom.
//
// Only the fields of the entry's Type are set; Raw always holds the object as
// it appears in the file, so nothing is lost for unknown types or fields.
type Entry struct {
	// Seq is the 0-based index of the entry in file order (the header excluded).
	Seq int `json:"seq"`
	// Line is the 1-based line number of the object in the file; Offset the
	// byte offset of its first byte. Several entries share a line when a
	// line holds concatenated objects.
	Line   int   `json:"line"`
	Offset int64 `json:"offset"`

	Type      string    `json:"type"`
	ID        string    `json:"id"`
	ParentID  string    `json:"parentId,omitempty"` // "" for a root
	Timestamp time.Time `json:"timestamp"`          // zero when absent or unparseable

	Message *Message `json:"message,omitempty"` // TypeMessage

	// TypeCompaction and TypeBranchSummary.
	Summary          string          `json:"summary,omitempty"`
	FirstKeptEntryID string          `json:"firstKeptEntryId,omitempty"`
	TokensBefore     int64           `json:"tokensBefore,omitempty"`
	FromID           string          `json:"fromId,omitempty"` // branch_summary: the navigation target ("root" at the root)
	FromHook         bool            `json:"fromHook,omitempty"`
	Details          json.RawMessage `json:"details,omitempty"`

	// TypeCustom and TypeCustomMessage.
	CustomType string          `json:"customType,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
	Content    []Block         `json:"content,omitempty"` // custom_message content (a string becomes one text block)
	// ContentIsString records that a custom_message's content was a plain
	// string in the file (Content then holds one text block).
	ContentIsString bool `json:"contentIsString,omitempty"`
	Display         bool `json:"display,omitempty"`

	// TypeLabel.
	TargetID string `json:"targetId,omitempty"`
	Label    string `json:"label,omitempty"`

	// TypeSessionInfo.
	Name string `json:"name,omitempty"`

	// TypeThinkingLevelChange and TypeModelChange.
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
	Provider      string `json:"provider,omitempty"`
	ModelID       string `json:"modelId,omitempty"`

	// Set by the readers of other agents' logs (backend/claudecode,
	// backend/codex); pi entries leave them empty. Their own line types are
	// kept with a prefixed Type ("claude:attachment", "codex:event_msg").

	// Subtype is the kind within a prefixed Type: a Claude Code system
	// line's subtype or attachment's type, a Codex payload type.
	Subtype string `json:"subtype,omitempty"`
	// TurnID groups the entries of one turn: Codex turn_id, Claude Code
	// promptId.
	TurnID string `json:"turnId,omitempty"`
	// Sidechain marks an entry of a sub-agent's conversation (Claude Code
	// isSidechain).
	Sidechain bool `json:"sidechain,omitempty"`
	// Rewind marks the first entry of a real branch: a prompt written under
	// an earlier entry than the one the conversation had reached (Claude
	// Code /rewind, Esc-Esc, --resume-session-at). Parent links that are
	// recording artefacts (parallel tool results, split responses, hook
	// and progress children) are not rewinds.
	Rewind bool `json:"rewind,omitempty"`
	// DuplicateOf names an earlier entry of the same file that this one
	// repeats: a Claude Code line written again with the same uuid, a Codex
	// event (event_msg, item_completed) echoing a response item. Count the
	// conversation once: without the duplicates.
	DuplicateOf string `json:"duplicateOf,omitempty"`
	// Replayed marks an entry copied from the parent thread at the start of
	// a Codex fork or sub-agent file: it is already in the parent.
	Replayed bool `json:"replayed,omitempty"`
	// RolledBack marks an entry of a turn that a later Codex
	// thread_rolled_back superseded (kept, not part of the thread's
	// history any more). RolledBackTurns, on the thread_rolled_back entry,
	// lists the turn ids it supersedes.
	RolledBack      bool     `json:"rolledBack,omitempty"`
	RolledBackTurns []string `json:"rolledBackTurns,omitempty"`
	// SubagentID names the sub-agent a tool result's call spawned (Claude
	// Code toolUseResult.agentId, Codex spawn_agent's agent id) or, on a
	// progress line, the sub-agent it reports on.
	SubagentID string `json:"subagentId,omitempty"`

	// Raw is the entry object exactly as it appears in the file.
	Raw json.RawMessage `json:"-"`
}

// Message is the payload of a message entry. Content is always a list of
// blocks: user content given as a plain string becomes one text block and
// ContentIsString records that.
type Message struct {
	Role            string  `json:"role"`
	Content         []Block `json:"content,omitempty"`
	ContentIsString bool    `json:"contentIsString,omitempty"`
	Timestamp       int64   `json:"timestamp,omitempty"` // Unix milliseconds

	// Assistant.
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"` // stop | length | toolUse | error | aborted
	ErrorMessage string `json:"errorMessage,omitempty"`

	// ToolResult.
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`

	// BashExecution.
	Command   string `json:"command,omitempty"`
	Output    string `json:"output,omitempty"`
	ExitCode  *int   `json:"exitCode,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`

	// BashExecution, continued: where pi saved the full output when it
	// truncated it, and whether the `!!` prefix kept it out of the context.
	FullOutputPath     string `json:"fullOutputPath,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`

	// Custom (formerly hookMessage).
	CustomType string `json:"customType,omitempty"`
	Display    bool   `json:"display,omitempty"`

	// BranchSummary and CompactionSummary roles.
	Summary      string `json:"summary,omitempty"`
	FromID       string `json:"fromId,omitempty"`       // branchSummary
	TokensBefore int64  `json:"tokensBefore,omitempty"` // compactionSummary, in tokens
}

// UnixMilli returns t as a Message.Timestamp: Unix milliseconds, 0 for the
// zero time (a line without a time).
func UnixMilli(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// Block types of message content.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockToolCall = "toolCall"
	BlockImage    = "image"
)

// Block is one content block: text {text}, thinking {thinking, redacted?},
// toolCall {id, name, arguments}, image {data (base64), mimeType}. Unknown
// block types keep their Type and are otherwise empty (the entry's Raw has
// them whole).
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	Redacted  bool            `json:"redacted,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Data      string          `json:"data,omitempty"` // base64
	MimeType  string          `json:"mimeType,omitempty"`
}

// Usage is an assistant message's token usage; Cost is in USD. Input counts
// uncached input tokens only; TotalTokens is Input + Output + CacheRead +
// CacheWrite.
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	TotalTokens int64 `json:"totalTokens"`
	Cost        Cost  `json:"cost"`

	// Set by the readers of other agents' logs; pi leaves them zero.

	// CacheWrite5m and CacheWrite1h split CacheWrite by cache lifetime
	// (Anthropic prices 1-hour writes at 2x input, 5-minute writes at
	// 1.25x); a write of unknown lifetime counts in neither.
	CacheWrite5m int64 `json:"cacheWrite5m,omitempty"`
	CacheWrite1h int64 `json:"cacheWrite1h,omitempty"`
	// Reasoning is the part of Output spent on reasoning (Codex
	// reasoning_output_tokens).
	Reasoning int64 `json:"reasoning,omitempty"`
	// WebSearches counts server-side web searches, priced per request.
	WebSearches int64 `json:"webSearches,omitempty"`
}

// Cost is a usage's price in USD.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Problem is a line the reader could not use: the file, 1-based line number,
// byte offset of the bad bytes and the reason.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Offset int64  `json:"offset"`
	Reason string `json:"reason"`
}

// String formats the problem as "file: line N (byte B): reason".
func (p Problem) String() string {
	return fmt.Sprintf("%s: line %d (byte %d): %s", p.File, p.Line, p.Offset, p.Reason)
}
