package store

import (
	"context"
	"path/filepath"
	"testing"
)

// integrityCheck runs FTS5's integrity check of table against its content
// table (rank 1: every row of the content is in the index, with its terms).
func integrityCheck(t *testing.T, s *Store, table string) {
	t.Helper()
	if _, err := s.db.Exec(`INSERT INTO ` + table + ` (` + table + `, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Errorf("%s integrity-check: %v", table, err)
	}
}

// The full-text indexes match their content tables after imports (entries
// with no searchable text included), a rewrite that clears a session, and a
// rolled-back import. See ../docs: SQLite FTS5 "integrity-check" command.
func TestFullTextIndexesMatchContent(t *testing.T) {
	s, _ := openTemp(t)
	for _, f := range []string{"session-with-compaction.jsonl", "large-session.jsonl"} {
		tx, _, err := importSession(t, s, filepath.Join(sampleDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var empty int
	s.db.QueryRow(`SELECT count(*) FROM entries WHERE text = ''`).Scan(&empty)
	if empty == 0 {
		t.Fatal("no entry without searchable text: the samples no longer test the case")
	}
	integrityCheck(t, s, "entries_fts")
	integrityCheck(t, s, "nodes_fts")

	// Rewrite: the session's entries are deleted (trigger) and written again.
	var pk int64
	s.db.QueryRow(`SELECT pk FROM sessions ORDER BY pk LIMIT 1`).Scan(&pk)
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ClearSession(pk); err != nil {
		t.Fatal(err)
	}
	if err := tx.DeleteDetachedNodes(pk); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	integrityCheck(t, s, "entries_fts")
	integrityCheck(t, s, "nodes_fts")

	// An entry's text changed in place (the update trigger).
	if _, err := s.db.Exec(`UPDATE entries SET text = CASE WHEN text = '' THEN 'now searchable' ELSE '' END WHERE pk IN (SELECT pk FROM entries LIMIT 40)`); err != nil {
		t.Fatal(err)
	}
	integrityCheck(t, s, "entries_fts")
}

// A library written before entries without text were indexed is repaired
// when opened: the migration adds them to the index.
func TestOpenRepairsEntriesIndex(t *testing.T) {
	s, p := openTemp(t)
	tx, _, err := importSession(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Put the library back in the state the earlier importer left: the
	// entries with empty text out of the index, the old triggers.
	ms, _ := loadMigrations()
	last := ms[len(ms)-1]
	for _, q := range []string{
		`INSERT INTO entries_fts (entries_fts, rowid, text) SELECT 'delete', pk, text FROM entries WHERE text = ''`,
		`DROP TRIGGER entries_fts_delete`,
		`CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries WHEN old.text <> '' BEGIN
			INSERT INTO entries_fts (entries_fts, rowid, text) VALUES ('delete', old.pk, old.text);
		END`,
		`DROP TRIGGER entries_fts_update`,
		`CREATE TRIGGER entries_fts_update AFTER UPDATE OF text ON entries BEGIN
			INSERT INTO entries_fts (entries_fts, rowid, text) SELECT 'delete', old.pk, old.text WHERE old.text <> '';
			INSERT INTO entries_fts (rowid, text) SELECT new.pk, new.text WHERE new.text <> '';
		END`,
		`DELETE FROM schema_migrations WHERE version = 11`,
		`PRAGMA user_version = 10`,
	} {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := s.db.Exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('integrity-check', 1)`); err == nil {
		t.Fatal("the old state passes the integrity check: the test no longer reproduces it")
	}
	s.Close()

	s2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	integrityCheck(t, s2, "entries_fts")
	var version int
	s2.db.QueryRow(`PRAGMA user_version`).Scan(&version)
	if version != last.version {
		t.Errorf("user_version %d, want %d", version, last.version)
	}
	hits, err := s2.Search(context.Background(), "compaction", 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("search after the repair: %v %v", hits, err)
	}
}
