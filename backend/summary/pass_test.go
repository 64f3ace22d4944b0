package summary

import (
	"testing"
	"time"

	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
)

// readSample reads a real sample session whole.
func readSample(t *testing.T, name string) *pisession.Session {
	t.Helper()
	s, err := pisession.ReadFile(pitest.Sample(name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runPass feeds the entries of s from seq from on (an append feeds the last
// stored segment and the new ones) and returns what the pass made, the
// session summary and whether it had one.
func runPass(s *pisession.Session, from int) ([]Made, Summary, bool) {
	b := segment.NewBuilder(segment.DefaultOptions())
	p := NewPass(s.Header.ID, s.Header.Cwd, madeAt)
	var made []Made
	for i := range s.Entries {
		e := &s.Entries[i]
		st := b.Add(e)
		if e.Seq < from {
			continue
		}
		p.Add(e, st, b.SegmentOf)
		made = append(made, p.Take()...)
	}
	p.Finish(b.Finish())
	made = append(made, p.Take()...)
	sess, ok := p.Session()
	return made, sess, ok
}

// "Compaction" (issue 8, section 1): the compaction of session-with-compaction
// summarises the work of its first segment (entries before the first kept
// one, all in segment 0): it becomes segment 0's summary, source "pi", with
// the segment's own input hash; the one-entry segment the compaction opens
// says what it is instead of repeating pi's text.
func TestPassCompactionIsTheSummaryOfWhatItSummarises(t *testing.T) {
	s := readSample(t, "session-with-compaction.jsonl")
	made, sess, ok := runPass(s, 0)
	if !ok {
		t.Fatal("no session summary from a whole pass")
	}
	segs := segment.Split(s.Entries, segment.DefaultOptions())
	var pi []Made
	offline := map[int]Summary{}
	for _, m := range made {
		if m.Summary.Source == SourcePi {
			pi = append(pi, m)
		} else {
			offline[m.Segment] = m.Summary
		}
	}
	if len(offline) != len(segs) {
		t.Fatalf("%d offline segment summaries, want %d", len(offline), len(segs))
	}
	if len(pi) != 1 || pi[0].Segment != 0 {
		t.Fatalf("pi summaries %+v, want one, of segment 0", pi)
	}
	if want := SegmentHash(SegmentInputsOf(s.Header.ID, segs, 0)); pi[0].Summary.InputHash != want {
		t.Errorf("pi summary's input hash %s, want segment 0's %s", pi[0].Summary.InputHash, want)
	}
	if pi[0].Summary.Label != "Documentation Review & Update" {
		t.Errorf("pi label %q", pi[0].Summary.Label)
	}
	last := offline[len(segs)-1]
	if last.Label != "Context compacted" || segs[len(segs)-1].EntryCount != 1 {
		t.Errorf("the lone compaction segment: %+v", last)
	}
	if sess.Title != "Documentation Review & Update" {
		t.Errorf("session title %q", sess.Title)
	}
}

// A compaction over several segments' work (compact-with-images, the first
// compaction: three segments, none with 80% of the entries) is no one
// segment's summary; the second compaction summarises the one segment since.
func TestPassCompactionOverSeveralSegments(t *testing.T) {
	s := readSample(t, "compact-with-images.jsonl")
	made, _, _ := runPass(s, 0)
	var piSegs []int
	for _, m := range made {
		if m.Summary.Source == SourcePi {
			piSegs = append(piSegs, m.Segment)
		}
	}
	if len(piSegs) != 1 || piSegs[0] != 3 {
		t.Errorf("pi summaries of segments %v, want [3]", piSegs)
	}
}

// An append (entries fed from the last stored segment's first entry on)
// makes the summaries of the segments fed whole, no session summary (the
// app remakes it from the stored entries) and no compaction summary whose
// segments it did not see.
func TestPassFedFromTheMiddle(t *testing.T) {
	s := readSample(t, "compact-with-images.jsonl")
	segs := segment.Split(s.Entries, segment.DefaultOptions())
	full, _, _ := runPass(s, 0)
	// From segment 3's start: segments 3 and 4 whole, the compaction at
	// the start of segment 4 summarises segment 3 (seen whole).
	made, _, ok := runPass(s, segs[3].StartSeq)
	if ok {
		t.Error("a session summary from a pass that did not see the session's start")
	}
	var got []int
	for _, m := range made {
		got = append(got, m.Segment)
	}
	if want := []int{3, 3, 4}; len(got) != len(want) || got[0] != 3 || got[1] != 3 || got[2] != 4 {
		t.Errorf("made for segments %v, want %v", got, want)
	}
	// The same summaries as a whole pass makes of them.
	for _, m := range made {
		found := false
		for _, f := range full {
			if f.Segment == m.Segment && f.Summary == m.Summary {
				found = true
			}
		}
		if !found {
			t.Errorf("segment %d: %+v is not what a whole pass makes", m.Segment, m.Summary)
		}
	}
	// From the middle of segment 3: it is not summarised (not seen whole),
	// nor is the compaction after it.
	made, _, _ = runPass(s, segs[3].StartSeq+10)
	for _, m := range made {
		if m.Segment != 4 || m.Summary.Source != SourceOffline {
			t.Errorf("made %d %+v from a pass starting inside segment 3", m.Segment, m.Summary)
		}
	}
}

// The rules of which summary shows (see Choose and Shown).
func TestChooseAndShown(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	off := Summary{Kind: KindSession, Title: "Offline title", Text: "Offline text.", Label: "Offline title", Source: SourceOffline, InputHash: "new", MadeAt: t0}
	oldModel := Summary{Kind: KindSession, Title: "Model title", Text: "Model text.", Label: "Model title", Source: ModelSource("openai", "m"), InputHash: "old", MadeAt: t0.Add(-time.Hour)}
	model := oldModel
	model.InputHash, model.MadeAt = "new", t0.Add(time.Minute)
	pi := Summary{Kind: KindSession, Title: "Pi title", Text: "Pi text.", Label: "Pi", Source: SourcePi, InputHash: "new", MadeAt: t0}
	cases := []struct {
		name string
		gen  []Summary
		cur  string
		want int
	}{
		{"nothing", nil, "new", -1},
		{"a fresh offline one beats a stale model one", []Summary{oldModel, off}, "new", 1},
		{"a fresh model one beats a fresh offline one", []Summary{off, model}, "new", 1},
		{"pi beats offline", []Summary{off, pi}, "new", 1},
		{"the model beats pi", []Summary{pi, model}, "new", 1},
		{"none fresh: the newest stays", []Summary{oldModel, off}, "newer", 1},
	}
	for _, c := range cases {
		if got := Choose(c.gen, c.cur); got != c.want {
			t.Errorf("%s: Choose = %d, want %d", c.name, got, c.want)
		}
	}

	edit, err := Edit(KindSession, "My title", "", "new", t0)
	if err != nil {
		t.Fatal(err)
	}
	sh := Shown(model, &edit)
	if sh.Title != "My title" || sh.Text != "Model text." || sh.Source != SourceHuman || sh.Label != "My title" {
		t.Errorf("a title edit over a model summary: %+v", sh)
	}
	edit, err = Edit(KindSegment, "", "Fixed the login bug in auth.go.", "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	sh = Shown(Summary{Kind: KindSegment, Text: "Something else.", Label: "Something else", Source: SourceOffline}, &edit)
	if sh.Text != "Fixed the login bug in auth.go." || sh.Label != "Fixed the login bug in auth.go" && sh.Label != "Fixed the login bug" {
		t.Errorf("a text edit of a segment: %+v", sh)
	}
	if _, err := Edit(KindSegment, "A title", "", "h", t0); err == nil {
		t.Error("a segment took a title")
	}
	if _, err := Edit(KindSession, "", "  ", "h", t0); err == nil {
		t.Error("an empty edit was taken")
	}
}
