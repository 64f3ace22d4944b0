package store

import (
	"context"
	"path/filepath"
	"testing"

	"rhizome/backend/search"
)

// The search keeps the documents it read while the library is unchanged,
// and reads them again after any commit: by another connection of this
// process, or by another process (another Store on the same file, as the
// window importing while `rhizome mcp` searches).
func TestSearchDocumentsReadAgainAfterACommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "library.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	importAnalyzed(t, a, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	var pk int64
	if err := a.db.QueryRow(`SELECT pk FROM entries WHERE text <> '' ORDER BY seq LIMIT 1`).Scan(&pk); err != nil {
		t.Fatal(err)
	}
	item := EntryItem(pk)
	text := func(s *Store) string {
		t.Helper()
		docs, err := s.SearchSource().Docs(ctx, []string{item}, search.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return docs[item].Text
	}
	before := text(a)
	if before == "" || text(a) != before {
		t.Fatalf("entry %d read as %q", pk, before)
	}
	if _, err := a.db.Exec(`UPDATE entries SET text = 'rewritten in this process' WHERE pk = ?`, pk); err != nil {
		t.Fatal(err)
	}
	if got := text(a); got != "rewritten in this process" {
		t.Errorf("after a commit in this process the search read %q", got)
	}
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.db.Exec(`UPDATE entries SET text = 'rewritten by another' WHERE pk = ?`, pk); err != nil {
		t.Fatal(err)
	}
	if got := text(a); got != "rewritten by another" {
		t.Errorf("after a commit by another Store on the file the search read %q", got)
	}
	// A node's document too: its summary, changed by the other.
	var node string
	if err := a.db.QueryRow(`SELECT id FROM nodes LIMIT 1`).Scan(&node); err != nil {
		t.Fatal(err)
	}
	summary := func() string {
		docs, err := a.SearchSource().Docs(ctx, []string{NodeItem(node)}, search.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return docs[NodeItem(node)].Title
	}
	summary()
	if _, err := b.db.Exec(`UPDATE nodes SET summary = 'a new summary' WHERE id = ?`, node); err != nil {
		t.Fatal(err)
	}
	if got := summary(); got != "a new summary" {
		t.Errorf("after the node's summary changed the search read %q", got)
	}
}
