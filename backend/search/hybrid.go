package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Weights are the hybrid score's component weights: a setting. See
// automem-features.md, "Hybrid Search & Scoring".
type Weights struct {
	Vector     float64 `json:"vector"`
	Keyword    float64 `json:"keyword"`
	Relation   float64 `json:"relation"`
	Content    float64 `json:"content"`
	Temporal   float64 `json:"temporal"`
	Tag        float64 `json:"tag"`
	Importance float64 `json:"importance"`
	Recency    float64 `json:"recency"`
}

// DefaultWeights are the spec's: vector 0.25, keyword 0.15, relation 0.25,
// content 0.25, temporal 0.15, tag 0.10, importance 0.05, recency 0.10.
func DefaultWeights() Weights {
	return Weights{Vector: 0.25, Keyword: 0.15, Relation: 0.25, Content: 0.25, Temporal: 0.15, Tag: 0.10, Importance: 0.05, Recency: 0.10}
}

// Validate reports the first weight that is negative or not a number, by
// its JSON name.
func (w Weights) Validate() error {
	for _, f := range w.fields() {
		if math.IsNaN(f.w) || math.IsInf(f.w, 0) || f.w < 0 {
			return fmt.Errorf("search: weight %s: %v, want a number >= 0", f.name, f.w)
		}
	}
	return nil
}

type namedWeight struct {
	name string
	w    float64
}

func (w Weights) fields() []namedWeight {
	return []namedWeight{{"vector", w.Vector}, {"keyword", w.Keyword}, {"relation", w.Relation}, {"content", w.Content},
		{"temporal", w.Temporal}, {"tag", w.Tag}, {"importance", w.Importance}, {"recency", w.Recency}}
}

// Components are one result's scores per component, each in [0, 1].
type Components struct {
	Vector     float64 `json:"vector"`     // cosine similarity over the best among the candidates (negative: 0)
	Keyword    float64 `json:"keyword"`    // bm25 over the best bm25 among the candidates
	Relation   float64 `json:"relation"`   // centrality, or degree d as d/(d+RelationHalf)
	Content    float64 `json:"content"`    // share of the query's words found in the item's text, each weighing its IDF
	Temporal   float64 `json:"temporal"`   // proximity of the item's time to the query's time expression
	Tag        float64 `json:"tag"`        // share of the query's words that are tags of the item, by IDF
	Importance float64 `json:"importance"` // the item's importance
	Recency    float64 `json:"recency"`    // exp(-DecayRate * age in days)
}

func (c Components) values() []float64 {
	return []float64{c.Vector, c.Keyword, c.Relation, c.Content, c.Temporal, c.Tag, c.Importance, c.Recency}
}

// Score is the weighted sum of c.
func (w Weights) Score(c Components) float64 {
	var s float64
	ws, vs := w.fields(), c.values()
	for i := range ws {
		s += ws[i].w * vs[i]
	}
	return s
}

// Part is one component's share of a result's score ("why this result").
type Part struct {
	Component    string  `json:"component"`    // vector, keyword, relation, ...
	Value        float64 `json:"value"`        // the component, in [0, 1]
	Weight       float64 `json:"weight"`       // its weight
	Contribution float64 `json:"contribution"` // Value * Weight
}

// Explain breaks a score down by component, largest contribution first
// (components that contributed nothing last, in the spec's order).
func (w Weights) Explain(c Components) []Part {
	ws, vs := w.fields(), c.values()
	out := make([]Part, len(ws))
	for i := range ws {
		out[i] = Part{Component: ws[i].name, Value: vs[i], Weight: ws[i].w, Contribution: vs[i] * ws[i].w}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Contribution > out[j].Contribution })
	return out
}

// Item kinds.
const (
	KindNode  = "node"
	KindEntry = "entry"
)

// Doc is a searchable item as the scorer sees it: a knowledge-graph node
// or a session entry (which takes its tags, relations and importance from
// the node of its segment). Item is "node:<id>" or "entry:<key>".
type Doc struct {
	Item       string
	URI        string // the item's rhizome: URI (rhizome:node/<id>, rhizome:entry/<session>/<entry id>)
	Kind       string
	NodeID     string // the node, or the entry's segment's node
	SessionID  string
	Project    string // the session's working directory
	NodeType   string // coding, debugging, ...
	Role       string // entries: message role
	Time       time.Time
	Title      string
	Text       string   // the text content overlap reads
	Tags       []string // the node's tags and topics
	Tools      []string // tools called or answered
	Files      []string // files touched
	Models     []string // models that answered
	Relations  []string // types of the node's edges
	Degree     int      // the node's edges
	Centrality float64  // in [0, 1]; when > 0 it is the relation component instead of Degree
	Importance float64  // in [0, 1]
	// Archived: consolidation archived the node (an entry's: its segment's
	// node).
	Archived bool
}

// Filter narrows a hybrid search; empty fields do not filter. Values match
// exactly, except Files (a file whose path ends with the value, so
// "server.ts" finds "src/server.ts") and Tools and Models (any case).
type Filter struct {
	Project       string
	Kinds         []string // KindNode, KindEntry
	NodeTypes     []string
	Roles         []string
	Tools         []string
	Files         []string
	Models        []string
	RelationTypes []string
	Range         TimeRange
	// ExcludeArchived leaves out archived items (Doc.Archived); the
	// source leaves them out of its candidates too.
	ExcludeArchived bool
}

// Match reports whether d passes f.
func (f Filter) Match(d Doc) bool {
	if f.ExcludeArchived && d.Archived {
		return false
	}
	if f.Project != "" && d.Project != f.Project {
		return false
	}
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, d.Kind) {
		return false
	}
	if len(f.NodeTypes) > 0 && !slices.Contains(f.NodeTypes, d.NodeType) {
		return false
	}
	if len(f.Roles) > 0 && !slices.Contains(f.Roles, d.Role) {
		return false
	}
	if len(f.Tools) > 0 && !anyFold(f.Tools, d.Tools) {
		return false
	}
	if len(f.Models) > 0 && !anyFold(f.Models, d.Models) {
		return false
	}
	if len(f.RelationTypes) > 0 && !slices.ContainsFunc(f.RelationTypes, func(t string) bool { return slices.Contains(d.Relations, t) }) {
		return false
	}
	if len(f.Files) > 0 && !slices.ContainsFunc(f.Files, func(want string) bool {
		return slices.ContainsFunc(d.Files, func(have string) bool { return have == want || strings.HasSuffix(have, "/"+want) })
	}) {
		return false
	}
	if !f.Range.IsZero() && !f.Range.Contains(d.Time) {
		return false
	}
	return true
}

func anyFold(want, have []string) bool {
	for _, w := range want {
		for _, h := range have {
			if strings.EqualFold(w, h) {
				return true
			}
		}
	}
	return false
}

// Hit is a candidate from one retriever with its raw score (bm25, or a
// cosine similarity).
type Hit struct {
	Item  string
	Score float64
}

// Source is the library as the hybrid search reads it (the store implements
// it).
type Source interface {
	// Keyword returns the best n items for the keyword query q (bm25 over
	// the full-text indexes), passing f as far as the source can tell.
	Keyword(ctx context.Context, q string, f Filter, n int) ([]Hit, error)
	// InRange returns the newest n items whose time lies in r.
	InRange(ctx context.Context, r TimeRange, f Filter, n int) ([]Hit, error)
	// Docs returns the items asked for; unknown ones are left out. f is
	// the search's filter: fields only a filter reads (an entry's tools and
	// models) may be left empty when f does not name them.
	Docs(ctx context.Context, items []string, f Filter) (map[string]Doc, error)
}

// TermStats is what a Source may also tell: how many items hold each term
// (df) among how many (docs), for weighing words by their IDF in the
// content and tag components. Without it every word weighs the same.
type TermStats interface {
	TermStats(ctx context.Context, terms []string) (df map[string]int64, docs int64, err error)
}

// Neighbours is what a Source may also tell: the entries either side of
// an entry in its session, up to reach turns away (entries with text;
// the turn before and the turn after are 1 step away), by item. A turn
// that answers a question holds the answer but often not the question's
// words, which the turn before it holds; in a conversation the speaker's
// own next turn is 2 steps away.
type Neighbours interface {
	Neighbours(ctx context.Context, items []string, reach int) (map[string][]Neighbour, error)
}

// Neighbour is an entry Steps turns from another in its session.
type Neighbour struct {
	Item  string
	Steps int
}

// Embedder turns texts into vectors (the llm package's /v1/embeddings
// client, or the offline LSA model).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorIndex finds the items whose vectors lie nearest a query vector.
type VectorIndex interface {
	// Nearest returns at most k items, most similar first, Score their
	// cosine similarity.
	Nearest(vec []float32, k int) []Hit
	// Similarity is the cosine similarity of vec and item's vector; false
	// when the index holds no vector for item.
	Similarity(vec []float32, item string) (float64, bool)
}

// Settings tune the hybrid search.
type Settings struct {
	Weights Weights
	// DecayRate is the recency component's daily decay (AutoMem's code:
	// 0.01; see ERRATA.md, "AutoMem").
	DecayRate float64
	// Candidates is how many items each retriever contributes (keyword,
	// vector, time range) before scoring.
	Candidates int
	// RelationHalf is the degree at which the relation component is 0.5.
	RelationHalf float64
	// Context is the share of a neighbouring entry's keyword score an
	// entry takes when its own is lower (the Source tells Neighbours): 0
	// leaves entries to their own words.
	Context float64
	// ContextSeeds is how many of the best keyword entries lend their
	// score to their neighbours.
	ContextSeeds int
	// ContextReach is how many turns either side the lending goes, each
	// step further taking Context again (Context^steps); 0 means 1.
	ContextReach int
	// ContextContent lends the content component as the keyword score is
	// lent (the same share, from the same neighbour).
	ContextContent bool
	// Narrower is the share of a query word's content credit an item
	// earns by a term WordNet places below the word ("Spokane" for city),
	// less a tenth per hypernym step between them; such items are also
	// gathered as candidates (Engine.Narrower; the Source tells its
	// Vocabulary). 0 leaves words to their own forms.
	Narrower float64
	// VectorFullWords is how many content words a text needs to keep its
	// whole vector component; one with fewer keeps that share of it
	// (lengthPrior). 0 leaves similarities as they are.
	VectorFullWords int
}

// DefaultSettings are the spec's weights, AutoMem's decay rate 0.01, 100
// candidates per retriever, a relation component of 0.5 at 4 edges, the
// best 20 keyword entries lending 0.7 of their score to the turns either
// side (tuned on build/evalgen's tune file: recall@10 0.557 without,
// 0.573 with; 0.5 gave 0.564, 1.0 0.576 with a lower session recall), and
// 0.7 of a word's credit for a term WordNet places below it (the same
// file: 0.565 without, 0.586 at 0.5, 0.596 at 0.7, 0.591 at 0.9), and the
// lending reach two turns either side (the same file: 0.633 at one,
// 0.673 at two and three; at two a share of 0.6 gave 0.657, 0.8 0.680,
// 0.9 0.699, but the real sessions' tune set lost there: by entry 0.625
// at 0.7, 0.617 at 0.8; two turns cost it one segment, 0.917 -> 0.883),
// the lent share of the content component too (the same file: 0.700 ->
// 0.705; the real sessions' tune set by entry 0.625 -> 0.648), the vector
// component in full from 10 content words (the same file: 0.595
// without, 0.605 at 4, 0.630 at 9, 0.633 at 10 and at 12, 0.637 at 20;
// the real sessions' tune set by entry 0.626 without, 0.625 at 10, 0.592
// at 20).
func DefaultSettings() Settings {
	return Settings{Weights: DefaultWeights(), DecayRate: 0.01, Candidates: 100, RelationHalf: 4, Context: 0.7, ContextSeeds: 20, ContextReach: 2, ContextContent: true, Narrower: 0.7, VectorFullWords: 10}
}

// Engine is the hybrid search: it gathers candidates from keyword search,
// nearest vectors and the query's time range, and ranks them by the
// weighted components. Embedder and Index may be nil (no vector component).
type Engine struct {
	Source   Source
	Embedder Embedder
	Index    VectorIndex
	Settings Settings
	// Now is the time recency and time expressions are relative to; nil
	// means time.Now.
	Now func() time.Time
	// Narrower keeps the library's NarrowerIndex between searches; nil
	// leaves it out (see Settings.Narrower).
	Narrower *NarrowerCache
}

// Request is one hybrid search.
type Request struct {
	Query  string
	Filter Filter
	Limit  int // results; 0 means 30
}

// Result is one ranked item with its score broken down.
type Result struct {
	Doc        Doc
	Score      float64
	Components Components
	Why        []Part // Weights.Explain of Components
}

// Response is a hybrid search's results with how the query was read.
type Response struct {
	Results []Result
	Keyword string    // the query without its time expression
	Time    *TimeExpr // the time expression, if any
	// VectorError says why the vector component is missing (the
	// embedding endpoint failed); the results are ranked without it.
	VectorError string
}

// Search ranks the library for req. The query's time expression (see
// ParseTime) becomes the temporal component and a source of candidates,
// and the items of its time rank before the others; the rest is the keyword
// and vector query. A query that asks when (AsksWhen) and names no time
// gives the temporal component to the items that say when (statesTime):
// on build/evalgen's LoCoMo-shaped tune file, temporal recall@10 0.776 ->
// 0.904, overall 0.673 -> 0.700. Candidates failing req.Filter are
// dropped. A failing embedder does not fail the search: the results come
// without the vector component and Response.VectorError says why.
func (e *Engine) Search(ctx context.Context, req Request) (Response, error) {
	st := e.Settings
	if st.Candidates <= 0 {
		st.Candidates = 100
	}
	if st.RelationHalf <= 0 {
		st.RelationHalf = 4
	}
	if err := st.Weights.Validate(); err != nil {
		return Response{}, err
	}
	limit := req.Limit
	if limit <= 0 {
		limit = 30
	}
	now := time.Now()
	if e.Now != nil {
		now = e.Now()
	}
	var resp Response
	text := req.Query
	if expr, rest, ok := ParseTime(text, now); ok {
		resp.Time, text = &expr, rest
	}
	resp.Keyword = text
	if e.Source == nil {
		return resp, errors.New("search: no source")
	}

	keyword := map[string]float64{}
	vector := map[string]float64{}
	var below [][]Narrower           // by content word
	lentBy := map[string]Neighbour{} // an item's keyword score lent by this seed, Steps away
	var queryVec []float32
	var order []string
	seen := map[string]bool{}
	add := func(item string) {
		if !seen[item] {
			seen[item] = true
			order = append(order, item)
		}
	}
	if strings.TrimSpace(text) != "" {
		hits, err := e.Source.Keyword(ctx, text, req.Filter, st.Candidates)
		if err != nil {
			return resp, err
		}
		for _, h := range hits {
			keyword[h.Item] = h.Score
			add(h.Item)
		}
		if err := e.lendContext(ctx, st, hits, keyword, lentBy, add); err != nil {
			return resp, err
		}
		if below, err = e.narrower(ctx, st, text, req.Filter, add); err != nil {
			return resp, err
		}
		if e.Embedder != nil && e.Index != nil && st.Weights.Vector > 0 {
			vecs, err := e.Embedder.Embed(ctx, []string{text})
			switch {
			case err != nil:
				resp.VectorError = err.Error()
			case len(vecs) == 1 && len(vecs[0]) > 0:
				queryVec = vecs[0]
				for _, h := range e.Index.Nearest(vecs[0], st.Candidates) {
					vector[h.Item] = h.Score
					add(h.Item)
				}
			}
		}
	}
	if resp.Time != nil {
		// The query's words within its time range, and the newest items
		// of the range: the temporal component can only lift what is a
		// candidate.
		if strings.TrimSpace(text) != "" {
			inRange := req.Filter
			inRange.Range = resp.Time.Range
			hits, err := e.Source.Keyword(ctx, text, inRange, st.Candidates)
			if err != nil {
				return resp, err
			}
			for _, h := range hits {
				if _, ok := keyword[h.Item]; !ok {
					keyword[h.Item] = h.Score
				}
				add(h.Item)
			}
		}
		hits, err := e.Source.InRange(ctx, resp.Time.Range, req.Filter, st.Candidates)
		if err != nil {
			return resp, err
		}
		for _, h := range hits {
			add(h.Item)
		}
	}
	if len(order) == 0 {
		resp.Results = []Result{}
		return resp, nil
	}
	docs, err := e.Source.Docs(ctx, order, req.Filter)
	if err != nil {
		return resp, err
	}
	// Keyword and vector scores are put on one scale, relative to the
	// candidates: each over the best among them (max normalization), so the
	// best bm25 and the most similar vector are 1, no match 0.
	var maxBM25 float64
	for _, s := range keyword {
		maxBM25 = max(maxBM25, s)
	}
	// Every candidate gets its similarity, not only those the vector index
	// returned: a keyword match that is also close in meaning counts so.
	if queryVec != nil {
		for _, item := range order {
			if _, ok := vector[item]; !ok {
				if sim, ok := e.Index.Similarity(queryVec, item); ok {
					vector[item] = sim
				}
			}
		}
	}
	var maxVec float64
	for _, s := range vector {
		maxVec = max(maxVec, s)
	}
	words := contentWords(text)
	weights := make([]float64, len(words))
	for i := range weights {
		weights[i] = 1
	}
	var total int64 // items the TermStats count over; 0 when unknown
	if ts, ok := e.Source.(TermStats); ok && len(words) > 0 {
		df, docs, err := ts.TermStats(ctx, words)
		if err != nil {
			return resp, err
		}
		total = docs
		for i, w := range words {
			weights[i] = IDF(docs+1, df[w]) // +1: a word in no item weighs most, not infinitely
		}
	}
	forms := newWordForms(words)
	forms.addNarrower(below, st.Narrower, total)
	asksWhen := AsksWhen(text)
	results := make([]Result, 0, len(order))
	for _, item := range order {
		d, ok := docs[item]
		if !ok || !req.Filter.Match(d) {
			continue
		}
		var c Components
		var lent float64
		c.Content, lent = forms.overlapLent(weights, d.Text)
		if maxBM25 > 0 {
			c.Keyword = clamp01(max(keyword[item], lent) / maxBM25)
		}
		if v, ok := vector[item]; ok && maxVec > 0 {
			c.Vector = clamp01(v/maxVec) * lengthPrior(d.Text, st.VectorFullWords)
		}
		c.Tag = tagMatch(words, weights, d.Tags)
		if d.Centrality > 0 {
			c.Relation = clamp01(d.Centrality)
		} else if d.Degree > 0 {
			c.Relation = float64(d.Degree) / (float64(d.Degree) + st.RelationHalf)
		}
		c.Importance = clamp01(d.Importance)
		c.Recency = Recency(d.Time, now, st.DecayRate)
		if resp.Time != nil {
			c.Temporal = resp.Time.Range.Proximity(d.Time)
		} else if asksWhen && statesTime(d.Text) {
			c.Temporal = 1
		}
		results = append(results, Result{Doc: d, Components: c, Score: st.Weights.Score(c)})
	}
	// A turn whose keyword score its neighbour lent also takes that share
	// of the neighbour's content overlap, where it beats its own.
	if st.ContextContent {
		content := make(map[string]float64, len(results))
		for _, r := range results {
			content[r.Doc.Item] = r.Components.Content
		}
		for i := range results {
			r := &results[i]
			if by, ok := lentBy[r.Doc.Item]; ok {
				if c := math.Pow(st.Context, float64(by.Steps)) * content[by.Item]; c > r.Components.Content {
					r.Components.Content = c
					r.Score = st.Weights.Score(r.Components)
				}
			}
		}
	}
	// A query that names a time ("on 20 November", "yesterday evening")
	// asks for the items of that time: they come first, each part by
	// score; the temporal component orders the rest by how near they lie.
	inRange := func(r Result) bool { return resp.Time != nil && r.Components.Temporal == 1 }
	sort.SliceStable(results, func(i, j int) bool {
		if a, b := inRange(results[i]), inRange(results[j]); a != b {
			return a
		}
		return results[i].Score > results[j].Score
	})
	if len(results) > limit {
		results = results[:limit]
	}
	for i := range results {
		results[i].Why = st.Weights.Explain(results[i].Components)
	}
	resp.Results = results
	return resp, nil
}

// narrowerTermsPerWord bounds the terms a query word gathers candidates
// by (those fewest steps below it first, then the rarest; all of them
// earn it credit in what is gathered); a word whose terms are more than
// narrowerShare of the vocabulary says nothing ("thing").
const (
	narrowerTermsPerWord = 40
	narrowerShare        = 0.05
	// narrowerBudget is how many entries the terms gathering candidates
	// may hold together, in candidates (Settings.Candidates).
	narrowerBudget = 1
)

// narrower finds, for each content word of text, the library terms below
// it, and adds the items holding them as candidates (the nearest and
// rarest terms, while their entries number at most narrowerBudget
// candidates); the scoring lends each the keyword score its best such term
// earns (narrowerCredit). It returns the terms by content word (nil when
// off).
func (e *Engine) narrower(ctx context.Context, st Settings, text string, f Filter, add func(string)) ([][]Narrower, error) {
	v, ok := e.Source.(Vocabulary)
	h, ok2 := e.Source.(Holding)
	if e.Narrower == nil || st.Narrower <= 0 || !ok || !ok2 {
		return nil, nil
	}
	x, err := e.Narrower.Get(ctx, v)
	if err != nil {
		return nil, err
	}
	words := contentWords(text)
	below := make([][]Narrower, len(words))
	var picked []Narrower
	for i, w := range words {
		ns := x.Of(w)
		if len(ns) == 0 || float64(len(ns)) > narrowerShare*float64(x.Terms()) {
			continue
		}
		below[i] = ns
		picked = append(picked, ns[:min(len(ns), narrowerTermsPerWord)]...)
	}
	sortNarrower(picked)
	budget := int64(narrowerBudget * st.Candidates)
	var terms []string
	var sum int64
	for _, n := range picked {
		if sum+n.DF > budget {
			continue
		}
		sum += n.DF
		terms = append(terms, n.Term)
	}
	if len(terms) == 0 {
		return below, nil
	}
	items, err := h.Holding(ctx, terms, f, int(budget))
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		add(it)
	}
	return below, nil
}

// lendContext gives the turns next to the best keyword entries a share
// (st.Context) of their score, where it beats their own: a reply is found
// through the question it answers.
func (e *Engine) lendContext(ctx context.Context, st Settings, hits []Hit, keyword map[string]float64, lentBy map[string]Neighbour, add func(string)) error {
	nb, ok := e.Source.(Neighbours)
	if !ok || st.Context <= 0 || st.ContextSeeds <= 0 {
		return nil
	}
	var seeds []Hit
	for _, h := range hits {
		if strings.HasPrefix(h.Item, KindEntry+":") && len(seeds) < st.ContextSeeds {
			seeds = append(seeds, h)
		}
	}
	if len(seeds) == 0 {
		return nil
	}
	items := make([]string, len(seeds))
	for i, h := range seeds {
		items[i] = h.Item
	}
	next, err := nb.Neighbours(ctx, items, max(1, st.ContextReach))
	if err != nil {
		return err
	}
	for _, h := range seeds {
		for _, n := range next[h.Item] {
			if lent := math.Pow(st.Context, float64(n.Steps)) * h.Score; lent > keyword[n.Item] {
				keyword[n.Item] = lent
				lentBy[n.Item] = Neighbour{Item: h.Item, Steps: n.Steps}
				add(n.Item)
			}
		}
	}
	return nil
}

// Recency is AutoMem's decay of an item of time t at now:
// exp(-rate * age in days), 1 for an item from the future, 0 for an item
// without a time. See ERRATA.md, "AutoMem" (decay = exp(-0.01 * age_days)).
func Recency(t, now time.Time, rate float64) float64 {
	if t.IsZero() {
		return 0
	}
	age := now.Sub(t).Hours() / 24
	if age <= 0 {
		return 1
	}
	return math.Exp(-rate * age)
}

func clamp01(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	return min(x, 1)
}

// stopwords are left out of content and tag matching unless the query is
// made of nothing else.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be but by can could did do does for from had has have how i if in
		into is it its me my no not of on or our so that the their then there these this to was we were what when where
		which who why will with would you your`) {
		m[w] = true
	}
	return m
}()

// contentWords are the distinct folded words of a query, stopwords left out
// (unless there is nothing else).
func contentWords(q string) []string {
	var all, content []string
	seen := map[string]bool{}
	for _, t := range Terms(q) {
		if seen[t] {
			continue
		}
		seen[t] = true
		all = append(all, t)
		if !stopwords[t] {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		return all
	}
	return content
}

// overlap is the token overlap of the query's words with text: the share
// of the words found in text, as tokens or as another form of the word
// (the same Stem: "researching" for "research"), each word weighing its
// IDF (a rare word found says more than a common one).
func overlap(words []string, weights []float64, text string) float64 {
	return newWordForms(words).overlap(weights, text)
}

// overlap is overlap of f's words, weights by word.
func (f *wordForms) overlap(weights []float64, text string) float64 {
	o, _ := f.overlapLent(weights, text)
	return o
}

// overlapLent is overlap, and the keyword score the best term below a word
// (addNarrower) found in text lends the item: its credit times its IDF,
// about the bm25 of a one-word match.
func (f *wordForms) overlapLent(weights []float64, text string) (float64, float64) {
	if len(weights) == 0 || text == "" {
		return 0, 0
	}
	var lent float64
	credit := make([]float64, len(weights))
	var total float64
	for _, w := range weights {
		total += w
	}
	n := 0
	EachToken(text, func(t Token) bool {
		if i := f.index(t.Term); i >= 0 {
			if credit[i] < 1 {
				credit[i] = 1
				n++
			}
		} else if b, ok := f.below[t.Term]; ok {
			credit[b.word] = max(credit[b.word], b.credit)
			lent = max(lent, b.credit*b.idf)
		}
		return f.below != nil || n < len(weights)
	})
	if total == 0 {
		return 0, lent
	}
	var found float64
	for i, c := range credit {
		found += c * weights[i]
	}
	return found / total, lent
}

// wordForms tells which of a query's words a token is, exactly or as
// another form of it (the same Stem). Tokens are stemmed only when they
// begin as a word's stem does, and each once.
type wordForms struct {
	below  map[string]narrowerCredit // a term below a word -> the word and its credit
	exact  map[string]int
	stems  map[string]int    // a word's stem -> its index
	heads  map[string]bool   // the first MinStemRunes runes of the stems
	cached map[string]string // token -> stem
}

func newWordForms(words []string) *wordForms {
	f := &wordForms{exact: map[string]int{}, stems: map[string]int{}, heads: map[string]bool{}, cached: map[string]string{}}
	for i, w := range words {
		f.exact[w] = i
		st := Stem(w)
		if r := []rune(st); len(r) >= MinStemRunes {
			if _, ok := f.stems[st]; !ok {
				f.stems[st] = i
			}
			f.heads[string(r[:MinStemRunes])] = true
		}
	}
	return f
}

// narrowerCredit is what a term below a query word earns it, and the
// term's IDF.
type narrowerCredit struct {
	word        int
	credit, idf float64
}

// addNarrower lets the terms below each word (below, by word) earn it
// share of its credit, less a tenth per step; docs is how many items the
// terms' counts are over (0: unknown, every IDF 1).
func (f *wordForms) addNarrower(below [][]Narrower, share float64, docs int64) {
	for i, ns := range below {
		for _, n := range ns {
			c := share * max(0, 1-0.1*float64(n.Steps))
			if _, own := f.exact[n.Term]; own || c <= 0 {
				continue
			}
			idf := 1.0
			if docs > 0 {
				idf = IDF(docs+1, n.DF)
			}
			if f.below == nil {
				f.below = map[string]narrowerCredit{}
			}
			if old, ok := f.below[n.Term]; !ok || c > old.credit {
				f.below[n.Term] = narrowerCredit{i, c, idf}
			}
		}
	}
}

// index is the index of the word term is a form of, or -1.
func (f *wordForms) index(term string) int {
	if i, ok := f.exact[term]; ok {
		return i
	}
	if len(f.stems) == 0 {
		return -1
	}
	r := []rune(term)
	if len(r) < MinStemRunes || !f.heads[string(r[:MinStemRunes])] {
		return -1
	}
	st, ok := f.cached[term]
	if !ok {
		st = Stem(term)
		f.cached[term] = st
	}
	if i, ok := f.stems[st]; ok {
		return i
	}
	return -1
}

// tagMatch is the share of the query's words that are a tag of the item,
// or a word of one, each weighing its IDF.
func tagMatch(words []string, weights []float64, tags []string) float64 {
	if len(words) == 0 || len(tags) == 0 {
		return 0
	}
	set := map[string]bool{}
	for _, tag := range tags {
		for _, t := range Terms(tag) {
			set[t] = true
		}
	}
	var found, total float64
	for i, w := range words {
		total += weights[i]
		if set[w] {
			found += weights[i]
		}
	}
	if total == 0 {
		return 0
	}
	return found / total
}

// AsksWhen reports whether q asks for a time: "when did …", "what day
// …", "how long ago …", "which year …". Such a question's answer is a
// turn that says when ("yesterday", "last weekend", "on 3 May"), which
// the temporal component then favours (see statesTime).
func AsksWhen(q string) bool {
	return asksWhenExpr.MatchString(q)
}

var asksWhenExpr = regexp.MustCompile(`(?i)^\W*(when\b|what (day|date|time|month|year)\b|which (day|date|month|year)\b|how long ago\b|since when\b)`)

// statesTime reports whether text says when something happened: a
// relative day or part of one ("yesterday", "last weekend", "this
// morning", "two weeks ago"), a weekday or month with its day, or a year,
// in its first statesTimeBytes bytes. One regular expression: ParseTime
// reads more but is made for queries, and too slow on every candidate.
func statesTime(text string) bool {
	if len(text) > statesTimeBytes {
		text = text[:statesTimeBytes]
	}
	cue := false
	EachToken(text, func(t Token) bool {
		cue = timeCues[t.Term] || (len(t.Term) == 4 && (strings.HasPrefix(t.Term, "19") || strings.HasPrefix(t.Term, "20")))
		return !cue
	})
	return cue && eventTime.MatchString(text)
}

// timeCues are the words one of eventTime's expressions holds (a year
// aside): a text without one is passed over without the expression.
var timeCues = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`yesterday today tonight tomorrow last this next past ago on
		monday tuesday wednesday thursday friday saturday sunday
		jan january feb february mar march apr april may jun june jul july aug august sep sept september
		oct october nov november dec december`) {
		m[w] = true
	}
	return m
}()

// statesTimeBytes bounds the text statesTime reads.
const statesTimeBytes = 2000

const (
	monthNames   = `jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t|tember)?|oct(ober)?|nov(ember)?|dec(ember)?`
	weekdayNames = `monday|tuesday|wednesday|thursday|friday|saturday|sunday`
	countWords   = `\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple( of)?|several`
)

var eventTime = regexp.MustCompile(`(?i)\b(yesterday|today|tonight|tomorrow|` +
	`(last|this|next|past) (night|morning|afternoon|evening|week|weekend|month|year|spring|summer|fall|autumn|winter|` + weekdayNames + `)|` +
	`(` + countWords + `) (days?|weeks?|months?|years?) ago|` +
	`(on|last|next|this) (` + weekdayNames + `)|` +
	`(` + monthNames + `)\.? \d{1,2}(st|nd|rd|th)?\b|\d{1,2}(st|nd|rd|th)? (of )?(` + monthNames + `)\b|` +
	`(19|20)\d\d)\b`)

// lengthPrior is the share of the vector component a text of fewer than
// full content words keeps: its content words over full (1 when full is
// 0). A short text's vector points at its one topic, and lies close to any
// question on it ("Yesss! Where is it?" near "which city does Kenji live
// in"): a document-length prior on the similarity.
func lengthPrior(text string, full int) float64 {
	if full <= 0 {
		return 1
	}
	n := 0
	EachToken(text, func(t Token) bool {
		if !stopwords[t.Term] {
			n++
		}
		return n < full
	})
	return min(1, float64(n)/float64(full))
}
