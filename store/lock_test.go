package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// Opening a library whose migrations are applied, reading it and closing it
// never need the write lock: all of it runs while another connection holds
// a write transaction (an import in another process, say).
func TestOpenReadCloseWhileAnotherWrites(t *testing.T) {
	writer, p := openTemp(t)
	tx, _, err := importSession(t, writer, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// The next import holds the write lock, uncommitted.
	tx, _, err = importSession(t, writer, filepath.Join(sampleDir, "large-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	start := time.Now()
	reader, err := Open(p)
	if err != nil {
		t.Fatalf("open while another connection writes: %v", err)
	}
	hits, err := reader.Search(context.Background(), "compaction", 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("search while another connection writes: %v %v", hits, err)
	}
	if err := reader.Close(); err != nil {
		t.Errorf("close while another connection writes: %v", err)
	}
	// Waiting for the writer's lock would take busyTimeout (two minutes);
	// not waiting takes milliseconds. A minute tells them apart on a loaded
	// machine.
	if took := time.Since(start); took > time.Minute {
		t.Errorf("open, search and close took %v while another connection wrote: they waited for its lock", took.Round(time.Millisecond))
	}
}
