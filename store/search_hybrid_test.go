package store

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/llm"
	"rhizome/backend/search"
)

// The hybrid search over the real sessions: a time expression becomes the
// temporal component, every result explains its score, filters keep what
// they name, a failing embedding endpoint leaves the other components, and
// bridges walk the library's edges.
func TestHybridSearch(t *testing.T) {
	s := analyzedLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	lsa := trainLSA(t, s, search.LSAOptions{})
	idx := embedLibrary(t, s, lsa, lsa.ID())
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	engine := &search.Engine{Source: s.SearchSource(), Embedder: lsa, Index: idx, Settings: search.DefaultSettings(), Narrower: &search.NarrowerCache{},
		Now: func() time.Time { return now }}

	resp, err := engine.Search(ctx, search.Request{Query: "rate limiting on 2026-01-12", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Time == nil || resp.Keyword != "rate limiting" || len(resp.Results) != 10 {
		t.Fatalf("read as %q, time %v, %d results", resp.Keyword, resp.Time, len(resp.Results))
	}
	for i, r := range resp.Results {
		var sum float64
		for _, p := range r.Why {
			sum += p.Contribution
		}
		if math.Abs(sum-r.Score) > 1e-9 {
			t.Errorf("result %d: why sums to %v, score %v", i, sum, r.Score)
		}
		if i < 3 && (r.Components.Temporal != 1 || !strings.HasPrefix(r.Doc.Time.Format(time.DateOnly), "2026-01-12")) {
			t.Errorf("result %d %s at %v: temporal %v", i, r.Doc.Item, r.Doc.Time, r.Components.Temporal)
		}
	}

	for _, f := range []search.Filter{
		{Tools: []string{"bash"}},
		{Kinds: []string{search.KindNode}, Files: []string{"server.ts"}},
		{Roles: []string{"user"}},
		{RelationTypes: []string{"branch"}},
	} {
		resp, err := engine.Search(ctx, search.Request{Query: "rate limiting middleware", Filter: f, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) == 0 {
			t.Errorf("%+v: no results", f)
		}
		for _, r := range resp.Results {
			if !f.Match(r.Doc) {
				t.Errorf("%+v let %s through: %+v", f, r.Doc.Item, r.Doc)
			}
		}
	}

	// An embedding endpoint that is down: the vector component is missing
	// and said so, the rest ranks as before.
	down, err := llm.NewEmbeddings(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	down.Retry = llm.RetryPolicy{}
	broken := *engine
	broken.Embedder = down
	resp, err = broken.Search(ctx, search.Request{Query: "theme selector", Limit: 5})
	if err != nil || resp.VectorError == "" || len(resp.Results) != 5 || resp.Results[0].Components.Vector != 0 {
		t.Errorf("with the endpoint down: %v, vector error %q, %d results", err, resp.VectorError, len(resp.Results))
	}

	// Bridges over the library's edges, from the nodes of a search.
	edges, err := s.SearchGraph(ctx)
	if err != nil || len(edges) == 0 {
		t.Fatalf("graph: %d edges, %v", len(edges), err)
	}
	g := search.NewGraph(edges)
	resp, _ = engine.Search(ctx, search.Request{Query: "rate limiting", Filter: search.Filter{Kinds: []string{search.KindNode}}, Limit: 5})
	var seeds []search.Hit
	for _, r := range resp.Results {
		seeds = append(seeds, search.Hit{Item: r.Doc.Item, Score: r.Score})
	}
	paths := g.Bridges(seeds, search.BridgeOptions{Limit: 10})
	if len(paths) == 0 {
		t.Fatal("no bridges from the rate limiting nodes")
	}
	for _, p := range paths {
		if len(p.Steps) != len(p.Nodes)-1 || p.Steps[0].Type == "" || p.Steps[0].Rationale == "" {
			t.Errorf("path %v", p)
		}
	}
	// In the v3 tree session, segment 2 (a branch from segment 0) reaches
	// segment 3 (a tree jump from 1, itself a tree jump from 0) in three
	// steps, the first followed backwards.
	from := analyzeNodeOf(t, s, "2026-01-12T09-00", 2)
	to := analyzeNodeOf(t, s, "2026-01-12T09-00", 3)
	conn := g.Connect(NodeItem(from), NodeItem(to), 3, 3)
	if len(conn) != 1 || len(conn[0].Steps) != 3 || conn[0].Steps[0].Type != "branch" || conn[0].Steps[0].Forward ||
		!slices.ContainsFunc(conn[0].Steps, func(st search.Step) bool { return st.Type == "tree_jump" && st.Forward }) {
		t.Errorf("segment 2 to 3: %v", conn)
	}
}

// analyzeNodeOf is the id of the node of segment idx of the session whose
// file name starts with prefix.
func analyzeNodeOf(t *testing.T, s *Store, prefix string, idx int) string {
	t.Helper()
	var id string
	if err := s.db.QueryRow(`SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk
		WHERE s.file_name LIKE ? || '%' AND n.segment_idx = ?`, prefix, idx).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// A query that names a day and a time of day brings the entries written
// then first, though no word of the question is in them.
func TestHybridTimeOfDay(t *testing.T) {
	s := analyzedLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	engine := &search.Engine{Source: s.SearchSource(), Settings: search.DefaultSettings(), Now: func() time.Time { return now }}
	resp, err := engine.Search(ctx, search.Request{Query: "what was I working on just before midnight on 20 November 2025",
		Filter: search.Filter{Kinds: []string{search.KindEntry}}, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	from := time.Date(2025, 11, 20, 21, 0, 0, 0, time.UTC)
	if resp.Time == nil || !resp.Time.Range.From.Equal(from) || resp.Keyword != "what was I working" {
		t.Fatalf("read as %q, time %+v", resp.Keyword, resp.Time)
	}
	for i, r := range resp.Results {
		if !resp.Time.Range.Contains(r.Doc.Time) {
			t.Errorf("result %d at %v, outside %v..%v", i, r.Doc.Time, resp.Time.Range.From, resp.Time.Range.To)
		}
	}
	if len(resp.Results) != 20 {
		t.Errorf("%d results, want 20", len(resp.Results))
	}
}
