package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"rhizome/backend/llm"
	"rhizome/store"
)

// Settings is what the person chooses once per library: the model that
// generates loom continuations. It is kept in the library (the settings
// table: the llm.Config without its API key, llm.EncodeConfig), as is the UI
// state Rhizome remembers (each loom tree's active path, with the tree: see
// Loom.SetActivePath). API keys stay out of the library, in the secrets file
// beside it ("<library>.config/secrets.json", mode 0600; store.Secrets), one
// per provider and base URL (llm.Config.KeyName).
//
// The API key never leaves the Go process: Get reports only whether one is
// set, and no error, event or export carries it.
type Settings struct {
	c *core

	mu       sync.Mutex // guards the model setting's read-modify-write, the cached providers and the override
	gen      int        // bumped by every SetLLM: invalidates provider
	provider llm.Provider
	provGen  int

	override    ModelOverride // the model given for this run (App.SetModelOverride)
	sumProvider llm.Provider  // the summary model's provider, built for sumKey
	sumKey      string
}

// llmTestTimeout bounds TestLLM.
const llmTestTimeout = 30 * time.Second

// loadLLM returns the generation model: the model setting with its API
// key, with the run's override (App.SetModelOverride) laid over it; the
// zero Config when none is set.
func (s *Settings) loadLLM() (llm.Config, error) {
	cfg, err := s.loadStoredLLM()
	if err != nil {
		return cfg, err
	}
	return s.applyOverride(cfg)
}

// loadStoredLLM returns the model setting as stored, with its API key; the
// zero Config when none is set.
func (s *Settings) loadStoredLLM() (llm.Config, error) {
	st := s.c.store
	b, err := st.Setting(s.c.context(), store.LLMSettingKey)
	if errors.Is(err, store.ErrNotFound) {
		return llm.Config{}, nil
	}
	if err != nil {
		return llm.Config{}, fmt.Errorf("settings: %w", err)
	}
	cfg, err := llm.DecodeConfig(b)
	if err != nil {
		return llm.Config{}, fmt.Errorf("settings: the model setting in the library: %w", err)
	}
	key, err := st.Secrets().Get(cfg.KeyName())
	if err != nil {
		return llm.Config{}, fmt.Errorf("settings: %w", err)
	}
	cfg.APIKey = llm.NewSecret(key)
	return cfg, nil
}

// Get returns the settings as the Settings view shows them. The API key is
// reported only as llm.apiKeySet.
func (s *Settings) Get() (SettingsView, error) {
	cfg, err := s.loadStoredLLM()
	if err != nil {
		return SettingsView{}, err
	}
	sum, err := s.summarySettings()
	if err != nil {
		return SettingsView{}, err
	}
	return SettingsView{LLM: llmSettings(cfg), Summaries: sum, ConfigDir: s.c.store.ConfigDir()}, nil
}

func llmSettings(c llm.Config) LLMSettings {
	return LLMSettings{
		Provider: c.Provider, BaseURL: c.BaseURL, Model: c.Model, Temperature: c.Temperature,
		MaxTokens: c.MaxTokens, N: c.N, NoStream: c.NoStream, APIKeySet: c.APIKey.IsSet(),
		Configured: c.Provider != "" && c.Model != "",
	}
}

// SetLLM saves the model settings and returns the settings now in force.
// The API key is kept per provider and base URL: an empty in.APIKey keeps
// the key already stored for the new provider and base URL (a key typed for
// one server is never sent to another); in.ClearAPIKey forgets it. Errors
// name the field that cannot work: provider (openai or anthropic), baseUrl
// (an http(s) URL without credentials), model (required), temperature
// (>= 0), maxTokens (>= 0), n (0..64).
func (s *Settings) SetLLM(in LLMSettingsInput) (SettingsView, error) {
	cfg := llm.Config{
		Provider: strings.TrimSpace(in.Provider), BaseURL: strings.TrimSpace(in.BaseURL),
		Model: strings.TrimSpace(in.Model), Temperature: in.Temperature, MaxTokens: in.MaxTokens, N: in.N,
		NoStream: in.NoStream,
	}
	switch {
	case cfg.Model == "":
		return SettingsView{}, errors.New("settings: field model: empty; name the model to generate with")
	case cfg.Temperature != nil && *cfg.Temperature < 0:
		return SettingsView{}, fmt.Errorf("settings: field temperature: %g, want >= 0", *cfg.Temperature)
	}
	if key := strings.TrimSpace(in.APIKey); key != "" && !in.ClearAPIKey {
		cfg.APIKey = llm.NewSecret(key)
	}
	encoded, err := llm.EncodeConfig(cfg) // validates: nothing is written for a refused one
	if err != nil {
		return SettingsView{}, fmt.Errorf("settings: %w", err)
	}
	if err := s.saveLLM(cfg, encoded, in.ClearAPIKey); err != nil {
		return SettingsView{}, err
	}
	s.c.emitEvent("settings:changed", nil)
	s.c.summaries.settingsChanged()
	return s.Get()
}

// saveLLM stores the model setting (encoded) and its key, under the lock.
func (s *Settings) saveLLM(cfg llm.Config, encoded []byte, clearKey bool) error {
	secrets := s.c.store.Secrets()
	s.mu.Lock()
	defer s.mu.Unlock()
	if cfg.APIKey.IsSet() {
		if err := secrets.Put(cfg.KeyName(), cfg.APIKey.Reveal()); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	if err := s.c.store.PutSetting(s.c.context(), store.LLMSettingKey, encoded); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if clearKey {
		if err := secrets.Delete(cfg.KeyName()); err != nil {
			return fmt.Errorf("settings: %w", err)
		}
	}
	s.gen++
	s.provider, s.sumProvider = nil, nil
	return nil
}

// TestLLM asks the configured model for a few tokens, to check the base URL,
// the key and the model name. It returns OK false and the provider's error
// text (never the key) when the generation fails; an error only when no
// model is configured or the settings cannot be read.
func (s *Settings) TestLLM() (LLMTestResult, error) {
	p, cfg, err := s.llmProvider()
	if err != nil {
		return LLMTestResult{}, err
	}
	ctx, cancel := context.WithTimeout(s.c.context(), llmTestTimeout)
	defer cancel()
	start := time.Now()
	got, err := p.Generate(ctx, llm.Request{
		Messages:  []llm.Message{{Role: llm.RoleUser, Text: "Reply with the single word: ok"}},
		N:         1,
		MaxTokens: 8,
	}, nil)
	res := LLMTestResult{Model: cfg.Model, ElapsedMs: time.Since(start).Milliseconds()}
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	res.OK = true
	if len(got) > 0 {
		res.Text = got[0].Text
		if got[0].Model != "" {
			res.Model = got[0].Model
		}
	}
	return res, nil
}

// ErrNoModel is returned when generation is asked for before a model is
// configured.
var ErrNoModel = errors.New("no model configured: open Settings")

// llmProvider returns the provider of the configured model and its
// settings, built once per SetLLM (an OpenAI client remembers which servers
// ignore n). It returns ErrNoModel when none is configured.
func (s *Settings) llmProvider() (llm.Provider, llm.Config, error) {
	cfg, err := s.loadLLM()
	if err != nil {
		return nil, llm.Config{}, err
	}
	if cfg.Provider == "" || cfg.Model == "" {
		return nil, llm.Config{}, ErrNoModel
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider != nil && s.provGen == s.gen {
		return s.provider, cfg, nil
	}
	p, err := llm.New(cfg)
	if err != nil {
		return nil, llm.Config{}, fmt.Errorf("settings: %w", err)
	}
	s.provider, s.provGen = p, s.gen
	return p, cfg, nil
}
