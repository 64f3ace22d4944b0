package llm

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// bodyTransport answers every request with status and body, without a
// network: the fuzz target drives the real clients' response parsing.
type bodyTransport struct {
	status      int
	contentType string
	body        []byte
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: b.status, Status: http.StatusText(b.status), Request: r,
		Header: http.Header{"Content-Type": {b.contentType}}, Body: io.NopCloser(bytes.NewReader(b.body))}, nil
}

// FuzzResponses feeds arbitrary response bodies, streamed and not, to both
// clients, for plain and structured (JSONSchema) requests: they must return
// completions or an error, never panic, and a completion's text must be the
// concatenation of its deltas.
func FuzzResponses(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"), true, 200)
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"usage\":{\"input_tokens\":1}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"), true, 200)
	f.Add([]byte(`{"choices":[{"index":0,"message":{"content":"x"},"finish_reason":"stop"}]}`), false, 200)
	f.Add([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`), false, 429)
	f.Add([]byte("data: {\"choices\":[{\"index\":7,\"delta\":{}}]}\n"), true, 200)
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"No\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"), true, 200)
	f.Add([]byte("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"name\":\"s\",\"input\":{}}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\"}}\n\nevent: message_stop\ndata: {}\n\n"), true, 200)
	f.Add([]byte(`{"type":"message","content":[{"type":"tool_use","name":"s","input":{"a":1}}],"stop_reason":"tool_use"}`), false, 200)
	f.Fuzz(func(t *testing.T, body []byte, stream bool, status int) {
		if status < 100 || status > 599 {
			status = 200
		}
		ct := "application/json"
		if stream {
			ct = "text/event-stream"
		}
		client := &http.Client{Transport: bodyTransport{status, ct, body}}
		noRetry := RetryPolicy{}
		schema := &JSONSchema{Name: "s", Schema: []byte(`{"type":"object"}`)}
		for _, run := range []struct {
			provider string
			schema   *JSONSchema
		}{{"openai", nil}, {"anthropic", nil}, {"openai", schema}, {"anthropic", schema}} {
			provider := run.provider
			cfg := Config{Provider: provider, BaseURL: "http://127.0.0.1:1", Model: "m", N: 2, NoStream: !stream}
			var p Provider
			switch provider {
			case "openai":
				o, err := NewOpenAI(cfg)
				if err != nil {
					t.Fatal(err)
				}
				o.HTTPClient, o.Retry = client, noRetry
				p = o
			default:
				a, err := NewAnthropic(cfg)
				if err != nil {
					t.Fatal(err)
				}
				a.HTTPClient, a.Retry = client, noRetry
				p = a
			}
			deltas := map[int]*strings.Builder{}
			comps, err := p.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "hi"}}, JSONSchema: run.schema}, func(d Delta) {
				if deltas[d.Index] == nil {
					deltas[d.Index] = &strings.Builder{}
				}
				deltas[d.Index].WriteString(d.Text)
			})
			if err != nil {
				continue
			}
			for _, c := range comps {
				if (run.schema != nil) != (c.Structured != "") {
					t.Errorf("%s: structured %v, completion mode %q", provider, run.schema != nil, c.Structured)
				}
				if stream && deltas[c.Index] != nil && deltas[c.Index].String() != c.Text {
					t.Errorf("%s: completion %d text %q is not its deltas %q", provider, c.Index, c.Text, deltas[c.Index].String())
				}
			}
		}
	})
}
