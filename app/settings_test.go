package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"rhizome/backend/llm/llmtest"
	"rhizome/store"
)

func TestSettingsLLM(t *testing.T) {
	l := newTestLib(t)
	sv, err := l.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	if sv.LLM.Configured || sv.LLM.APIKeySet || sv.ConfigDir != l.path+".config" {
		t.Errorf("fresh settings %+v", sv)
	}
	if res, err := l.Settings.TestLLM(); err == nil || !strings.Contains(err.Error(), "no model configured: open Settings") {
		t.Errorf("TestLLM without a model = %+v, %v", res, err)
	}

	temp := 0.7
	sv, err = l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "m1",
		Temperature: &temp, MaxTokens: 200, N: 4, APIKey: testAPIKey})
	if err != nil {
		t.Fatal(err)
	}
	want := LLMSettings{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "m1", Temperature: &temp,
		MaxTokens: 200, N: 4, APIKeySet: true, Configured: true}
	if b, w := mustJSON(t, sv.LLM), mustJSON(t, want); b != w {
		t.Errorf("SetLLM = %s, want %s", b, w)
	}
	got, err := l.Settings.Get()
	if err != nil {
		t.Fatal(err)
	}
	checkNoKey(t, "Settings.Get", mustJSON(t, got))
	if mustJSON(t, got) != mustJSON(t, sv) {
		t.Errorf("Get = %+v, SetLLM returned %+v", got, sv)
	}
	// The key is only in the 0600 secrets file.
	dir := l.path + ".config"
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if e.Name() == "secrets.json" {
			fi, _ := os.Stat(filepath.Join(dir, e.Name()))
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("secrets file mode %v", fi.Mode().Perm())
			}
			continue
		}
		checkNoKey(t, e.Name(), string(b))
	}

	// An empty key keeps the stored one; another server does not get it.
	if sv, err = l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "m2"}); err != nil || !sv.LLM.APIKeySet || sv.LLM.Model != "m2" {
		t.Errorf("SetLLM keeping the key = %+v, %v", sv, err)
	}
	if sv, err = l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: "http://127.0.0.1:10/v1", Model: "m2"}); err != nil || sv.LLM.APIKeySet {
		t.Errorf("SetLLM on another server = %+v, %v", sv, err)
	}
	if sv, err = l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "m2"}); err != nil || !sv.LLM.APIKeySet {
		t.Errorf("SetLLM back on the first server = %+v, %v", sv, err)
	}
	if sv, err = l.Settings.SetLLM(LLMSettingsInput{Provider: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "m2", ClearAPIKey: true}); err != nil || sv.LLM.APIKeySet {
		t.Errorf("SetLLM clearing the key = %+v, %v", sv, err)
	}

	neg := -1.0
	for _, bad := range []LLMSettingsInput{
		{Provider: "nope", Model: "m", APIKey: testAPIKey},
		{Provider: "openai", Model: "", APIKey: testAPIKey},
		{Provider: "openai", Model: "m", N: 99, APIKey: testAPIKey},
		{Provider: "openai", Model: "m", MaxTokens: -1, APIKey: testAPIKey},
		{Provider: "openai", Model: "m", Temperature: &neg, APIKey: testAPIKey},
		{Provider: "openai", Model: "m", BaseURL: "ftp://example.com", APIKey: testAPIKey},
		{Provider: "openai", Model: "m", BaseURL: "http://user:" + testAPIKey + "@example.com", APIKey: testAPIKey},
	} {
		_, err := l.Settings.SetLLM(bad)
		if err == nil {
			t.Errorf("SetLLM(%+v) accepted", bad)
			continue
		}
		checkNoKey(t, "SetLLM error", err.Error())
	}
	if got, _ := l.Settings.Get(); got.LLM.Model != "m2" {
		t.Errorf("a refused SetLLM changed the settings: %+v", got)
	}
}

func TestSettingsTestLLM(t *testing.T) {
	l := newTestLib(t)
	fake := startFakeModel(t, nil)
	useModel(t, l, fake.base)
	res, err := l.Settings.TestLLM()
	if err != nil || !res.OK || res.Error != "" || res.Text == "" || res.Model != "rhizome-test" {
		t.Errorf("TestLLM = %+v, %v", res, err)
	}

	// A wrong key: the provider's refusal, never the key.
	wrong := startFakeModel(t, func(s *llmtest.OpenAIServer) { s.APIKey = "sk-the-right-one" })
	useModel(t, l, wrong.base)
	res, err = l.Settings.TestLLM()
	if err != nil || res.OK || !strings.Contains(res.Error, "401") {
		t.Errorf("TestLLM with a wrong key = %+v, %v", res, err)
	}
	checkNoKey(t, "TestLLM", mustJSON(t, res))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A library whose model settings an older Rhizome kept in
// <library>.config/llm.json opens with them, key included (the secrets file
// stays where it is), and the side file is gone; the model setting is in the
// library from then on.
func TestSettingsFromSideFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "library.db")
	dir := p + ".config"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"llm.json":     `{"provider": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "m1", "apiKey": "[redacted]", "n": 4}`,
		"secrets.json": `{"version": 1, "secrets": {"llm:openai:http://127.0.0.1:9/v1": "` + testAPIKey + `"}}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sv, err := New(st, p).Settings.Get()
	if err != nil || !sv.LLM.Configured || !sv.LLM.APIKeySet || sv.LLM.Model != "m1" || sv.LLM.N != 4 || sv.ConfigDir != dir {
		t.Errorf("settings from the side files: %+v, %v", sv, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "llm.json")); !os.IsNotExist(err) {
		t.Errorf("llm.json still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "secrets.json")); err != nil {
		t.Errorf("the secrets file: %v", err)
	}
	if b, err := st.Setting(context.Background(), store.LLMSettingKey); err != nil || strings.Contains(string(b), testAPIKey) {
		t.Errorf("model setting in the library: %s, %v", b, err)
	}
}
