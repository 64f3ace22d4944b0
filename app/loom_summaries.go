package app

import (
	"context"

	"rhizome/backend/loom"
)

// The loom trees as the summaries worker sees them (summary_jobs.go): read
// under the tree's lock, and the summaries they show written into the tree
// in memory and in the library at once, so that the tree list, the tree map
// and the next node's prompt see them.

// readTree calls fn with tree treeID under its lock. fn must only read it.
func (l *Loom) readTree(treeID string, fn func(t *loom.Tree) error) error {
	return l.withTree(treeID, func(_ context.Context, t *loom.Tree) error { return fn(t) })
}

// setSummaries sets the generated summaries of nodes of tree treeID (node
// id -> text) and, when tree is not nil, the tree's, in the tree loaded and
// in the library. It does not tell the frontend (the summaries worker's
// "summary:updated" does), nor change the tree's updated time.
func (l *Loom) setSummaries(treeID string, nodes map[string]string, tree *string) error {
	return l.withTree(treeID, func(ctx context.Context, t *loom.Tree) error {
		if err := l.c.store.SetLoomSummaries(ctx, treeID, nodes, tree); err != nil {
			return err
		}
		for id, s := range nodes {
			if t.Node(id) != nil {
				_ = t.SetSummary(id, s)
			}
		}
		if tree != nil {
			t.Summary = *tree
		}
		return nil
	})
}
