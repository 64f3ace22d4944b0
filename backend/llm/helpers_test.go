package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testKey is the API key the tests configure; it must never appear in an
// error, a log line or an encoding.
const testKey = "sk-test-SECRET-7f3a9c0d2e"

// seenRequest is what a test server received.
type seenRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   map[string]any
}

// recorder keeps the requests a test server received, in arrival order.
type recorder struct {
	mu   sync.Mutex
	reqs []seenRequest
}

// wrap records each request (its body decoded as JSON) before h answers it.
func (rec *recorder) wrap(t *testing.T, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("test server: reading body: %v", err)
		}
		var body map[string]any
		if len(b) > 0 {
			if err := json.Unmarshal(b, &body); err != nil {
				t.Errorf("test server: request body is not JSON: %v: %s", err, b)
			}
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, seenRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	})
}

func (rec *recorder) requests() []seenRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seenRequest(nil), rec.reqs...)
}

// serve starts a loopback test server for h, recording its requests.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *recorder) {
	t.Helper()
	rec := &recorder{}
	srv := httptest.NewServer(rec.wrap(t, h))
	t.Cleanup(srv.Close)
	return srv, rec
}

// sleeps records the waits a client asked for instead of sleeping.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// newOpenAITest is an OpenAI client of base with the test key, no retries,
// and recorded sleeps.
func newOpenAITest(t *testing.T, base string, edit ...func(*Config)) (*OpenAI, *sleeps) {
	t.Helper()
	cfg := Config{Provider: ProviderOpenAI, BaseURL: base, Model: "gpt-4o-mini", APIKey: NewSecret(testKey)}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &sleeps{}
	c.Retry = RetryPolicy{}
	c.sleep = s.sleep
	return c, s
}

// newAnthropicTest is the same for Anthropic.
func newAnthropicTest(t *testing.T, base string, edit ...func(*Config)) (*Anthropic, *sleeps) {
	t.Helper()
	cfg := Config{Provider: ProviderAnthropic, BaseURL: base, Model: "claude-sonnet-4-5", APIKey: NewSecret(testKey)}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := NewAnthropic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := &sleeps{}
	c.Retry = RetryPolicy{}
	c.sleep = s.sleep
	return c, s
}

// deltaLog collects the deltas of one generation.
type deltaLog struct {
	mu      sync.Mutex
	byIndex map[int][]string
}

func (d *deltaLog) add(x Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byIndex == nil {
		d.byIndex = map[int][]string{}
	}
	d.byIndex[x.Index] = append(d.byIndex[x.Index], x.Text)
}

func (d *deltaLog) pieces(i int) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.byIndex[i]...)
}

// checkDeltasMatch fails unless each completion's text is exactly the
// concatenation of the deltas of its index.
func checkDeltasMatch(t *testing.T, got []Completion, d *deltaLog) {
	t.Helper()
	for _, c := range got {
		if joined := strings.Join(d.pieces(c.Index), ""); joined != c.Text {
			t.Errorf("completion %d: text %q, but its deltas join to %q", c.Index, c.Text, joined)
		}
	}
}

// checkIndices fails unless got holds indices 0..n-1 in order.
func checkIndices(t *testing.T, got []Completion, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("got %d completions, want %d: %+v", len(got), n, got)
	}
	for i, c := range got {
		if c.Index != i {
			t.Errorf("completions[%d].Index = %d", i, c.Index)
		}
	}
}

// checkNoKey fails if the test key shows in s.
func checkNoKey(t *testing.T, what, s string) {
	t.Helper()
	if strings.Contains(s, testKey) {
		t.Errorf("%s contains the API key: %s", what, s)
	}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFlushed writes s to w and flushes it to the client.
func writeFlushed(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

// startSSE sends the 200 headers of an event stream.
func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// dropConnection closes the TCP connection under a handler mid-response:
// the client sees the body end without its terminating chunk.
func dropConnection(t *testing.T, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// jsonError answers status with body as application/json.
func jsonError(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func ptr[T any](v T) *T { return &v }
