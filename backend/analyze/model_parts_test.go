package analyze

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/backend/pisession"
)

// planChunks covers every entry once, in order, within the room; repeats
// at most two entries of the previous chunk, within a tenth of the room.
func TestPlanChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := rng.IntN(80)
		room := 50 + rng.IntN(2000)
		costs := make([]int, n)
		for i := range costs {
			switch rng.IntN(10) {
			case 0:
				costs[i] = 0
			case 1:
				costs[i] = room + rng.IntN(room) // larger than a chunk
			default:
				costs[i] = rng.IntN(room / 3)
			}
		}
		chunks := planChunks(costs, room)
		if n == 0 {
			if len(chunks) != 0 {
				t.Fatalf("trial %d: %d chunks of nothing", trial, len(chunks))
			}
			continue
		}
		next := 0
		for k, c := range chunks {
			if c.from+c.overlap != next || c.to <= next || c.to > n {
				t.Fatalf("trial %d chunk %d %+v: new entries must start at %d", trial, k, c, next)
			}
			newTokens := 0
			for i := c.from + c.overlap; i < c.to; i++ {
				newTokens += costs[i]
			}
			if c.to-next > 1 && newTokens > room {
				t.Errorf("trial %d chunk %d: %d tokens of new entries > room %d", trial, k, newTokens, room)
			}
			if k == 0 && c.overlap != 0 || c.overlap > overlapEntries || c.tokens-newTokens > room/10+1 {
				t.Errorf("trial %d chunk %d %+v: overlap", trial, k, c)
			}
			if k > 0 {
				prev := chunks[k-1]
				if c.overlap == 0 || c.from < prev.from+prev.overlap {
					t.Errorf("trial %d chunk %d repeats %d entries from %d; previous new entries start at %d", trial, k, c.overlap, c.from, prev.from+prev.overlap)
				}
			}
			next = c.to
		}
		if next != n {
			t.Fatalf("trial %d: chunks end at %d of %d", trial, next, n)
		}
	}
}

func lang(s string) *string { return &s }

// mergeAnalyses: the last part's summary and outcome, the strongest type,
// unions without repeats.
func TestMergeAnalyses(t *testing.T) {
	part := func(typ graph.NodeType, summary string, edit func(*Analysis)) Analysis {
		a := Analysis{Classification: AnalysisClassification{Type: typ}, Content: AnalysisContent{Summary: summary, Outcome: graph.OutcomePartial}}
		a.normalize()
		if edit != nil {
			edit(&a)
		}
		return a
	}
	got := mergeAnalyses([]partAnswer{
		{part(graph.TypeCoding, "first", func(a *Analysis) {
			a.Classification.HadClearGoal = true
			a.Classification.Language = lang("Go")
			a.Content.KeyDecisions = []AnalysisDecision{{Decision: graph.Decision{What: "Use SQLite.", Why: "one file"}, Confidence: "low", Entries: []int{3}}}
			a.Content.ErrorsSeen = []graph.ErrorSummary{{Type: "test_failure", Message: "TestX failed"}}
			a.Lessons.Tool = []AnalysisLesson{{Lesson: graph.Lesson{Summary: "Edit needs exact text", Confidence: "low", Tags: []string{"edit"}}, Entries: []int{4}}}
			a.Semantic.Tags = []string{"sqlite"}
			a.Relationships = []ProposedRelationship{{TargetNodeID: "aa", Relation: link.LeadsTo, Confidence: 0.4}}
		}), 100},
		{part(graph.TypeDebugging, "second", func(a *Analysis) {
			a.Classification.Language = lang("go")
			a.Content.Outcome = graph.OutcomeSuccess
			a.Content.KeyDecisions = []AnalysisDecision{{Decision: graph.Decision{What: "use   sqlite", Why: "said again"}, Confidence: "high", Entries: []int{9, 3}}, {Decision: graph.Decision{What: "Add an index"}}}
			a.Content.ErrorsSeen = []graph.ErrorSummary{{Type: "test_failure", Message: "TestX failed!", Resolved: true}}
			a.Lessons.Tool = []AnalysisLesson{{Lesson: graph.Lesson{Summary: "edit needs exact text.", Confidence: "high", Tags: []string{"whitespace"}}, Entries: []int{4, 5}}}
			a.Semantic.Tags = []string{"SQLite", "index"}
			a.Relationships = []ProposedRelationship{{TargetNodeID: "aa", Relation: link.LeadsTo, Confidence: 0.9}, {TargetNodeID: "aa", Relation: link.RelatesTo, Confidence: 0.5}}
		}), 300},
		{part(graph.TypeCoding, "", nil), 100},
	})
	if got.Content.Summary != "second" || got.Content.Outcome != graph.OutcomePartial {
		t.Errorf("summary %q (want the latest non-empty), outcome %q (want the last part's)", got.Content.Summary, got.Content.Outcome)
	}
	if got.Classification.Type != graph.TypeDebugging || !got.Classification.HadClearGoal || *got.Classification.Language != "go" {
		t.Errorf("classification %+v: debugging has 300 tokens of 500", got.Classification)
	}
	if len(got.Content.KeyDecisions) != 2 || got.Content.KeyDecisions[0].Why != "one file" || got.Content.KeyDecisions[0].Confidence != "high" ||
		!reflect.DeepEqual(got.Content.KeyDecisions[0].Entries, []int{3, 9}) {
		t.Errorf("decisions %+v", got.Content.KeyDecisions)
	}
	if len(got.Content.ErrorsSeen) != 1 || !got.Content.ErrorsSeen[0].Resolved {
		t.Errorf("errors %+v: resolved in a later part", got.Content.ErrorsSeen)
	}
	if l := got.Lessons.Tool; len(l) != 1 || l[0].Confidence != "high" || !reflect.DeepEqual(l[0].Tags, []string{"edit", "whitespace"}) ||
		!reflect.DeepEqual(l[0].Entries, []int{4, 5}) {
		t.Errorf("lessons %+v", l)
	}
	if !reflect.DeepEqual(got.Semantic.Tags, []string{"sqlite", "index"}) {
		t.Errorf("tags %v", got.Semantic.Tags)
	}
	if r := got.Relationships; len(r) != 2 || r[0].Confidence != 0.9 || r[1].Relation != link.RelatesTo {
		t.Errorf("relationships %+v", r)
	}
	// A tie of weights goes to the later part.
	tie := mergeAnalyses([]partAnswer{{part(graph.TypeCoding, "a", nil), 10}, {part(graph.TypeQA, "b", nil), 10}})
	if tie.Classification.Type != graph.TypeQA {
		t.Errorf("tie: %q", tie.Classification.Type)
	}
}

// DecideTrigger: the first reason that holds.
func TestDecideTrigger(t *testing.T) {
	base := AnalysisState{AnalyzerVersion: "offline-1", Source: SourceOffline, EntryCount: 10, EndEntryID: "e10"}
	with := func(edit func(*AnalysisState)) AnalysisState { s := base; edit(&s); return s }
	for _, tc := range []struct {
		name   string
		prev   *AnalysisState
		next   AnalysisState
		manual bool
		want   Trigger
	}{
		{"first", nil, base, false, TriggerInitial},
		{"first even if manual", nil, base, true, TriggerInitial},
		{"user asked", &base, base, true, TriggerManual},
		{"grew", &base, with(func(s *AnalysisState) { s.EntryCount, s.EndEntryID = 12, "e12"; s.Source = "model:openai/x" }), false, TriggerAppend},
		{"another model", &base, with(func(s *AnalysisState) { s.Source, s.AnalyzerVersion = "model:openai/gpt-4o", ModelVersion() }), false, TriggerModelChange},
		{"new prompt", &base, with(func(s *AnalysisState) { s.AnalyzerVersion = "offline-2" }), false, TriggerPromptUpdate},
		{"current", &base, base, false, ""},
	} {
		got, ok := DecideTrigger(tc.prev, tc.next, tc.manual)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestPriceLookup(t *testing.T) {
	for _, tc := range []struct {
		provider, model, base string
		want                  string
		known                 bool
	}{
		{"anthropic", "claude-sonnet-4-5-20250929", "https://api.anthropic.com", "claude-sonnet-4-5", true},
		{"anthropic", "claude-sonnet-4.5", "", "claude-sonnet-4-5", true},
		{"openai", "gpt-4o-mini-2024-07-18", "https://api.openai.com/v1", "gpt-4o-mini", true},
		{"openai", "gpt-4o-2024-08-06", "", "gpt-4o", true},
		{"openai", "gpt-4.1-mini", "", "gpt-4.1-mini", true},
		{"openai", "openai/gpt-4.1", "https://openrouter.ai/api/v1", "gpt-4.1", true},
		{"openai", "qwen2.5-coder:32b", "http://127.0.0.1:11434/v1", "*", true},
		{"openai", "llama3", "http://localhost:8080/v1", "*", true},
		{"openai", "llama3", "http://192.168.1.5:8080/v1", "llama3", false},
		{"openai", "gpt-4o-mini", "http://[::1]:8000/v1", "gpt-4o-mini", true},
		{"anthropic", "claude-next", "", "claude-next", false},
		// A version after the name is another model: unknown, not the
		// older model's price. Dates, "latest" and tags are the same model.
		{"openai", "gpt-5.4", "", "gpt-5.4", false},
		{"anthropic", "claude-sonnet-4-7", "", "claude-sonnet-4-7", false},
		{"anthropic", "claude-3-5-haiku-latest", "", "claude-3-5-haiku", true},
		{"openai", "gpt-4.1-2025-04-14", "", "gpt-4.1", true},
		// Gemini CLI's models, under Google's prices; "-lite" is another
		// model than gemini-2.5-flash.
		{"google", "gemini-2.5-pro", "", "gemini-2.5-pro", true},
		{"google", "gemini-2.5-flash-lite", "", "gemini-2.5-flash-lite", true},
		{"google", "gemini-3.5-flash-lite", "", "gemini-3.5-flash-lite", false},
		{"openai", "gemini-2.5-pro", "", "gemini-2.5-pro", false},
	} {
		p, ok := DefaultPrices.Lookup(tc.provider, tc.model, tc.base)
		if p.Model != tc.want || ok != tc.known {
			t.Errorf("%s %s at %q: %q %v, want %q %v", tc.provider, tc.model, tc.base, p.Model, ok, tc.want, tc.known)
		}
	}
	// Local models are free; settings override and add.
	if p, _ := DefaultPrices.Lookup("openai", "llama3", "http://127.0.0.1:1/v1"); p.Cost(1e6, 1e6) != 0 {
		t.Errorf("local model costs %v", p.Cost(1e6, 1e6))
	}
	table := DefaultPrices.With(ModelPrice{Provider: "anthropic", Model: "claude-haiku-4.5", InputPerMTok: 2, OutputPerMTok: 8},
		ModelPrice{Provider: "openai", Model: "my-finetune", InputPerMTok: 1, OutputPerMTok: 1, ContextWindow: 8192})
	if p, _ := table.Lookup("anthropic", "claude-haiku-4-5", ""); p.InputPerMTok != 2 || len(table) != len(DefaultPrices)+1 {
		t.Errorf("override: %+v (%d entries)", p, len(table))
	}
	if p, ok := table.Lookup("openai", "my-finetune", ""); !ok || p.ContextWindow != 8192 {
		t.Errorf("added: %+v %v", p, ok)
	}
	// Claude Sonnet 4.5: $3 in, $15 out per million.
	p, _ := DefaultPrices.Lookup("anthropic", "claude-sonnet-4-5", "")
	if got := p.Cost(200_000, 10_000); math.Abs(got-0.75) > 1e-12 {
		t.Errorf("cost %v, want 0.75", got)
	}
	// Gemini 2.5 Pro: $1.25 in, $10 out up to a 200k-token prompt; $2.50
	// and $15 above.
	g, _ := DefaultPrices.Lookup("google", "gemini-2.5-pro", "")
	for _, tc := range []struct {
		in, out int64
		want    float64
	}{{200_000, 10_000, 0.35}, {200_001, 10_000, 0.5000025 + 0.15}, {0, 0, 0}} {
		if got := g.Cost(tc.in, tc.out); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("gemini-2.5-pro, %d in, %d out: %v, want %v", tc.in, tc.out, got, tc.want)
		}
	}
	if long := g.ForPrompt(300_000); long.CacheReadPerMTok != 0.25 || g.ForPrompt(1000).CacheReadPerMTok != 0.125 {
		t.Errorf("gemini-2.5-pro cache reads: %+v", long)
	}
}

func TestEstimate(t *testing.T) {
	p, _ := DefaultPrices.Lookup("anthropic", "claude-haiku-4-5", "")
	maxOut := defaultMaxOutput(p.ContextWindow)
	e := Estimate([]int{1000, 5000}, p, true)
	fixed := fixedTokens() + contextAllowance
	if e.Segments != 2 || e.Calls != 2 || e.InputTokens != int64(6000+2*fixed) || e.OutputTokens != int64(2*maxOut) ||
		math.Abs(e.USD-p.Cost(e.InputTokens, e.OutputTokens)) > 1e-12 {
		t.Errorf("small segments: %+v", e)
	}
	// A transcript beyond the room takes several calls, each with the
	// fixed part and (after the first) the handed-over findings.
	room := planRoom(p.ContextWindow, maxOut, fixed)
	big := Estimate([]int{3 * room}, p, true)
	if big.Calls < 4 || big.InputTokens <= int64(3*room+big.Calls*fixed) {
		t.Errorf("large segment: %+v (room %d)", big, room)
	}
	if u := Estimate([]int{1000}, ModelPrice{Provider: "openai", Model: "x"}, false); u.USD != 0 || u.PriceKnown || u.Calls != 1 {
		t.Errorf("unknown price: %+v", u)
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(1, 0.25)
	r, err := b.Reserve(0.5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reserve(0.5); !errors.Is(err, ErrBudgetExceeded) || !strings.Contains(err.Error(), "$0.2500 of $1.00 is spent and $0.5000 held") {
		t.Errorf("second reservation: %v", err)
	}
	r.Settle(0.1)
	r.Settle(0.1) // twice: nothing
	if b.Spent() != 0.35 {
		t.Errorf("spent %v", b.Spent())
	}
	if _, err := b.Reserve(0.6); err != nil {
		t.Errorf("after settling: %v", err)
	}
	// Concurrent reservations never pass the limit.
	c := NewBudget(1, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := 0
	for range 50 {
		wg.Go(func() {
			if _, err := c.Reserve(0.1); err == nil {
				mu.Lock()
				held++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if held != 10 {
		t.Errorf("%d reservations of $0.10 held under $1", held)
	}
	if _, err := NewBudget(0, 5).Reserve(1e9); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

// The schema's enums are the node model's and the link vocabulary's.
func TestSchemaVocabularies(t *testing.T) {
	var s map[string]any
	if err := json.Unmarshal(analysisSchema, &s); err != nil {
		t.Fatal(err)
	}
	enum := func(path ...string) []string {
		var v any = s
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		var out []string
		for _, x := range v.(map[string]any)["enum"].([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	var types, relations []string
	for _, nt := range graph.NodeTypes {
		types = append(types, string(nt))
	}
	for _, r := range link.Relations() {
		relations = append(relations, string(r.Type))
	}
	if got := enum("properties", "classification", "properties", "type"); !reflect.DeepEqual(got, types) {
		t.Errorf("node types %v, want %v", got, types)
	}
	if got := enum("$defs", "relationship", "properties", "relation"); !reflect.DeepEqual(got, relations) {
		t.Errorf("relations %v, want link.Relations() %v", got, relations)
	}
	want := []string{string(graph.OutcomeSuccess), string(graph.OutcomePartial), string(graph.OutcomeFailed), string(graph.OutcomeAbandoned)}
	if got := enum("properties", "content", "properties", "outcome"); !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes %v", got)
	}
	var levels []string
	for _, l := range lessonLists(&graph.LessonsByLevel{}) {
		levels = append(levels, l.level)
	}
	if got := s["properties"].(map[string]any)["lessons"].(map[string]any)["required"]; !reflect.DeepEqual(toStrings(got), levels) {
		t.Errorf("lesson levels %v, want %v", got, levels)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// ParseAnalysis: what the schema cannot say is checked too.
func TestParseAnalysis(t *testing.T) {
	good := poem(t)
	a, err := ParseAnalysis([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if a.Classification.Language != nil || a.Relationships[0].TargetNodeID != "47105fd765057025" || a.Lessons.Task == nil {
		t.Errorf("decoded %+v", a)
	}
	for _, tc := range []struct{ in, want string }{
		{strings.Replace(good, `"confidence": 0.7`, `"confidence": 1.5`, 1), "at '/relationships/0/confidence': 1.5 is not between 0 and 1"},
		{strings.Replace(good, `"relation": "REFERENCES"`, `"relation": "KNOWS"`, 1), "at '/relationships/0/relation': value must be one of"},
		{good + " trailing", "text follows the JSON value"},
		{"", "the reply is empty"},
		{`{"classification": {"type": "coding"`, "ends after 36 bytes"},
		{`{"x": 1,}`, "invalid character '}' looking for beginning of object key string at byte 9"},
	} {
		_, err := ParseAnalysis([]byte(tc.in))
		if !errors.Is(err, ErrInvalidAnalysis) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

// EstimateTokens against the token counts the real sessions recorded:
// over each session, the estimate of Claude's replies (text and tool calls,
// messages without thinking, whose hidden tokens the file cannot show) is
// at least 95% and at most 130% of the output tokens the provider counted.
func TestEstimateTokens(t *testing.T) {
	for _, rs := range realSessions {
		s, err := pisession.ReadFile(pitest.Sample(rs.name + ".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var est, actual int64
		for i := range s.Entries {
			m := s.Entries[i].Message
			if m == nil || m.Role != session.RoleAssistant || m.Usage == nil {
				continue
			}
			var text strings.Builder
			thinking := false
			for _, b := range m.Content {
				thinking = thinking || b.Type == session.BlockThinking
				text.WriteString(b.Text + b.Name + string(b.Arguments))
			}
			if thinking || text.Len() == 0 {
				continue
			}
			est += int64(EstimateTokens(text.String()))
			actual += m.Usage.Output
		}
		ratio := float64(est) / float64(actual)
		if actual == 0 || ratio < 0.95 || ratio > 1.3 {
			t.Errorf("%s: estimate %d for %d output tokens (%.2f)", rs.name, est, actual, ratio)
		}
	}
}

// Every entry of the real sessions renders within its bound, as valid
// UTF-8, images never as their data.
func TestRenderEntryBounds(t *testing.T) {
	for _, rs := range realSessions {
		s, _, _ := analyzeReal(t, rs.name)
		var buf []byte
		for i := range s.Entries {
			buf = renderEntry(buf[:0], &s.Entries[i], 0)
			// The largest entry: an assistant message with several parts,
			// each bounded; no single entry of these sessions comes near.
			if len(buf) > 20000 || !utf8.Valid(buf) {
				t.Errorf("%s entry %d: %d bytes, valid UTF-8 %v", rs.name, i, len(buf), utf8.Valid(buf))
			}
			if strings.Contains(string(buf), "iVBORw0KGgo") || strings.Contains(string(buf), "/9j/4AAQ") {
				t.Errorf("%s entry %d: image data in the transcript", rs.name, i)
			}
			if limited := renderEntry(nil, &s.Entries[i], 300); len(limited) > 300+len(" […99999999 bytes cut]\n") {
				t.Errorf("%s entry %d: limited to 300 bytes, got %d", rs.name, i, len(limited))
			}
		}
	}
}

// The hand-over of the earlier findings fits its room and stays JSON.
func TestHandoverFits(t *testing.T) {
	var a Analysis
	if err := json.Unmarshal([]byte(chunkAnswer(3)), &a); err != nil {
		t.Fatal(err)
	}
	a.normalize()
	for i := range 30 {
		a.Content.KeyDecisions = append(a.Content.KeyDecisions, AnalysisDecision{Decision: graph.Decision{What: strings.Repeat("long decision ", 20), AlternativesConsidered: []string{}}})
		_ = i
	}
	for _, room := range []int{100, 400, 2000, 20000} {
		h := handoverJSON(a, room)
		if len(h) > room || !json.Valid([]byte(h)) {
			t.Errorf("room %d: %d bytes, valid %v", room, len(h), json.Valid([]byte(h)))
		}
	}
}
