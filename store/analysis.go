package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// AnalysisRecord is one analysis of a node, made or failed (node_analyses).
type AnalysisRecord struct {
	NodeID          string
	At              string // ISO 8601
	Source          string // "offline" or "model:<provider>/<model>"
	AnalyzerVersion string
	TriggerReason   string // of the version written; "" when none was
	Version         int    // the node version written; 0 when none was
	Calls           int
	InputTokens     int64
	OutputTokens    int64
	USD             float64
	PriceKnown      bool
	Failure         string // analyze.Failure as JSON; "" on success
}

// AddAnalysis records an analysis of a node.
func (t *Tx) AddAnalysis(r AnalysisRecord) error {
	var version any
	if r.Version > 0 {
		version = r.Version
	}
	_, err := t.tx.ExecContext(t.ctx, `INSERT INTO node_analyses (node_id, at, source, analyzer_version, trigger_reason,
		version, calls, input_tokens, output_tokens, usd, price_known, failure) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.NodeID, r.At, r.Source, r.AnalyzerVersion, r.TriggerReason, version, r.Calls, r.InputTokens, r.OutputTokens,
		r.USD, r.PriceKnown, r.Failure)
	if err != nil {
		return fmt.Errorf("store: unable to record an analysis of node %s: %w", r.NodeID, err)
	}
	return nil
}

// NodeAnalyses lists the analyses of node id, oldest first.
func (s *Store) NodeAnalyses(ctx context.Context, id string) ([]AnalysisRecord, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT node_id, at, source, analyzer_version, trigger_reason, coalesce(version, 0),
		calls, input_tokens, output_tokens, usd, price_known, failure FROM node_analyses WHERE node_id = ? ORDER BY pk`, id)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the analyses of node %s: %w", id, err)
	}
	defer rows.Close()
	out := []AnalysisRecord{}
	for rows.Next() {
		var r AnalysisRecord
		if err := rows.Scan(&r.NodeID, &r.At, &r.Source, &r.AnalyzerVersion, &r.TriggerReason, &r.Version, &r.Calls,
			&r.InputTokens, &r.OutputTokens, &r.USD, &r.PriceKnown, &r.Failure); err != nil {
			return nil, fmt.Errorf("store: unable to read an analysis of node %s: %w", id, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the analyses of node %s: %w", id, err)
	}
	return out, nil
}

// AnalysisSpent is what every recorded analysis spent, in USD and tokens.
func (s *Store) AnalysisSpent(ctx context.Context) (usd float64, tokens int64, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT coalesce(sum(usd), 0), coalesce(sum(input_tokens + output_tokens), 0) FROM node_analyses`).
		Scan(&usd, &tokens)
	if err != nil {
		return 0, 0, fmt.Errorf("store: unable to sum the analyses' spending: %w", err)
	}
	return usd, tokens, nil
}

// LastModelSource returns the source of node id's latest analysis that
// wrote a version ("offline" when there is none).
func (s *Store) LastModelSource(ctx context.Context, id string) (string, error) {
	var src string
	err := s.db.QueryRowContext(ctx, `SELECT source FROM node_analyses WHERE node_id = ? AND version IS NOT NULL ORDER BY pk DESC LIMIT 1`, id).Scan(&src)
	if errors.Is(err, sql.ErrNoRows) {
		return "offline", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: unable to find the last analysis of node %s: %w", id, err)
	}
	return src, nil
}

// QueuedAnalysis is a node waiting in the analysis queue.
type QueuedAnalysis struct {
	NodeID    string
	Manual    bool
	LastError string
}

// EnqueueAnalyses adds nodes to the end of the analysis queue (a node
// queued already keeps its place; manual is then or-ed in). Unknown ids are
// an error wrapping ErrNotFound, and nothing is queued.
func (s *Store) EnqueueAnalyses(ctx context.Context, ids []string, manual bool) (int, error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var next int64
	if err := tx.tx.QueryRowContext(tx.ctx, `SELECT coalesce(max(seq), 0) + 1 FROM analysis_queue`).Scan(&next); err != nil {
		return 0, fmt.Errorf("store: unable to queue analyses: %w", err)
	}
	now := isoTime(time.Now())
	added := 0
	for _, id := range ids {
		var n int
		if err := tx.tx.QueryRowContext(tx.ctx, `SELECT count(*) FROM nodes WHERE id = ?`, id).Scan(&n); err != nil {
			return 0, fmt.Errorf("store: unable to queue node %s: %w", id, err)
		}
		if n == 0 {
			return 0, fmt.Errorf("store: unable to queue node %s for analysis: %w", id, ErrNotFound)
		}
		res, err := tx.tx.ExecContext(tx.ctx, `INSERT INTO analysis_queue (node_id, seq, manual, enqueued_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (node_id) DO UPDATE SET manual = manual OR excluded.manual`, id, next, manual, now)
		if err != nil {
			return 0, fmt.Errorf("store: unable to queue node %s: %w", id, err)
		}
		if k, _ := res.RowsAffected(); k > 0 {
			added++
		}
		next++
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	return added, nil
}

// AnalysisQueue lists the queued nodes in queue order.
func (s *Store) AnalysisQueue(ctx context.Context) ([]QueuedAnalysis, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT node_id, manual, last_error FROM analysis_queue ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the analysis queue: %w", err)
	}
	defer rows.Close()
	out := []QueuedAnalysis{}
	for rows.Next() {
		var q QueuedAnalysis
		if err := rows.Scan(&q.NodeID, &q.Manual, &q.LastError); err != nil {
			return nil, fmt.Errorf("store: unable to read the analysis queue: %w", err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the analysis queue: %w", err)
	}
	return out, nil
}

// SetQueueError records why a queued node could not be analysed now; it
// stays queued.
func (s *Store) SetQueueError(ctx context.Context, id, msg string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE analysis_queue SET last_error = ? WHERE node_id = ?`, msg, id); err != nil {
		return fmt.Errorf("store: unable to update the analysis queue: %w", err)
	}
	return nil
}

// ClearAnalysisQueue empties the queue (cancel).
func (s *Store) ClearAnalysisQueue(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM analysis_queue`)
	if err != nil {
		return 0, fmt.Errorf("store: unable to clear the analysis queue: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Dequeue removes node id from the analysis queue inside the transaction
// that records its analysis.
func (t *Tx) Dequeue(id string) error {
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM analysis_queue WHERE node_id = ?`, id); err != nil {
		return fmt.Errorf("store: unable to take node %s off the analysis queue: %w", id, err)
	}
	return nil
}

// NodeIDsOf returns the ids of the current nodes of the session id (by
// segment), or of the project path when no session has that id.
func (s *Store) NodeIDsOf(ctx context.Context, sessionOrProject string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk
		WHERE n.segment_idx >= 0 AND (s.id = ?1 OR (s.cwd = ?1 AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = ?1)))
		ORDER BY s.pk, n.segment_idx`, strings.TrimSpace(sessionOrProject))
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the nodes of %s: %w", sessionOrProject, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: unable to list the nodes of %s: %w", sessionOrProject, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// SegmentOf returns the session and the segment behind node id, with the
// raw objects of the segment's entries in file order.
func (s *Store) SegmentOf(ctx context.Context, id string) (*Session, *SegmentRecord, [][]byte, error) {
	var sessionID string
	var idx int
	err := s.db.QueryRowContext(ctx, `SELECT s.id, n.segment_idx FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE n.id = ?`, id).
		Scan(&sessionID, &idx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil, fmt.Errorf("store: unable to find node %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("store: unable to find node %s: %w", id, err)
	}
	sess, err := s.SessionByID(ctx, sessionID)
	if err != nil {
		return nil, nil, nil, err
	}
	seg, err := segmentWhere(ctx, s.db, `g.session_pk = ? AND g.idx = ?`, sess.PK, idx)
	if err != nil {
		return nil, nil, nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT raw FROM entries WHERE session_pk = ? AND seq BETWEEN ? AND ? ORDER BY seq`,
		sess.PK, seg.StartSeq, seg.EndSeq)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("store: unable to fetch the entries of node %s: %w", id, err)
	}
	defer rows.Close()
	var raws [][]byte
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, nil, nil, fmt.Errorf("store: unable to fetch the entries of node %s: %w", id, err)
		}
		b, err := unpackRawString(raw)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("store: entries of node %s: %w", id, err)
		}
		raws = append(raws, b)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("store: unable to fetch the entries of node %s: %w", id, err)
	}
	return sess, seg, raws, nil
}
