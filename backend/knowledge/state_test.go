package knowledge

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"testing"

	"rhizome/backend/analyze"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// readEntries reads the entries of a real session whole.
func readEntries(t *testing.T, path string) (*session.Header, []*session.Entry) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := pisession.NewReader(f, path)
	hdr, err := rd.Header()
	if err != nil {
		t.Fatal(err)
	}
	var es []*session.Entry
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return hdr, es
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
}

// extractCut extracts the items of es as the importer does (one Extractor
// per segment), its state saved and restored into a new Extractor before
// entry cut (-1: never); it returns the items and the state saved.
func extractCut(t *testing.T, hdr *session.Header, es []*session.Entry, cut int) ([]Item, []byte) {
	t.Helper()
	b := segment.NewBuilder(segment.DefaultOptions())
	x := NewExtractor()
	var items []Item
	var saved []byte
	closeSeg := func(s *segment.Segment) {
		items = append(items, x.Items(Source{Project: hdr.Cwd, SessionID: hdr.ID, SegmentNodeID: analyze.NodeID(hdr.ID, s.StartSeq)}, madeAt)...)
		x.Reset()
	}
	for i, e := range es {
		if i == cut {
			var err error
			if saved, err = json.Marshal(x); err != nil {
				t.Fatal(err)
			}
			y := NewExtractor()
			if err := json.Unmarshal(saved, y); err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
			if again, _ := json.Marshal(y); !bytes.Equal(again, saved) {
				t.Fatalf("entry %d: the restored extractor saves\n%s\nnot\n%s", i, again, saved)
			}
			x = y
		}
		if step := b.Add(e); step.Closed != nil {
			closeSeg(step.Closed)
		}
		x.Add(e)
	}
	if s := b.Finish(); s != nil {
		closeSeg(s)
	}
	return items, saved
}

// An Extractor saved (MarshalJSON) and restored (UnmarshalJSON) in the
// middle of a segment, as an append of a live session does, finds what one
// that read the segment straight through finds: on the real sessions, cut
// at every fifth entry, including inside turns whose questions, proposals
// and offers await a reply.
func TestExtractorStateGoesOn(t *testing.T) {
	var awaiting int
	for _, path := range sessionFiles(t) {
		hdr, es := readEntries(t, path)
		want, _ := extractCut(t, hdr, es, -1)
		for cut := 1; cut < len(es); cut += 5 {
			got, saved := extractCut(t, hdr, es, cut)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s cut at entry %d: %d items, %d without the cut; first: %+v", path, cut, len(got), len(want), got)
			}
			var st extractorState
			if err := json.Unmarshal(saved, &st); err != nil {
				t.Fatal(err)
			}
			if len(st.Pending)+len(st.Proposals) > 0 || st.Point != nil || st.Offered != nil {
				awaiting++
			}
		}
	}
	if awaiting == 0 {
		t.Error("no cut fell inside a turn awaiting a reply: the test shows nothing about it")
	}
	t.Logf("%d cuts inside a turn awaiting a reply", awaiting)
}

// A state that is not an extractor's is refused and leaves it as it was.
func TestExtractorStateRefused(t *testing.T) {
	for _, b := range []string{`[]`, `{"found":[{"rule":"x","body":{}}]}`, `{"pending":[{"idx":0}]}`,
		`{"found":[{"rule":"x","body":{"decision":{"description":"a"}}}],"pending":[{"idx":0}]}`} {
		x := NewExtractor()
		x.order = 7
		if err := x.UnmarshalJSON([]byte(b)); err == nil {
			t.Errorf("%s: restored", b)
		}
		if x.order != 7 {
			t.Errorf("%s: the extractor changed", b)
		}
	}
}
