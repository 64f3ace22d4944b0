package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
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
