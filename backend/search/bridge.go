package search

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"strings"
)

// GraphEdge is a typed, directed link between two items (an edge of the
// knowledge graph, or a link a person made), with how sure it is.
type GraphEdge struct {
	Source, Target string
	Type           string  // LEADS_TO, PART_OF, ... (link.Relation names)
	Confidence     float64 // in (0, 1]; outside it is clamped, 0 means 1 (unknown)
	Rationale      string  // why the edge exists, as its maker said
}

// Graph is the adjacency bridges walk: every edge can be followed both ways
// (a path says which way each edge points). Build it once per change of the
// graph with NewGraph; it is read-only and safe for concurrent use.
type Graph struct {
	ids   []string
	index map[string]int32
	// adjacency in compressed rows: the half-edges of node i are
	// half[start[i]:start[i+1]]
	start []int32
	half  []halfEdge
	edges []GraphEdge
}

type halfEdge struct {
	to      int32
	edge    int32   // index in edges
	conf    float64 // clamped confidence
	forward bool    // the edge points from this node to `to`
}

// NewGraph builds the adjacency of edges. Self-loops are ignored.
func NewGraph(edges []GraphEdge) *Graph {
	g := &Graph{index: map[string]int32{}}
	id := func(s string) int32 {
		if i, ok := g.index[s]; ok {
			return i
		}
		i := int32(len(g.ids))
		g.ids = append(g.ids, s)
		g.index[s] = i
		return i
	}
	type pair struct{ a, b int32 }
	var ends []pair
	for _, e := range edges {
		if e.Source == e.Target {
			continue
		}
		ends = append(ends, pair{id(e.Source), id(e.Target)})
		g.edges = append(g.edges, e)
	}
	deg := make([]int32, len(g.ids)+1)
	for _, p := range ends {
		deg[p.a+1]++
		deg[p.b+1]++
	}
	for i := 1; i < len(deg); i++ {
		deg[i] += deg[i-1]
	}
	g.start = deg
	g.half = make([]halfEdge, 2*len(ends))
	fill := append([]int32(nil), deg[:len(deg)-1]...)
	for i, p := range ends {
		c := confidence(g.edges[i].Confidence)
		g.half[fill[p.a]] = halfEdge{to: p.b, edge: int32(i), conf: c, forward: true}
		fill[p.a]++
		g.half[fill[p.b]] = halfEdge{to: p.a, edge: int32(i), conf: c, forward: false}
		fill[p.b]++
	}
	// Each node's best edges first, so a walk meets them first.
	for i := range g.ids {
		hs := g.half[g.start[i]:g.start[i+1]]
		sort.Slice(hs, func(a, b int) bool { return hs[a].conf > hs[b].conf })
	}
	return g
}

func confidence(c float64) float64 {
	if c == 0 || math.IsNaN(c) {
		return 1
	}
	return min(max(c, 1e-6), 1)
}

// Nodes is the number of items with at least one edge.
func (g *Graph) Nodes() int { return len(g.ids) }

// Degree is the number of edges of item (0 when it has none).
func (g *Graph) Degree(item string) int {
	i, ok := g.index[item]
	if !ok {
		return 0
	}
	return int(g.start[i+1] - g.start[i])
}

func (g *Graph) neighbours(i int32) []halfEdge { return g.half[g.start[i]:g.start[i+1]] }

// Step is one edge of a path, read from Path.Nodes[i] to Path.Nodes[i+1].
type Step struct {
	Type       string  `json:"type"`
	Confidence float64 `json:"confidence"`
	Rationale  string  `json:"rationale"`
	// Forward is true when the edge points along the path (source to
	// target); false when the path follows it backwards.
	Forward bool `json:"forward"`
}

// Path is a chain of items, Source = Nodes[0], Target = the last, the
// bridges in between, with the edge of each step.
type Path struct {
	Nodes []string `json:"nodes"`
	Steps []Step   `json:"steps"`
	// Score is the product of the steps' confidences, times the seed's
	// score for bridges from seeds.
	Score float64 `json:"score"`
	// EndsAtSeed is true when the path joins two seeds of the search.
	EndsAtSeed bool `json:"endsAtSeed,omitempty"`
}

// String prints the path as `a -[TYPE]-> b <-[TYPE]- c` (score).
func (p Path) String() string {
	var b strings.Builder
	for i, n := range p.Nodes {
		if i > 0 {
			s := p.Steps[i-1]
			if s.Forward {
				fmt.Fprintf(&b, " -[%s]-> ", s.Type)
			} else {
				fmt.Fprintf(&b, " <-[%s]- ", s.Type)
			}
		}
		b.WriteString(n)
	}
	fmt.Fprintf(&b, " (%.3g)", p.Score)
	return b.String()
}

// BridgeOptions bound a bridge search. Zero fields take the defaults.
type BridgeOptions struct {
	MaxHops int      // edges per path, 1..3 (default 3)
	Limit   int      // paths returned (default 10)
	Types   []string // follow only these edge types (none: all)
}

func (o BridgeOptions) norm() BridgeOptions {
	if o.MaxHops <= 0 || o.MaxHops > 3 {
		o.MaxHops = 3
	}
	if o.Limit <= 0 {
		o.Limit = 10
	}
	return o
}

func allowed(types []string, t string) bool {
	if len(types) == 0 {
		return true
	}
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// partial is a path being grown: its nodes (at most 4) and score.
type partial struct {
	nodes [4]int32
	edges [3]int32
	fwd   [3]bool
	n     int8 // nodes in the path
	score float64
}

type partialHeap []partial

func (h partialHeap) Len() int           { return len(h) }
func (h partialHeap) Less(i, j int) bool { return h[i].score > h[j].score }
func (h partialHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *partialHeap) Push(x any)        { *h = append(*h, x.(partial)) }
func (h *partialHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (p *partial) has(n int32) bool {
	for i := int8(0); i < p.n; i++ {
		if p.nodes[i] == n {
			return true
		}
	}
	return false
}

func (g *Graph) path(p partial) Path {
	out := Path{Score: p.score}
	for i := int8(0); i < p.n; i++ {
		out.Nodes = append(out.Nodes, g.ids[p.nodes[i]])
		if i > 0 {
			e := g.edges[p.edges[i-1]]
			out.Steps = append(out.Steps, Step{Type: e.Type, Confidence: confidence(e.Confidence), Rationale: e.Rationale, Forward: p.fwd[i-1]})
		}
	}
	return out
}

// Bridges grows paths of up to opts.MaxHops edges from the seeds (items
// with their search scores, which should lie in (0, 1]) and returns the
// best opts.Limit, best first: each path's score is its seed's score times
// the product of its edges' confidences, and each target is reached once,
// by its best path. A path ending at another seed is marked EndsAtSeed: it
// is a bridge between two results. See automem-features.md, "Multi-Hop
// Bridge Discovery", and ERRATA.md (AutoMem's own code walks one hop).
//
// It is a best-first search: since a confidence is at most 1, a path never
// scores more than the paths it extends, so paths leave the queue best
// first and the search stops after opts.Limit targets, having touched only
// the edges of the nodes it expanded (each node at most once per path
// length), not every node within three hops.
func (g *Graph) Bridges(seeds []Hit, opts BridgeOptions) []Path {
	o := opts.norm()
	seedScore := map[int32]float64{}
	h := &partialHeap{}
	for _, s := range seeds {
		i, ok := g.index[s.Item]
		if !ok || s.Score <= 0 {
			continue
		}
		if old, dup := seedScore[i]; dup && old >= s.Score {
			continue
		}
		seedScore[i] = s.Score
		heap.Push(h, partial{nodes: [4]int32{i}, n: 1, score: s.Score})
	}
	var out []Path
	reached := map[int32]bool{}
	expanded := map[[2]int32]bool{} // (node, path length)
	for h.Len() > 0 && len(out) < o.Limit {
		p := heap.Pop(h).(partial)
		last := p.nodes[p.n-1]
		if p.n > 1 {
			if _, isSeed := seedScore[last]; !reached[last] && (!isSeed || last != p.nodes[0]) {
				reached[last] = true
				path := g.path(p)
				_, path.EndsAtSeed = seedScore[last]
				out = append(out, path)
			}
		}
		if int(p.n-1) >= o.MaxHops {
			continue
		}
		key := [2]int32{last, int32(p.n)}
		if expanded[key] {
			continue
		}
		expanded[key] = true
		for _, he := range g.neighbours(last) {
			if p.has(he.to) || !allowed(o.Types, g.edges[he.edge].Type) {
				continue
			}
			q := p
			q.nodes[q.n] = he.to
			q.edges[q.n-1] = he.edge
			q.fwd[q.n-1] = he.forward
			q.n++
			q.score = p.score * he.conf
			heap.Push(h, q)
		}
	}
	return out
}

// Connect answers "how is a connected to b?": the best limit paths of up
// to maxHops edges (1..3; 0 means 3) from a to b, best first by the product
// of their edges' confidences. It meets in the middle: the neighbours of a
// and of b are listed, and a three-edge path is an edge between the two
// lists, found by walking the edges of the smaller list only. None when
// either item has no edge or nothing joins them.
func (g *Graph) Connect(a, b string, limit, maxHops int, types ...string) []Path {
	if limit <= 0 {
		limit = 5
	}
	if maxHops <= 0 || maxHops > 3 {
		maxHops = 3
	}
	ia, oka := g.index[a]
	ib, okb := g.index[b]
	if !oka || !okb || ia == ib {
		return nil
	}
	best := &partialHeap{} // a min-heap of the best `limit` by score, kept by hand
	keep := func(p partial) {
		if best.Len() < limit {
			*best = append(*best, p)
			if best.Len() == limit {
				sort.Slice(*best, func(i, j int) bool { return (*best)[i].score < (*best)[j].score })
			}
			return
		}
		if p.score <= (*best)[0].score {
			return
		}
		(*best)[0] = p
		sort.Slice(*best, func(i, j int) bool { return (*best)[i].score < (*best)[j].score })
	}
	// Half-edges from a and from b, by neighbour.
	fromA := map[int32][]halfEdge{}
	for _, he := range g.neighbours(ia) {
		if allowed(types, g.edges[he.edge].Type) && he.to != ia {
			fromA[he.to] = append(fromA[he.to], he)
		}
	}
	fromB := map[int32][]halfEdge{}
	for _, he := range g.neighbours(ib) {
		if allowed(types, g.edges[he.edge].Type) && he.to != ib {
			fromB[he.to] = append(fromB[he.to], he)
		}
	}
	// One edge.
	for _, he := range fromA[ib] {
		keep(partial{nodes: [4]int32{ia, ib}, edges: [3]int32{he.edge}, fwd: [3]bool{he.forward}, n: 2, score: he.conf})
	}
	// Two edges: a - x - b.
	if maxHops >= 2 {
		for x, as := range fromA {
			if x == ib {
				continue
			}
			for _, bx := range fromB[x] {
				for _, ax := range as {
					// bx is b's half-edge to x: reversed, it leads x to b.
					keep(partial{nodes: [4]int32{ia, x, ib}, edges: [3]int32{ax.edge, bx.edge},
						fwd: [3]bool{ax.forward, !bx.forward}, n: 3, score: ax.conf * bx.conf})
				}
			}
		}
	}
	// Three edges: a - x - y - b, x a neighbour of a, y of b.
	if maxHops >= 3 {
		sumA, sumB := 0, 0
		for x := range fromA {
			sumA += g.Degree(g.ids[x])
		}
		for y := range fromB {
			sumB += g.Degree(g.ids[y])
		}
		walkFromA := sumA <= sumB
		near, far := fromA, fromB
		if !walkFromA {
			near, far = fromB, fromA
		}
		for x, nx := range near {
			if x == ia || x == ib {
				continue
			}
			for _, he := range g.neighbours(x) {
				y := he.to
				fy, ok := far[y]
				if !ok || y == ia || y == ib || y == x || !allowed(types, g.edges[he.edge].Type) {
					continue
				}
				for _, e1 := range nx {
					for _, e3 := range fy {
						score := e1.conf * he.conf * e3.conf
						var p partial
						if walkFromA { // a -e1- x -he- y -e3- b
							p = partial{nodes: [4]int32{ia, x, y, ib}, edges: [3]int32{e1.edge, he.edge, e3.edge},
								fwd: [3]bool{e1.forward, he.forward, !e3.forward}, n: 4, score: score}
						} else { // b -e1- x -he- y -e3- a, read backwards
							p = partial{nodes: [4]int32{ia, y, x, ib}, edges: [3]int32{e3.edge, he.edge, e1.edge},
								fwd: [3]bool{e3.forward, !he.forward, !e1.forward}, n: 4, score: score}
						}
						keep(p)
					}
				}
			}
		}
	}
	sort.Slice(*best, func(i, j int) bool {
		if (*best)[i].score != (*best)[j].score {
			return (*best)[i].score > (*best)[j].score
		}
		return (*best)[i].n < (*best)[j].n
	})
	out := make([]Path, best.Len())
	for i, p := range *best {
		out[i] = g.path(p)
	}
	return out
}
