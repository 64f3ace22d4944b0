package store

// Loom nodes, their incoming edges, raw API responses and UI state; see
// loom.go.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rhizome/backend/loom"
)

// SaveLoomNode stores node nodeID of t, just added to it, with its incoming
// edge, raw response and state, and the tree's new updated time, in one
// transaction. Saving a node already stored with the same hash does nothing;
// with another hash it is an error (nodes are immutable).
func (s *Store) SaveLoomNode(ctx context.Context, t *loom.Tree, nodeID string) error {
	n := t.Node(nodeID)
	if n == nil {
		return fmt.Errorf("store: unable to save loom node %s: not in tree %s", nodeID, t.ID)
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin saving loom node %s: %w", nodeID, err)
	}
	defer tx.Rollback()
	var stored string
	err = tx.QueryRowContext(ctx, `SELECT content_hash FROM loom_nodes WHERE id = ?`, nodeID).Scan(&stored)
	switch {
	case err == nil && stored == n.ContentHash:
		return nil
	case err == nil:
		return fmt.Errorf("store: unable to save loom node %s: stored with another content hash (nodes are immutable)", nodeID)
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("store: unable to look up loom node %s: %w", nodeID, err)
	}
	if a, ok := t.Agent(n.AuthorAgentID); ok {
		if err := insertLoomAgent(ctx, tx, a); err != nil {
			return err
		}
	}
	if err := insertLoomNode(ctx, tx, t, n); err != nil {
		return err
	}
	if e := t.IncomingEdge(nodeID); e != nil {
		if err := insertLoomEdge(ctx, tx, e); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE loom_trees SET updated_at = max(updated_at, ?) WHERE id = ?`,
		loomTime(&t.UpdatedAt), t.ID); err != nil {
		return fmt.Errorf("store: unable to touch loom tree %s: %w", t.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit loom node %s: %w", nodeID, err)
	}
	return nil
}

func insertLoomAgent(ctx context.Context, q queryer, a loom.Agent) error {
	now := time.Now().UTC()
	if _, err := q.ExecContext(ctx, `INSERT INTO loom_agents (id, type, name, model_config_ref, local, created_at)
		VALUES (?, ?, ?, ?, 0, ?) ON CONFLICT (id) DO NOTHING`,
		a.ID, string(a.Type), a.Name, a.ModelConfigRef, loomTime(&now)); err != nil {
		return fmt.Errorf("store: unable to save loom agent %s: %w", a.ID, err)
	}
	return nil
}

func insertLoomNode(ctx context.Context, q queryer, t *loom.Tree, n *loom.Node) error {
	content, err := json.Marshal(n.Content)
	if err != nil {
		return fmt.Errorf("store: unable to encode the content of loom node %s: %w", n.ID, err)
	}
	parents, err := json.Marshal(n.Parents)
	if err != nil {
		return fmt.Errorf("store: unable to encode the parents of loom node %s: %w", n.ID, err)
	}
	var editedFrom any
	if n.EditedFrom != "" {
		editedFrom = n.EditedFrom
	}
	_, err = q.ExecContext(ctx, `INSERT INTO loom_nodes (id, tree_id, local_id, content, content_type, text, author_type,
		author_agent_id, content_hash, created_at, edited_from, parents, raw_response_hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		n.ID, n.TreeID, n.LocalID, string(content), string(n.Content.Type), n.Content.PlainText(), string(n.AuthorType),
		n.AuthorAgentID, n.ContentHash, loomTime(&n.CreatedAt), editedFrom, string(parents), n.RawResponseHash)
	if err != nil {
		return fmt.Errorf("store: unable to save loom node %s: %w", n.ID, err)
	}
	if n.Metadata != (loom.NodeMetadata{}) || n.Summary != "" {
		if err := upsertLoomNodeState(ctx, q, n.ID, n.Metadata, n.Summary); err != nil {
			return err
		}
	}
	if raw := t.RawResponse(n.ID); raw != nil {
		if _, err := q.ExecContext(ctx, `INSERT INTO raw_responses (node_id, sha256, data) VALUES (?, ?, ?)`,
			n.ID, loom.SHA256Hex(raw), raw); err != nil {
			return fmt.Errorf("store: unable to save the raw response of loom node %s: %w", n.ID, err)
		}
	}
	return nil
}

func insertLoomEdge(ctx context.Context, q queryer, e *loom.Edge) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO loom_edges (id, tree_id, target_node_id, type, created_at)
		VALUES (?, ?, ?, ?, ?)`, e.ID, e.TreeID, e.TargetNodeID, string(e.Type), loomTime(&e.CreatedAt)); err != nil {
		return fmt.Errorf("store: unable to save loom edge %s: %w", e.ID, err)
	}
	for i, src := range e.Sources {
		if _, err := q.ExecContext(ctx, `INSERT INTO loom_edge_sources (edge_id, position, node_id, role) VALUES (?, ?, ?, ?)`,
			e.ID, i, src.NodeID, string(src.Role)); err != nil {
			return fmt.Errorf("store: unable to save source %d of loom edge %s: %w", i, e.ID, err)
		}
	}
	return nil
}

func upsertLoomNodeState(ctx context.Context, q queryer, nodeID string, m loom.NodeMetadata, summary string) error {
	now := time.Now()
	if !m.Bookmarked {
		m.BookmarkLabel = ""
	}
	_, err := q.ExecContext(ctx, `INSERT INTO loom_node_state (node_id, bookmarked, bookmark_label, pruned, excluded, summary, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (node_id) DO UPDATE SET bookmarked = excluded.bookmarked, bookmark_label = excluded.bookmark_label,
			pruned = excluded.pruned, excluded = excluded.excluded, summary = excluded.summary, updated_at = excluded.updated_at`,
		nodeID, loomBool(m.Bookmarked), m.BookmarkLabel, loomBool(m.Pruned), loomBool(m.Excluded), summary, loomTime(&now))
	if err != nil {
		return fmt.Errorf("store: unable to save the state of loom node %s: %w", nodeID, err)
	}
	return nil
}

func loomBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetLoomNodeState saves node nodeID's UI state (bookmark, pruned,
// excluded); its summary is left alone. It returns ErrNotFound (wrapped) for
// an unknown node.
func (s *Store) SetLoomNodeState(ctx context.Context, nodeID string, m loom.NodeMetadata) error {
	if err := s.loomNodeExists(ctx, nodeID); err != nil {
		return err
	}
	if !m.Bookmarked {
		m.BookmarkLabel = ""
	}
	now := time.Now()
	_, err := s.execWrite(ctx, `INSERT INTO loom_node_state (node_id, bookmarked, bookmark_label, pruned, excluded, updated_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (node_id) DO UPDATE SET bookmarked = excluded.bookmarked, bookmark_label = excluded.bookmark_label,
			pruned = excluded.pruned, excluded = excluded.excluded, updated_at = excluded.updated_at`,
		nodeID, loomBool(m.Bookmarked), m.BookmarkLabel, loomBool(m.Pruned), loomBool(m.Excluded), loomTime(&now))
	if err != nil {
		return fmt.Errorf("store: unable to save the state of loom node %s: %w", nodeID, err)
	}
	return nil
}

// SetLoomNodeSummary saves node nodeID's generated summary. It returns
// ErrNotFound (wrapped) for an unknown node.
func (s *Store) SetLoomNodeSummary(ctx context.Context, nodeID, summary string) error {
	if err := s.loomNodeExists(ctx, nodeID); err != nil {
		return err
	}
	now := time.Now()
	_, err := s.execWrite(ctx, `INSERT INTO loom_node_state (node_id, summary, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (node_id) DO UPDATE SET summary = excluded.summary, updated_at = excluded.updated_at`,
		nodeID, summary, loomTime(&now))
	if err != nil {
		return fmt.Errorf("store: unable to save the summary of loom node %s: %w", nodeID, err)
	}
	return nil
}

func (s *Store) loomNodeExists(ctx context.Context, nodeID string) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM loom_nodes WHERE id = ?`, nodeID).Scan(&n); err != nil {
		return fmt.Errorf("store: unable to look up loom node %s: %w", nodeID, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: loom node %s", ErrNotFound, nodeID)
	}
	return nil
}

// LoomRawResponse returns the raw API response of model node nodeID. It
// returns ErrNotFound (wrapped) when none is stored.
func (s *Store) LoomRawResponse(ctx context.Context, nodeID string) ([]byte, error) {
	var data []byte
	err := s.db.QueryRowContext(ctx, `SELECT data FROM raw_responses WHERE node_id = ?`, nodeID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: raw response of loom node %s", ErrNotFound, nodeID)
	}
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the raw response of loom node %s: %w", nodeID, err)
	}
	return data, nil
}

// SetLoomSummaries saves, in one transaction, the generated summaries of
// nodes of tree treeID (node id -> summary) and, when tree is not nil, the
// tree's own (its summary column; its updated time is left alone, as the
// tree did not change). Unknown nodes are skipped; an unknown tree is
// ErrNotFound (wrapped).
func (s *Store) SetLoomSummaries(ctx context.Context, treeID string, nodes map[string]string, tree *string) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to save the summaries of loom tree %s: %w", treeID, err)
	}
	defer tx.Rollback()
	if tree != nil {
		res, err := tx.ExecContext(ctx, `UPDATE loom_trees SET summary = ? WHERE id = ?`, *tree, treeID)
		if err != nil {
			return fmt.Errorf("store: unable to save the summary of loom tree %s: %w", treeID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: loom tree %s", ErrNotFound, treeID)
		}
	}
	now := time.Now()
	for id, sum := range nodes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO loom_node_state (node_id, summary, updated_at)
			SELECT id, ?, ? FROM loom_nodes WHERE id = ? AND tree_id = ?
			ON CONFLICT (node_id) DO UPDATE SET summary = excluded.summary, updated_at = excluded.updated_at`,
			sum, loomTime(&now), id, treeID); err != nil {
			return fmt.Errorf("store: unable to save the summary of loom node %s: %w", id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to save the summaries of loom tree %s: %w", treeID, err)
	}
	return nil
}
