package eval

import (
	"slices"
	"sort"
	"time"
)

// Ks are the cut-offs recall is reported at.
var Ks = []int{5, 10}

// SessionK is the cut-off of session-level recall: the first 5 distinct
// sessions the hits come from.
const SessionK = 5

// Ranked is what one retriever returned for one question: turn ids best
// first, the sessions they come from, and how long it took.
type Ranked struct {
	Turns    []string
	Sessions []string // distinct, in the order the hits first name them
	Latency  time.Duration
}

// Recall is evidence recall at k: the share of evidence among the first k
// of ranked (0 when evidence is empty).
func Recall(evidence, ranked []string, k int) float64 {
	if len(evidence) == 0 {
		return 0
	}
	top := map[string]bool{}
	for i, r := range ranked {
		if i >= k {
			break
		}
		top[r] = true
	}
	n := 0
	for _, e := range evidence {
		if top[e] {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}

// RecallAll is 1 when every evidence session is among the first k of
// ranked, else 0 (LongMemEval's recall_all@k); RecallAny is 1 when one of
// them is (recall_any@k).
func RecallAll(evidence, ranked []string, k int) float64 {
	if Recall(evidence, ranked, k) == 1 {
		return 1
	}
	return 0
}

// RecallAny: see RecallAll.
func RecallAny(evidence, ranked []string, k int) float64 {
	if Recall(evidence, ranked, k) > 0 {
		return 1
	}
	return 0
}

// Scores are one retriever's figures over a set of questions, each a mean
// over the questions with evidence.
type Scores struct {
	Questions int `json:"questions"`
	// TurnRecall is evidence recall at each of Ks, by turn.
	TurnRecall map[int]float64 `json:"turnRecall"`
	// SessionAll and SessionAny are session-level recall_all and
	// recall_any at SessionK.
	SessionAll float64 `json:"sessionAll"`
	SessionAny float64 `json:"sessionAny"`
}

// Row is the scores of one category: the library's search and the BM25
// baseline over the same questions.
type Row struct {
	Category string `json:"category"`
	Search   Scores `json:"search"`
	BM25     Scores `json:"bm25"`
}

// Report is a benchmark's figures: one row per category, in the order
// given, and "overall" last; the search's latency per question.
type Report struct {
	Benchmark     string  `json:"benchmark"`
	Conversations int     `json:"conversations"`
	Sessions      int     `json:"sessions"`
	Turns         int     `json:"turns"`
	Questions     int     `json:"questions"` // all, scored or not
	Rows          []Row   `json:"rows"`
	P50Millis     float64 `json:"p50Millis"`
	P95Millis     float64 `json:"p95Millis"`
}

// Score makes b's report from the search's and the baseline's rankings of
// each question (by index into b.Questions; a question absent from search
// counts as nothing found). categories orders the rows; a category no
// scored question has is left out, one not listed comes after them.
func Score(b *Benchmark, search, bm25 map[int]Ranked, categories []string) Report {
	rep := Report{Benchmark: b.Name, Conversations: len(b.Conversations), Sessions: b.Sessions(), Turns: b.Turns(), Questions: len(b.Questions)}
	type acc struct{ search, bm25 sums }
	byCat := map[string]*acc{}
	order := slices.Clone(categories)
	all := &acc{}
	var lat []time.Duration
	for i, q := range b.Questions {
		if r, ok := search[i]; ok {
			lat = append(lat, r.Latency)
		}
		if len(q.Evidence) == 0 && len(q.EvidenceSessions) == 0 {
			continue
		}
		a := byCat[q.Category]
		if a == nil {
			a = &acc{}
			byCat[q.Category] = a
			if !slices.Contains(order, q.Category) {
				order = append(order, q.Category)
			}
		}
		for _, x := range []*acc{a, all} {
			x.search.add(q, search[i])
			x.bm25.add(q, bm25[i])
		}
	}
	for _, c := range order {
		if a := byCat[c]; a != nil {
			rep.Rows = append(rep.Rows, Row{Category: c, Search: a.search.scores(), BM25: a.bm25.scores()})
		}
	}
	rep.Rows = append(rep.Rows, Row{Category: "overall", Search: all.search.scores(), BM25: all.bm25.scores()})
	rep.P50Millis, rep.P95Millis = percentile(lat, 0.50), percentile(lat, 0.95)
	return rep
}

type sums struct {
	n, nTurn       int
	turn           map[int]float64
	sesAll, sesAny float64
}

func (s *sums) add(q Question, r Ranked) {
	if s.turn == nil {
		s.turn = map[int]float64{}
	}
	s.n++
	if len(q.Evidence) > 0 {
		s.nTurn++
		for _, k := range Ks {
			s.turn[k] += Recall(q.Evidence, r.Turns, k)
		}
	}
	s.sesAll += RecallAll(q.EvidenceSessions, r.Sessions, SessionK)
	s.sesAny += RecallAny(q.EvidenceSessions, r.Sessions, SessionK)
}

func (s *sums) scores() Scores {
	out := Scores{Questions: s.n, TurnRecall: map[int]float64{}}
	for _, k := range Ks {
		if s.nTurn > 0 {
			out.TurnRecall[k] = s.turn[k] / float64(s.nTurn)
		}
	}
	if s.n > 0 {
		out.SessionAll, out.SessionAny = s.sesAll/float64(s.n), s.sesAny/float64(s.n)
	}
	return out
}

// percentile is the p-quantile of ds in milliseconds (nearest rank), 0
// for none.
func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(float64(len(s))*p+0.5) - 1
	i = max(0, min(i, len(s)-1))
	return float64(s[i].Microseconds()) / 1000
}
