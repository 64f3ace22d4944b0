package app

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// deleteOpenCodeSession deletes a session's rows as OpenCode's session
// removal does (its parts, messages, todos and share, then the session
// row: what the foreign keys' ON DELETE CASCADE removes), in one
// transaction of the writer w.
func deleteOpenCodeSession(t *testing.T, w *sql.DB, id string) {
	t.Helper()
	writeOpenCode(t, w, []string{
		`DELETE FROM part WHERE session_id = '` + id + `'`,
		`DELETE FROM message WHERE session_id = '` + id + `'`,
		`DELETE FROM todo WHERE session_id = '` + id + `'`,
		`DELETE FROM session_share WHERE session_id = '` + id + `'`,
		`DELETE FROM session WHERE id = '` + id + `'`,
	})
	var n int
	if err := w.QueryRow(`SELECT (SELECT count(*) FROM session WHERE id = ?) + (SELECT count(*) FROM message WHERE session_id = ?)`, id, id).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%s: %d rows left (%v)", id, n, err)
	}
}

// restoreOpenCodeSession puts a session's rows back from the real database
// (the same id listed again), in one transaction of the writer w.
func restoreOpenCodeSession(t *testing.T, w *sql.DB, id string) {
	t.Helper()
	orig := copyOpenCodeHome(t, t.TempDir())
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS orig`, orig); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO session SELECT * FROM orig.session WHERE id = ?`,
		`INSERT INTO message SELECT * FROM orig.message WHERE session_id = ?`,
		`INSERT INTO part SELECT * FROM orig.part WHERE session_id = ?`,
		`INSERT INTO todo SELECT * FROM orig.todo WHERE session_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			tx.Rollback()
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `DETACH DATABASE orig`); err != nil {
		t.Fatal(err)
	}
}

// openCodeAtRest puts the database at path in WAL mode as OpenCode leaves
// it once it has quit: its last connection closed, which moved the log
// into the file and removed the -wal and -shm files.
func openCodeAtRest(t *testing.T, path string) {
	t.Helper()
	if err := openCodeWriter(t, path, true).Close(); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + ext); err == nil {
			t.Fatalf("%s left by OpenCode's last connection", filepath.Base(path+ext))
		}
	}
}

// folderFiles lists the files of a folder (not of its sub-folders) with
// their sizes and modification times.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if !e.IsDir() {
			out[e.Name()] = strconv.FormatInt(info.Size(), 10) + " bytes, " + info.ModTime().UTC().Format(time.RFC3339Nano)
		}
	}
	return out
}

// startAndSweep starts the watcher, waits for its first pass (the import of
// what the folders hold, then the sweep: Status counts it) and stops it.
func startAndSweep(t *testing.T, l *watchLib) {
	t.Helper()
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer l.Watch.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if st, _ := l.Watch.Status(); st.Imports > 0 { // counted from Start
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	st, _ := l.Watch.Status()
	t.Fatalf("the watcher's first pass did not end within 30 s: %+v", st)
}

// waitSessions waits up to 30 s for the library's sessions to satisfy ok,
// and returns them by id.
func waitSessions(t *testing.T, l *watchLib, what string, ok func(map[string]SessionSummary) bool) map[string]SessionSummary {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		byID := sessionsByID(t, l.testLib)
		if ok(byID) {
			return byID
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s: %+v", what, byID)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deletedIDs lists the sessions marked "source deleted".
func deletedIDs(byID map[string]SessionSummary) []string {
	var out []string
	for id, s := range byID {
		if s.SourceDeleted {
			out = append(out, id)
		}
	}
	return out
}

// checkKept checks that the library still holds the session whole: its
// entries counted as before, each segment's node with its entries, and
// export-session giving back the document of its rows.
func checkKept(t *testing.T, l *watchLib, id string, was SessionSummary, doc []byte) {
	t.Helper()
	s := sessionsByID(t, l.testLib)[id]
	if s.Entries != was.Entries || s.Entries == 0 {
		t.Errorf("%s: %d entries, had %d", id, s.Entries, was.Entries)
	}
	n := 0
	for _, node := range sessionNodes(t, l.testLib, id) {
		n += len(allEntries(t, l.testLib, node))
	}
	if n != was.Entries {
		t.Errorf("%s: %d entries read back from its nodes, want %d", id, n, was.Entries)
	}
	if back := exportBack(t, l.testLib, id); !bytes.Equal(back, doc) {
		t.Errorf("%s: export-session gives %d bytes, not the document of its rows (%d)", id, len(back), len(doc))
	}
}

// A session deleted inside OpenCode while it runs (its rows removed, the
// database still there) is marked "source deleted" by the watcher once
// OpenCode commits the removal, exactly that one, and stays in the library
// whole; put back (the same id listed again), it is unmarked.
func TestWatcherMarksSessionDeletedInOpenCode(t *testing.T) {
	agentHomes(t)
	path := copyOpenCodeHome(t, filepath.Join(os.Getenv("XDG_DATA_HOME"), "opencode"))
	docs := readOpenCode(t, path)
	w := openCodeWriter(t, path, true)
	l := newWatchLib(t)
	start := time.Now()
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer l.Watch.Stop()
	l.waitEvent(t, start, "opencode.db#"+opencodeMain, 30*time.Second)
	was := waitSessions(t, l, "the first import", func(m map[string]SessionSummary) bool { return len(m) == opencodeSessions })
	if d := deletedIDs(was); len(d) != 0 {
		t.Fatalf("marked at the start: %v", d)
	}

	deleteOpenCodeSession(t, w, opencodeSecond)
	byID := waitSessions(t, l, "the deleted session marked", func(m map[string]SessionSummary) bool { return m[opencodeSecond].SourceDeleted })
	if d := deletedIDs(byID); len(byID) != opencodeSessions || !reflect.DeepEqual(d, []string{opencodeSecond}) || byID[opencodeSecond].SourceDeletedAt == "" {
		t.Errorf("%d sessions, marked %v: want %d, only %s, with its time", len(byID), d, opencodeSessions, opencodeSecond)
	}
	checkKept(t, l, opencodeSecond, was[opencodeSecond], docs[opencodeSecond].doc)

	restoreOpenCodeSession(t, w, opencodeSecond)
	byID = waitSessions(t, l, "the session back unmarked", func(m map[string]SessionSummary) bool { return !m[opencodeSecond].SourceDeleted })
	if d := deletedIDs(byID); len(d) != 0 || len(byID) != opencodeSessions {
		t.Errorf("back: %d sessions, marked %v", len(byID), d)
	}
	checkKept(t, l, opencodeSecond, was[opencodeSecond], docs[opencodeSecond].doc)
}

// While OpenCode is not running (its database in WAL mode at rest), the
// watcher's first pass marks a session deleted inside OpenCode, and only
// a listing that succeeds says so: a database damaged or locked by
// another program marks nothing. The pass leaves OpenCode's folder as it
// found it (no -wal or -shm file made), and a session put back is
// unmarked by the next pass.
func TestWatcherSweepsOpenCodeDeletions(t *testing.T) {
	agentHomes(t)
	folder := filepath.Join(os.Getenv("XDG_DATA_HOME"), "opencode")
	path := copyOpenCodeHome(t, folder)
	docs := readOpenCode(t, path)
	openCodeAtRest(t, path)
	l := newWatchLib(t)
	files := folderFiles(t, folder)
	startAndSweep(t, l)
	if after := folderFiles(t, folder); !reflect.DeepEqual(after, files) {
		t.Errorf("the first pass changed OpenCode's folder:\nbefore %v\nafter  %v", files, after)
	}
	was := sessionsByID(t, l.testLib)
	if d := deletedIDs(was); len(was) != opencodeSessions || len(d) != 0 {
		t.Fatalf("%d sessions, marked %v", len(was), d)
	}

	w := openCodeWriter(t, path, true)
	deleteOpenCodeSession(t, w, opencodeSecond)
	if err := w.Close(); err != nil { // OpenCode quits
		t.Fatal(err)
	}

	// Damaged: the file is there, SQLite cannot read it.
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged := bytes.Clone(good)
	copy(damaged, "this is no longer a database")
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	startAndSweep(t, l)
	if d := deletedIDs(sessionsByID(t, l.testLib)); len(d) != 0 {
		t.Errorf("a damaged database marked %v", d)
	}
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}

	// Locked: another program holds the database exclusively (WAL with
	// locking_mode exclusive) past the read's busy timeout.
	lw := openCodeWriter(t, path, true)
	if _, err := lw.Exec(`PRAGMA locking_mode = exclusive`); err != nil {
		t.Fatal(err)
	}
	if _, err := lw.Exec(`UPDATE session SET title = title WHERE id = ?`, opencodeMain); err != nil {
		t.Fatal(err)
	}
	startAndSweep(t, l)
	if d := deletedIDs(sessionsByID(t, l.testLib)); len(d) != 0 {
		t.Errorf("a locked database marked %v", d)
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}

	openCodeAtRest(t, path)
	files = folderFiles(t, folder)
	startAndSweep(t, l)
	byID := sessionsByID(t, l.testLib)
	if d := deletedIDs(byID); len(byID) != opencodeSessions || !reflect.DeepEqual(d, []string{opencodeSecond}) {
		t.Errorf("%d sessions, marked %v: want %d, only %s", len(byID), d, opencodeSessions, opencodeSecond)
	}
	checkKept(t, l, opencodeSecond, was[opencodeSecond], docs[opencodeSecond].doc)
	if after := folderFiles(t, folder); !reflect.DeepEqual(after, files) {
		t.Errorf("the pass changed OpenCode's folder:\nbefore %v\nafter  %v", files, after)
	}

	w = openCodeWriter(t, path, true)
	restoreOpenCodeSession(t, w, opencodeSecond)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	startAndSweep(t, l)
	if d := deletedIDs(sessionsByID(t, l.testLib)); len(d) != 0 {
		t.Errorf("back: marked %v", d)
	}
}

// An import of OpenCode's database at rest (WAL mode, OpenCode not
// running) leaves its folder's files as they were: SQLite would make a
// -wal and a -shm file for a read-only reader and leave them. With
// OpenCode writing (its log there, a write transaction open), the import
// reads what was committed and everything OpenCode wrote is kept.
func TestImportOpenCodeLeavesFolderAsFound(t *testing.T) {
	dir := t.TempDir()
	path := copyOpenCodeHome(t, dir)
	openCodeAtRest(t, path)
	files := folderFiles(t, dir)
	l := newTestLib(t)
	if rep := l.importPaths(t, path); rep.Totals.Imported != opencodeSessions {
		t.Fatalf("%+v", rep.Totals)
	}
	if rep := l.importPaths(t, dir); rep.Totals.Unchanged != opencodeSessions {
		t.Fatalf("again: %+v", rep.Totals)
	}
	if after := folderFiles(t, dir); !reflect.DeepEqual(after, files) {
		t.Errorf("the import changed OpenCode's folder:\nbefore %v\nafter  %v", files, after)
	}

	// OpenCode running: a turn committed to its log, another being written.
	w := openCodeWriter(t, path, true)
	writeOpenCode(t, w, openCodeTurn(opencodeMain, `"Committed?"`, "Yes.", 1, 1796290999000))
	ctx := context.Background()
	conn := holdOpenCodeWrite(t, w, openCodeTurn(opencodeSecond, `"Pending?"`, "Not yet.", 2, 1796290999000))
	rep := l.importPaths(t, path)
	if rep.Totals.Appended != 1 || rep.Totals.Unchanged != opencodeSessions-1 || rep.Totals.Failed != 0 {
		t.Errorf("while OpenCode writes: %+v", rep.Totals)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	r := openCodeWriter(t, path, false)
	if err := r.QueryRow(`SELECT count(*) FROM message WHERE id LIKE 'msg_zz%Turn'`).Scan(&n); err != nil || n != 4 {
		t.Errorf("%d of OpenCode's 4 new messages in its database (%v)", n, err)
	}
	if rep := l.importPaths(t, path); rep.Totals.Appended != 1 || rep.Totals.Failed != 0 {
		t.Errorf("after the commit: %+v", rep.Totals)
	}
}

// A manual import of an OpenCode database (`rhizome import`, the window's
// drop) marks a session OpenCode deleted, as the watcher does: exactly
// that one, kept whole; imported again once its rows are back, it is
// unmarked.
func TestImportMarksSessionDeletedInOpenCode(t *testing.T) {
	path := copyOpenCodeHome(t, t.TempDir())
	l := newTestLib(t)
	l.importPaths(t, path)
	before := sessionsByID(t, l)
	if len(deletedIDs(before)) != 0 {
		t.Fatalf("deleted before anything was: %v", deletedIDs(before))
	}
	w := openCodeWriter(t, path, false)
	deleteOpenCodeSession(t, w, opencodeSecond)
	l.importPaths(t, path)
	after := sessionsByID(t, l)
	if got := deletedIDs(after); len(got) != 1 || got[0] != opencodeSecond {
		t.Errorf("marked deleted: %v, want only %s", got, opencodeSecond)
	}
	if s := after[opencodeSecond]; s.Entries != before[opencodeSecond].Entries || s.Entries == 0 {
		t.Errorf("the deleted session kept %d of its %d entries", s.Entries, before[opencodeSecond].Entries)
	}
	restoreOpenCodeSession(t, w, opencodeSecond)
	l.importPaths(t, path)
	if got := deletedIDs(sessionsByID(t, l)); len(got) != 0 {
		t.Errorf("still marked deleted once back: %v", got)
	}
}
