package memobrain

// EdgeKind is the relation an edge stands for. MemoBrain stores edges
// untyped ({src, dst, rationale}); the kinds live only in its prompt and a
// docstring, so Rhizome infers one from the node kinds when the input has
// none. See memobrain-data-model.md, "Relationship Types", and ERRATA.md,
// "MemoBrain".
type EdgeKind string

// The edge kinds.
const (
	EdgeDecompose EdgeKind = "decompose" // a task broken into a subtask
	EdgeRefine    EdgeKind = "refine"    // a (sub)task made more precise
	EdgeSupport   EdgeKind = "support"   // evidence (or a summary) answering a (sub)task
)

// Edge is a relation between two nodes. Src is the parent, Dst the child:
// MemoBrain's patches link an existing node (src) to a new one (dst), and its
// pretty_print lists dst under src.
//
// An edge read from a snapshot keeps every key it had and is written back as
// it was read (operations never change an edge in place: a fold replaces
// it).
type Edge struct {
	Src       int    `json:"src"`
	Dst       int    `json:"dst"`
	Rationale string `json:"rationale"`
	// Kind is the edge's "kind" when the input had one, else inferred (see
	// InferEdgeKind) and KindInferred is true. An inferred kind is never
	// written to a MemoBrain snapshot.
	Kind         EdgeKind `json:"kind"`
	KindInferred bool     `json:"kindInferred"`

	src []field // every member as read; nil for an edge made here
}

// InferEdgeKind is the kind of an edge from a src node to a dst node, from
// their kinds, following the relations MemoBrain's prompt describes
// (memobrain-data-model.md, "Relationship Types"), tried in this order:
//
//	dst summary                 support   (a fold's summary stands for the answer it condensed)
//	src or dst evidence         support   (evidence answers the other end, whichever way the edge is written)
//	src task, dst subtask       decompose
//	anything else               refine    (subtask -> subtask, summary -> subtask, unknown kinds)
func InferEdgeKind(src, dst NodeKind) EdgeKind {
	switch {
	case dst == KindSummary, src == KindEvidence, dst == KindEvidence:
		return EdgeSupport
	case src == KindTask && dst == KindSubtask:
		return EdgeDecompose
	}
	return EdgeRefine
}
