package relate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
	"strings"
	"testing"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/link"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/* from the current output")

// describe reads a session file into segment descriptors the way the app
// will fill them: the offline analyzer's node for files and outcome, Refs
// over the user text of each segment.
func describe(t testing.TB, path string) []Segment {
	t.Helper()
	sess, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	segs := segment.Split(sess.Entries, segment.DefaultOptions())
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	var out []Segment
	for i, s := range segs {
		entries := sess.Entries[s.StartSeq : s.EndSeq+1]
		node := analyze.Analyze(analyze.Input{Header: sess.Header, SessionFile: path, Segment: s,
			Abandoned: analyze.LeftByNavigation(segs, i)}, entries, now)
		var text []string
		for j := range entries {
			if m := entries[j].Message; m != nil && m.Role == session.RoleUser {
				text = append(text, session.EntryText(&entries[j]))
			}
		}
		out = append(out, Segment{ID: node.ID, SessionID: sess.Header.ID, Project: sess.Header.Cwd,
			Start: s.StartTimestamp, End: s.EndTimestamp, Files: node.Content.FilesTouched,
			Outcome: node.Content.Outcome, Refs: Refs(strings.Join(text, "\n"))})
	}
	return out
}

// TestRelationsOnRealSessions derives the relations of the three real
// sessions (one project, pi-mono) and the five version 3 fixtures (two
// projects) and compares them with testdata/golden/real.json, read edge
// by edge (see testdata/golden/README.md).
func TestRelationsOnRealSessions(t *testing.T) {
	var segs []Segment
	for _, dir := range []string{pitest.SamplesDir(), "../segment/testdata/v3/sessions"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(files) == 0 {
			t.Fatalf("no sessions in %s", dir)
		}
		for _, f := range files {
			segs = append(segs, describe(t, f)...)
		}
	}
	edges := Derive(segs, Options{})
	ids := map[string]bool{}
	for _, s := range segs {
		ids[s.ID] = true
	}
	for _, e := range edges {
		if err := e.Validate(); err != nil {
			t.Error(err)
		}
		if !ids[e.Source.ID] || e.Target.Kind == link.KindNode && !ids[e.Target.ID] {
			t.Errorf("edge to an unknown node: %+v", e)
		}
	}
	got, _ := json.MarshalIndent(edges, "", "  ")
	got = append(got, '\n')
	file := filepath.Join("testdata", "golden", "real.json")
	if *update {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs; run go test ./backend/relate -update and read the diff", file)
	}
}
