package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Session is one imported session file: what its header says and what the
// import stored (byte counts and SHA-256 hashes let the next import tell an
// unchanged, appended or rewritten file apart).
type Session struct {
	PK             int64  // key of the row; 0 before PutSession
	ID             string // session id from the header
	Path           string // file path as imported
	FileName       string // base name of Path
	Cwd            string // the project
	Version        int    // format version
	Timestamp      string // header timestamp, ISO 8601
	Header         json.RawMessage
	ParentSession  string // header parentSession (a path where it was recorded)
	ParentFileName string // base name of ParentSession
	ParentUUID     string // session id in ParentFileName (<time>_<uuid>.jsonl)
	Name           string // from the last session_info entry
	IsNewProject   bool   // no other session of Cwd was stored when first imported
	ImportedBytes  int64  // bytes of the file imported (complete lines)
	ImportedSHA256 string // hex SHA-256 of those bytes
	FileBytes      int64  // size of the file when imported
	FileSHA256     string // hex SHA-256 of the whole file
	Lines          int    // complete lines read, header included
	Entries        int    // entries stored
	EntriesByType  map[string]int
	PendingTail    bool // a half-written last line was left out
	Malformed      int  // malformed lines in the file, all of them (import_problems keeps a sample)
	ImportedAt     string
	UpdatedAt      string

	// Format is the file's format: "pi", "claude-code" or "codex".
	Format string
	// Resume is what an import needs to go on from ImportedBytes when the
	// file grows (JSON, the app's; nil: read the file again from its
	// start).
	Resume json.RawMessage
	// ImportedProbe is a hash of samples of the imported prefix (the app's
	// fileProbe): a grown file whose prefix gives the same is appended to.
	ImportedProbe string
	// AgentID is the sub-agent whose conversation the file records (Claude
	// Code agentId, Codex sub-agent thread); ParentSession then names the
	// session that spawned it.
	AgentID string
	// SourceDeletedAt is when the file was found gone (ISO 8601), "" while
	// it is there: the library keeps the session either way.
	SourceDeletedAt string
	// Meta is what the format's metadata lines say (JSON object, the app's).
	Meta json.RawMessage

	// Filled by Sessions and SessionByID from the session's nodes.
	Segments int
	Cost     float64 // USD
	Tokens   int64
}

// sessionOwnColumns are a session's own columns; sessionColumns adds the
// totals of its segments and nodes, sessionImportColumns zeros for them.
const sessionOwnColumns = `s.pk, s.id, s.path, s.file_name, s.cwd, s.version, s.timestamp, s.header,
	s.parent_session, s.parent_file_name, s.parent_uuid, s.name, s.is_new_project,
	s.imported_bytes, s.imported_sha256, s.file_bytes, s.file_sha256, s.lines, s.entries,
	s.entries_by_type, s.pending_tail, s.malformed, s.imported_at, s.updated_at,
	s.format, s.resume, s.imported_probe, s.agent_id, s.source_deleted_at, s.meta`

const sessionImportColumns = sessionOwnColumns + `, 0, 0, 0`

const sessionColumns = sessionOwnColumns + `,
	(SELECT count(*) FROM segments g WHERE g.session_pk = s.pk),
	(SELECT coalesce(sum(n.cost), 0) FROM nodes n WHERE n.session_pk = s.pk),
	(SELECT coalesce(sum(n.tokens), 0) FROM nodes n WHERE n.session_pk = s.pk)`

type scanner interface{ Scan(dest ...any) error }

func scanSession(r scanner) (*Session, error) {
	var s Session
	var header, byType, resume, meta string
	var isNew, pending int
	err := r.Scan(&s.PK, &s.ID, &s.Path, &s.FileName, &s.Cwd, &s.Version, &s.Timestamp, &header,
		&s.ParentSession, &s.ParentFileName, &s.ParentUUID, &s.Name, &isNew,
		&s.ImportedBytes, &s.ImportedSHA256, &s.FileBytes, &s.FileSHA256, &s.Lines, &s.Entries,
		&byType, &pending, &s.Malformed, &s.ImportedAt, &s.UpdatedAt,
		&s.Format, &resume, &s.ImportedProbe, &s.AgentID, &s.SourceDeletedAt, &meta,
		&s.Segments, &s.Cost, &s.Tokens)
	if err != nil {
		return nil, err
	}
	s.Header = json.RawMessage(header)
	if resume != "" {
		s.Resume = json.RawMessage(resume)
	}
	s.Meta = json.RawMessage(meta)
	s.IsNewProject, s.PendingTail = isNew != 0, pending != 0
	s.EntriesByType = map[string]int{}
	if err := json.Unmarshal([]byte(byType), &s.EntriesByType); err != nil {
		return nil, fmt.Errorf("session %s: entries_by_type: %w", s.ID, err)
	}
	return &s, nil
}

func sessionBy(ctx context.Context, q queryer, where string, args ...any) (*Session, error) {
	s, err := scanSession(q.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find session %v: %w", args[0], ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch session %v: %w", args[0], err)
	}
	return s, nil
}

// SessionByID returns the session with the given header id; the error wraps
// ErrNotFound when there is none.
func (s *Store) SessionByID(ctx context.Context, id string) (*Session, error) {
	return sessionBy(ctx, cachedDB{s}, `s.id = ?`, id)
}

// SessionByID is Store.SessionByID inside the transaction.
func (t *Tx) SessionByID(id string) (*Session, error) {
	return sessionBy(t.ctx, txQueryer{t}, `s.id = ?`, id)
}

// importSessionQuery is ImportedSession's query: the session's own columns
// only (TestImportLookupReadsOneSession).
const importSessionQuery = `SELECT ` + sessionImportColumns + ` FROM sessions s WHERE s.id = ?`

// ImportedSession is SessionByID without Segments, Cost and Tokens (zero):
// what an import needs to decide and resume, read without going through
// the session's segments and nodes (a long session has thousands).
func (s *Store) ImportedSession(ctx context.Context, id string) (*Session, error) {
	return sessionRow(cachedDB{s}.QueryRowContext(ctx, importSessionQuery, id), id)
}

// ImportedSession is Store.ImportedSession inside the transaction.
func (t *Tx) ImportedSession(id string) (*Session, error) {
	return sessionRow(t.queryRow(importSessionQuery, id), id)
}

func sessionRow(r *sql.Row, id string) (*Session, error) {
	s, err := scanSession(r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find session %v: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch session %v: %w", id, err)
	}
	return s, nil
}

// Sessions lists the sessions of a project (cwd), all when project is "",
// newest first (by header timestamp).
func (s *Store) Sessions(ctx context.Context, project string) ([]Session, error) {
	query := `SELECT ` + sessionColumns + ` FROM sessions s`
	var args []any
	if project != "" {
		query += ` WHERE s.cwd = ?`
		args = append(args, project)
	}
	query += ` ORDER BY s.timestamp DESC, s.pk DESC`
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a session: %w", err)
		}
		out = append(out, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list sessions: %w", err)
	}
	return out, nil
}

// PutSession inserts the session, or updates the stored one with the same id
// (keeping its key and first import time), and sets sess.PK.
func (t *Tx) PutSession(sess *Session) error {
	now := isoTime(time.Now())
	byType := sess.EntriesByType
	if byType == nil {
		byType = map[string]int{}
	}
	bt, err := json.Marshal(byType)
	if err != nil {
		return fmt.Errorf("store: unable to save session %s: %w", sess.ID, err)
	}
	header := string(sess.Header)
	if header == "" {
		header = "{}"
	}
	format := sess.Format
	if format == "" {
		format = "pi"
	}
	meta := string(sess.Meta)
	if meta == "" {
		meta = "{}"
	}
	err = t.queryRow(`INSERT INTO sessions (id, path, file_name, cwd, version, timestamp, header,
		parent_session, parent_file_name, parent_uuid, name, is_new_project, imported_bytes, imported_sha256,
		file_bytes, file_sha256, lines, entries, entries_by_type, pending_tail, malformed, imported_at, updated_at,
		format, resume, imported_probe, agent_id, source_deleted_at, meta)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET path = excluded.path, file_name = excluded.file_name, cwd = excluded.cwd,
		format = excluded.format, resume = excluded.resume, imported_probe = excluded.imported_probe,
		agent_id = excluded.agent_id, source_deleted_at = excluded.source_deleted_at, meta = excluded.meta,
		version = excluded.version, timestamp = excluded.timestamp, header = excluded.header,
		parent_session = excluded.parent_session, parent_file_name = excluded.parent_file_name,
		parent_uuid = excluded.parent_uuid, name = excluded.name, is_new_project = excluded.is_new_project,
		imported_bytes = excluded.imported_bytes, imported_sha256 = excluded.imported_sha256,
		file_bytes = excluded.file_bytes, file_sha256 = excluded.file_sha256, lines = excluded.lines,
		entries = excluded.entries, entries_by_type = excluded.entries_by_type,
		pending_tail = excluded.pending_tail, malformed = excluded.malformed, updated_at = excluded.updated_at
	RETURNING pk, imported_at, updated_at`,
		sess.ID, sess.Path, sess.FileName, sess.Cwd, sess.Version, sess.Timestamp, header,
		sess.ParentSession, sess.ParentFileName, sess.ParentUUID, sess.Name, boolInt(sess.IsNewProject),
		sess.ImportedBytes, sess.ImportedSHA256, sess.FileBytes, sess.FileSHA256, sess.Lines, sess.Entries,
		string(bt), boolInt(sess.PendingTail), sess.Malformed, now, now,
		format, string(sess.Resume), sess.ImportedProbe, sess.AgentID, sess.SourceDeletedAt, meta).Scan(&sess.PK, &sess.ImportedAt, &sess.UpdatedAt)
	if err != nil {
		return fmt.Errorf("store: unable to save session %s: %w", sess.ID, err)
	}
	return nil
}

// clearSessionEdgesQuery deletes the boundary edges out of and into the
// nodes of session ?1, reaching them from its nodes (edges_source,
// edges_target; CROSS JOIN keeps that order on a library without
// statistics), never reading every boundary edge of the library.
const clearSessionEdgesQuery = `DELETE FROM edges WHERE id IN (
		SELECT e.id FROM nodes n CROSS JOIN edges e ON e.source_id = n.id
		WHERE n.session_pk = ?1 AND e.created_by = 'boundary'
		UNION ALL
		SELECT e.id FROM nodes n CROSS JOIN edges e ON e.target_id = n.id
		WHERE n.session_pk = ?1 AND e.created_by = 'boundary')`

// ClearSession deletes what an import of the session wrote (entries, import
// problems, gaps, segments and the structural edges of its nodes) so that it can
// be imported again from scratch. The session row and its nodes (with their
// versions) stay, detached from their segments: PutNode re-attaches and bumps
// the version of those made again, DeleteDetachedNodes removes the others.
func (t *Tx) ClearSession(pk int64) error {
	if err := t.flush(); err != nil {
		return err
	}
	for _, q := range []string{
		`DELETE FROM entries WHERE session_pk = ?`,
		`DELETE FROM import_problems WHERE session_pk = ?`,
		`DELETE FROM session_gaps WHERE session_pk = ?`,
		`DELETE FROM session_documents WHERE session_pk = ?`,
		`DELETE FROM segments WHERE session_pk = ?`,
		clearSessionEdgesQuery,
		`UPDATE nodes SET segment_idx = -1 - segment_idx WHERE session_pk = ? AND segment_idx >= 0`,
	} {
		if _, err := t.exec(q, pk); err != nil {
			return fmt.Errorf("store: unable to clear session %d: %w", pk, err)
		}
	}
	return nil
}

// HasProjectSession reports whether a session other than sessionID ran in
// the working directory cwd.
func (t *Tx) HasProjectSession(cwd, sessionID string) (bool, error) {
	var found bool
	err := t.queryRow(`SELECT EXISTS (SELECT 1 FROM sessions WHERE cwd = ? AND id <> ?)`, cwd, sessionID).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("store: unable to look up project %s: %w", cwd, err)
	}
	return found, nil
}

// ForkParent finds the stored parent of a forked session: the session whose
// path is child.ParentSession, else whose file name is child.ParentFileName,
// else whose id is child.ParentUUID. The error wraps ErrNotFound when none
// is stored (yet).
func (t *Tx) ForkParent(child *Session) (*Session, error) {
	if child.ParentSession == "" {
		return nil, fmt.Errorf("store: session %s has no parent: %w", child.ID, ErrNotFound)
	}
	for _, by := range []struct {
		column string
		value  string
	}{
		{"path", child.ParentSession},
		{"file_name", child.ParentFileName},
		{"id", child.ParentUUID},
	} {
		if by.value == "" {
			continue
		}
		p, err := sessionBy(t.ctx, txQueryer{t}, `s.`+by.column+` = ? AND s.pk <> ? ORDER BY s.pk LIMIT 1`, by.value, child.PK)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("store: unable to find the parent %s of session %s: %w", child.ParentSession, child.ID, ErrNotFound)
}

// forkChildrenQuery is ForkChildren's query. Each non-empty condition lets SQLite use
// the column's partial index (TestPerFileLookupsUseTheirIndexes).
var forkChildrenQuery = `SELECT ` + sessionColumns + ` FROM sessions s
		WHERE s.pk <> ?1 AND ((s.parent_session = ?2 AND s.parent_session <> '') OR (s.parent_file_name = ?3 AND s.parent_file_name <> '')
			OR (s.parent_uuid = ?4 AND s.parent_uuid <> ''))
		ORDER BY s.pk`

// ForkChildren lists the stored sessions whose header names parent as their
// parentSession by path, file name or session id (candidates: ForkParent
// decides which parent each one really resolves to).
func (t *Tx) ForkChildren(parent *Session) ([]Session, error) {
	return t.sessionList("the forks of session "+parent.ID, forkChildrenQuery, parent.PK, parent.Path, parent.FileName, parent.ID)
}

// sessionList runs q, a query of sessions' columns, in the transaction and
// reads its rows; what names them in errors.
func (t *Tx) sessionList(what, q string, args ...any) ([]Session, error) {
	rows, err := t.query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list %s: %w", what, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read %s: %w", what, err)
		}
		out = append(out, *s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list %s: %w", what, err)
	}
	return out, nil
}

// MoveSession records that the session's file (the same bytes) is now at
// path, and there: its source is no longer deleted.
func (t *Tx) MoveSession(pk int64, path, fileName string) error {
	if _, err := t.exec(`UPDATE sessions SET path = ?, file_name = ?, source_deleted_at = '' WHERE pk = ?`,
		path, fileName, pk); err != nil {
		return fmt.Errorf("store: unable to move session %d to %s: %w", pk, path, err)
	}
	return nil
}

// FileStamp is what the library holds of a session's file to tell it
// unchanged without opening it: its size and modification time when it was
// last read or checked.
type FileStamp struct {
	ID      string // the session's id
	Format  string
	Bytes   int64 // Session.FileBytes
	MtimeNs int64 // nanoseconds since 1970; never 0 here
	// Session is the session's row without its header, resume state and
	// metadata (Header, Resume, Meta nil), and without the totals of its
	// segments and nodes: what tells it has not changed since (an import
	// compares PK, FileSHA256, ImportedSHA256, Entries and UpdatedAt).
	Session *Session
}

// FileStamps returns, by path, the stamps of the sessions whose files are
// where they were (not marked deleted) and whose modification time is
// known. A path several sessions name (a copy imported apart) is left out:
// its file is read to tell which. Schema: migrations/0130_session_file_mtime.sql.
func (s *Store) FileStamps(ctx context.Context) (map[string]FileStamp, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, id, format, file_bytes, file_mtime_ns, pk, version, file_sha256,
		imported_sha256, entries, updated_at FROM sessions WHERE file_mtime_ns <> 0 AND source_deleted_at = ''`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the sessions' file stamps: %w", err)
	}
	defer rows.Close()
	out := map[string]FileStamp{}
	several := map[string]bool{}
	for rows.Next() {
		var p string
		var fs FileStamp
		ss := &Session{}
		if err := rows.Scan(&p, &fs.ID, &fs.Format, &fs.Bytes, &fs.MtimeNs, &ss.PK, &ss.Version, &ss.FileSHA256,
			&ss.ImportedSHA256, &ss.Entries, &ss.UpdatedAt); err != nil {
			return nil, fmt.Errorf("store: unable to list the sessions' file stamps: %w", err)
		}
		ss.ID, ss.Path, ss.Format, ss.FileBytes = fs.ID, p, fs.Format, fs.Bytes
		fs.Session = ss
		if _, ok := out[p]; ok {
			several[p] = true
		}
		out[p] = fs
	}
	for p := range several {
		delete(out, p)
	}
	return out, rows.Err()
}

// StampFile records the modification time of session pk's file as last
// read or checked (nanoseconds since 1970; 0 for unknown: the file is then
// opened next time). See FileStamps.
// MarkDerivePending marks session pk as made readable by an import that
// left its derivation to the summaries queue (migration 0140).
func (t *Tx) MarkDerivePending(pk int64, pending bool) error {
	v := 0
	if pending {
		v = 1
	}
	if _, err := t.exec(`UPDATE sessions SET derive_pending = ? WHERE pk = ? AND derive_pending <> ?`, v, pk, v); err != nil {
		return fmt.Errorf("store: unable to mark the derivation of session %d: %w", pk, err)
	}
	return nil
}

// MarkDerived clears the pending mark of session pk once its derivation
// ran over its first entries entries: an import that stored more since
// (and queued the derivation again) leaves it marked.
func (t *Tx) MarkDerived(pk int64, entries int) error {
	if _, err := t.exec(`UPDATE sessions SET derive_pending = 0 WHERE pk = ? AND derive_pending = 1 AND entries <= ?`, pk, entries); err != nil {
		return fmt.Errorf("store: unable to mark session %d derived: %w", pk, err)
	}
	return nil
}

// FirstPrompts returns the text of the first user message of each session
// pk given that has one (the title a session shows while its summary is
// still being derived), by pk.
func (s *Store) FirstPrompts(ctx context.Context, pks []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(pks))
	for _, pk := range pks {
		var text string
		err := s.db.QueryRowContext(ctx, `SELECT text FROM entries WHERE session_pk = ? AND role = 'user' AND text <> ''
			ORDER BY seq LIMIT 1`, pk).Scan(&text)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: unable to read the first prompt of session %d: %w", pk, err)
		}
		out[pk] = text
	}
	return out, nil
}

// DerivePendingIDs lists the header ids of the sessions still being
// analysed.
func (s *Store) DerivePendingIDs(ctx context.Context) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM sessions WHERE derive_pending = 1 ORDER BY pk`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the sessions still being analysed: %w", err)
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: unable to list the sessions still being analysed: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// DerivePendingOf counts the sessions among ids (header ids) still being
// analysed.
func (s *Store) DerivePendingOf(ctx context.Context, ids []string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE derive_pending = 1 AND id IN (SELECT value FROM json_each(?))`,
		jsonStrings(ids)).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: unable to count the sessions still being analysed: %w", err)
	}
	return n, nil
}

// DerivePending counts the sessions still being analysed: made readable,
// their summaries and knowledge not yet derived (MarkDerivePending).
func (s *Store) DerivePending(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE derive_pending = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: unable to count the sessions still being analysed: %w", err)
	}
	return n, nil
}

func (t *Tx) StampFile(pk, mtimeNs int64) error {
	if _, err := t.exec(`UPDATE sessions SET file_mtime_ns = ? WHERE pk = ? AND file_mtime_ns <> ?`, mtimeNs, pk, mtimeNs); err != nil {
		return fmt.Errorf("store: unable to stamp the file of session %d: %w", pk, err)
	}
	return nil
}
