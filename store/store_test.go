package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/graph"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// sampleDir is the one copy of the real sessions, app/samples.
var sampleDir = pitest.SamplesDir()

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a", "b", "library.db")
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, p
}

// reapplyMigration makes the library at path (open as s) as if migration
// version had never run — undo takes away what it made — closes s and
// opens the library again, which applies the migration to what it holds.
func reapplyMigration(t *testing.T, s *Store, path string, version int, undo ...string) *Store {
	t.Helper()
	for _, q := range append(undo, fmt.Sprintf(`DELETE FROM schema_migrations WHERE version = %d`, version)) {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

func count(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenMigratesOnce(t *testing.T) {
	s, p := openTemp(t)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	var mode string
	var fk, version int
	s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk)
	s.db.QueryRow(`PRAGMA user_version`).Scan(&version)
	ms, _ := loadMigrations()
	if mode != "wal" || fk != 1 || version != ms[len(ms)-1].version {
		t.Errorf("journal_mode %s, foreign_keys %d, user_version %d", mode, fk, version)
	}
	s.Close()
	s2, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if n := count(t, s2, "schema_migrations"); n != len(ms) {
		t.Errorf("%d migrations recorded, want %d", n, len(ms))
	}
	if _, err := Open(""); err == nil {
		t.Error("empty path opened")
	}
}

// importSession writes a real session's entries, segments and nodes the way
// the importer does, through one transaction.
func importSession(t *testing.T, s *Store, file string) (*Tx, *Session, error) {
	t.Helper()
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sess, err := writeSession(t, tx, file)
	return tx, sess, err
}

// writeSession writes a real session into tx as importSession does.
func writeSession(t *testing.T, tx *Tx, file string) (*Session, error) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := pisession.NewReader(f, file)
	hdr, err := rd.Header()
	if err != nil {
		t.Fatal(err)
	}
	sess := &Session{ID: hdr.ID, Path: file, FileName: filepath.Base(file), Cwd: hdr.Cwd, Version: hdr.Version, Header: hdr.Raw}
	if err := tx.PutSession(sess); err != nil {
		return nil, err
	}
	b := segment.NewBuilder(segment.DefaultOptions())
	putSeg := func(seg *segment.Segment) error {
		if err := tx.PutSegment(sess.PK, seg); err != nil {
			return err
		}
		n := &graph.Node{ID: EdgeID(sess.ID, seg.StartEntryID, "")[:16]}
		n.Content.Summary = "segment " + seg.StartEntryID
		n.Source.Segment.EntryCount = seg.EntryCount
		return tx.PutNode(sess.PK, seg.Index, n, TriggerInitial)
	}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if st := b.Add(e); st.Closed != nil {
			if err := putSeg(st.Closed); err != nil {
				return sess, err
			}
		}
		if err := tx.InsertEntry(sess.PK, e, session.EntryText(e), EntryExtra{}); err != nil {
			return sess, err
		}
		sess.Entries++
	}
	if seg := b.Finish(); seg != nil {
		if err := putSeg(seg); err != nil {
			return sess, err
		}
	}
	return sess, tx.PutSession(sess)
}

func TestTransactionAllOrNothing(t *testing.T) {
	s, _ := openTemp(t)
	tx, _, err := importSession(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tables := []string{"sessions", "entries", "segments", "nodes", "node_versions", "entries_fts_docsize", "nodes_fts_docsize"}
	before := map[string]int{}
	for _, tb := range tables {
		before[tb] = count(t, s, tb)
	}
	if before["entries"] != 463 || before["entries_fts_docsize"] == 0 {
		t.Fatalf("counts %v", before)
	}

	// Fail in the middle of a file, after several batches were written and
	// indexed for search.
	boom := errors.New("injected failure")
	failEntryInsert = func(n int) error {
		if n == 700 {
			return boom
		}
		return nil
	}
	defer func() { failEntryInsert = nil }()
	tx, _, err = importSession(t, s, filepath.Join(sampleDir, "large-session.jsonl"))
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil { // twice is harmless
		t.Fatal(err)
	}
	for _, tb := range tables {
		if n := count(t, s, tb); n != before[tb] {
			t.Errorf("%s: %d rows, want %d", tb, n, before[tb])
		}
	}
	if _, err := s.db.Exec(`INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')`); err != nil {
		t.Error(err)
	}

	// Without the failure the same file imports whole.
	failEntryInsert = nil
	tx, _, err = importSession(t, s, filepath.Join(sampleDir, "large-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "entries"); n != 463+1018 {
		t.Errorf("%d entries", n)
	}
	if _, err := s.db.Exec(`INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')`); err != nil {
		t.Error(err)
	}
	hits, err := s.Search(context.Background(), "custom tool", 5)
	if err != nil || len(hits) == 0 {
		t.Errorf("search %v %v", err, hits)
	}
}

func TestPutNodeVersions(t *testing.T) {
	s, _ := openTemp(t)
	tx, sess, err := importSession(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	segs, err := tx.Segments(sess.PK)
	if err != nil || len(segs) == 0 {
		t.Fatal(err, segs)
	}
	ids := []string{segs[0].NodeID}
	n, err := tx.Node(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	n.Content.Summary = "zebracorn summary"
	if err := tx.PutNode(sess.PK, 0, n, TriggerAppend); err != nil {
		t.Fatal(err)
	}
	if err := tx.PutNode(sess.PK, 0, n, "user_feedback"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Node(context.Background(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if rec.Node.Version != 3 || strings.Join(rec.Node.PreviousVersions, ",") != ids[0]+"-v1,"+ids[0]+"-v2" || rec.Node.Content.Summary != "zebracorn summary" {
		t.Errorf("node %+v", rec.Node)
	}
	vs, _ := s.NodeVersions(context.Background(), ids[0])
	if len(vs) != 3 || vs[0].TriggerReason != TriggerInitial || vs[1].TriggerReason != TriggerAppend || vs[2].TriggerReason != "user_feedback" {
		t.Errorf("versions %+v", vs)
	}
	hits, _ := s.Search(context.Background(), "zebracorn", 5)
	if len(hits) != 1 || hits[0].Kind != "node" || hits[0].NodeID != ids[0] {
		t.Errorf("the node index does not follow updates: %+v", hits)
	}
}

func TestMatchQuery(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"hello", `"hello"*`},
		{"hello ", `"hello"`},
		{"hello world", `"hello" "world"*`},
		{`"hello world" again`, `"hello world" "again"*`},
		{`say "hi`, `"say" "hi"*`},
		{`a"b`, `"a" "b"*`},
		{`NEAR(x y)`, `"NEAR(x" "y)"*`},
		{`col:value`, `"col:value"*`},
		{`- * ( ) ^`, ``},
		{`AND`, `"AND"*`},
	} {
		if got := MatchQuery(c.in); got != c.want {
			t.Errorf("MatchQuery(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestEdgeID(t *testing.T) {
	a := EdgeID("s", "t", "fork")
	if a != EdgeID("s", "t", "fork") || a == EdgeID("t", "s", "fork") || a == EdgeID("s", "t", "resume") || len(a) != 32 {
		t.Errorf("EdgeID %s", a)
	}
}

func TestCapText(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	if got := capText(s, 5); got != "éé" {
		t.Errorf("capText = %q", got)
	}
	if got := capText("abc", 5); got != "abc" {
		t.Errorf("capText = %q", got)
	}
}

func TestSearchText(t *testing.T) {
	long := strings.Repeat("a", 1500) + "MIDDLE" + strings.Repeat("b", 1500) + "END"
	got := searchText(session.RoleToolResult, long)
	if len(got) > MaxToolOutputText+8 || !strings.HasPrefix(got, "aaa") || !strings.HasSuffix(got, "bbbEND") || strings.Contains(got, "MIDDLE") {
		t.Errorf("tool output: %d bytes %q...", len(got), got[:20])
	}
	if got := searchText(session.RoleAssistant, long); got != long {
		t.Error("a message under 8 KB was cut")
	}
	if got := searchText(session.RoleUser, strings.Repeat("x", 10000)); len(got) != MaxSearchText {
		t.Errorf("%d bytes kept", len(got))
	}
	if got := searchText(session.RoleBashExecution, "short"); got != "short" {
		t.Error(got)
	}
}

// A batch transaction holds several files, each between Savepoint and
// Release: a file that fails after several of its entry batches were
// written and indexed is dropped by RollbackTo alone (its entries batched in
// memory too), the files before and after it are committed, and the
// full-text index matches the entries.
func TestSavepointDropsOneFile(t *testing.T) {
	s, _ := openTemp(t)
	tx, err := s.BeginBatch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	part := func(file string) error {
		t.Helper()
		if err := tx.Savepoint(); err != nil {
			t.Fatal(err)
		}
		if _, err := writeSession(t, tx, filepath.Join(sampleDir, file)); err != nil {
			if rerr := tx.RollbackTo(); rerr != nil {
				t.Fatal(rerr)
			}
			return err
		}
		if err := tx.Release(); err != nil {
			t.Fatal(err)
		}
		return nil
	}
	if err := part("session-with-compaction.jsonl"); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("injected failure")
	failEntryInsert = func(n int) error {
		if n == 463+700 { // the 700th entry of the second file
			return boom
		}
		return nil
	}
	defer func() { failEntryInsert = nil }()
	if err := part("large-session.jsonl"); !errors.Is(err, boom) {
		t.Fatalf("second file: %v, want the injected failure", err)
	}
	failEntryInsert = nil
	if err := part("compact-with-images.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "sessions"); n != 2 {
		t.Errorf("%d sessions, want the first and third", n)
	}
	var entries, maxPK, recorded int
	s.db.QueryRow(`SELECT count(*), max(pk) FROM entries`).Scan(&entries, &maxPK)
	s.db.QueryRow(`SELECT sum(entries) FROM sessions`).Scan(&recorded)
	if entries != recorded || maxPK != entries {
		t.Errorf("%d entries (%d recorded), last key %d: the dropped file's entries or keys were kept", entries, recorded, maxPK)
	}
	var large int
	s.db.QueryRow(`SELECT count(*) FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.file_name = 'large-session.jsonl'`).Scan(&large)
	if large != 0 {
		t.Errorf("%d entries of the failed file kept", large)
	}
	if _, err := s.db.Exec(`INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')`); err != nil {
		t.Error(err)
	}
	var indexed int
	s.db.QueryRow(`SELECT count(*) FROM entries_fts_docsize`).Scan(&indexed)
	if indexed != entries {
		t.Errorf("%d entries indexed of %d", indexed, entries)
	}
}
