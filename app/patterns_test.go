package app

import (
	"testing"

	_ "modernc.org/sqlite"
)

// The dashboard over the real samples: the seven patterns in the spec's
// order, and usage per day and model that adds up to what the nodes
// record. With the knowledge table of issue 9 in the library, a chain of
// three decisions each superseding the last is a supersession chain whose
// nodes open the segment they came from.
func TestDashboard(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	d, err := l.Patterns.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"exceptionClusters", "supersessionChains", "failedApproachRecurrence", "correctionHotspots",
		"crossProjectSimilarity", "staleDecisionClusters", "constraintViolations"}
	if len(d.Sections) != 7 {
		t.Fatalf("%d sections", len(d.Sections))
	}
	for i, s := range d.Sections {
		if s.Pattern != want[i] || s.Name == "" {
			t.Errorf("section %d: %s %q", i, s.Pattern, s.Name)
		}
	}
	u := d.Usage
	if len(u.Days) == 0 || len(u.ByModel) == 0 || u.TotalTokens == 0 || len(u.Tokens) != len(u.Days) {
		t.Fatalf("usage %+v", u)
	}
	var sum int64
	for _, s := range u.ByModel {
		if len(s.Tokens) != len(u.Days) {
			t.Errorf("model %s: %d days of %d", s.Key, len(s.Tokens), len(u.Days))
		}
		if s.TotalTokens == 0 && s.TotalCost == 0 {
			t.Errorf("model %s: a series of nothing (no tokens, no cost)", s.Key)
		}
		sum += s.TotalTokens
	}
	if sum != u.TotalTokens {
		t.Errorf("models sum to %d tokens, total %d", sum, u.TotalTokens)
	}
	data, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var nodeTokens int64
	for _, n := range data.Nodes {
		nodeTokens += int64(n.Tokens)
	}
	if nodeTokens != u.TotalTokens {
		t.Errorf("usage totals %d tokens, the graph's nodes %d", u.TotalTokens, nodeTokens)
	}

	// Three decisions recorded by hand, each superseding the one before.
	seg := data.Nodes[0].ID
	var prev string
	for _, what := range []string{"use lib/pq", "use pgx", "use pgx pool"} {
		in := KnowledgeInput{Kind: "decision", Project: "/p", Fields: KnowledgeFields{Description: what}, Supersedes: prev}
		if prev == "" {
			in.SegmentNodeID = seg
		} else {
			in.Reason = "replaces " + prev
		}
		it, err := l.Knowledge.Record(in)
		if err != nil {
			t.Fatal(err)
		}
		prev = it.ID
	}
	d, err = l.Patterns.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	chains := d.Sections[1].Items
	if len(chains) != 1 || len(chains[0].Nodes) != 3 {
		t.Fatalf("supersession chains %+v", chains)
	}
	var opens bool
	for _, n := range chains[0].Nodes {
		if n.Kind != "Decision" || n.Label == "" {
			t.Errorf("chain node %+v", n)
		}
		opens = opens || n.NodeID == seg
	}
	if !opens {
		t.Errorf("no node of the chain opens its segment %s: %+v", seg, chains[0].Nodes)
	}
}
