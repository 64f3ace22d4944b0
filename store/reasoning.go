package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Reasoning graphs: MemoBrain graphs, their op logs and the session entries
// their turns came from. Schema: migrations/0050_reasoning.sql. The domain
// (snapshots, operations, replay) is backend/memobrain; here the graph is
// stored as the JSON it writes.

// ErrReasoningChanged is returned (wrapped) by AppendReasoningSteps when the
// graph gained steps since it was read: the caller reads it again.
var ErrReasoningChanged = errors.New("store: the reasoning graph changed since it was read")

// ReasoningGraph is a stored reasoning graph. Snapshot, Base and Messages
// are JSON; Base and Messages are nil when there are none.
type ReasoningGraph struct {
	ID           string // ULID
	Title        string
	SourceName   string // the file it was imported from; "" when made from a session
	SourceSHA256 string // hex SHA-256 of that file
	SessionID    string // the session it was made from; "" for an import
	Model        string // "provider/model" that made it
	// Snapshot is the graph now, as a MemoBrain snapshot.
	Snapshot []byte
	// Base is where the op log starts, a bare snapshot; nil: the empty graph.
	Base []byte
	// Messages is the conversation, a JSON list; nil: none.
	Messages []byte
	// Steps counts the graph's steps (seq 0..Steps-1).
	Steps int
	// Counts is memobrain.Counts of the graph now, JSON.
	Counts    []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ReasoningListing is a reasoning graph as lists show it: everything but its
// snapshot, base and messages.
type ReasoningListing struct {
	ID, Title, SourceName, SourceSHA256, SessionID, Model string
	Steps                                                 int
	Counts                                                []byte
	// Messages counts the conversation's messages (0: none).
	Messages             int
	CreatedAt, UpdatedAt time.Time
}

// ReasoningStep is one step of a graph's op log: seq from 0, kind (init,
// patch, flush, fold), the memobrain.Step as JSON, and a JSON summary of what
// it changed. Step is nil when read without it.
type ReasoningStep struct {
	Seq     int
	Kind    string
	Step    []byte
	Summary []byte
}

// ReasoningTurnEntry links turn (message index) of a graph's conversation to
// an entry of the session it was made from.
type ReasoningTurnEntry struct {
	Turn      int
	SessionID string
	EntryID   string
}

// CreateReasoningGraph stores a new graph with its steps (Seq 0..) and turn
// links, in one transaction: all of it or nothing. g.Steps is set from
// steps; g.CreatedAt and g.UpdatedAt default to now.
func (s *Store) CreateReasoningGraph(ctx context.Context, g *ReasoningGraph, steps []ReasoningStep, turns []ReasoningTurnEntry) error {
	now := time.Now().UTC()
	if g.CreatedAt.IsZero() {
		g.CreatedAt = now
	}
	if g.UpdatedAt.IsZero() {
		g.UpdatedAt = g.CreatedAt
	}
	g.Steps = len(steps)
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin saving reasoning graph %s: %w", g.ID, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO reasoning_graphs (id, title, source_name, source_sha256, session_id, model,
		snapshot, base, messages, steps, counts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.ID, g.Title, g.SourceName, g.SourceSHA256, g.SessionID, g.Model, string(g.Snapshot), string(g.Base),
		string(g.Messages), g.Steps, jsonOr(g.Counts, "{}"), isoTime(g.CreatedAt), isoTime(g.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: unable to save reasoning graph %s: %w", g.ID, err)
	}
	if err := insertReasoningSteps(ctx, tx, g.ID, 0, steps, g.UpdatedAt); err != nil {
		return err
	}
	ord := map[int]int{}
	for _, t := range turns {
		if _, err := tx.ExecContext(ctx, `INSERT INTO reasoning_turn_entries (graph_id, turn, ord, session_id, entry_id)
			VALUES (?, ?, ?, ?, ?)`, g.ID, t.Turn, ord[t.Turn], t.SessionID, t.EntryID); err != nil {
			return fmt.Errorf("store: unable to save turn %d of reasoning graph %s: %w", t.Turn, g.ID, err)
		}
		ord[t.Turn]++
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit reasoning graph %s: %w", g.ID, err)
	}
	return nil
}

// insertReasoningSteps inserts steps as seq first, first+1, ….
func insertReasoningSteps(ctx context.Context, tx *sql.Tx, graphID string, first int, steps []ReasoningStep, at time.Time) error {
	for i, st := range steps {
		if _, err := tx.ExecContext(ctx, `INSERT INTO reasoning_steps (graph_id, seq, kind, step, summary, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, graphID, first+i, st.Kind, string(st.Step), jsonOr(st.Summary, "{}"), isoTime(at)); err != nil {
			return fmt.Errorf("store: unable to save step %d of reasoning graph %s: %w", first+i, graphID, err)
		}
	}
	return nil
}

// jsonOr is b as a string, or def when b is empty.
func jsonOr(b []byte, def string) string {
	if len(b) == 0 {
		return def
	}
	return string(b)
}

// AppendReasoningSteps adds steps to graph id after its step after-1 (after
// is the step count the caller read), and sets what the graph is now:
// snapshot and counts. It is one transaction; when the graph has another
// step count by then (another window or process applied an operation) it
// writes nothing and returns an error wrapping ErrReasoningChanged, and one
// wrapping ErrNotFound for a graph that is not there.
func (s *Store) AppendReasoningSteps(ctx context.Context, id string, after int, steps []ReasoningStep, snapshot, counts []byte) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin saving steps of reasoning graph %s: %w", id, err)
	}
	defer tx.Rollback()
	var have int
	err = tx.QueryRowContext(ctx, `SELECT steps FROM reasoning_graphs WHERE id = ?`, id).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("store: unable to find reasoning graph %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: unable to read reasoning graph %s: %w", id, err)
	}
	if have != after {
		return fmt.Errorf("%w: %s has %d steps, not %d", ErrReasoningChanged, id, have, after)
	}
	now := time.Now().UTC()
	if err := insertReasoningSteps(ctx, tx, id, after, steps, now); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE reasoning_graphs SET snapshot = ?, counts = ?, steps = ?, updated_at = ? WHERE id = ?`,
		string(snapshot), jsonOr(counts, "{}"), after+len(steps), isoTime(now), id); err != nil {
		return fmt.Errorf("store: unable to update reasoning graph %s: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit steps of reasoning graph %s: %w", id, err)
	}
	return nil
}

// SetReasoningMessages gives graph id its conversation (a JSON list), when it
// has none yet or has exactly these messages; otherwise it writes nothing
// and says so. The error wraps ErrNotFound for a graph that is not there.
func (s *Store) SetReasoningMessages(ctx context.Context, id string, messages []byte) error {
	res, err := s.execWrite(ctx, `UPDATE reasoning_graphs SET messages = ?, updated_at = ? WHERE id = ? AND (messages = '' OR messages = ?)`,
		string(messages), isoTime(time.Now()), id, string(messages))
	if err != nil {
		return fmt.Errorf("store: unable to save the conversation of reasoning graph %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := s.ReasoningListing(ctx, id); err != nil {
			return err
		}
		return fmt.Errorf("store: reasoning graph %s already has another conversation", id)
	}
	return nil
}

const reasoningListingColumns = `id, title, source_name, source_sha256, session_id, model, steps, counts,
	CASE WHEN messages = '' THEN 0 ELSE json_array_length(messages) END, created_at, updated_at`

func scanReasoningListing(r scanner) (*ReasoningListing, error) {
	var l ReasoningListing
	var counts, created, updated string
	if err := r.Scan(&l.ID, &l.Title, &l.SourceName, &l.SourceSHA256, &l.SessionID, &l.Model, &l.Steps, &counts,
		&l.Messages, &created, &updated); err != nil {
		return nil, err
	}
	l.Counts = []byte(counts)
	var err error
	if l.CreatedAt, err = parseLoomTime(created); err != nil {
		return nil, err
	}
	l.UpdatedAt, err = parseLoomTime(updated)
	return &l, err
}

// ReasoningGraphs lists every reasoning graph, most recently changed first.
func (s *Store) ReasoningGraphs(ctx context.Context) ([]ReasoningListing, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+reasoningListingColumns+` FROM reasoning_graphs ORDER BY updated_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list reasoning graphs: %w", err)
	}
	defer rows.Close()
	out := []ReasoningListing{}
	for rows.Next() {
		l, err := scanReasoningListing(rows)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read a reasoning graph: %w", err)
		}
		out = append(out, *l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list reasoning graphs: %w", err)
	}
	return out, nil
}

// ReasoningListing returns graph id as lists show it; the error wraps
// ErrNotFound when there is none.
func (s *Store) ReasoningListing(ctx context.Context, id string) (*ReasoningListing, error) {
	return reasoningListingBy(ctx, s.db, `id = ?`, id)
}

// ReasoningGraphBySource returns the graph imported from a file with SHA-256
// sha (hex), the first imported if several; the error wraps ErrNotFound when
// there is none.
func (s *Store) ReasoningGraphBySource(ctx context.Context, sha string) (*ReasoningListing, error) {
	return reasoningListingBy(ctx, s.db, `source_sha256 = ? AND source_sha256 <> '' ORDER BY created_at, id LIMIT 1`, sha)
}

func reasoningListingBy(ctx context.Context, q queryer, where string, arg any) (*ReasoningListing, error) {
	l, err := scanReasoningListing(q.QueryRowContext(ctx, `SELECT `+reasoningListingColumns+` FROM reasoning_graphs WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find reasoning graph %v: %w", arg, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch reasoning graph %v: %w", arg, err)
	}
	return l, nil
}

// ReasoningGraph returns graph id whole; the error wraps ErrNotFound when
// there is none.
func (s *Store) ReasoningGraph(ctx context.Context, id string) (*ReasoningGraph, error) {
	var g ReasoningGraph
	var snapshot, base, messages, counts, created, updated string
	err := s.db.QueryRowContext(ctx, `SELECT id, title, source_name, source_sha256, session_id, model, snapshot, base,
		messages, steps, counts, created_at, updated_at FROM reasoning_graphs WHERE id = ?`, id).
		Scan(&g.ID, &g.Title, &g.SourceName, &g.SourceSHA256, &g.SessionID, &g.Model, &snapshot, &base,
			&messages, &g.Steps, &counts, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: unable to find reasoning graph %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to fetch reasoning graph %s: %w", id, err)
	}
	g.Snapshot, g.Counts = []byte(snapshot), []byte(counts)
	if base != "" {
		g.Base = []byte(base)
	}
	if messages != "" {
		g.Messages = []byte(messages)
	}
	if g.CreatedAt, err = parseLoomTime(created); err != nil {
		return nil, err
	}
	if g.UpdatedAt, err = parseLoomTime(updated); err != nil {
		return nil, err
	}
	return &g, nil
}

// ReasoningSteps returns steps from..to-1 of graph id in order (fewer when
// the log is shorter), with their Step JSON when withStep, else only kind
// and summary.
func (s *Store) ReasoningSteps(ctx context.Context, id string, from, to int, withStep bool) ([]ReasoningStep, error) {
	col := `''`
	if withStep {
		col = `step`
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, `+col+`, summary FROM reasoning_steps
		WHERE graph_id = ? AND seq >= ? AND seq < ? ORDER BY seq`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the steps of reasoning graph %s: %w", id, err)
	}
	defer rows.Close()
	out := []ReasoningStep{}
	for rows.Next() {
		var st ReasoningStep
		var step, summary string
		if err := rows.Scan(&st.Seq, &st.Kind, &step, &summary); err != nil {
			return nil, fmt.Errorf("store: unable to read a step of reasoning graph %s: %w", id, err)
		}
		if withStep {
			st.Step = []byte(step)
		}
		st.Summary = []byte(summary)
		out = append(out, st)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the steps of reasoning graph %s: %w", id, err)
	}
	return out, nil
}

// ReasoningTurnEntries returns the session entries that turns of graph id
// were made from, by turn and then in the order they were given (file
// order) to CreateReasoningGraph (turns nil: every turn).
func (s *Store) ReasoningTurnEntries(ctx context.Context, id string, turns []int) ([]ReasoningTurnEntry, error) {
	q := `SELECT turn, session_id, entry_id FROM reasoning_turn_entries WHERE graph_id = ?`
	args := []any{id}
	if turns != nil {
		list, _ := json.Marshal(turns)
		q += ` AND turn IN (SELECT value FROM json_each(?))`
		args = append(args, string(list))
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY turn, ord`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the turns of reasoning graph %s: %w", id, err)
	}
	defer rows.Close()
	out := []ReasoningTurnEntry{}
	for rows.Next() {
		var t ReasoningTurnEntry
		if err := rows.Scan(&t.Turn, &t.SessionID, &t.EntryID); err != nil {
			return nil, fmt.Errorf("store: unable to read a turn of reasoning graph %s: %w", id, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the turns of reasoning graph %s: %w", id, err)
	}
	return out, nil
}

// DeleteReasoningGraph removes graph id with its steps and turn links; the
// error wraps ErrNotFound when there is none.
func (s *Store) DeleteReasoningGraph(ctx context.Context, id string) error {
	res, err := s.execWrite(ctx, `DELETE FROM reasoning_graphs WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("store: unable to delete reasoning graph %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: unable to find reasoning graph %s: %w", id, ErrNotFound)
	}
	return nil
}
