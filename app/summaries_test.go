package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/analyze"
	"rhizome/backend/llm/llmtest"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/summary"
	"rhizome/store"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden/* from the current output")

// sampleSessionIDs are the session ids of app/samples.
var sampleSessionIDs = map[string]string{
	"compact-with-images.jsonl":     "2638daee-0588-4baa-bd33-68b4c002818e",
	"large-session.jsonl":           "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
	"session-with-compaction.jsonl": "5fd1e58c-9635-410e-a644-133a96057c90",
}

// get is Summaries.Get, failing the test on an error.
func (l *testLib) get(t *testing.T, item string) SummaryView {
	t.Helper()
	v, err := l.Summaries.Get(item)
	if err != nil {
		t.Fatalf("Get(%s): %v", item, err)
	}
	return v
}

// summarize runs App.Summarize, failing the test on an error.
func (l *testLib) summarize(t *testing.T, o SummarizeOptions) []Summarized {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	got, err := l.Summarize(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// segmentItems are the node items of a session's segments, in order.
func (l *testLib) segmentItems(t *testing.T, sessionID string) []string {
	t.Helper()
	tl, err := l.Library.Timeline(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range tl {
		out = append(out, nodeKey(s.NodeID).Item)
	}
	return out
}

type goldenItem struct {
	Item   string `json:"item"`
	Title  string `json:"title,omitempty"`
	Label  string `json:"label"`
	Text   string `json:"text"`
	Source string `json:"source"`
}

// Issue 8, section 5: the titles and summaries of the three real sample
// sessions, of their segments (the compaction segments among them) and of
// their project, as the library stores them after an import, without a
// model. testdata/golden/sample-summaries.json is read by eye (go test
// -update rewrites it). Every one is fresh, none comes from a file name, and
// the graph's labels and the sessions' titles are these.
func TestSampleSummariesStored(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, pitest.Samples()...)
	var golden []goldenItem
	add := func(v SummaryView) {
		golden = append(golden, goldenItem{Item: v.Item, Title: v.Title, Label: v.Label, Text: v.Text, Source: v.Source})
		if v.Stale || v.Source == "" || v.Queued == store.QueueModel {
			t.Errorf("%s: %+v", v.Item, v)
		}
		for _, bad := range []string{".jsonl", "User asked:", "Last request:"} {
			if strings.Contains(v.Title+v.Label+v.Text, bad) {
				t.Errorf("%s holds %q: %+v", v.Item, bad, v)
			}
		}
	}
	for _, f := range []string{"compact-with-images.jsonl", "large-session.jsonl", "session-with-compaction.jsonl"} {
		id := sampleSessionIDs[f]
		add(l.get(t, sessionKey(id).Item))
		for _, it := range l.segmentItems(t, id) {
			add(l.get(t, it))
		}
	}
	// The project is made by the worker (queued by the import).
	l.summarize(t, SummarizeOptions{})
	add(l.get(t, projectKey("/Users/badlogic/workspaces/pi-mono").Item))

	// The compaction segment of session-with-compaction: pi's summary of
	// the work before it is segment 0's; the one-entry segment it opens
	// says what it is.
	segs := l.segmentItems(t, sampleSessionIDs["session-with-compaction.jsonl"])
	if v := l.get(t, segs[0]); v.Source != summary.SourcePi || v.Label != "Documentation Review & Update" {
		t.Errorf("segment 0 of session-with-compaction: %+v", v)
	}
	if v := l.get(t, segs[2]); v.Label != "Context compacted" || !strings.Contains(v.Text, "186,045 tokens") {
		t.Errorf("the compaction segment: %+v", v)
	}

	// The graph's labels and the sessions' titles are the summaries'.
	g, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range g.Nodes {
		if v := l.get(t, nodeKey(n.ID).Item); n.Label != v.Label {
			t.Errorf("node %s: graph label %q, summary label %q", n.ID, n.Label, v.Label)
		}
	}
	ss, err := l.Library.Sessions("")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if v := l.get(t, sessionKey(s.ID).Item); s.Title != v.Title || s.Summary != v.Text || strings.HasSuffix(s.Title, ".jsonl") {
			t.Errorf("session %s: title %q, summary %q", s.ID, s.Title, v.Title)
		}
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(golden); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", "sample-summaries.json")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./app -run TestSampleSummariesStored -update writes it)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s differs (go test -update rewrites it; read the diff):\n%s", path, buf.String())
	}
}

// writeLines writes the header and the first n entry lines of a real
// sample to path (n < 0: all of them).
func writeLines(t *testing.T, sample, path string, n int) {
	t.Helper()
	b, err := os.ReadFile(pitest.Sample(sample))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if n >= 0 && n+1 < len(lines) {
		lines = lines[:n+1]
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Stale detection after an append: pi appended to a session imported
// before; the session's summary is stale (made from fewer entries) until
// the worker makes it again from the stored entries; the new segments'
// summaries are made while importing.
func TestSummaryStaleAfterAppend(t *testing.T) {
	l := newTestLib(t)
	path := filepath.Join(t.TempDir(), "2025-12-08T10-00-00-000Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl")
	// 800 entries: segment 0 and the start of segment 1 (a resume at entry
	// 691). The append reads from segment 1 on: the session's summary is
	// not remade while importing.
	writeLines(t, "large-session.jsonl", path, 800)
	l.importPaths(t, path)
	item := sessionKey(sampleSessionIDs["large-session.jsonl"]).Item
	before := l.get(t, item)
	if before.Stale || before.Source != summary.SourceOffline {
		t.Fatalf("after the first import: %+v", before)
	}

	segments := l.segmentItems(t, sampleSessionIDs["large-session.jsonl"])
	writeLines(t, "large-session.jsonl", path, -1)
	rep := l.importReadable(t, path)
	if rep.Files[0].Status != ingest.StatusAppended {
		t.Fatalf("status %s", rep.Files[0].Status)
	}
	stale := l.get(t, item)
	if !stale.Stale || stale.Text != before.Text || stale.Queued != store.QueueOffline {
		t.Errorf("after the append, before the worker: %+v", stale)
	}
	for _, it := range segments { // those summarised before the append keep their summaries
		if v := l.get(t, it); v.Stale || v.Source == "" {
			t.Errorf("segment %s after the append: %+v", it, v)
		}
	}

	l.summarize(t, SummarizeOptions{Offline: true})
	after := l.get(t, item)
	if after.Stale || after.Queued != "" || after.Text == before.Text {
		t.Errorf("after the worker: %+v (before: %q)", after, before.Text)
	}
	// The same as a whole import of the grown file makes.
	whole := newTestLib(t)
	whole.importPaths(t, path)
	if w := whole.get(t, item); w.Text != after.Text || w.Title != after.Title {
		t.Errorf("made again after the append: %q / %q; a whole import: %q / %q", after.Title, after.Text, w.Title, w.Text)
	}
}

// summaryServer is llmtest's OpenAI-compatible model on loopback, counting
// the requests in flight at once.
type summaryServer struct {
	*llmtest.OpenAIServer
	url              string
	inFlight, most   atomic.Int32
	mu               sync.Mutex
	userPrompts      []string
	delayBeforeReply time.Duration
}

func startSummaryModel(t *testing.T) *summaryServer {
	t.Helper()
	s := &summaryServer{OpenAIServer: llmtest.NewOpenAIServer(3)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.inFlight.Add(1)
		var once sync.Once
		end := func() { once.Do(func() { s.inFlight.Add(-1) }) }
		defer end()
		for {
			m := s.most.Load()
			if n <= m || s.most.CompareAndSwap(m, n) {
				break
			}
		}
		// A stream's request is over for the client once it reads [DONE]:
		// it is counted out before that is written, or the next request
		// could arrive before this handler has returned and count twice.
		s.OpenAIServer.ServeHTTP(&endOnDone{ResponseWriter: w, end: end}, r)
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/v1"
	return s
}

// endOnDone calls end before writing a stream's last event ("[DONE]").
type endOnDone struct {
	http.ResponseWriter
	end func()
}

func (w *endOnDone) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("[DONE]")) {
		w.end()
	}
	return w.ResponseWriter.Write(b)
}

func (w *endOnDone) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// useSummaryModel turns summaries with a model on, the generation model
// being base.
func useSummaryModel(t *testing.T, l *testLib, base string, concurrency int) {
	t.Helper()
	if _, err := l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: base, Model: "rhizome-test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Settings.SetSummaries(SummarySettingsInput{UseModel: true, Concurrency: concurrency}); err != nil {
		t.Fatal(err)
	}
}

// A person's edit wins: a title edited by hand stays through a model's
// summaries (made as versions beside it) and a later regeneration; the text
// they left alone is the model's; taking the edit back shows the model's
// title. A segment's edited sentence is its graph label's source too.
func TestHumanEditSurvivesTheModel(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, pitest.Sample("session-with-compaction.jsonl"))
	id := sampleSessionIDs["session-with-compaction.jsonl"]
	item := sessionKey(id).Item
	edited, err := l.Summaries.Edit(item, "Docs pass before the 0.20 release", "")
	if err != nil {
		t.Fatal(err)
	}
	if !edited.Edited || edited.Title != "Docs pass before the 0.20 release" || edited.Source != summary.SourceHuman || edited.Generated == nil {
		t.Fatalf("after the edit: %+v", edited)
	}
	seg := l.segmentItems(t, id)[1]
	if _, err := l.Summaries.Edit(seg, "", "Asked for two short poems about pi instead of more docs."); err != nil {
		t.Fatal(err)
	}

	m := startSummaryModel(t)
	useSummaryModel(t, l, m.url, 2)
	l.summarize(t, SummarizeOptions{})
	l.summarize(t, SummarizeOptions{Items: []string{item, seg}})
	v := l.get(t, item)
	if v.Title != "Docs pass before the 0.20 release" || !v.Edited {
		t.Errorf("the edited title after the model: %+v", v)
	}
	if v.Generated == nil || v.Generated.Source != "model:openai/rhizome-test" || v.Text != v.Generated.Text {
		t.Errorf("the text left alone is not the model's: %+v", v)
	}
	var sources []string
	for _, x := range v.Versions {
		sources = append(sources, x.Source)
	}
	if got := strings.Join(sources, ","); got != "offline,human,model:openai/rhizome-test" {
		t.Errorf("versions %s", got)
	}
	sv := l.get(t, seg)
	if sv.Text != "Asked for two short poems about pi instead of more docs." || sv.Label != "Asked for two short poems" {
		t.Errorf("the edited segment: %+v", sv)
	}
	g, _ := l.Graph.Graph(GraphFilter{SessionID: id, NoKnowledge: true})
	for _, n := range g.Nodes {
		if nodeKey(n.ID).Item == seg && n.Label != sv.Label {
			t.Errorf("graph label %q, want the edit's %q", n.Label, sv.Label)
		}
	}
	ss, _ := l.Library.Sessions("")
	if ss[0].Title != "Docs pass before the 0.20 release" || ss[0].TitleSource != summary.SourceHuman {
		t.Errorf("sidebar: %+v", ss[0])
	}

	back, err := l.Summaries.Revert(item)
	if err != nil {
		t.Fatal(err)
	}
	if back.Edited || back.Source != "model:openai/rhizome-test" || back.Title == edited.Title || len(back.Versions) != 3 {
		t.Errorf("after taking the edit back: %+v", back)
	}
}

// The queue is in the library: summaries queued for the model by an import
// (the worker not running) are made when the library is opened again and
// the worker starts, at most the concurrency setting at once, each told to
// the views with "summary:updated"; the UI's reads answer meanwhile.
func TestSummaryQueueResumesAfterReopening(t *testing.T) {
	m := startSummaryModel(t)
	m.ChunkDelay = 15 * time.Millisecond
	l := newTestLib(t)
	useSummaryModel(t, l, m.url, 2)
	l.importReadable(t, pitest.Samples()...)
	st, err := l.Summaries.QueueStatus()
	if err != nil || st.Queued < 3 || st.Analysing != 3 {
		t.Fatalf("queue after the import: %+v %v", st, err)
	}
	if m.Requests() != 0 {
		t.Fatalf("the import asked the model %d times", m.Requests())
	}
	if err := l.st.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := store.Open(l.path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	a := New(st2, l.path)
	var mu sync.Mutex
	updated := map[string]bool{}
	a.SetEmitter(func(event string, data any) {
		if u, ok := data.(SummariesUpdated); ok && event == "summary:updated" {
			mu.Lock()
			for _, it := range u.Items {
				updated[it] = true
			}
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.StartSummaries(ctx)
	deadline := time.Now().Add(60 * time.Second)
	// Reads that began and ended while a model request was open: the
	// worker does not hold the library while it waits for the model.
	during := 0
	for {
		open := m.inFlight.Load() > 0
		if _, err := a.Library.Sessions(""); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Graph.Graph(GraphFilter{}); err != nil {
			t.Fatal(err)
		}
		if open && m.inFlight.Load() > 0 {
			during++
		}
		q, err := a.Summaries.QueueStatus()
		if err != nil {
			t.Fatal(err)
		}
		if q.Queued == 0 && q.Running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue is not done: %+v", q)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if during == 0 {
		t.Error("no read of the library answered while a model request was open")
	}
	if most := m.most.Load(); most > 2 || most < 1 {
		t.Errorf("%d model requests at once, the concurrency setting is 2", most)
	}
	for f, id := range sampleSessionIDs {
		it := sessionKey(id).Item
		row, _, err := st2.Summary(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		if row.Shown.Source != "model:openai/rhizome-test" || row.Stale() {
			t.Errorf("%s after the worker: %+v", f, row)
		}
		mu.Lock()
		if !updated[it] {
			t.Errorf("no summary:updated for %s", it)
		}
		mu.Unlock()
	}
}

// A model failure (429, 500, a timeout, a refusal, an empty reply, a reply
// without the title asked for) leaves the previous summary shown, records
// the error on the item, and tries again after a back-off (5 s, then
// longer); once the model answers, its summary shows and the error goes.
// OpenAI and Anthropic wire protocols alike.
func TestModelFailureKeepsThePreviousSummary(t *testing.T) {
	type failure struct {
		name    string
		replies []llmtest.Reply
		slow    bool // the model takes longer than the worker waits
		want    string
	}
	failures := []failure{
		// The client retries once itself: two 429s make one failure.
		{"429", []llmtest.Reply{{Fail: llmtest.FailRateLimit}, {Fail: llmtest.FailRateLimit}}, false, "429"},
		{"500", []llmtest.Reply{{Fail: llmtest.FailServer}, {Fail: llmtest.FailServer}}, false, "500"},
		{"timeout", nil, true, "did not answer within"},
		{"refusal", []llmtest.Reply{{Text: "I'm sorry, but I can't help with summarizing this conversation."}}, false, "refusal"},
		{"empty", []llmtest.Reply{{Text: "   "}}, false, "empty"},
		{"garbage", []llmtest.Reply{{Text: "Summary: lorem ipsum"}}, false, "no title"},
	}
	for _, provider := range []string{"openai", "anthropic"} {
		for _, f := range failures {
			if f.slow && provider == "anthropic" {
				continue // llmtest's Anthropic server does not stream slowly
			}
			t.Run(provider+"/"+f.name, func(t *testing.T) {
				l := newTestLib(t)
				l.importPaths(t, pitest.Sample("session-with-compaction.jsonl"))
				item := sessionKey(sampleSessionIDs["session-with-compaction.jsonl"]).Item
				var slow atomic.Bool
				offline := l.get(t, item)
				if offline.Source != summary.SourceOffline {
					t.Fatalf("before any model: %+v", offline)
				}

				var base, model string
				var script func(...llmtest.Reply)
				switch provider {
				case "openai":
					s := llmtest.NewOpenAIServer(5)
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if slow.Load() {
							select { // a model that does not answer in time
							case <-time.After(2 * time.Second):
							case <-r.Context().Done():
								return
							}
						}
						s.ServeHTTP(w, r)
					}))
					t.Cleanup(srv.Close)
					base, model, script = srv.URL+"/v1", "gpt-test", s.Script
				default:
					s := llmtest.NewAnthropicServer(5)
					url, stop, err := s.Start("127.0.0.1:0")
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { stop(context.Background()) })
					base, model, script = url, "claude-test", s.Script
				}
				if _, err := l.Settings.SetSummaries(SummarySettingsInput{UseModel: true, Provider: provider, BaseURL: base, Model: model}); err != nil {
					t.Fatal(err)
				}
				w := l.c.summaries
				clock := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
				w.now = func() time.Time { return clock }
				w.idleWait = 0
				// Every item gets the model's summary first: the one to keep.
				l.summarize(t, SummarizeOptions{})
				previous := l.get(t, item)
				if previous.Source != "model:"+provider+"/"+model || previous.Text == offline.Text {
					t.Fatalf("the model's first summary: %+v", previous)
				}
				if f.slow {
					w.timeout = 150 * time.Millisecond
					slow.Store(true)
				}
				script(f.replies...)

				got := l.summarize(t, SummarizeOptions{Items: []string{item}})
				v := l.get(t, item)
				if v.Text != previous.Text || v.Title != previous.Title || v.Source != previous.Source {
					t.Errorf("the summary shown changed: %+v", v)
				}
				if !strings.Contains(v.Error, f.want) || v.Attempts != 1 || v.Queued != store.QueueModel {
					t.Errorf("error %q (want %q), attempts %d, queued %q", v.Error, f.want, v.Attempts, v.Queued)
				}
				if len(got) != 1 || !got[0].FailedNow {
					t.Errorf("Summarize reported %+v", got)
				}
				row, _, _ := l.st.Summary(context.Background(), item)
				if d := row.NextTry.Sub(clock); d != 5*time.Second {
					t.Errorf("next try in %s, want the first back-off, 5s", d)
				}
				// Not before the back-off; then the model answers.
				w.timeout = 30 * time.Second
				slow.Store(false)
				l.summarize(t, SummarizeOptions{})
				if v := l.get(t, item); v.Text != previous.Text || v.Attempts != 1 {
					t.Errorf("tried again before the back-off: %+v", v)
				}
				clock = clock.Add(6 * time.Second)
				l.summarize(t, SummarizeOptions{})
				v = l.get(t, item)
				if v.Source != "model:"+provider+"/"+model || v.Text == previous.Text || v.Error != "" || v.Attempts != 0 || v.Queued != "" || v.Stale {
					t.Errorf("after the back-off: %+v", v)
				}
			})
		}
	}
}

// backoff: 5 s, 20 s, 80 s, ... at most 30 minutes; a longer Retry-After
// wins.
func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 5 * time.Second, 2: 20 * time.Second, 3: 80 * time.Second, 9: 30 * time.Minute} {
		if got := backoff(n, nil); got != want {
			t.Errorf("backoff(%d) = %s, want %s", n, got, want)
		}
	}
}

// Cancel empties the queue and abandons the model's requests under way:
// nothing more is written, the offline summaries stay.
func TestSummaryCancel(t *testing.T) {
	m := startSummaryModel(t)
	m.ChunkDelay = 400 * time.Millisecond
	l := newTestLib(t)
	useSummaryModel(t, l, m.url, 2)
	l.importReadable(t, pitest.Samples()...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l.StartSummaries(ctx)
	deadline := time.Now().Add(20 * time.Second)
	for m.Requests() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	st, err := l.Summaries.Cancel()
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued > st.Analysing {
		t.Errorf("after Cancel: %+v; want at most the derivation of the sessions still being analysed", st)
	}
	// The derivation Cancel kept runs to its end (offline), then nothing.
	for q, _ := l.Summaries.QueueStatus(); q.Analysing > 0 || q.Running > 0; q, _ = l.Summaries.QueueStatus() {
		if time.Now().After(deadline.Add(60 * time.Second)) {
			t.Fatalf("the derivation kept by Cancel does not end: %+v", q)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	var models int
	if err := l.db(t).QueryRow(`SELECT count(*) FROM summary_versions WHERE source LIKE 'model:%'`).Scan(&models); err != nil {
		t.Fatal(err)
	}
	if models != 0 {
		t.Errorf("%d model summaries written after Cancel", models)
	}
	if q, _ := l.Summaries.QueueStatus(); q.Running != 0 || q.Queued != 0 {
		t.Errorf("queue after Cancel: %+v", q)
	}
	for _, id := range sampleSessionIDs {
		if v := l.get(t, sessionKey(id).Item); v.Source != summary.SourceOffline {
			t.Errorf("%s: %+v", id, v)
		}
	}
}

// Loom trees: each node gets its offline summary (shown on the node, where
// the tree map's hover reads it); the tree's summary is made when the tree
// is made and again every LoomTreeEvery new nodes, or on demand.
func TestLoomSummaries(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Settings.SetSummaries(SummarySettingsInput{LoomTreeEvery: 4}); err != nil {
		t.Fatal(err)
	}
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Title: "The lighthouse keeper", Mode: "dialogue",
		RootText: "Write the opening of a story about a lighthouse keeper who collects storms in jars."})
	if err != nil {
		t.Fatal(err)
	}
	treeID := tv.Tree.ID
	tree := loomTreeKey(treeID).Item
	settle := func() {
		t.Helper()
		time.Sleep(50 * time.Millisecond) // the loom:changed listener queues the tree from a goroutine
		l.summarize(t, SummarizeOptions{Offline: true})
	}
	settle()
	first := l.get(t, tree)
	if first.Title != "The lighthouse keeper" || first.Source != summary.SourceOffline {
		t.Fatalf("the new tree's summary: %+v", first)
	}
	parent := tv.Tree.RootNodeID
	for i, text := range []string{"She kept the storms in a cellar, labelled by year.", "One jar had cracked.",
		"The cracked jar hummed at night.", "Her brother came to visit in the spring."} {
		n, err := l.Loom.AddNode(treeID, parent, text)
		if err != nil {
			t.Fatal(err)
		}
		parent = n.ID
		settle()
		v := l.get(t, tree)
		if i < 3 && v.MadeAt != first.MadeAt {
			t.Errorf("tree summary made again after %d new nodes", i+1)
		}
		if i == 3 && (v.MadeAt == first.MadeAt || !strings.Contains(v.Text, "5 nodes")) {
			t.Errorf("tree summary not made again after 4 new nodes: %+v", v)
		}
		if nv := l.get(t, loomNodeKey(treeID, n.ID).Item); nv.Text != text {
			t.Errorf("node %s: %+v", n.ID, nv)
		}
	}
	full, err := l.Loom.Tree(treeID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range full.Nodes {
		if n.Summary == "" {
			t.Errorf("loom node %s shows no summary", n.LocalID)
		}
	}
	trees, _ := l.Loom.ListTrees(false)
	if len(trees) != 1 || !strings.Contains(trees[0].Summary, "5 nodes") {
		t.Errorf("tree list: %+v", trees)
	}
	// On demand.
	if _, err := l.Summaries.Regenerate([]string{tree}); err != nil {
		t.Fatal(err)
	}
	l.summarize(t, SummarizeOptions{Offline: true})
	if v := l.get(t, tree); v.Queued != "" {
		t.Errorf("regenerated tree still queued: %+v", v)
	}
}

// Items that have no summary, or are no items, are refused with errors that
// say so; an edit over the limits is refused and changes nothing.
func TestSummaryErrors(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, pitest.Sample("session-with-compaction.jsonl"))
	if _, err := l.Summaries.Get("rhizome:entry/a/b"); err == nil || !strings.Contains(err.Error(), "has no summary") {
		t.Errorf("entry: %v", err)
	}
	if _, err := l.Summaries.Get("nonsense"); err == nil {
		t.Error("a bad URI was taken")
	}
	if _, err := l.Summaries.Get("rhizome:session/no-such-session"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a session the library does not hold: %v", err)
	}
	// A loom tree just written has no summary until the queue makes one: it
	// is in the library, so its view is empty, not an error (the window
	// asks as soon as the node is drawn).
	tv, err := l.Loom.CreateTree(LoomTreeSpec{Title: "Moss", Mode: "dialogue", RootText: "Write a haiku about moss."})
	if err != nil {
		t.Fatal(err)
	}
	root := loomNodeKey(tv.Tree.ID, tv.Tree.RootNodeID).Item
	if v, err := l.Summaries.Get(root); err != nil || v.Source != "" || v.Item != root || v.Kind != "loomNode" || v.Versions == nil {
		t.Errorf("a loom node without a summary yet: %+v, %v", v, err)
	}
	if _, err := l.Summaries.Get(loomNodeKey(tv.Tree.ID, "no-such-node").Item); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a loom node the tree does not hold: %v", err)
	}
	node := nodeKey(analyze.NodeID(sampleSessionIDs["session-with-compaction.jsonl"], 0)).Item
	if _, err := l.Summaries.Edit(node, "A title", ""); err == nil {
		t.Error("a segment took a title")
	}
	if _, err := l.Summaries.Edit(sessionKey(sampleSessionIDs["session-with-compaction.jsonl"]).Item, strings.Repeat("long ", 40), ""); err == nil {
		t.Error("an overlong title was taken")
	}
	if v := l.get(t, node); v.Edited {
		t.Errorf("a refused edit changed %+v", v)
	}
}
