package app

// The shapes of app/memory.go: consolidation runs: the Memory area's part of
// the contract with the frontend (types.go says how it is kept).

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
