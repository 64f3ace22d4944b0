package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rhizome/backend/llm/llmtest"
)

var dialogue = []Message{
	{Role: RoleSystem, Text: "You weave."},
	{Role: RoleUser, Text: "Tell me about roots."},
}

// The request on the wire: endpoint, headers and body fields.
func TestOpenAIChatRequestWire(t *testing.T) {
	body := readFixture(t, "openai_chat_n3.sse")
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	c, _ := newOpenAITest(t, srv.URL+"/v1/", func(c *Config) { c.Temperature = ptr(0.9); c.MaxTokens = 64 })
	_, err := c.Generate(context.Background(), Request{Messages: dialogue, N: 3, Stop: []string{"\n\n"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1 (n=3 honoured)", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.Path)
	}
	for h, want := range map[string]string{
		"Authorization": "Bearer " + testKey,
		"Content-Type":  "application/json",
		"Accept":        "text/event-stream",
	} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("header %s = %q, want %q", h, got, want)
		}
	}
	want := map[string]any{
		"model": "gpt-4o-mini",
		"messages": []any{
			map[string]any{"role": "system", "content": "You weave."},
			map[string]any{"role": "user", "content": "Tell me about roots."},
		},
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
		"n":              3.0,
		"temperature":    0.9,
		"max_tokens":     64.0,
		"stop":           []any{"\n\n"},
	}
	compareJSON(t, "request body", r.Body, want)
}

// Buffer mode goes to /completions with a prompt; Request fields override
// the Config's.
func TestOpenAICompletionsRequestWire(t *testing.T) {
	body := readFixture(t, "openai_completions_n2.sse")
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	c, _ := newOpenAITest(t, srv.URL+"/v1", func(c *Config) { c.N = 5; c.Temperature = ptr(1.0) })
	got, err := c.Generate(context.Background(), Request{Prompt: "Once", Model: "gpt-3.5-turbo-instruct", N: 2, Temperature: ptr(0.0), MaxTokens: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 2)
	r := rec.requests()[0]
	if r.Path != "/v1/completions" {
		t.Errorf("path %s, want /v1/completions", r.Path)
	}
	compareJSON(t, "request body", r.Body, map[string]any{
		"model": "gpt-3.5-turbo-instruct", "prompt": "Once", "stream": true,
		"stream_options": map[string]any{"include_usage": true},
		"n":              2.0, "temperature": 0.0, "max_tokens": 3.0,
	})
}

// A server that honours n streams interleaved choices in one response.
func TestOpenAIHonoursN(t *testing.T) {
	for _, chat := range []bool{true, false} {
		t.Run(fmt.Sprintf("chat=%t", chat), func(t *testing.T) {
			fake := llmtest.NewOpenAIServer(7)
			srv, rec := serve(t, fake)
			c, _ := newOpenAITest(t, srv.URL+"/v1")
			req := Request{Prompt: "The rhizome", N: 3}
			if chat {
				req = Request{Messages: dialogue, N: 3}
			}
			var d deltaLog
			got, err := c.Generate(context.Background(), req, d.add)
			if err != nil {
				t.Fatal(err)
			}
			checkIndices(t, got, 3)
			checkDeltasMatch(t, got, &d)
			checkDistinct(t, got)
			if n := len(rec.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
			for _, c := range got {
				if c.Usage.SharedBy != 3 || c.Usage.OutputTokens == 0 {
					t.Errorf("completion %d usage %+v, want a total shared by 3", c.Index, c.Usage)
				}
				if len(d.pieces(c.Index)) < 2 {
					t.Errorf("completion %d arrived in %d deltas; the server streams word by word", c.Index, len(d.pieces(c.Index)))
				}
			}
		})
	}
}

// A server that ignores n (one choice, like Ollama) gets the rest as
// parallel n=1 requests; the next generation fans out from the start.
func TestOpenAIServerIgnoresN(t *testing.T) {
	fake := llmtest.NewOpenAIServer(7)
	fake.IgnoreN = true
	srv, rec := serve(t, fake)
	c, _ := newOpenAITest(t, srv.URL+"/v1")

	var d deltaLog
	got, err := c.Generate(context.Background(), Request{Messages: dialogue, N: 3}, d.add)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 3)
	checkDeltasMatch(t, got, &d)
	checkDistinct(t, got)
	reqs := rec.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 1 asking n=3 + 2 filling in", len(reqs))
	}
	if reqs[0].Body["n"] != 3.0 {
		t.Errorf("first request n = %v, want 3", reqs[0].Body["n"])
	}
	for i, r := range reqs[1:] {
		if _, has := r.Body["n"]; has {
			t.Errorf("fill-in request %d carries n = %v, want none", i+1, r.Body["n"])
		}
	}

	got, err = c.Generate(context.Background(), Request{Messages: dialogue, N: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 3)
	reqs = rec.requests()[3:]
	if len(reqs) != 3 {
		t.Fatalf("second generation: %d requests, want 3", len(reqs))
	}
	for _, r := range reqs {
		if _, has := r.Body["n"]; has {
			t.Errorf("second generation asked for n again: %v", r.Body)
		}
	}
}

// llama.cpp refuses n != 1 with an error status: the client falls back to
// one request per continuation.
func TestOpenAIServerRefusesN(t *testing.T) {
	fake := llmtest.NewOpenAIServer(3)
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadRequest} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					N *int `json:"n"`
				}
				b, _ := io.ReadAll(r.Body)
				_ = json.Unmarshal(b, &body)
				if body.N != nil && *body.N != 1 {
					jsonError(w, status, fmt.Sprintf(`{"error":{"code":%d,"message":"Only one completion choice is allowed","type":"server_error"}}`, status))
					return
				}
				r.Body = io.NopCloser(strings.NewReader(string(b)))
				fake.ServeHTTP(w, r)
			}))
			c, _ := newOpenAITest(t, srv.URL+"/v1")
			var d deltaLog
			got, err := c.Generate(context.Background(), Request{Prompt: "Deep soil", N: 3}, d.add)
			if err != nil {
				t.Fatal(err)
			}
			checkIndices(t, got, 3)
			checkDeltasMatch(t, got, &d)
			checkDistinct(t, got)
			if n := len(rec.requests()); n != 4 {
				t.Errorf("server saw %d requests, want 1 refused + 3", n)
			}
		})
	}
}

// Config.NoStream asks for one JSON document; deltas then come whole.
func TestOpenAINoStream(t *testing.T) {
	fake := llmtest.NewOpenAIServer(11)
	srv, rec := serve(t, fake)
	c, _ := newOpenAITest(t, srv.URL+"/v1", func(c *Config) { c.NoStream = true })
	var d deltaLog
	got, err := c.Generate(context.Background(), Request{Messages: dialogue, N: 2}, d.add)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 2)
	checkDeltasMatch(t, got, &d)
	r := rec.requests()[0]
	if r.Body["stream"] != false || r.Body["stream_options"] != nil {
		t.Errorf("request asks for a stream: %v", r.Body)
	}
	if r.Header.Get("Accept") == "text/event-stream" {
		t.Error("Accept: text/event-stream on an unstreamed request")
	}
	for _, c := range got {
		if !strings.HasPrefix(string(c.Raw), "{") || len(d.pieces(c.Index)) != 1 {
			t.Errorf("completion %d: raw %q, %d deltas; want the JSON body and one delta", c.Index, c.Raw, len(d.pieces(c.Index)))
		}
	}
}

// No key configured: no Authorization header at all (local servers).
func TestOpenAINoKeyNoAuthorization(t *testing.T) {
	srv, rec := serve(t, llmtest.NewOpenAIServer(1))
	c, _ := newOpenAITest(t, srv.URL+"/v1", func(c *Config) { c.APIKey = Secret{} })
	if _, err := c.Generate(context.Background(), Request{Prompt: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if h, ok := rec.requests()[0].Header["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

// A body that ends without [DONE] is still complete when every choice
// reported its finish_reason; without them it ended early.
func TestOpenAIEndWithoutDone(t *testing.T) {
	chunk := func(i int, content string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return fmt.Sprintf(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1731000000,"model":"m","choices":[{"index":%d,"delta":{"content":%q},"logprobs":null,"finish_reason":%s}]}`+"\n\n", i, content, f)
	}
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeFlushed(w, chunk(0, "a", "")+chunk(1, "b", "")+chunk(0, "", "stop")+chunk(1, "", "length"))
	}))
	c, _ := newOpenAITest(t, srv.URL)
	got, err := c.Generate(context.Background(), Request{Messages: dialogue, N: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkIndices(t, got, 2)
	if got[0].Text != "a" || got[1].FinishReason != "length" {
		t.Errorf("got %+v", got)
	}
}

// Misbehaving servers: every failure is an error naming what went wrong,
// with no completion, and never the key.
func TestOpenAIFailures(t *testing.T) {
	const role = `data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	const words = `data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1731000000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Half a"},"logprobs":null,"finish_reason":null}]}` + "\n\n"
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    []string // substrings of the error
		check   func(t *testing.T, err error)
	}{
		{
			name: "connection dropped mid-stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, role+words)
				dropConnection(t, w)
			},
			want:  []string{"stream ended early", "/v1/chat/completions"},
			check: isErr(ErrStreamEnded),
		},
		{
			name: "body ends before [DONE]",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, role+words)
			},
			want:  []string{"stream ended early", "before data: [DONE]"},
			check: isErr(ErrStreamEnded),
		},
		{
			name: "last line cut off",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, role+words+`data: {"id":"chatcmpl-9","object":"chat.c`)
			},
			want:  []string{"stream ended early", "line 5 cut off"},
			check: isErr(ErrStreamEnded),
		},
		{
			name: "429 rate limit with Retry-After",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "20")
				jsonError(w, http.StatusTooManyRequests, `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			},
			want:  []string{"HTTP 429 Too Many Requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o-mini", "retry after 20s"},
			check: apiStatus(429, 20*time.Second),
		},
		{
			name: "500 server error",
			handler: func(w http.ResponseWriter, r *http.Request) {
				jsonError(w, http.StatusInternalServerError, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`)
			},
			want:  []string{"HTTP 500 Internal Server Error", "server_error", "Sorry about that!"},
			check: apiStatus(500, 0),
		},
		{
			name: "502 HTML from a proxy",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
			},
			want:  []string{"HTTP 502 Bad Gateway", "<h1>502 Bad Gateway</h1>"},
			check: apiStatus(502, 0),
		},
		{
			name: "invalid JSON in an SSE line",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, role+"data: {\"id\":\"chatcmpl-9\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}\n\n")
			},
			want: []string{"invalid JSON in SSE event at line 3", `{\"id\":\"chatcmpl-9\"`},
		},
		{
			name: "error object mid-stream",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, role+words+`data: {"error": {"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error"}}`+"\n\n")
			},
			want: []string{"error event in stream", "server_error", "Sorry about that!"},
			check: func(t *testing.T, err error) {
				var e *APIError
				if !errors.As(err, &e) || !e.InStream || !e.Temporary() {
					t.Errorf("want an in-stream, temporary *APIError, got %#v", err)
				}
			},
		},
		{
			name: "401 echoing the key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				jsonError(w, http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: `+key+`. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			},
			want:  []string{"HTTP 401 Unauthorized", "invalid_api_key", "Incorrect API key provided: [redacted]."},
			check: apiStatus(401, 0),
		},
		{
			name: "stream with no choices",
			handler: func(w http.ResponseWriter, r *http.Request) {
				startSSE(w)
				writeFlushed(w, "data: [DONE]\n\n")
			},
			want: []string{"response has no choices"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, tc.handler)
			c, _ := newOpenAITest(t, srv.URL+"/v1")
			var d deltaLog
			got, err := c.Generate(context.Background(), Request{Messages: dialogue}, d.add)
			if err == nil {
				t.Fatalf("no error; completions %+v", got)
			}
			if got != nil {
				t.Errorf("completions returned with the error: %+v", got)
			}
			var ge *GenerateError
			if !errors.As(err, &ge) || len(ge.Completed) != 0 {
				t.Errorf("want a *GenerateError with nothing completed, got %#v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			checkNoKey(t, "error", err.Error())
			checkNoKey(t, "error %#v", fmt.Sprintf("%#v %+v", err, err))
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

// One of N parallel requests failing fails the generation; the finished
// ones are only in GenerateError.Completed.
func TestOpenAIOneOfNFails(t *testing.T) {
	fake := llmtest.NewOpenAIServer(5)
	fake.IgnoreN = true
	var count atomic.Int32
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if count.Add(1) == 3 {
			jsonError(w, http.StatusServiceUnavailable, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	c, _ := newOpenAITest(t, srv.URL+"/v1")
	got, err := c.Generate(context.Background(), Request{Messages: dialogue, N: 3}, nil)
	if err == nil || got != nil {
		t.Fatalf("got %v, %v; want an error and no completions", got, err)
	}
	if !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "continuation") {
		t.Errorf("error %q does not say which continuation failed and how", err)
	}
	var ge *GenerateError
	if !errors.As(err, &ge) {
		t.Fatalf("not a *GenerateError: %#v", err)
	}
	if len(ge.Completed) == 0 || ge.Completed[0].Index != 0 || ge.Completed[0].Text == "" {
		t.Errorf("GenerateError.Completed = %+v, want the first request's whole completion", ge.Completed)
	}
	if n := len(rec.requests()); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

// Cancelling the context mid-stream ends the request: an error wrapping
// context.Canceled, no completion, and the server sees the client go.
func TestOpenAICancelMidStream(t *testing.T) {
	serverSawCancel := make(chan struct{})
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeFlushed(w, `data: {"id":"chatcmpl-c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"The first"},"finish_reason":null},{"index":1,"delta":{"content":"Another"},"finish_reason":null}]}`+"\n\n")
		select {
		case <-r.Context().Done():
			close(serverSawCancel)
		case <-time.After(10 * time.Second):
			t.Error("the client never went away")
		}
	}))
	c, _ := newOpenAITest(t, srv.URL+"/v1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, err := c.Generate(ctx, Request{Messages: dialogue, N: 2}, func(Delta) { cancel() })
	if got != nil {
		t.Errorf("completions returned after cancel: %+v", got)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v does not wrap context.Canceled", err)
	}
	select {
	case <-serverSawCancel:
	case <-time.After(5 * time.Second):
		t.Error("server did not see the request cancelled")
	}
}

func TestOpenAIDeadline(t *testing.T) {
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		<-r.Context().Done()
	}))
	c, _ := newOpenAITest(t, srv.URL+"/v1")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	got, err := c.Generate(ctx, Request{Prompt: "x"}, nil)
	if got != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, %v; want context.DeadlineExceeded", got, err)
	}
}

// The single retry on 429/5xx honours Retry-After (seconds or ms), falls
// back to the backoff, refuses waits over MaxWait, and never retries 4xx.
func TestOpenAIRetry(t *testing.T) {
	cases := []struct {
		name      string
		failures  int // answers that fail before the server recovers
		status    int
		header    map[string]string
		wantErr   string // "" = success
		wantWaits []time.Duration
		wantReqs  int
	}{
		{"429 Retry-After seconds", 1, 429, map[string]string{"Retry-After": "2"}, "", []time.Duration{2 * time.Second}, 2},
		{"429 retry-after-ms", 1, 429, map[string]string{"Retry-After-Ms": "150", "Retry-After": "1"}, "", []time.Duration{150 * time.Millisecond}, 2},
		{"503 no header: backoff", 1, 503, nil, "", []time.Duration{500 * time.Millisecond}, 2},
		{"529 overloaded", 1, 529, nil, "", []time.Duration{500 * time.Millisecond}, 2},
		{"429 twice: gives up", 2, 429, map[string]string{"Retry-After": "1"}, "(after 2 attempts)", []time.Duration{time.Second}, 2},
		{"Retry-After beyond MaxWait: no retry", 1, 429, map[string]string{"Retry-After": "600"}, "retry after 10m0s", nil, 1},
		{"400 is not retried", 1, 400, nil, "HTTP 400", nil, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := llmtest.NewOpenAIServer(2)
			var count atomic.Int32
			srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(count.Add(1)) <= tc.failures {
					for k, v := range tc.header {
						w.Header().Set(k, v)
					}
					jsonError(w, tc.status, `{"error":{"message":"slow down","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
					return
				}
				fake.ServeHTTP(w, r)
			}))
			c, s := newOpenAITest(t, srv.URL+"/v1")
			c.Retry = DefaultRetry
			got, err := c.Generate(context.Background(), Request{Prompt: "p"}, nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				checkIndices(t, got, 1)
			} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if waits := s.got(); fmt.Sprint(waits) != fmt.Sprint(tc.wantWaits) {
				t.Errorf("waited %v, want %v", waits, tc.wantWaits)
			}
			if n := len(rec.requests()); n != tc.wantReqs {
				t.Errorf("server saw %d requests, want %d", n, tc.wantReqs)
			}
		})
	}
}

// Cancelling while waiting to retry stops at once.
func TestOpenAIRetryWaitCancelled(t *testing.T) {
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "10")
		jsonError(w, 429, `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`)
	}))
	c, _ := newOpenAITest(t, srv.URL+"/v1")
	c.Retry = DefaultRetry
	c.sleep = sleepCtx
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Generate(ctx, Request{Prompt: "p"}, nil)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "HTTP 429") {
		t.Errorf("error %v, want the 429 and context.Canceled", err)
	}
	// The server asks for ten seconds (DefaultRetry's longest wait); cut
	// short, the call returns about 50 ms after it began. Five seconds, a
	// hundred times that, tells the two apart on a loaded machine.
	if time.Since(start) > 5*time.Second {
		t.Error("the retry wait was not cut short")
	}
	if n := len(rec.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestRequestValidation(t *testing.T) {
	c, _ := newOpenAITest(t, "http://127.0.0.1:1/v1")
	cases := []struct {
		req  Request
		want string
	}{
		{Request{}, "neither messages nor prompt"},
		{Request{Prompt: "p", Messages: dialogue}, "both messages"},
		{Request{Prompt: "p", N: MaxN + 1}, "request field n"},
		{Request{Prompt: "p", MaxTokens: -1}, "maxTokens"},
		{Request{Messages: []Message{{Role: "tool", Text: "x"}}}, "messages[0].role"},
	}
	for _, tc := range cases {
		if _, err := c.Generate(context.Background(), tc.req, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.req, err, tc.want)
		}
	}
	noModel, _ := newOpenAITest(t, "http://127.0.0.1:1/v1", func(c *Config) { c.Model = "" })
	if _, err := noModel.Generate(context.Background(), Request{Prompt: "p"}, nil); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("no model: %v", err)
	}
}

// Unreachable server: a transport error, not a hang.
func TestOpenAIConnectionRefused(t *testing.T) {
	srv, _ := serve(t, http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c, _ := newOpenAITest(t, base+"/v1")
	_, err := c.Generate(context.Background(), Request{Prompt: "p"}, nil)
	if err == nil || !strings.Contains(err.Error(), "connect") {
		t.Errorf("error %v, want a connection error", err)
	}
	checkNoKey(t, "error", fmt.Sprint(err))
}

func isErr(target error) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Errorf("error %v does not wrap %v", err, target)
		}
	}
}

func apiStatus(code int, retryAfter time.Duration) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var e *APIError
		if !errors.As(err, &e) {
			t.Fatalf("not an *APIError: %#v", err)
		}
		if e.StatusCode != code || e.RetryAfter != retryAfter {
			t.Errorf("APIError status %d retry after %s, want %d, %s", e.StatusCode, e.RetryAfter, code, retryAfter)
		}
	}
}

func checkDistinct(t *testing.T, got []Completion) {
	t.Helper()
	seen := map[string]int{}
	for _, c := range got {
		if c.Text == "" {
			t.Errorf("completion %d is empty", c.Index)
		}
		if j, dup := seen[c.Text]; dup {
			t.Errorf("completions %d and %d are the same: %q", j, c.Index, c.Text)
		}
		seen[c.Text] = c.Index
	}
}

// compareJSON compares a decoded JSON object with want, field by field.
func compareJSON(t *testing.T, what string, got map[string]any, want map[string]any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// A server holding the response open after [DONE] does not hold up the
// generation.
func TestOpenAIStopsReadingAtDone(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		startSSE(w)
		writeFlushed(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Done"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	c, _ := newOpenAITest(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := c.Generate(ctx, Request{Messages: dialogue}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Text != "Done" || !strings.HasSuffix(string(got[0].Raw), "data: [DONE]\n\n") {
		t.Errorf("got %+v raw %q", got[0], got[0].Raw)
	}
}
