package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"rhizome/backend/llm/llmtest"
	"rhizome/backend/loom"
	"rhizome/store"
)

// testAPIKey is the key the loom tests configure: it must never come back
// out of the app.
const testAPIKey = "sk-rhizome-test-9f3a1c77e2b54d0c"

// event is one event the app emitted.
type event struct {
	name string
	data any
}

// eventLog records every event with its payload.
type eventLog struct {
	mu     sync.Mutex
	events []event
}

func captureEvents(l *testLib) *eventLog {
	log := &eventLog{}
	l.SetEmitter(func(name string, data any) {
		log.mu.Lock()
		log.events = append(log.events, event{name, data})
		log.mu.Unlock()
	})
	return log
}

// of returns the events named name, in order.
func (e *eventLog) of(name string) []any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []any
	for _, ev := range e.events {
		if ev.name == name {
			out = append(out, ev.data)
		}
	}
	return out
}

// wait polls until an event named name arrived.
func (e *eventLog) wait(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(e.of(name)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no %s event", name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// fakeModel is llmtest's OpenAI-compatible server on loopback, recording
// the request bodies it gets.
type fakeModel struct {
	*llmtest.OpenAIServer
	base string

	mu     sync.Mutex
	bodies []map[string]any
}

func startFakeModel(t *testing.T, configure func(*llmtest.OpenAIServer)) *fakeModel {
	t.Helper()
	f := &fakeModel{OpenAIServer: llmtest.NewOpenAIServer(7)}
	f.APIKey = testAPIKey
	if configure != nil {
		configure(f.OpenAIServer)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		if json.Unmarshal(b, &body) == nil {
			f.mu.Lock()
			f.bodies = append(f.bodies, body)
			f.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.base = srv.URL + "/v1"
	return f
}

func (f *fakeModel) lastBody() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[len(f.bodies)-1]
}

// useModel points l's settings at base with the test key.
func useModel(t *testing.T, l *testLib, base string) {
	t.Helper()
	if _, err := l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: base, Model: "rhizome-test",
		N: 3, MaxTokens: 12, APIKey: testAPIKey}); err != nil {
		t.Fatal(err)
	}
}

// loomNodeCount counts the loom nodes stored in l.
func loomNodeCount(t *testing.T, l *testLib) int {
	t.Helper()
	var n int
	if err := l.db(t).QueryRow(`SELECT count(*) FROM loom_nodes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkNoKey fails when s holds the test API key.
func checkNoKey(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testAPIKey) {
		t.Errorf("%s carries the API key: %.300s", what, s)
	}
}

// checkRuns checks that runs concatenate to text.
func checkRuns(t *testing.T, runs []AuthorshipRun, text string) {
	t.Helper()
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(r.Text)
	}
	if b.String() != text {
		t.Errorf("runs %q do not concatenate to %q", runs, text)
	}
}

// The flow, in both modes: a prompt, a human continuation, three
// model continuations streamed as events, an edit of a model node with
// exact authorship, its edit history and diffs; with a server honouring n
// and one ignoring it (the client then asks once per continuation).
func TestLoomGenerateFlow(t *testing.T) {
	for _, mode := range []string{"buffer", "dialogue"} {
		for _, ignoreN := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ignoreN=%t", mode, ignoreN), func(t *testing.T) {
				l := newTestLib(t)
				events := captureEvents(l)
				fake := startFakeModel(t, func(s *llmtest.OpenAIServer) { s.IgnoreN = ignoreN })
				useModel(t, l, fake.base)
				generateFlow(t, l, events, fake, mode, ignoreN)
			})
		}
	}
}

func generateFlow(t *testing.T, l *testLib, events *eventLog, fake *fakeModel, mode string, ignoreN bool) {
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: mode, SystemContext: "You write about lighthouses.",
		RootText: "The lighthouse keeper kept a jar of storms."})
	if err != nil {
		t.Fatal(err)
	}
	treeID := tv.Tree.ID
	if tv.Tree.Mode != mode || tv.Tree.Title != "The lighthouse keeper kept a jar…" || len(tv.Nodes) != 1 ||
		tv.ActivePath.NodeID != tv.Tree.RootNodeID {
		t.Fatalf("new tree %+v", tv)
	}
	human, err := l.Loom.AddNode(treeID, tv.Tree.RootNodeID, " Each one was labelled.")
	if err != nil {
		t.Fatal(err)
	}
	if human.AuthorType != "human" || human.ParentID != tv.Tree.RootNodeID || human.AuthorName == "" {
		t.Fatalf("human node %+v", human)
	}
	before := fake.Requests()
	res, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: human.ID}, N: 3, RequestID: "req-1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[bool]int{false: 1, true: 3}[ignoreN]; fake.Requests()-before != want {
		t.Errorf("%d requests to the model, want %d", fake.Requests()-before, want)
	}
	if res.RequestID != "req-1" || res.ParentID != human.ID || len(res.Nodes) != 3 {
		t.Fatalf("Generate = %+v", res)
	}

	// The request: chat messages in dialogue mode, the path's text in buffer mode.
	body := fake.lastBody()
	if mode == "dialogue" {
		msgs, _ := json.Marshal(body["messages"])
		want := `[{"content":"You write about lighthouses.","role":"system"},{"content":"The lighthouse keeper kept a jar of storms.","role":"user"},{"content":" Each one was labelled.","role":"user"}]`
		if string(msgs) != want {
			t.Errorf("messages %s, want %s", msgs, want)
		}
	} else if body["prompt"] != "You write about lighthouses.\n\nThe lighthouse keeper kept a jar of storms. Each one was labelled." {
		t.Errorf("prompt %q", body["prompt"])
	}
	if body["model"] != "rhizome-test" {
		t.Errorf("model %v", body["model"])
	}

	// Deltas: in order per index, concatenating to each node's text.
	texts := map[int]string{}
	for _, d := range events.of("loom:delta") {
		d := d.(LoomDelta)
		if d.RequestID != "req-1" {
			t.Errorf("delta of request %q", d.RequestID)
		}
		texts[d.Index] += d.Text
	}
	for i, n := range res.Nodes {
		if n.AuthorType != "model" || n.Model != "openai/rhizome-test" || n.AuthorName != "rhizome-test" ||
			n.ParentID != human.ID || n.Text == "" || n.RawResponseHash == "" || !n.Position {
			t.Errorf("model node %d: %+v", i, n)
		}
		if texts[i] != n.Text {
			t.Errorf("node %d: deltas %q, text %q", i, texts[i], n.Text)
		}
		raw, err := l.st.LoomRawResponse(context.Background(), n.ID)
		if err != nil || loom.SHA256Hex(raw) != n.RawResponseHash || !bytes.Contains(raw, []byte("data: [DONE]")) {
			t.Errorf("node %d: raw response %d bytes (%v), hash %s", i, len(raw), err, n.RawResponseHash)
		}
	}
	if len(texts) != 3 || res.Nodes[0].Text == res.Nodes[1].Text {
		t.Errorf("deltas for %d indexes; texts %v", len(texts), texts)
	}
	start, done := events.of("loom:start"), events.of("loom:done")
	if len(start) != 1 || start[0].(LoomGenerationStart).N != 3 || len(done) != 1 || !reflect.DeepEqual(done[0], res) ||
		len(events.of("loom:error")) != 0 {
		t.Errorf("events start %+v done %+v error %+v", start, done, events.of("loom:error"))
	}
	if found, err := l.Loom.Verify(treeID); err != nil || len(found) != 0 {
		t.Errorf("Verify = %+v, %v", found, err)
	}

	// The tree: branch point at the human node, three leaves.
	tv, err = l.Loom.Tree(treeID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tv.Nodes) != 5 || !reflect.DeepEqual(tv.BranchPoints, []string{human.ID}) || len(tv.Leaves) != 3 {
		t.Errorf("tree: %d nodes, branch points %v, leaves %v", len(tv.Nodes), tv.BranchPoints, tv.Leaves)
	}

	// Edit the second model node: authorship shows exactly what is still the model's.
	model := res.Nodes[1]
	edited := "» " + model.Text + " and the jar was never opened «"
	edit, err := l.Loom.Edit(treeID, model.ID, edited)
	if err != nil {
		t.Fatal(err)
	}
	if edit.EditedFrom != model.ID || edit.AuthorType != "human" || edit.Text != edited || edit.Family != model.ID {
		t.Fatalf("edit %+v", edit)
	}
	runs, err := l.Loom.Authorship(treeID, edit.ID, "raw")
	if err != nil {
		t.Fatal(err)
	}
	want := []AuthorshipRun{{"» ", "human"}, {model.Text, "model"}, {" and the jar was never opened «", "human"}}
	if !reflect.DeepEqual(runs, want) {
		t.Errorf("authorship %q, want %q", runs, want)
	}
	semantic, err := l.Loom.Authorship(treeID, edit.ID, "semantic")
	if err != nil {
		t.Fatal(err)
	}
	checkRuns(t, semantic, edited)
	if _, err := l.Loom.Edit(treeID, model.ID, model.Text); err == nil {
		t.Error("an edit changing nothing was accepted")
	}

	// The reading pane along the edit.
	pv, err := l.Loom.ActivePathView(treeID, ActivePath{NodeID: edit.ID}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Steps) != 3 || pv.View != "raw" {
		t.Fatalf("path view %+v", pv)
	}
	last := pv.Steps[2]
	if last.Node.ID != edit.ID || !reflect.DeepEqual(last.Runs, want) {
		t.Errorf("last step %+v", last)
	}
	for _, s := range pv.Steps {
		checkRuns(t, s.Runs, s.Node.Text)
	}
	if mode == "dialogue" {
		// A sibling branch: four siblings, the edit last.
		if len(last.Siblings.IDs) != 4 || last.Siblings.Index != 3 || last.Siblings.IDs[1] != model.ID ||
			!reflect.DeepEqual(last.Versions, LoomChoice{IDs: []string{model.ID, edit.ID}, Index: 1}) || !edit.Position {
			t.Errorf("dialogue edit: siblings %+v versions %+v position %t", last.Siblings, last.Versions, edit.Position)
		}
	} else {
		// A version standing at the model node's position.
		if len(last.Siblings.IDs) != 3 || last.Siblings.Index != 1 || last.Siblings.IDs[1] != model.ID ||
			!reflect.DeepEqual(last.Versions, LoomChoice{IDs: []string{model.ID, edit.ID}, Index: 1}) || edit.Position {
			t.Errorf("buffer edit: siblings %+v versions %+v position %t", last.Siblings, last.Versions, edit.Position)
		}
		// The path resolves to the newest version unless asked otherwise.
		pv, err := l.Loom.ActivePathView(treeID, ActivePath{NodeID: model.ID, Versions: map[string]string{model.ID: model.ID}}, "raw")
		if err != nil || pv.Steps[2].Node.ID != model.ID || pv.Steps[2].Versions.Index != 0 {
			t.Errorf("path choosing the original: %+v, %v", pv, err)
		}
	}
	for _, s := range pv.Steps[:2] {
		if s.Node.AuthorType != "human" || len(s.Runs) != 1 || s.Runs[0].Author != "human" {
			t.Errorf("step %+v", s)
		}
	}

	// Edit history and diffs.
	vs, err := l.Loom.Versions(treeID, edit.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].ID != model.ID || vs[0].AuthorType != "model" || vs[1].ID != edit.ID ||
		vs[1].EditedFrom != model.ID || !vs[0].InChain || !vs[1].InChain || vs[1].Text != edited {
		t.Errorf("versions %+v", vs)
	}
	for _, g := range []string{"char", "word"} {
		ops, err := l.Loom.Diff(treeID, model.ID, edit.ID, g)
		if err != nil {
			t.Fatal(err)
		}
		var old, new strings.Builder
		for _, op := range ops {
			if op.Op != "insert" {
				old.WriteString(op.Text)
			}
			if op.Op != "delete" {
				new.WriteString(op.Text)
			}
		}
		if old.String() != model.Text || new.String() != edited || ops[len(ops)-1] != (DiffOp{"insert", " and the jar was never opened «"}) {
			t.Errorf("%s diff %q", g, ops)
		}
		// By character the model's text stays whole; by word a leading
		// space (buffer continuations start with one) is a word replaced.
		if g == "char" && (len(ops) != 3 || ops[1] != (DiffOp{"equal", model.Text})) {
			t.Errorf("char diff %q", ops)
		}
	}
	if _, err := l.Loom.Diff(treeID, model.ID, edit.ID, "line"); err == nil {
		t.Error("granularity line accepted")
	}

	// Generating from the edit continues it.
	res2, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: edit.ID}, N: 1})
	if err != nil || len(res2.Nodes) != 1 || res2.ParentID != edit.ID || res2.RequestID == "" {
		t.Fatalf("Generate after edit = %+v, %v", res2, err)
	}
	if mode == "dialogue" {
		msgs := fake.lastBody()["messages"].([]any)
		lastMsg := msgs[len(msgs)-1].(map[string]any)
		if lastMsg["role"] != "assistant" || lastMsg["content"] != edited {
			t.Errorf("last message %v: an edited model node is still the assistant's turn", lastMsg)
		}
	}
	if found, err := l.Loom.Verify(treeID); err != nil || len(found) != 0 {
		t.Errorf("Verify = %+v, %v", found, err)
	}
}

// Bookmarks, pruning, exclusion, the remembered active path.
func TestLoomNodeState(t *testing.T) {
	l := newTestLib(t)
	fake := startFakeModel(t, nil)
	useModel(t, l, fake.base)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", RootText: "Tell me about moss."})
	if err != nil {
		t.Fatal(err)
	}
	treeID, root := tv.Tree.ID, tv.Tree.RootNodeID
	res, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: root}})
	if err != nil || len(res.Nodes) != 3 {
		t.Fatalf("Generate with the settings' n: %+v, %v", res, err)
	}
	a, b := res.Nodes[0], res.Nodes[1]
	if n, err := l.Loom.SetBookmark(treeID, a.ID, true, " moss facts "); err != nil || !n.Bookmarked || n.BookmarkLabel != "moss facts" {
		t.Errorf("SetBookmark = %+v, %v", n, err)
	}
	if n, err := l.Loom.SetPruned(treeID, b.ID, true); err != nil || !n.Pruned || !n.Hidden {
		t.Errorf("SetPruned = %+v, %v", n, err)
	}
	reply, err := l.Loom.AddNode(treeID, a.ID, "Which kinds grow on stone?")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.Loom.SetExcluded(treeID, a.ID, true); err != nil || !n.Excluded {
		t.Errorf("SetExcluded = %+v, %v", n, err)
	}
	if _, err := l.Loom.SetBookmark(treeID, "no-such-node", true, ""); err == nil {
		t.Error("bookmarking an unknown node succeeded")
	}
	marks, err := l.Loom.Bookmarks(treeID)
	if err != nil || len(marks) != 1 || marks[0].ID != a.ID {
		t.Errorf("Bookmarks = %+v, %v", marks, err)
	}

	// The excluded node is left out of the context window.
	if _, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: reply.ID}, N: 1}); err != nil {
		t.Fatal(err)
	}
	msgs, _ := json.Marshal(fake.lastBody()["messages"])
	if want := `[{"content":"Tell me about moss.","role":"user"},{"content":"Which kinds grow on stone?","role":"user"}]`; string(msgs) != want {
		t.Errorf("messages %s, want %s", msgs, want)
	}

	// The active path is remembered, across app instances too.
	if err := l.Loom.SetActivePath(treeID, ActivePath{NodeID: reply.ID, Versions: map[string]string{"x": "y"}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Loom.SetActivePath(treeID, ActivePath{NodeID: "nowhere"}); err == nil {
		t.Error("an active path to an unknown node was remembered")
	}
	again := New(l.st, l.path)
	tv, err = again.Loom.Tree(treeID)
	if err != nil || !reflect.DeepEqual(tv.ActivePath, ActivePath{NodeID: reply.ID}) {
		t.Errorf("remembered path %+v, %v", tv.ActivePath, err)
	}
	pv, err := again.Loom.ActivePathView(treeID, ActivePath{}, "semantic")
	if err != nil || len(pv.Steps) != 3 || pv.Steps[2].Node.ID != reply.ID || pv.View != "semantic" {
		t.Errorf("view of the remembered path %+v, %v", pv, err)
	}
	if _, err := again.Loom.ActivePathView(treeID, ActivePath{}, "fancy"); err == nil {
		t.Error("authorship view fancy accepted")
	}
	// Kept with the tree in the library, not in a side file.
	if _, err := os.Stat(l.path + ".config/settings.json"); !os.IsNotExist(err) {
		t.Errorf("a settings side file: %v", err)
	}
	if stored, err := l.st.LoadLoomTree(context.Background(), treeID); err != nil || stored.ActivePath().NodeID != reply.ID {
		t.Errorf("the library's tree opens on %+v, %v; want %s", stored.ActivePath(), err, reply.ID)
	}

	// Archive hides the tree from the list.
	if list, _ := l.Loom.ListTrees(false); len(list) != 1 || list[0].Nodes != 6 || list[0].Mode != "dialogue" {
		t.Errorf("ListTrees = %+v", list)
	}
	if err := l.Loom.Archive(treeID, true); err != nil {
		t.Fatal(err)
	}
	if list, _ := l.Loom.ListTrees(false); len(list) != 0 {
		t.Errorf("archived tree listed: %+v", list)
	}
	if list, _ := l.Loom.ListTrees(true); len(list) != 1 || !list[0].Archived || list[0].ArchivedAt == "" {
		t.Errorf("ListTrees(true) = %+v", list)
	}
}

// A failing model, a cancelled generation and a missing model write no node
// and say what went wrong, never with the key.
func TestLoomGenerateFailures(t *testing.T) {
	l := newTestLib(t)
	events := captureEvents(l)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "buffer", RootText: "Once"})
	if err != nil {
		t.Fatal(err)
	}
	treeID, root := tv.Tree.ID, tv.Tree.RootNodeID
	gen := func(id string) error {
		_, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: root}, N: 3, RequestID: id})
		return err
	}

	if err := gen("none"); err == nil || !strings.Contains(err.Error(), "no model configured: open Settings") {
		t.Errorf("no model: %v", err)
	}

	// A server answering 500 and echoing the request's key.
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, `{"error": {"message": "the model fell over (key %s)", "type": "server_error"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer failing.Close()
	useModel(t, l, failing.URL+"/v1")
	err = gen("fail")
	if err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "the model fell over") ||
		!strings.Contains(err.Error(), "no node written") {
		t.Errorf("failing model: %v", err)
	}
	if err != nil {
		checkNoKey(t, "the error", err.Error())
	}
	errs := events.of("loom:error")
	if len(errs) != 2 || errs[1].(LoomGenerationError).RequestID != "fail" || errs[1].(LoomGenerationError).Cancelled ||
		errs[1].(LoomGenerationError).Error != err.Error() {
		t.Errorf("loom:error events %+v", errs)
	}

	// Cancelled mid-stream.
	fake := startFakeModel(t, func(s *llmtest.OpenAIServer) { s.ChunkDelay = 40 * time.Millisecond })
	useModel(t, l, fake.base)
	result := make(chan error, 1)
	go func() { result <- gen("cancel-me") }()
	events.wait(t, "loom:delta")
	if !l.Loom.CancelGeneration("cancel-me") {
		t.Error("CancelGeneration found no running generation")
	}
	select {
	case err := <-result:
		if err == nil || !strings.Contains(err.Error(), "cancelled") || !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled generation: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled generation did not end")
	}
	errs = events.of("loom:error")
	if last := errs[len(errs)-1].(LoomGenerationError); last.RequestID != "cancel-me" || !last.Cancelled {
		t.Errorf("last loom:error %+v", last)
	}
	if l.Loom.CancelGeneration("cancel-me") {
		t.Error("a finished generation was cancelled again")
	}
	if n := loomNodeCount(t, l); n != 1 {
		t.Errorf("%d loom nodes after failed generations, want the root alone", n)
	}
	if len(events.of("loom:done")) != 0 {
		t.Errorf("loom:done after failures: %+v", events.of("loom:done"))
	}
	if _, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: root}, N: 65}); err == nil {
		t.Error("n = 65 accepted")
	}
	if _, err := l.Loom.Generate(LoomGenerateRequest{TreeID: "no-such-tree", N: 1}); err == nil {
		t.Error("generating in an unknown tree succeeded")
	}
}

// Export then import is lossless; a second import of the same tree is
// refused; the export never holds the key.
func TestLoomExportImport(t *testing.T) {
	l := newTestLib(t)
	fake := startFakeModel(t, nil)
	useModel(t, l, fake.base)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "buffer", Title: "Jar of storms", RootText: "The keeper"})
	if err != nil {
		t.Fatal(err)
	}
	treeID := tv.Tree.ID
	res, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: tv.Tree.RootNodeID}, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Loom.Edit(treeID, res.Nodes[0].ID, res.Nodes[0].Text+" kept going."); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Loom.SetBookmark(treeID, res.Nodes[1].ID, true, "second"); err != nil {
		t.Fatal(err)
	}
	exported, err := l.Loom.Export(treeID)
	if err != nil {
		t.Fatal(err)
	}
	checkNoKey(t, "the export", exported)
	if !strings.Contains(exported, `"format": "rhizome.loom-tree"`) {
		t.Fatalf("export %.200s", exported)
	}

	if _, err := l.Loom.Import("jar.loom.json", base64.StdEncoding.EncodeToString([]byte(exported))); err == nil ||
		!strings.Contains(err.Error(), "already") {
		t.Errorf("importing a tree the library holds: %v", err)
	}

	other := newTestLib(t)
	imp, err := other.Loom.Import("jar.loom.json", base64.StdEncoding.EncodeToString([]byte(exported)))
	if err != nil {
		t.Fatal(err)
	}
	if imp.Format != "rhizome" || imp.Tree.ID != treeID || imp.Tree.Nodes != 4 || len(imp.Tampered) != 0 {
		t.Errorf("import %+v", imp)
	}
	again, err := other.Loom.Export(treeID)
	if err != nil {
		t.Fatal(err)
	}
	// Lossless but for the grove, which is the importing library's.
	var a, b loom.Export
	json.Unmarshal([]byte(exported), &a)
	json.Unmarshal([]byte(again), &b)
	if a.Tree.GroveID == b.Tree.GroveID {
		t.Error("the imported tree kept another library's grove")
	}
	b.Tree.GroveID = a.Tree.GroveID
	if !reflect.DeepEqual(a, b) {
		t.Errorf("export after import differs:\n%s\nwant\n%s", again, exported)
	}
	v1, _ := l.Loom.Tree(treeID)
	v2, _ := other.Loom.Tree(treeID)
	if !reflect.DeepEqual(v1.Nodes, v2.Nodes) {
		t.Errorf("nodes differ after import")
	}
	if found, err := other.Loom.Verify(treeID); err != nil || len(found) != 0 {
		t.Errorf("Verify after import = %+v, %v", found, err)
	}

	// Tampered with: imported all the same, the finding reported.
	forged := strings.Replace(exported, `"text": "The keeper"`, `"text": "The forger"`, 1)
	third := newTestLib(t)
	imp, err = third.Loom.Import("forged.json", base64.StdEncoding.EncodeToString([]byte(forged)))
	if err != nil || len(imp.Tampered) == 0 || imp.Tampered[0].NodeID != tv.Tree.RootNodeID || imp.Tampered[0].Reason != "content" {
		t.Errorf("forged import %+v, %v", imp.Tampered, err)
	}

	for _, bad := range []string{"not base64!", base64.StdEncoding.EncodeToString([]byte(`{"hello": "world"}`))} {
		if _, err := third.Loom.Import("bad.json", bad); err == nil {
			t.Errorf("import of %q succeeded", bad)
		}
	}
	if _, err := l.Loom.ExportToFile(treeID); !errors.Is(err, ErrNoDialogs) {
		t.Errorf("ExportToFile without dialogs: %v", err)
	}
}

// saveDialogs is a window's dialogs choosing path.
type saveDialogs struct {
	fakeDialogs
	path string
}

func (d saveDialogs) SaveFile(_ context.Context, _, name string) (string, error) {
	if d.path == "" {
		return "", nil
	}
	return d.path + "/" + name, nil
}

func TestLoomExportToFile(t *testing.T) {
	l := newTestLib(t)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", Title: "Moss / lichen: notes?", RootText: "Moss"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l.SetDialogs(saveDialogs{path: dir})
	path, err := l.Loom.ExportToFile(tv.Tree.ID)
	if err != nil || path != dir+"/Moss _ lichen_ notes.loom.json" {
		t.Fatalf("ExportToFile = %q, %v", path, err)
	}
	data, _ := os.ReadFile(path)
	want, _ := l.Loom.Export(tv.Tree.ID)
	if string(data) != want {
		t.Error("the file is not the export")
	}
	l.SetDialogs(saveDialogs{})
	if path, err := l.Loom.ExportToFile(tv.Tree.ID); path != "" || err != nil {
		t.Errorf("cancelled ExportToFile = %q, %v", path, err)
	}
}

// socketteer/loom's JSON imports as a buffer-mode tree, its selection the
// remembered active path.
func TestLoomImportSocketteer(t *testing.T) {
	l := newTestLib(t)
	data, err := os.ReadFile("../backend/loom/testdata/socketteer-lighthouse.json")
	if err != nil {
		t.Fatal(err)
	}
	imp, err := l.Loom.Import("socketteer-lighthouse.json", base64.StdEncoding.EncodeToString(data))
	if err != nil {
		t.Fatal(err)
	}
	if imp.Format != "socketteer" || imp.Tree.Title != "socketteer-lighthouse" || imp.Tree.Mode != "buffer" ||
		imp.Tree.Nodes != 9 || len(imp.Tampered) != 0 || imp.ActivePath.NodeID == "" {
		t.Fatalf("import %+v", imp)
	}
	tv, err := l.Loom.Tree(imp.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tv.ActivePath, imp.ActivePath) || len(tv.Nodes) != 9 {
		t.Errorf("tree %+v, active path %+v", tv.Tree, tv.ActivePath)
	}
	var bookmarked, models, versions int
	for _, n := range tv.Nodes {
		if n.Bookmarked {
			bookmarked++
		}
		if n.AuthorType == "model" {
			models++
		}
		if n.EditedFrom != "" {
			versions++
		}
	}
	if bookmarked == 0 || models == 0 || versions == 0 {
		t.Errorf("%d bookmarked, %d model, %d version nodes", bookmarked, models, versions)
	}
	pv, err := l.Loom.ActivePathView(imp.Tree.ID, ActivePath{}, "raw")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pv.Steps {
		checkRuns(t, s.Runs, s.Node.Text)
	}
	if found, err := l.Loom.Verify(imp.Tree.ID); err != nil || len(found) != 0 {
		t.Errorf("Verify = %+v, %v", found, err)
	}
}

// Files dropped on the window arrive as paths: each imports as Import does,
// and a bad one is named in the error while the good ones still import.
func TestLoomImportPaths(t *testing.T) {
	l := newTestLib(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(bad, []byte(`{"hello": "world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := "../backend/loom/testdata/socketteer-lighthouse.json"
	res, err := l.Loom.ImportPaths([]string{bad, good, filepath.Join(dir, "missing.json")})
	if len(res) != 1 || res[0].Format != "socketteer" || res[0].Tree.Nodes != 9 {
		t.Fatalf("results %+v, want the one good tree", res)
	}
	if err == nil || !strings.Contains(err.Error(), "notes.json") || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("error %v, want one naming notes.json and missing.json", err)
	}
	trees, _ := l.Loom.ListTrees(false)
	if len(trees) != 1 {
		t.Errorf("%d trees in the library, want 1", len(trees))
	}
}

// Importing a tree the library already holds is refused with
// store.ErrLoomTreeExists (`rhizome serve` answers 409: serve_loom_test.go);
// Loom.ImportCopy imports it again under new ids, the copy
// intact (Verify) and saying what it is a copy of.
func TestLoomImportCopy(t *testing.T) {
	l := newTestLib(t)
	fake := startFakeModel(t, nil)
	useModel(t, l, fake.base)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "buffer", Title: "Jar of storms", RootText: "The keeper"})
	if err != nil {
		t.Fatal(err)
	}
	treeID := tv.Tree.ID
	res, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: tv.Tree.RootNodeID}, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Loom.Edit(treeID, res.Nodes[0].ID, res.Nodes[0].Text+" kept going."); err != nil {
		t.Fatal(err)
	}
	exported, err := l.Loom.Export(treeID)
	if err != nil {
		t.Fatal(err)
	}
	content := base64.StdEncoding.EncodeToString([]byte(exported))

	if _, err := l.Loom.Import("jar.loom.json", content); !errors.Is(err, store.ErrLoomTreeExists) || !strings.Contains(err.Error(), "already in the library") {
		t.Errorf("importing a tree the library holds: %v, want store.ErrLoomTreeExists, saying it is already in the library", err)
	}
	// Times are stored to the millisecond: the copy, changed (imported) in
	// a later one than the original's last change, lists first.
	time.Sleep(2 * time.Millisecond)
	cp, err := l.Loom.ImportCopy("jar.loom.json", content)
	if err != nil {
		t.Fatalf("ImportCopy: %v", err)
	}
	if cp.Tree.ID == treeID || cp.Tree.CopiedFrom != treeID || cp.Tree.CopySource != "jar.loom.json" || cp.Format != "rhizome" ||
		cp.Tree.Nodes != 4 || cp.Tree.Positions != 3 || cp.Tree.Title != "Jar of storms (copy)" || len(cp.Tampered) != 0 {
		t.Errorf("copy %+v", cp)
	}
	orig, _ := l.Loom.Tree(treeID)
	if orig.Tree.Nodes != 4 || orig.Tree.Positions != 3 {
		t.Errorf("original: %d nodes, %d positions; want 4 (one a version), 3", orig.Tree.Nodes, orig.Tree.Positions)
	}
	copied, err := l.Loom.Tree(cp.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range copied.Nodes {
		o := orig.Nodes[i]
		if n.ID == o.ID || n.Text != o.Text || n.ContentHash != o.ContentHash || n.AuthorType != o.AuthorType || n.Position != o.Position {
			t.Errorf("node %d: copy %+v of %+v", i, n, o)
		}
	}
	if found, err := l.Loom.Verify(cp.Tree.ID); err != nil || len(found) != 0 {
		t.Errorf("Verify(copy) = %+v, %v", found, err)
	}
	// The authorship of the edit survived the new ids.
	edited := copied.Nodes[len(copied.Nodes)-1]
	runs, err := l.Loom.Authorship(cp.Tree.ID, edited.ID, "raw")
	if err != nil || len(runs) != 2 || runs[0].Author != "model" || runs[1].Author != "human" || runs[1].Text != " kept going." {
		t.Errorf("authorship of the copied edit %+v, %v", runs, err)
	}
	trees, _ := l.Loom.ListTrees(false)
	if len(trees) != 2 || trees[0].ID != cp.Tree.ID || trees[0].Positions != 3 {
		t.Errorf("trees %+v, want the copy first", trees)
	}
	// A socketteer/loom tree has no ids to clash: ImportCopy imports it as Import does.
	socket, err := os.ReadFile("../backend/loom/testdata/socketteer-lighthouse.json")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := l.Loom.ImportCopy("lighthouse.json", base64.StdEncoding.EncodeToString(socket)); err != nil || r.Format != "socketteer" {
		t.Errorf("ImportCopy of a socketteer tree: %+v, %v", r, err)
	}
	// Dropped on the window: by path.
	path := filepath.Join(t.TempDir(), "jar.loom.json")
	if err := os.WriteFile(path, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Loom.ImportPaths([]string{path}); !errors.Is(err, store.ErrLoomTreeExists) {
		t.Errorf("ImportPaths of a tree the library holds: %v", err)
	}
	if rs, err := l.Loom.ImportCopyPaths([]string{path}); err != nil || len(rs) != 1 || rs[0].Tree.CopiedFrom != treeID {
		t.Errorf("ImportCopyPaths: %+v, %v", rs, err)
	}
}

// A tree whose root has no words is named "Loom Tree N", N its number in
// the grove (the use case's rule, not the store's).
func TestLoomFallbackTitles(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", RootText: "Moss grows."}); err != nil {
		t.Fatal(err)
	}
	for i, root := range []string{"", "   "} {
		tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "buffer", RootText: root})
		if err != nil {
			t.Fatal(err)
		}
		if want := loom.FallbackTitle(i + 2); tv.Tree.Title != want {
			t.Errorf("title %q, want %q", tv.Tree.Title, want)
		}
		if list, _ := l.Loom.ListTrees(false); len(list) != i+2 {
			t.Errorf("%d trees, want %d", len(list), i+2)
		}
	}
}

// A Rhizome export whose nodes the library holds under another tree id is
// refused by key, naming the tree that holds them, nothing written; a copy
// imported into another library still says what it copies.
func TestLoomImportByKey(t *testing.T) {
	l := newTestLib(t)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", Title: "Moss", RootText: "Moss"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Loom.AddNode(tv.Tree.ID, tv.Tree.RootNodeID, "on stone"); err != nil {
		t.Fatal(err)
	}
	exported, err := l.Loom.Export(tv.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.ReplaceAll(exported, tv.Tree.ID, "01JZZZZZZZZZZZZZZZZZZZZZZZ")
	_, err = l.Loom.Import("renamed.json", base64.StdEncoding.EncodeToString([]byte(renamed)))
	var exists *store.LoomTreeExistsError
	if !errors.As(err, &exists) || exists.TreeID != "01JZZZZZZZZZZZZZZZZZZZZZZZ" || exists.InTree != tv.Tree.ID || exists.NodeID == "" {
		t.Fatalf("import of stored nodes under another tree id: %v", err)
	}
	if trees, _ := l.Loom.ListTrees(true); len(trees) != 1 {
		t.Errorf("%d trees after a refused import, want 1", len(trees))
	}
	cp, err := l.Loom.ImportCopy("moss.json", base64.StdEncoding.EncodeToString([]byte(exported)))
	if err != nil {
		t.Fatal(err)
	}
	again, err := l.Loom.Export(cp.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	other := newTestLib(t)
	back, err := other.Loom.Import("again.json", base64.StdEncoding.EncodeToString([]byte(again)))
	if err != nil || back.Tree.ID != cp.Tree.ID || back.Tree.CopiedFrom != tv.Tree.ID || back.Tree.CopySource != "moss.json" {
		t.Errorf("the copy imported elsewhere: %+v, %v", back, err)
	}
}

// The remembered active path is the tree's: exported with it, so the tree
// opens elsewhere where it was left, a copy's path names the copy's nodes,
// and an export of an older Rhizome (no active path) opens on its newest
// leaf.
func TestLoomActivePathTravels(t *testing.T) {
	l := newTestLib(t)
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", Title: "Moss", RootText: "Moss"})
	if err != nil {
		t.Fatal(err)
	}
	stone, err := l.Loom.AddNode(tv.Tree.ID, tv.Tree.RootNodeID, "on stone")
	if err != nil {
		t.Fatal(err)
	}
	bark, err := l.Loom.AddNode(tv.Tree.ID, tv.Tree.RootNodeID, "on bark")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Loom.SetActivePath(tv.Tree.ID, ActivePath{NodeID: stone.ID}); err != nil {
		t.Fatal(err)
	}
	exported, err := l.Loom.Export(tv.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	other := newTestLib(t)
	imp, err := other.Loom.Import("moss.json", base64.StdEncoding.EncodeToString([]byte(exported)))
	if err != nil || imp.ActivePath.NodeID != stone.ID {
		t.Errorf("imported elsewhere, opens on %+v, %v; want %s (on stone)", imp.ActivePath, err, stone.ID)
	}
	if v, _ := other.Loom.Tree(tv.Tree.ID); v.ActivePath.NodeID != stone.ID {
		t.Errorf("Tree after import opens on %+v", v.ActivePath)
	}
	cp, err := l.Loom.ImportCopy("moss.json", base64.StdEncoding.EncodeToString([]byte(exported)))
	if err != nil {
		t.Fatal(err)
	}
	copied, _ := l.Loom.Tree(cp.Tree.ID)
	var end string
	for _, n := range copied.Nodes {
		if n.ID == copied.ActivePath.NodeID {
			end = n.Text
		}
	}
	if cp.ActivePath.NodeID != copied.ActivePath.NodeID || end != "on stone" {
		t.Errorf("the copy opens on %+v (%q), want its own \"on stone\"", copied.ActivePath, end)
	}
	var x map[string]any
	json.Unmarshal([]byte(exported), &x)
	delete(x, "activePath")
	older, _ := json.Marshal(x)
	third := newTestLib(t)
	imp, err = third.Loom.Import("older.json", base64.StdEncoding.EncodeToString(older))
	if err != nil || imp.ActivePath.NodeID != bark.ID {
		t.Errorf("an export without an active path opens on %+v, %v; want the newest leaf %s", imp.ActivePath, err, bark.ID)
	}
}
