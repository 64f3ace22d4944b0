package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/consolidate"
	"rhizome/backend/graph"
	"rhizome/backend/link"
)

// Consolidation's state (migrations/0080_memory.sql): relevance and archive
// flags per item, the MetaPatterns and edges consolidation made, and the
// log of each run. See issue 10, section 3.

// EdgesVersion changes whenever an edge of the graph is added or removed
// (the knowledge graph's edges and consolidation's): caches of the graph
// compare it.
func (s *Store) EdgesVersion(ctx context.Context) (string, error) {
	var n, top, m, mtop int64
	err := s.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM edges), (SELECT coalesce(max(rowid), 0) FROM edges),
		(SELECT count(*) FROM memory_edges), (SELECT count(*) FROM memory_state WHERE archived = 1)`).Scan(&n, &top, &m, &mtop)
	if err != nil {
		return "", fmt.Errorf("store: unable to read the graph's version: %w", err)
	}
	return fmt.Sprintf("%d.%d.%d.%d", n, top, m, mtop), nil
}

// NodeSummaries returns the summaries of the nodes asked for, by id
// (unknown ids are left out). A MetaPattern's id ("knowledge:<id>" items
// are not nodes) is not looked up here.
func (s *Store) NodeSummaries(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := s.db.QueryContext(ctx, `SELECT id, summary FROM nodes WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: unable to read node summaries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, sum string
		if err := rows.Scan(&id, &sum); err != nil {
			return nil, fmt.Errorf("store: unable to read node summaries: %w", err)
		}
		out[id] = sum
	}
	return out, rows.Err()
}

// ArchivedNodeIDs returns the ids of the segment nodes consolidation
// archived (the set is small: what forget took out).
func (s *Store) ArchivedNodeIDs(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT item FROM memory_state WHERE archived = 1 AND item LIKE 'rhizome:node/%'`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list archived nodes: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var item string
		if err := rows.Scan(&item); err != nil {
			return nil, fmt.Errorf("store: unable to list archived nodes: %w", err)
		}
		out[strings.TrimPrefix(item, "rhizome:node/")] = true
	}
	return out, rows.Err()
}

// MemoryEdges returns the edges consolidation made between segment nodes
// (both ends rhizome:node/ items), as graph edges made by consolidation.
func (s *Store) MemoryEdges(ctx context.Context) ([]graph.Edge, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT edge FROM memory_edges`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list consolidation's edges: %w", err)
	}
	defer rows.Close()
	var out []graph.Edge
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("store: unable to list consolidation's edges: %w", err)
		}
		var e consolidate.Edge
		if err := json.Unmarshal([]byte(b), &e); err != nil {
			return nil, fmt.Errorf("store: consolidation edge: %w", err)
		}
		if e.Source.Kind != link.KindNode || e.Target.Kind != link.KindNode {
			continue
		}
		out = append(out, graph.Edge{ID: e.ID, SourceNodeID: e.Source.ID, TargetNodeID: e.Target.ID, Type: string(e.Relation),
			CreatedBy: graph.EdgeCreator(e.CreatedBy), CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339),
			Metadata: map[string]any{"confidence": e.Confidence, "rationale": e.Note, "consolidation": true}})
	}
	return out, rows.Err()
}

// ConsolidationGraph reads the graph consolidation works on: every segment
// node (kind its type, label its summary, tags its tags and topics,
// importance from its JSON or consolidate.UnknownImportance, created at its
// segment's start) with its stored relevance (1 when never scored), archive
// flag, last access and vector (vector(item) may return nil), the
// MetaPatterns, the knowledge graph's edges and consolidation's. A node an
// edge made by a person touches is marked TouchedByPerson.
func (s *Store) ConsolidationGraph(ctx context.Context, vector func(nodeID string) []float32) (consolidate.Graph, error) {
	var g consolidate.Graph
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.type, n.summary, n.tags, n.topics, n.timestamp,
		coalesce(json_extract(n.node, '$.importance'), -1), coalesce(json_extract(n.node, '$.confidence'), -1),
		coalesce(m.relevance, -1), coalesce(m.archived, 0), coalesce(m.last_accessed, ''),
		EXISTS (SELECT 1 FROM edges e WHERE (e.source_id = n.id OR e.target_id = n.id) AND e.created_by = 'user')
	FROM nodes n LEFT JOIN memory_state m ON m.item = 'rhizome:node/' || n.id ORDER BY n.pk`)
	if err != nil {
		return g, fmt.Errorf("store: unable to read the graph to consolidate: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, typ, summary, tags, topics, ts, access string
		var imp, conf, rel float64
		var archived, touched bool
		if err := rows.Scan(&id, &typ, &summary, &tags, &topics, &ts, &imp, &conf, &rel, &archived, &access, &touched); err != nil {
			return g, fmt.Errorf("store: unable to read a node to consolidate: %w", err)
		}
		n := consolidate.Node{ID: link.Node(id), Kind: typ, Label: summary, Tags: append(lines(tags), lines(topics)...),
			Importance: consolidate.UnknownImportance, Confidence: consolidate.UnknownConfidence, Relevance: 1,
			Archived: archived, TouchedByPerson: touched, CreatedAt: parseISOTime(ts)}
		if n.Kind == "" {
			n.Kind = "segment"
		}
		if imp >= 0 && imp <= 1 {
			n.Importance = imp
		}
		if conf >= 0 && conf <= 1 {
			n.Confidence = conf
		}
		if rel >= 0 && rel <= 1 {
			n.Relevance = rel
		}
		if n.CreatedAt.IsZero() {
			n.CreatedAt = time.Unix(0, 0).UTC()
		}
		n.LastAccessed = parseISOTime(access)
		if vector != nil {
			n.Embedding = vector(id)
		}
		g.Nodes = append(g.Nodes, n)
	}
	if err := rows.Err(); err != nil {
		return g, fmt.Errorf("store: unable to read the graph to consolidate: %w", err)
	}
	mrows, err := s.db.QueryContext(ctx, `SELECT m.node, coalesce(st.relevance, -1), coalesce(st.archived, 0)
		FROM memory_nodes m LEFT JOIN memory_state st ON st.item = m.item ORDER BY m.created_at, m.item`)
	if err != nil {
		return g, fmt.Errorf("store: unable to read the MetaPatterns: %w", err)
	}
	defer mrows.Close()
	for mrows.Next() {
		var b string
		var rel float64
		var archived bool
		if err := mrows.Scan(&b, &rel, &archived); err != nil {
			return g, fmt.Errorf("store: unable to read a MetaPattern: %w", err)
		}
		var n consolidate.Node
		if err := json.Unmarshal([]byte(b), &n); err != nil {
			return g, fmt.Errorf("store: a MetaPattern: %w", err)
		}
		if rel >= 0 && rel <= 1 {
			n.Relevance = rel
		}
		n.Archived = archived
		g.Nodes = append(g.Nodes, n)
	}
	if err := mrows.Err(); err != nil {
		return g, fmt.Errorf("store: unable to read the MetaPatterns: %w", err)
	}
	edges, err := s.Edges(ctx)
	if err != nil {
		return g, err
	}
	for _, e := range edges {
		ce := consolidate.Edge{ID: e.ID, Source: link.Node(e.SourceNodeID), Target: link.Node(e.TargetNodeID),
			Relation: link.RelatesTo, Confidence: 1, CreatedBy: link.CreatedBy(e.CreatedBy), CreatedAt: parseISOTime(e.CreatedAt)}
		if r, err := link.ParseRelation(e.Type); err == nil {
			ce.Relation = r
		}
		if c, ok := e.Metadata["confidence"].(float64); ok && c >= 0 && c <= 1 {
			ce.Confidence = c
		}
		if !ce.CreatedBy.Valid() {
			ce.CreatedBy = link.ByOffline
		}
		g.Edges = append(g.Edges, ce)
	}
	erows, err := s.db.QueryContext(ctx, `SELECT edge FROM memory_edges ORDER BY created_at, id`)
	if err != nil {
		return g, fmt.Errorf("store: unable to read consolidation's edges: %w", err)
	}
	defer erows.Close()
	for erows.Next() {
		var b string
		if err := erows.Scan(&b); err != nil {
			return g, fmt.Errorf("store: unable to read consolidation's edges: %w", err)
		}
		var e consolidate.Edge
		if err := json.Unmarshal([]byte(b), &e); err != nil {
			return g, fmt.Errorf("store: a consolidation edge: %w", err)
		}
		g.Edges = append(g.Edges, e)
	}
	return g, erows.Err()
}

// ErrRunUndone is returned by UndoableRun for a run already undone, or a run
// that is itself an undo.
var ErrRunUndone = errors.New("store: the run was already undone")

// ApplyConsolidation applies a run's changes and keeps its log, in one
// transaction: scores and archive flags go to memory_state, MetaPatterns to
// memory_nodes, new edges to memory_edges. Removing a segment node is
// refused (consolidation never deletes what was imported); removing a
// MetaPattern or an edge consolidation made deletes it. When log.UndoOf is
// set, that run is marked undone by this one. A dry run is refused.
func (s *Store) ApplyConsolidation(ctx context.Context, log consolidate.RunLog, scheduled bool) error {
	if log.DryRun {
		return errors.New("store: unable to apply a dry run")
	}
	b, err := json.Marshal(log)
	if err != nil {
		return fmt.Errorf("store: unable to save a consolidation run: %w", err)
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to apply a consolidation run: %w", err)
	}
	defer tx.Rollback()
	for i, c := range log.Changes {
		if err := applyChange(ctx, tx, c); err != nil {
			return fmt.Errorf("store: unable to apply change %d (%s) of run %s: %w", i, c.Op, log.ID, err)
		}
	}
	cycles := make([]string, len(log.Cycles))
	for i, c := range log.Cycles {
		cycles[i] = string(c)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO memory_runs (id, at, cycles, undo_of, scheduled, log) VALUES (?, ?, ?, ?, ?, ?)`,
		log.ID, isoTime(log.At), strings.Join(cycles, ","), log.UndoOf, scheduled, string(b)); err != nil {
		return fmt.Errorf("store: unable to save consolidation run %s: %w", log.ID, err)
	}
	if log.UndoOf != "" {
		res, err := tx.ExecContext(ctx, `UPDATE memory_runs SET undone_by = ? WHERE id = ? AND undone_by = ''`, log.ID, log.UndoOf)
		if err != nil {
			return fmt.Errorf("store: unable to mark run %s undone: %w", log.UndoOf, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("store: run %s: %w", log.UndoOf, ErrRunUndone)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to apply a consolidation run: %w", err)
	}
	return nil
}

func putMemoryEdge(ctx context.Context, tx *sql.Tx, e consolidate.Edge) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO memory_edges (id, source, target, type, edge, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		e.ID, e.Source.String(), e.Target.String(), string(e.Relation), string(b), isoTime(e.CreatedAt))
	return err
}

func applyChange(ctx context.Context, tx *sql.Tx, c consolidate.Change) error {
	switch c.Op {
	case consolidate.OpScore:
		_, err := tx.ExecContext(ctx, `INSERT INTO memory_state (item, relevance) VALUES (?, ?)
			ON CONFLICT (item) DO UPDATE SET relevance = excluded.relevance`, c.Item.String(), c.After)
		return err
	case consolidate.OpArchive, consolidate.OpUnarchive:
		_, err := tx.ExecContext(ctx, `INSERT INTO memory_state (item, archived) VALUES (?, ?)
			ON CONFLICT (item) DO UPDATE SET archived = excluded.archived`, c.Item.String(), c.Op == consolidate.OpArchive)
		return err
	case consolidate.OpAddNode:
		if c.Node == nil {
			return errors.New("no node")
		}
		if c.Node.ID.Kind != link.KindKnowledge {
			return fmt.Errorf("%s: consolidation adds only MetaPatterns", c.Node.ID)
		}
		b, err := json.Marshal(c.Node)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_nodes (item, kind, node, created_at) VALUES (?, ?, ?, ?)`,
			c.Node.ID.String(), c.Node.Kind, string(b), isoTime(c.Node.CreatedAt)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO memory_state (item, relevance, archived) VALUES (?, ?, ?)
			ON CONFLICT (item) DO UPDATE SET relevance = excluded.relevance, archived = excluded.archived`,
			c.Node.ID.String(), c.Node.Relevance, c.Node.Archived); err != nil {
			return err
		}
		for _, e := range c.Edges {
			if err := putMemoryEdge(ctx, tx, e); err != nil {
				return err
			}
		}
		return nil
	case consolidate.OpRemoveNode:
		if c.Node == nil {
			return errors.New("no node")
		}
		if c.Node.ID.Kind != link.KindKnowledge {
			return fmt.Errorf("%s: consolidation never deletes an imported node", c.Node.ID)
		}
		for _, e := range c.Edges {
			if _, err := tx.ExecContext(ctx, `DELETE FROM memory_edges WHERE id = ?`, e.ID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM memory_nodes WHERE item = ?`, c.Node.ID.String()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM memory_state WHERE item = ?`, c.Node.ID.String())
		return err
	case consolidate.OpAddEdge:
		if c.Edge == nil {
			return errors.New("no edge")
		}
		return putMemoryEdge(ctx, tx, *c.Edge)
	case consolidate.OpRemoveEdge:
		if c.Edge == nil {
			return errors.New("no edge")
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM memory_edges WHERE id = ?`, c.Edge.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("edge %s: consolidation removes only edges it made", c.Edge.ID)
		}
		return nil
	}
	return fmt.Errorf("unknown op %q", c.Op)
}

// MemoryRun is a stored consolidation run.
type MemoryRun struct {
	Log       consolidate.RunLog
	UndoneBy  string
	Scheduled bool
}

// MemoryRuns returns the newest limit runs, newest first.
func (s *Store) MemoryRuns(ctx context.Context, limit int) ([]MemoryRun, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT log, undone_by, scheduled FROM memory_runs ORDER BY at DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list consolidation runs: %w", err)
	}
	defer rows.Close()
	var out []MemoryRun
	for rows.Next() {
		var r MemoryRun
		var b string
		if err := rows.Scan(&b, &r.UndoneBy, &r.Scheduled); err != nil {
			return nil, fmt.Errorf("store: unable to list consolidation runs: %w", err)
		}
		if err := json.Unmarshal([]byte(b), &r.Log); err != nil {
			return nil, fmt.Errorf("store: consolidation run log: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// MemoryRun returns the run id; the error wraps ErrNotFound when there is
// none.
func (s *Store) MemoryRun(ctx context.Context, id string) (MemoryRun, error) {
	var r MemoryRun
	var b string
	err := s.db.QueryRowContext(ctx, `SELECT log, undone_by, scheduled FROM memory_runs WHERE id = ?`, id).Scan(&b, &r.UndoneBy, &r.Scheduled)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("store: unable to find consolidation run %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return r, fmt.Errorf("store: unable to read consolidation run %q: %w", id, err)
	}
	if err := json.Unmarshal([]byte(b), &r.Log); err != nil {
		return r, fmt.Errorf("store: consolidation run %q: %w", id, err)
	}
	return r, nil
}

// LastCycleRuns returns when each cycle last ran (runs that were not
// undone, undo runs aside), for the schedule.
func (s *Store) LastCycleRuns(ctx context.Context) (map[consolidate.Cycle]time.Time, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT at, cycles FROM memory_runs WHERE undo_of = '' AND undone_by = ''`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read when consolidation last ran: %w", err)
	}
	defer rows.Close()
	out := map[consolidate.Cycle]time.Time{}
	for rows.Next() {
		var at, cycles string
		if err := rows.Scan(&at, &cycles); err != nil {
			return nil, fmt.Errorf("store: unable to read when consolidation last ran: %w", err)
		}
		t := parseISOTime(at)
		for _, c := range strings.Split(cycles, ",") {
			if cy := consolidate.Cycle(c); t.After(out[cy]) {
				out[cy] = t
			}
		}
	}
	return out, rows.Err()
}

// NodeVectors calls fn with the vector model made of each node (not the
// entries'), until fn returns an error (returned).
func (s *Store) NodeVectors(ctx context.Context, model string, fn func(nodeID string, v []float32) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT item, vector FROM search_vectors WHERE model = ? AND item >= 'node:' AND item < 'node;'`, model)
	if err != nil {
		return fmt.Errorf("store: unable to read the node vectors of %s: %w", model, err)
	}
	defer rows.Close()
	for rows.Next() {
		var item string
		var b []byte
		if err := rows.Scan(&item, &b); err != nil {
			return fmt.Errorf("store: unable to read the node vectors of %s: %w", model, err)
		}
		v, err := decodeVector(b)
		if err != nil {
			return fmt.Errorf("store: unable to read the vector of %s (%s): %w", item, model, err)
		}
		if err := fn(strings.TrimPrefix(item, "node:"), v); err != nil {
			return err
		}
	}
	return rows.Err()
}
