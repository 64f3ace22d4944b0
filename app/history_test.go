package app

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rhizome/app/ingest"
)

// A session imported in two steps: the segment the first import ended in
// grows, its node gets a second version, and the two versions diff field by
// field.
func TestGraphNodeHistory(t *testing.T) {
	full, err := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(t.TempDir(), "session-with-compaction.jsonl")
	l := newTestLib(t)
	os.WriteFile(live, prefixLines(full, bytes.Count(full, []byte("\n"))/3), 0o644)
	l.importPaths(t, live)
	os.WriteFile(live, full, 0o644)
	if f := l.importPaths(t, live).Files[0]; f.Status != ingest.StatusAppended {
		t.Fatalf("second import %+v", f)
	}

	var nodeID string
	var versions []NodeVersionInfo
	for _, id := range sessionNodes(t, l, sessionIDOf(t, live)) {
		vs, err := l.Graph.NodeVersions(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) > 1 {
			nodeID, versions = id, vs
			break
		}
	}
	if nodeID == "" {
		t.Fatal("no node got a second version")
	}
	if versions[0].Version != 1 || versions[0].TriggerReason != "initial" || versions[1].Version != 2 || versions[1].TriggerReason != "append" {
		t.Errorf("versions %+v", versions)
	}
	if vs, err := l.Graph.NodeVersions("no-such-node"); err != nil || len(vs) != 0 {
		t.Errorf("NodeVersions of an unknown node = %+v, %v", vs, err)
	}

	d, err := l.Graph.NodeDiff(nodeID, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if d.NodeID != nodeID || d.FromVersion != 1 || d.ToVersion != 2 || len(d.Changes) == 0 {
		t.Errorf("NodeDiff(1, 2) = %+v", d)
	}
	changed := false
	for _, c := range d.Changes {
		if c.Path == "source.segment.entryCount" {
			changed = true
		}
	}
	if !changed {
		t.Errorf("the grown segment's entry count is not among the changes %+v", d.Changes)
	}
	if same, err := l.Graph.NodeDiff(nodeID, 2, 2); err != nil || len(same.Changes) != 0 {
		t.Errorf("NodeDiff(2, 2) = %+v, %v", same, err)
	}
	if back, err := l.Graph.NodeDiff(nodeID, 2, 1); err != nil || back.FromVersion != 2 || len(back.Changes) != len(d.Changes) {
		t.Errorf("NodeDiff(2, 1) = %+v, %v", back, err)
	}
	if _, err := l.Graph.NodeDiff(nodeID, 1, 9); err == nil {
		t.Error("a version not stored diffed")
	}
}
