package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/graph"
)

// RelationSegment is what the offline relation derivations (backend/relate)
// read of one segment node: where and when it is, the files it touched, its
// outcome and the text its user wrote (for issue and URL references).
type RelationSegment struct {
	ID        string
	SessionID string
	Project   string
	Start     time.Time // zero when the segment has no timestamp
	End       time.Time
	Files     []string
	Outcome   string
	UserText  string // the segment's user messages' searchable text, joined by newlines
}

// RelationSegments lists the current segment nodes of project (its cwd; ""
// lists every project's) for the relation derivations, in session and
// segment order. The user text is read from the stored entries of each
// segment (role "user"), at most maxUserBytes bytes of it per segment.
func (s *Store) RelationSegments(ctx context.Context, project string) ([]RelationSegment, error) {
	const maxUserBytes = 64 << 10
	query := `SELECT n.id, s.id, n.project, g.start_timestamp, g.end_timestamp, n.files, n.outcome,
		coalesce((SELECT substr(group_concat(e.text, char(10)), 1, ?) FROM entries e
			WHERE e.session_pk = g.session_pk AND e.seq BETWEEN g.start_seq AND g.end_seq AND e.role = 'user'), '')
	FROM nodes n JOIN sessions s ON s.pk = n.session_pk
	JOIN segments g ON g.session_pk = n.session_pk AND g.idx = n.segment_idx`
	args := []any{maxUserBytes}
	if project != "" {
		query += ` WHERE n.project = ?`
		args = append(args, project)
	}
	query += ` ORDER BY s.pk, n.segment_idx`
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list the segments of project %q for relations: %w", project, err)
	}
	defer rows.Close()
	out := []RelationSegment{}
	for rows.Next() {
		var r RelationSegment
		var start, end, files string
		if err := rows.Scan(&r.ID, &r.SessionID, &r.Project, &start, &end, &files, &r.Outcome, &r.UserText); err != nil {
			return nil, fmt.Errorf("store: unable to read a segment of project %q for relations: %w", project, err)
		}
		r.Start, _ = parseTime(start) // a segment without a time sorts first; the derivations cope
		r.End, _ = parseTime(end)
		if files != "" {
			r.Files = strings.Split(files, "\n")
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list the segments of project %q for relations: %w", project, err)
	}
	return out, nil
}

// ReplaceOfflineEdges replaces, in one transaction, the offline edges
// (created_by "offline") touching project's nodes with edges, which must all
// be CreatedByOffline. An edge whose ends are not both stored nodes (an
// external URL target) is skipped; skipped counts them. Edges made by the
// model, the user or a boundary are left alone.
func (s *Store) ReplaceOfflineEdges(ctx context.Context, project string, edges []graph.Edge) (stored, skipped int, err error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	if _, err := tx.tx.ExecContext(tx.ctx, `DELETE FROM edges WHERE created_by = 'offline' AND (
		source_id IN (SELECT id FROM nodes WHERE project = ?1) OR target_id IN (SELECT id FROM nodes WHERE project = ?1))`, project); err != nil {
		return 0, 0, fmt.Errorf("store: unable to delete the offline edges of project %q: %w", project, err)
	}
	exists, err := tx.tx.PrepareContext(tx.ctx, `SELECT (SELECT count(*) FROM nodes WHERE id = ?) + (SELECT count(*) FROM nodes WHERE id = ?)`)
	if err != nil {
		return 0, 0, fmt.Errorf("store: unable to save the offline edges of project %q: %w", project, err)
	}
	defer exists.Close()
	for i := range edges {
		e := &edges[i]
		if e.CreatedBy != graph.CreatedByOffline {
			return 0, 0, fmt.Errorf("store: unable to save the offline edges of project %q: edge %s -> %s is made by %q", project, e.SourceNodeID, e.TargetNodeID, e.CreatedBy)
		}
		var n int
		if err := exists.QueryRowContext(tx.ctx, e.SourceNodeID, e.TargetNodeID).Scan(&n); err != nil {
			return 0, 0, fmt.Errorf("store: unable to save the offline edges of project %q: %w", project, err)
		}
		if n != 2 {
			skipped++
			continue
		}
		if err := tx.PutEdge(e); err != nil {
			return 0, 0, err
		}
		stored++
	}
	if err := tx.Commit(); err != nil {
		return 0, 0, err
	}
	return stored, skipped, nil
}

// PutModelEdges stores the model's proposed relations from node source
// (created_by "model"), replacing the model edges that node had: an
// analysis states all its relations. A target that is not a stored node is
// skipped; skipped counts them.
func (t *Tx) PutModelEdges(source string, edges []graph.Edge) (skipped int, err error) {
	if _, err := t.tx.ExecContext(t.ctx, `DELETE FROM edges WHERE created_by = 'model' AND source_id = ?`, source); err != nil {
		return 0, fmt.Errorf("store: unable to delete the model edges of node %s: %w", source, err)
	}
	for i := range edges {
		e := &edges[i]
		var n int
		if err := t.tx.QueryRowContext(t.ctx, `SELECT count(*) FROM nodes WHERE id = ?`, e.TargetNodeID).Scan(&n); err != nil {
			return 0, fmt.Errorf("store: unable to look up node %s: %w", e.TargetNodeID, err)
		}
		if n == 0 || e.TargetNodeID == source {
			skipped++
			continue
		}
		e.SourceNodeID, e.CreatedBy = source, graph.CreatedByModel
		if err := t.PutEdge(e); err != nil {
			return 0, err
		}
	}
	return skipped, nil
}

// MarkRelationsPending records, in the writing transaction, that project's
// relations across sessions are to be derived again (migration 0087); a
// later mark replaces an earlier one.
func (t *Tx) MarkRelationsPending(project string, at time.Time) error {
	if _, err := t.exec(`INSERT INTO relations_pending (project, marked_at) VALUES (?, ?)
		ON CONFLICT (project) DO UPDATE SET marked_at = excluded.marked_at`, project, at.UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("store: unable to mark the relations of %s to derive: %w", project, err)
	}
	return nil
}

// RelationsPending returns the projects whose relations are to be derived
// again, each with its mark (for ClearRelationsPending).
func (s *Store) RelationsPending(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT project, marked_at FROM relations_pending`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the projects whose relations are to derive: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, at string
		if err := rows.Scan(&p, &at); err != nil {
			return nil, fmt.Errorf("store: unable to read the projects whose relations are to derive: %w", err)
		}
		out[p] = at
	}
	return out, rows.Err()
}

// ClearRelationsPending removes project's mark if it is still markedAt (the
// mark read before its relations were derived): a project marked again
// meanwhile stays marked.
func (s *Store) ClearRelationsPending(ctx context.Context, project, markedAt string) error {
	if _, err := s.execWrite(ctx, `DELETE FROM relations_pending WHERE project = ? AND marked_at = ?`, project, markedAt); err != nil {
		return fmt.Errorf("store: unable to clear the relations mark of %s: %w", project, err)
	}
	return nil
}
