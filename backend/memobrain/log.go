package memobrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// OpKind names an operation of the log.
type OpKind string

// The operations. See Graph.Init, ApplyPatch, Flush and Fold.
const (
	OpInit  OpKind = "init"
	OpPatch OpKind = "patch"
	OpFlush OpKind = "flush"
	OpFold  OpKind = "fold"
)

// Step is one recorded operation: what was asked and what it changed.
type Step struct {
	Kind OpKind `json:"kind"`
	// Input is the operation's JSON: {"task"} for init, the MemoryPatch for
	// a patch, one FlushOp or one FoldOp (as the model wrote them, when they
	// were read from its reply).
	Input json.RawMessage `json:"input"`
	// TurnIDs are the related turn ids given with a patch.
	TurnIDs []int `json:"turnIds,omitempty"`
	Diff    Diff  `json:"diff"`
}

// EdgeRef is one edge and its position in the graph's edge list: before the
// step for a removed edge or the From of a re-routed one, after it for an
// added edge or the To of a re-routed one.
type EdgeRef struct {
	Index     int    `json:"index"`
	Src       int    `json:"src"`
	Dst       int    `json:"dst"`
	Rationale string `json:"rationale"`
}

func edgeRef(i int, e Edge) EdgeRef {
	return EdgeRef{Index: i, Src: e.Src, Dst: e.Dst, Rationale: e.Rationale}
}

// Reroute is an edge a fold moved onto its summary node.
type Reroute struct {
	From EdgeRef `json:"from"`
	To   EdgeRef `json:"to"`
}

// NodeChange is a node whose state an operation changed (flush and fold
// change nothing else of an existing node).
type NodeChange struct {
	ID   int    `json:"id"`
	From Active `json:"from"`
	To   Active `json:"to"`
}

// Diff is what one step changed. No MemoBrain operation deletes a node
// (flush and fold change its state), so there is no list of removed nodes.
type Diff struct {
	NodesAdded    []int        `json:"nodesAdded"`
	NodesChanged  []NodeChange `json:"nodesChanged"`
	EdgesAdded    []EdgeRef    `json:"edgesAdded"`
	EdgesRemoved  []EdgeRef    `json:"edgesRemoved"`
	EdgesRerouted []Reroute    `json:"edgesRerouted"`
	// TmpIDs maps a patch's tmp ids to the ids their nodes got.
	TmpIDs map[string]int `json:"tmpIds,omitempty"`
}

func newDiff() Diff {
	return Diff{NodesAdded: []int{}, NodesChanged: []NodeChange{}, EdgesAdded: []EdgeRef{},
		EdgesRemoved: []EdgeRef{}, EdgesRerouted: []Reroute{}, TmpIDs: map[string]int{}}
}

// Log is a graph's history: the state it starts from and every operation
// since, in order. Base nil is the empty graph (a graph begun with Init); a
// graph read from a snapshot starts from that snapshot. A Log marshals to
// JSON (Base as a bare MemoBrain snapshot) and back.
type Log struct {
	Base  *Graph `json:"base"`
	Steps []Step `json:"steps"`
}

// Replay rebuilds the graph as it was after the first upTo steps of log
// (0: the base). Each step is applied again from its input and must change
// exactly what the log says it changed, else the log is not this graph's
// and Replay returns an error naming the step. The result's own log is
// those steps.
func Replay(log Log, upTo int) (*Graph, error) {
	if upTo < 0 || upTo > len(log.Steps) {
		return nil, fmt.Errorf("memobrain: unable to replay %d steps: the log has %d", upTo, len(log.Steps))
	}
	g := NewGraph()
	if log.Base != nil {
		g = log.Base.frozen()
		g.base = log.Base
	}
	for i, s := range log.Steps[:upTo] {
		d, err := g.applyStep(s)
		if err != nil {
			return nil, fmt.Errorf("memobrain: unable to replay step %d (%s): %w", i, s.Kind, err)
		}
		got, want := diffJSON(d), diffJSON(s.Diff)
		if !bytes.Equal(got, want) {
			return nil, fmt.Errorf("memobrain: unable to replay step %d (%s): it changes %s, the log says %s", i, s.Kind, got, want)
		}
		g.steps = append(g.steps, s)
	}
	return g, nil
}

// StepDiff is what step i of the log changed.
func (l Log) StepDiff(i int) (Diff, error) {
	if i < 0 || i >= len(l.Steps) {
		return Diff{}, fmt.Errorf("memobrain: no step %d: the log has %d", i, len(l.Steps))
	}
	return l.Steps[i].Diff, nil
}

func (g *Graph) applyStep(s Step) (Diff, error) {
	switch s.Kind {
	case OpInit:
		var in struct {
			Task *string `json:"task"`
		}
		if err := json.Unmarshal(s.Input, &in); err != nil || in.Task == nil {
			return Diff{}, errors.New(`the input is not {"task": string}`)
		}
		return g.initTask(*in.Task)
	case OpPatch:
		if !json.Valid(s.Input) {
			return Diff{}, errors.New("the input is not valid JSON")
		}
		p, err := readPatch(s.Input)
		if err != nil {
			return Diff{}, err
		}
		return g.applyPatch(p, s.TurnIDs)
	case OpFlush:
		if !json.Valid(s.Input) {
			return Diff{}, errors.New("the input is not valid JSON")
		}
		op, err := readFlushOp(s.Input)
		if err != nil {
			return Diff{}, err
		}
		return g.flush(op)
	case OpFold:
		if !json.Valid(s.Input) {
			return Diff{}, errors.New("the input is not valid JSON")
		}
		op, err := readFoldOp(s.Input)
		if err != nil {
			return Diff{}, err
		}
		return g.fold(op)
	}
	return Diff{}, fmt.Errorf("unknown operation %q", s.Kind)
}

// diffJSON is d's JSON with empty and missing lists alike.
func diffJSON(d Diff) []byte {
	n := newDiff()
	n.NodesAdded = append(n.NodesAdded, d.NodesAdded...)
	n.NodesChanged = append(n.NodesChanged, d.NodesChanged...)
	n.EdgesAdded = append(n.EdgesAdded, d.EdgesAdded...)
	n.EdgesRemoved = append(n.EdgesRemoved, d.EdgesRemoved...)
	n.EdgesRerouted = append(n.EdgesRerouted, d.EdgesRerouted...)
	for k, v := range d.TmpIDs {
		n.TmpIDs[k] = v
	}
	b, _ := json.Marshal(n) // plain data: never fails
	return b
}

// Rationale is the rationale the model gave a flush or a fold (its input's
// "rationale"); "" for init and patch steps, and for an input that does not
// read.
func (s Step) Rationale() string {
	if !json.Valid(s.Input) {
		return ""
	}
	switch s.Kind {
	case OpFlush:
		op, err := readFlushOp(s.Input)
		if err == nil {
			return op.Rationale
		}
	case OpFold:
		op, err := readFoldOp(s.Input)
		if err == nil {
			return op.Rationale
		}
	}
	return ""
}
