package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/patterns"
)

// UsageRecords returns every segment node's token use and cost per model
// (the node's observations.modelsUsed), placed at the segment's start, for
// patterns.UsageOverTime. Nodes without a time are left out.
func (s *Store) UsageRecords(ctx context.Context) ([]patterns.Usage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n.id, n.project, n.timestamp,
		coalesce(json_extract(m.value, '$.provider'), ''), coalesce(json_extract(m.value, '$.model'), ''),
		coalesce(json_extract(m.value, '$.tokensInput'), 0), coalesce(json_extract(m.value, '$.tokensOutput'), 0),
		coalesce(json_extract(m.value, '$.cacheRead'), 0), coalesce(json_extract(m.value, '$.cacheWrite'), 0),
		coalesce(json_extract(m.value, '$.cost'), 0)
	FROM nodes n, json_each(n.node, '$.observations.modelsUsed') m WHERE n.timestamp <> '' ORDER BY n.timestamp, n.pk`)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read token use: %w", err)
	}
	defer rows.Close()
	out := []patterns.Usage{}
	for rows.Next() {
		var u patterns.Usage
		var id, ts string
		if err := rows.Scan(&id, &u.Project, &ts, &u.Provider, &u.Model, &u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Cost); err != nil {
			return nil, fmt.Errorf("store: unable to read token use: %w", err)
		}
		u.Node, u.Time = link.Node(id), parseISOTime(ts)
		if u.Time.IsZero() {
			continue
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// hasTable reports whether the library has table name.
func (s *Store) hasTable(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: unable to read the schema: %w", err)
	}
	return n > 0, nil
}

// patternKind is the patterns package's name of a knowledge kind as the
// knowledge table writes it ("failedApproach" is "FailedApproach").
func patternKind(k string) patterns.Kind {
	if k == "" {
		return ""
	}
	return patterns.Kind(strings.ToUpper(k[:1]) + k[1:])
}

// PatternsGraph reads the graph the dashboard's patterns are computed from:
// every segment node (kind Segment, labelled by its summary, topics its tags
// and topics), the knowledge nodes of the knowledge table when the library
// has one (issue 9: decisions, corrections, exceptions, failed approaches,
// …, their sources the segments they were found in, SUPERSEDES edges from
// the stated supersessions), and the knowledge graph's typed edges. Nodes
// consolidation archived are marked so.
func (s *Store) PatternsGraph(ctx context.Context) (patterns.Graph, error) {
	g := patterns.Graph{Nodes: []patterns.Node{}, Edges: []patterns.Edge{}}
	archived := map[string]bool{}
	arows, err := s.db.QueryContext(ctx, `SELECT item FROM memory_state WHERE archived = 1`)
	if err != nil {
		return g, fmt.Errorf("store: unable to read the archive: %w", err)
	}
	for arows.Next() {
		var it string
		if err := arows.Scan(&it); err != nil {
			arows.Close()
			return g, fmt.Errorf("store: unable to read the archive: %w", err)
		}
		archived[it] = true
	}
	arows.Close()

	rows, err := s.db.QueryContext(ctx, `SELECT id, project, timestamp, summary, tags, topics FROM nodes WHERE timestamp <> '' ORDER BY pk`)
	if err != nil {
		return g, fmt.Errorf("store: unable to read the nodes for the patterns: %w", err)
	}
	for rows.Next() {
		var id, project, ts, summary, tags, topics string
		if err := rows.Scan(&id, &project, &ts, &summary, &tags, &topics); err != nil {
			rows.Close()
			return g, fmt.Errorf("store: unable to read the nodes for the patterns: %w", err)
		}
		n := patterns.Node{ID: link.Node(id), Kind: patterns.KindSegment, Project: project, Time: parseISOTime(ts),
			Label: summary, Topics: append(lines(tags), lines(topics)...)}
		n.Archived = archived[n.ID.String()]
		if !n.Time.IsZero() {
			g.Nodes = append(g.Nodes, n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return g, fmt.Errorf("store: unable to read the nodes for the patterns: %w", err)
	}

	ok, err := s.hasTable(ctx, "knowledge")
	if err != nil {
		return g, err
	}
	if ok {
		if err := s.knowledgeForPatterns(ctx, &g, archived); err != nil {
			return g, err
		}
	}
	edges, err := s.Edges(ctx)
	if err != nil {
		return g, err
	}
	for _, e := range edges {
		r, err := link.ParseRelation(e.Type)
		if err != nil {
			continue // structural edges (branch, resume, …) are no pattern's
		}
		g.Edges = append(g.Edges, patterns.Edge{Source: link.Node(e.SourceNodeID), Target: link.Node(e.TargetNodeID), Relation: r})
	}
	return g, nil
}

// knowledgeForPatterns adds the knowledge table's items and supersessions.
func (s *Store) knowledgeForPatterns(ctx context.Context, g *patterns.Graph, archived map[string]bool) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, kind, project, timestamp, title, status, segment_node_id,
		coalesce(json_extract(item, '$.topics'), '[]'), coalesce(json_extract(item, '$.exception.ruleBroken'), ''),
		coalesce(json_extract(item, '$.failedApproach.lesson'), '')
	FROM knowledge ORDER BY timestamp, id`)
	if err != nil {
		return fmt.Errorf("store: unable to read the knowledge nodes for the patterns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, kind, project, ts, title, status, seg, topics string
		var n patterns.Node
		if err := rows.Scan(&id, &kind, &project, &ts, &title, &status, &seg, &topics, &n.RuleBroken, &n.Lesson); err != nil {
			return fmt.Errorf("store: unable to read a knowledge node for the patterns: %w", err)
		}
		n.ID, n.Kind, n.Project, n.Label, n.Status = link.Knowledge(id), patternKind(kind), project, title, status
		n.Time = parseISOTime(ts)
		if n.Time.IsZero() {
			n.Time = time.Unix(0, 0).UTC()
		}
		_ = json.Unmarshal([]byte(topics), &n.Topics)
		if seg != "" {
			n.Sources = []link.Item{link.Node(seg)}
		}
		n.Archived = archived[n.ID.String()]
		g.Nodes = append(g.Nodes, n)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: unable to read the knowledge nodes for the patterns: %w", err)
	}
	ok, err := s.hasTable(ctx, "knowledge_supersessions")
	if err != nil || !ok {
		return err
	}
	srows, err := s.db.QueryContext(ctx, `SELECT newer, older FROM knowledge_supersessions`)
	if err != nil {
		return fmt.Errorf("store: unable to read the supersessions: %w", err)
	}
	defer srows.Close()
	for srows.Next() {
		var newer, older string
		if err := srows.Scan(&newer, &older); err != nil {
			return fmt.Errorf("store: unable to read the supersessions: %w", err)
		}
		g.Edges = append(g.Edges, patterns.Edge{Source: link.Knowledge(newer), Target: link.Knowledge(older), Relation: link.Supersedes})
	}
	return srows.Err()
}
