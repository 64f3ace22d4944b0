package consolidate

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzApply: any list of changes (as a stored run log holds them, possibly
// damaged) either applies or is refused with an error — never a panic —
// and, when it applies, its inverse restores the graph exactly.
func FuzzApply(f *testing.F) {
	g := fullGraph()
	s := DefaultSettings()
	s.DeleteEnabled = true
	log, err := Run(context.Background(), g, s, Request{Now: now})
	if err != nil {
		f.Fatal(err)
	}
	for _, cs := range [][]Change{log.Changes, log.Changes[len(log.Changes)-3:], log.Changes[:2]} {
		data, _ := json.Marshal(cs)
		f.Add(data)
	}
	f.Add([]byte(`[{"op":"removeNode","node":{"id":"rhizome:knowledge/k001"}}]`))
	f.Add([]byte(`[{"op":"addEdge","edge":{"id":"x","source":"rhizome:knowledge/k001","target":"rhizome:knowledge/k001","type":"RELATES_TO","createdBy":"user"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var changes []Change
		if json.Unmarshal(data, &changes) != nil {
			return
		}
		after, err := g.Apply(changes)
		if err != nil {
			return
		}
		inverse := make([]Change, len(changes))
		for i, c := range changes {
			inverse[len(changes)-1-i] = c.Inverse()
		}
		back, err := after.Apply(inverse)
		if err != nil {
			t.Fatalf("the inverse of an applied list is refused: %v", err)
		}
		if !reflect.DeepEqual(canonical(back), canonical(g)) {
			t.Fatal("the inverse did not restore the graph")
		}
	})
}
