package memobrain

import (
	"slices"
	"testing"
)

// A fold recorded in the log names its summary, the nodes it folded and the
// edges between them it dropped: the view opens a summary onto that span.
func TestFoldSpansFromTheLog(t *testing.T) {
	g := readExample(t).Graph
	f := mustFlushAndFold(t, `{"flush_ops": [], "fold_ops": [{"ids": [3, 7, 8], "rationale": "settled",
	  "notes": [{"role": "assistant", "content": "a"}, {"role": "user", "content": "b"}]}]}`)
	if _, err := g.ApplyFlushAndFold(f); err != nil {
		t.Fatal(err)
	}
	spans := FoldSpans(g, g.Log().Steps)
	if len(spans) != 1 {
		t.Fatalf("spans %+v, want one", spans)
	}
	s := spans[0]
	if s.Summary != 10 || !slices.Equal(s.Nodes, []int{3, 7, 8}) || !s.Logged {
		t.Errorf("span %+v: want summary 10 folding 3, 7, 8, from the log", s)
	}
	// In the example, 3 -> 7 and 3 -> 8 are the edges inside the span.
	if len(s.Edges) != 2 || s.Edges[0] != [2]int{3, 7} || s.Edges[1] != [2]int{3, 8} {
		t.Errorf("edges inside the span %v, want 3->7 and 3->8", s.Edges)
	}
}

// A snapshot read with folds already in it carries no record of them: a
// folded node belongs to the first later summary that took over its turn
// ids, as fold_nodes makes summaries (interchange-formats.md §3).
func TestFoldSpansInferredFromTurnIDs(t *testing.T) {
	s, err := ReadSnapshot(readFile(t, "variants/thought_forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	spans := FoldSpans(s.Graph, nil)
	if len(spans) != 1 {
		t.Fatalf("spans %+v, want one", spans)
	}
	if sp := spans[0]; sp.Summary != 6 || !slices.Equal(sp.Nodes, []int{4, 5}) || sp.Logged || sp.Edges != nil {
		t.Errorf("span %+v: want summary 6 folding 4 and 5, inferred, edges unknown", sp)
	}
}

// A summary folded into a later one nests: the outer span lists the inner
// summary, which keeps its own span.
func TestFoldSpansNest(t *testing.T) {
	g := readExample(t).Graph
	for _, ops := range []string{
		`{"flush_ops": [], "fold_ops": [{"ids": [7, 8], "rationale": "r", "notes": []}]}`,
		`{"flush_ops": [], "fold_ops": [{"ids": [3, 10], "rationale": "r", "notes": []}]}`,
	} {
		if _, err := g.ApplyFlushAndFold(mustFlushAndFold(t, ops)); err != nil {
			t.Fatal(err)
		}
	}
	spans := FoldSpans(g, g.Log().Steps)
	if len(spans) != 2 || spans[0].Summary != 10 || spans[1].Summary != 11 || !slices.Equal(spans[1].Nodes, []int{3, 10}) {
		t.Errorf("spans %+v: want 10 folding 7, 8 and 11 folding 3, 10", spans)
	}
}

func TestStepRationale(t *testing.T) {
	g := readExample(t).Graph
	steps, err := g.ApplyFlushAndFold(mustFlushAndFold(t, `{"flush_ops": [{"id": 6, "rationale": "repeats 5"}],
	  "fold_ops": [{"ids": [7, 8], "rationale": "settled", "notes": []}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Rationale() != "repeats 5" || steps[1].Rationale() != "settled" {
		t.Errorf("rationales %q, %q", steps[0].Rationale(), steps[1].Rationale())
	}
	if (Step{Kind: OpPatch, Input: []byte(`{"rationale":"x"}`)}).Rationale() != "" {
		t.Error("a patch has no rationale")
	}
}

// A detached copy has the state and no history: replaying from it gives the
// same graph as replaying from the start.
func TestDetached(t *testing.T) {
	g := readExample(t).Graph
	if _, err := g.ApplyFlushAndFold(mustFlushAndFold(t, `{"flush_ops": [{"id": 6, "rationale": "r"}], "fold_ops": [{"ids": [7, 8], "rationale": "r", "notes": []}]}`)); err != nil {
		t.Fatal(err)
	}
	log := g.Log()
	mid, err := Replay(log, 1)
	if err != nil {
		t.Fatal(err)
	}
	d := mid.Detached()
	if got := d.Log(); len(got.Steps) != 0 || got.Base == nil || got.Base.Len() != mid.Len() || got.Base.base != nil {
		t.Fatalf("detached log %+v", got)
	}
	end, err := Replay(Log{Base: d, Steps: log.Steps[1:]}, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := end.MarshalJSON()
	b, _ := g.MarshalJSON()
	if string(a) != string(b) {
		t.Errorf("replayed from a detached state:\n%s\nwant\n%s", a, b)
	}
}
