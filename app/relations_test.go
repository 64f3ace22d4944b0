package app

import (
	"strings"
	"testing"

	"rhizome/backend/link"
	"rhizome/backend/pisession/pitest"
)

// TestImportDerivesRelationsAcrossSessions imports the three real sessions
// (one project, pi-mono) and checks that the graph is no longer one
// disconnected chain per session: offline relations of the vocabulary join
// segments of different sessions, each with a confidence in (0, 1] and a
// rationale, and the three sessions form one connected component.
func TestImportDerivesRelationsAcrossSessions(t *testing.T) {
	l := newTestLib(t)
	rep := l.importPaths(t, pitest.Samples()...)
	if rep.RelationsError != "" {
		t.Fatalf("relations: %s", rep.RelationsError)
	}
	g, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	session := map[string]string{}
	for _, n := range g.Nodes {
		session[n.ID] = n.SessionID
	}
	cross, occurred := 0, 0
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if parent[x] == "" || parent[x] == x {
			return x
		}
		parent[x] = find(parent[x])
		return parent[x]
	}
	for _, e := range g.Edges {
		parent[find(session[e.Source])] = find(session[e.Target])
		if e.CreatedBy != "offline" {
			if e.Confidence != 1 {
				t.Errorf("boundary edge %s %s: confidence %v, want 1", e.Type, e.ID, e.Confidence)
			}
			continue
		}
		if _, ok := link.Lookup(link.Relation(e.Type)); !ok {
			t.Errorf("offline edge %s: type %q is not of the vocabulary", e.ID, e.Type)
		}
		if e.Confidence <= 0 || e.Confidence > 1 {
			t.Errorf("offline edge %s: confidence %v", e.ID, e.Confidence)
		}
		if strings.TrimSpace(e.Rationale) == "" {
			t.Errorf("offline edge %s: no rationale", e.ID)
		}
		if session[e.Source] != session[e.Target] {
			cross++
		}
		if e.Type == string(link.OccurredBefore) {
			occurred++
		}
	}
	if cross == 0 {
		t.Fatalf("no offline edge joins two sessions (%d edges)", len(g.Edges))
	}
	if occurred > 2 {
		t.Errorf("%d OCCURRED_BEFORE edges for 3 sessions of one project: only neighbours are related", occurred)
	}
	roots := map[string]bool{}
	for _, s := range session {
		roots[find(s)] = true
	}
	if len(roots) != 1 {
		t.Errorf("the 3 sessions form %d components, want 1", len(roots))
	}

	// Deriving again replaces, never duplicates.
	again, err := l.Graph.DeriveRelations("")
	if err != nil {
		t.Fatal(err)
	}
	g2, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	if countOffline(g2) != countOffline(g) || again.Edges != countOffline(g) {
		t.Errorf("deriving again: %d offline edges (report %d), first import %d", countOffline(g2), again.Edges, countOffline(g))
	}
	t.Logf("%d nodes, %d edges, %d offline relations", len(g.Nodes), len(g.Edges), countOffline(g))
}

func countOffline(g GraphData) int {
	n := 0
	for _, e := range g.Edges {
		if e.CreatedBy == "offline" {
			n++
		}
	}
	return n
}
