// Package memobraintest makes MemoBrain reasoning graphs for tests and
// benchmarks of the packages that use backend/memobrain: a large graph grown
// the way MemoBrain's loop grows one, through memobrain's own operations.
package memobraintest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"rhizome/backend/memobrain"
)

// Large grows a reasoning graph of n nodes (n >= 1) the way MemoBrain's
// loop does, deterministically from seed: init with a task, then a patch
// per turn (a new subtask under a live one, or one or two pieces of
// evidence under it; turn k gets turn ids [2k+2, 2k+3]), and every 50 turns
// a recall that flushes a piece of evidence and folds a live subtask with
// its live evidence. The graph's log holds every step.
func Large(n int, seed uint64) (*memobrain.Graph, error) {
	r := rand.New(rand.NewPCG(seed, 1))
	text := func(prefix string, i int) string {
		return fmt.Sprintf("%s %d: %s", prefix, i, strings.Repeat("searched the docs and read the result; ", 3+r.IntN(6)))
	}
	g := memobrain.NewGraph()
	if _, err := g.Init("map every reasoning step of a long agent session"); err != nil {
		return nil, err
	}
	subtasks := []int{1}
	for i := 0; g.Len() < n; i++ {
		var p memobrain.MemoryPatch
		parent := subtasks[r.IntN(len(subtasks))]
		if node, _ := g.Node(parent); node.Active != memobrain.Live {
			parent = 1
		}
		if r.IntN(10) < 3 {
			p.AddNodes = []memobrain.AddNodeOp{{TmpID: "tmp1", Kind: memobrain.KindSubtask,
				Thought: memobrain.Notes{{Role: memobrain.RoleAssistant, Content: text("plan", i)}, {Role: memobrain.RoleUser, Content: text("ok", i)}}}}
			p.AddEdges = []memobrain.AddEdgeOp{{Src: memobrain.IDRef(parent), Dst: memobrain.TmpRef("tmp1"), Rationale: "decompose"}}
			subtasks = append(subtasks, g.NextID())
		} else {
			for j := 1; j <= 1+r.IntN(2) && g.Len()+j <= n; j++ {
				tmp := fmt.Sprintf("tmp%d", j)
				p.AddNodes = append(p.AddNodes, memobrain.AddNodeOp{TmpID: tmp, Kind: memobrain.KindEvidence,
					Thought: memobrain.Notes{{Role: memobrain.RoleAssistant, Content: text("search", i)}, {Role: memobrain.RoleUser, Content: text("found", i)}}})
				p.AddEdges = append(p.AddEdges, memobrain.AddEdgeOp{Src: memobrain.IDRef(parent), Dst: memobrain.TmpRef(tmp), Rationale: "support"})
			}
		}
		if _, err := g.ApplyPatch(p, []int{2 + 2*i, 3 + 2*i}); err != nil {
			return nil, fmt.Errorf("memobraintest: turn %d: %w", i, err)
		}
		if i%50 == 49 && g.Len() < n {
			if _, err := g.ApplyFlushAndFold(recall(g, r)); err != nil {
				return nil, fmt.Errorf("memobraintest: recall after turn %d: %w", i, err)
			}
		}
	}
	return g, nil
}

// recall flushes a live piece of evidence and folds a live subtask with its
// live evidence children.
func recall(g *memobrain.Graph, r *rand.Rand) memobrain.FlushAndFoldOp {
	children := map[int][]int{}
	for _, e := range g.Edges() {
		children[e.Src] = append(children[e.Src], e.Dst)
	}
	var subs, evidence []memobrain.ReasoningNode
	for _, n := range g.Nodes() {
		if n.Active != memobrain.Live {
			continue
		}
		switch n.Kind {
		case memobrain.KindSubtask:
			subs = append(subs, n)
		case memobrain.KindEvidence:
			evidence = append(evidence, n)
		}
	}
	var f memobrain.FlushAndFoldOp
	folded := map[int]bool{}
	if len(subs) > 0 {
		sub := subs[r.IntN(len(subs))]
		fold := memobrain.FoldOp{IDs: []int{sub.ID}, Rationale: "settled",
			Notes: memobrain.Notes{{Role: memobrain.RoleAssistant, Content: "what the steps did"}, {Role: memobrain.RoleUser, Content: "what they found"}}}
		for _, dst := range children[sub.ID] {
			if n, _ := g.Node(dst); n.Active == memobrain.Live && n.Kind == memobrain.KindEvidence {
				fold.IDs = append(fold.IDs, dst)
			}
		}
		for _, id := range fold.IDs {
			folded[id] = true
		}
		f.FoldOps = []memobrain.FoldOp{fold}
	}
	for range 20 {
		if len(evidence) == 0 {
			break
		}
		n := evidence[r.IntN(len(evidence))]
		if !folded[n.ID] {
			f.FlushOps = []memobrain.FlushOp{{ID: n.ID, Rationale: "redundant"}}
			break
		}
	}
	return f
}
