package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/link"
)

// builder makes test graphs: themes of nodes whose embeddings lie close to
// one direction (pairwise cosine about 0.95), and noise nodes in random
// directions (pairwise cosine near 0 in 32 dimensions).
type builder struct {
	g    Graph
	rng  *rand.Rand
	n    int
	dirs map[string][]float32
}

const testDim = 32

func newBuilder(seed uint64) *builder {
	return &builder{rng: rand.New(rand.NewPCG(seed, 7)), dirs: map[string][]float32{}}
}

// direction is the unit direction of theme name, made on first use.
func (b *builder) direction(name string) []float32 {
	if d, ok := b.dirs[name]; ok {
		return d
	}
	d := b.random()
	b.dirs[name] = d
	return d
}

func (b *builder) random() []float32 {
	v := make([]float32, testDim)
	for i := range v {
		v[i] = float32(b.rng.NormFloat64())
	}
	normalise(v, v)
	return v
}

// near is a vector close to theme's direction.
func (b *builder) near(theme string) []float32 {
	d := b.direction(theme)
	v := make([]float32, testDim)
	for i := range v {
		v[i] = d[i] + float32(0.04*b.rng.NormFloat64())
	}
	return v
}

// add adds a fresh, relevant node (two days old, read this morning) of the
// given kind and tags with embedding v, and returns it for changes.
func (b *builder) add(kind, label string, v []float32, tags ...string) *Node {
	b.n++
	n := Node{
		ID:           link.Knowledge(fmt.Sprintf("k%03d", b.n)),
		Kind:         kind,
		Label:        label,
		Tags:         tags,
		Importance:   UnknownImportance,
		Confidence:   UnknownConfidence,
		CreatedAt:    daysAgo(2),
		LastAccessed: daysAgo(0.2),
		Embedding:    v,
	}
	s := DefaultSettings()
	n.Relevance = Relevance(&n, 0, now, &s)
	b.g.Nodes = append(b.g.Nodes, n)
	return &b.g.Nodes[len(b.g.Nodes)-1]
}

func (b *builder) edge(from, to *Node, rel link.Relation, by link.CreatedBy) {
	b.g.Edges = append(b.g.Edges, Edge{
		ID: fmt.Sprintf("e%03d", len(b.g.Edges)+1), Source: from.ID, Target: to.ID,
		Relation: rel, Confidence: 0.9, CreatedBy: by,
	})
}

// theme adds count nodes near theme's direction, each with tags(i).
func (b *builder) theme(theme string, count int, tags func(i int) []string) []*Node {
	out := make([]*Node, count)
	for i := range count {
		out[i] = b.add("Decision", fmt.Sprintf("%s decision %d", theme, i), b.near(theme), tags(i)...)
	}
	return out
}

func (b *builder) noise(count int) {
	for i := range count {
		b.add("Lesson", fmt.Sprintf("noise %d", i), b.random())
	}
}

func run(t *testing.T, g Graph, s Settings, cycles ...Cycle) RunLog {
	t.Helper()
	log, err := Run(context.Background(), g, s, Request{Cycles: cycles, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func apply(t *testing.T, g Graph, changes []Change) Graph {
	t.Helper()
	out, err := g.Apply(changes)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func pairKey(a, b link.Item) string {
	x, y := a.String(), b.String()
	if x > y {
		x, y = y, x
	}
	return x + " " + y
}

// TestCreativeLinksSimilarUnconnected: on a graph built to hold two themes,
// the creative cycle links exactly the similar (cosine > 0.75) pairs of
// relevant nodes that no edge joins yet — SHARES_THEME where they share a
// tag, RELATES_TO where they do not — and nothing else: not the pair
// already linked, not a faded node, an archived one or a MetaPattern, not
// noise. See automem-features.md, "Cycles" 2; issue 10 section 3.
func TestCreativeLinksSimilarUnconnected(t *testing.T) {
	b := newBuilder(1)
	auth := b.theme("auth", 6, func(i int) []string { return []string{"Auth", fmt.Sprintf("a%d", i)} })
	b.theme("cache", 4, func(i int) []string { return []string{fmt.Sprintf("c%d", i)} })
	b.edge(auth[0], auth[1], link.RelatesTo, link.ByOffline)
	faded := b.add("Lesson", "faded auth note", b.near("auth"), "auth")
	faded.CreatedAt, faded.LastAccessed = daysAgo(400), daysAgo(400)
	s := DefaultSettings()
	faded.Relevance = Relevance(faded, 0, now, &s)
	archived := b.add("Lesson", "archived auth note", b.near("auth"), "auth")
	archived.Archived = true
	meta := b.add(KindMetaPattern, "auth pattern", b.near("auth"), "auth")
	_ = meta
	b.noise(12)
	g := b.g

	// The pairs that must be linked, by brute force over every pair.
	eligible := func(n *Node) bool {
		return !n.Archived && n.Kind != KindMetaPattern && n.Relevance > 0.3
	}
	want := map[string]float64{}
	for i := range g.Nodes {
		for j := i + 1; j < len(g.Nodes); j++ {
			a, c := &g.Nodes[i], &g.Nodes[j]
			if eligible(a) && eligible(c) && Cosine(a.Embedding, c.Embedding) > 0.75 {
				want[pairKey(a.ID, c.ID)] = Cosine(a.Embedding, c.Embedding)
			}
		}
	}
	delete(want, pairKey(auth[0].ID, auth[1].ID))
	if len(want) != 14+6 {
		t.Fatalf("the built graph has %d similar unconnected pairs, want 20 (15-1 auth, 6 cache)", len(want))
	}

	s.CreativeLinksPerNode = 10
	log := run(t, g, s, Creative)
	got := map[string]bool{}
	inAuth := map[link.Item]bool{}
	for _, n := range auth {
		inAuth[n.ID] = true
	}
	for _, c := range log.Changes {
		if c.Op != OpAddEdge || c.Cycle != Creative {
			t.Fatalf("creative made a %s change: %+v", c.Op, c)
		}
		e := c.Edge
		k := pairKey(e.Source, e.Target)
		sim, ok := want[k]
		if !ok {
			t.Errorf("edge %s–%s (similarity %.2f) should not exist", e.Source, e.Target, e.Confidence)
			continue
		}
		got[k] = true
		if math.Abs(e.Confidence-sim) > 1e-5 {
			t.Errorf("edge %s: confidence %v, want the similarity %v", k, e.Confidence, sim)
		}
		if e.CreatedBy != link.ByConsolidation || !e.CreatedAt.Equal(now) {
			t.Errorf("edge %s: made by %q at %v, want consolidation at the run's time", k, e.CreatedBy, e.CreatedAt)
		}
		wantRel := link.RelatesTo
		if inAuth[e.Source] {
			wantRel = link.SharesTheme
			if !strings.Contains(e.Note, "shared tags: Auth") {
				t.Errorf("edge %s: note %q, want it to name the shared tag", k, e.Note)
			}
		}
		if e.Relation != wantRel {
			t.Errorf("edge %s: %s, want %s", k, e.Relation, wantRel)
		}
	}
	if len(got) != len(want) {
		t.Errorf("creative made %d edges, want %d", len(got), len(want))
	}
	if log.Stats[0].EdgesAdded != len(want) {
		t.Errorf("stats %+v, want %d edges added", log.Stats[0], len(want))
	}

	// A second run over the result finds every similar pair connected.
	after := apply(t, g, log.Changes)
	if again := run(t, after, s, Creative); len(again.Changes) != 0 {
		t.Errorf("a second creative run made %d changes, want none", len(again.Changes))
	}

	// Bounds: at most 2 new edges a node; at most 3 a run, the most similar.
	s.CreativeLinksPerNode = 2
	per := map[link.Item]int{}
	for _, c := range run(t, g, s, Creative).Changes {
		per[c.Edge.Source]++
		per[c.Edge.Target]++
	}
	for id, n := range per {
		if n > 2 {
			t.Errorf("node %s got %d new edges, the bound is 2", id, n)
		}
	}
	s.CreativeLinksPerNode, s.CreativeMaxEdges = 10, 3
	capped := run(t, g, s, Creative)
	sims := make([]float64, 0, len(want))
	for _, v := range want {
		sims = append(sims, v)
	}
	slices.Sort(sims)
	if len(capped.Changes) != 3 {
		t.Fatalf("with a bound of 3 edges a run made %d", len(capped.Changes))
	}
	for _, c := range capped.Changes {
		if c.Edge.Confidence < sims[len(sims)-3]-1e-5 {
			t.Errorf("bounded run linked a pair of similarity %v, not among the 3 most similar (>= %v)", c.Edge.Confidence, sims[len(sims)-3])
		}
	}
}

// TestClusterMakesMetaPatterns: two dense themes become two MetaPattern
// nodes, every member PART_OF its own; a theme of four (under
// ClusterMinSize 5) and noise get none. A second run changes nothing, and
// new members of a theme join its MetaPattern instead of making another.
// See automem-features.md, "Cycles" 3 and "Persistence".
func TestClusterMakesMetaPatterns(t *testing.T) {
	b := newBuilder(2)
	deploy := b.theme("deploy", 8, func(i int) []string {
		if i < 5 {
			return []string{"deploy", "docker"}
		}
		return []string{"deploy"}
	})
	auth := b.theme("auth", 6, func(i int) []string { return []string{"auth", "jwt"} })
	b.theme("small", 4, func(int) []string { return []string{"small"} })
	b.noise(20)
	g := b.g
	s := DefaultSettings()

	log := run(t, g, s, Cluster)
	metas := map[link.Item]*Node{}
	members := map[link.Item][]link.Item{}
	for _, c := range log.Changes {
		switch c.Op {
		case OpAddNode:
			metas[c.Node.ID] = c.Node
		case OpAddEdge:
			if c.Edge.Relation != link.PartOf || c.Edge.CreatedBy != link.ByConsolidation {
				t.Errorf("cluster made edge %+v, want PART_OF by consolidation", c.Edge)
			}
			if metas[c.Edge.Target] == nil {
				t.Errorf("PART_OF to %s before (or without) its MetaPattern", c.Edge.Target)
			}
			members[c.Edge.Target] = append(members[c.Edge.Target], c.Edge.Source)
		default:
			t.Errorf("cluster made a %s change", c.Op)
		}
	}
	if len(metas) != 2 {
		t.Fatalf("%d MetaPatterns, want 2 (deploy, auth)", len(metas))
	}
	ids := func(ns []*Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID.String())
		}
		slices.Sort(out)
		return out
	}
	found := map[string]*Node{}
	for id, m := range metas {
		var ms []string
		for _, x := range members[id] {
			ms = append(ms, x.String())
		}
		slices.Sort(ms)
		switch {
		case slices.Equal(ms, ids(deploy)):
			found["deploy"] = m
		case slices.Equal(ms, ids(auth)):
			found["auth"] = m
		default:
			t.Errorf("MetaPattern %s has members %v, not one theme", id, ms)
		}
		if m.Kind != KindMetaPattern || m.ID.Kind != link.KindKnowledge || m.Relevance != 0.9 || m.Confidence != 0.8 || !m.CreatedAt.Equal(now) {
			t.Errorf("MetaPattern %+v: want kind MetaPattern, a knowledge URI, relevance 0.9, confidence 0.8, made now", m)
		}
	}
	if d := found["deploy"]; d == nil || d.Label != "deploy · docker" ||
		!strings.Contains(d.Summary, "8 nodes (8 Decision)") || !strings.Contains(d.Summary, "about deploy, docker") ||
		!strings.Contains(d.Summary, `"deploy decision`) {
		t.Errorf("deploy MetaPattern %+v: want the label from its common tags and a summary naming size, kind, tags and members", d)
	}
	if a := found["auth"]; a == nil || a.Label != "auth · jwt" {
		t.Errorf("auth MetaPattern %+v: want label %q", a, "auth · jwt")
	}
	if st := log.Stats[0]; st.MetaPatterns != 2 || st.PartOf != 14 {
		t.Errorf("stats %+v, want 2 MetaPatterns and 14 PART_OF edges", st)
	}

	after := apply(t, g, log.Changes)
	if again := run(t, after, s, Cluster); len(again.Changes) != 0 {
		t.Errorf("a second cluster run made %d changes, want none: %+v", len(again.Changes), again.Changes[0])
	}

	// Three new deploy decisions join the deploy MetaPattern.
	b.g = after
	var grown []*Node
	for i := range 3 {
		grown = append(grown, b.add("Decision", fmt.Sprintf("later deploy decision %d", i), b.near("deploy"), "deploy"))
	}
	log = run(t, b.g, s, Cluster)
	if st := log.Stats[0]; st.MetaPatterns != 0 || st.Extended != 1 || st.PartOf != 3 {
		t.Fatalf("after 3 new deploy nodes: stats %+v, want 1 MetaPattern extended by 3 PART_OF edges", st)
	}
	for i, c := range log.Changes {
		if c.Edge.Source != grown[i].ID || c.Edge.Target != found["deploy"].ID {
			t.Errorf("change %d: %s PART_OF %s, want %s PART_OF the deploy pattern", i, c.Edge.Source, c.Edge.Target, grown[i].ID)
		}
	}
}

// forgettable is a node forget archives under the default settings: 400
// days old, never read, importance 0.1 (relevance about 0.003, under the
// floor 0.03), a Lesson, untouched.
func forgettable(id string) Node {
	return Node{
		ID: link.Knowledge(id), Kind: "Lesson", Label: id, Importance: 0.1, Confidence: 0.5,
		CreatedAt: daysAgo(400), Relevance: 0.5,
	}
}

// TestForgetProtections: each protection alone saves a node forget would
// otherwise archive or delete: importance >= 0.7, younger than 90 days, a
// decision or an insight, touched by a person (its flag, or an edge a
// person made). Issue 10 section 3; ERRATA.md line 82.
//
// The importance floor already keeps a node of importance 0.7 at 0.21, over
// the default archive threshold 0.2, so the protections are checked with
// thresholds raised to 0.25 (archive) and 0.22 (delete), where only the
// protection can save it.
func TestForgetProtections(t *testing.T) {
	s := DefaultSettings()
	s.ArchiveBelow = 0.25
	cases := []struct {
		name string
		edit func(*Node, *Graph)
		want Protection // "" = not protected
	}{
		{"unprotected", func(*Node, *Graph) {}, ""},
		{"importance 0.7", func(n *Node, _ *Graph) { n.Importance = 0.7 }, ProtectedImportance},
		{"importance 0.69 is not enough", func(n *Node, _ *Graph) { n.Importance = 0.69 }, ""},
		{"89.9 days old", func(n *Node, _ *Graph) { n.CreatedAt = daysAgo(89.9) }, ProtectedYoung},
		{"90 days old is not young", func(n *Node, _ *Graph) { n.CreatedAt = daysAgo(90) }, ""},
		{"a decision", func(n *Node, _ *Graph) { n.Kind = KindDecision }, ProtectedKind},
		{"an insight", func(n *Node, _ *Graph) { n.Kind = KindInsight }, ProtectedKind},
		{"touched by a person", func(n *Node, _ *Graph) { n.TouchedByPerson = true }, ProtectedTouched},
		{"linked by a person", func(n *Node, g *Graph) {
			g.Edges = append(g.Edges, Edge{ID: "e1", Source: link.Note("n1"), Target: n.ID, Relation: link.References, Confidence: 1, CreatedBy: link.ByUser})
		}, ProtectedTouched},
		{"linked by the analyzer is not touched", func(n *Node, g *Graph) {
			g.Edges = append(g.Edges, Edge{ID: "e1", Source: link.Note("n1"), Target: n.ID, Relation: link.References, Confidence: 1, CreatedBy: link.ByOffline})
		}, ""},
	}
	for _, deleting := range []bool{false, true} {
		s := s
		would := OpArchive
		if deleting {
			s.DeleteEnabled, s.DeleteBelow, would = true, 0.22, OpRemoveNode
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/delete=%v", c.name, deleting), func(t *testing.T) {
				n := forgettable("x")
				g := Graph{}
				c.edit(&n, &g)
				g.Nodes = []Node{n}
				log := run(t, g, s, Forget)
				if c.want == "" {
					if len(log.Changes) != 1 || log.Changes[0].Op != would || len(log.Spared) != 0 {
						t.Fatalf("changes %+v spared %+v: want the node to get %s", log.Changes, log.Spared, would)
					}
					return
				}
				if len(log.Changes) != 0 {
					t.Fatalf("a node protected by %s got %+v", c.want, log.Changes)
				}
				if len(log.Spared) != 1 || !slices.Equal(log.Spared[0].Protections, []Protection{c.want}) || log.Spared[0].Would != would {
					t.Fatalf("spared %+v, want the node spared from %s by %s alone", log.Spared, would, c.want)
				}
			})
		}
	}
}

// TestForgetThresholds: with the defaults a faded node is archived (delete
// is off); with delete on, a node under 0.05 is deleted with its edges,
// archived or not, and one between 0.05 and 0.2 is archived; a node over
// 0.2 stays. An archived node is not archived again.
func TestForgetThresholds(t *testing.T) {
	faded := forgettable("faded") // about 0.03
	mid := forgettable("mid")
	mid.Importance = 0.5 // floor 0.15: between the thresholds
	kept := forgettable("kept")
	kept.Importance = 0.69 // floor 0.207
	gone := forgettable("gone")
	gone.Archived = true
	other := forgettable("other")
	other.Importance = 0.9
	g := Graph{
		Nodes: []Node{faded, mid, kept, gone, other},
		Edges: []Edge{{ID: "e1", Source: faded.ID, Target: other.ID, Relation: link.RelatesTo, Confidence: 0.5, CreatedBy: link.ByOffline}},
	}
	log := run(t, g, DefaultSettings(), Forget)
	var got []string
	for _, c := range log.Changes {
		got = append(got, fmt.Sprintf("%s %s", c.Op, c.Item.ID))
	}
	if want := []string{"archive faded", "archive mid"}; !slices.Equal(got, want) {
		t.Errorf("default forget: %v, want %v", got, want)
	}

	s := DefaultSettings()
	s.DeleteEnabled = true
	log = run(t, g, s, Forget)
	got = nil
	for _, c := range log.Changes {
		id := c.Item.ID
		if c.Node != nil {
			id = c.Node.ID.ID
		}
		got = append(got, fmt.Sprintf("%s %s", c.Op, id))
	}
	if want := []string{"removeNode faded", "archive mid", "removeNode gone"}; !slices.Equal(got, want) {
		t.Errorf("forget with delete: %v, want %v", got, want)
	}
	if e := log.Changes[0].Edges; len(e) != 1 || e[0].ID != "e1" {
		t.Errorf("deleting faded keeps its edges for undo: %+v", e)
	}
	after := apply(t, g, log.Changes)
	if len(after.Nodes) != 3 || len(after.Edges) != 0 {
		t.Errorf("after forget: %d nodes, %d edges; want 3 and 0", len(after.Nodes), len(after.Edges))
	}
}

// TestDecayCycle: decay sets each live, unarchived node's score to
// Relevance with its edge count, logs only scores that changed, and leaves
// archived nodes alone.
func TestDecayCycle(t *testing.T) {
	b := newBuilder(3)
	a := b.add("Lesson", "a", nil)
	c := b.add("Lesson", "c", nil)
	c.CreatedAt = daysAgo(30)
	d := b.add("Lesson", "d", nil)
	d.Archived, d.Relevance = true, 0.7
	b.edge(a, c, link.RelatesTo, link.ByOffline)
	s := DefaultSettings()
	wantA := Relevance(a, 1, now, &s)
	wantC := Relevance(c, 1, now, &s)
	log := run(t, b.g, s, Decay)
	if len(log.Changes) != 2 {
		t.Fatalf("decay: %+v, want two score changes (a, c)", log.Changes)
	}
	for _, ch := range log.Changes {
		want := map[link.Item]float64{a.ID: wantA, c.ID: wantC}[ch.Item]
		if ch.Op != OpScore || ch.After != want {
			t.Errorf("change %+v: want score %v", ch, want)
		}
	}
	if st := log.Stats[0]; st.Examined != 2 || st.Rescored != 2 {
		t.Errorf("stats %+v: want 2 examined (the archived node is not), 2 rescored", st)
	}
	after := apply(t, b.g, log.Changes)
	if again := run(t, after, s, Decay); len(again.Changes) != 0 {
		t.Errorf("decay again at the same time changed %d scores", len(again.Changes))
	}
}

// fullGraph is a graph on which a full run makes every kind of change:
// scores, creative edges, MetaPatterns with PART_OF edges, archives and
// deletions (with the deleted node's edges).
func fullGraph() Graph {
	b := newBuilder(4)
	deploy := b.theme("deploy", 7, func(int) []string { return []string{"deploy"} })
	b.theme("auth", 5, func(int) []string { return []string{"auth"} })
	b.noise(6)
	for i := range 4 {
		f := forgettable(fmt.Sprintf("old%d", i))
		f.Importance = []float64{0.1, 0.1, 0.5, 0.5}[i] // two to delete, two to archive
		f.Embedding = b.random()
		b.g.Nodes = append(b.g.Nodes, f)
	}
	b.edge(&b.g.Nodes[len(b.g.Nodes)-4], deploy[0], link.RelatesTo, link.ByOffline)
	b.edge(deploy[1], &b.g.Nodes[len(b.g.Nodes)-3], link.LeadsTo, link.ByModel)
	b.edge(deploy[2], deploy[3], link.Supersedes, link.ByOffline)
	return b.g
}

// TestUndoRestoresExactly: apply a full run (every kind of change), then
// its undo, and the graph is exactly the one before: same nodes, edges,
// scores, flags and order. The run log survives JSON (as the app stores
// it) unchanged. Issue 10 section 3: "every run … can be undone".
func TestUndoRestoresExactly(t *testing.T) {
	g := fullGraph()
	s := DefaultSettings()
	s.DeleteEnabled = true
	log := run(t, g, s)
	ops := map[Op]int{}
	for _, c := range log.Changes {
		ops[c.Op]++
	}
	for _, op := range []Op{OpScore, OpAddEdge, OpAddNode, OpArchive, OpRemoveNode} {
		if ops[op] == 0 {
			t.Fatalf("the full run made no %s change (%v): the test needs every kind", op, ops)
		}
	}
	after := apply(t, g, log.Changes)
	if reflect.DeepEqual(after, g) {
		t.Fatal("the run changed nothing")
	}

	data, err := json.Marshal(log)
	if err != nil {
		t.Fatal(err)
	}
	var stored RunLog
	if err := json.Unmarshal(data, &stored); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(stored, log) {
		t.Fatal("the run log changed through JSON")
	}
	undo, err := Undo(stored, now.Add(day))
	if err != nil {
		t.Fatal(err)
	}
	if undo.UndoOf != log.ID || len(undo.Changes) != len(log.Changes) {
		t.Fatalf("undo %s of %s with %d changes, want of %s with %d", undo.ID, undo.UndoOf, len(undo.Changes), log.ID, len(log.Changes))
	}
	restored := apply(t, after, undo.Changes)
	if !reflect.DeepEqual(canonical(restored), canonical(g)) {
		t.Error("apply then undo did not restore the graph exactly")
		diffGraphs(t, canonical(g), canonical(restored))
	}
	// And a redo (the undo's undo) gives the run's result again.
	redo, err := Undo(undo, now.Add(2*day))
	if err != nil {
		t.Fatal(err)
	}
	if again := apply(t, restored, redo.Changes); !reflect.DeepEqual(canonical(again), canonical(after)) {
		t.Error("undoing the undo did not give the run's result")
	}

	dry := run(t, g, s)
	dry.DryRun = true
	if _, err := Undo(dry, now); err == nil {
		t.Error("undo of a dry run: no error")
	}
}

// TestUndoAfterLaterRun: undoing a run whose scores a later run changed is
// refused, naming the node, and leaves the graph as it was; undoing the
// later run first, then the earlier, restores the start.
func TestUndoAfterLaterRun(t *testing.T) {
	g := fullGraph()
	s := DefaultSettings()
	first := run(t, g, s, Decay)
	g1 := apply(t, g, first.Changes)
	second, err := Run(context.Background(), g1, s, Request{Cycles: []Cycle{Decay}, Now: now.Add(day)})
	if err != nil {
		t.Fatal(err)
	}
	g2 := apply(t, g1, second.Changes)
	u1, _ := Undo(first, now.Add(2*day))
	out, err := g2.Apply(u1.Changes)
	if err == nil || !strings.Contains(err.Error(), "changed since") || !strings.Contains(err.Error(), "rhizome:knowledge/") {
		t.Fatalf("undo of the earlier run: error %v, want one naming the node that changed since", err)
	}
	if !reflect.DeepEqual(out, g2) {
		t.Error("a refused undo changed the graph")
	}
	u2, _ := Undo(second, now.Add(2*day))
	if back := apply(t, apply(t, g2, u2.Changes), u1.Changes); !reflect.DeepEqual(canonical(back), canonical(g)) {
		t.Error("undoing both runs, latest first, did not restore the start")
	}

	// A MetaPattern a later decay rescored: removing it now would lose that
	// score on redo, so undoing the cluster run waits for the decay's undo.
	clustered := run(t, g, s, Cluster)
	g1 = apply(t, g, clustered.Changes)
	later, err := Run(context.Background(), g1, s, Request{Cycles: []Cycle{Decay}, Now: now.Add(day)})
	if err != nil {
		t.Fatal(err)
	}
	g2 = apply(t, g1, later.Changes)
	uc, _ := Undo(clustered, now.Add(2*day))
	if _, err := g2.Apply(uc.Changes); err == nil || !strings.Contains(err.Error(), "is not as the run saw it") {
		t.Errorf("undo of a cluster run after a decay rescored its MetaPattern: %v, want a refusal", err)
	}
	ul, _ := Undo(later, now.Add(2*day))
	if back := apply(t, apply(t, g2, ul.Changes), uc.Changes); !reflect.DeepEqual(canonical(back), canonical(g)) {
		t.Error("undoing decay then cluster did not restore the start")
	}
}

// canonical is g with its nodes and edges sorted by id: the order Apply
// gives restored nodes has no meaning.
func canonical(g Graph) Graph {
	out := Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
	slices.SortFunc(out.Nodes, func(a, b Node) int { return strings.Compare(a.ID.String(), b.ID.String()) })
	slices.SortFunc(out.Edges, func(a, b Edge) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func diffGraphs(t *testing.T, want, got Graph) {
	t.Helper()
	if len(want.Nodes) != len(got.Nodes) || len(want.Edges) != len(got.Edges) {
		t.Errorf("%d nodes %d edges, want %d and %d", len(got.Nodes), len(got.Edges), len(want.Nodes), len(want.Edges))
		return
	}
	for i := range want.Nodes {
		if !reflect.DeepEqual(want.Nodes[i], got.Nodes[i]) {
			t.Errorf("node %d: %+v, want %+v", i, got.Nodes[i], want.Nodes[i])
		}
	}
	for i := range want.Edges {
		if !reflect.DeepEqual(want.Edges[i], got.Edges[i]) {
			t.Errorf("edge %d: %+v, want %+v", i, got.Edges[i], want.Edges[i])
		}
	}
}

// TestDryRunSameAsRun: a dry run plans the same changes, with the same ids,
// as the real run at the same time.
func TestDryRunSameAsRun(t *testing.T) {
	g := fullGraph()
	s := DefaultSettings()
	real := run(t, g, s)
	dry, err := Run(context.Background(), g, s, Request{Now: now, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || !reflect.DeepEqual(dry.Changes, real.Changes) || !reflect.DeepEqual(dry.Stats, real.Stats) {
		t.Error("the dry run planned other changes than the run")
	}
}

func TestGraphValidate(t *testing.T) {
	good := func() Graph { return fullGraph() }
	cases := []struct {
		want string
		edit func(*Graph)
	}{
		{"node 0: field id", func(g *Graph) { g.Nodes[0].ID = link.Item{} }},
		{"is not a library item", func(g *Graph) { g.Nodes[0].ID = link.URL("https://example.com/") }},
		{"the same id as node 0", func(g *Graph) { g.Nodes[1].ID = g.Nodes[0].ID }},
		{"field kind is empty", func(g *Graph) { g.Nodes[2].Kind = "" }},
		{"field importance: 1.2", func(g *Graph) { g.Nodes[2].Importance = 1.2 }},
		{"field relevance: NaN", func(g *Graph) { g.Nodes[2].Relevance = math.NaN() }},
		{"field createdAt is not set", func(g *Graph) { g.Nodes[2].CreatedAt = time.Time{} }},
		{"field embedding: value 3 is NaN", func(g *Graph) {
			g.Nodes[3].Embedding = slices.Clone(g.Nodes[3].Embedding)
			g.Nodes[3].Embedding[3] = float32(math.NaN())
		}},
		{"field embedding: 3 dimensions", func(g *Graph) { g.Nodes[3].Embedding = []float32{1, 2, 3} }},
		{"the zero vector", func(g *Graph) { g.Nodes[3].Embedding = make([]float32, testDim) }},
		{"edge 0 (e001): field type: unknown relation", func(g *Graph) { g.Edges[0].Relation = "LIKES" }},
		{"edge 1 (e002): field createdBy", func(g *Graph) { g.Edges[1].CreatedBy = "" }},
		{"source and target are the same", func(g *Graph) { g.Edges[1].Target = g.Edges[1].Source }},
		{"edge 2 (e001): the same id as edge 0", func(g *Graph) { g.Edges[2].ID = "e001" }},
		{"field confidence: -0.1", func(g *Graph) { g.Edges[2].Confidence = -0.1 }},
	}
	for _, c := range cases {
		g := good()
		c.edit(&g)
		err := g.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
		if _, err := Run(context.Background(), g, DefaultSettings(), Request{Now: now}); err == nil {
			t.Errorf("Run accepted a graph with %q", c.want)
		}
	}
}

// nanIndex stands for a foreign NeighbourIndex that answers nonsense.
type nanIndex struct{ other link.Item }

func (x nanIndex) Neighbours(link.Item, int) ([]Neighbour, error) {
	return []Neighbour{{ID: x.other, Similarity: math.NaN()}}, nil
}

func TestRunErrors(t *testing.T) {
	g := fullGraph()
	s := DefaultSettings()
	ctx := context.Background()
	if _, err := Run(ctx, g, s, Request{Cycles: []Cycle{"dream"}, Now: now}); err == nil || !strings.Contains(err.Error(), `unknown cycle "dream"`) {
		t.Errorf("unknown cycle: %v", err)
	}
	if _, err := Run(ctx, g, s, Request{}); err == nil || !strings.Contains(err.Error(), "time") {
		t.Errorf("no time: %v", err)
	}
	bad := s
	bad.ClusterMinSize = 1
	if _, err := Run(ctx, g, bad, Request{Now: now}); err == nil {
		t.Error("bad settings: no error")
	}
	// An index over part of the graph: the rest is unknown to it.
	small, err := NewIndex(ctx, []link.Item{g.Nodes[0].ID}, [][]float32{g.Nodes[0].Embedding})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, g, s, Request{Now: now, Index: small}); err == nil || !strings.Contains(err.Error(), "no vector for rhizome:knowledge/") {
		t.Errorf("an index missing nodes: %v", err)
	}
	if _, err := Run(ctx, g, s, Request{Now: now, Index: nanIndex{g.Nodes[1].ID}}); err == nil || !strings.Contains(err.Error(), "similarity NaN") {
		t.Errorf("an index answering NaN: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cancelled, g, s, Request{Now: now}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v, want context.Canceled", err)
	}
}

// TestClusterDensity: DBSCAN's rule that only core nodes chain. Two groups
// of six (pairwise similarity 0.92) and one node X similar (0.71) to one
// member of each and to nothing else. With ClusterMinPoints 4, X has too
// few neighbours to be a core node: it joins one group as a border node and
// the groups stay apart. With 3, X is a core node and chains them into one.
func TestClusterDensity(t *testing.T) {
	unit := func(d int) []float32 { v := make([]float32, testDim); v[d] = 1; return v }
	member := func(axis, own int) []float32 {
		v := unit(axis)
		v[own] = 0.3
		return v
	}
	b := newBuilder(5)
	for i := range 6 {
		b.add("Insight", fmt.Sprintf("a%d", i), member(0, 2+i), "a")
	}
	for i := range 6 {
		b.add("Insight", fmt.Sprintf("b%d", i), member(1, 10+i), "b")
	}
	x := make([]float32, testDim)
	for d, f := range member(0, 2) {
		x[d] += f
	}
	for d, f := range member(1, 10) {
		x[d] += f
	}
	b.add("Insight", "x", x)
	if sa, so := Cosine(x, b.g.Nodes[0].Embedding), Cosine(x, b.g.Nodes[1].Embedding); sa < 0.70 || so > 0.66 {
		t.Fatalf("the built graph: x is %.3f to a0 and %.3f to a1, want about 0.71 and 0.65", sa, so)
	}
	s := DefaultSettings()
	s.ClusterSimilarity = 0.68
	for _, c := range []struct {
		minPoints int
		sizes     []int
	}{{4, []int{7, 6}}, {3, []int{13}}} {
		s.ClusterMinPoints = c.minPoints
		log := run(t, b.g, s, Cluster)
		sizes := map[link.Item]int{}
		var order []link.Item
		for _, ch := range log.Changes {
			if ch.Op == OpAddNode {
				order = append(order, ch.Node.ID)
			} else {
				sizes[ch.Edge.Target]++
			}
		}
		var got []int
		for _, id := range order {
			got = append(got, sizes[id])
		}
		if !slices.Equal(got, c.sizes) {
			t.Errorf("minPoints %d: MetaPatterns of %v nodes, want %v", c.minPoints, got, c.sizes)
		}
	}
}

// exactIndex is a NeighbourIndex as the app might supply one: exact search
// over the graph's embeddings (the search index stands in its place).
type exactIndex struct{ g Graph }

func (x exactIndex) Neighbours(id link.Item, k int) ([]Neighbour, error) {
	var q []float32
	for _, n := range x.g.Nodes {
		if n.ID == id {
			q = n.Embedding
		}
	}
	if q == nil {
		return nil, fmt.Errorf("no vector for %s", id)
	}
	var out []Neighbour
	for _, n := range x.g.Nodes {
		if n.ID != id && n.Embedding != nil {
			out = append(out, Neighbour{n.ID, Cosine(q, n.Embedding)})
		}
	}
	slices.SortStableFunc(out, func(a, b Neighbour) int { return cmpFloat(b.Similarity, a.Similarity) })
	return out[:min(k, len(out))], nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestSuppliedIndex: a run through an index the app supplies (here exact
// search over every embedding, archived and faded nodes included, which the
// cycles must skip) plans the same creative edges and MetaPatterns as the
// built-in index.
func TestSuppliedIndex(t *testing.T) {
	g := fullGraph()
	s := DefaultSettings()
	s.CreativeLinksPerNode = 10
	built := run(t, g, s, Decay, Creative, Cluster)
	supplied, err := Run(context.Background(), g, s, Request{Cycles: []Cycle{Decay, Creative, Cluster}, Now: now, Index: exactIndex{g}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(canonicalChanges(built.Changes), canonicalChanges(supplied.Changes)) {
		t.Errorf("supplied index: %d changes, built-in: %d; they differ", len(supplied.Changes), len(built.Changes))
	}
	if built.Stats[1].EdgesAdded == 0 || built.Stats[2].MetaPatterns == 0 {
		t.Errorf("stats %+v: the test needs creative edges and MetaPatterns", built.Stats)
	}
}

// canonicalChanges rounds similarities to 5 places (float32 and float64
// arithmetic differ in the last digits).
func canonicalChanges(cs []Change) []string {
	var out []string
	for _, c := range cs {
		switch {
		case c.Edge != nil:
			out = append(out, fmt.Sprintf("%s %s %s %s %.5f", c.Op, c.Edge.Source, c.Edge.Relation, c.Edge.Target, c.Edge.Confidence))
		case c.Node != nil:
			out = append(out, fmt.Sprintf("%s %s %s", c.Op, c.Node.ID, c.Node.Label))
		default:
			out = append(out, fmt.Sprintf("%s %s %v", c.Op, c.Item, c.After))
		}
	}
	return out
}
