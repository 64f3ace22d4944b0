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
