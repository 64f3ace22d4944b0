// Package consolidate is AutoMem's "sleep cycle" for Rhizome's knowledge
// graph: relevance scores that decay, and four cycles that plan changes to
// the graph — decay (daily: rescore), creative (weekly: link similar but
// unconnected nodes), cluster (monthly: group dense regions of embedding
// space under MetaPattern nodes) and forget (archive, optionally delete,
// what has faded, never a protected node).
//
// The package is pure: it reads a neutral in-memory Graph and returns a
// RunLog, the ordered list of Changes a run makes. The app applies a run's
// changes in one transaction and keeps the log; Undo turns a log into the
// run that restores the exact previous state. Nothing here touches a
// database, a clock or a model: the caller passes the time.
//
// Items are named by their rhizome: URIs (backend/link); edges use link's
// relation vocabulary (SHARES_THEME, RELATES_TO, PART_OF, …) and link's
// makers (consolidation for the edges made here).
//
// See automem-features.md, "Memory Consolidation" (sections "Relevance
// Scoring" and "Cycles"), corrected by ERRATA.md, "AutoMem (relevance and
// consolidation)" (lines 77-83: AutoMem's code's formula, rates and
// protections, which win over the spec's prose); and issue 10, section 3.
package consolidate

import (
	"errors"
	"fmt"
	"math"
	"time"

	"rhizome/backend/link"
)

// Node kinds the cycles treat specially. Kinds are the knowledge kinds'
// names as the specs write them ("Decision", "Insight", "Exception", …);
// segment nodes carry whatever kind the app gives them.
const (
	// KindMetaPattern is the kind of the nodes the cluster cycle makes.
	// See automem-features.md, "Persistence" ("type='MetaPattern'").
	KindMetaPattern = "MetaPattern"
	KindDecision    = "Decision" // protected from forgetting by default
	KindInsight     = "Insight"  // protected from forgetting by default
)

// What AutoMem's code assumes for a memory that has no importance or
// confidence of its own: the app passes these when it has none.
const (
	UnknownImportance = 0.5
	UnknownConfidence = 0.5
)

// Node is one node of the graph as consolidation sees it: a knowledge node
// (rhizome:knowledge/…), a segment node (rhizome:node/…) or a MetaPattern.
// Scores, importance and confidence are in [0, 1]; times are instants (any
// location). A Node's slices are never modified by this package.
type Node struct {
	ID    link.Item `json:"id"`    // a library item
	Kind  string    `json:"kind"`  // "Decision", "MetaPattern", a segment's type, …
	Label string    `json:"label"` // a short text naming the node, for summaries
	// Summary is the generated text of a MetaPattern; "" for other nodes.
	Summary string   `json:"summary,omitempty"`
	Tags    []string `json:"tags,omitempty"` // topics and tags, as written
	// Importance is the node's importance in [0, 1] (UnknownImportance when
	// the app has none).
	Importance float64 `json:"importance"`
	// Confidence is how sure the analyzer was of the node, in [0, 1]
	// (UnknownConfidence when the app has none).
	Confidence float64 `json:"confidence"`
	// CreatedAt is when the node's content was recorded: its age counts from
	// here.
	CreatedAt time.Time `json:"createdAt"`
	// LastAccessed is when a person last opened or retrieved the node; zero
	// means never (its creation counts as its last access, as in AutoMem).
	LastAccessed time.Time `json:"lastAccessed,omitzero"`
	// Relevance is the stored relevance score in [0, 1], as the last decay
	// cycle left it.
	Relevance float64 `json:"relevance"`
	// Archived nodes are out of the default graph and search. Decay,
	// creative and cluster leave them alone; forget may delete them.
	Archived bool `json:"archived,omitempty"`
	// TouchedByPerson is true when a person made, edited, tagged, pinned or
	// linked the node: such a node is never forgotten. An edge made by a
	// person (link.ByUser) touches both its ends too.
	TouchedByPerson bool `json:"touchedByPerson,omitempty"`
	// Embedding is the node's vector (any dimension, the same for every
	// node), or nil when it has none. Creative and cluster use only nodes
	// with one.
	Embedding []float32 `json:"embedding,omitempty"`
}

// Edge is one typed edge between two items. Its ends need not be nodes of
// the Graph (an edge to a session or a file still counts toward its node's
// relationship density).
type Edge struct {
	ID         string         `json:"id"` // unique; the run's new edges get ULIDs
	Source     link.Item      `json:"source"`
	Target     link.Item      `json:"target"`
	Relation   link.Relation  `json:"type"`       // one of link.Relations
	Confidence float64        `json:"confidence"` // in [0, 1]
	CreatedBy  link.CreatedBy `json:"createdBy"`  // who made it; consolidation for ours
	// CreatedAt is when the edge was made (the run's time for ours; may be
	// zero on edges the app passes in).
	CreatedAt time.Time `json:"createdAt,omitzero"`
	// Note says why the edge exists ("similarity 0.83; shared tags: auth").
	Note string `json:"note,omitempty"`
}

// Graph is the input of a run: the nodes and edges to consider. Order has
// no meaning: Apply keeps the order of what stays and appends what it adds
// (a deleted node that an undo restores comes back at the end).
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Validate reports the first thing wrong with the graph, naming the node or
// edge (its position and id) and the field: an invalid or external id, a
// repeated id, an empty kind, an importance, confidence or relevance outside
// [0, 1] or NaN, no creation time, an embedding with a non-finite value, no
// length or a dimension unlike the others; an edge with no id or a repeated
// one, an invalid end, a source outside the library, a loop, an unknown
// relation or maker, or a confidence outside [0, 1].
func (g Graph) Validate() error {
	seen := make(map[link.Item]int, len(g.Nodes))
	dim := -1
	dimFrom := -1
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if err := n.ID.Validate(); err != nil {
			return fmt.Errorf("consolidate: node %d: field id: %w", i, err)
		}
		if !n.ID.InLibrary() {
			return fmt.Errorf("consolidate: node %d: field id: %s is not a library item", i, n.ID)
		}
		if j, ok := seen[n.ID]; ok {
			return fmt.Errorf("consolidate: node %d (%s): the same id as node %d", i, n.ID, j)
		}
		seen[n.ID] = i
		if err := n.validate(); err != nil {
			return fmt.Errorf("consolidate: node %d %w", i, err)
		}
		if n.Embedding != nil {
			if dim < 0 {
				dim, dimFrom = len(n.Embedding), i
			} else if len(n.Embedding) != dim {
				return fmt.Errorf("consolidate: node %d (%s): field embedding: %d dimensions, node %d has %d", i, n.ID, len(n.Embedding), dimFrom, dim)
			}
		}
	}
	edgeSeen := make(map[string]int, len(g.Edges))
	for i := range g.Edges {
		if err := g.Edges[i].validate(); err != nil {
			return fmt.Errorf("consolidate: edge %d %w", i, err)
		}
		id := g.Edges[i].ID
		if j, ok := edgeSeen[id]; ok {
			return fmt.Errorf("consolidate: edge %d (%s): the same id as edge %d", i, id, j)
		}
		edgeSeen[id] = i
	}
	return nil
}

// validate checks one node's own fields (not its id's uniqueness or its
// embedding's dimension); the error starts with the node's id in
// parentheses, for the caller to prefix.
func (n *Node) validate() error {
	where := func(field string) string { return fmt.Sprintf("(%s): field %s", n.ID, field) }
	if n.Kind == "" {
		return fmt.Errorf("%s is empty", where("kind"))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"importance", n.Importance}, {"confidence", n.Confidence}, {"relevance", n.Relevance}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("%s: %v is outside [0, 1]", where(f.name), f.v)
		}
	}
	if n.CreatedAt.IsZero() {
		return fmt.Errorf("%s is not set", where("createdAt"))
	}
	if n.Embedding != nil {
		if err := checkVector(n.Embedding); err != nil {
			return fmt.Errorf("%s: %w", where("embedding"), err)
		}
	}
	return nil
}

// validate checks one edge; the error starts with the edge's id in
// parentheses, for the caller to prefix.
func (e *Edge) validate() error {
	if e.ID == "" {
		return errors.New("(no id): field id is empty")
	}
	where := func(field string) string { return fmt.Sprintf("(%s): field %s", e.ID, field) }
	if err := e.Source.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where("source"), err)
	}
	if !e.Source.InLibrary() {
		return fmt.Errorf("%s: %s is not a library item", where("source"), e.Source)
	}
	if err := e.Target.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where("target"), err)
	}
	if e.Source == e.Target {
		return fmt.Errorf("(%s): source and target are the same item (%s)", e.ID, e.Source)
	}
	if _, ok := link.Lookup(e.Relation); !ok {
		return fmt.Errorf("%s: unknown relation %q", where("type"), e.Relation)
	}
	if !e.CreatedBy.Valid() {
		return fmt.Errorf("%s: unknown maker %q", where("createdBy"), e.CreatedBy)
	}
	if !(e.Confidence >= 0 && e.Confidence <= 1) {
		return fmt.Errorf("%s: %v is outside [0, 1]", where("confidence"), e.Confidence)
	}
	return nil
}

// checkVector rejects an empty vector, a non-finite value and the zero
// vector (it has no direction, so no cosine similarity).
func checkVector(v []float32) error {
	if len(v) == 0 {
		return errors.New("no dimensions")
	}
	var sum float64
	for d, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("value %d is %v", d, x)
		}
		sum += f * f
	}
	if sum == 0 {
		return errors.New("the zero vector has no direction")
	}
	return nil
}
