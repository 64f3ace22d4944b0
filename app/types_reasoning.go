package app

// The shapes of app/reasoning.go: the Reasoning area's part of the contract
// with the frontend (types.go says how it is kept).
//
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
