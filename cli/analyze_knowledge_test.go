package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"rhizome/app"
	"rhizome/backend/export"
	"rhizome/backend/llm/llmtest"
	"rhizome/backend/pisession/pitest"
	"rhizome/store"
)

// The first segment of large-session.jsonl (entries 0 to 690): the port of
// the TUI from chalk to the theme, its first attempt undone by the user.
const (
	themeSession = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"
	themeNode    = "ecc27fa508a884e2"
)

// The entries of large-session.jsonl the canned answer cites, by [#n].
var themeEntries = map[int]string{13: "f0d7b33d", 15: "378126ef", 16: "5bbf9fb8", 19: "c94910ed", 35: "77bedf07", 47: "fd5c7da4", 51: "471fbaa1"}

type knowledgeCounts struct {
	Added, Updated, Retired, Unchanged int
}

// The model analyzer's findings become knowledge items (issue 23), end to
// end through the command line against llmtest's OpenAI server on a real
// session: `rhizome analyze` makes a knowledge item of every decision,
// correction, failed approach and lesson of the model's answer (made by the
// model, its name, its confidence, the segment node and the entries cited);
// the same answer again changes none; an answer with a lesson reworded and
// another left out makes a new version of the first (no duplicate) and
// marks the second stale; `rhizome export --format json` holds them with
// their DERIVED_FROM edges; `rhizome search` finds one by its words; and
// `rhizome mcp`'s search and get tools return them to the SDK's client.
func TestAnalyzeMakesKnowledge(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "library.db")
	if _, code := importJSON(t, db, pitest.Samples()...); code != 0 {
		t.Fatalf("import: exit status %d", code)
	}
	srv := llmtest.NewOpenAIServer(5)
	base, stop, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	canned, err := os.ReadFile(filepath.Join("..", "backend", "analyze", "testdata", "model", "theme-segment.json"))
	if err != nil {
		t.Fatal(err)
	}
	analyse := func(answer string) knowledgeCounts {
		t.Helper()
		srv.Script(llmtest.Reply{Text: answer})
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"analyze", "--db", db, "--json", "--base-url", base, "--model", "gpt-4o-mini", themeNode},
			&stdout, &stderr); code != 0 {
			t.Fatalf("analyze: exit status %d\n%s\n%s", code, stdout.String(), stderr.String())
		}
		var rep struct {
			Nodes []struct {
				Result    string
				Knowledge *knowledgeCounts
			}
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Nodes) != 1 || rep.Nodes[0].Result != "analysed" || rep.Nodes[0].Knowledge == nil {
			t.Fatalf("analyze report %v: %s", err, stdout.String())
		}
		return *rep.Nodes[0].Knowledge
	}
	items := func() map[string]app.KnowledgeItem {
		t.Helper()
		st, err := store.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		list, err := app.New(st, db).Knowledge.List(app.KnowledgeFilter{CreatedBy: []string{"model"}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]app.KnowledgeItem{}
		for _, it := range list {
			key := it.Kind
			if it.Kind == "lesson" {
				key += "/" + it.Fields.Level
			}
			if _, dup := out[key]; dup {
				t.Fatalf("two model items %s: %+v", key, list)
			}
			out[key] = it
		}
		return out
	}

	// The first analysis: six items, one per finding.
	if got := analyse(string(canned)); got != (knowledgeCounts{Added: 6}) {
		t.Fatalf("first analysis: knowledge %+v, want 6 added", got)
	}
	first := items()
	var keys []string
	for k := range first {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if want := []string{"correction", "decision", "failedApproach", "lesson/model", "lesson/project", "lesson/user"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("model items %v, want %v", keys, want)
	}
	for k, it := range first {
		if it.CreatedBy != "model" || it.Model != "openai/gpt-4o-mini" || it.SegmentNodeID != themeNode || it.SessionID != themeSession ||
			it.Version != 1 || it.Status != "active" || len(it.EntryIDs) == 0 || !strings.HasPrefix(it.URI, "rhizome:knowledge/") {
			t.Errorf("%s: %+v", k, it)
		}
	}
	cites := func(it app.KnowledgeItem, seqs ...int) bool {
		var want []string
		for _, s := range seqs {
			want = append(want, themeEntries[s])
		}
		return reflect.DeepEqual(it.EntryIDs, want)
	}
	if d := first["decision"]; !strings.HasPrefix(d.Title, "Add a getThinkingBorderColor() method") || d.Confidence != 0.9 ||
		len(d.Fields.OptionsConsidered) != 2 || !cites(d, 35, 47, 51) {
		t.Errorf("decision %+v", d)
	}
	if c := first["correction"]; !strings.Contains(c.Fields.RightBelief, "read the full file") || c.Fields.Severity != "significant" || !cites(c, 16, 19) ||
		!strings.HasPrefix(c.Timestamp, "2025-") {
		t.Errorf("correction %+v", c)
	}
	if f := first["failedApproach"]; !strings.Contains(f.Title, "— the component broke") || !cites(f, 13, 15, 16) {
		t.Errorf("failed approach %+v", f)
	}
	if l := first["lesson/project"]; l.Confidence != 0.7 || l.Fields.LessonConfidence != "medium" || !cites(l, 47, 51) {
		t.Errorf("project lesson %+v", l)
	}

	// The same answer again: nothing changes.
	if got := analyse(string(canned)); got != (knowledgeCounts{Unchanged: 6}) {
		t.Fatalf("the same answer again: knowledge %+v, want 6 unchanged", got)
	}
	if again := items(); !reflect.DeepEqual(again, first) {
		t.Errorf("the same answer changed the items:\n%+v\n%+v", again, first)
	}

	// The project lesson reworded, the model lesson left out.
	changed := strings.Replace(string(canned), "The theme has no thinking-level tokens; map thinking levels to existing theme colors",
		"The theme has no thinking-level tokens: getThinkingBorderColor maps thinking levels to existing theme colors", 1)
	var answer map[string]any
	if err := json.Unmarshal([]byte(changed), &answer); err != nil {
		t.Fatal(err)
	}
	answer["lessons"].(map[string]any)["model"] = []any{}
	b, _ := json.Marshal(answer)
	if got := analyse(string(b)); got != (knowledgeCounts{Updated: 1, Retired: 1, Unchanged: 4}) {
		t.Fatalf("a reworded lesson: knowledge %+v, want 1 updated, 1 retired, 4 unchanged", got)
	}
	third := items()
	if len(third) != 6 {
		t.Fatalf("%d model items after the third analysis, want 6", len(third))
	}
	if l := third["lesson/project"]; l.ID != first["lesson/project"].ID || l.Version != 2 || !strings.Contains(l.Title, "getThinkingBorderColor maps") || l.Status != "active" {
		t.Errorf("reworded lesson %+v", l)
	}
	if l := third["lesson/model"]; l.ID != first["lesson/model"].ID || l.Version != 2 || l.Status != "stale" || l.Title != first["lesson/model"].Title {
		t.Errorf("lesson no longer reported %+v", l)
	}
	if d := third["decision"]; d.Version != 1 {
		t.Errorf("decision %+v", d)
	}

	// The JSON export holds them, each DERIVED_FROM its segment.
	out := filepath.Join(dir, "graph.json")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"export", "--db", db, "--format", "json", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("export: exit status %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	g, err := export.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]export.Node{}
	for _, n := range g.Nodes {
		exported[n.ID] = n
	}
	derived := map[string]bool{}
	for _, e := range g.Edges {
		if e.Type == "DERIVED_FROM" && e.Target == "rhizome:node/"+themeNode && e.CreatedBy == "model" && strings.Contains(e.Rationale, "openai/gpt-4o-mini") {
			derived[e.Source] = true
		}
	}
	for k, it := range third {
		n, ok := exported[it.URI]
		if !ok || n.Kind != it.Kind || n.Attrs["madeBy"] != "model" || n.Attrs["model"] != "openai/gpt-4o-mini" || n.Attrs["segmentNodeId"] != themeNode || !derived[it.URI] {
			t.Errorf("%s exported as %+v (derived %v)", k, n, derived[it.URI])
		}
	}
	if n := exported[third["lesson/model"].URI]; n.Attrs["status"] != "stale" {
		t.Errorf("the retired lesson exported as %v", n.Attrs["status"])
	}

	// `rhizome search` finds the decision by its words.
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"search", "--db", db, "--json", "thinking border color method"}, &stdout, &stderr); code != 0 {
		t.Fatalf("search: exit status %d: %s", code, stderr.String())
	}
	var found struct {
		Knowledge []app.AgentHit `json:"knowledge"`
		app.HybridResult
	}
	if err := json.Unmarshal(stdout.Bytes(), &found); err != nil {
		t.Fatalf("search --json: %v: %s", err, stdout.String())
	}
	hit := false
	for _, k := range found.Knowledge {
		hit = hit || k.URI == third["decision"].URI && k.CreatedBy == "model" && k.KnowledgeKind == "decision"
	}
	if !hit {
		t.Errorf("search: the model's decision is not among %+v", found.Knowledge)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"search", "--db", db, "getThinkingBorderColor", "maps"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), third["lesson/project"].URI+"  lesson") || !strings.Contains(stdout.String(), "active, made by model") {
		t.Errorf("search text: exit %d:\n%s", code, stdout.String())
	}

	// The MCP tools return them.
	cs := connectMCP(t, "--db", db)
	var hits struct {
		Items []app.AgentHit
	}
	callTool(t, cs, "search", map[string]any{"query": "user-message-selector.ts", "kinds": []string{"knowledge"}}, &hits)
	got := map[string]string{}
	for _, h := range hits.Items {
		got[h.URI] = h.KnowledgeKind + " " + h.CreatedBy
	}
	for _, k := range []string{"correction", "failedApproach"} {
		if got[third[k].URI] != k+" model" {
			t.Errorf("mcp search lacks the %s: %v", k, got)
		}
	}
	var item app.AgentItem
	callTool(t, cs, "get", map[string]any{"uri": third["lesson/project"].URI}, &item)
	if item.Knowledge == nil || len(item.Knowledge.Versions) != 2 || item.Knowledge.Item.Model != "openai/gpt-4o-mini" ||
		item.Knowledge.Versions[0].Fields.Summary != first["lesson/project"].Fields.Summary {
		t.Errorf("mcp get %+v", item.Knowledge)
	}
}
