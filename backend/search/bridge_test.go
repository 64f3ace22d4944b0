package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestConnectHandmade(t *testing.T) {
	g := NewGraph([]GraphEdge{
		{"bug", "fix", "LEADS_TO", 0.9, "the fix closed the bug"},
		{"fix", "release", "PART_OF", 0.8, "shipped in 1.2"},
		{"spec", "fix", "DERIVED_FROM", 0.5, ""}, // points at fix: followed backwards from fix
		{"bug", "release", "RELATES_TO", 0.3, "mentioned together"},
		{"release", "release", "RELATES_TO", 1, "a self-loop, ignored"},
	})
	paths := g.Connect("bug", "release", 5, 3)
	if len(paths) != 2 {
		t.Fatalf("%d paths: %v", len(paths), paths)
	}
	if got := paths[0].String(); got != "bug -[LEADS_TO]-> fix -[PART_OF]-> release (0.72)" {
		t.Errorf("best path %s", got)
	}
	if paths[0].Steps[0].Rationale != "the fix closed the bug" || paths[1].String() != "bug -[RELATES_TO]-> release (0.3)" {
		t.Errorf("paths %v", paths)
	}
	back := g.Connect("spec", "release", 5, 3)
	if len(back) != 2 || back[0].String() != "spec -[DERIVED_FROM]-> fix -[PART_OF]-> release (0.4)" {
		t.Errorf("spec to release: %v", back)
	}
	if got := g.Connect("release", "spec", 5, 3); len(got) == 0 || got[0].String() != "release <-[PART_OF]- fix <-[DERIVED_FROM]- spec (0.4)" {
		t.Errorf("release to spec: %v", got)
	}
	if g.Connect("bug", "nowhere", 5, 3) != nil || g.Connect("bug", "bug", 5, 3) != nil {
		t.Error("a path to an unknown item or to itself")
	}
	if got := g.Connect("bug", "release", 5, 3, "PART_OF", "LEADS_TO"); len(got) != 1 {
		t.Errorf("typed: %v", got)
	}

	br := g.Bridges([]Hit{{"bug", 1}, {"spec", 0.5}}, BridgeOptions{Limit: 10})
	if len(br) == 0 || br[0].String() != "bug -[LEADS_TO]-> fix (0.9)" {
		t.Fatalf("bridges %v", br)
	}
	var toSpec *Path
	for i := range br {
		if br[i].Nodes[len(br[i].Nodes)-1] == "spec" {
			toSpec = &br[i]
		}
	}
	if toSpec == nil || !toSpec.EndsAtSeed || toSpec.String() != "bug -[LEADS_TO]-> fix <-[DERIVED_FROM]- spec (0.45)" {
		t.Errorf("bridge between the seeds: %v", toSpec)
	}
}

// randomGraph is a preferential-attachment graph (a few hubs, many small
// nodes, as knowledge graphs grow): n nodes, about m edges per new node.
func randomGraph(n, m int, seed uint64) []GraphEdge {
	rng := rand.New(rand.NewPCG(seed, 5))
	types := []string{"LEADS_TO", "PART_OF", "RELATES_TO", "DERIVED_FROM", "REFERENCES"}
	var edges []GraphEdge
	var ends []int
	for i := 0; i < n; i++ {
		for j := 0; j < m && i > 0; j++ {
			var t int
			if len(ends) > 0 && rng.IntN(2) == 0 {
				t = ends[rng.IntN(len(ends))]
			} else {
				t = rng.IntN(i)
			}
			edges = append(edges, GraphEdge{Source: fmt.Sprint("n", i), Target: fmt.Sprint("n", t), Type: types[rng.IntN(len(types))],
				Confidence: 0.3 + 0.7*rng.Float64()})
			ends = append(ends, i, t)
		}
	}
	return edges
}

// allPaths enumerates every simple path of up to 3 edges from a: the
// exhaustive baseline.
func allPaths(g *Graph, a int32, visit func(p partial)) {
	var walk func(p partial)
	walk = func(p partial) {
		if p.n > 1 {
			visit(p)
		}
		if p.n == 4 {
			return
		}
		for _, he := range g.neighbours(p.nodes[p.n-1]) {
			if p.has(he.to) {
				continue
			}
			q := p
			q.nodes[q.n], q.edges[q.n-1], q.fwd[q.n-1] = he.to, he.edge, he.forward
			q.n++
			q.score *= he.conf
			walk(q)
		}
	}
	walk(partial{nodes: [4]int32{a}, n: 1, score: 1})
}

// Connect and Bridges find the same best scores as enumerating every path.
func TestBridgesMatchExhaustive(t *testing.T) {
	g := NewGraph(randomGraph(300, 2, 9))
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 40; trial++ {
		a, b := int32(rng.IntN(len(g.ids))), int32(rng.IntN(len(g.ids)))
		if a == b {
			continue
		}
		var want []float64
		allPaths(g, a, func(p partial) {
			if p.nodes[p.n-1] == b {
				want = append(want, p.score)
			}
		})
		sort.Sort(sort.Reverse(sort.Float64Slice(want)))
		got := g.Connect(g.ids[a], g.ids[b], 5, 3)
		if len(got) != min(5, len(want)) {
			t.Fatalf("%s to %s: %d paths, want %d", g.ids[a], g.ids[b], len(got), min(5, len(want)))
		}
		for i, p := range got {
			if math.Abs(p.Score-want[i]) > 1e-12 || p.Nodes[0] != g.ids[a] || p.Nodes[len(p.Nodes)-1] != g.ids[b] {
				t.Fatalf("%s to %s: path %d %v, want score %v", g.ids[a], g.ids[b], i, p, want[i])
			}
			checkPath(t, g, p)
		}
		// Bridges from one seed: each target's best path score, best first.
		bestTo := map[int32]float64{}
		allPaths(g, a, func(p partial) {
			if last := p.nodes[p.n-1]; p.score > bestTo[last] {
				bestTo[last] = p.score
			}
		})
		var wantB []float64
		for _, s := range bestTo {
			wantB = append(wantB, 0.8*s)
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(wantB)))
		br := g.Bridges([]Hit{{g.ids[a], 0.8}}, BridgeOptions{Limit: 8})
		for i, p := range br {
			if math.Abs(p.Score-wantB[i]) > 1e-12 {
				t.Fatalf("bridges from %s: path %d %v, want score %v", g.ids[a], i, p, wantB[i])
			}
			checkPath(t, g, p)
		}
	}
}

// checkPath checks each step is a real edge, pointing the way it says.
func checkPath(t *testing.T, g *Graph, p Path) {
	t.Helper()
	score := 1.0
	for i, s := range p.Steps {
		from, to := p.Nodes[i], p.Nodes[i+1]
		if !s.Forward {
			from, to = to, from
		}
		found := false
		for _, e := range g.edges {
			if e.Source == from && e.Target == to && e.Type == s.Type && e.Confidence == s.Confidence {
				found = true
			}
		}
		if !found {
			t.Fatalf("path %v: step %d %s -[%s]-> %s is not an edge", p, i, from, s.Type, to)
		}
		score *= s.Confidence
	}
	if score < p.Score-1e-12 {
		t.Fatalf("path %v: edges give %v", p, score)
	}
}

// bfsConnect is the baseline Connect improves on: breadth-first from a to
// depth 3, every path kept, those ending at b scored.
func bfsConnect(g *Graph, a, b int32, limit int) []float64 {
	var scores []float64
	allPaths(g, a, func(p partial) {
		if p.nodes[p.n-1] == b {
			scores = append(scores, p.score)
		}
	})
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	return scores[:min(limit, len(scores))]
}

// bfsBridges is the baseline Bridges improves on: every node within three
// edges of the seeds reached breadth-first, level by level, with its best
// path score, then sorted.
func bfsBridges(g *Graph, seeds []int32, limit int) []float64 {
	best := map[int32]float64{}
	level := map[int32]float64{}
	for _, s := range seeds {
		level[s] = 1
	}
	for hop := 0; hop < 3; hop++ {
		next := map[int32]float64{}
		for n, sc := range level {
			for _, he := range g.neighbours(n) {
				if v := sc * he.conf; v > next[he.to] {
					next[he.to] = v
				}
			}
		}
		for n, sc := range next {
			if sc > best[n] {
				best[n] = sc
			}
		}
		level = next
	}
	out := make([]float64, 0, len(best))
	for _, s := range best {
		out = append(out, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(out)))
	return out[:min(limit, len(out))]
}

// BenchmarkBridges reports, over 100,000 nodes and 500,000 edges (a
// preferential-attachment graph), the p50/p95 of Connect (a to b, 3 hops)
// and Bridges (10 seeds, 3 hops, 20 paths), against breadth-first baselines
// in the same run.
func BenchmarkBridges(b *testing.B) {
	g := NewGraph(randomGraph(100000, 5, 1))
	rng := rand.New(rand.NewPCG(4, 4))
	pick := func() int32 { return int32(rng.IntN(len(g.ids))) }
	for b.Loop() {
		var conn, connBase, br, brBase []time.Duration
		for i := 0; i < 40; i++ {
			x, y := pick(), pick()
			t := time.Now()
			g.Connect(g.ids[x], g.ids[y], 5, 3)
			conn = append(conn, time.Since(t))
			if i < 8 {
				t = time.Now()
				bfsConnect(g, x, y, 5)
				connBase = append(connBase, time.Since(t))
			}
			var seeds []Hit
			var seedIDs []int32
			for j := 0; j < 10; j++ {
				s := pick()
				seeds = append(seeds, Hit{g.ids[s], 1 - 0.05*float64(j)})
				seedIDs = append(seedIDs, s)
			}
			t = time.Now()
			g.Bridges(seeds, BridgeOptions{Limit: 20})
			br = append(br, time.Since(t))
			if i < 8 {
				t = time.Now()
				bfsBridges(g, seedIDs, 20)
				brBase = append(brBase, time.Since(t))
			}
		}
		b.Logf("graph %d nodes, %d edges", len(g.ids), len(g.edges))
		b.Logf("connect a to b, 3 hops: p50 %v p95 %v (every path breadth-first: p50 %v p95 %v)",
			pctDur(conn, 50), pctDur(conn, 95), pctDur(connBase, 50), pctDur(connBase, 95))
		b.Logf("bridges, 10 seeds, 3 hops, 20 paths: p50 %v p95 %v (breadth-first to 3 hops: p50 %v p95 %v)",
			pctDur(br, 50), pctDur(br, 95), pctDur(brBase, 50), pctDur(brBase, 95))
	}
}

func pctDur(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)].Round(10 * time.Microsecond)
}
