package store

import (
	"context"
	"fmt"
	"strings"

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
// all the same, for the findings to be shown. It returns ErrLoomTreeExists
// (wrapped) when the library already holds the tree.
func (s *Store) ImportLoomTree(ctx context.Context, data []byte) (*loom.Tree, []loom.Tamper, error) {
	t, err := loom.Import(data, s.LoomBlobs())
	if err != nil {
		return nil, nil, fmt.Errorf("store: unable to import a loom tree: %w", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM loom_trees WHERE id = ?`, t.ID).Scan(&n); err != nil {
		return nil, nil, fmt.Errorf("store: unable to look up loom tree %s: %w", t.ID, err)
	}
	if n > 0 {
		return nil, nil, fmt.Errorf("%w: %s (%q)", ErrLoomTreeExists, t.ID, t.Title)
	}
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
		if strings.Contains(err.Error(), "UNIQUE constraint failed: loom_nodes.id") {
			return nil, nil, fmt.Errorf("%w: its nodes are already in another tree: %v", ErrLoomTreeExists, err)
		}
		return nil, nil, err
	}
	return t, append(loom.VerifyTree(t), loom.VerifyBlobs(t, s.LoomBlobs())...), nil
}
