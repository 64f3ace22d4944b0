package app

import "rhizome/backend/graph"

// The shapes of app/graph.go: the graph of segments and knowledge nodes, and a
// node's detail: the Graph area's part of the contract with the frontend
// (types.go says how it is kept).

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
	// Analysing counts the sessions still being analysed: their nodes are
	// drawn, their summaries, knowledge and relations not derived yet
	// (issue 25).
	Analysing int `json:"analysing"`
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
