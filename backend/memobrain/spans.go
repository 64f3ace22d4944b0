package memobrain

import (
	"slices"
	"sort"
)

// FoldSpan is a summary node and the span of nodes a fold replaced with it:
// what a view shows inside the summary when it is opened.
type FoldSpan struct {
	// Summary is the summary node's id.
	Summary int `json:"summary"`
	// Nodes are the folded nodes' ids, in the order the fold listed them (a
	// summary folded again is listed in the later span, and keeps its own).
	Nodes []int `json:"nodes"`
	// Edges are the edges between the folded nodes that the fold dropped,
	// as [src, dst] in edge order; nil when the fold is not in the log.
	Edges [][2]int `json:"edges"`
	// Logged is whether the fold is a step of the log (exact), rather than
	// inferred from a snapshot that was read with it done (see FoldSpans).
	Logged bool `json:"logged"`
}

// FoldSpans lists the fold spans of g, whose log steps are steps (the graph
// after them; nil for a graph as read), by summary id.
//
// A fold in the log is exact: its summary is the node it added, its span the
// nodes it made inactive, with the edges inside the span it dropped. A
// snapshot keeps no record of the folds done before it was written, so for
// a folded node the log does not account for, the span is inferred as
// fold_nodes leaves it: the node belongs to the first summary made after it
// (a larger id) whose related turn ids include all of its own, among the
// summaries the log did not make. A folded node with no turn ids, or no
// such summary, is in no span.
func FoldSpans(g *Graph, steps []Step) []FoldSpan {
	var spans []FoldSpan
	logged := map[int]bool{}    // folded nodes the log accounts for
	loggedSum := map[int]bool{} // summaries the log made
	for _, s := range steps {
		if s.Kind != OpFold || len(s.Diff.NodesAdded) != 1 {
			continue
		}
		sp := FoldSpan{Summary: s.Diff.NodesAdded[0], Nodes: []int{}, Edges: [][2]int{}, Logged: true}
		for _, c := range s.Diff.NodesChanged {
			if c.To == Folded {
				sp.Nodes = append(sp.Nodes, c.ID)
				logged[c.ID] = true
			}
		}
		for _, e := range s.Diff.EdgesRemoved {
			sp.Edges = append(sp.Edges, [2]int{e.Src, e.Dst})
		}
		loggedSum[sp.Summary] = true
		spans = append(spans, sp)
	}
	var summaries []*ReasoningNode
	for _, n := range g.nodes {
		if n.Kind == KindSummary && !loggedSum[n.ID] {
			summaries = append(summaries, n)
		}
	}
	sort.Slice(summaries, func(i, j int) bool { return summaries[i].ID < summaries[j].ID })
	inferred := map[int]int{} // summary id -> index in spans
	for _, n := range g.nodes {
		if n.Active != Folded || logged[n.ID] || len(n.TurnIDs) == 0 {
			continue
		}
		for _, s := range summaries {
			if s.ID <= n.ID || !containsAll(s.TurnIDs, n.TurnIDs) {
				continue
			}
			i, ok := inferred[s.ID]
			if !ok {
				i = len(spans)
				inferred[s.ID] = i
				spans = append(spans, FoldSpan{Summary: s.ID, Nodes: []int{}})
			}
			spans[i].Nodes = append(spans[i].Nodes, n.ID)
			break
		}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].Summary < spans[j].Summary })
	return spans
}

// containsAll reports whether every element of sub is in set.
func containsAll(set, sub []int) bool {
	for _, x := range sub {
		if !slices.Contains(set, x) {
			return false
		}
	}
	return true
}
