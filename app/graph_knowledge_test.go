package app

import (
	"maps"
	"path/filepath"
	"testing"
)

// TestGraphKnowledgeNodes imports the three real samples: the graph holds
// their knowledge items (the offline rules' golden files) as nodes of
// their kind with title, status, maker and confidence, each joined to the
// segment node it was found in by a DERIVED_FROM edge; a decision recorded
// by hand that supersedes one of them is drawn with a SUPERSEDES edge (newer
// to older, stated by the user, confidence 1), and a person's link from a
// knowledge item to a segment is drawn as a "link" edge. noKnowledge leaves
// them all out; a session filter keeps only that session's items.
func TestGraphKnowledgeNodes(t *testing.T) {
	l := newTestLib(t)
	var files []string
	for name := range sampleEntries {
		files = append(files, filepath.Join("samples", name))
	}
	l.importPaths(t, files...)

	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	segs := map[string]GraphNode{}
	know := map[string]GraphNode{}
	for _, n := range g.Nodes {
		if n.Knowledge != nil {
			know[n.ID] = n
		} else {
			segs[n.ID] = n
		}
	}
	// The items of the offline rules' golden files for these sessions.
	wantKinds := map[string]int{}
	for _, f := range files {
		for _, it := range goldenKnowledge(t, filepath.Base(f)) {
			wantKinds[string(it.Kind)]++
		}
	}
	total := 0
	for _, n := range wantKinds {
		total += n
	}
	if len(know) != total || len(segs) == 0 {
		t.Fatalf("%d knowledge nodes and %d segment nodes; want the samples' %d items", len(know), len(segs), total)
	}
	kinds := map[string]int{}
	for _, n := range know {
		k := n.Knowledge
		kinds[k.Kind]++
		if n.Type != k.Kind || k.Title == "" || n.Label == "" || k.Status != "active" || k.CreatedBy != "offline" ||
			k.Confidence <= 0 || k.Confidence > 1 || k.SegmentNodeID == "" || n.SessionID == "" {
			t.Errorf("knowledge node %+v %+v", n, *k)
		}
	}
	if !maps.Equal(kinds, wantKinds) {
		t.Errorf("kinds %v, want the golden files' %v", kinds, wantKinds)
	}
	from := map[string]GraphEdge{}
	for _, e := range g.Edges {
		if e.Type == KnowledgeSourceEdge {
			from[e.Source] = e
		}
	}
	var decision GraphNode
	for id, n := range know {
		e, ok := from[id]
		if !ok || e.Target != n.Knowledge.SegmentNodeID || e.Confidence != 1 || e.CreatedBy != "offline" {
			t.Errorf("knowledge node %s: source edge %+v", id, e)
		}
		if _, ok := segs[e.Target]; !ok {
			t.Errorf("knowledge node %s points to %s, not a segment node of the graph", id, e.Target)
		}
		if n.Type == "decision" {
			decision = n
		}
	}

	// A stated supersession and a link by hand.
	newer, err := l.Knowledge.Record(KnowledgeInput{Kind: "decision", Project: decision.Project,
		Fields: KnowledgeFields{Description: "Keep the images inline, resized"}, SegmentNodeID: decision.Knowledge.SegmentNodeID,
		Supersedes: decision.ID, Reason: "the first choice lost the images"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Links.Create(LinkInput{Source: "rhizome:knowledge/" + newer.ID, Target: "rhizome:node/" + decision.Knowledge.SegmentNodeID, Type: "REFERENCES"}); err != nil {
		t.Fatal(err)
	}
	g, err = l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var sup, lk int
	for _, e := range g.Edges {
		if e.Type == "SUPERSEDES" {
			sup++
			if e.Source != newer.ID || e.Target != decision.ID || e.CreatedBy != "user" || e.Confidence != 1 || e.Rationale != "the first choice lost the images" {
				t.Errorf("supersession edge %+v", e)
			}
		}
		if e.Type == LinkEdgeType && e.Source == newer.ID && e.Target == decision.Knowledge.SegmentNodeID {
			lk++
		}
	}
	if sup != 1 || lk != 1 {
		t.Errorf("%d SUPERSEDES edges and %d links from the new decision; want 1 and 1", sup, lk)
	}
	for _, n := range g.Nodes {
		if n.ID == decision.ID && n.Knowledge.Status != "superseded" {
			t.Errorf("the older decision is %q, want superseded", n.Knowledge.Status)
		}
	}

	// A link's end that is a knowledge item resolves to it, opened in the
	// graph at its segment.
	v, err := l.Links.Resolve("rhizome:knowledge/" + decision.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Exists || v.Kind != "knowledge" || v.Title != decision.Knowledge.Title || v.Open.View != "graph" ||
		v.Open.NodeID != decision.Knowledge.SegmentNodeID || v.Open.KnowledgeID != decision.ID {
		t.Errorf("Resolve(knowledge): %+v", v)
	}

	off, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range off.Nodes {
		if n.Knowledge != nil {
			t.Fatalf("noKnowledge: node %s is a knowledge node", n.ID)
		}
	}
	if len(off.Nodes) != len(segs) {
		t.Errorf("noKnowledge: %d nodes, want the %d segments", len(off.Nodes), len(segs))
	}

	one, err := l.Graph.Graph(GraphFilter{SessionID: decision.SessionID})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range one.Nodes {
		if x.Knowledge != nil {
			n++
			if x.SessionID != decision.SessionID {
				t.Errorf("session filter: knowledge node %s of session %s", x.ID, x.SessionID)
			}
		}
	}
	want := 1 // the decision recorded, and the session's own items
	for _, k := range know {
		if k.SessionID == decision.SessionID {
			want++
		}
	}
	if n != want {
		t.Errorf("session filter: %d knowledge nodes, want %d", n, want)
	}
}
