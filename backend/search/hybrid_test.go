package search

import (
	"math"
	"testing"
	"time"
)

func TestWeightsScoreAndExplain(t *testing.T) {
	w := DefaultWeights()
	if w.Vector != 0.25 || w.Keyword != 0.15 || w.Relation != 0.25 || w.Content != 0.25 || w.Temporal != 0.15 ||
		w.Tag != 0.10 || w.Importance != 0.05 || w.Recency != 0.10 {
		t.Errorf("default weights %+v are not the spec's", w)
	}
	c := Components{Vector: 0.8, Keyword: 1, Relation: 0.5, Content: 0.5, Temporal: 0, Tag: 1, Importance: 0.2, Recency: 0.9}
	score := w.Score(c)
	want := 0.25*0.8 + 0.15 + 0.25*0.5 + 0.25*0.5 + 0.10 + 0.05*0.2 + 0.10*0.9
	if math.Abs(score-want) > 1e-12 {
		t.Errorf("score %v, want %v", score, want)
	}
	why := w.Explain(c)
	var sum float64
	for i, p := range why {
		sum += p.Contribution
		if i > 0 && p.Contribution > why[i-1].Contribution {
			t.Errorf("why is not largest first: %+v", why)
		}
	}
	if math.Abs(sum-score) > 1e-12 || len(why) != 8 || why[0].Component != "vector" {
		t.Errorf("why %+v sums to %v, score %v", why, sum, score)
	}
	if err := (Weights{Vector: -1}).Validate(); err == nil {
		t.Error("a negative weight validated")
	}
	if err := (Weights{Tag: math.NaN()}).Validate(); err == nil {
		t.Error("a NaN weight validated")
	}
}

// Recency is AutoMem's exp(-rate * age_days) (ERRATA.md).
func TestRecency(t *testing.T) {
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	if got := Recency(now.AddDate(0, 0, -30), now, 0.01); math.Abs(got-math.Exp(-0.3)) > 1e-9 {
		t.Errorf("30 days at 0.01: %v", got)
	}
	if Recency(now.Add(time.Hour), now, 0.01) != 1 || Recency(time.Time{}, now, 0.01) != 0 {
		t.Error("future or unknown time")
	}
}

// Content overlap weighs a rare word more than a common one.
func TestOverlapWeighsRareWords(t *testing.T) {
	words := contentWords("the tmux instances of pi")
	if len(words) != 3 { // the, of: stopwords
		t.Fatalf("words %q", words)
	}
	even := []float64{1, 1, 1}
	if got := overlap(words, even, "spawn PI instances"); math.Abs(got-2.0/3) > 1e-12 {
		t.Errorf("overlap %v", got)
	}
	rare := []float64{5, 1, 1} // tmux rare
	a, b := overlap(words, rare, "use tmux"), overlap(words, rare, "pi instances")
	if a <= b {
		t.Errorf("the rare word found %v, two common ones %v", a, b)
	}
	if got := tagMatch(words, even, []string{"Tmux", "terminal multiplexer"}); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("tag match %v", got)
	}
	if got := contentWords("the of"); len(got) != 2 {
		t.Errorf("a query of stopwords only keeps them: %q", got)
	}
}

func TestFilterMatch(t *testing.T) {
	d := Doc{Kind: KindEntry, Project: "/src/a", Role: "assistant", Tools: []string{"bash"}, Files: []string{"src/server.ts"},
		Models: []string{"claude-opus-4-5"}, Relations: []string{"LEADS_TO"}, Time: time.Date(2025, 3, 5, 10, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{Project: "/src/a", Kinds: []string{KindEntry}, Roles: []string{"assistant"}}, true},
		{Filter{Project: "/src/b"}, false},
		{Filter{Kinds: []string{KindNode}}, false},
		{Filter{Tools: []string{"BASH"}}, true},
		{Filter{Tools: []string{"read"}}, false},
		{Filter{Files: []string{"server.ts"}}, true},
		{Filter{Files: []string{"erver.ts"}}, false},
		{Filter{Models: []string{"claude-opus-4-5"}}, true},
		{Filter{RelationTypes: []string{"PART_OF"}}, false},
		{Filter{Range: TimeRange{From: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}}, true},
		{Filter{Range: TimeRange{To: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)}}, false},
	} {
		if got := tc.f.Match(d); got != tc.want {
			t.Errorf("%+v: %v, want %v", tc.f, got, tc.want)
		}
	}
}
