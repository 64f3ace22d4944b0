package search

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []Clause
	}{
		{"", nil},
		{"   ", nil},
		{"agent", []Clause{{Terms: []string{"agent"}, Prefix: true}}},
		{"agent ", []Clause{{Terms: []string{"agent"}}}},
		{"a", []Clause{{Terms: []string{"a"}}}}, // one letter: no prefix
		{"Read THE file", []Clause{{Terms: []string{"read"}}, {Terms: []string{"the"}}, {Terms: []string{"file"}, Prefix: true}}},
		{`"custom tool" hooks`, []Clause{{Terms: []string{"custom", "tool"}}, {Terms: []string{"hooks"}, Prefix: true}}},
		{`"custom tool"`, []Clause{{Terms: []string{"custom", "tool"}}}},
		{`foo.bar`, []Clause{{Terms: []string{"foo", "bar"}, Prefix: true}}},
		{`foo.`, []Clause{{Terms: []string{"foo"}}}},
		{`AND OR NEAR(x) "`, []Clause{{Terms: []string{"and"}}, {Terms: []string{"or"}}, {Terms: []string{"near", "x"}}}},
		{`"unclosed words`, []Clause{{Terms: []string{"unclosed"}}, {Terms: []string{"words"}, Prefix: true}}},
		{`*** ^^ ::`, nil},
		{`Café`, []Clause{{Terms: []string{"cafe"}, Prefix: true}}},
	} {
		got := ParseQuery(tc.q).Clauses
		if !slices.EqualFunc(got, tc.want, func(a, b Clause) bool { return a.Prefix == b.Prefix && slices.Equal(a.Terms, b.Terms) }) {
			t.Errorf("ParseQuery(%q) = %+v, want %+v", tc.q, got, tc.want)
		}
	}
}

func TestQueryFTS5(t *testing.T) {
	q := ParseQuery(`"custom tool" the`)
	if got := q.FTS5(nil); got != `"custom tool" AND "the"*` {
		t.Errorf("FTS5(nil) = %s", got)
	}
	got := q.FTS5(func(p string) []string { return []string{"the", "theme"} })
	if got != `"custom tool" AND ("the" OR "theme")` {
		t.Errorf("FTS5(expand) = %s", got)
	}
	got = ParseQuery(`custom.to`).FTS5(func(p string) []string { return []string{"tool"} })
	if got != `"custom tool"` {
		t.Errorf("FTS5 of a phrase prefix = %s", got)
	}
}

// BM25 is FTS5's formula: values computed by hand.
func TestBM25(t *testing.T) {
	if got := IDF(100, 10); math.Abs(got-math.Log(90.5/10.5)) > 1e-12 {
		t.Errorf("IDF(100, 10) = %v", got)
	}
	if got := IDF(100, 60); got != 1e-6 {
		t.Errorf("IDF of a term in most documents = %v, want 1e-6", got)
	}
	// tf 2, a document of average length: idf * 2*2.2 / (2 + 1.2).
	if got := BM25(2, 50, 50, 1.5); math.Abs(got-1.5*4.4/3.2) > 1e-12 {
		t.Errorf("BM25 = %v", got)
	}
	if BM25(0, 10, 10, 1) != 0 {
		t.Error("BM25 of an absent phrase is not 0")
	}
	if BM25(1, 10, 50, 1) <= BM25(1, 100, 50, 1) {
		t.Error("a shorter document does not weigh more")
	}
}

func TestMatcherFind(t *testing.T) {
	m := NewMatcher(ParseQuery(`"the agent" Tool`), nil)
	got := m.Find("The agent calls a tool; the AGENT's tools: toolbox. agent the")
	if !slices.Equal(got.TF, []int{2, 3}) || got.Length != 12 || !got.All() {
		t.Errorf("Find = %+v", got)
	}
	var hits []string
	for _, h := range got.Hits {
		hits = append(hits, h.Term)
	}
	if !slices.Equal(hits, []string{"the", "agent", "tool", "the", "agent", "tools", "toolbox"}) {
		t.Errorf("hits %q", hits)
	}
	exp := NewMatcher(ParseQuery("tool"), func(string) []string { return []string{"tool", "tools"} })
	if got := exp.Find("tool tools toolbox"); got.TF[0] != 2 {
		t.Errorf("an expanded prefix counts %d, want the 2 listed terms", got.TF[0])
	}
	if got := m.Find("agent only"); got.All() {
		t.Error("All with a clause missing")
	}
}

func TestSnippet(t *testing.T) {
	m := NewMatcher(ParseQuery("needle "), nil)
	text := strings.Repeat("hay ", 40) + "a Needle here " + strings.Repeat("straw ", 40)
	got := Snippet(text, m.Find(text).Hits, 10, "[", "]")
	if got != "…hay a [Needle] here straw straw straw straw straw straw…" {
		t.Errorf("snippet %q", got)
	}
	short := "just a needle."
	if got := Snippet(short, m.Find(short).Hits, 10, "[", "]"); got != "just a [needle]." {
		t.Errorf("whole text snippet %q", got)
	}
	if got := Snippet("no hit at all", nil, 2, "[", "]"); got != "no hit…" {
		t.Errorf("snippet without hits %q", got)
	}
	// A window showing both words beats one showing the first word often.
	m2 := NewMatcher(ParseQuery("theme selector "), nil)
	text = "theme theme theme theme " + strings.Repeat("x ", 30) + "the theme selector opens"
	got = Snippet(text, m2.Find(text).Hits, 8, "[", "]")
	if !strings.Contains(got, "[selector]") {
		t.Errorf("snippet %q leaves out the second word", got)
	}
}
