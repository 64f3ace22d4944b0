package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"rhizome/backend/session"
)

// How much of an entry's searchable text (bytes) goes into the full-text
// index. Messages written by the user or the model keep their first 8 KB,
// which is all of nearly every message; tool output (toolResult and
// bashExecution messages: whole files read, test and build logs) keeps its
// first and last 1 KB, where commands print what went wrong. Tool output is
// two thirds of the text of real sessions and the index is half of an
// import's work, so this keeps imports fast; the entry itself is stored
// whole.
const (
	MaxSearchText     = 8 << 10
	MaxToolOutputText = 2 << 10
)

// searchText is the part of an entry's text that is indexed.
func searchText(role, text string) string {
	if role != session.RoleToolResult && role != session.RoleBashExecution {
		return capText(text, MaxSearchText)
	}
	if len(text) <= MaxToolOutputText {
		return text
	}
	half := MaxToolOutputText / 2
	tail := len(text) - half
	for tail < len(text) && !utf8.RuneStart(text[tail]) {
		tail++
	}
	return capText(text, half) + "\n…\n" + text[tail:]
}

// entryBatch is how many entries one INSERT statement writes.
const entryBatch = 64

// entryColumns are the columns InsertEntry writes, in order.
const entryColumns = 17

// indexChunkBytes is how much new searchable text (bytes) is collected before
// it is added to the full-text index in one statement; see entryWriter.index.
const indexChunkBytes = 4 << 20

// failEntryInsert, when set (by tests), is called after each entry handed to
// InsertEntry with the number handed so far in the transaction; an error it
// returns is returned by InsertEntry, as a failure of the disk would be.
var failEntryInsert func(n int) error

// entryWriter batches entry inserts into multi-row prepared statements and
// indexes them for full-text search by chunks. It gives entries their keys
// itself (the transaction is the only writer), so that it knows which keys
// are still to be indexed without asking. Its statements come from the
// Store's stmtCache: prepared once per connection, not once per file.
type entryWriter struct {
	t    *Tx
	args []any
	rows int

	handed    int   // entries handed to add
	bytes     int64 // raw and text bytes handed to add
	nextPK    int64 // key of the next entry
	indexedTo int64 // entries with keys up to this one are indexed
	unindexed int   // bytes of text written and not indexed yet
	// packed holds the compressed objects of the rows in args (packRaw),
	// reused once they are written.
	packed []byte
}

func newEntryWriter(t *Tx) (*entryWriter, error) {
	var last int64
	if err := t.queryRow(`SELECT coalesce(max(pk), 0) FROM entries`).Scan(&last); err != nil {
		return nil, fmt.Errorf("store: unable to read the last entry key: %w", err)
	}
	return &entryWriter{t: t, args: make([]any, 0, entryBatch*entryColumns), nextPK: last + 1, indexedTo: last}, nil
}

// entryInsert is the entry insert without its rows, entryRow one row of it,
// and entryInsertMany the insert of entryBatch rows.
var (
	entryInsert = `INSERT INTO entries (pk, session_pk, seq, entry_id, parent_id, type, role, timestamp, line,
		byte_offset, target_id, text, raw, meta, turn_id, dedupe_key, subagent_id) VALUES `
	entryRow        = "(" + strings.Repeat("?, ", entryColumns-1) + "?)"
	entryInsertMany = entryInsert + strings.Repeat(entryRow+", ", entryBatch-1) + entryRow
)

// EntryExtra is what an entry is stored with beside its object: Meta, what
// its reader derived from other lines (a JSON object, nil for nothing; see
// migrations/0030_formats_archive.sql), and DedupeKey, the key its copies in
// other files share ("" for none).
type EntryExtra struct {
	Meta      []byte
	DedupeKey string
}

// InsertEntry stores one entry of the session sessionPK with its searchable
// text (cut to MaxSearchText, tool output to MaxToolOutputText) and extra.
// Entries are written in batches (a query of the transaction sees them all)
// and added to the full-text index by chunks; Commit writes and indexes the
// rest. e.Raw and extra.Meta are read when the batch is written: they must
// not change until then.
func (t *Tx) InsertEntry(sessionPK int64, e *session.Entry, text string, extra EntryExtra) error {
	if t.entries == nil {
		w, err := newEntryWriter(t)
		if err != nil {
			return err
		}
		t.entries = w
	}
	return t.entries.add(sessionPK, e, text, extra)
}

func (w *entryWriter) add(sessionPK int64, e *session.Entry, text string, extra EntryExtra) error {
	var role string
	if e.Message != nil {
		role = e.Message.Role
	}
	text = searchText(role, text)
	var raw any
	raw, w.packed = packRaw(w.packed, e.Raw)
	w.args = append(w.args, w.nextPK, sessionPK, e.Seq, e.ID, e.ParentID, e.Type, role, isoTime(e.Timestamp),
		e.Line, e.Offset, e.TargetID, text, raw, bytesString(extra.Meta), e.TurnID, extra.DedupeKey, e.SubagentID)
	w.nextPK++
	w.rows++
	w.handed++
	w.unindexed += len(text)
	w.bytes += int64(len(e.Raw) + len(text))
	if w.rows == entryBatch {
		if err := w.flush(); err != nil {
			return err
		}
		if w.unindexed >= indexChunkBytes {
			if err := w.index(); err != nil {
				return err
			}
		}
	}
	if failEntryInsert != nil {
		if err := failEntryInsert(w.handed); err != nil {
			return fmt.Errorf("store: unable to insert entry %d (line %d): %w", e.Seq, e.Line, err)
		}
	}
	return nil
}

// flush writes the batched entries.
func (w *entryWriter) flush() error {
	if w.rows == 0 {
		return nil
	}
	var err error
	if w.rows == entryBatch {
		_, err = w.t.exec(entryInsertMany, w.args...)
	} else {
		for i := 0; i < w.rows && err == nil; i++ {
			_, err = w.t.exec(entryInsert+entryRow, w.args[i*entryColumns:(i+1)*entryColumns]...)
		}
	}
	clear(w.args)
	w.args, w.rows = w.args[:0], 0
	if cap(w.packed) > 8<<20 {
		w.packed = nil // not kept after a batch of huge objects
	}
	w.packed = w.packed[:0]
	if err != nil {
		return fmt.Errorf("store: unable to insert entries: %w", err)
	}
	return nil
}

// index adds the written entries not indexed yet to entries_fts, in one
// statement. Not a trigger: FTS5 writes its pending terms to disk at every
// statement savepoint, so an insert trigger made one small index segment per
// insert statement, and merging them made a 30 MB import 1.5 times slower.
// Entries with empty text are indexed too (no terms, a row of size 0), so
// that the index matches the entries table row for row (FTS5's
// 'integrity-check'; see migrations/0011_entries_fts_complete.sql).
func (w *entryWriter) index() error {
	last := w.nextPK - 1 - int64(w.rows)
	if last <= w.indexedTo {
		return nil
	}
	_, err := w.t.exec(`INSERT INTO entries_fts (rowid, text)
		SELECT pk, text FROM entries WHERE pk > ? AND pk <= ?`, w.indexedTo, last)
	if err != nil {
		return fmt.Errorf("store: unable to index entries for search: %w", err)
	}
	w.indexedTo, w.unindexed = last, 0
	return nil
}

// capText cuts s to at most n bytes, on a rune boundary.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// bytesString views b as a string without copying; b must not change while
// the string is in use.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// EntryRecord is a stored entry as the read side needs it.
type EntryRecord struct {
	Seq       int
	Line      int
	ID        string
	ParentID  string
	Type      string
	Role      string
	Timestamp string
	Raw       []byte // the object as in the file
	Meta      []byte // what the reader derived from other lines (JSON), nil for nothing
}

// EntryLabel is a label entry: Label names the entry TargetID.
type EntryLabel struct {
	TargetID string
	Label    string
	Seq      int
}

// SegmentPage is a page of the entries of a node's segment.
type SegmentPage struct {
	Entries []EntryRecord // from Offset on, in file order
	Labels  []EntryLabel  // the session's labels naming one of Entries, in file order
	Offset  int           // of Entries[0] in the segment: 0 is its first entry
	Total   int           // entries in the segment
}

// segmentPageQuery reads entries first..last (seq, inclusive) of a session.
const segmentPageQuery = `SELECT seq, line, entry_id, parent_id, type, role, timestamp, raw, meta
	FROM entries WHERE session_pk = ? AND seq BETWEEN ? AND ? ORDER BY seq`

// segmentLabelsQuery reads the labels of a session naming one of a JSON
// array of entry ids, in file order. Left to itself, SQLite reads the
// session's entries in seq order to spare the sort (every entry of a long
// session, for each page); the labels' index is named instead.
const segmentLabelsQuery = `SELECT target_id, coalesce(json_extract(unpack_raw(raw), '$.label'), ''), seq
	FROM entries INDEXED BY entries_labels WHERE session_pk = ? AND type = 'label' AND target_id IN (SELECT value FROM json_each(?))
	ORDER BY seq`

// SegmentEntries returns at most limit entries of the segment behind node
// nodeID, from its offset-th entry (0 = the first) on, in file order, with
// the labels of the session that name one of them. Entries of a session are
// numbered without gaps (seq), so a page is one range read of the
// (session, seq) index, whatever the segment's length. offset at or past the
// end gives no entries. The error wraps ErrNotFound for an unknown node.
func (s *Store) SegmentEntries(ctx context.Context, nodeID string, offset, limit int) (SegmentPage, error) {
	var sessionPK int64
	var start, end int
	err := s.db.QueryRowContext(ctx, `SELECT g.session_pk, g.start_seq, g.end_seq FROM nodes n
		JOIN segments g ON g.session_pk = n.session_pk AND g.idx = n.segment_idx WHERE n.id = ?`, nodeID).
		Scan(&sessionPK, &start, &end)
	if err == sql.ErrNoRows {
		return SegmentPage{}, fmt.Errorf("store: unable to find the segment of node %s: %w", nodeID, ErrNotFound)
	}
	if err != nil {
		return SegmentPage{}, fmt.Errorf("store: unable to find the segment of node %s: %w", nodeID, err)
	}
	page := SegmentPage{Entries: []EntryRecord{}, Labels: []EntryLabel{}, Offset: offset, Total: end - start + 1}
	if offset < 0 || limit <= 0 {
		return page, fmt.Errorf("store: unable to fetch entries %d (%d of them) of node %s: offset and limit must be positive", offset, limit, nodeID)
	}
	if offset >= page.Total {
		return page, nil
	}
	first, last := start+offset, min(end, start+offset+limit-1)
	rows, err := s.db.QueryContext(ctx, segmentPageQuery, sessionPK, first, last)
	if err != nil {
		return page, fmt.Errorf("store: unable to fetch the entries of node %s: %w", nodeID, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var e EntryRecord
		var raw, meta string
		if err := rows.Scan(&e.Seq, &e.Line, &e.ID, &e.ParentID, &e.Type, &e.Role, &e.Timestamp, &raw, &meta); err != nil {
			return page, fmt.Errorf("store: unable to read an entry of node %s: %w", nodeID, err)
		}
		if e.Raw, err = unpackRawString(raw); err != nil {
			return page, fmt.Errorf("store: entry %d of node %s: %w", e.Seq, nodeID, err)
		}
		if meta != "" {
			e.Meta = []byte(meta)
		}
		if e.ID != "" {
			ids = append(ids, e.ID)
		}
		page.Entries = append(page.Entries, e)
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("store: unable to fetch the entries of node %s: %w", nodeID, err)
	}
	rows.Close()
	if len(ids) == 0 {
		return page, nil
	}

	idList, _ := json.Marshal(ids)
	lrows, err := s.db.QueryContext(ctx, segmentLabelsQuery, sessionPK, string(idList))
	if err != nil {
		return page, fmt.Errorf("store: unable to fetch the labels of node %s: %w", nodeID, err)
	}
	defer lrows.Close()
	for lrows.Next() {
		var l EntryLabel
		if err := lrows.Scan(&l.TargetID, &l.Label, &l.Seq); err != nil {
			return page, fmt.Errorf("store: unable to read a label of node %s: %w", nodeID, err)
		}
		page.Labels = append(page.Labels, l)
	}
	if err := lrows.Err(); err != nil {
		return page, fmt.Errorf("store: unable to fetch the labels of node %s: %w", nodeID, err)
	}
	return page, nil
}

// entrySeqsQuery is EntrySeqs' query (TestEntrySeqsSeeksEachID).
const entrySeqsQuery = `SELECT e.entry_id, min(e.seq) FROM entries e
	WHERE e.session_pk = ? AND e.entry_id IN (SELECT value FROM json_each(?)) AND e.entry_id <> ''
	GROUP BY e.entry_id`

// EntrySeqs returns, of ids, those that are ids of the session's entries,
// each mapped to the seq of its first entry (an id seen twice keeps the
// first): one indexed look-up per id (entries (session_pk, entry_id)), for
// finding a fork point without reading the parent's every id.
func (t *Tx) EntrySeqs(sessionPK int64, ids []string) (map[string]int, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("store: unable to look up entry ids of session %d: %w", sessionPK, err)
	}
	rows, err := t.query(entrySeqsQuery, sessionPK, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to look up entry ids of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	seqs := map[string]int{}
	for rows.Next() {
		var id string
		var seq int
		if err := rows.Scan(&id, &seq); err != nil {
			return nil, fmt.Errorf("store: unable to read an entry id of session %d: %w", sessionPK, err)
		}
		seqs[id] = seq
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to look up entry ids of session %d: %w", sessionPK, err)
	}
	return seqs, nil
}

// EntryChainBackward calls fn with the session's entries, only Seq, ID,
// ParentID and Type set, in chunks of at most chunk entries from the end of
// the file to its start (each chunk in file order), until fn returns true:
// enough to find a fork point without holding a long session in memory.
func (t *Tx) EntryChainBackward(sessionPK int64, chunk int, fn func(entries []session.Entry) bool) error {
	if err := t.flush(); err != nil {
		return err
	}
	if chunk <= 0 {
		chunk = 1024
	}
	buf := make([]session.Entry, 0, chunk)
	before := int64(1) << 62
	for {
		rows, err := t.query(`SELECT seq, entry_id, parent_id, type FROM entries
			WHERE session_pk = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, sessionPK, before, chunk)
		if err != nil {
			return fmt.Errorf("store: unable to fetch the entries of session %d: %w", sessionPK, err)
		}
		buf = buf[:0]
		for rows.Next() {
			var e session.Entry
			if err := rows.Scan(&e.Seq, &e.ID, &e.ParentID, &e.Type); err != nil {
				rows.Close()
				return fmt.Errorf("store: unable to read an entry of session %d: %w", sessionPK, err)
			}
			buf = append(buf, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: unable to fetch the entries of session %d: %w", sessionPK, err)
		}
		if len(buf) == 0 {
			return nil
		}
		slices.Reverse(buf)
		if fn(buf) {
			return nil
		}
		before = int64(buf[0].Seq)
	}
}

// SessionEntries returns at most limit entries of session sessionID (its
// header id) from the one with seq from on, in file order: a long session is
// read page by page. The error wraps ErrNotFound for an unknown session.
func (s *Store) SessionEntries(ctx context.Context, sessionID string, from, limit int) ([]EntryRecord, error) {
	sess, err := s.SessionByID(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, line, entry_id, parent_id, type, role, timestamp, raw, meta
		FROM entries WHERE session_pk = ? AND seq >= ? ORDER BY seq LIMIT ?`, sess.PK, from, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch the entries of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := []EntryRecord{}
	for rows.Next() {
		var e EntryRecord
		var raw, meta string
		if err := rows.Scan(&e.Seq, &e.Line, &e.ID, &e.ParentID, &e.Type, &e.Role, &e.Timestamp, &raw, &meta); err != nil {
			return nil, fmt.Errorf("store: unable to read an entry of session %s: %w", sessionID, err)
		}
		if e.Raw, err = unpackRawString(raw); err != nil {
			return nil, fmt.Errorf("store: entry %d of session %s: %w", e.Seq, sessionID, err)
		}
		if meta != "" {
			e.Meta = []byte(meta)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to fetch the entries of session %s: %w", sessionID, err)
	}
	return out, nil
}

// EntryNodes maps entries of session sessionID, by id, to the knowledge-graph
// node of the segment that holds each (the first entry with an id seen
// twice). Ids the library does not hold, and a session it does not hold,
// are left out of the map.
func (s *Store) EntryNodes(ctx context.Context, sessionID string, entryIDs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(entryIDs) == 0 {
		return out, nil
	}
	ids, _ := json.Marshal(entryIDs)
	rows, err := s.db.QueryContext(ctx, `SELECT e.entry_id, n.id FROM sessions s
		JOIN entries e ON e.session_pk = s.pk AND e.entry_id IN (SELECT value FROM json_each(?))
		JOIN segments g ON g.session_pk = s.pk AND e.seq BETWEEN g.start_seq AND g.end_seq
		JOIN nodes n ON n.session_pk = s.pk AND n.segment_idx = g.idx
		WHERE s.id = ? ORDER BY e.seq`, string(ids), sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to find the nodes of entries of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var entry, node string
		if err := rows.Scan(&entry, &node); err != nil {
			return nil, fmt.Errorf("store: unable to read the node of an entry of session %s: %w", sessionID, err)
		}
		if _, seen := out[entry]; !seen {
			out[entry] = node
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to find the nodes of entries of session %s: %w", sessionID, err)
	}
	return out, nil
}

// EntryLocation finds entry entryID of session sessionID: the node of the
// segment holding it and its offset in that segment (0 = the segment's first
// entry), for Library.SegmentEntries. An entry id seen twice in a file gives
// its first. ErrNotFound (wrapped) when the session, the entry or its
// segment's node is not in the library.
func (s *Store) EntryLocation(ctx context.Context, sessionID, entryID string) (nodeID string, offset int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT n.id, e.seq - g.start_seq FROM sessions s
		JOIN entries e ON e.session_pk = s.pk AND e.entry_id = ?
		JOIN segments g ON g.session_pk = s.pk AND e.seq BETWEEN g.start_seq AND g.end_seq
		JOIN nodes n ON n.session_pk = s.pk AND n.segment_idx = g.idx
		WHERE s.id = ? ORDER BY e.seq LIMIT 1`, entryID, sessionID).Scan(&nodeID, &offset)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, fmt.Errorf("store: unable to find entry %s of session %s: %w", entryID, sessionID, ErrNotFound)
	}
	if err != nil {
		return "", 0, fmt.Errorf("store: unable to find entry %s of session %s: %w", entryID, sessionID, err)
	}
	return nodeID, offset, nil
}

// EachEntry calls fn with the entries of session sessionPK whose seq is in
// [from, to] (to < 0: to the last), in file order, in chunks of at most
// chunk entries (0: 512), until fn returns an error, which it returns: a
// long session is read without holding it in memory.
func (s *Store) EachEntry(ctx context.Context, sessionPK int64, from, to, chunk int, fn func([]EntryRecord) error) error {
	if chunk <= 0 {
		chunk = 512
	}
	if to < 0 {
		to = int(^uint(0) >> 1)
	}
	for from <= to {
		rows, err := s.db.QueryContext(ctx, segmentPageQuery, sessionPK, from, min(to, from+chunk-1))
		if err != nil {
			return fmt.Errorf("store: unable to fetch the entries of session %d: %w", sessionPK, err)
		}
		var recs []EntryRecord
		for rows.Next() {
			var e EntryRecord
			var raw, meta string
			if err := rows.Scan(&e.Seq, &e.Line, &e.ID, &e.ParentID, &e.Type, &e.Role, &e.Timestamp, &raw, &meta); err != nil {
				rows.Close()
				return fmt.Errorf("store: unable to read an entry of session %d: %w", sessionPK, err)
			}
			if e.Raw, err = unpackRawString(raw); err != nil {
				rows.Close()
				return fmt.Errorf("store: entry %d of session %d: %w", e.Seq, sessionPK, err)
			}
			if meta != "" {
				e.Meta = []byte(meta)
			}
			recs = append(recs, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: unable to fetch the entries of session %d: %w", sessionPK, err)
		}
		if len(recs) == 0 {
			return nil
		}
		if err := fn(recs); err != nil {
			return err
		}
		from = recs[len(recs)-1].Seq + 1
	}
	return nil
}
