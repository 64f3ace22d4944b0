//go:build unix

package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A new library, its write-ahead log and shared-memory files, the folder
// made for it and its blob folder are the user's alone: 0600 and 0700.
func TestNewLibraryIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "folder")
	p := filepath.Join(dir, "library.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.DefaultGrove(context.Background()); err != nil {
		t.Fatal(err)
	}
	ref, _, err := s.LoomBlobs().Put([]byte("\x89PNG\r\n\x1a\n"), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{
		dir:                                     0o700,
		filepath.Dir(dir):                       0o700,
		p:                                       0o600,
		p + "-wal":                              0o600,
		p + "-shm":                              0o600,
		s.LoomBlobs().Dir():                     0o700,
		filepath.Join(s.LoomBlobs().Dir(), ref): 0o600,
	}
	for path, mode := range want {
		info, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if got := info.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %#o, want %#o", path, got, mode)
		}
	}
}
