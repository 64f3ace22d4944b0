package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrStreamEnded is wrapped by the error of a response whose stream stopped
// before its end marker ("data: [DONE]" for OpenAI, message_stop for
// Anthropic): the connection closed or the body ended mid-generation.
var ErrStreamEnded = errors.New("stream ended early")

// Kinds of failure a caller can branch on with errors.Is. An *APIError
// matches the kinds it is (see APIError.Is); a *RefusalError matches
// ErrRefusal.
var (
	// ErrRateLimited: HTTP 429 (OpenAI rate_limit_exceeded, Anthropic
	// rate_limit_error), or a rate-limit error event inside a stream.
	// APIError.RetryAfter says how long the server asked to wait. OpenAI's
	// 429 insufficient_quota (the account is out of credit) is not one:
	// waiting does not help.
	ErrRateLimited = errors.New("rate limited")
	// ErrContextLength: the request does not fit the model's context window
	// (OpenAI code context_length_exceeded, Anthropic "prompt is too long",
	// llama.cpp exceed_context_size_error, vLLM "maximum context length",
	// HTTP 413 request_too_large). Sending less may succeed.
	ErrContextLength = errors.New("context length exceeded")
	// ErrServerError: HTTP 5xx (Anthropic's 529 overloaded included), or an
	// overloaded, api or server error event inside a stream. Trying again
	// later may succeed.
	ErrServerError = errors.New("server error")
	// ErrRefusal: the model declined to answer (OpenAI "refusal", Anthropic
	// stop_reason "refusal"). See RefusalError.
	ErrRefusal = errors.New("the model refused")
)

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
	Type string
	Code string
	// Param is the request field an OpenAI error names ("messages",
	// "response_format"), when it names one.
	Param   string
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

// Is reports whether e is of the kind target names: ErrRateLimited,
// ErrContextLength or ErrServerError (see each). It lets a caller write
// errors.Is(err, llm.ErrRateLimited) through the wrapping Generate adds.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrRateLimited:
		if e.Code == "insufficient_quota" || e.Type == "insufficient_quota" {
			return false
		}
		if e.InStream {
			return e.Type == "rate_limit_error" || e.Code == "rate_limit_exceeded" || e.Type == "rate_limit_exceeded"
		}
		return e.StatusCode == http.StatusTooManyRequests
	case ErrServerError:
		if e.InStream {
			return e.Type == "overloaded_error" || e.Type == "api_error" || e.Type == "server_error"
		}
		return e.StatusCode >= 500
	case ErrContextLength:
		return e.contextLength()
	}
	return false
}

// contextWords are the phrases of the context-window errors of OpenAI
// ("This model's maximum context length is 128000 tokens ... Please reduce
// the length of the messages"), Anthropic ("prompt is too long: 208310
// tokens > 200000 maximum"), vLLM (OpenAI's words), llama.cpp ("the request
// exceeds the available context size"), LM Studio and Ollama ("context
// length", "context window").
var contextWords = regexp.MustCompile(`(?i)prompt is too long|maximum context length|context[ _-]length|context window|exceeds? the (available )?context|context size|input is too long|too many (input )?tokens`)

// contextLength reports whether e says the request was too long for the
// model.
func (e *APIError) contextLength() bool {
	if e.Code == "context_length_exceeded" || e.Type == "exceed_context_size_error" || e.Type == "request_too_large" {
		return true
	}
	if !e.InStream && e.StatusCode == http.StatusRequestEntityTooLarge {
		return true
	}
	if e.InStream || e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity {
		return contextWords.MatchString(e.Message)
	}
	return false
}

// RefusalError is the error of a structured request (Request.JSONSchema)
// that the model declined: OpenAI sent a "refusal" message in place of
// content, or Anthropic ended with stop_reason "refusal". It matches
// ErrRefusal. The response was complete and well-formed: asking the same
// again will likely be refused again.
type RefusalError struct {
	// Provider is "openai" or "anthropic"; Model the model that answered.
	Provider string
	Model    string
	// Message is the model's refusal text (OpenAI) or whatever text it
	// wrote before stopping (Anthropic); it may be empty.
	Message string
	// StopReason is the finish reason the provider gave ("stop",
	// "refusal", ...).
	StopReason string
}

// Error reads like `the model refused (openai gpt-4o): I'm sorry, I can't help with that.`.
func (e *RefusalError) Error() string {
	s := "the model refused"
	if e.Provider != "" || e.Model != "" {
		s += " (" + strings.TrimSpace(e.Provider+" "+e.Model) + ")"
	}
	if e.Message != "" {
		s += ": " + truncate(e.Message, 500)
	}
	return s
}

// Is makes errors.Is(err, ErrRefusal) true.
func (e *RefusalError) Is(target error) bool { return target == ErrRefusal }

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
	Param   json.RawMessage `json:"param"`
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
			e.Type, e.Code, e.Param, e.Message = obj.Type, rawCode(obj.Code), rawCode(obj.Param), obj.Message
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
