package analyze

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"rhizome/backend/claudecode"
	"rhizome/backend/codex"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// An accumulator saved (MarshalJSON) part-way through a segment and restored
// (UnmarshalJSON) into a new one gives the node the uninterrupted one gives:
// the importer keeps the open segment's accumulator with the session and
// goes on from it when the file grows, without reading the file again. Every
// segment of the real pi samples and of the real Claude Code and Codex logs,
// cut at several places.
func TestAccumulatorStateRoundTrip(t *testing.T) {
	type file struct {
		path    string
		entries []session.Entry
		hdr     session.Header
	}
	var files []file
	for _, p := range pitest.Samples() {
		s, err := pisession.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{p, s.Entries, s.Header})
	}
	cc, _ := filepath.Glob("../claudecode/testdata/claude-home/projects/*/*.jsonl")
	for _, p := range cc {
		s, err := claudecode.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{p, s.Entries, s.Header})
	}
	cx, _ := filepath.Glob("../codex/testdata/codex-home/sessions/*/*/*/*.jsonl")
	for _, p := range cx {
		s, err := codex.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{p, s.Entries, s.Header})
	}
	if len(files) < 7 {
		t.Fatalf("%d files", len(files))
	}
	for _, f := range files {
		segs := segment.Split(f.entries, segment.DefaultOptions())
		for _, sg := range segs {
			es := f.entries[sg.StartSeq : sg.EndSeq+1]
			in := Input{Header: f.hdr, SessionFile: f.path, Segment: sg}
			whole := NewAccumulator()
			for i := range es {
				whole.Add(&es[i])
			}
			want := whole.Node(in, analyzedAt)
			n := len(es)
			for _, cut := range []int{0, 1, n / 3, n / 2, n - 1, n} {
				if cut < 0 || cut > n {
					continue
				}
				a := NewAccumulator()
				for i := range es[:cut] {
					a.Add(&es[i])
				}
				raw, err := json.Marshal(a)
				if err != nil {
					t.Fatal(err)
				}
				b := NewAccumulator()
				b.Add(&es[0]) // restoring replaces whatever was there
				if err := json.Unmarshal(raw, b); err != nil {
					t.Fatal(err)
				}
				for i := range es[cut:] {
					b.Add(&es[cut+i])
				}
				if got := b.Node(in, analyzedAt); !reflect.DeepEqual(got, want) {
					g, _ := json.Marshal(got)
					w, _ := json.Marshal(want)
					t.Fatalf("%s segment %d restored after %d of %d entries:\n got %s\nwant %s", filepath.Base(f.path), sg.Index, cut, n, g, w)
				}
			}
		}
	}
}

// A state that is not an accumulator's is refused, leaving the accumulator
// as it was.
func TestAccumulatorStateRefusesBadJSON(t *testing.T) {
	a := NewAccumulator()
	for _, bad := range []string{`[]`, `{"entries": "x"}`, `not json`} {
		if err := json.Unmarshal([]byte(bad), a); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
