package app

import (
	"fmt"
	"time"

	"rhizome/backend/export"
	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/store"
)

// ExportGraph gathers the library's graph for `rhizome export`: every
// current segment node of project ("" for the whole library) as a
// "segment" node, every edge between them (structural, offline, model,
// user) with its type, confidence, similarity, rationale and maker, and,
// for the whole library, the loom trees ("loomTree") with their nodes
// ("loomNode", PART_OF their tree) and continuations. Node ids are the
// items' rhizome: URIs. Then the knowledge nodes with their provenance and
// supersession edges (exportKnowledge) and the links people made with the
// items they reach (exportLinks). It is not a bound use case:
// the command line writes the files (backend/export).
func (a *App) ExportGraph(project string) (export.Graph, error) {
	ctx := a.c.context()
	out := export.Graph{Project: project, ExportedAt: time.Now().UTC(), Nodes: []export.Node{}, Edges: []export.Edge{}}
	nodes, err := a.c.store.Nodes(ctx, store.NodeFilter{Project: project})
	if err != nil {
		return out, fmt.Errorf("app: unable to export the graph: %w", err)
	}
	uri := map[string]string{}
	for _, n := range nodes {
		id := link.Node(n.ID).String()
		uri[n.ID] = id
		t, _ := time.Parse(time.RFC3339Nano, n.Timestamp)
		out.Nodes = append(out.Nodes, export.Node{
			ID: id, Kind: "segment", Label: clipRunes(n.Summary, labelRunes), Text: n.Summary, Time: t,
			Attrs: map[string]any{
				"nodeType": n.Type, "outcome": n.Outcome, "project": n.Project, "sessionId": n.SessionID,
				"segment": float64(n.Segment), "costUSD": n.Cost, "tokens": float64(n.Tokens), "entries": float64(n.Entries),
			},
		})
	}
	edges, err := a.c.store.Edges(ctx)
	if err != nil {
		return out, fmt.Errorf("app: unable to export the graph: %w", err)
	}
	for _, e := range edges {
		src, okS := uri[e.SourceNodeID]
		dst, okT := uri[e.TargetNodeID]
		if !okS || !okT {
			continue // an end outside the project
		}
		out.Edges = append(out.Edges, exportEdge(src, dst, e))
	}
	if err := a.exportKnowledge(&out, project, uri); err != nil {
		return out, fmt.Errorf("app: unable to export the graph: %w", err)
	}
	if project == "" {
		if err := a.exportLoom(&out); err != nil {
			return out, fmt.Errorf("app: unable to export the graph: %w", err)
		}
	}
	if err := a.exportLinks(&out); err != nil {
		return out, fmt.Errorf("app: unable to export the graph: %w", err)
	}
	return out, nil
}

// exportEdge is a graph edge as the export writes it: relations of the
// vocabulary are directed or not as the vocabulary says; structural edges
// are directed.
func exportEdge(src, dst string, e graph.Edge) export.Edge {
	directed := true
	if info, ok := link.Lookup(link.Relation(e.Type)); ok {
		directed = info.Directed
	}
	return export.Edge{Source: src, Target: dst, Type: e.Type, Confidence: e.Confidence, Similarity: e.Similarity,
		Rationale: e.Rationale, CreatedBy: string(e.CreatedBy), Directed: directed}
}

// exportLoom adds every loom tree of the default grove, archived ones
// included, with its nodes and continuation edges.
func (a *App) exportLoom(out *export.Graph) error {
	ctx := a.c.context()
	grove, err := a.c.store.DefaultGrove(ctx)
	if err != nil {
		return err
	}
	for _, archived := range []bool{false, true} {
		trees, err := a.c.store.ListLoomTrees(ctx, grove.ID, archived)
		if err != nil {
			return err
		}
		for _, lt := range trees {
			tree, err := a.c.store.LoadLoomTree(ctx, lt.ID)
			if err != nil {
				return err
			}
			treeURI := link.LoomTree(tree.ID).String()
			out.Nodes = append(out.Nodes, export.Node{ID: treeURI, Kind: "loomTree", Label: clipRunes(tree.Title, labelRunes),
				Text: tree.Description, Time: tree.CreatedAt, Attrs: map[string]any{"archived": archived}})
			for _, n := range tree.Nodes() {
				text := n.Content.PlainText()
				nodeURI := link.LoomNode(tree.ID, n.ID).String()
				out.Nodes = append(out.Nodes, export.Node{ID: nodeURI, Kind: "loomNode", Label: clipRunes(text, labelRunes),
					Text: text, Time: n.CreatedAt, Attrs: map[string]any{"authorType": string(n.AuthorType), "localId": n.LocalID}})
				out.Edges = append(out.Edges, export.Edge{Source: nodeURI, Target: treeURI, Type: string(link.PartOf),
					Confidence: 1, CreatedBy: "boundary", Directed: true})
			}
			for _, e := range tree.Edges() {
				for _, s := range e.Sources {
					out.Edges = append(out.Edges, export.Edge{Source: link.LoomNode(tree.ID, s.NodeID).String(),
						Target: link.LoomNode(tree.ID, e.TargetNodeID).String(), Type: string(e.Type), Confidence: 1,
						CreatedBy: "loom", Directed: true, Attrs: map[string]any{"role": string(s.Role)}})
				}
			}
		}
	}
	return nil
}
