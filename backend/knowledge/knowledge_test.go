package knowledge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
)

var t0 = time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)

func mustNew(t *testing.T, body any, project string, stated time.Time) Item {
	t.Helper()
	it, err := New(body, project, stated, 1, Provenance{CreatedBy: ByUser}, stated.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// context-graph-dag.md, "Domain 1": every kind is made with ccmemory's
// defaults, a ULID and a rhizome:knowledge URI.
func TestNewEveryKind(t *testing.T) {
	bodies := []any{
		&Decision{Description: "Use SQLite", OptionsConsidered: []string{"PostgreSQL"}},
		&Correction{WrongBelief: "pi entries are v2", RightBelief: "pi writes v3"},
		&Exception{RuleBroken: "no sync I/O", Justification: "startup only"},
		&FailedApproach{Approach: "sed over multiline calls", Outcome: "missed half of them"},
		&Insight{Summary: "Branch summaries name the target, not the abandoned leaf"},
		&Question{Question: "Does pi migrate v1 files on load?"},
		&ProjectFact{Fact: "Run make test before committing", Category: CategoryWorkflow},
		&graph.Lesson{Level: "tool", Summary: "The edit tool fails on trailing whitespace", Confidence: "medium"},
	}
	for i, b := range bodies {
		it := mustNew(t, b, "/home/dana/src/acme-api", t0)
		if it.Kind != Kinds[i] || it.Version != 1 || it.Status != StatusActive {
			t.Errorf("body %T: kind %s version %d status %s", b, it.Kind, it.Version, it.Status)
		}
		if got, want := it.URI().String(), "rhizome:knowledge/"+it.ID; got != want {
			t.Errorf("URI %q, want %q", got, want)
		}
		if p, err := link.Parse(it.URI().String()); err != nil || p != it.URI() {
			t.Errorf("URI does not parse back: %v", err)
		}
		if it.Title() == "" {
			t.Errorf("%s: no title", it.Kind)
		}
	}
	d := mustNew(t, &Decision{Description: "x"}, "", t0)
	if d.Decision.Status != DecisionDevelopmental {
		t.Errorf("decision status %q, want developmental (ccmemory default)", d.Decision.Status)
	}
	c := mustNew(t, &Correction{RightBelief: "y"}, "", t0)
	if c.Correction.Severity != SeveritySignificant {
		t.Errorf("severity %q, want significant", c.Correction.Severity)
	}
}

// Bad input gets an error naming the field, never a panic.
func TestValidateNamesTheField(t *testing.T) {
	good := mustNew(t, &ProjectFact{Fact: "Use tabs", Category: CategoryConvention}, "/p", t0)
	cases := []struct {
		name  string
		edit  func(*Item)
		field string
	}{
		{"bad id", func(it *Item) { it.ID = "nope" }, "field id"},
		{"version 0", func(it *Item) { it.Version = 0 }, "field version"},
		{"unknown kind", func(it *Item) { it.Kind = "memo" }, "field kind"},
		{"body of another kind", func(it *Item) { it.Decision = &Decision{Description: "x", Status: DecisionCurated} }, "kind bodies"},
		{"no body", func(it *Item) { it.ProjectFact = nil }, "kind bodies"},
		{"empty fact", func(it *Item) { it.ProjectFact = &ProjectFact{Category: CategoryTool} }, "projectFact.fact"},
		{"bad category", func(it *Item) { it.ProjectFact = &ProjectFact{Fact: "x", Category: "style"} }, "projectFact.category"},
		{"confidence 2", func(it *Item) { it.Confidence = 2 }, "field confidence"},
		{"unknown maker", func(it *Item) { it.Source.CreatedBy = "robot" }, "source.createdBy"},
		{"offline without rule", func(it *Item) { it.Source.CreatedBy = ByOffline }, "source.rule"},
		{"NUL", func(it *Item) { it.ProjectFact = &ProjectFact{Fact: "a\x00b", Category: CategoryTool} }, "NUL"},
		{"too long", func(it *Item) {
			it.ProjectFact = &ProjectFact{Fact: strings.Repeat("x", MaxTextBytes+1), Category: CategoryTool}
		}, "the limit"},
		{"bad status", func(it *Item) { it.Status = "done" }, "field status"},
		{"no timestamp", func(it *Item) { it.Timestamp = time.Time{} }, "field timestamp"},
	}
	for _, c := range cases {
		it := good
		body := *good.ProjectFact
		it.ProjectFact = &body
		c.edit(&it)
		err := it.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.field)
		}
	}
	if _, err := New(nil, "", t0, 1, Provenance{CreatedBy: ByUser}, t0); err == nil {
		t.Error("New(nil) gave no error")
	}
	if _, err := New((*Decision)(nil), "", t0, 1, Provenance{CreatedBy: ByUser}, t0); err == nil {
		t.Error("New of a nil *Decision gave no error")
	}
	var back Item
	raw, _ := json.Marshal(good)
	if err := json.Unmarshal(raw, &back); err != nil || back.Validate() != nil || back.ProjectFact.Fact != "Use tabs" {
		t.Errorf("JSON round trip: %v %+v", err, back)
	}
}

// pi-brain-node-model.md, "Versioning Rules": an edit makes a new version
// with the same id, the diff says what changed, a no-op is refused.
func TestNewVersionAndDiff(t *testing.T) {
	v1 := mustNew(t, &Decision{Description: "Use express-rate-limit", OptionsConsidered: []string{"hand-written"}}, "/p", t0)
	edited := v1
	d := *v1.Decision
	d.Rationale = "maintained, tested"
	d.OptionsConsidered = []string{"hand-written", "nginx limit_req"}
	edited.Decision = &d
	v2, err := NewVersion(v1, edited, ByUser, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if v2.ID != v1.ID || v2.Version != 2 || !v2.CreatedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("v2: id %s version %d createdAt %v", v2.ID, v2.Version, v2.CreatedAt)
	}
	if v1.Decision.Rationale != "" {
		t.Error("NewVersion changed the previous version")
	}
	diff := ComputeDiff(v1, v2)
	if diff.FromVersion != 1 || diff.ToVersion != 2 || len(diff.Changes) != 2 {
		t.Fatalf("diff %+v, want 2 changes", diff)
	}
	if c := diff.Changes[0]; c.Path != "decision.optionsConsidered" || c.Type != graph.ChangeChanged {
		t.Errorf("change 0: %v", c)
	}
	if c := diff.Changes[1]; c.Path != "decision.rationale" || c.Type != graph.ChangeAdded || c.NewValue != "maintained, tested" {
		t.Errorf("change 1: %v", c)
	}
	if _, err := NewVersion(v2, v2, ByUser, t0.Add(2*time.Hour)); err == nil || !strings.Contains(err.Error(), "changes nothing") {
		t.Errorf("a no-op edit: %v", err)
	}
	other := mustNew(t, &Decision{Description: "x"}, "/p", t0)
	if _, err := NewVersion(v1, other, ByUser, t0); err == nil {
		t.Error("an edit of another item became a version")
	}
	kind := v1
	kind.Decision, kind.Kind = nil, KindInsight
	kind.Insight = &Insight{Summary: "x"}
	if _, err := NewVersion(v1, kind, ByUser, t0); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("a kind change: %v", err)
	}
}

func newFact(t *testing.T, text string, cat Category, project string, at time.Time) Item {
	t.Helper()
	return mustNew(t, &ProjectFact{Fact: text, Category: cat}, project, at)
}

// context-graph-dag.md, "Supersession" (latest wins) and ERRATA.md
// (supersession is stated): chains resolve to the newest, cycles and
// offline supersessions are refused.
func TestSupersession(t *testing.T) {
	a := newFact(t, "Use 2 spaces", CategoryConvention, "/p", t0)
	b := newFact(t, "Use 4 spaces", CategoryConvention, "/p", t0.Add(24*time.Hour))
	c := newFact(t, "Use tabs", CategoryConvention, "/p", t0.Add(48*time.Hour))
	q := mustNew(t, &Question{Question: "Tabs or spaces?"}, "/p", t0)
	items := []Item{a, b, c, q}
	sups := []Supersession{{Newer: b.ID, Older: a.ID, StatedBy: ByUser}, {Newer: c.ID, Older: b.ID, StatedBy: ByModel}}
	r, err := Resolve(items, sups)
	if err != nil {
		t.Fatal(err)
	}
	if r.Latest(a.ID) != c.ID || r.Latest(c.ID) != c.ID {
		t.Errorf("latest of a is %s, want c %s", r.Latest(a.ID), c.ID)
	}
	if got := r.Chain(b.ID); strings.Join(got, ",") != strings.Join([]string{c.ID, b.ID, a.ID}, ",") {
		t.Errorf("chain through b: %v", got)
	}
	if r.Status(a.ID) != StatusSuperseded || r.Status(b.ID) != StatusSuperseded || r.Status(c.ID) != StatusActive {
		t.Errorf("statuses %s %s %s", r.Status(a.ID), r.Status(b.ID), r.Status(c.ID))
	}
	if ch := r.Chains(); len(ch) != 1 || len(ch[0]) != 3 {
		t.Errorf("chains %v", ch)
	}
	if s := (Supersession{}).Relation(); s != link.Supersedes {
		t.Errorf("relation %s", s)
	}
	bad := []struct {
		name string
		s    Supersession
		want string
	}{
		{"cycle", Supersession{Newer: a.ID, Older: c.ID, StatedBy: ByUser}, "cycle"},
		{"self", Supersession{Newer: a.ID, Older: a.ID, StatedBy: ByUser}, "itself"},
		{"kinds", Supersession{Newer: q.ID, Older: a.ID, StatedBy: ByUser}, "cannot supersede a projectFact"},
		{"offline", Supersession{Newer: c.ID, Older: a.ID, StatedBy: ByOffline}, "never inferred offline"},
		{"unknown", Supersession{Newer: "01J0000000000000000000000Z", Older: a.ID, StatedBy: ByUser}, "no item"},
	}
	for _, x := range bad {
		err := CheckSupersede(items, sups, x.s)
		if err == nil || !strings.Contains(err.Error(), x.want) {
			t.Errorf("%s: %v, want %q", x.name, err, x.want)
		}
	}
}

// context-graph-dag.md, "Context Injection Format" and ERRATA.md: the
// rules are the active facts of the project (and cross-project ones),
// grouped by category in order, latest wins, no questions.
func TestRulesMarkdownAndJSON(t *testing.T) {
	old := newFact(t, "Use 2 spaces", CategoryConvention, "/p", t0)
	newer := newFact(t, "Use tabs", CategoryConvention, "/p", t0.Add(time.Hour))
	stale := newFact(t, "Deploy on Fridays", CategoryWorkflow, "/p", t0)
	stale.Status = StatusStale
	other := newFact(t, "Other project rule", CategoryConstraint, "/q", t0)
	cross := newFact(t, "Never commit secrets", CategoryConstraint, "", t0)
	tests := newFact(t, "Run make test before committing", CategoryWorkflow, "/p", t0.Add(2*time.Hour))
	tool := newFact(t, "We use pgx for Postgres", CategoryTool, "/p", t0)
	dup := newFact(t, "we use  pgx for postgres", CategoryTool, "/p", t0.Add(3*time.Hour))
	open := mustNew(t, &Question{Question: "Should we drop Node 18?"}, "/p", t0)
	answered := mustNew(t, &Question{Question: "Which linter?", Answer: "golangci-lint"}, "/p", t0)
	items := []Item{old, newer, stale, other, cross, tests, tool, dup, open, answered}
	sups := []Supersession{{Newer: newer.ID, Older: old.ID, StatedBy: ByUser}}
	md, err := Rules(items, sups, "/p")
	if err != nil {
		t.Fatal(err)
	}
	want := RulesHeading + `

### Conventions
- Use tabs

### Constraints
- Never commit secrets

### Workflows
- Run make test before committing

### Tools
- we use pgx for postgres
`
	if md != want {
		t.Errorf("rules:\n%s\nwant:\n%s", md, want)
	}
	rs, _ := BuildRules(items, sups, "/p")
	raw, err := rs.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back RuleSet
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Groups) != 4 || back.Groups[0].Rules[0].Supersedes[0] != old.ID {
		t.Errorf("JSON %s: %v", raw, err)
	}
	if strings.Contains(string(raw), "Node 18") || strings.Contains(md, "Node 18") {
		t.Error("an open question leaked into the rules")
	}
	qs, err := OpenQuestions(items, sups, "/p")
	if err != nil || len(qs) != 1 || qs[0].ID != open.ID {
		t.Errorf("open questions %v %v", qs, err)
	}
	empty, _ := Rules(nil, nil, "/none")
	if !strings.Contains(empty, "No project rules") {
		t.Errorf("empty rules: %q", empty)
	}
	if _, err := Rules(items, []Supersession{{Newer: old.ID, Older: newer.ID, StatedBy: ByUser}, sups[0]}, "/p"); err == nil {
		t.Error("a cycle gave rules")
	}
}
