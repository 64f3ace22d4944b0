package search

import (
	"math"
	"strings"
)

// BM25 parameters, as SQLite FTS5's bm25() uses them.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// IDF is FTS5's inverse document frequency of a phrase found in df of docs
// documents: ln((docs - df + 0.5) / (df + 0.5)), and 1e-6 where that is not
// positive (a phrase in half the documents or more).
func IDF(docs, df int64) float64 {
	idf := math.Log((float64(docs) - float64(df) + 0.5) / (float64(df) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// BM25 is one phrase's contribution to a document's score, as FTS5 computes
// it: idf * tf*(k1+1) / (tf + k1*(1 - b + b*dl/avgdl)), for a phrase found
// tf times in a document of dl tokens, avgdl tokens per document on average.
// FTS5's bm25() returns the negated sum over the query's phrases; this is
// positive: higher is better.
func BM25(tf, dl int, avgdl, idf float64) float64 {
	if tf <= 0 {
		return 0
	}
	if avgdl <= 0 {
		avgdl = 1
	}
	t := float64(tf)
	return idf * t * (BM25K1 + 1) / (t + BM25K1*(1-BM25B+BM25B*float64(dl)/avgdl))
}

// Matcher finds a query's clauses in texts: how often each occurs (tf) and
// where, for scoring and snippets. Build one per query with NewMatcher; it is
// safe for concurrent use.
type Matcher struct {
	q Query
	// expansions of a prefix clause's last term (nil: any term with the
	// prefix), by clause index.
	expansions map[int]map[string]bool
}

// NewMatcher returns a Matcher for q. expand, when not nil, lists the terms
// a prefix clause's last term stands for (see Query.FTS5); an empty list
// keeps it a prefix.
func NewMatcher(q Query, expand func(prefix string) []string) *Matcher {
	m := &Matcher{q: q}
	if expand == nil {
		return m
	}
	for i, c := range q.Clauses {
		if !c.Prefix {
			continue
		}
		if ts := expand(c.Terms[len(c.Terms)-1]); len(ts) > 0 {
			if m.expansions == nil {
				m.expansions = map[int]map[string]bool{}
			}
			set := make(map[string]bool, len(ts))
			for _, t := range ts {
				set[t] = true
			}
			m.expansions[i] = set
		}
	}
	return m
}

// Query is the query the matcher looks for.
func (m *Matcher) Query() Query { return m.q }

// Match is where a query's clauses occur in one text.
type Match struct {
	TF     []int   // occurrences of each clause, by clause index
	Length int     // tokens in the text (the document length bm25 uses)
	Hits   []Token // the tokens that are part of an occurrence, in order
}

// Any reports whether some clause occurs.
func (m Match) Any() bool {
	for _, n := range m.TF {
		if n > 0 {
			return true
		}
	}
	return false
}

// All reports whether every clause occurs.
func (m Match) All() bool {
	for _, n := range m.TF {
		if n == 0 {
			return false
		}
	}
	return len(m.TF) > 0
}

// Find tokenizes text and finds the clauses in it, in one pass.
func (m *Matcher) Find(text string) Match {
	clauses := m.q.Clauses
	res := Match{TF: make([]int, len(clauses))}
	longest := 1
	for _, c := range clauses {
		longest = max(longest, len(c.Terms))
	}
	// The last `longest` tokens, ring-buffered, for phrases.
	ring := make([]Token, longest)
	n := 0
	EachToken(text, func(t Token) bool {
		ring[n%longest] = t
		n++
		for ci, c := range clauses {
			k := len(c.Terms)
			if n < k {
				continue
			}
			ok := true
			for j := 0; j < k && ok; j++ {
				ok = m.termMatches(ci, c, j, ring[(n-k+j)%longest].Term)
			}
			if !ok {
				continue
			}
			res.TF[ci]++
			// Record the occurrence's tokens not recorded yet (phrases
			// may overlap).
			from := n - k
			if len(res.Hits) > 0 {
				last := res.Hits[len(res.Hits)-1]
				for from < n && ring[from%longest].Start <= last.Start {
					from++
				}
			}
			for i := from; i < n; i++ {
				res.Hits = append(res.Hits, ring[i%longest])
			}
		}
		return true
	})
	res.Length = n
	return res
}

func (m *Matcher) termMatches(ci int, c Clause, j int, term string) bool {
	want := c.Terms[j]
	if j < len(c.Terms)-1 || !c.Prefix {
		return term == want
	}
	if set := m.expansions[ci]; set != nil {
		return set[term]
	}
	return strings.HasPrefix(term, want)
}

// Score is the bm25 score (positive, higher is better) of a match: the sum
// over clauses of BM25, with idf[i] clause i's IDF.
func (mt Match) Score(idf []float64, avgdl float64) float64 {
	var s float64
	for i, tf := range mt.TF {
		if i < len(idf) {
			s += BM25(tf, mt.Length, avgdl, idf[i])
		}
	}
	return s
}
