package app

// The shapes of app/search.go and app/search_hybrid.go: full-text and hybrid
// search, bridges, the search settings and the embedding queue: the Search
// area's part of the contract with the frontend (types.go says how it is
// kept).

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
