package cli

import (
	"context"
	"fmt"
	"strings"

	"rhizome/app"
)

// filterFlags collects repeated --filter K=V flags.
type filterFlags []string

func (f *filterFlags) String() string     { return strings.Join(*f, ",") }
func (f *filterFlags) Set(v string) error { *f = append(*f, v); return nil }

// searchFilter reads --filter K=V pairs: project, kind, type, role, tool,
// file, model, relation (repeatable: any of the values), from, to
// (YYYY-MM-DD), archived (true). An unknown key or a pair without "=" is an
// error naming it.
func searchFilter(pairs []string) (app.SearchFilter, error) {
	var f app.SearchFilter
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return f, fmt.Errorf("--filter %q: want KEY=VALUE", p)
		}
		switch k {
		case "project":
			f.Project = v
		case "kind":
			f.Kinds = append(f.Kinds, v)
		case "type":
			f.NodeTypes = append(f.NodeTypes, v)
		case "role":
			f.Roles = append(f.Roles, v)
		case "tool":
			f.Tools = append(f.Tools, v)
		case "file":
			f.Files = append(f.Files, v)
		case "model":
			f.Models = append(f.Models, v)
		case "relation":
			f.RelationTypes = append(f.RelationTypes, v)
		case "from":
			f.From = v
		case "to":
			f.To = v
		case "archived":
			f.Archived = v == "true" || v == "1" || v == "yes"
		default:
			return f, fmt.Errorf("--filter %q: unknown key %q (project, kind, type, role, tool, file, model, relation, from, to, archived)", p, k)
		}
	}
	return f, nil
}

// runSearch is `rhizome search`: the knowledge items holding every word of
// the query (their confidence as score; left out when a filter names what
// only sessions have), then the hybrid search (issue 10), with each hit's
// score broken down (--explain) and bridges between the hits (--bridges);
// ctx ending (Ctrl-C) stops it. --json prints {"knowledge": [...]} and the
// hybrid result's fields.
func runSearch(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, "print the result as JSON")
	limit := c.Int("limit", 20, "most hits to show")
	explain := c.Bool("explain", false, "break each hit's score down by component")
	bridges := c.Bool("bridges", false, "show paths of up to three edges between the hits")
	var filters filterFlags
	c.Var(&filters, "filter", "KEY=VALUE: project, kind, type, role, tool, file, model, relation, from, to, archived (repeatable)")
	if status, ok := c.parse(); !ok {
		return status
	}
	q := strings.Join(c.Args(), " ")
	if strings.TrimSpace(q) == "" {
		fmt.Fprintln(stderr, "rhizome search: give a query")
		return 2
	}
	f, err := searchFilter(filters)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", err)
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "rhizome search: %v\n", context.Cause(ctx))
		}
		return status
	}
	if err := a.LoadVectors(); err != nil {
		fmt.Fprintf(stderr, "rhizome search: ranking without vectors: %v\n", err)
	}
	res, err := a.Search.Hybrid(app.HybridQuery{Query: q, Filter: f, Limit: *limit, Bridges: *bridges})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome search: %v\n", err)
		return 1
	}
	know := []app.AgentHit{}
	if knowledgeFiltered(f) {
		// The knowledge items holding every word of the query, as the MCP
		// search finds them (active ones first).
		know, err = a.Agent.Search(app.AgentSearch{Query: q, Project: f.Project, Kinds: []string{"knowledge"}, From: f.From, To: f.To, Limit: *limit})
		if err != nil {
			fmt.Fprintf(stderr, "rhizome search: %v\n", err)
			return 1
		}
	}
	if *asJSON {
		if !*explain {
			for i := range res.Hits {
				res.Hits[i].Why = nil
			}
		}
		printJSON(stdout, struct {
			Knowledge []app.AgentHit `json:"knowledge"`
			app.HybridResult
		}{know, res})
		return 0
	}
	for _, k := range know {
		fmt.Fprintf(stdout, "%.3f  %s  %-9s %s\n    %s, made by %s\n", k.Score, k.URI, k.KnowledgeKind, k.Title, k.Status, k.CreatedBy)
	}
	if res.TimeText != "" {
		fmt.Fprintf(stdout, "time: %q = %s .. %s\n", res.TimeText, res.TimeFrom, res.TimeTo)
	}
	if res.VectorNote != "" {
		fmt.Fprintf(stdout, "note: %s\n", res.VectorNote)
	}
	if len(res.Hits) == 0 && len(know) == 0 {
		fmt.Fprintln(stdout, "no matches")
	}
	for _, h := range res.Hits {
		fmt.Fprintf(stdout, "%.3f  %s  %-5s %s\n    %s\n", h.Score, h.NodeID, h.Kind, h.Title, h.Snippet)
		if *explain {
			var parts []string
			for _, p := range h.Why {
				if p.Contribution > 0 {
					parts = append(parts, fmt.Sprintf("%s %.3f (%.2f x %.2f)", p.Component, p.Contribution, p.Value, p.Weight))
				}
			}
			fmt.Fprintf(stdout, "    why: %s\n", strings.Join(parts, ", "))
		}
	}
	if *bridges {
		fmt.Fprintf(stdout, "\nbridges (%d):\n", len(res.Bridges))
		for _, b := range res.Bridges {
			fmt.Fprintf(stdout, "%.3f  %s\n", b.Score, bridgeLine(b))
		}
	}
	return 0
}

// knowledgeFiltered reports whether knowledge items pass f: a filter on
// kind, node type, role, tool, file, model or relation names what only
// session hits have.
func knowledgeFiltered(f app.SearchFilter) bool {
	return len(f.Kinds)+len(f.NodeTypes)+len(f.Roles)+len(f.Tools)+len(f.Files)+len(f.Models)+len(f.RelationTypes) == 0
}

// bridgeLine prints a path as `a -[TYPE]-> b <-[TYPE]- c`, each node its id
// and the start of its summary, each edge its rationale.
func bridgeLine(b app.BridgePath) string {
	var sb strings.Builder
	for i, id := range b.NodeIDs {
		if i > 0 {
			s := b.Steps[i-1]
			if s.Forward {
				fmt.Fprintf(&sb, " -[%s]-> ", s.Type)
			} else {
				fmt.Fprintf(&sb, " <-[%s]- ", s.Type)
			}
		}
		label := []rune(b.Labels[i])
		if len(label) > 40 {
			label = append(label[:40], '…')
		}
		fmt.Fprintf(&sb, "%s (%s)", id, string(label))
	}
	return sb.String()
}
