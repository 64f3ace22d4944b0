package relate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"rhizome/backend/link"
)

// MaxRationaleBytes bounds a merged rationale.
const MaxRationaleBytes = 4096

// Validate reports what is wrong with an edge, naming the field: an invalid
// source or target item (see link.Item.Validate), an edge from an item to
// itself, a relation outside the vocabulary, a confidence or similarity
// outside 0-1 (or NaN), or an unknown maker.
func (e Edge) Validate() error {
	if err := e.Source.Validate(); err != nil {
		return fmt.Errorf("relate: field source: %w", err)
	}
	if err := e.Target.Validate(); err != nil {
		return fmt.Errorf("relate: field target: %w", err)
	}
	if e.Source == e.Target {
		return fmt.Errorf("relate: edge from %s to itself", e.Source)
	}
	if _, ok := link.Lookup(e.Relation); !ok {
		return fmt.Errorf("relate: field relation: unknown relation %q", e.Relation)
	}
	if math.IsNaN(e.Confidence) || e.Confidence < 0 || e.Confidence > 1 {
		return fmt.Errorf("relate: field confidence: %v, want 0 to 1", e.Confidence)
	}
	if e.Similarity != nil && (math.IsNaN(*e.Similarity) || *e.Similarity < 0 || *e.Similarity > 1) {
		return fmt.Errorf("relate: field similarity: %v, want 0 to 1", *e.Similarity)
	}
	if !e.CreatedBy.Valid() {
		return fmt.Errorf("relate: field createdBy: %q", e.CreatedBy)
	}
	return nil
}

// edgeKey identifies an edge for merging: a symmetric relation (RELATES_TO,
// SIMILAR_TO, …) joins the same two items whichever way it is written.
type edgeKey struct {
	a, b string
	rel  link.Relation
}

func keyOf(e Edge) edgeKey {
	a, b := e.Source.String(), e.Target.String()
	if !e.Relation.Directed() && b < a {
		a, b = b, a
	}
	return edgeKey{a, b, e.Relation}
}

// Merge joins lists of edges (the offline derivations' and the model's
// proposed relationships, say) into one: edges with the same source, target
// and relation (either way round for a symmetric relation) become one that
// keeps the highest confidence and that edge's maker and direction, the
// highest similarity, and every distinct rationale ("offline: …; model:
// …" when the makers differ). The result is sorted by source, target and
// relation. An invalid edge is an error naming its list and position;
// nothing is merged then.
func Merge(lists ...[]Edge) ([]Edge, error) {
	var all []Edge
	for li, list := range lists {
		for i, e := range list {
			if err := e.Validate(); err != nil {
				return nil, fmt.Errorf("relate: list %d, edge %d: %w", li, i, err)
			}
		}
		all = append(all, list...)
	}
	return mergeEdges(all), nil
}

// mergeEdges merges valid edges (see Merge).
func mergeEdges(all []Edge) []Edge {
	type merged struct {
		edge   Edge
		parts  []string // "maker\x00rationale", distinct, in order
		makers map[link.CreatedBy]bool
	}
	index := map[edgeKey]*merged{}
	var order []*merged
	for _, e := range all {
		k := keyOf(e)
		m := index[k]
		if m == nil {
			m = &merged{edge: e, makers: map[link.CreatedBy]bool{}}
			if e.Similarity != nil {
				s := *e.Similarity
				m.edge.Similarity = &s
			}
			index[k] = m
			order = append(order, m)
		} else {
			if e.Confidence > m.edge.Confidence {
				m.edge.Source, m.edge.Target = e.Source, e.Target
				m.edge.Confidence, m.edge.CreatedBy = e.Confidence, e.CreatedBy
			}
			if e.Similarity != nil && (m.edge.Similarity == nil || *e.Similarity > *m.edge.Similarity) {
				s := *e.Similarity
				m.edge.Similarity = &s
			}
		}
		m.makers[e.CreatedBy] = true
		if r := strings.TrimSpace(e.Rationale); r != "" {
			part := string(e.CreatedBy) + "\x00" + r
			dup := false
			for _, p := range m.parts {
				dup = dup || p == part
			}
			if !dup {
				m.parts = append(m.parts, part)
			}
		}
	}
	type sorted struct {
		src, dst string
		edge     Edge
	}
	out := make([]sorted, 0, len(order))
	for _, m := range order {
		texts := make([]string, 0, len(m.parts))
		for _, p := range m.parts {
			maker, text, _ := strings.Cut(p, "\x00")
			if len(m.makers) > 1 {
				text = maker + ": " + text
			}
			texts = append(texts, text)
		}
		m.edge.Rationale = clipBytes(strings.Join(texts, "; "), MaxRationaleBytes)
		out = append(out, sorted{m.edge.Source.String(), m.edge.Target.String(), m.edge})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.src != b.src {
			return a.src < b.src
		}
		if a.dst != b.dst {
			return a.dst < b.dst
		}
		return a.edge.Relation < b.edge.Relation
	})
	edges := make([]Edge, len(out))
	for i, s := range out {
		edges[i] = s.edge
	}
	return edges
}

// clipBytes cuts s to at most n bytes at a rune boundary, marking the cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("…")
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
