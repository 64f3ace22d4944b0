// Package patterns finds the seven patterns of ccmemory's dashboard in the
// knowledge graph — exception clusters, supersession chains, failed-approach
// recurrence, correction hotspots, cross-project similarity, stale decision
// clusters and decisions that conflict with project rules — each item with
// the nodes behind it, and aggregates token use and cost over time.
//
// The package is pure: it reads a neutral in-memory Graph (knowledge nodes,
// the segment nodes they came from, typed edges) and returns a Report. Where
// the spec names a query, the pattern follows it; where it only names the
// pattern, the rule written on each function is this package's, stated so a
// person can check an item by hand.
//
// See context-graph-dag.md, "Pattern Detection for Dashboard" (the table of
// seven patterns and the "Patterns Noticed" section), the node kinds of
// "Impact on Node Types", and issue 10, section 4.
package patterns

import (
	"cmp"
	"fmt"
	"math"
	"rhizome/backend/project"
	"slices"
	"strings"
	"time"

	"rhizome/backend/link"
)

// Kind is a knowledge node's kind, as context-graph-dag.md names them
// ("Impact on Node Types"), or KindSegment for a session segment's node.
type Kind string

// The kinds the patterns read.
const (
	KindDecision       Kind = "Decision"
	KindCorrection     Kind = "Correction"
	KindException      Kind = "Exception"
	KindFailedApproach Kind = "FailedApproach"
	KindInsight        Kind = "Insight"
	KindQuestion       Kind = "Question"
	KindProjectFact    Kind = "ProjectFact"
	KindLesson         Kind = "Lesson"
	KindSegment        Kind = "Segment"
)

// Decision statuses that take a decision out of force. Any other status
// ("", "active", "accepted", …) is in force; "stale" marks it stale.
var retiredStatuses = []string{"superseded", "reversed", "abandoned", "rejected", "retired"}

// Node is one node of the graph as the patterns see it.
type Node struct {
	ID   link.Item `json:"id"` // rhizome:knowledge/… or rhizome:node/… (segments)
	Kind Kind      `json:"kind"`
	// Project is the project's path; "" for a cross-project node.
	Project string    `json:"project,omitempty"`
	Time    time.Time `json:"time"` // when it was recorded
	// Label is the node's substance in one line: a decision's description,
	// a fact, an approach, a correction's right belief.
	Label  string   `json:"label"`
	Topics []string `json:"topics,omitempty"` // topics and tags
	// Status is a Decision's status ("active", "superseded", "stale", …).
	Status string `json:"status,omitempty"`
	// RuleBroken is an Exception's rule_broken field: the rule it breaks.
	RuleBroken string `json:"ruleBroken,omitempty"`
	// Lesson is a FailedApproach's lesson field.
	Lesson string `json:"lesson,omitempty"`
	// Sources are the segment nodes (rhizome:node/…) the node was extracted
	// from.
	Sources []link.Item `json:"sources,omitempty"`
	// Embedding is the node's vector, or nil.
	Embedding []float32 `json:"embedding,omitempty"`
	// Archived nodes take part only with Settings.IncludeArchived.
	Archived bool `json:"archived,omitempty"`
}

// Edge is one typed edge; Source and Target need not be nodes of the graph
// (edges to other items are ignored).
type Edge struct {
	Source   link.Item     `json:"source"`
	Target   link.Item     `json:"target"`
	Relation link.Relation `json:"type"`
}

// Graph is the input of Detect.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// ProjectNames names the projects in items' titles: project.Names over
	// the library's projects. Without it, projects are named among the
	// graph's own.
	ProjectNames map[string]string `json:"projectNames,omitempty"`
}

// Pattern names one of the seven patterns.
type Pattern string

// The seven patterns, in the spec's order. See context-graph-dag.md,
// "Pattern Detection for Dashboard".
const (
	ExceptionClusters        Pattern = "exceptionClusters"
	SupersessionChains       Pattern = "supersessionChains"
	FailedApproachRecurrence Pattern = "failedApproachRecurrence"
	CorrectionHotspots       Pattern = "correctionHotspots"
	CrossProjectSimilarity   Pattern = "crossProjectSimilarity"
	StaleDecisionClusters    Pattern = "staleDecisionClusters"
	ConstraintViolations     Pattern = "constraintViolations"
)

// Patterns lists the seven patterns in the spec's order.
var Patterns = []Pattern{ExceptionClusters, SupersessionChains, FailedApproachRecurrence,
	CorrectionHotspots, CrossProjectSimilarity, StaleDecisionClusters, ConstraintViolations}

// Names are the patterns' names as the dashboard shows them.
var Names = map[Pattern]string{
	ExceptionClusters:        "Exception clusters",
	SupersessionChains:       "Supersession chains",
	FailedApproachRecurrence: "Failed approach recurrence",
	CorrectionHotspots:       "Correction hotspots",
	CrossProjectSimilarity:   "Cross-project similarity",
	StaleDecisionClusters:    "Stale decision clusters",
	ConstraintViolations:     "Decisions that conflict with project rules",
}

// Item is one finding of a pattern: a line for the dashboard and the nodes
// behind it.
type Item struct {
	Pattern Pattern `json:"pattern"`
	// Key is what the item groups by, stable across runs: a rule, a topic,
	// a project pair, a chain's newest node.
	Key   string `json:"key"`
	Title string `json:"title"` // one line, as "Patterns Noticed" writes it
	// Count is the number the title counts: exceptions, iterations,
	// attempts, corrections, matches, stale decisions; 1 for a conflict.
	Count int `json:"count"`
	// Project is the project all the item's nodes share, or "".
	Project string `json:"project,omitempty"`
	// Nodes are the nodes behind the item, in the order the pattern gives
	// (oldest first unless its rule says otherwise).
	Nodes []link.Item `json:"nodes"`
	// Sources are the segments those nodes were extracted from, each once.
	Sources []link.Item `json:"sources,omitempty"`
}

// Section is one pattern's findings, the largest first.
type Section struct {
	Pattern Pattern `json:"pattern"`
	Name    string  `json:"name"`
	Items   []Item  `json:"items"`
}

// Report is the dashboard: the seven sections in the spec's order.
type Report struct {
	Sections []Section `json:"sections"`
}

// Settings are the thresholds of the patterns' rules.
type Settings struct {
	// MinExceptions is the smallest exception cluster. 2.
	MinExceptions int `json:"minExceptions"`
	// MinChainHops is the fewest SUPERSEDES hops of a chain: 2, as the
	// spec's query (*2..) says.
	MinChainHops int `json:"minChainHops"`
	// MinFailedAttempts is the fewest similar failed approaches that make a
	// recurrence. 2 ("tried 2x").
	MinFailedAttempts int `json:"minFailedAttempts"`
	// FailedSimilarity makes two failed approaches similar when their
	// embeddings' cosine similarity is at least this. 0.8.
	FailedSimilarity float64 `json:"failedSimilarity"`
	// FailedTopicOverlap makes two failed approaches similar when the
	// Jaccard overlap of their topics is at least this. 0.5.
	FailedTopicOverlap float64 `json:"failedTopicOverlap"`
	// MinCorrections makes a topic a hotspot. 3 ("corrected 3x").
	MinCorrections int `json:"minCorrections"`
	// StaleAfterDays makes a decision stale when neither it nor anything
	// linked to it was recorded for this many days. 90.
	StaleAfterDays float64 `json:"staleAfterDays"`
	// MinStaleDecisions is the smallest stale cluster. 2.
	MinStaleDecisions int `json:"minStaleDecisions"`
	// IncludeArchived counts archived nodes too. Off: archived nodes leave
	// the default graph (issue 10 section 3).
	IncludeArchived bool `json:"includeArchived"`
}

// DefaultSettings returns the thresholds documented on Settings.
func DefaultSettings() Settings {
	return Settings{
		MinExceptions:      2,
		MinChainHops:       2,
		MinFailedAttempts:  2,
		FailedSimilarity:   0.8,
		FailedTopicOverlap: 0.5,
		MinCorrections:     3,
		StaleAfterDays:     90,
		MinStaleDecisions:  2,
	}
}

// Validate reports the first setting out of range, by its JSON name.
func (s Settings) Validate() error {
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"minExceptions", s.MinExceptions, 1}, {"minChainHops", s.MinChainHops, 1},
		{"minFailedAttempts", s.MinFailedAttempts, 2}, {"minCorrections", s.MinCorrections, 1},
		{"minStaleDecisions", s.MinStaleDecisions, 1},
	} {
		if f.v < f.min {
			return fmt.Errorf("patterns: setting %s: %d, want at least %d", f.name, f.v, f.min)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"failedSimilarity", s.FailedSimilarity}, {"failedTopicOverlap", s.FailedTopicOverlap}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("patterns: setting %s: %v is outside [0, 1]", f.name, f.v)
		}
	}
	if !(s.StaleAfterDays >= 0 && !math.IsInf(s.StaleAfterDays, 0)) {
		return fmt.Errorf("patterns: setting staleAfterDays: %v, want a finite number >= 0", s.StaleAfterDays)
	}
	return nil
}

// Validate reports the first thing wrong with the graph, naming the node or
// edge and the field: an invalid or repeated id, an empty kind, no time, an
// invalid source segment, an embedding with a non-finite value or a
// dimension unlike the others; an edge with an invalid end or an unknown
// relation.
func (g Graph) Validate() error {
	seen := make(map[link.Item]int, len(g.Nodes))
	dim, dimFrom := -1, -1
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if err := n.ID.Validate(); err != nil {
			return fmt.Errorf("patterns: node %d: field id: %w", i, err)
		}
		if j, ok := seen[n.ID]; ok {
			return fmt.Errorf("patterns: node %d (%s): the same id as node %d", i, n.ID, j)
		}
		seen[n.ID] = i
		switch {
		case n.Kind == "":
			return fmt.Errorf("patterns: node %d (%s): field kind is empty", i, n.ID)
		case n.Time.IsZero():
			return fmt.Errorf("patterns: node %d (%s): field time is not set", i, n.ID)
		}
		for k, src := range n.Sources {
			if err := src.Validate(); err != nil {
				return fmt.Errorf("patterns: node %d (%s): field sources[%d]: %w", i, n.ID, k, err)
			}
		}
		if n.Embedding != nil {
			for d, f := range n.Embedding {
				if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
					return fmt.Errorf("patterns: node %d (%s): field embedding: value %d is %v", i, n.ID, d, f)
				}
			}
			if dim < 0 {
				dim, dimFrom = len(n.Embedding), i
			} else if len(n.Embedding) != dim {
				return fmt.Errorf("patterns: node %d (%s): field embedding: %d dimensions, node %d has %d", i, n.ID, len(n.Embedding), dimFrom, dim)
			}
		}
	}
	for i, e := range g.Edges {
		if err := e.Source.Validate(); err != nil {
			return fmt.Errorf("patterns: edge %d: field source: %w", i, err)
		}
		if err := e.Target.Validate(); err != nil {
			return fmt.Errorf("patterns: edge %d: field target: %w", i, err)
		}
		if _, ok := link.Lookup(e.Relation); !ok {
			return fmt.Errorf("patterns: edge %d (%s -> %s): field type: unknown relation %q", i, e.Source, e.Target, e.Relation)
		}
	}
	return nil
}

// Detect computes the seven patterns over g at time now (stale decisions
// count from it). Errors: bad settings or graph (see Validate).
func Detect(g Graph, s Settings, now time.Time) (Report, error) {
	if err := s.Validate(); err != nil {
		return Report{}, err
	}
	if err := g.Validate(); err != nil {
		return Report{}, err
	}
	x := newIndex(g, s)
	items := map[Pattern][]Item{
		ExceptionClusters:        x.exceptionClusters(),
		SupersessionChains:       x.supersessionChains(),
		FailedApproachRecurrence: x.failedApproachRecurrence(),
		CorrectionHotspots:       x.correctionHotspots(),
		CrossProjectSimilarity:   x.crossProjectSimilarity(),
		StaleDecisionClusters:    x.staleDecisionClusters(now),
		ConstraintViolations:     x.constraintViolations(),
	}
	var r Report
	for _, p := range Patterns {
		its := items[p]
		for i := range its {
			its[i].Pattern = p
			its[i].Sources = x.sources(its[i].Nodes)
			its[i].Project = x.commonProject(its[i].Nodes)
		}
		slices.SortStableFunc(its, byCount)
		if its == nil {
			its = []Item{}
		}
		r.Sections = append(r.Sections, Section{Pattern: p, Name: Names[p], Items: its})
	}
	return r, nil
}

// index is a graph ready for the patterns: live nodes by id, edges by end.
type index struct {
	s     Settings
	nodes []*Node
	byID  map[link.Item]*Node
	out   map[link.Item][]Edge // edges from a live node to a live node, by source
	in    map[link.Item][]Edge // the same edges, by target
	names map[string]string    // project path -> its name (Graph.ProjectNames)
}

func newIndex(g Graph, s Settings) *index {
	x := &index{s: s, byID: map[link.Item]*Node{}, out: map[link.Item][]Edge{}, in: map[link.Item][]Edge{}}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.Archived && !s.IncludeArchived {
			continue
		}
		x.nodes = append(x.nodes, n)
		x.byID[n.ID] = n
	}
	if x.names = g.ProjectNames; x.names == nil {
		var paths []string
		for _, n := range g.Nodes {
			paths = append(paths, n.Project)
		}
		x.names = project.Names(paths)
	}
	for _, e := range g.Edges {
		if x.byID[e.Source] != nil && x.byID[e.Target] != nil && e.Source != e.Target {
			x.out[e.Source] = append(x.out[e.Source], e)
			x.in[e.Target] = append(x.in[e.Target], e)
		}
	}
	return x
}

// ofKind lists the live nodes of kind k, oldest first (ties by id).
func (x *index) ofKind(k Kind) []*Node {
	var out []*Node
	for _, n := range x.nodes {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	sortByTime(out)
	return out
}

func sortByTime(ns []*Node) {
	slices.SortStableFunc(ns, func(a, b *Node) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.ID.String(), b.ID.String()))
	})
}

// linked lists the live nodes joined to n by an edge either way (with one
// of rels, or any when rels is empty), each once, oldest first.
func (x *index) linked(n *Node, rels ...link.Relation) []*Node {
	seen := map[link.Item]bool{}
	var out []*Node
	add := func(e Edge, other link.Item) {
		if (len(rels) == 0 || slices.Contains(rels, e.Relation)) && !seen[other] {
			seen[other] = true
			out = append(out, x.byID[other])
		}
	}
	for _, e := range x.out[n.ID] {
		add(e, e.Target)
	}
	for _, e := range x.in[n.ID] {
		add(e, e.Source)
	}
	sortByTime(out)
	return out
}

// ids lists the nodes' ids.
func ids(ns []*Node) []link.Item {
	out := make([]link.Item, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

// sources lists the segments the nodes came from, each once, in order.
func (x *index) sources(nodes []link.Item) []link.Item {
	seen := map[link.Item]bool{}
	var out []link.Item
	for _, id := range nodes {
		if n := x.byID[id]; n != nil {
			for _, s := range n.Sources {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// commonProject is the project every node shares, or "".
func (x *index) commonProject(nodes []link.Item) string {
	p := ""
	for i, id := range nodes {
		n := x.byID[id]
		if n == nil {
			continue
		}
		if i == 0 {
			p = n.Project
		} else if n.Project != p {
			return ""
		}
	}
	return p
}

// retired reports whether n is out of force: a retired status, or
// superseded by a live node (an incoming SUPERSEDES edge).
func (x *index) retired(n *Node) bool {
	if slices.Contains(retiredStatuses, strings.ToLower(strings.TrimSpace(n.Status))) {
		return true
	}
	for _, e := range x.in[n.ID] {
		if e.Relation == link.Supersedes {
			return true
		}
	}
	return false
}

// normal is text as the patterns compare it: lower case, one space between
// words, without surrounding quotes or final punctuation.
func normal(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.Trim(s, "\"'`“”‘’.,;:!? ")
}

// topicKeys lists n's topics compared as normal text, each once, in order.
func topicKeys(topics []string) []string {
	var out []string
	for _, t := range topics {
		if k := normal(t); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// projectName is project p's name (Graph.ProjectNames), "" for none.
func (x *index) projectName(p string) string {
	if n, ok := x.names[p]; ok {
		return n
	}
	return project.Name(p, nil)
}

// quote clips s to n runes and puts it in quotes.
func quote(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return `"` + s + `"`
}

// cosine is the cosine similarity of a and b (0 for no vector, a zero
// vector, or different lengths).
func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
