package app

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/store"
)

// Graph is the knowledge graph: nodes (one per segment, current version)
// and the edges between them.
type Graph struct {
	c *core
}

// labelRunes caps a graph node's label (its summary).
const labelRunes = 80

// Graph returns the nodes matching filter and the edges between them (an
// edge is shown when both its ends are), the links people made between them
// included (type "link", see userLinkEdges), and, unless filter.NoKnowledge,
// the knowledge nodes of those segments with their provenance and
// supersession edges (knowledgeNodes).
func (g *Graph) Graph(filter GraphFilter) (GraphData, error) {
	ctx := g.c.context()
	nodes, err := g.c.store.Nodes(ctx, store.NodeFilter{
		Project: filter.Project, SessionID: filter.SessionID, Types: filter.Types, From: filter.From, To: filter.To,
	})
	if err != nil {
		return GraphData{}, err
	}
	archived := map[string]bool{}
	if !filter.Archived {
		if archived, err = g.c.store.ArchivedNodeIDs(ctx); err != nil {
			return GraphData{}, err
		}
	}
	data := GraphData{Nodes: make([]GraphNode, 0, len(nodes)), Edges: []GraphEdge{}}
	in := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		if archived[n.ID] {
			continue
		}
		in[n.ID] = true
		label := n.Label // the segment summary's (3-6 words)
		if label == "" {
			label = clipRunes(n.Summary, labelRunes)
		}
		data.Nodes = append(data.Nodes, GraphNode{
			ID: n.ID, Label: label, Type: n.Type, Outcome: n.Outcome,
			SessionID: n.SessionID, Project: n.Project, Segment: n.Segment, Timestamp: n.Timestamp,
			Cost: n.Cost, Tokens: n.Tokens, Entries: n.Entries,
		})
	}
	edges, err := g.c.store.Edges(ctx)
	if err != nil {
		return GraphData{}, err
	}
	made, err := g.c.store.MemoryEdges(ctx) // consolidation's SHARES_THEME and RELATES_TO
	if err != nil {
		return GraphData{}, err
	}
	for _, e := range append(edges, made...) {
		if in[e.SourceNodeID] && in[e.TargetNodeID] {
			data.Edges = append(data.Edges, drawnEdge(e))
		}
	}
	if !filter.NoKnowledge {
		if err := g.knowledgeNodes(ctx, filter, &data); err != nil {
			return GraphData{}, err
		}
	}
	userLinks, err := g.c.userLinkEdges(ctx, data.Nodes)
	if err != nil {
		return GraphData{}, err
	}
	data.Edges = append(data.Edges, userLinks...)
	if data.Analysing, err = g.c.store.DerivePending(ctx); err != nil {
		return GraphData{}, err
	}
	return data, nil
}

// edgeLabels names the other ends of a node's edges (link.Node items,
// resolved as links are: by their summaries' labels).
func (g *Graph) edgeLabels(ctx context.Context, id string, in, out []GraphEdge) (map[string]string, error) {
	var items []link.Item
	for _, e := range in {
		items = append(items, link.Node(e.Source))
	}
	for _, e := range out {
		items = append(items, link.Node(e.Target))
	}
	labels := make(map[string]string, len(items))
	if len(items) == 0 {
		return labels, nil
	}
	recs, err := g.c.store.ResolveItems(ctx, items)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.Exists && r.Item.ID != id {
			labels[r.Item.ID] = r.Title
		}
	}
	return labels, nil
}

// Node returns a node's current version with its session, the boundaries
// that start its segment, its edges and its version history.
func (g *Graph) Node(id string) (NodeDetail, error) {
	ctx := g.c.context()
	rec, err := g.c.store.Node(ctx, id)
	if err != nil {
		return NodeDetail{}, err
	}
	incoming, outgoing, err := g.c.store.NodeEdges(ctx, id)
	if err != nil {
		return NodeDetail{}, err
	}
	versions, err := g.c.store.NodeVersions(ctx, id)
	if err != nil {
		return NodeDetail{}, err
	}
	d := NodeDetail{
		Node: rec.Node, SessionName: rec.SessionName, SessionTitle: rec.SessionName, Segment: rec.Segment,
		Boundaries: boundaryViews(rec.Boundaries),
		Incoming:   make([]GraphEdge, 0, len(incoming)),
		Outgoing:   make([]GraphEdge, 0, len(outgoing)),
		Versions:   make([]NodeVersionInfo, 0, len(versions)),
	}
	for _, e := range incoming {
		d.Incoming = append(d.Incoming, graphEdge(e))
	}
	for _, e := range outgoing {
		d.Outgoing = append(d.Outgoing, graphEdge(e))
	}
	if d.Labels, err = g.edgeLabels(ctx, id, d.Incoming, d.Outgoing); err != nil {
		return NodeDetail{}, err
	}
	if row, vs, err := g.c.store.Summary(ctx, nodeKey(id).Item); err == nil {
		v := summaryView(row, vs)
		d.Summary = &v
	} else if !isNotFound(err) {
		return NodeDetail{}, err
	}
	if row, _, err := g.c.store.Summary(ctx, sessionKey(rec.SessionID).Item); err == nil && row.Shown.Title != "" {
		d.SessionTitle = row.Shown.Title
	} else if err != nil && !isNotFound(err) {
		return NodeDetail{}, err
	}
	for _, v := range versions {
		d.Versions = append(d.Versions, NodeVersionInfo{
			Version: v.Version, AnalyzedAt: v.AnalyzedAt, AnalyzerVersion: v.AnalyzerVersion, TriggerReason: v.TriggerReason,
		})
	}
	analyses, err := g.c.store.NodeAnalyses(ctx, id)
	if err != nil {
		return NodeDetail{}, err
	}
	d.Analyses = make([]NodeAnalysisInfo, 0, len(analyses))
	for _, r := range analyses {
		info := NodeAnalysisInfo{At: r.At, Source: r.Source, AnalyzerVersion: r.AnalyzerVersion, TriggerReason: r.TriggerReason,
			Version: r.Version, Calls: r.Calls, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, USD: r.USD}
		if r.Failure != "" {
			var f analyze.Failure
			if err := json.Unmarshal([]byte(r.Failure), &f); err == nil {
				info.Failure = &f
			}
		}
		d.Analyses = append(d.Analyses, info)
	}
	return d, nil
}

// drawnMetadata is the edge metadata the graph view reads (its edge tips:
// frontend/src/lib/graph/edges.ts; a link's confidence and rationale; a
// fork's child session and entry, a few bytes); the rest (a compaction's
// summary, entry ids) stays for the node panel.
var drawnMetadata = []string{"boundaries", "gapMinutes", "tokensBefore", "confidence", "rationale", "childSession", "forkEntryId"}

// rationaleRunes caps a rationale sent with the graph.
const rationaleRunes = 160

// drawnEdge is e as the graph request sends it: its metadata cut to
// drawnMetadata. A compaction edge's summary alone is kilobytes, sent for
// every edge of a large graph (issue 10, section 5: "send only what the
// view needs").
func drawnEdge(e graph.Edge) GraphEdge {
	out := GraphEdge{ID: e.ID, Source: e.SourceNodeID, Target: e.TargetNodeID, Type: e.Type,
		Confidence: e.Confidence, Similarity: e.Similarity, Rationale: clipRunes(e.Rationale, rationaleRunes), CreatedBy: string(e.CreatedBy)}
	for _, k := range drawnMetadata {
		v, ok := e.Metadata[k]
		if !ok {
			continue
		}
		if s, isText := v.(string); isText {
			v = clipRunes(s, rationaleRunes)
		}
		if out.Metadata == nil {
			out.Metadata = map[string]any{}
		}
		out.Metadata[k] = v
	}
	return out
}

func graphEdge(e graph.Edge) GraphEdge {
	md := e.Metadata
	if len(md) == 0 {
		md = nil
	}
	return GraphEdge{ID: e.ID, Source: e.SourceNodeID, Target: e.TargetNodeID, Type: e.Type, Metadata: md,
		Confidence: e.Confidence, Similarity: e.Similarity, Rationale: e.Rationale, CreatedBy: string(e.CreatedBy)}
}

// clipRunes cuts s to n runes, marking the cut with "…".
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
