package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"rhizome/backend/opencode"
	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
	"rhizome/store"
)

// Databases: an agent that keeps its sessions in a SQLite database of its
// own (OpenCode's opencode.db) goes through the document seam (document.go)
// one session at a time:
//
//   - Collecting: a database is told by its content (the SQLite header,
//     then OpenCode's tables session, message and part: opencode.DB.Check),
//     given as a file or found below a folder among the files named *.db,
//     *.sqlite or *.sqlite3. It is opened read-only (opencode.OpenDB: no
//     lock held between reads, nothing written, and while OpenCode is not
//     running no -wal or -shm file made beside it), its sessions listed
//     with their change marker (opencode.DB.Sessions), and each session becomes
//     a Source of its own, named "<database>#<session id>" (SessionSource),
//     whose bytes are the session's rows exported as one JSON document
//     (opencode.DB.Export), read when the import opens it. A database found
//     below a folder that is not OpenCode's (Cline's sessions.db, Copilot
//     CLI's session.db) is passed over; one given as a file, or named
//     opencode*.db, is reported with what it is instead.
//   - Deciding: the change marker is kept with the session (docState.
//     Marker). A session whose marker has not moved is "unchanged" without
//     being exported (prepareDatabaseSession); one whose marker moved is
//     exported and read as any document: the same reading is "unchanged"
//     (the new marker kept), else only the entries whose keys are new are
//     written (opencode.Key: ids and content, leaving out what OpenCode
//     writes again in a finished row).
//   - Gone: a session the database no longer lists (deleted inside
//     OpenCode, the file still there: ListedSessions) is marked "source
//     deleted" by the watcher's sweep, its entries kept, and unmarked when
//     it is listed again; a database that cannot be listed says nothing.
//   - Reading: the messages OpenCode is still writing at the document's end
//     (an answer streaming, a tool call running: opencode.Parsed.Pending)
//     are held back, as a half-written last line is (Doc.Pending), and read
//     once they are finished; the document is kept whole all the same, and
//     export-session gives it back.

// formatOpenCode is OpenCode's format name (sessionformat.OpenCode).
const formatOpenCode = "opencode"

// dbSession is a session of an agent's database that a Source stands for.
type dbSession struct {
	file   string // the database file
	id     string // the session's id
	marker string // its change marker when the sessions were listed (opencode.Change.String)
}

// databaseSeparator joins a database's path and a session's id in the
// path of the session's Source ("…/opencode.db#ses_…").
const databaseSeparator = "#"

// SessionSource returns the path a session of the database at file is
// imported and stored under: "<file>#<id>".
func SessionSource(file, id string) string { return file + databaseSeparator + id }

// SourceFileOf returns the file on disk a stored session's path names: the
// database of a database session ("<file>#<id>", file named as a database
// is: IsDatabaseName), else path itself.
func SourceFileOf(path string) string {
	if i := strings.LastIndex(path, databaseSeparator); i > 0 && !strings.ContainsRune(path[i+1:], filepath.Separator) &&
		IsDatabaseName(path[:i]) {
		return path[:i]
	}
	return path
}

// IsDatabaseName reports whether p names a file that may be an agent's
// SQLite database (*.db, *.sqlite, *.sqlite3): a walk opens those to tell
// by content whether they are.
func IsDatabaseName(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".db", ".sqlite", ".sqlite3":
		return true
	}
	return false
}

// DatabaseFor returns the database a change of the file at p changes: p
// for a database name, the database beside its write-ahead log
// ("opencode.db-wal", where OpenCode writes first), ok false for another
// file.
func DatabaseFor(p string) (string, bool) {
	if IsDatabaseName(p) {
		return p, true
	}
	if db, ok := strings.CutSuffix(p, "-wal"); ok && IsDatabaseName(db) {
		return db, true
	}
	return "", false
}

// opencodeName reports whether the file name base is one OpenCode gives its
// database (opencode.db, opencode-<channel>.db): such a file that is not
// an OpenCode database is reported, never passed over.
func opencodeName(base string) bool {
	b := strings.ToLower(base)
	return strings.HasPrefix(b, "opencode") && strings.HasSuffix(b, ".db")
}

// sqliteHead reports whether the file at p starts with SQLite's header,
// and what it starts with (for a message) when it does not.
func sqliteHead(p string) (bool, string, error) {
	f, err := OpenRegularFile(p)
	if err != nil {
		return false, "", err
	}
	defer f.Close()
	b := make([]byte, len(opencode.SQLiteHeader))
	n, err := io.ReadFull(f, b)
	switch {
	case errors.Is(err, io.EOF):
		return false, "it is empty", nil
	case errors.Is(err, io.ErrUnexpectedEOF):
	case err != nil:
		return false, "", err
	}
	if string(b[:n]) == opencode.SQLiteHeader {
		return true, "", nil
	}
	return false, fmt.Sprintf("it starts with %q, not SQLite's header", b[:n]), nil
}

// database lists the sessions of the database at path (real: its path with
// links resolved) as sources. given: the file was given, not found in a
// walk; a file that is not an OpenCode database is then reported, as one
// named opencode*.db always is; another found in a walk is passed over.
// It reports whether the file was taken (listed or reported).
func (c *collector) database(path, real string, given bool) bool {
	report := given || opencodeName(filepath.Base(path))
	fail := func(err error) bool {
		if report {
			c.add(real, Source{path: path, err: err})
		}
		return report
	}
	ok, what, err := sqliteHead(path)
	switch {
	case err != nil:
		return fail(fmt.Errorf("%s: %w", path, err))
	case !ok && !report:
		return false
	case !ok:
		if given && !opencodeName(filepath.Base(path)) {
			return false // a session file, read as one
		}
		return fail(fmt.Errorf("%s: not an OpenCode database: not a SQLite database file (%s)", path, what))
	}
	ctx := context.Background()
	d, err := opencode.OpenDB(path)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	if err := d.Check(ctx); err != nil {
		return fail(err)
	}
	ss, err := d.Sessions(ctx)
	if err != nil {
		return fail(err)
	}
	for _, s := range ss {
		ds := &dbSession{file: path, id: s.ID, marker: s.Change.String()}
		c.add(SessionSource(real, s.ID), Source{path: SessionSource(path, s.ID), computer: c.host, db: ds, open: ds.export})
	}
	if len(ss) == 0 {
		c.seen[real] = true // a database without sessions: nothing to import
	}
	return true
}

// ListedSessions returns the sources' paths ("<file>#<id>", SessionSource)
// of the sessions the OpenCode database at file lists now, sub-agents and
// forks included: what tells a session deleted inside OpenCode (its rows
// gone, the database still there) from one it still holds. The database
// is opened as for an import (opencode.OpenDB: read-only, nothing left
// beside it) and only its session ids are read (opencode.DB.SessionIDs).
// The error names the database when it cannot be opened (missing, a
// folder), is not OpenCode's (opencode.DB.Check), or cannot be listed
// (locked past opencode.BusyTimeout, damaged): nothing can then be said of
// its sessions, and a caller must take none of them as gone.
func ListedSessions(ctx context.Context, file string) (map[string]bool, error) {
	d, err := opencode.OpenDB(file)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := d.Check(ctx); err != nil {
		return nil, err
	}
	ids, err := d.SessionIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[SessionSource(file, id)] = true
	}
	return out, nil
}

// export opens the database read-only and exports the session's rows as
// one JSON document (the Source's bytes).
func (ds *dbSession) export() (sessionFile, error) {
	d, err := opencode.OpenDB(ds.file)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	b, err := d.Export(context.Background(), ds.id)
	if err != nil {
		return nil, err
	}
	return nopCloser{bytes.NewReader(b)}, nil
}

// foundDatabase lists the sessions of the database at path found in a walk
// (database, given false).
func (c *collector) foundDatabase(path string) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	c.database(path, real, false)
}

// prepareDatabaseSession decides, before the session of a database is
// exported, whether it needs to be: a session the library holds from this
// format whose change marker has not moved is "unchanged" (done true, j's
// header, format and stored session set). The import of the same session
// earlier in this one (inflight) is waited for first.
func prepareDatabaseSession(ctx context.Context, st *store.Store, j *job, inflight []*job, waiting chan<- *job) (done bool, err error) {
	ds := j.src.db
	if err := awaitInflight(ctx, ds.id, inflight, waiting); err != nil {
		return true, err
	}
	stored, err := st.ImportedSession(ctx, ds.id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil && ctx.Err() != nil:
		return true, ctx.Err()
	case err != nil:
		return true, err
	}
	if stored.Format != formatOpenCode || storedMarker(stored) != ds.marker {
		return false, nil
	}
	j.hdr = &session.Header{ID: ds.id, Format: formatOpenCode}
	j.format, j.stored, j.status = formatOpenCode, stored, StatusUnchanged
	return true, nil
}

// storedMarker is the change marker kept with a document session by its
// last import ("" for none, or a state that cannot be trusted).
func storedMarker(stored *store.Session) string {
	var rs resumeState
	var ds docState
	if len(stored.Resume) == 0 || json.Unmarshal(stored.Resume, &rs) != nil || rs.Version != resumeVersion ||
		json.Unmarshal(rs.Reader, &ds) != nil || len(ds.Doc.Keys) != stored.Entries {
		return ""
	}
	return ds.Marker
}

// parseOpenCode reads an OpenCode session document (opencode.ParseDocument):
// every entry an item keyed by opencode.Key, the messages OpenCode is still
// writing at its end held back (Doc.Pending), the title, models and fork
// point; Header.Raw is left out (the session row is in the document kept
// whole). The fingerprint is the document's SHA-256: the export holds every
// byte the reading depends on (the tool outputs beside the database too).
func parseOpenCode(doc []byte, name, _ string, _ *besideCache, _ func(string) (sessiondoc.State, bool)) (*sessiondoc.Doc, sessiondoc.State, error) {
	d, err := readOpenCode(doc, name)
	return d, sessiondoc.State{}, err
}

// readOpenCode reads a session exported from an OpenCode database whole.
func readOpenCode(doc []byte, name string) (*sessiondoc.Doc, error) {
	if len(doc) > sessiondoc.MaxBytes {
		return nil, fmt.Errorf("a JSON document of %d MB: the largest Rhizome reads whole is %d MB", len(doc)>>20, sessiondoc.MaxBytes>>20)
	}
	p, err := opencode.ParseDocument(doc, name)
	switch {
	case errors.Is(err, opencode.ErrIncomplete):
		out := &sessiondoc.Doc{}
		if p != nil && p.Header != nil {
			out.Header = *p.Header
			out.Header.Raw = nil
		}
		return out, fmt.Errorf("%w: %w", sessiondoc.ErrIncomplete, err)
	case err != nil:
		return nil, err
	}
	out := &sessiondoc.Doc{Header: *p.Header, Problems: p.Problems, Title: p.Meta.Title, Models: p.Meta.Models,
		Fingerprint: sha256Hex(doc)}
	out.Header.Raw = nil
	if p.Fork != nil {
		out.ForkPoint = p.Fork.Point
	}
	cut := pendingTail(p)
	out.Items = make([]sessiondoc.Item, 0, cut)
	for i := range p.Entries[:cut] {
		e := &p.Entries[i]
		out.Items = append(out.Items, sessiondoc.Item{Key: opencode.Key(e, i), Entry: e})
	}
	if cut < len(p.Entries) {
		e := &p.Entries[cut]
		out.Pending = &session.Problem{File: name, Line: e.Line, Offset: e.Offset,
			Reason: fmt.Sprintf("message %s is still being written by OpenCode: it is read once it is finished", e.ID)}
	}
	return out, nil
}

// pendingTail returns where the messages OpenCode is still writing at the
// end of the session begin (the index of the first of their entries; the
// todo list after them waits with them): len(p.Entries) when none. A
// message's entries are its own and its tool results', whose rows lie
// inside its row in the document. A message still written before a
// finished one (OpenCode stopped while writing it) is read as it is.
func pendingTail(p *opencode.Parsed) int {
	if len(p.Pending) == 0 {
		return len(p.Entries)
	}
	pending := make(map[string]bool, len(p.Pending))
	for _, id := range p.Pending {
		pending[id] = true
	}
	type group struct {
		start int
		id    string
	}
	var groups []group
	var head *session.Entry
	for i := range p.Entries {
		e := &p.Entries[i]
		if head != nil && e.Offset >= head.Offset && e.Offset < head.Offset+int64(len(head.Raw)) {
			continue // a tool result inside its message
		}
		head = e
		groups = append(groups, group{i, e.ID})
	}
	cut := len(p.Entries)
	for k := len(groups) - 1; k >= 0; k-- {
		g := groups[k]
		if p.Entries[g.start].Type == opencode.TypeTodos {
			continue
		}
		if !pending[g.id] {
			break
		}
		cut = g.start
	}
	return cut
}
