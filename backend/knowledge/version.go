package knowledge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"time"

	"rhizome/backend/graph"
)

// Diff is what changed from one version of an item to another. Changes use
// graph.FieldChange: Path is the field's place in the item's JSON form
// ("decision.rationale", "topics"); a list is one value (its change shows
// the whole old and new list).
//
// See pi-brain-node-model.md, "Computing Diffs".
type Diff struct {
	ID          string              `json:"id"`
	FromVersion int                 `json:"fromVersion"`
	ToVersion   int                 `json:"toVersion"`
	Changes     []graph.FieldChange `json:"changes"`
}

// NewVersion makes the version after prev from edited, a copy of prev that a
// maker changed: it keeps prev's id and kind, sets Version to prev.Version+1,
// CreatedAt to now (UTC, milliseconds) and Source.CreatedBy to by, and
// validates the result. It refuses an edit of another item (a different id),
// a change of kind (that is a new item), and an edit that changes nothing.
// prev is never modified.
//
// See pi-brain-node-model.md, "Versioning Rules": the id is stable, every
// version is kept, a diff is available between any two.
func NewVersion(prev, edited Item, by CreatedBy, now time.Time) (Item, error) {
	if edited.ID != prev.ID {
		return Item{}, fmt.Errorf("knowledge %s: an edit of item %s cannot become its version", prev.ID, edited.ID)
	}
	if edited.Kind != prev.Kind {
		return Item{}, fmt.Errorf("knowledge %s: an edit cannot change the kind from %s to %s; record a new item", prev.ID, prev.Kind, edited.Kind)
	}
	next := edited
	next.Version = prev.Version + 1
	next.CreatedAt = now.UTC().Truncate(time.Millisecond)
	next.Source.CreatedBy = by
	if next.Source.CreatedBy != ByOffline {
		next.Source.Rule = ""
	}
	next.fillDefaults()
	if err := next.Validate(); err != nil {
		return Item{}, err
	}
	if d := ComputeDiff(prev, next); len(d.Changes) == 0 {
		return Item{}, fmt.Errorf("knowledge %s: version %d changes nothing", prev.ID, next.Version)
	}
	return next, nil
}

// ComputeDiff compares two versions of an item field by field over their
// JSON form, paths in sorted order. The version bookkeeping (version,
// createdAt, source.createdBy, source.rule) is left out: FromVersion and
// ToVersion say it. A missing field and an empty one are the same.
func ComputeDiff(old, new Item) Diff {
	d := Diff{ID: new.ID, FromVersion: old.Version, ToVersion: new.Version, Changes: []graph.FieldChange{}}
	a, b := leaves(old), leaves(new)
	paths := make([]string, 0, len(a)+len(b))
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		va, okA := a[p]
		vb, okB := b[p]
		switch {
		case !okA:
			d.Changes = append(d.Changes, graph.FieldChange{Path: p, Type: graph.ChangeAdded, NewValue: vb})
		case !okB:
			d.Changes = append(d.Changes, graph.FieldChange{Path: p, Type: graph.ChangeRemoved, OldValue: va})
		case !reflect.DeepEqual(va, vb):
			d.Changes = append(d.Changes, graph.FieldChange{Path: p, Type: graph.ChangeChanged, OldValue: va, NewValue: vb})
		}
	}
	return d
}

// leaves flattens an item's JSON form to path -> value, objects walked,
// lists and scalars kept whole; empty values are left out.
func leaves(it Item) map[string]any {
	raw, err := json.Marshal(it)
	out := map[string]any{}
	if err != nil { // an Item always marshals
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var root map[string]any
	if dec.Decode(&root) != nil {
		return out
	}
	for _, skip := range []string{"version", "createdAt"} {
		delete(root, skip)
	}
	if src, ok := root["source"].(map[string]any); ok {
		delete(src, "createdBy")
		delete(src, "rule")
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, c)
			}
		case []any:
			if len(x) > 0 {
				out[prefix] = x
			}
		case string:
			if x != "" {
				out[prefix] = x
			}
		case nil:
		default:
			out[prefix] = x
		}
	}
	walk("", root)
	return out
}
