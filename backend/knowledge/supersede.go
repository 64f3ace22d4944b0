package knowledge

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"rhizome/backend/link"
)

// Supersession is a stated SUPERSEDES relation: the item Newer replaces the
// item Older ("we changed our approach"). It is stated by the model, the
// user or an agent, never inferred from similarity, and never made by an
// offline rule (ERRATA.md, "ccmemory": similarity alone gives SIMILAR_TO).
//
// See context-graph-dag.md, "The New Model" (A SUPERSEDES B) and "Project
// Facts as Binding Instructions" (latest wins).
type Supersession struct {
	Newer    string    `json:"newer"` // id of the item that replaces
	Older    string    `json:"older"` // id of the item replaced
	StatedBy CreatedBy `json:"statedBy"`
	Reason   string    `json:"reason,omitempty"`
	StatedAt time.Time `json:"statedAt"`
}

// Relation is the link relation of a supersession, link.Supersedes, read
// from Newer (source) to Older (target).
func (Supersession) Relation() link.Relation { return link.Supersedes }

// Resolution is a checked set of items and the supersessions stated between
// them: it answers which items are current ("latest wins") and the chains.
type Resolution struct {
	items map[string]Item
	newer map[string][]string // older id -> ids of the items superseding it
	older map[string][]string // newer id -> ids of the items it supersedes
}

// Resolve checks sups against items and indexes them. It refuses, naming the
// supersession: an id that is not among items, an item superseding itself,
// two items of different kinds (a decision supersedes a decision, a fact a
// fact), a supersession stated by an offline rule or nobody, and a cycle
// (A supersedes B supersedes … A), which it names whole. Repeated
// supersessions count once. items hold one version per id (the current
// one); a repeated id is an error.
func Resolve(items []Item, sups []Supersession) (*Resolution, error) {
	r := &Resolution{items: make(map[string]Item, len(items)), newer: map[string][]string{}, older: map[string][]string{}}
	for _, it := range items {
		if _, dup := r.items[it.ID]; dup {
			return nil, fmt.Errorf("knowledge: item %s is given twice; pass the current version of each item once", it.ID)
		}
		r.items[it.ID] = it
	}
	seen := map[[2]string]bool{}
	for i, s := range sups {
		where := fmt.Sprintf("knowledge: supersession %d (%s supersedes %s)", i, s.Newer, s.Older)
		n, okN := r.items[s.Newer]
		o, okO := r.items[s.Older]
		switch {
		case !okN:
			return nil, fmt.Errorf("%s: field newer: no item %q", where, s.Newer)
		case !okO:
			return nil, fmt.Errorf("%s: field older: no item %q", where, s.Older)
		case s.Newer == s.Older:
			return nil, fmt.Errorf("%s: an item cannot supersede itself", where)
		case n.Kind != o.Kind:
			return nil, fmt.Errorf("%s: a %s cannot supersede a %s", where, n.Kind, o.Kind)
		case s.StatedBy == ByOffline:
			return nil, fmt.Errorf("%s: field statedBy: supersession is stated by the model, the user or an agent, never inferred offline", where)
		case !s.StatedBy.Valid():
			return nil, fmt.Errorf("%s: field statedBy: %q, want model, user or agent", where, s.StatedBy)
		}
		key := [2]string{s.Newer, s.Older}
		if seen[key] {
			continue
		}
		seen[key] = true
		r.newer[s.Older] = append(r.newer[s.Older], s.Newer)
		r.older[s.Newer] = append(r.older[s.Newer], s.Older)
	}
	if cycle := r.findCycle(); cycle != nil {
		return nil, fmt.Errorf("knowledge: supersession cycle %s: refused (latest wins needs a newest item)", strings.Join(cycle, " supersedes "))
	}
	for _, list := range r.newer {
		r.sortNewestFirst(list)
	}
	for _, list := range r.older {
		r.sortNewestFirst(list)
	}
	return r, nil
}

// CheckSupersede reports whether stating s on top of the existing items and
// supersessions is allowed (see Resolve): the check a form runs before it
// records a supersession.
func CheckSupersede(items []Item, existing []Supersession, s Supersession) error {
	_, err := Resolve(items, append(append([]Supersession(nil), existing...), s))
	return err
}

// findCycle returns the ids of a supersession cycle, first id repeated at
// the end, or nil. Iterative depth-first search over "supersedes" edges.
func (r *Resolution) findCycle() []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	ids := make([]string, 0, len(r.older))
	for id := range r.older {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, start := range ids {
		if color[start] != white {
			continue
		}
		type frame struct {
			id   string
			next int
		}
		stack := []frame{{start, 0}}
		color[start] = grey
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			children := r.older[f.id]
			if f.next >= len(children) {
				color[f.id] = black
				stack = stack[:len(stack)-1]
				continue
			}
			c := children[f.next]
			f.next++
			switch color[c] {
			case grey:
				var cycle []string
				for i := range stack {
					if stack[i].id == c || cycle != nil {
						cycle = append(cycle, stack[i].id)
					}
				}
				return append(cycle, c)
			case white:
				color[c] = grey
				stack = append(stack, frame{c, 0})
			}
		}
	}
	return nil
}

// sortNewestFirst orders ids by their items' timestamps, newest first, ties
// by id (ULIDs sort by creation time).
func (r *Resolution) sortNewestFirst(ids []string) {
	sort.Slice(ids, func(i, j int) bool {
		a, b := r.items[ids[i]], r.items[ids[j]]
		if !a.Timestamp.Equal(b.Timestamp) {
			return a.Timestamp.After(b.Timestamp)
		}
		return ids[i] > ids[j]
	})
}

// Item returns the item with id and whether it is known.
func (r *Resolution) Item(id string) (Item, bool) {
	it, ok := r.items[id]
	return it, ok
}

// Status is the item's status as the stated relations make it: superseded
// when any item supersedes it (whatever it stores), stale when it is marked
// so, active otherwise. An unknown id gives "".
func (r *Resolution) Status(id string) Status {
	it, ok := r.items[id]
	switch {
	case !ok:
		return ""
	case len(r.newer[id]) > 0:
		return StatusSuperseded
	case it.Status == StatusSuperseded:
		// Marked superseded with no stated successor among the items: it
		// stays out of the rules all the same.
		return StatusSuperseded
	}
	return it.Status
}

// SupersededBy lists the items that directly supersede id, newest first.
func (r *Resolution) SupersededBy(id string) []string { return append([]string(nil), r.newer[id]...) }

// Supersedes lists the items id directly supersedes, newest first.
func (r *Resolution) Supersedes(id string) []string { return append([]string(nil), r.older[id]...) }

// Latest follows id's supersessions to the newest item that replaces it
// ("latest wins"): id itself when nothing supersedes it. Where an item was
// superseded twice (a fork of the chain), the newest successor is followed.
func (r *Resolution) Latest(id string) string {
	for {
		next := r.newer[id]
		if len(next) == 0 {
			return id
		}
		id = next[0]
	}
}

// Chain is the supersession chain through id, newest first: Latest(id)
// down to id, then on to the oldest item it replaced (following the newest
// predecessor at a fork). A lone item gives [id].
func (r *Resolution) Chain(id string) []string {
	if _, ok := r.items[id]; !ok {
		return nil
	}
	var up []string
	for cur := id; ; {
		next := r.newer[cur]
		if len(next) == 0 {
			break
		}
		cur = next[0]
		up = append(up, cur)
	}
	chain := make([]string, 0, len(up)+1)
	for i := len(up) - 1; i >= 0; i-- {
		chain = append(chain, up[i])
	}
	chain = append(chain, id)
	for cur := id; ; {
		prev := r.older[cur]
		if len(prev) == 0 {
			break
		}
		cur = prev[0]
		chain = append(chain, cur)
	}
	return chain
}

// Chains lists every supersession chain of at least two items, from each
// current head (an item that supersedes something and that nothing
// supersedes), longest first, then newest head first. ccmemory's
// "supersession chains" pattern (interchange-formats.md, section 4:
// chains only from heads).
func (r *Resolution) Chains() [][]string {
	var heads []string
	for id := range r.older {
		if len(r.newer[id]) == 0 {
			heads = append(heads, id)
		}
	}
	r.sortNewestFirst(heads)
	chains := make([][]string, 0, len(heads))
	for _, h := range heads {
		chains = append(chains, r.Chain(h))
	}
	sort.SliceStable(chains, func(i, j int) bool { return len(chains[i]) > len(chains[j]) })
	return chains
}
