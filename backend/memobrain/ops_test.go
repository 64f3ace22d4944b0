package memobrain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const exampleTask = "Who designed the 2020 extension of the Kunsthaus Zürich, in which year was the architect born, and what other museum did the same office design?"

// examplePatches are the memory patches that grow MemoBrain's example
// shape from its task, one per turn pair, as the model would write them.
var examplePatches = []string{
	`{"add_nodes": [
	  {"tmp_id": "tmp1", "kind": "subtask", "thought": [{"role": "assistant", "content": "Break the question down: first identify the architect of the Kunsthaus Zürich extension."}, {"role": "user", "content": "Search plan accepted: look up the extension's architect."}]},
	  {"tmp_id": "tmp2", "kind": "subtask", "thought": [{"role": "assistant", "content": "Then find the architect's birth year and another museum by the same office."}, {"role": "user", "content": "Search plan accepted: biography and list of works."}]}],
	 "add_edges": [{"src": 1, "dst": "tmp1", "rationale": "decompose the task: identify the architect"},
	  {"src": 1, "dst": "tmp2", "rationale": "decompose the task: birth year and other works"}]}`,
	"```json\n" + `{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "search(\"Kunsthaus Zürich extension architect 2020\")"}, {"role": "user", "content": "The Chipperfield building (opened October 2021, completed 2020) was designed by David Chipperfield Architects."}]}], "add_edges": [{"src": 2, "dst": "tmp1", "rationale": "search result names the architect"}]}` + "\n```",
	`{"add_nodes": [{"tmp_id": "e1", "kind": "evidence", "thought": [{"role": "assistant", "content": "visit(\"https://www.kunsthaus.ch/en/architecture/\")"}, {"role": "user", "content": "The page confirms: David Chipperfield Architects Berlin won the 2008 competition; the extension is linked to the Moser building by a tunnel under Heimplatz."}]}], "add_edges": [{"src": "2", "dst": "e1", "rationale": "official page confirms the architect"}]}`,
	`{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "search(\"Kunsthaus extension competition 2008 winner\")"}, {"role": "user", "content": "Competition 2008: David Chipperfield Architects chosen from 20 entries; 'Garten der Kunst' concept."}]}], "add_edges": [{"src": "Node 2", "dst": "tmp1", "rationale": "competition record supports it"}]}`,
	`{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "search(\"David Chipperfield born\")"}, {"role": "user", "content": "Sir David Chipperfield, British architect, born 18 December 1953 in London."}]}], "add_edges": [{"src": 3, "dst": "tmp1", "rationale": "birth year found"}]}`,
	`{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "search(\"David Chipperfield Architects museums\")"}, {"role": "user", "content": "Works include the Neues Museum restoration in Berlin (2009) & the James-Simon-Galerie (2019) <Museum Island>."}]}], "add_edges": [{"src": 3, "dst": "tmp1", "rationale": "list of the office's museums"}]}`,
	`<think>The agent confirmed the Neues Museum.</think>{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "visit(\"https://davidchipperfield.com/projects/neues-museum\")"}, {"role": "user", "content": "Neues Museum, Berlin: reopened 2009; Mies van der Rohe Award 2011 — confirms the office designed it."}]}], "add_edges": [{"src": 3, "dst": "tmp1", "rationale": "project page confirms the Neues Museum"}]}`,
}

// buildExample grows the example from its task with the operations, as
// MemoBrain's loop does: init, then a patch per turn pair [2k, 2k+1].
func buildExample(t testing.TB) *Graph {
	t.Helper()
	g := NewGraph()
	if _, err := g.Init(exampleTask); err != nil {
		t.Fatal(err)
	}
	for k, p := range examplePatches {
		if _, err := g.ApplyPatch(mustPatch(t, p), []int{2 + 2*k, 3 + 2*k}); err != nil {
			t.Fatalf("patch %d: %v", k, err)
		}
	}
	return g
}

// The issue's §4: the example snapshot's shape rebuilt by the operations is
// the snapshot MemoBrain's save_memory writes (the fixture was written by
// Python's json.dump as save_memory calls it), byte for byte.
func TestExampleRebuiltByOperations(t *testing.T) {
	g := buildExample(t)
	got := writeSnapshot(t, &Snapshot{Graph: g, Wrapped: true})
	want := readFile(t, "example_snapshot.json")
	if !bytes.Equal(got, want) {
		t.Errorf("init + patches do not give MemoBrain's snapshot:\n%s", got)
	}
	if n := len(g.Log().Steps); n != 1+len(examplePatches) {
		t.Errorf("%d steps recorded, want %d", n, 1+len(examplePatches))
	}
}

// goldenStep applies op to the example and compares the step and the
// resulting snapshot with the golden files name.step.json and
// name.snapshot.json.
func goldenStep(t *testing.T, name string, apply func(g *Graph) ([]Step, error)) *Graph {
	t.Helper()
	s, err := ReadSnapshot(readFile(t, "example_snapshot_bare.json"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := apply(s.Graph)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, name+".step.json", indentJSON(t, steps))
	golden(t, name+".snapshot.json", writeSnapshot(t, s))
	return s.Graph
}

// Golden: a patch with tmp ids mapped to new sequential ids, a src written
// as a string, a src read the way MemoBrain reads one it cannot parse, and a
// src that is a tmp id.
func TestGoldenPatch(t *testing.T) {
	g := goldenStep(t, "patch", func(g *Graph) ([]Step, error) {
		p := mustPatch(t, `{"add_nodes": [
		  {"tmp_id": "tmp1", "kind": "subtask", "thought": [{"role": "assistant", "content": "Which other museums did the office design in Germany?"}, {"role": "user", "content": "Plan: list the German projects."}]},
		  {"tmp_id": "tmp2", "kind": "evidence", "thought": [{"role": "assistant", "content": "search(\"Chipperfield Museum Folkwang\")"}, {"role": "user", "content": "Museum Folkwang, Essen (2010), by David Chipperfield Architects."}]}],
		 "add_edges": [
		  {"src": "3", "dst": "tmp1", "rationale": "refine: German museums"},
		  {"src": "tmp1", "dst": "tmp2", "rationale": "answers the subtask"},
		  {"src": "see Node 8", "dst": "tmp2", "rationale": "another museum of the list"}]}`)
		s, err := g.ApplyPatch(p, []int{16, 17})
		return []Step{s}, err
	})
	n10, _ := g.Node(10)
	n11, _ := g.Node(11)
	if n10.Kind != KindSubtask || n11.Kind != KindEvidence || !slices.Equal(n10.TurnIDs, []int{16, 17}) || !slices.Equal(n11.TurnIDs, []int{16, 17}) {
		t.Errorf("§3 apply_patch: new nodes %+v %+v", n10, n11)
	}
	edges := g.Edges()
	if got := edges[len(edges)-1]; got.Src != 8 || got.Dst != 11 {
		t.Errorf(`§3: src "see Node 8" is read as node 8 (the first number), got %d -> %d`, got.Src, got.Dst)
	}
	if got := edges[len(edges)-3]; got.Kind != EdgeRefine {
		t.Errorf("subtask -> subtask is refine, got %q", got.Kind)
	}
}

// Golden: a flush marks the node "Flushed" and keeps it, its notes, turns
// and edges.
func TestGoldenFlush(t *testing.T) {
	g := goldenStep(t, "flush", func(g *Graph) ([]Step, error) {
		s, err := g.Flush(FlushOp{ID: 6, Rationale: "the competition record repeats what node 5 found"})
		return []Step{s}, err
	})
	n, _ := g.Node(6)
	if n.Active != Flushed || len(n.Thought.Notes) != 2 || !slices.Equal(n.TurnIDs, []int{8, 9}) || g.Len() != 9 || len(g.Edges()) != 8 {
		t.Errorf("ERRATA: a flushed node stays with its notes: %+v, %d nodes, %d edges", n, g.Len(), len(g.Edges()))
	}
}

// Golden: a fold makes a summary that takes over the folded nodes' turn ids;
// edges inside are dropped, the edge in is re-routed with the fold's
// rationale, the edge out starts from the summary with its own.
func TestGoldenFold(t *testing.T) {
	g := goldenStep(t, "fold", func(g *Graph) ([]Step, error) {
		f := mustFlushAndFold(t, `{"flush_ops": [], "fold_ops": [{"ids": [3, 7, 8], "rationale": "birth year and works are settled",
		  "notes": [{"role": "assistant", "content": "Looked up Chipperfield's biography and the office's museums."}, {"role": "user", "content": "Born 1953 in London; the office restored the Neues Museum (Berlin, 2009) — Zürich's extension is theirs too."}]}]}`)
		return g.ApplyFlushAndFold(f)
	})
	sum, ok := g.Node(10)
	if !ok || sum.Kind != KindSummary || sum.Active != Live || !slices.Equal(sum.TurnIDs, []int{2, 3, 10, 11, 12, 13}) {
		t.Fatalf("ERRATA: the summary takes over the folded turn ids: %+v", sum)
	}
	if sum.Thought.Form != ThoughtEncodedNotes || !strings.Contains(sum.Thought.Text, `"content": "Born 1953 in London; the office restored the Neues Museum (Berlin, 2009) \u2014 Z\u00fcrich's extension is theirs too."`) {
		t.Errorf("§3: a summary's thought is json.dumps(notes): %s", sum.Thought.Text)
	}
	for _, id := range []int{3, 7, 8} {
		if n, _ := g.Node(id); n.Active != Folded || len(n.TurnIDs) != 2 {
			t.Errorf("§3: folded node %d: %+v", id, n)
		}
	}
	var got []string
	for _, e := range g.Edges() {
		got = append(got, fmt.Sprintf("%d->%d %s (%s)", e.Src, e.Dst, e.Rationale, e.Kind))
	}
	want := []string{
		"1->2 decompose the task: identify the architect (decompose)",
		"1->10 birth year and works are settled (support)",
		"2->4 search result names the architect (support)",
		"2->5 official page confirms the architect (support)",
		"2->6 competition record supports it (support)",
		"10->9 project page confirms the Neues Museum (support)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("§3 fold_nodes: edges\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Golden: a whole reply: flushes first, then folds. Two edges from node 2
// into the fold become two edges to the summary, as in MemoBrain.
func TestGoldenFlushAndFold(t *testing.T) {
	g := goldenStep(t, "flush_and_fold", func(g *Graph) ([]Step, error) {
		f := mustFlushAndFold(t, "```json\n"+`{"flush_ops": [{"id": 6, "rationale": "repeats node 5"}],
		 "fold_ops": [{"ids": [4, 5], "rationale": "the architect is known", "notes": [{"role": "assistant", "content": "Searched and opened the museum's page."}, {"role": "user", "content": "David Chipperfield Architects designed the extension."}]}]}`+"\n```")
		return g.ApplyFlushAndFold(f)
	})
	var into []Edge
	for _, e := range g.Edges() {
		if e.Dst == 10 {
			into = append(into, e)
		}
	}
	if len(into) != 2 || into[0].Src != 2 || into[1].Src != 2 || into[0].Rationale != "the architect is known" {
		t.Errorf("fold_nodes re-routes each edge in: %+v", into)
	}
	if steps := g.Log().Steps; len(steps) != 2 || steps[0].Kind != OpFlush || steps[1].Kind != OpFold {
		t.Errorf("recall applies the flushes, then the folds, each a step: %+v", steps)
	}
}

// How MemoBrain's apply_patch reads a src or dst (problem_tree.py): str()
// of the value; a tmp id of the patch; else int(); for src only, else the
// first number in the string (re.findall(r'\d+', s)[0]). Expected values are
// what CPython 3.11 gives for the same strings.
func TestPatchEdgeEndsReadAsMemoBrain(t *testing.T) {
	for _, tc := range []struct {
		src  string // JSON
		want int    // 0: refused
	}{
		{`3`, 3}, {`"3"`, 3}, {`" 3\n"`, 3}, {`"+3"`, 3}, {`"0_3"`, 3}, {`"٣"`, 3}, // int() takes Unicode digits
		{`"node 3"`, 3}, {`"Node 3 (subtask)"`, 3}, {`"n3.5"`, 3}, {`3.0`, 3}, {`3.9`, 3}, {`0.3e1`, 3}, // str(3.0) is "3.0"
		{`"tmp3"`, 3},         // not a tmp id of this patch: the first number
		{`"t"`, 10},           // a tmp id of this patch
		{`"10"`, 10},          // int("10"): the new node
		{`"3_"`, 3},           // int() refuses, the first number is 3
		{`"x"`, 0}, {`""`, 0}, // no number: IndexError in MemoBrain
		{`"12"`, 0}, {`"node 12"`, 0}, // no node 12
		{`-3`, 0}, {`"-3"`, 0}, // int("-3") is -3: no such node
		{`3e16`, 0}, // str(3e16) is "3e+16": node 3? no: int() fails, first number is 3
	} {
		if tc.src == `3e16` {
			tc.want = 3
		}
		g := buildExample(t)
		before := writeSnapshot(t, NewSnapshot(g))
		p, err := ReadPatch([]byte(`{"add_nodes": [{"tmp_id": "t", "kind": "evidence", "thought": []}], "add_edges": [{"src": ` + tc.src + `, "dst": "t"}]}`))
		if err != nil {
			t.Fatalf("src %s: %v", tc.src, err)
		}
		_, err = g.ApplyPatch(p, []int{16, 17})
		switch {
		case tc.want == 10:
			if err == nil || !strings.Contains(err.Error(), "cycle") {
				t.Errorf("src %s is the new node itself: want a cycle error, got %v", tc.src, err)
			}
		case tc.want == 0:
			if err == nil {
				t.Errorf("src %s: accepted, want refused", tc.src)
			}
		case err != nil:
			t.Errorf("src %s: %v", tc.src, err)
		default:
			if e := g.Edges()[len(g.Edges())-1]; e.Src != tc.want || e.Dst != 10 {
				t.Errorf("src %s read as %d -> %d, want %d -> 10", tc.src, e.Src, e.Dst, tc.want)
			}
		}
		if err != nil && !bytes.Equal(before, writeSnapshot(t, NewSnapshot(g))) {
			t.Errorf("src %s: a refused patch changed the graph", tc.src)
		}
	}
	// dst has no fallback: int() or nothing.
	g := buildExample(t)
	_, err := g.ApplyPatch(mustPatch(t, `{"add_nodes": [], "add_edges": [{"src": 1, "dst": "node 9"}]}`), nil)
	if err == nil || err.Error() != `memobrain: patch add_edges[0] (add_edge): dst "node 9" is neither a node id nor a tmp id of this patch` {
		t.Errorf("dst with no int(): %v", err)
	}
	if _, err := g.ApplyPatch(mustPatch(t, `{"add_nodes": [], "add_edges": [{"src": 4, "dst": " 9 "}]}`), nil); err != nil {
		t.Errorf("dst int(\" 9 \") is 9: %v", err)
	}
}

// Patches and flush/fold outputs are refused with an error that names the
// bad op, and a refused one changes nothing.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, patch, fold string
		want              string
	}{
		{"self loop", `{"add_nodes": [], "add_edges": [{"src": 2, "dst": "2"}]}`, "",
			`memobrain: patch add_edges[0] (add_edge): src and dst are both node 2: an edge to itself is a cycle`},
		{"cycle with existing edges", `{"add_nodes": [], "add_edges": [{"src": 4, "dst": 1}]}`, "",
			`memobrain: patch add_edges[0] (add_edge): edge 4 -> 1 would close the cycle 1 -> 2 -> 4 -> 1`},
		{"cycle within the patch", `{"add_nodes": [{"tmp_id": "a", "kind": "subtask", "thought": []}, {"tmp_id": "b", "kind": "subtask", "thought": []}],
		  "add_edges": [{"src": 3, "dst": "a"}, {"src": "a", "dst": "b"}, {"src": "b", "dst": "a"}]}`, "",
			`memobrain: patch add_edges[2] (add_edge): edge 11 -> 10 would close the cycle 10 -> 11 -> 10`},
		{"cycle through new and old", `{"add_nodes": [{"tmp_id": "a", "kind": "subtask", "thought": []}],
		  "add_edges": [{"src": 9, "dst": "a"}, {"src": "a", "dst": 1}]}`, "",
			`memobrain: patch add_edges[1] (add_edge): edge 10 -> 1 would close the cycle 1 -> 3 -> 9 -> 10 -> 1`},
		{"unknown src", `{"add_nodes": [], "add_edges": [{"src": "x", "dst": 2}]}`, "",
			`memobrain: patch add_edges[0] (add_edge): src "x" is neither a node id nor a tmp id of this patch, and holds no number`},
		{"src read as a missing node", `{"add_nodes": [], "add_edges": [{"src": "Node 42", "dst": 2}]}`, "",
			`memobrain: patch add_edges[0] (add_edge): src "Node 42" (read as node 42, the first number in it, as MemoBrain reads it) is not a node of the graph or of this patch`},
		{"missing dst", `{"add_nodes": [], "add_edges": [{"src": 1, "dst": 99}]}`, "",
			`memobrain: patch add_edges[0] (add_edge): dst 99 is not a node of the graph or of this patch`},
		{"flush of a missing node", "", `{"flush_ops": [{"id": 4}, {"id": 42}], "fold_ops": []}`,
			`memobrain: flush_ops[1] (flush): node 42 is not in the graph`},
		{"flush twice", "", `{"flush_ops": [{"id": 4}, {"id": 4}], "fold_ops": []}`,
			`memobrain: flush_ops[1] (flush): node 4 is already in flush_ops[0] of this reply`},
		{"fold of a flushed node", "", `{"flush_ops": [{"id": 4}], "fold_ops": [{"ids": [5, 4], "rationale": "", "notes": []}]}`,
			`memobrain: fold_ops[0] (fold): ids[1]: node 4 is already in flush_ops[0] of this reply`},
		{"two folds share a node", "", `{"flush_ops": [], "fold_ops": [{"ids": [4, 5], "rationale": "", "notes": []}, {"ids": [6, 5], "rationale": "", "notes": []}]}`,
			`memobrain: fold_ops[1] (fold): ids[1]: node 5 is already in fold_ops[0] of this reply`},
		{"fold lists a node twice", "", `{"flush_ops": [], "fold_ops": [{"ids": [4, 4], "rationale": "", "notes": []}]}`,
			`memobrain: fold_ops[0] (fold): ids[1]: node 4 is listed twice`},
		{"fold of a missing node", "", `{"flush_ops": [], "fold_ops": [{"ids": [4, 40], "rationale": "", "notes": []}]}`,
			`memobrain: fold_ops[0] (fold): ids[1]: node 40 is not in the graph`},
		{"fold around an outside node", "", `{"flush_ops": [], "fold_ops": [{"ids": [1, 4], "rationale": "", "notes": []}]}`,
			`memobrain: fold_ops[0] (fold): the fold would make the cycle summary -> 2 -> summary: node 2 lies between folded nodes (fold it too, or leave out one end)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := buildExample(t)
			before := writeSnapshot(t, NewSnapshot(g))
			steps := len(g.Log().Steps)
			var err error
			if tc.patch != "" {
				_, err = g.ApplyPatch(mustPatch(t, tc.patch), []int{16, 17})
			} else {
				_, err = g.ApplyFlushAndFold(mustFlushAndFold(t, tc.fold))
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n %v\nwant\n %s", err, tc.want)
			}
			if !bytes.Equal(before, writeSnapshot(t, NewSnapshot(g))) || len(g.Log().Steps) != steps || g.NextID() != 10 {
				t.Error("a refused operation changed the graph or its log")
			}
		})
	}
	// A node folded earlier cannot be flushed or folded again.
	g := buildExample(t)
	if _, err := g.Fold(FoldOp{IDs: []int{4}, Notes: Notes{{Role: RoleUser, Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Flush(FlushOp{ID: 4}); err == nil || err.Error() != "memobrain: flush: node 4 is folded, not active (only active nodes are flushed)" {
		t.Errorf("flush of a folded node: %v", err)
	}
	if _, err := g.Fold(FoldOp{IDs: []int{4}}); err == nil || err.Error() != "memobrain: fold: ids[0]: node 4 is folded, not active (only active nodes are folded)" {
		t.Errorf("fold of a folded node: %v", err)
	}
	if _, err := g.Init("again"); err == nil {
		t.Error("init of a graph that has nodes")
	}
	if _, err := NewGraph().Init("  "); err == nil {
		t.Error("init with an empty task")
	}
}

func TestReadPatchErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"add_nodes": []}`, `memobrain: patch: "add_edges" is missing (write [] for none)`},
		{`{"add_nodes": {}, "add_edges": []}`, `memobrain: patch: add_nodes is an object, not a list`},
		{`[{"add_nodes": []}]`, `it is an array, not a memory patch {add_nodes, add_edges}`},
		{`{"add_nodes": [{"tmp_id": "a", "kind": "summary", "thought": []}], "add_edges": []}`,
			`memobrain: patch add_nodes[0] (add_node): kind "summary" is not "subtask" or "evidence" (a patch never makes a task or a summary)`},
		{`{"add_nodes": [{"tmp_id": "a", "kind": "evidence", "thought": []}, {"tmp_id": "a", "kind": "evidence", "thought": []}], "add_edges": []}`,
			`memobrain: patch add_nodes[1] (add_node): tmp_id "a" is also the tmp_id of add_nodes[0]`},
		{`{"add_nodes": [{"tmp_id": 1, "kind": "evidence", "thought": []}], "add_edges": []}`,
			`memobrain: patch add_nodes[0] (add_node): tmp_id is a number, not a string`},
		{`{"add_nodes": [{"tmp_id": "a", "kind": "evidence", "thought": "text"}], "add_edges": []}`,
			`memobrain: patch add_nodes[0] (add_node): thought is a string, not a list of notes`},
		{`{"add_nodes": [{"tmp_id": "a", "kind": "evidence", "thought": [{"role": "user"}]}], "add_edges": []}`,
			`memobrain: patch add_nodes[0] (add_node): thought[0]: a note has no "content"`},
		{`{"add_nodes": [{"tmp_id": "a", "kind": "evidence"}], "add_edges": []}`,
			`memobrain: patch add_nodes[0] (add_node): "thought" is missing`},
		{`{"add_nodes": [], "add_edges": [{"src": 1}]}`, `memobrain: patch add_edges[0] (add_edge): "dst" is missing`},
		{`{"add_nodes": [], "add_edges": [{"src": true, "dst": "a"}]}`, `memobrain: patch add_edges[0] (add_edge): src is a boolean, not a node id or a tmp id`},
		{`{"add_nodes": [], "add_edges": [{"src": 1, "dst": "a", "rationale": 2}]}`, `memobrain: patch add_edges[0] (add_edge): rationale is a number, not a string`},
		{"Here is the patch:\n{\"add_nodes\": [], \"add_edges\": []}", "line 1, column 1: invalid character 'H'"},
		{"```json\n{\"add_nodes\": [],\n \"add_edges\": [}\n```", "line 3, column 16: invalid character '}'"},
		{"```python\n{}\n```", "the reply's code fence is \"python\", not json"},
		{"<think>hmm", "the reply's <think> block is not closed"},
		{"  ", "there is no JSON"},
		{`{"add_nodes": [], "add_edges": []} {}`, "invalid character '{' after top-level value"},
	} {
		_, err := ReadPatch([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadPatch(%q)\n error %v\n want %q", tc.in, err, tc.want)
		}
	}
}

func TestReadFlushAndFoldErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"flush_ops": []}`, `memobrain: flush and fold: "fold_ops" is missing (write [] for none)`},
		{`{"flush_ops": [{"id": "5"}], "fold_ops": []}`, `memobrain: flush_ops[0] (flush): id is "5" (a string), not an integer`},
		{`{"flush_ops": [{"rationale": "r"}], "fold_ops": []}`, `memobrain: flush_ops[0] (flush): "id" is missing`},
		{`{"flush_ops": [], "fold_ops": [{"ids": [1, "7"], "rationale": "", "notes": []}]}`, `memobrain: fold_ops[0] (fold): ids[1] is "7" (a string), not an integer`},
		{`{"flush_ops": [], "fold_ops": [{"ids": [], "rationale": "", "notes": []}]}`, `memobrain: fold_ops[0] (fold): ids is empty`},
		{`{"flush_ops": [], "fold_ops": [{"ids": [1], "notes": []}]}`, `memobrain: fold_ops[0] (fold): "rationale" is missing`},
		{`{"flush_ops": [], "fold_ops": [{"ids": [1], "rationale": ""}]}`, `memobrain: fold_ops[0] (fold): "notes" is missing`},
		{`{"flush_ops": [], "fold_ops": [{"ids": [1], "rationale": "", "notes": "summary"}]}`, `memobrain: fold_ops[0] (fold): notes is a string, not a list of notes`},
		{`{"flush_ops": [], "fold_ops": [{"ids": [1.5], "rationale": "", "notes": []}]}`, `memobrain: fold_ops[0] (fold): ids[0] is 1.5, not an integer`},
	} {
		_, err := ReadFlushAndFold([]byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ReadFlushAndFold(%s)\n error %v\n want %s", tc.in, err, tc.want)
		}
	}
	// A null rationale (pydantic's Optional[str]) reads as "".
	f := mustFlushAndFold(t, `{"flush_ops": [{"id": 3, "rationale": null}], "fold_ops": [{"ids": [4], "rationale": null, "notes": []}], "comment": "ignored"}`)
	if f.FlushOps[0].Rationale != "" || f.FoldOps[0].Rationale != "" {
		t.Errorf("%+v", f)
	}
}

// ERRATA.md: edges carry a kind, inferred from the node kinds when the
// input has none.
func TestInferEdgeKind(t *testing.T) {
	for _, tc := range []struct {
		src, dst NodeKind
		want     EdgeKind
	}{
		{KindTask, KindSubtask, EdgeDecompose},
		{KindSubtask, KindSubtask, EdgeRefine},
		{KindSubtask, KindEvidence, EdgeSupport},
		{KindTask, KindEvidence, EdgeSupport},
		{KindEvidence, KindSubtask, EdgeSupport},
		{KindSubtask, KindSummary, EdgeSupport},
		{KindTask, KindSummary, EdgeSupport},
		{KindSummary, KindSubtask, EdgeRefine},
		{KindSummary, KindEvidence, EdgeSupport},
		{"hypothesis", "hypothesis", EdgeRefine},
	} {
		if got := InferEdgeKind(tc.src, tc.dst); got != tc.want {
			t.Errorf("%s -> %s: %s, want %s", tc.src, tc.dst, got, tc.want)
		}
	}
}

// The zero Graph is an empty graph.
func TestZeroGraph(t *testing.T) {
	var g Graph
	if g.NextID() != 1 || g.Len() != 0 {
		t.Fatalf("next %d, len %d", g.NextID(), g.Len())
	}
	var h Graph
	if _, err := h.Init("x"); err != nil {
		t.Fatal(err)
	}
	if n, ok := h.Node(1); !ok || n.Kind != KindTask {
		t.Errorf("%+v", n)
	}
	var f Graph
	if _, err := f.ApplyPatch(MemoryPatch{AddNodes: []AddNodeOp{{TmpID: "a", Kind: KindSubtask}}}, nil); err != nil || f.NextID() != 2 {
		t.Errorf("a patch on the zero graph: %v, next %d", err, f.NextID())
	}
}

// The operation types go through encoding/json as the readers read them,
// keeping what the model wrote.
func TestOperationsJSON(t *testing.T) {
	var v struct {
		Patch MemoryPatch    `json:"patch"`
		Reply FlushAndFoldOp `json:"reply"`
		Fold  FoldOp         `json:"fold"`
		Flush FlushOp        `json:"flush"`
		Msg   Message        `json:"msg"`
	}
	in := `{"patch": {"add_nodes": [{"tmp_id": "a", "kind": "evidence", "thought": [{"role": "Agent_X", "content": "é", "extra": 1}]}], "add_edges": [{"src": "Node 1", "dst": "a"}], "note": "kept"},
	  "reply": {"flush_ops": [{"id": 2}], "fold_ops": []},
	  "fold": {"ids": [3], "rationale": null, "notes": [], "why": "kept"},
	  "flush": {"id": 4, "rationale": "r"},
	  "msg": {"role": "user", "content": "hi", "name": "kept"}}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, []byte(in), out) {
		t.Errorf("through encoding/json:\n%s", out)
	}
	if err := json.Unmarshal([]byte(`{"patch": {"add_nodes": []}}`), &v); err == nil || !strings.Contains(err.Error(), `"add_edges" is missing`) {
		t.Errorf("a bad patch through encoding/json: %v", err)
	}
}
