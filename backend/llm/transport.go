package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// RetryPolicy says when a refused request is tried again. Only HTTP
// statuses 408, 409, 429 and 5xx are retried, and only before any of the
// response was read: a stream that fails midway is never retried (its
// deltas were already delivered).
type RetryPolicy struct {
	// Retries is how many more attempts follow the first; 0 disables retrying.
	Retries int
	// Backoff is the wait before the first retry when the server names
	// none; it doubles for each further retry, capped at MaxWait.
	Backoff time.Duration
	// MaxWait is the longest wait honoured. A server asking for longer
	// (Retry-After) is not retried: its error is returned at once, saying
	// how long it asked to wait.
	MaxWait time.Duration
}

// DefaultRetry is one retry, after the server's Retry-After or 500 ms,
// waiting at most 10 s.
var DefaultRetry = RetryPolicy{Retries: 1, Backoff: 500 * time.Millisecond, MaxWait: 10 * time.Second}

// wait is how long to sleep before attempt+1, and whether to make it.
func (p RetryPolicy) wait(attempt int, e *APIError) (time.Duration, bool) {
	if attempt > p.Retries || !retryableStatus(e.StatusCode) {
		return 0, false
	}
	if e.RetryAfter > 0 {
		return e.RetryAfter, e.RetryAfter <= p.MaxWait
	}
	w := p.Backoff << (attempt - 1)
	if w > p.MaxWait || w <= 0 {
		w = p.MaxWait
	}
	return w, true
}

// sleepCtx waits d, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// poster sends JSON requests with the retry policy. It is what the OpenAI
// and Anthropic clients share.
type poster struct {
	hc     *http.Client
	retry  RetryPolicy
	sleep  func(context.Context, time.Duration) error
	redact redactor
}

// post sends body to url and returns the response once it has a 2xx status.
// Any other status becomes an *APIError (after the retries the policy
// allows); transport failures are wrapped, ctx's error included. A redirect
// to another host is refused (see sameHostRedirects).
func (p poster) post(ctx context.Context, url string, body []byte, header http.Header) (*http.Response, error) {
	hc := sameHostRedirects(p.hc)
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("POST %s: %w", url, err)
		}
		req.Header = header.Clone()
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("POST %s: %w", url, ctx.Err())
			}
			return nil, err // *url.Error: "Post "URL": dial tcp ...: connection refused"
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, nil
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		apiErr := &APIError{
			Method:     http.MethodPost,
			URL:        url,
			StatusCode: resp.StatusCode,
			Status:     strings.TrimSpace(resp.Status),
			RetryAfter: retryAfter(resp.Header, time.Now()),
			Attempts:   attempt,
		}
		apiErr.parseErrorBody(b)
		apiErr.Message = p.redact.apply(apiErr.Message)
		w, again := p.retry.wait(attempt, apiErr)
		if !again {
			return nil, apiErr
		}
		if err := p.sleep(ctx, w); err != nil {
			return nil, fmt.Errorf("%w; then, waiting %s to retry: %w", apiErr, w, err)
		}
	}
}

// ErrCrossHostRedirect is returned (wrapped) when a provider answers with a
// redirect to another host, or from https to http.
var ErrCrossHostRedirect = errors.New("refused a redirect to another host: the API key is only sent to the configured base URL")

// sameHostRedirects returns a copy of hc that follows a redirect only within
// the host (name and port) of the first request, and never from https to
// http; otherwise the request fails with ErrCrossHostRedirect. Go's client
// drops Authorization on a redirect to another host name, but keeps it for
// another port of the same name, and keeps every other header, Anthropic's
// x-api-key included. hc's own CheckRedirect, if any, still applies.
func sameHostRedirects(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		first := via[0].URL
		if !strings.EqualFold(req.URL.Host, first.Host) || (first.Scheme == "https" && req.URL.Scheme != "https") {
			return fmt.Errorf("%w (%s://%s to %s://%s)", ErrCrossHostRedirect, first.Scheme, first.Host, req.URL.Scheme, req.URL.Host)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// exchange encodes body as JSON, posts it to url, and returns the 2xx
// response with its body wrapped to keep a copy of every byte (for
// Completion.Raw). The caller closes resp.Body.
func (p poster) exchange(ctx context.Context, url string, body any, header http.Header) (*http.Response, *captureReader, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding request: %w", err)
	}
	resp, err := p.post(ctx, url, b, header)
	if err != nil {
		return nil, nil, err
	}
	return resp, &captureReader{r: resp.Body, limit: maxResponseBytes}, nil
}

// decodeEvent decodes one SSE event's data into v, or says which event
// (name, line) held what.
func decodeEvent(url string, ev sseEvent, redact redactor, v any) error {
	if err := json.Unmarshal(ev.Data, v); err != nil {
		name := ""
		if ev.Name != "" {
			name = fmt.Sprintf(" %q", ev.Name)
		}
		return fmt.Errorf("POST %s: invalid JSON in SSE event%s at line %d: %v; data: %q",
			url, name, ev.Line, err, redact.apply(truncate(string(ev.Data), 200)))
	}
	return nil
}

// decodeWhole reads an unstreamed response body and decodes it into v.
func decodeWhole(ctx context.Context, url string, body *captureReader, redact redactor, v any) error {
	b, err := io.ReadAll(body)
	if err != nil {
		return streamError(ctx, url, body.buf.Len(), err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("POST %s: invalid JSON response: %v; body: %q", url, err, redact.apply(truncate(string(b), 200)))
	}
	return nil
}

// inStreamError is the *APIError for an error object that came inside a
// 200 response (an SSE error event, or {"error": ...} in place of a chunk).
func inStreamError(url string, errObj json.RawMessage, redact redactor) *APIError {
	e := &APIError{Method: http.MethodPost, URL: url, StatusCode: http.StatusOK, Status: "200 OK", InStream: true, Attempts: 1}
	e.parseErrorBody([]byte(`{"error":` + string(errObj) + `}`))
	e.Message = redact.apply(e.Message)
	return e
}

// isJSONResponse reports whether resp carries one JSON document rather than
// an event stream.
func isJSONResponse(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "application/json"
}

// streamError describes a body read failure: ctx's error when the caller
// cancelled, ErrStreamEnded otherwise.
func streamError(ctx context.Context, url string, read int, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("POST %s: %w", url, ctx.Err())
	}
	return fmt.Errorf("POST %s: %w after %d bytes: %v", url, ErrStreamEnded, read, err)
}

// collector gathers one generation's deltas and finished completions from
// the goroutines reading its responses.
type collector struct {
	mu      sync.Mutex
	onDelta func(Delta)
	done    []*Completion // by Index
}

func newCollector(n int, onDelta func(Delta)) *collector {
	return &collector{onDelta: onDelta, done: make([]*Completion, n)}
}

// delta hands one piece of text to onDelta, never concurrently.
func (c *collector) delta(index int, text string) {
	if text == "" || c.onDelta == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onDelta(Delta{Index: index, Text: text})
}

// finish records whole completions.
func (c *collector) finish(cs []Completion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range cs {
		c.done[cs[i].Index] = &cs[i]
	}
}

// missing lists the indices with no completion yet, ascending.
func (c *collector) missing() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m []int
	for i, d := range c.done {
		if d == nil {
			m = append(m, i)
		}
	}
	return m
}

// completed returns the finished completions ordered by Index.
func (c *collector) completed() []Completion {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Completion
	for _, d := range c.done {
		if d != nil {
			out = append(out, *d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// fanOut runs one(ctx, j) for j in 0..count-1 at once. The first failure
// cancels the others and is returned; the cancellations it causes are not.
func fanOut(ctx context.Context, count int, one func(ctx context.Context, j int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for j := range count {
		wg.Go(func() {
			if err := one(ctx, j); err != nil {
				once.Do(func() {
					first = err
					cancel()
				})
			}
		})
	}
	wg.Wait()
	return first
}

// ofN labels the error of continuation i (0-based) when there are several.
func ofN(i, n int, err error) error {
	if err != nil && n > 1 {
		return fmt.Errorf("continuation %d of %d: %w", i+1, n, err)
	}
	return err
}

// generateError wraps err for Generate's caller, with what did complete.
func generateError(provider string, col *collector, err error) error {
	return &GenerateError{Err: fmt.Errorf("llm: %s: %w", provider, err), Completed: col.completed()}
}
