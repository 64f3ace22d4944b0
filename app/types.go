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
// lists the first of them, at most pisession.MaxStoredProblems (10,000):
// a sample when MalformedCount is larger.
type FileReport struct {
	Path             string         `json:"path"`
	Format           string         `json:"format"` // "pi"
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
	// Archived brings back the nodes consolidation archived (left out by
	// default).
	Archived bool `json:"archived,omitempty"`
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
	LLM       LLMSettings `json:"llm"`
	ConfigDir string      `json:"configDir"` // the folder beside the library holding the API keys (secrets.json, 0600)
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
