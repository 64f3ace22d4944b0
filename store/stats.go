package store

import (
	"context"
	"fmt"
)

// Project is a working directory sessions ran in, with totals.
type Project struct {
	Path     string
	Sessions int
	Nodes    int
	Cost     float64 // USD
	// CostUnknown: some of the project's usage is of a model Rhizome has no
	// price for (a session's meta lists it unpriced): Cost is a lower bound.
	CostUnknown bool
}

// Projects lists the projects (session working directories), by path.
func (s *Store) Projects(ctx context.Context) ([]Project, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.cwd, count(*),
		coalesce(sum((SELECT count(*) FROM nodes n WHERE n.session_pk = s.pk)), 0),
		coalesce(sum((SELECT sum(n.cost) FROM nodes n WHERE n.session_pk = s.pk)), 0),
		coalesce(max(CASE WHEN json_valid(s.meta) THEN coalesce(json_array_length(s.meta, '$.unpriced'), 0) > 0 END), 0)
	FROM sessions s GROUP BY s.cwd ORDER BY s.cwd`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to list projects: %w", err)
	}
	defer rows.Close()
	out := []Project{}
	for rows.Next() {
		var p Project
		if err := rows.Scan(&p.Path, &p.Sessions, &p.Nodes, &p.Cost, &p.CostUnknown); err != nil {
			return nil, fmt.Errorf("store: unable to read a project: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to list projects: %w", err)
	}
	return out, nil
}

// Stats counts what the library holds. Cost is USD; NodesByType counts the
// current nodes by node type.
type Stats struct {
	Sessions    int
	Entries     int
	Nodes       int
	Edges       int
	Projects    int
	Cost        float64
	Tokens      int64
	NodesByType map[string]int
}

// Stats counts sessions, entries, nodes, edges and projects, and sums cost
// and tokens over the nodes.
func (s *Store) Stats(ctx context.Context) (*Stats, error) {
	st := &Stats{NodesByType: map[string]int{}}
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM sessions),
		(SELECT coalesce(sum(entries), 0) FROM sessions),
		(SELECT count(*) FROM nodes),
		(SELECT count(*) FROM edges),
		(SELECT count(DISTINCT cwd) FROM sessions),
		(SELECT coalesce(sum(cost), 0) FROM nodes),
		(SELECT coalesce(sum(tokens), 0) FROM nodes)`).
		Scan(&st.Sessions, &st.Entries, &st.Nodes, &st.Edges, &st.Projects, &st.Cost, &st.Tokens)
	if err != nil {
		return nil, fmt.Errorf("store: unable to count the library: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT type, count(*) FROM nodes GROUP BY type`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to count nodes by type: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			return nil, fmt.Errorf("store: unable to count nodes by type: %w", err)
		}
		st.NodesByType[typ] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to count nodes by type: %w", err)
	}
	return st, nil
}
