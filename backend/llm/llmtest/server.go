// Package llmtest is a deterministic, local stand-in for an OpenAI-compatible
// model server, for end-to-end tests (the command build/fakemodel) and
// for the llm package's own tests. It speaks the real wire protocol, so the
// production client code runs against it unchanged:
//
//	POST {base}/chat/completions   dialogue mode: {"model", "messages", "n", "stream", ...}
//	POST {base}/completions        buffer mode:   {"model", "prompt", "n", "stream", ...}
//	GET  {base}/models             {"object": "list", "data": [{"id": Model, ...}]}
//	POST {base}/embeddings         {"model", "input": "text" | ["text", ...], "dimensions"?}
//
// Embeddings are a hashed bag of words (see Embedding): texts sharing words
// get similar vectors, so semantic search can be tested end to end.
//
// where {base} is "/v1" or "" (both are served). Streamed answers are
// text/event-stream: one "data: {json}\n\n" event per chunk —
// chat.completion.chunk objects (a first {"role": "assistant", "content": ""}
// delta per choice, then one word per chunk with the choices' chunks
// interleaved round-robin, then a chunk with "finish_reason" per choice),
// or text_completion objects with "text" — then, when the request set
// "stream_options": {"include_usage": true}, a chunk with "choices": [] and
// "usage", and finally "data: [DONE]". Unstreamed answers are one
// chat.completion or text_completion object. Errors are HTTP 4xx with
// {"error": {"message", "type", "param", "code"}}.
//
// The text is made up: words drawn from a small vocabulary by a PRNG seeded
// from (Seed, the prompt, a sample number). Sample numbers count, per prompt,
// the continuations drawn so far; so asking the same server again for the
// same prompt gives new continuations (as sampling would), and two servers
// with the same Seed given the same sequence of requests answer
// byte-for-byte the same ("created" is a fake clock: 1700000000 + the request
// number). With n honoured, choice i of a request takes the next samples in
// index order. With IgnoreN, each request answers one choice; parallel
// requests then draw their samples in arrival order, so the set of texts is
// deterministic but which request gets which is not.
//
// A continuation is 4..15 words; max_tokens (or max_completion_tokens)
// counts words and cuts it with finish_reason "length"; "stop" strings cut
// it with finish_reason "stop".
//
// Structured output is served as OpenAI documents it: "response_format":
// {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}
// checks the name (1-64 of a-z, A-Z, 0-9, _, -) and, with strict, that the
// schema keeps to the strict subset (every object has additionalProperties
// false and requires all its properties; OpenAI's 400 wording otherwise),
// and answers with a made-up instance of the schema; {"type":
// "json_object"} needs the word "json" in the messages (400 otherwise, as
// OpenAI) and answers a small JSON object. NoJSONSchema and NoJSONObject
// refuse those modes with 400, like servers and models that lack them.
// ContextWindow refuses longer prompts (one token per word) with OpenAI's
// 400 context_length_exceeded. Script queues exact answers (Reply): canned
// JSON, malformed JSON, refusals, and HTTP failures in OpenAI's words.
//
// AnthropicServer speaks the Anthropic Messages API the same way (see
// anthropic.go).
package llmtest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"
)

// OpenAIServer is an http.Handler answering like an OpenAI-compatible server.
// Set its fields before serving; the zero value works (Seed 0, n honoured).
type OpenAIServer struct {
	// Seed chooses the words.
	Seed uint64
	// IgnoreN makes every response carry one choice whatever n asks, like
	// Ollama and LM Studio.
	IgnoreN bool
	// Model is the model name reported; "" means the request's model.
	Model string
	// APIKey, when set, is required as "Authorization: Bearer {APIKey}";
	// other requests get 401 invalid_api_key.
	APIKey string
	// ChunkDelay is slept before each streamed chunk, so a UI can be seen
	// streaming. A client going away stops the stream.
	ChunkDelay time.Duration
	// NoJSONSchema refuses "response_format" of type json_schema with
	// OpenAI's 400 for models without Structured Outputs; NoJSONObject
	// refuses type json_object the same way.
	NoJSONSchema bool
	NoJSONObject bool
	// NoMaxTokens refuses "max_tokens" with OpenAI's 400 for its reasoning
	// models (o-series, gpt-5), which take only "max_completion_tokens".
	NoMaxTokens bool
	// ContextWindow, when above 0, is the model's context in tokens
	// (llmtest counts one per word of the messages): a longer prompt gets
	// 400 context_length_exceeded.
	ContextWindow int

	// EmbeddingDims is the length of the vectors /embeddings answers when
	// the request names no "dimensions" (0: 64).
	EmbeddingDims int

	script     script
	mu         sync.Mutex
	drawn      map[[32]byte]int // samples drawn so far, by prompt
	requests   int
	embeddings int
}

// EmbeddingRequests is the number of /embeddings requests received.
func (s *OpenAIServer) EmbeddingRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embeddings
}

// NewOpenAIServer returns a server choosing words by seed.
func NewOpenAIServer(seed uint64) *OpenAIServer { return &OpenAIServer{Seed: seed} }

// Requests is the number of completion requests received (valid or not).
func (s *OpenAIServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Script queues replies for the next completion requests the server
// accepts, in order; when none is left, answers are made up again.
func (s *OpenAIServer) Script(replies ...Reply) { s.script.push(replies...) }

// Pending is the number of scripted replies not used yet.
func (s *OpenAIServer) Pending() int { return s.script.pending() }

// Received lists the completion requests received, in order.
func (s *OpenAIServer) Received() []Received { return s.script.log() }

// Start serves s on addr ("127.0.0.1:0" when empty: a free port), which must
// be a loopback address. It returns the base URL to configure the llm
// client with ("http://127.0.0.1:PORT/v1") and a function that stops the
// server.
func (s *OpenAIServer) Start(addr string) (baseURL string, stop func(context.Context) error, err error) {
	base, stop, err := serveLoopback(s, addr)
	if err != nil {
		return "", nil, err
	}
	return base + "/v1", stop, nil
}

// serveLoopback serves h on addr ("127.0.0.1:0" when empty), which must be
// a loopback address, and returns "http://HOST:PORT" and the server's
// Shutdown.
func serveLoopback(h http.Handler, addr string) (string, func(context.Context) error, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("llmtest: address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", nil, fmt.Errorf("llmtest: address %q is not loopback; the test provider only listens on 127.0.0.1, ::1 or localhost", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("llmtest: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv.Shutdown, nil
}

// request is the subset of the OpenAI request body llmtest reads.
type request struct {
	Model         string          `json:"model"`
	Messages      []message       `json:"messages"`
	Prompt        json.RawMessage `json:"prompt"`
	Stream        bool            `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	N                   *int            `json:"n"`
	MaxTokens           int             `json:"max_tokens"`
	MaxCompletionTokens int             `json:"max_completion_tokens"`
	Stop                json.RawMessage `json:"stop"`
	ResponseFormat      *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict bool            `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string, or [{"type": "text", "text"}]
}

// ServeHTTP implements http.Handler.
func (s *OpenAIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	switch path {
	case "/models":
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use GET "+r.URL.Path)
			return
		}
		s.serveModels(w)
	case "/embeddings":
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST "+r.URL.Path)
			return
		}
		if s.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
			return
		}
		s.serveEmbeddings(w, r)
	case "/chat/completions", "/completions":
		s.mu.Lock()
		s.requests++
		reqNo := s.requests
		s.mu.Unlock()
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST "+r.URL.Path)
			return
		}
		if s.APIKey != "" && r.Header.Get("Authorization") != "Bearer "+s.APIKey {
			writeError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.")
			return
		}
		s.serveCompletion(w, r, path == "/chat/completions", reqNo)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path)
	}
}

func (s *OpenAIServer) serveModels(w http.ResponseWriter) {
	id := s.Model
	if id == "" {
		id = "llmtest"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   []map[string]any{{"id": id, "object": "model", "created": 1700000000, "owned_by": "llmtest"}},
	})
}

// choice is one generated continuation, split in the pieces it streams as.
type choice struct {
	pieces []string
	finish string
	// refusal says the pieces are a refusal, not content.
	refusal bool
	// counted says the completion tokens are the words of the text rather
	// than the pieces (scripted and structured answers).
	counted bool
}

// scripted is the choice a Reply makes.
func scripted(r Reply) choice {
	c := choice{pieces: pieces(r.Text), finish: "stop", counted: true}
	if r.Refusal != "" {
		c = choice{pieces: pieces(r.Refusal), finish: "stop", refusal: true, counted: true}
	}
	if r.Finish != "" {
		c.finish = r.Finish
	}
	return c
}

// checkFormat checks a chat request's response_format as OpenAI does,
// returning the status, the param and the message of a refusal ("" when
// the request is fine).
func (s *OpenAIServer) checkFormat(req request) (int, string, string) {
	rf := req.ResponseFormat
	switch rf.Type {
	case "text":
	case "json_schema":
		if s.NoJSONSchema {
			return http.StatusBadRequest, "response_format", "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. " +
				"Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs"
		}
		js := rf.JSONSchema
		if js == nil {
			return http.StatusBadRequest, "response_format.json_schema", "Missing required parameter: 'response_format.json_schema'."
		}
		if !schemaNameRE.MatchString(js.Name) {
			return http.StatusBadRequest, "response_format.json_schema.name", fmt.Sprintf("Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'. Got %q.", js.Name)
		}
		var schema any
		if err := json.Unmarshal(js.Schema, &schema); err != nil {
			return http.StatusBadRequest, "response_format.json_schema.schema", "Invalid 'response_format.json_schema.schema': expected an object."
		}
		if top, ok := schema.(map[string]any); !ok || top["type"] != "object" {
			return http.StatusBadRequest, "response_format", fmt.Sprintf("Invalid schema for response_format '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"%v\"'.", js.Name, typeOf(schema))
		}
		if js.Strict {
			if p := strictProblem(js.Name, schema); p != "" {
				return http.StatusBadRequest, "response_format", p
			}
		}
	case "json_object":
		if s.NoJSONObject {
			return http.StatusBadRequest, "response_format", "Invalid parameter: 'response_format' of type 'json_object' is not supported with this model."
		}
		if !strings.Contains(strings.ToLower(string(mustJSON(req.Messages))), "json") {
			return http.StatusBadRequest, "messages", "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'."
		}
	default:
		return http.StatusBadRequest, "response_format.type", fmt.Sprintf("Invalid value: '%s'. Supported values are: 'json_object', 'json_schema', and 'text'.", rf.Type)
	}
	return 0, "", ""
}

func typeOf(schema any) any {
	if m, ok := schema.(map[string]any); ok {
		return m["type"]
	}
	return schema
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// contextMessage is OpenAI's context_length_exceeded message.
func contextMessage(window, used int) string {
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, used)
}

// fail answers with a scripted failure in OpenAI's words.
func (s *OpenAIServer) fail(w http.ResponseWriter, r Reply) {
	switch r.Fail {
	case FailRateLimit:
		retryHeaders(w.Header(), r.RetryAfter, true)
		wait := max(1, int((r.RetryAfter+time.Second-1)/time.Second))
		writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded",
			fmt.Sprintf("Rate limit reached for requests in organization org-llmtest on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in %ds.", wait))
	case FailOverloaded:
		retryHeaders(w.Header(), r.RetryAfter, true)
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "The engine is currently overloaded, please try again later")
	case FailContextLength:
		writeErrorParam(w, http.StatusBadRequest, "invalid_request_error", "context_length_exceeded", "messages", contextMessage(max(s.ContextWindow, 8192), max(s.ContextWindow, 8192)+1))
	default:
		writeError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request. Sorry about that!")
	}
}

// sampleRNG is the generator of sample's made-up answer to key.
func sampleRNG(seed uint64, key string, sample int) *rand.Rand {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed^0x5eed)
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(sample))
	h.Write(b[:])
	h.Write([]byte(key))
	sum := h.Sum(nil)
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])))
}

func (s *OpenAIServer) serveCompletion(w http.ResponseWriter, r *http.Request, chat bool, reqNo int) {
	var req request
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 8<<20))
	if err == nil {
		s.script.record(r.URL.Path, raw)
		err = json.Unmarshal(raw, &req)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "you must provide a model parameter")
		return
	}
	key, err := promptKey(chat, req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	stops, err := stopStrings(req.Stop)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	n := 1
	if req.N != nil {
		n = *req.N
	}
	if n < 1 || n > 128 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("%d is not valid under any of the given schemas - 'n'", n))
		return
	}
	if s.IgnoreN {
		n = 1
	}
	if s.NoMaxTokens && req.MaxTokens > 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
			"type":    "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}})
		return
	}
	format := ""
	if rf := req.ResponseFormat; rf != nil && chat {
		format = rf.Type
		if status, param, msg := s.checkFormat(req); msg != "" {
			writeErrorParam(w, status, "invalid_request_error", "", param, msg)
			return
		}
	}
	if s.ContextWindow > 0 {
		if used := countTokens(key); used > s.ContextWindow {
			writeErrorParam(w, http.StatusBadRequest, "invalid_request_error", "context_length_exceeded", "messages",
				contextMessage(s.ContextWindow, used))
			return
		}
	}
	maxWords := req.MaxTokens
	if req.MaxCompletionTokens > 0 {
		maxWords = req.MaxCompletionTokens
	}

	h := sha256.Sum256([]byte(key))
	s.mu.Lock()
	if s.drawn == nil {
		s.drawn = map[[32]byte]int{}
	}
	first := s.drawn[h]
	s.drawn[h] += n
	s.mu.Unlock()
	choices := make([]choice, n)
	for i := range choices {
		if reply, ok := s.script.pop(); ok {
			if reply.Fail != "" {
				s.fail(w, reply)
				return
			}
			choices[i] = scripted(reply)
			continue
		}
		switch format {
		case "json_schema":
			choices[i] = choice{pieces: pieces(madeUpJSON(req.ResponseFormat.JSONSchema.Schema, sampleRNG(s.Seed, key, first+i))), finish: "stop", counted: true}
		case "json_object":
			c := continuation(s.Seed, key, first+i, 0, false, nil)
			text, _ := json.Marshal(map[string]string{"text": strings.TrimSpace(strings.Join(c.pieces, ""))})
			choices[i] = choice{pieces: pieces(string(text)), finish: "stop", counted: true}
		default:
			choices[i] = continuation(s.Seed, key, first+i, maxWords, chat, stops)
		}
	}

	model := s.Model
	if model == "" {
		model = req.Model
	}
	usage := usage{PromptTokens: countTokens(key)}
	for _, c := range choices {
		if c.counted {
			usage.CompletionTokens += countTokens(strings.Join(c.pieces, ""))
		} else {
			usage.CompletionTokens += len(c.pieces)
		}
	}
	usage.TotalTokens = usage.PromptTokens + usage.CompletionTokens
	resp := response{w: w, r: r, chat: chat, model: model, created: 1700000000 + int64(reqNo), delay: s.ChunkDelay}
	if chat {
		resp.id = fmt.Sprintf("chatcmpl-llmtest-%d", reqNo)
	} else {
		resp.id = fmt.Sprintf("cmpl-llmtest-%d", reqNo)
	}
	if !req.Stream {
		resp.whole(choices, usage)
		return
	}
	resp.stream(choices, usage, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
}

// promptKey is the text a continuation depends on: the prompt, or the
// messages as "role: content" lines.
func promptKey(chat bool, req request) (string, error) {
	if !chat {
		var p string
		if err := json.Unmarshal(req.Prompt, &p); err != nil {
			return "", errors.New("llmtest: 'prompt' must be a string")
		}
		return p, nil
	}
	if len(req.Messages) == 0 {
		return "", errors.New("[] is too short - 'messages'")
	}
	var b strings.Builder
	for i, m := range req.Messages {
		var text string
		if err := json.Unmarshal(m.Content, &text); err != nil {
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return "", fmt.Errorf("Invalid type for 'messages[%d].content'", i)
			}
			for _, p := range parts {
				text += p.Text
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", m.Role, text)
	}
	return b.String(), nil
}

// stopStrings reads "stop": a string, an array of strings, or absent.
func stopStrings(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("Invalid type for 'stop': expected a string or an array of strings")
	}
	return many, nil
}

var vocabulary = strings.Fields(`the a of and under over through beside root rhizome branch leaf loom
	thread tree node path river stone moss fern spore mycelium light shadow soil rain wind seed
	grows branches spreads listens remembers forgets weaves splits returns waits turns opens
	quiet old green hidden tangled bright slow deep small endless patient wild soft distant
	and then while because so yet still again perhaps somewhere`)

// continuation draws sample's words for key: 4..15 words, cut at maxWords
// (finish "length") or before a stop string (finish "stop").
func continuation(seed uint64, key string, sample, maxWords int, chat bool, stops []string) choice {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	binary.LittleEndian.PutUint64(b[:], uint64(sample))
	h.Write(b[:])
	h.Write([]byte(key))
	sum := h.Sum(nil)
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[0:8]), binary.LittleEndian.Uint64(sum[8:16])))

	words := 4 + rng.IntN(12)
	finish := "stop"
	if maxWords > 0 && words > maxWords {
		words, finish = maxWords, "length"
	}
	pieces := make([]string, words)
	for i := range pieces {
		w := vocabulary[rng.IntN(len(vocabulary))]
		switch {
		case chat && i == 0:
			pieces[i] = strings.ToUpper(w[:1]) + w[1:]
		default:
			pieces[i] = " " + w
		}
		if i == words-1 && finish == "stop" {
			pieces[i] += "."
		}
	}
	return cutAtStop(choice{pieces: pieces, finish: finish}, stops)
}

// cutAtStop ends c before the earliest stop string, which is not emitted.
func cutAtStop(c choice, stops []string) choice {
	text := strings.Join(c.pieces, "")
	cut := -1
	for _, s := range stops {
		if i := strings.Index(text, s); s != "" && i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut < 0 {
		return c
	}
	var kept []string
	at := 0
	for _, p := range c.pieces {
		if at+len(p) <= cut {
			kept = append(kept, p)
		} else if at < cut {
			kept = append(kept, p[:cut-at])
		}
		at += len(p)
	}
	return choice{pieces: kept, finish: "stop"}
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Wire objects, with fields in OpenAI's order.
type (
	chunk struct {
		ID                string        `json:"id"`
		Object            string        `json:"object"`
		Created           int64         `json:"created"`
		Model             string        `json:"model"`
		SystemFingerprint string        `json:"system_fingerprint,omitempty"`
		Choices           []chunkChoice `json:"choices"`
		Usage             *usage        `json:"usage,omitempty"`
	}
	chunkChoice struct {
		Index        int     `json:"index"`
		Delta        *delta  `json:"delta,omitempty"`
		Text         *string `json:"text,omitempty"`
		Logprobs     *int    `json:"logprobs"`
		FinishReason *string `json:"finish_reason"`
	}
	delta struct {
		Role    string  `json:"role,omitempty"`
		Content *string `json:"content,omitempty"`
		Refusal *string `json:"refusal,omitempty"`
	}
	whole struct {
		ID                string        `json:"id"`
		Object            string        `json:"object"`
		Created           int64         `json:"created"`
		Model             string        `json:"model"`
		SystemFingerprint string        `json:"system_fingerprint,omitempty"`
		Choices           []wholeChoice `json:"choices"`
		Usage             usage         `json:"usage"`
	}
	wholeChoice struct {
		Index        int       `json:"index"`
		Message      *wholeMsg `json:"message,omitempty"`
		Text         *string   `json:"text,omitempty"`
		Logprobs     *int      `json:"logprobs"`
		FinishReason string    `json:"finish_reason"`
	}
	wholeMsg struct {
		Role    string  `json:"role"`
		Content *string `json:"content"`
		Refusal *string `json:"refusal,omitempty"`
	}
)

// response writes one answer.
type response struct {
	w       http.ResponseWriter
	r       *http.Request
	chat    bool
	id      string
	model   string
	created int64
	delay   time.Duration
}

func (rs response) whole(choices []choice, u usage) {
	out := whole{ID: rs.id, Object: "text_completion", Created: rs.created, Model: rs.model, Usage: u}
	if rs.chat {
		out.Object, out.SystemFingerprint = "chat.completion", "fp_llmtest"
	}
	for i, c := range choices {
		text := strings.Join(c.pieces, "")
		wc := wholeChoice{Index: i, FinishReason: c.finish}
		if rs.chat {
			wc.Message = &wholeMsg{Role: "assistant", Content: &text}
			if c.refusal {
				wc.Message = &wholeMsg{Role: "assistant", Refusal: &text}
			}
		} else {
			wc.Text = &text
		}
		out.Choices = append(out.Choices, wc)
	}
	rs.w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rs.w).Encode(out)
}

func (rs response) stream(choices []choice, u usage, includeUsage bool) {
	rs.w.Header().Set("Content-Type", "text/event-stream")
	rs.w.Header().Set("Cache-Control", "no-cache")
	rs.w.WriteHeader(http.StatusOK)
	flusher, _ := rs.w.(http.Flusher)
	send := func(data []byte) bool {
		if rs.delay > 0 {
			select {
			case <-time.After(rs.delay):
			case <-rs.r.Context().Done():
				return false
			}
		}
		if rs.r.Context().Err() != nil {
			return false
		}
		if _, err := fmt.Fprintf(rs.w, "data: %s\n\n", data); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	mk := func(cc ...chunkChoice) []byte {
		c := chunk{ID: rs.id, Object: "text_completion", Created: rs.created, Model: rs.model, Choices: cc}
		if rs.chat {
			c.Object, c.SystemFingerprint = "chat.completion.chunk", "fp_llmtest"
		}
		b, _ := json.Marshal(c)
		return b
	}
	piece := func(i int, text string, finish *string) chunkChoice {
		cc := chunkChoice{Index: i, FinishReason: finish}
		if rs.chat {
			cc.Delta = &delta{}
			if finish == nil && choices[i].refusal {
				cc.Delta.Refusal = &text
			} else if finish == nil {
				cc.Delta.Content = &text
			}
		} else {
			cc.Text = &text
		}
		return cc
	}

	if rs.chat {
		for i := range choices {
			empty := ""
			if !send(mk(chunkChoice{Index: i, Delta: &delta{Role: "assistant", Content: &empty}})) {
				return
			}
		}
	}
	for step := 0; ; step++ {
		more := false
		for i, c := range choices {
			if step < len(c.pieces) {
				more = true
				if !send(mk(piece(i, c.pieces[step], nil))) {
					return
				}
			}
		}
		if !more {
			break
		}
	}
	for i, c := range choices {
		if !send(mk(piece(i, "", &c.finish))) {
			return
		}
	}
	if includeUsage {
		c := chunk{ID: rs.id, Object: "text_completion", Created: rs.created, Model: rs.model, Choices: []chunkChoice{}, Usage: &u}
		if rs.chat {
			c.Object, c.SystemFingerprint = "chat.completion.chunk", "fp_llmtest"
		}
		b, _ := json.Marshal(c)
		if !send(b) {
			return
		}
	}
	send([]byte("[DONE]"))
}

// writeError answers status with OpenAI's error object.
func writeError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeErrorParam(w, status, typ, code, "", msg)
}

// writeErrorParam is writeError naming the request field at fault.
func writeErrorParam(w http.ResponseWriter, status int, typ, code, param, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var c, p any
	if code != "" {
		c = code
	}
	if param != "" {
		p = param
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": p, "code": c},
	})
}

// serveEmbeddings answers POST /embeddings as OpenAI does: one embedding
// object per input, in order, with usage.
func (s *OpenAIServer) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.embeddings++
	s.mu.Unlock()
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "you must provide a model parameter")
		return
	}
	var inputs []string
	var one string
	if err := json.Unmarshal(req.Input, &one); err == nil {
		inputs = []string{one}
	} else if err := json.Unmarshal(req.Input, &inputs); err != nil || len(inputs) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "'input' must be a string or a non-empty array of strings")
		return
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "llmtest answers encoding_format float only")
		return
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = s.EmbeddingDims
	}
	if dims <= 0 {
		dims = 64
	}
	model := s.Model
	if model == "" {
		model = req.Model
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	}
	data := make([]item, len(inputs))
	tokens := 0
	for i, text := range inputs {
		data[i] = item{Object: "embedding", Index: i, Embedding: Embedding(text, dims)}
		tokens += len(words(text))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "model": model, "data": data,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}

// Embedding is the vector llmtest gives text: a hashed bag of its
// lower-case words (each word adds +1 or -1 to one of dims coordinates,
// chosen by its SHA-256), unit length; all zeros for a text without words.
func Embedding(text string, dims int) []float64 {
	v := make([]float64, dims)
	for _, word := range words(text) {
		h := sha256.Sum256([]byte(word))
		i := binary.LittleEndian.Uint32(h[:4]) % uint32(dims)
		if h[4]&1 == 0 {
			v[i]++
		} else {
			v[i]--
		}
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}
