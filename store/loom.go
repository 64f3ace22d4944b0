package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/loom"
)

// Loom trees: groves, agents, trees, immutable nodes and edges, raw API
// responses and node UI state. Schema: migrations/0010_loom.sql. The domain
// (paths, versions, hashes) is backend/loom; here it is only stored, and a
// tree is always written from and read into a loom.Tree.

// ErrLoomTreeExists is returned (wrapped, as a *LoomTreeExistsError) by
// CreateLoomTree when the library already holds the tree.
var ErrLoomTreeExists = errors.New("store: the loom tree is already in the library")

// LoomTreeExistsError is the error of storing a tree the library already
// holds (an import of a tree exported from it), found by key in the
// transaction before anything is written: the tree's id, or the id of one
// of its nodes or edges already stored (a tree exported, then given another
// id). errors.Is(err, ErrLoomTreeExists) holds for it.
type LoomTreeExistsError struct {
	// TreeID and Title are the imported tree's.
	TreeID string
	Title  string
	// NodeID is the stored node or edge id found, "" when the tree's own id was.
	NodeID string
	// InTree is the stored tree holding it.
	InTree string
}

func (e *LoomTreeExistsError) Error() string {
	if e.NodeID == "" {
		return fmt.Sprintf("%v: %s (%q)", ErrLoomTreeExists, e.TreeID, e.Title)
	}
	return fmt.Sprintf("%v: %s (%q) holds %s, already stored in tree %s", ErrLoomTreeExists, e.TreeID, e.Title, e.NodeID, e.InTree)
}

// Is makes errors.Is(err, ErrLoomTreeExists) hold.
func (e *LoomTreeExistsError) Is(target error) bool { return target == ErrLoomTreeExists }

// loomTime formats t for the loom tables: UTC, milliseconds (the precision
// loom keeps), "" for nil.
func loomTime(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return loom.ISOTime(*t)
}

// parseLoomTime reads a loom table time; "" is the zero time.
func parseLoomTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: unable to read time %q: %w", s, err)
	}
	return t.UTC(), nil
}

// DefaultGrove returns the library's grove, making it on first use.
func (s *Store) DefaultGrove(ctx context.Context) (loom.Grove, error) {
	var g loom.Grove
	var created string
	err := s.db.QueryRowContext(ctx, `SELECT id, name, created_at FROM groves ORDER BY created_at, id LIMIT 1`).
		Scan(&g.ID, &g.Name, &created)
	if errors.Is(err, sql.ErrNoRows) {
		now := time.Now().UTC().Truncate(time.Millisecond)
		g = loom.Grove{ID: loom.NewID(now), Name: loom.DefaultGroveName, CreatedAt: now}
		if _, err := s.execWrite(ctx, `INSERT INTO groves (id, name, created_at) VALUES (?, ?, ?)`,
			g.ID, g.Name, loomTime(&g.CreatedAt)); err != nil {
			return loom.Grove{}, fmt.Errorf("store: unable to create the default grove: %w", err)
		}
		return s.DefaultGrove(ctx) // another writer may have made one first
	}
	if err != nil {
		return loom.Grove{}, fmt.Errorf("store: unable to read the default grove: %w", err)
	}
	g.CreatedAt, err = parseLoomTime(created)
	return g, err
}

// LoomHumanAgent returns the library's human agent, making it on first use.
func (s *Store) LoomHumanAgent(ctx context.Context) (loom.Agent, error) {
	return s.localAgent(ctx, loom.AuthorHuman, "", "You")
}

// LoomModelAgent returns the agent of the configured model modelConfigRef
// (the llm settings key), making it, named name, on first use: one agent per
// model.
func (s *Store) LoomModelAgent(ctx context.Context, modelConfigRef, name string) (loom.Agent, error) {
	if name == "" {
		name = modelConfigRef
	}
	return s.localAgent(ctx, loom.AuthorModel, modelConfigRef, name)
}

func (s *Store) localAgent(ctx context.Context, typ loom.AuthorType, ref, name string) (loom.Agent, error) {
	now := time.Now().UTC()
	if _, err := s.execWrite(ctx, `INSERT INTO loom_agents (id, type, name, model_config_ref, local, created_at)
		VALUES (?, ?, ?, ?, 1, ?) ON CONFLICT DO NOTHING`, loom.NewID(now), string(typ), name, ref, loomTime(&now)); err != nil {
		return loom.Agent{}, fmt.Errorf("store: unable to create the %s agent %q: %w", typ, ref, err)
	}
	a := loom.Agent{Type: typ}
	err := s.db.QueryRowContext(ctx, `SELECT id, name, model_config_ref FROM loom_agents
		WHERE type = ? AND local = 1 AND (type = 'human' OR model_config_ref = ?)`, string(typ), ref).
		Scan(&a.ID, &a.Name, &a.ModelConfigRef)
	if err != nil {
		return loom.Agent{}, fmt.Errorf("store: unable to read the %s agent %q: %w", typ, ref, err)
	}
	return a, nil
}

// LoomAgents returns every agent of the library, the library's own first.
func (s *Store) LoomAgents(ctx context.Context) ([]loom.Agent, error) {
	return s.queryLoomAgents(ctx, `1 ORDER BY local DESC, type, name, id`)
}

// queryLoomAgents returns the agents matching where (with its ORDER BY).
func (s *Store) queryLoomAgents(ctx context.Context, where string, args ...any) ([]loom.Agent, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, type, name, model_config_ref FROM loom_agents WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read loom agents: %w", err)
	}
	defer rows.Close()
	var out []loom.Agent
	for rows.Next() {
		var a loom.Agent
		var typ string
		if err := rows.Scan(&a.ID, &typ, &a.Name, &a.ModelConfigRef); err != nil {
			return nil, fmt.Errorf("store: unable to read a loom agent: %w", err)
		}
		a.Type = loom.AuthorType(typ)
		out = append(out, a)
	}
	return out, rows.Err()
}

// CreateLoomTree stores a new tree with every node, edge, raw response, node
// state and remembered active path it holds (the root alone, for a tree just made; everything, for
// an import), in one transaction. When the library already holds the tree,
// one of its nodes or one of its edges (looked up by id first) it writes
// nothing and returns a *LoomTreeExistsError (errors.Is ErrLoomTreeExists).
func (s *Store) CreateLoomTree(ctx context.Context, t *loom.Tree) error {
	return s.CreateLoomTreeWithLinks(ctx, t, nil)
}

// CreateLoomTreeWithLinks is CreateLoomTree storing links with the tree, in
// the same transaction (a tree imported with the links of its export): a
// link already stored under its id is left as it is.
func (s *Store) CreateLoomTreeWithLinks(ctx context.Context, t *loom.Tree, links []link.Link) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin saving loom tree %s: %w", t.ID, err)
	}
	defer tx.Rollback()
	if err := checkLoomTreeNew(ctx, tx, t); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO loom_trees (id, grove_id, title, description, summary, root_node_id, mode,
		system_context, created_at, updated_at, archived_at, copied_from, copy_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.GroveID, t.Title, t.Description, t.Summary, t.RootNodeID, string(t.Mode), t.SystemContext,
		loomTime(&t.CreatedAt), loomTime(&t.UpdatedAt), loomTime(t.ArchivedAt), t.CopiedFrom, t.CopySource)
	if err != nil {
		return fmt.Errorf("store: unable to save loom tree %s: %w", t.ID, err)
	}
	for _, a := range t.Agents() {
		if err := insertLoomAgent(ctx, tx, a); err != nil {
			return err
		}
	}
	for _, n := range t.Nodes() {
		if err := insertLoomNode(ctx, tx, t, n); err != nil {
			return err
		}
	}
	for _, e := range t.Edges() {
		if err := insertLoomEdge(ctx, tx, e); err != nil {
			return err
		}
	}
	if ap, ok := t.RememberedPath(); ok {
		if err := putLoomActivePath(ctx, tx, t.ID, ap); err != nil {
			return err
		}
	}
	for _, l := range links {
		if err := l.Validate(); err != nil {
			return fmt.Errorf("store: unable to save the links of loom tree %s: %w", t.ID, err)
		}
		if err := insertLink(ctx, tx, l, true); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit loom tree %s: %w", t.ID, err)
	}
	return nil
}

// checkLoomTreeNew returns a *LoomTreeExistsError when the library holds
// tree t, one of its nodes or one of its edges, looked up by id in q (the
// transaction that would store t).
func checkLoomTreeNew(ctx context.Context, q queryer, t *loom.Tree) error {
	exists := func(id, in string) error {
		return &LoomTreeExistsError{TreeID: t.ID, Title: t.Title, NodeID: id, InTree: in}
	}
	lookup := func(query, id string) error {
		var in string
		err := q.QueryRowContext(ctx, query, id).Scan(&in)
		switch {
		case err == nil:
			return exists(id, in)
		case errors.Is(err, sql.ErrNoRows):
			return nil
		}
		return fmt.Errorf("store: unable to look up %s of loom tree %s: %w", id, t.ID, err)
	}
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM loom_trees WHERE id = ?`, t.ID).Scan(&n); err != nil {
		return fmt.Errorf("store: unable to look up loom tree %s: %w", t.ID, err)
	}
	if n > 0 {
		return exists("", t.ID)
	}
	for _, node := range t.Nodes() {
		if err := lookup(`SELECT tree_id FROM loom_nodes WHERE id = ?`, node.ID); err != nil {
			return err
		}
	}
	for _, e := range t.Edges() {
		if err := lookup(`SELECT tree_id FROM loom_edges WHERE id = ?`, e.ID); err != nil {
			return err
		}
	}
	return nil
}

// CountLoomTrees returns how many trees grove groveID holds, archived ones
// included.
func (s *Store) CountLoomTrees(ctx context.Context, groveID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM loom_trees WHERE grove_id = ?`, groveID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: unable to count the trees of grove %s: %w", groveID, err)
	}
	return n, nil
}

// LoomGroveExists reports whether the library holds grove id.
func (s *Store) LoomGroveExists(ctx context.Context, id string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM groves WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("store: unable to look up grove %s: %w", id, err)
	}
	return n > 0, nil
}

// ListLoomTrees returns the trees of grove groveID ("" for every grove),
// most recently updated first, without archived ones unless archived.
func (s *Store) ListLoomTrees(ctx context.Context, groveID string, archived bool) ([]LoomTreeListing, error) {
	// Positions: every node but annotations and, in buffer mode, versions
	// (loom.Tree.Positions).
	q := `SELECT t.id, t.grove_id, t.title, t.description, t.summary, t.root_node_id, t.mode, t.system_context,
		t.created_at, t.updated_at, t.archived_at, t.copied_from, t.copy_source,
		(SELECT count(*) FROM loom_nodes n WHERE n.tree_id = t.id),
		(SELECT count(*) FROM loom_nodes n WHERE n.tree_id = t.id
			AND NOT (t.mode = 'buffer' AND n.edited_from IS NOT NULL)
			AND NOT EXISTS (SELECT 1 FROM loom_edges e WHERE e.target_node_id = n.id AND e.type = 'annotation'))
		FROM loom_trees t WHERE (? = '' OR t.grove_id = ?)`
	if !archived {
		q += ` AND t.archived_at = ''`
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY t.updated_at DESC, t.id`, groveID, groveID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list loom trees: %w", err)
	}
	defer rows.Close()
	out := []LoomTreeListing{}
	for rows.Next() {
		var l LoomTreeListing
		var err error
		l.LoomTree, err = scanLoomTree(rows, &l.Nodes, &l.Positions)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// LoomTreeListing is a tree of ListLoomTrees with its number of nodes and
// of positions (loom.Tree.Positions: what its tree map draws).
type LoomTreeListing struct {
	loom.LoomTree
	Nodes     int `json:"nodes"`
	Positions int `json:"positions"`
}

// scanLoomTree reads a loom_trees row: id, grove_id, title, description,
// summary, root_node_id, mode, system_context, created_at, updated_at,
// archived_at, copied_from, copy_source (and extra columns into extra).
func scanLoomTree(r scanner, extra ...any) (loom.LoomTree, error) {
	var t loom.LoomTree
	var mode, created, updated, archived string
	dest := append([]any{&t.ID, &t.GroveID, &t.Title, &t.Description, &t.Summary, &t.RootNodeID, &mode,
		&t.SystemContext, &created, &updated, &archived, &t.CopiedFrom, &t.CopySource}, extra...)
	if err := r.Scan(dest...); err != nil {
		return t, fmt.Errorf("store: unable to read a loom tree: %w", err)
	}
	t.Mode = loom.Mode(mode)
	var err error
	if t.CreatedAt, err = parseLoomTime(created); err != nil {
		return t, err
	}
	if t.UpdatedAt, err = parseLoomTime(updated); err != nil {
		return t, err
	}
	if archived != "" {
		at, err := parseLoomTime(archived)
		if err != nil {
			return t, err
		}
		t.ArchivedAt = &at
	}
	return t, nil
}

// UpdateLoomTree saves the editable fields of a tree: title, description,
// summary and system context, and its archived time; info.UpdatedAt is set
// to now. It returns ErrNotFound (wrapped) for an unknown tree.
func (s *Store) UpdateLoomTree(ctx context.Context, info *loom.LoomTree) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	res, err := s.execWrite(ctx, `UPDATE loom_trees SET title = ?, description = ?, summary = ?, system_context = ?,
		archived_at = ?, updated_at = ? WHERE id = ?`, info.Title, info.Description, info.Summary, info.SystemContext,
		loomTime(info.ArchivedAt), loomTime(&now), info.ID)
	if err != nil {
		return fmt.Errorf("store: unable to update loom tree %s: %w", info.ID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: loom tree %s", ErrNotFound, info.ID)
	}
	info.UpdatedAt = now
	return nil
}

// ArchiveLoomTree archives tree id (a soft delete: ListLoomTrees leaves it
// out) or, with archived false, restores it. It returns ErrNotFound
// (wrapped) for an unknown tree.
func (s *Store) ArchiveLoomTree(ctx context.Context, id string, archived bool) error {
	at := ""
	if archived {
		now := time.Now()
		at = loomTime(&now)
	}
	res, err := s.execWrite(ctx, `UPDATE loom_trees SET archived_at = ? WHERE id = ?`, at, id)
	if err != nil {
		return fmt.Errorf("store: unable to archive loom tree %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: loom tree %s", ErrNotFound, id)
	}
	return nil
}

// LoadLoomTree reads tree id with its nodes, node states, edges, agents and
// remembered active path.
// Raw API responses are left out (read them with LoomRawResponse, or load
// the tree with LoadLoomTreeWithRaw). It returns ErrNotFound (wrapped) for an
// unknown tree, and an error naming the node when a stored node cannot be
// read.
func (s *Store) LoadLoomTree(ctx context.Context, id string) (*loom.Tree, error) {
	return s.loadLoomTree(ctx, id, false)
}

// LoadLoomTreeWithRaw reads tree id as LoadLoomTree does, and the raw API
// responses of its model nodes: what verifying or exporting it needs.
func (s *Store) LoadLoomTreeWithRaw(ctx context.Context, id string) (*loom.Tree, error) {
	return s.loadLoomTree(ctx, id, true)
}

func (s *Store) loadLoomTree(ctx context.Context, id string, withRaw bool) (*loom.Tree, error) {
	info, err := scanLoomTree(s.db.QueryRowContext(ctx, `SELECT id, grove_id, title, description, summary, root_node_id,
		mode, system_context, created_at, updated_at, archived_at, copied_from, copy_source FROM loom_trees WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: loom tree %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	agents, err := s.loomTreeAgents(ctx, id)
	if err != nil {
		return nil, err
	}
	nodes, err := s.loomNodes(ctx, id)
	if err != nil {
		return nil, err
	}
	edges, err := s.loomEdges(ctx, id)
	if err != nil {
		return nil, err
	}
	t, err := loom.Restore(info, agents, nodes, edges)
	if err != nil {
		return nil, fmt.Errorf("store: unable to load loom tree %s: %w", id, err)
	}
	if err := s.loadLoomActivePath(ctx, t); err != nil {
		return nil, err
	}
	if withRaw {
		rows, err := s.db.QueryContext(ctx, `SELECT r.node_id, r.data FROM raw_responses r
			JOIN loom_nodes n ON n.id = r.node_id WHERE n.tree_id = ?`, id)
		if err != nil {
			return nil, fmt.Errorf("store: unable to read the raw responses of loom tree %s: %w", id, err)
		}
		defer rows.Close()
		for rows.Next() {
			var nodeID string
			var data []byte
			if err := rows.Scan(&nodeID, &data); err != nil {
				return nil, fmt.Errorf("store: unable to read a raw response of loom tree %s: %w", id, err)
			}
			if err := t.SetRawResponse(nodeID, data); err != nil {
				return nil, err
			}
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("store: unable to read the raw responses of loom tree %s: %w", id, err)
		}
	}
	return t, nil
}

func (s *Store) loomTreeAgents(ctx context.Context, treeID string) ([]loom.Agent, error) {
	agents, err := s.queryLoomAgents(ctx, `id IN (SELECT DISTINCT author_agent_id FROM loom_nodes WHERE tree_id = ?) ORDER BY id`, treeID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the agents of loom tree %s: %w", treeID, err)
	}
	return agents, nil
}

func (s *Store) loomNodes(ctx context.Context, treeID string) ([]*loom.Node, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.tree_id, n.local_id, n.content, n.author_type, n.author_agent_id,
		n.content_hash, n.created_at, coalesce(n.edited_from, ''), n.parents, n.raw_response_hash,
		coalesce(st.bookmarked, 0), coalesce(st.bookmark_label, ''), coalesce(st.pruned, 0), coalesce(st.excluded, 0),
		coalesce(st.summary, '')
		FROM loom_nodes n LEFT JOIN loom_node_state st ON st.node_id = n.id
		WHERE n.tree_id = ? ORDER BY n.created_at, n.id`, treeID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the nodes of loom tree %s: %w", treeID, err)
	}
	defer rows.Close()
	var out []*loom.Node
	for rows.Next() {
		n := &loom.Node{}
		var content, authorType, created, parents string
		var b, p, x int
		if err := rows.Scan(&n.ID, &n.TreeID, &n.LocalID, &content, &authorType, &n.AuthorAgentID, &n.ContentHash,
			&created, &n.EditedFrom, &parents, &n.RawResponseHash, &b, &n.Metadata.BookmarkLabel, &p, &x, &n.Summary); err != nil {
			return nil, fmt.Errorf("store: unable to read a node of loom tree %s: %w", treeID, err)
		}
		n.AuthorType = loom.AuthorType(authorType)
		n.Metadata.Bookmarked, n.Metadata.Pruned, n.Metadata.Excluded = b == 1, p == 1, x == 1
		if err := json.Unmarshal([]byte(content), &n.Content); err != nil {
			return nil, fmt.Errorf("store: unable to read the content of loom node %s: %w", n.ID, err)
		}
		if err := json.Unmarshal([]byte(parents), &n.Parents); err != nil {
			return nil, fmt.Errorf("store: unable to read the parents of loom node %s: %w", n.ID, err)
		}
		if n.CreatedAt, err = parseLoomTime(created); err != nil {
			return nil, fmt.Errorf("store: loom node %s: %w", n.ID, err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (s *Store) loomEdges(ctx context.Context, treeID string) ([]*loom.Edge, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.id, e.target_node_id, e.type, e.created_at,
		coalesce(src.node_id, ''), coalesce(src.role, '')
		FROM loom_edges e LEFT JOIN loom_edge_sources src ON src.edge_id = e.id
		WHERE e.tree_id = ? ORDER BY e.created_at, e.id, src.position`, treeID)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the edges of loom tree %s: %w", treeID, err)
	}
	defer rows.Close()
	var out []*loom.Edge
	for rows.Next() {
		var id, target, typ, created, source, role string
		if err := rows.Scan(&id, &target, &typ, &created, &source, &role); err != nil {
			return nil, fmt.Errorf("store: unable to read an edge of loom tree %s: %w", treeID, err)
		}
		if len(out) == 0 || out[len(out)-1].ID != id {
			at, err := parseLoomTime(created)
			if err != nil {
				return nil, fmt.Errorf("store: loom edge %s: %w", id, err)
			}
			out = append(out, &loom.Edge{ID: id, TreeID: treeID, TargetNodeID: target, Type: loom.EdgeType(typ),
				CreatedAt: at, Sources: []loom.EdgeSource{}})
		}
		if source != "" {
			e := out[len(out)-1]
			e.Sources = append(e.Sources, loom.EdgeSource{NodeID: source, Role: loom.Role(role)})
		}
	}
	return out, rows.Err()
}

// SetLoomActivePath remembers ap as the path tree treeID was last open on
// (UI state: loom.Tree.SetActivePath checks and normalises it). It returns
// ErrNotFound (wrapped) for an unknown tree.
func (s *Store) SetLoomActivePath(ctx context.Context, treeID string, ap loom.ActivePath) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("store: unable to begin saving the active path of loom tree %s: %w", treeID, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM loom_trees WHERE id = ?`, treeID).Scan(&n); err != nil {
		return fmt.Errorf("store: unable to look up loom tree %s: %w", treeID, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: loom tree %s", ErrNotFound, treeID)
	}
	if err := putLoomActivePath(ctx, tx, treeID, ap); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: unable to commit the active path of loom tree %s: %w", treeID, err)
	}
	return nil
}

// putLoomActivePath writes tree treeID's row of loom_active_paths.
func putLoomActivePath(ctx context.Context, q queryer, treeID string, ap loom.ActivePath) error {
	versions := ap.Versions
	if versions == nil {
		versions = map[string]string{}
	}
	v, err := json.Marshal(versions)
	if err != nil {
		return fmt.Errorf("store: unable to encode the active path of loom tree %s: %w", treeID, err)
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO loom_active_paths (tree_id, node_id, versions, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (tree_id) DO UPDATE SET node_id = excluded.node_id, versions = excluded.versions, updated_at = excluded.updated_at`,
		treeID, ap.NodeID, string(v), isoTime(time.Now())); err != nil {
		return fmt.Errorf("store: unable to save the active path of loom tree %s: %w", treeID, err)
	}
	return nil
}

// loadLoomActivePath gives t the active path stored for it, if any.
func (s *Store) loadLoomActivePath(ctx context.Context, t *loom.Tree) error {
	var nodeID, versions string
	err := s.db.QueryRowContext(ctx, `SELECT node_id, versions FROM loom_active_paths WHERE tree_id = ?`, t.ID).Scan(&nodeID, &versions)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: unable to read the active path of loom tree %s: %w", t.ID, err)
	}
	ap := loom.ActivePath{NodeID: nodeID}
	if err := json.Unmarshal([]byte(versions), &ap.Versions); err != nil {
		return fmt.Errorf("store: unable to read the active path of loom tree %s: versions: %w", t.ID, err)
	}
	if len(ap.Versions) == 0 {
		ap.Versions = nil
	}
	t.RestoreActivePath(ap)
	return nil
}
