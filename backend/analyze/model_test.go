package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/llm"
	"rhizome/backend/llm/llmtest"
)

// The model analyzer is tested through the real llm clients against
// llmtest's local servers, which speak the OpenAI chat/completions and
// Anthropic Messages wire protocols over loopback HTTP. See issue 9, §1
// and §5.

// modelAt is the analysis time of the model tests.
var modelAt = time.Date(2026, 2, 2, 12, 0, 0, 0, time.UTC)

// fakeModel is an llmtest server of one provider and a real client of it.
type fakeModel struct {
	provider string
	model    string
	client   llm.Provider
	oa       *llmtest.OpenAIServer
	an       *llmtest.AnthropicServer
}

var providers = []string{llm.ProviderOpenAI, llm.ProviderAnthropic}

// newFake serves a provider's llmtest server on loopback; the client
// retries once, waiting at most 2 s (a longer Retry-After is surfaced).
func newFake(t *testing.T, provider string, edit ...func(*fakeModel)) *fakeModel {
	t.Helper()
	f := &fakeModel{provider: provider}
	var handler http.Handler
	cfg := llm.Config{Provider: provider, APIKey: llm.NewSecret("sk-test")}
	if provider == llm.ProviderOpenAI {
		f.oa, f.model = llmtest.NewOpenAIServer(7), "gpt-4o-mini"
		handler = f.oa
	} else {
		f.an, f.model = llmtest.NewAnthropicServer(7), "claude-haiku-4-5"
		handler = f.an
	}
	for _, e := range edit {
		e(f)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.Model = srv.URL, f.model
	if provider == llm.ProviderOpenAI {
		cfg.BaseURL += "/v1"
	}
	retry := llm.RetryPolicy{Retries: 1, Backoff: 10 * time.Millisecond, MaxWait: 2 * time.Second}
	switch provider {
	case llm.ProviderOpenAI:
		c, err := llm.NewOpenAI(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Retry = retry
		f.client = c
	default:
		c, err := llm.NewAnthropic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Retry = retry
		f.client = c
	}
	return f
}

func (f *fakeModel) script(r ...llmtest.Reply) {
	if f.oa != nil {
		f.oa.Script(r...)
	} else {
		f.an.Script(r...)
	}
}

func (f *fakeModel) pending() int {
	if f.oa != nil {
		return f.oa.Pending()
	}
	return f.an.Pending()
}

// sent is a request as the analyzer sent it: its messages in order (the
// Anthropic system prompt first, as a system message) and its raw body.
type sent struct {
	messages []llm.Message
	body     map[string]any
	raw      []byte
}

func (f *fakeModel) received(t *testing.T) []sent {
	t.Helper()
	var rs []llmtest.Received
	if f.oa != nil {
		rs = f.oa.Received()
	} else {
		rs = f.an.Received()
	}
	var out []sent
	for _, r := range rs {
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		s := sent{body: body, raw: r.Body}
		if sys, ok := body["system"].(string); ok {
			s.messages = append(s.messages, llm.Message{Role: llm.RoleSystem, Text: sys})
		}
		msgs, _ := body["messages"].([]any)
		for _, m := range msgs {
			mm, _ := m.(map[string]any)
			text, _ := mm["content"].(string)
			role, _ := mm["role"].(string)
			s.messages = append(s.messages, llm.Message{Role: llm.Role(role), Text: text})
		}
		out = append(out, s)
	}
	return out
}

func (f *fakeModel) options() Options {
	return Options{Provider: f.provider, Model: f.model, Now: func() time.Time { return modelAt }}
}

// realSegment is segment i of a real session as the importer would hand it
// to AnalyzeSegment, with its offline node and the session's other nodes as
// candidates.
func realSegment(t *testing.T, name string, i int) (SegmentInput, []Candidate) {
	t.Helper()
	s, segs, nodes := analyzeReal(t, name)
	sg := segs[i]
	in := SegmentInput{
		Input: Input{Header: s.Header, SessionFile: "/sessions/" + name + ".jsonl", Computer: "test-host",
			Segment: sg, IsNewProject: i == 0, Abandoned: LeftByNavigation(segs, i)},
		Entries: s.Entries[sg.StartSeq : sg.EndSeq+1],
		Offline: &nodes[i],
	}
	var cands []Candidate
	for j, n := range nodes {
		if j != i {
			cands = append(cands, Candidate{NodeID: n.ID, Summary: n.Content.Summary, Type: n.Classification.Type,
				Outcome: n.Content.Outcome, Project: n.Classification.Project, Timestamp: n.Metadata.Timestamp})
		}
	}
	return in, cands
}

// poem is the canned analysis of session-with-compaction's second segment
// (testdata/model/poem-segment.json), true to its transcript.
func poem(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "model", "poem-segment.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// nodeJSON is n as stored.
func nodeJSON(t *testing.T, n graph.Node) string {
	t.Helper()
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkOffline fails unless res kept the offline node unchanged.
func checkOffline(t *testing.T, res Result, offline graph.Node) {
	t.Helper()
	if nodeJSON(t, res.Node) != nodeJSON(t, offline) || res.Source != SourceOffline {
		t.Errorf("the offline node did not stay: source %q, analyzer %q", res.Source, res.Node.Metadata.AnalyzerVersion)
	}
}

// compareModelGolden compares v with testdata/golden/model/<name>.json
// (rewritten by go test -update).
func compareModelGolden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", "model", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the result differs from %s (run go test -update and review the diff):\n%s", path, got)
	}
}

// A canned analysis, through each provider's structured output: the node
// takes the model's fields and keeps the offline facts; golden result.
func TestModelCannedAnalysis(t *testing.T) {
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			f := newFake(t, p)
			f.script(llmtest.Reply{Text: poem(t)})
			in, cands := realSegment(t, "session-with-compaction", 1)
			opts := f.options()
			opts.Candidates = cands
			opts.Previous = &AnalysisState{AnalyzerVersion: Version, Source: SourceOffline,
				EntryCount: in.Offline.Source.Segment.EntryCount, EndEntryID: in.Offline.Source.Segment.EndEntryID}
			res, err := AnalyzeSegment(context.Background(), f.client, in, opts)
			if err != nil || res.Failure != nil {
				t.Fatalf("error %v, failure %+v", err, res.Failure)
			}
			off, n := *in.Offline, res.Node
			wantMode := llm.ModeJSONSchema
			if p == llm.ProviderAnthropic {
				wantMode = llm.ModeTool
			}
			// "Node Data Structure": the model's fields, the offline facts.
			switch {
			case res.Source != ModelSource(p, f.model) || res.Structured != wantMode || res.Trigger != TriggerModelChange || res.Chunks != 1:
				t.Errorf("source %q, mode %q, trigger %q, chunks %d", res.Source, res.Structured, res.Trigger, res.Chunks)
			case !strings.HasPrefix(n.Content.Summary, "The user asked for short poems") || n.Classification.Type != graph.TypeOther || n.Content.Outcome != graph.OutcomeSuccess:
				t.Errorf("content %+v", n.Content)
			case len(n.Lessons.User) != 1 || n.Lessons.User[0].Level != "user" || len(n.Lessons.Model) != 1 || n.Lessons.Model[0].Level != "model" || len(n.Lessons.Task) != 0:
				t.Errorf("lessons %+v", n.Lessons)
			case !reflect.DeepEqual(n.Content.FilesTouched, off.Content.FilesTouched) || !reflect.DeepEqual(n.Content.ToolsUsed, off.Content.ToolsUsed) ||
				!reflect.DeepEqual(n.Observations.ModelsUsed, off.Observations.ModelsUsed) || n.Metadata.Cost != off.Metadata.Cost ||
				n.Metadata.TokensUsed != off.Metadata.TokensUsed || n.Metadata.Timestamp != off.Metadata.Timestamp || n.ID != off.ID || n.Source != off.Source:
				t.Errorf("an offline fact changed")
			case n.Metadata.AnalyzerVersion != ModelVersion() || n.Metadata.AnalyzedAt != "2026-02-02T12:00:00.000Z":
				t.Errorf("metadata %+v", n.Metadata)
			case !reflect.DeepEqual(n.Semantic.Tags, []string{"poem", "git", "documentation", off.Semantic.Tags[0]}):
				t.Errorf("tags %v (offline %v)", n.Semantic.Tags, off.Semantic.Tags)
			}
			// The relationship to a listed node keeps its id; one naming an
			// unlisted node keeps only its description, and says so.
			if len(res.Relationships) != 2 || res.Relationships[0].TargetNodeID != "47105fd765057025" ||
				res.Relationships[1].TargetNodeID != "" || !strings.Contains(res.Relationships[1].TargetDescription, "ffffffffffffffff") {
				t.Errorf("relationships %+v", res.Relationships)
			}
			// "Computing Diffs": the diff from the offline version shows
			// what the model added, and no offline fact.
			diff := graph.ComputeDiff(off, n)
			paths := map[string]bool{}
			for _, c := range diff.Changes {
				paths[c.Path] = true
				if strings.HasPrefix(c.Path, "content.filesTouched") || strings.HasPrefix(c.Path, "observations.modelsUsed") || strings.HasPrefix(c.Path, "source") {
					t.Errorf("diff changes an offline fact: %s", c)
				}
			}
			for _, want := range []string{"content.summary", "lessons.user[0]", "lessons.model[0]", "observations.modelQuirks[0]", "metadata.analyzerVersion"} {
				if !paths[want] {
					t.Errorf("diff lacks %s: %v", want, diff.Changes)
				}
			}
			// The request: the system prompt, the facts, the candidates, the transcript.
			reqs := f.received(t)
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			user := reqs[0].messages[len(reqs[0].messages)-1].Text
			for _, want := range []string{"- files touched: packages/coding-agent/src/core/agent-session.ts", "- 47105fd765057025: documentation, partial, 2025-12-17",
				"[#459 user 21:22]\nstop doing shit!", "It starts at a resume boundary."} {
				if !strings.Contains(user, want) {
					t.Errorf("the prompt lacks %q", want)
				}
			}
			if reqs[0].messages[0].Role != llm.RoleSystem || reqs[0].messages[0].Text != systemPrompt {
				t.Errorf("system prompt not sent as such")
			}
			if res.Usage.Calls != 1 || res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 || !res.Usage.PriceKnown || res.Usage.USD <= 0 || res.Usage.Estimated {
				t.Errorf("usage %+v", res.Usage)
			}
			compareModelGolden(t, p+"-canned", res)
		})
	}
}

// An invalid reply is asked again once, with the error and the reply shown
// to the model; the second, valid reply is the analysis.
func TestModelRetriesInvalidReply(t *testing.T) {
	for _, p := range providers {
		for _, bad := range []struct{ name, text, want string }{
			{"malformed", poem(t)[:400], "the reply is not valid JSON: it ends after 400 bytes"},
			{"off-schema", strings.Replace(poem(t), `"outcome": "success"`, `"outcome": "done"`, 1), "at '/content/outcome': value must be one of"},
		} {
			t.Run(p+"/"+bad.name, func(t *testing.T) {
				f := newFake(t, p)
				f.script(llmtest.Reply{Text: bad.text}, llmtest.Reply{Text: poem(t)})
				in, _ := realSegment(t, "session-with-compaction", 1)
				res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
				if err != nil || res.Failure != nil || res.Source == SourceOffline {
					t.Fatalf("error %v, failure %+v", err, res.Failure)
				}
				if res.Usage.Calls != 2 || !strings.HasPrefix(res.Node.Content.Summary, "The user asked for short poems") {
					t.Errorf("calls %d, summary %q", res.Usage.Calls, res.Node.Content.Summary)
				}
				reqs := f.received(t)
				if len(reqs) != 2 {
					t.Fatalf("%d requests", len(reqs))
				}
				m := reqs[1].messages
				if len(m) != 4 || m[2].Role != llm.RoleAssistant || strings.TrimSpace(m[2].Text) != strings.TrimSpace(bad.text) || m[3].Role != llm.RoleUser ||
					!strings.HasPrefix(m[3].Text, "Your reply could not be used: the reply") || !strings.Contains(m[3].Text, bad.want) {
					t.Errorf("retry messages %+v", m[2:])
				}
				if m[1].Text != f.received(t)[0].messages[1].Text {
					t.Errorf("the retry changed the original request")
				}
				found := false
				for _, d := range res.Node.DaemonMeta.Decisions {
					found = found || d.Decision == "Asked the model again" && strings.Contains(d.Reasoning, bad.want[:20])
				}
				if !found {
					t.Errorf("decisions %+v", res.Node.DaemonMeta.Decisions)
				}
			})
		}
	}
}

// Invalid twice: the offline node stays and the failure is recorded.
func TestModelInvalidTwiceKeepsOffline(t *testing.T) {
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			f := newFake(t, p)
			f.script(llmtest.Reply{Text: `{"classification": `}, llmtest.Reply{Text: `{"summary": "a poem"}`})
			in, _ := realSegment(t, "session-with-compaction", 1)
			res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
			if err != nil {
				t.Fatal(err)
			}
			checkOffline(t, res, *in.Offline)
			fl := res.Failure
			if fl == nil || fl.Kind != FailureInvalidOutput || fl.RawExcerpt != `{"summary": "a poem"}` ||
				!strings.Contains(fl.Message, "missing properties 'classification', 'content'") || fl.At != "2026-02-02T12:00:00.000Z" {
				t.Errorf("failure %+v", fl)
			}
			if res.Usage.Calls != 2 || len(f.received(t)) != 2 {
				t.Errorf("calls %d", res.Usage.Calls)
			}
		})
	}
}

// A refusal is recorded as the failure; the offline node stays; no retry.
func TestModelRefusal(t *testing.T) {
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			f := newFake(t, p)
			f.script(llmtest.Reply{Refusal: "I can't help with analysing this conversation."})
			in, _ := realSegment(t, "session-with-compaction", 1)
			res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
			if err != nil {
				t.Fatal(err)
			}
			checkOffline(t, res, *in.Offline)
			if fl := res.Failure; fl == nil || fl.Kind != FailureRefusal || !strings.Contains(fl.Message, "I can't help with analysing") ||
				fl.RawExcerpt != "I can't help with analysing this conversation." || res.Usage.Calls != 1 {
				t.Errorf("failure %+v, calls %d", fl, res.Usage.Calls)
			}
		})
	}
}

// A 429 the client can wait for is waited for (the client's RetryPolicy
// honours Retry-After up to its MaxWait); a longer one is surfaced as a
// typed error with the wait, and recorded as no failure: the queue tries
// the segment again later.
func TestModelRateLimit(t *testing.T) {
	for _, p := range providers {
		t.Run(p+"/waited", func(t *testing.T) {
			wait := 30 * time.Millisecond
			if p == llm.ProviderAnthropic {
				wait = time.Second // Anthropic's retry-after is in whole seconds
			}
			f := newFake(t, p)
			f.script(llmtest.Reply{Fail: llmtest.FailRateLimit, RetryAfter: wait}, llmtest.Reply{Text: poem(t)})
			in, _ := realSegment(t, "session-with-compaction", 1)
			start := time.Now()
			res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
			if err != nil || res.Failure != nil || res.Source == SourceOffline {
				t.Fatalf("error %v, failure %+v", err, res.Failure)
			}
			if took := time.Since(start); took < wait || len(f.received(t)) != 2 {
				t.Errorf("took %s for %d requests; want the %s wait and 2", took, len(f.received(t)), wait)
			}
		})
		t.Run(p+"/surfaced", func(t *testing.T) {
			f := newFake(t, p)
			f.script(llmtest.Reply{Fail: llmtest.FailRateLimit, RetryAfter: time.Minute}, llmtest.Reply{Text: poem(t)})
			in, _ := realSegment(t, "session-with-compaction", 1)
			start := time.Now()
			res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
			if !errors.Is(err, llm.ErrRateLimited) {
				t.Fatalf("error %v, want ErrRateLimited", err)
			}
			if d, ok := RetryAfter(err); !ok || d != time.Minute {
				t.Errorf("RetryAfter = %s, %v", d, ok)
			}
			// Waiting would take the minute the server asked for; not waiting takes
			// milliseconds. Half a minute tells them apart on a loaded machine.
			if res.Failure != nil || time.Since(start) > 30*time.Second || len(f.received(t)) != 1 || f.pending() != 1 {
				t.Errorf("failure %+v, %d requests, %d scripted left", res.Failure, len(f.received(t)), f.pending())
			}
			checkOffline(t, res, *in.Offline)
			if !strings.Contains(err.Error(), "analyze: unable to analyse segment 1 of session 5fd1e58c") {
				t.Errorf("error %q does not say which segment", err)
			}
		})
	}
}

// A provider's context-length error makes the analyzer plan smaller
// chunks and try again; when even those do not fit, it gives up cleanly:
// the offline node stays, the failure is recorded.
func TestModelContextLength(t *testing.T) {
	in, _ := realSegment(t, "compact-with-images", 0)
	transcript := TranscriptTokens(in.Entries)
	for _, p := range providers {
		t.Run(p+"/replanned", func(t *testing.T) {
			// The analyzer believes in a window that just holds the whole
			// transcript; the server's real window (one token per word)
			// is two thirds of that request.
			probe := newFake(t, p)
			opts := probe.options()
			opts.ContextWindow = windowFor(transcript, contextSection(in.Input, *in.Offline, nil))
			if _, err := AnalyzeSegment(context.Background(), probe.client, in, opts); err != nil {
				t.Fatal(err)
			}
			words := len(strings.Fields(string(probe.received(t)[0].raw)))
			f := newFake(t, p, func(f *fakeModel) {
				if f.oa != nil {
					f.oa.ContextWindow = words * 2 / 3
				} else {
					f.an.ContextWindow = words * 2 / 3
				}
			})
			res, err := AnalyzeSegment(context.Background(), f.client, in, opts)
			if err != nil || res.Failure != nil {
				t.Fatalf("error %v, failure %+v", err, res.Failure)
			}
			if res.Chunks < 2 || res.Usage.Calls != 1+res.Chunks {
				t.Errorf("chunks %d, calls %d", res.Chunks, res.Usage.Calls)
			}
			found := false
			for _, d := range res.Node.DaemonMeta.Decisions {
				found = found || d.Decision == "Planned again in smaller parts" && strings.Contains(d.Reasoning, "HTTP 400")
			}
			if !found {
				t.Errorf("no re-plan decision: %+v", res.Node.DaemonMeta.Decisions)
			}
		})
		t.Run(p+"/gave up", func(t *testing.T) {
			f := newFake(t, p, func(f *fakeModel) {
				if f.oa != nil {
					f.oa.ContextWindow = 50
				} else {
					f.an.ContextWindow = 50
				}
			})
			opts := f.options()
			opts.ContextWindow = 16000
			res, err := AnalyzeSegment(context.Background(), f.client, in, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkOffline(t, res, *in.Offline)
			if fl := res.Failure; fl == nil || fl.Kind != FailureContextLength || !(strings.Contains(fl.Message, "maximum context length") || strings.Contains(fl.Message, "prompt is too long")) {
				t.Errorf("failure %+v", fl)
			}
			if res.Usage.Calls != 1+maxRechunks {
				t.Errorf("calls %d, want %d", res.Usage.Calls, 1+maxRechunks)
			}
		})
	}
}

// windowFor is the smallest context window (in steps of 500 tokens) whose
// room holds transcript tokens in one request.
func windowFor(transcript int, context string) int {
	for w := 4000; ; w += 500 {
		fixed := fixedTokens() + EstimateTokens(context) + 100
		if planRoom(w, defaultMaxOutput(w), fixed) >= transcript {
			return w
		}
	}
}

// A server without Structured Outputs answers 400 to json_schema: the
// analysis goes on in JSON mode, then with the instruction alone.
func TestModelStructuredFallback(t *testing.T) {
	for _, tc := range []struct {
		noObject bool
		reply    string
		mode     llm.StructuredMode
	}{
		{false, "", llm.ModeJSONObject},
		{true, "Here is the analysis:\n```json\n%s\n```", llm.ModePrompt},
	} {
		f := newFake(t, llm.ProviderOpenAI)
		f.oa.NoJSONSchema, f.oa.NoJSONObject = true, tc.noObject
		text := poem(t)
		if tc.reply != "" {
			text = fmt.Sprintf(tc.reply, text)
		}
		f.script(llmtest.Reply{Text: text})
		in, _ := realSegment(t, "session-with-compaction", 1)
		res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
		if err != nil || res.Failure != nil || res.Structured != tc.mode {
			t.Fatalf("mode %q: error %v, failure %+v", res.Structured, err, res.Failure)
		}
		if !strings.HasPrefix(res.Node.Content.Summary, "The user asked for short poems") {
			t.Errorf("summary %q", res.Node.Content.Summary)
		}
		reqs := f.received(t)
		last := reqs[len(reqs)-1]
		if sys := last.messages[0].Text; !strings.HasPrefix(sys, systemPrompt) || !strings.Contains(sys, `"segment_analysis"`) && !strings.Contains(sys, `"relationships"`) {
			t.Errorf("the schema is not in the system message in %s mode", tc.mode)
		}
	}
}

// The biggest segment of the real large session, analysed in chunks that
// fit a 16,000-token window: every entry is shown in some chunk, each
// request fits, later chunks carry the earlier findings and repeat the
// previous chunk's end, and the merged node has each chunk's findings once.
func TestModelChunkedLargeSegment(t *testing.T) {
	s, segs, nodes := analyzeReal(t, "large-session")
	big := 0
	for i := range segs {
		if segs[i].EntryCount > segs[big].EntryCount {
			big = i
		}
	}
	sg := segs[big]
	in := SegmentInput{Input: Input{Header: s.Header, Segment: sg}, Entries: s.Entries[sg.StartSeq : sg.EndSeq+1], Offline: &nodes[big]}
	const window = 16000
	f := newFake(t, llm.ProviderOpenAI, func(f *fakeModel) { f.oa.ContextWindow = window })
	const scripted = 60
	for i := range scripted {
		f.script(llmtest.Reply{Text: chunkAnswer(i)})
	}
	opts := f.options()
	opts.ContextWindow = window
	res, err := AnalyzeSegment(context.Background(), f.client, in, opts)
	if err != nil || res.Failure != nil {
		t.Fatalf("error %v, failure %+v", err, res.Failure)
	}
	used := scripted - f.pending()
	reqs := f.received(t)
	if res.Chunks < 5 || res.Chunks != used || len(reqs) != used || res.Usage.Calls != used {
		t.Fatalf("chunks %d, scripted replies used %d, requests %d", res.Chunks, used, len(reqs))
	}
	maxOut := defaultMaxOutput(window)
	var all strings.Builder
	for k, r := range reqs {
		est := EstimateTokens(string(analysisSchema))
		for _, m := range r.messages {
			est += EstimateTokens(m.Text)
		}
		if est+maxOut > window {
			t.Errorf("request %d: about %d tokens + %d for the reply > %d", k, est, maxOut, window)
		}
		user := r.messages[1].Text
		if k > 0 && (!strings.Contains(user, fmt.Sprintf("this is part %d of %d. Your analysis of the earlier parts was (JSON):", k+1, used)) ||
			!strings.Contains(user, `"what":"decision shared by every part"`) || !strings.Contains(user, "(repeated) [#")) {
			t.Errorf("request %d lacks the hand-over or the repeated entries", k)
		}
		all.WriteString(user)
	}
	var buf []byte
	for i := range in.Entries {
		buf = renderEntry(buf[:0], &in.Entries[i], 0)
		if len(buf) > 0 && !strings.Contains(all.String(), fmt.Sprintf("[#%d ", in.Entries[i].Seq)) {
			t.Errorf("entry #%d is in no request", in.Entries[i].Seq)
		}
	}
	n := res.Node
	if n.Content.Summary != fmt.Sprintf("Summary of parts 1 to %d.", used) || n.Content.Outcome != graph.OutcomePartial {
		t.Errorf("summary %q, outcome %q: want the last part's", n.Content.Summary, n.Content.Outcome)
	}
	// The shared decision once, then each part's own, up to the bound.
	want := []string{"decision shared by every part"}
	for i := 0; i < used && len(want) < maxModelDecisions; i++ {
		want = append(want, fmt.Sprintf("decision of part %d", i+1))
	}
	var got []string
	for _, d := range n.Content.KeyDecisions {
		got = append(got, d.What)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decisions %v, want %v", got, want)
	}
	// An error resolved in a later part is resolved.
	if e := n.Content.ErrorsSeen[0]; e.Type != "build_error" || !e.Resolved {
		t.Errorf("first error %+v", e)
	}
	if len(n.Lessons.Task) != min(used, maxLessonsPerLevel) || n.Lessons.Task[0].Confidence != "high" {
		t.Errorf("task lessons %d, first %+v", len(n.Lessons.Task), n.Lessons.Task[0])
	}
	if n.Classification.Type != graph.TypeCoding {
		t.Errorf("type %q: want the type most of the transcript has", n.Classification.Type)
	}
	if d := n.DaemonMeta.Decisions; d[len(d)-1].Decision != fmt.Sprintf("Analysed in %d parts", used) && !hasDecision(d, fmt.Sprintf("Analysed in %d parts", used)) {
		t.Errorf("decisions %+v", d)
	}
}

func hasDecision(ds []graph.DaemonDecision, what string) bool {
	for _, d := range ds {
		if d.Decision == what {
			return true
		}
	}
	return false
}

// chunkAnswer is the scripted answer for part i+1 of a chunked segment: a
// decision shared with every part and one of its own, a build error that
// part 2 resolves, a task lesson whose confidence rises, a type that is
// "coding" except in one part.
func chunkAnswer(i int) string {
	typ := "coding"
	if i == 1 {
		typ = "debugging"
	}
	confidence := "medium"
	if i > 0 {
		confidence = "high"
	}
	a := map[string]any{
		"classification": map[string]any{"type": typ, "hadClearGoal": i == 0, "language": "typescript", "frameworks": []string{"node"}},
		"content": map[string]any{
			"summary": fmt.Sprintf("Summary of parts 1 to %d.", i+1),
			"outcome": "partial",
			"keyDecisions": []any{
				map[string]any{"what": "decision shared by every part", "why": "it holds", "alternativesConsidered": []string{}},
				map[string]any{"what": fmt.Sprintf("decision of part %d", i+1), "why": "part", "alternativesConsidered": []string{"other"}},
			},
			"errorsSeen": []any{map[string]any{"type": "build_error", "message": "tsc failed", "resolved": i == 1}},
		},
		"lessons": map[string]any{
			"project": []any{}, "user": []any{}, "model": []any{}, "tool": []any{}, "skill": []any{}, "subagent": []any{},
			"task": []any{
				map[string]any{"summary": "Lesson shared", "details": "d", "confidence": confidence, "tags": []string{"t"}, "actionable": nil},
				map[string]any{"summary": fmt.Sprintf("Lesson of part %d", i+1), "details": "d", "confidence": "low", "tags": []string{}, "actionable": nil},
			},
		},
		"observations":  map[string]any{"promptingWins": []string{}, "promptingFailures": []string{}, "modelQuirks": []any{}, "toolUseErrors": []any{}},
		"semantic":      map[string]any{"tags": []string{"themes"}, "topics": []string{"ui"}, "concepts": []string{}},
		"relationships": []any{},
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// A budget too small for one call stops the analysis before any request.
func TestModelBudget(t *testing.T) {
	f := newFake(t, llm.ProviderOpenAI)
	in, _ := realSegment(t, "session-with-compaction", 1)
	opts := f.options()
	opts.Budget = NewBudget(0.0001, 0)
	res, err := AnalyzeSegment(context.Background(), f.client, in, opts)
	if !errors.Is(err, ErrBudgetExceeded) || len(f.received(t)) != 0 || res.Failure != nil {
		t.Fatalf("error %v, %d requests", err, len(f.received(t)))
	}
	checkOffline(t, res, *in.Offline)
	// Enough for one: the call is made and its real cost spent.
	f.script(llmtest.Reply{Text: poem(t)})
	opts.Budget = NewBudget(1, 0.5)
	res, err = AnalyzeSegment(context.Background(), f.client, in, opts)
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	if got := opts.Budget.Spent(); got != 0.5+res.Usage.USD || res.Usage.USD <= 0 {
		t.Errorf("spent %v, usage %+v", got, res.Usage)
	}
	// A model without a known price cannot be held to a budget.
	opts.Model = "mystery-model"
	if _, err := AnalyzeSegment(context.Background(), f.client, in, opts); !errors.Is(err, ErrPriceUnknown) {
		t.Errorf("unknown price: %v", err)
	}
}

// An empty segment makes no call.
func TestModelEmptySegment(t *testing.T) {
	f := newFake(t, llm.ProviderAnthropic)
	res, err := AnalyzeSegment(context.Background(), f.client, SegmentInput{}, f.options())
	if err != nil || res.Failure == nil || res.Failure.Kind != FailureEmpty || len(f.received(t)) != 0 {
		t.Errorf("error %v, failure %+v", err, res.Failure)
	}
}

// A window too small for any transcript is refused before any request.
func TestModelContextTooSmall(t *testing.T) {
	f := newFake(t, llm.ProviderOpenAI)
	in, _ := realSegment(t, "session-with-compaction", 1)
	opts := f.options()
	opts.ContextWindow = 4096
	if _, err := AnalyzeSegment(context.Background(), f.client, in, opts); !errors.Is(err, ErrContextTooSmall) || len(f.received(t)) != 0 {
		t.Errorf("error %v", err)
	}
}

// The analyzer asks for one answer whatever the loom settings' N (the
// client's Config.N), and keeps the offline "abandoned" outcome, which
// the transcript cannot show.
func TestModelOneAnswerAndAbandoned(t *testing.T) {
	srv := llmtest.NewOpenAIServer(1)
	srv.Script(llmtest.Reply{Text: poem(t)}, llmtest.Reply{Text: poem(t)}, llmtest.Reply{Text: poem(t)})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c, err := llm.NewOpenAI(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: hs.URL + "/v1", Model: "gpt-4o-mini", N: 3})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := realSegment(t, "session-with-compaction", 1)
	in.Abandoned = true
	res, err := AnalyzeSegment(context.Background(), c, in, Options{Provider: "openai", Model: "gpt-4o-mini"})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	var body map[string]any
	if err := json.Unmarshal(srv.Received()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if n, has := body["n"]; has || srv.Pending() != 2 {
		t.Errorf("request n = %v, %d scripted replies left: want one answer asked for", n, srv.Pending())
	}
	if res.Node.Content.Outcome != graph.OutcomeAbandoned || !hasDecision(res.Node.DaemonMeta.Decisions, "Outcome kept as abandoned") {
		t.Errorf("outcome %q", res.Node.Content.Outcome)
	}
}

// The one retry still fits the context window: the excerpt of the invalid
// reply and the error are bounded by the room kept for them, and a reply
// cut off at its bound gets a larger bound only as far as the window
// allows.
func TestModelRetryFitsWindow(t *testing.T) {
	in, _ := realSegment(t, "compact-with-images", 0)
	const window = 12000
	for _, p := range providers {
		f := newFake(t, p)
		long := `{"classification": {"type": "coding", "hadClearGoal": true, "language": "` + strings.Repeat("go ", 8000)
		f.script(llmtest.Reply{Text: long, Finish: map[string]string{"openai": "length", "anthropic": "max_tokens"}[p]})
		for i := range 20 {
			f.script(llmtest.Reply{Text: chunkAnswer(i)})
		}
		opts := f.options()
		opts.ContextWindow = window
		res, err := AnalyzeSegment(context.Background(), f.client, in, opts)
		if err != nil || res.Failure != nil {
			t.Fatalf("%s: %v %+v", p, err, res.Failure)
		}
		for k, r := range f.received(t) {
			est := EstimateTokens(string(analysisSchema))
			for _, m := range r.messages {
				est += EstimateTokens(m.Text) + 4
			}
			bound, _ := r.body["max_tokens"].(float64)
			if est+int(bound) > window {
				t.Errorf("%s request %d: about %d tokens and a %v-token reply > %d", p, k, est, bound, window)
			}
			if k == 1 && bound <= float64(defaultMaxOutput(window)) {
				t.Errorf("%s: the retry after a cut-off reply kept the bound %v", p, bound)
			}
		}
	}
}

// Options that name no model or provider are refused before any request.
func TestModelOptionsChecked(t *testing.T) {
	f := newFake(t, llm.ProviderOpenAI)
	in, _ := realSegment(t, "session-with-compaction", 1)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Provider: "openai"}, "options field Model is empty"},
		{Options{Model: "gpt-4o-mini"}, "options field Provider is empty"},
	} {
		if _, err := AnalyzeSegment(context.Background(), f.client, in, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	if _, err := AnalyzeSegment(context.Background(), nil, in, f.options()); err == nil || !strings.Contains(err.Error(), "no model client") {
		t.Errorf("nil client: %v", err)
	}
	if n := len(f.received(t)); n != 0 {
		t.Errorf("%d requests", n)
	}
}
