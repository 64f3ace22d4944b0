package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrStreamEnded is wrapped by the error of a response whose stream stopped
// before its end marker ("data: [DONE]" for OpenAI, message_stop for
// Anthropic): the connection closed or the body ended mid-generation.
var ErrStreamEnded = errors.New("stream ended early")

// APIError is a provider's refusal: an HTTP error status, or an error event
// inside a stream that had started (InStream, StatusCode then 200).
type APIError struct {
	Method     string // "POST"
	URL        string // the endpoint; never carries the key
	StatusCode int    // 429, 500, ...
	Status     string // "429 Too Many Requests"
	InStream   bool   // the error came as an event inside a 200 stream
	// Type and Code are the provider's classification, when it gave one:
	// "rate_limit_error", "overloaded_error", "server_error",
	// "rate_limit_exceeded", ...
	Type    string
	Code    string
	Message string // the provider's message, or the start of the body
	// RetryAfter is the wait the server asked for (Retry-After or
	// retry-after-ms headers); 0 when it asked for none.
	RetryAfter time.Duration
	// Attempts is how many requests were made, retries included.
	Attempts int
}

// Error reads like
// `POST http://host/v1/chat/completions: HTTP 429 Too Many Requests: rate_limit_exceeded: Rate limit reached (retry after 20s)`.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: ", e.Method, e.URL)
	if e.InStream {
		b.WriteString("error event in stream")
	} else {
		fmt.Fprintf(&b, "HTTP %s", e.Status)
	}
	kind := e.Type
	if e.Code != "" && e.Code != e.Type {
		if kind != "" {
			kind += "/"
		}
		kind += e.Code
	}
	if kind != "" {
		b.WriteString(": " + kind)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// Temporary reports whether trying again later may succeed: 408, 409, 429
// and 5xx statuses (Anthropic's 529 overloaded included), and overload or
// rate-limit errors inside a stream.
func (e *APIError) Temporary() bool {
	if e.InStream {
		return e.Type == "overloaded_error" || e.Type == "rate_limit_error" || e.Type == "api_error" || e.Type == "server_error"
	}
	return retryableStatus(e.StatusCode)
}

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// GenerateError is the error Generate returns. Err says what went wrong;
// Completed holds the continuations that had fully finished in other
// responses before the failure (when N was split over several requests),
// for a caller that wants to keep them. Generate itself returns none.
type GenerateError struct {
	Err       error
	Completed []Completion
}

func (e *GenerateError) Error() string { return e.Err.Error() }

// Unwrap gives errors.Is/As access to *APIError, ErrStreamEnded and
// context.Canceled / context.DeadlineExceeded.
func (e *GenerateError) Unwrap() error { return e.Err }

// errorBody is the union of the error shapes OpenAI-compatible servers and
// Anthropic send:
//
//	OpenAI:     {"error": {"message": "...", "type": "...", "param": null, "code": "..."}}
//	llama.cpp:  {"error": {"code": 500, "message": "...", "type": "server_error"}}
//	Anthropic:  {"type": "error", "error": {"type": "rate_limit_error", "message": "..."}}
//	vLLM:       {"object": "error", "message": "...", "type": "...", "code": 400}
//	others:     {"error": "message"}
type errorBody struct {
	Error   json.RawMessage `json:"error"`
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// parseErrorBody fills e.Type, e.Code and e.Message from body, falling back
// to the start of the body as text when it is not a known error shape.
func (e *APIError) parseErrorBody(body []byte) {
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil {
		var obj errorObject
		var str string
		switch {
		case len(eb.Error) > 0 && json.Unmarshal(eb.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
			e.Type, e.Code, e.Message = obj.Type, rawCode(obj.Code), obj.Message
			return
		case len(eb.Error) > 0 && json.Unmarshal(eb.Error, &str) == nil && str != "":
			e.Message = str
			return
		case eb.Message != "":
			e.Type, e.Code, e.Message = eb.Type, rawCode(eb.Code), eb.Message
			if e.Type == "error" {
				e.Type = ""
			}
			return
		}
	}
	e.Message = truncate(strings.TrimSpace(string(body)), 500)
}

// rawCode renders a JSON error code that may be a string, a number or null.
func rawCode(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// retryAfter reads the wait a response asks for: retry-after-ms
// (milliseconds, sent by OpenAI), or Retry-After as seconds or an HTTP date.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// redactor replaces every occurrence of the API key in text a server sent
// back (some echo the key in "invalid key" messages).
type redactor string

func (r redactor) apply(s string) string {
	if r == "" {
		return s
	}
	return strings.ReplaceAll(s, string(r), Redacted)
}
