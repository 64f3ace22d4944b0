package memobrain

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// TaskPrefix begins the task node's thought: init_memory writes
// "Begin to solve the task: " + task.
const TaskPrefix = "Begin to solve the task: "

// Init starts an empty graph as MemoBrain's init_memory does: one "task"
// node, thought TaskPrefix+task, related turn ids [0, 1] (the system prompt
// and the question), id 1. It is recorded as an "init" step.
//
// Unlike MemoBrain, which would add a second task node, it refuses a graph
// that already has nodes, and an empty task.
func (g *Graph) Init(task string) (Step, error) {
	d, err := g.initTask(task)
	if err != nil {
		return Step{}, fmt.Errorf("memobrain: unable to init the graph: %w", err)
	}
	in := appendJSONString([]byte(`{"task":`), task, false)
	return g.record(Step{Kind: OpInit, Input: append(in, '}'), Diff: d}), nil
}

func (g *Graph) initTask(task string) (Diff, error) {
	g.ready()
	if len(g.nodes) > 0 {
		return Diff{}, fmt.Errorf("the graph already has %d nodes: init starts an empty graph", len(g.nodes))
	}
	if strings.TrimSpace(task) == "" {
		return Diff{}, errors.New("the task is empty")
	}
	n := &ReasoningNode{ID: g.next, Kind: KindTask, Thought: TextThought(TaskPrefix + task), TurnIDs: []int{0, 1}, Active: Live}
	g.addNode(n)
	d := newDiff()
	d.NodesAdded = append(d.NodesAdded, n.ID)
	return d, nil
}

// ApplyPatch applies a memory patch as MemoBrain's apply_patch does, and
// records it as a "patch" step:
//
//   - each add_nodes entry, in order, becomes a node with the next
//     sequential id (NextID, NextID+1, …), its kind, its notes as thought,
//     turnIDs as related turn ids (MemoBrain's loop passes the turn pair
//     [i, i+1]; nil gives []), active; its tmp_id maps to that id;
//   - each add_edges entry, in order, becomes an edge. Its src and dst are
//     read as apply_patch reads them: s = str(value); if s is a tmp id of
//     this patch, that node (a tmp id that looks like a number still means
//     the new node); else int(s), Python's int() (white space, a sign and
//     underscores between digits allowed). For src only, when int() fails,
//     MemoBrain takes the first run of decimal digits in s
//     (re.findall(r'\d+', s)[0]): "node 3" and "tmp9" (no such tmp id) are
//     node 3 and node 9; a src with no digit is refused, as is a dst that
//     int() cannot read (MemoBrain raises there). Both ends must be nodes of
//     the graph (any state) or of the patch.
//
// The patch is validated whole before anything changes: a bad op refuses
// it all and the graph is untouched (MemoBrain would keep the nodes added
// before the failing edge). An edge that would close a cycle is refused
// (MemoBrain's prompt asks the model to avoid cycles but its code does not
// check). Duplicate edges are kept, as MemoBrain keeps them.
//
// Errors name the op: `memobrain: patch add_edges[1] (add_edge): src "x" is
// neither a node id nor a tmp id of this patch, and holds no number`.
// See interchange-formats.md §3, "MemoryPatch".
func (g *Graph) ApplyPatch(p MemoryPatch, turnIDs []int) (Step, error) {
	d, err := g.applyPatch(p, turnIDs)
	if err != nil {
		return Step{}, err
	}
	return g.record(Step{Kind: OpPatch, Input: p.input(), TurnIDs: slices.Clone(turnIDs), Diff: d}), nil
}

func (g *Graph) applyPatch(p MemoryPatch, turnIDs []int) (Diff, error) {
	g.ready()
	for _, t := range turnIDs {
		if t < 0 || t > MaxID {
			return Diff{}, fmt.Errorf("memobrain: patch: turn id %d is out of range", t)
		}
	}
	tmp := make(map[string]int, len(p.AddNodes))
	newKind := make(map[int]NodeKind, len(p.AddNodes))
	for i, op := range p.AddNodes {
		var err error
		switch {
		case op.TmpID == "":
			err = errors.New("tmp_id is empty")
		case op.Kind != KindSubtask && op.Kind != KindEvidence:
			err = fmt.Errorf(`kind %q is not "subtask" or "evidence" (a patch never makes a task or a summary)`, op.Kind)
		}
		if _, dup := tmp[op.TmpID]; dup && err == nil {
			err = fmt.Errorf("tmp_id %q is used twice", op.TmpID)
		}
		if err != nil {
			return Diff{}, fmt.Errorf("memobrain: patch add_nodes[%d] (add_node): %w", i, err)
		}
		id := g.next + i
		tmp[op.TmpID] = id
		newKind[id] = op.Kind
	}
	kindOf := func(id int) (NodeKind, bool) {
		if k, ok := newKind[id]; ok {
			return k, true
		}
		i, ok := g.index[id]
		if !ok {
			return "", false
		}
		return g.nodes[i].Kind, true
	}
	var out map[int][]int
	if len(p.AddEdges) > 0 {
		out = g.children()
	}
	pending := map[int][]int{}
	edges := make([]Edge, 0, len(p.AddEdges))
	for j, op := range p.AddEdges {
		src, err := resolveRef(op.Src, tmp, kindOf, "src")
		if err == nil {
			var dst int
			dst, err = resolveRef(op.Dst, tmp, kindOf, "dst")
			if err == nil {
				if src == dst {
					err = fmt.Errorf("src and dst are both node %d: an edge to itself is a cycle", src)
				} else if path := pathBetween(out, pending, dst, src); path != nil {
					err = fmt.Errorf("edge %d -> %d would close the cycle %s -> %d", src, dst, formatPath(path), dst)
				}
			}
			if err == nil {
				sk, _ := kindOf(src)
				dk, _ := kindOf(dst)
				pending[src] = append(pending[src], dst)
				edges = append(edges, Edge{Src: src, Dst: dst, Rationale: op.Rationale, Kind: InferEdgeKind(sk, dk), KindInferred: true})
			}
		}
		if err != nil {
			return Diff{}, fmt.Errorf("memobrain: patch add_edges[%d] (add_edge): %w", j, err)
		}
	}
	d := newDiff()
	for _, op := range p.AddNodes {
		turns := slices.Clone(turnIDs)
		if turns == nil {
			turns = []int{}
		}
		n := &ReasoningNode{ID: tmp[op.TmpID], Kind: op.Kind, Thought: NotesThought(op.Thought), TurnIDs: turns, Active: Live}
		g.addNode(n)
		d.NodesAdded = append(d.NodesAdded, n.ID)
		d.TmpIDs[op.TmpID] = n.ID
	}
	for _, e := range edges {
		d.EdgesAdded = append(d.EdgesAdded, edgeRef(len(g.edges), e))
		g.addEdge(e)
	}
	return d, nil
}

// resolveRef reads a patch edge's src or dst (end) as apply_patch does; see
// ApplyPatch.
func resolveRef(r NodeRef, tmp map[string]int, kindOf func(int) (NodeKind, bool), end string) (int, error) {
	s := r.text()
	if id, ok := tmp[s]; ok {
		return id, nil
	}
	id, ok := pyInt(s)
	how := ""
	if !ok {
		if end == "dst" {
			return 0, fmt.Errorf("dst %s is neither a node id nor a tmp id of this patch", r)
		}
		if id, ok = firstInt(s); !ok {
			return 0, fmt.Errorf("src %s is neither a node id nor a tmp id of this patch, and holds no number", r)
		}
		how = fmt.Sprintf(" (read as node %d, the first number in it, as MemoBrain reads it)", id)
	}
	if _, ok := kindOf(id); !ok {
		return 0, fmt.Errorf("%s %s%s is not a node of the graph or of this patch", end, r, how)
	}
	return id, nil
}

// Flush marks a node flushed, as MemoBrain's flush_node does: its "active"
// becomes "Flushed"; the node, its notes, its turn ids and its edges stay
// (ERRATA.md, "MemoBrain": a flushed node is replaced by its compact notes,
// not deleted; Organize shows what that does to the conversation). It is
// recorded as a "flush" step.
//
// The node must exist (MemoBrain raises too) and be active: MemoBrain's
// prompt allows only active nodes, and its code would overwrite a fold's
// false with "Flushed".
func (g *Graph) Flush(op FlushOp) (Step, error) {
	d, err := g.flush(op)
	if err != nil {
		return Step{}, fmt.Errorf("memobrain: flush: %w", err)
	}
	return g.record(Step{Kind: OpFlush, Input: op.input(), Diff: d}), nil
}

func (g *Graph) flush(op FlushOp) (Diff, error) {
	g.ready()
	i, ok := g.index[op.ID]
	if !ok {
		return Diff{}, fmt.Errorf("node %d is not in the graph", op.ID)
	}
	n := g.nodes[i]
	if n.Active != Live {
		return Diff{}, fmt.Errorf("node %d is %s, not active (only active nodes are flushed)", op.ID, n.Active)
	}
	n.Active = Flushed
	d := newDiff()
	d.NodesChanged = append(d.NodesChanged, NodeChange{ID: n.ID, From: Live, To: Flushed})
	return d, nil
}

// Fold folds nodes into a summary, as MemoBrain's fold_nodes does, and
// records it as a "fold" step:
//
//   - a new "summary" node gets the next id; its thought is the notes as
//     Python's json.dumps(notes) string (what recall() passes), its related
//     turn ids the sorted union of the folded nodes' (it takes over their
//     turns), and it is active;
//   - the edges are rebuilt in order: an edge with both ends folded is
//     dropped; an edge into the folded nodes from outside now ends at the
//     summary and carries the fold's rationale; an edge out of them now
//     starts at the summary and keeps its rationale; others stay. Re-routed
//     edges are new edges: an edge's other keys do not follow it, and two
//     edges from one node into the fold become two edges to the summary, as
//     in MemoBrain;
//   - each folded node becomes inactive (false) and keeps its thought and
//     turn ids.
//
// It refuses, leaving the graph untouched: no ids, an id twice, an id not in
// the graph (MemoBrain skips those), a node that is not active (the prompt
// allows only active ones), and a fold that would make a cycle through the
// summary (an outside node between two folded ones).
//
// See interchange-formats.md §3, "Active states", and ERRATA.md,
// "MemoBrain".
func (g *Graph) Fold(op FoldOp) (Step, error) {
	d, err := g.fold(op)
	if err != nil {
		return Step{}, fmt.Errorf("memobrain: fold: %w", err)
	}
	return g.record(Step{Kind: OpFold, Input: op.input(), Diff: d}), nil
}

func (g *Graph) fold(op FoldOp) (Diff, error) {
	g.ready()
	if len(op.IDs) == 0 {
		return Diff{}, errors.New("ids is empty")
	}
	span := make(map[int]bool, len(op.IDs))
	var turns []int
	for k, id := range op.IDs {
		i, ok := g.index[id]
		switch {
		case span[id]:
			return Diff{}, fmt.Errorf("ids[%d]: node %d is listed twice", k, id)
		case !ok:
			return Diff{}, fmt.Errorf("ids[%d]: node %d is not in the graph", k, id)
		case g.nodes[i].Active != Live:
			return Diff{}, fmt.Errorf("ids[%d]: node %d is %s, not active (only active nodes are folded)", k, id, g.nodes[i].Active)
		}
		span[id] = true
		turns = append(turns, g.nodes[i].TurnIDs...)
	}
	slices.Sort(turns)
	turns = slices.Compact(turns)
	if turns == nil {
		turns = []int{}
	}
	sid := g.next
	d := newDiff()
	edges := make([]Edge, 0, len(g.edges))
	out := map[int][]int{}
	for idx, e := range g.edges {
		from, to := span[e.Src], span[e.Dst]
		var ne Edge
		switch {
		case from && to:
			d.EdgesRemoved = append(d.EdgesRemoved, edgeRef(idx, e))
			continue
		case to:
			ne = Edge{Src: e.Src, Dst: sid, Rationale: op.Rationale, Kind: InferEdgeKind(g.kind(e.Src), KindSummary), KindInferred: true}
		case from:
			ne = Edge{Src: sid, Dst: e.Dst, Rationale: e.Rationale, Kind: InferEdgeKind(KindSummary, g.kind(e.Dst)), KindInferred: true}
		default:
			edges = append(edges, e)
			out[e.Src] = append(out[e.Src], e.Dst)
			continue
		}
		d.EdgesRerouted = append(d.EdgesRerouted, Reroute{From: edgeRef(idx, e), To: edgeRef(len(edges), ne)})
		edges = append(edges, ne)
		out[ne.Src] = append(out[ne.Src], ne.Dst)
	}
	for _, next := range out[sid] {
		if path := pathBetween(out, nil, next, sid); path != nil {
			return Diff{}, fmt.Errorf("the fold would make the cycle summary -> %s: node %d lies between folded nodes (fold it too, or leave out one end)",
				strings.TrimSuffix(formatPath(path), fmt.Sprintf(" -> %d", sid))+" -> summary", next)
		}
	}
	g.addNode(&ReasoningNode{ID: sid, Kind: KindSummary, Thought: encodedNotesThought(op.Notes), TurnIDs: turns, Active: Live})
	d.NodesAdded = append(d.NodesAdded, sid)
	for _, id := range op.IDs {
		g.nodes[g.index[id]].Active = Folded
		d.NodesChanged = append(d.NodesChanged, NodeChange{ID: id, From: Live, To: Folded})
	}
	g.edges, g.out = edges, out
	return d, nil
}

// ApplyFlushAndFold applies the model's reply to the flush-and-fold prompt
// as MemoBrain's recall() does: every flush in order, then every fold in
// order, each recorded as its own step. It is all or nothing: on an error
// the steps already applied are taken back and the graph is as it was. Besides what Flush and Fold check, a node may be
// in one operation only (the prompt's rule).
//
// Errors name the op: `memobrain: fold_ops[1] (fold): ids[0]: node 4 is
// already in flush_ops[0] of this reply`.
func (g *Graph) ApplyFlushAndFold(f FlushAndFoldOp) ([]Step, error) {
	start := len(g.steps)
	if undos, err := g.applyFlushAndFold(f); err != nil {
		g.rollback(start, undos)
		return nil, err
	}
	return slices.Clone(g.steps[start:]), nil
}

// applyFlushAndFold applies and records the reply's operations; undos has
// one entry per step it recorded, also when it fails half way.
func (g *Graph) applyFlushAndFold(f FlushAndFoldOp) (undos []undo, err error) {
	in := map[int]string{}
	for i, op := range f.FlushOps {
		if by, ok := in[op.ID]; ok {
			return undos, fmt.Errorf("memobrain: flush_ops[%d] (flush): node %d is already in %s of this reply", i, op.ID, by)
		}
		d, err := g.flush(op)
		if err != nil {
			return undos, fmt.Errorf("memobrain: flush_ops[%d] (flush): %w", i, err)
		}
		undos = append(undos, undo{edges: g.edges, next: g.next})
		g.record(Step{Kind: OpFlush, Input: op.input(), Diff: d})
		in[op.ID] = fmt.Sprintf("flush_ops[%d]", i)
	}
	for i, op := range f.FoldOps {
		for k, id := range op.IDs {
			if by, ok := in[id]; ok {
				return undos, fmt.Errorf("memobrain: fold_ops[%d] (fold): ids[%d]: node %d is already in %s of this reply", i, k, id, by)
			}
		}
		before := undo{edges: g.edges, next: g.next}
		d, err := g.fold(op)
		if err != nil {
			return undos, fmt.Errorf("memobrain: fold_ops[%d] (fold): %w", i, err)
		}
		undos = append(undos, before)
		g.record(Step{Kind: OpFold, Input: op.input(), Diff: d})
		for _, id := range op.IDs {
			in[id] = fmt.Sprintf("fold_ops[%d]", i)
		}
	}
	return undos, nil
}

// undo is what a step of a reply being applied needs to be taken back: the
// edge list and the next id before it (a flush leaves the edge list alone, a
// fold replaces it: neither changes it in place).
type undo struct {
	edges []Edge
	next  int
}

// rollback takes back the steps recorded since step start, newest first:
// states changed go back, nodes added go, the edge list and the next id are
// restored.
func (g *Graph) rollback(start int, undos []undo) {
	for i := len(g.steps) - 1; i >= start; i-- {
		s, u := g.steps[i], undos[i-start]
		for _, c := range s.Diff.NodesChanged {
			g.nodes[g.index[c.ID]].Active = c.From
		}
		for _, id := range s.Diff.NodesAdded {
			delete(g.index, id)
		}
		g.nodes = g.nodes[:len(g.nodes)-len(s.Diff.NodesAdded)]
		g.edges, g.next = u.edges, u.next
	}
	g.steps = g.steps[:start]
	g.out = nil
}

func (g *Graph) record(s Step) Step {
	g.steps = append(g.steps, s)
	return s
}
