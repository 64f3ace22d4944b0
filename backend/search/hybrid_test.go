package search

import (
	"context"
	"math"
	"slices"
	"strings"
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

// Content overlap counts another form of a query word as the word ("I've
// been researching" answers "what did she research"), not a word that
// merely begins the same, nor a form of a stem too short to tell.
func TestOverlapCountsForms(t *testing.T) {
	words := contentWords("what did Caroline research")
	even := []float64{1, 1}
	for _, c := range []struct {
		text string
		want float64
	}{
		{"Caroline: I've been researching adoption agencies", 1},
		{"Caroline: the researchers called", 1}, // researcher -> research
		{"Caroline: I resent it", 0.5},
		{"Melanie: we went camping", 0},
	} {
		if got := overlap(words, even, c.text); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("overlap(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got := overlap([]string{"us"}, []float64{1}, "use it"); got != 0 {
		t.Errorf("us found in \"use it\": %v", got)
	}
}

// The best keyword entries lend a share of their score to the turns either
// side (Settings.Context): a reply that holds none of the question's words
// is found through the question before it, below the question itself.
func TestContextLendsToNeighbours(t *testing.T) {
	src := &neighbourSource{
		text: map[string]string{
			"entry:1": "Kenji: where did you move to in the end?",
			"entry:2": "Olivia: Savannah! The commute was killing me.",
			"entry:3": "Kenji: nice",
		},
		next: map[string][]Neighbour{"entry:1": {{"entry:2", 1}}, "entry:2": {{"entry:1", 1}, {"entry:3", 1}}},
	}
	for _, share := range []float64{0, 0.7} {
		st := DefaultSettings()
		st.Context = share
		e := &Engine{Source: src, Settings: st}
		resp, err := e.Search(context.Background(), Request{Query: "where did Olivia move", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var items []string
		for _, r := range resp.Results {
			items = append(items, r.Doc.Item)
		}
		found := slices.Contains(items, "entry:2")
		if share > 0 && (!found || items[0] != "entry:1") {
			t.Errorf("context %v: %v, want the question first and its answer found", share, items)
		}
		if share == 0 && found && resp.Results[slices.Index(items, "entry:2")].Components.Keyword > 0 {
			t.Errorf("context 0 lent a keyword score: %v", items)
		}
	}
}

// neighbourSource is a Source over a few entries whose keyword search
// finds the entries holding "move" (bm25 1).
type neighbourSource struct {
	text map[string]string
	next map[string][]Neighbour
}

func (s *neighbourSource) Keyword(_ context.Context, q string, _ Filter, _ int) ([]Hit, error) {
	var out []Hit
	for item, text := range s.text {
		if strings.Contains(text, "move") {
			out = append(out, Hit{Item: item, Score: 1})
		}
	}
	return out, nil
}

func (s *neighbourSource) InRange(context.Context, TimeRange, Filter, int) ([]Hit, error) {
	return nil, nil
}

func (s *neighbourSource) Docs(_ context.Context, items []string, _ Filter) (map[string]Doc, error) {
	out := map[string]Doc{}
	for _, it := range items {
		if text, ok := s.text[it]; ok {
			out[it] = Doc{Item: it, Kind: KindEntry, Text: text}
		}
	}
	return out, nil
}

func (s *neighbourSource) Neighbours(_ context.Context, items []string, reach int) (map[string][]Neighbour, error) {
	out := map[string][]Neighbour{}
	for _, it := range items {
		for _, n := range s.next[it] {
			if n.Steps <= reach {
				out[it] = append(out[it], n)
			}
		}
	}
	return out, nil
}

// The lending reaches Settings.ContextReach turns, taking Context again
// at each step: the speaker's own next turn, two away, is found with a
// reach of two, below the turn between.
func TestContextReach(t *testing.T) {
	src := &neighbourSource{
		text: map[string]string{
			"entry:1": "Olivia: we tried the new place where you move between tables",
			"entry:2": "Kenji: nice",
			"entry:3": "Olivia: I ordered the pani puri",
		},
		next: map[string][]Neighbour{"entry:1": {{"entry:2", 1}, {"entry:3", 2}}},
	}
	for _, reach := range []int{1, 2} {
		st := DefaultSettings()
		st.ContextReach = reach
		e := &Engine{Source: src, Settings: st}
		resp, err := e.Search(context.Background(), Request{Query: "move", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		kw := map[string]float64{}
		for _, r := range resp.Results {
			kw[r.Doc.Item] = r.Components.Keyword
		}
		if reach == 1 && kw["entry:3"] > 0 {
			t.Errorf("reach 1 lent two turns away: %v", kw)
		}
		if reach == 2 && !(kw["entry:3"] > 0 && kw["entry:3"] < kw["entry:2"]) {
			t.Errorf("reach 2: %v, want the turn two away lent less than the one between", kw)
		}
	}
}

// A text keeps its content words' share of the vector component, in full
// from full words; stopwords do not count; 0 turns the prior off.
func TestLengthPrior(t *testing.T) {
	for _, c := range []struct {
		text string
		full int
		want float64
	}{
		{"Yesss! Where is it?", 10, 0.1},
		{"Kenji: Yesss! Where is it?", 10, 0.2},
		{"Rent in Spokane went up again, I swear every landlord in town got the same memo", 10, 1},
		{"", 10, 0},
		{"Yesss!", 0, 1},
	} {
		if got := lengthPrior(c.text, c.full); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("lengthPrior(%q, %d) = %v, want %v", c.text, c.full, got, c.want)
		}
	}
}

// A question that asks when is told from one that does not, and a turn
// that says when from one that does not.
func TestAsksWhenAndStatesTime(t *testing.T) {
	for q, want := range map[string]bool{
		"When did Kenji make his first sale?":   true,
		"  what day did we ship the release?":   true,
		"How long ago did Leo move?":            true,
		"Which year did the shop open?":         true,
		"What did Kenji sell?":                  false,
		"Where was the sale when it happened?":  false,
		"what was I doing on 20 November 2025?": false,
	} {
		if got := AsksWhen(q); got != want {
			t.Errorf("AsksWhen(%q) = %v", q, got)
		}
	}
	for text, want := range map[string]bool{
		"Someone bought something from my shop yesterday!": true,
		"We flew out two weeks ago.":                       true,
		"Started last weekend! I went back to school":      true,
		"We met on Friday at the cafe":                     true,
		"Her birthday is March 3rd":                        true,
		"the 17th of December":                             true,
		"back in 2019":                                     true,
		"I sell crocheted plant hangers online.":           false,
		"This is the last one, I may stay":                 false,
		"port 8080 and 3 files":                            false,
	} {
		if got := statesTime(text); got != want {
			t.Errorf("statesTime(%q) = %v", text, got)
		}
	}
}

// "When did …" ranks the turn that says when above one that matches as
// well but does not (the temporal component).
func TestWhenQuestionPrefersTurnsThatSayWhen(t *testing.T) {
	src := &neighbourSource{text: map[string]string{
		"entry:1": "Leo: the move was so hard on all of us",
		"entry:2": "Leo: we move out two weeks ago, it was hard",
	}}
	e := &Engine{Source: src, Settings: DefaultSettings()}
	resp, err := e.Search(context.Background(), Request{Query: "When did Leo move?", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) != 2 || resp.Results[0].Doc.Item != "entry:2" || resp.Results[0].Components.Temporal != 1 || resp.Results[1].Components.Temporal != 0 {
		t.Errorf("results %+v", resp.Results)
	}
}

// With ContextContent, a turn lent its neighbour's keyword score also
// takes that share of the neighbour's content overlap.
func TestContextLendsContent(t *testing.T) {
	src := &neighbourSource{
		text: map[string]string{
			"entry:1": "Kenji: we tried the new place where you move between tables",
			"entry:2": "Olivia: nice",
			"entry:3": "Kenji: I ordered the pani puri",
		},
		next: map[string][]Neighbour{"entry:1": {{"entry:2", 1}, {"entry:3", 2}}},
	}
	for _, lend := range []bool{false, true} {
		st := DefaultSettings()
		st.ContextContent = lend
		e := &Engine{Source: src, Settings: st}
		resp, err := e.Search(context.Background(), Request{Query: "move tables", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		content := map[string]float64{}
		for _, r := range resp.Results {
			content[r.Doc.Item] = r.Components.Content
		}
		want := 0.0
		if lend {
			want = st.Context * st.Context * content["entry:1"]
		}
		if content["entry:1"] == 0 || math.Abs(content["entry:3"]-want) > 1e-12 {
			t.Errorf("lend %v: content %v, want entry:3 at %v", lend, content, want)
		}
	}
}
