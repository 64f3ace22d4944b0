package llmtest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Reply is a scripted answer: the next completion request that the server
// accepts (a request refused for its own fault, such as a schema OpenAI
// would not take or a prompt longer than ContextWindow, does not use one)
// is answered with it instead of made-up text. The server speaks its own
// protocol for it: the same Reply becomes an OpenAI chat.completion (chunks)
// or an Anthropic Message (events).
type Reply struct {
	// Text is the answer: the message content (OpenAI), or for Anthropic the
	// input of the forced tool when the request forced one (sent as
	// input_json_delta pieces, so it may be malformed JSON), a text block
	// otherwise.
	Text string
	// Refusal, when set, makes the model decline: OpenAI sends it as the
	// message's "refusal" (content null); Anthropic as a text block ending
	// with stop_reason "refusal".
	Refusal string
	// Finish overrides the finish_reason (OpenAI) or stop_reason
	// (Anthropic), in the provider's own words ("length", "max_tokens").
	Finish string
	// Fail, when set, answers with the provider's HTTP error of that kind
	// instead.
	Fail Failure
	// RetryAfter is the wait a FailRateLimit or FailOverloaded asks for:
	// Retry-After in whole seconds (rounded up), and OpenAI's
	// retry-after-ms too.
	RetryAfter time.Duration
}

// Failure is an HTTP error a Reply answers with, in the provider's words.
type Failure string

// The failures a Reply may script.
const (
	// FailRateLimit: 429; OpenAI rate_limit_exceeded, Anthropic
	// rate_limit_error.
	FailRateLimit Failure = "rate_limit"
	// FailOverloaded: OpenAI 503 server_error, Anthropic 529
	// overloaded_error.
	FailOverloaded Failure = "overloaded"
	// FailServer: 500; OpenAI server_error, Anthropic api_error.
	FailServer Failure = "server"
	// FailContextLength: 400; OpenAI context_length_exceeded, Anthropic
	// "prompt is too long".
	FailContextLength Failure = "context_length"
)

// Received is a completion request as a server received it.
type Received struct {
	Path string // "/v1/chat/completions", "/v1/messages", ...
	Body []byte // the JSON body
}

// script is the queue of scripted replies and the log of requests that a
// server keeps.
type script struct {
	mu       sync.Mutex
	replies  []Reply
	received []Received
}

// push appends replies to the queue.
func (s *script) push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// pop takes the next scripted reply, if any.
func (s *script) pop() (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.replies) == 0 {
		return Reply{}, false
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, true
}

// pending is the number of scripted replies not used yet.
func (s *script) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

func (s *script) record(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, Received{Path: path, Body: append([]byte(nil), body...)})
}

func (s *script) log() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// retryHeaders sets the wait headers of a rate limit or overload.
func retryHeaders(h http.Header, d time.Duration, withMs bool) {
	if d <= 0 {
		return
	}
	secs := int((d + time.Second - 1) / time.Second)
	h.Set("Retry-After", strconv.Itoa(secs))
	if withMs {
		h.Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
	}
}

// pieces cuts text into the pieces a stream sends: about 24 bytes each,
// on rune boundaries.
func pieces(text string) []string {
	var out []string
	for len(text) > 0 {
		n := min(24, len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// countTokens is llmtest's token count: one token per white-space
// separated word.
func countTokens(s string) int { return len(strings.Fields(s)) }

var schemaNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// strictProblem returns the first reason OpenAI's Structured Outputs would
// refuse schema in strict mode, in OpenAI's words, or "": every object
// schema must set "additionalProperties": false and list every property in
// "required". It walks properties, items, anyOf and $defs (definitions).
func strictProblem(name string, schema any) string {
	var walk func(v any, ctx []string) string
	walk = func(v any, ctx []string) string {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		where := "In context=(" + strings.Join(ctx, ", ") + ")"
		if props, ok := m["properties"].(map[string]any); ok || m["type"] == "object" {
			if ap, ok := m["additionalProperties"].(bool); !ok || ap {
				return fmt.Sprintf("Invalid schema for response_format '%s': %s, 'additionalProperties' is required to be supplied and to be false.", name, where)
			}
			req := map[string]bool{}
			if list, ok := m["required"].([]any); ok {
				for _, r := range list {
					if s, ok := r.(string); ok {
						req[s] = true
					}
				}
			}
			keys := sortedKeys(props)
			for _, k := range keys {
				if !req[k] {
					return fmt.Sprintf("Invalid schema for response_format '%s': %s, 'required' is required to be supplied and to be an array including every key in properties. Missing '%s'.", name, where, k)
				}
			}
			for _, k := range keys {
				if p := walk(props[k], append(append([]string(nil), ctx...), "'properties'", "'"+k+"'")); p != "" {
					return p
				}
			}
		}
		if p := walk(m["items"], append(append([]string(nil), ctx...), "'items'")); p != "" {
			return p
		}
		if list, ok := m["anyOf"].([]any); ok {
			for i, sub := range list {
				if p := walk(sub, append(append([]string(nil), ctx...), "'anyOf'", strconv.Itoa(i))); p != "" {
					return p
				}
			}
		}
		for _, key := range []string{"$defs", "definitions"} {
			defs, _ := m[key].(map[string]any)
			for _, k := range sortedKeys(defs) {
				if p := walk(defs[k], append(append([]string(nil), ctx...), "'"+key+"'", "'"+k+"'")); p != "" {
					return p
				}
			}
		}
		return ""
	}
	return walk(schema, nil)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// instance makes up a value valid against schema (the subset strict
// schemas use: type, enum, const, properties, items, anyOf and local $ref),
// drawing words from the vocabulary: what a model constrained to the
// schema might answer. root resolves "#/$defs/..." references.
func instance(schema any, root map[string]any, rng *rand.Rand, depth int) any {
	m, ok := schema.(map[string]any)
	if !ok || depth > 12 {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		var target any = root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			tm, _ := target.(map[string]any)
			target = tm[part]
		}
		return instance(target, root, rng, depth+1)
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if enum, ok := m["enum"].([]any); ok && len(enum) > 0 {
		return enum[rng.IntN(len(enum))]
	}
	if list, ok := m["anyOf"].([]any); ok && len(list) > 0 {
		for _, sub := range list {
			if sm, ok := sub.(map[string]any); ok && sm["type"] != "null" {
				return instance(sub, root, rng, depth+1)
			}
		}
		return nil
	}
	typ := m["type"]
	if list, ok := typ.([]any); ok {
		typ = nil
		for _, t := range list {
			if t != "null" {
				typ = t
				break
			}
		}
	}
	switch typ {
	case "object":
		props, _ := m["properties"].(map[string]any)
		out := make(map[string]any, len(props))
		for _, k := range sortedKeys(props) {
			out[k] = instance(props[k], root, rng, depth+1)
		}
		return out
	case "array":
		n := rng.IntN(3)
		if depth > 6 {
			n = 0
		}
		out := make([]any, 0, n)
		for range n {
			out = append(out, instance(m["items"], root, rng, depth+1))
		}
		return out
	case "string":
		words := make([]string, 2+rng.IntN(4))
		for i := range words {
			words[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		return strings.Join(words, " ")
	case "number":
		return float64(rng.IntN(101)) / 100
	case "integer":
		return rng.IntN(10)
	case "boolean":
		return rng.IntN(2) == 1
	}
	return nil
}

// madeUpJSON is a made-up instance of schema, as JSON text.
func madeUpJSON(schema json.RawMessage, rng *rand.Rand) string {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return "{}"
	}
	b, err := json.Marshal(instance(root, root, rng, 0))
	if err != nil {
		return "{}"
	}
	return string(b)
}
