package app

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/knowledge"
	"rhizome/store"
)

// goldenKnowledge reads backend/knowledge's golden file of a session: the
// items its offline rules find there, each read against the session (see
// backend/knowledge/testdata/golden/README.md for the verdicts).
func goldenKnowledge(t *testing.T, name string) []knowledge.Item {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "backend", "knowledge", "testdata", "golden", strings.TrimSuffix(name, ".jsonl")+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var items []knowledge.Item
	if err := json.Unmarshal(b, &items); err != nil {
		t.Fatal(err)
	}
	return items
}

// TestImportExtractsKnowledge imports the real sessions and the version 3
// fixtures and finds in the library exactly the items of the offline rules'
// golden files (84 items, reviewed one by one in their README), stored as
// version 1, made offline; a second import changes nothing, and Reextract
// finds the same items again.
func TestImportExtractsKnowledge(t *testing.T) {
	l := newTestLib(t)
	var files []string
	for name := range sampleEntries {
		files = append(files, filepath.Join("samples", name))
	}
	v3, _ := filepath.Glob(filepath.Join(v3Dir, "*.jsonl"))
	files = append(files, v3...)
	sort.Strings(files)
	l.importPaths(t, files...)

	want := map[string]knowledge.Item{}
	for _, f := range files {
		for _, it := range goldenKnowledge(t, filepath.Base(f)) {
			want[it.ID] = it
		}
	}
	if len(want) != 84 {
		t.Fatalf("%d golden items, the golden files hold 84", len(want))
	}
	check := func(when string) {
		t.Helper()
		got, err := l.Knowledge.List(KnowledgeFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d items in the library, want the %d of the golden files", when, len(got), len(want))
		}
		for _, g := range got {
			w, ok := want[g.ID]
			if !ok {
				t.Errorf("%s: item %s %q is in no golden file", when, g.ID, g.Title)
				continue
			}
			stored, err := l.st.Knowledge(l.c.context(), g.ID)
			if err != nil {
				t.Fatal(err)
			}
			stored.CreatedAt, w.CreatedAt = time.Time{}, time.Time{}
			if !reflect.DeepEqual(stored, w) {
				t.Errorf("%s: item %s\nstored %+v\ngolden %+v", when, g.ID, stored, w)
			}
			if g.CreatedBy != "offline" || g.Version != 1 || g.URI != "rhizome:knowledge/"+g.ID || g.Status != "active" {
				t.Errorf("%s: item %+v", when, g)
			}
		}
	}
	check("after the import")
	l.importPaths(t, files...)
	check("after a second import")
	rep, err := l.Knowledge.Reextract()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != len(files) || rep.Before != len(want) || rep.After != len(want) {
		t.Errorf("re-extraction %+v, want %d sessions, %d items before and after", rep, len(files), len(want))
	}
	check("after Reextract")

	// The samples' project rules, as `rhizome rules` prints them: the golden
	// file is what a person would paste into AGENTS.md (every line a true
	// rule of the sessions; see backend/knowledge/testdata/golden/README.md).
	rules, err := l.Knowledge.Rules("/Users/badlogic/workspaces/pi-mono")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "knowledge", "rules-pi-mono.md")
	if os.Getenv("RHIZOME_UPDATE_GOLDEN") == "1" {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		os.WriteFile(golden, []byte(rules.Markdown), 0o644)
	}
	want2, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (RHIZOME_UPDATE_GOLDEN=1 writes it)", err)
	}
	if rules.Markdown != string(want2) {
		t.Errorf("rules of the samples:\n%s\nwant (%s):\n%s", rules.Markdown, golden, want2)
	}
}

// TestKnowledgeByHand records a decision, edits it, supersedes it by a newer
// one (and refuses the cycle back), and reads the chain, the rules and the
// open questions; an extracted fact edited by hand survives a re-import.
func TestKnowledgeByHand(t *testing.T) {
	l := newTestLib(t)
	k := l.Knowledge
	const proj = "/home/me/acme"
	a, err := k.Record(KnowledgeInput{Kind: "decision", Project: proj, Fields: KnowledgeFields{
		Description: "Store sessions in Redis", Rationale: "fast", OptionsConsidered: []string{"Postgres", " "}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.CreatedBy != "user" || a.Confidence != 1 || a.Fields.DecisionStatus != "developmental" || !reflect.DeepEqual(a.Fields.OptionsConsidered, []string{"Postgres"}) {
		t.Fatalf("recorded %+v", a)
	}
	if _, err := k.Record(KnowledgeInput{Kind: "decision", Project: proj}); err == nil || !strings.Contains(err.Error(), "decision.description") {
		t.Fatalf("an empty decision: %v, want an error naming decision.description", err)
	}
	if _, err := k.Record(KnowledgeInput{Kind: "rumour", Fields: KnowledgeFields{Description: "x"}}); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Fatalf("an unknown kind: %v", err)
	}
	a2, err := k.Edit(a.ID, 1, KnowledgeInput{Kind: "decision", Project: proj, Fields: KnowledgeFields{Description: "Store sessions in Redis", Rationale: "fast, and we run it already"}})
	if err != nil || a2.Version != 2 {
		t.Fatalf("edit: %+v, %v", a2, err)
	}
	if _, err := k.Edit(a.ID, 1, KnowledgeInput{Kind: "decision", Project: proj, Fields: KnowledgeFields{Description: "x"}}); !errors.Is(err, store.ErrKnowledgeConflict) {
		t.Fatalf("a stale edit: %v, want ErrKnowledgeConflict", err)
	}
	b, err := k.Record(KnowledgeInput{Kind: "decision", Project: proj, Fields: KnowledgeFields{Description: "Store sessions in Postgres"},
		Supersedes: a.ID, Reason: "Redis lost data on restart"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := k.Record(KnowledgeInput{Kind: "decision", Project: proj, Fields: KnowledgeFields{Description: "Store sessions in SQLite"}})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := k.Supersede(c.ID, b.ID, "one file")
	if err != nil {
		t.Fatal(err)
	}
	if ids := chainIDs(chain); !reflect.DeepEqual(ids, []string{c.ID, b.ID, a.ID}) {
		t.Fatalf("chain %v, want %v", ids, []string{c.ID, b.ID, a.ID})
	}
	if _, err := k.Supersede(a.ID, c.ID, ""); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("a cycle: %v", err)
	}
	// A refused supersession records nothing: the new item is not left behind.
	before, _ := k.List(KnowledgeFilter{})
	if _, err := k.Record(KnowledgeInput{Kind: "decision", Project: proj, Fields: KnowledgeFields{Description: "Store sessions in files"},
		Supersedes: "01ARZ3NDEKTSV4RRFFQ69G5FAV"}); err == nil || !strings.Contains(err.Error(), "no item") {
		t.Fatalf("superseding an unknown item: %v", err)
	}
	if after, _ := k.List(KnowledgeFilter{}); len(after) != len(before) {
		t.Fatalf("%d items after a refused record, %d before", len(after), len(before))
	}
	fact, _ := k.Record(KnowledgeInput{Kind: "projectFact", Project: proj, Fields: KnowledgeFields{Fact: "Run go vet before committing", Category: "workflow"}})
	if _, err := k.Supersede(c.ID, fact.ID, ""); err == nil || !strings.Contains(err.Error(), "cannot supersede") {
		t.Fatalf("a decision superseding a fact: %v", err)
	}
	ds, err := k.Decisions(proj)
	if err != nil || len(ds) != 1 || !reflect.DeepEqual(chainIDs(ds[0]), []string{c.ID, b.ID, a.ID}) {
		t.Fatalf("decisions %+v, %v", ds, err)
	}
	if ds[0].Items[2].ReplacedBecause != "Redis lost data on restart" || ds[0].Items[1].ReplacedBecause != "one file" || ds[0].Items[0].ReplacedBecause != "" {
		t.Fatalf("reasons %q %q %q", ds[0].Items[0].ReplacedBecause, ds[0].Items[1].ReplacedBecause, ds[0].Items[2].ReplacedBecause)
	}
	if ds[0].Items[2].Status != "superseded" || ds[0].Items[0].Status != "active" || ds[0].Items[2].Version != 3 {
		t.Fatalf("statuses %+v", ds[0].Items)
	}
	d, err := k.Get(a.ID)
	if err != nil || len(d.Versions) != 3 || len(d.Chain) != 3 {
		t.Fatalf("get: %d versions, chain %d, %v", len(d.Versions), len(d.Chain), err)
	}

	q, _ := k.Record(KnowledgeInput{Kind: "question", Project: proj, Fields: KnowledgeFields{Question: "Do we need sessions at all?"}})
	k.Record(KnowledgeInput{Kind: "question", Project: proj, Fields: KnowledgeFields{Question: "Which port?", Answer: "8080"}})
	k.Record(KnowledgeInput{Kind: "projectFact", Fields: KnowledgeFields{Fact: "Never commit secrets", Category: "constraint"}})
	old, _ := k.Record(KnowledgeInput{Kind: "projectFact", Project: proj, Fields: KnowledgeFields{Fact: "Use tabs", Category: "convention"}})
	k.Record(KnowledgeInput{Kind: "projectFact", Project: proj, Fields: KnowledgeFields{Fact: "Use gofmt's layout", Category: "convention"}, Supersedes: old.ID})
	rules, err := k.Rules(proj)
	if err != nil {
		t.Fatal(err)
	}
	wantMD := knowledge.RulesHeading + "\n\n### Conventions\n- Use gofmt's layout\n\n### Constraints\n- Never commit secrets\n\n### Workflows\n- Run go vet before committing\n"
	if rules.Markdown != wantMD {
		t.Fatalf("rules:\n%s\nwant:\n%s", rules.Markdown, wantMD)
	}
	if strings.Contains(rules.Markdown, "sessions at all") {
		t.Fatal("an open question is in the rules")
	}
	open, err := k.OpenQuestions(proj)
	if err != nil || len(open) != 1 || open[0].ID != q.ID || !open[0].Open {
		t.Fatalf("open questions %+v, %v", open, err)
	}
	if _, err := k.SetStatus(q.ID, "superseded"); err == nil {
		t.Fatal("superseded set by hand")
	}
	if _, err := k.SetStatus(q.ID, "stale"); err != nil {
		t.Fatal(err)
	}
	if open, _ := k.OpenQuestions(proj); len(open) != 0 {
		t.Fatalf("a stale question is still open: %+v", open)
	}
	list, _ := k.List(KnowledgeFilter{Kinds: []string{"projectFact"}, Project: proj})
	if len(list) != 3 {
		t.Fatalf("facts of %s: %d, want 3 (the cross-project one left out)", proj, len(list))
	}
	if _, err := k.List(KnowledgeFilter{Kinds: []string{"fact"}}); err == nil {
		t.Fatal("an unknown kind in a filter was accepted")
	}
}

// TestEditedExtractedItemSurvivesReimport: a fact the offline rules found and
// a person then edited keeps the edit when the session is imported again
// after it changed.
func TestEditedExtractedItemSurvivesReimport(t *testing.T) {
	l := newTestLib(t)
	src := filepath.Join("samples", "large-session.jsonl")
	live := filepath.Join(t.TempDir(), "large-session.jsonl")
	full, _ := os.ReadFile(src)
	os.WriteFile(live, full, 0o644)
	l.importPaths(t, live)
	facts, _ := l.Knowledge.List(KnowledgeFilter{Kinds: []string{"projectFact"}, Query: "rgb values"})
	if len(facts) != 1 {
		t.Fatalf("%d facts about rgb values, want 1", len(facts))
	}
	f := facts[0]
	ed, err := l.Knowledge.Edit(f.ID, 1, KnowledgeInput{Kind: "projectFact", Project: f.Project,
		Fields: KnowledgeFields{Fact: "Themes use rgb values, never 256-colour indices", Category: "convention"}})
	if err != nil {
		t.Fatal(err)
	}
	// The file is rewritten (a byte changed in its last line): a replace.
	os.WriteFile(live, append(full[:len(full)-2:len(full)-2], ' ', '\n'), 0o644)
	if st := l.importPaths(t, live).Files[0].Status; st == ingest.StatusUnchanged {
		t.Fatalf("status %s after a rewrite", st)
	}
	got, err := l.Knowledge.Get(f.ID)
	if err != nil || got.Item.Version != ed.Version || got.Item.Fields.Fact != ed.Fields.Fact {
		t.Fatalf("after re-import %+v, %v", got.Item, err)
	}
	if n, _ := l.Knowledge.List(KnowledgeFilter{Limit: 1000}); len(n) != len(goldenKnowledge(t, "large-session.jsonl")) {
		t.Fatalf("%d items after re-import, want the session's %d (its golden file)", len(n), len(goldenKnowledge(t, "large-session.jsonl")))
	}
}

func chainIDs(c KnowledgeChain) []string {
	var ids []string
	for _, it := range c.Items {
		ids = append(ids, it.ID)
	}
	return ids
}

// TestSupersededTwice: two newer decisions may each supersede one older
// decision (the chain forks); the older gets one superseded version, and
// both chains list it.
func TestSupersededTwice(t *testing.T) {
	k := newTestLib(t).Knowledge
	old, _ := k.Record(KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: "Poll the folder"}})
	a, _ := k.Record(KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: "Watch the folder with fsnotify"}, Supersedes: old.ID})
	b, err := k.Record(KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: "Watch the folder, poll on network drives"}, Supersedes: old.ID})
	if err != nil {
		t.Fatal(err)
	}
	d, err := k.Get(old.ID)
	if err != nil || len(d.Versions) != 2 || d.Item.Status != "superseded" || len(d.Item.SupersededBy) != 2 {
		t.Fatalf("superseded twice: %d versions, %+v, %v", len(d.Versions), d.Item, err)
	}
	ds, _ := k.Decisions("/p")
	if len(ds) != 2 || ds[0].Head != b.ID || ds[1].Head != a.ID || len(ds[0].Items) != 2 || len(ds[1].Items) != 2 {
		t.Fatalf("decisions %+v", ds)
	}
}
