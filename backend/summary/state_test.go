package summary

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
)

// An append goes on from the open segment's state (OpenState, ResumePass)
// and makes what a pass fed that segment's entries again makes: on the
// real sample sessions (compactions, branch summaries, resumes), cut at
// every tenth entry, the summaries made after the cut, the segment's
// accumulator and the state saved at the end are the same both ways.
func TestResumePassGoesOnAsARefedPass(t *testing.T) {
	for _, path := range pitest.Samples() {
		s := readSample(t, path[len(pitest.SamplesDir())+1:])
		n := len(s.Entries)
		for cut := 1; cut < n; cut += 10 {
			// The first import: entries [0, cut), the state kept.
			b := segment.NewBuilder(segment.DefaultOptions())
			p := NewPass(s.Header.ID, s.Header.Cwd, madeAt)
			for i := 0; i < cut; i++ {
				e := &s.Entries[i]
				p.Add(e, b.Add(e), b.SegmentOf)
			}
			open := b.State().Open
			if open == nil {
				continue
			}
			state, ok, err := p.OpenState(open.StartSeq)
			if err != nil || !ok {
				t.Fatalf("%s cut %d: OpenState %v %v", path, cut, ok, err)
			}
			// The append, both ways: resumed from the state, and fed the
			// open segment's entries again.
			resumed, err := ResumePass(s.Header.ID, s.Header.Cwd, madeAt, state)
			if err != nil {
				t.Fatal(err)
			}
			refed := NewPass(s.Header.ID, s.Header.Cwd, madeAt)
			for i := open.StartSeq; i < cut; i++ {
				refed.Add(&s.Entries[i], segment.Step{Segment: open.Index}, b.SegmentOf)
			}
			if got, want := resumed.LastEntryID(), s.Entries[cut-1].ID; got != want {
				t.Errorf("%s cut %d: last entry %q, want %q", path, cut, got, want)
			}
			again, _, _ := refed.OpenState(open.StartSeq)
			if !bytes.Equal(again, state) {
				t.Errorf("%s cut %d: the state of a refed pass differs from the one kept:\n%s\n%s", path, cut, again, state)
			}
			if back, _, _ := resumed.OpenState(open.StartSeq); !bytes.Equal(back, state) {
				t.Errorf("%s cut %d: the resumed pass's state differs from the one it resumed:\n%s\n%s", path, cut, back, state)
			}
			var made [2][]Made
			var ends [2][]byte
			var sess [2]Summary
			for k, q := range []*Pass{resumed, refed} {
				bk := segment.NewBuilder(segment.DefaultOptions())
				for i := 0; i < cut; i++ {
					bk.Add(&s.Entries[i])
				}
				var end []byte
				for i := cut; i < n; i++ {
					e := &s.Entries[i]
					q.Add(e, bk.Add(e), bk.SegmentOf)
					made[k] = append(made[k], q.Take()...)
					if i == n-1 {
						if o := bk.State().Open; o != nil {
							end, _, _ = q.OpenState(o.StartSeq)
						}
					}
				}
				q.Finish(bk.Finish())
				made[k] = append(made[k], q.Take()...)
				ends[k] = end
				sess[k], _ = q.Session()
			}
			if sess[0] != sess[1] {
				t.Errorf("%s cut %d: session summary resumed %+v, refed %+v", path, cut, sess[0], sess[1])
			}
			if !reflect.DeepEqual(made[0], made[1]) {
				t.Errorf("%s cut %d: resumed made\n%+v\nrefed\n%+v", path, cut, made[0], made[1])
			}
			if !bytes.Equal(ends[0], ends[1]) {
				t.Errorf("%s cut %d: the states at the end differ", path, cut)
			}
		}
	}
}

// A state that is not one is refused, and the caller feeds the entries.
func TestResumePassRefusesAForeignState(t *testing.T) {
	for _, b := range []string{`{}`, `{"from":3,"seg":{"stride":0}}`, `[1]`, `{"from":0,"seg":{"stride":1,"last":{"seq":4}}}`} {
		if _, err := ResumePass("s", "p", madeAt, json.RawMessage(b)); err == nil {
			t.Errorf("%s: resumed", b)
		}
	}
}
