package llm

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSaveLoadConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rhizome") // created by SaveConfig
	c := testConfig()
	if err := SaveConfig(dir, c); err != nil {
		t.Fatal(err)
	}
	settings, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	checkNoKey(t, ConfigFile, string(settings))
	secrets, err := os.ReadFile(filepath.Join(dir, SecretsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(secrets), testKey) {
		t.Errorf("%s does not hold the key", SecretsFile)
	}
	if runtime.GOOS != "windows" {
		for name, want := range map[string]os.FileMode{SecretsFile: 0o600, ConfigFile: 0o600, ".": 0o700} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s mode %v, want %v", name, fi.Mode().Perm(), want)
			}
		}
	}

	got, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.APIKey.Reveal() != testKey || got.Model != c.Model || *got.Temperature != 0.8 || got.N != 4 || got.BaseURL != c.BaseURL {
		t.Errorf("loaded %+v, want %+v", got, c)
	}

	// Saving without a key keeps the stored one; another server keeps its own.
	c2 := got
	c2.APIKey = Secret{}
	c2.Model = "other"
	if err := SaveConfig(dir, c2); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadConfig(dir); got.APIKey.Reveal() != testKey || got.Model != "other" {
		t.Errorf("after saving without a key: %+v key kept=%t", got, got.APIKey.Reveal() == testKey)
	}
	local := Config{Provider: ProviderOpenAI, BaseURL: "http://localhost:11434/v1", Model: "llama3", APIKey: NewSecret("ollama-key")}
	if err := SaveConfig(dir, local); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadConfig(dir); got.APIKey.Reveal() != "ollama-key" {
		t.Errorf("local server key %q", got.APIKey.Reveal())
	}
	c2.APIKey = Secret{}
	if err := SaveConfig(dir, c2); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadConfig(dir); got.APIKey.Reveal() != testKey {
		t.Errorf("switching back lost the first server's key")
	}

	if err := ForgetAPIKey(dir, c2); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadConfig(dir); got.APIKey.IsSet() {
		t.Error("key still there after ForgetAPIKey")
	}
	secrets, _ = os.ReadFile(filepath.Join(dir, SecretsFile))
	checkNoKey(t, "secrets after forget", string(secrets))
	if !strings.Contains(string(secrets), "ollama-key") {
		t.Error("ForgetAPIKey removed another server's key")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("directory holds %d entries, want the 2 files (no temporaries left)", len(entries))
	}
}

func TestLoadConfigMissing(t *testing.T) {
	c, err := LoadConfig(t.TempDir())
	if err != nil || c.Provider != "" || c.APIKey.IsSet() {
		t.Errorf("got %+v, %v; want the zero Config", c, err)
	}
}

// A secrets file others can read is narrowed to 0600 on load; a key in
// llm.json itself (hand-edited) is ignored.
func TestSecretsFileNarrowed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX permissions")
	}
	dir := t.TempDir()
	if err := SaveConfig(dir, testConfig()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, SecretsFile)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(dir); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after load, want 0600", fi.Mode().Perm())
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, ConfigFile), []byte(`{"provider":"openai","model":"m","apiKey":"sk-planted"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(other); err != nil || c.APIKey.IsSet() {
		t.Errorf("key read from %s: %+v %v", ConfigFile, c, err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"provider":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(dir); err == nil || !strings.Contains(err.Error(), ConfigFile) {
		t.Errorf("error %v, want one naming %s", err, ConfigFile)
	}
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"provider":"openai"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, SecretsFile), []byte(`{"secrets":{"x":"`+testKey), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(dir)
	if err == nil || !strings.Contains(err.Error(), SecretsFile) {
		t.Errorf("error %v, want one naming %s", err, SecretsFile)
	}
	if err != nil {
		checkNoKey(t, "error", err.Error())
	}
	if err := SaveConfig(t.TempDir(), Config{Provider: "nope"}); err == nil {
		t.Error("SaveConfig accepted an invalid Config")
	}
}
