package app

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/llm"
	"rhizome/backend/llm/llmtest"
	"rhizome/backend/pisession/pitest"
	"rhizome/store"
)

// cannedAnalysis is a real model analysis of a pi-mono segment (the poem
// segment of backend/analyze's tests); it proposes REFERENCES to node
// 47105fd765057025 of session-with-compaction.jsonl and LEADS_TO a node
// that does not exist.
func cannedAnalysis(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "backend", "analyze", "testdata", "model", "poem-segment.json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// analysisFixture is a library of the three real sessions and a model
// served on loopback by llmtest in the provider's wire protocol.
type analysisFixture struct {
	*testLib
	provider, model, base string
	oa                    *llmtest.OpenAIServer
	an                    *llmtest.AnthropicServer
	client                llm.Provider
	node                  string // the first node of large-session.jsonl
}

const referencedNode = "47105fd765057025"

func newAnalysisFixture(t *testing.T, provider string) *analysisFixture {
	t.Helper()
	f := &analysisFixture{testLib: newTestLib(t), provider: provider}
	f.importPaths(t, pitest.Samples()...)
	cfg := llm.Config{Provider: provider, APIKey: llm.NewSecret("sk-test")}
	var srv *httptest.Server
	if provider == llm.ProviderOpenAI {
		f.oa, f.model = llmtest.NewOpenAIServer(3), "gpt-4o-mini"
		srv = httptest.NewServer(f.oa)
		cfg.BaseURL = srv.URL + "/v1"
	} else {
		f.an, f.model = llmtest.NewAnthropicServer(3), "claude-haiku-4-5"
		srv = httptest.NewServer(f.an)
		cfg.BaseURL = srv.URL
	}
	t.Cleanup(srv.Close)
	cfg.Model, f.base = f.model, cfg.BaseURL
	retry := llm.RetryPolicy{Retries: 1, Backoff: 10 * time.Millisecond, MaxWait: 2 * time.Second}
	if provider == llm.ProviderOpenAI {
		c, err := llm.NewOpenAI(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Retry = retry
		f.client = c
	} else {
		c, err := llm.NewAnthropic(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Retry = retry
		f.client = c
	}
	nodes, err := f.st.Nodes(context.Background(), store.NodeFilter{SessionID: "d703a1a9-1b7b-4fb1-b512-c9738b1fe617"})
	if err != nil || len(nodes) == 0 {
		t.Fatalf("large-session nodes: %v %d", err, len(nodes))
	}
	f.node = nodes[0].ID
	return f
}

func (f *analysisFixture) script(r ...llmtest.Reply) {
	if f.oa != nil {
		f.oa.Script(r...)
	} else {
		f.an.Script(r...)
	}
}

func (f *analysisFixture) run(t *testing.T, items ...string) (AnalysisReport, error) {
	t.Helper()
	return RunAnalysis(context.Background(), f.App, items, false, false, f.client, f.provider, f.model, f.base, 0, nil)
}

// A canned analysis through the real client and each provider's wire
// protocol makes version 2 of the node (trigger model_change, the model's
// analyzer version), the model's relation to a known node becomes an edge
// (createdBy model, its confidence and rationale), the one to an unknown
// node does not, the tokens spent are recorded on the node, the node
// version diff shows what the model changed, and the queue is empty.
func TestAnalysisCannedOpenAIAndAnthropic(t *testing.T) {
	for _, p := range []string{llm.ProviderOpenAI, llm.ProviderAnthropic} {
		t.Run(p, func(t *testing.T) {
			f := newAnalysisFixture(t, p)
			before, _ := f.Graph.Node(f.node)
			f.script(llmtest.Reply{Text: cannedAnalysis(t)})
			rep, err := f.run(t, f.node)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Nodes) != 1 || rep.Nodes[0].Result != "analysed" || rep.Nodes[0].Version != 2 || rep.Nodes[0].Trigger != "model_change" {
				t.Fatalf("report %+v", rep.Nodes)
			}
			d, err := f.Graph.Node(f.node)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Versions) != 2 || d.Versions[1].TriggerReason != "model_change" || !strings.HasPrefix(d.Versions[1].AnalyzerVersion, "model-1-") {
				t.Errorf("versions %+v", d.Versions)
			}
			if !strings.Contains(d.Node.Content.Summary, "short poems") || d.Node.Content.Summary == before.Node.Content.Summary {
				t.Errorf("summary %q", d.Node.Content.Summary)
			}
			if len(d.Analyses) != 1 || d.Analyses[0].Version != 2 || d.Analyses[0].Failure != nil ||
				d.Analyses[0].InputTokens == 0 || d.Analyses[0].OutputTokens == 0 || d.Analyses[0].Source != "model:"+p+"/"+f.model {
				t.Errorf("analyses %+v", d.Analyses)
			}
			model := 0
			for _, e := range d.Outgoing {
				if e.CreatedBy == "model" {
					model++
					if e.Target != referencedNode || e.Type != "REFERENCES" || e.Confidence != 0.7 || !strings.Contains(e.Rationale, "poems") {
						t.Errorf("model edge %+v", e)
					}
				}
			}
			if model != 1 {
				t.Errorf("%d model edges, want 1 (the unknown target dropped): %+v", model, d.Outgoing)
			}
			diff, err := f.Graph.NodeDiff(f.node, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			changed := map[string]bool{}
			for _, c := range diff.Changes {
				changed[strings.SplitN(c.Path, "[", 2)[0]] = true
			}
			if !changed["content.summary"] || !changed["metadata.analyzerVersion"] {
				t.Errorf("diff paths %v", changed)
			}
			st, _ := f.Analysis.Status()
			if st.Queued != 0 || st.State != "idle" || st.SpentTokens == 0 {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// Malformed JSON, then a valid answer: the analyzer retried once with the
// validation error, and the node got its version (two calls recorded).
func TestAnalysisMalformedThenRetry(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI)
	f.script(llmtest.Reply{Text: `{"classification": `}, llmtest.Reply{Text: cannedAnalysis(t)})
	rep, err := f.run(t, f.node)
	if err != nil || rep.Nodes[0].Result != "analysed" {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	d, _ := f.Graph.Node(f.node)
	if len(d.Analyses) != 1 || d.Analyses[0].Calls != 2 {
		t.Errorf("analyses %+v", d.Analyses)
	}
}

// Malformed twice, a refusal, a context too long even in smaller parts:
// the offline version stays current and the failure is recorded on the
// node, which leaves the queue.
func TestAnalysisFailuresRecordedOnTheNode(t *testing.T) {
	cases := []struct {
		name    string
		replies []llmtest.Reply
		kind    string
	}{
		{"malformed twice", []llmtest.Reply{{Text: `{"classification": `}, {Text: `not json`}}, "invalid_output"},
		{"refusal", []llmtest.Reply{{Refusal: "I can't help with analysing this conversation."}}, "refusal"},
		{"context length", []llmtest.Reply{{Fail: llmtest.FailContextLength}, {Fail: llmtest.FailContextLength}, {Fail: llmtest.FailContextLength},
			{Fail: llmtest.FailContextLength}, {Fail: llmtest.FailContextLength}, {Fail: llmtest.FailContextLength}}, "context_length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newAnalysisFixture(t, llm.ProviderOpenAI)
			f.script(c.replies...)
			rep, err := f.run(t, f.node)
			if err != nil || rep.Nodes[0].Result != "failed" {
				t.Fatalf("%v %+v", err, rep.Nodes)
			}
			d, _ := f.Graph.Node(f.node)
			if len(d.Versions) != 1 || d.Node.Version != 1 {
				t.Errorf("a failed analysis made a version: %+v", d.Versions)
			}
			if len(d.Analyses) != 1 || d.Analyses[0].Failure == nil || string(d.Analyses[0].Failure.Kind) != c.kind || d.Analyses[0].Version != 0 {
				t.Fatalf("analyses %+v", d.Analyses)
			}
			if st, _ := f.Analysis.Status(); st.Queued != 0 {
				t.Errorf("a failed node stayed queued: %+v", st)
			}
		})
	}
}

// A 429 (the client retried once, then gave up): nothing is recorded as a
// failure, the node stays queued with the reason, the status says stopped;
// the next run analyses it.
func TestAnalysisRateLimitKeepsTheNodeQueued(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI)
	f.script(llmtest.Reply{Fail: llmtest.FailRateLimit, RetryAfter: 10 * time.Millisecond},
		llmtest.Reply{Fail: llmtest.FailRateLimit, RetryAfter: 10 * time.Millisecond})
	rep, err := f.run(t, f.node)
	if !errors.Is(err, llm.ErrRateLimited) || rep.Nodes[0].Result != "deferred" {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	st, _ := f.Analysis.Status()
	if st.Queued != 1 || st.State != "stopped" || !strings.Contains(st.Message, "rate") {
		t.Errorf("status %+v", st)
	}
	d, _ := f.Graph.Node(f.node)
	for _, a := range d.Analyses {
		if a.Failure != nil {
			t.Errorf("a rate limit was recorded as a failure: %+v", a)
		}
	}
	f.script(llmtest.Reply{Text: cannedAnalysis(t)})
	rep, err = f.run(t, f.node)
	if err != nil || rep.Nodes[0].Result != "analysed" {
		t.Fatalf("after the rate limit: %v %+v", err, rep.Nodes)
	}
}

// The queue survives a restart: nodes queued and paused by one app are
// still queued in a new app over the same library, which says so
// ("paused"), and Resume analyses them in the background with the
// configured model.
func TestAnalysisQueueResumesAfterRestart(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI)
	ids, err := f.st.NodeIDsOf(context.Background(), "d703a1a9-1b7b-4fb1-b512-c9738b1fe617")
	if err != nil || len(ids) < 2 {
		t.Fatalf("%v %v", err, ids)
	}
	if _, err := f.st.EnqueueAnalyses(context.Background(), ids[:2], false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Analysis.Pause(); err != nil {
		t.Fatal(err)
	}
	// "Restart": a new app over the same store.
	again := New(f.st, f.path)
	st, err := again.Analysis.Status()
	if err != nil || st.State != "paused" || st.Queued != 2 {
		t.Fatalf("after restart: %v %+v", err, st)
	}
	if _, err := again.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: f.base, Model: f.model, APIKey: "sk-test"}); err != nil {
		t.Fatal(err)
	}
	f.script(llmtest.Reply{Text: cannedAnalysis(t)}, llmtest.Reply{Text: cannedAnalysis(t)})
	if _, err := again.Analysis.Resume(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ = again.Analysis.Status()
		if st.State == "idle" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if st.State != "idle" || st.Done != 2 || st.Queued != 0 {
		t.Fatalf("after resume: %+v", st)
	}
	for _, id := range ids[:2] {
		if d, _ := again.Graph.Node(id); d.Node.Version != 2 {
			t.Errorf("node %s at version %d", id, d.Node.Version)
		}
	}
}

// The estimate before a batch counts the tokens of each segment's
// transcript and prices them with the model's price (a loopback server is
// free); a budget is stored and reported.
func TestAnalysisEstimateAndBudget(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI)
	est, err := f.Analysis.estimate(context.Background(), []string{f.node}, "openai", "gpt-4o-mini", "https://api.openai.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	if est.Estimate.Segments != 1 || est.Estimate.InputTokens < 1000 || !est.Estimate.PriceKnown || est.Estimate.USD <= 0 {
		t.Errorf("estimate %+v", est)
	}
	st, err := f.Analysis.SetBudget(0.5)
	if err != nil || st.BudgetUSD != 0.5 {
		t.Errorf("budget: %v %+v", err, st)
	}
	if _, err := f.Analysis.SetBudget(-1); err == nil {
		t.Error("a negative budget was taken")
	}
	all, err := f.Analysis.estimate(context.Background(), nil, "openai", "gpt-4o-mini", "https://api.openai.com/v1")
	if err != nil || all.Estimate.Segments != 10 {
		t.Errorf("every node: %v %+v", err, all.Estimate)
	}
}

// A budget too small for the next call: no request is sent, the node stays
// queued, the queue is paused with the reason, and the estimate said it
// passes the budget.
func TestAnalysisBudgetStopsBeforeTheCall(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI) // gpt-4o-mini has a price, even on loopback
	if _, err := f.Analysis.SetBudget(0.0001); err != nil {
		t.Fatal(err)
	}
	est, err := f.Analysis.estimate(context.Background(), []string{f.node}, f.provider, f.model, f.base)
	if err != nil || !est.OverBudget {
		t.Errorf("estimate %v %+v", err, est)
	}
	f.script(llmtest.Reply{Text: cannedAnalysis(t)})
	rep, err := RunAnalysis(context.Background(), f.App, []string{f.node}, false, false, f.client, f.provider, f.model, f.base, 0, nil)
	if !errors.Is(err, analyze.ErrBudgetExceeded) || rep.Nodes[0].Result != "deferred" {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	if f.oa.Requests() != 0 {
		t.Errorf("%d requests sent past the budget", f.oa.Requests())
	}
	st, _ := f.Analysis.Status()
	if st.State != "paused" || st.Queued != 1 || !strings.Contains(st.Message, "budget") {
		t.Errorf("status %+v", st)
	}
}

// Cancel while a node is being analysed: the request is abandoned, the
// queue is emptied, no version and no failure is written, and the status
// says idle, cancelled.
func TestAnalysisCancelWhileRunning(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI)
	f.oa.ChunkDelay = 50 * time.Millisecond // a slow model: the cancel lands mid-answer
	if _, err := f.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: f.base, Model: f.model, APIKey: "sk-test"}); err != nil {
		t.Fatal(err)
	}
	f.script(llmtest.Reply{Text: cannedAnalysis(t)}, llmtest.Reply{Text: cannedAnalysis(t)})
	st, err := f.Analysis.Start(AnalysisRequest{Items: []string{"d703a1a9-1b7b-4fb1-b512-c9738b1fe617"}})
	if err != nil || st.State != "running" || st.Queued != 2 {
		t.Fatalf("start: %v %+v", err, st)
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.oa.Requests() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := f.Analysis.Cancel(); err != nil {
		t.Fatal(err)
	}
	for {
		st, _ = f.Analysis.Status()
		if st.State != "running" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st.State != "idle" || st.Queued != 0 || st.Done != 0 || !strings.Contains(st.Message, "cancel") {
		t.Errorf("after cancel: %+v", st)
	}
	d, _ := f.Graph.Node(f.node)
	if d.Node.Version != 1 {
		t.Errorf("a cancelled analysis wrote version %d", d.Node.Version)
	}
	for _, a := range d.Analyses {
		if a.Failure != nil || a.Version != 0 {
			t.Errorf("a cancelled analysis recorded %+v", a)
		}
	}
}

// A background run stopped by a rate limit goes on by itself once the
// provider's Retry-After has passed, saying when in the status meanwhile;
// Pause during that wait stops it at once.
func TestAnalysisGoesOnAfterARateLimit(t *testing.T) {
	f := newAnalysisFixture(t, llm.ProviderOpenAI)
	if _, err := f.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: f.base, Model: f.model, APIKey: "sk-test"}); err != nil {
		t.Fatal(err)
	}
	// The client retries once: two 429s stop the run.
	limited := llmtest.Reply{Fail: llmtest.FailRateLimit, RetryAfter: 300 * time.Millisecond}
	f.script(limited, limited, llmtest.Reply{Text: cannedAnalysis(t)})
	if _, err := f.Analysis.Start(AnalysisRequest{Items: []string{f.node}}); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func(AnalysisStatus) bool) AnalysisStatus {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			st, _ := f.Analysis.Status()
			if ok(st) {
				return st
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: status %+v", what, st)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("waiting out the rate limit", func(st AnalysisStatus) bool {
		return st.State == "running" && st.Queued == 1 && strings.Contains(st.Message, "going on by itself at")
	})
	st := waitFor("after the wait", func(st AnalysisStatus) bool { return st.State == "idle" })
	if st.Done != 1 || st.Queued != 0 || f.oa.Requests() != 3 {
		t.Fatalf("after the rate limit: %+v, %d requests", st, f.oa.Requests())
	}
	if d, _ := f.Graph.Node(f.node); d.Node.Version != 2 {
		t.Errorf("node at version %d after the run went on", d.Node.Version)
	}

	// Pause while it waits: it stops without waiting the wait out.
	f.Analysis.retryBase = time.Hour
	if _, err := f.st.EnqueueAnalyses(context.Background(), []string{f.node}, true); err != nil {
		t.Fatal(err)
	}
	unlimited := llmtest.Reply{Fail: llmtest.FailRateLimit}
	f.script(unlimited, unlimited)
	if _, err := f.Analysis.Resume(); err != nil {
		t.Fatal(err)
	}
	waitFor("waiting an hour", func(st AnalysisStatus) bool { return strings.Contains(st.Message, "going on by itself at") })
	if _, err := f.Analysis.Pause(); err != nil {
		t.Fatal(err)
	}
	st = waitFor("after Pause", func(st AnalysisStatus) bool { return st.State != "running" })
	if st.State != "paused" || st.Queued != 1 {
		t.Errorf("after Pause: %+v", st)
	}
}
