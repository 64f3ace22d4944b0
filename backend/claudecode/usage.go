package claudecode

import (
	"strings"

	"rhizome/backend/session"
)

// Price is a model's price in USD per million tokens (Mtok), with the cache
// rates Anthropic bills: 5-minute cache writes at 1.25x input, 1-hour
// writes at 2x, cache reads at 0.1x; and web searches in USD per search.
type Price struct {
	Input        float64 // USD per Mtok of uncached input
	Output       float64 // USD per Mtok of output
	CacheWrite5m float64 // USD per Mtok written to the 5-minute cache
	CacheWrite1h float64 // USD per Mtok written to the 1-hour cache
	CacheRead    float64 // USD per Mtok read from the cache
	WebSearch    float64 // USD per web search request
}

// PricesAsOf is the date the price table was checked.
const PricesAsOf = "2026-11-24"

// Prices are Anthropic's list prices by model family, as of PricesAsOf.
// Source: the model pricing table at
// https://platform.claude.com/docs/en/about-claude/pricing (base input,
// 5m and 1h cache writes, cache hits, output), which agrees with the cost
// table built into Claude Code 2.1.197 (the program that wrote the test
// data) for every model below; web search is $10 per 1,000 searches.
// Opus 5.5 (claude-opus-5-5, the default of Claude Code 2.1.332) is from its
// model page and agrees with Claude Code 2.1.332's table: $4/$20, its cache
// reads at 0.05x input ($0.20), not the usual 0.1x.
// Model ids match by prefix after a dated suffix or "[1m]" is removed (see
// PriceFor). Sonnet 5 is left out: its sources disagree.
var Prices = map[string]Price{
	"claude-fable-5":    anthropicPrice(10, 50),
	"claude-mythos-5":   anthropicPrice(10, 50),
	"claude-opus-5-5":   {Input: 4, Output: 20, CacheWrite5m: 5, CacheWrite1h: 8, CacheRead: 0.20, WebSearch: 0.01},
	"claude-opus-5":     anthropicPrice(5, 25),
	"claude-opus-4-8":   anthropicPrice(5, 25),
	"claude-opus-4-7":   anthropicPrice(5, 25),
	"claude-opus-4-6":   anthropicPrice(5, 25),
	"claude-opus-4-5":   anthropicPrice(5, 25),
	"claude-opus-4-1":   anthropicPrice(15, 75),
	"claude-opus-4":     anthropicPrice(15, 75),
	"claude-sonnet-4-6": anthropicPrice(3, 15),
	"claude-sonnet-4-5": anthropicPrice(3, 15),
	"claude-sonnet-4":   anthropicPrice(3, 15),
	"claude-3-7-sonnet": anthropicPrice(3, 15),
	"claude-haiku-4-5":  anthropicPrice(1, 5),
	"claude-3-5-haiku":  anthropicPrice(0.8, 4),
	"claude-3-haiku":    {Input: 0.25, Output: 1.25, CacheWrite5m: 0.30, CacheWrite1h: 0.50, CacheRead: 0.03, WebSearch: 0.01},
}

// anthropicPrice applies Anthropic's cache multipliers to an input and
// output price (USD per Mtok).
func anthropicPrice(in, out float64) Price {
	return Price{Input: in, Output: out, CacheWrite5m: in * 1.25, CacheWrite1h: in * 2, CacheRead: in * 0.1, WebSearch: 0.01}
}

// PriceFor returns the price of a model id as Claude Code writes it
// ("claude-opus-4-8", "claude-sonnet-4-5-20250929", "claude-opus-4-8[1m]"):
// the longest key of Prices that the id starts with (so "claude-opus-4-1"
// wins over "claude-opus-4"). ok is false for an unknown model and for
// "<synthetic>".
func PriceFor(model string) (p Price, ok bool) {
	model = strings.TrimSuffix(strings.ToLower(model), "[1m]")
	best := ""
	for k := range Prices {
		if strings.HasPrefix(model, k) && len(k) > len(best) {
			rest := model[len(k):]
			if rest == "" || rest[0] == '-' || rest[0] == '@' {
				best = k
			}
		}
	}
	if best == "" {
		return Price{}, false
	}
	return Prices[best], true
}

// Synthetic is the model name Claude Code gives messages it writes itself
// (API errors, "No response requested."): never billed, never a model.
const Synthetic = "<synthetic>"

// usageVal is one usage object's counts (the state keeps the best line of
// a response being read).
type usageVal struct {
	In       int64 `json:"in,omitempty"`
	Out      int64 `json:"out,omitempty"`
	Read     int64 `json:"read,omitempty"`
	Create   int64 `json:"create,omitempty"`
	Create5m int64 `json:"create5m,omitempty"`
	Create1h int64 `json:"create1h,omitempty"`
	Web      int64 `json:"web,omitempty"`
}

func toUsageVal(u *wireUsage) usageVal {
	v := usageVal{In: u.InputTokens, Out: u.OutputTokens, Read: u.CacheReadInputTokens, Create: u.CacheCreationInputTokens}
	if c := u.CacheCreation; c != nil {
		// The split never exceeds the total: forked copies of preserved
		// messages zero the total and keep the split (seen in 2.1.197).
		v.Create1h = min(c.Ephemeral1h, v.Create)
		v.Create5m = min(c.Ephemeral5m, v.Create-v.Create1h)
	}
	if s := u.ServerToolUse; s != nil {
		v.Web = s.WebSearchRequests
	}
	return v
}

// Usage turns one response's Anthropic usage into the shared model, priced
// with PriceFor(model): Input is uncached input, CacheWrite all cache
// creation (CacheWrite5m and CacheWrite1h its split; creation not split by
// the file is priced at the 5-minute rate), Cost in USD. An unknown model
// leaves Cost zero. See claude-code-codex-formats.md §1.5.
func (v usageVal) Usage(model string) *session.Usage {
	u := &session.Usage{Input: v.In, Output: v.Out, CacheRead: v.Read, CacheWrite: v.Create,
		CacheWrite5m: v.Create5m, CacheWrite1h: v.Create1h, WebSearches: v.Web}
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	if p, ok := PriceFor(model); ok {
		u.Cost = Cost(p, u)
	}
	return u
}

// Cost prices a usage: uncached input, output, cache reads, 1-hour writes
// at their rate and the rest of the cache writes at the 5-minute rate, and
// web searches. USD.
func Cost(p Price, u *session.Usage) session.Cost {
	const m = 1e6
	h1 := min(u.CacheWrite1h, u.CacheWrite)
	c := session.Cost{
		Input:      float64(u.Input) * p.Input / m,
		Output:     float64(u.Output) * p.Output / m,
		CacheRead:  float64(u.CacheRead) * p.CacheRead / m,
		CacheWrite: float64(h1)*p.CacheWrite1h/m + float64(u.CacheWrite-h1)*p.CacheWrite5m/m,
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite + float64(u.WebSearches)*p.WebSearch
	return c
}
