package relate

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
)

// sessionOrder walks each project's sessions in start order and relates
// neighbours only (never every pair):
//
//   - OCCURRED_BEFORE from a session's last segment to the next session's
//     first segment: confidence 1 when the next one starts after this one
//     ended, 0.8 when they overlap (ordered by start);
//   - LEADS_TO when a session's last segment ended failed or partial and a
//     segment among the next session's first three (started within
//     ContinuationWindow) touches the same non-ubiquitous files or names
//     the same references: the next session picked up the work. Confidence
//     0.4, +0.25 for shared files, +0.2 for shared references, +0.1 when
//     it started within a day; at most 0.9. Without shared files or
//     references there is no evidence of continuation and no edge.
func (c *corpus) sessionOrder(opts Options) []Edge {
	df, projectSegs := c.fileStats()
	var edges []Edge
	for _, sessions := range c.projects {
		for i := 0; i+1 < len(sessions); i++ {
			prev, next := sessions[i], sessions[i+1]
			last := c.segs[prev.segs[len(prev.segs)-1]]
			first := c.segs[next.segs[0]]
			gap := next.start.Sub(prev.end)
			e := Edge{Source: link.Node(last.ID), Target: link.Node(first.ID), Relation: link.OccurredBefore,
				Confidence: 1, CreatedBy: link.ByOffline}
			if gap >= 0 {
				e.Rationale = fmt.Sprintf("the next session of %s starts %s after this one ends", c.projectName(prev.project), human(gap))
			} else {
				e.Confidence = 0.8
				e.Rationale = fmt.Sprintf("the next session of %s starts %s after this one starts; they overlap", c.projectName(prev.project), human(next.start.Sub(prev.start)))
			}
			edges = append(edges, e)
			if last.Outcome != graph.OutcomeFailed && last.Outcome != graph.OutcomePartial || gap > opts.ContinuationWindow {
				continue
			}
			for k := 0; k < len(next.segs) && k < 3; k++ {
				cand := c.segs[next.segs[k]]
				files := sharedFiles(last, cand, df, projectSegs, opts)
				refs := sharedRefList(last, cand)
				if len(files) == 0 && len(refs) == 0 {
					continue
				}
				conf := 0.4
				var why []string
				if len(files) > 0 {
					conf += 0.25
					why = append(why, "touches "+listSome(files))
				}
				if len(refs) > 0 {
					conf += 0.2
					why = append(why, "names "+listSome(refs))
				}
				if gap < 24*time.Hour {
					conf += 0.1
				}
				if conf > 0.9 {
					conf = 0.9
				}
				edges = append(edges, Edge{Source: link.Node(last.ID), Target: link.Node(cand.ID), Relation: link.LeadsTo,
					Confidence: round3(conf), CreatedBy: link.ByOffline,
					Rationale: fmt.Sprintf("the session ended %s; the next session of %s, %s later, %s again",
						last.Outcome, c.projectName(prev.project), human(max(gap, 0)), strings.Join(why, " and "))})
				break
			}
		}
	}
	return edges
}

// fileStats counts, for each file key, the segments touching it, and the
// segments of each project.
func (c *corpus) fileStats() (map[string]int, map[string]int) {
	df := map[string]int{}
	projectSegs := map[string]int{}
	for _, s := range c.segs {
		projectSegs[s.Project]++
		seen := map[string]bool{}
		for _, f := range s.Files {
			if k := fileKey(s.Project, f); k != "" && !seen[k] {
				seen[k] = true
				df[k]++
			}
		}
	}
	return df, projectSegs
}

// sharedFiles lists the non-ubiquitous files two segments both touch,
// sorted.
func sharedFiles(a, b Segment, df, projectSegs map[string]int, opts Options) []string {
	set := map[string]bool{}
	for _, f := range a.Files {
		set[fileKey(a.Project, f)] = true
	}
	var out []string
	for _, f := range b.Files {
		k := fileKey(b.Project, f)
		if k == "" || !set[k] {
			continue
		}
		d := df[k]
		if d > opts.MaxFilePostings || d >= 8 && float64(d) > opts.UbiquitousShare*float64(projectSegs[b.Project]) {
			continue
		}
		delete(set, k)
		out = append(out, displayFile(k))
	}
	sort.Strings(out)
	return out
}

// sharedRefList lists the references two segments both name.
func sharedRefList(a, b Segment) []string {
	set := map[string]bool{}
	for _, r := range a.Refs {
		set[refKey(a.Project, r)] = true
	}
	var out []string
	for _, r := range b.Refs {
		if k := refKey(b.Project, r); set[k] {
			delete(set, k)
			out = append(out, r)
		}
	}
	return out
}

// listSome names at most three items, "a, b, c and 2 more".
func listSome(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:3], ", "), len(items)-3)
}

// projectName is how a rationale names project p: its name among the
// corpus's projects (project.Names), "the project" for none.
func (c *corpus) projectName(p string) string {
	if n := c.names[p]; n != "" {
		return n
	}
	return "the project"
}

// human writes a duration as a person says it: "45 min", "3 h", "2 days".
func human(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}
