package app

import (
	"strings"

	"rhizome/backend/export"
	"rhizome/backend/knowledge"
	"rhizome/backend/link"
)

// exportKnowledge adds the knowledge items of project ("" every item; else
// the project's and the cross-project items found in its segments) as nodes
// of their kind ("decision", "projectFact", …; id rhizome:knowledge/<id>,
// attributes status, madeBy, knowledgeConfidence, version, project,
// sessionId, segmentNodeId, rule, model, topics), each DERIVED_FROM the
// segment node it came from when that node is exported (KnowledgeSourceEdge,
// confidence 1), and the stated supersessions between them (SUPERSEDES,
// newer to older, confidence 1, the reason as rationale). seg maps the
// exported segment node ids to their URIs.
func (a *App) exportKnowledge(out *export.Graph, project string, seg map[string]string) error {
	k := &Knowledge{c: a.c}
	items, sups, err := k.all()
	if err != nil {
		return err
	}
	res, err := knowledge.Resolve(items, sups)
	if err != nil {
		return err
	}
	shown := map[string]bool{}
	for _, it := range items {
		segURI, fromSeg := seg[it.Source.SegmentNodeID]
		if project != "" && it.Project != project && !(it.Project == "" && fromSeg) {
			continue
		}
		status := res.Status(it.ID)
		if status == "" {
			status = it.Status
		}
		attrs := map[string]any{"status": string(status), "madeBy": string(it.Source.CreatedBy),
			"knowledgeConfidence": it.Confidence, "version": float64(it.Version)}
		for name, v := range map[string]string{"project": it.Project, "sessionId": it.Source.SessionID,
			"segmentNodeId": it.Source.SegmentNodeID, "rule": it.Source.Rule, "model": it.Source.Model, "topics": strings.Join(it.Topics, ", ")} {
			if v != "" {
				attrs[name] = v
			}
		}
		uri := it.URI().String()
		out.Nodes = append(out.Nodes, export.Node{ID: uri, Kind: string(it.Kind), Label: clipRunes(it.Title(), labelRunes),
			Text: knowledgeText(knowledgeFields(it)), Time: it.Timestamp, Attrs: attrs})
		shown[it.ID] = true
		if fromSeg {
			out.Edges = append(out.Edges, export.Edge{Source: uri, Target: segURI, Type: KnowledgeSourceEdge, Confidence: 1,
				Rationale: sourceRationale(it), CreatedBy: string(it.Source.CreatedBy), Directed: true})
		}
	}
	for _, s := range sups {
		if shown[s.Newer] && shown[s.Older] {
			out.Edges = append(out.Edges, export.Edge{Source: link.Knowledge(s.Newer).String(), Target: link.Knowledge(s.Older).String(),
				Type: string(link.Supersedes), Confidence: 1, Rationale: s.Reason, CreatedBy: string(s.StatedBy), Directed: true})
		}
	}
	return nil
}

// knowledgeText is an item's fields as a short markdown body, one
// "**Field**: value" line each, in the kind's order.
func knowledgeText(f KnowledgeFields) string {
	var b strings.Builder
	for _, kv := range []struct{ k, v string }{
		{"Description", f.Description}, {"Rationale", f.Rationale}, {"Options considered", strings.Join(f.OptionsConsidered, "; ")},
		{"Revisit when", f.RevisitTrigger}, {"Wrong belief", f.WrongBelief}, {"Right belief", f.RightBelief}, {"Severity", f.Severity},
		{"Rule broken", f.RuleBroken}, {"Justification", f.Justification}, {"Scope", f.Scope}, {"Approach", f.Approach},
		{"Outcome", f.Outcome}, {"Lesson", f.Lesson}, {"Summary", f.Summary}, {"Category", f.Category}, {"Detail", f.Detail},
		{"Implications", f.Implications}, {"Question", f.Question}, {"Answer", f.Answer}, {"Context", f.Context}, {"Fact", f.Fact},
		{"Details", f.Details}, {"Actionable", f.Actionable}, {"Level", f.Level},
	} {
		if strings.TrimSpace(kv.v) != "" {
			b.WriteString("**" + kv.k + "**: " + kv.v + "\n")
		}
	}
	return b.String()
}

// exportLinks adds the links people made (and mentions made) whose source
// or target is an exported node, with their type (confidence 1, the maker,
// the note as attribute "note", the link id as "linkId"); an end that is not
// an exported node (a URL, a file, a session, an entry, an item of another
// project) becomes a node of its own kind, titled as the library resolves
// it, with attribute "exists" false when the library no longer holds it.
func (a *App) exportLinks(out *export.Graph) error {
	ctx := a.c.context()
	links, err := a.c.store.AllLinks(ctx)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(out.Nodes))
	for _, n := range out.Nodes {
		have[n.ID] = true
	}
	var keep []link.Link
	var ends []link.Item
	for _, lk := range links {
		s, t := lk.Source.String(), lk.Target.String()
		if !have[s] && !have[t] {
			continue // neither end is in this export (another project's)
		}
		keep = append(keep, lk)
		for _, it := range []link.Item{lk.Source, lk.Target} {
			if !have[it.String()] {
				ends = append(ends, it)
			}
		}
	}
	recs, err := a.c.store.ResolveItems(ctx, ends)
	if err != nil {
		return err
	}
	for _, it := range ends {
		uri := it.String()
		if have[uri] {
			continue
		}
		have[uri] = true
		r := recs[uri]
		title := r.Title
		if title == "" {
			title = uri
		}
		out.Nodes = append(out.Nodes, export.Node{ID: uri, Kind: string(it.Kind), Label: clipRunes(title, labelRunes),
			Attrs: map[string]any{"exists": r.Exists}})
	}
	for _, lk := range keep {
		attrs := map[string]any{"linkId": lk.ID}
		if lk.Note != "" {
			attrs["note"] = lk.Note
		}
		out.Edges = append(out.Edges, export.Edge{Source: lk.Source.String(), Target: lk.Target.String(), Type: string(lk.Type),
			Confidence: 1, CreatedBy: string(lk.CreatedBy), Directed: lk.Type.Directed(), Attrs: attrs})
	}
	return nil
}
