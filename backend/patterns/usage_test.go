package patterns

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/link"
)

// TestUsageOverTime: records over four days (one without use) in two
// models and two projects add up per day, per model and per project, in
// the days of the location given; totals checked by hand.
func TestUsageOverTime(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	gw, billing := "/src/api-gateway", "/src/billing"
	records := []Usage{
		{Node: link.Node("s1"), Time: at("2026-03-01T10:00:00Z"), Project: gw, Provider: "anthropic", Model: "claude-sonnet-4", Input: 1000, Output: 200, CacheRead: 5000, Cost: 0.5},
		{Node: link.Node("s1"), Time: at("2026-03-01T11:00:00Z"), Project: gw, Provider: "anthropic", Model: "claude-sonnet-4", Input: 500, Output: 100, Cost: 0.25},
		{Node: link.Node("s2"), Time: at("2026-03-01T12:00:00Z"), Project: billing, Provider: "openai", Model: "gpt-5", Input: 2000, Output: 300, CacheWrite: 100, Cost: 0.1},
		// 23:30 UTC on the 2nd is 00:30 on the 3rd in Berlin.
		{Node: link.Node("s3"), Time: at("2026-03-02T23:30:00Z"), Project: gw, Provider: "openai", Model: "gpt-5", Input: 10, Output: 10, Cost: 0.01},
		{Node: link.Node("s4"), Time: at("2026-03-04T08:00:00Z"), Project: "", Model: "", Input: 1, Cost: 0},
	}
	r, err := UsageOverTime(records, nil, berlin)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"}; !slices.Equal(r.Days, want) {
		t.Fatalf("days %v, want %v (the 2nd has no use but is on the axis)", r.Days, want)
	}
	tokens := []int64{1000 + 200 + 5000 + 500 + 100 + 2000 + 300 + 100, 0, 20, 1}
	costs := []float64{0.85, 0, 0.01, 0}
	for i := range r.Days {
		if r.ByDay[i].Tokens != tokens[i] || math.Abs(r.ByDay[i].Cost-costs[i]) > 1e-12 {
			t.Errorf("day %s: %d tokens $%v, want %d and $%v", r.Days[i], r.ByDay[i].Tokens, r.ByDay[i].Cost, tokens[i], costs[i])
		}
	}
	if r.Total.Tokens != 9221 || math.Abs(r.Total.Cost-0.86) > 1e-12 || r.Total.Records != 5 {
		t.Errorf("total %+v, want 9221 tokens, $0.86, 5 records", r.Total)
	}
	var models []string
	for _, s := range r.ByModel {
		models = append(models, s.Key)
	}
	if want := []string{"anthropic/claude-sonnet-4", "openai/gpt-5", "(unknown)"}; !slices.Equal(models, want) {
		t.Errorf("models %v, want %v (the costliest first)", models, want)
	}
	if gpt := r.ByModel[1]; gpt.Name != "gpt-5 · openai" || gpt.Days[0].Tokens != 2400 || gpt.Days[2].Tokens != 20 || gpt.Total.Records != 2 {
		t.Errorf("gpt-5 series %+v", gpt)
	}
	if p := r.ByProject[0]; p.Key != gw || p.Name != "api-gateway" || math.Abs(p.Total.Cost-0.76) > 1e-12 {
		t.Errorf("first project %+v, want api-gateway at $0.76", p)
	}
	if p := r.ByProject[2]; p.Key != "" || p.Name != "(no project)" {
		t.Errorf("last project %+v, want the records without one", p)
	}
	if len(r.Rows) != 4 || r.Rows[0].Model != "anthropic/claude-sonnet-4" || !slices.Equal(r.Rows[0].Nodes, []link.Item{link.Node("s1")}) || r.Rows[0].Totals.Records != 2 {
		t.Errorf("rows %+v: want 4, the first the two s1 records", r.Rows)
	}
}

// TestUsageSeriesNames: one model served by three providers is three
// series, each named by model and provider (the legend showed "gpt-5.5"
// three times in three colours); projects are named by the names given
// (the library's), or else among the records' own, never two alike.
func TestUsageSeriesNames(t *testing.T) {
	rec := func(provider, model, project string, cost float64) Usage {
		return Usage{Node: link.Node(provider + model), Time: now, Provider: provider, Model: model, Project: project, Input: 10, Cost: cost}
	}
	records := []Usage{
		rec("openai", "gpt-5.5", "/home/dana/acme/workspace", 3),
		rec("azure", "gpt-5.5", "/srv/ci/workspace", 2),
		rec("openrouter", "gpt-5.5", "/srv/ci/workspace", 1),
		rec("", "claude-opus-4-5", "/home/dana/acme/workspace", 0.5),
		rec("anthropic", "", "", 0.25),
	}
	for _, tc := range []struct {
		names    map[string]string
		projects []string
	}{
		{nil, []string{"acme/workspace", "ci/workspace", "(no project)"}},
		// The library holds another acme/workspace: the names given win.
		{map[string]string{"/home/dana/acme/workspace": "dana/acme/workspace", "/srv/ci/workspace": "ci/workspace"},
			[]string{"dana/acme/workspace", "ci/workspace", "(no project)"}},
	} {
		r, err := UsageOverTime(records, tc.names, nil)
		if err != nil {
			t.Fatal(err)
		}
		var models, keys, projects []string
		for _, s := range r.ByModel {
			models, keys = append(models, s.Name), append(keys, s.Key)
		}
		for _, s := range r.ByProject {
			projects = append(projects, s.Name)
		}
		if want := []string{"gpt-5.5 · openai", "gpt-5.5 · azure", "gpt-5.5 · openrouter", "claude-opus-4-5", "(unknown) · anthropic"}; !slices.Equal(models, want) {
			t.Errorf("model names %q, want %q", models, want)
		}
		if want := []string{"openai/gpt-5.5", "azure/gpt-5.5", "openrouter/gpt-5.5", "claude-opus-4-5", "anthropic/(unknown)"}; !slices.Equal(keys, want) {
			t.Errorf("model keys %q, want %q", keys, want)
		}
		if !slices.Equal(projects, tc.projects) {
			t.Errorf("names %v: project names %q, want %q", tc.names, projects, tc.projects)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	ok := Usage{Node: link.Node("s1"), Time: now, Model: "m", Input: 1}
	cases := []struct {
		want string
		edit func(*Usage)
	}{
		{"usage record 1 (rhizome:node/s1): field time is not set", func(u *Usage) { u.Time = time.Time{} }},
		{"field output: -5 is negative", func(u *Usage) { u.Output = -5 }},
		{"field cost: NaN", func(u *Usage) { u.Cost = math.NaN() }},
		{"field cost: -1", func(u *Usage) { u.Cost = -1 }},
		{"more than 36600 days", func(u *Usage) { u.Time = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC) }},
	}
	for _, c := range cases {
		bad := ok
		c.edit(&bad)
		if _, err := UsageOverTime([]Usage{ok, bad}, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	if r, err := UsageOverTime(nil, nil, nil); err != nil || r.Days == nil || r.Rows == nil {
		t.Errorf("no records: %+v %v, want an empty report with empty lists", r, err)
	}
}
