package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"rhizome/backend/llm"
)

// Settings is what the person chooses once per library: the model that
// generates loom continuations, and the UI state Rhizome remembers (the last
// active path of each loom tree).
//
// Settings live in a folder beside the library file, "<library>.config/"
// (like the loom blob folder "<library>.blobs/"), so every library, a test's
// temporary one included, has its own:
//
//	llm.json       the llm.Config without its API key (llm.SaveConfig)
//	secrets.json   API keys, mode 0600, one per provider and base URL
//	settings.json  {"version": 1, "activePaths": {treeId: ActivePath}}
//
// The API key never leaves the Go process: Get reports only whether one is
// set, and no error, event or export carries it.
type Settings struct {
	c *core

	mu       sync.Mutex // guards settings.json and the cached provider
	gen      int        // bumped by every SetLLM: invalidates provider
	provider llm.Provider
	provGen  int
}

// settingsFile is the JSON file of settings other than the model's.
const settingsFile = "settings.json"

// settingsDoc is settings.json.
type settingsDoc struct {
	Version     int                   `json:"version"`
	ActivePaths map[string]ActivePath `json:"activePaths"`
}

// llmTestTimeout bounds TestLLM.
const llmTestTimeout = 30 * time.Second

// configDir is the library's settings folder: "<library>.config".
func (s *Settings) configDir() string {
	p := s.c.dbPath
	if p == "" {
		p = s.c.store.Path()
	}
	return p + ".config"
}

// Get returns the settings as the Settings view shows them. The API key is
// reported only as llm.apiKeySet.
func (s *Settings) Get() (SettingsView, error) {
	cfg, err := llm.LoadConfig(s.configDir())
	if err != nil {
		return SettingsView{}, fmt.Errorf("settings: %w", err)
	}
	return SettingsView{LLM: llmSettings(cfg), ConfigDir: s.configDir()}, nil
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
	dir := s.configDir()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := llm.SaveConfig(dir, cfg); err != nil {
		return SettingsView{}, fmt.Errorf("settings: %w", err)
	}
	if in.ClearAPIKey {
		if err := llm.ForgetAPIKey(dir, cfg); err != nil {
			return SettingsView{}, fmt.Errorf("settings: %w", err)
		}
	}
	s.gen++
	s.provider = nil
	s.c.emitEvent("settings:changed", nil)
	saved, err := llm.LoadConfig(dir)
	if err != nil {
		return SettingsView{}, fmt.Errorf("settings: %w", err)
	}
	return SettingsView{LLM: llmSettings(saved), ConfigDir: dir}, nil
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
	cfg, err := llm.LoadConfig(s.configDir())
	if err != nil {
		return nil, llm.Config{}, fmt.Errorf("settings: %w", err)
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

// activePath returns the remembered active path of tree treeID.
func (s *Settings) activePath(treeID string) (ActivePath, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, err := s.readDoc()
	if err != nil {
		return ActivePath{}, false, err
	}
	ap, ok := doc.ActivePaths[treeID]
	return ap, ok, nil
}

// setActivePath remembers ap as tree treeID's active path.
func (s *Settings) setActivePath(treeID string, ap ActivePath) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, err := s.readDoc()
	if err != nil {
		return err
	}
	doc.ActivePaths[treeID] = ap
	return s.writeDoc(doc)
}

// readDoc reads settings.json; a missing file is empty settings.
func (s *Settings) readDoc() (settingsDoc, error) {
	doc := settingsDoc{Version: 1, ActivePaths: map[string]ActivePath{}}
	path := filepath.Join(s.configDir(), settingsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, fmt.Errorf("settings: unable to read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("settings: %s is not valid settings JSON: %w", path, err)
	}
	if doc.ActivePaths == nil {
		doc.ActivePaths = map[string]ActivePath{}
	}
	return doc, nil
}

// writeDoc replaces settings.json atomically (a temporary file renamed).
func (s *Settings) writeDoc(doc settingsDoc) error {
	dir := s.configDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("settings: unable to create %s: %w", dir, err)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: unable to encode settings: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+settingsFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("settings: unable to write %s: %w", settingsFile, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("settings: unable to write %s: %w", settingsFile, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("settings: unable to write %s: %w", settingsFile, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, settingsFile)); err != nil {
		return fmt.Errorf("settings: unable to write %s: %w", settingsFile, err)
	}
	return nil
}
