package app

// The shapes of app/summaries.go: what an item is about, and the summary
// queue: the Summaries area's part of the contract with the frontend (types.go
// says how it is kept).

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
	// Analysing counts the sessions still being analysed: readable, their
	// summaries and knowledge not derived yet (issue 25).
	Analysing int `json:"analysing"`
}

// SummariesUpdated is the payload of "summary:updated": the items whose
// summary changed.
type SummariesUpdated struct {
	Items []string `json:"items"`
}
