package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ChangeType says how a field differs between two versions of a node.
type ChangeType string

// Change types. See pi-brain-node-model.md, "Computing Diffs".
const (
	ChangeAdded   ChangeType = "added"
	ChangeRemoved ChangeType = "removed"
	ChangeChanged ChangeType = "changed"
)

// FieldChange is one difference between two versions of a node. Path is the
// field's place in the node's JSON form: "content.summary",
// "lessons.model[0]", "classification.frameworks[2]". OldValue and NewValue
// are JSON values (objects keep the field order of the node's JSON);
// OldValue is absent for an added field, NewValue for a removed one.
type FieldChange struct {
	Path     string     `json:"path"`
	Type     ChangeType `json:"type"`
	OldValue any        `json:"oldValue,omitempty"`
	NewValue any        `json:"newValue,omitempty"`
}

// NodeDiff is what changed from one version of a node to another.
// See pi-brain-node-model.md, "Computing Diffs".
type NodeDiff struct {
	NodeID      string        `json:"nodeId"`
	FromVersion int           `json:"fromVersion"`
	ToVersion   int           `json:"toVersion"`
	Changes     []FieldChange `json:"changes"`
}

// ComputeDiff compares old and new field by field, recursively over their
// JSON form. Changes come in the order of the node's JSON fields (old's
// order, then fields only new has), array elements by index: an element
// changed in place is one change at "path[i]", elements past the shorter
// array are added or removed one by one. A null list or object counts as
// empty, so a nil slice becoming [] is no change. The version bookkeeping
// (version, previousVersions) is left out: FromVersion and ToVersion say it.
func ComputeDiff(old, new Node) NodeDiff {
	d := NodeDiff{NodeID: new.ID, FromVersion: old.Version, ToVersion: new.Version, Changes: []FieldChange{}}
	a, errA := jsonTree(old)
	b, errB := jsonTree(new)
	if errA != nil || errB != nil { // a Node always marshals; kept for safety
		d.Changes = append(d.Changes, FieldChange{Path: "", Type: ChangeChanged})
		return d
	}
	for _, skip := range []string{"version", "previousVersions"} {
		delete(a.(*object).values, skip)
		delete(b.(*object).values, skip)
	}
	compare("", a, b, &d.Changes)
	return d
}

// SameAnalysis reports whether two versions of a node say the same thing:
// equal in their JSON form apart from the version bookkeeping (version,
// previousVersions) and the analysis time (metadata.analyzedAt). An append
// import makes a new version of a node only when they differ.
// See pi-brain-node-model.md, "Versioning Rules".
func SameAnalysis(a, b *Node) bool {
	norm := func(n Node) Node {
		n.Version, n.PreviousVersions, n.Metadata.AnalyzedAt = 0, nil, ""
		return n
	}
	ja, errA := json.Marshal(norm(*a))
	jb, errB := json.Marshal(norm(*b))
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// object is a JSON object that keeps its key order.
type object struct {
	keys   []string
	values map[string]any
}

// MarshalJSON writes the object's present keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	for _, k := range o.keys {
		v, ok := o.values[k]
		if !ok {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// jsonTree returns v's JSON form: *object, []any, string, json.Number,
// bool or nil.
func jsonTree(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return readValue(d)
}

func readValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &object{values: map[string]any{}}
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			key := k.(string)
			o.keys = append(o.keys, key)
			o.values[key] = v
		}
		_, err := d.Token() // }
		return o, err
	case json.Delim('['):
		list := []any{}
		for d.More() {
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := d.Token() // ]
		return list, err
	}
	return tok, nil
}

func compare(path string, a, b any, out *[]FieldChange) {
	// A null list or object is an empty one.
	switch b.(type) {
	case []any:
		if a == nil {
			a = []any{}
		}
	case *object:
		if a == nil {
			a = &object{values: map[string]any{}}
		}
	}
	switch a.(type) {
	case []any:
		if b == nil {
			b = []any{}
		}
	case *object:
		if b == nil {
			b = &object{values: map[string]any{}}
		}
	}
	switch av := a.(type) {
	case *object:
		if bv, ok := b.(*object); ok {
			for _, k := range av.keys {
				va, okA := av.values[k]
				if !okA {
					continue
				}
				if vb, okB := bv.values[k]; okB {
					compare(join(path, k), va, vb, out)
				} else {
					*out = append(*out, FieldChange{Path: join(path, k), Type: ChangeRemoved, OldValue: va})
				}
			}
			for _, k := range bv.keys {
				if _, okA := av.values[k]; !okA {
					if vb, okB := bv.values[k]; okB {
						*out = append(*out, FieldChange{Path: join(path, k), Type: ChangeAdded, NewValue: vb})
					}
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			for i := range max(len(av), len(bv)) {
				p := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i >= len(bv):
					*out = append(*out, FieldChange{Path: p, Type: ChangeRemoved, OldValue: av[i]})
				case i >= len(av):
					*out = append(*out, FieldChange{Path: p, Type: ChangeAdded, NewValue: bv[i]})
				default:
					compare(p, av[i], bv[i], out)
				}
			}
			return
		}
	}
	if !sameJSON(a, b) {
		*out = append(*out, FieldChange{Path: path, Type: ChangeChanged, OldValue: a, NewValue: b})
	}
}

// sameJSON compares two JSON values of which at least one is not a list or
// object, or which are of different kinds.
func sameJSON(a, b any) bool {
	switch av := a.(type) {
	case *object, []any:
		return false
	case json.Number:
		bv, ok := b.(json.Number)
		return ok && av == bv
	}
	switch b.(type) {
	case *object, []any:
		return false
	}
	return a == b
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// join appends key to path: "a.b", or `a["odd key"]` when key is not an
// identifier.
func join(path, key string) string {
	if !identifier.MatchString(key) {
		return fmt.Sprintf("%s[%s]", path, strconv.Quote(key))
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// String renders a change for logs: `changed content.summary: "a" -> "b"`.
func (c FieldChange) String() string {
	val := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			return "?"
		}
		return string(b)
	}
	switch c.Type {
	case ChangeAdded:
		return fmt.Sprintf("added %s: %s", c.Path, val(c.NewValue))
	case ChangeRemoved:
		return fmt.Sprintf("removed %s: %s", c.Path, val(c.OldValue))
	}
	return strings.Join([]string{"changed", c.Path + ":", val(c.OldValue), "->", val(c.NewValue)}, " ")
}
