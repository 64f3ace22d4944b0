// Package llm generates loom-tree continuations from language-model providers:
// "generate N continuations of the active path".
//
// Two wire protocols are spoken, with the standard library only:
//
//   - OpenAI-compatible (OpenAI, OpenRouter, Ollama, llama.cpp server, LM Studio,
//     vLLM): POST {base}/chat/completions for dialogue mode and POST
//     {base}/completions for buffer mode, streamed as server-sent events
//     ("data: {chunk}" lines ending with "data: [DONE]"). See openai.go.
//   - Anthropic Messages: POST {base}/v1/messages, streamed as named SSE events
//     (message_start ... message_stop). See anthropic.go.
//
// A Provider turns one Request into N Completions, calling back with each
// Delta as it arrives. A Completion is only ever returned whole: a failed,
// dropped or cancelled response yields an error and no completion, so the
// caller never writes a half-generated loom node.
//
// The raw response bytes of each completion (Completion.Raw) are what the loom
// node's rawResponseHash covers. See aspen-grove-core-entities.md, "Hash Chain
// Computation", and ERRATA.md, "Content hash".
package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Role is who speaks a Message in dialogue mode.
type Role string

// The roles a Message may have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of the active path in dialogue mode.
type Message struct {
	Role Role   `json:"role"`
	Text string `json:"text"`
}

// Request asks for N continuations of the active path.
//
// Exactly one of Messages (dialogue mode: chat completion) and Prompt (buffer
// mode: text completion) is set. Zero fields fall back to the provider's
// Config: Model, Temperature, MaxTokens and N.
type Request struct {
	Messages []Message `json:"messages,omitempty"`
	Prompt   string    `json:"prompt,omitempty"`

	Model string `json:"model,omitempty"`
	// Temperature is the sampling temperature; nil means the Config's, and
	// when that is nil too, the server's default.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens bounds each continuation, in tokens; 0 means the Config's.
	MaxTokens int `json:"maxTokens,omitempty"`
	// N is how many continuations to generate, 1..MaxN; 0 means the Config's.
	N int `json:"n,omitempty"`
	// Stop sequences end a continuation early (not included in its text).
	Stop []string `json:"stop,omitempty"`
	// JSONSchema, when set, asks for structured output: one JSON object
	// valid against the schema, in Completion.JSON (see JSONSchema for how
	// each provider is asked). Dialogue mode only. A model that refuses
	// makes Generate fail with a *RefusalError.
	JSONSchema *JSONSchema `json:"jsonSchema,omitempty"`
}

// MaxN is the largest number of continuations one Request may ask for.
const MaxN = 64

// Delta is a piece of continuation Index's text, delivered as it arrives.
// For a given Index, deltas arrive in order and their concatenation is the
// final Completion.Text (when the generation succeeds).
type Delta struct {
	Index int    `json:"index"`
	Text  string `json:"text"`
}

// Completion is one whole continuation.
type Completion struct {
	// Index is 0..N-1, the same as the Delta.Index its text arrived under.
	Index int    `json:"index"`
	Text  string `json:"text"`
	// FinishReason is why the model stopped: "stop" (natural end or a stop
	// sequence) or "length" (MaxTokens reached), or the provider's own word
	// for anything else ("content_filter", "tool_use", "refusal", ...).
	// Anthropic's end_turn and stop_sequence map to "stop", max_tokens to
	// "length". Empty when the server gave none.
	FinishReason string `json:"finishReason"`
	// Model is the model the server says answered.
	Model string `json:"model,omitempty"`
	// ResponseID is the server's id for the response ("chatcmpl-...", "msg_...").
	ResponseID string `json:"responseId,omitempty"`
	// Raw is the exact HTTP response body that carried this completion, as
	// received: for a streamed response, the SSE stream from its first byte
	// through the end marker's event ("data: [DONE]\n\n", or Anthropic's
	// message_stop event), every "event:"/"data:"/comment line included —
	// the whole body, as servers send nothing after it; for an unstreamed
	// response, the JSON document. When the server honoured n > 1, the
	// completions of that one response share the same Raw (the choices are
	// interleaved in it); do not modify it. Its SHA-256 (RawSHA256) enters
	// the loom node's content hash.
	Raw   []byte `json:"-"`
	Usage Usage  `json:"usage"`

	// JSON is the structured answer of a Request with a JSONSchema, as the
	// model wrote it and unvalidated (it may be malformed or not match the
	// schema): Anthropic's tool_use input, or the OpenAI message content
	// with a Markdown code fence and surrounding prose removed (see
	// ExtractJSON). Empty for other requests.
	JSON string `json:"json,omitempty"`
	// Structured says how the structured answer was asked for
	// (ModeJSONSchema, ModeJSONObject, ModePrompt or ModeTool); empty for
	// other requests.
	Structured StructuredMode `json:"structured,omitempty"`
	// Refusal is the refusal message an OpenAI model sent in place of
	// content ("refusal" of the message or its deltas). A request with a
	// JSONSchema fails with a *RefusalError instead.
	Refusal string `json:"refusal,omitempty"`
}

// RawSHA256 is the lowercase hex SHA-256 of c.Raw: the node's rawResponseHash.
// See ERRATA.md, "Content hash".
func (c Completion) RawSHA256() string {
	sum := sha256.Sum256(c.Raw)
	return hex.EncodeToString(sum[:])
}

// Usage is the token accounting the server reported for the response that
// carried a completion. A response that carried several completions (n > 1)
// reports one total: SharedBy says how many completions share it. Zero when
// the server reported none.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	SharedBy     int `json:"sharedBy,omitempty"`
}

// Provider generates continuations.
type Provider interface {
	// Generate asks for req.N continuations and returns them ordered by
	// Index, 0..N-1. onDelta (may be nil) receives each piece of text as it
	// arrives; it is called from several goroutines but never concurrently,
	// and should return quickly.
	//
	// On any failure — an HTTP error status (*APIError), a stream dropped
	// before its end (ErrStreamEnded), an undecodable event, or ctx being
	// cancelled (the error wraps ctx.Err()) — Generate returns nil and a
	// *GenerateError; the deltas already delivered must then be discarded.
	Generate(ctx context.Context, req Request, onDelta func(Delta)) ([]Completion, error)
}

// New returns the Provider cfg names ("openai" or "anthropic"), or an error
// saying which Config field is wrong.
func New(cfg Config) (Provider, error) {
	switch cfg.Provider {
	case ProviderOpenAI:
		return NewOpenAI(cfg)
	case ProviderAnthropic:
		return NewAnthropic(cfg)
	default:
		return nil, fmt.Errorf("llm: config field provider: unknown provider %q (want %q or %q)", cfg.Provider, ProviderOpenAI, ProviderAnthropic)
	}
}

// params is a Request resolved against the Config: every field final.
type params struct {
	messages    []Message
	prompt      string
	chat        bool
	model       string
	temperature *float64
	maxTokens   int
	n           int
	stop        []string
	schema      *JSONSchema
	// mode is how the structured answer is asked for (schema set only).
	mode StructuredMode
}

// resolve validates req and fills its zero fields from cfg.
func resolve(cfg Config, req Request) (params, error) {
	p := params{
		messages:    req.Messages,
		prompt:      req.Prompt,
		chat:        len(req.Messages) > 0,
		model:       req.Model,
		temperature: req.Temperature,
		maxTokens:   req.MaxTokens,
		n:           req.N,
		stop:        req.Stop,
		schema:      req.JSONSchema,
	}
	if p.model == "" {
		p.model = cfg.Model
	}
	if p.temperature == nil {
		p.temperature = cfg.Temperature
	}
	if p.maxTokens == 0 {
		p.maxTokens = cfg.MaxTokens
	}
	if p.n == 0 {
		p.n = cfg.N
	}
	if p.n == 0 {
		p.n = 1
	}
	switch {
	case len(req.Messages) > 0 && req.Prompt != "":
		return p, errors.New("llm: request has both messages (dialogue mode) and prompt (buffer mode); set one")
	case len(req.Messages) == 0 && req.Prompt == "":
		return p, errors.New("llm: request has neither messages nor prompt")
	case p.model == "":
		return p, errors.New("llm: request field model: empty, and the config names no model")
	case p.n < 1 || p.n > MaxN:
		return p, fmt.Errorf("llm: request field n: %d, want 1..%d", p.n, MaxN)
	case p.maxTokens < 0:
		return p, fmt.Errorf("llm: request field maxTokens: %d, want >= 0", p.maxTokens)
	}
	if p.schema != nil {
		if !p.chat {
			return p, errors.New("llm: request field jsonSchema: structured output needs dialogue mode (messages), not a prompt")
		}
		if err := p.schema.validate(); err != nil {
			return p, err
		}
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return p, fmt.Errorf("llm: request messages[%d].role: %q, want system, user or assistant", i, m.Role)
		}
	}
	return p, nil
}
