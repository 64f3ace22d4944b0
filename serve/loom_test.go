package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"rhizome/app"
	"rhizome/backend/llm/llmtest"
)

// testAPIKey is the key the served loom tests configure: it must never come
// back out of the server.
const testAPIKey = "sk-rhizome-serve-test-5b1e0c93"

// servedLoom is a library whose model is llmtest's fake OpenAI-compatible
// server (with testAPIKey), served over httptest, and call, which posts a
// use case, fails the test when the answer carries the key, decodes it into
// out and returns the status.
func servedLoom(t *testing.T) (l *testLib, hs *httptest.Server, token string, call func(method string, out any, args ...any) int) {
	t.Helper()
	l = newTestLib(t)
	fake := llmtest.NewOpenAIServer(7)
	fake.APIKey = testAPIKey
	model := httptest.NewServer(fake)
	t.Cleanup(model.Close)
	if _, err := l.Settings.SetLLM(app.LLMSettingsInput{Provider: "openai", BaseURL: model.URL + "/v1", Model: "rhizome-test",
		N: 3, MaxTokens: 12, APIKey: testAPIKey}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(l.App, nil)
	if err != nil {
		t.Fatal(err)
	}
	hs = httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	call = func(method string, out any, args ...any) int {
		t.Helper()
		body, _ := json.Marshal(args)
		res, err := http.Post(hs.URL+"/api/"+method+"?token="+srv.token, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if strings.Contains(string(b), testAPIKey) {
			t.Errorf("%s carries the API key: %.300s", method, b)
		}
		if out != nil {
			if err := json.Unmarshal(b, out); err != nil {
				t.Fatalf("%s: %v: %s", method, err, b)
			}
		}
		return res.StatusCode
	}
	return l, hs, srv.token, call
}

// The use cases over HTTP: create, generate with deltas on the event
// stream, and settings that never show the key.
func TestLoomHTTP(t *testing.T) {
	_, hs, token, call := servedLoom(t)

	var sv app.SettingsView
	if code := call("Settings/Get", &sv); code != 200 || !sv.LLM.APIKeySet || !sv.LLM.Configured || sv.LLM.Model != "rhizome-test" {
		t.Errorf("Settings.Get: %d %+v", code, sv)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+"/api/events?token="+token, nil)
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	type sse struct{ name, data string }
	got := make(chan sse, 1024)
	go func() {
		sc := bufio.NewScanner(stream.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data: "); ok {
				got <- sse{name, v}
			}
		}
		close(got)
	}()
	time.Sleep(50 * time.Millisecond) // let the stream register

	var tv app.LoomTreeView
	if code := call("Loom/CreateTree", &tv, app.LoomTreeSpec{Mode: "dialogue", RootText: "Hello, moss."}); code != 200 || tv.Tree.ID == "" {
		t.Fatalf("CreateTree: %d %+v", code, tv)
	}
	var res app.LoomGenerated
	if code := call("Loom/Generate", &res, app.LoomGenerateRequest{TreeID: tv.Tree.ID, ActivePath: tv.ActivePath, N: 3, RequestID: "http-1"}); code != 200 || len(res.Nodes) != 3 {
		t.Fatalf("Generate: %d %+v", code, res)
	}
	texts := map[int]string{}
	deadline := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-got:
			switch ev.name {
			case "loom:delta":
				var d app.LoomDelta
				json.Unmarshal([]byte(ev.data), &d)
				texts[d.Index] += d.Text
			case "loom:done":
				var d app.LoomGenerated
				json.Unmarshal([]byte(ev.data), &d)
				if !reflect.DeepEqual(d, res) {
					t.Errorf("loom:done %+v, Generate returned %+v", d, res)
				}
				done = true
			}
		case <-deadline:
			t.Fatal("no loom:done on the event stream")
		}
	}
	for i, n := range res.Nodes {
		if texts[i] != n.Text {
			t.Errorf("node %d: streamed %q, text %q", i, texts[i], n.Text)
		}
	}

	var e struct{ Error string }
	if code := call("Loom/Edit", &e, tv.Tree.ID, res.Nodes[0].ID, res.Nodes[0].Text); code < 400 || !strings.Contains(e.Error, "changes nothing") {
		t.Errorf("Edit changing nothing: %d %q", code, e.Error)
	}
	var runs []app.AuthorshipRun
	if code := call("Loom/Authorship", &runs, tv.Tree.ID, res.Nodes[0].ID, "raw"); code != 200 ||
		len(runs) != 1 || runs[0].Author != "model" {
		t.Errorf("Authorship: %d %+v", code, runs)
	}
}

// Importing a tree the library already holds is a conflict: 409, the error
// saying it is already in the library (the page then offers a copy), not a
// server error; Loom.ImportCopy of the same file is 200.
func TestServeLoomImportConflict(t *testing.T) {
	l, _, _, call := servedLoom(t)
	tv, err := l.Loom.CreateTree(app.LoomTreeSpec{Mode: "buffer", Title: "Jar of storms", RootText: "The keeper"})
	if err != nil {
		t.Fatal(err)
	}
	exported, err := l.Loom.Export(tv.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	content := base64.StdEncoding.EncodeToString([]byte(exported))
	var e struct{ Error string }
	if code := call("Loom/Import", &e, "jar.loom.json", content); code != http.StatusConflict || !strings.Contains(e.Error, "already in the library") {
		t.Errorf("importing a tree the library holds: %d %q, want 409", code, e.Error)
	}
	var cp app.LoomImportResult
	if code := call("Loom/ImportCopy", &cp, "jar.loom.json", content); code != 200 || cp.Tree.CopiedFrom != tv.Tree.ID {
		t.Errorf("ImportCopy: %d %+v", code, cp.Tree)
	}
}
