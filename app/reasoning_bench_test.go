package app

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"rhizome/backend/memobrain"
	"rhizome/backend/memobrain/memobraintest"
	"rhizome/store"
)

// The reasoning benchmarks of `make bench`: a reasoning graph of 10,000
// nodes grown by MemoBrain's operations (about 7,000 steps, folds and
// flushes among them), stored in a library as RunOnSession stores one,
// opened and walked through its history by the use cases. The yardstick,
// in the same run, is a bare json.Unmarshal of the graph's snapshot.

var bench10k struct {
	once sync.Once
	l    *testLib
	id   string
	snap []byte
	err  error
}

func reasoning10k(b *testing.B) (*testLib, string, []byte) {
	b.Helper()
	bench10k.once.Do(func() {
		g, err := memobraintest.Large(10_000, 12)
		if err != nil {
			bench10k.err = err
			return
		}
		snap, err := memobrain.WriteSnapshot(memobrain.NewSnapshot(g))
		if err != nil {
			bench10k.err = err
			return
		}
		steps := g.Log().Steps
		rows, err := stepRows(0, steps)
		if err != nil {
			bench10k.err = err
			return
		}
		l := newBenchLib(b)
		counts, _ := json.Marshal(g.Counts())
		rec := &store.ReasoningGraph{ID: "01BENCH10KREASONINGGRAPH00", Title: "10,000 nodes", Snapshot: snap, Counts: counts}
		if err := l.st.CreateReasoningGraph(l.Reasoning.c.context(), rec, rows, nil); err != nil {
			bench10k.err = err
			return
		}
		bench10k.l, bench10k.id, bench10k.snap = l, rec.ID, snap
		fmt.Printf("reasoning bench graph: %d nodes, %d edges, %d steps, snapshot %.1f MB\n",
			g.Len(), len(g.Edges()), len(steps), float64(len(snap))/1e6)
	})
	if bench10k.err != nil {
		b.Fatal(bench10k.err)
	}
	return bench10k.l, bench10k.id, bench10k.snap
}

// newBenchLib is newTestLib for a library the benchmarks share: in a folder
// of the system's temporary space that TestMain removes when they are done.
func newBenchLib(b *testing.B) *testLib {
	dir, err := os.MkdirTemp("", "rhizome-reasoning-bench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDirs = append(benchDirs, dir)
	p := dir + "/library.db"
	st, err := store.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	return &testLib{App: New(st, p), st: st, path: p}
}

// BenchmarkReasoningSnapshotDecode10k is the yardstick: json.Unmarshal of
// the 10,000-node graph's snapshot into a map[string]any.
func BenchmarkReasoningSnapshotDecode10k(b *testing.B) {
	_, _, snap := reasoning10k(b)
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(snap, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReasoningOpen10k opens the 10,000-node graph with its history
// (Reasoning.Open) and encodes the view as the window or `rhizome serve`
// sends it: the "opens in under 1 s" of issue 12 §4, without the drawing.
func BenchmarkReasoningOpen10k(b *testing.B) {
	l, id, snap := reasoning10k(b)
	b.SetBytes(int64(len(snap)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := l.Reasoning.Open(id)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReasoningAtRandom10k moves the history slider of the 10,000-node
// graph to random steps (Reasoning.At, encoded): replaying from the nearest
// checkpoint kept in memory.
func BenchmarkReasoningAtRandom10k(b *testing.B) {
	l, id, _ := reasoning10k(b)
	v, err := l.Reasoning.Open(id)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		st, err := l.Reasoning.At(id, r.IntN(v.Step+1))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReasoningAtStepBack10k steps the slider back one step at a time
// from the end (the ← key held down).
func BenchmarkReasoningAtStepBack10k(b *testing.B) {
	l, id, _ := reasoning10k(b)
	v, err := l.Reasoning.Open(id)
	if err != nil {
		b.Fatal(err)
	}
	k := v.Step
	b.ReportAllocs()
	for b.Loop() {
		if k == 0 {
			k = v.Step
		}
		k--
		if _, err := l.Reasoning.At(id, k); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDirs are the folders the benchmarks made.
var benchDirs []string

func TestMain(m *testing.M) {
	code := m.Run()
	if bench10k.l != nil {
		bench10k.l.st.Close()
	}
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
