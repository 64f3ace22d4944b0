package knowledge

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/pisession/pitest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/* from the current output")

// madeAt is the fixed extraction time of the golden files.
var madeAt = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// The real sessions (badlogic/pi-mono, MIT) are app/samples (through pitest)
// and the version 3 fixtures backend/segment's: read in place, not copied.
var (
	realDir = pitest.SamplesDir()
	v3Dir   = "../segment/testdata/v3/sessions"
)

func sessionFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{realDir, v3Dir} {
		m, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil || len(m) == 0 {
			t.Fatalf("no sessions in %s: %v", dir, err)
		}
		files = append(files, m...)
	}
	return files
}

// extractFile reads a session the way the importer does (app/ingest/read.go): a
// streaming reader, a segment.Builder, and one Extractor fed each
// segment's entries, asked for its items when the segment closes.
func extractFile(t *testing.T, path string) []Item {
	t.Helper()
	items, _ := extractFileLines(t, path)
	return items
}

// extractFileLines is extractFile that also returns the file line of each
// entry it read, by entry id (several entries share a line where a line
// holds concatenated objects).
func extractFileLines(t *testing.T, path string) ([]Item, map[string]int) {
	t.Helper()
	hdr, es := readEntries(t, path)
	lines := map[string]int{}
	for _, e := range es {
		lines[e.ID] = e.Line
	}
	items, _ := extractCut(t, hdr, es, -1)
	return items, lines
}

// TestOfflineRulesOnRealSessions runs the offline rules over the three real
// sessions and the five version 3 fixtures and compares every item found
// with testdata/golden/<session>.json. The golden files were read item by
// item (see the verdicts in testdata/golden/README.md): a rule stays only
// when what it finds is a true statement of the session. Every item must
// validate, be marked offline with its rule, carry a confidence below a
// person's, and name entries of its own segment.
func TestOfflineRulesOnRealSessions(t *testing.T) {
	for _, path := range sessionFiles(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			items := extractFile(t, path)
			again := extractFile(t, path)
			for i, it := range items {
				if err := it.Validate(); err != nil {
					t.Errorf("item %d: %v", i, err)
				}
				if it.Source.CreatedBy != ByOffline || it.Source.Rule == "" || it.Confidence >= 0.7 || it.Confidence <= 0 {
					t.Errorf("item %d: source %+v confidence %v: want offline, a rule, 0 < confidence < 0.7", i, it.Source, it.Confidence)
				}
				if len(it.Source.EntryIDs) == 0 || it.Source.SegmentNodeID == "" {
					t.Errorf("item %d: no provenance: %+v", i, it.Source)
				}
				if again[i].ID != it.ID {
					t.Errorf("item %d: id %s, then %s on a second read: offline ids must be stable", i, it.ID, again[i].ID)
				}
			}
			got, err := json.MarshalIndent(items, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			file := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from what the rules find now; run go test ./backend/knowledge -update and read the diff:\n%s", file, firstDiff(string(want), string(got)))
			}
		})
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}
