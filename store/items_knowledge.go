package store

import (
	"context"

	"rhizome/backend/link"
)

// resolveKnowledge looks up knowledge items (rhizome:knowledge/<id>): the
// current version's title, its kind and project as the detail, its
// provenance session and segment node as where it came from.
func (s *Store) resolveKnowledge(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, title, project, session_id, segment_node_id FROM knowledge
		WHERE id IN (SELECT value FROM json_each(?))`, idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var id, kind string
		if err := rows.Scan(&id, &kind, &r.Title, &r.Project, &r.SessionID, &r.NodeID); err != nil {
			return err
		}
		if r.Title == "" {
			r.Title = "(untitled " + kind + ")"
		}
		r.Detail = kind
		r.Item, r.Exists = link.Knowledge(id), true
		out[r.Item.String()] = r
	}
	return rows.Err()
}
