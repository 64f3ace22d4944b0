package analyze

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// ModelPrice is what one model costs and holds: USD per million tokens of
// each kind, and its context window in tokens. Settings may override any
// entry of DefaultPrices or add models (see PriceTable.With).
type ModelPrice struct {
	// Provider is "openai", "anthropic", "google", or "local" (any model served on a
	// loopback address, which costs nothing).
	Provider string `json:"provider"`
	// Model is the model's name; a name with a date, "-latest" or a tag
	// after it ("claude-sonnet-4-5-20250929", "gpt-4o-mini-2024-07-18",
	// "claude-3-5-haiku-latest") matches it too, "." and "-" counting as
	// one ("claude-sonnet-4.5"); another version does not ("gpt-5.4" is not
	// "gpt-5"). "*" matches every model of the provider.
	Model string `json:"model"`
	// USD per million tokens: input (uncached), output, cache reads and
	// cache writes (Anthropic's 5-minute writes).
	InputPerMTok      float64 `json:"inputPerMTok"`
	OutputPerMTok     float64 `json:"outputPerMTok"`
	CacheReadPerMTok  float64 `json:"cacheReadPerMTok,omitempty"`
	CacheWritePerMTok float64 `json:"cacheWritePerMTok,omitempty"`
	// ContextWindow is the model's context in tokens (prompt and reply);
	// 0 means unknown (DefaultContextWindow is assumed).
	ContextWindow int `json:"contextWindow,omitempty"`
	// LongPromptAbove, when not 0, is the prompt size in tokens (input and
	// cached input) above which a call is billed at the Long rates
	// instead (Gemini's "prompts > 200k tokens"), USD per million tokens.
	LongPromptAbove      int64   `json:"longPromptAbove,omitempty"`
	LongInputPerMTok     float64 `json:"longInputPerMTok,omitempty"`
	LongOutputPerMTok    float64 `json:"longOutputPerMTok,omitempty"`
	LongCacheReadPerMTok float64 `json:"longCacheReadPerMTok,omitempty"`
}

// ForPrompt is the price of a call whose prompt holds prompt tokens (input
// and cached input): p, or p at its Long rates when the prompt is longer
// than LongPromptAbove.
func (p ModelPrice) ForPrompt(prompt int64) ModelPrice {
	if p.LongPromptAbove <= 0 || prompt <= p.LongPromptAbove {
		return p
	}
	p.InputPerMTok, p.OutputPerMTok, p.CacheReadPerMTok = p.LongInputPerMTok, p.LongOutputPerMTok, p.LongCacheReadPerMTok
	return p
}

// Cost is the price in USD of a call with input and output tokens (input
// uncached), at the rates of a prompt of input tokens (ForPrompt).
func (p ModelPrice) Cost(input, output int64) float64 {
	p = p.ForPrompt(input)
	return (float64(input)*p.InputPerMTok + float64(output)*p.OutputPerMTok) / 1e6
}

// PriceTable is a list of model prices; Lookup finds a model's.
type PriceTable []ModelPrice

// DefaultPrices are the standard (not batch) API prices as the providers
// published them, read on 2026-11-24 from OpenAI's pricing page
// (https://openai.com/api/pricing, "Text tokens", standard tier; cache
// reads are "cached input") and Anthropic's
// (https://platform.claude.com/docs/en/about-claude/pricing, "Model
// pricing"; cache writes are "5m cache writes", reads "cache hits"), with
// the context windows of their model pages. Prices change: settings
// override them (PriceTable.With), and an estimate says which table it
// used. "local" covers any model on a loopback address (Ollama, llama.cpp,
// LM Studio, vLLM on this machine): free, context unknown.
//
// Google's prices ("google": the Gemini API, as Gemini CLI calls it) are
// those of its pricing page (https://ai.google.dev/gemini-api/docs/pricing,
// paid tier, text; cache reads are "context caching"), which is not
// reachable from here: as quoted from it on 2026-07-04 (factquire.com)
// and in March 2026 (deploybase.ai). Qwen Code's models (Alibaba Cloud
// Model Studio) have no price here: theirs are tiered by prompt size and
// differ by region and currency, and Qwen Code's OAuth sign-in is free.
var DefaultPrices = PriceTable{
	{Provider: "openai", Model: "gpt-5", InputPerMTok: 1.25, OutputPerMTok: 10, CacheReadPerMTok: 0.125, ContextWindow: 400000},
	{Provider: "openai", Model: "gpt-5-mini", InputPerMTok: 0.25, OutputPerMTok: 2, CacheReadPerMTok: 0.025, ContextWindow: 400000},
	{Provider: "openai", Model: "gpt-5-nano", InputPerMTok: 0.05, OutputPerMTok: 0.40, CacheReadPerMTok: 0.005, ContextWindow: 400000},
	{Provider: "openai", Model: "gpt-4.1", InputPerMTok: 2, OutputPerMTok: 8, CacheReadPerMTok: 0.50, ContextWindow: 1047576},
	{Provider: "openai", Model: "gpt-4.1-mini", InputPerMTok: 0.40, OutputPerMTok: 1.60, CacheReadPerMTok: 0.10, ContextWindow: 1047576},
	{Provider: "openai", Model: "gpt-4.1-nano", InputPerMTok: 0.10, OutputPerMTok: 0.40, CacheReadPerMTok: 0.025, ContextWindow: 1047576},
	{Provider: "openai", Model: "gpt-4o", InputPerMTok: 2.50, OutputPerMTok: 10, CacheReadPerMTok: 1.25, ContextWindow: 128000},
	{Provider: "openai", Model: "gpt-4o-mini", InputPerMTok: 0.15, OutputPerMTok: 0.60, CacheReadPerMTok: 0.075, ContextWindow: 128000},
	{Provider: "anthropic", Model: "claude-opus-4-6", InputPerMTok: 5, OutputPerMTok: 25, CacheReadPerMTok: 0.50, CacheWritePerMTok: 6.25, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-opus-4-5", InputPerMTok: 5, OutputPerMTok: 25, CacheReadPerMTok: 0.50, CacheWritePerMTok: 6.25, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-opus-4-1", InputPerMTok: 15, OutputPerMTok: 75, CacheReadPerMTok: 1.50, CacheWritePerMTok: 18.75, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-sonnet-4-6", InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.30, CacheWritePerMTok: 3.75, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-sonnet-4-5", InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.30, CacheWritePerMTok: 3.75, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-sonnet-4", InputPerMTok: 3, OutputPerMTok: 15, CacheReadPerMTok: 0.30, CacheWritePerMTok: 3.75, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-haiku-4-5", InputPerMTok: 1, OutputPerMTok: 5, CacheReadPerMTok: 0.10, CacheWritePerMTok: 1.25, ContextWindow: 200000},
	{Provider: "anthropic", Model: "claude-3-5-haiku", InputPerMTok: 0.80, OutputPerMTok: 4, CacheReadPerMTok: 0.08, CacheWritePerMTok: 1, ContextWindow: 200000},
	{Provider: "google", Model: "gemini-3-pro-preview", InputPerMTok: 2, OutputPerMTok: 12, CacheReadPerMTok: 0.20, ContextWindow: 1048576,
		LongPromptAbove: 200000, LongInputPerMTok: 4, LongOutputPerMTok: 18, LongCacheReadPerMTok: 0.40},
	{Provider: "google", Model: "gemini-3-flash-preview", InputPerMTok: 0.50, OutputPerMTok: 3, CacheReadPerMTok: 0.05, ContextWindow: 1048576},
	{Provider: "google", Model: "gemini-2.5-pro", InputPerMTok: 1.25, OutputPerMTok: 10, CacheReadPerMTok: 0.125, ContextWindow: 1048576,
		LongPromptAbove: 200000, LongInputPerMTok: 2.50, LongOutputPerMTok: 15, LongCacheReadPerMTok: 0.25},
	{Provider: "google", Model: "gemini-2.5-flash", InputPerMTok: 0.30, OutputPerMTok: 2.50, CacheReadPerMTok: 0.03, ContextWindow: 1048576},
	{Provider: "google", Model: "gemini-2.5-flash-lite", InputPerMTok: 0.10, OutputPerMTok: 0.40, CacheReadPerMTok: 0.01, ContextWindow: 1048576},
	{Provider: "local", Model: "*"},
}

// With returns the table with overrides first: an override of the same
// provider and model replaces the default, others add to it.
func (t PriceTable) With(overrides ...ModelPrice) PriceTable {
	out := append(PriceTable(nil), overrides...)
	for _, p := range t {
		replaced := false
		for _, o := range overrides {
			if o.Provider == p.Provider && normModel(o.Model) == normModel(p.Model) {
				replaced = true
			}
		}
		if !replaced {
			out = append(out, p)
		}
	}
	return out
}

// Lookup returns the price of model from provider, served at baseURL, and
// whether the table knows it. A loopback baseURL (localhost, 127.0.0.0/8,
// ::1) takes the "local" entry, unless the table has an entry of the
// provider for that exact model (a user's override). Otherwise the
// provider's entry whose name is the longest match wins (see
// ModelPrice.Model); a "vendor/" prefix of router names
// ("anthropic/claude-sonnet-4.5" on OpenRouter) is ignored.
func (t PriceTable) Lookup(provider, model, baseURL string) (ModelPrice, bool) {
	name := normModel(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, bestLen := -1, -1
	for i, p := range t {
		if p.Provider != provider {
			continue
		}
		m := normModel(p.Model)
		switch {
		case m == name:
			return p, true
		case m != "*" && strings.HasPrefix(name, m) && sameModelSuffix(name[len(m):]) && len(m) > bestLen:
			best, bestLen = i, len(m)
		}
	}
	if isLoopback(baseURL) {
		for _, p := range t {
			if p.Provider == "local" {
				return p, true
			}
		}
	}
	if best >= 0 {
		return t[best], true
	}
	for _, p := range t {
		if p.Provider == provider && p.Model == "*" {
			return p, true
		}
	}
	return ModelPrice{Provider: provider, Model: model}, false
}

// snapshotSuffix is what may follow a model's name in the name of the same
// model: a date ("-20250929", "-2024-07-18"), "-latest", or a tag after
// ":" or "@" (Ollama's "llama3:8b", Vertex's "@20250929"). A version
// ("-4" of "gpt-5.4", "-7" of "claude-sonnet-4-7") names another model.
var snapshotSuffix = regexp.MustCompile(`^(-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|[:@].*)$`)

// sameModelSuffix reports whether suffix, what follows a table name in a
// model name (normalized), keeps it the same model.
func sameModelSuffix(suffix string) bool { return snapshotSuffix.MatchString(suffix) }

// normModel lowercases a model name and makes "." a "-".
func normModel(m string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(m)), ".", "-")
}

// isLoopback reports whether baseURL's host is this machine.
func isLoopback(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// BatchEstimate is what analysing a batch of segments with one model is
// expected to take, at most: every call is counted with its full reply
// bound (MaxOutputTokens), so the real cost is usually lower. USD is 0 and
// PriceKnown false when the model's price is not known.
type BatchEstimate struct {
	Segments     int     `json:"segments"`
	Calls        int     `json:"calls"` // model requests, chunks included, retries not
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	USD          float64 `json:"usd"`
	PriceKnown   bool    `json:"priceKnown"`
}

// Estimate plans the model calls of a batch before it runs: for each
// segment, given the estimated tokens of its transcript (TranscriptTokens),
// the chunks AnalyzeSegment would send with default options (the context
// window of price, else DefaultContextWindow; DefaultMaxOutputTokens, at
// most a quarter of the window), each with the system prompt, the schema,
// a context section (estimated at contextAllowance tokens) and, from the
// second chunk on, the earlier findings. known says price is the model's
// (from PriceTable.Lookup).
func Estimate(segmentTokens []int, price ModelPrice, known bool) BatchEstimate {
	window := price.ContextWindow
	if window <= 0 {
		window = DefaultContextWindow
	}
	maxOut := defaultMaxOutput(window)
	fixed := fixedTokens() + contextAllowance
	room := planRoom(window, maxOut, fixed)
	est := BatchEstimate{Segments: len(segmentTokens), PriceKnown: known}
	for _, t := range segmentTokens {
		calls, input := 1, t
		if t > room && room > 0 {
			perChunk := room - room/maxHandoverDivisor
			calls = (t + perChunk - 1) / perChunk
			input = t + (calls-1)*room/maxHandoverDivisor // the handed-over findings
		}
		est.Calls += calls
		est.InputTokens += int64(input + calls*fixed)
		est.OutputTokens += int64(calls * maxOut)
	}
	if known {
		est.USD = price.Cost(est.InputTokens, est.OutputTokens)
	}
	return est
}

// contextAllowance is the estimate, in tokens, of a prompt's context
// section (where the segment is, the offline facts, the candidate nodes)
// used by Estimate, which does not render it.
const contextAllowance = 800

// fixedTokens is the estimate of what every request carries besides the
// transcript and context: the system prompt and the schema (sent as
// response_format or a tool's input_schema, or in the system message, and
// counted as input by every provider).
func fixedTokens() int {
	return EstimateTokens(systemPrompt) + EstimateTokens(string(analysisSchema))
}

// ErrBudgetExceeded is returned (wrapped) before a model call that would
// take the spending past the budget.
var ErrBudgetExceeded = errors.New("budget exceeded")

// ErrPriceUnknown is returned (wrapped) when a budget is set but the
// model's price is not known, so the budget cannot be kept.
var ErrPriceUnknown = errors.New("the model's price is not known")

// Budget is a spending limit in USD shared by the analyses of a batch (or
// of all batches: the app keeps Spent across runs). Before each model call
// AnalyzeSegment reserves the call's largest cost (its estimated input and
// full reply bound); after it, the reservation is settled with the real
// cost. It is safe for concurrent use; the zero Budget has no limit.
type Budget struct {
	mu       sync.Mutex
	limit    float64
	spent    float64
	reserved float64
}

// NewBudget returns a budget of limitUSD (0 or less: no limit) of which
// spentUSD is already spent.
func NewBudget(limitUSD, spentUSD float64) *Budget {
	return &Budget{limit: max(limitUSD, 0), spent: max(spentUSD, 0)}
}

// Limit is the budget in USD; 0 means none.
func (b *Budget) Limit() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit
}

// Spent is what the settled calls cost, in USD.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Reservation is the room a call holds in a Budget until it is settled.
type Reservation struct {
	b   *Budget
	usd float64
	mu  sync.Mutex
	set bool
}

// Reserve holds usd for a call, or fails with ErrBudgetExceeded when the
// spent, the held and usd together would pass the limit.
func (b *Budget) Reserve(usd float64) (*Reservation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit > 0 && b.spent+b.reserved+usd > b.limit {
		return nil, fmt.Errorf("%w: the next call may cost up to $%.4f; $%.4f of $%.2f is spent and $%.4f held",
			ErrBudgetExceeded, usd, b.spent, b.limit, b.reserved)
	}
	b.reserved += usd
	return &Reservation{b: b, usd: usd}, nil
}

// Settle releases the reservation and adds the call's real cost (0 for a
// call that failed before the provider counted it). Settling twice does
// nothing.
func (r *Reservation) Settle(actualUSD float64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set {
		return
	}
	r.set = true
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	r.b.reserved -= r.usd
	r.b.spent += max(actualUSD, 0)
}
