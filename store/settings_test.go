package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"rhizome/backend/loom"
)

func TestSettings(t *testing.T) {
	ctx := context.Background()
	s := openLoomTestStore(t, "library.db")
	if _, err := s.Setting(ctx, "llm"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing setting: %v, want ErrNotFound", err)
	}
	for _, v := range []string{`{"provider":"openai","model":"m1"}`, `{"provider":"openai","model":"m2"}`} {
		if err := s.PutSetting(ctx, "llm", []byte(v)); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Setting(ctx, "llm"); err != nil || string(got) != v {
			t.Errorf("Setting = %s, %v; want %s", got, err, v)
		}
	}
	if err := s.PutSetting(ctx, "llm", []byte(`{"provider":`)); err == nil {
		t.Error("a value that is not JSON was stored")
	}
}

// The active path is stored with its tree: written by CreateLoomTree and
// SetLoomActivePath, read back by LoadLoomTree, gone with the tree.
func TestLoomActivePathStored(t *testing.T) {
	ctx := context.Background()
	s := openLoomTestStore(t, "library.db")
	f := newLoomFixture(t, s)
	if loaded, _ := s.LoadLoomTree(ctx, f.tree.ID); func() bool { _, ok := loaded.RememberedPath(); return ok }() {
		t.Error("a tree without a remembered path loads with one")
	}
	want := loom.ActivePath{NodeID: f.nodes["b"].ID, Versions: map[string]string{f.nodes["a"].ID: f.nodes["a2"].ID}}
	if err := s.SetLoomActivePath(ctx, f.tree.ID, want); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.LoadLoomTree(ctx, f.tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := loaded.RememberedPath(); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("remembered %+v, %t; want %+v", got, ok, want)
	}
	if err := s.SetLoomActivePath(ctx, "nope", want); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetLoomActivePath(unknown tree) = %v", err)
	}

	// A tree created with a remembered path (an import) stores it.
	data := exportStored(t, s, f.tree.ID)
	b := openLoomTestStore(t, "b.db")
	tr, err := storeExport(t, b, data, "")
	if err != nil {
		t.Fatal(err)
	}
	back, _ := b.LoadLoomTree(ctx, tr.ID)
	if got, ok := back.RememberedPath(); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("imported tree remembers %+v, %t; want %+v", got, ok, want)
	}

	// A tree goes with its active path.
	if _, err := s.db.ExecContext(ctx, `DELETE FROM loom_trees WHERE id = ?`, f.tree.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "loom_active_paths"); n != 0 {
		t.Errorf("%d active paths left after the tree was deleted", n)
	}
}

// The settings side files of an older Rhizome (<library>.config/llm.json and
// settings.json) move into the library on the first open and are deleted;
// the secrets file stays; active paths of trees the library no longer holds
// are dropped; a value the library holds already is kept; a damaged
// settings.json is left alone.
func TestSideFilesMigrated(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "library.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newLoomFixture(t, s)
	s.Close()

	dir := path + ".config"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	llmJSON := `{"provider": "openai", "baseUrl": "http://127.0.0.1:9/v1", "model": "m1", "apiKey": "[redacted]", "n": 4}` + "\n"
	settingsJSON := `{"version": 1, "activePaths": {"` + f.tree.ID + `": {"nodeId": "` + f.nodes["b"].ID + `", "versions": {"` +
		f.nodes["a"].ID + `": "` + f.nodes["a3"].ID + `"}}, "01GONE0000000000000000000X": {"nodeId": "x"}}}` + "\n"
	secrets := `{"version": 1, "secrets": {"llm:openai:http://127.0.0.1:9/v1": "sk-kept"}}` + "\n"
	for name, content := range map[string]string{"llm.json": llmJSON, "settings.json": settingsJSON, "secrets.json": secrets} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Setting(ctx, LLMSettingKey); err != nil || string(got) != llmJSON {
		t.Errorf("llm setting %q, %v; want llm.json's %q", got, err, llmJSON)
	}
	loaded, err := s.LoadLoomTree(ctx, f.tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := loom.ActivePath{NodeID: f.nodes["b"].ID, Versions: map[string]string{f.nodes["a"].ID: f.nodes["a3"].ID}}
	if got, ok := loaded.RememberedPath(); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("migrated active path %+v, %t; want %+v", got, ok, want)
	}
	if n := count(t, s, "loom_active_paths"); n != 1 {
		t.Errorf("%d active paths, want the existing tree's alone", n)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "secrets.json" {
		t.Errorf("left in %s: %v, want secrets.json alone", dir, entries)
	}
	if key, err := s.Secrets().Get("llm:openai:http://127.0.0.1:9/v1"); err != nil || key != "sk-kept" {
		t.Errorf("secret after the move: %q, %v", key, err)
	}

	// A side file appearing again (an older Rhizome wrote it) never
	// overwrites what the library holds; it is removed all the same.
	if err := s.PutSetting(ctx, LLMSettingKey, []byte(`{"provider":"openai","model":"newer"}`)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, "llm.json"), []byte(llmJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(broken, []byte(`{"version": 1, "activePa`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatalf("a damaged settings.json keeps the library from opening: %v", err)
	}
	defer s.Close()
	if got, _ := s.Setting(ctx, LLMSettingKey); !strings.Contains(string(got), "newer") {
		t.Errorf("an old llm.json overwrote the library's setting: %s", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "llm.json")); !os.IsNotExist(err) {
		t.Errorf("llm.json still there: %v", err)
	}
	if b, err := os.ReadFile(broken); err != nil || string(b) != `{"version": 1, "activePa` {
		t.Errorf("the damaged settings.json was touched: %q, %v", b, err)
	}
}

// The secrets file: per name, 0600 in a 0700 folder, replaced atomically
// (no temporary left), narrowed to 0600 when others could read it, and a
// damaged one reported without quoting it.
func TestSecretsFile(t *testing.T) {
	s := openLoomTestStore(t, "library.db")
	x := s.Secrets()
	if x.Path() != s.Path()+".config/secrets.json" {
		t.Errorf("secrets file %s", x.Path())
	}
	if v, err := x.Get("a"); v != "" || err != nil {
		t.Errorf("Get without a file = %q, %v", v, err)
	}
	if err := x.Put("a", "sk-one"); err != nil {
		t.Fatal(err)
	}
	if err := x.Put("b", "sk-two"); err != nil {
		t.Fatal(err)
	}
	if v, _ := x.Get("a"); v != "sk-one" {
		t.Errorf("Get(a) = %q", v)
	}
	if err := x.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if err := x.Delete("nothing"); err != nil {
		t.Fatal(err)
	}
	if v, _ := x.Get("a"); v != "" {
		t.Errorf("Get(a) after Delete = %q", v)
	}
	if v, _ := x.Get("b"); v != "sk-two" {
		t.Errorf("Delete(a) lost b: %q", v)
	}
	b, _ := os.ReadFile(x.Path())
	if strings.Contains(string(b), "sk-one") {
		t.Error("a deleted secret is still in the file")
	}
	dir := filepath.Dir(x.Path())
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{x.Path(): 0o600, dir: 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
			}
		}
		if err := os.Chmod(x.Path(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Get("b"); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(x.Path()); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v after reading, want 0600", fi.Mode().Perm())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in %s, want the secrets file alone", len(entries), dir)
	}
	if err := os.WriteFile(x.Path(), []byte(`{"secrets":{"b":"sk-leak`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := x.Get("b")
	if err == nil || !strings.Contains(err.Error(), x.Path()) || strings.Contains(err.Error(), "sk-leak") {
		t.Errorf("damaged secrets file: %v, want an error naming the file, never its content", err)
	}
}
