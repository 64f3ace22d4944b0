package copilot

import (
	"rhizome/backend/session"
)

// Totals sums usage: the model calls counted and their tokens.
type Totals struct {
	Requests   int   `json:"requests,omitempty"`
	Input      int64 `json:"input,omitempty"` // uncached
	CacheRead  int64 `json:"cacheRead,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
	Output     int64 `json:"output,omitempty"` // including reasoning
	Reasoning  int64 `json:"reasoning,omitempty"`
}

func (t *Totals) add(u *session.Usage, requests int) {
	t.Requests += requests
	t.Input += u.Input
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Output += u.Output
	t.Reasoning += u.Reasoning
}

// usageVal is one model call's counts as the state keeps them, until the
// assistant message of the call takes them.
type usageVal struct {
	In        int64 `json:"in,omitempty"` // inputTokens: cache included
	Out       int64 `json:"out,omitempty"`
	Read      int64 `json:"read,omitempty"`
	Write     int64 `json:"write,omitempty"`
	Reasoning int64 `json:"reasoning,omitempty"`
}

// Usage maps a Copilot CLI token count to the shared model: Input is the
// uncached input (inputTokens minus cacheReadTokens and cacheWriteTokens,
// never below zero: Copilot CLI's inputTokens is the provider's prompt
// tokens, cache included), CacheRead and CacheWrite as written, Output is
// outputTokens (reasoning included), Reasoning the part of it spent on
// reasoning. Cost stays zero: the usage record's "cost" is Copilot's
// premium-request multiplier, not US dollars (and 0 for a provider key of
// one's own); pricing by model is the import's. See
// testdata/generate/README.md, "Token fields".
func (v usageVal) Usage() *session.Usage {
	u := &session.Usage{Input: max(v.In-v.Read-v.Write, 0), Output: v.Out, CacheRead: v.Read, CacheWrite: v.Write, Reasoning: v.Reasoning}
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	return u
}

func toUsageVal(u *wireUsage) usageVal {
	return usageVal{In: u.InputTokens, Out: u.OutputTokens, Read: u.CacheReadTokens, Write: u.CacheWriteTokens, Reasoning: u.ReasoningTokens}
}

// ProviderCopilot is the Message.Provider of a model call made through
// GitHub's Copilot service (pi's name for that provider). A call made with
// a provider key of one's own (the usage record's isByok) names instead
// the provider type Copilot CLI was configured with (COPILOT_PROVIDER_TYPE:
// "openai", "azure", "anthropic"), or "byok" when the record gives none.
const ProviderCopilot = "github-copilot"

// provider names the provider of a call (see ProviderCopilot).
func provider(u *wireUsage) string {
	if u.IsBYOK && u.ProviderType != "" {
		return u.ProviderType
	}
	if u.IsBYOK {
		return "byok"
	}
	return ProviderCopilot
}

// api names the wire API of a call from its endpoint, as pi names them:
// "/chat/completions" is "openai-completions", "/responses"
// "openai-responses", "/messages" "anthropic-messages"; "" for another.
func api(endpoint string) string {
	switch endpoint {
	case "/chat/completions", "/v1/chat/completions":
		return "openai-completions"
	case "/responses", "/v1/responses":
		return "openai-responses"
	case "/messages", "/v1/messages":
		return "anthropic-messages"
	}
	return ""
}

// stopReason maps a call's finishReason (OpenAI's finish_reason) to pi's
// stop reasons: stop, toolUse, length, error; another is kept as written.
func stopReason(finish string) string {
	switch finish {
	case "stop", "end_turn":
		return "stop"
	case "tool_calls", "tool_use", "function_call":
		return "toolUse"
	case "length", "max_tokens":
		return "length"
	case "content_filter", "refusal":
		return "error"
	}
	return finish
}
