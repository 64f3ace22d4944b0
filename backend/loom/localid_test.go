package loom

import (
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// TestLocalIDBurst adds 100,000 nodes to one tree as fast as it can, with the
// real clock and ULIDs: every local id is unique and at most 8 characters.
func TestLocalIDBurst(t *testing.T) {
	const n = 100_000
	tr, err := NewTree(TreeSpec{GroveID: grove, Mode: ModeDialogue, Root: Text("burst"), Author: human})
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root()
	start := time.Now()
	for i := range n {
		if _, err := tr.AddContinuation(root.ID, Text("x"), human, nil); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	elapsed := time.Since(start)
	lengths := map[int]int{}
	seen := map[string]bool{}
	millis := map[uint64]bool{}
	for _, node := range tr.Nodes() {
		if seen[node.LocalID] {
			t.Fatalf("local id %s is used twice", node.LocalID)
		}
		seen[node.LocalID] = true
		lengths[len(node.LocalID)]++
		if tr.NodeByLocalID(node.LocalID) != node {
			t.Fatalf("NodeByLocalID(%s) is not node %s", node.LocalID, node.ID)
		}
		millis[ulid.MustParse(node.ID).Time()] = true
	}
	for l := range lengths {
		if l < LocalIDLength || l > LocalIDMaxLength {
			t.Errorf("%d local ids of length %d", lengths[l], l)
		}
	}
	t.Logf("%d nodes in %v over %d milliseconds; local id lengths %v", n+1, elapsed, len(millis), lengths)

	// The spec's algorithm (a prefix of the ULID) on the same ids: the
	// 8-character prefixes are the timestamp's, and nearly all collide.
	prefixes := map[string]bool{}
	for _, node := range tr.Nodes() {
		prefixes[node.ID[:LocalIDMaxLength]] = true
	}
	if len(prefixes) > n/100 {
		t.Errorf("%d distinct 8-character ULID prefixes: the burst was not a burst", len(prefixes))
	}
}

func TestLocalIDExtends(t *testing.T) {
	id := "01JQ3K4N7Y8M2P5R6T9W0X1Z2A"
	first := LocalID(id, func(string) bool { return false })
	if len(first) != 6 || strings.ContainsAny(first, "ilou") {
		t.Fatalf("LocalID = %q", first)
	}
	seven := LocalID(id, func(s string) bool { return len(s) < 7 })
	if len(seven) != 7 || !strings.HasPrefix(seven, first) {
		t.Errorf("extended LocalID = %q", seven)
	}
	// Every prefix of the hash taken: the deterministic fallback.
	fallback := LocalID(id, func(s string) bool { return !strings.Contains(s, "-") || strings.HasSuffix(s, "-2") })
	if !strings.HasSuffix(fallback, "-3") || len(fallback) != 52+2 {
		t.Errorf("fallback LocalID = %q", fallback)
	}
	if LocalID(id, func(string) bool { return false }) != first {
		t.Error("LocalID is not deterministic")
	}
}
