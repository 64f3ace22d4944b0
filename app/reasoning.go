package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"rhizome/backend/link"
	"rhizome/backend/memobrain"
	"rhizome/store"
)

// Reasoning holds MemoBrain reasoning graphs: imported from snapshots
// (Import's entry points detect them by content: reasoning_import.go) or
// made by running MemoBrain's loop on a session with the configured model
// (RunOnSession: reasoning_run.go). Each graph keeps every operation applied
// to it, so any past state can be shown (At) with what each operation
// changed (StepDiff); patches and flush-and-fold replies are applied from a
// file or pasted text (ApplyPatch, ApplyFlushAndFold), validated whole, and
// written as new steps; Export gives the snapshot back, equal as JSON to
// what was imported plus what the operations changed.
//
// Events: "reasoning:changed" (ReasoningChanged) after a graph is imported,
// made, changed or deleted; "reasoning:progress" (ReasoningRunProgress)
// while a run goes.
//
// See backend/memobrain, interchange-formats.md §3 and ERRATA.md, "MemoBrain".
type Reasoning struct {
	c        *core
	settings *Settings

	mu      sync.Mutex
	locks   map[string]*sync.Mutex        // per graph: one change at a time
	hist    []*history                    // recently used histories, most recent first
	running map[string]context.CancelFunc // runs by request id
}

func newReasoning(c *core, s *Settings) *Reasoning {
	return &Reasoning{c: c, settings: s, locks: map[string]*sync.Mutex{}, running: map[string]context.CancelFunc{}}
}

// Limits of the reasoning use cases.
const (
	// MaxTurnContent is how much of a turn's message Turns gives, in bytes.
	MaxTurnContent = 16 << 10
	// maxLabel is a node label's length, in runes.
	maxLabel = 140
	// historyCache is how many graphs' histories are kept in memory.
	historyCache = 2
	// checkpointsPerHistory is about how many states of a history are kept to
	// replay from (at least every minCheckpointEvery steps).
	checkpointsPerHistory = 12
	minCheckpointEvery    = 32
)

// lock takes graph id's change lock; the returned function releases it.
func (r *Reasoning) lock(id string) func() {
	r.mu.Lock()
	m, ok := r.locks[id]
	if !ok {
		m = &sync.Mutex{}
		r.locks[id] = m
	}
	r.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (r *Reasoning) changed(id string) {
	r.c.emitEvent("reasoning:changed", ReasoningChanged{GraphID: id})
}

// List returns every reasoning graph, most recently changed first.
func (r *Reasoning) List() ([]ReasoningGraphInfo, error) {
	ls, err := r.c.store.ReasoningGraphs(r.c.context())
	if err != nil {
		return nil, err
	}
	out := make([]ReasoningGraphInfo, 0, len(ls))
	for _, l := range ls {
		out = append(out, graphInfo(l))
	}
	return out, nil
}

// graphInfo is a stored graph's listing as the frontend shows it.
func graphInfo(l store.ReasoningListing) ReasoningGraphInfo {
	var c memobrain.Counts
	_ = json.Unmarshal(l.Counts, &c) // written by this package from a memobrain.Counts
	info := ReasoningGraphInfo{
		ID: l.ID, URI: link.Reasoning(l.ID).String(), Title: l.Title, SourceName: l.SourceName, SessionID: l.SessionID,
		Model: l.Model, Steps: l.Steps, Nodes: c.Nodes, NodesByKind: map[string]int{}, Active: c.Active, Folded: c.Folded,
		Flushed: c.Flushed, Edges: c.Edges, Messages: l.Messages, CreatedAt: isoTime(l.CreatedAt), UpdatedAt: isoTime(l.UpdatedAt),
	}
	for k, n := range c.ByKind {
		info.NodesByKind[string(k)] = n
	}
	return info
}

func listingOf(g *store.ReasoningGraph) store.ReasoningListing {
	n := 0
	if g.Messages != nil {
		var msgs []json.RawMessage
		if json.Unmarshal(g.Messages, &msgs) == nil {
			n = len(msgs)
		}
	}
	return store.ReasoningListing{ID: g.ID, Title: g.Title, SourceName: g.SourceName, SourceSHA256: g.SourceSHA256,
		SessionID: g.SessionID, Model: g.Model, Steps: g.Steps, Counts: g.Counts, Messages: n, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt}
}

// load reads graph id and its snapshot.
func (r *Reasoning) load(ctx context.Context, id string) (*store.ReasoningGraph, *memobrain.Snapshot, error) {
	rec, err := r.c.store.ReasoningGraph(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	snap, err := memobrain.ReadSnapshot(rec.Snapshot)
	if err != nil {
		return nil, nil, fmt.Errorf("app: reasoning graph %s: the stored snapshot does not read: %w", id, err)
	}
	return rec, snap, nil
}

// stepInfos reads the summaries of graph id's steps.
func (r *Reasoning) stepInfos(ctx context.Context, id string, steps int) ([]ReasoningStepInfo, error) {
	rows, err := r.c.store.ReasoningSteps(ctx, id, 0, steps, false)
	if err != nil {
		return nil, err
	}
	out := make([]ReasoningStepInfo, len(rows))
	for i, row := range rows {
		if err := json.Unmarshal(row.Summary, &out[i]); err != nil {
			return nil, fmt.Errorf("app: reasoning graph %s: step %d's summary does not read: %w", id, row.Seq, err)
		}
		out[i].Index = row.Seq
		out[i].Kind = row.Kind
	}
	return out, nil
}

// Open returns graph graphID as it is now, with its history's steps.
func (r *Reasoning) Open(graphID string) (ReasoningGraphView, error) {
	ctx := r.c.context()
	rec, snap, err := r.load(ctx, graphID)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	infos, err := r.stepInfos(ctx, graphID, rec.Steps)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	return graphView(rec, snap.Graph, infos), nil
}

// graphView is the view of a graph now (g) with its history (infos).
func graphView(rec *store.ReasoningGraph, g *memobrain.Graph, infos []ReasoningStepInfo) ReasoningGraphView {
	added := map[int]int{}
	for _, s := range infos {
		for _, id := range s.NodesAdded {
			added[id] = s.Index + 1
		}
	}
	nodes := g.Nodes()
	v := ReasoningGraphView{Info: graphInfo(listingOf(rec)), Step: len(infos), Nodes: make([]ReasoningNodeView, len(nodes)),
		Edges: edgeViews(g.Edges()), Spans: spanViews(memobrain.FoldSpans(g, foldSteps(infos))), History: infos}
	for i, n := range nodes {
		v.Nodes[i] = viewNode(rec.ID, n, added[n.ID])
	}
	return v
}

// foldSteps are the fold steps of a history as memobrain.FoldSpans reads
// them, rebuilt from the steps' summaries.
func foldSteps(infos []ReasoningStepInfo) []memobrain.Step {
	var out []memobrain.Step
	for _, s := range infos {
		if s.Kind != string(memobrain.OpFold) || len(s.NodesAdded) != 1 {
			continue
		}
		st := memobrain.Step{Kind: memobrain.OpFold, Diff: memobrain.Diff{NodesAdded: s.NodesAdded}}
		for _, id := range s.NodesChanged {
			st.Diff.NodesChanged = append(st.Diff.NodesChanged, memobrain.NodeChange{ID: id, From: memobrain.Live, To: memobrain.Folded})
		}
		for _, e := range s.Inside {
			st.Diff.EdgesRemoved = append(st.Diff.EdgesRemoved, memobrain.EdgeRef{Src: e[0], Dst: e[1]})
		}
		out = append(out, st)
	}
	return out
}

func viewNode(graphID string, n memobrain.ReasoningNode, addedAt int) ReasoningNodeView {
	v := ReasoningNodeView{ID: n.ID, URI: link.ReasoningNode(graphID, strconv.Itoa(n.ID)).String(), Kind: string(n.Kind),
		State: n.Active.String(), Notes: []ReasoningNote{}, TurnIDs: slices.Clone(n.TurnIDs), AddedAt: addedAt}
	if v.TurnIDs == nil {
		v.TurnIDs = []int{}
	}
	switch n.Thought.Form {
	case memobrain.ThoughtText:
		v.Thought, v.Text = "text", n.Thought.Text
	case memobrain.ThoughtNotes:
		v.Thought = "notes"
	case memobrain.ThoughtEncodedNotes:
		v.Thought = "encodedNotes"
	default:
		v.Thought, v.Text = "other", n.Thought.Text
	}
	if n.Thought.Form == memobrain.ThoughtNotes || n.Thought.Form == memobrain.ThoughtEncodedNotes {
		for _, note := range n.Thought.Notes {
			v.Notes = append(v.Notes, ReasoningNote{Role: string(note.Role), Content: note.Content, Standard: note.Role.Standard()})
		}
	}
	v.Label = nodeLabel(v)
	return v
}

// nodeLabel is a node's text in one line: a plain thought (the task without
// init's "Begin to solve the task: "), else its first note with text.
func nodeLabel(v ReasoningNodeView) string {
	text := strings.TrimPrefix(v.Text, memobrain.TaskPrefix)
	for _, n := range v.Notes {
		if strings.TrimSpace(n.Content) != "" {
			text = n.Content
			break
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > maxLabel {
		r := []rune(text)
		text = strings.TrimSpace(string(r[:maxLabel-1])) + "…"
	}
	return text
}

func edgeViews(es []memobrain.Edge) []ReasoningEdgeView {
	out := make([]ReasoningEdgeView, len(es))
	for i, e := range es {
		out[i] = ReasoningEdgeView{Src: e.Src, Dst: e.Dst, Rationale: e.Rationale, Kind: string(e.Kind), Inferred: e.KindInferred}
	}
	return out
}

func spanViews(spans []memobrain.FoldSpan) []ReasoningSpan {
	out := make([]ReasoningSpan, len(spans))
	for i, s := range spans {
		out[i] = ReasoningSpan{Summary: s.Summary, Nodes: s.Nodes, Edges: s.Edges, Logged: s.Logged}
		if out[i].Edges == nil {
			out[i].Edges = [][2]int{}
		}
	}
	return out
}

// stepInfo summarises step s (index i) of a history.
func stepInfo(i int, s memobrain.Step) ReasoningStepInfo {
	info := ReasoningStepInfo{Index: i, Kind: string(s.Kind), TurnIDs: slices.Clone(s.TurnIDs), NodesAdded: slices.Clone(s.Diff.NodesAdded),
		NodesChanged: []int{}, EdgesAdded: len(s.Diff.EdgesAdded), EdgesRemoved: len(s.Diff.EdgesRemoved),
		EdgesRerouted: len(s.Diff.EdgesRerouted), Rationale: s.Rationale(), Inside: [][2]int{}}
	if info.TurnIDs == nil {
		info.TurnIDs = []int{}
	}
	if info.NodesAdded == nil {
		info.NodesAdded = []int{}
	}
	for _, c := range s.Diff.NodesChanged {
		info.NodesChanged = append(info.NodesChanged, c.ID)
	}
	if s.Kind == memobrain.OpFold {
		for _, e := range s.Diff.EdgesRemoved {
			info.Inside = append(info.Inside, [2]int{e.Src, e.Dst})
		}
	}
	return info
}

// stepRows are steps as the store keeps them, seq from first.
func stepRows(first int, steps []memobrain.Step) ([]store.ReasoningStep, error) {
	out := make([]store.ReasoningStep, len(steps))
	for i, s := range steps {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("app: unable to write step %d: %w", first+i, err)
		}
		info := stepInfo(first+i, s)
		sum, _ := json.Marshal(info) // plain data
		out[i] = store.ReasoningStep{Seq: first + i, Kind: string(s.Kind), Step: b, Summary: sum}
	}
	return out, nil
}

// ---- history ------------------------------------------------------------

// history is a graph's log decoded, with states kept to replay from:
// checkpoints every `every` steps, and the last state asked for (so that
// stepping forward one step replays one step). memobrain.Replay checks each
// step again as it goes.
type history struct {
	mu    sync.Mutex
	id    string
	log   memobrain.Log
	every int
	cps   map[int]*memobrain.Graph // state after k steps (k a multiple of every), detached
	last  *memobrain.Graph
	lastK int
}

// history returns graph id's history holding its steps steps, reading it
// when it is not in memory (or is another length).
func (r *Reasoning) history(ctx context.Context, id string) (*history, error) {
	l, err := r.c.store.ReasoningListing(ctx, id)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	for i, h := range r.hist {
		if h.id == id && len(h.log.Steps) == l.Steps {
			r.hist = append([]*history{h}, slices.Delete(r.hist, i, i+1)...)
			r.mu.Unlock()
			return h, nil
		}
	}
	r.mu.Unlock()
	rec, err := r.c.store.ReasoningGraph(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := r.c.store.ReasoningSteps(ctx, id, 0, rec.Steps, true)
	if err != nil {
		return nil, err
	}
	h := &history{id: id, cps: map[int]*memobrain.Graph{}}
	if rec.Base != nil {
		h.log.Base = &memobrain.Graph{}
		if err := h.log.Base.UnmarshalJSON(rec.Base); err != nil {
			return nil, fmt.Errorf("app: reasoning graph %s: where its history starts does not read: %w", id, err)
		}
	}
	h.log.Steps = make([]memobrain.Step, len(rows))
	for i, row := range rows {
		if err := json.Unmarshal(row.Step, &h.log.Steps[i]); err != nil {
			return nil, fmt.Errorf("app: reasoning graph %s: step %d does not read: %w", id, row.Seq, err)
		}
	}
	h.every = max(minCheckpointEvery, len(rows)/checkpointsPerHistory)
	base := h.log.Base
	if base == nil {
		base = memobrain.NewGraph()
	}
	h.cps[0] = base.Detached()
	r.mu.Lock()
	r.hist = append([]*history{h}, r.hist...)
	if len(r.hist) > historyCache {
		r.hist = r.hist[:historyCache]
	}
	r.mu.Unlock()
	return h, nil
}

// forget drops graph id's history from memory.
func (r *Reasoning) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hist = slices.DeleteFunc(r.hist, func(h *history) bool { return h.id == id })
}

// at returns the state after the first k steps, replaying from the nearest
// state kept before it.
func (h *history) at(k int) (*memobrain.Graph, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if k < 0 || k > len(h.log.Steps) {
		return nil, fmt.Errorf("app: reasoning graph %s has no step %d: its history has steps 0 to %d", h.id, k, len(h.log.Steps))
	}
	if h.last != nil && h.lastK == k {
		return h.last, nil
	}
	from := k / h.every * h.every
	for from > 0 && h.cps[from] == nil {
		from -= h.every
	}
	g := h.cps[from]
	if h.last != nil && h.lastK > from && h.lastK < k {
		from, g = h.lastK, h.last
	}
	for from < k {
		n := min(k, (from/h.every+1)*h.every) - from
		next, err := memobrain.Replay(memobrain.Log{Base: g, Steps: h.log.Steps[from:]}, n)
		if err != nil {
			return nil, fmt.Errorf("app: reasoning graph %s: its history does not rebuild it: %w", h.id, err)
		}
		g, from = next.Detached(), from+n
		if from%h.every == 0 {
			h.cps[from] = g
		}
	}
	h.last, h.lastK = g, k
	return g, nil
}

// At returns graph graphID at step step of its history: the state after
// its first step operations (0: where the history starts; Open's Step: now)
// and the diff of the operation that led there. Steps are rebuilt by
// replaying the log from the nearest state kept in memory (every few dozen
// steps, and the last one asked for), each operation checked to change what
// the log says it changed.
func (r *Reasoning) At(graphID string, step int) (ReasoningState, error) {
	h, err := r.history(r.c.context(), graphID)
	if err != nil {
		return ReasoningState{}, err
	}
	g, err := h.at(step)
	if err != nil {
		return ReasoningState{}, err
	}
	st := ReasoningState{GraphID: graphID, Step: step, Edges: edgeViews(g.Edges()),
		Spans: spanViews(memobrain.FoldSpans(g, h.log.Steps[:step]))}
	nodes := g.Nodes()
	st.Nodes = make([]ReasoningNodeState, len(nodes))
	for i, n := range nodes {
		st.Nodes[i] = ReasoningNodeState{ID: n.ID, State: n.Active.String()}
	}
	if step > 0 {
		d := diffView(step-1, h.log.Steps[step-1])
		st.Diff = &d
	}
	return st, nil
}

// StepDiff returns what operation index (from 0) of graph graphID's history
// changed.
func (r *Reasoning) StepDiff(graphID string, index int) (ReasoningDiff, error) {
	ctx := r.c.context()
	l, err := r.c.store.ReasoningListing(ctx, graphID)
	if err != nil {
		return ReasoningDiff{}, err
	}
	if index < 0 || index >= l.Steps {
		return ReasoningDiff{}, fmt.Errorf("app: reasoning graph %s has no operation %d: its history has %d", graphID, index, l.Steps)
	}
	rows, err := r.c.store.ReasoningSteps(ctx, graphID, index, index+1, true)
	if err != nil {
		return ReasoningDiff{}, err
	}
	if len(rows) != 1 {
		return ReasoningDiff{}, fmt.Errorf("app: reasoning graph %s: operation %d is missing", graphID, index)
	}
	var s memobrain.Step
	if err := json.Unmarshal(rows[0].Step, &s); err != nil {
		return ReasoningDiff{}, fmt.Errorf("app: reasoning graph %s: operation %d does not read: %w", graphID, index, err)
	}
	return diffView(index, s), nil
}

func diffView(i int, s memobrain.Step) ReasoningDiff {
	d := ReasoningDiff{Index: i, Kind: string(s.Kind), Input: string(s.Input), TurnIDs: slices.Clone(s.TurnIDs),
		NodesAdded: slices.Clone(s.Diff.NodesAdded), NodesChanged: []ReasoningNodeChange{}, EdgesAdded: edgeRefs(s.Diff.EdgesAdded),
		EdgesRemoved: edgeRefs(s.Diff.EdgesRemoved), EdgesRerouted: []ReasoningReroute{}, TmpIDs: map[string]int{}}
	if d.TurnIDs == nil {
		d.TurnIDs = []int{}
	}
	if d.NodesAdded == nil {
		d.NodesAdded = []int{}
	}
	for _, c := range s.Diff.NodesChanged {
		d.NodesChanged = append(d.NodesChanged, ReasoningNodeChange{ID: c.ID, From: c.From.String(), To: c.To.String()})
	}
	for _, rr := range s.Diff.EdgesRerouted {
		d.EdgesRerouted = append(d.EdgesRerouted, ReasoningReroute{From: edgeRef(rr.From), To: edgeRef(rr.To)})
	}
	for k, v := range s.Diff.TmpIDs {
		d.TmpIDs[k] = v
	}
	return d
}

func edgeRef(e memobrain.EdgeRef) ReasoningEdgeRef {
	return ReasoningEdgeRef{Index: e.Index, Src: e.Src, Dst: e.Dst, Rationale: e.Rationale}
}

func edgeRefs(es []memobrain.EdgeRef) []ReasoningEdgeRef {
	out := make([]ReasoningEdgeRef, len(es))
	for i, e := range es {
		out[i] = edgeRef(e)
	}
	return out
}

// ---- turns ----------------------------------------------------------------

// Turns returns the turns node nodeID of graph graphID stands for (its
// related turn ids, in order): each turn's message of the graph's
// conversation (role and content, cut to MaxTurnContent bytes) and, for a
// graph made from a session, the session entries it was made from with the
// knowledge-graph node holding each. A turn the conversation lacks, or a
// graph without one, gives the turn alone.
func (r *Reasoning) Turns(graphID string, nodeID int) ([]ReasoningTurn, error) {
	ctx := r.c.context()
	rec, snap, err := r.load(ctx, graphID)
	if err != nil {
		return nil, err
	}
	n, ok := snap.Graph.Node(nodeID)
	if !ok {
		return nil, fmt.Errorf("app: reasoning graph %s has no node %d", graphID, nodeID)
	}
	var msgs []memobrain.Message
	if rec.Messages != nil {
		if msgs, err = memobrain.ReadMessages(rec.Messages); err != nil {
			return nil, fmt.Errorf("app: reasoning graph %s: its conversation does not read: %w", graphID, err)
		}
	}
	links, err := r.c.store.ReasoningTurnEntries(ctx, graphID, n.TurnIDs)
	if err != nil {
		return nil, err
	}
	bySession := map[string][]string{}
	for _, l := range links {
		bySession[l.SessionID] = append(bySession[l.SessionID], l.EntryID)
	}
	nodeOf := map[[2]string]string{}
	for sid, ids := range bySession {
		m, err := r.c.store.EntryNodes(ctx, sid, ids)
		if err != nil {
			return nil, err
		}
		for e, node := range m {
			nodeOf[[2]string{sid, e}] = node
		}
	}
	out := make([]ReasoningTurn, 0, len(n.TurnIDs))
	for _, t := range n.TurnIDs {
		turn := ReasoningTurn{Turn: t, Entries: []ReasoningTurnEntry{}}
		if t >= 0 && t < len(msgs) {
			turn.Role, turn.Content = msgs[t].Role, msgs[t].Content
			if len(turn.Content) > MaxTurnContent {
				cut := MaxTurnContent
				for cut > 0 && !utf8.RuneStart(turn.Content[cut]) {
					cut--
				}
				turn.Content, turn.Cut = turn.Content[:cut], true
			}
		}
		for _, l := range links {
			if l.Turn == t {
				turn.Entries = append(turn.Entries, ReasoningTurnEntry{URI: link.Entry(l.SessionID, l.EntryID).String(),
					SessionID: l.SessionID, EntryID: l.EntryID, NodeID: nodeOf[[2]string{l.SessionID, l.EntryID}]})
			}
		}
		out = append(out, turn)
	}
	return out, nil
}

// ---- operations ---------------------------------------------------------

// ApplyPatch applies a memory patch (MemoBrain's MemoryPatch JSON, as the
// model writes it: a file's content or pasted text; a Markdown code fence
// or a leading <think> block around it is fine) to graph graphID and
// records it as a new step of its history. The patch is validated whole
// first: a bad op refuses it all, the error naming the op
// ("memobrain: patch add_edges[1] (add_edge): src \"x\" is neither a node id
// nor a tmp id of this patch, and holds no number"), and the graph is left
// as it was. The new nodes get the next pair of turn ids after the largest
// the graph names ([2k, 2k+1], as MemoBrain's loop numbers its turns). It
// returns the graph as it is then.
func (r *Reasoning) ApplyPatch(graphID, patchJSON string) (ReasoningGraphView, error) {
	p, err := memobrain.ReadPatch([]byte(patchJSON))
	if err != nil {
		return ReasoningGraphView{}, invalid(err)
	}
	return r.apply(graphID, func(g *memobrain.Graph) ([]memobrain.Step, error) {
		s, err := g.ApplyPatch(p, nextTurns(g))
		if err != nil {
			return nil, invalid(err)
		}
		return []memobrain.Step{s}, nil
	})
}

// ApplyFlushAndFold applies the model's reply to MemoBrain's flush-and-fold
// prompt ({"flush_ops", "fold_ops"}; a file's content or pasted text) to
// graph graphID as MemoBrain's recall does (every flush, then every fold),
// each operation a new step of its history. It is all or nothing: a bad op
// refuses the whole reply, the error naming it ("memobrain: fold_ops[0]
// (fold): ids[1]: node 12 is not in the graph"), and the graph is left as
// it was. It returns the graph as it is then.
func (r *Reasoning) ApplyFlushAndFold(graphID, opsJSON string) (ReasoningGraphView, error) {
	f, err := memobrain.ReadFlushAndFold([]byte(opsJSON))
	if err != nil {
		return ReasoningGraphView{}, invalid(err)
	}
	return r.apply(graphID, func(g *memobrain.Graph) ([]memobrain.Step, error) {
		steps, err := g.ApplyFlushAndFold(f)
		return steps, invalid(err)
	})
}

// nextTurns is the pair of turn ids after the largest g's nodes name:
// [2k, 2k+1].
func nextTurns(g *memobrain.Graph) []int {
	t := 0
	for _, n := range g.Nodes() {
		for _, id := range n.TurnIDs {
			t = max(t, id+1)
		}
	}
	t += t % 2
	return []int{t, t + 1}
}

// apply runs op on graph id now and stores the steps it recorded.
func (r *Reasoning) apply(id string, op func(g *memobrain.Graph) ([]memobrain.Step, error)) (ReasoningGraphView, error) {
	defer r.lock(id)()
	ctx := r.c.context()
	rec, snap, err := r.load(ctx, id)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	steps, err := op(snap.Graph)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	if len(steps) == 0 {
		return ReasoningGraphView{}, invalid(errors.New(`app: nothing to apply: the reply has no operation (an empty "flush_ops" and "fold_ops")`))
	}
	out, err := memobrain.WriteSnapshot(snap)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	rows, err := stepRows(rec.Steps, steps)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	counts, _ := json.Marshal(snap.Graph.Counts())
	if err := r.c.store.AppendReasoningSteps(ctx, id, rec.Steps, rows, out, counts); err != nil {
		return ReasoningGraphView{}, err
	}
	r.forget(id)
	r.changed(id)
	rec.Snapshot, rec.Counts, rec.Steps, rec.UpdatedAt = out, counts, rec.Steps+len(steps), time.Now().UTC()
	infos, err := r.stepInfos(ctx, id, rec.Steps)
	if err != nil {
		return ReasoningGraphView{}, err
	}
	return graphView(rec, snap.Graph, infos), nil
}

// AttachConversation gives graph graphID its conversation: MemoBrain's
// messages (a JSON list of {role, content}, or an object holding one as
// "messages"), whose indexes are the turn ids its nodes name. A graph keeps
// the conversation it has: giving it another is an error.
func (r *Reasoning) AttachConversation(graphID, messagesJSON string) (ReasoningGraphInfo, error) {
	msgs, err := memobrain.ReadMessages([]byte(messagesJSON))
	if err != nil {
		return ReasoningGraphInfo{}, invalid(err)
	}
	defer r.lock(graphID)()
	ctx := r.c.context()
	if err := r.c.store.SetReasoningMessages(ctx, graphID, messagesList(msgs)); err != nil {
		return ReasoningGraphInfo{}, err
	}
	r.changed(graphID)
	l, err := r.c.store.ReasoningListing(ctx, graphID)
	if err != nil {
		return ReasoningGraphInfo{}, err
	}
	return graphInfo(*l), nil
}

// messagesList is messages as one compact JSON list, each as it was read.
func messagesList(msgs []memobrain.Message) []byte {
	b, _ := json.Marshal(msgs) // each message writes itself as read
	return b
}

// Export returns graph graphID as a MemoBrain snapshot (indented as
// MemoBrain's save_memory writes it): a graph imported and exported again
// is equal to the file as JSON (a file save_memory wrote: byte for byte),
// every key it had kept, with what operations changed since.
func (r *Reasoning) Export(graphID string) (string, error) {
	rec, err := r.c.store.ReasoningGraph(r.c.context(), graphID)
	if err != nil {
		return "", err
	}
	return string(rec.Snapshot), nil
}

// ExportToFile asks where to save graph graphID (a native dialog) and writes
// its snapshot there atomically; it returns the path, "" when the person
// cancelled. Window only: in `rhizome serve` it returns ErrNoDialogs (use
// Export and a browser download).
func (r *Reasoning) ExportToFile(graphID string) (string, error) {
	r.c.mu.RLock()
	d := r.c.dialogs
	r.c.mu.RUnlock()
	saver, ok := d.(FileSaver)
	if !ok {
		return "", ErrNoDialogs
	}
	ctx := r.c.context()
	rec, err := r.c.store.ReasoningGraph(ctx, graphID)
	if err != nil {
		return "", err
	}
	path, err := saver.SaveFile(ctx, "Export reasoning graph", reasoningFileName(rec.Title))
	if err != nil || path == "" {
		return "", err
	}
	if err := store.WriteFile(path, rec.Snapshot, 0o644); err != nil {
		return "", fmt.Errorf("app: unable to export reasoning graph %s: %w", graphID, err)
	}
	return path, nil
}

// reasoningFileName is the file name an export of a graph titled title is
// offered under: its words joined by "-", at most 60 bytes, ".json".
func reasoningFileName(title string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if b.Len()+len(w)+1 > 60 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return "reasoning-graph.json"
	}
	return b.String() + ".json"
}

// Delete removes graph graphID with its history and turn links.
func (r *Reasoning) Delete(graphID string) error {
	defer r.lock(graphID)()
	if err := r.c.store.DeleteReasoningGraph(r.c.context(), graphID); err != nil {
		return err
	}
	r.forget(graphID)
	r.changed(graphID)
	return nil
}
