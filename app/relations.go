package app

import (
	"context"
	"fmt"
	"sort"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/backend/relate"
	"rhizome/store"
)

// RelationsReport says what deriving the offline relations of some
// projects stored.
type RelationsReport struct {
	Projects int            `json:"projects"`
	Segments int            `json:"segments"`
	Edges    int            `json:"edges"`   // stored, by all projects
	Skipped  int            `json:"skipped"` // relations to external URLs, not stored as edges
	ByType   map[string]int `json:"byType"`  // stored edges by relation
}

// deriveRelations derives the offline relations (backend/relate) of each
// project from its stored segment nodes and replaces the project's offline
// edges with them. Each project is read and derived on its own: the cost is
// linear in the project's segments (relate.Derive has no n² step).
func deriveRelations(ctx context.Context, st *store.Store, projects []string) (RelationsReport, error) {
	rep := RelationsReport{ByType: map[string]int{}}
	// The marks before deriving: a project an import marks again meanwhile
	// keeps its mark (migration 0087).
	marks, err := st.RelationsPending(ctx)
	if err != nil {
		return rep, err
	}
	seen := map[string]bool{}
	sorted := append([]string(nil), projects...)
	sort.Strings(sorted)
	for _, p := range sorted {
		if seen[p] {
			continue
		}
		seen[p] = true
		rows, err := st.RelationSegments(ctx, p)
		if err != nil {
			return rep, err
		}
		edges := relationEdges(rows)
		stored, skipped, err := st.ReplaceOfflineEdges(ctx, p, edges)
		if err != nil {
			return rep, err
		}
		if m, ok := marks[p]; ok {
			if err := st.ClearRelationsPending(ctx, p, m); err != nil {
				return rep, err
			}
		}
		rep.Projects++
		rep.Segments += len(rows)
		rep.Edges += stored
		rep.Skipped += skipped
		for _, e := range edges {
			rep.ByType[e.Type]++
		}
	}
	return rep, nil
}

// relationEdges runs the derivations over stored segments and returns the
// node-to-node relations as offline graph edges.
func relationEdges(rows []store.RelationSegment) []graph.Edge {
	segs := make([]relate.Segment, len(rows))
	for i, r := range rows {
		segs[i] = relate.Segment{ID: r.ID, SessionID: r.SessionID, Project: r.Project, Start: r.Start, End: r.End,
			Files: r.Files, Outcome: graph.Outcome(r.Outcome), Refs: relate.Refs(r.UserText)}
	}
	derived := relate.Derive(segs, relate.DefaultOptions())
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	out := make([]graph.Edge, 0, len(derived))
	for _, d := range derived {
		if d.Source.Kind != link.KindNode || d.Target.Kind != link.KindNode {
			continue // an external URL: REFERENCES to it is shown by the node's refs, not as an edge
		}
		out = append(out, graph.Edge{
			SourceNodeID: d.Source.ID, TargetNodeID: d.Target.ID, Type: string(d.Relation),
			Metadata: map[string]any{}, CreatedAt: now, CreatedBy: graph.CreatedByOffline,
			Confidence: d.Confidence, Similarity: d.Similarity, Rationale: d.Rationale,
		})
	}
	return out
}

// DeriveRelations derives the offline relations across sessions of project
// ("" for every project, each on its own) again and stores them, replacing
// the offline edges derived before. An import does it for the projects it
// changed; this is for a library imported before relations existed.
func (g *Graph) DeriveRelations(project string) (RelationsReport, error) {
	ctx := g.c.context()
	projects := []string{project}
	if project == "" {
		ps, err := g.c.store.Projects(ctx)
		if err != nil {
			return RelationsReport{}, err
		}
		projects = projects[:0]
		for _, p := range ps {
			projects = append(projects, p.Path)
		}
	}
	rep, err := g.c.relations.derive(ctx, projects)
	if err != nil {
		return rep, fmt.Errorf("app: unable to derive relations: %w", err)
	}
	g.c.emitEvent("library:changed", nil)
	return rep, nil
}
