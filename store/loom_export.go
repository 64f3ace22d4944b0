package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"rhizome/backend/loom"
)

// VerifyLoomTree loads tree id with its raw responses and checks its hash
// chain (loom.VerifyTree) and its image and audio files (loom.VerifyBlobs).
// It returns nil findings for an intact tree.
func (s *Store) VerifyLoomTree(ctx context.Context, id string) ([]loom.Tamper, error) {
	t, err := s.loadLoomTree(ctx, id, true)
	if err != nil {
		return nil, err
	}
	return append(loom.VerifyTree(t), loom.VerifyBlobs(t, s.LoomBlobs())...), nil
}

// ExportLoomTree writes tree id in Rhizome's export format (loom.Export),
// raw responses and image and audio bytes included.
func (s *Store) ExportLoomTree(ctx context.Context, id string) ([]byte, error) {
	t, err := s.loadLoomTree(ctx, id, true)
	if err != nil {
		return nil, err
	}
	data, err := t.Export(s.LoomBlobs())
	if err != nil {
		return nil, fmt.Errorf("store: unable to export loom tree %s: %w", id, err)
	}
	return data, nil
}

// ImportLoomTree stores a tree exported by ExportLoomTree (from this library
// or another), its blobs into the library's blob folder. A tree from another
// library's grove joins this library's grove (the grove is not hashed). It
// returns the tree and what loom.VerifyTree found: a tampered tree is stored
// all the same, for the findings to be shown. When the library already holds
// the tree (its id, or a node or edge id of it) it writes nothing and returns
// a *LoomTreeExistsError (errors.Is ErrLoomTreeExists): ImportLoomTreeCopy
// imports it under new ids.
func (s *Store) ImportLoomTree(ctx context.Context, data []byte) (*loom.Tree, []loom.Tamper, error) {
	t, err := loom.Import(data, s.LoomBlobs())
	if err != nil {
		return nil, nil, fmt.Errorf("store: unable to import a loom tree: %w", err)
	}
	if err := s.checkLoomTreeNew(ctx, t); err != nil {
		return nil, nil, err
	}
	return s.storeImportedLoomTree(ctx, t)
}

// ImportLoomTreeCopy stores a tree exported by ExportLoomTree as a copy with
// new ids (loom.ImportCopy), even when the library holds the original: the
// copy records the original's id and source (the file name). It returns the
// copy and what loom.VerifyTree found on it.
func (s *Store) ImportLoomTreeCopy(ctx context.Context, data []byte, source string) (*loom.Tree, []loom.Tamper, error) {
	t, err := loom.ImportCopy(data, s.LoomBlobs(), source, time.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("store: unable to import a copy of a loom tree: %w", err)
	}
	return s.storeImportedLoomTree(ctx, t)
}

// checkLoomTreeNew returns a *LoomTreeExistsError when the library holds
// tree t, one of its nodes or one of its edges, looked up by id.
func (s *Store) checkLoomTreeNew(ctx context.Context, t *loom.Tree) error {
	exists := func(id, in string) error {
		return &LoomTreeExistsError{TreeID: t.ID, Title: t.Title, NodeID: id, InTree: in}
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM loom_trees WHERE id = ?`, t.ID).Scan(&n); err != nil {
		return fmt.Errorf("store: unable to look up loom tree %s: %w", t.ID, err)
	}
	if n > 0 {
		return exists("", t.ID)
	}
	lookup := func(query, id string) error {
		var in string
		err := s.db.QueryRowContext(ctx, query, id).Scan(&in)
		switch {
		case err == nil:
			return exists(id, in)
		case errors.Is(err, sql.ErrNoRows):
			return nil
		}
		return fmt.Errorf("store: unable to look up %s of loom tree %s: %w", id, t.ID, err)
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

// storeImportedLoomTree stores an imported tree in this library's grove
// when its own is not here, and verifies it.
func (s *Store) storeImportedLoomTree(ctx context.Context, t *loom.Tree) (*loom.Tree, []loom.Tamper, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM groves WHERE id = ?`, t.GroveID).Scan(&n); err != nil {
		return nil, nil, fmt.Errorf("store: unable to look up grove %s: %w", t.GroveID, err)
	}
	if n == 0 {
		g, err := s.DefaultGrove(ctx)
		if err != nil {
			return nil, nil, err
		}
		t.GroveID = g.ID
	}
	if err := s.CreateLoomTree(ctx, t); err != nil {
		return nil, nil, err
	}
	return t, append(loom.VerifyTree(t), loom.VerifyBlobs(t, s.LoomBlobs())...), nil
}
