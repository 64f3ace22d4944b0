package store

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"rhizome/backend/search"
)

// heldOut are the figures of one held-out set: recall@10 by entry (the
// exact message) and by segment (a hit in the segment holding it), MRR@10
// by entry, for the hybrid search as the Memory view runs it (nodes and
// entries) and over entries alone.
type heldOut struct {
	n                               int
	entry, segment, mrr             float64 // nodes and entries
	entryOnly, segmentOnly, mrrOnly float64 // entries alone
}

// The held-out sets (testdata/search/heldout-tune.json and
// heldout-test.json, 30 questions each over the same real sessions, written
// by reading them and never tuned on at the same time): the ranking is
// tuned on the first and reported on the second. The floors are the
// figures reached, less a margin, so that a change that loses answers
// fails here. Every entry of a relevant line counts (a line of the real
// files can hold two entries).
func TestHeldOutRetrieval(t *testing.T) {
	if testing.Short() {
		t.Skip("the real sessions with vectors: make test runs it")
	}
	s := analyzedLibrary(t)
	ctx := context.Background()
	if _, err := s.RefreshSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	// The offline model the window uses: the library's LSA blended with
	// the GloVe word vectors.
	emb := search.WithWordVectors(trainLSA(t, s, search.LSAOptions{Seed: 1})).(*search.Blended)
	idx := embedLibrary(t, s, emb, emb.ID())
	floors := map[string]heldOut{
		"tune": {entry: 0.5, segment: 0.8},
		"test": {entry: 0.45, segment: 0.75},
	}
	for _, part := range []string{"tune", "test"} {
		file := "testdata/search/heldout-" + part + ".json"
		var set qualitySet
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &set); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		engine := &search.Engine{Source: s.SearchSource(), Embedder: emb, Index: idx, Settings: search.DefaultSettings(), Narrower: &search.NarrowerCache{},
			Now: func() time.Time { return set.Now }}
		var got heldOut
		for _, q := range set.Queries {
			relevant := map[string]bool{}
			for _, r := range q.Relevant {
				rows, err := s.db.Query(`SELECT e.pk FROM entries e JOIN sessions s ON s.pk = e.session_pk
					WHERE s.file_name LIKE ? || '%' AND e.line = ?`, r.File, r.Line)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var pk int64
					if err := rows.Scan(&pk); err != nil {
						t.Fatal(err)
					}
					relevant[EntryItem(pk)] = true
				}
				rows.Close()
			}
			if len(relevant) == 0 {
				t.Fatalf("%s: %q names no entry", file, q.Query)
			}
			var items []string
			for it := range relevant {
				items = append(items, it)
			}
			docs, err := s.SearchSource().Docs(ctx, items, search.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			segments := map[string]bool{}
			for _, d := range docs {
				segments[d.NodeID] = true
			}
			for _, only := range []bool{false, true} {
				f := search.Filter{}
				if only {
					f.Kinds = []string{search.KindEntry}
				}
				resp, err := engine.Search(ctx, search.Request{Query: q.Query, Filter: f, Limit: 10})
				if err != nil {
					t.Fatal(err)
				}
				var ranked []string
				hitSegments := map[string]bool{}
				for _, r := range resp.Results {
					ranked = append(ranked, r.Doc.Item)
					hitSegments[r.Doc.NodeID] = true
				}
				var m metrics
				m.add(ranked, relevant)
				found := 0
				for seg := range segments {
					if hitSegments[seg] {
						found++
					}
				}
				segRecall := float64(found) / float64(len(segments))
				if only {
					got.entryOnly += m.recall
					got.mrrOnly += m.mrr
					got.segmentOnly += segRecall
				} else {
					got.entry += m.recall
					got.mrr += m.mrr
					got.segment += segRecall
				}
			}
			got.n++
		}
		n := float64(got.n)
		t.Logf("held-out %s (%d questions): nodes and entries: recall@10 by entry %.3f, by segment %.3f, MRR@10 %.3f; entries alone: %.3f, %.3f, %.3f",
			part, got.n, got.entry/n, got.segment/n, got.mrr/n, got.entryOnly/n, got.segmentOnly/n, got.mrrOnly/n)
		fl := floors[part]
		if best := max(got.entry, got.entryOnly) / n; best < fl.entry {
			t.Errorf("held-out %s: recall@10 by entry %.3f, below %.2f", part, best, fl.entry)
		}
		if best := max(got.segment, got.segmentOnly) / n; best < fl.segment {
			t.Errorf("held-out %s: recall@10 by segment %.3f, below %.2f", part, best, fl.segment)
		}
	}
}
