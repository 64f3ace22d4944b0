package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"rhizome/backend/llm"
	"rhizome/store"
)

// Summary settings: whether summaries are made with a model (offline only
// by default), which one (a summary model, else the generation model), how
// many at once and how often a loom tree's summary is made again. Kept in
// the library's settings table under store.SummarySettingKey; the summary
// model's API key, like the generation model's, in the secrets file by
// provider and base URL.

// Defaults and bounds of the summary settings.
const (
	DefaultSummaryConcurrency = 2
	MaxSummaryConcurrency     = 8
	DefaultLoomTreeEvery      = 10
)

// summaryConfig is the summary setting as stored (JSON).
type summaryConfig struct {
	UseModel      bool   `json:"useModel"`
	Provider      string `json:"provider,omitempty"`
	BaseURL       string `json:"baseUrl,omitempty"`
	Model         string `json:"model,omitempty"`
	Concurrency   int    `json:"concurrency,omitempty"`
	LoomTreeEvery int    `json:"loomTreeEvery,omitempty"`
}

// withDefaults fills the zero fields.
func (c summaryConfig) withDefaults() summaryConfig {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultSummaryConcurrency
	}
	c.Concurrency = min(c.Concurrency, MaxSummaryConcurrency)
	if c.LoomTreeEvery <= 0 {
		c.LoomTreeEvery = DefaultLoomTreeEvery
	}
	return c
}

// ModelOverride is a model given for one run (the command line's --base-url
// and --model, the RHIZOME_LLM_* variables): it replaces the library's model
// settings, the generation model's and the summary model's, for as long as
// the process runs, and is never saved. Empty fields keep the library's.
type ModelOverride struct {
	Provider string // "openai" or "anthropic"; "" keeps the library's provider, else "openai"
	BaseURL  string
	Model    string
	APIKey   string // "" keeps the key stored for the provider and base URL
}

// IsZero reports whether the override changes nothing.
func (o ModelOverride) IsZero() bool { return o == ModelOverride{} }

// Environment variables that override the model for one run (see
// ModelOverrideFromEnv).
const (
	EnvLLMProvider = "RHIZOME_LLM_PROVIDER"
	EnvLLMBaseURL  = "RHIZOME_LLM_BASE_URL"
	EnvLLMModel    = "RHIZOME_LLM_MODEL"
	EnvLLMAPIKey   = "RHIZOME_LLM_API_KEY"
)

// ModelOverrideFromEnv reads RHIZOME_LLM_PROVIDER, RHIZOME_LLM_BASE_URL,
// RHIZOME_LLM_MODEL and RHIZOME_LLM_API_KEY.
func ModelOverrideFromEnv() ModelOverride {
	return ModelOverride{Provider: strings.TrimSpace(os.Getenv(EnvLLMProvider)),
		BaseURL: strings.TrimSpace(os.Getenv(EnvLLMBaseURL)), Model: strings.TrimSpace(os.Getenv(EnvLLMModel)),
		APIKey: strings.TrimSpace(os.Getenv(EnvLLMAPIKey))}
}

// SetModelOverride sets the model for this run (see ModelOverride); the
// zero override goes back to the library's settings. The error names the
// field that cannot work (provider, baseUrl).
func (a *App) SetModelOverride(o ModelOverride) error {
	if o.Provider != "" && o.Provider != llm.ProviderOpenAI && o.Provider != llm.ProviderAnthropic {
		return fmt.Errorf("app: model override: provider %q, want %q or %q", o.Provider, llm.ProviderOpenAI, llm.ProviderAnthropic)
	}
	if o.BaseURL != "" {
		if err := (llm.Config{Provider: llm.ProviderOpenAI, BaseURL: o.BaseURL}).Validate(); err != nil {
			return fmt.Errorf("app: model override: %w", err)
		}
	}
	s := a.Settings
	s.mu.Lock()
	s.override = o
	s.gen++
	s.provider, s.sumProvider = nil, nil
	s.mu.Unlock()
	return nil
}

// applyOverride lays the run's model override over cfg; the key is the one
// given, else the one stored for the resulting provider and base URL.
func (s *Settings) applyOverride(cfg llm.Config) (llm.Config, error) {
	s.mu.Lock()
	o := s.override
	s.mu.Unlock()
	if o.IsZero() {
		return cfg, nil
	}
	if o.Provider != "" {
		cfg.Provider = o.Provider
	} else if cfg.Provider == "" {
		cfg.Provider = llm.ProviderOpenAI
	}
	if o.BaseURL != "" {
		cfg.BaseURL = o.BaseURL
	}
	if o.Model != "" {
		cfg.Model = o.Model
	}
	if o.APIKey != "" {
		cfg.APIKey = llm.NewSecret(o.APIKey)
		return cfg, nil
	}
	key, err := s.c.store.Secrets().Get(cfg.KeyName())
	if err != nil {
		return cfg, fmt.Errorf("settings: %w", err)
	}
	cfg.APIKey = llm.NewSecret(key)
	return cfg, nil
}

// overridden reports whether a model is given for this run.
func (s *Settings) overridden() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.override.IsZero()
}

// loadSummaryConfig reads the summary setting, defaults filled.
func (s *Settings) loadSummaryConfig() (summaryConfig, error) {
	b, err := s.c.store.Setting(s.c.context(), store.SummarySettingKey)
	if errors.Is(err, store.ErrNotFound) {
		return summaryConfig{}.withDefaults(), nil
	}
	if err != nil {
		return summaryConfig{}, fmt.Errorf("settings: %w", err)
	}
	var c summaryConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return summaryConfig{}, fmt.Errorf("settings: the summary setting in the library: %w", err)
	}
	return c.withDefaults(), nil
}

// summaryLLM returns the model summaries are made with (the run's
// override, else the summary model, else the generation model, its API key
// set) and whether one is configured at all. Whether it is used is
// useModel's to say.
func (s *Settings) summaryLLM() (llm.Config, bool, error) {
	sc, err := s.loadSummaryConfig()
	if err != nil {
		return llm.Config{}, false, err
	}
	var cfg llm.Config
	if sc.Model != "" {
		cfg = llm.Config{Provider: sc.Provider, BaseURL: sc.BaseURL, Model: sc.Model}
		key, err := s.c.store.Secrets().Get(cfg.KeyName())
		if err != nil {
			return llm.Config{}, false, fmt.Errorf("settings: %w", err)
		}
		cfg.APIKey = llm.NewSecret(key)
	} else {
		gen, err := s.loadStoredLLM()
		if err != nil {
			return llm.Config{}, false, err
		}
		cfg = llm.Config{Provider: gen.Provider, BaseURL: gen.BaseURL, Model: gen.Model, APIKey: gen.APIKey,
			NoStream: gen.NoStream}
	}
	if cfg, err = s.applyOverride(cfg); err != nil {
		return llm.Config{}, false, err
	}
	return cfg, cfg.Provider != "" && cfg.Model != "", nil
}

// summaryProvider returns the provider summaries are made with and its
// source ("model:<provider>/<model>"), or nil when summaries are made
// offline: useModel false (the setting, unless the run says otherwise), or
// no model configured.
func (s *Settings) summaryProvider(useModel bool) (llm.Provider, string, error) {
	if !useModel {
		return nil, "", nil
	}
	cfg, ok, err := s.summaryLLM()
	if err != nil || !ok {
		return nil, "", err
	}
	name := cfg.Provider + "/" + cfg.Model
	s.mu.Lock()
	defer s.mu.Unlock()
	key := cfg.String() + "\x00" + cfg.APIKey.Reveal()
	if s.sumProvider != nil && s.sumKey == key {
		return s.sumProvider, name, nil
	}
	p, err := llm.New(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("settings: the summary model: %w", err)
	}
	s.sumProvider, s.sumKey = p, key
	return p, name, nil
}

// summarySettings is the summary setting as the Settings view shows it.
func (s *Settings) summarySettings() (SummarySettings, error) {
	sc, err := s.loadSummaryConfig()
	if err != nil {
		return SummarySettings{}, err
	}
	v := SummarySettings{UseModel: sc.UseModel, Provider: sc.Provider, BaseURL: sc.BaseURL, Model: sc.Model,
		Concurrency: sc.Concurrency, LoomTreeEvery: sc.LoomTreeEvery, Overridden: s.overridden()}
	if sc.Model != "" {
		key, err := s.c.store.Secrets().Get(llm.Config{Provider: sc.Provider, BaseURL: sc.BaseURL}.KeyName())
		if err != nil {
			return SummarySettings{}, fmt.Errorf("settings: %w", err)
		}
		v.APIKeySet = key != ""
	}
	if sc.UseModel || v.Overridden {
		if cfg, ok, err := s.summaryLLM(); err == nil && ok && sc.UseModel {
			v.InUse = cfg.Provider + "/" + cfg.Model
		}
	}
	return v, nil
}

// SetSummaries saves how summaries are made and returns the settings now in
// force. Errors name the field: provider (openai or anthropic, when a
// model is named), baseUrl, concurrency (1..8), loomTreeEvery (1..1000).
// An empty in.APIKey keeps the key stored for the summary model's provider
// and base URL.
func (s *Settings) SetSummaries(in SummarySettingsInput) (SettingsView, error) {
	sc := summaryConfig{UseModel: in.UseModel, Provider: strings.TrimSpace(in.Provider),
		BaseURL: strings.TrimSpace(in.BaseURL), Model: strings.TrimSpace(in.Model),
		Concurrency: in.Concurrency, LoomTreeEvery: in.LoomTreeEvery}
	switch {
	case sc.Concurrency < 0 || sc.Concurrency > MaxSummaryConcurrency:
		return SettingsView{}, fmt.Errorf("settings: field concurrency: %d, want 1..%d", sc.Concurrency, MaxSummaryConcurrency)
	case sc.LoomTreeEvery < 0 || sc.LoomTreeEvery > 1000:
		return SettingsView{}, fmt.Errorf("settings: field loomTreeEvery: %d, want 1..1000", sc.LoomTreeEvery)
	}
	var cfg llm.Config
	if sc.Model != "" {
		cfg = llm.Config{Provider: sc.Provider, BaseURL: sc.BaseURL, Model: sc.Model}
		if err := cfg.Validate(); err != nil {
			return SettingsView{}, fmt.Errorf("settings: the summary model: %w", err)
		}
	} else {
		sc.Provider, sc.BaseURL = "", ""
	}
	b, err := json.Marshal(sc.withDefaults())
	if err != nil {
		return SettingsView{}, fmt.Errorf("settings: unable to encode the summary setting: %w", err)
	}
	if key := strings.TrimSpace(in.APIKey); key != "" && sc.Model != "" {
		if err := s.c.store.Secrets().Put(cfg.KeyName(), key); err != nil {
			return SettingsView{}, fmt.Errorf("settings: %w", err)
		}
	}
	if err := s.c.store.PutSetting(s.c.context(), store.SummarySettingKey, b); err != nil {
		return SettingsView{}, fmt.Errorf("settings: %w", err)
	}
	s.mu.Lock()
	s.sumProvider = nil
	s.mu.Unlock()
	s.c.emitEvent("settings:changed", nil)
	s.c.summaries.settingsChanged()
	return s.Get()
}
