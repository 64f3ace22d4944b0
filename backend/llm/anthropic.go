package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// AnthropicVersion is the anthropic-version header every request carries.
const AnthropicVersion = "2023-06-01"

// DefaultAnthropicMaxTokens is max_tokens when neither the Request nor the
// Config sets one: the Messages API requires it.
const DefaultAnthropicMaxTokens = 1024

// Anthropic is a client of the Anthropic Messages API.
//
// Wire format (Anthropic's "Messages" and "Streaming Messages" docs):
//
//	POST {base}/v1/messages
//	headers: x-api-key: {key}, anthropic-version: 2023-06-01,
//	         content-type: application/json, accept: text/event-stream
//	{"model", "max_tokens", "system": "…", "messages": [{"role", "content"}],
//	 "stream": true, "temperature", "stop_sequences"}
//
// System messages of the Request go, joined by blank lines, into the
// top-level "system" field: the API has no "system" role. The stream is
// named SSE events whose data carries the same "type":
//
//	event: message_start        {"message": {"id", "model", "usage": {"input_tokens"}}}
//	event: content_block_start  {"index": 0, "content_block": {"type": "text", "text": ""}}
//	event: ping                 {}
//	event: content_block_delta  {"index": 0, "delta": {"type": "text_delta", "text": "Hi"}}
//	event: content_block_stop   {"index": 0}
//	event: message_delta        {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 15}}
//	event: message_stop         {}
//	event: error                {"error": {"type": "overloaded_error", "message": "Overloaded"}}
//
// Text is the concatenation of every text block's text (thinking and tool
// blocks are skipped); unknown event types are ignored, as the API's
// versioning policy asks. A response is complete at message_stop; a body
// ending before it is ErrStreamEnded. With Config.NoStream (or a JSON
// answer) the body is one Message object: {"id", "content": [{"type":
// "text", "text"}], "stop_reason", "usage"}.
//
// Structured output (Request.JSONSchema) is a forced tool call: the request
// adds "tools": [{"name", "description", "input_schema"}] and "tool_choice":
// {"type": "tool", "name"}, and the answer's tool_use block carries the
// object as its "input" (streamed as input_json_delta pieces of
// "partial_json", concatenated into Completion.JSON; a whole Message has it
// as a JSON value). The answer then ends with stop_reason "tool_use"; one
// that ends with "refusal" makes Generate fail with a *RefusalError.
//
// The API has no n: N continuations are N requests made at once, request i
// giving Index i. It has no text-completion endpoint either, so buffer mode
// (Request.Prompt) is refused with an error.
//
// Set HTTPClient and Retry before the first Generate; after that an
// Anthropic is safe for concurrent use.
type Anthropic struct {
	cfg Config
	// HTTPClient sends the requests; it should have no overall Timeout
	// (streams last as long as generation does): cancel the context instead.
	HTTPClient *http.Client
	// Retry says when a refused request is retried (429, 529 overloaded, 5xx).
	Retry RetryPolicy

	sleep func(context.Context, time.Duration) error
}

// NewAnthropic returns a client for cfg (its Provider field is not checked),
// with a new http.Client (on http.DefaultTransport) and DefaultRetry.
func NewAnthropic(cfg Config) (*Anthropic, error) {
	if cfg.Provider == "" {
		cfg.Provider = ProviderAnthropic
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Anthropic{cfg: cfg, HTTPClient: &http.Client{}, Retry: DefaultRetry, sleep: sleepCtx}, nil
}

type anRequest struct {
	Model         string      `json:"model"`
	MaxTokens     int         `json:"max_tokens"`
	System        string      `json:"system,omitempty"`
	Messages      []anMessage `json:"messages"`
	Stream        bool        `json:"stream,omitempty"`
	Temperature   *float64    `json:"temperature,omitempty"`
	StopSequences []string    `json:"stop_sequences,omitempty"`
	Tools         []anTool    `json:"tools,omitempty"`
	ToolChoice    *anChoice   `json:"tool_choice,omitempty"`
}

// anTool is a tool definition; anChoice forces its use.
type anTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anChoice struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
}

type anMessage struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

// anEvent is the data of any stream event, or a whole Message response.
type anEvent struct {
	Type         string          `json:"type"`
	Index        int             `json:"index"`         // content_block_*
	Message      *anMessageInfo  `json:"message"`       // message_start
	ContentBlock *anBlock        `json:"content_block"` // content_block_start
	Delta        *anDelta        `json:"delta"`         // content_block_delta, message_delta
	Usage        *anUsage        `json:"usage"`         // message_delta
	Error        json.RawMessage `json:"error"`         // error

	// A whole Message (non-streaming) also has these.
	ID         string    `json:"id"`
	Model      string    `json:"model"`
	Content    []anBlock `json:"content"`
	StopReason string    `json:"stop_reason"`
}

type anMessageInfo struct {
	ID    string   `json:"id"`
	Model string   `json:"model"`
	Usage *anUsage `json:"usage"`
}

type anBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`  // tool_use
	Input json.RawMessage `json:"input"` // tool_use
}

type anDelta struct {
	Type        string `json:"type"` // text_delta, thinking_delta, input_json_delta, ...
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"` // input_json_delta
	StopReason  string `json:"stop_reason"`
}

type anUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Generate implements Provider: N streams at once, one per continuation.
func (a *Anthropic) Generate(ctx context.Context, req Request, onDelta func(Delta)) ([]Completion, error) {
	p, err := resolve(a.cfg, req)
	if err != nil {
		return nil, err
	}
	if !p.chat {
		return nil, errors.New("llm: anthropic: buffer mode (a prompt) needs a text-completion endpoint, which the Messages API has not; use dialogue mode or an OpenAI-compatible provider")
	}
	if p.schema != nil {
		p.mode = ModeTool
	}
	col := newCollector(p.n, onDelta)
	err = fanOut(ctx, p.n, func(ctx context.Context, i int) error {
		return ofN(i, p.n, a.request(ctx, p, i, col))
	})
	if err != nil {
		return nil, generateError("anthropic", col, err)
	}
	got := col.completed()
	if p.schema != nil {
		for _, c := range got {
			if c.FinishReason == "refusal" {
				return nil, &GenerateError{Err: fmt.Errorf("llm: anthropic: %w", &RefusalError{
					Provider: ProviderAnthropic, Model: c.Model, Message: c.Text, StopReason: c.FinishReason})}
			}
		}
	}
	return got, nil
}

// endpoint is {base}/v1/messages, tolerating a base that ends in /v1.
func (a *Anthropic) endpoint() string {
	base := a.cfg.baseURL()
	if strings.HasSuffix(base, "/v1") {
		return base + "/messages"
	}
	return base + "/v1/messages"
}

// request makes one request and records its completion as Index index.
func (a *Anthropic) request(ctx context.Context, p params, index int, col *collector) error {
	body := anRequest{
		Model:         p.model,
		MaxTokens:     p.maxTokens,
		Stream:        !a.cfg.NoStream,
		Temperature:   p.temperature,
		StopSequences: p.stop,
	}
	if body.MaxTokens == 0 {
		body.MaxTokens = DefaultAnthropicMaxTokens
	}
	var system []string
	for _, m := range p.messages {
		if m.Role == RoleSystem {
			system = append(system, m.Text)
			continue
		}
		body.Messages = append(body.Messages, anMessage{Role: m.Role, Content: m.Text})
	}
	body.System = strings.Join(system, "\n\n")
	if p.schema != nil {
		body.Tools = []anTool{{Name: p.schema.Name, Description: p.schema.Description, InputSchema: p.schema.compactSchema()}}
		body.ToolChoice = &anChoice{Type: "tool", Name: p.schema.Name}
	}
	if len(body.Messages) == 0 {
		return errors.New("request has only system messages; the Messages API needs a user message")
	}
	header := http.Header{
		"Content-Type":      {"application/json"},
		"Anthropic-Version": {AnthropicVersion},
	}
	if body.Stream {
		header.Set("Accept", "text/event-stream")
	}
	if a.cfg.APIKey.IsSet() {
		header.Set("X-Api-Key", a.cfg.APIKey.Reveal())
	}
	url := a.endpoint()
	pst := poster{hc: a.HTTPClient, retry: a.Retry, sleep: a.sleep, redact: redactor(a.cfg.APIKey.Reveal())}
	resp, captured, err := pst.exchange(ctx, url, body, header)
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	r := &anReader{ctx: ctx, url: url, body: captured, index: index, col: col, redact: pst.redact, toolIndex: -1}
	if p.schema != nil {
		r.tool = p.schema.Name
	}
	if !body.Stream || isJSONResponse(resp) {
		err = r.readJSON()
	} else {
		err = r.readStream()
	}
	if err != nil {
		return err
	}
	c := Completion{
		Index:        index,
		Text:         r.text.String(),
		FinishReason: anthropicFinish(r.stop),
		Model:        r.model,
		ResponseID:   r.id,
		Raw:          r.body.buf.Bytes(),
		Usage:        r.usage,
	}
	if r.tool != "" {
		c.Structured = ModeTool
		c.JSON = r.toolJSON()
	}
	col.finish([]Completion{c})
	return nil
}

// anthropicFinish maps stop_reason onto Completion.FinishReason's words.
func anthropicFinish(stop string) string {
	switch stop {
	case "end_turn", "stop_sequence":
		return "stop"
	case "max_tokens":
		return "length"
	}
	return stop
}

// anReader reads one Messages response, emitting deltas as they come.
type anReader struct {
	ctx    context.Context
	url    string
	body   *captureReader
	index  int
	col    *collector
	redact redactor

	id, model, stop string
	usage           Usage
	text            strings.Builder

	// tool is the name of the forced tool of a structured request ("" for
	// others); toolIndex the index of its tool_use block (-1 before it);
	// toolStart the input its content_block_start (or a whole Message)
	// carried, and toolInput the concatenated partial_json of its deltas.
	tool      string
	toolIndex int
	toolStart []byte
	toolInput strings.Builder
}

// toolJSON is the forced tool's input: the streamed pieces when there were
// any, else the input the block started with (or the whole Message held).
func (r *anReader) toolJSON() string {
	if r.toolInput.Len() > 0 {
		return r.toolInput.String()
	}
	return string(r.toolStart)
}

func (r *anReader) readStream() error {
	sse := newSSEReader(r.body)
	for {
		ev, err := sse.next()
		if errors.Is(err, io.EOF) {
			return streamError(r.ctx, r.url, r.body.buf.Len(), errors.New("body ended before message_stop"))
		}
		if err != nil {
			return streamError(r.ctx, r.url, r.body.buf.Len(), err)
		}
		var e anEvent
		if err := decodeEvent(r.url, ev, r.redact, &e); err != nil {
			return err
		}
		typ := e.Type
		if typ == "" {
			typ = ev.Name
		}
		switch typ {
		case "message_start":
			if e.Message != nil {
				r.id, r.model = e.Message.ID, e.Message.Model
				if e.Message.Usage != nil {
					r.usage.InputTokens = e.Message.Usage.InputTokens
					r.usage.OutputTokens = e.Message.Usage.OutputTokens
				}
			}
		case "content_block_start":
			if e.ContentBlock != nil && e.ContentBlock.Type == "text" {
				r.add(e.ContentBlock.Text)
			}
			if e.ContentBlock != nil && e.ContentBlock.Type == "tool_use" && r.tool != "" &&
				r.toolIndex < 0 && e.ContentBlock.Name == r.tool {
				r.toolIndex = e.Index
				r.toolStart = append(r.toolStart[:0], e.ContentBlock.Input...)
			}
		case "content_block_delta":
			if e.Delta != nil && e.Delta.Type == "text_delta" {
				r.add(e.Delta.Text)
			}
			if e.Delta != nil && e.Delta.Type == "input_json_delta" && r.toolIndex >= 0 && e.Index == r.toolIndex {
				r.toolInput.WriteString(e.Delta.PartialJSON)
			}
		case "message_delta":
			if e.Delta != nil && e.Delta.StopReason != "" {
				r.stop = e.Delta.StopReason
			}
			if e.Usage != nil {
				// output_tokens here is the running total.
				r.usage.OutputTokens = e.Usage.OutputTokens
				if e.Usage.InputTokens > 0 {
					r.usage.InputTokens = e.Usage.InputTokens
				}
			}
		case "message_stop":
			return nil // not read further, as after OpenAI's [DONE]
		case "error":
			return inStreamError(r.url, e.Error, r.redact)
		default:
			// ping, content_block_stop, and event types added later.
		}
	}
}

func (r *anReader) add(text string) {
	if text == "" {
		return
	}
	r.text.WriteString(text)
	r.col.delta(r.index, text)
}

func (r *anReader) readJSON() error {
	var m anEvent
	if err := decodeWhole(r.ctx, r.url, r.body, r.redact, &m); err != nil {
		return err
	}
	if m.Type == "error" {
		return inStreamError(r.url, m.Error, r.redact)
	}
	if m.Type != "message" {
		return fmt.Errorf("POST %s: response type %q, want \"message\"", r.url, m.Type)
	}
	r.id, r.model, r.stop = m.ID, m.Model, m.StopReason
	if m.Usage != nil {
		r.usage = Usage{InputTokens: m.Usage.InputTokens, OutputTokens: m.Usage.OutputTokens}
	}
	for _, blk := range m.Content {
		if blk.Type == "text" {
			r.add(blk.Text)
		}
		if blk.Type == "tool_use" && r.tool != "" && r.toolIndex < 0 && blk.Name == r.tool {
			r.toolIndex = 0
			r.toolStart = append(r.toolStart[:0], blk.Input...)
		}
	}
	return nil
}
