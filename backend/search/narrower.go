package search

import (
	"context"
	"sort"
	"sync"

	"rhizome/backend/wordnet"
)

// Narrower is a term of the library that names a kind, an instance, a
// synonym or a derivation of a query word, Steps hypernym steps below it
// (0: a synonym).
type Narrower struct {
	Term  string
	Steps int
	DF    int64 // the entries holding Term
}

// TermCount is a term of a library's keyword index with the number of
// entries holding it.
type TermCount struct {
	Term string
	DF   int64
}

// NarrowerIndex bridges a question's words to the words an answer is
// written in, without a model: "which city" finds "Rent in Spokane went
// up", "which animal" finds "my new kitten", "how she eats" finds "I went
// vegetarian". It maps each concept word to the library's terms WordNet
// places below it (see wordnet.Lexicon.Broader): document expansion by
// hypernyms, computed over the library's vocabulary rather than stored
// per entry.
type NarrowerIndex struct {
	lex   *wordnet.Lexicon
	below map[string][]Narrower // concept lemma -> library terms
	terms int
}

// Thesaurus bounds: the senses of a library term that count (WordNet's
// most frequent first), and how far up its hypernyms go.
const (
	narrowerNounSenses = 2
	narrowerVerbSenses = 1
	narrowerMaxSteps   = 4
)

// NewNarrowerIndex indexes terms (a library's vocabulary, as Tokenize
// folds it) under the concepts lex places them below, each concept's
// terms nearest first, then rarest. Stopwords and terms of fewer than
// three letters are left out.
func NewNarrowerIndex(lex *wordnet.Lexicon, terms []TermCount) *NarrowerIndex {
	x := &NarrowerIndex{lex: lex, below: map[string][]Narrower{}, terms: len(terms)}
	for _, t := range terms {
		if len(t.Term) < 3 || stopwords[t.Term] {
			continue
		}
		for _, c := range lex.Broader(t.Term, narrowerNounSenses, narrowerVerbSenses, narrowerMaxSteps) {
			x.below[c.Lemma] = append(x.below[c.Lemma], Narrower{Term: t.Term, Steps: c.Steps, DF: t.DF})
		}
	}
	for _, ns := range x.below {
		sortNarrower(ns)
	}
	return x
}

// sortNarrower orders terms nearest first, then rarest, then by term.
func sortNarrower(ns []Narrower) {
	sort.Slice(ns, func(a, b int) bool {
		if ns[a].Steps != ns[b].Steps {
			return ns[a].Steps < ns[b].Steps
		}
		if ns[a].DF != ns[b].DF {
			return ns[a].DF < ns[b].DF
		}
		return ns[a].Term < ns[b].Term
	})
}

// Of returns the library terms below word (its lemmas, as WordNet reads
// its form: "cities" is city), each once at its fewest steps, nearest
// first, then rarest; word's own forms are not among them. The slice is
// the index's: callers do not change it.
func (x *NarrowerIndex) Of(word string) []Narrower {
	if x == nil {
		return nil
	}
	lemmas := x.lex.Lemmas(word)
	if len(lemmas) == 1 {
		return x.below[lemmas[0]]
	}
	best := map[string]int{}
	var out []Narrower
	for _, lm := range lemmas {
		for _, n := range x.below[lm] {
			if i, ok := best[n.Term]; !ok {
				best[n.Term] = len(out)
				out = append(out, n)
			} else if n.Steps < out[i].Steps {
				out[i].Steps = n.Steps
			}
		}
	}
	sortNarrower(out)
	return out
}

// Terms is how many vocabulary terms the index was built from.
func (x *NarrowerIndex) Terms() int { return x.terms }

// Vocabulary is what a Source may also tell: every term its keyword index
// holds, and a stamp that changes when they do.
type Vocabulary interface {
	VocabularyStamp(ctx context.Context) (string, error)
	Vocabulary(ctx context.Context) ([]TermCount, error)
}

// Holding is what a Source may also tell: up to n items passing f that
// hold any of terms (terms of its Vocabulary), unranked.
type Holding interface {
	Holding(ctx context.Context, terms []string, f Filter, n int) ([]string, error)
}

// NarrowerCache keeps one library's NarrowerIndex until its vocabulary
// changes. The zero value is ready; it is safe for concurrent use.
type NarrowerCache struct {
	mu    sync.Mutex
	stamp string
	index *NarrowerIndex
}

// Get returns the index of v's vocabulary, built again when v's stamp has
// changed since the last call (tens of milliseconds for ten thousand
// terms). Errors are v's, or reading the embedded WordNet.
func (c *NarrowerCache) Get(ctx context.Context, v Vocabulary) (*NarrowerIndex, error) {
	stamp, err := v.VocabularyStamp(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.index != nil && c.stamp == stamp {
		return c.index, nil
	}
	lex, err := wordnet.Default()
	if err != nil {
		return nil, err
	}
	terms, err := v.Vocabulary(ctx)
	if err != nil {
		return nil, err
	}
	c.index, c.stamp = NewNarrowerIndex(lex, terms), stamp
	return c.index, nil
}
