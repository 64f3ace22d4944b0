package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"
)

// OpenAI is a client of an OpenAI-compatible server: OpenAI, OpenRouter,
// Ollama, llama.cpp server, LM Studio, vLLM.
//
// Wire format (as documented by OpenAI's API reference; the compatible
// servers follow it):
//
//	dialogue mode: POST {base}/chat/completions
//	  {"model", "messages": [{"role", "content"}], "stream": true,
//	   "stream_options": {"include_usage": true}, "n", "temperature",
//	   "max_tokens", "stop"}
//	buffer mode:   POST {base}/completions
//	  {"model", "prompt", ...the same...}
//	headers: Content-Type: application/json, Accept: text/event-stream,
//	         Authorization: Bearer {key} (only when a key is set)
//
// The streamed answer is text/event-stream, one chunk per "data:" line:
//
//	data: {"id":"chatcmpl-…","object":"chat.completion.chunk","model":…,
//	       "choices":[{"index":1,"delta":{"content":"Hel"},"finish_reason":null}]}
//	data: {"id":"cmpl-…","object":"text_completion",
//	       "choices":[{"index":0,"text":" lo","finish_reason":"length"}]}
//	data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12}}
//	data: {"error":{"message":"…","type":"server_error"}}   (mid-stream failure)
//	data: [DONE]
//
// Chunks of different choices interleave; each choice's pieces arrive in
// order. A response is complete at "data: [DONE]"; leniently, a body that
// ends cleanly without it is accepted when every choice it carried has a
// finish_reason (some servers omit [DONE]). Anything else is ErrStreamEnded.
// With Config.NoStream, or when a server answers application/json anyway,
// the body is one chat.completion / text_completion object whose choices
// carry "message": {"content"} or "text".
//
// N continuations: the first request asks for "n": N. Many servers ignore n
// (Ollama, LM Studio: one choice) or refuse it (llama.cpp: HTTP 400/500
// "only one completion choice is allowed"); the client then makes one request
// per missing continuation, all at once, each without n, and assigns them the
// missing indices in ascending order. It remembers this for each endpoint,
// so later generations fan out from the start.
//
// Structured output (Request.JSONSchema) is asked for with "response_format":
// {"type": "json_schema", "json_schema": {"name", "description", "schema",
// "strict"}}. Servers that do not support it answer 400 (OpenAI's older
// models: "Invalid parameter: 'response_format' of type 'json_schema' is not
// supported with this model", older vLLM, llama.cpp and LM Studio builds,
// proxies): the request is then made again with {"type": "json_object"}
// and, if that is refused too, with no response_format, the schema going
// into the system message in both (see JSONSchema). A 400 that says the
// context is too long is not taken for such a refusal. The mode that worked
// is remembered, so later structured requests start from it. The reply's
// content is the object (Completion.JSON); a "refusal" in its place makes
// Generate fail with a *RefusalError.
//
// OpenAI's reasoning models (o-series, gpt-5) refuse "max_tokens" with 400
// unsupported_parameter: the request is made again at once with
// "max_completion_tokens", which the client sends from then on.
//
// Set HTTPClient and Retry before the first Generate; after that an OpenAI
// is safe for concurrent use.
type OpenAI struct {
	cfg Config
	// HTTPClient sends the requests; it should have no overall Timeout
	// (streams last as long as generation does): cancel the context instead.
	HTTPClient *http.Client
	// Retry says when a refused request is retried.
	Retry RetryPolicy

	sleep    func(context.Context, time.Duration) error
	ignoresN [2]atomic.Bool // by endpoint: 0 chat, 1 completions
	// structured is the index in openAIModes of the strongest structured
	// output mode the server is known to take.
	structured atomic.Int32
	// maxCompletion says the server refused max_tokens for
	// max_completion_tokens (OpenAI's reasoning models).
	maxCompletion atomic.Bool
}

// openAIModes are the structured output modes tried, strongest first.
var openAIModes = []StructuredMode{ModeJSONSchema, ModeJSONObject, ModePrompt}

// StructuredMode is how the next structured request will be asked for: the
// strongest mode the server has not refused (ModeJSONSchema at first).
func (o *OpenAI) StructuredMode() StructuredMode {
	return openAIModes[o.structured.Load()]
}

// NewOpenAI returns a client for cfg (its Provider field is not checked),
// with a new http.Client (on http.DefaultTransport) and DefaultRetry.
func NewOpenAI(cfg Config) (*OpenAI, error) {
	if cfg.Provider == "" {
		cfg.Provider = ProviderOpenAI
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &OpenAI{cfg: cfg, HTTPClient: &http.Client{}, Retry: DefaultRetry, sleep: sleepCtx}, nil
}

// oaRequest is the body of a chat/completions or completions request.
type oaRequest struct {
	Model         string          `json:"model"`
	Messages      []oaMessage     `json:"messages,omitempty"`
	Prompt        string          `json:"prompt,omitempty"`
	Stream        bool            `json:"stream"`
	StreamOptions *oaStreamOption `json:"stream_options,omitempty"`
	N             int             `json:"n,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	MaxTokens     int             `json:"max_tokens,omitempty"`
	// MaxCompletionTokens replaces MaxTokens for servers that refuse it.
	MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
	Stop                []string `json:"stop,omitempty"`
	// ResponseFormat asks for structured output: {"type": "json_schema",
	// "json_schema": {...}} or {"type": "json_object"}.
	ResponseFormat *oaResponseFormat `json:"response_format,omitempty"`
}

type oaResponseFormat struct {
	Type       string        `json:"type"`
	JSONSchema *oaJSONSchema `json:"json_schema,omitempty"`
}

type oaJSONSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
	Strict      bool            `json:"strict,omitempty"`
}

type oaMessage struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

type oaStreamOption struct {
	IncludeUsage bool `json:"include_usage"`
}

// oaResponse is a streamed chunk or a whole response, chat or text.
type oaResponse struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []oaChoice      `json:"choices"`
	Usage   *oaUsage        `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type oaChoice struct {
	Index        int       `json:"index"`
	Delta        oaContent `json:"delta"`   // chat stream
	Message      oaContent `json:"message"` // chat, whole
	Text         *string   `json:"text"`    // completions
	FinishReason *string   `json:"finish_reason"`
}

type oaContent struct {
	Content *string `json:"content"`
	Refusal *string `json:"refusal"`
}

type oaUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Generate implements Provider. See the OpenAI type for how N is met and
// how structured output is asked for.
func (o *OpenAI) Generate(ctx context.Context, req Request, onDelta func(Delta)) ([]Completion, error) {
	p, err := resolve(o.cfg, req)
	if err != nil {
		return nil, err
	}
	if p.schema == nil {
		return o.generate(ctx, p, onDelta)
	}
	start := int(o.structured.Load())
	var refused []string
	for level := start; ; level++ {
		p.mode = openAIModes[level]
		got, err := o.generate(ctx, p, onDelta)
		var apiErr *APIError
		if err != nil && level+1 < len(openAIModes) && errors.As(err, &apiErr) && refusesFormat(apiErr) {
			refused = append(refused, fmt.Sprintf("response_format %s refused: %s", p.mode, apiErr.Message))
			continue
		}
		if err != nil {
			if ge, ok := err.(*GenerateError); ok && len(refused) > 0 {
				ge.Err = fmt.Errorf("%w (after %s)", ge.Err, strings.Join(refused, "; "))
			}
			return nil, err
		}
		for {
			cur := o.structured.Load()
			if int(cur) >= level || o.structured.CompareAndSwap(cur, int32(level)) {
				break
			}
		}
		for _, c := range got {
			if c.Refusal != "" {
				return nil, &GenerateError{Err: fmt.Errorf("llm: openai: %w", &RefusalError{
					Provider: ProviderOpenAI, Model: c.Model, Message: c.Refusal, StopReason: c.FinishReason})}
			}
		}
		return got, nil
	}
}

// refusesFormat reports whether an HTTP error answering a structured
// request may mean the server does not take its response_format: a bad
// request that is not about the context length.
func refusesFormat(e *APIError) bool {
	return !e.InStream && (e.StatusCode == http.StatusBadRequest || e.StatusCode == http.StatusUnprocessableEntity) &&
		!e.contextLength()
}

// wantsMaxCompletion reports whether e refuses max_tokens in favour of
// max_completion_tokens.
func wantsMaxCompletion(e *APIError) bool {
	return !e.InStream && e.StatusCode == http.StatusBadRequest &&
		(e.Param == "max_tokens" || strings.Contains(e.Message, "max_completion_tokens"))
}

// generate makes the requests of one resolved generation.
func (o *OpenAI) generate(ctx context.Context, p params, onDelta func(Delta)) ([]Completion, error) {
	endpoint, kind := o.cfg.baseURL()+"/chat/completions", 0
	if !p.chat {
		endpoint, kind = o.cfg.baseURL()+"/completions", 1
	}
	col := newCollector(p.n, onDelta)
	all := make([]int, p.n)
	for i := range all {
		all[i] = i
	}

	if p.n == 1 || o.ignoresN[kind].Load() {
		if err := o.fill(ctx, endpoint, p, all, col); err != nil {
			return nil, generateError("openai", col, err)
		}
		return col.completed(), nil
	}

	first := o.request(ctx, endpoint, p, p.n, func(i int) (int, bool) { return i, i >= 0 && i < p.n }, col)
	var refused *APIError
	if errors.As(first, &refused) && !refused.InStream && refusesN(refused.StatusCode) {
		// llama.cpp and others reject n != 1: one request per continuation.
		if err := o.fill(ctx, endpoint, p, all, col); err != nil {
			return nil, generateError("openai", col, fmt.Errorf("%w (after asking for n=%d was refused: %v)", err, p.n, first))
		}
		o.ignoresN[kind].Store(true)
		return col.completed(), nil
	}
	if first != nil {
		return nil, generateError("openai", col, first)
	}
	if missing := col.missing(); len(missing) > 0 {
		// The server ignored n (or honoured it partly).
		o.ignoresN[kind].Store(true)
		if err := o.fill(ctx, endpoint, p, missing, col); err != nil {
			return nil, generateError("openai", col, err)
		}
	}
	return col.completed(), nil
}

// refusesN reports whether an HTTP status answering n > 1 may mean the
// server does not support n: a bad request or a server error, not auth,
// not found, not a rate limit.
func refusesN(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusUnprocessableEntity ||
		(status >= 500 && status != http.StatusServiceUnavailable && status != 529)
}

// fill makes one n=1 request per index in indices, all at once.
func (o *OpenAI) fill(ctx context.Context, endpoint string, p params, indices []int, col *collector) error {
	return fanOut(ctx, len(indices), func(ctx context.Context, j int) error {
		target := indices[j]
		return ofN(target, p.n, o.request(ctx, endpoint, p, 1, func(i int) (int, bool) { return target, i == 0 }, col))
	})
}

// request makes one request asking for n choices and, when the whole
// response has arrived, records its choices in col under the indices
// mapIndex gives (choices it rejects are ignored).
func (o *OpenAI) request(ctx context.Context, endpoint string, p params, n int, mapIndex func(int) (int, bool), col *collector) error {
	body := oaRequest{
		Model:       p.model,
		Prompt:      p.prompt,
		Stream:      !o.cfg.NoStream,
		Temperature: p.temperature,
		MaxTokens:   p.maxTokens,
		Stop:        p.stop,
	}
	if n > 1 {
		body.N = n
	}
	if body.Stream {
		body.StreamOptions = &oaStreamOption{IncludeUsage: true}
	}
	messages := p.messages
	switch {
	case p.schema == nil:
	case p.mode == ModeJSONSchema:
		body.ResponseFormat = &oaResponseFormat{Type: "json_schema", JSONSchema: &oaJSONSchema{
			Name: p.schema.Name, Description: p.schema.Description, Schema: p.schema.compactSchema(), Strict: p.schema.Strict}}
	case p.mode == ModeJSONObject:
		body.ResponseFormat = &oaResponseFormat{Type: "json_object"}
		messages = withInstruction(messages, p.schema)
	default:
		messages = withInstruction(messages, p.schema)
	}
	for _, m := range messages {
		body.Messages = append(body.Messages, oaMessage{Role: m.Role, Content: m.Text})
	}
	header := http.Header{"Content-Type": {"application/json"}}
	if body.Stream {
		header.Set("Accept", "text/event-stream")
	}
	if o.cfg.APIKey.IsSet() {
		header.Set("Authorization", "Bearer "+o.cfg.APIKey.Reveal())
	}
	if p.chat && o.maxCompletion.Load() {
		body.MaxCompletionTokens, body.MaxTokens = body.MaxTokens, 0
	}
	pst := poster{hc: o.HTTPClient, retry: o.Retry, sleep: o.sleep, redact: redactor(o.cfg.APIKey.Reveal())}
	resp, captured, err := pst.exchange(ctx, endpoint, body, header)
	var refused *APIError
	if err != nil && p.chat && body.MaxTokens > 0 && errors.As(err, &refused) && wantsMaxCompletion(refused) {
		// OpenAI's reasoning models: "Unsupported parameter: 'max_tokens' is
		// not supported with this model. Use 'max_completion_tokens' instead."
		body.MaxCompletionTokens, body.MaxTokens = body.MaxTokens, 0
		o.maxCompletion.Store(true)
		resp, captured, err = pst.exchange(ctx, endpoint, body, header)
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	r := &oaReader{ctx: ctx, url: endpoint, body: captured, mapIndex: mapIndex, col: col, redact: pst.redact, choices: map[int]*oaAcc{}}
	if p.schema != nil {
		r.structured = p.mode
	}
	if !body.Stream || isJSONResponse(resp) {
		err = r.readJSON()
	} else {
		err = r.readStream()
	}
	if err != nil {
		return err
	}
	return r.finish()
}

// oaReader reads one response, emitting deltas as they come.
type oaReader struct {
	ctx      context.Context
	url      string
	body     *captureReader
	mapIndex func(int) (int, bool)
	col      *collector
	redact   redactor
	// structured is the mode of a structured request, "" otherwise.
	structured StructuredMode

	id, model string
	usage     *oaUsage
	choices   map[int]*oaAcc // by our Index
}

type oaAcc struct {
	text     strings.Builder
	refusal  strings.Builder
	finish   string
	finished bool
}

func (r *oaReader) readStream() error {
	sse := newSSEReader(r.body)
	for {
		ev, err := sse.next()
		if errors.Is(err, io.EOF) {
			if r.allFinished() {
				return nil // no [DONE], but every choice said it was finished
			}
			return streamError(r.ctx, r.url, r.body.buf.Len(), errors.New("body ended before data: [DONE]"))
		}
		if err != nil {
			return streamError(r.ctx, r.url, r.body.buf.Len(), err)
		}
		if string(ev.Data) == "[DONE]" {
			break
		}
		var chunk oaResponse
		if err := decodeEvent(r.url, ev, r.redact, &chunk); err != nil {
			return err
		}
		if err := r.take(chunk, true); err != nil {
			return err
		}
	}
	// Not read further: a server that keeps the response open after
	// [DONE] must not hold the generation up.
	return nil
}

func (r *oaReader) readJSON() error {
	var whole oaResponse
	if err := decodeWhole(r.ctx, r.url, r.body, r.redact, &whole); err != nil {
		return err
	}
	return r.take(whole, false)
}

// take folds one chunk (or a whole response) into the accumulators.
func (r *oaReader) take(c oaResponse, streamed bool) error {
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return inStreamError(r.url, c.Error, r.redact)
	}
	if r.id == "" {
		r.id = c.ID
	}
	if r.model == "" {
		r.model = c.Model
	}
	if c.Usage != nil {
		r.usage = c.Usage
	}
	for _, ch := range c.Choices {
		idx, ok := r.mapIndex(ch.Index)
		if !ok {
			continue
		}
		acc := r.choices[idx]
		if acc == nil {
			acc = &oaAcc{}
			r.choices[idx] = acc
		}
		piece, refusal := ch.Message.Content, ch.Message.Refusal // chat, whole
		if streamed {
			piece, refusal = ch.Delta.Content, ch.Delta.Refusal // chat, streamed
		}
		if refusal != nil {
			acc.refusal.WriteString(*refusal)
		}
		if piece == nil {
			piece = ch.Text // completions
		}
		if piece != nil && *piece != "" {
			acc.text.WriteString(*piece)
			r.col.delta(idx, *piece)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			acc.finish = *ch.FinishReason
			acc.finished = true
		}
	}
	return nil
}

func (r *oaReader) allFinished() bool {
	if len(r.choices) == 0 {
		return false
	}
	for _, acc := range r.choices {
		if !acc.finished {
			return false
		}
	}
	return true
}

// finish hands the complete response's choices to the collector.
func (r *oaReader) finish() error {
	if len(r.choices) == 0 {
		return fmt.Errorf("POST %s: response has no choices", r.url)
	}
	raw := r.body.buf.Bytes()
	var usage Usage
	if r.usage != nil {
		usage = Usage{InputTokens: r.usage.PromptTokens, OutputTokens: r.usage.CompletionTokens}
	}
	if len(r.choices) > 1 {
		usage.SharedBy = len(r.choices)
	}
	out := make([]Completion, 0, len(r.choices))
	for idx, acc := range r.choices {
		c := Completion{
			Index:        idx,
			Text:         acc.text.String(),
			FinishReason: acc.finish,
			Model:        r.model,
			ResponseID:   r.id,
			Raw:          raw,
			Usage:        usage,
			Refusal:      acc.refusal.String(),
		}
		if r.structured != "" {
			c.Structured = r.structured
			c.JSON = ExtractJSON(c.Text)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	r.col.finish(out)
	return nil
}
