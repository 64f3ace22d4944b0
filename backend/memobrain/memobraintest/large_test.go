package memobraintest

import (
	"testing"

	"rhizome/backend/memobrain"
)

// The large graph is what it says: n nodes, folds and flushes done, a log
// that rebuilds it.
func TestLarge(t *testing.T) {
	g, err := Large(2000, 7)
	if err != nil {
		t.Fatal(err)
	}
	c := g.Counts()
	if c.Nodes != 2000 || c.Folded < 20 || c.Flushed < 20 || c.ByKind[memobrain.KindSummary] < 20 {
		t.Fatalf("counts %+v", c)
	}
	log := g.Log()
	back, err := memobrain.Replay(log, len(log.Steps))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := back.MarshalJSON()
	b, _ := g.MarshalJSON()
	if string(a) != string(b) {
		t.Error("the log does not rebuild the graph")
	}
}
