// Package memobrain is MemoBrain's reasoning graph: task, subtask, evidence
// and summary nodes, grown by memory patches and compressed by flush and
// fold, exactly as MemoBrain (github.com/qhjqhj00/MemoBrain,
// src/problem_tree.py and src/memobrain.py) performs them, with every
// operation recorded so that any past state can be rebuilt.
//
// It reads and writes MemoBrain's JSON snapshots losslessly, reads the
// conversation beside them, builds MemoBrain's prompts and reads the model's
// replies. It is pure: no database, no network.
//
// See memobrain-data-model.md, interchange-formats.md §3 and the MemoBrain
// part of ERRATA.md (which wins where they disagree).
package memobrain

import (
	"slices"
	"strconv"
)

// MaxID is the largest node or turn id Rhizome holds: ids must survive a trip
// through JavaScript numbers. Reading refuses larger ones.
const MaxID = 1<<53 - 1

// Graph is a reasoning graph and the log of the operations applied to it.
// Nodes are kept in the order they were read or made (MemoBrain's dict
// order), edges in list order. The zero Graph is an empty graph, as from
// NewGraph. A Graph is not safe for concurrent use.
type Graph struct {
	nodes []*ReasoningNode
	index map[int]int // node id -> position in nodes
	edges []Edge
	next  int // the id the next node gets: max id + 1, as from_dict sets it

	out map[int][]int // src -> dsts; built on demand, dropped when edges are rebuilt

	base  *Graph // the state the log starts from; nil: the empty graph
	steps []Step
}

// NewGraph is an empty graph with an empty log; Init starts it with a task.
func NewGraph() *Graph {
	return &Graph{index: map[int]int{}, next: 1}
}

// Len is the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// NextID is the id the next new node will get (MemoBrain's counter: one more
// than the largest id).
func (g *Graph) NextID() int {
	g.ready()
	return g.next
}

// Node returns the node with id, and whether there is one. Its slices are
// shared with the graph: do not modify them.
func (g *Graph) Node(id int) (ReasoningNode, bool) {
	i, ok := g.index[id]
	if !ok {
		return ReasoningNode{}, false
	}
	return *g.nodes[i], true
}

// Nodes returns every node in order. Their slices are shared with the graph:
// do not modify them.
func (g *Graph) Nodes() []ReasoningNode {
	out := make([]ReasoningNode, len(g.nodes))
	for i, n := range g.nodes {
		out[i] = *n
	}
	return out
}

// Edges returns every edge in order.
func (g *Graph) Edges() []Edge { return slices.Clone(g.edges) }

// Counts is how many nodes and edges a graph has, by kind and state.
type Counts struct {
	Nodes       int              `json:"nodes"`
	ByKind      map[NodeKind]int `json:"byKind"`
	Active      int              `json:"active"`
	Folded      int              `json:"folded"`
	Flushed     int              `json:"flushed"`
	Edges       int              `json:"edges"`
	EdgesByKind map[EdgeKind]int `json:"edgesByKind"`
}

// Counts counts the graph's nodes and edges.
func (g *Graph) Counts() Counts {
	c := Counts{Nodes: len(g.nodes), ByKind: map[NodeKind]int{}, Edges: len(g.edges), EdgesByKind: map[EdgeKind]int{}}
	for _, n := range g.nodes {
		c.ByKind[n.Kind]++
		switch n.Active {
		case Live:
			c.Active++
		case Folded:
			c.Folded++
		case Flushed:
			c.Flushed++
		}
	}
	for _, e := range g.edges {
		c.EdgesByKind[e.Kind]++
	}
	return c
}

// Log is the record of every operation applied to the graph since it was
// made or read.
func (g *Graph) Log() Log {
	return Log{Base: g.base, Steps: slices.Clone(g.steps)}
}

// clone copies the graph's state and log; node structs are copied, their
// read-only parts (thought, turn ids, source) shared.
func (g *Graph) clone() *Graph {
	c := &Graph{nodes: make([]*ReasoningNode, len(g.nodes)), index: make(map[int]int, len(g.nodes)),
		edges: slices.Clone(g.edges), next: g.next, base: g.base, steps: slices.Clip(g.steps)}
	for i, n := range g.nodes {
		cp := *n
		c.nodes[i] = &cp
		c.index[n.ID] = i
	}
	return c
}

// frozen is a copy of the state alone, to start a log from.
func (g *Graph) frozen() *Graph {
	c := g.clone()
	c.base, c.steps = nil, nil
	return c
}

// ready makes the zero Graph an empty one.
func (g *Graph) ready() {
	if g.index == nil {
		g.index = map[int]int{}
		if len(g.nodes) == 0 && g.next == 0 {
			g.next = 1
		}
	}
}

func (g *Graph) addNode(n *ReasoningNode) {
	g.index[n.ID] = len(g.nodes)
	g.nodes = append(g.nodes, n)
	if n.ID >= g.next {
		g.next = n.ID + 1
	}
}

func (g *Graph) kind(id int) NodeKind {
	if i, ok := g.index[id]; ok {
		return g.nodes[i].Kind
	}
	return ""
}

func (g *Graph) addEdge(e Edge) {
	g.edges = append(g.edges, e)
	if g.out != nil {
		g.out[e.Src] = append(g.out[e.Src], e.Dst)
	}
}

// children is the src -> dsts adjacency, built on first use.
func (g *Graph) children() map[int][]int {
	if g.out == nil {
		g.out = make(map[int][]int, len(g.nodes))
		for _, e := range g.edges {
			g.out[e.Src] = append(g.out[e.Src], e.Dst)
		}
	}
	return g.out
}

// pathBetween returns a path from a to b along the edges in out plus extra
// (src -> dsts), or nil when b cannot be reached from a.
func pathBetween(out, extra map[int][]int, a, b int) []int {
	prev := map[int]int{a: a}
	queue := []int{a}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x == b {
			var path []int
			for y := b; y != a; y = prev[y] {
				path = append(path, y)
			}
			path = append(path, a)
			slices.Reverse(path)
			return path
		}
		for _, adj := range [2]map[int][]int{out, extra} {
			for _, y := range adj[x] {
				if _, seen := prev[y]; !seen {
					prev[y] = x
					queue = append(queue, y)
				}
			}
		}
	}
	return nil
}

func formatPath(path []int) string {
	b := []byte{}
	for i, id := range path {
		if i > 0 {
			b = append(b, " -> "...)
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(b)
}

// Detached returns a copy of the graph's state that holds nothing of its
// history: its log starts at that state. A viewer that keeps states of a
// long history (checkpoints to replay from) keeps detached ones, so that no
// state keeps the states before it alive.
func (g *Graph) Detached() *Graph {
	g.ready()
	c := g.frozen()
	c.base = g.frozen()
	return c
}
