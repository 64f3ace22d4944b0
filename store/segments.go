package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rhizome/backend/segment"
)

// SegmentRecord is a stored segment with the current node made from it.
type SegmentRecord struct {
	segment.Segment
	NodeID      string // "" when the segment has no node
	NodeType    string
	NodeSummary string
}

// PutSegment stores segment seg of the session sessionPK, replacing the
// stored segment with the same index (an append extends the last one).
func (t *Tx) PutSegment(sessionPK int64, seg *segment.Segment) error {
	bs := seg.Boundaries
	if bs == nil {
		bs = []segment.Boundary{}
	}
	b, err := json.Marshal(bs)
	if err != nil {
		return fmt.Errorf("store: unable to save segment %d: %w", seg.Index, err)
	}
	_, err = t.exec(`INSERT INTO segments (session_pk, idx, start_entry_id, end_entry_id,
		start_seq, end_seq, entry_count, start_timestamp, end_timestamp, boundaries)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (session_pk, idx) DO UPDATE SET start_entry_id = excluded.start_entry_id,
		end_entry_id = excluded.end_entry_id, start_seq = excluded.start_seq, end_seq = excluded.end_seq,
		entry_count = excluded.entry_count, start_timestamp = excluded.start_timestamp,
		end_timestamp = excluded.end_timestamp, boundaries = excluded.boundaries`,
		sessionPK, seg.Index, seg.StartEntryID, seg.EndEntryID, seg.StartSeq, seg.EndSeq, seg.EntryCount,
		isoTime(seg.StartTimestamp), isoTime(seg.EndTimestamp), string(b))
	if err != nil {
		return fmt.Errorf("store: unable to save segment %d: %w", seg.Index, err)
	}
	return nil
}

const segmentColumns = `g.idx, g.start_entry_id, g.end_entry_id, g.start_seq, g.end_seq, g.entry_count,
	g.start_timestamp, g.end_timestamp, g.boundaries, coalesce(n.id, ''), coalesce(n.type, ''), coalesce(n.summary, '')`

func scanSegment(r scanner) (*SegmentRecord, error) {
	var s SegmentRecord
	var start, end, bs string
	if err := r.Scan(&s.Index, &s.StartEntryID, &s.EndEntryID, &s.StartSeq, &s.EndSeq, &s.EntryCount,
		&start, &end, &bs, &s.NodeID, &s.NodeType, &s.NodeSummary); err != nil {
		return nil, err
	}
	s.StartTimestamp, _ = parseTime(start)
	s.EndTimestamp, _ = parseTime(end)
	if err := json.Unmarshal([]byte(bs), &s.Boundaries); err != nil {
		return nil, fmt.Errorf("segment %d: boundaries: %w", s.Index, err)
	}
	if s.Boundaries == nil {
		s.Boundaries = []segment.Boundary{}
	}
	return &s, nil
}

// parseTime reads a time the library wrote; the zero time for "".
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// Segments returns the segments of the session with header id sessionID, in
// order, each with its node; the error wraps ErrNotFound for an unknown
// session.
func (s *Store) Segments(ctx context.Context, sessionID string) ([]SegmentRecord, error) {
	sess, err := s.SessionByID(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return segments(ctx, cachedDB{s}, sess.PK)
}

func segments(ctx context.Context, q queryer, sessionPK int64) ([]SegmentRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+segmentColumns+` FROM segments g
		LEFT JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
		WHERE g.session_pk = ? ORDER BY g.idx`, sessionPK)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the segments of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	out := []SegmentRecord{}
	for rows.Next() {
		seg, err := scanSegment(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a segment of session %d: %w", sessionPK, err)
		}
		out = append(out, *seg)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the segments of session %d: %w", sessionPK, err)
	}
	return out, nil
}

// Segments is Store.Segments inside the transaction, by session key.
func (t *Tx) Segments(sessionPK int64) ([]SegmentRecord, error) {
	return segments(t.ctx, txQueryer{t}, sessionPK)
}

// LastSegment returns the last segment of the session sessionPK; the error
// wraps ErrNotFound when it has none.
func (t *Tx) LastSegment(sessionPK int64) (*SegmentRecord, error) {
	return t.segmentWhere(`g.session_pk = ? ORDER BY g.idx DESC LIMIT 1`, sessionPK)
}

// LastSegment returns the last segment of the session sessionPK; the error
// wraps ErrNotFound when it has none.
func (s *Store) LastSegment(ctx context.Context, sessionPK int64) (*SegmentRecord, error) {
	return segmentWhere(ctx, cachedDB{s}, `g.session_pk = ? ORDER BY g.idx DESC LIMIT 1`, sessionPK)
}

// SegmentAt returns segment idx of the session sessionPK; the error wraps
// ErrNotFound when there is none.
func (t *Tx) SegmentAt(sessionPK int64, idx int) (*SegmentRecord, error) {
	return t.segmentWhere(`g.session_pk = ? AND g.idx = ?`, sessionPK, idx)
}

// SegmentOfSeq returns the segment of the session sessionPK that holds the
// entry at seq; the error wraps ErrNotFound when none does.
func (t *Tx) SegmentOfSeq(sessionPK int64, seq int) (*SegmentRecord, error) {
	return t.segmentWhere(`g.session_pk = ?1 AND g.start_seq <= ?2 AND g.end_seq >= ?2 ORDER BY g.idx LIMIT 1`, sessionPK, seq)
}

func (t *Tx) segmentWhere(where string, args ...any) (*SegmentRecord, error) {
	return segmentWhere(t.ctx, txQueryer{t}, where, args...)
}

func segmentWhere(ctx context.Context, q queryer, where string, args ...any) (*SegmentRecord, error) {
	seg, err := scanSegment(q.QueryRowContext(ctx, `SELECT `+segmentColumns+` FROM segments g
		LEFT JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx WHERE `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find the segment of session %v: %w", args[0], ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch a segment of session %v: %w", args[0], err)
	}
	return seg, nil
}

// SegmentCounts counts the session sessionPK's segments and the boundaries
// that start them, by boundary type, in SQL: an append's report needs the
// totals, not the segments (reading them all made appending to a long
// session grow with its length).
func (t *Tx) SegmentCounts(sessionPK int64) (segments int, boundaries map[string]int, err error) {
	if err := t.queryRow(`SELECT count(*) FROM segments WHERE session_pk = ?`, sessionPK).Scan(&segments); err != nil {
		return 0, nil, fmt.Errorf("store: unable to count the segments of session %d: %w", sessionPK, err)
	}
	rows, err := t.query(`SELECT json_extract(b.value, '$.type'), count(*) FROM segments g, json_each(g.boundaries) b
		WHERE g.session_pk = ? GROUP BY 1`, sessionPK)
	if err != nil {
		return 0, nil, fmt.Errorf("store: unable to count the boundaries of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	boundaries = map[string]int{}
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			return 0, nil, fmt.Errorf("store: unable to count the boundaries of session %d: %w", sessionPK, err)
		}
		boundaries[typ] = n
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("store: unable to count the boundaries of session %d: %w", sessionPK, err)
	}
	return segments, boundaries, nil
}

// EntryBeforeOffset returns the seq of the last entry of session sessionPK
// that starts before byte offset of its file. The error wraps ErrNotFound
// when none does.
func (t *Tx) EntryBeforeOffset(sessionPK int64, offset int64) (int, error) {
	if err := t.flush(); err != nil {
		return 0, err
	}
	var seq int
	err := t.queryRow(`SELECT seq FROM entries WHERE session_pk = ? AND byte_offset < ? ORDER BY seq DESC LIMIT 1`, sessionPK, offset).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("store: no entry of session %d before byte %d: %w", sessionPK, offset, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: unable to find the entry of session %d before byte %d: %w", sessionPK, offset, err)
	}
	return seq, nil
}
