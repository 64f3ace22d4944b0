package app

// The shapes of app/patterns.go: the patterns dashboard: the Patterns area's
// part of the contract with the frontend (types.go says how it is kept).

// PatternNode is one node behind a pattern's finding: its URI, the segment
// node to open for it (the node itself, or the segment a knowledge node was
// found in; "" when none), its kind and label.
type PatternNode struct {
	URI    string `json:"uri"`
	NodeID string `json:"nodeId"`
	Kind   string `json:"kind"`
	Label  string `json:"label"`
}

// PatternItem is one finding of a pattern: a line ("tried 2x", "corrected
// 3x") and the nodes behind it.
type PatternItem struct {
	Key     string        `json:"key"`
	Title   string        `json:"title"`
	Count   int           `json:"count"`
	Project string        `json:"project"`
	Nodes   []PatternNode `json:"nodes"`
}

// PatternSection is one of the seven patterns with its findings, the
// largest first.
type PatternSection struct {
	Pattern string        `json:"pattern"`
	Name    string        `json:"name"`
	Items   []PatternItem `json:"items"`
}

// UsageSeries is one model's or project's tokens and cost per day, aligned
// with UsageChart.Days.
type UsageSeries struct {
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Tokens      []int64   `json:"tokens"`
	Cost        []float64 `json:"cost"` // USD
	TotalTokens int64     `json:"totalTokens"`
	TotalCost   float64   `json:"totalCost"`
}

// UsageChart is token use and cost per day (every day from the first to the
// last, zero where nothing was used), per model and per project.
type UsageChart struct {
	Days        []string      `json:"days"` // YYYY-MM-DD, UTC
	Tokens      []int64       `json:"tokens"`
	Cost        []float64     `json:"cost"`
	ByModel     []UsageSeries `json:"byModel"`   // costliest first
	ByProject   []UsageSeries `json:"byProject"` // costliest first
	TotalTokens int64         `json:"totalTokens"`
	TotalCost   float64       `json:"totalCost"`
}

// Dashboard is the patterns dashboard: the seven patterns in the spec's
// order and usage over time.
type Dashboard struct {
	Sections []PatternSection `json:"sections"`
	Usage    UsageChart       `json:"usage"`
}
