package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"rhizome/backend/search"
)

// champion is one entry of a term's champion list: the entry's key and the
// term's bm25 weight in it without the IDF (tf*(k1+1)/(tf + k1*(1-b+b*dl/avgdl))).
type champion struct {
	pk     int64
	weight float32
}

// encodeChampions packs a champion list, best first: uvarint count, then per
// champion uvarint key and float32 weight (little endian).
func encodeChampions(cs []champion) []byte {
	b := binary.AppendUvarint(nil, uint64(len(cs)))
	for _, c := range cs {
		b = binary.AppendUvarint(b, uint64(c.pk))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(c.weight))
	}
	return b
}

func decodeChampions(b []byte) ([]champion, error) {
	if len(b) == 0 {
		return nil, nil
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errors.New("bad champion count")
	}
	b = b[k:]
	out := make([]champion, 0, n)
	for range n {
		pk, k := binary.Uvarint(b)
		if k <= 0 || len(b) < k+4 {
			return nil, errors.New("truncated champion list")
		}
		out = append(out, champion{pk: int64(pk), weight: math.Float32frombits(binary.LittleEndian.Uint32(b[k:]))})
		b = b[k+4:]
	}
	return out, nil
}

// indexState is the search_index row.
type indexState struct {
	indexedTo int64
	docs      int64
	tokens    int64
	champions int
	common    int
}

func readIndexState(ctx context.Context, db queryer) (indexState, error) {
	var st indexState
	err := db.QueryRowContext(ctx, `SELECT indexed_to, docs, tokens, champions, common FROM search_index WHERE id = 1`).
		Scan(&st.indexedTo, &st.docs, &st.tokens, &st.champions, &st.common)
	if errors.Is(err, sql.ErrNoRows) {
		return indexState{}, nil
	}
	if err != nil {
		return st, fmt.Errorf("unable to read the keyword index state: %w", err)
	}
	return st, nil
}

// SearchIndexReport says what RefreshSearchIndex did.
type SearchIndexReport struct {
	Rebuilt     bool  // the index was started again from the first entry
	Entries     int64 // entries read
	Terms       int   // terms whose counts changed
	CommonTerms int   // terms with a champion list, after the refresh
	IndexedTo   int64 // entries with keys up to this one are in the index
	Took        time.Duration
}

// RefreshSearchIndex brings the keyword index (see SearchWith) up to date
// with the entries imported since it last ran: it reads their text, counts
// every term (search.Tokenize, as FTS5 does) and merges them into the terms'
// champion lists, a transaction per tuning.chunk entries, so that imports
// and other writers take their turns in between. Call it after an import
// (the app runs it in the background); a search meanwhile still finds the
// new entries, through FTS5. When entries were deleted (a session file
// rewritten) so that a tenth of the counted ones are gone, or the index was
// built with other settings, it is built again from the first entry. ctx
// stops it between transactions and in the middle of one (rolled back).
func (s *Store) RefreshSearchIndex(ctx context.Context) (SearchIndexReport, error) {
	start := time.Now()
	var rep SearchIndexReport
	for {
		if err := ctx.Err(); err != nil {
			return rep, fmt.Errorf("store: unable to refresh the keyword index: %w", err)
		}
		done, err := s.refreshSearchChunk(ctx, &rep)
		if err != nil {
			return rep, fmt.Errorf("store: unable to refresh the keyword index: %w", err)
		}
		if done {
			break
		}
	}
	var common int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM search_terms WHERE top IS NOT NULL`).Scan(&common); err != nil {
		return rep, fmt.Errorf("store: unable to count the common terms: %w", err)
	}
	rep.CommonTerms = common
	rep.Took = time.Since(start)
	return rep, nil
}

// posting is one entry holding a term, with the term's weight in it.
type posting struct {
	pk     int64
	tf     int32
	length int32
}

// refreshSearchChunk indexes the next tuning.chunk entries in one
// transaction and reports whether there were none left.
func (s *Store) refreshSearchChunk(ctx context.Context, rep *SearchIndexReport) (bool, error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	q := tx.tx
	st, err := readIndexState(ctx, q)
	if err != nil {
		return false, err
	}
	stale := st.champions != tuning.champions || int64(st.common) != tuning.common
	if !stale && st.docs > 0 {
		var alive int64
		if err := q.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE pk <= ?`, st.indexedTo).Scan(&alive); err != nil {
			return false, err
		}
		stale = alive < st.docs-st.docs/10
	}
	if stale && (st.indexedTo > 0 || st.docs > 0) {
		if _, err := q.ExecContext(ctx, `DELETE FROM search_terms`); err != nil {
			return false, err
		}
		st = indexState{}
		rep.Rebuilt = true
	}
	st.champions, st.common = tuning.champions, int(tuning.common)

	rows, err := q.QueryContext(ctx, `SELECT pk, text FROM entries WHERE pk > ? ORDER BY pk LIMIT ?`, st.indexedTo, tuning.chunk)
	if err != nil {
		return false, err
	}
	postings := map[string][]posting{}
	var n int
	tf := map[string]int32{}
	for rows.Next() {
		var pk int64
		var text string
		if err := rows.Scan(&pk, &text); err != nil {
			rows.Close()
			return false, err
		}
		clear(tf)
		length := int32(0)
		search.EachToken(text, func(t search.Token) bool {
			tf[t.Term]++
			length++
			return true
		})
		for term, c := range tf {
			postings[term] = append(postings[term], posting{pk: pk, tf: c, length: length})
		}
		st.docs++
		st.tokens += int64(length)
		st.indexedTo = pk
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	if n == 0 {
		if rep.Rebuilt {
			if err := writeIndexState(ctx, q, st); err != nil {
				return false, err
			}
			return true, tx.Commit()
		}
		return true, nil
	}
	avgdl := float64(st.tokens) / float64(st.docs)

	// The terms' counts and champion lists so far.
	terms := make([]string, 0, len(postings))
	for t := range postings {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	old := make(map[string]termInfo, len(terms))
	for i := 0; i < len(terms); i += 5000 {
		list, _ := json.Marshal(terms[i:min(i+5000, len(terms))])
		r, err := q.QueryContext(ctx, `SELECT term, df, top FROM search_terms WHERE term IN (SELECT value FROM json_each(?))`, string(list))
		if err != nil {
			return false, err
		}
		for r.Next() {
			var t string
			var ti termInfo
			var top []byte
			if err := r.Scan(&t, &ti.df, &top); err != nil {
				r.Close()
				return false, err
			}
			if ti.champions, err = decodeChampions(top); err != nil {
				r.Close()
				return false, fmt.Errorf("champion list of %q: %w", t, err)
			}
			old[t] = ti
		}
		r.Close()
		if err := r.Err(); err != nil {
			return false, err
		}
	}

	upsert, err := q.PrepareContext(ctx, `INSERT INTO search_terms (term, df, top) VALUES (?, ?, ?)
		ON CONFLICT (term) DO UPDATE SET df = excluded.df, top = excluded.top`)
	if err != nil {
		return false, err
	}
	defer upsert.Close()
	for _, t := range terms {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		ps := postings[t]
		o := old[t]
		df := o.df + int64(len(ps))
		var top []byte
		if df > tuning.common {
			cs := o.champions
			if o.df > 0 && o.df <= tuning.common {
				// The term just became common: its earlier entries were not
				// kept; ask FTS5 for its best ones among them.
				firstNew := ps[0].pk
				if cs, err = earlierChampions(ctx, q, t, firstNew, avgdl); err != nil {
					return false, err
				}
			}
			for _, p := range ps {
				cs = append(cs, champion{pk: p.pk, weight: float32(search.BM25(int(p.tf), int(p.length), avgdl, 1))})
			}
			cs = bestChampions(cs)
			top = encodeChampions(cs)
		}
		if _, err := upsert.ExecContext(ctx, t, df, top); err != nil {
			return false, err
		}
	}
	if err := writeIndexState(ctx, q, st); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, err
	}
	rep.Entries += int64(n)
	rep.Terms += len(terms)
	rep.IndexedTo = st.indexedTo
	return false, nil
}

// bestChampions keeps the tuning.champions heaviest, best first (newest
// first on a tie), each entry once.
func bestChampions(cs []champion) []champion {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].weight != cs[j].weight {
			return cs[i].weight > cs[j].weight
		}
		return cs[i].pk > cs[j].pk
	})
	out := cs[:0]
	seen := make(map[int64]bool, tuning.champions)
	for _, c := range cs {
		if len(out) == tuning.champions {
			break
		}
		if !seen[c.pk] {
			seen[c.pk] = true
			out = append(out, c)
		}
	}
	return out
}

// earlierChampions returns the best tuning.champions entries holding term
// among those with keys before before, ranked by FTS5's bm25 (for one term,
// the same order as the weight), with their weights from their text.
func earlierChampions(ctx context.Context, q queryer, term string, before int64, avgdl float64) ([]champion, error) {
	rows, err := q.QueryContext(ctx, `SELECT e.pk, e.text FROM entries e WHERE e.pk IN (
		SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? AND rowid < ? ORDER BY rank LIMIT ?)`,
		search.Query{Clauses: []search.Clause{{Terms: []string{term}}}}.FTS5(nil), before, tuning.champions)
	if err != nil {
		return nil, fmt.Errorf("champions of %q: %w", term, err)
	}
	defer rows.Close()
	var out []champion
	for rows.Next() {
		var pk int64
		var text string
		if err := rows.Scan(&pk, &text); err != nil {
			return nil, err
		}
		var tf, length int
		search.EachToken(text, func(t search.Token) bool {
			if t.Term == term {
				tf++
			}
			length++
			return true
		})
		if tf > 0 {
			out = append(out, champion{pk: pk, weight: float32(search.BM25(tf, length, avgdl, 1))})
		}
	}
	return out, rows.Err()
}

func writeIndexState(ctx context.Context, q queryer, st indexState) error {
	_, err := q.ExecContext(ctx, `INSERT INTO search_index (id, indexed_to, docs, tokens, champions, common, updated_at)
		VALUES (1, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET indexed_to = excluded.indexed_to, docs = excluded.docs, tokens = excluded.tokens,
			champions = excluded.champions, common = excluded.common, updated_at = excluded.updated_at`,
		st.indexedTo, st.docs, st.tokens, st.champions, st.common, isoTime(time.Now()))
	return err
}
