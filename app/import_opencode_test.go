package app

import (
	"bytes"
	"context"
	"database/sql"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/opencode"
	"rhizome/backend/segment"
	"rhizome/backend/sessionformat"
)

// The real OpenCode 1.18.33 data folder, made by the real program against
// a scripted local OpenAI chat server; see
// backend/opencode/testdata/generate (opencode.db, rollback journal: a
// read-only open creates nothing beside it, and tool-output/).
const (
	opencodeHome     = "../backend/opencode/testdata/opencode-home"
	opencodeMain     = "ses_dc4b8cbbaffe4DVf0aYZpfq15T" // tools, a sub-agent, two compactions, an API error
	opencodeSub      = "ses_dc4b88a65ffeNulR0sidBma5rs" // the main session's task sub-agent
	opencodeSecond   = "ses_dc4b83493ffeJx7U6Y4R6Yy2VO" // a given title and an attached file
	opencodeFork     = "ses_dc4b8154affeYE0OgyESsTl2Hd" // --fork of the second
	opencodeSessions = 4
)

// openCodeRead is a session as backend/opencode reads it: the document
// Export gives and what ParseDocument makes of it.
type openCodeRead struct {
	doc    []byte
	parsed *opencode.Parsed
}

// readOpenCode exports and parses every session of the database at path.
func readOpenCode(t *testing.T, path string) map[string]openCodeRead {
	t.Helper()
	d, err := opencode.OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ss, err := d.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]openCodeRead{}
	for _, s := range ss {
		doc, err := d.Export(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		p, err := opencode.ParseDocument(doc, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[s.ID] = openCodeRead{doc, p}
	}
	return out
}

// copyOpenCodeHome copies the real data folder to dir (made if needed)
// and returns the database's path there.
func copyOpenCodeHome(t *testing.T, dir string) string {
	t.Helper()
	err := filepath.WalkDir(opencodeHome, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(opencodeHome, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "opencode.db")
}

// openCodeWriter opens the database at path for writing as OpenCode does:
// WAL mode (OpenCode's), one connection, no busy timeout.
func openCodeWriter(t *testing.T, path string, wal bool) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	if wal {
		var mode string
		if err := w.QueryRow(`PRAGMA journal_mode = wal`).Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal mode %q: %v", mode, err)
		}
	}
	return w
}

// openCodeTurn is a turn as OpenCode 1.18.33 writes it (README "message",
// "part"): a user message with its text part, then the assistant's
// answer with step-start, reasoning, text and step-finish parts, tokens and
// cost; the session's time_updated and event sequence move on.
func openCodeTurn(sessionID, prompt, answer string, n int, ms int64) []string {
	id := func(prefix string, k int) string {
		return prefix + "_zz" + strconv.Itoa(n) + "0000000" + strconv.Itoa(k) + "Turn"
	}
	user, asst := id("msg", 1), id("msg", 2)
	t := func(d int64) string { return strconv.FormatInt(ms+d, 10) }
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" } // an SQL string
	return []string{
		`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('` + user + `', '` + sessionID + `', ` + t(0) + `, ` + t(0) +
			`, '{"role":"user","time":{"created":` + t(0) + `},"agent":"build","model":{"providerID":"local","modelID":"scripted-coder"}}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('` + id("prt", 1) + `', '` + user + `', '` + sessionID +
			`', ` + t(0) + `, ` + t(0) + `, json_object('type', 'text', 'text', ` + q(prompt) + `))`,
		`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('` + asst + `', '` + sessionID + `', ` + t(10) + `, ` + t(900) +
			`, '{"parentID":"` + user + `","role":"assistant","mode":"build","agent":"build","cost":0.0321,"tokens":{"total":10440,"input":10400,"output":30,"reasoning":10,"cache":{"write":0,"read":0}},"modelID":"scripted-coder","providerID":"local","time":{"created":` + t(10) + `,"completed":` + t(900) + `},"finish":"stop"}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('` + id("prt", 2) + `', '` + asst + `', '` + sessionID +
			`', ` + t(20) + `, ` + t(20) + `, '{"type":"step-start","snapshot":"a7e93e79"}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('` + id("prt", 3) + `', '` + asst + `', '` + sessionID +
			`', ` + t(30) + `, ` + t(300) + `, '{"type":"reasoning","text":"A short answer will do.","time":{"start":` + t(30) + `,"end":` + t(300) + `}}')`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('` + id("prt", 4) + `', '` + asst + `', '` + sessionID +
			`', ` + t(310) + `, ` + t(800) + `, json_object('type', 'text', 'text', ` + q(answer) + `))`,
		`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('` + id("prt", 5) + `', '` + asst + `', '` + sessionID +
			`', ` + t(890) + `, ` + t(890) + `, '{"type":"step-finish","reason":"stop","snapshot":"a7e93e79","tokens":{"total":10440,"input":10400,"output":30,"reasoning":10,"cache":{"write":0,"read":0}},"cost":0.0321}')`,
		`UPDATE session SET time_updated = ` + t(900) + `, cost = cost + 0.0321 WHERE id = '` + sessionID + `'`,
		`UPDATE event_sequence SET seq = seq + 9 WHERE aggregate_id = '` + sessionID + `'`,
	}
}

// writeOpenCode runs the statements in one transaction of w.
func writeOpenCode(t *testing.T, w *sql.DB, stmts []string) {
	t.Helper()
	tx, err := w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range stmts {
		if _, err := tx.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// holdOpenCodeWrite begins a write transaction on a connection of w, as
// OpenCode holds one while it writes a turn, runs stmts in it and returns
// the connection, the transaction still open (COMMIT it, then Close).
func holdOpenCodeWrite(t *testing.T, w *sql.DB, stmts []string) *sql.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// checkOpenCodeSession checks a session of the library against the
// reader's reading of it: entries read back as ParseDocument gives them,
// segments as the segmenter cuts them, a node per segment, export-session
// the document of its rows.
func checkOpenCodeSession(t *testing.T, l *testLib, fr FileReport, r openCodeRead) {
	t.Helper()
	es := r.parsed.Entries
	if fr.Format != sessionformat.OpenCode || fr.Entries != len(es) || fr.PendingTail || fr.MalformedCount != 0 {
		t.Errorf("%s: %s, %d entries (pending %v, %d malformed); the reader reads %d", fr.SessionID, fr.Format, fr.Entries, fr.PendingTail,
			fr.MalformedCount, len(es))
	}
	segs := segment.Split(es, segment.OptionsFor(sessionformat.OpenCode))
	if fr.Segments != len(segs) {
		t.Errorf("%s: %d segments %v, the segmenter cuts %d", fr.SessionID, fr.Segments, fr.BoundariesByType, len(segs))
	}
	nodes := sessionNodes(t, l, fr.SessionID)
	if len(nodes) != len(segs) {
		t.Errorf("%s: %d nodes, %d segments", fr.SessionID, len(nodes), len(segs))
	}
	var views []EntryView
	for _, id := range nodes {
		views = append(views, allEntries(t, l, id)...)
	}
	if len(views) != len(es) {
		t.Errorf("%s: %d entries read back, want %d", fr.SessionID, len(views), len(es))
	} else {
		for i, v := range views {
			e := &es[i]
			if v.Type != e.Type || v.ID != e.ID || v.Sidechain != e.Sidechain || v.RolledBack || v.SubagentID != e.SubagentID {
				t.Errorf("%s entry %d: read back %s %s %q, the reader %s %s %q", fr.SessionID, i, v.Type, v.ID, v.SubagentID, e.Type, e.ID, e.SubagentID)
			}
		}
	}
	if back := exportBack(t, l, fr.SessionID); !bytes.Equal(back, r.doc) {
		t.Errorf("%s: export-session wrote %d bytes, Export %d; first difference at byte %d", fr.SessionID, len(back), len(r.doc), firstByteDiff(back, r.doc))
	}
}

// OpenCode's data folder imports as the other agents' homes do: the
// database (told by its tables, opened read-only) gives one library session
// per OpenCode session, each through the document seam with the JSON
// document of its rows: entries as the reader reads them, segments as the
// segmenter cuts them (the compactions are boundaries), a node per
// segment, titles from OpenCode's, the cost OpenCode priced, the sub-agent
// a child session linked from its task call, the fork linked from the
// message it copies up to; export-session gives each document back.
// Imported again: unchanged, every session, by its change marker.
func TestImportOpenCode(t *testing.T) {
	reads := readOpenCode(t, filepath.Join(opencodeHome, "opencode.db"))
	l := newTestLib(t)
	rep := l.importPaths(t, opencodeHome)
	if rep.Totals.Files != opencodeSessions || rep.Totals.Imported != opencodeSessions || rep.Totals.Failed != 0 || rep.Totals.Malformed != 0 {
		t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
	}
	db, _ := filepath.Abs(filepath.Join(opencodeHome, "opencode.db"))
	for _, fr := range rep.Files {
		r, ok := reads[fr.SessionID]
		if !ok || fr.Path != ingest.SessionSource(db, fr.SessionID) || fr.Status != ingest.StatusImported {
			t.Errorf("%+v: not a session of the database", fr)
			continue
		}
		checkOpenCodeSession(t, l, fr, r)
		wantCompactions := map[string]int{opencodeMain: 2}[fr.SessionID]
		if fr.BoundariesByType["compaction"] != wantCompactions {
			t.Errorf("%s: boundaries %v, want %d compaction", fr.SessionID, fr.BoundariesByType, wantCompactions)
		}
	}
	if f := rep.Files[len(rep.Files)-1]; f.SessionID != opencodeFork || f.EdgesByType["fork"] != 1 {
		t.Errorf("the fork, imported last, has edges %v: want its fork edge", f.EdgesByType)
	}

	byID := sessionsByID(t, l)
	for id, want := range map[string]string{opencodeMain: "main.go size and routes", opencodeSub: "Review notes.go (@general subagent)",
		opencodeSecond: "Release notes", opencodeFork: "Release notes (fork #1)"} {
		s := byID[id]
		meta := reads[id].parsed.Meta
		if s.Name != want || s.Format != sessionformat.OpenCode || s.Project != "/tmp/rhizome-opencode-fixtures/work/notes-api" || s.CostUnknown ||
			math.Abs(s.Cost-meta.Usage.Cost) > 1e-9 || s.Cost == 0 {
			t.Errorf("%s: %+v; want %q, the cost OpenCode priced its answers at, %v", id, s, want, meta.Usage.Cost)
		}
	}
	if sub := byID[opencodeSub]; sub.AgentID != opencodeSub || sub.ParentSession != opencodeMain {
		t.Errorf("the sub-agent %+v: a child session of the main one", sub)
	}
	if fork := byID[opencodeFork]; fork.ParentSession != opencodeSecond || fork.AgentID != "" {
		t.Errorf("the fork %+v: its parent is the session it copies", fork)
	}
	// The task result leads to the sub-agent's first node.
	linked := false
	for _, id := range sessionNodes(t, l, opencodeMain) {
		for _, v := range allEntries(t, l, id) {
			linked = linked || v.SubagentID == opencodeSub && v.SubagentNodeID != ""
		}
	}
	if !linked {
		t.Error("the task result does not lead to the sub-agent's node")
	}
	// The fork's edge leaves the parent's node holding the message the
	// fork copies up to.
	var meta string
	if err := l.db(t).QueryRow(`SELECT metadata FROM edges WHERE type = 'fork'`).Scan(&meta); err != nil {
		t.Fatal(err)
	}
	if point := reads[opencodeFork].parsed.Fork.Point; !strings.Contains(meta, `"forkEntryId":"`+point+`"`) {
		t.Errorf("fork edge %s, want it from %s", meta, point)
	}

	again := l.importPaths(t, filepath.Join(opencodeHome, "opencode.db"))
	if again.Totals.Files != opencodeSessions || again.Totals.Unchanged != opencodeSessions || again.Totals.Failed != 0 {
		t.Errorf("again: %+v", again.Totals)
	}
	// An exported document, imported as a file, is an OpenCode session
	// too (the same one, found at another path).
	p := filepath.Join(t.TempDir(), "second.json")
	if err := os.WriteFile(p, reads[opencodeSecond].doc, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := newTestLib(t)
	if fr := fresh.importPaths(t, p).Files[0]; fr.Status != ingest.StatusImported || fr.Format != sessionformat.OpenCode || fr.SessionID != opencodeSecond {
		t.Errorf("the document as a file: %+v", fr)
	}
}

// A session that grew (OpenCode appended a turn, its change marker moved)
// writes only its new entries; the others are unchanged without being
// exported: a row changed behind an unmoved marker is not read (the
// library keeps the document it had). The library ends as a whole import
// of the grown database.
func TestImportOpenCodeGrows(t *testing.T) {
	path := copyOpenCodeHome(t, t.TempDir())
	w := openCodeWriter(t, path, true)
	l := newTestLib(t)
	if rep := l.importPaths(t, path); rep.Totals.Imported != opencodeSessions {
		t.Fatalf("%+v", rep.Totals)
	}
	before := readOpenCode(t, path)

	// A row rewritten without the marker moving: not exported, not read.
	if _, err := w.Exec(`UPDATE part SET data = json_set(data, '$.text', 'Changed behind the marker') WHERE session_id = ? AND json_extract(data, '$.type') = 'text'`,
		opencodeSecond); err != nil {
		t.Fatal(err)
	}
	rep := l.importPaths(t, path)
	if rep.Totals.Unchanged != opencodeSessions {
		t.Fatalf("an unmoved marker: %+v", rep.Totals)
	}
	if back := exportBack(t, l, opencodeSecond); !bytes.Equal(back, before[opencodeSecond].doc) {
		t.Error("the session was exported though its marker did not move")
	}

	writeOpenCode(t, w, openCodeTurn(opencodeMain, `"And the tests?"`, "There are none yet.", 1, 1796290999000))
	rep = l.importPaths(t, path)
	for _, fr := range rep.Files {
		want, news := ingest.StatusUnchanged, 0
		if fr.SessionID == opencodeMain {
			want, news = ingest.StatusAppended, 2
		}
		if fr.Status != want || fr.NewEntries != news || fr.Error != "" {
			t.Errorf("%s: %s, %d new entries; want %s, %d", fr.SessionID, fr.Status, fr.NewEntries, want, news)
		}
	}
	after := readOpenCode(t, path)
	var main FileReport
	for _, fr := range rep.Files {
		if fr.SessionID == opencodeMain {
			main = fr
		}
	}
	if n := len(after[opencodeMain].parsed.Entries); main.Entries != n || n != len(before[opencodeMain].parsed.Entries)+2 {
		t.Errorf("%d entries, the reader reads %d", main.Entries, n)
	}
	if back := exportBack(t, l, opencodeMain); !bytes.Equal(back, after[opencodeMain].doc) {
		t.Errorf("export differs at byte %d", firstByteDiff(back, after[opencodeMain].doc))
	}
	whole := newTestLib(t)
	for _, fr := range whole.importPaths(t, path).Files {
		if fr.SessionID == opencodeMain && (fr.Entries != main.Entries || fr.Segments != main.Segments) {
			t.Errorf("grown %+v, whole %+v", main, fr)
		}
	}
}

// An answer OpenCode is still writing at the session's end (no
// time.completed yet) is held back, as a half-written last line is: the
// session reports a pending tail; once the answer is finished, it is read.
func TestImportOpenCodeAnswerBeingWritten(t *testing.T) {
	path := copyOpenCodeHome(t, t.TempDir())
	w := openCodeWriter(t, path, true)
	l := newTestLib(t)
	l.importPaths(t, path)
	turn := openCodeTurn(opencodeSecond, `"Shorter, please."`, "Release notes: v2.", 2, 1796290999000)
	streaming := append([]string{}, turn...)
	streaming[2] = strings.Replace(turn[2], `,"completed":1796290999900},"finish":"stop"`, `}`, 1)
	if streaming[2] == turn[2] {
		t.Fatal("no completion to take out")
	}
	writeOpenCode(t, w, streaming)
	var fr FileReport
	for _, f := range l.importPaths(t, path).Files {
		if f.SessionID == opencodeSecond {
			fr = f
		}
	}
	if fr.Status != ingest.StatusAppended || fr.NewEntries != 1 || !fr.PendingTail {
		t.Errorf("while the answer streams: %+v; want the prompt, the answer pending", fr)
	}
	writeOpenCode(t, w, []string{
		`UPDATE message SET data = json_set(data, '$.time.completed', 1796290999900, '$.finish', 'stop') WHERE id = 'msg_zz200000002Turn'`,
		`UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = '` + opencodeSecond + `'`,
	})
	for _, f := range l.importPaths(t, path).Files {
		if f.SessionID == opencodeSecond && (f.Status != ingest.StatusAppended || f.NewEntries != 1 || f.PendingTail) {
			t.Errorf("finished: %+v", f)
		}
	}
}

// OpenCode writing while the import reads: a write transaction held open
// (WAL, as OpenCode runs) does not stop the import, which reads what is
// committed; in rollback-journal mode an exclusive lock held past the
// read's busy timeout fails the database's import with a message naming
// it, and loses nothing the library had; once the lock is gone, the import
// goes on.
func TestImportOpenCodeLocked(t *testing.T) {
	path := copyOpenCodeHome(t, t.TempDir())
	w := openCodeWriter(t, path, true)
	l := newTestLib(t)
	l.importPaths(t, path)
	ctx := context.Background()
	conn := holdOpenCodeWrite(t, w, openCodeTurn(opencodeMain, `"Locked?"`, "Not for readers.", 3, 1796290999000))
	// The import returns while the write transaction is still open (it is
	// committed only below): it read what was committed, never waiting
	// for OpenCode.
	rep := l.importPaths(t, path)
	if rep.Totals.Unchanged != opencodeSessions {
		t.Errorf("while OpenCode writes: %+v", rep.Totals)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if rep := l.importPaths(t, path); rep.Totals.Appended != 1 || rep.Totals.Failed != 0 {
		t.Errorf("after the commit: %+v", rep.Totals)
	}

	// Rollback journal, exclusive lock: readers wait, then give up.
	other := copyOpenCodeHome(t, t.TempDir())
	l2 := newTestLib(t)
	l2.importPaths(t, other)
	rw := openCodeWriter(t, other, false)
	conn, err := rw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `UPDATE session SET title = 'x' WHERE id = ?`, opencodeSecond); err != nil {
		t.Fatal(err)
	}
	rep = l2.importPaths(t, other)
	if rep.Totals.Files != 1 || rep.Totals.Failed != 1 || !strings.Contains(rep.Files[0].Error, other) || !strings.Contains(rep.Files[0].Error, "locked") {
		t.Errorf("locked: %+v", rep.Files)
	}
	if ss, _ := l2.Library.Sessions(""); len(ss) != opencodeSessions {
		t.Errorf("locked: %d sessions left in the library", len(ss))
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if rep := l2.importPaths(t, other); rep.Totals.Unchanged != opencodeSessions {
		t.Errorf("unlocked: %+v", rep.Totals)
	}
}

// A file that is not OpenCode's database gives a clear error naming it:
// another program's SQLite database, given or named opencode.db; a
// truncated copy of the real one; junk named opencode.db. Found below a
// folder, another program's database is passed over (Cline's sessions.db,
// Copilot CLI's session.db), one named opencode.db is not; dropped on the
// window, a database says to import it by its path.
func TestImportOpenCodeNotADatabase(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	ow := openCodeWriter(t, other, false)
	if _, err := ow.Exec(`CREATE TABLE session (id TEXT); CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
	ow.Close()
	real, err := os.ReadFile(filepath.Join(opencodeHome, "opencode.db"))
	if err != nil {
		t.Fatal(err)
	}
	l := newTestLib(t)
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"sqlite/opencode.db":    {nil, "not an OpenCode database: a SQLite database without the table(s) message, part (it has the tables notes, session)"},
		"truncated/opencode.db": {real[:len(real)/3], "malformed"},
		"junk/opencode.db":      {[]byte("\x89PNG\r\n\x1a\n junk"), `not an OpenCode database: not a SQLite database file (it starts with "\x89PNG`},
		"empty/opencode.db":     {[]byte{}, "not an OpenCode database: not a SQLite database file (it is empty)"},
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		b := c.b
		if b == nil {
			b, _ = os.ReadFile(other)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, arg := range []string{p, filepath.Dir(p)} {
			rep := l.importPaths(t, arg)
			if rep.Totals.Files != 1 || rep.Totals.Failed != 1 || !strings.Contains(rep.Files[0].Error, p) || !strings.Contains(rep.Files[0].Error, c.want) {
				t.Errorf("%s (given %s): %+v", name, arg, rep.Files)
			}
		}
	}
	rep := l.importPaths(t, other)
	if rep.Totals.Failed != 1 || !strings.Contains(rep.Files[0].Error, other) || !strings.Contains(rep.Files[0].Error, "not an OpenCode database") {
		t.Errorf("another database given: %+v", rep.Files)
	}
	sub := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(sub, 0o755)
	b, _ := os.ReadFile(other)
	os.WriteFile(filepath.Join(sub, "sessions.db"), b, 0o644)
	if rep := l.importPaths(t, sub); rep.Totals.Files != 0 {
		t.Errorf("another database found in a folder: %+v", rep.Files)
	}
	rep, err = l.Import.ImportFiles([]DroppedFile{dropped("opencode.db", real)})
	if err != nil || rep.Totals.Failed != 1 || !strings.Contains(rep.Files[0].Error, "a SQLite database") {
		t.Errorf("dropped: %v %+v", err, rep.Files)
	}
}

// Live: OpenCode's data folder (XDG_DATA_HOME/opencode) is a default
// watched folder, on when it exists; the watcher imports its database's
// sessions, then the turn OpenCode commits to the write-ahead log as an
// append of the new entries of that session only.
func TestWatcherImportsOpenCodeLive(t *testing.T) {
	agentHomes(t)
	folder := filepath.Join(os.Getenv("XDG_DATA_HOME"), "opencode")
	path := copyOpenCodeHome(t, folder)
	w := openCodeWriter(t, path, true)
	l := newWatchLib(t)
	fs, err := l.Watch.Folders()
	if err != nil {
		t.Fatal(err)
	}
	if f := fs[6]; f.Agent != sessionformat.OpenCode || f.Path != folder || !f.Enabled || !f.Exists {
		t.Fatalf("OpenCode's folder %+v", f)
	}
	start := time.Now()
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer l.Watch.Stop()
	if _, fr, _ := l.waitEvent(t, start, "opencode.db#"+opencodeMain, 30*time.Second); fr.Status != ingest.StatusImported || fr.Entries != 35 {
		t.Fatalf("first import %+v", fr)
	}
	for k := 1; k <= 2; k++ {
		wrote := time.Now()
		writeOpenCode(t, w, openCodeTurn(opencodeMain, `"And then?"`, "Then we are done.", 10+k, 1796291000000+int64(k)*1000))
		ev, fr, _ := l.waitEvent(t, wrote, "opencode.db#"+opencodeMain, 30*time.Second)
		if fr.Status != ingest.StatusAppended || fr.NewEntries != 2 || fr.Entries != 35+2*k || ev.Initial {
			t.Fatalf("turn %d: %+v", k, fr)
		}
		for _, o := range ev.Files {
			if o.SessionID != opencodeMain {
				t.Errorf("turn %d: %s reported too: %+v", k, o.SessionID, o)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(opencodeHome, "opencode.db-wal")); err == nil {
		t.Error("a log was made beside the committed database")
	}
}
