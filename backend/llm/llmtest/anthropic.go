package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// AnthropicServer is an http.Handler answering like the Anthropic Messages
// API, for tests of the real client:
//
//	POST {base}/v1/messages
//	headers: anthropic-version (required), x-api-key (checked when APIKey is set)
//	{"model", "max_tokens", "system"?, "messages": [{"role", "content"}],
//	 "stream"?, "tools"?: [{"name", "description"?, "input_schema"}],
//	 "tool_choice"?: {"type": "auto"|"any"|"tool"|"none", "name"?}}
//
// A streamed answer is the documented event sequence: message_start,
// content_block_start, ping, content_block_delta (text_delta, or
// input_json_delta with "partial_json" for a tool_use block),
// content_block_stop, message_delta (stop_reason, usage.output_tokens) and
// message_stop, each as "event: NAME\ndata: {json}\n\n". An unstreamed
// answer is one Message object. Errors are {"type": "error", "error":
// {"type", "message"}} with the API's statuses.
//
// When tool_choice forces a tool ({"type": "tool", "name"}), the answer is
// a tool_use block whose input is a made-up instance of the tool's
// input_schema (see Script for exact answers), with stop_reason "tool_use".
// Otherwise it is made-up text as OpenAIServer's, stop_reason "end_turn" or
// "max_tokens" (max_tokens counts words). Tokens are words: input_tokens
// counts the words of the system prompt and the messages.
type AnthropicServer struct {
	// Seed chooses the words.
	Seed uint64
	// Model is the model name reported; "" means the request's model.
	Model string
	// APIKey, when set, is required as "x-api-key"; other requests get 401
	// authentication_error.
	APIKey string
	// ContextWindow, when above 0, is the model's context in tokens: a
	// longer prompt gets 400 "prompt is too long: N tokens > M maximum".
	ContextWindow int

	script   script
	mu       sync.Mutex
	requests int
}

// NewAnthropicServer returns a server choosing words by seed.
func NewAnthropicServer(seed uint64) *AnthropicServer { return &AnthropicServer{Seed: seed} }

// Script queues replies for the next requests the server accepts, in
// order; when none is left, answers are made up again.
func (s *AnthropicServer) Script(replies ...Reply) { s.script.push(replies...) }

// Pending is the number of scripted replies not used yet.
func (s *AnthropicServer) Pending() int { return s.script.pending() }

// Received lists the message requests received, in order.
func (s *AnthropicServer) Received() []Received { return s.script.log() }

// Start serves s on a loopback addr ("127.0.0.1:0" when empty) and returns
// the base URL to configure the llm client with ("http://127.0.0.1:PORT")
// and a function that stops the server.
func (s *AnthropicServer) Start(addr string) (baseURL string, stop func(context.Context) error, err error) {
	return serveLoopback(s, addr)
}

// anRequest is the subset of the Messages request llmtest reads.
type anRequest struct {
	Model     string          `json:"model"`
	MaxTokens *int            `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Stream bool `json:"stream"`
	Tools  []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
}

// ServeHTTP implements http.Handler.
func (s *AnthropicServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/messages" {
		anError(w, http.StatusNotFound, "not_found_error", "Not found")
		return
	}
	if r.Method != http.MethodPost {
		anError(w, http.StatusMethodNotAllowed, "invalid_request_error", "Method not allowed: use POST")
		return
	}
	s.mu.Lock()
	s.requests++
	reqNo := s.requests
	s.mu.Unlock()
	if s.APIKey != "" && r.Header.Get("X-Api-Key") != s.APIKey {
		anError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		anError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 32<<20))
	var req anRequest
	if err == nil {
		s.script.record(r.URL.Path, raw)
		err = json.Unmarshal(raw, &req)
	}
	if err != nil {
		anError(w, http.StatusBadRequest, "invalid_request_error", "There was an error parsing the body of your request: "+err.Error())
		return
	}
	key, tool, msg := s.check(req)
	if msg != "" {
		anError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	inputTokens := countTokens(key)
	if s.ContextWindow > 0 && inputTokens > s.ContextWindow {
		anError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", inputTokens, s.ContextWindow))
		return
	}

	ans := anAnswer{stop: "end_turn"}
	if reply, ok := s.script.pop(); ok {
		switch {
		case reply.Fail != "":
			s.fail(w, reply)
			return
		case reply.Refusal != "":
			ans = anAnswer{text: reply.Refusal, stop: "refusal"}
		case tool != "":
			ans = anAnswer{tool: tool, input: reply.Text, stop: "tool_use"}
		default:
			ans = anAnswer{text: reply.Text, stop: "end_turn"}
		}
		if reply.Finish != "" {
			ans.stop = reply.Finish
		}
	} else if tool != "" {
		var schema json.RawMessage
		for _, t := range req.Tools {
			if t.Name == tool {
				schema = t.InputSchema
			}
		}
		ans = anAnswer{tool: tool, input: madeUpJSON(schema, sampleRNG(s.Seed, key, reqNo)), stop: "tool_use"}
	} else {
		c := continuation(s.Seed, key, reqNo, *req.MaxTokens, true, nil)
		ans.text = strings.Join(c.pieces, "")
		if c.finish == "length" {
			ans.stop = "max_tokens"
		}
	}
	ans.id = fmt.Sprintf("msg_llmtest_%d", reqNo)
	ans.toolID = fmt.Sprintf("toolu_llmtest_%d", reqNo)
	ans.model = s.Model
	if ans.model == "" {
		ans.model = req.Model
	}
	ans.inputTokens = inputTokens
	ans.outputTokens = max(1, countTokens(ans.text)+countTokens(ans.input))
	if req.Stream {
		ans.stream(w, r)
		return
	}
	ans.whole(w)
}

// check validates a request as the API does and returns the prompt text
// (for tokens and made-up answers), the forced tool's name ("" when none)
// and a refusal message ("" when the request is fine).
func (s *AnthropicServer) check(req anRequest) (key, tool, msg string) {
	if req.Model == "" {
		return "", "", "model: Field required"
	}
	if req.MaxTokens == nil {
		return "", "", "max_tokens: Field required"
	}
	if *req.MaxTokens < 1 {
		return "", "", "max_tokens: Input should be greater than or equal to 1"
	}
	if len(req.Messages) == 0 {
		return "", "", "messages: at least one message is required"
	}
	var b strings.Builder
	if len(req.System) > 0 {
		text, ok := contentText(req.System)
		if !ok {
			return "", "", "system: Input should be a valid string or a list of text blocks"
		}
		b.WriteString("system: " + text + "\n")
	}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return "", "", fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		text, ok := contentText(m.Content)
		if !ok {
			return "", "", fmt.Sprintf("messages.%d.content: Input should be a valid string or a list of content blocks", i)
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Role, text)
	}
	names := map[string]bool{}
	for i, t := range req.Tools {
		if !schemaNameRE.MatchString(t.Name) {
			return "", "", fmt.Sprintf("tools.%d.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", i)
		}
		var schema map[string]any
		if json.Unmarshal(t.InputSchema, &schema) != nil || schema["type"] != "object" {
			return "", "", fmt.Sprintf("tools.%d.input_schema: JSON schema is invalid: the top level must have type 'object'", i)
		}
		names[t.Name] = true
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Type {
		case "auto", "any", "none":
		case "tool":
			if !names[tc.Name] {
				return "", "", fmt.Sprintf("tool_choice: tool %q not found in tools", tc.Name)
			}
			tool = tc.Name
		default:
			return "", "", "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
		}
	}
	return b.String(), tool, ""
}

// contentText reads a content (or system) value: a string, or text blocks.
func contentText(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return "", false
	}
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String(), true
}

// fail answers with a scripted failure in Anthropic's words.
func (s *AnthropicServer) fail(w http.ResponseWriter, r Reply) {
	switch r.Fail {
	case FailRateLimit:
		retryHeaders(w.Header(), r.RetryAfter, false)
		anError(w, http.StatusTooManyRequests, "rate_limit_error",
			"This request would exceed the rate limit for your organization (llmtest) of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.")
	case FailOverloaded:
		retryHeaders(w.Header(), r.RetryAfter, false)
		anError(w, 529, "overloaded_error", "Overloaded")
	case FailContextLength:
		window := max(s.ContextWindow, 200000)
		anError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("prompt is too long: %d tokens > %d maximum", window+1, window))
	default:
		anError(w, http.StatusInternalServerError, "api_error", "Internal server error")
	}
}

// anError answers status with the API's error object.
func anError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": msg},
	})
}

// anAnswer is one Message: a text block, or a tool_use block whose input
// is the JSON text input (sent as is when streamed).
type anAnswer struct {
	id, toolID, model         string
	text                      string
	tool, input               string
	stop                      string
	inputTokens, outputTokens int
}

type anUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// block is the content block of the answer, as content_block_start carries
// it (input {} for a tool) or as a whole Message carries it.
func (a anAnswer) block(whole bool) map[string]any {
	if a.tool == "" {
		text := ""
		if whole {
			text = a.text
		}
		return map[string]any{"type": "text", "text": text}
	}
	var input any = map[string]any{}
	if whole {
		// A whole Message holds the input as a JSON value: malformed
		// scripted JSON goes as a string, which the client must reject.
		if json.Unmarshal([]byte(a.input), &input) != nil {
			input = a.input
		}
	}
	return map[string]any{"type": "tool_use", "id": a.toolID, "name": a.tool, "input": input}
}

func (a anAnswer) whole(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model,
		"content":       []any{a.block(true)},
		"stop_reason":   a.stop,
		"stop_sequence": nil,
		"usage":         anUsage{InputTokens: a.inputTokens, OutputTokens: a.outputTokens},
	})
}

func (a anAnswer) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	send := func(name string, data any) bool {
		if r.Context().Err() != nil {
			return false
		}
		b, _ := json.Marshal(data)
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	ok := send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": a.id, "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anUsage{InputTokens: a.inputTokens, OutputTokens: 1}}}) &&
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": a.block(false)}) &&
		send("ping", map[string]any{"type": "ping"})
	if !ok {
		return
	}
	if a.tool != "" {
		for _, p := range pieces(a.input) {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": p}}) {
				return
			}
		}
	} else {
		for _, p := range pieces(a.text) {
			if !send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": p}}) {
				return
			}
		}
	}
	_ = send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}) &&
		send("message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": a.stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": a.outputTokens}}) &&
		send("message_stop", map[string]any{"type": "message_stop"})
}
