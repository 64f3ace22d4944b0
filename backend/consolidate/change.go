package consolidate

import (
	"fmt"
	"slices"

	"rhizome/backend/link"
)

// Op is what a Change does.
type Op string

// The changes a run makes, each with its exact inverse (see Inverse).
const (
	OpScore      Op = "score"      // set Item's relevance from Before to After
	OpArchive    Op = "archive"    // archive Item
	OpUnarchive  Op = "unarchive"  // bring Item back from the archive
	OpAddNode    Op = "addNode"    // add Node, then Edges
	OpRemoveNode Op = "removeNode" // remove Edges, then Node (they must be all its edges)
	OpAddEdge    Op = "addEdge"    // add Edge
	OpRemoveEdge Op = "removeEdge" // remove Edge
)

// Change is one change of a run, carrying what its inverse needs. Which
// fields it uses depends on Op:
//
//	score                Item, Before, After
//	archive, unarchive   Item, Relevance (the score it was judged on)
//	addNode, removeNode  Node, Edges (the node's edges, added after it or removed before it)
//	addEdge, removeEdge  Edge
//
// Zero fields are left out of its JSON, which reads back the same.
type Change struct {
	Op     Op        `json:"op"`
	Cycle  Cycle     `json:"cycle"`            // the cycle that made it
	Item   link.Item `json:"item,omitzero"`    // score, archive, unarchive
	Before float64   `json:"before,omitempty"` // score: the stored relevance
	After  float64   `json:"after,omitempty"`  // score: the new relevance
	// Relevance is, on archive and removeNode, the score forget judged the
	// node on.
	Relevance float64 `json:"relevance,omitempty"`
	Node      *Node   `json:"node,omitempty"`  // addNode, removeNode
	Edges     []Edge  `json:"edges,omitempty"` // addNode, removeNode
	Edge      *Edge   `json:"edge,omitempty"`  // addEdge, removeEdge
	// Reason says why, for people ("relevance 0.04 < 0.05").
	Reason string `json:"reason,omitempty"`
}

// Inverse is the change that undoes c: a score set back, an archive
// undone, a node or edge removed or restored (a node with its edges).
func (c Change) Inverse() Change {
	inv := c
	if c.Reason != "" {
		inv.Reason = "undo: " + c.Reason
	}
	switch c.Op {
	case OpScore:
		inv.Before, inv.After = c.After, c.Before
	case OpArchive:
		inv.Op = OpUnarchive
	case OpUnarchive:
		inv.Op = OpArchive
	case OpAddNode:
		inv.Op = OpRemoveNode
	case OpRemoveNode:
		inv.Op = OpAddNode
	case OpAddEdge:
		inv.Op = OpRemoveEdge
	case OpRemoveEdge:
		inv.Op = OpAddEdge
	}
	return inv
}

// Apply returns the graph with changes applied in order; g itself is not
// modified (its slices are shared with the result where unchanged). Each
// change checks that the graph is as the run left it: a score must be
// Before, an archive flag the opposite of the new one, an added node or
// edge absent (and valid), a removed one present and equal to the one the
// change carries, and a removed node's edges exactly the ones listed. A graph that moved on since (a later run, an edit) is an
// error naming the change and what differs, and no change is applied: undo
// later runs first.
func (g Graph) Apply(changes []Change) (Graph, error) {
	st := newState(g)
	for i := range changes {
		if err := st.apply(&changes[i]); err != nil {
			return g, fmt.Errorf("consolidate: change %d (%s): %w", i, changes[i].Op, err)
		}
	}
	return st.graph(), nil
}

// state is a graph being changed: nodes and edges by id, with the places
// of removed ones kept so that restoring them keeps the order.
type state struct {
	nodes     []Node
	nodeAlive []bool
	nodeByID  map[link.Item]int
	edges     []Edge
	edgeAlive []bool
	edgeByID  map[string]int
	// adj lists, per item, the edges that ever touched it (alive or not).
	adj map[link.Item][]int
}

// newState indexes g. Its slices are copied, their elements shared.
func newState(g Graph) *state {
	st := &state{
		nodes:     slices.Clone(g.Nodes),
		nodeAlive: make([]bool, len(g.Nodes)),
		nodeByID:  make(map[link.Item]int, len(g.Nodes)),
		edges:     slices.Clone(g.Edges),
		edgeAlive: make([]bool, len(g.Edges)),
		edgeByID:  make(map[string]int, len(g.Edges)),
		adj:       make(map[link.Item][]int, len(g.Nodes)),
	}
	for i := range st.nodes {
		st.nodeAlive[i] = true
		st.nodeByID[st.nodes[i].ID] = i
	}
	for i := range st.edges {
		st.edgeAlive[i] = true
		e := &st.edges[i]
		st.edgeByID[e.ID] = i
		st.adj[e.Source] = append(st.adj[e.Source], i)
		st.adj[e.Target] = append(st.adj[e.Target], i)
	}
	return st
}

// graph is the state's live nodes and edges, in order.
func (st *state) graph() Graph {
	g := Graph{Nodes: make([]Node, 0, len(st.nodes)), Edges: make([]Edge, 0, len(st.edges))}
	for i := range st.nodes {
		if st.nodeAlive[i] {
			g.Nodes = append(g.Nodes, st.nodes[i])
		}
	}
	for i := range st.edges {
		if st.edgeAlive[i] {
			g.Edges = append(g.Edges, st.edges[i])
		}
	}
	return g
}

// node is the index of live node id, or -1.
func (st *state) node(id link.Item) int {
	if i, ok := st.nodeByID[id]; ok && st.nodeAlive[i] {
		return i
	}
	return -1
}

// incident calls f with every live edge touching item id.
func (st *state) incident(id link.Item, f func(e *Edge)) {
	for _, ei := range st.adj[id] {
		e := &st.edges[ei]
		if st.edgeAlive[ei] && (e.Source == id || e.Target == id) {
			f(e)
		}
	}
}

// degree is the number of live edges touching id.
func (st *state) degree(id link.Item) int {
	n := 0
	st.incident(id, func(*Edge) { n++ })
	return n
}

// touched reports whether a person made an edge touching id.
func (st *state) touched(id link.Item) bool {
	t := false
	st.incident(id, func(e *Edge) { t = t || e.CreatedBy == link.ByUser })
	return t
}

// connected reports whether a live edge joins a and b, either way.
func (st *state) connected(a, b link.Item) bool {
	if len(st.adj[b]) < len(st.adj[a]) {
		a, b = b, a
	}
	c := false
	st.incident(a, func(e *Edge) { c = c || e.Source == b || e.Target == b })
	return c
}

// incidentEdges copies the live edges touching id, in order.
func (st *state) incidentEdges(id link.Item) []Edge {
	var out []Edge
	st.incident(id, func(e *Edge) { out = append(out, *e) })
	return out
}

// apply checks c against the state and applies it. On error the state is
// as it was before c.
func (st *state) apply(c *Change) error {
	switch c.Op {
	case OpScore:
		i := st.node(c.Item)
		if i < 0 {
			return fmt.Errorf("node %s is not in the graph", c.Item)
		}
		if st.nodes[i].Relevance != c.Before {
			return fmt.Errorf("node %s has relevance %v, the run expected %v: it changed since", c.Item, st.nodes[i].Relevance, c.Before)
		}
		st.nodes[i].Relevance = c.After
	case OpArchive, OpUnarchive:
		i := st.node(c.Item)
		if i < 0 {
			return fmt.Errorf("node %s is not in the graph", c.Item)
		}
		want := c.Op == OpArchive
		if st.nodes[i].Archived == want {
			return fmt.Errorf("node %s is already archived=%v", c.Item, want)
		}
		st.nodes[i].Archived = want
	case OpAddNode:
		if c.Node == nil {
			return fmt.Errorf("no node")
		}
		if err := c.Node.ID.Validate(); err != nil || !c.Node.ID.InLibrary() {
			return fmt.Errorf("node %q is not a library item", c.Node.ID.ID)
		}
		if err := c.Node.validate(); err != nil {
			return fmt.Errorf("node %w", err)
		}
		if st.node(c.Node.ID) >= 0 {
			return fmt.Errorf("node %s is already in the graph", c.Node.ID)
		}
		for k := range c.Edges {
			e := &c.Edges[k]
			if err := st.canAddEdge(e, c.Node.ID); err != nil {
				return err
			}
			if e.Source != c.Node.ID && e.Target != c.Node.ID {
				return fmt.Errorf("edge %s does not touch node %s", e.ID, c.Node.ID)
			}
			if slices.ContainsFunc(c.Edges[:k], func(o Edge) bool { return o.ID == e.ID }) {
				return fmt.Errorf("edge %s is listed twice", e.ID)
			}
		}
		if i, ok := st.nodeByID[c.Node.ID]; ok {
			st.nodes[i], st.nodeAlive[i] = *c.Node, true
		} else {
			st.nodeByID[c.Node.ID] = len(st.nodes)
			st.nodes = append(st.nodes, *c.Node)
			st.nodeAlive = append(st.nodeAlive, true)
		}
		for k := range c.Edges {
			st.addEdge(c.Edges[k])
		}
	case OpRemoveNode:
		if c.Node == nil {
			return fmt.Errorf("no node")
		}
		i := st.node(c.Node.ID)
		if i < 0 {
			return fmt.Errorf("node %s is not in the graph", c.Node.ID)
		}
		if !nodeEqual(&st.nodes[i], c.Node) {
			return fmt.Errorf("node %s is not as the run saw it: it changed since", c.Node.ID)
		}
		var have []string
		st.incident(c.Node.ID, func(e *Edge) { have = append(have, e.ID) })
		want := make([]string, len(c.Edges))
		for k := range c.Edges {
			want[k] = c.Edges[k].ID
		}
		slices.Sort(have)
		slices.Sort(want)
		if !slices.Equal(have, want) {
			return fmt.Errorf("node %s has edges %v, the run expected %v: they changed since", c.Node.ID, have, want)
		}
		for k := range c.Edges {
			if !edgeEqual(&st.edges[st.edgeByID[c.Edges[k].ID]], &c.Edges[k]) {
				return fmt.Errorf("edge %s is not as the run saw it: it changed since", c.Edges[k].ID)
			}
		}
		for _, id := range want {
			st.edgeAlive[st.edgeByID[id]] = false
		}
		st.nodeAlive[i] = false
	case OpAddEdge:
		if c.Edge == nil {
			return fmt.Errorf("no edge")
		}
		if err := st.canAddEdge(c.Edge, link.Item{}); err != nil {
			return err
		}
		st.addEdge(*c.Edge)
	case OpRemoveEdge:
		if c.Edge == nil {
			return fmt.Errorf("no edge")
		}
		i, ok := st.edgeByID[c.Edge.ID]
		if !ok || !st.edgeAlive[i] {
			return fmt.Errorf("edge %s is not in the graph", c.Edge.ID)
		}
		if !edgeEqual(&st.edges[i], c.Edge) {
			return fmt.Errorf("edge %s is not as the run saw it: it changed since", c.Edge.ID)
		}
		st.edgeAlive[i] = false
	default:
		return fmt.Errorf("unknown op %q", c.Op)
	}
	return nil
}

// canAddEdge checks that e is absent and that neither end is a removed
// node (except adding, the node about to be restored with it).
func (st *state) canAddEdge(e *Edge, adding link.Item) error {
	if err := e.validate(); err != nil {
		return fmt.Errorf("edge %w", err)
	}
	if i, ok := st.edgeByID[e.ID]; ok && st.edgeAlive[i] {
		return fmt.Errorf("edge %s is already in the graph", e.ID)
	}
	for _, end := range []link.Item{e.Source, e.Target} {
		if i, ok := st.nodeByID[end]; ok && !st.nodeAlive[i] && end != adding {
			return fmt.Errorf("edge %s: its end %s was removed", e.ID, end)
		}
	}
	return nil
}

// addEdge adds or restores e (in its old place when it had one).
func (st *state) addEdge(e Edge) {
	if i, ok := st.edgeByID[e.ID]; ok {
		old := st.edges[i]
		st.edges[i], st.edgeAlive[i] = e, true
		if old.Source != e.Source || old.Target != e.Target {
			for _, end := range []link.Item{e.Source, e.Target} {
				if !slices.Contains(st.adj[end], i) {
					st.adj[end] = append(st.adj[end], i)
				}
			}
		}
		return
	}
	i := len(st.edges)
	st.edgeByID[e.ID] = i
	st.edges = append(st.edges, e)
	st.edgeAlive = append(st.edgeAlive, true)
	st.adj[e.Source] = append(st.adj[e.Source], i)
	st.adj[e.Target] = append(st.adj[e.Target], i)
}

// nodeEqual reports whether a and b hold the same node (times compared as
// instants).
func nodeEqual(a, b *Node) bool {
	return a.ID == b.ID && a.Kind == b.Kind && a.Label == b.Label && a.Summary == b.Summary &&
		slices.Equal(a.Tags, b.Tags) && a.Importance == b.Importance && a.Confidence == b.Confidence &&
		a.CreatedAt.Equal(b.CreatedAt) && a.LastAccessed.Equal(b.LastAccessed) && a.Relevance == b.Relevance &&
		a.Archived == b.Archived && a.TouchedByPerson == b.TouchedByPerson && slices.Equal(a.Embedding, b.Embedding)
}

// edgeEqual reports whether a and b hold the same edge.
func edgeEqual(a, b *Edge) bool {
	return a.ID == b.ID && a.Source == b.Source && a.Target == b.Target && a.Relation == b.Relation &&
		a.Confidence == b.Confidence && a.CreatedBy == b.CreatedBy && a.CreatedAt.Equal(b.CreatedAt) && a.Note == b.Note
}
