package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/search"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// searchBenchQueries are the query classes `make bench` times, as a person
// types them (the last word of each also a prefix, as in the search box).
var searchBenchQueries = []struct {
	class   string
	queries []string
}{
	{"common", []string{"agent", "the", "to", "packages", "file", "session"}},
	{"rare", []string{"harmonious", "poem", "tmux", "oauth", "debugger", "vendored"}},
	{"phrase", []string{`"custom tool"`, `"the agent"`, `"read the file"`, `"compaction summary"`, `"dark theme"`}},
	{"mixed", []string{"agent poem", "the theme selector", "compaction hooks", "read file tmux", "custom tool harmonious"}},
}

// BenchmarkKeywordSearch times Search over a library of 258 real sessions
// (copies of the three samples with fresh ids: 214,484 entries, as in issue
// 10) for each query class, against the FTS5-only search it replaces
// (legacySearch, in the same run), and reports how close the champion
// ranking of common words comes to FTS5 ranking every match. Run with
// -benchtime 1x; RHIZOME_SEARCH_BENCH_DB names a library to use instead of
// building one (it is refreshed, not otherwise changed).
func BenchmarkKeywordSearch(b *testing.B) {
	ctx := context.Background()
	path := os.Getenv("RHIZOME_SEARCH_BENCH_DB")
	if path == "" {
		path = buildBenchLibrary(b, 258)
	}
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var entries int
	s.db.QueryRow(`SELECT count(*) FROM entries`).Scan(&entries)
	start := time.Now()
	rep, err := s.RefreshSearchIndex(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("library: %d entries; keyword index refresh: %d entries in %v (%d common terms)",
		entries, rep.Entries, time.Since(start).Round(time.Millisecond), rep.CommonTerms)
	for b.Loop() {
		for _, class := range searchBenchQueries {
			var now, before []time.Duration
			for _, q := range class.queries {
				for i := 0; i < 21; i++ {
					t := time.Now()
					if _, err := s.Search(ctx, q, 30); err != nil {
						b.Fatal(err)
					}
					if i > 0 { // the first run warms the cache
						now = append(now, time.Since(t))
					}
				}
				for i := 0; i < 4; i++ {
					t := time.Now()
					if _, err := legacySearch(ctx, s, q, 30); err != nil {
						b.Fatal(err)
					}
					if i > 0 {
						before = append(before, time.Since(t))
					}
				}
			}
			b.Logf("%-7s p50 %6.1f ms  p95 %6.1f ms   (FTS5 alone: p50 %6.1f ms  p95 %6.1f ms)  %s",
				class.class, ms(pct(now, 50)), ms(pct(now, 95)), ms(pct(before, 50)), ms(pct(before, 95)), strings.Join(class.queries, ", "))
		}
		// How good the champion ranking is: FTS5's bm25 of the 10 best
		// entries found, against that of FTS5's own 10 best.
		for _, q := range append(searchBenchQueries[0].queries, searchBenchQueries[2].queries...) {
			plan, err := s.planSearch(ctx, parse(q))
			if err != nil {
				b.Fatal(err)
			}
			hits, err := s.SearchWith(ctx, q, SearchFilter{Kinds: []string{"entry"}}, 10)
			if err != nil {
				b.Fatal(err)
			}
			ref := MatchQuery(q) // the prefix as FTS5 reads it, one phrase
			_, best := exactTopTB(b, s, ref, 10)
			got := ftsScoresTB(b, s, ref, hits)
			b.Logf("%-22s exact=%-5v bm25 of the 10 found / of FTS5's 10 best: %.3f", q, plan.exact(), sum(got)/sum(best))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func sum(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	if t == 0 {
		return 1
	}
	return t
}

func exactTopTB(tb testing.TB, s *Store, match string, n int) ([]int64, []float64) {
	rows, err := s.db.Query(`SELECT rowid, -rank FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rank LIMIT ?`, match, n)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var pks []int64
	var scores []float64
	for rows.Next() {
		var pk int64
		var sc float64
		rows.Scan(&pk, &sc)
		pks, scores = append(pks, pk), append(scores, sc)
	}
	return pks, scores
}

func ftsScoresTB(tb testing.TB, s *Store, match string, hits []SearchHit) []float64 {
	var out []float64
	for _, h := range hits {
		var sc float64
		if err := s.db.QueryRow(`SELECT -bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ? AND rowid = ?`, match, h.EntryPK).Scan(&sc); err != nil {
			tb.Fatal(err)
		}
		out = append(out, sc)
	}
	return out
}

// buildBenchLibrary writes n copies of the real sample sessions (fresh
// ids, round robin) and imports them, entries, segments and a node per
// segment, into a new library; it returns the library's path.
func buildBenchLibrary(tb testing.TB, n int) string {
	dir := tb.TempDir()
	corpus := filepath.Join(dir, "corpus")
	var sizes []int64
	names, _ := filepath.Glob(filepath.Join(sampleDir, "*.jsonl"))
	for _, f := range names {
		fi, err := os.Stat(f)
		if err != nil {
			tb.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	// WriteCorpus stops once it has written target bytes: aim just past
	// the first n-1 copies.
	var target int64
	for i := 0; i < n-1; i++ {
		target += sizes[i%len(sizes)]
	}
	files, _, err := pitest.WriteCorpus(sampleDir, corpus, target+1)
	if err != nil || files != n {
		tb.Fatalf("corpus: %d files, %v", files, err)
	}
	path := filepath.Join(dir, "library.db")
	s, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	copies, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	for _, f := range copies {
		if err := importForBench(s, f); err != nil {
			tb.Fatal(err)
		}
	}
	return path
}

// importForBench stores a session file's entries, segments and a node per
// segment (its summary the segment's first user text) in one transaction.
func importForBench(s *Store, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	rd := pisession.NewReader(f, file)
	hdr, err := rd.Header()
	if err != nil {
		return err
	}
	tx, err := s.Begin(context.Background())
	if err != nil {
		return err
	}
	defer tx.Rollback()
	sess := &Session{ID: hdr.ID, Path: file, FileName: filepath.Base(file), Cwd: hdr.Cwd, Version: hdr.Version, Header: hdr.Raw}
	if err := tx.PutSession(sess); err != nil {
		return err
	}
	b := segment.NewBuilder(segment.DefaultOptions())
	firstUser := ""
	putSeg := func(seg *segment.Segment) error {
		if err := tx.PutSegment(sess.PK, seg); err != nil {
			return err
		}
		n := &graph.Node{ID: EdgeID(sess.ID, seg.StartEntryID, "")[:16]}
		n.Content.Summary = firstUser
		n.Source.Segment.EntryCount = seg.EntryCount
		firstUser = ""
		return tx.PutNode(sess.PK, seg.Index, n, TriggerInitial)
	}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if st := b.Add(e); st.Closed != nil {
			if err := putSeg(st.Closed); err != nil {
				return err
			}
		}
		text := session.EntryText(e)
		if firstUser == "" && e.Message != nil && e.Message.Role == session.RoleUser {
			firstUser = text
		}
		if err := tx.InsertEntry(sess.PK, e, text, EntryExtra{}); err != nil {
			return err
		}
		sess.Entries++
	}
	if seg := b.Finish(); seg != nil {
		if err := putSeg(seg); err != nil {
			return err
		}
	}
	if err := tx.PutSession(sess); err != nil {
		return err
	}
	return tx.Commit()
}

// hybridBenchQueries are typed as a person asks.
var hybridBenchQueries = []string{
	"port the remaining selectors to the theme system", "invalid theme crashed pi on restart",
	"link colors in markdown", "thinking level colors are too intense", "what is the hook timeout for",
	"write a little poem", "api keys in the settings file", "does compaction take the previous summary into account",
	"limit login attempts per IP", "move the store from lib/pq to pgx", "custom tool", "agent", "the theme selector",
	"compaction last week", "release in December", "oauth", "tmux", "truncated text", "session header model", "dark theme",
}

// BenchmarkHybridSearch times the hybrid search over a library of 100,000
// nodes (summaries: the real sample sessions' messages, round robin; 2
// edges per node; times over a year) with the offline LSA model and the
// HNSW index, p50/p95 over hybridBenchQueries, against scoring every node
// (no candidate retrieval) in the same run. Run with -benchtime 1x.
func BenchmarkHybridSearch(b *testing.B) {
	ctx := context.Background()
	// RHIZOME_HYBRID_BENCH_DB keeps the library between runs (built when
	// the file is missing).
	path := os.Getenv("RHIZOME_HYBRID_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "library.db")
	}
	_, statErr := os.Stat(path)
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	texts := sampleTexts(b)
	const nodes = 100000
	const perSession = 100
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for sessNo := 0; statErr != nil && sessNo < nodes/perSession; sessNo++ {
		tx, err := s.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		sess := &Session{ID: fmt.Sprintf("bench-%05d", sessNo), Path: "bench", FileName: "bench.jsonl", Cwd: fmt.Sprintf("/src/project-%d", sessNo%20), Version: 3, Header: []byte(`{}`)}
		if err := tx.PutSession(sess); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < perSession; i++ {
			k := sessNo*perSession + i
			text := texts[k%len(texts)]
			words := strings.Fields(text)
			n := &graph.Node{ID: fmt.Sprintf("%016x", k+1)}
			n.Content.Summary = capText(text, 400)
			n.Semantic.Tags = words[:min(3, len(words))]
			n.Classification.Type = graph.NodeTypes[k%len(graph.NodeTypes)]
			n.Metadata.Timestamp = isoTime(base.Add(time.Duration(k) * 5 * time.Minute))
			if err := tx.PutSegment(sess.PK, &segment.Segment{Index: i, StartEntryID: "x", EndEntryID: "x"}); err != nil {
				b.Fatal(err)
			}
			if err := tx.PutNode(sess.PK, i, n, TriggerInitial); err != nil {
				b.Fatal(err)
			}
			if k > 0 {
				for _, t := range []int{k - 1, (k * 7919) % k} {
					if err := tx.PutEdge(&graph.Edge{SourceNodeID: n.ID, TargetNodeID: fmt.Sprintf("%016x", t+1), Type: "RELATES_TO", CreatedBy: graph.CreatedByBoundary}); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("library: %d nodes in %v", nodes, time.Since(start).Round(time.Second))
	start = time.Now()
	var corpus []string
	if err := s.EmbeddingCorpus(ctx, func(t string) error { corpus = append(corpus, t); return nil }); err != nil {
		b.Fatal(err)
	}
	lsa, err := search.BuildLSA(ctx, corpus, search.LSAOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("LSA model: %d terms, %d dimensions, trained in %v", lsa.Terms(), lsa.Dims, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	idx := embedLibrary(b, s, lsa, lsa.ID())
	b.Logf("embedded and indexed %d vectors in %v", idx.Len(), time.Since(start).Round(time.Second))
	now := base.AddDate(1, 0, 0)
	engine := &search.Engine{Source: s.SearchSource(), Embedder: lsa, Index: idx, Settings: search.DefaultSettings(), Narrower: &search.NarrowerCache{},
		Now: func() time.Time { return now }}
	everyNode := &search.Engine{Source: allNodes{s.SearchSource(), s}, Embedder: lsa, Index: exactIndex{idx}, Settings: search.DefaultSettings(), Narrower: &search.NarrowerCache{},
		Now: func() time.Time { return now }}
	for b.Loop() {
		var hybrid, baseline []time.Duration
		for round := 0; round < 5; round++ {
			for _, q := range hybridBenchQueries {
				t := time.Now()
				if _, err := engine.Search(ctx, search.Request{Query: q, Limit: 30}); err != nil {
					b.Fatal(err)
				}
				if round > 0 {
					hybrid = append(hybrid, time.Since(t))
				}
			}
		}
		for _, q := range hybridBenchQueries[:3] {
			t := time.Now()
			if _, err := everyNode.Search(ctx, search.Request{Query: q, Limit: 30}); err != nil {
				b.Fatal(err)
			}
			baseline = append(baseline, time.Since(t))
		}
		b.Logf("hybrid search over %d nodes: p50 %.1f ms  p95 %.1f ms   (scoring every node: p50 %.0f ms)",
			nodes, ms(pct(hybrid, 50)), ms(pct(hybrid, 95)), ms(pct(baseline, 50)))
	}
}

// sampleTexts are the user and assistant texts of the real sample sessions.
func sampleTexts(tb testing.TB) []string {
	var out []string
	names, _ := filepath.Glob(filepath.Join(sampleDir, "*.jsonl"))
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		rd := pisession.NewReader(f, name)
		if _, err := rd.Header(); err != nil {
			tb.Fatal(err)
		}
		for {
			e, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				tb.Fatal(err)
			}
			if e.Message != nil && (e.Message.Role == session.RoleUser || e.Message.Role == session.RoleAssistant) {
				if t := session.EntryText(e); len(t) >= 20 {
					out = append(out, t)
				}
			}
		}
		f.Close()
	}
	return out
}

// allNodes is the baseline source: every node of the library is a
// candidate, whatever the query.
type allNodes struct {
	*SearchSource
	s *Store
}

func (a allNodes) Keyword(ctx context.Context, q string, f search.Filter, n int) ([]search.Hit, error) {
	hits, err := a.SearchSource.Keyword(ctx, q, f, 100000)
	if err != nil {
		return nil, err
	}
	rows, err := a.s.db.QueryContext(ctx, `SELECT id FROM nodes`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		rows.Scan(&id)
		hits = append(hits, search.Hit{Item: NodeItem(id)})
	}
	return hits, rows.Err()
}

// exactIndex is the baseline vector search: every vector compared.
type exactIndex struct{ *search.HNSW }

func (e exactIndex) Nearest(v []float32, k int) []search.Hit { return e.HNSW.Exact(v, k) }
