package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestFixtures replays the recorded-format responses in testdata through
// the real clients, over HTTP, and compares the parsed completions and
// their deltas with testdata/golden/*.json (rewrite with -update).
func TestFixtures(t *testing.T) {
	dialogue := []Message{{Role: RoleSystem, Text: "You continue stories."}, {Role: RoleUser, Text: "Begin."}}
	cases := []struct {
		fixture     string
		contentType string
		provider    string
		req         Request
	}{
		{"openai_chat_n3.sse", "text/event-stream", ProviderOpenAI, Request{Messages: dialogue, N: 3}},
		{"openai_completions_n2.sse", "text/event-stream", ProviderOpenAI, Request{Prompt: "Once", N: 2}},
		{"openrouter_chat_comments.sse", "text/event-stream; charset=utf-8", ProviderOpenAI, Request{Messages: dialogue}},
		// Answered as JSON although a stream was asked for.
		{"openai_chat_n2.json", "application/json", ProviderOpenAI, Request{Messages: dialogue, N: 2}},
		{"anthropic_stream.sse", "text/event-stream; charset=utf-8", ProviderAnthropic, Request{Messages: dialogue}},
		{"anthropic_stream_thinking.sse", "text/event-stream", ProviderAnthropic, Request{Messages: dialogue}},
		{"anthropic_message.json", "application/json", ProviderAnthropic, Request{Messages: dialogue}},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			body := readFixture(t, tc.fixture)
			srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = w.Write(body)
			}))
			var p Provider
			if tc.provider == ProviderOpenAI {
				p, _ = newOpenAITest(t, srv.URL+"/v1")
			} else {
				p, _ = newAnthropicTest(t, srv.URL)
			}
			var d deltaLog
			got, err := p.Generate(context.Background(), tc.req, d.add)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(rec.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			checkIndices(t, got, max(tc.req.N, 1))
			checkDeltasMatch(t, got, &d)
			sum := sha256.Sum256(body)
			for _, c := range got {
				if !bytes.Equal(c.Raw, body) || c.RawSHA256() != hex.EncodeToString(sum[:]) {
					t.Errorf("completion %d: Raw is not the response body as served", c.Index)
				}
			}
			compareGolden(t, tc.fixture, golden{Completions: got, Deltas: d.byIndex})
		})
	}
}

// golden is what a fixture parses to.
type golden struct {
	Completions []Completion     `json:"completions"`
	Deltas      map[int][]string `json:"deltas"`
}

func compareGolden(t *testing.T, fixture string, g golden) {
	t.Helper()
	type withHash struct {
		Completion
		RawSHA256 string `json:"rawSha256"`
	}
	out := struct {
		Completions []withHash       `json:"completions"`
		Deltas      map[int][]string `json:"deltas"`
	}{Deltas: g.Deltas}
	for _, c := range g.Completions {
		out.Completions = append(out.Completions, withHash{c, c.RawSHA256()})
	}
	got, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", fixture+".json")
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
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the parse:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
