package app

import (
	"context"

	"rhizome/backend/knowledge"
	"rhizome/backend/link"
)

// KnowledgeSourceEdge is the type of the edge that joins a knowledge node to
// the segment node it was found in (or recorded from): the item DERIVED_FROM
// the segment, read in the link vocabulary as "the source was made from the
// target, which it tracks as its origin". It is the same for every kind: the
// edge states provenance only, the kind is on the node (a decision, a
// correction, a lesson… all come from what was said in that segment), so
// no kind-specific relation is claimed that the library does not know.
// Its confidence is 1 (the provenance is recorded, not guessed), its maker
// the item's (offline, model, user, agent) and its rationale says how it was
// made (sourceRationale).
const KnowledgeSourceEdge = string(link.DerivedFrom)

// sourceRationale says how an item came from its segment.
func sourceRationale(it knowledge.Item) string {
	switch {
	case it.Source.CreatedBy == knowledge.ByOffline && it.Source.Rule != "":
		return "found in this segment by the offline rule " + it.Source.Rule
	case it.Source.CreatedBy == knowledge.ByModel && it.Source.Model != "":
		return "proposed from this segment by " + it.Source.Model
	}
	return "recorded from this segment by the " + string(it.Source.CreatedBy)
}

// GraphKnowledge is what the graph view draws of a knowledge node
// (backend/knowledge.Item's current version); nil on a segment node.
type GraphKnowledge struct {
	Kind       string  `json:"kind" ts_type:"'decision' | 'correction' | 'exception' | 'failedApproach' | 'insight' | 'question' | 'projectFact' | 'lesson'"`
	Title      string  `json:"title"`
	Status     string  `json:"status" ts_type:"'active' | 'superseded' | 'stale'"`
	CreatedBy  string  `json:"createdBy" ts_type:"'offline' | 'model' | 'user' | 'agent'"`
	Confidence float64 `json:"confidence"` // 0-1, how sure its maker is
	// SegmentNodeID is the segment node it came from ("" for an item a
	// person wrote from nothing).
	SegmentNodeID string `json:"segmentNodeId,omitempty"`
}

// knowledgeNodes adds to data the knowledge items that belong to its
// segment nodes (an item found in, or recorded from, a segment the graph
// shows), each with a KnowledgeSourceEdge to that segment, and, when the
// filter names no session and no node types, the items of the filter's
// project (every project's for "") that came from no segment. Then the
// stated supersessions between the items shown, as SUPERSEDES edges (newer
// to older, confidence 1, the reason as rationale, the maker who stated
// it). A knowledge node's type is its kind; it takes its segment's session,
// project and index so a layout can place it beside that segment.
func (g *Graph) knowledgeNodes(ctx context.Context, filter GraphFilter, data *GraphData) error {
	k := &Knowledge{c: g.c}
	items, sups, err := k.all()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return nil
	}
	res, err := knowledge.Resolve(items, sups)
	if err != nil {
		return err
	}
	segs := make(map[string]int, len(data.Nodes))
	for i, n := range data.Nodes {
		segs[n.ID] = i
	}
	shown := map[string]bool{}
	for _, it := range items {
		seg, ok := segs[it.Source.SegmentNodeID]
		if it.Source.SegmentNodeID == "" {
			if filter.SessionID != "" || len(filter.Types) > 0 || filter.Project != "" && it.Project != filter.Project {
				continue
			}
		} else if !ok {
			continue // its segment is outside the filter
		}
		status := res.Status(it.ID)
		if status == "" {
			status = it.Status
		}
		n := GraphNode{ID: it.ID, Label: clipRunes(it.Title(), labelRunes), Type: string(it.Kind), Project: it.Project,
			Timestamp: isoMillis(it.Timestamp),
			Knowledge: &GraphKnowledge{Kind: string(it.Kind), Title: it.Title(), Status: string(status),
				CreatedBy: string(it.Source.CreatedBy), Confidence: it.Confidence, SegmentNodeID: it.Source.SegmentNodeID}}
		if ok {
			s := data.Nodes[seg]
			n.SessionID, n.Segment = s.SessionID, s.Segment
			if n.Project == "" {
				n.Project = s.Project
			}
			data.Edges = append(data.Edges, GraphEdge{ID: "source:" + it.ID, Source: it.ID, Target: it.Source.SegmentNodeID,
				Type: KnowledgeSourceEdge, Confidence: 1, Rationale: sourceRationale(it), CreatedBy: string(it.Source.CreatedBy)})
		}
		shown[it.ID] = true
		data.Nodes = append(data.Nodes, n)
	}
	for _, s := range sups {
		if shown[s.Newer] && shown[s.Older] {
			data.Edges = append(data.Edges, GraphEdge{ID: "supersedes:" + s.Newer + ":" + s.Older, Source: s.Newer, Target: s.Older,
				Type: string(link.Supersedes), Confidence: 1, Rationale: s.Reason, CreatedBy: string(s.StatedBy)})
		}
	}
	return nil
}
