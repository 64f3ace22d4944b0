package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writer opens path as OpenCode does, for writing, with no busy timeout:
// a write that meets a lock fails at once. journal, when set, is the
// journal mode it switches the file to ("wal").
func writer(t testing.TB, path, journal string) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite", "file:"+pathForDSN(path)+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	if journal != "" {
		var mode string
		if err := w.QueryRow(`PRAGMA journal_mode = ` + journal).Scan(&mode); err != nil || mode != journal {
			t.Fatalf("journal mode %q: %v", mode, err)
		}
	}
	return w
}

// appendTurn writes a prompt to session as OpenCode does: a message row, its
// text part, the session's time_updated and its event sequence, in one
// transaction.
func appendTurn(t testing.TB, w *sql.DB, sessionID, msgID, partID string, ms int64) {
	t.Helper()
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
			[]any{msgID, sessionID, ms, ms, `{"role":"user","time":{"created":` + strconv.FormatInt(ms, 10) + `},"agent":"build","model":{"providerID":"local","modelID":"scripted-coder"}}`}},
		{`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
			[]any{partID, msgID, sessionID, ms, ms, `{"type":"text","text":"\"One more thing.\""}`}},
		{`UPDATE session SET time_updated = ? WHERE id = ?`, []any{ms, sessionID}},
		{`UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?`, []any{sessionID}},
	} {
		if _, err := tx.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// TestOpenDBWritesNothing: reading every session of a rollback-journal
// database (the committed copy is VACUUMed out of WAL) leaves the file's
// bytes, time and journal mode as they were, creates no journal, log or
// index file, and the connection refuses to write. agentsview checks the
// same of its OpenCode reader (kenn-io/agentsview
// internal/parser/opencode_test.go, TestOpenOpenCodeDBDoesNotForceWALMode).
func TestOpenDBWritesNothing(t *testing.T) {
	path := copyHome(t, false)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	d := openDB(t, path)
	ctx := context.Background()
	ss, err := d.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if _, err := d.Export(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.db.Exec(`CREATE TABLE must_stay_read_only (id INTEGER)`); err == nil {
		t.Error("the connection wrote to OpenCode's database")
	}
	var mode string
	if err := d.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "delete" {
		t.Errorf("journal mode %q (%v), want delete", mode, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if !bytes.Equal(before, after) || !st.ModTime().Equal(old) {
		t.Errorf("the database changed: bytes equal %v, modified %v (was %v)", bytes.Equal(before, after), st.ModTime(), old)
	}
	for _, ext := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + ext); err == nil {
			t.Errorf("%s was created", filepath.Base(path+ext))
		}
	}
}

// TestReadingNeverBlocksOpenCode: on a WAL database (what OpenCode
// writes), OpenCode's writes go through with no busy timeout while the
// reader holds a read transaction open, the open read keeps its snapshot,
// and the next read sees the new rows (the file is not opened immutable,
// which would miss the log).
func TestReadingNeverBlocksOpenCode(t *testing.T) {
	x := readExpected(t)
	path := copyHome(t, false)
	w := writer(t, path, "wal")
	d := openDB(t, path)
	ctx := context.Background()
	before, err := d.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}

	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	count := func(q interface {
		QueryRow(string, ...any) *sql.Row
	}) int {
		var n int
		if err := q.QueryRow(`SELECT count(*) FROM message WHERE session_id = ?`, x.Session).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	n0 := count(tx) // the read transaction takes its snapshot

	appendTurn(t, w, x.Session, "msg_zzzz00000001", "prt_zzzz00000001", 1796290999000)
	if _, err := w.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		t.Errorf("OpenCode's checkpoint failed while the reader reads: %v", err)
	}
	if n := count(tx); n != n0 {
		t.Errorf("the open read saw %d messages, its snapshot %d", n, n0)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}

	after, err := d.Sessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after[0].Change == before[0].Change || after[0].Change.Seq != before[0].Change.Seq+1 || after[0].Updated != 1796290999000 {
		t.Errorf("change %v -> %v: the new turn is not seen", before[0].Change, after[0].Change)
	}
	if after[1].Change != before[1].Change {
		t.Errorf("an untouched session's change moved: %v -> %v", before[1].Change, after[1].Change)
	}
	p := parse(t, mustExport(t, d, x.Session), "after")
	if last := p.Entries[len(p.Entries)-2]; last.ID != "msg_zzzz00000001" {
		t.Errorf("the export's last message is %s, not the new one", last.ID)
	}
	// Between calls the reader holds nothing: OpenCode can switch back to
	// a rollback journal, which needs every reader gone.
	if _, err := w.Exec(`PRAGMA journal_mode = delete`); err != nil {
		t.Errorf("OpenCode cannot leave WAL mode after the reads: %v", err)
	}
}

// TestRollbackJournalLocksReleased: in rollback-journal mode a reader's
// lock would stop the writer; none is held between the reader's calls.
func TestRollbackJournalLocksReleased(t *testing.T) {
	x := readExpected(t)
	path := copyHome(t, false)
	d := openDB(t, path)
	if _, err := d.Sessions(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustExport(t, d, x.Session)
	appendTurn(t, writer(t, path, ""), x.Session, "msg_zzzz00000001", "prt_zzzz00000001", 1796290999000)
}

func TestOpenDBMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	if _, err := OpenDB(path); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want one naming %s and matching fs.ErrNotExist", err, path)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("OpenDB created the file")
	}
	if _, err := OpenDB(filepath.Dir(path)); err == nil {
		t.Error("a folder opened as a database")
	}
}

func TestExportNotFound(t *testing.T) {
	d := openDB(t, copyHome(t, false))
	if _, err := d.Export(context.Background(), "ses_nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "ses_nope") {
		t.Errorf("error %v, want ErrNotFound naming the id", err)
	}
}

// TestNotOpenCode: a SQLite file without a session table is named as not
// OpenCode's.
func TestNotOpenCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	w := writer(t, path, "")
	if _, err := w.Exec(`CREATE TABLE t (a)`); err != nil {
		t.Fatal(err)
	}
	d := openDB(t, path)
	if _, err := d.Sessions(context.Background()); err == nil || !strings.Contains(err.Error(), "not an OpenCode database") {
		t.Errorf("error %v", err)
	}
}

// legacySchema is an older OpenCode-family layout: no session.directory,
// no event log, no todo table; agentsview keeps it for Kilo, MiMoCode and
// ICodeMate archives (kenn-io/agentsview internal/parser/opencode_test.go,
// openCodeSchemaLegacy).
const legacySchema = `
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER NOT NULL DEFAULT 0, time_updated INTEGER NOT NULL DEFAULT 0);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, title TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO project VALUES ('prj_legacy', '/home/user/code/legacy-app', 0, 0);
INSERT INTO session VALUES ('ses_legacy', 'prj_legacy', NULL, 'Legacy Session', 1700000000000, 1700000010000);
INSERT INTO message VALUES ('msg_1', 'ses_legacy', 1700000000000, 1700000000000, '{"role":"user"}');
INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_legacy', 1700000000000, 1700000000000, '{"type":"text","text":"hello from legacy schema"}');
INSERT INTO message VALUES ('msg_2', 'ses_legacy', 1700000010000, 1700000010000, '{"role":"assistant","modelID":"gpt-5.2-codex"}');
INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_legacy', 1700000010000, 1700000010000, '{"type":"text","text":"reply"}');
INSERT INTO part VALUES ('prt_3', 'msg_2', 'ses_legacy', 1700000010001, 1700000010001, '{"type":"step-finish","tokens":{"input":11,"output":7,"cache":{"read":3,"write":2}}}');
`

// TestLegacySchema: without the directory column the project's worktree is
// the working directory (agentsview's
// TestParseOpenCodeDB_LegacySchemaWithoutDirectoryUsesProjectWorktree),
// without the event log the change marker counts rows, and a message
// without tokens takes its step-finish part's
// (TestParseOpenCodeFile_StorageStepFinishTokens).
func TestLegacySchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	if _, err := writer(t, path, "").Exec(legacySchema); err != nil {
		t.Fatal(err)
	}
	d := openDB(t, path)
	ss, err := d.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := Change{Updated: 1700000010000, Seq: -1, Messages: 2, LastMessage: 1700000010000, LastPart: 1700000010001}
	if len(ss) != 1 || ss[0].Directory != "/home/user/code/legacy-app" || ss[0].Change != want {
		t.Fatalf("sessions %+v", ss)
	}
	p := parse(t, mustExport(t, d, "ses_legacy"), "legacy")
	if p.Header.Cwd != "/home/user/code/legacy-app" || p.Meta.Title != "Legacy Session" || len(p.Entries) != 2 || len(p.Problems) != 0 {
		t.Fatalf("header %+v entries %d problems %v", p.Header, len(p.Entries), p.Problems)
	}
	u := p.Entries[1].Message.Usage
	if u == nil || u.Input != 11 || u.Output != 7 || u.CacheRead != 3 || u.CacheWrite != 2 || u.TotalTokens != 23 || p.Entries[1].Message.Model != "gpt-5.2-codex" {
		t.Errorf("usage %+v", u)
	}
}

// TestMissingToolOutput: a database whose tool-output/ file is gone (OpenCode
// cleans that folder up) exports with the file named as missing; the
// read reports it, naming the message, part and file, and keeps every
// entry.
func TestMissingToolOutput(t *testing.T) {
	x := readExpected(t)
	d := openDB(t, copyHome(t, true))
	doc := mustExport(t, d, x.Session)
	if !bytes.Contains(doc, []byte(`"name":"tool-output/tool_23b476179001rXepi4vDLtz8PR","path":"/tmp/rhizome-opencode-fixtures/home/.local/share/opencode/tool-output/tool_23b476179001rXepi4vDLtz8PR","missing":true`)) {
		t.Fatalf("the missing file is not named in the document")
	}
	p := parse(t, doc, "main.json")
	full := parse(t, mustExport(t, openDB(t, copyHome(t, false)), x.Session), "main.json")
	if len(p.Entries) != len(full.Entries) || len(p.Problems) != 1 {
		t.Fatalf("%d entries (want %d), problems %v", len(p.Entries), len(full.Entries), p.Problems)
	}
	pr := p.Problems[0]
	if !strings.Contains(pr.Reason, "message msg_23b475fc6001o2RDXQ0NPEe3ha, part prt_23b47608d001tb1wZ74hcDdQNF: referenced file tool-output/tool_23b476179001rXepi4vDLtz8PR (the full output of a truncated tool call) is missing") ||
		pr.File != "main.json" || !bytes.HasPrefix(doc[pr.Offset:], []byte(`{"part":"prt_23b47608d001tb1wZ74hcDdQNF"`)) {
		t.Errorf("problem %v", pr)
	}
	for _, e := range p.Entries {
		if e.ID == "prt_23b47608d001tb1wZ74hcDdQNF" && !bytes.Contains(e.Message.Details, []byte(`"fullOutputMissing":true`)) {
			t.Errorf("details %s", e.Message.Details)
		}
	}
}
