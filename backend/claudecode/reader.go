// Package claudecode reads Claude Code session files (JSON Lines under
// ~/.claude/projects/<encoded cwd>/<sessionId>.jsonl, and sub-agent
// transcripts under <sessionId>/subagents/) as a stream of
// backend/session entries, losslessly: every line is an entry with its exact bytes (Raw),
// line and byte offset; malformed lines and a half-written last line are
// reported, never dropped silently; unknown line types and fields are kept.
//
// See ../shared/specs/claude-code-codex-formats.md §1. Lines map to entries
// with pi's version 3 meaning, so that the segmenter, the analyzer and the
// store read them as they read pi sessions:
//
//	line                                   Entry.Type           Message.Role / notes
//	user, typed prompt (string or blocks)  message              user (text, image blocks); Rewind when written
//	                                                            under an earlier entry than the last one
//	user with tool_result blocks           message              toolResult: ToolCallID, ToolName (from the call),
//	                                                            IsError, content, Details = toolUseResult,
//	                                                            SubagentID = toolUseResult.agentId
//	user, isCompactSummary                 message              compactionSummary: Summary, TokensBefore
//	user, isMeta                           message              custom, CustomType "claude:meta"
//	user, <command-name> / <local-command-stdout>  message      custom, "claude:command" / "claude:command-output"
//	user, <task-notification> (origin.kind)        message      custom, "claude:task-notification"
//	assistant (one block per line)         message              assistant: text, thinking (redacted_thinking:
//	                                                            Redacted), toolCall (tool_use, server_tool_use),
//	                                                            image, other blocks "claude:<type>"; Model,
//	                                                            StopReason (end_turn->stop, tool_use->toolUse,
//	                                                            max_tokens->length), Usage once per response,
//	                                                            isApiErrorMessage -> stopReason error
//	system, compact_boundary               compaction           TokensBefore = preTokens, FirstKeptEntryID =
//	                                                            preservedSegment.headUuid, Subtype = trigger,
//	                                                            ParentID = logicalParentUuid
//	system (other subtypes)                claude:system        Subtype = subtype
//	attachment                             claude:attachment    Subtype = attachment.type; a queued_command
//	                                                            attachment is a message (user)
//	progress                               claude:progress      Subtype = data.type, SubagentID = data.agentId
//	custom-title                           session_info         Name = customTitle
//	ai-title                               claude:ai-title      Name = aiTitle
//	summary                                claude:summary       Summary, TargetID = leafUuid
//	last-prompt                            claude:last-prompt   TargetID = leafUuid
//	queue-operation                        claude:queue-operation  Subtype = operation
//	file-history-snapshot                  claude:file-history-snapshot  TargetID = messageId
//	any other type T                       claude:T             (agent-name: Name)
//
// Ids: a line's uuid, its parentUuid as ParentID (a compaction root's
// logicalParentUuid, so the roots of a compacted session are joined); lines
// without a uuid (metadata) get "L<line>" ("L<line>.<k>" for the k-th
// object of a line) and no parent. TurnID is the promptId of the turn.
// Sidechain is isSidechain, and true on a line without a uuid but with an
// agentId (a sub-agent transcript's api-request lines, from 2.1.332). A
// line repeating a uuid seen in the last 64 chain lines has DuplicateOf set
// (Claude Code rewrites lines on resume and reactive compaction). Usage is
// counted once per (message.id, requestId), on the response's last line;
// <synthetic> messages have none (§1.5).
package claudecode

import (
	"fmt"
	"io"
	"os"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

// ErrNoHeader matches (errors.Is) the error Header and Next return when the
// input is not a Claude Code session; it is session.ErrNoHeader.
var ErrNoHeader = session.ErrNoHeader

// Metadata is what the metadata lines of a session say, last one wins
// (§1.2, §1.6.3), and counts over the lines read so far.
type Metadata struct {
	// Title is the session's title: CustomTitle, else AITitle, else the
	// legacy Summary.
	Title          string `json:"title,omitempty"`
	CustomTitle    string `json:"customTitle,omitempty"`
	AITitle        string `json:"aiTitle,omitempty"`
	Summary        string `json:"summary,omitempty"`
	AgentName      string `json:"agentName,omitempty"`
	LastPrompt     string `json:"lastPrompt,omitempty"`
	LeafUUID       string `json:"leafUuid,omitempty"` // current leaf (last-prompt, summary)
	PermissionMode string `json:"permissionMode,omitempty"`
	Mode           string `json:"mode,omitempty"`
	GitBranch      string `json:"gitBranch,omitempty"` // the last line's

	// Models lists the models of the assistant lines, in order of first
	// use; <synthetic> is not a model.
	Models         []string `json:"models,omitempty"`
	FirstTimestamp string   `json:"firstTimestamp,omitempty"`
	LastTimestamp  string   `json:"lastTimestamp,omitempty"`

	Compactions int `json:"compactions,omitempty"`
	Rewinds     int `json:"rewinds,omitempty"`
	Duplicates  int `json:"duplicates,omitempty"` // lines with DuplicateOf
	Subagents   int `json:"subagents,omitempty"`  // tool results that name a sub-agent
	// ForeignLines counts lines whose sessionId is not the file's (written
	// to the wrong file, §1.6.7; forked copies keep their new id).
	ForeignLines int `json:"foreignLines,omitempty"`
}

func (m *Metadata) setTitle() {
	switch {
	case m.CustomTitle != "":
		m.Title = m.CustomTitle
	case m.AITitle != "":
		m.Title = m.AITitle
	default:
		m.Title = m.Summary
	}
}

func (m *Metadata) addModel(model string) {
	for _, x := range m.Models {
		if x == model {
			return
		}
	}
	m.Models = append(m.Models, model)
}

// Reader reads a Claude Code session file as a stream of entries in file
// order (see the package comment for the mapping). It has the surface and
// tolerance of pisession.Reader: lines holding several objects, malformed
// lines reported and skipped, a half-written last line pending, blank lines,
// CRLF, lines up to sessionlog.MaxLineBytes. Its memory does not grow with
// the file. Entries of a response whose usage a later line settles (older
// files) are held back until it does, at most sessionlog.MaxHeld. Not safe
// for concurrent use.
type Reader struct {
	*sessionlog.Reader[parseState]
}

// NewReader returns a Reader over r, a whole session file from its first
// byte; file names it in problems and errors.
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{sessionlog.NewReader[parseState](r, file, format{file: file, ln: new(wireLine)})}
}

// State is where a read stopped, for an append import to resume from it
// (NewReaderAt; see sessionlog.State). It serialises to JSON.
type State = sessionlog.State[parseState]

// NewReaderAt returns a Reader that resumes a read from st (a State a
// previous Reader returned): r must be positioned at byte st.Offset of the
// file. Lines, offsets, Seq, ids and usage continue as in a full read.
func NewReaderAt(r io.Reader, file string, st State) *Reader {
	return &Reader{sessionlog.ResumeAt[parseState](r, file, format{file: file, ln: new(wireLine)}, st)}
}

// Header returns the session header, synthesised from the first lines (at
// most sessionlog.HeaderScanLines, whose entries are kept for Next): ID is
// the sessionId ("agent-<agentId>" for a sub-agent transcript, whose
// ParentSession is then the parent's sessionId and AgentID its agentId),
// Timestamp the first line's, Cwd the first cwd, ModelID the first model
// (Provider "anthropic"), AgentVersion Claude Code's version, Format
// "claude-code". Raw is nil: every line is an entry. The error matches
// ErrNoHeader and says what the file is when it is not a Claude Code
// session (a pi session, a Codex rollout, other JSON).
func (r *Reader) Header() (*session.Header, error) { return r.Reader.Header() }

// Metadata returns what the lines read so far say (titles last one wins);
// complete after Next returned io.EOF.
func (r *Reader) Metadata() Metadata { return r.Live().Meta }

// Session is a whole Claude Code file read into memory.
type Session = sessionlog.Session[Metadata, parseState]

// Read reads a whole session from r; file names it in problems and errors.
// It returns the Header error (matching ErrNoHeader) or a read error;
// malformed lines are not errors. For large files prefer NewReader.
func Read(r io.Reader, file string) (*Session, error) {
	s, err := sessionlog.ReadAll(NewReader(r, file).Reader, func(st *parseState) Metadata { return st.Meta })
	return s, err
}

// ReadFile opens path and reads it with Read; errors name the path.
func ReadFile(path string) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("claudecode: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}
