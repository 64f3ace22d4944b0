package store

import (
	"context"
	"fmt"
	"sort"

	"rhizome/backend/search"
)

func parse(q string) search.Query { return search.ParseQuery(q) }

// legacySearch is Search as it was before the keyword index (FTS5 alone:
// every match ranked, joined and given a snippet before the best are kept),
// kept as the baseline `make bench` measures against in the same run.
func legacySearch(ctx context.Context, s *Store, q string, limit int) ([]SearchHit, error) {
	hits := []SearchHit{}
	match := MatchQuery(q)
	if match == "" || limit <= 0 {
		return hits, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, s.id, n.summary,
		snippet(nodes_fts, -1, char(1), char(2), '…', 24), bm25(nodes_fts, 4.0, 2.0, 2.0, 1.0) AS rank
	FROM nodes_fts JOIN nodes n ON n.pk = nodes_fts.rowid JOIN sessions s ON s.pk = n.session_pk
	WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search nodes for %q: %w", q, err)
	}
	for rows.Next() {
		h := SearchHit{Kind: "node"}
		var rank float64
		if err := rows.Scan(&h.NodeID, &h.SessionID, &h.Title, &h.Snippet, &rank); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: unable to read a node hit: %w", err)
		}
		h.Score = -rank
		hits = append(hits, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to search nodes for %q: %w", q, err)
	}

	rows, err = s.db.QueryContext(ctx, `SELECT e.seq, e.type, e.role, s.id,
		CASE WHEN s.name <> '' THEN s.name ELSE s.file_name END,
		coalesce((SELECT n.id FROM segments g JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			WHERE g.session_pk = e.session_pk AND g.start_seq <= e.seq AND g.end_seq >= e.seq LIMIT 1), ''),
		snippet(entries_fts, 0, char(1), char(2), '…', 24), bm25(entries_fts) AS rank
	FROM entries_fts JOIN entries e ON e.pk = entries_fts.rowid JOIN sessions s ON s.pk = e.session_pk
	WHERE entries_fts MATCH ? ORDER BY rank LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("store: unable to search entries for %q: %w", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		h := SearchHit{Kind: "entry"}
		var typ, role, session string
		var rank float64
		if err := rows.Scan(&h.EntrySeq, &typ, &role, &h.SessionID, &session, &h.NodeID, &h.Snippet, &rank); err != nil {
			return nil, fmt.Errorf("store: unable to read an entry hit: %w", err)
		}
		what := typ
		if role != "" {
			what = role
		}
		h.Title = fmt.Sprintf("%s · %s #%d", session, what, h.EntrySeq)
		h.Score = -rank
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to search entries for %q: %w", q, err)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}
