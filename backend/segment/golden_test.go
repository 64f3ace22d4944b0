package segment

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the current output")

// golden is what testdata/golden/<name>.json holds for one session file.
type golden struct {
	File           string               `json:"file"` // relative to testdata/
	Entries        int                  `json:"entries"`
	BoundaryCounts map[BoundaryType]int `json:"boundaryCounts"`
	Segments       []Segment            `json:"segments"`
	Links          []Link               `json:"links"`
}

// goldenFiles lists the session files with a golden file, by golden name:
// the real version 1 sessions by base name, the version 3 fixtures as
// v3-<role> (roles from testdata/v3/expected.json).
func goldenFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, f := range pitest.Samples() {
		files[strings.TrimSuffix(filepath.Base(f), ".jsonl")] = f
	}
	for _, fx := range loadExpected(t).Files {
		files["v3-"+fx.Role] = filepath.Join("testdata/v3", fx.File)
	}
	return files
}

// goldenPath names a session file in a golden file: the real samples by
// their place in the repository (app/samples), the fixtures by their path
// under testdata, so that golden files do not depend on where the
// repository is.
func goldenPath(path string) string {
	if filepath.Dir(path) == pitest.SamplesDir() {
		return "app/samples/" + filepath.Base(path)
	}
	return strings.TrimPrefix(filepath.ToSlash(path), "testdata/")
}

func TestGolden(t *testing.T) {
	for name, path := range goldenFiles(t) {
		t.Run(name, func(t *testing.T) {
			s, err := pisession.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			segs := Split(s.Entries, DefaultOptions())
			links := Links(segs, s.Entries)
			checkSegmentsCoverEntries(t, segs, s.Entries)
			checkStreaming(t, path, segs, links)

			g := golden{
				File:           goldenPath(path),
				Entries:        len(s.Entries),
				BoundaryCounts: map[BoundaryType]int{},
				Segments:       segs,
				Links:          links,
			}
			for _, sg := range segs {
				for _, b := range sg.Boundaries {
					g.BoundaryCounts[b.Type]++
				}
			}
			got, err := json.MarshalIndent(g, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			gp := filepath.Join("testdata/golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(gp), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(gp, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gp)
			if err != nil {
				t.Fatalf("%v (run go test ./backend/segment -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the output (boundary counts now %v); review, then rewrite with -update", gp, g.BoundaryCounts)
			}
		})
	}
}

// checkSegmentsCoverEntries checks that the segments tile the entries: in
// order, without gaps, each starting at the entry its boundaries name.
func checkSegmentsCoverEntries(t *testing.T, segs []Segment, entries []session.Entry) {
	t.Helper()
	pos := 0
	for i, s := range segs {
		if s.Index != i || s.EntryCount < 1 || pos+s.EntryCount > len(entries) {
			t.Fatalf("segment %d: index %d, %d entries from %d of %d", i, s.Index, s.EntryCount, pos, len(entries))
		}
		first, last := entries[pos], entries[pos+s.EntryCount-1]
		if s.StartEntryID != first.ID || s.StartSeq != first.Seq || s.EndEntryID != last.ID || s.EndSeq != last.Seq {
			t.Errorf("segment %d: %s..%s seq %d..%d, entries say %s..%s seq %d..%d", i,
				s.StartEntryID, s.EndEntryID, s.StartSeq, s.EndSeq, first.ID, last.ID, first.Seq, last.Seq)
		}
		if (i == 0) != (len(s.Boundaries) == 0) {
			t.Errorf("segment %d has %d boundaries", i, len(s.Boundaries))
		}
		for _, b := range s.Boundaries {
			if b.EntryID != first.ID {
				t.Errorf("segment %d: boundary %s on %s, segment starts at %s", i, b.Type, b.EntryID, first.ID)
			}
		}
		pos += s.EntryCount
	}
	if pos != len(entries) {
		t.Errorf("segments hold %d entries, the file %d", pos, len(entries))
	}
}

// checkStreaming reads path again with a pisession.Reader and a Builder and
// checks it gives the same segments and links as Split and Links.
func checkStreaming(t *testing.T, path string, segs []Segment, links []Link) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := pisession.NewReader(f, path)
	var readErr error
	gotSegs, gotLinks := buildAll(func(yield func(*session.Entry) bool) {
		for {
			e, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			if !yield(e) {
				return
			}
		}
	}, DefaultOptions())
	if readErr != nil {
		t.Fatal(readErr)
	}
	if !reflect.DeepEqual(gotSegs, segs) {
		t.Errorf("streaming segments differ from Split")
	}
	if !reflect.DeepEqual(gotLinks, links) {
		t.Errorf("streaming links differ from Links")
	}
}
