package app

import (
	"rhizome/backend/graph"
)

// The version history of knowledge-graph nodes: a node gets a new version
// each time its segment is analysed again (its session grew or was
// rewritten). See pi-brain-node-model.md, "Versioning" and "Computing Diffs".

// NodeVersions lists the stored versions of node nodeID, oldest first.
func (g *Graph) NodeVersions(nodeID string) ([]NodeVersionInfo, error) {
	versions, err := g.c.store.NodeVersions(g.c.context(), nodeID)
	if err != nil {
		return nil, err
	}
	out := make([]NodeVersionInfo, 0, len(versions))
	for _, v := range versions {
		out = append(out, NodeVersionInfo{Version: v.Version, AnalyzedAt: v.AnalyzedAt,
			AnalyzerVersion: v.AnalyzerVersion, TriggerReason: v.TriggerReason})
	}
	return out, nil
}

// NodeDiff returns what changed in node nodeID from version fromVersion to
// version toVersion, field by field (graph.ComputeDiff); either order works,
// and a version compared with itself has no changes. Errors: a version not
// stored.
func (g *Graph) NodeDiff(nodeID string, fromVersion, toVersion int) (graph.NodeDiff, error) {
	ctx := g.c.context()
	from, err := g.c.store.NodeAtVersion(ctx, nodeID, fromVersion)
	if err != nil {
		return graph.NodeDiff{}, err
	}
	to, err := g.c.store.NodeAtVersion(ctx, nodeID, toVersion)
	if err != nil {
		return graph.NodeDiff{}, err
	}
	return graph.ComputeDiff(*from, *to), nil
}
