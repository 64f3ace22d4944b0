package app

import (
	"fmt"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/patterns"
)

// Patterns is the patterns dashboard (issue 10, section 4): ccmemory's seven
// patterns computed from the graph, each finding with the nodes behind it,
// and token use and cost over time.
type Patterns struct {
	c *core
	// now is the clock stale decisions count from; tests set it.
	now func() time.Time
}

// Dashboard computes the seven patterns over the library's graph (archived
// nodes left out) and usage per day, model and project (days in UTC).
func (p *Patterns) Dashboard() (Dashboard, error) {
	ctx := p.c.context()
	g, err := p.c.store.PatternsGraph(ctx)
	if err != nil {
		return Dashboard{}, err
	}
	if g.ProjectNames, err = p.c.projectNames(); err != nil {
		return Dashboard{}, err
	}
	now := time.Now()
	if p.now != nil {
		now = p.now()
	}
	rep, err := patterns.Detect(g, patterns.DefaultSettings(), now)
	if err != nil {
		return Dashboard{}, fmt.Errorf("app: %w", err)
	}
	sources := map[link.Item][]link.Item{}
	labels := map[link.Item]string{}
	kinds := map[link.Item]string{}
	for _, n := range g.Nodes {
		sources[n.ID], labels[n.ID], kinds[n.ID] = n.Sources, n.Label, string(n.Kind)
	}
	d := Dashboard{Sections: []PatternSection{}}
	for _, s := range rep.Sections {
		sec := PatternSection{Pattern: string(s.Pattern), Name: s.Name, Items: []PatternItem{}}
		for _, it := range s.Items {
			pi := PatternItem{Key: it.Key, Title: it.Title, Count: it.Count, Project: it.Project, Nodes: []PatternNode{}}
			for _, n := range it.Nodes {
				pn := PatternNode{URI: n.String(), Kind: kinds[n], Label: clipRunes(labels[n], labelRunes)}
				if n.Kind == link.KindNode {
					pn.NodeID = n.ID
				} else if src := sources[n]; len(src) > 0 && src[0].Kind == link.KindNode {
					pn.NodeID = src[0].ID
				}
				pi.Nodes = append(pi.Nodes, pn)
			}
			sec.Items = append(sec.Items, pi)
		}
		d.Sections = append(d.Sections, sec)
	}
	recs, err := p.c.store.UsageRecords(ctx)
	if err != nil {
		return Dashboard{}, err
	}
	u, err := patterns.UsageOverTime(recs, g.ProjectNames, time.UTC)
	if err != nil {
		return Dashboard{}, fmt.Errorf("app: %w", err)
	}
	d.Usage = usageChart(u)
	return d, nil
}

func usageChart(u patterns.UsageReport) UsageChart {
	c := UsageChart{Days: u.Days, Tokens: make([]int64, len(u.ByDay)), Cost: make([]float64, len(u.ByDay)),
		ByModel: series(u.ByModel), ByProject: series(u.ByProject), TotalTokens: u.Total.Tokens, TotalCost: u.Total.Cost}
	for i, t := range u.ByDay {
		c.Tokens[i], c.Cost[i] = t.Tokens, t.Cost
	}
	return c
}

// series are the chart's series of in, but those with neither tokens nor
// cost (a request aborted before any usage): they draw nothing, and their
// legend entry read "0".
func series(in []patterns.Series) []UsageSeries {
	out := make([]UsageSeries, 0, len(in))
	for _, s := range in {
		if s.Total.Tokens == 0 && s.Total.Cost == 0 {
			continue
		}
		us := UsageSeries{Key: s.Key, Name: s.Name, Tokens: make([]int64, len(s.Days)), Cost: make([]float64, len(s.Days)),
			TotalTokens: s.Total.Tokens, TotalCost: s.Total.Cost}
		for i, t := range s.Days {
			us.Tokens[i], us.Cost[i] = t.Tokens, t.Cost
		}
		out = append(out, us)
	}
	return out
}
