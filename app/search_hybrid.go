package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/search"
	"rhizome/backend/summary"
	"rhizome/store"
)

// SearchSettingKey is the library setting holding SearchSettings (JSON).
const SearchSettingKey = "search"

// Hybrid limits: the default number of hits and the most a query returns.
const (
	defaultHybridLimit = 30
	maxHybridLimit     = 200
	bridgePaths        = 8
)

// DefaultSearchSettings are the spec's weights (vector 0.25, keyword 0.15,
// relation 0.25, content 0.25, temporal 0.15, tag 0.10, importance 0.05,
// recency 0.10), AutoMem's decay rate 0.01 and no embedding endpoint.
func DefaultSearchSettings() SearchSettings {
	w := search.DefaultWeights()
	return SearchSettings{Weights: SearchWeights(w), DecayRate: 0.01}
}

// loadSearchSettings reads the search setting, the defaults when none is
// saved.
func (c *core) loadSearchSettings() (SearchSettings, error) {
	b, err := c.store.Setting(c.context(), SearchSettingKey)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultSearchSettings(), nil
	}
	if err != nil {
		return SearchSettings{}, fmt.Errorf("app: %w", err)
	}
	s := DefaultSearchSettings()
	if err := json.Unmarshal(b, &s); err != nil {
		return SearchSettings{}, fmt.Errorf("app: the search setting in the library: %w", err)
	}
	return s, nil
}

// SearchSettings returns the hybrid search's settings.
func (s *Search) SearchSettings() (SearchSettings, error) { return s.c.loadSearchSettings() }

// SetSearchSettings saves the hybrid search's settings and returns them. A
// weight that is negative or not a number, a decay rate outside [0, 1], or
// an embedding base URL without a model (or the reverse) is refused, naming
// the field. A new embedding model starts the background queue, which drops
// the vectors of the old one and makes them again.
func (s *Search) SetSearchSettings(in SearchSettings) (SearchSettings, error) {
	in.EmbeddingBaseURL = strings.TrimSpace(in.EmbeddingBaseURL)
	in.EmbeddingModel = strings.TrimSpace(in.EmbeddingModel)
	if err := search.Weights(in.Weights).Validate(); err != nil {
		return SearchSettings{}, fmt.Errorf("app: field weights: %w", err)
	}
	if math.IsNaN(in.DecayRate) || in.DecayRate < 0 || in.DecayRate > 1 {
		return SearchSettings{}, fmt.Errorf("app: field decayRate: %v, want a number in [0, 1]", in.DecayRate)
	}
	if (in.EmbeddingBaseURL == "") != (in.EmbeddingModel == "") {
		return SearchSettings{}, errors.New("app: fields embeddingBaseUrl and embeddingModel: give both, or neither for the offline model")
	}
	if in.EmbeddingBaseURL != "" {
		if _, err := s.c.vectors.endpoint(in); err != nil {
			return SearchSettings{}, fmt.Errorf("app: field embeddingBaseUrl: %w", err)
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return SearchSettings{}, fmt.Errorf("app: %w", err)
	}
	if err := s.c.store.PutSetting(s.c.context(), SearchSettingKey, b); err != nil {
		return SearchSettings{}, fmt.Errorf("app: %w", err)
	}
	s.c.vectors.Kick()
	return in, nil
}

// VectorStatus says how far the background embedding queue has come.
func (s *Search) VectorStatus() VectorStatus { return s.c.vectors.Status() }

// RefreshVectors starts the background embedding queue now (it also runs
// when the app starts and after each import) and returns its status.
func (s *Search) RefreshVectors() VectorStatus {
	s.c.vectors.Kick()
	return s.c.vectors.Status()
}

// parseDay reads a filter date: YYYY-MM-DD (a whole day) or RFC 3339.
func parseDay(field, s string, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("app: field filter.%s: %q, want YYYY-MM-DD or an RFC 3339 time", field, s)
	}
	return t, nil
}

func searchFilter(f SearchFilter) (search.Filter, error) {
	from, err := parseDay("from", f.From, false)
	if err != nil {
		return search.Filter{}, err
	}
	to, err := parseDay("to", f.To, true)
	if err != nil {
		return search.Filter{}, err
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		return search.Filter{}, fmt.Errorf("app: field filter.to: %s is before filter.from %s", f.To, f.From)
	}
	for _, k := range f.Kinds {
		if k != search.KindNode && k != search.KindEntry {
			return search.Filter{}, fmt.Errorf("app: field filter.kinds: %q, want node or entry", k)
		}
	}
	return search.Filter{Project: f.Project, Kinds: f.Kinds, NodeTypes: f.NodeTypes, Roles: f.Roles, Tools: f.Tools,
		Files: f.Files, Models: f.Models, RelationTypes: f.RelationTypes, Range: search.TimeRange{From: from, To: to}}, nil
}

// Hybrid ranks the library for q by the weighted score of vector, keyword,
// relation, content, temporal, tag, importance and recency components, each
// hit with its breakdown ("why this result"); with q.Bridges, also the best
// paths of up to three edges from the hits' nodes. Archived nodes and their
// entries are left out unless q.Filter.Archived. Until the background queue
// has made vectors, the vector component is missing and VectorNote says so.
// Errors name the filter field that cannot be read.
func (s *Search) Hybrid(q HybridQuery) (HybridResult, error) {
	ctx := s.c.context()
	set, err := s.c.loadSearchSettings()
	if err != nil {
		return HybridResult{}, err
	}
	f, err := searchFilter(q.Filter)
	if err != nil {
		return HybridResult{}, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultHybridLimit
	}
	limit = min(limit, maxHybridLimit)
	vec := s.c.vectors.current()
	st := search.DefaultSettings()
	st.Weights, st.DecayRate = search.Weights(set.Weights), set.DecayRate
	eng := &search.Engine{Source: s.c.store.SearchSource(), Settings: st, Now: s.c.now, Narrower: &s.c.narrower}
	res := HybridResult{Hits: []HybridHit{}, Bridges: []BridgePath{}}
	if vec.index != nil && vec.index.Len() > 0 {
		eng.Embedder, eng.Index = vec.embedder, vec.index
		res.VectorModel = vec.model
	}
	if note := s.c.vectors.note(); note != "" {
		res.VectorNote = note
	}
	if !q.Filter.Archived {
		// Left out by the source's queries and the engine's filter, so
		// that limit live hits come back; when nothing is archived the
		// queries stay the unfiltered (faster) ones.
		archived, err := s.c.store.ArchivedNodeIDs(ctx)
		if err != nil {
			return HybridResult{}, err
		}
		f.ExcludeArchived = len(archived) > 0
	}
	resp, err := eng.Search(ctx, search.Request{Query: q.Query, Filter: f, Limit: limit})
	if err != nil {
		return HybridResult{}, fmt.Errorf("app: %w", err)
	}
	res.Keyword = resp.Keyword
	if resp.Time != nil {
		res.TimeText = resp.Time.Text
		if !resp.Time.Range.From.IsZero() {
			res.TimeFrom = resp.Time.Range.From.Format(time.RFC3339)
		}
		if !resp.Time.Range.To.IsZero() {
			res.TimeTo = resp.Time.Range.To.Format(time.RFC3339)
		}
	}
	if resp.VectorError != "" {
		res.VectorNote = "the embedding endpoint failed, ranked without vectors: " + resp.VectorError
	}
	words := search.Terms(resp.Keyword)
	var seeds []search.Hit
	for _, r := range resp.Results {
		res.Hits = append(res.Hits, hybridHit(r, words))
		if r.Doc.NodeID != "" {
			seeds = append(seeds, search.Hit{Item: store.NodeItem(r.Doc.NodeID), Score: r.Score})
		}
	}
	if err := s.titleHybridHits(ctx, res.Hits); err != nil {
		return HybridResult{}, err
	}
	if q.Bridges && len(seeds) > 0 {
		g, err := s.c.bridgeGraph()
		if err != nil {
			return HybridResult{}, err
		}
		paths := g.Bridges(dedupeSeeds(seeds, 10), search.BridgeOptions{MaxHops: 3, Limit: bridgePaths, Types: f.RelationTypes})
		res.Bridges, err = s.c.bridgePaths(paths)
		if err != nil {
			return HybridResult{}, err
		}
	}
	return res, nil
}

func dedupeSeeds(seeds []search.Hit, n int) []search.Hit {
	seen := map[string]bool{}
	var out []search.Hit
	for _, h := range seeds {
		if !seen[h.Item] && len(out) < n {
			seen[h.Item] = true
			out = append(out, h)
		}
	}
	return out
}

// snippetRunes caps a hybrid hit's snippet.
const snippetRunes = 240

func hybridHit(r search.Result, words []string) HybridHit {
	d := r.Doc
	h := HybridHit{Item: d.Item, URI: d.URI, Kind: d.Kind, NodeID: d.NodeID, SessionID: d.SessionID, Project: d.Project,
		NodeType: d.NodeType, Role: d.Role, Title: clipRunes(d.Title, labelRunes), Score: r.Score, Snippet: snippetOf(d.Text, words)}
	if !d.Time.IsZero() {
		h.Time = d.Time.UTC().Format(time.RFC3339)
	}
	for _, p := range r.Why {
		h.Why = append(h.Why, ScorePart(p))
	}
	return h
}

// snippetOf is the stretch of text around the first of words it holds, at
// most snippetRunes long, on one line.
func snippetOf(text string, words []string) string {
	text = strings.Join(strings.Fields(text), " ")
	at := -1
	lower := strings.ToLower(text)
	for _, w := range words {
		if i := strings.Index(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	r := []rune(text)
	start := 0
	if at > 0 {
		start = max(0, len([]rune(text[:at]))-60)
	}
	end := min(len(r), start+snippetRunes)
	out := string(r[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(r) {
		out += "…"
	}
	return out
}

// Connect answers "how is A connected to B?": the best few paths of up to
// three edges between two nodes (node ids or rhizome:node/ URIs), each edge
// with its type, direction and rationale, best first by the product of the
// edges' confidences. None when nothing joins them within three edges.
// types, when given, are the only edge types followed.
func (s *Search) Connect(a, b string, types []string) ([]BridgePath, error) {
	ia, err := nodeRef(a)
	if err != nil {
		return nil, err
	}
	ib, err := nodeRef(b)
	if err != nil {
		return nil, err
	}
	g, err := s.c.bridgeGraph()
	if err != nil {
		return nil, err
	}
	return s.c.bridgePaths(g.Connect(store.NodeItem(ia), store.NodeItem(ib), 5, 3, types...))
}

// nodeRef reads a node id, or a rhizome:node/<id> URI.
func nodeRef(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "rhizome:") {
		it, err := link.Parse(s)
		if err != nil {
			return "", fmt.Errorf("app: %q: %w", s, err)
		}
		if it.Kind != link.KindNode {
			return "", fmt.Errorf("app: %q is not a node", s)
		}
		return it.ID, nil
	}
	if s == "" {
		return "", errors.New("app: give a node id or a rhizome:node/ URI")
	}
	return s, nil
}

// bridgeGraph returns the graph bridges walk, rebuilt when the edges
// changed since it was built.
func (c *core) bridgeGraph() (*search.Graph, error) {
	ctx := c.context()
	ver, err := c.store.EdgesVersion(ctx)
	if err != nil {
		return nil, err
	}
	c.bridgeMu.Lock()
	defer c.bridgeMu.Unlock()
	if c.bridges != nil && c.bridgesVer == ver {
		return c.bridges, nil
	}
	edges, err := c.store.SearchGraph(ctx)
	if err != nil {
		return nil, err
	}
	c.bridges, c.bridgesVer = search.NewGraph(edges), ver
	return c.bridges, nil
}

func (c *core) bridgePaths(paths []search.Path) ([]BridgePath, error) {
	out := make([]BridgePath, 0, len(paths))
	var ids []string
	for _, p := range paths {
		for _, n := range p.Nodes {
			ids = append(ids, strings.TrimPrefix(n, "node:"))
		}
	}
	labels, err := c.store.NodeSummaries(c.context(), ids)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		bp := BridgePath{Score: p.Score}
		for _, n := range p.Nodes {
			id := strings.TrimPrefix(n, "node:")
			bp.NodeIDs = append(bp.NodeIDs, id)
			bp.Labels = append(bp.Labels, clipRunes(labels[id], labelRunes))
		}
		for _, st := range p.Steps {
			bp.Steps = append(bp.Steps, BridgeStep(st))
		}
		out = append(out, bp)
	}
	return out, nil
}

// titleHybridHits names hits as the rest of the window does (issue 8): a
// node by the summary it shows, an entry by its session's title and its
// place ("user #393"), never by a file name.
func (s *Search) titleHybridHits(ctx context.Context, hits []HybridHit) error {
	var nodeIDs, sessionIDs []string
	for _, h := range hits {
		if h.Kind == "node" {
			nodeIDs = append(nodeIDs, h.NodeID)
		} else if h.SessionID != "" {
			sessionIDs = append(sessionIDs, h.SessionID)
		}
	}
	nodeSums, err := s.c.store.SummaryHeadings(ctx, string(summary.KindSegment), nodeIDs, labelRunes+1)
	if err != nil {
		return err
	}
	sesSums, err := s.c.store.SummaryHeadings(ctx, string(summary.KindSession), sessionIDs, 0)
	if err != nil {
		return err
	}
	for i := range hits {
		h := &hits[i]
		switch h.Kind {
		case "node":
			if r := nodeSums[h.NodeID]; r.Text != "" {
				h.Title = clipRunes(r.Text, labelRunes)
			}
		default:
			if r := sesSums[h.SessionID]; r.Title != "" {
				where := h.Title
				if _, after, ok := strings.Cut(h.Title, " · "); ok {
					where = after
				}
				h.Title = clipRunes(r.Title+" · "+where, labelRunes)
			}
		}
	}
	return nil
}
