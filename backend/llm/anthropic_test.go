package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// anEvent writes one named Anthropic SSE event.
func anSSE(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

// anthropicStream is a whole, well-formed Messages stream for text, split
// in pieces, as the "Streaming Messages" docs show it.
func anthropicStream(id string, pieces []string, stop string) string {
	var b strings.Builder
	b.WriteString(anSSE("message_start", `{"type":"message_start","message":{"id":"`+id+`","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":1}}}`))
	b.WriteString(anSSE("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	b.WriteString(anSSE("ping", `{"type": "ping"}`))
	for _, p := range pieces {
		q, _ := json.Marshal(p)
		b.WriteString(anSSE("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(q)+`}}`))
	}
	b.WriteString(anSSE("content_block_stop", `{"type":"content_block_stop","index":0}`))
	b.WriteString(anSSE("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":`+fmt.Sprint(len(pieces))+`}}`))
	b.WriteString(anSSE("message_stop", `{"type":"message_stop"}`))
	return b.String()
}

// N=3 is three requests at once, with the Messages API's headers and body.
func TestAnthropicStreamN3(t *testing.T) {
	texts := [][]string{{"Roots", " drink", "."}, {"Moss", " keeps", " time", "."}, {"A", " fork", " opens", "."}}
	var count atomic.Int32
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(count.Add(1)) - 1
		startSSE(w)
		// Flush event by event, as the API does.
		for _, ev := range strings.SplitAfter(anthropicStream(fmt.Sprintf("msg_%d", i), texts[i%3], "end_turn"), "\n\n") {
			if ev != "" {
				writeFlushed(w, ev)
			}
		}
	}))
	c, _ := newAnthropicTest(t, srv.URL, func(c *Config) { c.Temperature = ptr(0.7) })
	msgs := []Message{
		{Role: RoleSystem, Text: "You weave."},
		{Role: RoleUser, Text: "Go on."},
		{Role: RoleAssistant, Text: "The loom"},
		{Role: RoleSystem, Text: "Be brief."},
		{Role: RoleUser, Text: "More."},
	}
	var d deltaLog
	got, err := c.Generate(context.Background(), Request{Messages: msgs, N: 3, Stop: []string{"\n\nHuman:"}}, d.add)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 3)
	checkDeltasMatch(t, got, &d)
	var gotTexts []string
	for _, c := range got {
		gotTexts = append(gotTexts, c.Text)
		if c.FinishReason != "stop" || c.Usage.InputTokens != 21 || c.Usage.OutputTokens == 0 || c.Usage.SharedBy != 0 {
			t.Errorf("completion %d: finish %q usage %+v", c.Index, c.FinishReason, c.Usage)
		}
		if !strings.HasPrefix(string(c.Raw), "event: message_start\n") || !strings.HasSuffix(string(c.Raw), "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n") {
			t.Errorf("completion %d: Raw is not its whole stream: %q", c.Index, c.Raw)
		}
	}
	sort.Strings(gotTexts)
	if want := "A fork opens.|Moss keeps time.|Roots drink."; strings.Join(gotTexts, "|") != want {
		t.Errorf("texts %q, want %q", gotTexts, want)
	}

	reqs := rec.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3 (the API has no n)", len(reqs))
	}
	for _, r := range reqs {
		if r.Method != "POST" || r.Path != "/v1/messages" {
			t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.Path)
		}
		for h, want := range map[string]string{
			"X-Api-Key":         testKey,
			"Anthropic-Version": "2023-06-01",
			"Content-Type":      "application/json",
			"Authorization":     "",
		} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("header %s = %q, want %q", h, got, want)
			}
		}
		compareJSON(t, "request body", r.Body, map[string]any{
			"model":      "claude-sonnet-4-5",
			"max_tokens": 1024.0,
			"system":     "You weave.\n\nBe brief.",
			"messages": []any{
				map[string]any{"role": "user", "content": "Go on."},
				map[string]any{"role": "assistant", "content": "The loom"},
				map[string]any{"role": "user", "content": "More."},
			},
			"stream":         true,
			"temperature":    0.7,
			"stop_sequences": []any{"\n\nHuman:"},
		})
	}
}

// A base URL ending in /v1 is not doubled; NoStream asks for JSON.
func TestAnthropicBaseURLAndNoStream(t *testing.T) {
	body := readFixture(t, "anthropic_message.json")
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	c, _ := newAnthropicTest(t, srv.URL+"/v1/", func(c *Config) { c.NoStream = true; c.MaxTokens = 50 })
	got, err := c.Generate(context.Background(), Request{Messages: dialogue}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 1)
	r := rec.requests()[0]
	if r.Path != "/v1/messages" {
		t.Errorf("path %s, want /v1/messages", r.Path)
	}
	if _, has := r.Body["stream"]; has || r.Body["max_tokens"] != 50.0 {
		t.Errorf("body %v: want no stream field and max_tokens 50", r.Body)
	}
}

func TestAnthropicRefusesBufferMode(t *testing.T) {
	c, _ := newAnthropicTest(t, "http://127.0.0.1:1")
	_, err := c.Generate(context.Background(), Request{Prompt: "Once upon"}, nil)
	if err == nil || !strings.Contains(err.Error(), "buffer mode") {
		t.Errorf("error %v, want buffer mode refused", err)
	}
}

func TestAnthropicFailures(t *testing.T) {
	start := anSSE("message_start", `{"type":"message_start","message":{"id":"msg_x","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`) +
		anSSE("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		anSSE("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Half"}}`)
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    []string
		check   func(*testing.T, error)
	}{
		{
			name: "overloaded error event mid-stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, start+anSSE("error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`))
			},
			want: []string{"error event in stream", "overloaded_error", "Overloaded", "/v1/messages"},
			check: func(t *testing.T, err error) {
				var e *APIError
				if !errors.As(err, &e) || !e.InStream || e.Type != "overloaded_error" || !e.Temporary() {
					t.Errorf("want an in-stream overloaded *APIError, got %#v", err)
				}
			},
		},
		{
			name: "connection dropped before message_stop",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, start)
				dropConnection(t, w)
			},
			want:  []string{"stream ended early"},
			check: isErr(ErrStreamEnded),
		},
		{
			name: "body ends after message_delta without message_stop",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, start+anSSE("content_block_stop", `{"type":"content_block_stop","index":0}`)+
					anSSE("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}`))
			},
			want:  []string{"stream ended early", "before message_stop"},
			check: isErr(ErrStreamEnded),
		},
		{
			name: "429 rate_limit_error with retry-after",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("retry-after", "30")
				jsonError(w, 429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
			},
			want:  []string{"HTTP 429 Too Many Requests", "rate_limit_error", "per-minute rate limit", "retry after 30s"},
			check: apiStatus(429, 30*time.Second),
		},
		{
			name: "529 overloaded",
			handler: func(w http.ResponseWriter, r *http.Request) {
				jsonError(w, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			},
			want:  []string{"HTTP 529", "overloaded_error: Overloaded"},
			check: apiStatus(529, 0),
		},
		{
			name: "500 api_error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				jsonError(w, 500, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)
			},
			want:  []string{"HTTP 500 Internal Server Error", "api_error: Internal server error"},
			check: apiStatus(500, 0),
		},
		{
			name: "invalid JSON in an event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, start+"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\n\n")
			},
			want: []string{`invalid JSON in SSE event "content_block_delta" at line 10`},
		},
		{
			name: "401 echoing the key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				jsonError(w, 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+r.Header.Get("X-Api-Key")+`"}}`)
			},
			want:  []string{"HTTP 401", "authentication_error", "invalid x-api-key [redacted]"},
			check: apiStatus(401, 0),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, tc.handler)
			c, _ := newAnthropicTest(t, srv.URL)
			got, err := c.Generate(context.Background(), Request{Messages: dialogue}, nil)
			if err == nil {
				t.Fatalf("no error; completions %+v", got)
			}
			if got != nil {
				t.Errorf("completions returned with the error: %+v", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			checkNoKey(t, "error", fmt.Sprintf("%v %+v %#v", err, err, err))
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

// Cancelling while one of two streams is still going: no completion, not
// even the one that finished, and an error wrapping context.Canceled.
func TestAnthropicCancel(t *testing.T) {
	var count atomic.Int32
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		if count.Add(1) == 1 {
			writeFlushed(w, anthropicStream("msg_done", []string{"Finished", "."}, "end_turn"))
			return
		}
		writeFlushed(w, anSSE("message_start", `{"type":"message_start","message":{"id":"msg_slow","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}`))
		<-r.Context().Done()
	}))
	c, _ := newAnthropicTest(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, err := c.Generate(ctx, Request{Messages: dialogue, N: 2}, func(d Delta) {
		if d.Text == "." {
			cancel() // the first stream is through; the second still waits
		}
	})
	if got != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want no completions and context.Canceled", got, err)
	}
}

// 529 then a good stream: one retry, with backoff.
func TestAnthropicRetryOverloaded(t *testing.T) {
	var count atomic.Int32
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if count.Add(1) == 1 {
			jsonError(w, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			return
		}
		startSSE(w)
		writeFlushed(w, anthropicStream("msg_ok", []string{"Again", "."}, "max_tokens"))
	}))
	c, s := newAnthropicTest(t, srv.URL)
	c.Retry = DefaultRetry
	got, err := c.Generate(context.Background(), Request{Messages: dialogue}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Text != "Again." || got[0].FinishReason != "length" {
		t.Errorf("got %+v", got[0])
	}
	if w := s.got(); len(w) != 1 || w[0] != DefaultRetry.Backoff {
		t.Errorf("waits %v, want one of %v", w, DefaultRetry.Backoff)
	}
	if n := len(rec.requests()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}
