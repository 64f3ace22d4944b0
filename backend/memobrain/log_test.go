package memobrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// applyRandom applies one random operation to g as a model might write it:
// a patch (some refused: a bad edge), or a reply of flushes and folds
// applied whole (some refused: a fold that would make a cycle). It returns
// the graph's snapshot after each step it recorded, taken by applying the
// reply's operations one by one to a copy.
func applyRandom(t testing.TB, g *Graph, r *rand.Rand) [][]byte {
	t.Helper()
	var ids []int
	for _, nd := range g.nodes {
		if nd.Active == Live {
			ids = append(ids, nd.ID)
		}
	}
	i := len(g.steps)
	if r.IntN(10) < 6 || len(ids) < 4 {
		var nodes, edges []string
		k := r.IntN(3) + 1
		for j := 0; j < k; j++ {
			kind := []string{"subtask", "evidence"}[r.IntN(2)]
			nodes = append(nodes, fmt.Sprintf(`{"tmp_id": "tmp%d", "kind": %q, "thought": [{"role": "assistant", "content": "step %d.%d"}, {"role": "user", "content": "result %d.%d"}]}`, j+1, kind, i, j, i, j))
			src := fmt.Sprint(g.nodes[r.IntN(len(g.nodes))].ID)
			switch r.IntN(4) {
			case 0:
				src = fmt.Sprintf(`"%s"`, src)
			case 1:
				src = fmt.Sprintf(`"Node %s"`, src)
			case 2:
				if j > 0 {
					src = fmt.Sprintf(`"tmp%d"`, j)
				}
			}
			edges = append(edges, fmt.Sprintf(`{"src": %s, "dst": "tmp%d", "rationale": "r%d"}`, src, j+1, i))
		}
		if r.IntN(8) == 0 { // a bad edge: the whole patch is refused
			edges = append(edges, `{"src": "nowhere", "dst": "tmp1"}`)
		}
		p := mustPatch(t, `{"add_nodes": [`+strings.Join(nodes, ",")+`], "add_edges": [`+strings.Join(edges, ",")+`]}`)
		if _, err := g.ApplyPatch(p, []int{2 * i, 2*i + 1}); err != nil {
			return nil
		}
		return [][]byte{writeSnapshot(t, NewSnapshot(g))}
	}
	r.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
	var flushes, folds []string
	if r.IntN(2) == 0 {
		flushes = append(flushes, fmt.Sprintf(`{"id": %d, "rationale": "redundant"}`, ids[0]))
	}
	span := ids[1 : 2+r.IntN(3)]
	folds = append(folds, fmt.Sprintf(`{"ids": [%s], "rationale": "settled %d", "notes": [{"role": "assistant", "content": "did %d"}, {"role": "user", "content": "found %d"}]}`,
		strings.Join(strings.Fields(strings.Trim(fmt.Sprint(span), "[]")), ", "), i, i, i))
	f := mustFlushAndFold(t, `{"flush_ops": [`+strings.Join(flushes, ",")+`], "fold_ops": [`+strings.Join(folds, ",")+`]}`)
	c := g.clone()
	var states [][]byte
	for _, op := range f.FlushOps {
		if _, err := c.flush(op); err != nil {
			t.Fatal(err)
		}
		states = append(states, writeSnapshot(t, NewSnapshot(c)))
	}
	for _, op := range f.FoldOps {
		if _, err := c.fold(op); err != nil {
			states = nil
			break
		}
		states = append(states, writeSnapshot(t, NewSnapshot(c)))
	}
	if _, err := g.ApplyFlushAndFold(f); err != nil {
		if states != nil {
			t.Fatalf("the reply applies op by op but not whole: %v", err)
		}
		return nil
	}
	if states == nil {
		t.Fatal("the reply applies whole but not op by op")
	}
	return states
}

// Every operation is recorded, so any past state can be rebuilt: replaying
// every prefix of a long log gives the graph as it was after that prefix.
func TestReplayEveryPrefix(t *testing.T) {
	for _, start := range []string{"init", "snapshot"} {
		t.Run(start, func(t *testing.T) {
			var g *Graph
			if start == "init" {
				g = NewGraph()
				if _, err := g.Init("find the cause of the flaky test"); err != nil {
					t.Fatal(err)
				}
			} else {
				g = readExample(t).Graph
			}
			// One snapshot per step: take it as each operation is applied.
			states := [][]byte{}
			base, err := Replay(g.Log(), 0)
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, writeSnapshot(t, NewSnapshot(base)))
			for k := 1; k <= len(g.Log().Steps); k++ {
				s, err := Replay(g.Log(), k)
				if err != nil {
					t.Fatal(err)
				}
				states = append(states, writeSnapshot(t, NewSnapshot(s)))
			}
			kinds := map[OpKind]int{}
			r := rand.New(rand.NewPCG(42, uint64(len(start))))
			refused := 0
			for len(g.Log().Steps) < 200 {
				got := applyRandom(t, g, r)
				if got == nil {
					refused++
				}
				states = append(states, got...)
			}
			if len(states) != len(g.Log().Steps)+1 || refused < 10 {
				t.Fatalf("%d states for %d steps, %d refused", len(states), len(g.Log().Steps), refused)
			}
			log := g.Log()
			for _, s := range log.Steps {
				kinds[s.Kind]++
			}
			t.Logf("%d steps: %v; %d nodes", len(log.Steps), kinds, g.Len())
			if kinds[OpPatch] < 80 || kinds[OpFlush] < 10 || kinds[OpFold] < 20 {
				t.Fatalf("the log is not varied enough: %v", kinds)
			}
			// The log survives JSON (the store will keep it so): byte for
			// byte without HTML escaping, equal as JSON with json.Marshal's.
			var buf bytes.Buffer
			e := json.NewEncoder(&buf)
			e.SetEscapeHTML(false)
			if err := e.Encode(log); err != nil {
				t.Fatal(err)
			}
			var back Log
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			escaped, err := json.Marshal(log)
			if err != nil {
				t.Fatal(err)
			}
			var backEscaped Log
			if err := json.Unmarshal(escaped, &backEscaped); err != nil {
				t.Fatal(err)
			}
			for li, l := range []Log{log, back, backEscaped} {
				for k := 0; k <= len(l.Steps); k++ {
					if li == 2 && k%10 != 0 {
						continue
					}
					got, err := Replay(l, k)
					if err != nil {
						t.Fatalf("replay of %d steps: %v", k, err)
					}
					b := writeSnapshot(t, NewSnapshot(got))
					if li < 2 && !bytes.Equal(b, states[k]) || li == 2 && !jsonEqual(t, b, states[k]) {
						t.Fatalf("log %d: replay of %d steps differs from the graph as it was", li, k)
					}
					if len(got.Log().Steps) != k {
						t.Fatalf("the replayed graph's log has %d steps, want %d", len(got.Log().Steps), k)
					}
				}
			}
			// StepDiff says what each step changed: what the view highlights.
			for k, st := range log.Steps {
				d, err := log.StepDiff(k)
				if err != nil || !bytes.Equal(diffJSON(d), diffJSON(st.Diff)) {
					t.Fatalf("StepDiff(%d) = %v, %v", k, d, err)
				}
			}
			if _, err := log.StepDiff(len(log.Steps)); err == nil {
				t.Error("StepDiff past the end")
			}
		})
	}
}

// A log that is not the graph's is refused, naming the step.
func TestReplayRefusesAnAlteredLog(t *testing.T) {
	g := buildExample(t)
	if _, err := g.Fold(FoldOp{IDs: []int{3, 7}, Notes: Notes{{Role: RoleUser, Content: "x"}}, Rationale: "r"}); err != nil {
		t.Fatal(err)
	}
	log := g.Log()
	log.Steps[8].Diff.EdgesRemoved = nil // the fold dropped edge 3 -> 7
	if _, err := Replay(log, 8); err != nil {
		t.Errorf("the steps before the altered one replay: %v", err)
	}
	if _, err := Replay(log, 9); err == nil || !strings.Contains(err.Error(), "unable to replay step 8 (fold): it changes") {
		t.Errorf("an altered diff: %v", err)
	}
	log = g.Log()
	log.Steps[3].Input = []byte(`{"add_nodes": [], "add_edges": [{"src": 1, "dst": 40}]}`)
	if _, err := Replay(log, 9); err == nil || !strings.Contains(err.Error(), "unable to replay step 3 (patch)") {
		t.Errorf("an altered input: %v", err)
	}
	if _, err := Replay(log, 10); err == nil {
		t.Error("more steps than the log has")
	}
	if g0, err := Replay(Log{}, 0); err != nil || g0.Len() != 0 || g0.NextID() != 1 {
		t.Errorf("the empty log: %v", err)
	}
}
