package opencode

import "rhizome/backend/session"

// Totals sums usage: the responses counted, their tokens and cost (USD).
type Totals struct {
	Responses  int     `json:"responses,omitempty"`
	Input      int64   `json:"input,omitempty"` // uncached prompt tokens
	CacheRead  int64   `json:"cacheRead,omitempty"`
	CacheWrite int64   `json:"cacheWrite,omitempty"`
	Output     int64   `json:"output,omitempty"` // reasoning included
	Reasoning  int64   `json:"reasoning,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
}

func (t *Totals) add(u *session.Usage) {
	t.Responses++
	t.Input += u.Input
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Output += u.Output
	t.Reasoning += u.Reasoning
	t.Cost += u.Cost.Total
}

// add sums step-finish tokens.
func (t *wireTokens) add(o *wireTokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.Reasoning += o.Reasoning
	t.Cache.Read += o.Cache.Read
	t.Cache.Write += o.Cache.Write
}

// usage maps OpenCode's tokens to the shared model. OpenCode stores, of a
// response the provider reported as P prompt tokens (C of them cached) and
// O completion tokens (R of them reasoning): input = P - C, cache.read = C,
// output = O - R, reasoning = R (README "message"). So Input is input,
// CacheRead and CacheWrite the cache's, Output output plus reasoning (the
// provider's completion tokens) and Reasoning reasoning; TotalTokens is
// their sum, OpenCode's total. Cost.Total is the message's cost in USD, as
// OpenCode priced it from its model catalogue (0 when it has no price).
func (t *wireTokens) usage(cost float64) *session.Usage {
	u := &session.Usage{Input: t.Input, Output: t.Output + t.Reasoning, Reasoning: t.Reasoning,
		CacheRead: t.Cache.Read, CacheWrite: t.Cache.Write}
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	u.Cost.Total = cost
	return u
}
