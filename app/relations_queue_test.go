package app

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/app/ingest"
)

// offlineEdges lists the stored relations across sessions, every column a
// derivation writes but the time.
func (l *testLib) offlineEdges(t *testing.T) []string {
	t.Helper()
	return l.texts(t, `SELECT source_id || ' ' || target_id || ' ' || type || ' ' || confidence || ' ' ||
		coalesce(similarity, '') || ' ' || rationale FROM edges WHERE created_by = 'offline' ORDER BY 1`)
}

// texts runs query, whose rows are one text each, and returns them.
func (l *testLib) texts(t *testing.T, query string, args ...any) []string {
	t.Helper()
	rows, err := l.db(t).Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// halfWrittenClaudeHome copies the Claude Code test home to dir with its
// main session cut at 40% of its lines (live, its path there); full is that
// session whole, to write over it as its agent would.
func halfWrittenClaudeHome(t *testing.T) (dir, live string, full []byte) {
	t.Helper()
	project := "-tmp-rhizome-claudecode-fixtures-work-acme-api"
	full, err := os.ReadFile(filepath.Join(claudeHome, project, claudeMain+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "home")
	copyTree(t, dir, claudeHome, func(rel string, b []byte) []byte {
		if filepath.Base(rel) == claudeMain+".jsonl" {
			return cutAt(b, 0.4, false)
		}
		return b
	})
	return dir, filepath.Join(dir, project, claudeMain+".jsonl"), full
}

// In a running app (the window, serve, a watcher) an append returns without
// deriving its project's relations across sessions (that costs as much as
// the project: issue 11 §2); the relations queue derives them after, and
// they end as an import of the whole files makes them.
func TestAppendRelationsDerivedAfterTheAppend(t *testing.T) {
	dir, live, full := halfWrittenClaudeHome(t)

	l := newTestLib(t)
	l.DeferRelations() // as StartBackground does
	if rep := l.importPaths(t, dir); rep.Totals.Imported != 3 {
		t.Fatalf("first import: %d imported", rep.Totals.Imported)
	}
	if err := l.WaitBackground(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := l.offlineEdges(t)

	os.WriteFile(live, full, 0o644)
	rep := l.importReadable(t, live)
	if rep.Files[0].Status != ingest.StatusAppended {
		t.Fatalf("append: %s", rep.Files[0].Status)
	}
	if err := l.WaitBackground(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := l.offlineEdges(t)

	fresh := newTestLib(t)
	fresh.importPaths(t, dir)
	want := fresh.offlineEdges(t)
	if len(want) == 0 || reflect.DeepEqual(before, want) {
		t.Fatalf("the append changes no relation (%d before, %d after): the test checks nothing", len(before), len(want))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("relations after the append and the queue:\n%v\nafter an import of the whole files:\n%v", got, want)
	}
}

// The relations an append left to the queue are derived when the library
// opens next if the window closed first: every import marks its sessions'
// projects in its own transaction (migration 0087), a derivation clears the
// marks it read, and StartBackground derives what is still marked.
func TestRelationsPendingOutliveTheWindow(t *testing.T) {
	dir, live, full := halfWrittenClaudeHome(t)
	ctx := context.Background()
	pending := func(l *testLib) map[string]string {
		m, err := l.st.RelationsPending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	l := newTestLib(t)
	l.importPaths(t, dir) // derived by the queue after it: no mark left
	if m := pending(l); len(m) != 0 {
		t.Fatalf("marks after the import's relations were derived: %v", m)
	}
	l.DeferRelations()
	os.WriteFile(live, full, 0o644)
	if rep := l.importReadable(t, live); rep.Files[0].Status != ingest.StatusAppended {
		t.Fatalf("append: %+v", rep.Files[0])
	}
	if err := l.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	if m := pending(l); len(m) != 0 {
		t.Fatalf("marks after the queue ran: %v", m)
	}
	want := l.offlineEdges(t)
	if len(want) == 0 {
		t.Fatal("no relations: the test checks nothing")
	}

	// The window closed between an append and its queue: the relations are
	// stale and the project is marked.
	var project string
	l.db(t).QueryRow(`SELECT cwd FROM sessions WHERE id = ?`, claudeMain).Scan(&project)
	for _, q := range []string{`DELETE FROM edges WHERE created_by = 'offline'`,
		`INSERT INTO relations_pending (project, marked_at) VALUES ('` + project + `', '2026-01-01T00:00:00Z')`} {
		if _, err := l.db(t).Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	next := &testLib{App: New(l.st, l.path), st: l.st, path: l.path}
	next.StartBackground(false)
	if err := next.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	if got := next.offlineEdges(t); !reflect.DeepEqual(got, want) {
		t.Errorf("relations after the next start:\n%v\nwant\n%v", got, want)
	}
	if m := pending(next); len(m) != 0 {
		t.Errorf("marks after the next start derived them: %v", m)
	}
}

// A derivation the queue cannot finish says so (relations:error, which the
// window shows) and leaves its project marked, so that the next run derives
// it; once the library can be written again, it does.
func TestRelationsQueueFailureIsReportedAndRetried(t *testing.T) {
	dir, live, full := halfWrittenClaudeHome(t)
	ctx := context.Background()
	l := newTestLib(t)
	l.importPaths(t, dir)
	want := l.offlineEdges(t)
	if len(want) == 0 {
		t.Fatal("no relations: the test checks nothing")
	}
	l.DeferRelations()
	if _, err := l.db(t).Exec(`CREATE TRIGGER test_no_relations BEFORE INSERT ON edges WHEN new.created_by = 'offline'
		BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(live, full, 0o644)
	if rep := l.importReadable(t, live); rep.Files[0].Status != ingest.StatusAppended {
		t.Fatalf("append: %+v", rep.Files[0])
	}
	err := l.WaitBackground(ctx)
	if err == nil || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("WaitBackground = %v, want the derivation's error", err)
	}
	l.mu.Lock()
	events := strings.Join(l.events, " ")
	l.mu.Unlock()
	if !strings.Contains(events, "relations:error") {
		t.Errorf("events %s: no relations:error", events)
	}
	pending, err := l.st.RelationsPending(ctx)
	if err != nil || len(pending) != 1 {
		t.Fatalf("marks after the failed run: %v, %v; want its project still marked", pending, err)
	}

	if _, err := l.db(t).Exec(`DROP TRIGGER test_no_relations`); err != nil {
		t.Fatal(err)
	}
	l.StartBackground(false) // the next start derives what is marked
	if err := l.WaitBackground(ctx); err != nil {
		t.Fatal(err)
	}
	fresh := newTestLib(t)
	fresh.importPaths(t, dir)
	fresh.importPaths(t, live)
	if got, want := l.offlineEdges(t), fresh.offlineEdges(t); !reflect.DeepEqual(got, want) {
		t.Errorf("relations after the retry:\n%v\nwant\n%v", got, want)
	}
	if m, _ := l.st.RelationsPending(ctx); len(m) != 0 {
		t.Errorf("marks after the retry: %v", m)
	}
}
