package store

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

// SecretsFile is the name of the secrets file in the library's ConfigDir.
const SecretsFile = "secrets.json"

// Secrets keeps secrets (API keys) out of the library, in a file beside it
// readable by the user alone: "<library>.config/secrets.json", mode 0600 in
// a 0700 folder, {"version": 1, "secrets": {name: value}}. Values never
// appear in errors. Names are the use cases' (llm.Config.KeyName).
type Secrets struct {
	path string
}

// secretsMu serialises this process's read-modify-write of secrets files.
var secretsMu sync.Mutex

// Secrets returns the library's secrets file.
func (s *Store) Secrets() *Secrets { return &Secrets{path: filepath.Join(s.ConfigDir(), SecretsFile)} }

// Path is the secrets file.
func (x *Secrets) Path() string { return x.path }

// Get returns the secret stored under name, "" when there is none (or no
// file). A file others may read is first narrowed to 0600.
func (x *Secrets) Get(name string) (string, error) {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	all, err := x.read()
	if err != nil {
		return "", err
	}
	return all[name], nil
}

// Put stores value under name (creating the file, and its folder 0700,
// when missing), replacing the file atomically (WriteFile).
func (x *Secrets) Put(name, value string) error {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	all, err := x.read()
	if err != nil {
		return err
	}
	all[name] = value
	return x.write(all)
}

// Delete forgets the secret stored under name; nothing when there is none.
func (x *Secrets) Delete(name string) error {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	all, err := x.read()
	if err != nil {
		return err
	}
	if _, ok := all[name]; !ok {
		return nil
	}
	delete(all, name)
	return x.write(all)
}

// secretsDoc is the secrets file.
type secretsDoc struct {
	Version int               `json:"version"`
	Secrets map[string]string `json:"secrets"`
}

// read reads every secret (none when the file is missing), narrowing a file
// others may read to 0600 first.
func (x *Secrets) read() (map[string]string, error) {
	fi, err := os.Stat(x.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the secrets file: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(x.path, 0o600); err != nil {
			return nil, fmt.Errorf("store: the secrets file %s is readable by others (%v) and cannot be narrowed: %w", x.path, fi.Mode().Perm(), err)
		}
	}
	b, err := os.ReadFile(x.path)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the secrets file: %w", err)
	}
	var doc secretsDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		// Not %w of the decoder's error: it may quote the file's bytes.
		return nil, fmt.Errorf("store: the secrets file %s is not valid JSON", x.path)
	}
	if doc.Secrets == nil {
		doc.Secrets = map[string]string{}
	}
	return doc.Secrets, nil
}

func (x *Secrets) write(all map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(x.path), 0o700); err != nil {
		return fmt.Errorf("store: unable to create the settings folder %s: %w", filepath.Dir(x.path), err)
	}
	b, err := json.MarshalIndent(secretsDoc{Version: 1, Secrets: all}, "", "  ")
	if err != nil {
		return fmt.Errorf("store: unable to encode the secrets: %w", err)
	}
	return WriteFile(x.path, append(b, '\n'), 0o600)
}
