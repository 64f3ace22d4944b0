package app

import "rhizome/backend/graph"

// These are the shapes the window and `rhizome serve` exchange with the
// frontend. JSON names are the contract; Go names follow them. The
// frontend's types are generated from them (`make generate` writes
// frontend/src/lib/generated/models.ts; build/contract): a ts_type tag gives
// a field the TypeScript type to write instead of its Go type's, the string
// values it takes (TestTSUnionsAreTheGoValues holds them to the Go
// constants).

// FileReport is the result of importing one session file. Status is one of
// "imported", "unchanged", "appended", "failed". MalformedCount is the number
// of malformed lines in the file as the library holds it; MalformedLines
// lists the first of them, at most session.MaxStoredProblems (10,000):
// a sample when MalformedCount is larger.
type FileReport struct {
	Path             string         `json:"path"`
	Format           string         `json:"format"` // "pi"; "memobrain" for a MemoBrain snapshot or conversation
	Version          int            `json:"version"`
	SessionID        string         `json:"sessionId"`
	Status           string         `json:"status" ts_type:"'imported' | 'unchanged' | 'appended' | 'failed'"`
	Entries          int            `json:"entries"` // entries in the file (header excluded)
	NewEntries       int            `json:"newEntries"`
	EntriesByType    map[string]int `json:"entriesByType"`
	MalformedCount   int            `json:"malformedCount"`
	MalformedLines   []LineProblem  `json:"malformedLines"`
	PendingTail      bool           `json:"pendingTail"`
	Segments         int            `json:"segments"`
	BoundariesByType map[string]int `json:"boundariesByType"`
	EdgesByType      map[string]int `json:"edgesByType"`
	Error            string         `json:"error,omitempty"`
	// Reasoning is what a MemoBrain snapshot or conversation file made
	// (Format "memobrain"); absent for session files.
	Reasoning *ReasoningImport `json:"reasoning,omitempty"`
}

// LineProblem is a malformed line of a session file.
type LineProblem struct {
	Line   int    `json:"line"`
	Offset int64  `json:"offset"`
	Reason string `json:"reason"`
}

// ImportTotals sums an import's file reports.
type ImportTotals struct {
	Files     int `json:"files"`
	Imported  int `json:"imported"`
	Unchanged int `json:"unchanged"`
	Appended  int `json:"appended"`
	Failed    int `json:"failed"`
	Entries   int `json:"entries"`
	Segments  int `json:"segments"`
	Malformed int `json:"malformed"` // malformed lines, all of them (FileReport.MalformedCount)
}

// ImportReport is the result of one import request.
type ImportReport struct {
	Files  []FileReport `json:"files"`
	Totals ImportTotals `json:"totals"`
	// Relations is what deriving the relations across sessions of the
	// projects the import changed stored (nil when it changed none, or
	// when it only appended in a running app, which leaves them to the
	// relations queue: relations_queue.go); RelationsError says why it
	// failed (the import itself is kept).
	Relations      *RelationsReport `json:"relations,omitempty"`
	RelationsError string           `json:"relationsError,omitempty"`
}

// DroppedFile is a file's contents sent by the frontend (a browser File or a
// file dropped on the window): Name is the file name, Content its bytes as
// base64.
type DroppedFile struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// ImportProgress is sent as the "import:progress" event while importing.
// Bytes are file bytes; Phase is "reading", "writing" or "done".
type ImportProgress struct {
	File       string `json:"file"`
	FileIndex  int    `json:"fileIndex"` // 0-based
	FileCount  int    `json:"fileCount"`
	BytesDone  int64  `json:"bytesDone"`  // over all files
	BytesTotal int64  `json:"bytesTotal"` // over all files
	Entries    int    `json:"entries"`    // entries read so far in this file
	Phase      string `json:"phase"`
}

// Project is a working directory that sessions ran in.
type Project struct {
	Path     string  `json:"path"`
	Name     string  `json:"name"` // last path element
	Sessions int     `json:"sessions"`
	Nodes    int     `json:"nodes"`
	Cost     float64 `json:"cost"` // USD
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
	Format string `json:"format" ts_type:"'pi' | 'claude-code' | 'codex'"`
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

// GraphFilter narrows the graph. Empty fields do not filter. From and To are
// ISO 8601 dates or times compared with node timestamps.
type GraphFilter struct {
	Project   string   `json:"project,omitempty"`
	SessionID string   `json:"sessionId,omitempty"`
	Types     []string `json:"types,omitempty"`
	From      string   `json:"from,omitempty"`
	To        string   `json:"to,omitempty"`
	// Archived brings back the nodes consolidation archived (left out by
	// default).
	Archived bool `json:"archived,omitempty"`
	// NoKnowledge leaves the knowledge nodes out (graph_knowledge.go); by
	// default they are drawn beside their segments.
	NoKnowledge bool `json:"noKnowledge,omitempty"`
}

// GraphNode is a node as the graph view draws it.
type GraphNode struct {
	ID        string  `json:"id"`
	Label     string  `json:"label"` // the segment summary's label (3-6 words); the node's summary until it has one
	Type      string  `json:"type"`  // node type
	Outcome   string  `json:"outcome"`
	SessionID string  `json:"sessionId"`
	Project   string  `json:"project"`
	Segment   int     `json:"segment"` // index in its session
	Timestamp string  `json:"timestamp"`
	Cost      float64 `json:"cost"`
	Tokens    int64   `json:"tokens"`
	Entries   int     `json:"entries"`
	// Knowledge is set on a knowledge node (its Type is then the kind; see
	// graph_knowledge.go), nil on a segment node.
	Knowledge *GraphKnowledge `json:"knowledge,omitempty"`
}

// GraphEdge is an edge as the graph view draws it.
type GraphEdge struct {
	ID       string         `json:"id"`
	Source   string         `json:"source"`
	Target   string         `json:"target"`
	Type     string         `json:"type"` // a structural type (continuation, fork, ...) or a relation (RELATES_TO, ...)
	Metadata map[string]any `json:"metadata,omitempty"`
	// Confidence is 0 to 1 (a boundary edge: 1); the view draws it as
	// opacity.
	Confidence float64  `json:"confidence"`
	Similarity *float64 `json:"similarity,omitempty"`
	Rationale  string   `json:"rationale,omitempty"`
	CreatedBy  string   `json:"createdBy" ts_type:"'boundary' | 'daemon' | 'offline' | 'model' | 'user' | 'agent'"`
}

// GraphData is the graph view's content.
type GraphData struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// NodeDetail is one node with its session context.
type NodeDetail struct {
	Node        graph.Node `json:"node"`
	SessionName string     `json:"sessionName"`
	// SessionTitle is the session's title (SessionSummary.Title).
	SessionTitle string `json:"sessionTitle"`
	// Summary is the segment's summary as shown (its sentence and label);
	// nil until it has one.
	Summary    *SummaryView   `json:"summary"`
	Segment    int            `json:"segment"`
	Boundaries []BoundaryView `json:"boundaries"` // that start the segment
	Incoming   []GraphEdge    `json:"incoming"`
	Outgoing   []GraphEdge    `json:"outgoing"`
	// Labels name the other ends of Incoming and Outgoing by node id (as
	// the graph labels them), for those the graph shown does not hold.
	Labels   map[string]string `json:"labels"`
	Versions []NodeVersionInfo `json:"versions"`
	// Analyses are the model analyses of the node, oldest first: what each
	// spent, the version it wrote, or why it failed (issue 9).
	Analyses []NodeAnalysisInfo `json:"analyses"`
}

// NodeVersionInfo is one stored version of a node.
type NodeVersionInfo struct {
	Version         int    `json:"version"`
	AnalyzedAt      string `json:"analyzedAt"`
	AnalyzerVersion string `json:"analyzerVersion"`
	TriggerReason   string `json:"triggerReason"`
}

// BoundaryView is a boundary for display.
type BoundaryView struct {
	Type      string         `json:"type"`
	EntryID   string         `json:"entryId"`
	Timestamp string         `json:"timestamp"`
	Metadata  map[string]any `json:"metadata,omitempty"`
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
	ToolOutputs []ToolOutputInfo `json:"toolOutputs,omitempty"`
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

// SearchHit is one search result. Kind is "node" or "entry" (NodeID is the
// node to jump to: the entry's segment node for entries), or "loom",
// "loomNode", "note", "summary" (NodeID ""). URI names the item to open
// (Links.Resolve says where): the node, the exact entry, the loom tree or
// node, the note, the summarised item; Within is a loom node's tree title.
type SearchHit struct {
	Kind      string  `json:"kind" ts_type:"'session' | 'node' | 'entry' | 'loom' | 'loomNode' | 'note' | 'summary' | 'reasoning' | 'reasoningNode' | 'knowledge'"`
	URI       string  `json:"uri"`
	Within    string  `json:"within,omitempty"`
	NodeID    string  `json:"nodeId"`
	SessionID string  `json:"sessionId"`
	Title     string  `json:"title"`
	Snippet   string  `json:"snippet"` // plain text; matches between \u0001 and \u0002
	Score     float64 `json:"score"`
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

// ---- Watch (app/watch.go) ---------------------------------------------------

// WatchedFolder is a folder the watcher follows: a default one (an agent's
// session folder; Agent names it) or one added, with its switch and whether
// it exists on this machine.
type WatchedFolder struct {
	Path    string `json:"path"`
	Agent   string `json:"agent,omitempty" ts_type:"'pi' | 'claude-code' | 'codex' | ''"`
	Default bool   `json:"default"`
	Enabled bool   `json:"enabled"`
	Exists  bool   `json:"exists"`
}

// WatchStatus is the watcher's state: whether it runs, the folders it
// follows, its last import (ISO 8601) and how many it made, the last error,
// and LiveSeconds (a session imported that recently is live).
type WatchStatus struct {
	Running     bool     `json:"running"`
	Folders     []string `json:"folders"`
	LastImport  string   `json:"lastImport,omitempty"`
	Imports     int      `json:"imports"`
	LastError   string   `json:"lastError,omitempty"`
	LiveSeconds int      `json:"liveSeconds"`
}

// WatchImported is the payload of "watch:imported": the files an import of
// the watcher imported, appended to or failed on, when (ISO 8601) and how
// long it took (milliseconds). Initial: the watcher's first pass over the
// folders (what they held when it started), whose sessions are not being
// written for all it knows; a later import's sessions are live.
type WatchImported struct {
	At      string       `json:"at"`
	Millis  int64        `json:"millis"`
	Initial bool         `json:"initial,omitempty"`
	Files   []FileReport `json:"files"`
	Totals  ImportTotals `json:"totals"`
}

// ---- Loom (app/loom.go) ----------------------------------------------------
// Times are ISO 8601 UTC with milliseconds ("2026-01-12T09:00:00.000Z").

// LoomTreeInfo is a loom tree in the sidebar and at the top of its view.
type LoomTreeInfo struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	Description   string `json:"description,omitempty"`
	Summary       string `json:"summary,omitempty"`
	Mode          string `json:"mode" ts_type:"'dialogue' | 'buffer'"`
	SystemContext string `json:"systemContext,omitempty"`
	RootNodeID    string `json:"rootNodeId"`
	CreatedAt     string `json:"createdAt"`
	UpdatedAt     string `json:"updatedAt"`
	Archived      bool   `json:"archived"`
	ArchivedAt    string `json:"archivedAt,omitempty"`
	// Nodes counts every node stored, versions and annotations included.
	Nodes int `json:"nodes"`
	// Positions counts the nodes the tree map draws (loom.Tree.Positions):
	// Nodes less annotations and, in buffer mode, versions. What the
	// window calls the tree's nodes.
	Positions int `json:"positions"`
	// CopiedFrom is the id of the tree this one is a copy of (Loom.ImportCopy),
	// CopySource the file it was imported from; both "" for an original.
	CopiedFrom string `json:"copiedFrom,omitempty"`
	CopySource string `json:"copySource,omitempty"`
}

// LoomTreeSpec is a new tree: Mode "dialogue" (a chat: editing makes a
// sibling branch) or "buffer" (a document: editing makes a version).
// RootText is the first node, the person's prompt. Title defaults to the
// root's first words, else "Loom Tree N".
type LoomTreeSpec struct {
	Title         string `json:"title,omitempty"`
	Mode          string `json:"mode" ts_type:"'dialogue' | 'buffer'"`
	SystemContext string `json:"systemContext,omitempty"`
	RootText      string `json:"rootText"`
}

// ActivePath is the path the loom view shows: the node it ends at and, in
// buffer mode, the version chosen at each position (family id -> version
// id; a position without a choice shows its family's newest version).
type ActivePath struct {
	NodeID   string            `json:"nodeId"`
	Versions map[string]string `json:"versions,omitempty"`
}

// LoomNode is one node of a loom tree, text as plain text.
//
// ParentID is the primary source of its incoming edge ("" for the root);
// ParentIDs all sources. Children are the positions continuing it, in
// creation order (in buffer mode those of all its versions). Position is
// false for what the tree map folds away: annotations, and in buffer mode
// versions (EditedFrom set), which stand at their Family's position. Hidden
// is true when it or an ancestor is pruned.
type LoomNode struct {
	ID              string   `json:"id"`
	LocalID         string   `json:"localId"`
	ParentID        string   `json:"parentId,omitempty"`
	ParentIDs       []string `json:"parentIds"`
	Children        []string `json:"children"`
	AuthorType      string   `json:"authorType" ts_type:"'human' | 'model'"`
	AuthorName      string   `json:"authorName"`
	Model           string   `json:"model,omitempty"` // the agent's model key, "openai/gpt-4o"
	Text            string   `json:"text"`
	ContentType     string   `json:"contentType"` // "text", "image", "audio", "mixed"
	CreatedAt       string   `json:"createdAt"`
	Bookmarked      bool     `json:"bookmarked"`
	BookmarkLabel   string   `json:"bookmarkLabel,omitempty"`
	Pruned          bool     `json:"pruned"`
	Hidden          bool     `json:"hidden"`
	Excluded        bool     `json:"excluded"`
	EditedFrom      string   `json:"editedFrom,omitempty"`
	Family          string   `json:"family"` // id of the oldest node of its version family
	Position        bool     `json:"position"`
	Annotation      bool     `json:"annotation,omitempty"`
	Summary         string   `json:"summary,omitempty"`
	ContentHash     string   `json:"contentHash"`
	RawResponseHash string   `json:"rawResponseHash,omitempty"`
}

// LoomTreeView is a whole tree: every node, the branch points and leaves
// (positions, creation order) and the active path to open it on (the one
// remembered in settings, else the newest visible leaf).
type LoomTreeView struct {
	Tree         LoomTreeInfo `json:"tree"`
	Nodes        []LoomNode   `json:"nodes"` // creation order, root first
	BranchPoints []string     `json:"branchPoints"`
	Leaves       []string     `json:"leaves"`
	ActivePath   ActivePath   `json:"activePath"`
}

// AuthorshipRun is a stretch of a node's text written by one author
// ("model" or "human"); a node's runs concatenated are its text exactly.
type AuthorshipRun struct {
	Text   string `json:"text"`
	Author string `json:"author" ts_type:"'human' | 'model'"`
}

// LoomChoice is a set of alternatives at one place of the path, in creation
// order, and which of them the path shows (IDs[Index]).
type LoomChoice struct {
	IDs   []string `json:"ids"`
	Index int      `json:"index"`
}

// LoomPathStep is one node of the active path with its authorship runs, its
// siblings (the positions under the same parent, itself included; in buffer
// mode a position is named by its family id) and its versions (its version
// family; one entry when never edited).
type LoomPathStep struct {
	Node     LoomNode        `json:"node"`
	Runs     []AuthorshipRun `json:"runs"`
	Siblings LoomChoice      `json:"siblings"`
	Versions LoomChoice      `json:"versions"`
}

// LoomPathView is the reading pane: the resolved active path from the root.
type LoomPathView struct {
	TreeID     string         `json:"treeId"`
	Mode       string         `json:"mode" ts_type:"'dialogue' | 'buffer'"`
	ActivePath ActivePath     `json:"activePath"`
	View       string         `json:"view" ts_type:"'raw' | 'semantic'"` // authorship view
	Steps      []LoomPathStep `json:"steps"`
}

// LoomGenerateRequest asks for N continuations of the active path
// (ActivePath.NodeID "" = the remembered one). N 0 means the settings' N.
// RequestID, when set, names the generation in its events and in
// CancelGeneration; otherwise one is made.
type LoomGenerateRequest struct {
	TreeID     string     `json:"treeId"`
	ActivePath ActivePath `json:"activePath"`
	N          int        `json:"n"`
	RequestID  string     `json:"requestId,omitempty"`
}

// LoomGenerated is a finished generation: the new model nodes, children of
// ParentID, by completion index. Also the payload of "loom:done".
type LoomGenerated struct {
	RequestID string     `json:"requestId"`
	TreeID    string     `json:"treeId"`
	ParentID  string     `json:"parentId"`
	Nodes     []LoomNode `json:"nodes"`
}

// LoomGenerationStart is the payload of "loom:start".
type LoomGenerationStart struct {
	RequestID string `json:"requestId"`
	TreeID    string `json:"treeId"`
	ParentID  string `json:"parentId"`
	N         int    `json:"n"`
	Model     string `json:"model"`
}

// LoomDelta is the payload of "loom:delta": a piece of continuation Index's
// text. Per index, deltas come in order and concatenate to the node's text.
type LoomDelta struct {
	RequestID string `json:"requestId"`
	Index     int    `json:"index"`
	Text      string `json:"text"`
}

// LoomGenerationError is the payload of "loom:error": the generation failed
// or was cancelled, and no node was written.
type LoomGenerationError struct {
	RequestID string `json:"requestId"`
	TreeID    string `json:"treeId"`
	Error     string `json:"error"`
	Cancelled bool   `json:"cancelled"`
}

// LoomChanged is the payload of "loom:changed": tree TreeID changed (nodes,
// node state, archived), or was created or imported.
type LoomChanged struct {
	TreeID string `json:"treeId"`
}

// LoomVersion is one node of an edit history (a version family). InChain
// marks the nodes along editedFrom from the original to the node asked about.
type LoomVersion struct {
	ID         string `json:"id"`
	LocalID    string `json:"localId"`
	AuthorType string `json:"authorType" ts_type:"'human' | 'model'"`
	AuthorName string `json:"authorName"`
	CreatedAt  string `json:"createdAt"`
	Text       string `json:"text"`
	EditedFrom string `json:"editedFrom,omitempty"`
	InChain    bool   `json:"inChain"`
}

// DiffOp is one operation of a text diff: Op "equal", "delete" or
// "insert". Equal and delete texts give the old text, equal and insert the
// new; a replacement is a delete then an insert.
type DiffOp struct {
	Op   string `json:"op" ts_type:"'equal' | 'delete' | 'insert'"`
	Text string `json:"text"`
}

// LoomTamper is one finding of Verify: Reason "content", "raw_response",
// "parent_hash", "parent_set", "edit_lineage" or "blob".
type LoomTamper struct {
	NodeID    string `json:"nodeId"`
	LocalID   string `json:"localId"`
	Reason    string `json:"reason"`
	RelatedID string `json:"relatedId,omitempty"`
	Detail    string `json:"detail"`
}

// LoomImportResult is an imported tree. Format is "rhizome" or
// "socketteer"; Warnings say what a socketteer/loom file had that was not
// kept; Tampered lists hash-chain findings (a tampered tree is imported all
// the same, for them to be seen).
type LoomImportResult struct {
	Tree       LoomTreeInfo `json:"tree"`
	Format     string       `json:"format"`
	ActivePath ActivePath   `json:"activePath"`
	Warnings   []string     `json:"warnings"`
	Tampered   []LoomTamper `json:"tampered"`
}

// ---- Settings (app/settings.go) ---------------------------------------------

// LLMSettings is the model configuration as the frontend sees it: never the
// API key, only whether one is stored for this provider and base URL.
type LLMSettings struct {
	Provider    string   `json:"provider"` // "openai" (any OpenAI-compatible server) or "anthropic"
	BaseURL     string   `json:"baseUrl"`  // "" = the provider's default
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature" ts_type:"number | null"` // null = the server's default
	MaxTokens   int      `json:"maxTokens"`                           // per continuation; 0 = the server's default
	N           int      `json:"n"`                                   // continuations per generation; 0 = 1
	NoStream    bool     `json:"noStream"`
	APIKeySet   bool     `json:"apiKeySet"`
	Configured  bool     `json:"configured"` // provider and model set: generation can run
}

// LLMSettingsInput is the settings form: APIKey "" keeps the stored key,
// ClearAPIKey forgets it.
type LLMSettingsInput struct {
	Provider    string   `json:"provider"`
	BaseURL     string   `json:"baseUrl"`
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature" ts_type:"number | null"`
	MaxTokens   int      `json:"maxTokens"`
	N           int      `json:"n"`
	NoStream    bool     `json:"noStream"`
	APIKey      string   `json:"apiKey,omitempty"`
	ClearAPIKey bool     `json:"clearApiKey,omitempty"`
}

// SettingsView is every setting the Settings view shows.
type SettingsView struct {
	LLM       LLMSettings     `json:"llm"`
	Summaries SummarySettings `json:"summaries"`
	ConfigDir string          `json:"configDir"` // the folder beside the library holding the API keys (secrets.json, 0600)
}

// SummarySettings is how summaries are made (Settings.SetSummaries): offline
// only (the default), or with a model: the summary model when one is named
// (a cheaper one, say), else the generation model (LLMSettings).
type SummarySettings struct {
	UseModel bool `json:"useModel"` // summarise with a model; false: offline summaries only
	// The summary model; Model "" = the generation model.
	Provider  string `json:"provider"` // "openai" or "anthropic" ("" with Model "")
	BaseURL   string `json:"baseUrl"`  // "" = the provider's default
	Model     string `json:"model"`
	APIKeySet bool   `json:"apiKeySet"` // a key is stored for the summary model's provider and base URL
	// Concurrency is how many summaries are made at once (1..8).
	Concurrency int `json:"concurrency"`
	// LoomTreeEvery: a loom tree's summary is made again every this many
	// new nodes (and on demand).
	LoomTreeEvery int `json:"loomTreeEvery"`
	// InUse is the model summaries are made with now ("anthropic/claude-haiku-4-5"),
	// "" when offline; Overridden says it was set for this run (command-line
	// flags or RHIZOME_LLM_* variables), not by these settings.
	InUse      string `json:"inUse"`
	Overridden bool   `json:"overridden"`
}

// SummarySettingsInput is the summary part of the settings form: APIKey ""
// keeps the stored key of the summary model's provider and base URL.
type SummarySettingsInput struct {
	UseModel      bool   `json:"useModel"`
	Provider      string `json:"provider"`
	BaseURL       string `json:"baseUrl"`
	Model         string `json:"model"`
	APIKey        string `json:"apiKey,omitempty"`
	Concurrency   int    `json:"concurrency"`
	LoomTreeEvery int    `json:"loomTreeEvery"`
}

// ---- Summaries (app/summaries.go) -------------------------------------------

// SummaryView is what an item (a rhizome: URI) is about, as shown: its
// title (sessions, loom trees, projects), text and label, where they came
// from, and its place in the background queue.
type SummaryView struct {
	Item  string `json:"item"` // rhizome:session/<id>, rhizome:node/<id>, rhizome:loom/<tree>[/<node>], rhizome:project/<path>
	Kind  string `json:"kind" ts_type:"'session' | 'segment' | 'loomNode' | 'loomTree' | 'project'"`
	Title string `json:"title"` // "" for segments and loom nodes
	Text  string `json:"text"`
	Label string `json:"label"` // 3 to 6 words, for the graph and lanes
	// Source: "offline", "pi" (pi's own compaction or branch summary),
	// "human" (edited by the person) or "model:<provider>/<model>"; "" none yet.
	Source string `json:"source"`
	MadeAt string `json:"madeAt"`
	// Stale: what is shown was made from other inputs than the item's
	// current ones (a newer one is on its way, or the person's edit
	// predates a change).
	Stale bool `json:"stale"`
	// Edited: a person's edit is in force (Title or Text, or both). Generated
	// is then what shows without it (Summaries.Revert goes back to it).
	Edited    bool                `json:"edited"`
	Generated *SummaryVersionView `json:"generated,omitempty"`
	// Queued: "offline" or "model" while on the background queue, "" when not.
	Queued   string `json:"queued" ts_type:"'' | 'offline' | 'model'"`
	Error    string `json:"error,omitempty"` // the last model failure, kept until a model summary succeeds
	Attempts int    `json:"attempts"`        // model failures since the last success
	NextTry  string `json:"nextTry,omitempty"`
	// Versions: every summary kept, oldest first (all the person's edits,
	// the latest of each other source).
	Versions []SummaryVersionView `json:"versions"`
}

// SummaryVersionView is one summary made for an item.
type SummaryVersionView struct {
	Version int    `json:"version"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	Label   string `json:"label"`
	Source  string `json:"source"`
	MadeAt  string `json:"madeAt"`
	Stale   bool   `json:"stale"`
}

// SummaryQueueStatus is the background queue of summaries, as the
// "summary:progress" event and Summaries.QueueStatus give it.
type SummaryQueueStatus struct {
	Queued   int `json:"queued"`   // items waiting (offline and model jobs)
	Running  int `json:"running"`  // being made now
	Done     int `json:"done"`     // made since the queue was last empty
	Retrying int `json:"retrying"` // waiting for a retry after a model failure
	Failed   int `json:"failed"`   // items whose last model attempt failed
	// Model is the model summaries are made with ("" offline).
	Model string `json:"model"`
	// Working: the worker has something to do now (queued and due, or running).
	Working bool `json:"working"`
}

// SummariesUpdated is the payload of "summary:updated": the items whose
// summary changed.
type SummariesUpdated struct {
	Items []string `json:"items"`
}

// LLMTestResult is the outcome of Settings.TestLLM: OK, or Error with the
// provider's message. Text is what the model answered.
type LLMTestResult struct {
	OK        bool   `json:"ok"`
	Error     string `json:"error,omitempty"`
	Model     string `json:"model"`
	Text      string `json:"text,omitempty"`
	ElapsedMs int64  `json:"elapsedMs"`
}

// ---- Reasoning graphs (app/reasoning.go) -------------------------------------
// MemoBrain reasoning graphs: task, subtask, evidence and summary nodes with
// integer ids, grown by patches and compressed by flush and fold, every
// operation a step of the graph's history. Step k of the history is the
// state after the first k operations (0: where the history starts, the
// snapshot as imported or the empty graph). See backend/memobrain.

// ReasoningImport is what importing a MemoBrain file made (FileReport.Reasoning):
// the graph, its nodes by kind (task, subtask, evidence, summary) and its
// edges by kind (decompose, refine, support), the messages of its
// conversation and how many of the turn ids its nodes name the conversation
// lacks. For a conversation file, the graph it was attached to.
type ReasoningImport struct {
	GraphID     string         `json:"graphId"`
	URI         string         `json:"uri"` // rhizome:reasoning/<graphId>
	Title       string         `json:"title"`
	Wrapped     bool           `json:"wrapped"` // the graph sat under "memory" in the file
	Nodes       int            `json:"nodes"`
	NodesByKind map[string]int `json:"nodesByKind"`
	Edges       int            `json:"edges"`
	EdgesByKind map[string]int `json:"edgesByKind"`
	Messages    int            `json:"messages"`
	// TurnsBeyond counts the turn ids nodes name that the conversation does
	// not have (0 without a conversation).
	TurnsBeyond int `json:"turnsBeyond"`
	// MessagesFile is the conversation file the graph was given, "" when
	// none was (or it came inside the snapshot).
	MessagesFile string `json:"messagesFile,omitempty"`
}

// ReasoningGraphInfo is a reasoning graph in lists and at the top of its
// view. Times are ISO 8601 UTC with milliseconds.
type ReasoningGraphInfo struct {
	ID          string         `json:"id"`
	URI         string         `json:"uri"`
	Title       string         `json:"title"`
	SourceName  string         `json:"sourceName"` // the file it was imported from; "" when made from a session
	SessionID   string         `json:"sessionId"`  // the session it was made from; "" for an import
	Model       string         `json:"model"`      // "provider/model" that made it
	Steps       int            `json:"steps"`      // operations in its history
	Nodes       int            `json:"nodes"`
	NodesByKind map[string]int `json:"nodesByKind"`
	Active      int            `json:"active"`
	Folded      int            `json:"folded"`
	Flushed     int            `json:"flushed"`
	Edges       int            `json:"edges"`
	Messages    int            `json:"messages"` // messages of its conversation; 0: none
	CreatedAt   string         `json:"createdAt"`
	UpdatedAt   string         `json:"updatedAt"`
}

// ReasoningNote is one {role, content} note of a node's thought. Standard
// is whether the role is assistant, user or system (else a custom role, as
// multi-agent runs write: "Agent_Analyst").
type ReasoningNote struct {
	Role     string `json:"role"`
	Content  string `json:"content"`
	Standard bool   `json:"standard"`
}

// ReasoningNodeView is one node of a reasoning graph, content whole. A
// node's content never changes; only its state does (flush and fold).
// Thought is how its thought was written: "text" (Text: the task's
// "Begin to solve the task: …"), "notes" or "encodedNotes" (a summary's
// notes as a JSON string; Notes either way), "other" (Text: the raw JSON).
// AddedAt is the history step that made it (1 = the first operation; 0:
// where the history starts).
type ReasoningNodeView struct {
	ID      int             `json:"id"`
	URI     string          `json:"uri"` // rhizome:reasoning/<graphId>/<id>
	Kind    string          `json:"kind"`
	State   string          `json:"state" ts_type:"'active' | 'folded' | 'flushed'"`
	Thought string          `json:"thought" ts_type:"'text' | 'notes' | 'encodedNotes' | 'other'"`
	Text    string          `json:"text"`
	Notes   []ReasoningNote `json:"notes"`
	Label   string          `json:"label"` // one line, at most about 140 characters
	TurnIDs []int           `json:"turnIds"`
	AddedAt int             `json:"addedAt"`
}

// ReasoningEdgeView is an edge from Src (the parent) to Dst. Kind is
// decompose, refine or support (or a kind the file wrote); Inferred when it
// was inferred from the node kinds.
type ReasoningEdgeView struct {
	Src       int    `json:"src"`
	Dst       int    `json:"dst"`
	Rationale string `json:"rationale"`
	Kind      string `json:"kind"`
	Inferred  bool   `json:"inferred"`
}

// ReasoningSpan is a summary node and the nodes a fold replaced with it;
// Edges are the edges between them the fold dropped ([src, dst]), empty
// when the fold is not in the history (Logged false: inferred from turn
// ids).
type ReasoningSpan struct {
	Summary int      `json:"summary"`
	Nodes   []int    `json:"nodes"`
	Edges   [][2]int `json:"edges"`
	Logged  bool     `json:"logged"`
}

// ReasoningStepInfo is one operation of a graph's history: Index from 0 (the
// state after it is step Index+1), Kind init, patch, flush or fold, the turn
// ids a patch was given, the nodes it added, the nodes whose state it
// changed, how many edges it added, removed and re-routed, a flush's or
// fold's rationale, and for a fold the edges between the folded nodes it
// dropped ([src, dst]).
type ReasoningStepInfo struct {
	Index         int      `json:"index"`
	Kind          string   `json:"kind" ts_type:"'init' | 'patch' | 'flush' | 'fold'"`
	TurnIDs       []int    `json:"turnIds"`
	NodesAdded    []int    `json:"nodesAdded"`
	NodesChanged  []int    `json:"nodesChanged"`
	EdgesAdded    int      `json:"edgesAdded"`
	EdgesRemoved  int      `json:"edgesRemoved"`
	EdgesRerouted int      `json:"edgesRerouted"`
	Rationale     string   `json:"rationale"`
	Inside        [][2]int `json:"inside"`
}

// ReasoningGraphView is a whole reasoning graph as it is now (Step = its
// step count): every node ever made, content whole, with its state now, the
// edges, the fold spans and the history's steps.
type ReasoningGraphView struct {
	Info    ReasoningGraphInfo  `json:"info"`
	Step    int                 `json:"step"`
	Nodes   []ReasoningNodeView `json:"nodes"`
	Edges   []ReasoningEdgeView `json:"edges"`
	Spans   []ReasoningSpan     `json:"spans"`
	History []ReasoningStepInfo `json:"history"`
}

// ReasoningNodeState is a node's state at one step of the history.
type ReasoningNodeState struct {
	ID    int    `json:"id"`
	State string `json:"state" ts_type:"'active' | 'folded' | 'flushed'"`
}

// ReasoningState is a graph at step Step of its history (Reasoning.At): the
// nodes that exist then with their state (content as in the graph view),
// the edges then, the fold spans made by then, and Diff, what the step's
// operation changed (the operation Step-1; null at step 0).
type ReasoningState struct {
	GraphID string               `json:"graphId"`
	Step    int                  `json:"step"`
	Nodes   []ReasoningNodeState `json:"nodes"`
	Edges   []ReasoningEdgeView  `json:"edges"`
	Spans   []ReasoningSpan      `json:"spans"`
	Diff    *ReasoningDiff       `json:"diff"`
}

// ReasoningEdgeRef is an edge an operation added, removed or re-routed, with
// its place in the edge list (before the operation for a removed edge or
// the From of a re-routed one, after it otherwise).
type ReasoningEdgeRef struct {
	Index     int    `json:"index"`
	Src       int    `json:"src"`
	Dst       int    `json:"dst"`
	Rationale string `json:"rationale"`
}

// ReasoningReroute is an edge a fold moved onto its summary.
type ReasoningReroute struct {
	From ReasoningEdgeRef `json:"from"`
	To   ReasoningEdgeRef `json:"to"`
}

// ReasoningNodeChange is a node whose state an operation changed.
type ReasoningNodeChange struct {
	ID   int    `json:"id"`
	From string `json:"from" ts_type:"'active' | 'folded' | 'flushed'"`
	To   string `json:"to" ts_type:"'active' | 'folded' | 'flushed'"`
}

// ReasoningDiff is what operation Index of a graph's history changed:
// nodes added, nodes whose state changed, edges added, removed and
// re-routed, and for a patch the ids its tmp ids got.
type ReasoningDiff struct {
	Index         int                   `json:"index"`
	Kind          string                `json:"kind" ts_type:"'init' | 'patch' | 'flush' | 'fold'"`
	Input         string                `json:"input"` // the operation's JSON, as the model or the person wrote it
	TurnIDs       []int                 `json:"turnIds"`
	NodesAdded    []int                 `json:"nodesAdded"`
	NodesChanged  []ReasoningNodeChange `json:"nodesChanged"`
	EdgesAdded    []ReasoningEdgeRef    `json:"edgesAdded"`
	EdgesRemoved  []ReasoningEdgeRef    `json:"edgesRemoved"`
	EdgesRerouted []ReasoningReroute    `json:"edgesRerouted"`
	TmpIDs        map[string]int        `json:"tmpIds"`
}

// ReasoningTurnEntry is a session entry a turn was made from:
// rhizome:entry/<sessionId>/<entryId>, and the knowledge-graph node of the
// segment holding it ("" when the library no longer holds it).
type ReasoningTurnEntry struct {
	URI       string `json:"uri"`
	SessionID string `json:"sessionId"`
	EntryID   string `json:"entryId"`
	NodeID    string `json:"nodeId"`
}

// ReasoningTurn is one turn (message) of a graph's conversation: its index,
// role and content (cut to MaxTurnContent bytes; Cut says so), and the
// session entries it was made from. Role and Content are "" when the graph
// has no conversation or it has no such message.
type ReasoningTurn struct {
	Turn    int                  `json:"turn"`
	Role    string               `json:"role"`
	Content string               `json:"content"`
	Cut     bool                 `json:"cut"`
	Entries []ReasoningTurnEntry `json:"entries"`
}

// ReasoningRunRequest asks for the reasoning graph of a session (Reasoning.
// RunOnSession): Budget is how many nodes the graph may show (active or
// flushed) before MemoBrain's flush and fold run (0: DefaultReasoningBudget);
// RequestID, when set, names the run in its events and in CancelRun.
type ReasoningRunRequest struct {
	SessionID string `json:"sessionId"`
	Budget    int    `json:"budget"`
	RequestID string `json:"requestId"`
}

// ReasoningRunProblem is a turn (Phase "patch") or a flush and fold
// (Phase "recall", after turn Turn) whose model reply could not be used:
// it was left out and the run went on. Error names the bad op.
type ReasoningRunProblem struct {
	Turn  int    `json:"turn"`
	Phase string `json:"phase" ts_type:"'patch' | 'recall'"`
	Error string `json:"error"`
}

// ReasoningRunResult is a finished run: the graph made, the turns (pairs of
// messages) read, patches applied, flush-and-fold rounds run, and the
// replies left out.
type ReasoningRunResult struct {
	RequestID string                `json:"requestId"`
	Graph     ReasoningGraphInfo    `json:"graph"`
	Turns     int                   `json:"turns"`
	Applied   int                   `json:"applied"`
	Recalls   int                   `json:"recalls"`
	Problems  []ReasoningRunProblem `json:"problems"`
}

// ReasoningRunProgress is the payload of "reasoning:progress" while a run
// goes: Turn of Turns (from 1), Phase "patch" (asking for turn Turn's
// patch), "recall" (flush and fold after it) or "saving", the nodes the
// graph shows now, and the replies left out so far.
type ReasoningRunProgress struct {
	RequestID string `json:"requestId"`
	SessionID string `json:"sessionId"`
	Turn      int    `json:"turn"`
	Turns     int    `json:"turns"`
	Phase     string `json:"phase" ts_type:"'patch' | 'recall' | 'saving'"`
	Shown     int    `json:"shown"`
	Problems  int    `json:"problems"`
}

// ReasoningChanged is the payload of "reasoning:changed": graph GraphID was
// imported, made, changed or deleted.
type ReasoningChanged struct {
	GraphID string `json:"graphId"`
}

// HybridQuery is one hybrid search (issue 10, section 1): the query (it may
// hold a time expression such as "last week"), filters, and whether to grow
// bridges from the results.
type HybridQuery struct {
	Query  string       `json:"query"`
	Filter SearchFilter `json:"filter"`
	Limit  int          `json:"limit"` // results; 0 means 30, at most 200
	// Bridges asks for paths of up to three edges from the results' nodes
	// (source -> bridge -> target).
	Bridges bool `json:"bridges"`
}

// SearchFilter narrows a hybrid search; empty fields do not filter. Dates
// are YYYY-MM-DD or RFC 3339; To is inclusive of its day.
type SearchFilter struct {
	Project       string   `json:"project"`
	Kinds         []string `json:"kinds"` // "node", "entry"
	NodeTypes     []string `json:"nodeTypes"`
	Roles         []string `json:"roles"` // user, assistant, toolResult
	Tools         []string `json:"tools"`
	Files         []string `json:"files"` // a path or its end ("server.ts")
	Models        []string `json:"models"`
	RelationTypes []string `json:"relationTypes"`
	From          string   `json:"from"`
	To            string   `json:"to"`
	// Archived brings archived nodes (and their entries) back into the
	// results; they are left out by default.
	Archived bool `json:"archived"`
}

// ScorePart is one component's share of a result's score ("why this
// result"): Contribution = Value * Weight.
type ScorePart struct {
	Component    string  `json:"component"`
	Value        float64 `json:"value"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// HybridHit is one ranked item of a hybrid search with its score broken
// down by component, largest contribution first.
type HybridHit struct {
	Item      string      `json:"item"` // "node:<id>" or "entry:<key>"
	URI       string      `json:"uri"`  // its rhizome: URI
	Kind      string      `json:"kind" ts_type:"'node' | 'entry'"`
	NodeID    string      `json:"nodeId"` // the node to open (an entry's segment node)
	SessionID string      `json:"sessionId"`
	Project   string      `json:"project"`
	NodeType  string      `json:"nodeType"`
	Role      string      `json:"role"`
	Time      string      `json:"time"` // RFC 3339, "" when unknown
	Title     string      `json:"title"`
	Snippet   string      `json:"snippet"` // plain text, at most 240 characters
	Score     float64     `json:"score"`
	Why       []ScorePart `json:"why"`
}

// BridgeStep is one edge of a bridge path, read from the node before it to
// the node after it.
type BridgeStep struct {
	Type       string  `json:"type"`
	Confidence float64 `json:"confidence"`
	Rationale  string  `json:"rationale"`
	Forward    bool    `json:"forward"` // the edge points along the path
}

// BridgePath is a path of up to three edges between nodes: NodeIDs[0] is
// the source, the last the target, the others bridges; Labels are the
// nodes' summaries. Score is the product of the edges' confidences (times
// the seed's score for bridges from a search).
type BridgePath struct {
	NodeIDs []string     `json:"nodeIds"`
	Labels  []string     `json:"labels"`
	Steps   []BridgeStep `json:"steps"`
	Score   float64      `json:"score"`
}

// HybridResult is a hybrid search's answer: the hits, how the query was
// read, which vectors ranked it, and bridges when asked.
type HybridResult struct {
	Hits    []HybridHit `json:"hits"`
	Keyword string      `json:"keyword"` // the query without its time expression
	// TimeText is the time expression read from the query ("last week"),
	// TimeFrom and TimeTo its range (RFC 3339, To exclusive).
	TimeText string `json:"timeText"`
	TimeFrom string `json:"timeFrom"`
	TimeTo   string `json:"timeTo"`
	// VectorModel names the vectors behind the vector component (an
	// embedding model, or "lsa-…" for the offline model); "" when there
	// are none yet.
	VectorModel string `json:"vectorModel"`
	// VectorNote says why the vector component is missing or partial
	// (vectors still being made, the endpoint failing).
	VectorNote string       `json:"vectorNote"`
	Bridges    []BridgePath `json:"bridges"`
}

// SearchSettings are the hybrid search's settings: the component weights,
// the recency decay and the embedding endpoint (an OpenAI-compatible
// /v1/embeddings; none means the offline model).
type SearchSettings struct {
	Weights   SearchWeights `json:"weights"`
	DecayRate float64       `json:"decayRate"` // recency: exp(-rate * age in days)
	// EmbeddingBaseURL and EmbeddingModel name the endpoint ("" for the
	// offline LSA model). The API key of the model setting for the same
	// base URL is used, if any.
	EmbeddingBaseURL string `json:"embeddingBaseUrl"`
	EmbeddingModel   string `json:"embeddingModel"`
}

// SearchWeights are the hybrid score's weights (automem-features.md,
// "Hybrid Search & Scoring"); each >= 0.
type SearchWeights struct {
	Vector     float64 `json:"vector"`
	Keyword    float64 `json:"keyword"`
	Relation   float64 `json:"relation"`
	Content    float64 `json:"content"`
	Temporal   float64 `json:"temporal"`
	Tag        float64 `json:"tag"`
	Importance float64 `json:"importance"`
	Recency    float64 `json:"recency"`
}

// VectorStatus says how far the background embedding queue has come.
type VectorStatus struct {
	Model   string `json:"model"`   // the model vectors are made with
	Vectors int    `json:"vectors"` // vectors in the nearest-neighbour index
	Pending int    `json:"pending"` // items left to embed (as last counted)
	Running bool   `json:"running"`
	Error   string `json:"error"` // the last run's error, if any
}

// ConsolidateRequest is one consolidation run asked for: the cycles (none:
// all four) and whether only to plan it.
type ConsolidateRequest struct {
	Cycles []string `json:"cycles" ts_type:"('decay' | 'creative' | 'cluster' | 'forget')[]"`
	DryRun bool     `json:"dryRun"`
}

// ConsolidationCycle counts what one cycle of a run did.
type ConsolidationCycle struct {
	Cycle        string `json:"cycle"`
	Examined     int    `json:"examined"`
	Rescored     int    `json:"rescored"`
	EdgesAdded   int    `json:"edgesAdded"`
	MetaPatterns int    `json:"metaPatterns"`
	Extended     int    `json:"extended"`
	PartOf       int    `json:"partOf"`
	Archived     int    `json:"archived"`
	Deleted      int    `json:"deleted"`
	Spared       int    `json:"spared"`
}

// ConsolidationChange is one change of a run, for people.
type ConsolidationChange struct {
	Op     string  `json:"op" ts_type:"'score' | 'archive' | 'unarchive' | 'addNode' | 'removeNode' | 'addEdge' | 'removeEdge'"`
	Cycle  string  `json:"cycle"`
	Item   string  `json:"item"`   // the rhizome: URI changed (a node, or an edge's source)
	Target string  `json:"target"` // an edge's target
	Label  string  `json:"label"`  // the item's summary, when known
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Reason string  `json:"reason"`
}

// ConsolidationRun is one run's log: what it changed (up to 500 changes
// listed, the rest counted), per cycle, and whether it was undone.
type ConsolidationRun struct {
	ID          string                `json:"id"`
	At          string                `json:"at"` // RFC 3339
	Cycles      []string              `json:"cycles"`
	DryRun      bool                  `json:"dryRun"`
	Scheduled   bool                  `json:"scheduled"`
	UndoOf      string                `json:"undoOf"`
	UndoneBy    string                `json:"undoneBy"`
	Stats       []ConsolidationCycle  `json:"stats"`
	ChangeCount int                   `json:"changeCount"`
	Changes     []ConsolidationChange `json:"changes"`
	Spared      int                   `json:"spared"`
}

// PatternNode is one node behind a pattern's finding: its URI, the segment
// node to open for it (the node itself, or the segment a knowledge node was
// found in; "" when none), its kind and label.
type PatternNode struct {
	URI    string `json:"uri"`
	NodeID string `json:"nodeId"`
	Kind   string `json:"kind"`
	Label  string `json:"label"`
}

// PatternItem is one finding of a pattern: a line ("tried 2x", "corrected
// 3x") and the nodes behind it.
type PatternItem struct {
	Key     string        `json:"key"`
	Title   string        `json:"title"`
	Count   int           `json:"count"`
	Project string        `json:"project"`
	Nodes   []PatternNode `json:"nodes"`
}

// PatternSection is one of the seven patterns with its findings, the
// largest first.
type PatternSection struct {
	Pattern string        `json:"pattern"`
	Name    string        `json:"name"`
	Items   []PatternItem `json:"items"`
}

// UsageSeries is one model's or project's tokens and cost per day, aligned
// with UsageChart.Days.
type UsageSeries struct {
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Tokens      []int64   `json:"tokens"`
	Cost        []float64 `json:"cost"` // USD
	TotalTokens int64     `json:"totalTokens"`
	TotalCost   float64   `json:"totalCost"`
}

// UsageChart is token use and cost per day (every day from the first to the
// last, zero where nothing was used), per model and per project.
type UsageChart struct {
	Days        []string      `json:"days"` // YYYY-MM-DD, UTC
	Tokens      []int64       `json:"tokens"`
	Cost        []float64     `json:"cost"`
	ByModel     []UsageSeries `json:"byModel"`   // costliest first
	ByProject   []UsageSeries `json:"byProject"` // costliest first
	TotalTokens int64         `json:"totalTokens"`
	TotalCost   float64       `json:"totalCost"`
}

// Dashboard is the patterns dashboard: the seven patterns in the spec's
// order and usage over time.
type Dashboard struct {
	Sections []PatternSection `json:"sections"`
	Usage    UsageChart       `json:"usage"`
}
