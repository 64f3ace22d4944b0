package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rhizome/backend/knowledge"
)

// TestOpenReadOnly: a library opened read-only reads, refuses every write
// and is left byte for byte as it was; a missing file is not created, and a
// library lacking a migration is refused with ErrReadOnly.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	at := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	it := mustItem(t, &knowledge.Decision{Description: "Read-only for agents"}, "/p", knowledge.ByUser, at)
	if err := s.AddKnowledge(ctx, it); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, _ := os.ReadFile(path)

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ro.Knowledge(ctx, it.ID); err != nil || got.Title() != "Read-only for agents" {
		t.Fatalf("read: %+v, %v", got, err)
	}
	other := mustItem(t, &knowledge.Decision{Description: "Write anyway"}, "/p", knowledge.ByAgent, at)
	if err := ro.AddKnowledge(ctx, other); err == nil {
		t.Fatal("a write to a read-only library succeeded")
	}
	if err := ro.PutSetting(ctx, "x", []byte(`1`)); err == nil {
		t.Fatal("a setting was written to a read-only library")
	}
	ro.Close()
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("the library file changed")
	}

	missing := filepath.Join(t.TempDir(), "none.db")
	if _, err := OpenReadOnly(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing library: %v", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("opening read-only created the file")
	}

	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.db.Exec(`DELETE FROM schema_migrations WHERE version = 70`); err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if _, err := OpenReadOnly(ctx, path); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a library lacking migration 0070: %v, want ErrReadOnly", err)
	}
}
