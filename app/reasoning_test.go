package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rhizome/backend/link"
	"rhizome/store"
)

// The MemoBrain fixtures of backend/memobrain: MemoBrain's example shape
// rebuilt from the spec (wrapped and bare), its conversation, a run result
// whose "messages" come before "memory", and a snapshot with every thought
// form, unknown keys and folds already done.
const memoDir = "../backend/memobrain/testdata"

func memoFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(memoDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonEqual reports whether a and b are the same JSON value (objects by
// key, numbers by their text).
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(x []byte) any {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("not JSON: %v\n%.300s", err, x)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

// copyTo writes the fixtures to a folder as files named as given.
func copyTo(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// importedGraph is the reasoning graph the report of file name made.
func importedGraph(t *testing.T, rep ImportReport, name string) FileReport {
	t.Helper()
	fr := reportByName(t, rep, name)
	if fr.Format != "memobrain" || fr.Reasoning == nil || fr.Reasoning.GraphID == "" {
		t.Fatalf("%s: report %+v, want a memobrain graph", name, fr)
	}
	return fr
}

// Issue 12 §2: a snapshot dropped on the window like any other file (by
// path, and as contents) becomes a reasoning graph, detected by content; the
// report gives the format, the nodes by kind and the edges; exported again
// it is equal to the file as JSON, unknown keys kept (a file save_memory
// wrote comes back byte for byte); the same file again changes nothing.
func TestImportExportSnapshots(t *testing.T) {
	files := map[string][]byte{
		"kunsthaus.json":      memoFile(t, "example_snapshot.json"),
		"kunsthaus-bare.json": memoFile(t, "example_snapshot_bare.json"),
		"run.json":            memoFile(t, "variants/run_result.json"),
		"forms.json":          memoFile(t, "variants/thought_forms.json"),
	}
	dir := copyTo(t, files)
	l := newTestLib(t)
	var paths []string
	for name := range files {
		paths = append(paths, filepath.Join(dir, name))
	}
	slices.Sort(paths)
	rep := l.importPaths(t, paths...)
	if rep.Totals.Files != 4 || rep.Totals.Imported != 4 || rep.Totals.Failed != 0 {
		t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
	}
	for name, in := range files {
		fr := importedGraph(t, rep, name)
		if fr.Status != "imported" {
			t.Errorf("%s: status %s", name, fr.Status)
		}
		out, err := l.Reasoning.Export(fr.Reasoning.GraphID)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, in, []byte(out)) {
			t.Errorf("%s: exported, not equal to the file as JSON:\n%s", name, out)
		}
		if name != "forms.json" && out != string(in) {
			t.Errorf("%s: save_memory wrote it, but it does not come back byte for byte", name)
		}
	}
	k := importedGraph(t, rep, "kunsthaus.json").Reasoning
	want := map[string]int{"task": 1, "subtask": 2, "evidence": 6}
	if !k.Wrapped || k.Nodes != 9 || !reflect.DeepEqual(k.NodesByKind, want) || k.Edges != 8 || k.EdgesByKind["support"] != 6 ||
		k.EdgesByKind["decompose"] != 2 || !strings.HasPrefix(k.URI, "rhizome:reasoning/") || !strings.HasPrefix(k.Title, "Who designed the 2020 extension") {
		t.Errorf("the example's report: %+v", k)
	}
	if b := importedGraph(t, rep, "kunsthaus-bare.json").Reasoning; b.Wrapped || b.Nodes != 9 {
		t.Errorf("the bare example's report: %+v", b)
	}
	// The run result carries its conversation beside "memory": it links
	// turns to nodes.
	if r := importedGraph(t, rep, "run.json").Reasoning; r.Messages != 16 || r.TurnsBeyond != 0 {
		t.Errorf("the run result's report: %+v", r)
	}

	again := l.importPaths(t, paths...)
	if again.Totals.Unchanged != 4 {
		t.Errorf("imported again: %+v", again.Totals)
	}
	list, _ := l.Reasoning.List()
	if len(list) != 4 {
		t.Errorf("%d graphs after importing the same files twice", len(list))
	}

	// Dropped as contents (the window's fallback, the browser's upload).
	l2 := newTestLib(t)
	rep2, err := l2.Import.ImportFiles([]DroppedFile{{Name: "kunsthaus.json", Content: base64.StdEncoding.EncodeToString(files["kunsthaus.json"])}})
	if err != nil {
		t.Fatal(err)
	}
	if fr := importedGraph(t, rep2, "kunsthaus.json"); fr.Status != "imported" || fr.Reasoning.Nodes != 9 {
		t.Errorf("ImportFiles: %+v", fr)
	}
}

// A conversation dropped with its snapshot imports beside it and links turns
// to nodes; dropped alone it is refused, saying why; a damaged snapshot is
// refused with its line and field, and nothing is stored.
func TestImportConversationAndBadSnapshots(t *testing.T) {
	l := newTestLib(t)
	dir := copyTo(t, map[string][]byte{
		"example_snapshot.json": memoFile(t, "example_snapshot.json"),
		"example_messages.json": memoFile(t, "example_messages.json"),
	})
	rep := l.importPaths(t, filepath.Join(dir, "example_messages.json"), filepath.Join(dir, "example_snapshot.json"))
	snap := importedGraph(t, rep, "example_snapshot.json")
	conv := importedGraph(t, rep, "example_messages.json")
	if snap.Reasoning.Messages != 16 || snap.Reasoning.MessagesFile == "" || conv.Status != "imported" || conv.Reasoning.GraphID != snap.Reasoning.GraphID {
		t.Errorf("snapshot %+v, conversation %+v", snap.Reasoning, conv)
	}
	// Node 4 stands for turns 4 and 5: the search and its result.
	turns, err := l.Reasoning.Turns(snap.Reasoning.GraphID, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Turn != 4 || turns[0].Role != "assistant" || turns[1].Role != "user" || !strings.Contains(turns[1].Content, "tool_response") {
		t.Errorf("node 4's turns: %+v", turns)
	}

	alone := newTestLib(t)
	rep = alone.importPaths(t, filepath.Join(dir, "example_messages.json"))
	if fr := reportByName(t, rep, "example_messages.json"); fr.Status != "failed" || fr.Format != "memobrain" || !strings.Contains(fr.Error, "without its snapshot") {
		t.Errorf("a conversation alone: %+v", fr)
	}

	bad := bytes.Replace(memoFile(t, "example_snapshot.json"), []byte(`"active": true`), []byte(`"active": "maybe"`), 1)
	dir2 := copyTo(t, map[string][]byte{"bad.json": bad})
	rep = alone.importPaths(t, filepath.Join(dir2, "bad.json"))
	fr := reportByName(t, rep, "bad.json")
	if fr.Status != "failed" || fr.Format != "memobrain" || !strings.Contains(fr.Error, "bad.json") ||
		!strings.Contains(fr.Error, `line 4: node "1": active "maybe" is neither true, false nor "Flushed"`) {
		t.Errorf("a damaged snapshot: %+v", fr)
	}
	if list, _ := alone.Reasoning.List(); len(list) != 0 {
		t.Errorf("%d graphs stored by failed imports", len(list))
	}
}

// Patches and flush-and-fold replies are validated whole: a bad op is
// refused with an error naming it and the graph stays as it was; good ones
// become steps, and the history goes back to any of them (issue 12 §2, §3).
func TestApplyOperations(t *testing.T) {
	l := newTestLib(t)
	dir := copyTo(t, map[string][]byte{"bare.json": memoFile(t, "example_snapshot_bare.json")})
	id := importedGraph(t, l.importPaths(t, filepath.Join(dir, "bare.json")), "bare.json").Reasoning.GraphID
	before, err := l.Reasoning.Export(id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ patch, want string }{
		{`{"add_nodes": [{"tmp_id": "t1", "kind": "summary", "thought": []}], "add_edges": []}`,
			`patch add_nodes[0] (add_node): kind "summary" is not "subtask" or "evidence"`},
		{`{"add_nodes": [{"tmp_id": "t1", "kind": "evidence", "thought": []}], "add_edges": [{"src": 1, "dst": "t1"}, {"src": "x", "dst": "t1"}]}`,
			`patch add_edges[1] (add_edge): src "x" is neither a node id nor a tmp id of this patch, and holds no number`},
		{`{"add_nodes": [], "add_edges": [{"src": 4, "dst": 1}]}`, `add_edges[0] (add_edge): edge 4 -> 1 would close the cycle 1 -> 2 -> 4 -> 1`},
		{`{"add_nodes": []`, "line 1, column"},
	} {
		_, err := l.Reasoning.ApplyPatch(id, tc.patch)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("patch %s: %v, want an invalid-input error containing %q", tc.patch, err, tc.want)
		}
	}
	for _, tc := range []struct{ ops, want string }{
		{`{"flush_ops": [{"id": 99}], "fold_ops": []}`, "flush_ops[0] (flush): node 99 is not in the graph"},
		{`{"flush_ops": [{"id": 6}], "fold_ops": [{"ids": [5, 6], "rationale": "r", "notes": []}]}`, "fold_ops[0] (fold): ids[1]: node 6 is already in flush_ops[0] of this reply"},
		{`{"flush_ops": [], "fold_ops": [{"ids": [1, 4], "rationale": "r", "notes": []}]}`, "fold_ops[0] (fold): the fold would make the cycle summary -> 2 -> summary"},
		{`{"flush_ops": [], "fold_ops": []}`, "nothing to apply"},
	} {
		_, err := l.Reasoning.ApplyFlushAndFold(id, tc.ops)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ops %s: %v, want an error containing %q", tc.ops, err, tc.want)
		}
	}
	if now, _ := l.Reasoning.Export(id); now != before {
		t.Fatal("refused operations changed the graph")
	}

	// A patch, as the model writes it (a code fence around it): new nodes
	// get the next pair of turn ids.
	v, err := l.Reasoning.ApplyPatch(id, "```json\n"+`{"add_nodes": [{"tmp_id": "tmp1", "kind": "evidence", "thought": [{"role": "assistant", "content": "search"}, {"role": "user", "content": "found"}]}],
	  "add_edges": [{"src": 2, "dst": "tmp1", "rationale": "answers"}]}`+"\n```")
	if err != nil {
		t.Fatal(err)
	}
	n10 := v.Nodes[len(v.Nodes)-1]
	if v.Step != 1 || n10.ID != 10 || !slices.Equal(n10.TurnIDs, []int{16, 17}) || n10.AddedAt != 1 || n10.State != "active" || n10.Label != "search" {
		t.Errorf("after the patch: step %d, node %+v", v.Step, n10)
	}
	// The fold of the memobrain golden file: the export is that file.
	v, err = l.Reasoning.ApplyFlushAndFold(id, `{"flush_ops": [], "fold_ops": [{"ids": [3, 7, 8], "rationale": "birth year and works are settled",
	  "notes": [{"role": "assistant", "content": "Looked up Chipperfield's biography and the office's museums."}, {"role": "user", "content": "Born 1953 in London; the office restored the Neues Museum (Berlin, 2009) — Zürich's extension is theirs too."}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if v.Step != 2 || len(v.History) != 2 || v.History[1].Kind != "fold" || v.History[1].Rationale != "birth year and works are settled" {
		t.Errorf("history %+v", v.History)
	}
	var span *ReasoningSpan
	for i := range v.Spans {
		if v.Spans[i].Summary == 11 {
			span = &v.Spans[i]
		}
	}
	if span == nil || !slices.Equal(span.Nodes, []int{3, 7, 8}) || !span.Logged || len(span.Edges) != 2 {
		t.Errorf("spans %+v: want summary 11 folding 3, 7, 8", v.Spans)
	}

	// The history: step 1 is before the fold, step 0 as imported.
	at1, err := l.Reasoning.At(id, 1)
	if err != nil {
		t.Fatal(err)
	}
	states := map[int]string{}
	for _, n := range at1.Nodes {
		states[n.ID] = n.State
	}
	if len(at1.Nodes) != 10 || states[3] != "active" || states[7] != "active" || at1.Diff == nil || at1.Diff.Kind != "patch" || at1.Diff.NodesAdded[0] != 10 {
		t.Errorf("step 1: %d nodes, states %v, diff %+v", len(at1.Nodes), states, at1.Diff)
	}
	at2, err := l.Reasoning.At(id, 2)
	if err != nil {
		t.Fatal(err)
	}
	if at2.Diff.Kind != "fold" || len(at2.Diff.EdgesRerouted) != 2 || len(at2.Diff.EdgesRemoved) != 2 || len(at2.Spans) != 1 || len(at2.Edges) != len(v.Edges) {
		t.Errorf("step 2's diff %+v", at2.Diff)
	}
	if at0, err := l.Reasoning.At(id, 0); err != nil || len(at0.Nodes) != 9 || at0.Diff != nil {
		t.Errorf("step 0: %+v %v", at0, err)
	}
	if _, err := l.Reasoning.At(id, 3); err == nil || !strings.Contains(err.Error(), "has no step 3") {
		t.Errorf("a step past the end: %v", err)
	}
	d, err := l.Reasoning.StepDiff(id, 1)
	if err != nil || !reflect.DeepEqual(d, *at2.Diff) {
		t.Errorf("StepDiff(1) = %+v, %v; At(2) says %+v", d, err, at2.Diff)
	}

	// After the fold, with a patch before it: export and the golden file
	// differ only by the patch's node; without it, equal. Apply the fold to
	// a fresh import to compare with the golden file exactly.
	l2 := newTestLib(t)
	id2 := importedGraph(t, l2.importPaths(t, filepath.Join(dir, "bare.json")), "bare.json").Reasoning.GraphID
	if _, err := l2.Reasoning.ApplyFlushAndFold(id2, `{"flush_ops": [], "fold_ops": [{"ids": [3, 7, 8], "rationale": "birth year and works are settled",
	  "notes": [{"role": "assistant", "content": "Looked up Chipperfield's biography and the office's museums."}, {"role": "user", "content": "Born 1953 in London; the office restored the Neues Museum (Berlin, 2009) — Zürich's extension is theirs too."}]}]}`); err != nil {
		t.Fatal(err)
	}
	if out, _ := l2.Reasoning.Export(id2); out != string(memoFile(t, "golden/fold.snapshot.json")) {
		t.Errorf("export after the fold differs from memobrain's golden file:\n%s", out)
	}

	// The graph now is what its history rebuilds: At(steps) and Open agree.
	open, _ := l.Reasoning.Open(id)
	for _, n := range open.Nodes {
		if states2 := stateOf(at2.Nodes, n.ID); states2 != n.State {
			t.Errorf("node %d: Open says %s, At(2) says %s", n.ID, n.State, states2)
		}
	}
	// Another window's stale view cannot interleave: the store refuses.
	if err := l.st.AppendReasoningSteps(l.Reasoning.c.context(), id, 1, nil, nil, nil); !errors.Is(err, store.ErrReasoningChanged) {
		t.Errorf("a stale append: %v", err)
	}
}

func stateOf(ns []ReasoningNodeState, id int) string {
	for _, n := range ns {
		if n.ID == id {
			return n.State
		}
	}
	return ""
}

// Inferred spans: a snapshot read with folds done opens its summary onto
// the nodes that share its turn ids; Delete removes the graph.
func TestOpenInferredSpansAndDelete(t *testing.T) {
	l := newTestLib(t)
	dir := copyTo(t, map[string][]byte{"forms.json": memoFile(t, "variants/thought_forms.json")})
	id := importedGraph(t, l.importPaths(t, filepath.Join(dir, "forms.json")), "forms.json").Reasoning.GraphID
	v, err := l.Reasoning.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Spans) != 1 || v.Spans[0].Summary != 6 || !slices.Equal(v.Spans[0].Nodes, []int{4, 5}) || v.Spans[0].Logged {
		t.Errorf("spans %+v", v.Spans)
	}
	var custom *ReasoningNote
	for _, n := range v.Nodes {
		if n.ID == 2 {
			custom = &n.Notes[0]
		}
		if n.ID == 6 && (n.Thought != "encodedNotes" || len(n.Notes) != 2) {
			t.Errorf("a summary's encoded notes: %+v", n)
		}
		if n.ID == 1 && (n.Thought != "text" || n.Label != "compare the two caching strategies") {
			t.Errorf("the task: %+v", n)
		}
	}
	if custom == nil || custom.Role != "Agent_Analyst" || custom.Standard {
		t.Errorf("a custom role: %+v", custom)
	}
	if err := l.Reasoning.Delete(id); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reasoning.Open(id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a deleted graph opens: %v", err)
	}
}

// kunsthausLib is a library holding MemoBrain's example graph (9 nodes),
// imported from its snapshot, and the graph's id.
func kunsthausLib(t *testing.T) (*testLib, string) {
	t.Helper()
	dir := copyTo(t, map[string][]byte{"kunsthaus.json": memoFile(t, "example_snapshot.json")})
	l := newTestLib(t)
	rep := l.importPaths(t, filepath.Join(dir, "kunsthaus.json"))
	return l, importedGraph(t, rep, "kunsthaus.json").Reasoning.GraphID
}

// A reasoning graph and its nodes are link ends like any item: a link to
// them resolves with their title and opens the reasoning view at the node;
// a node the graph does not hold, or a deleted graph, is gone.
func TestReasoningItemsAsLinkEnds(t *testing.T) {
	l, g := kunsthausLib(t)
	v, err := l.Reasoning.Open(g)
	if err != nil {
		t.Fatal(err)
	}
	node := v.Nodes[len(v.Nodes)-1]
	graphURI := link.Reasoning(g).String()
	nodeURI := link.ReasoningNode(g, strconv.Itoa(node.ID)).String()
	if _, err := l.Links.Create(LinkInput{Source: nodeURI, Target: graphURI, Type: "PART_OF"}); err != nil {
		t.Fatal(err)
	}
	gv, err := l.Links.Resolve(graphURI)
	if err != nil || !gv.Exists || gv.Title != v.Info.Title || gv.Open.View != "reasoning" || gv.Open.ReasoningID != g {
		t.Fatalf("the graph: %+v, %v", gv, err)
	}
	nv, err := l.Links.Resolve(nodeURI)
	if err != nil || !nv.Exists || !strings.HasPrefix(nv.Title, node.Kind+" ") || nv.Open.ReasoningNode != strconv.Itoa(node.ID) {
		t.Fatalf("the node: %+v, %v", nv, err)
	}
	of, err := l.Links.Of(nodeURI)
	if err != nil || len(of.Outgoing) != 1 || of.Outgoing[0].Broken || !of.Outgoing[0].Other.Exists {
		t.Fatalf("the node's links: %+v, %v", of, err)
	}
	if gone, _ := l.Links.Resolve(link.ReasoningNode(g, "9999").String()); gone.Exists {
		t.Errorf("a node the graph does not hold: %+v", gone)
	}
	if err := l.Reasoning.Delete(g); err != nil {
		t.Fatal(err)
	}
	if gone, _ := l.Links.Resolve(graphURI); gone.Exists {
		t.Errorf("a deleted graph: %+v", gone)
	}
}

// Reasoning graphs and their nodes are found by the search box and the
// picker: a graph by its title, a node by its thought; a node a patch adds
// is found once it is applied; nothing of a deleted graph is.
func TestReasoningItemsFound(t *testing.T) {
	l, g := kunsthausLib(t)
	kinds := func(hits []ItemHit) map[string][]string {
		out := map[string][]string{}
		for _, h := range hits {
			out[h.Item.Kind] = append(out[h.Item.Kind], h.Item.URI)
		}
		return out
	}
	hits, err := l.Search.Items("Kunsthaus", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(hits); !slices.Contains(k["reasoning"], link.Reasoning(g).String()) || len(k["reasoningNode"]) == 0 {
		t.Fatalf("Kunsthaus: %v", k)
	}
	nodes, _ := l.Search.Items("Neues Museum", []string{"reasoningNode"}, 5)
	if len(nodes) == 0 || !strings.Contains(nodes[0].Item.Title, "Neues Museum") || !strings.HasPrefix(nodes[0].Item.URI, "rhizome:reasoning/"+g+"/") {
		t.Fatalf("Neues Museum among reasoning nodes: %+v", nodes)
	}
	if _, err := l.Reasoning.ApplyPatch(g, `{"add_nodes": [{"tmp_id": "t", "kind": "evidence", "thought": [{"role": "assistant", "content": "checked the zygomorphic facade"}]}], "add_edges": [{"src": 2, "dst": "t", "rationale": "answers"}]}`); err != nil {
		t.Fatal(err)
	}
	added, _ := l.Search.Items("zygomorphic", nil, 5)
	if len(added) != 1 || added[0].Item.URI != link.ReasoningNode(g, "10").String() || !added[0].Item.Exists {
		t.Fatalf("the node the patch added: %+v", added)
	}
	box, err := l.Search.Query("zygomorphic", 10)
	if err != nil || len(box) == 0 || box[0].Kind != "reasoningNode" {
		t.Fatalf("the search box: %+v, %v", box, err)
	}
	if err := l.Reasoning.Delete(g); err != nil {
		t.Fatal(err)
	}
	if gone, _ := l.Search.Items("Kunsthaus", nil, 5); len(kinds(gone)["reasoning"])+len(kinds(gone)["reasoningNode"]) != 0 {
		t.Fatalf("a deleted graph is still found: %v", kinds(gone))
	}
}
