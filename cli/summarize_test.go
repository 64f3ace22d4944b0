package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"rhizome/app"
	"rhizome/backend/llm/llmtest"
	"rhizome/store"
)

type cliSummaries struct {
	Summaries []struct {
		Item   string `json:"item"`
		Kind   string `json:"kind"`
		Title  string `json:"title"`
		Text   string `json:"text"`
		Source string `json:"source"`
		Stale  bool   `json:"stale"`
		Error  string `json:"error"`
	} `json:"summaries"`
}

// summarizeJSON runs `rhizome summarize --json` with args and returns what it
// printed and its exit status.
func summarizeJSON(t *testing.T, args ...string) (cliSummaries, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"summarize", "--json"}, args...), &out, &errb)
	var got cliSummaries
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("summarize --json printed no JSON (%v): %s\nstderr: %s", err, out.String(), errb.String())
	}
	return got, code, errb.String()
}

// sawModel is an OpenAI-compatible model on loopback (llmtest) that
// records the model names and API keys it was asked with.
type sawModel struct {
	url    string
	mu     sync.Mutex
	models map[string]int
	keys   map[string]bool
}

func startSawModel(t *testing.T) *sawModel {
	t.Helper()
	fake := llmtest.NewOpenAIServer(2)
	m := &sawModel{models: map[string]int{}, keys: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		buf := new(bytes.Buffer)
		buf.ReadFrom(r.Body)
		json.Unmarshal(buf.Bytes(), &body)
		m.mu.Lock()
		m.models[body.Model]++
		m.keys[r.Header.Get("Authorization")] = true
		m.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	m.url = srv.URL + "/v1"
	return m
}

// Issue 8, section 4: `summarize --json` on a library of the real sessions
// prints every session's and the project's summary, offline by default
// (no model is configured); every one has a title, a text and source
// "offline", none stale; an item named prints that item; an item that is
// not one is an error.
func TestSummarizeCommandOffline(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lib.db")
	if _, code := importJSON(t, db, "../app/samples"); code != 0 {
		t.Fatalf("import: exit status %d", code)
	}
	got, code, stderr := summarizeJSON(t, "--db", db)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	kinds := map[string]int{}
	for _, s := range got.Summaries {
		kinds[s.Kind]++
		if s.Source != "offline" && s.Source != "pi" || s.Stale || s.Text == "" || s.Kind != "segment" && s.Title == "" {
			t.Errorf("%+v", s)
		}
		if strings.Contains(s.Title, ".jsonl") {
			t.Errorf("a title from a file name: %+v", s)
		}
	}
	if kinds["session"] != 3 || kinds["project"] != 1 {
		t.Errorf("kinds printed: %v", kinds)
	}
	item := "rhizome:session/5fd1e58c-9635-410e-a644-133a96057c90"
	one, code, _ := summarizeJSON(t, "--db", db, "--offline", item)
	if code != 0 || len(one.Summaries) != 1 || one.Summaries[0].Item != item || one.Summaries[0].Title != "Documentation Review & Update" {
		t.Errorf("summarize %s: %d %+v", item, code, one)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"summarize", "--db", db, "rhizome:entry/a/b"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "has no summary") {
		t.Errorf("an entry: exit status %d, stderr %q", code, errb.String())
	}
	// Text output.
	out.Reset()
	if code := run(context.Background(), []string{"summarize", "--db", db, item}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "Documentation Review & Update  [session, offline]") {
		t.Errorf("text output (%d): %s", code, out.String())
	}
}

// --base-url and --model give the model for one run: summarize asks it
// (and only it) for every session, segment and project; the library's
// settings are left as they were. --offline wins over them. The
// RHIZOME_LLM_* variables do the same, the flags winning over them, the
// key sent as the bearer token.
func TestSummarizeCommandModelForOneRun(t *testing.T) {
	m := startSawModel(t)
	db := filepath.Join(t.TempDir(), "lib.db")
	if _, code := importJSON(t, db, "../app/samples/session-with-compaction.jsonl"); code != 0 {
		t.Fatal("import failed")
	}
	off, code, _ := summarizeJSON(t, "--db", db, "--offline", "--base-url", m.url, "--model", "flag-model")
	if code != 0 || len(m.models) != 0 {
		t.Fatalf("--offline asked the model: %v (exit %d)", m.models, code)
	}
	for _, s := range off.Summaries {
		if strings.HasPrefix(s.Source, "model:") {
			t.Errorf("--offline: %+v", s)
		}
	}

	got, code, stderr := summarizeJSON(t, "--db", db, "--base-url", m.url, "--model", "flag-model")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	bySource := map[string]int{}
	for _, s := range got.Summaries {
		bySource[s.Source]++
	}
	// Segment 0's summary is pi's (its compaction): not asked of the model.
	if bySource["model:openai/flag-model"] < 4 || len(m.models) != 1 || m.models["flag-model"] < 4 {
		t.Errorf("sources %v; the model was asked with %v", bySource, m.models)
	}
	lib, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	view, err := app.New(lib, db).Settings.Get()
	lib.Close()
	if err != nil || view.LLM.Model != "" || view.Summaries.UseModel {
		t.Errorf("the library's settings changed: %+v %v", view, err)
	}

	// The environment, the flag winning; the key as the bearer token.
	t.Setenv(app.EnvLLMBaseURL, m.url)
	t.Setenv(app.EnvLLMModel, "env-model")
	t.Setenv(app.EnvLLMAPIKey, "sk-from-env")
	item := "rhizome:session/5fd1e58c-9635-410e-a644-133a96057c90"
	one, code, _ := summarizeJSON(t, "--db", db, item)
	if code != 0 || len(one.Summaries) != 1 || one.Summaries[0].Source != "model:openai/env-model" {
		t.Errorf("with RHIZOME_LLM_*: %d %+v", code, one)
	}
	one, _, _ = summarizeJSON(t, "--db", db, "--model", "flag-wins", item)
	if len(one.Summaries) != 1 || one.Summaries[0].Source != "model:openai/flag-wins" {
		t.Errorf("--model over RHIZOME_LLM_MODEL: %+v", one)
	}
	m.mu.Lock()
	if !m.keys["Bearer sk-from-env"] {
		t.Errorf("keys sent: %v", m.keys)
	}
	m.mu.Unlock()

	// A bad base URL is refused before anything is done.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"summarize", "--db", db, "--base-url", "ftp://x"}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "baseUrl") {
		t.Errorf("a bad base URL: exit %d, %q", code, errb.String())
	}
}

// A model that fails leaves the previous summaries, says so on stderr, and
// makes the exit status 1.
func TestSummarizeCommandModelFailure(t *testing.T) {
	// Every request fails as OpenAI's servers do (a 500 with an error body).
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`))
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "lib.db")
	if _, code := importJSON(t, db, "../app/samples/session-with-compaction.jsonl"); code != 0 {
		t.Fatal("import failed")
	}
	item := "rhizome:session/5fd1e58c-9635-410e-a644-133a96057c90"
	got, code, stderr := summarizeJSON(t, "--db", db, "--base-url", srv.URL+"/v1", "--model", "m", item)
	if code != 1 || !strings.Contains(stderr, "the model failed, the previous summary stays") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if len(got.Summaries) != 1 || got.Summaries[0].Source != "offline" || !strings.Contains(got.Summaries[0].Error, "500") {
		t.Errorf("printed %+v", got)
	}
}
