// Package wordnet is the part of Princeton WordNet 3.0 the search uses to
// bridge the words of a question to the words an answer is written in:
// "which city" and "Spokane" (an instance of city), "which animal" and
// "kitten", "how she eats" and "vegetarian" (a kind of eater, the noun of
// eat). See Fellbaum (ed.), WordNet: An Electronic Lexical Database (1998),
// and wndb(5WN) for the database it is made from.
//
// wordnet.txt.gz is written by build/wordnetgen from Debian's wordnet-base
// (WordNet's licence heads it). One record per line, tab-separated:
//
//	# …                                    the licence
//	S  pos  lemmas  children  derived      a synset: "n" or "v"; its one-word lemmas
//	                                       (space-separated, lower case); the synsets
//	                                       of its hyponyms and instances; its
//	                                       derivationally related noun and verb
//	                                       synsets (both by line number among the S
//	                                       records, from 0)
//	L  lemma  synsets                      a one-word lemma's first senses (at most 3
//	                                       per part of speech, most frequent first)
//	X  form  lemma                         an irregular form ("mice" "mouse")
package wordnet

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed wordnet.txt.gz
var packed []byte

// Lexicon is WordNet's nouns and verbs: synsets linked to their hypernyms,
// hyponyms and derivationally related synsets, and one-word lemmas with
// their senses.
type Lexicon struct {
	synsets   []synset
	senses    map[string][]int32 // lemma -> synsets, most frequent sense first, nouns before verbs
	irregular map[string][]string
}

type synset struct {
	noun     bool
	depth    int8 // hypernym steps to a root (entity; a verb hierarchy's top)
	lemmas   []string
	parents  []int32
	children []int32
	derived  []int32
}

var (
	loadOnce sync.Once
	loaded   *Lexicon
	loadErr  error
)

// Default is the embedded lexicon, read on first use (about 0.2 s) and
// shared.
func Default() (*Lexicon, error) {
	loadOnce.Do(func() { loaded, loadErr = Read(packed) })
	return loaded, loadErr
}

// Read reads a lexicon in wordnet.txt.gz's format (gzipped). Errors name
// the line.
func Read(gz []byte) (*Lexicon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	l := &Lexicon{senses: map[string][]int32{}, irregular: map[string][]string{}}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	ints := func(s string) ([]int32, error) {
		if s == "" {
			return nil, nil
		}
		fs := strings.Fields(s)
		out := make([]int32, len(fs))
		for i, f := range fs {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, err
			}
			out[i] = int32(n)
		}
		return out, nil
	}
	for sc.Scan() {
		line++
		t := sc.Text()
		if t == "" || t[0] == '#' {
			continue
		}
		fs := strings.Split(t, "\t")
		switch {
		case fs[0] == "S" && len(fs) == 5:
			s := synset{noun: fs[1] == "n", lemmas: strings.Fields(fs[2])}
			if s.children, err = ints(fs[3]); err == nil {
				s.derived, err = ints(fs[4])
			}
			if err != nil {
				return nil, fmt.Errorf("wordnet: line %d: %w", line, err)
			}
			l.synsets = append(l.synsets, s)
		case fs[0] == "L" && len(fs) == 3:
			ids, err := ints(fs[2])
			if err != nil {
				return nil, fmt.Errorf("wordnet: line %d: %w", line, err)
			}
			l.senses[fs[1]] = ids
		case fs[0] == "X" && len(fs) == 3:
			l.irregular[fs[1]] = append(l.irregular[fs[1]], fs[2])
		default:
			return nil, fmt.Errorf("wordnet: line %d: not a record: %.40q", line, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("wordnet: %w", err)
	}
	n := int32(len(l.synsets))
	for i := range l.synsets {
		for _, c := range l.synsets[i].children {
			if c < 0 || c >= n {
				return nil, fmt.Errorf("wordnet: synset %d: child %d out of range", i, c)
			}
			l.synsets[c].parents = append(l.synsets[c].parents, int32(i))
		}
		for _, d := range l.synsets[i].derived {
			if d < 0 || d >= n {
				return nil, fmt.Errorf("wordnet: synset %d: derived %d out of range", i, d)
			}
		}
	}
	for _, ids := range l.senses {
		for _, s := range ids {
			if s < 0 || s >= n {
				return nil, fmt.Errorf("wordnet: sense %d out of range", s)
			}
		}
	}
	l.setDepths()
	return l, nil
}

// setDepths gives every synset its shortest hypernym path to a root,
// breadth-first from the roots.
func (l *Lexicon) setDepths() {
	var queue []int32
	for i := range l.synsets {
		l.synsets[i].depth = -1
		if len(l.synsets[i].parents) == 0 {
			l.synsets[i].depth = 0
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, c := range l.synsets[s].children {
			if l.synsets[c].depth < 0 {
				l.synsets[c].depth = min(l.synsets[s].depth+1, 127)
				queue = append(queue, c)
			}
		}
	}
}

// Lemmas returns the lemmas WordNet knows word as, by its irregular forms
// and Morphy's detachment rules ("cities" city, "eats" eat, "camping" camp
// and camping), word itself first when it is one.
func (l *Lexicon) Lemmas(word string) []string {
	var out []string
	add := func(w string) {
		if _, ok := l.senses[w]; ok {
			for _, o := range out {
				if o == w {
					return
				}
			}
			out = append(out, w)
		}
	}
	add(word)
	for _, b := range l.irregular[word] {
		add(b)
	}
	for _, r := range detachment {
		if strings.HasSuffix(word, r.suffix) && len(word) > len(r.suffix)+1 {
			add(word[:len(word)-len(r.suffix)] + r.ending)
		}
	}
	return out
}

// detachment is Morphy's suffix rules for nouns and verbs (see
// morphy(7WN)).
var detachment = []struct{ suffix, ending string }{
	{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
	{"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
}

// Concept is a lemma a word is a kind, an instance, a synonym or a
// derivation of, with how many steps lie between them (0: a synonym).
type Concept struct {
	Lemma string
	Steps int
}

// Broader returns what word names a kind or instance of: the lemmas of its
// first senses (nounSenses of each noun lemma, verbSenses of each verb),
// of their hypernyms up to maxSteps steps, and of the nouns and verbs
// derivationally related to the senses and their direct hypernyms (one
// step further: "vegetarian" is an eater, which is eat's noun; further up
// they wander: "unit" and "unite"). Each lemma once, at its fewest steps,
// in no particular order; word's own lemmas are left out.
func (l *Lexicon) Broader(word string, nounSenses, verbSenses, maxSteps int) []Concept {
	lemmas := l.Lemmas(word)
	steps := map[int32]int{}
	var queue []int32
	for _, lm := range lemmas {
		nouns, verbs := 0, 0
		for _, s := range l.senses[lm] {
			if l.synsets[s].noun {
				if nouns++; nouns > nounSenses {
					continue
				}
			} else if verbs++; verbs > verbSenses {
				continue
			}
			if _, ok := steps[s]; !ok {
				steps[s] = 0
				queue = append(queue, s)
			}
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if steps[s] >= maxSteps {
			continue
		}
		for _, p := range l.synsets[s].parents {
			if _, ok := steps[p]; !ok {
				steps[p] = steps[s] + 1
				queue = append(queue, p)
			}
		}
	}
	best := map[string]int{}
	note := func(lemma string, n int) {
		if old, ok := best[lemma]; !ok || n < old {
			best[lemma] = n
		}
	}
	for s, n := range steps {
		for _, lm := range l.synsets[s].lemmas {
			note(lm, n)
		}
		if n <= 1 {
			for _, d := range l.synsets[s].derived {
				for _, lm := range l.synsets[d].lemmas {
					note(lm, n+1)
				}
			}
		}
	}
	for _, lm := range lemmas {
		delete(best, lm)
	}
	out := make([]Concept, 0, len(best))
	for lm, n := range best {
		out = append(out, Concept{lm, n})
	}
	return out
}
