package memobrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// largeOps are the operations that grow a reasoning graph of n nodes the
// way MemoBrain's loop does: a patch per turn (a new subtask, or one or two
// pieces of evidence under a live subtask), and every 50 turns a recall that
// flushes a piece of evidence and folds a subtask with its evidence.
type largeOps struct {
	task    string
	patches []MemoryPatch
	recalls map[int]func(g *Graph) FlushAndFoldOp // after patch i
}

func newLargeOps(n int) largeOps {
	r := rand.New(rand.NewPCG(10000, 1))
	text := func(prefix string, i int) string {
		return fmt.Sprintf("%s %d: %s", prefix, i, strings.Repeat("searched the docs and read the result; ", 3+r.IntN(6)))
	}
	ops := largeOps{task: "map every reasoning step of a long agent session", recalls: map[int]func(*Graph) FlushAndFoldOp{}}
	nodes := 1
	subtasks := []int{1} // ids of nodes evidence may hang from (task and subtasks)
	for i := 0; nodes < n; i++ {
		var p MemoryPatch
		parent := subtasks[r.IntN(len(subtasks))]
		if r.IntN(10) < 3 {
			p.AddNodes = []AddNodeOp{{TmpID: "tmp1", Kind: KindSubtask, Thought: Notes{{Role: RoleAssistant, Content: text("plan", i)}, {Role: RoleUser, Content: text("ok", i)}}}}
			p.AddEdges = []AddEdgeOp{{Src: IDRef(parent), Dst: TmpRef("tmp1"), Rationale: "decompose"}}
			subtasks = append(subtasks, nodes+1)
			nodes++
		} else {
			k := 1 + r.IntN(2)
			for j := 1; j <= k && nodes < n; j++ {
				tmp := fmt.Sprintf("tmp%d", j)
				p.AddNodes = append(p.AddNodes, AddNodeOp{TmpID: tmp, Kind: KindEvidence, Thought: Notes{{Role: RoleAssistant, Content: text("search", i)}, {Role: RoleUser, Content: text("found", i)}}})
				p.AddEdges = append(p.AddEdges, AddEdgeOp{Src: IDRef(parent), Dst: TmpRef(tmp), Rationale: "support"})
				nodes++
			}
		}
		ops.patches = append(ops.patches, p)
		if i%50 == 49 {
			seed := uint64(i)
			ops.recalls[i] = func(g *Graph) FlushAndFoldOp { return largeRecall(g, seed) }
		}
	}
	return ops
}

// largeRecall flushes a live piece of evidence and folds a live subtask with
// its live evidence children.
func largeRecall(g *Graph, seed uint64) FlushAndFoldOp {
	r := rand.New(rand.NewPCG(seed, 2))
	var f FlushAndFoldOp
	var live []*ReasoningNode
	for _, n := range g.nodes {
		if n.Active == Live && (n.Kind == KindSubtask || n.Kind == KindEvidence) {
			live = append(live, n)
		}
	}
	var sub *ReasoningNode
	var subs []*ReasoningNode
	for _, n := range live {
		if n.Kind == KindSubtask {
			subs = append(subs, n)
		}
	}
	if len(subs) > 0 {
		sub = subs[r.IntN(len(subs))]
	}
	fold := FoldOp{Rationale: "settled", Notes: Notes{{Role: RoleAssistant, Content: "what the steps did"}, {Role: RoleUser, Content: "what they found"}}}
	if sub != nil {
		fold.IDs = []int{sub.ID}
		for _, dst := range g.children()[sub.ID] {
			if n := g.nodes[g.index[dst]]; n.Active == Live && n.Kind == KindEvidence {
				fold.IDs = append(fold.IDs, dst)
			}
		}
		f.FoldOps = []FoldOp{fold}
	}
	for range 20 {
		n := live[r.IntN(len(live))]
		if n.Kind == KindEvidence && !containsID(fold.IDs, n.ID) {
			f.FlushOps = []FlushOp{{ID: n.ID, Rationale: "redundant"}}
			break
		}
	}
	return f
}

func containsID(ids []int, id int) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// build applies the operations until the graph has n nodes (the last
// patch cut to fit).
func (ops largeOps) build(tb testing.TB, n int) *Graph {
	g := NewGraph()
	if _, err := g.Init(ops.task); err != nil {
		tb.Fatal(err)
	}
	for i, p := range ops.patches {
		if g.Len() >= n {
			break
		}
		if room := n - g.Len(); len(p.AddNodes) > room {
			p.AddNodes, p.AddEdges = p.AddNodes[:room], p.AddEdges[:room]
		}
		if _, err := g.ApplyPatch(p, []int{2 + 2*i, 3 + 2*i}); err != nil {
			tb.Fatal(err)
		}
		if rc, ok := ops.recalls[i]; ok && g.Len() < n {
			if _, err := g.ApplyFlushAndFold(rc(g)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return g
}

var large = struct {
	ops  largeOps
	g    *Graph
	snap []byte
}{}

func largeGraph(tb testing.TB) (*Graph, []byte) {
	tb.Helper()
	if large.g == nil {
		large.ops = newLargeOps(10000)
		large.g = large.ops.build(tb, 10000)
		large.snap = writeSnapshot(tb, NewSnapshot(large.g))
	}
	return large.g, large.snap
}

// The 10,000-node graph the benchmarks use is what it says, and round-trips.
func TestLargeGraph(t *testing.T) {
	g, snap := largeGraph(t)
	c := g.Counts()
	if c.Nodes != 10000 || c.Folded < 100 || c.Flushed < 100 || c.ByKind[KindSummary] < 100 {
		t.Fatalf("counts %+v", c)
	}
	s, err := ReadSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(writeSnapshot(t, s), snap) || !LooksLikeSnapshot(snap[:4096]) {
		t.Error("the large snapshot does not round-trip or is not detected")
	}
	t.Logf("%d nodes, %d edges, %d steps, snapshot %d bytes", c.Nodes, c.Edges, len(g.Log().Steps), len(snap))
}

// BenchmarkBuildGraph10k grows a 10,000-node graph with the recorded
// operations (about 7,400 patches and 150 recalls: 7,557 steps).
func BenchmarkBuildGraph10k(b *testing.B) {
	largeGraph(b)
	b.ReportAllocs()
	for b.Loop() {
		large.ops.build(b, 10000)
	}
}

// BenchmarkReadSnapshot10k opens a 10,000-node snapshot: what importing or
// opening a reasoning graph costs. Compare with BenchmarkBareDecode10k.
func BenchmarkReadSnapshot10k(b *testing.B) {
	_, snap := largeGraph(b)
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadSnapshot(snap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBareDecode10k is the yardstick: json.Unmarshal of the same bytes
// into a map[string]any.
func BenchmarkBareDecode10k(b *testing.B) {
	_, snap := largeGraph(b)
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(snap, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteSnapshot10k exports the 10,000-node graph.
func BenchmarkWriteSnapshot10k(b *testing.B) {
	g, snap := largeGraph(b)
	s := NewSnapshot(g)
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WriteSnapshot(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay10k rebuilds the last state of the 10,000-node graph from
// its log: the far end of the history slider.
func BenchmarkReplay10k(b *testing.B) {
	g, _ := largeGraph(b)
	log := g.Log()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Replay(log, len(log.Steps)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrettyPrint10k renders the 10,000-node graph as MemoBrain shows
// it to the model.
func BenchmarkPrettyPrint10k(b *testing.B) {
	g, _ := largeGraph(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = PrettyPrint(g)
	}
}
