package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
)

// The providers a Config may name.
const (
	ProviderOpenAI    = "openai"    // any OpenAI-compatible server
	ProviderAnthropic = "anthropic" // the Anthropic Messages API
)

// Default base URLs, used when Config.BaseURL is empty.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

// Config is the generation setting a user picks: which server, which model,
// and the sampling defaults a Request falls back to.
//
// Examples of BaseURL for the "openai" provider: https://api.openai.com/v1,
// https://openrouter.ai/api/v1, http://localhost:11434/v1 (Ollama),
// http://localhost:8080/v1 (llama.cpp server), http://localhost:1234/v1
// (LM Studio), http://localhost:8000/v1 (vLLM). For "anthropic":
// https://api.anthropic.com (a trailing /v1 is accepted too).
//
// The API key never leaves the process through a Config: String, GoString,
// Format and MarshalJSON print "[redacted]" in its place (see Secret).
// EncodeConfig and DecodeConfig never carry it: the app keeps it apart, in a
// file readable by the user alone, under KeyName.
type Config struct {
	Provider string `json:"provider"`
	BaseURL  string `json:"baseUrl"`
	Model    string `json:"model"`
	APIKey   Secret `json:"apiKey"`
	// Temperature is the default sampling temperature; nil leaves it to the server.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens is the default bound per continuation, in tokens; 0 leaves it
	// to the server (Anthropic requires one: 0 then means DefaultAnthropicMaxTokens).
	MaxTokens int `json:"maxTokens,omitempty"`
	// N is the default number of continuations per generation; 0 means 1.
	N int `json:"n,omitempty"`
	// NoStream asks for one JSON response instead of an SSE stream, for
	// servers whose streaming is broken. Deltas then arrive whole.
	NoStream bool `json:"noStream,omitempty"`
}

// Validate reports the first Config field that cannot work, by its JSON name.
func (c Config) Validate() error {
	switch c.Provider {
	case ProviderOpenAI, ProviderAnthropic:
	default:
		return fmt.Errorf("llm: config field provider: %q, want %q or %q", c.Provider, ProviderOpenAI, ProviderAnthropic)
	}
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("llm: config field baseUrl: %q is not an http(s) URL", c.BaseURL)
		}
		if u.User != nil {
			return fmt.Errorf("llm: config field baseUrl: must not carry credentials; use apiKey")
		}
	}
	if c.N < 0 || c.N > MaxN {
		return fmt.Errorf("llm: config field n: %d, want 0..%d", c.N, MaxN)
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("llm: config field maxTokens: %d, want >= 0", c.MaxTokens)
	}
	return nil
}

// KeyName names c's API key where it is kept: one key per provider and base
// URL ("llm:<provider>:<base URL>"), so that switching servers keeps each
// server's key and a key typed for one server is never sent to another.
func (c Config) KeyName() string {
	return "llm:" + c.Provider + ":" + c.baseURL()
}

// EncodeConfig validates c and encodes it as JSON without its API key (the
// apiKey field holds "[redacted]" when one is set).
func EncodeConfig(c Config) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("llm: unable to encode the config: %w", err)
	}
	return b, nil
}

// DecodeConfig decodes a Config encoded by EncodeConfig. Its APIKey is never
// read from b, whatever b holds (a hand-edited key is ignored): set it from
// where keys are kept. The error names the field that cannot be read.
func DecodeConfig(b []byte) (Config, error) {
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("llm: unable to read the config: %w", err)
	}
	c.APIKey = Secret{}
	return c, nil
}

// baseURL is c.BaseURL, or the provider's default, without a trailing slash.
func (c Config) baseURL() string {
	b := c.BaseURL
	if b == "" {
		switch c.Provider {
		case ProviderAnthropic:
			b = DefaultAnthropicBaseURL
		default:
			b = DefaultOpenAIBaseURL
		}
	}
	return strings.TrimRight(b, "/")
}

// String prints c with the API key redacted.
func (c Config) String() string { return c.describe(false) }

// GoString prints c as Go syntax with the API key redacted (for %#v).
func (c Config) GoString() string { return c.describe(true) }

// LogValue makes log/slog print c with the API key redacted.
func (c Config) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("provider", c.Provider),
		slog.String("baseUrl", c.BaseURL),
		slog.String("model", c.Model),
		slog.String("apiKey", c.APIKey.String()),
		slog.Int("maxTokens", c.MaxTokens),
		slog.Int("n", c.N),
		slog.Bool("noStream", c.NoStream),
	}
	if c.Temperature != nil {
		attrs = append(attrs, slog.Float64("temperature", *c.Temperature))
	}
	return slog.GroupValue(attrs...)
}

func (c Config) describe(goSyntax bool) string {
	temp := "nil"
	if c.Temperature != nil {
		temp = strconv.FormatFloat(*c.Temperature, 'g', -1, 64)
	}
	if goSyntax {
		return fmt.Sprintf("llm.Config{Provider:%q, BaseURL:%q, Model:%q, APIKey:%s, Temperature:%s, MaxTokens:%d, N:%d, NoStream:%t}",
			c.Provider, c.BaseURL, c.Model, c.APIKey.GoString(), temp, c.MaxTokens, c.N, c.NoStream)
	}
	return fmt.Sprintf("{Provider:%s BaseURL:%s Model:%s APIKey:%s Temperature:%s MaxTokens:%d N:%d NoStream:%t}",
		c.Provider, c.BaseURL, c.Model, c.APIKey.String(), temp, c.MaxTokens, c.N, c.NoStream)
}

// Redacted is what a set Secret prints as.
const Redacted = "[redacted]"

// Secret holds an API key so that it cannot be printed, logged or encoded by
// accident. Every fmt verb, log/slog and encoding/json print Redacted (or ""
// when unset). The key itself lives only inside a closure, which reflection
// cannot look into: even fmt's reflection-based printing (a Config in an
// unexported field, a wrong verb like %s on a struct) shows only an address.
// Reveal returns the key; only the code that sends it to the provider and
// the secrets file writer call it. The zero Secret is unset.
type Secret struct {
	v *secretValue
}

type secretValue struct{ reveal func() string }

// NewSecret wraps key; an empty key gives the unset Secret.
func NewSecret(key string) Secret {
	if key == "" {
		return Secret{}
	}
	return Secret{v: &secretValue{reveal: func() string { return key }}}
}

// Reveal returns the key itself, "" when unset.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return s.v.reveal()
}

// IsSet reports whether a key is held.
func (s Secret) IsSet() bool { return s.v != nil }

// Equal reports whether s and o hold the same key.
func (s Secret) Equal(o Secret) bool { return s.Reveal() == o.Reveal() }

// String is Redacted when a key is held, "" otherwise.
func (s Secret) String() string {
	if s.IsSet() {
		return Redacted
	}
	return ""
}

// GoString is the quoted String, for %#v.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format prints String for every verb (%v, %s, %q, %x, %d, ...).
func (s Secret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q' || (verb == 'v' && f.Flag('#')):
		fmt.Fprint(f, s.GoString())
	default:
		fmt.Fprint(f, s.String())
	}
}

// LogValue makes log/slog print String.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON encodes String: "[redacted]" or "".
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON sets the key from a JSON string (a settings form sending a
// new key). The Redacted placeholder leaves the Secret unchanged, so a Config
// that went to the frontend and came back keeps its key; null leaves it
// unchanged too, and "" clears it.
func (s *Secret) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return fmt.Errorf("llm: apiKey: want a JSON string: %w", err)
	}
	if str == Redacted {
		return nil
	}
	*s = NewSecret(str)
	return nil
}
