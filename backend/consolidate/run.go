package consolidate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"rhizome/backend/link"
)

// Cycle is one of AutoMem's four consolidation cycles.
type Cycle string

// The cycles, in the order a run takes them. See automem-features.md,
// "Cycles".
const (
	Decay    Cycle = "decay"    // daily: recompute every live node's relevance
	Creative Cycle = "creative" // weekly: link similar but unconnected nodes
	Cluster  Cycle = "cluster"  // monthly: MetaPatterns over dense regions of embedding space
	Forget   Cycle = "forget"   // quarterly: archive, optionally delete, what has faded
)

// Cycles lists the cycles in the order a run takes them.
var Cycles = []Cycle{Decay, Creative, Cluster, Forget}

// ParseCycle reads a cycle's name ("decay", "creative", "cluster",
// "forget"); anything else is an error listing them.
func ParseCycle(s string) (Cycle, error) {
	if c := Cycle(s); slices.Contains(Cycles, c) {
		return c, nil
	}
	return "", fmt.Errorf("consolidate: unknown cycle %q (want decay, creative, cluster or forget)", s)
}

// Request says what a run does.
type Request struct {
	// Cycles to run, in any order (they run in the order of Cycles, each
	// seeing the changes of the one before); none means all four.
	Cycles []Cycle
	// Now is the time the run takes as the present: ages, access recency
	// and the new nodes' and edges' times count from it.
	Now time.Time
	// DryRun marks the log as a plan to show, not to apply. The plan is the
	// same either way: the package never applies anything itself.
	DryRun bool
	// Index finds nearest neighbours for creative and cluster; nil builds
	// the built-in Index over the nodes those cycles consider.
	Index NeighbourIndex
}

// RunLog is what a run changed (or, for a dry run, would change): the
// changes in the order to apply them, the nodes forget spared, and counts
// per cycle. The app applies Changes in one transaction, keeps the log to
// show in the window, and undoes it with Undo.
type RunLog struct {
	ID     string    `json:"id"` // ULID at At
	At     time.Time `json:"at"` // the run's Now
	Cycles []Cycle   `json:"cycles"`
	DryRun bool      `json:"dryRun,omitempty"`
	// UndoOf is, on a run made by Undo, the id of the run it undoes.
	UndoOf   string       `json:"undoOf,omitempty"`
	Settings Settings     `json:"settings"`
	Stats    []CycleStats `json:"stats"`
	Changes  []Change     `json:"changes"`
	Spared   []Spared     `json:"spared,omitempty"`
}

// CycleStats counts what one cycle of a run did.
type CycleStats struct {
	Cycle Cycle `json:"cycle"`
	// Examined is how many nodes the cycle looked at: live unarchived nodes
	// for decay, the nodes with embeddings above the relevance bar for
	// creative and cluster, every live node for forget.
	Examined     int `json:"examined"`
	Rescored     int `json:"rescored,omitempty"`     // decay: scores that changed
	EdgesAdded   int `json:"edgesAdded,omitempty"`   // creative: SHARES_THEME and RELATES_TO edges
	MetaPatterns int `json:"metaPatterns,omitempty"` // cluster: new MetaPattern nodes
	Extended     int `json:"extended,omitempty"`     // cluster: existing MetaPatterns that gained members
	PartOf       int `json:"partOf,omitempty"`       // cluster: PART_OF edges added
	Archived     int `json:"archived,omitempty"`     // forget
	Deleted      int `json:"deleted,omitempty"`      // forget
	Spared       int `json:"spared,omitempty"`       // forget: below a threshold but protected
}

// Spared is a node forget would have archived or deleted but a protection
// kept.
type Spared struct {
	Item        link.Item    `json:"item"`
	Kind        string       `json:"kind"`
	Relevance   float64      `json:"relevance"` // the score it was judged on
	Would       Op           `json:"would"`     // OpArchive or OpRemoveNode
	Protections []Protection `json:"protections"`
}

// Run plans the cycles of r over g and returns the run's log. Nothing is
// applied: g.Apply(log.Changes) gives the graph after the run. Errors: bad
// settings or graph (see Validate), no Now or one before 1970, an unknown
// cycle, an index that fails or returns an unknown node or a similarity
// that is not a number, and ctx's error when it is done.
func Run(ctx context.Context, g Graph, s Settings, r Request) (RunLog, error) {
	if err := s.Validate(); err != nil {
		return RunLog{}, err
	}
	if r.Now.IsZero() || r.Now.Before(time.Unix(0, 0)) {
		return RunLog{}, fmt.Errorf("consolidate: the run's time %v is not set or before 1970", r.Now)
	}
	cycles := Cycles
	if len(r.Cycles) > 0 {
		cycles = nil
		for _, c := range Cycles {
			if slices.Contains(r.Cycles, c) {
				cycles = append(cycles, c)
			}
		}
		for _, c := range r.Cycles {
			if _, err := ParseCycle(string(c)); err != nil {
				return RunLog{}, err
			}
		}
	}
	if err := g.Validate(); err != nil {
		return RunLog{}, err
	}
	s.ProtectedKinds = slices.Clone(s.ProtectedKinds)
	ru := &runner{
		ctx:    ctx,
		st:     newState(g),
		s:      &s,
		now:    r.Now,
		index:  r.Index,
		cycles: cycles,
		log: RunLog{
			ID:       ulid.MustNew(ulid.Timestamp(r.Now), ulid.DefaultEntropy()).String(),
			At:       r.Now,
			Cycles:   cycles,
			DryRun:   r.DryRun,
			Settings: s,
			Changes:  []Change{},
		},
	}
	for _, c := range cycles {
		ru.stats = CycleStats{Cycle: c}
		var err error
		switch c {
		case Decay:
			err = ru.decay()
		case Creative:
			err = ru.creative()
		case Cluster:
			err = ru.cluster()
		case Forget:
			err = ru.forget()
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return RunLog{}, err
		}
		ru.log.Stats = append(ru.log.Stats, ru.stats)
	}
	return ru.log, nil
}

// Undo returns the run that undoes log: the inverse of each of its changes,
// last first, at time now, with UndoOf set. Applying it restores the graph
// the run started from, exactly, as long as nothing it changed has changed
// since (Apply says what has). A dry run changed nothing and cannot be
// undone.
func Undo(log RunLog, now time.Time) (RunLog, error) {
	if log.DryRun {
		return RunLog{}, fmt.Errorf("consolidate: run %s was a dry run: it changed nothing to undo", log.ID)
	}
	if now.IsZero() || now.Before(time.Unix(0, 0)) {
		return RunLog{}, errors.New("consolidate: the undo's time is not set or before 1970")
	}
	u := RunLog{
		ID:       ulid.MustNew(ulid.Timestamp(now), ulid.DefaultEntropy()).String(),
		At:       now,
		Cycles:   log.Cycles,
		UndoOf:   log.ID,
		Settings: log.Settings,
		Changes:  make([]Change, len(log.Changes)),
	}
	for i, c := range log.Changes {
		u.Changes[len(log.Changes)-1-i] = c.Inverse()
	}
	return u, nil
}

// runner is one run in progress: the graph as the cycles so far left it.
type runner struct {
	ctx    context.Context
	st     *state
	s      *Settings
	now    time.Time
	index  NeighbourIndex
	cycles []Cycle
	log    RunLog
	stats  CycleStats
	// near holds, once computed, the nearest neighbours of the nodes that
	// creative and cluster consider (by node position), most similar first.
	near     [][]near
	nearDone bool
}

// near is one neighbour of a node: its position and similarity.
type near struct {
	j   int32
	sim float32
}

// emit applies c to the run's graph and logs it.
func (ru *runner) emit(c Change) error {
	if err := ru.st.apply(&c); err != nil {
		return fmt.Errorf("consolidate: %s cycle made an inapplicable change: %w", c.Cycle, err)
	}
	ru.log.Changes = append(ru.log.Changes, c)
	return nil
}

// live reports whether node i is in the graph and not archived.
func (ru *runner) live(i int) bool {
	return ru.st.nodeAlive[i] && !ru.st.nodes[i].Archived
}

// similarityCandidate reports whether node i takes part in creative or
// cluster with relevance bar min: live, not a MetaPattern, with an
// embedding, and relevance above min.
func (ru *runner) similarityCandidate(i int, min float64) bool {
	n := &ru.st.nodes[i]
	return ru.live(i) && n.Kind != KindMetaPattern && n.Embedding != nil && n.Relevance > min
}

// neighbours computes, once per run, the nearest neighbours of every node
// above the lower of creative's and cluster's relevance bars (of the cycles
// the run has), k the larger of their neighbour counts, keeping only
// neighbours that are candidates too.
func (ru *runner) neighbours() error {
	if ru.nearDone {
		return nil
	}
	bar, k := 2.0, 0
	if slices.Contains(ru.cycles, Creative) {
		bar, k = min(bar, ru.s.CreativeMinRelevance), max(k, ru.s.CreativeNeighbours)
	}
	if slices.Contains(ru.cycles, Cluster) {
		bar, k = min(bar, ru.s.ClusterMinRelevance), max(k, ru.s.ClusterNeighbours)
	}
	var pts []int
	for i := range ru.st.nodes {
		if ru.similarityCandidate(i, bar) {
			pts = append(pts, i)
		}
	}
	ru.near = make([][]near, len(ru.st.nodes))
	if ru.index == nil {
		// The built-in index over exactly pts: positions are pts' own.
		ids := make([]link.Item, len(pts))
		vecs := make([][]float32, len(pts))
		for p, i := range pts {
			ids[p], vecs[p] = ru.st.nodes[i].ID, ru.st.nodes[i].Embedding
		}
		idx, err := NewIndex(ru.ctx, ids, vecs)
		if err != nil {
			return err
		}
		if err := parallel(ru.ctx, len(pts), func(p int) {
			top, sims := idx.nearest(p, k)
			out := make([]near, len(top))
			for q, j := range top {
				out[q] = near{int32(pts[j]), sims[q]}
			}
			ru.near[pts[p]] = out
		}); err != nil {
			return err
		}
		ru.nearDone = true
		return nil
	}
	errs := make([]error, len(pts))
	err := parallel(ru.ctx, len(pts), func(p int) {
		i := pts[p]
		nbs, err := ru.index.Neighbours(ru.st.nodes[i].ID, k)
		if err != nil {
			errs[p] = fmt.Errorf("consolidate: neighbours of %s: %w", ru.st.nodes[i].ID, err)
			return
		}
		out := make([]near, 0, len(nbs))
		for _, nb := range nbs {
			if !(nb.Similarity >= -1.0001 && nb.Similarity <= 1.0001) {
				errs[p] = fmt.Errorf("consolidate: neighbours of %s: %s has similarity %v, want a number in [-1, 1]", ru.st.nodes[i].ID, nb.ID, nb.Similarity)
				return
			}
			j := ru.st.node(nb.ID)
			if j < 0 || j == i || !ru.similarityCandidate(j, bar) {
				continue
			}
			out = append(out, near{int32(j), float32(nb.Similarity)})
		}
		ru.near[i] = out
	})
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e // the first, by node order
		}
	}
	ru.nearDone = true
	return nil
}

// newID is a ULID at time now whose random part is a hash of parts: the
// same run makes the same ids, and a dry run shows the ids the real run
// will use.
func newID(now time.Time, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return ulid.MustNew(ulid.Timestamp(now), bytes.NewReader(h.Sum(nil)[:10])).String()
}

// tick returns ctx's error every 4096th call of i, for long loops.
func (ru *runner) tick(i int) error {
	if i&4095 == 0 {
		return ru.ctx.Err()
	}
	return nil
}
