package app

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/llm/llmtest"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/search"
)

// waitVectors waits for the embedding queue, failing the test on its error.
func waitVectors(t *testing.T, l *testLib) VectorStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := l.c.vectors.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st := l.Search.VectorStatus()
	if st.Error != "" {
		t.Fatalf("embedding queue: %s", st.Error)
	}
	return st
}

func countVectors(t *testing.T, l *testLib, model string) int {
	t.Helper()
	n := 0
	if err := l.st.Vectors(context.Background(), model, func(string, []float32) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// The hybrid search as the window calls it: ranked without vectors until
// the queue made them (and saying so), then with vectors from a local
// server speaking /v1/embeddings through the real client; a new embedding
// model drops the old vectors and makes them again; every hit explains its
// score; filters are read and refused by field; bridges and "how is A
// connected to B" walk the library's edges.
func TestHybridSearchEndToEnd(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	res, err := l.Search.Hybrid(HybridQuery{Query: "theme selector", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.VectorModel != "" || res.VectorNote == "" {
		t.Fatalf("before vectors: %d hits, model %q, note %q", len(res.Hits), res.VectorModel, res.VectorNote)
	}
	// No endpoint: the offline model, trained on the library's text.
	l.Search.RefreshVectors()
	if st := waitVectors(t, l); !strings.HasPrefix(st.Model, "lsa-") || st.Vectors == 0 {
		t.Fatalf("offline vectors: %+v", st)
	}
	res, err = l.Search.Hybrid(HybridQuery{Query: "theme selector", Limit: 10})
	if err != nil || !strings.HasPrefix(res.VectorModel, "lsa-") || res.VectorNote != "" {
		t.Fatalf("with offline vectors: model %q, note %q, %v", res.VectorModel, res.VectorNote, err)
	}

	srv := llmtest.NewOpenAIServer(1)
	base, stop, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	if _, err := l.Search.SetSearchSettings(SearchSettings{Weights: DefaultSearchSettings().Weights, DecayRate: 0.01,
		EmbeddingBaseURL: base, EmbeddingModel: "embed-a"}); err != nil {
		t.Fatal(err)
	}
	st := waitVectors(t, l)
	modelA := "endpoint:" + base + "#embed-a"
	if st.Model != modelA || st.Vectors == 0 || srv.EmbeddingRequests() == 0 {
		t.Fatalf("after the queue: %+v, %d requests", st, srv.EmbeddingRequests())
	}
	nA := countVectors(t, l, modelA)
	nodes := 0
	if err := l.st.NodeVectors(context.Background(), modelA, func(id string, v []float32) error {
		if len(id) != 16 || len(v) == 0 {
			t.Errorf("node vector %q of %d values", id, len(v))
		}
		nodes++
		return nil
	}); err != nil || nodes != 10 {
		t.Errorf("node vectors: %d of 10 nodes, %v", nodes, err)
	}

	res, err = l.Search.Hybrid(HybridQuery{Query: "theme selector", Limit: 10, Bridges: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.VectorModel != modelA || res.VectorNote != "" || len(res.Hits) != 10 {
		t.Fatalf("with vectors: model %q note %q, %d hits", res.VectorModel, res.VectorNote, len(res.Hits))
	}
	var withVector int
	for _, h := range res.Hits {
		var sum float64
		for _, p := range h.Why {
			sum += p.Contribution
			if p.Component == "vector" && p.Value > 0 {
				withVector++
			}
		}
		if math.Abs(sum-h.Score) > 1e-9 || len(h.Why) != 8 || !strings.HasPrefix(h.URI, "rhizome:") {
			t.Errorf("hit %s: why sums to %v, score %v, %d parts, uri %q", h.Item, sum, h.Score, len(h.Why), h.URI)
		}
	}
	if withVector == 0 {
		t.Error("no hit has a vector component")
	}
	if len(res.Bridges) == 0 {
		t.Error("no bridges from the hits")
	}
	for _, b := range res.Bridges {
		if len(b.NodeIDs) < 2 || len(b.NodeIDs) > 4 || len(b.Steps) != len(b.NodeIDs)-1 || len(b.Labels) != len(b.NodeIDs) {
			t.Errorf("bridge %+v", b)
		}
	}

	// How is the first node of a session connected to its last?
	data, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := data.Edges[0].Source, data.Edges[0].Target
	paths, err := l.Search.Connect("rhizome:node/"+a, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 || paths[0].NodeIDs[0] != a || paths[0].NodeIDs[len(paths[0].NodeIDs)-1] != b {
		t.Errorf("Connect(%s, %s) = %+v", a, b, paths)
	}
	if _, err := l.Search.Connect("rhizome:session/x", b, nil); err == nil || !strings.Contains(err.Error(), "not a node") {
		t.Errorf("Connect of a session: %v", err)
	}

	// A new model: the old vectors go, new ones are made.
	before := srv.EmbeddingRequests()
	if _, err := l.Search.SetSearchSettings(SearchSettings{Weights: DefaultSearchSettings().Weights, DecayRate: 0.01,
		EmbeddingBaseURL: base, EmbeddingModel: "embed-b"}); err != nil {
		t.Fatal(err)
	}
	st = waitVectors(t, l)
	if st.Model != "endpoint:"+base+"#embed-b" || countVectors(t, l, modelA) != 0 ||
		countVectors(t, l, st.Model) != nA || srv.EmbeddingRequests() == before {
		t.Errorf("after the model changed: %+v; %d old vectors left, %d new of %d", st, countVectors(t, l, modelA), countVectors(t, l, st.Model), nA)
	}

	// Filters.
	res, err = l.Search.Hybrid(HybridQuery{Query: "theme", Filter: SearchFilter{Kinds: []string{"entry"}, Roles: []string{"user"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Error("no user entries about theme")
	}
	for _, h := range res.Hits {
		if h.Kind != "entry" || h.Role != "user" {
			t.Errorf("filtered hit %+v", h)
		}
	}
	for _, c := range []struct {
		f    SearchFilter
		want string
	}{
		{SearchFilter{From: "yesterday"}, "filter.from"},
		{SearchFilter{From: "2026-01-02", To: "2026-01-01"}, "filter.to"},
		{SearchFilter{Kinds: []string{"session"}}, "filter.kinds"},
	} {
		if _, err := l.Search.Hybrid(HybridQuery{Query: "theme", Filter: c.f}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.f, err, c.want)
		}
	}
	if _, err := l.Search.SetSearchSettings(SearchSettings{Weights: SearchWeights{Vector: -1}}); err == nil || !strings.Contains(err.Error(), "vector") {
		t.Errorf("a negative weight: %v", err)
	}
	if _, err := l.Search.SetSearchSettings(SearchSettings{EmbeddingBaseURL: base}); err == nil || !strings.Contains(err.Error(), "embeddingModel") {
		t.Errorf("a base URL without a model: %v", err)
	}
}

// A forget run over old sessions archives what faded, never a node a
// person touched; archived nodes leave the graph and the search and come
// back with the filter; undo restores them exactly and cannot run twice; a
// dry run changes nothing.
func TestConsolidationForgetAndUndo(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Segment nodes only: knowledge nodes are drawn beside their segment and
	// leave the default graph with it (graph_knowledge.go).
	data, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	all := len(data.Nodes)
	// A person links two nodes: both are protected.
	p, q := data.Nodes[0].ID, data.Nodes[1].ID
	tx, err := l.st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.PutEdge(&graph.Edge{SourceNodeID: p, TargetNodeID: q, Type: "RELATES_TO", CreatedBy: graph.EdgeCreator("user")}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Five years on, everything is old and faded.
	later := time.Now().AddDate(5, 0, 0)
	l.Memory.now = func() time.Time { return later }

	dry, err := l.Memory.Consolidate(ConsolidateRequest{Cycles: []string{"forget"}, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || dry.ChangeCount == 0 {
		t.Fatalf("dry run: %+v", dry.Stats)
	}
	if runs, _ := l.Memory.Runs(0); len(runs) != 0 {
		t.Fatalf("a dry run was logged: %d runs", len(runs))
	}
	if d, _ := l.Graph.Graph(GraphFilter{NoKnowledge: true}); len(d.Nodes) != all {
		t.Fatalf("a dry run archived: %d of %d nodes left", len(d.Nodes), all)
	}

	run, err := l.Memory.Consolidate(ConsolidateRequest{Cycles: []string{"forget"}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stats[0].Archived == 0 || run.Spared < 2 {
		t.Fatalf("forget: %+v, %d spared", run.Stats, run.Spared)
	}
	for _, c := range run.Changes {
		if c.Item == "rhizome:node/"+p || c.Item == "rhizome:node/"+q {
			t.Errorf("forget changed a node a person touched: %+v", c)
		}
		if c.Op != "archive" || c.Label == "" {
			t.Errorf("change %+v", c)
		}
	}
	d, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nodes) != all-run.Stats[0].Archived {
		t.Errorf("graph after forget: %d nodes, want %d", len(d.Nodes), all-run.Stats[0].Archived)
	}
	if d, _ := l.Graph.Graph(GraphFilter{Archived: true, NoKnowledge: true}); len(d.Nodes) != all {
		t.Errorf("graph with archived: %d nodes, want %d", len(d.Nodes), all)
	}
	archived := strings.TrimPrefix(run.Changes[0].Item, "rhizome:node/")
	found := func(f SearchFilter) bool {
		res, err := l.Search.Hybrid(HybridQuery{Query: "theme colors selector", Filter: f, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, h := range res.Hits {
			ids[h.NodeID] = true
		}
		arch, _ := l.st.ArchivedNodeIDs(ctx)
		n := 0
		for id := range ids {
			if arch[id] {
				n++
			}
		}
		return n > 0
	}
	if found(SearchFilter{}) {
		t.Error("the search returns archived nodes")
	}
	arch, _ := l.st.ArchivedNodeIDs(ctx)
	hits, err := l.Search.Query("theme", 500)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if arch[h.NodeID] {
			t.Errorf("the search box returns archived node %s", h.NodeID)
			break
		}
	}
	if !found(SearchFilter{Archived: true}) {
		t.Error("the archived filter does not bring archived nodes back")
	}

	undo, err := l.Memory.Undo(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if undo.UndoOf != run.ID || undo.ChangeCount != run.ChangeCount {
		t.Errorf("undo %+v", undo)
	}
	if d, _ := l.Graph.Graph(GraphFilter{NoKnowledge: true}); len(d.Nodes) != all {
		t.Errorf("after undo: %d nodes, want %d (%s still archived?)", len(d.Nodes), all, archived)
	}
	if _, err := l.Memory.Undo(run.ID); err == nil || !strings.Contains(err.Error(), "already undone") {
		t.Errorf("a second undo: %v", err)
	}
	if _, err := l.Memory.Undo(undo.ID); err == nil || !strings.Contains(err.Error(), "is an undo") {
		t.Errorf("undoing an undo: %v", err)
	}
	runs, err := l.Memory.Runs(0)
	if err != nil || len(runs) != 2 || runs[1].UndoneBy != undo.ID {
		t.Errorf("runs %+v, %v", runs, err)
	}
	if _, err := l.Memory.Consolidate(ConsolidateRequest{Cycles: []string{"nap"}}); err == nil || !strings.Contains(err.Error(), "nap") {
		t.Errorf("an unknown cycle: %v", err)
	}
}

// The schedule: decay, creative and cluster are due on a library that never
// ran them; forget counts from the first time the schedule saw the library,
// so opening a library of old sessions does not archive it.
func TestConsolidationSchedule(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	l.Memory.now = func() time.Time { return now }
	due, err := l.Memory.Due()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(due, ",") != "decay,creative,cluster" {
		t.Fatalf("due on a new library: %v", due)
	}
	ran, err := l.Memory.runDue()
	if err != nil || !ran {
		t.Fatalf("runDue: %v, %v", ran, err)
	}
	if due, _ := l.Memory.Due(); len(due) != 0 {
		t.Errorf("due right after the run: %v", due)
	}
	now = now.Add(25 * time.Hour)
	if due, _ := l.Memory.Due(); strings.Join(due, ",") != "decay" {
		t.Errorf("a day later: %v", due)
	}
	now = now.AddDate(0, 0, 91)
	if due, _ := l.Memory.Due(); strings.Join(due, ",") != "decay,creative,cluster,forget" {
		t.Errorf("a quarter later: %v", due)
	}
	runs, _ := l.Memory.Runs(0)
	if len(runs) != 1 || !runs[0].Scheduled {
		t.Errorf("runs %+v", runs)
	}
}

// Hybrid hits are named as the rest of the window names things (issue 8):
// an entry by its session's title, never by its file name; a node by the
// summary it shows.
func TestHybridHitsNamedBySummaries(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	derive(t, l.App)
	res, err := l.Search.Hybrid(HybridQuery{Query: "theme colors", Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	for _, h := range res.Hits {
		if strings.Contains(h.Title, ".jsonl") {
			t.Errorf("hit %s titled by a file name: %q", h.URI, h.Title)
		}
		if h.Kind == "entry" {
			entries++
			if !strings.Contains(h.Title, " · ") {
				t.Errorf("entry hit %s: %q, want the session's title and the entry's place", h.URI, h.Title)
			}
		}
	}
	if entries == 0 {
		t.Fatal("no entry hits to check")
	}
}

// A library whose offline model an older Rhizome trained (unstemmed terms,
// "rhizome-lsa-1") still opens and searches: the command line ranks without
// vectors, and the queue trains a new model, re-embeds everything under
// its id and drops the old vectors.
func TestOutdatedOfflineModelRetrained(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	l.Search.RefreshVectors()
	first := waitVectors(t, l)
	ctx := context.Background()
	b, err := l.st.SearchBlob(ctx, lsaBlob)
	if err != nil {
		t.Fatal(err)
	}
	old := append([]byte("rhizome-lsa-1\n"), b[len("rhizome-lsa-2\n"):]...)
	if err := l.st.PutSearchBlob(ctx, lsaBlob, "lsa", old); err != nil {
		t.Fatal(err)
	}
	cli := &vectorQueue{c: l.c}
	if err := cli.load(ctx); err != nil {
		t.Fatalf("loading an outdated model: %v", err)
	}
	if st := cli.current(); st.embedder != nil {
		t.Fatalf("an outdated model was used for queries: %q", st.model)
	}
	l.Search.RefreshVectors()
	second := waitVectors(t, l)
	if !strings.HasPrefix(second.Model, "lsa-") || second.Model == "" || second.Vectors != first.Vectors {
		t.Fatalf("after retraining: %+v (before: %+v)", second, first)
	}
	if b, err := l.st.SearchBlob(ctx, lsaBlob); err != nil || !strings.HasPrefix(string(b), "rhizome-lsa-2\n") {
		t.Errorf("the library's model after retraining: %.14q, %v", b, err)
	}
	res, err := l.Search.Hybrid(HybridQuery{Query: "theme selector", Limit: 5})
	if err != nil || res.VectorModel != second.Model || len(res.Hits) == 0 {
		t.Fatalf("search after retraining: model %q, %d hits, %v", res.VectorModel, len(res.Hits), err)
	}
}

// The offline model learns again once the library holds twice the texts it
// learnt from: a library that starts with one small session and then takes
// two large ones gets a model that knows their words, and every vector is
// made anew under its id.
func TestOfflineModelRetrainedAsTheLibraryGrows(t *testing.T) {
	l := newTestLib(t)
	samples := pitest.SamplesDir()
	if _, err := l.Import.ImportPaths([]string{filepath.Join(samples, "session-with-compaction.jsonl")}); err != nil {
		t.Fatal(err)
	}
	l.Search.RefreshVectors()
	first := waitVectors(t, l)
	ctx := context.Background()
	m1 := loadLSA(t, l)
	_, id1 := offlineEmbedder(m1)
	if id1 != first.Model || int64(m1.Corpus()) > int64(first.Vectors)+10 {
		t.Fatalf("first model %s learnt from %d texts; status %+v", m1.ID(), m1.Corpus(), first)
	}
	if _, err := l.Import.ImportPaths([]string{filepath.Join(samples, "large-session.jsonl"), filepath.Join(samples, "compact-with-images.jsonl")}); err != nil {
		t.Fatal(err)
	}
	l.Search.RefreshVectors()
	second := waitVectors(t, l)
	m2 := loadLSA(t, l)
	_, id2 := offlineEmbedder(m2)
	if m2.ID() == m1.ID() || second.Model != id2 || m2.Corpus() < 2*m1.Corpus() {
		t.Fatalf("after the library grew: model %s (%d texts), status %+v; first %s (%d texts)", m2.ID(), m2.Corpus(), second, m1.ID(), m1.Corpus())
	}
	if n := countVectors(t, l, id1); n != 0 {
		t.Errorf("%d vectors of the outgrown model kept", n)
	}
	if n, err := l.st.CountVectors(ctx, id2); err != nil || int(n) != second.Vectors || n < int64(m2.Corpus())-10 {
		t.Errorf("%d vectors of the new model (%v), status says %d, it learnt from %d texts", n, err, second.Vectors, m2.Corpus())
	}
	// A word only the large session uses is known to the new model.
	v, _ := m2.Embed(ctx, []string{"palette"})
	old, _ := m1.Embed(ctx, []string{"palette"})
	if norm(v[0]) == 0 || norm(old[0]) != 0 {
		t.Errorf("\"palette\": new model %v, first model %v (want known only to the new one)", norm(v[0]), norm(old[0]))
	}
}

func loadLSA(t *testing.T, l *testLib) *search.LSA {
	t.Helper()
	b, err := l.st.SearchBlob(context.Background(), lsaBlob)
	if err != nil {
		t.Fatal(err)
	}
	m, err := search.UnmarshalLSA(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
