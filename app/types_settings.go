package app

// The shapes of app/settings.go: the model and summary settings: the Settings
// area's part of the contract with the frontend (types.go says how it is
// kept).

// LLMSettings is the model configuration as the frontend sees it: never the
// API key, only whether one is stored for this provider and base URL.
type LLMSettings struct {
	Provider    string   `json:"provider"` // "openai" (any OpenAI-compatible server) or "anthropic"
	BaseURL     string   `json:"baseUrl"`  // "" = the provider's default
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature" ts_type:"number | null"` // null = the server's default
	MaxTokens   int      `json:"maxTokens"`                           // per continuation; 0 = the server's default
	N           int      `json:"n"`                                   // continuations per generation; 0 = 1
	NoStream    bool     `json:"noStream"`
	APIKeySet   bool     `json:"apiKeySet"`
	Configured  bool     `json:"configured"` // provider and model set: generation can run
}

// LLMSettingsInput is the settings form: APIKey "" keeps the stored key,
// ClearAPIKey forgets it.
type LLMSettingsInput struct {
	Provider    string   `json:"provider"`
	BaseURL     string   `json:"baseUrl"`
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature" ts_type:"number | null"`
	MaxTokens   int      `json:"maxTokens"`
	N           int      `json:"n"`
	NoStream    bool     `json:"noStream"`
	APIKey      string   `json:"apiKey,omitempty"`
	ClearAPIKey bool     `json:"clearApiKey,omitempty"`
}

// SettingsView is every setting the Settings view shows.
type SettingsView struct {
	LLM       LLMSettings     `json:"llm"`
	Summaries SummarySettings `json:"summaries"`
	ConfigDir string          `json:"configDir"` // the folder beside the library holding the API keys (secrets.json, 0600)
}

// SummarySettings is how summaries are made (Settings.SetSummaries): offline
// only (the default), or with a model: the summary model when one is named
// (a cheaper one, say), else the generation model (LLMSettings).
type SummarySettings struct {
	UseModel bool `json:"useModel"` // summarise with a model; false: offline summaries only
	// The summary model; Model "" = the generation model.
	Provider  string `json:"provider"` // "openai" or "anthropic" ("" with Model "")
	BaseURL   string `json:"baseUrl"`  // "" = the provider's default
	Model     string `json:"model"`
	APIKeySet bool   `json:"apiKeySet"` // a key is stored for the summary model's provider and base URL
	// Concurrency is how many summaries are made at once (1..8).
	Concurrency int `json:"concurrency"`
	// LoomTreeEvery: a loom tree's summary is made again every this many
	// new nodes (and on demand).
	LoomTreeEvery int `json:"loomTreeEvery"`
	// InUse is the model summaries are made with now ("anthropic/claude-haiku-4-5"),
	// "" when offline; Overridden says it was set for this run (command-line
	// flags or RHIZOME_LLM_* variables), not by these settings.
	InUse      string `json:"inUse"`
	Overridden bool   `json:"overridden"`
}

// SummarySettingsInput is the summary part of the settings form: APIKey ""
// keeps the stored key of the summary model's provider and base URL.
type SummarySettingsInput struct {
	UseModel      bool   `json:"useModel"`
	Provider      string `json:"provider"`
	BaseURL       string `json:"baseUrl"`
	Model         string `json:"model"`
	APIKey        string `json:"apiKey,omitempty"`
	Concurrency   int    `json:"concurrency"`
	LoomTreeEvery int    `json:"loomTreeEvery"`
}

// LLMTestResult is the outcome of Settings.TestLLM: OK, or Error with the
// provider's message. Text is what the model answered.
type LLMTestResult struct {
	OK        bool   `json:"ok"`
	Error     string `json:"error,omitempty"`
	Model     string `json:"model"`
	Text      string `json:"text,omitempty"`
	ElapsedMs int64  `json:"elapsedMs"`
}
