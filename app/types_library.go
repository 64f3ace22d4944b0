package app

// The shapes of app/library.go: projects, sessions, a session's timeline and a
// segment's entries: the Library area's part of the contract with the frontend
// (types.go says how it is kept).

// Project is a working directory that sessions ran in.
type Project struct {
	Path     string  `json:"path"`
	Name     string  `json:"name"` // last path element
	Sessions int     `json:"sessions"`
	Nodes    int     `json:"nodes"`
	Cost     float64 `json:"cost"` // USD
	// CostUnknown: some of the project's usage is of a model Rhizome has
	// no price for; Cost is what was priced.
	CostUnknown bool `json:"costUnknown,omitempty"`
	// Summary says what the project's sessions were about (issue 8), ""
	// until it is made; SummarySource where it came from (offline, human,
	// model:<provider/model>).
	Summary       string `json:"summary"`
	SummarySource string `json:"summarySource"`
}

// SessionSummary is one session in the sidebar.
type SessionSummary struct {
	ID   string `json:"id"`
	Path string `json:"path"`
	Name string `json:"name"` // session_info name, else file name
	// Title is the session's title as its summary shows it (the user's
	// session_info name, pi's, the first request, a model's or the person's
	// edit: see SummaryView); Name until it has one. Summary is its 2-3
	// sentences ("" until made); TitleSource the summary's source.
	Title         string  `json:"title"`
	Summary       string  `json:"summary"`
	TitleSource   string  `json:"titleSource"`
	Project       string  `json:"project"` // cwd
	Timestamp     string  `json:"timestamp"`
	Version       int     `json:"version"`
	Entries       int     `json:"entries"`
	Segments      int     `json:"segments"`
	Cost          float64 `json:"cost"` // USD
	Tokens        int64   `json:"tokens"`
	ParentSession string  `json:"parentSession,omitempty"`
	Malformed     int     `json:"malformed"`
	PendingTail   bool    `json:"pendingTail"`
	// Format is the file's format.
	Format string `json:"format" ts_type:"'pi' | 'claude-code' | 'codex' | 'qwen-code' | 'copilot-cli' | 'gemini-cli' | 'cline' | 'opencode'"`
	// CostUnknown: some of the session's usage is of a model Rhizome has
	// no price for (Codex logs carry tokens, not dollars), left out of Cost.
	CostUnknown bool `json:"costUnknown,omitempty"`
	// AgentID names the sub-agent a sub-agent transcript records
	// (ParentSession is then the session that spawned it).
	AgentID string `json:"agentId,omitempty"`
	// SourceDeleted: the file is gone; the library keeps the session
	// ("source deleted, kept in the library"), since SourceDeletedAt.
	SourceDeleted   bool   `json:"sourceDeleted,omitempty"`
	SourceDeletedAt string `json:"sourceDeletedAt,omitempty"`
	// UpdatedAt is when an import last changed the session (ISO 8601): a
	// session written in the last LiveSeconds is live.
	UpdatedAt string `json:"updatedAt"`
}

// EntryView is one session entry for display. Blocks carry the message
// content; Raw is the entry's JSON as in the file (images included).
type EntryView struct {
	Seq       int         `json:"seq"`
	Line      int         `json:"line"`
	ID        string      `json:"id"`
	ParentID  string      `json:"parentId,omitempty"`
	Type      string      `json:"type"`
	Role      string      `json:"role,omitempty"`
	Timestamp string      `json:"timestamp"`
	Model     string      `json:"model,omitempty"`
	IsError   bool        `json:"isError,omitempty"`
	ToolName  string      `json:"toolName,omitempty"`
	Summary   string      `json:"summary,omitempty"` // compaction, branch_summary
	Label     string      `json:"label,omitempty"`   // labels on this entry
	Blocks    []BlockView `json:"blocks"`

	// Claude Code and Codex entries.

	// Subtype is the kind within a format's own line type (a Claude Code
	// system line's subtype, a Codex event's payload type).
	Subtype string `json:"subtype,omitempty"`
	// RolledBack: a Codex thread_rolled_back superseded the entry's turn
	// (kept, no longer in the thread's history: shown dimmed).
	RolledBack bool `json:"rolledBack,omitempty"`
	// DuplicateOf names the entry this one repeats (an id in the session, or
	// a rhizome:entry/ URI in another): kept, counted once.
	DuplicateOf string `json:"duplicateOf,omitempty"`
	// Replayed: copied from the parent thread at the start of a Codex fork.
	Replayed bool `json:"replayed,omitempty"`
	// Rewind: the first entry of a real branch (Claude Code /rewind).
	Rewind bool `json:"rewind,omitempty"`
	// Sidechain: an entry of a sub-agent's conversation.
	Sidechain bool `json:"sidechain,omitempty"`
	// SubagentID names the sub-agent a tool call spawned; SubagentNodeID
	// is the first node of its transcript when the library holds it.
	SubagentID     string `json:"subagentId,omitempty"`
	SubagentNodeID string `json:"subagentNodeId,omitempty"`
	// ToolOutputs are the outputs a Claude Code tool result keeps in files
	// of their own (the line holds a preview): Library.ToolOutput reads
	// them.
	ToolOutputs []ToolOutputInfo `json:"toolOutputs"`
}

// ToolOutputInfo is a tool output Claude Code saved beside its session
// (<session>/tool-results/<name>) because it was too large for the line, as
// the library holds it: Kept when its bytes (Bytes of them) are in the
// library, which keeps them when Claude Code deletes its files; else
// Absent says why.
type ToolOutputInfo struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	Kept   bool   `json:"kept"`
	Absent string `json:"absent,omitempty"`
}

// ToolOutputText is a kept tool output (Library.ToolOutput): its text, the
// first MaxToolOutputView bytes of it when Truncated; Binary when it is not
// UTF-8 text (Text is then empty).
type ToolOutputText struct {
	Name      string `json:"name"`
	Bytes     int64  `json:"bytes"`
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
	Binary    bool   `json:"binary"`
}

// EntryPage is a page of a segment's entries (Library.SegmentEntries):
// Entries from the Offset-th entry of the segment on (0 = its first), and
// Total, the entries the segment holds.
type EntryPage struct {
	Entries []EntryView `json:"entries"`
	Offset  int         `json:"offset"`
	Total   int         `json:"total"`
}

// BlockView is one content block for display: text, thinking, toolCall
// (Name, Arguments as JSON text), toolResult text, image (MimeType, Data
// base64).
type BlockView struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	MimeType  string `json:"mimeType,omitempty"`
	Data      string `json:"data,omitempty"`
}

// TimelineSegment is one segment of a session's timeline.
type TimelineSegment struct {
	Index      int            `json:"index"`
	NodeID     string         `json:"nodeId"`
	Type       string         `json:"type"`
	Summary    string         `json:"summary"`
	Start      string         `json:"start"`
	End        string         `json:"end"`
	Entries    int            `json:"entries"`
	Boundaries []BoundaryView `json:"boundaries"`
}

// Stats counts what the library holds.
type Stats struct {
	Path     string         `json:"path"` // library file
	Sessions int            `json:"sessions"`
	Entries  int            `json:"entries"`
	Nodes    int            `json:"nodes"`
	Edges    int            `json:"edges"`
	Projects int            `json:"projects"`
	Cost     float64        `json:"cost"` // USD
	Tokens   int64          `json:"tokens"`
	ByType   map[string]int `json:"byType"`
}
