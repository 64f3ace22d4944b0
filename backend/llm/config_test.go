package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"testing"
)

func testConfig() Config {
	return Config{Provider: ProviderOpenAI, BaseURL: "https://openrouter.ai/api/v1", Model: "meta-llama/llama-3.1-405b", APIKey: NewSecret(testKey), Temperature: ptr(0.8), MaxTokens: 200, N: 4}
}

// The key never shows: not through fmt (any verb, pointer, nested,
// in an unexported field), not through log or slog, not through JSON.
func TestConfigNeverPrintsKey(t *testing.T) {
	c := testConfig()
	type holder struct {
		cfg    Config // unexported: fmt cannot call its methods
		Public Config
		ptr    *Config
	}
	h := holder{cfg: c, Public: c, ptr: &c}
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"} {
		for _, v := range []any{c, &c, h, &h, []Config{c}, map[string]Config{"k": c}, c.APIKey, &c.APIKey} {
			outputs = append(outputs, fmt.Sprintf(verb, v))
		}
	}
	outputs = append(outputs, fmt.Sprint(c), fmt.Sprintln(h), c.String(), c.GoString())

	var logBuf bytes.Buffer
	log.New(&logBuf, "", 0).Printf("config %v %+v %#v", c, h, &c)
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("config", "cfg", c, "key", c.APIKey, "h", h)
	slog.New(slog.NewJSONHandler(&logBuf, nil)).Info("config", "cfg", c, "key", c.APIKey)
	outputs = append(outputs, logBuf.String())

	for _, v := range []any{c, &c, h, struct{ C Config }{c}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, string(b))
	}
	for _, out := range outputs {
		checkNoKey(t, "output", out)
		// Also no hex, no quoted form of it.
		checkNoKey(t, "hex-decoded output", string(unhex(out)))
	}
	// And the redaction is visible where the key would be.
	if s := fmt.Sprintf("%+v", c); !strings.Contains(s, "APIKey:[redacted]") || !strings.Contains(s, "Temperature:0.8") {
		t.Errorf("%%+v = %s", s)
	}
	if s := fmt.Sprintf("%#v", c); !strings.Contains(s, `APIKey:"[redacted]"`) {
		t.Errorf("%%#v = %s", s)
	}
	b, _ := json.Marshal(c)
	if !strings.Contains(string(b), `"apiKey":"[redacted]"`) {
		t.Errorf("json = %s", b)
	}
	if s := fmt.Sprintf("%v", Config{}); !strings.Contains(s, "APIKey: ") {
		t.Errorf("unset key should print empty: %s", s)
	}
}

// unhex decodes any long hex runs in s, to catch a key printed by %x.
func unhex(s string) []byte {
	var out []byte
	for i := 0; i+1 < len(s); i += 2 {
		var b byte
		if _, err := fmt.Sscanf(s[i:i+2], "%02x", &b); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// JSON in: a new key is taken; the placeholder and null keep the old one;
// "" clears it.
func TestConfigUnmarshalKey(t *testing.T) {
	c := testConfig()
	for _, tc := range []struct {
		in   string
		want string
	}{
		{`{"apiKey":"[redacted]","model":"m2"}`, testKey},
		{`{"apiKey":null}`, testKey},
		{`{"model":"m3"}`, testKey},
		{`{"apiKey":"sk-new"}`, "sk-new"},
		{`{"apiKey":""}`, ""},
	} {
		got := c
		if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
			t.Fatal(err)
		}
		if got.APIKey.Reveal() != tc.want {
			t.Errorf("%s: key %q, want %q", tc.in, got.APIKey.Reveal(), tc.want)
		}
	}
	var fresh Config
	if err := json.Unmarshal([]byte(`{"apiKey":"[redacted]"}`), &fresh); err != nil || fresh.APIKey.IsSet() {
		t.Errorf("placeholder into a fresh Config: %v, set=%t", err, fresh.APIKey.IsSet())
	}
	if err := json.Unmarshal([]byte(`{"apiKey":42}`), &fresh); err == nil || strings.Contains(err.Error(), "42") && strings.Contains(err.Error(), testKey) {
		t.Errorf("non-string key: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) {}, ""},
		{func(c *Config) { c.Provider = "gemini" }, "field provider"},
		{func(c *Config) { c.BaseURL = "localhost:11434" }, "field baseUrl"},
		{func(c *Config) { c.BaseURL = "https://user:" + testKey + "@host/v1" }, "must not carry credentials"},
		{func(c *Config) { c.N = MaxN + 1 }, "field n"},
		{func(c *Config) { c.MaxTokens = -5 }, "field maxTokens"},
	} {
		c := testConfig()
		tc.edit(&c)
		err := c.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", c, err, tc.want)
		}
		if err != nil {
			checkNoKey(t, "validation error", err.Error())
		}
	}
	if _, err := New(Config{Provider: "x"}); err == nil {
		t.Error("New accepted an unknown provider")
	}
	for _, p := range []string{ProviderOpenAI, ProviderAnthropic} {
		if _, err := New(Config{Provider: p, Model: "m"}); err != nil {
			t.Errorf("New(%s): %v", p, err)
		}
	}
}

// A config goes through EncodeConfig and DecodeConfig whole but for its
// key, which never enters the encoding and is never read from one.
func TestEncodeDecodeConfig(t *testing.T) {
	c := testConfig()
	b, err := EncodeConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	checkNoKey(t, "EncodeConfig", string(b))
	got, err := DecodeConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.APIKey.IsSet() || got.Provider != c.Provider || got.BaseURL != c.BaseURL || got.Model != c.Model ||
		*got.Temperature != *c.Temperature || got.N != c.N || got.MaxTokens != c.MaxTokens {
		t.Errorf("decoded %+v, want %+v without its key", got, c)
	}
	planted, err := DecodeConfig([]byte(`{"provider":"openai","model":"m","apiKey":"sk-planted"}`))
	if err != nil || planted.APIKey.IsSet() {
		t.Errorf("a key read from the encoding: %+v, %v", planted, err)
	}
	if _, err := DecodeConfig([]byte(`{"provider":`)); err == nil {
		t.Error("DecodeConfig accepted broken JSON")
	}
	if _, err := EncodeConfig(Config{Provider: "nope"}); err == nil {
		t.Error("EncodeConfig accepted an invalid Config")
	}
}

// One key per provider and base URL; the default base URL names the same
// key as no base URL.
func TestKeyName(t *testing.T) {
	a := Config{Provider: ProviderOpenAI, BaseURL: "http://localhost:11434/v1"}
	b := Config{Provider: ProviderOpenAI}
	c := Config{Provider: ProviderOpenAI, BaseURL: DefaultOpenAIBaseURL + "/"}
	if a.KeyName() == b.KeyName() || b.KeyName() != c.KeyName() || b.KeyName() != "llm:openai:"+DefaultOpenAIBaseURL {
		t.Errorf("key names %q %q %q", a.KeyName(), b.KeyName(), c.KeyName())
	}
}
