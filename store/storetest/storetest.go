// Package storetest gives tests a new library with every migration applied,
// copied from one made once per test binary instead of migrated again.
//
// Creating a library runs every migration, and SQLite parses the whole schema
// again after each statement that changes it: about half of the CPU of the
// tests that make a library per case (a real file times each corruption,
// say) went there.
package storetest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"rhizome/store"
)

var (
	once     sync.Once
	template []byte // a new library's bytes, every migration applied
	made     error
)

// Path returns the path of a new library (mode 0600) in a folder of its own
// under t.TempDir(), holding what store.Open makes of a missing file. The
// caller opens it; store.Open then finds every migration applied. It fails
// the test when the first library cannot be made.
func Path(t testing.TB) string {
	t.Helper()
	once.Do(func() { template, made = makeTemplate() })
	if made != nil {
		t.Fatalf("storetest: unable to make the template library: %v", made)
	}
	p := filepath.Join(t.TempDir(), "library", "library.db")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, template, 0o600); err != nil {
		t.Fatalf("storetest: unable to write %s: %v", p, err)
	}
	return p
}

// Open returns the store of a new library (see Path), closed when the test
// ends, and its path.
func Open(t testing.TB) (*store.Store, string) {
	t.Helper()
	p := Path(t)
	st, err := store.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, p
}

// makeTemplate makes a library in a temporary folder, closes it (which
// copies its write-ahead log into the file) and returns the file's bytes.
func makeTemplate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "rhizome-storetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "library.db")
	st, err := store.Open(p)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(p + "-wal"); err == nil && fi.Size() > 0 {
		return nil, &os.PathError{Op: "close", Path: p + "-wal", Err: os.ErrExist}
	}
	return os.ReadFile(p)
}
