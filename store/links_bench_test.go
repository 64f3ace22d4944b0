package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"rhizome/backend/link"
)

// BenchmarkBacklinks times the backlinks of one item (LinksTo: one range of
// the target index) in a library of 100,000 links, alone and with the other
// ends resolved as Links.Of does (ResolveItems), against the same query
// reading every link (backlinksScan), in the same run. The
// links join 10,000 nodes, 10 backlinks each on average, and a hub with
// 1,000. Issue 8: backlinks of one item among 100,000 links in under 10 ms.
// Run with -benchtime 1x.
func BenchmarkBacklinks(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "links.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const links, items = 100_000, 10_000
	node := func(i int) link.Item { return link.Node(fmt.Sprintf("%016x", i)) }
	hub := link.LoomNode("01JHUBTREE0000000000000000", "01JHUBNODE0000000000000000")
	rng := rand.New(rand.NewPCG(8, 10))
	start := time.Now()
	tx, err := s.beginWrite(ctx)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rels := link.Relations()
	for i := range links {
		src, dst := node(rng.IntN(items)), node(rng.IntN(items))
		if i%100 == 0 {
			dst = hub
		}
		if src == dst {
			dst = node((rng.IntN(items-1) + 1 + rng.IntN(items)) % items)
		}
		l, err := link.New(src, dst, rels[rng.IntN(len(rels))].Type, "", link.ByUser, t0.Add(time.Duration(i)*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		if src == dst {
			continue
		}
		if err := insertLink(ctx, tx, l, false); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	n, _ := s.CountLinks(ctx)
	b.Logf("library: %d links between %d nodes and a hub, written in %v", n, items, time.Since(start).Round(time.Millisecond))

	timeIt := func(reps int, f func(link.Item) int) (p50, p95 time.Duration, found int) {
		var ds []time.Duration
		for i := 0; i <= reps; i++ {
			it := node(rng.IntN(items))
			t := time.Now()
			found += f(it)
			if i > 0 { // the first warms the cache
				ds = append(ds, time.Since(t))
			}
		}
		return pct(ds, 50), pct(ds, 95), found
	}
	backlinks := func(it link.Item) int {
		ls, err := s.LinksTo(ctx, it)
		if err != nil {
			b.Fatal(err)
		}
		return len(ls)
	}
	resolved := func(it link.Item) int {
		ls, err := s.LinksTo(ctx, it)
		if err != nil {
			b.Fatal(err)
		}
		out, err := s.LinksFrom(ctx, it)
		if err != nil {
			b.Fatal(err)
		}
		ends := []link.Item{it}
		for _, l := range ls {
			ends = append(ends, l.Source)
		}
		for _, l := range out {
			ends = append(ends, l.Target)
		}
		if _, err := s.ResolveItems(ctx, ends); err != nil {
			b.Fatal(err)
		}
		return len(ls)
	}
	scan := func(it link.Item) int {
		ls, err := s.backlinksScan(ctx, it)
		if err != nil {
			b.Fatal(err)
		}
		return len(ls)
	}
	for b.Loop() {
		p50, p95, found := timeIt(200, backlinks)
		b.Logf("backlinks of one node (LinksTo, target index): p50 %6.2f ms  p95 %6.2f ms  (%.1f backlinks on average)",
			ms(p50), ms(p95), float64(found)/201)
		p50, p95, _ = timeIt(200, resolved)
		b.Logf("with its outgoing links and every other end resolved (as Links.Of): p50 %6.2f ms  p95 %6.2f ms", ms(p50), ms(p95))
		t := time.Now()
		hubLinks := backlinks(hub)
		took := time.Since(t)
		t = time.Now()
		resolved(hub)
		b.Logf("the hub, %d backlinks: %6.2f ms; resolved: %6.2f ms", hubLinks, ms(took), ms(time.Since(t)))
		p50, p95, found = timeIt(10, scan)
		b.Logf("baseline, the same query reading every link (no index): p50 %6.2f ms  p95 %6.2f ms  (%.1f backlinks on average)",
			ms(p50), ms(p95), float64(found)/11)
	}
}

// BenchmarkItemSearch times the search of loom trees, loom nodes, notes and
// summaries (searchItems: the newest 500 matches, ranked by bm25 computed
// from their text) in a library holding 100,000 loom nodes (the real
// sessions' user and assistant texts), against FTS5's bm25() over every
// match (itemSearchFTS5), in the same run, for the query classes of
// BenchmarkKeywordSearch. Run with -benchtime 1x.
func BenchmarkItemSearch(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "items.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	texts := sampleTexts(b)
	const n = 100_000
	start := time.Now()
	tx, err := s.beginWrite(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if _, err := tx.ExecContext(ctx, `INSERT INTO search_items (kind, item_id, within, title, text) VALUES ('loomNode', ?, ?, ?, ?)`,
			fmt.Sprintf("N%07d", i), fmt.Sprintf("T%05d", i/100), fmt.Sprintf("Tree %d", i/100), texts[i%len(texts)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Logf("library: %d loom nodes (%d distinct texts), indexed in %v", n, len(texts), time.Since(start).Round(time.Millisecond))
	kinds := []string{HitLoomTree, HitLoomNode, HitNote, HitSummary}
	for b.Loop() {
		for _, class := range searchBenchQueries {
			var now, before []time.Duration
			for _, q := range class.queries {
				for i := 0; i < 11; i++ {
					t := time.Now()
					plan, err := s.planSearch(ctx, parse(q))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.searchItems(ctx, plan, kinds, 30); err != nil {
						b.Fatal(err)
					}
					if i > 0 {
						now = append(now, time.Since(t))
					}
				}
				for i := 0; i < 3; i++ {
					t := time.Now()
					if _, err := itemSearchFTS5(ctx, s, q, kinds, 30); err != nil {
						b.Fatal(err)
					}
					if i > 0 {
						before = append(before, time.Since(t))
					}
				}
			}
			b.Logf("%-7s p50 %6.1f ms  p95 %6.1f ms   (every match ranked: p50 %6.1f ms  p95 %6.1f ms)",
				class.class, ms(pct(now, 50)), ms(pct(now, 95)), ms(pct(before, 50)), ms(pct(before, 95)))
		}
	}
}

// itemSearchFTS5 is the baseline of BenchmarkItemSearch: FTS5 ranks every
// match of q with bm25() (title 2, text 1) and the best limit are read.
func itemSearchFTS5(ctx context.Context, s *Store, q string, kinds []string, limit int) (int, error) {
	list, _ := json.Marshal(kinds)
	rows, err := s.db.QueryContext(ctx, `SELECT i.kind, i.item_id, i.title, i.text FROM
		(SELECT rowid, bm25(search_items_fts, 2.0, 1.0) AS r FROM search_items_fts WHERE search_items_fts MATCH ? ORDER BY r LIMIT ?) x
		JOIN search_items i ON i.pk = x.rowid WHERE i.kind IN (SELECT value FROM json_each(?))`, parse(q).FTS5(nil), limit, string(list))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}
