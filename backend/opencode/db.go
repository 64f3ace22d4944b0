package opencode

// Reading OpenCode's own database: opened read-only, never locking it
// against the OpenCode process that writes it.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeout is how long, in milliseconds, a read waits for a lock the
// writer holds before it fails with SQLITE_BUSY. In WAL mode (what OpenCode
// uses) a reader waits only while the log's index is being rebuilt; in
// rollback-journal mode while a write commits.
const BusyTimeout = 2000

// ErrNotFound matches (errors.Is) the error Export returns for a session id
// the database does not hold.
var ErrNotFound = errors.New("opencode: no such session")

// DB is an OpenCode database (opencode.db) opened read-only. Safe for
// concurrent use.
type DB struct {
	db   *sql.DB // read-only connections that lock as SQLite readers do
	imm  *sql.DB // immutable connections: no lock, no -wal or -shm (see read)
	path string
	dir  string // the data folder: tool-output/ is beside the database
}

// OpenDB opens the OpenCode database at path ($XDG_DATA_HOME/opencode/
// opencode.db, or $OPENCODE_DB) for reading: SQLite opens the file
// read-only (mode=ro) and every connection runs with query_only, so no
// statement can change it and no checkpoint is run; busy_timeout
// (BusyTimeout) lets a read wait for a commit instead of failing. No
// connection stays open between calls. Reads hold no lock between calls,
// and in WAL mode a reader never blocks the writer.
//
// Each read leaves OpenCode's folder as it found it. A reader of a WAL
// database (OpenCode's mode) needs the log (opencode.db-wal) and its index
// (opencode.db-shm): while OpenCode runs they exist and the read uses
// them, taking SQLite's reader locks, for it must see what OpenCode
// committed to the log. Once OpenCode has quit, its last connection has
// moved the log into the file and removed both; a read-only reader would
// create them again and, unable to checkpoint, leave them behind (an
// empty log and a 32 KiB index). So a read of a WAL database that has
// neither file is made immutable (immutable=1: the file alone, no lock,
// nothing created), and kept only if the file is still as it was
// afterwards; else it is made again with locks (see read). It is never
// opened immutable while the log exists: it would miss the log.
//
// The file must exist: the error wraps fs.ErrNotExist otherwise (SQLite
// would not create it read-only, but the message says it plainly). Other
// errors name the path. The database is checked to be OpenCode's (a
// session table) at the first query, not here.
func OpenDB(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("opencode: unable to open the database: empty path")
	}
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("opencode: unable to open the database %s: %w", path, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("opencode: unable to open the database %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("opencode: unable to open the database %s: it is a folder", path)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(BusyTimeout)+")")
	db, err := sql.Open("sqlite", "file:"+pathForDSN(path)+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opencode: unable to open the database %s: %w", path, err)
	}
	q.Set("immutable", "1")
	imm, err := sql.Open("sqlite", "file:"+pathForDSN(path)+"?"+q.Encode())
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opencode: unable to open the database %s: %w", path, err)
	}
	// No connection is kept between calls: an idle connection to a WAL
	// database keeps its log index mapped, so OpenCode could not be the
	// last to close it (and checkpoint and remove the log) or leave WAL
	// mode. Opening one costs well under a millisecond.
	for _, p := range []*sql.DB{db, imm} {
		p.SetMaxOpenConns(2)
		p.SetMaxIdleConns(0)
	}
	return &DB{db: db, imm: imm, path: path, dir: filepath.Dir(path)}, nil
}

// read runs fn in one read transaction (one consistent snapshot) and ends
// it. fn's errors are returned as they are; those of beginning or ending
// the transaction name the database and what. fn may run twice, and must
// set its results anew each time.
//
// A WAL database no program has open (unshared) is read immutable,
// creating no -wal or -shm file. If the file was written, or a log
// appeared, while it was read (OpenCode started meanwhile), that reading
// may have met half-written pages: it is dropped and made again, without
// locks if the database is at rest again, else with the locking
// connection, as every other read is. See OpenDB.
func (d *DB) read(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	attempt := func(pool *sql.DB) error {
		tx, err := pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return d.errorf(what, err)
		}
		defer tx.Rollback()
		if err := fn(tx); err != nil {
			return err
		}
		if err := tx.Rollback(); err != nil {
			return d.errorf(what, err)
		}
		return nil
	}
	for range immutableTries {
		before, ok := d.unshared()
		if !ok {
			break
		}
		err := attempt(d.imm)
		if after, ok := d.unshared(); ok && sameFile(before, after) {
			return err
		}
	}
	return attempt(d.db)
}

// immutableTries is how many times read reads a database at rest without
// locks before it reads it with them: a reading is made again when the
// file changed under it (OpenCode started, wrote and quit meanwhile).
const immutableTries = 3

// unshared returns the database file's state when no program has the
// database open in WAL mode: the file's header says WAL (bytes 18 and 19,
// its write and read versions, are 2) and neither <path>-wal nor
// <path>-shm exists. Every connection to a WAL database has both from its
// first read on (a writer writes to the log first, and only a checkpoint,
// from the log, writes the file), and the last to close moves the log
// into the file and removes them: without them, the file holds the whole
// database and nobody is writing it. ok is false for a database in
// rollback-journal mode (a locking read creates nothing beside it), for
// one whose log or index is there (OpenCode runs, or was killed), and when
// the file cannot be read.
func (d *DB) unshared() (os.FileInfo, bool) {
	f, err := os.Open(d.path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var v [2]byte
	if _, err := f.ReadAt(v[:], 18); err != nil || v != [2]byte{2, 2} {
		return nil, false
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(d.path + ext); !errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	return st, true
}

// sameFile reports whether a and b are the same file with the same size
// and modification time: not replaced or written between the two.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// pathForDSN escapes the characters a file: URI gives a meaning to.
func pathForDSN(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// Path is the database file.
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error {
	if err := errors.Join(d.db.Close(), d.imm.Close()); err != nil {
		return fmt.Errorf("opencode: unable to close the database %s: %w", d.path, err)
	}
	return nil
}

// SessionInfo is one row of OpenCode's session table, as much as a list
// of sessions needs. Times are Unix milliseconds, as OpenCode stores them.
type SessionInfo struct {
	ID string `json:"id"`
	// ParentID is the session that spawned this one with its task tool (a
	// sub-agent); "" for a top-level session. A fork has none: OpenCode
	// leaves no link (Export finds it: Document.ForkOf).
	ParentID  string `json:"parentId,omitempty"`
	ProjectID string `json:"projectId,omitempty"`
	Title     string `json:"title,omitempty"` // as stored: "New session - <ISO time>" until OpenCode names it
	// Directory is the working directory the session ran in; the
	// project's worktree when the column is missing (older schemas) or
	// empty.
	Directory string `json:"directory,omitempty"`
	Worktree  string `json:"worktree,omitempty"` // the project's root (git worktree; "/" for the global project)
	Agent     string `json:"agent,omitempty"`    // "build", a sub-agent's name
	Version   string `json:"version,omitempty"`  // the OpenCode version that created it
	Created   int64  `json:"created"`            // time_created, Unix ms
	Updated   int64  `json:"updated"`            // time_updated, Unix ms
	Archived  int64  `json:"archived,omitempty"` // time_archived, Unix ms; 0 when not archived
	// Change tells a watcher whether the session changed since it last
	// looked, without reading its messages.
	Change Change `json:"change"`
}

// Change is what changes when OpenCode writes to a session: compare two
// Changes of a session (==, or their String) to tell whether it changed.
//
// OpenCode 1.x appends every change of a session (session, message and
// part updates, the streaming of a part included) to its event log, and
// keeps the last sequence number per session in event_sequence: Seq is
// that number, read in one small table. Updated is the session row's
// time_updated. Databases without the event log (older schemas) get the
// last message and part times and the message count instead, from one
// scan of the message and part tables (Seq is then -1).
type Change struct {
	Updated     int64 `json:"updated"`               // session.time_updated, Unix ms
	Seq         int64 `json:"seq"`                   // event_sequence.seq; -1 when the database has no event log
	Messages    int64 `json:"messages,omitempty"`    // without an event log: the session's message rows
	LastMessage int64 `json:"lastMessage,omitempty"` // without an event log: the latest message time_updated, Unix ms
	LastPart    int64 `json:"lastPart,omitempty"`    // without an event log: the latest part time_updated, Unix ms
}

// String is the change marker as one string: "u<updated>.s<seq>", and
// ".m<messages>.l<last message>.p<last part>" without an event log.
func (c Change) String() string {
	s := "u" + strconv.FormatInt(c.Updated, 10) + ".s" + strconv.FormatInt(c.Seq, 10)
	if c.Seq < 0 {
		s += ".m" + strconv.FormatInt(c.Messages, 10) + ".l" + strconv.FormatInt(c.LastMessage, 10) + ".p" + strconv.FormatInt(c.LastPart, 10)
	}
	return s
}

// tables returns which of OpenCode's tables the database has.
func tables(ctx context.Context, q querier) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// querier is what reads run on: the database, or one read transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Sessions lists every session of the database, sub-agents and forks
// included, oldest first (time_created, then id). It reads the session
// table whole, the project table and event_sequence (see Change), in one
// read transaction. Errors name the database; a database without a
// session table is not OpenCode's.
func (d *DB) Sessions(ctx context.Context) ([]SessionInfo, error) {
	var out []SessionInfo
	err := d.read(ctx, "unable to list sessions", func(tx *sql.Tx) error {
		have, err := d.sessionTables(ctx, tx)
		if err != nil {
			return err
		}
		worktrees := map[string]string{}
		if have["project"] {
			rows, err := readRows(ctx, tx, `SELECT * FROM project`)
			if err != nil {
				return d.errorf("unable to read the projects", err)
			}
			for _, r := range rows {
				worktrees[r.text("id")] = r.text("worktree")
			}
		}
		rows, err := readRows(ctx, tx, `SELECT * FROM session ORDER BY time_created, id`)
		if err != nil {
			return d.errorf("unable to list sessions", err)
		}
		seqs, aggs, err := changes(ctx, tx, have)
		if err != nil {
			return d.errorf("unable to read what changed", err)
		}
		out = make([]SessionInfo, 0, len(rows))
		for _, r := range rows {
			s := SessionInfo{ID: r.text("id"), ParentID: r.text("parent_id"), ProjectID: r.text("project_id"),
				Title: r.text("title"), Directory: r.text("directory"), Agent: r.text("agent"), Version: r.text("version"),
				Created: r.integer("time_created"), Updated: r.integer("time_updated"), Archived: r.integer("time_archived")}
			s.Worktree = worktrees[s.ProjectID]
			if s.Directory == "" {
				s.Directory = s.Worktree
			}
			s.Change = Change{Updated: s.Updated, Seq: -1}
			if seqs != nil {
				s.Change.Seq = seqs[s.ID]
			} else if a, ok := aggs[s.ID]; ok {
				s.Change.Messages, s.Change.LastMessage, s.Change.LastPart = a.Messages, a.LastMessage, a.LastPart
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sessionTables returns the database's tables (tables), or an error when
// it has no session table: it is not OpenCode's.
func (d *DB) sessionTables(ctx context.Context, tx *sql.Tx) (map[string]bool, error) {
	have, err := tables(ctx, tx)
	if err != nil {
		return nil, d.errorf("unable to list sessions", err)
	}
	if !have["session"] {
		return nil, fmt.Errorf("opencode: %s has no session table: not an OpenCode database", d.path)
	}
	return have, nil
}

// SessionIDs lists the ids of the database's sessions, sub-agents and
// forks included, in id order: one read of the session table's ids,
// what tells which sessions the database still holds without reading
// their rows (Sessions reads them whole). Errors as Sessions'.
func (d *DB) SessionIDs(ctx context.Context) ([]string, error) {
	var ids []string
	err := d.read(ctx, "unable to list sessions", func(tx *sql.Tx) error {
		if _, err := d.sessionTables(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM session ORDER BY id`)
		if err != nil {
			return d.errorf("unable to list sessions", err)
		}
		defer rows.Close()
		ids = ids[:0]
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return d.errorf("unable to list sessions", err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return d.errorf("unable to list sessions", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// changes reads event_sequence (seqs, nil when the table is missing), or
// without it the message and part aggregates per session.
func changes(ctx context.Context, q querier, have map[string]bool) (map[string]int64, map[string]Change, error) {
	if have["event_sequence"] {
		rows, err := q.QueryContext(ctx, `SELECT aggregate_id, seq FROM event_sequence`)
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		seqs := map[string]int64{}
		for rows.Next() {
			var id string
			var seq int64
			if err := rows.Scan(&id, &seq); err != nil {
				return nil, nil, err
			}
			seqs[id] = seq
		}
		return seqs, nil, rows.Err()
	}
	aggs := map[string]Change{}
	for _, agg := range []struct {
		table, query string
	}{
		{"message", `SELECT session_id, count(*), max(time_updated) FROM message GROUP BY session_id`},
		{"part", `SELECT session_id, 0, max(time_updated) FROM part GROUP BY session_id`},
	} {
		if !have[agg.table] {
			continue
		}
		rows, err := q.QueryContext(ctx, agg.query)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var id string
			var n int64
			var last sql.NullInt64
			if err := rows.Scan(&id, &n, &last); err != nil {
				rows.Close()
				return nil, nil, err
			}
			c := aggs[id]
			if agg.table == "message" {
				c.Messages, c.LastMessage = n, last.Int64
			} else {
				c.LastPart = last.Int64
			}
			aggs[id] = c
		}
		if err := rows.Close(); err != nil {
			return nil, nil, err
		}
	}
	return nil, aggs, nil
}

func (d *DB) errorf(what string, err error) error {
	return fmt.Errorf("opencode: %s: %s: %w", d.path, what, err)
}

// row is one row read with SELECT *: its columns in table order and their
// values as the driver gives them (int64, float64, string, []byte, nil).
type row struct {
	cols []string
	vals []any
}

// readRows runs query and returns its rows whole.
func readRows(ctx context.Context, q querier, query string, args ...any) ([]row, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row{cols: cols, vals: vals})
	}
	return out, rows.Err()
}

// value is the column name's value, nil when the row has no such column.
func (r row) value(name string) any {
	for i, c := range r.cols {
		if c == name {
			return r.vals[i]
		}
	}
	return nil
}

// text is a column's value as a string ("" for NULL, a missing column or
// another type).
func (r row) text(name string) string {
	switch v := r.value(name).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// integer is a column's value as an integer (0 for NULL, a missing column
// or another type).
func (r row) integer(name string) int64 {
	switch v := r.value(name).(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// SQLiteHeader is the 16 bytes every SQLite database file starts with.
const SQLiteHeader = "SQLite format 3\x00"

// requiredTables are the tables that make a SQLite database OpenCode's:
// its sessions, their messages and the messages' parts.
var requiredTables = []string{"session", "message", "part"}

// Check tells whether the database is OpenCode's by its content: the
// tables session, message and part. The error names the database and says
// what it is instead (a SQLite database without those tables, listing the
// ones it has; a file SQLite cannot read: not a database, a truncated or
// damaged one; one locked past BusyTimeout).
func (d *DB) Check(ctx context.Context) error {
	var have map[string]bool
	err := d.read(ctx, "unable to read the list of tables", func(tx *sql.Tx) error {
		var err error
		if have, err = tables(ctx, tx); err != nil {
			return d.errorf("unable to read the list of tables", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var missing []string
	for _, t := range requiredTables {
		if !have[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(have))
	for t := range have {
		names = append(names, t)
	}
	slices.Sort(names)
	if len(names) > 8 {
		names = append(names[:8], "…")
	}
	holds := "no tables"
	if len(names) > 0 {
		holds = "the tables " + strings.Join(names, ", ")
	}
	return fmt.Errorf("opencode: %s is not an OpenCode database: a SQLite database without the table(s) %s (it has %s)",
		d.path, strings.Join(missing, ", "), holds)
}
