package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// The command prints its base URL first, then answers there as an
// OpenAI-compatible server does: a streamed chat completion with n choices;
// it stops when its context ends. A non-loopback address is refused.
func TestFakeModelServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--delay", "0s"}, pw, io.Discard)
		pw.Close()
	}()
	base, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base = strings.TrimSpace(base)
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("first line %q, want http://127.0.0.1:PORT/v1", base)
	}
	body, _ := json.Marshal(map[string]any{"model": "rhizome-test", "n": 2, "stream": true,
		"messages": []map[string]string{{"role": "user", "content": "Hello"}}})
	res, err := http.Post(base+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), `"index":1`) || !strings.Contains(string(b), "data: [DONE]") {
		t.Errorf("chat completion: HTTP %d %.400s", res.StatusCode, b)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Error("did not stop when its context ended")
	}
	if code := run(context.Background(), []string{"--addr", "0.0.0.0:0"}, io.Discard, io.Discard); code != 1 {
		t.Errorf("on 0.0.0.0: exit status %d, want 1", code)
	}
}

// With --script, the replies of a JSON list of texts answer the first
// requests, in order, then made-up words again; a script that is not a list
// of strings is refused, naming the file.
func TestFakeModelScript(t *testing.T) {
	dir := t.TempDir()
	script := dir + "/script.json"
	if err := os.WriteFile(script, []byte(`["{\"add_nodes\": [], \"add_edges\": []}", "second"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		run(ctx, []string{"--delay", "0s", "--script", script}, pw, io.Discard)
		pw.Close()
	}()
	base, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	base = strings.TrimSpace(base)
	ask := func() string {
		body, _ := json.Marshal(map[string]any{"model": "rhizome-test", "messages": []map[string]string{{"role": "user", "content": "Hello"}}})
		res, err := http.Post(base+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || len(out.Choices) == 0 {
			t.Fatalf("HTTP %d: %v", res.StatusCode, err)
		}
		return out.Choices[0].Message.Content
	}
	if got := ask(); got != `{"add_nodes": [], "add_edges": []}` {
		t.Errorf("first reply %q, want the script's first", got)
	}
	if got := ask(); got != "second" {
		t.Errorf("second reply %q", got)
	}
	if got := ask(); got == "" || got == "second" {
		t.Errorf("after the script: %q, want made-up words", got)
	}

	bad := dir + "/bad.json"
	os.WriteFile(bad, []byte(`{"replies": 1}`), 0o644)
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"--script", bad}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), bad) {
		t.Errorf("a script that is no list: exit %d, %q", code, errb.String())
	}
}
