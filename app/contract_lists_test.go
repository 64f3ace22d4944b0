package app

import (
	"encoding/base64"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The lists of the contract: every list (and map) a use case returns, at any
// depth, reaches the frontend as [] (or {}) when empty, never as null and
// never left out. The Go side guarantees it where it builds a result (each
// result's lists made when it is built); these tests hold every bound use case
// to it, in the window and in `rhizome serve` alike (both send the result's
// JSON). See docs/CONTRACT.md, "Lists".

var errorType = reflect.TypeOf((*error)(nil)).Elem()

// boundMethods lists every use case the window binds, as "Area.Method", with
// its reflect.Method.
func boundMethods(a *App) map[string]reflect.Method {
	out := map[string]reflect.Method{}
	for _, area := range a.Areas() {
		t := reflect.TypeOf(area.Impl)
		for i := 0; i < t.NumMethod(); i++ {
			out[area.Name+"."+t.Method(i).Name] = t.Method(i)
		}
	}
	return out
}

// resultTypes are the types the bound use cases return, by the name of one
// use case returning each.
func resultTypes(a *App) map[reflect.Type]string {
	out := map[reflect.Type]string{}
	for name, m := range boundMethods(a) {
		for i := 0; i < m.Type.NumOut(); i++ {
			if o := m.Type.Out(i); o != errorType {
				if prev, ok := out[o]; !ok || name < prev {
					out[o] = name
				}
			}
		}
	}
	return out
}

// isList says whether a value of t is sent as a JSON list or object whose nil
// Go value would be sent as null: a slice (not []byte, sent as a string) or a
// map.
func isList(t reflect.Type) bool {
	return (t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8) || t.Kind() == reflect.Map
}

// jsonField is a struct field's JSON name and whether it has omitempty; ok
// false for a field encoding/json leaves out.
func jsonField(f reflect.StructField) (name string, omitempty, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, strings.Contains(","+opts+",", ",omitempty,"), true
}

// optionalLists are the list fields a result may leave out, each with why:
// their TypeScript type is optional (generated from omitempty).
var optionalLists = map[string]string{
	"app.KnowledgeFields.OptionsConsidered": "the fields of every kind, flat: a field of another kind is absent (and the type is an input too)",
	"app.KnowledgeFields.Tags":              "as OptionsConsidered: a lesson's field",
	"graph.Classification.Frameworks":       "pi-brain's node model as the library stores it (backend/graph), optional there",
	"graph.SemanticData.RelatedProjects":    "pi-brain's node model as stored, optional there",
	"graph.SemanticData.Concepts":           "pi-brain's node model as stored, optional there",
}

// A list with omitempty is left out when empty (the frontend sees
// undefined): no type a use case returns has one, at any depth, but those of
// optionalLists. A map with omitempty may be left out: its TypeScript type is
// optional, and nullLists holds the others to {}.
func TestContractListsNotOmitted(t *testing.T) {
	seen, optional := map[reflect.Type]bool{}, map[string]bool{}
	var bad []string
	var walk func(t reflect.Type, path string)
	walk = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || isList(t) {
			t = t.Elem()
			path += "[]"
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, omit, ok := jsonField(f)
			if !ok {
				continue
			}
			if f.Anonymous && f.Tag.Get("json") == "" {
				walk(f.Type, path)
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			field := fmt.Sprintf("%s.%s", t, f.Name)
			if _, ok := optionalLists[field]; ok {
				optional[field] = true
			} else if ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 && omit {
				bad = append(bad, fmt.Sprintf("%s.%s (%s.%s)", path, name, t, f.Name))
			}
			walk(f.Type, path+"."+name)
		}
	}
	l := newTestLib(t)
	for typ, method := range resultTypes(l.App) {
		walk(typ, method)
	}
	for field := range optionalLists {
		if !optional[field] {
			t.Errorf("optionalLists names %s, which no result holds: take it out", field)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: a list with omitempty is left out when empty; the contract sends []", b)
	}
}

// nullLists adds to out the paths of the nil slices and maps in v, at any
// depth, that would reach the frontend as null (a nil map with omitempty is
// left out: its TypeScript type is optional). An element of a list is
// named [].
func nullLists(v reflect.Value, path string, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			nullLists(v.Elem(), path, out)
		}
	case reflect.Slice, reflect.Map:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		if v.IsNil() {
			out[path] = true
			return
		}
		if v.Kind() == reflect.Map {
			for it := v.MapRange(); it.Next(); {
				nullLists(it.Value(), path+"{}", out)
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			nullLists(v.Index(i), path+"[]", out)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name, omit, ok := jsonField(t.Field(i))
			if !ok || omit && v.Field(i).IsZero() {
				continue
			}
			nullLists(v.Field(i), path+"."+name, out)
		}
	}
}

// checkNoNullLists fails for each list in v, named from name, that would
// reach the frontend as null (the paths once each, an element of a list as
// []).
func checkNoNullLists(t *testing.T, name string, v any) {
	t.Helper()
	nulls := map[string]bool{}
	nullLists(reflect.ValueOf(v), name, nulls)
	for _, n := range slices.Sorted(maps.Keys(nulls)) {
		t.Errorf("%s is nil: the frontend would get null, not []", n)
	}
}

// holdsList says whether a value of t may hold a list at any depth (through
// structs, pointers and interfaces: an `any` may hold one).
func holdsList(t reflect.Type, seen map[reflect.Type]bool) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case isList(t), t.Kind() == reflect.Interface:
		return true
	case t.Kind() != reflect.Struct || seen[t]:
		return false
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		if _, _, ok := jsonField(t.Field(i)); ok && holdsList(t.Field(i).Type, seen) {
			return true
		}
	}
	return false
}

// Every use case whose result may hold a list is called on a library made
// from the real samples, a MemoBrain graph, a loom tree and knowledge items,
// with the lists it returns as empty as they come (a first call of each, on
// items with no notes, links or versions yet), and so is every event sent
// meanwhile; no list in any of them is nil. A use case added later whose
// result may hold a list fails here until it is called below.
func TestContractResultListsNeverNull(t *testing.T) {
	l := newTestLib(t)
	var mu sync.Mutex
	type event struct {
		name string
		data any
	}
	var events []event
	l.SetEmitter(func(name string, data any) {
		mu.Lock()
		events = append(events, event{name, data})
		mu.Unlock()
	})
	fake := startFakeModel(t, nil)

	// Nothing in the library yet: the lists are empty.
	empty := map[string]func() (any, error){
		"Library.Projects":        func() (any, error) { return l.Library.Projects() },
		"Library.Sessions":        func() (any, error) { return l.Library.Sessions("") },
		"Library.Stats":           func() (any, error) { return l.Library.Stats() },
		"Graph.Graph":             func() (any, error) { return l.Graph.Graph(GraphFilter{}) },
		"Search.Query":            func() (any, error) { return l.Search.Query("nothing", 10) },
		"Search.Hybrid":           func() (any, error) { return l.Search.Hybrid(HybridQuery{Query: "nothing"}) },
		"Search.Items":            func() (any, error) { return l.Search.Items("nothing", nil, 5) },
		"Knowledge.List":          func() (any, error) { return l.Knowledge.List(KnowledgeFilter{}) },
		"Knowledge.Projects":      func() (any, error) { return l.Knowledge.Projects() },
		"Knowledge.Decisions":     func() (any, error) { return l.Knowledge.Decisions("") },
		"Knowledge.Rules":         func() (any, error) { return l.Knowledge.Rules("") },
		"Knowledge.OpenQuestions": func() (any, error) { return l.Knowledge.OpenQuestions("") },
		"Loom.ListTrees":          func() (any, error) { return l.Loom.ListTrees(true) },
		"Reasoning.List":          func() (any, error) { return l.Reasoning.List() },
		"Memory.Runs":             func() (any, error) { return l.Memory.Runs(0) },
		"Memory.Due":              func() (any, error) { return l.Memory.Due() },
		"Patterns.Dashboard":      func() (any, error) { return l.Patterns.Dashboard() },
		"Graph.DeriveRelations":   func() (any, error) { return l.Graph.DeriveRelations("") },
		"Import.ImportFiles":      func() (any, error) { return l.Import.ImportFiles(nil) },
		"Import.ImportPaths":      func() (any, error) { return l.Import.ImportPaths(nil) },
		"Watch.Folders":           func() (any, error) { return l.Watch.Folders() },
		"Watch.Status":            func() (any, error) { return l.Watch.Status() },
		"Links.Relations":         func() (any, error) { return l.Links.Relations() },
	}
	called := map[string]bool{}
	check := func(name string, v any, err error) {
		t.Helper()
		called[name] = true
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		checkNoNullLists(t, name, v)
	}
	for _, name := range slices.Sorted(maps.Keys(empty)) {
		v, err := empty[name]()
		check(name, v, err)
	}

	// The real sessions, a MemoBrain snapshot and its conversation.
	rep, err := l.Import.ImportSamples()
	check("Import.ImportSamples", rep, err)
	dir := copyTo(t, map[string][]byte{
		"snapshot.json": memoFile(t, "example_snapshot.json"),
		"bare.json":     memoFile(t, "example_snapshot_bare.json"),
	})
	rep, err = l.Import.ImportPaths([]string{filepath.Join(dir, "snapshot.json"), filepath.Join(dir, "bare.json")})
	check("Import.ImportPaths", rep, err)
	graphID := importedGraph(t, rep, "snapshot.json").Reasoning.GraphID
	bareID := importedGraph(t, rep, "bare.json").Reasoning.GraphID
	rep, err = l.Import.ImportFiles([]DroppedFile{{Name: "again.json", Content: base64.StdEncoding.EncodeToString(memoFile(t, "example_snapshot.json"))}})
	check("Import.ImportFiles", rep, err)

	sessionID := sessionIDOf(t, filepath.Join("samples", "session-with-compaction.jsonl"))
	nodeID := sessionNodes(t, l, sessionID)[0]
	var userEntry string
	for _, e := range allEntries(t, l, nodeID) {
		if e.Role == "user" {
			userEntry = e.ID
			break
		}
	}
	nodes := sessionNodes(t, l, sessionIDOf(t, filepath.Join("samples", "large-session.jsonl")))

	// A loom tree with a continuation, an edit and a generation.
	view, err := l.Loom.CreateTree(LoomTreeSpec{Title: "t", Mode: "buffer", RootText: "Once"})
	check("Loom.CreateTree", view, err)
	treeID, root := view.Tree.ID, view.Tree.RootNodeID
	added, err := l.Loom.AddNode(treeID, root, " upon")
	check("Loom.AddNode", added, err)
	edited, err := l.Loom.Edit(treeID, added.ID, " upon a time")
	check("Loom.Edit", edited, err)
	useModel(t, l, fake.base)
	gen, err := l.Loom.Generate(LoomGenerateRequest{TreeID: treeID, ActivePath: ActivePath{NodeID: edited.ID}, N: 1})
	check("Loom.Generate", gen, err)
	exported, err := l.Loom.Export(treeID)
	if err != nil {
		t.Fatal(err)
	}
	treeFile := filepath.Join(dir, "tree.json")
	if err := os.WriteFile(treeFile, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	other := newTestLib(t)
	b64 := base64.StdEncoding.EncodeToString([]byte(exported))

	// Knowledge: a decision superseded by another, a question.
	k1, err := l.Knowledge.Record(KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: "SQLite"}})
	check("Knowledge.Record", k1, err)
	k2, err := l.Knowledge.Record(KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: "SQLite, WAL"}})
	check("Knowledge.Record", k2, err)
	if _, err := l.Knowledge.Record(KnowledgeInput{Kind: "question", Project: "/p", Fields: KnowledgeFields{Question: "Why?"}}); err != nil {
		t.Fatal(err)
	}

	calls := map[string]func() (any, error){
		"Library.Projects":       func() (any, error) { return l.Library.Projects() },
		"Library.Sessions":       func() (any, error) { return l.Library.Sessions("") },
		"Library.Stats":          func() (any, error) { return l.Library.Stats() },
		"Library.Timeline":       func() (any, error) { return l.Library.Timeline(sessionID) },
		"Library.SegmentEntries": func() (any, error) { return l.Library.SegmentEntries(nodeID, 0, 0) },
		"Graph.Graph":            func() (any, error) { return l.Graph.Graph(GraphFilter{}) },
		"Graph.Node":             func() (any, error) { return l.Graph.Node(nodeID) },
		"Graph.NodeVersions":     func() (any, error) { return l.Graph.NodeVersions(nodeID) },
		"Graph.NodeDiff":         func() (any, error) { return l.Graph.NodeDiff(nodeID, 1, 1) },
		"Graph.DeriveRelations":  func() (any, error) { return l.Graph.DeriveRelations("") },
		"Search.Query":           func() (any, error) { return l.Search.Query("session", 20) },
		"Search.Hybrid":          func() (any, error) { return l.Search.Hybrid(HybridQuery{Query: "session", Bridges: true}) },
		"Search.Connect":         func() (any, error) { return l.Search.Connect(nodes[0], nodes[len(nodes)-1], nil) },
		"Search.Items":           func() (any, error) { return l.Search.Items("session", nil, 5) },
		"Knowledge.List":         func() (any, error) { return l.Knowledge.List(KnowledgeFilter{}) },
		"Knowledge.Get":          func() (any, error) { return l.Knowledge.Get(k1.ID) },
		"Knowledge.Edit": func() (any, error) {
			return l.Knowledge.Edit(k1.ID, k1.Version, KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: "SQLite!"}})
		},
		"Knowledge.SetStatus":     func() (any, error) { return l.Knowledge.SetStatus(k2.ID, "stale") },
		"Knowledge.Supersede":     func() (any, error) { return l.Knowledge.Supersede(k2.ID, k1.ID, "WAL") },
		"Knowledge.Decisions":     func() (any, error) { return l.Knowledge.Decisions("") },
		"Knowledge.Rules":         func() (any, error) { return l.Knowledge.Rules("/p") },
		"Knowledge.OpenQuestions": func() (any, error) { return l.Knowledge.OpenQuestions("") },
		"Knowledge.Projects":      func() (any, error) { return l.Knowledge.Projects() },
		"Loom.ListTrees":          func() (any, error) { return l.Loom.ListTrees(true) },
		"Loom.Tree":               func() (any, error) { return l.Loom.Tree(treeID) },
		"Loom.ActivePathView":     func() (any, error) { return l.Loom.ActivePathView(treeID, ActivePath{}, "") },
		"Loom.Authorship":         func() (any, error) { return l.Loom.Authorship(treeID, edited.ID, "raw") },
		"Loom.Bookmarks":          func() (any, error) { return l.Loom.Bookmarks(treeID) },
		"Loom.Diff":               func() (any, error) { return l.Loom.Diff(treeID, added.ID, edited.ID, "word") },
		"Loom.Versions":           func() (any, error) { return l.Loom.Versions(treeID, edited.ID) },
		"Loom.Verify":             func() (any, error) { return l.Loom.Verify(treeID) },
		"Loom.SetBookmark":        func() (any, error) { return l.Loom.SetBookmark(treeID, root, true, "") },
		"Loom.SetPruned":          func() (any, error) { return l.Loom.SetPruned(treeID, added.ID, true) },
		"Loom.SetExcluded":        func() (any, error) { return l.Loom.SetExcluded(treeID, root, true) },
		"Loom.StartFrom":          func() (any, error) { return l.Loom.StartFrom("rhizome:entry/"+sessionID+"/"+userEntry, "") },
		"Loom.ImportCopy":         func() (any, error) { return l.Loom.ImportCopy("tree.json", b64) },
		"Loom.ImportCopyPaths":    func() (any, error) { return l.Loom.ImportCopyPaths([]string{treeFile}) },
		"Loom.Import":             func() (any, error) { return other.Loom.Import("tree.json", b64) },
		"Loom.ImportPaths":        func() (any, error) { return newTestLib(t).Loom.ImportPaths([]string{treeFile}) },
		"Reasoning.List":          func() (any, error) { return l.Reasoning.List() },
		"Reasoning.Open":          func() (any, error) { return l.Reasoning.Open(graphID) },
		"Reasoning.At":            func() (any, error) { return l.Reasoning.At(graphID, 0) },
		"Reasoning.Turns":         func() (any, error) { return l.Reasoning.Turns(graphID, 4) },
		"Reasoning.ApplyPatch": func() (any, error) {
			return l.Reasoning.ApplyPatch(bareID, `{"add_nodes": [{"tmp_id": "t", "kind": "evidence", "thought": []}], "add_edges": [{"src": 2, "dst": "t"}]}`)
		},
		"Reasoning.StepDiff": func() (any, error) { return l.Reasoning.StepDiff(bareID, 0) },
		"Reasoning.ApplyFlushAndFold": func() (any, error) {
			return l.Reasoning.ApplyFlushAndFold(bareID, `{"flush_ops": [], "fold_ops": [{"ids": [3, 7, 8], "rationale": "settled", "notes": []}]}`)
		},
		"Reasoning.AttachConversation": func() (any, error) {
			return l.Reasoning.AttachConversation(bareID, string(memoFile(t, "example_messages.json")))
		},
		"Memory.Consolidate": func() (any, error) { return l.Memory.Consolidate(ConsolidateRequest{DryRun: true}) },
		"Memory.Runs":        func() (any, error) { return l.Memory.Runs(0) },
		"Memory.Due":         func() (any, error) { return l.Memory.Due() },
		"Patterns.Dashboard": func() (any, error) { return l.Patterns.Dashboard() },
		"Links.Relations":    func() (any, error) { return l.Links.Relations() },
		"Links.Of":           func() (any, error) { return l.Links.Of(nodeURI(nodeID)) },
		"Notes.Get":          func() (any, error) { return l.Notes.Get(nodeURI(nodeID)) },
		"Notes.Put":          func() (any, error) { return l.Notes.Put(nodeURI(nodeID), "a note") },
		"Marks.Set":          func() (any, error) { return l.Marks.Set(nodeURI(nodeID), "starred", false) },
		"Summaries.Get":      func() (any, error) { return l.Summaries.Get("rhizome:session/" + sessionID) },
		"Summaries.Edit":     func() (any, error) { return l.Summaries.Edit("rhizome:session/"+sessionID, "A title", "") },
		"Summaries.Revert":   func() (any, error) { return l.Summaries.Revert("rhizome:session/" + sessionID) },
		"Watch.Folders":      func() (any, error) { return l.Watch.Folders() },
		"Watch.Status":       func() (any, error) { return l.Watch.Status() },
		"Watch.AddFolder":    func() (any, error) { return l.Watch.AddFolder(t.TempDir()) },
		"Watch.SetFolderEnabled": func() (any, error) {
			fs, err := l.Watch.Folders()
			if err != nil || len(fs) == 0 {
				return fs, err
			}
			return l.Watch.SetFolderEnabled(fs[0].Path, false)
		},
		"Watch.RemoveFolder": func() (any, error) {
			fs, err := l.Watch.Folders()
			if err != nil || len(fs) == 0 {
				return fs, err
			}
			return l.Watch.RemoveFolder(fs[len(fs)-1].Path)
		},
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		v, err := calls[name]()
		check(name, v, err)
	}
	runs, err := l.Memory.Consolidate(ConsolidateRequest{})
	check("Memory.Consolidate", runs, err)
	undo, err := l.Memory.Undo(runs.ID)
	check("Memory.Undo", undo, err)

	// Events carry result types too (loom:done, import:done, watch:changed...).
	if err := l.WaitBackground(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, e := range events {
		checkNoNullLists(t, "event "+e.name, e.data)
	}
	mu.Unlock()

	// Which use cases may return a list and were not called: each must be
	// called above, or be one of these (a native dialog, or a model's whole
	// run: their results are built by the code the calls above run).
	notCalled := map[string]string{
		"Import.ChooseAndImport": "a native dialog; its report is ImportPaths'",
		"Watch.ChooseFolder":     "a native dialog; its list is AddFolder's",
		"Reasoning.RunOnSession": "MemoBrain's loop with a scripted model: TestRunOnSession checks its result",
	}
	for name, m := range boundMethods(l.App) {
		for i := 0; i < m.Type.NumOut(); i++ {
			o := m.Type.Out(i)
			if o == errorType || !holdsList(o, map[reflect.Type]bool{}) || called[name] {
				continue
			}
			if _, ok := notCalled[name]; !ok {
				t.Errorf("%s returns %s, which may hold a list: call it in TestContractResultListsNeverNull", name, o)
			}
		}
	}
}
