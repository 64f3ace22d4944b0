package knowledge

import (
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// RulesHeading is the heading of the project rules, as ccmemory injects them
// (context-graph-dag.md, "Context Injection Format").
const RulesHeading = "## Project Rules (from context graph — treat as custom instructions)"

// Rule is one project rule: an active project fact.
type Rule struct {
	ID         string    `json:"id"`
	Category   Category  `json:"category"`
	Fact       string    `json:"fact"`
	Context    string    `json:"context,omitempty"`
	Project    string    `json:"project,omitempty"` // "" for a cross-project fact
	Timestamp  time.Time `json:"timestamp"`
	Confidence float64   `json:"confidence"`
	CreatedBy  CreatedBy `json:"createdBy"`
	// Supersedes lists the facts this one replaced, newest first (the rest
	// of its chain), so a reader sees what changed.
	Supersedes []string `json:"supersedes,omitempty"`
}

// RuleGroup is the rules of one category, oldest first.
type RuleGroup struct {
	Category Category `json:"category"`
	Title    string   `json:"title"` // "Conventions", "Constraints", …
	Rules    []Rule   `json:"rules"`
}

// RuleSet is a project's rules grouped by category, in the order of
// Categories; empty groups are left out. It holds no questions: open
// questions are listed on demand (OpenQuestions), never in the rules.
type RuleSet struct {
	Project string      `json:"project"`
	Groups  []RuleGroup `json:"groups"`
}

// categoryTitles are the headings of the rule groups.
var categoryTitles = map[Category]string{
	CategoryConvention: "Conventions", CategoryConstraint: "Constraints", CategoryWorkflow: "Workflows",
	CategoryTool: "Tools", CategoryPattern: "Patterns", CategoryEnvironment: "Environment",
}

// BuildRules collects the rules of project from items and the supersessions
// stated between them: every ProjectFact of the project or of no project
// (cross-project) whose resolved status is active (latest wins: a fact that
// a newer one supersedes is left out, and so is a stale one). A project of
// "" gives only the cross-project facts. Facts with the same text (ignoring
// case and spacing) are listed once, the newest kept. items hold the
// current version of each item; the error is Resolve's.
//
// See context-graph-dag.md, "Project Facts as Binding Instructions", and
// ERRATA.md, "ccmemory".
func BuildRules(items []Item, sups []Supersession, project string) (RuleSet, error) {
	res, err := Resolve(items, sups)
	if err != nil {
		return RuleSet{}, err
	}
	rs := RuleSet{Project: project, Groups: []RuleGroup{}}
	byCat := map[Category][]Rule{}
	seen := map[string]int{} // normalised fact -> index in byCat[category]
	facts := make([]Item, 0, len(items))
	for _, it := range items {
		if it.ProjectFact != nil && (it.Project == project || it.Project == "") && res.Status(it.ID) == StatusActive {
			facts = append(facts, it)
		}
	}
	sort.SliceStable(facts, func(i, j int) bool {
		if !facts[i].Timestamp.Equal(facts[j].Timestamp) {
			return facts[i].Timestamp.Before(facts[j].Timestamp)
		}
		return facts[i].ID < facts[j].ID
	})
	for _, it := range facts {
		f := it.ProjectFact
		chain := res.Chain(it.ID)
		r := Rule{ID: it.ID, Category: f.Category, Fact: strings.TrimSpace(f.Fact), Context: f.Context,
			Project: it.Project, Timestamp: it.Timestamp, Confidence: it.Confidence, CreatedBy: it.Source.CreatedBy}
		if len(chain) > 1 {
			r.Supersedes = chain[1:]
		}
		key := string(f.Category) + "\x00" + strings.ToLower(strings.Join(strings.Fields(r.Fact), " "))
		if i, dup := seen[key]; dup {
			byCat[f.Category][i] = r // facts are oldest first: the newer wins
			continue
		}
		seen[key] = len(byCat[f.Category])
		byCat[f.Category] = append(byCat[f.Category], r)
	}
	for _, c := range Categories {
		if len(byCat[c]) > 0 {
			rs.Groups = append(rs.Groups, RuleGroup{Category: c, Title: categoryTitles[c], Rules: byCat[c]})
		}
	}
	return rs, nil
}

// Markdown renders the rules as ccmemory's "## Project Rules" block, ready to
// paste into AGENTS.md or CLAUDE.md: the heading, then one "### <Category>"
// section per group with one "- <fact>" line per rule. A fact's line breaks
// become spaces, so a fact stays one list item. With no rules the block
// says so under the heading.
func (rs RuleSet) Markdown() string {
	var b strings.Builder
	b.WriteString(RulesHeading)
	b.WriteString("\n")
	if len(rs.Groups) == 0 {
		b.WriteString("\nNo project rules recorded yet.\n")
		return b.String()
	}
	for _, g := range rs.Groups {
		b.WriteString("\n### ")
		b.WriteString(g.Title)
		b.WriteString("\n")
		for _, r := range g.Rules {
			b.WriteString("- ")
			b.WriteString(strings.Join(strings.Fields(r.Fact), " "))
			b.WriteString("\n")
		}
	}
	return b.String()
}

// JSON renders the rule set as indented JSON (the shape of RuleSet).
func (rs RuleSet) JSON() ([]byte, error) {
	return json.MarshalIndent(rs, "", "  ")
}

// Rules is BuildRules rendered as markdown: the project's "## Project Rules".
func Rules(items []Item, sups []Supersession, project string) (string, error) {
	rs, err := BuildRules(items, sups, project)
	if err != nil {
		return "", err
	}
	return rs.Markdown(), nil
}

// OpenQuestions lists the open questions (no answer) of project and of no
// project whose resolved status is active, oldest first: the questions a
// person or an agent asks for on demand, never part of the rules
// (context-graph-dag.md, "Open Questions: Query On Demand"). A project of
// "" gives only the cross-project ones.
func OpenQuestions(items []Item, sups []Supersession, project string) ([]Item, error) {
	res, err := Resolve(items, sups)
	if err != nil {
		return nil, err
	}
	var out []Item
	for _, it := range items {
		if it.Question != nil && it.Question.Open() && (it.Project == project || it.Project == "") &&
			res.Status(it.ID) == StatusActive {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Timestamp.Before(out[j].Timestamp) })
	return out, nil
}
