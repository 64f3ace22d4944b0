package gemini

import "rhizome/backend/session"

// Totals sums usage: the model responses counted and their tokens.
type Totals struct {
	Responses int   `json:"responses,omitempty"`
	Input     int64 `json:"input,omitempty"` // uncached, tool-use prompts included
	CacheRead int64 `json:"cacheRead,omitempty"`
	Output    int64 `json:"output,omitempty"` // thoughts included
	Reasoning int64 `json:"reasoning,omitempty"`
}

func (t *Totals) add(u *session.Usage, sign int) {
	t.Responses += sign
	t.Input += int64(sign) * u.Input
	t.CacheRead += int64(sign) * u.CacheRead
	t.Output += int64(sign) * u.Output
	t.Reasoning += int64(sign) * u.Reasoning
}

// Usage maps a gemini message's tokens (the response's usageMetadata) to
// the shared model: Input is the uncached prompt (input less cached) plus
// the tool-use prompt, CacheRead the cached prompt, Output the candidates
// plus the thoughts (Gemini bills thinking as output; its
// candidatesTokenCount leaves them out: total = prompt + candidates +
// thoughts + tool-use prompt), Reasoning the thoughts. TotalTokens is then
// Gemini's total. Cost stays zero: the recording carries tokens, not prices
// (pricing by model is the import's).
func (t *wireTokens) Usage() *session.Usage {
	u := &session.Usage{Input: max(t.Input-t.Cached, 0) + t.Tool, CacheRead: min(t.Cached, t.Input), Output: t.Output + t.Thoughts, Reasoning: t.Thoughts}
	u.TotalTokens = u.Input + u.Output + u.CacheRead
	return u
}
