package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
)

// Migration 0100 turns node_versions into an ordinary table: every version
// it held before stays, byte for byte, and a version of 1-3 KB no longer
// takes an overflow page of its own.
func TestNodeVersionsMigrationKeepsEveryVersion(t *testing.T) {
	s, path := openTemp(t)
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sess := &Session{ID: "sess-versions", Path: "a.jsonl", FileName: "a.jsonl", Cwd: "/p", Version: 3, Header: []byte(`{}`)}
	if err := tx.PutSession(sess); err != nil {
		t.Fatal(err)
	}
	const nodes = 200
	for i := 0; i < nodes; i++ {
		if err := tx.PutSegment(sess.PK, &segment.Segment{Index: i, StartEntryID: "x", EndEntryID: "x"}); err != nil {
			t.Fatal(err)
		}
		for v := 0; v < 2; v++ { // two versions each
			n := &graph.Node{ID: fmt.Sprintf("%016x", i+1)}
			n.Content.Summary = strings.Repeat(fmt.Sprintf("node %d version %d. ", i, v), 60) // about 1.3 KB
			if err := tx.PutNode(sess.PK, i, n, TriggerInitial); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	before := versionsDigest(t, s)
	// The library as it was before 0100: the same rows in the WITHOUT
	// ROWID table.
	s = reapplyMigration(t, s, path, 100,
		`CREATE TABLE node_versions_old (
			node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE, version INTEGER NOT NULL,
			node TEXT NOT NULL, analyzer_version TEXT NOT NULL DEFAULT '', analyzed_at TEXT NOT NULL DEFAULT '',
			trigger_reason TEXT NOT NULL, PRIMARY KEY (node_id, version)) WITHOUT ROWID`,
		`INSERT INTO node_versions_old SELECT node_id, version, node, analyzer_version, analyzed_at, trigger_reason FROM node_versions`,
		`DROP TABLE node_versions`,
		`ALTER TABLE node_versions_old RENAME TO node_versions`)
	if got := versionsDigest(t, s); got != before {
		t.Fatalf("versions after the migration differ:\n%s\nbefore:\n%s", got, before)
	}
	if n := count(t, s, "node_versions"); n != 2*nodes {
		t.Fatalf("%d versions after the migration, want %d", n, 2*nodes)
	}
	var ddl string
	if err := s.db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'node_versions'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ddl, "WITHOUT ROWID") {
		t.Fatalf("node_versions is still WITHOUT ROWID: %s", ddl)
	}
	// 400 versions of about 1.3 KB: about 130 pages inline, against one
	// overflow page per version (400 and more) before.
	var pages int
	if err := s.db.QueryRow(`SELECT count(*) FROM dbstat WHERE name = 'node_versions'`).Scan(&pages); err != nil {
		t.Skipf("dbstat: %v", err)
	}
	if pages > 2*nodes {
		t.Errorf("node_versions takes %d pages for %d versions of about 1.3 KB", pages, 2*nodes)
	}
	// A second version numbers on, and deleting a node still deletes its versions.
	tx, err = s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := &graph.Node{ID: fmt.Sprintf("%016x", 1)}
	if err := tx.PutNode(sess.PK, 0, n, TriggerAppend); err != nil {
		t.Fatal(err)
	}
	if n.Version != 3 {
		t.Errorf("the next version of a migrated node is %d, want 3", n.Version)
	}
	if _, err := tx.exec(`DELETE FROM nodes WHERE id = ?`, n.ID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "node_versions"); n != 2*nodes-2 {
		t.Errorf("%d versions after deleting a node of 3, want %d", n, 2*nodes-2)
	}
}

func versionsDigest(t *testing.T, s *Store) string {
	t.Helper()
	var d string
	if err := s.db.QueryRow(`SELECT group_concat(node_id || ':' || version || ':' || length(node) || ':' || hex(substr(node, 1, 40)) || ':' || trigger_reason, char(10))
		FROM (SELECT * FROM node_versions ORDER BY node_id, version)`).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}
