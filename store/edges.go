package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"rhizome/backend/graph"
)

// EdgeID is the id of the edge of type typ from source to target: the first
// 32 hex characters (128 bits) of SHA-256("source|target|type"). Deterministic,
// so that importing a session again makes the same edges.
func EdgeID(source, target, typ string) string {
	sum := sha256.Sum256([]byte(source + "|" + target + "|" + typ))
	return hex.EncodeToString(sum[:16])
}

// PutEdge stores e, replacing a stored edge with the same id (whose creation
// time is kept). An empty e.ID is set to EdgeID, an empty CreatedAt to now;
// a boundary edge's zero Confidence is set to 1 (a boundary is certain).
func (t *Tx) PutEdge(e *graph.Edge) error {
	if e.ID == "" {
		e.ID = EdgeID(e.SourceNodeID, e.TargetNodeID, e.Type)
	}
	if e.CreatedAt == "" {
		e.CreatedAt = isoTime(time.Now())
	}
	if e.Confidence == 0 && e.CreatedBy == graph.CreatedByBoundary {
		e.Confidence = 1
	}
	if e.Confidence < 0 || e.Confidence > 1 || math.IsNaN(e.Confidence) {
		return fmt.Errorf("store: unable to save edge %s: confidence %v is not between 0 and 1", e.ID, e.Confidence)
	}
	md := e.Metadata
	if md == nil {
		md = map[string]any{}
	}
	b, err := json.Marshal(md)
	if err != nil {
		return fmt.Errorf("store: unable to encode the metadata of edge %s: %w", e.ID, err)
	}
	_, err = t.exec(`INSERT INTO edges (id, source_id, target_id, type, metadata, created_at, created_by,
		confidence, similarity, rationale)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (id) DO UPDATE SET metadata = excluded.metadata, created_by = excluded.created_by,
		confidence = excluded.confidence, similarity = excluded.similarity, rationale = excluded.rationale`,
		e.ID, e.SourceNodeID, e.TargetNodeID, e.Type, string(b), e.CreatedAt, string(e.CreatedBy),
		e.Confidence, e.Similarity, e.Rationale)
	if err != nil {
		return fmt.Errorf("store: unable to save edge %s (%s -> %s, %s): %w", e.ID, e.SourceNodeID, e.TargetNodeID, e.Type, err)
	}
	return nil
}

// DeleteEdgesInto removes the edges of type typ into node target (a forked
// session's fork edge, before it is linked again).
func (t *Tx) DeleteEdgesInto(target, typ string) error {
	if _, err := t.exec(`DELETE FROM edges WHERE target_id = ? AND type = ?`, target, typ); err != nil {
		return fmt.Errorf("store: unable to delete the %s edges into node %s: %w", typ, target, err)
	}
	return nil
}

// HasEdgeInto reports whether an edge of type typ goes into node target.
func (t *Tx) HasEdgeInto(target, typ string) (bool, error) {
	var n int
	if err := t.queryRow(`SELECT count(*) FROM edges WHERE target_id = ? AND type = ? LIMIT 1`, target, typ).Scan(&n); err != nil {
		return false, fmt.Errorf("store: unable to read the %s edges into node %s: %w", typ, target, err)
	}
	return n > 0, nil
}

func scanEdges(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) ([]graph.Edge, error) {
	out := []graph.Edge{}
	for rows.Next() {
		var e graph.Edge
		var md, by string
		var sim sql.NullFloat64
		if err := rows.Scan(&e.ID, &e.SourceNodeID, &e.TargetNodeID, &e.Type, &md, &e.CreatedAt, &by,
			&e.Confidence, &sim, &e.Rationale); err != nil {
			return nil, err
		}
		e.CreatedBy = graph.EdgeCreator(by)
		if sim.Valid {
			v := sim.Float64
			e.Similarity = &v
		}
		if err := json.Unmarshal([]byte(md), &e.Metadata); err != nil {
			return nil, fmt.Errorf("edge %s: metadata: %w", e.ID, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

const edgeColumns = `id, source_id, target_id, type, metadata, created_at, created_by, confidence, similarity, rationale`

// Edges lists every edge, by creation time.
func (s *Store) Edges(ctx context.Context) ([]graph.Edge, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+edgeColumns+` FROM edges ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list edges: %w", err)
	}
	defer rows.Close()
	out, err := scanEdges(rows)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list edges: %w", err)
	}
	return out, nil
}

// NodeEdges returns the edges into and out of node id.
func (s *Store) NodeEdges(ctx context.Context, id string) (incoming, outgoing []graph.Edge, err error) {
	for _, q := range []struct {
		column string
		out    *[]graph.Edge
	}{{"target_id", &incoming}, {"source_id", &outgoing}} {
		rows, err := s.db.QueryContext(ctx, `SELECT `+edgeColumns+` FROM edges WHERE `+q.column+` = ? ORDER BY type, id`, id)
		if err != nil {
			return nil, nil, fmt.Errorf("store: unable to list the edges of node %s: %w", id, err)
		}
		*q.out, err = scanEdges(rows)
		rows.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("store: unable to list the edges of node %s: %w", id, err)
		}
	}
	return incoming, outgoing, nil
}

// sessionEdgeCountsQuery counts the boundary edges out of and into the
// nodes of session ?1 by type, reaching them from the session's nodes
// (edges_source, edges_target) so that it reads only those edges, never
// every boundary edge of the library (once per imported file): CROSS JOIN
// makes SQLite loop over the nodes first, as it would not on a library
// without statistics. UNION counts an edge between two of its nodes once.
const sessionEdgeCountsQuery = `SELECT type, count(*) FROM (
		SELECT e.id, e.type FROM nodes n CROSS JOIN edges e ON e.source_id = n.id
		WHERE n.session_pk = ?1 AND e.created_by = 'boundary'
		UNION
		SELECT e.id, e.type FROM nodes n CROSS JOIN edges e ON e.target_id = n.id
		WHERE n.session_pk = ?1 AND e.created_by = 'boundary')
	GROUP BY type`

// SessionEdgeCounts counts the structural edges (created_by "boundary")
// touching the nodes of the session sessionPK (into or out of them) by type.
// The relations across sessions (offline, model, user) are not counted:
// they are derived after the import, for the whole project.
func (t *Tx) SessionEdgeCounts(sessionPK int64) (map[string]int, error) {
	rows, err := t.query(sessionEdgeCountsQuery, sessionPK)
	if err != nil {
		return nil, fmt.Errorf("store: unable to count the edges of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			return nil, fmt.Errorf("store: unable to count the edges of session %d: %w", sessionPK, err)
		}
		out[typ] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to count the edges of session %d: %w", sessionPK, err)
	}
	return out, nil
}
