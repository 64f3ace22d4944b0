package app

import (
	"encoding/json"
	"slices"
	"testing"
)

// The graph request sends of each edge's metadata only what the graph
// view reads (the boundaries crossed, the gap, the tokens before a
// compaction, and a link's confidence and rationale): a compaction edge
// does not carry its summary to every drawing of the graph. The node
// panel's edges keep all of it.
func TestGraphPayloadKeepsWhatTheViewReads(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	d, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"boundaries", "gapMinutes", "tokensBefore", "confidence", "rationale", "childSession", "forkEntryId"}
	var kept int
	for _, e := range d.Edges {
		for k := range e.Metadata {
			if !slices.Contains(allowed, k) {
				t.Errorf("edge %s (%s) sends metadata %q", e.ID, e.Type, k)
			}
			kept++
		}
	}
	if kept == 0 {
		t.Error("no metadata kept: the edge tips need the boundaries and gaps")
	}
	b, _ := json.Marshal(d.Edges)
	if per := len(b) / len(d.Edges); per > 400 {
		t.Errorf("%d bytes per edge", per)
	}
	det, err := l.Graph.Node(d.Edges[0].Target)
	if err != nil {
		t.Fatal(err)
	}
	full := 0
	for _, e := range det.Incoming {
		full += len(e.Metadata)
	}
	if full == 0 {
		t.Error("the node panel's edges lost their metadata")
	}
}
