package loom

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

var update = flag.Bool("update", false, "rewrite golden files")

var (
	human = Agent{ID: "01HUMAN0000000000000000000", Type: AuthorHuman, Name: "You"}
	model = Agent{ID: "01MODEL0000000000000000000", Type: AuthorModel, Name: "Claude", ModelConfigRef: "anthropic/claude-sonnet-4"}
	grove = "01GROVE0000000000000000000"
)

// testClock starts at a fixed time and advances a second per call.
func testClock() func() time.Time {
	now := time.Date(2025, 3, 14, 15, 9, 26, 535_000_000, time.UTC)
	return func() time.Time {
		now = now.Add(time.Second)
		return now
	}
}

// testIDs makes ULIDs from a seeded, monotonic entropy source.
func testIDs() func(time.Time) string {
	var mu sync.Mutex
	entropy := ulid.Monotonic(rand.NewChaCha8([32]byte{1, 2, 3}), 0)
	return func(t time.Time) string {
		mu.Lock()
		defer mu.Unlock()
		return ulid.MustNew(ulid.Timestamp(t), entropy).String()
	}
}

// newTestTree makes a tree with a fixed clock and ids.
func newTestTree(t *testing.T, mode Mode, root string) *Tree {
	t.Helper()
	tr, err := NewTree(TreeSpec{GroveID: grove, Mode: mode, Root: Text(root), Author: human,
		Now: testClock(), NewID: testIDs()})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func mustAdd(t *testing.T, tr *Tree, parent *Node, text string, a Agent) *Node {
	t.Helper()
	var raw []byte
	if a.Type == AuthorModel {
		raw = []byte(fmt.Sprintf(`{"id":"msg_%d","content":[{"type":"text","text":%q}]}`, tr.Len(), text))
	}
	n, err := tr.AddContinuation(parent.ID, Text(text), a, raw)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustEdit(t *testing.T, tr *Tree, n *Node, text string) *Node {
	t.Helper()
	e, err := tr.Edit(n.ID, Text(text), human)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// texts returns the plain texts of nodes, for comparisons.
func texts(nodes []*Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Content.PlainText()
	}
	return out
}

func checkTexts(t *testing.T, what string, got []*Node, want ...string) {
	t.Helper()
	if g := texts(got); !slices.Equal(g, want) && !(len(g) == 0 && len(want) == 0) {
		t.Errorf("%s = %q, want %q", what, g, want)
	}
}

// memBlobs is an in-memory, content-addressed BlobStore.
type memBlobs map[string][]byte

func (m memBlobs) Put(data []byte, mimeType string) (string, string, error) {
	h := SHA256Hex(data)
	ref := BlobRef(h, mimeType)
	m[ref] = slices.Clone(data)
	return ref, h, nil
}

func (m memBlobs) Get(ref string) ([]byte, error) {
	if b, ok := m[ref]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("blob %s not found", ref)
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got %s\nwant %s\n(run go test -update and review the diff)", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs in length: %d lines, want %d (run go test -update)", path, len(gl), len(wl))
	}
}
