package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// The files LoadConfig and SaveConfig keep in the config directory.
const (
	// ConfigFile holds the Config as JSON, its API key redacted.
	ConfigFile = "llm.json"
	// SecretsFile holds API keys, readable and writable by the user alone (0600).
	SecretsFile = "secrets.json"
)

// storeMu serialises this process's read-modify-write of the files.
var storeMu sync.Mutex

// LoadConfig reads dir/llm.json and fills its APIKey from dir/secrets.json
// (the key saved for the same provider and base URL). A missing llm.json
// gives the zero Config and no error.
func LoadConfig(dir string) (Config, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	path := filepath.Join(dir, ConfigFile)
	var c Config
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("llm: reading settings: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("llm: settings file %s: %w", path, err)
	}
	c.APIKey = Secret{} // the file never holds it; ignore whatever is there
	secrets, err := readSecrets(dir)
	if err != nil {
		return Config{}, err
	}
	c.APIKey = NewSecret(secrets[apiKeyName(c)])
	return c, nil
}

// SaveConfig validates c and writes it to dir/llm.json without its key.
// A set APIKey is stored in dir/secrets.json under c's provider and base
// URL; an unset one leaves the stored key alone (see ForgetAPIKey). dir is
// created (0700) when missing. Both files are replaced atomically.
func SaveConfig(dir string, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	storeMu.Lock()
	defer storeMu.Unlock()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("llm: creating settings directory: %w", err)
	}
	b, err := json.MarshalIndent(c, "", "  ") // APIKey marshals as "[redacted]"
	if err != nil {
		return fmt.Errorf("llm: encoding settings: %w", err)
	}
	if err := writePrivate(filepath.Join(dir, ConfigFile), append(b, '\n')); err != nil {
		return err
	}
	if !c.APIKey.IsSet() {
		return nil
	}
	secrets, err := readSecrets(dir)
	if err != nil {
		return err
	}
	secrets[apiKeyName(c)] = c.APIKey.Reveal()
	return writeSecrets(dir, secrets)
}

// ForgetAPIKey removes the key stored for c's provider and base URL.
func ForgetAPIKey(dir string, c Config) error {
	storeMu.Lock()
	defer storeMu.Unlock()
	secrets, err := readSecrets(dir)
	if err != nil {
		return err
	}
	name := apiKeyName(c)
	if _, ok := secrets[name]; !ok {
		return nil
	}
	delete(secrets, name)
	return writeSecrets(dir, secrets)
}

// apiKeyName is the secrets-file entry for c's key: one per provider and
// base URL, so switching servers keeps each server's key.
func apiKeyName(c Config) string {
	return "llm:" + c.Provider + ":" + c.baseURL()
}

// secretsDoc is the secrets file: {"version": 1, "secrets": {"name": "value"}}.
type secretsDoc struct {
	Version int               `json:"version"`
	Secrets map[string]string `json:"secrets"`
}

// readSecrets reads dir/secrets.json (empty when missing). A file others
// may read is first narrowed to 0600.
func readSecrets(dir string) (map[string]string, error) {
	path := filepath.Join(dir, SecretsFile)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("llm: secrets file: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("llm: secrets file %s is readable by others (%v) and cannot be narrowed: %w", path, fi.Mode().Perm(), err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llm: secrets file: %w", err)
	}
	var doc secretsDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		// Not %w of the decoder's error: it may quote the file's bytes.
		return nil, fmt.Errorf("llm: secrets file %s is not valid JSON", path)
	}
	if doc.Secrets == nil {
		doc.Secrets = map[string]string{}
	}
	return doc.Secrets, nil
}

func writeSecrets(dir string, secrets map[string]string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("llm: creating settings directory: %w", err)
	}
	b, err := json.MarshalIndent(secretsDoc{Version: 1, Secrets: secrets}, "", "  ")
	if err != nil {
		return fmt.Errorf("llm: encoding secrets: %w", err)
	}
	return writePrivate(filepath.Join(dir, SecretsFile), append(b, '\n'))
}

// writePrivate replaces path with b atomically: a 0600 temporary file in
// the same directory, synced, then renamed over path.
func writePrivate(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("llm: writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return fmt.Errorf("llm: writing %s: %w", path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("llm: writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("llm: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("llm: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("llm: writing %s: %w", path, err)
	}
	return nil
}
