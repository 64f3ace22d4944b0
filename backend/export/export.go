// Package export writes Rhizome's whole graph (segment nodes, knowledge
// nodes, loom trees and their nodes, links and every edge with its type,
// confidence and maker) in the formats people open elsewhere: Rhizome's own
// JSON (read back by ReadJSON), GraphML, GEXF 1.3 (or 1.2draft) for Gephi and
// yEd, and an Obsidian-style Markdown folder, one note per node.
//
// The input is the small neutral Graph the app fills from the library:
// nodes with a kind, a label and attributes, edges with a type, a
// confidence and a maker.
//
// See ../shared/specs/interchange-formats.md, "5. Graph formats users
// expect".
package export

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Graph is what an export writes.
type Graph struct {
	// Project is the project the export covers, "" for the whole library.
	Project string `json:"project,omitempty"`
	// ExportedAt is when the export was made (UTC).
	ExportedAt time.Time `json:"exportedAt"`
	Nodes      []Node    `json:"nodes"`
	Edges      []Edge    `json:"edges"`
}

// Node is one item of the graph.
type Node struct {
	// ID is the item's URI ("rhizome:node/…", "rhizome:knowledge/…",
	// "rhizome:loom/…", an https URL for an external target), unique in the
	// graph. XML formats number nodes and keep the URI as attribute "uri".
	ID string `json:"id"`
	// Kind is what the node is: "segment", "session", "project",
	// "decision", "projectFact", "loomTree", "loomNode", "url", …
	Kind string `json:"kind"`
	// Label is one line to show (the XML formats cut it to LabelRunes).
	Label string `json:"label"`
	// Text is the node's longer body (a summary, a fact, a loom node's
	// text), plain text or markdown; may be empty.
	Text string `json:"text,omitempty"`
	// Time is when the item happened or was made; zero when unknown.
	Time time.Time `json:"time,omitzero"`
	// Attrs are further attributes: string, float64 or bool values only,
	// names of letters, digits, "_", "-" and "." (see Validate).
	Attrs map[string]any `json:"attrs,omitempty"`
}

// Edge is one relation between two nodes.
type Edge struct {
	Source string `json:"source"` // a Node.ID
	Target string `json:"target"` // a Node.ID
	// Type is the relation (link.Relation: "RELATES_TO", "SUPERSEDES", …)
	// or a structural edge type ("continuation", "fork", "branch").
	Type       string   `json:"type"`
	Confidence float64  `json:"confidence"` // 0-1
	Similarity *float64 `json:"similarity,omitempty"`
	Rationale  string   `json:"rationale,omitempty"`
	CreatedBy  string   `json:"createdBy,omitempty"` // boundary, offline, model, user, …
	// Directed is false for symmetric relations (RELATES_TO, SIMILAR_TO):
	// GEXF marks them undirected, Markdown lists them on both notes.
	Directed bool           `json:"directed"`
	Attrs    map[string]any `json:"attrs,omitempty"`
}

// Limits of an export.
const (
	LabelRunes    = 60 // runes of a label the XML formats show
	MaxNodes      = 1_000_000
	MaxEdges      = 5_000_000
	maxAttrName   = 64
	maxFieldBytes = 1 << 20 // one text field
)

// reserved are the attribute names the writers use themselves.
var reserved = map[string]bool{"uri": true, "kind": true, "label": true, "text": true, "time": true,
	"type": true, "confidence": true, "similarity": true, "rationale": true, "createdBy": true, "directed": true, "weight": true}

// Validate reports the first thing wrong with a graph, naming the node or
// edge by position and id: an empty or repeated node id, an empty kind, an
// edge whose source or target is not a node, an empty edge type, a
// confidence or similarity outside 0-1, an attribute name that is empty,
// reserved, too long or not of letters, digits, "_", "-" and ".", an
// attribute value that is not a string, float64 (finite) or bool, a text
// that is not UTF-8 or over 1 MiB, or more nodes or edges than the limits.
func (g Graph) Validate() error {
	if len(g.Nodes) > MaxNodes || len(g.Edges) > MaxEdges {
		return fmt.Errorf("export: %d nodes and %d edges; the limits are %d and %d", len(g.Nodes), len(g.Edges), MaxNodes, MaxEdges)
	}
	ids := make(map[string]int, len(g.Nodes))
	for i, n := range g.Nodes {
		where := fmt.Sprintf("export: node %d (%q)", i, clipID(n.ID))
		switch {
		case strings.TrimSpace(n.ID) == "":
			return fmt.Errorf("export: node %d: field id is empty", i)
		case strings.TrimSpace(n.Kind) == "":
			return fmt.Errorf("%s: field kind is empty", where)
		}
		if j, dup := ids[n.ID]; dup {
			return fmt.Errorf("%s: field id repeats node %d", where, j)
		}
		ids[n.ID] = i
		for _, f := range []struct{ name, v string }{{"id", n.ID}, {"kind", n.Kind}, {"label", n.Label}, {"text", n.Text}} {
			if err := checkField(f.name, f.v); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		if err := checkAttrs(n.Attrs); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	for i, e := range g.Edges {
		where := fmt.Sprintf("export: edge %d (%s %s %s)", i, clipID(e.Source), e.Type, clipID(e.Target))
		if _, ok := ids[e.Source]; !ok {
			return fmt.Errorf("%s: field source: no node %q", where, clipID(e.Source))
		}
		if _, ok := ids[e.Target]; !ok {
			return fmt.Errorf("%s: field target: no node %q", where, clipID(e.Target))
		}
		if strings.TrimSpace(e.Type) == "" {
			return fmt.Errorf("%s: field type is empty", where)
		}
		if math.IsNaN(e.Confidence) || e.Confidence < 0 || e.Confidence > 1 {
			return fmt.Errorf("%s: field confidence: %v, want 0 to 1", where, e.Confidence)
		}
		if e.Similarity != nil && (math.IsNaN(*e.Similarity) || *e.Similarity < 0 || *e.Similarity > 1) {
			return fmt.Errorf("%s: field similarity: %v, want 0 to 1", where, *e.Similarity)
		}
		for _, f := range []struct{ name, v string }{{"type", e.Type}, {"rationale", e.Rationale}, {"createdBy", e.CreatedBy}} {
			if err := checkField(f.name, f.v); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
		if err := checkAttrs(e.Attrs); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	return nil
}

func checkField(name, v string) error {
	switch {
	case len(v) > maxFieldBytes:
		return fmt.Errorf("field %s: %d bytes, the limit is %d", name, len(v), maxFieldBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("field %s is not valid UTF-8", name)
	}
	return nil
}

func checkAttrs(attrs map[string]any) error {
	for name, v := range attrs {
		if err := checkAttrName(name); err != nil {
			return err
		}
		switch x := v.(type) {
		case string:
			if err := checkField("attrs."+name, x); err != nil {
				return err
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("attribute %q: %v is not a finite number", name, x)
			}
		case bool:
		default:
			return fmt.Errorf("attribute %q: a %T, want a string, float64 or bool", name, v)
		}
	}
	return nil
}

func checkAttrName(name string) error {
	if name == "" || len(name) > maxAttrName {
		return fmt.Errorf("attribute name %q: want 1 to %d characters", name, maxAttrName)
	}
	if reserved[name] {
		return fmt.Errorf("attribute name %q is reserved for the field of the same name", name)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '.')
		if !ok {
			return fmt.Errorf("attribute name %q: character %q at %d; use letters, digits, _, - and . (a letter or _ first)", name, r, i)
		}
	}
	return nil
}

// attrType is an attribute's type across the graph.
type attrType int

const (
	attrString attrType = iota
	attrDouble
	attrBool
)

// attrSchema is the union of the attribute names of nodes or of edges with
// one type each (a name whose values mix types is a string), sorted.
type attrSchema struct {
	names []string
	types map[string]attrType
}

func schemaOf(maps func(yield func(map[string]any) bool)) attrSchema {
	s := attrSchema{types: map[string]attrType{}}
	seen := map[string]bool{}
	for m := range maps {
		for name, v := range m {
			t := attrString
			switch v.(type) {
			case float64:
				t = attrDouble
			case bool:
				t = attrBool
			}
			if !seen[name] {
				seen[name] = true
				s.names = append(s.names, name)
				s.types[name] = t
			} else if s.types[name] != t {
				s.types[name] = attrString
			}
		}
	}
	sort.Strings(s.names)
	return s
}

func (g Graph) nodeAttrs(yield func(map[string]any) bool) {
	for _, n := range g.Nodes {
		if !yield(n.Attrs) {
			return
		}
	}
}

func (g Graph) edgeAttrs(yield func(map[string]any) bool) {
	for _, e := range g.Edges {
		if !yield(e.Attrs) {
			return
		}
	}
}

// formatValue writes an attribute value as XML text.
func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return formatFloat(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

// formatFloat writes the shortest text that reads back as f (xs:double
// syntax: "0.45", "1", "1e-07").
func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// shortLabel is a label cut to LabelRunes runes on one line.
func shortLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= LabelRunes {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:LabelRunes-1])) + "…"
}

func clipID(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:77] + "..."
}

// errWrite wraps a write error.
func errWrite(format string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("export: unable to write %s: %w", format, err)
}

var errNil = errors.New("export: nil writer")
