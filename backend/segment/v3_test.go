package segment

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rhizome/backend/pisession"
)

// expected is testdata/v3/expected.json, written with the fixtures by
// testdata/v3/generate.mjs (see testdata/v3/README.md).
type expected struct {
	Files []struct {
		Role       string `json:"role"`
		File       string `json:"file"` // relative to testdata/v3
		EntryCount int    `json:"entryCount"`
		Boundaries []struct {
			Type            BoundaryType   `json:"type"`
			EntryID         string         `json:"entryId"`
			Line            int            `json:"line"`
			PreviousEntryID *string        `json:"previousEntryId"` // absent: not checked
			TargetEntryID   *string        `json:"targetEntryId"`   // absent: not checked; null: the root
			Metadata        map[string]any `json:"metadata"`
		} `json:"boundaries"`
		NotBoundaries []struct {
			EntryID string `json:"entryId"`
			Line    int    `json:"line"`
		} `json:"notBoundaries"`
		ParentFile     string   `json:"parentFile"`
		CopiedEntryIDs []string `json:"copiedEntryIds"`
	} `json:"files"`
}

func loadExpected(t *testing.T) expected {
	t.Helper()
	b, err := os.ReadFile("testdata/v3/expected.json")
	if err != nil {
		t.Fatalf("%v (the v3 fixtures are made by testdata/v3/generate.mjs)", err)
	}
	var x expected
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatalf("testdata/v3/expected.json: %v", err)
	}
	if len(x.Files) == 0 {
		t.Fatal("testdata/v3/expected.json lists no files")
	}
	return x
}

// TestV3Expected checks the boundaries found in pi-written version 3 files
// against the ones testdata/v3/expected.json (and README.md) lists: the
// same set, with type, entry, line, previous and target entries and metadata.
func TestV3Expected(t *testing.T) {
	for _, fx := range loadExpected(t).Files {
		t.Run(fx.Role, func(t *testing.T) {
			s, err := pisession.ReadFile(filepath.Join("testdata/v3", fx.File))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Entries) != fx.EntryCount {
				t.Errorf("%d entries, expected.json says %d", len(s.Entries), fx.EntryCount)
			}
			got := map[string]Boundary{} // "type@entryId"
			lineOf := map[string]int{}
			starts := map[string]bool{} // entries with a boundary
			d := NewDetector(DefaultOptions())
			for i := range s.Entries {
				e := &s.Entries[i]
				lineOf[e.ID] = e.Line
				for _, b := range d.Add(e) {
					got[fmt.Sprintf("%s@%s", b.Type, b.EntryID)] = b
					starts[b.EntryID] = true
				}
			}
			for _, w := range fx.Boundaries {
				key := fmt.Sprintf("%s@%s", w.Type, w.EntryID)
				b, ok := got[key]
				if !ok {
					t.Errorf("missing boundary %s (line %d)", key, w.Line)
					continue
				}
				delete(got, key)
				if lineOf[b.EntryID] != w.Line {
					t.Errorf("%s: on line %d, want %d", key, lineOf[b.EntryID], w.Line)
				}
				if w.PreviousEntryID != nil && b.PreviousEntryID != *w.PreviousEntryID {
					t.Errorf("%s: previous %q, want %q", key, b.PreviousEntryID, *w.PreviousEntryID)
				}
				if w.TargetEntryID != nil && b.TargetEntryID != *w.TargetEntryID {
					t.Errorf("%s: target %q, want %q", key, b.TargetEntryID, *w.TargetEntryID)
				}
				if w.TargetEntryID == nil && (b.Type == Branch || b.Type == TreeJump) && b.TargetEntryID != "" {
					t.Errorf("%s: target %q, want the root", key, b.TargetEntryID)
				}
				for k, v := range w.Metadata {
					if fmt.Sprint(b.Metadata[k]) != fmt.Sprint(v) {
						t.Errorf("%s: metadata %s = %v, want %v", key, k, b.Metadata[k], v)
					}
				}
			}
			for key, b := range got {
				t.Errorf("unexpected boundary %s on line %d", key, lineOf[b.EntryID])
			}
			for _, n := range fx.NotBoundaries {
				if starts[n.EntryID] {
					t.Errorf("line %d (%s) starts a segment, it must not", n.Line, n.EntryID)
				}
			}
		})
	}
}

// TestV3ForkPoint checks ForkPoint on the fork and clone fixtures: the fork
// point is the last entry createBranchedSession copied from the parent.
func TestV3ForkPoint(t *testing.T) {
	n := 0
	for _, fx := range loadExpected(t).Files {
		if fx.ParentFile == "" {
			continue
		}
		n++
		t.Run(fx.Role, func(t *testing.T) {
			parent, err := pisession.ReadFile(filepath.Join("testdata/v3", fx.ParentFile))
			if err != nil {
				t.Fatal(err)
			}
			child, err := pisession.ReadFile(filepath.Join("testdata/v3", fx.File))
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, e := range parent.Entries {
				ids[e.ID] = true
			}
			if len(fx.CopiedEntryIDs) == 0 {
				t.Fatal("expected.json lists no copied entry ids")
			}
			want := fx.CopiedEntryIDs[len(fx.CopiedEntryIDs)-1]
			got, ok := ForkPoint(child.Entries, ids)
			if !ok || got != want {
				t.Errorf("ForkPoint = %q %v, want %q (last copied entry)", got, ok, want)
			}
		})
	}
	if n < 2 {
		t.Errorf("%d fork fixtures, want fork and clone", n)
	}
}
