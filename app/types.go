package app

import "rhizome/backend/graph"

// These are the shapes the window and `rhizome serve` exchange with the
// frontend (frontend/src/lib/api.ts mirrors them). JSON names are the
// contract; Go names follow them.

// FileReport is the result of importing one session file. Status is one of
// "imported", "unchanged", "appended", "failed".
type FileReport struct {
	Path             string         `json:"path"`
	Format           string         `json:"format"` // "pi"
	Version          int            `json:"version"`
	SessionID        string         `json:"sessionId"`
	Status           string         `json:"status"`
	Entries          int            `json:"entries"` // entries in the file (header excluded)
	NewEntries       int            `json:"newEntries"`
	EntriesByType    map[string]int `json:"entriesByType"`
	MalformedLines   []LineProblem  `json:"malformedLines"`
	PendingTail      bool           `json:"pendingTail"`
	Segments         int            `json:"segments"`
	BoundariesByType map[string]int `json:"boundariesByType"`
	EdgesByType      map[string]int `json:"edgesByType"`
	Error            string         `json:"error,omitempty"`
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
	Malformed int `json:"malformed"`
}

// ImportReport is the result of one import request.
type ImportReport struct {
	Files  []FileReport `json:"files"`
	Totals ImportTotals `json:"totals"`
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
}

// SessionSummary is one session in the sidebar.
type SessionSummary struct {
	ID            string  `json:"id"`
	Path          string  `json:"path"`
	Name          string  `json:"name"`    // session_info name, else file name
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
}

// GraphFilter narrows the graph. Empty fields do not filter. From and To are
// ISO 8601 dates or times compared with node timestamps.
type GraphFilter struct {
	Project   string   `json:"project,omitempty"`
	SessionID string   `json:"sessionId,omitempty"`
	Types     []string `json:"types,omitempty"`
	From      string   `json:"from,omitempty"`
	To        string   `json:"to,omitempty"`
}

// GraphNode is a node as the graph view draws it.
type GraphNode struct {
	ID        string  `json:"id"`
	Label     string  `json:"label"` // short summary
	Type      string  `json:"type"`  // node type
	Outcome   string  `json:"outcome"`
	SessionID string  `json:"sessionId"`
	Project   string  `json:"project"`
	Segment   int     `json:"segment"` // index in its session
	Timestamp string  `json:"timestamp"`
	Cost      float64 `json:"cost"`
	Tokens    int64   `json:"tokens"`
	Entries   int     `json:"entries"`
}

// GraphEdge is an edge as the graph view draws it.
type GraphEdge struct {
	ID       string         `json:"id"`
	Source   string         `json:"source"`
	Target   string         `json:"target"`
	Type     string         `json:"type"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// GraphData is the graph view's content.
type GraphData struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// NodeDetail is one node with its session context.
type NodeDetail struct {
	Node        graph.Node        `json:"node"`
	SessionName string            `json:"sessionName"`
	Segment     int               `json:"segment"`
	Boundaries  []BoundaryView    `json:"boundaries"` // that start the segment
	Incoming    []GraphEdge       `json:"incoming"`
	Outgoing    []GraphEdge       `json:"outgoing"`
	Versions    []NodeVersionInfo `json:"versions"`
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

// SearchHit is one search result. Kind is "node" or "entry"; NodeID is the
// node to jump to (the entry's segment node for entries).
type SearchHit struct {
	Kind      string  `json:"kind"`
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
