package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"rhizome/backend/link"
	"rhizome/backend/memobrain"
)

// resolveReasoning looks up reasoning graphs (rhizome:reasoning/<id>),
// titled by their title; Detail says how many nodes they hold.
func (s *Store) resolveReasoning(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, session_id, coalesce(json_extract(counts, '$.nodes'), 0)
		FROM reasoning_graphs WHERE id IN (SELECT value FROM json_each(?))`, idList(its, itemID))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r ItemRecord
		var id string
		var nodes int
		if err := rows.Scan(&id, &r.Title, &r.SessionID, &nodes); err != nil {
			return err
		}
		r.Detail = "reasoning graph, " + strconv.Itoa(nodes) + " nodes"
		r.Item, r.Exists, r.ReasoningID = link.Reasoning(id), true, id
		out[r.Item.String()] = r
	}
	return rows.Err()
}

// resolveReasoningNodes looks up nodes of reasoning graphs
// (rhizome:reasoning/<graph>/<node id>) in their graphs' snapshots as they
// are now, titled by their kind and first words; a node id the graph does
// not hold is missing.
func (s *Store) resolveReasoningNodes(ctx context.Context, its []link.Item, out map[string]ItemRecord) error {
	byGraph := map[string][]link.Item{}
	for _, it := range its {
		byGraph[it.Within] = append(byGraph[it.Within], it)
	}
	for graphID, nodes := range byGraph {
		var title string
		var snapshot []byte
		err := s.db.QueryRowContext(ctx, `SELECT title, snapshot FROM reasoning_graphs WHERE id = ?`, graphID).Scan(&title, &snapshot)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		snap, err := memobrain.ReadSnapshot(snapshot)
		if err != nil {
			return err
		}
		for _, it := range nodes {
			id, err := strconv.Atoi(it.ID)
			if err != nil {
				continue
			}
			n, ok := snap.Graph.Node(id)
			if !ok {
				continue
			}
			r := ItemRecord{Item: it, Exists: true, Detail: "in " + title, ReasoningID: graphID}
			r.Title = string(n.Kind) + " " + it.ID
			if words := firstWords(thoughtText(n.Thought)); words != "" {
				r.Title += ": " + words
			}
			out[it.String()] = r
		}
	}
	return nil
}

// thoughtText is what a reasoning node says: its text, or its notes' content.
func thoughtText(t memobrain.Thought) string {
	if t.Form == memobrain.ThoughtNotes || t.Form == memobrain.ThoughtEncodedNotes {
		var parts []string
		for _, n := range t.Notes {
			parts = append(parts, n.Content)
		}
		return strings.Join(parts, " ")
	}
	return t.Text
}
