package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The library as an archive: the bytes of a session file that are not an
// entry's object (session_gaps), so that entries and gaps give back the file
// byte for byte; going on from where an import stopped when the file grows;
// sessions whose file is gone. Schema: migrations/0030_formats_archive.sql.

// InsertGap records bytes of the session's file at offset that belong to no
// entry (see session_gaps). b is copied.
//
// It leaves the entries batched before it unwritten: the gaps are a table of
// their own, and writing a partial batch of entries at every gap wrote a
// Gemini CLI session (a gap between most of its entries: the JSON around
// the messages of a rewrite) an entry per statement.
func (t *Tx) InsertGap(sessionPK int64, offset int64, b []byte) error {
	if _, err := t.exec(`INSERT INTO session_gaps (session_pk, byte_offset, bytes) VALUES (?, ?, ?)
		ON CONFLICT (session_pk, byte_offset) DO UPDATE SET bytes = excluded.bytes`, sessionPK, offset, bytes.Clone(b)); err != nil {
		return fmt.Errorf("store: unable to record the bytes at offset %d of session %d: %w", offset, sessionPK, err)
	}
	return nil
}

// ResumeSession prepares the session sessionPK for an import that goes on
// from entry fromSeq at byte fromOffset (a line start) with segment
// openSegment still open: it deletes the entries from fromSeq on, the gaps
// and problems from fromOffset on, the segments after openSegment and the
// in-session structural edges of their nodes, and detaches those nodes
// (PutNode re-attaches the ones made again, DeleteDetachedNodes removes the
// rest). It returns the deleted entries counted by type and by
// "type:role" for messages, as the session's entries_by_type counts them.
func (t *Tx) ResumeSession(sessionPK int64, fromSeq int, fromOffset int64, openSegment int) (map[string]int, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	removed := map[string]int{}
	rows, err := t.query(`SELECT type, role, count(*) FROM entries WHERE session_pk = ? AND seq >= ? GROUP BY type, role`,
		sessionPK, fromSeq)
	if err != nil {
		return nil, fmt.Errorf("store: unable to count the entries of session %d from %d: %w", sessionPK, fromSeq, err)
	}
	for rows.Next() {
		var typ, role string
		var n int
		if err := rows.Scan(&typ, &role, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: unable to count the entries of session %d from %d: %w", sessionPK, fromSeq, err)
		}
		removed[typ] += n
		if role != "" {
			removed[typ+":"+role] += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to count the entries of session %d from %d: %w", sessionPK, fromSeq, err)
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM entries WHERE session_pk = ? AND seq >= ?`, []any{sessionPK, fromSeq}},
		{`DELETE FROM session_gaps WHERE session_pk = ? AND byte_offset >= ?`, []any{sessionPK, fromOffset}},
		{`DELETE FROM import_problems WHERE session_pk = ? AND byte_offset >= ?`, []any{sessionPK, fromOffset}},
		{`DELETE FROM segments WHERE session_pk = ? AND idx > ?`, []any{sessionPK, openSegment}},
		{`UPDATE nodes SET segment_idx = -1 - segment_idx WHERE session_pk = ? AND segment_idx > ?`, []any{sessionPK, openSegment}},
		{resumeEdgesQuery, []any{sessionPK}},
	} {
		if _, err := t.exec(q.sql, q.args...); err != nil {
			return nil, fmt.Errorf("store: unable to prepare session %d for an append: %w", sessionPK, err)
		}
	}
	return removed, nil
}

// resumeEdgesQuery deletes the boundary edges (not forks) between two nodes
// of the session ?1 of which one is to be remade (segment_idx < 0).
// It starts from the nodes remade (TestAppendEdgeDeleteReadsOnlyTheNodesRemade).
const resumeEdgesQuery = `DELETE FROM edges WHERE rowid IN (
			SELECT e.rowid FROM nodes n JOIN edges e ON e.source_id = n.id WHERE n.session_pk = ?1 AND n.segment_idx < 0
			UNION
			SELECT e.rowid FROM nodes n JOIN edges e ON e.target_id = n.id WHERE n.session_pk = ?1 AND n.segment_idx < 0)
		AND created_by = 'boundary' AND type <> 'fork'
		AND EXISTS (SELECT 1 FROM nodes m WHERE m.id = edges.source_id AND m.session_pk = ?1)
		AND EXISTS (SELECT 1 FROM nodes m WHERE m.id = edges.target_id AND m.session_pk = ?1)`

// EntrySegment returns the index of the segment holding the last entry with
// id entryID among the entries of session sessionPK before seq beforeSeq,
// as the library has them committed. ok is false when there is none.
func (s *Store) EntrySegment(ctx context.Context, sessionPK int64, entryID string, beforeSeq int) (idx int, ok bool, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT g.idx FROM segments g WHERE g.session_pk = ?1 AND g.start_seq <= (
			SELECT max(seq) FROM entries WHERE session_pk = ?1 AND entry_id = ?2 AND seq < ?3)
		ORDER BY g.start_seq DESC LIMIT 1`, sessionPK, entryID, beforeSeq).Scan(&idx)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: unable to find entry %s of session %d: %w", entryID, sessionPK, err)
	}
	return idx, true, nil
}

// EntryCopy is the original of an entry found in another file: its session
// and its seq and id there.
type EntryCopy struct {
	SessionPK int64
	SessionID string
	Seq       int
	EntryID   string
}

// DedupeOwners finds, for each key, the entry holding it that the library
// has committed, outside session sessionPK's entries from seq fromSeq on
// (what the import under way replaces): the one of the session with the
// earliest header timestamp, then the lowest key, then the first in the
// file. Keys with none are left out.
func (s *Store) DedupeOwners(ctx context.Context, keys []string, sessionPK int64, fromSeq int) (map[string]EntryCopy, error) {
	return dedupeOwners(ctx, cachedDB{s}, keys, sessionPK, fromSeq)
}

// DedupeOwners is Store.DedupeOwners in the transaction: it sees what the
// transaction wrote (the files before this one in an import's batch) as
// the library will hold it once committed.
func (t *Tx) DedupeOwners(keys []string, sessionPK int64, fromSeq int) (map[string]EntryCopy, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	return dedupeOwners(t.ctx, txQueryer{t}, keys, sessionPK, fromSeq)
}

// HasDedupeKeys reports whether the library, as committed, holds an entry
// whose dedupe key is one of keys (one index seek per key): when it holds
// none, an import's reader knows without asking its writer that a file's
// entries are no copies of stored ones.
func (s *Store) HasDedupeKeys(ctx context.Context, keys []string) (bool, error) {
	if len(keys) == 0 {
		return false, nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return false, fmt.Errorf("store: unable to look up copies: %w", err)
	}
	var n int
	if err := (cachedDB{s}).QueryRowContext(ctx, hasDedupeKeysQuery, string(list)).Scan(&n); err != nil {
		return false, fmt.Errorf("store: unable to look up copies: %w", err)
	}
	return n > 0, nil
}

const hasDedupeKeysQuery = `SELECT count(*) FROM (SELECT 1 FROM entries INDEXED BY entries_dedupe_key
	WHERE dedupe_key IN (SELECT value FROM json_each(?)) AND dedupe_key <> '' LIMIT 1)`

func dedupeOwners(ctx context.Context, q queryer, keys []string, sessionPK int64, fromSeq int) (map[string]EntryCopy, error) {
	out := map[string]EntryCopy{}
	if len(keys) == 0 {
		return out, nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("store: unable to look up copies: %w", err)
	}
	rows, err := q.QueryContext(ctx, `SELECT e.dedupe_key, e.session_pk, s.id, e.seq, e.entry_id
		FROM entries e INDEXED BY entries_dedupe_key JOIN sessions s ON s.pk = e.session_pk
		WHERE e.dedupe_key IN (SELECT value FROM json_each(?1)) AND e.dedupe_key <> ''
			AND NOT (e.session_pk = ?2 AND e.seq >= ?3)
		ORDER BY e.dedupe_key, s.timestamp, s.pk, e.seq`, string(list), sessionPK, fromSeq)
	if err != nil {
		return nil, fmt.Errorf("store: unable to look up copies: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var c EntryCopy
		if err := rows.Scan(&key, &c.SessionPK, &c.SessionID, &c.Seq, &c.EntryID); err != nil {
			return nil, fmt.Errorf("store: unable to read a copy: %w", err)
		}
		if _, ok := out[key]; !ok {
			out[key] = c
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to look up copies: %w", err)
	}
	return out, nil
}

// FlagRolledBack marks rolled back (meta.rolledBack) the entries of session
// sessionPK from seq fromSeq to before seq beforeSeq that belong to one of
// turns (a Codex thread_rolled_back or a Gemini CLI rollback supersedes
// them; they are kept). fromSeq is where the earliest of turns began when
// the caller knows it, else 0: the rows between are read through the
// session's seq index, never the whole session (a long Gemini CLI session
// with a rollback every few turns took quadratic time).
func (t *Tx) FlagRolledBack(sessionPK int64, turns []string, fromSeq, beforeSeq int) error {
	if len(turns) == 0 {
		return nil
	}
	if err := t.flush(); err != nil {
		return err
	}
	list, _ := json.Marshal(turns)
	_, err := t.exec(`UPDATE entries SET meta = json_set(CASE WHEN meta = '' THEN '{}' ELSE meta END, '$.rolledBack', json('true'))
		WHERE session_pk = ? AND seq >= ? AND seq < ? AND turn_id IN (SELECT value FROM json_each(?))`, sessionPK, fromSeq, beforeSeq, string(list))
	if err != nil {
		return fmt.Errorf("store: unable to flag the rolled-back turns of session %d: %w", sessionPK, err)
	}
	return nil
}

// FlagRevertedFrom marks rolled back (meta.rolledBack) the entries of the
// session with id sessionID from byte fromOffset of its file on: a Codex
// 0.169 thread/revert started a history window that keeps only the bytes
// before (claude-code-codex-formats.md §2.4, codex.Superseded); they are
// kept. A session the library does not hold is no error.
func (t *Tx) FlagRevertedFrom(sessionID string, fromOffset int64) error {
	if err := t.flush(); err != nil {
		return err
	}
	_, err := t.exec(`UPDATE entries SET meta = json_set(CASE WHEN meta = '' THEN '{}' ELSE meta END, '$.rolledBack', json('true'))
		WHERE session_pk = (SELECT pk FROM sessions WHERE id = ?) AND byte_offset >= ?`, sessionID, fromOffset)
	if err != nil {
		return fmt.Errorf("store: unable to flag the reverted entries of session %s: %w", sessionID, err)
	}
	return nil
}

// HistoryWindows lists the stored sessions whose parent is the session
// with id threadID and whose id is the thread's with a window's after it
// (<thread>_<window>: Codex 0.169 history windows of the thread).
func (t *Tx) HistoryWindows(threadID string) ([]Session, error) {
	return t.sessionList("the history windows of thread "+threadID, `SELECT `+sessionImportColumns+` FROM sessions s
		WHERE s.parent_session = ? AND s.parent_session <> '' AND s.format = 'codex' AND substr(s.id, 1, length(?) + 1) = ? || '_'
		ORDER BY s.pk`, threadID, threadID, threadID)
}

// subagentSpawnQuery is SubagentSpawn's: the parent session by id, then its
// first entry naming the agent, one seek of entries_subagent_id (agent,
// session, seq) whatever other sessions name the same agent
// (TestSubagentSpawnSeeksOneSession).
const subagentSpawnQuery = `SELECT s.pk, e.seq FROM sessions s CROSS JOIN entries e INDEXED BY entries_subagent_id
		ON e.session_pk = s.pk
		WHERE s.id = ?1 AND e.subagent_id = ?2 AND e.subagent_id <> '' ORDER BY e.seq LIMIT 1`

// SubagentSpawn finds the entry of the session with id sessionID (the
// parent) whose tool call spawned the sub-agent agentID: its session key
// and seq. The error wraps ErrNotFound when the library has none.
func (t *Tx) SubagentSpawn(sessionID, agentID string) (sessionPK int64, seq int, err error) {
	if err := t.flush(); err != nil {
		return 0, 0, err
	}
	err = t.queryRow(subagentSpawnQuery, sessionID, agentID).Scan(&sessionPK, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, fmt.Errorf("store: no entry of session %s spawned sub-agent %s: %w", sessionID, agentID, ErrNotFound)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("store: unable to find the spawn of sub-agent %s: %w", agentID, err)
	}
	return sessionPK, seq, nil
}

// SessionTurnIDs returns the turn ids (entries.turn_id: Codex turns) of the
// entries of the session with id sessionID, as the transaction holds them
// (the files before this one in an import's batch included); ok is false
// when the library has no such session. A legacy Codex fork or sub-agent
// file replays its parent's turns: its own begin at the first turn not
// among them (claude-code-codex-formats.md §2.4).
func (t *Tx) SessionTurnIDs(sessionID string) (turns map[string]bool, ok bool, err error) {
	if err := t.flush(); err != nil {
		return nil, false, err
	}
	var pk int64
	err = t.queryRow(`SELECT pk FROM sessions WHERE id = ?`, sessionID).Scan(&pk)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("store: unable to read the turns of session %s: %w", sessionID, err)
	}
	rows, err := t.query(`SELECT DISTINCT turn_id FROM entries WHERE session_pk = ? AND turn_id <> ''`, pk)
	if err != nil {
		return nil, false, fmt.Errorf("store: unable to read the turns of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	turns = map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, false, fmt.Errorf("store: unable to read the turns of session %s: %w", sessionID, err)
		}
		turns[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: unable to read the turns of session %s: %w", sessionID, err)
	}
	return turns, true, nil
}

// ToolCallEntry finds the entry of the session with id sessionID holding
// the tool call toolUseID (a Claude Code tool_use id; the first entry
// naming it, the call before its result): its session key and seq. The
// error wraps ErrNotFound when the library has none.
func (t *Tx) ToolCallEntry(sessionID, toolUseID string) (sessionPK int64, seq int, err error) {
	if err := t.flush(); err != nil {
		return 0, 0, err
	}
	err = t.queryRow(`SELECT s.pk, e.seq FROM sessions s CROSS JOIN entries e ON e.session_pk = s.pk
		WHERE s.id = ? AND e.role = 'assistant' AND instr(unpack_raw(e.raw), ?) > 0 ORDER BY e.seq LIMIT 1`,
		sessionID, `"id":"`+toolUseID+`"`).Scan(&sessionPK, &seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, fmt.Errorf("store: no entry of session %s holds tool call %s: %w", sessionID, toolUseID, ErrNotFound)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("store: unable to find tool call %s of session %s: %w", toolUseID, sessionID, err)
	}
	return sessionPK, seq, nil
}

// UnlinkedSubagents lists the stored sub-agent sessions of the session with
// id parentID that no subagent edge joins to it yet (none into their first
// node).
func (t *Tx) UnlinkedSubagents(parentID string) ([]Session, error) {
	return t.sessionList("the sub-agents of session "+parentID, `SELECT `+sessionImportColumns+` FROM sessions s
		WHERE s.parent_session = ? AND s.parent_session <> '' AND s.agent_id <> '' AND NOT EXISTS (
			SELECT 1 FROM nodes n JOIN edges e ON e.target_id = n.id WHERE n.session_pk = s.pk AND n.segment_idx = 0 AND e.type = 'subagent')
		ORDER BY s.pk`, parentID)
}

// subagentSessionsQuery is SubagentSessions' query; its non-empty condition lets SQLite use
// the partial index sessions_agent_id (TestPerFileLookupsUseTheirIndexes).
var subagentSessionsQuery = `SELECT ` + sessionColumns + ` FROM sessions s
		WHERE s.agent_id IN (SELECT value FROM json_each(?)) AND s.agent_id <> '' AND s.parent_session = ? ORDER BY s.pk`

// SubagentSessions lists the stored sessions that record one of the
// sub-agents agentIDs spawned by the session with id parentID.
func (t *Tx) SubagentSessions(parentID string, agentIDs []string) ([]Session, error) {
	if len(agentIDs) == 0 {
		return nil, nil
	}
	list, _ := json.Marshal(agentIDs)
	return t.sessionList("the sub-agents of session "+parentID, subagentSessionsQuery, string(list), parentID)
}

// ErrExportMismatch matches (errors.Is) the error of WriteSessionFile when
// the library does not hold every byte of the file as it was imported.
var ErrExportMismatch = errors.New("the library does not hold the file byte for byte")

// WriteSessionFile writes the file of the session with id sessionID back,
// byte for byte as it was when last imported, from its entries' objects and
// its gaps (see session_gaps), or for a session stored as a whole document
// from the document kept (session_documents), to w; it returns the bytes written. The
// bytes are checked against the size and SHA-256 recorded at import: the
// error wraps ErrExportMismatch when they differ (a session imported before
// the library kept gaps), ErrNotFound for an unknown session.
func (s *Store) WriteSessionFile(ctx context.Context, sessionID string, w io.Writer) (int64, error) {
	sess, err := s.SessionByID(ctx, sessionID)
	if err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, fmt.Errorf("store: unable to read session %s: %w", sessionID, err)
	}
	defer tx.Rollback()
	if n, ok, err := writeSessionDocument(ctx, tx, sess, w); ok {
		return n, err // a session stored as a whole document (documents.go)
	}
	ents, err := tx.QueryContext(ctx, `SELECT byte_offset, raw FROM entries WHERE session_pk = ? ORDER BY seq`, sess.PK)
	if err != nil {
		return 0, fmt.Errorf("store: unable to read the entries of session %s: %w", sessionID, err)
	}
	defer ents.Close()
	gaps, err := tx.QueryContext(ctx, `SELECT byte_offset, bytes FROM session_gaps WHERE session_pk = ? ORDER BY byte_offset`, sess.PK)
	if err != nil {
		return 0, fmt.Errorf("store: unable to read the gaps of session %s: %w", sessionID, err)
	}
	defer gaps.Close()

	type piece struct {
		off  int64
		b    []byte
		more bool
	}
	next := func(rows *sql.Rows) (piece, error) {
		if !rows.Next() {
			return piece{}, rows.Err()
		}
		var p piece
		var raw []byte
		if err := rows.Scan(&p.off, &raw); err != nil {
			return piece{}, err
		}
		b, err := unpackRaw(raw)
		if err != nil {
			return piece{}, err
		}
		p.b, p.more = b, true
		return p, nil
	}
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	var pos int64
	fill := func(to int64) error {
		switch to - pos {
		case 0:
		case 1:
			if _, err := mw.Write([]byte("\n")); err != nil {
				return err
			}
		case 2:
			if _, err := mw.Write([]byte("\r\n")); err != nil {
				return err
			}
		default:
			return fmt.Errorf("store: session %s: bytes %d to %d are not in the library: %w", sessionID, pos, to, ErrExportMismatch)
		}
		pos = to
		return nil
	}
	e, err := next(ents)
	if err != nil {
		return pos, fmt.Errorf("store: unable to read the entries of session %s: %w", sessionID, err)
	}
	g, err := next(gaps)
	if err != nil {
		return pos, fmt.Errorf("store: unable to read the gaps of session %s: %w", sessionID, err)
	}
	for e.more || g.more {
		var p *piece
		rows := ents
		if e.more && (!g.more || e.off < g.off) {
			p = &e
		} else {
			p, rows = &g, gaps
		}
		if p.off < pos {
			return pos, fmt.Errorf("store: session %s: bytes at %d overlap those before %d: %w", sessionID, p.off, pos, ErrExportMismatch)
		}
		if err := fill(p.off); err != nil {
			return pos, err
		}
		if _, err := mw.Write(p.b); err != nil {
			return pos, err
		}
		pos += int64(len(p.b))
		np, err := next(rows)
		if err != nil {
			return pos, fmt.Errorf("store: unable to read session %s: %w", sessionID, err)
		}
		*p = np
	}
	if err := fill(sess.FileBytes); err != nil {
		return pos, err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != sess.FileSHA256 {
		return pos, fmt.Errorf("store: session %s: the %d bytes written hash to %s, the file imported to %s: %w",
			sessionID, pos, sum, sess.FileSHA256, ErrExportMismatch)
	}
	return pos, nil
}

// SessionsByPath returns the sessions imported from the file at path.
func (s *Store) SessionsByPath(ctx context.Context, path string) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.path = ? ORDER BY s.pk`, path)
	if err != nil {
		return nil, fmt.Errorf("store: unable to find the sessions of %s: %w", path, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a session of %s: %w", path, err)
		}
		out = append(out, *sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to find the sessions of %s: %w", path, err)
	}
	return out, nil
}

// SessionPaths lists the path of every session with whether its source was
// found deleted, for the watcher to check which files are gone.
func (s *Store) SessionPaths(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, source_deleted_at <> '' FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the session files: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var p string
		var deleted bool
		if err := rows.Scan(&p, &deleted); err != nil {
			return nil, fmt.Errorf("store: unable to list the session files: %w", err)
		}
		out[p] = deleted
	}
	return out, rows.Err()
}

// MarkSourceDeleted records that the file at path is gone (deleted true,
// at the time when) or back (false) for the sessions imported from it, and
// reports how many changed. The sessions themselves stay.
func (s *Store) MarkSourceDeleted(ctx context.Context, path string, deleted bool, when time.Time) (int, error) {
	q, args := `UPDATE sessions SET source_deleted_at = ? WHERE path = ? AND source_deleted_at = ''`, []any{isoTime(when), path}
	if !deleted {
		q, args = `UPDATE sessions SET source_deleted_at = '' WHERE path = ? AND source_deleted_at <> ''`, []any{path}
	}
	res, err := s.execWrite(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("store: unable to mark %s as deleted: %w", path, err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// subagentFirstNodeQuery is SubagentFirstNode's query; its non-empty condition lets SQLite
// use the partial index sessions_agent_id (TestPerFileLookupsUseTheirIndexes).
const subagentFirstNodeQuery = `SELECT n.id FROM sessions s JOIN nodes n ON n.session_pk = s.pk AND n.segment_idx = 0
		WHERE s.agent_id = ? AND s.agent_id <> '' AND s.parent_session = ? ORDER BY s.pk LIMIT 1`

// SubagentFirstNode returns the id of the first node of the transcript of
// sub-agent agentID spawned by the session with id parentID; the error
// wraps ErrNotFound when the library does not hold it.
func (s *Store) SubagentFirstNode(ctx context.Context, parentID, agentID string) (string, error) {
	var id string
	err := cachedDB{s}.QueryRowContext(ctx, subagentFirstNodeQuery, agentID, parentID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: no transcript of sub-agent %s: %w", agentID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("store: unable to find the transcript of sub-agent %s: %w", agentID, err)
	}
	return id, nil
}
