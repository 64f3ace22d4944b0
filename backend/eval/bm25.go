package eval

import (
	"math"
	"sort"

	"rhizome/backend/search"
)

// BM25 is plain Okapi BM25 over one conversation's turns (k1 1.2, b 0.75,
// Lucene's IDF ln(1 + (N - df + 0.5) / (df + 0.5))), the turns tokenized
// as the library's keyword index tokenizes them (search.Terms) and the
// speaker's name kept with the text as WritePiSessions writes it: the
// baseline the library's search is reported beside.
type BM25 struct {
	ids   []string
	tf    []map[string]int
	dl    []int
	df    map[string]int
	avgdl float64
}

// NewBM25 indexes the turns of c.
func NewBM25(c Conversation) *BM25 {
	x := &BM25{df: map[string]int{}}
	total := 0
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			text := t.Text
			if t.Speaker != "" && t.Speaker != t.Role {
				text = t.Speaker + ": " + text
			}
			tf := map[string]int{}
			terms := search.Terms(text)
			for _, term := range terms {
				tf[term]++
			}
			for term := range tf {
				x.df[term]++
			}
			x.ids = append(x.ids, t.ID)
			x.tf = append(x.tf, tf)
			x.dl = append(x.dl, len(terms))
			total += len(terms)
		}
	}
	if len(x.ids) > 0 {
		x.avgdl = float64(total) / float64(len(x.ids))
	}
	return x
}

// Search returns the ids of the best k turns for q, best first; turns
// sharing no term with q are left out.
func (x *BM25) Search(q string, k int) []string {
	const k1, b = 1.2, 0.75
	n := float64(len(x.ids))
	seen := map[string]bool{}
	scores := make([]float64, len(x.ids))
	for _, term := range search.Terms(q) {
		if seen[term] || x.df[term] == 0 {
			continue
		}
		seen[term] = true
		df := float64(x.df[term])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range x.tf {
			if f := float64(tf[term]); f > 0 {
				scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(x.dl[i])/x.avgdl))
			}
		}
	}
	var order []int
	for i, s := range scores {
		if s > 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	if len(order) > k {
		order = order[:k]
	}
	out := make([]string, len(order))
	for i, o := range order {
		out[i] = x.ids[o]
	}
	return out
}
