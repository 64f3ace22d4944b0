package segment

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/session"
)

// tree is a session with every kind of boundary:
//
//	seg 0: a b c            (c is left by the branch)
//	seg 1: s d              branch_summary back to b
//	seg 2: e                resume (20 min) after d
//	seg 3: k f              compaction
//	seg 4: g h              tree jump back to c (segment 0)
//	seg 5: u                handoff by user text
//	seg 6: r                tree jump to the root
func tree() []session.Entry {
	return numbered(
		user("a", "", 0, "hi"), msg("b", "a", 1), msg("c", "b", 2),
		branchSummary("s", "b", 3), user("d", "s", 4, "other way"),
		msg("e", "d", 24),
		compaction("k", "e", 25), user("f", "k", 26, "go on"),
		user("g", "c", 27, "back to c"), msg("h", "g", 28),
		user("u", "h", 29, "handoff to the reviewer"),
		user("r", "", 30, "from scratch"),
	)
}

// sameLines fails t when got and want differ, showing both one item a line.
func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s\n got %s\nwant %s", what, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

func TestSplit(t *testing.T) {
	segs := Split(tree(), Options{})
	var got []string
	for _, s := range segs {
		var types []string
		for _, b := range s.Boundaries {
			types = append(types, string(b.Type))
		}
		got = append(got, fmt.Sprintf("%d:%s-%s[%d-%d]n%d %s-%s %v", s.Index, s.StartEntryID, s.EndEntryID,
			s.StartSeq, s.EndSeq, s.EntryCount, s.StartTimestamp.Format("04"), s.EndTimestamp.Format("04"), types))
	}
	want := []string{
		"0:a-c[0-2]n3 00-02 []",
		"1:s-d[3-4]n2 03-04 [branch]",
		"2:e-e[5-5]n1 24-24 [resume]",
		"3:k-f[6-7]n2 25-26 [compaction]",
		"4:g-h[8-9]n2 27-28 [tree_jump]",
		"5:u-u[10-10]n1 29-29 [handoff]",
		"6:r-r[11-11]n1 30-30 [tree_jump]",
	}
	sameLines(t, "segments", got, want)
	if segs[0].Boundaries == nil {
		t.Error("first segment's Boundaries is nil, want empty (JSON [])")
	}
	if Split(nil, Options{}) != nil {
		t.Error("Split(nil) is not nil")
	}
}

func TestSplitTimestampsSkipZero(t *testing.T) {
	es := numbered(user("a", "", 1, "hi"), msg("b", "a", 2), msg("c", "b", 3))
	es[0].Timestamp, es[2].Timestamp = time.Time{}, time.Time{}
	s := Split(es, Options{})[0]
	if !s.StartTimestamp.Equal(at(2)) || !s.EndTimestamp.Equal(at(2)) {
		t.Errorf("timestamps %v %v, want both %v", s.StartTimestamp, s.EndTimestamp, at(2))
	}
}

func TestLinks(t *testing.T) {
	es := tree()
	links := Links(Split(es, Options{}), es)
	var got []string
	for _, l := range links {
		got = append(got, fmt.Sprintf("%d->%d %s %v", l.From, l.To, l.Type, l.Metadata))
	}
	want := []string{
		"0->1 branch map[boundaries:[branch] fromId:b previousEntryId:c summary:tried X, it failed targetEntryId:b]",
		"1->2 resume map[boundaries:[resume] gapMinutes:20 previousEntryId:d]",
		"2->3 compaction map[boundaries:[compaction] firstKeptEntryId:b previousEntryId:e summary:so far: Y tokensBefore:123456]",
		"0->4 tree_jump map[boundaries:[tree_jump] previousEntryId:f targetEntryId:c]",
		"4->5 continuation map[boundaries:[handoff] boundary:handoff previousEntryId:h reason:handoff to the reviewer]",
		"0->6 tree_jump map[boundaries:[tree_jump] previousEntryId:u]",
	}
	sameLines(t, "links", got, want)
}

func TestLinksCombinedAndFallbacks(t *testing.T) {
	tests := []struct {
		name    string
		entries []session.Entry
		want    []string
	}{
		{"compaction and resume: compaction edge with both metadata", numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), compaction("k", "b", 31),
		), []string{"0->1 compaction map[boundaries:[compaction resume] firstKeptEntryId:b gapMinutes:30 previousEntryId:b summary:so far: Y tokensBefore:123456]"}},
		{"branch at the root links from the first segment", numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), user("c", "b", 20, "x"), branchSummary("s", "", 21),
		), []string{
			"0->1 resume map[boundaries:[resume] gapMinutes:19 previousEntryId:b]",
			"0->2 branch map[boundaries:[branch] fromId:root previousEntryId:c summary:tried X, it failed]",
		}},
		{"branch to an unknown entry links from the previous segment", numbered(
			user("a", "", 0, "hi"), msg("b", "a", 20), branchSummary("s", "nowhere", 21),
		), []string{
			"0->1 resume map[boundaries:[resume] gapMinutes:20 previousEntryId:a]",
			"1->2 branch map[boundaries:[branch] fromId:nowhere previousEntryId:b summary:tried X, it failed targetEntryId:nowhere]",
		}},
		{"jump within the current segment's predecessor", numbered(
			user("a", "", 0, "hi"), msg("b", "a", 20), user("c", "b", 21, "x"), user("d", "b", 22, "y"),
		), []string{
			"0->1 resume map[boundaries:[resume] gapMinutes:20 previousEntryId:a]",
			"1->2 tree_jump map[boundaries:[tree_jump] previousEntryId:c targetEntryId:b]",
		}},
		{"jump landing on a label", numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), msg("c", "b", 2), user("d", "c", 20, "x"),
			label("L", "b", "b", 21), user("e", "L", 22, "y"),
		), []string{
			"0->1 resume map[boundaries:[resume] gapMinutes:18 previousEntryId:c]",
			"0->2 tree_jump map[boundaries:[tree_jump] previousEntryId:d targetEntryId:b]",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range Links(Split(tt.entries, Options{}), tt.entries) {
				got = append(got, fmt.Sprintf("%d->%d %s %v", l.From, l.To, l.Type, l.Metadata))
			}
			sameLines(t, "links", got, tt.want)
		})
	}
}

func TestLinkWithoutBoundaries(t *testing.T) {
	l := link(3, nil, func(string) (int, bool) { return 0, false })
	if !reflect.DeepEqual(l, Link{From: 2, To: 3, Type: EdgeContinuation}) {
		t.Errorf("link without boundaries = %+v", l)
	}
}

// TestBuilderStreams checks that the Builder reports each segment when the
// next one starts, each link when its segment starts, and that the result
// equals Split and Links.
func TestBuilderStreams(t *testing.T) {
	es := tree()
	b := NewBuilder(Options{})
	if st := b.Add(nil); st.Segment != -1 || st.Closed != nil || st.Link != nil {
		t.Errorf("Add(nil) before any entry = %+v", st)
	}
	var segs []Segment
	var links []Link
	for i := range es {
		st := b.Add(&es[i])
		if st.Closed != nil {
			segs = append(segs, *st.Closed)
			if st.Closed.EndSeq != es[i].Seq-1 {
				t.Errorf("entry %s closed segment %d ending at seq %d", es[i].ID, st.Closed.Index, st.Closed.EndSeq)
			}
		}
		if (st.Closed == nil) != (st.Link == nil) {
			t.Errorf("entry %s: closed %v but link %v", es[i].ID, st.Closed, st.Link)
		}
		if st.Link != nil {
			links = append(links, *st.Link)
			if st.Link.To != st.Segment {
				t.Errorf("entry %s: link to %d, entry in segment %d", es[i].ID, st.Link.To, st.Segment)
			}
		}
		if got, ok := b.SegmentOf(es[i].ID); !ok || got != st.Segment {
			t.Errorf("SegmentOf(%s) = %d %v, want %d", es[i].ID, got, ok, st.Segment)
		}
	}
	if st := b.Add(nil); st.Segment != 6 {
		t.Errorf("Add(nil) = %+v, want segment 6", st)
	}
	last := b.Finish()
	if last == nil || last.Index != 6 {
		t.Fatalf("Finish = %+v, want segment 6", last)
	}
	if b.Finish() != nil {
		t.Error("second Finish is not nil")
	}
	segs = append(segs, *last)
	if want := Split(es, Options{}); !reflect.DeepEqual(segs, want) {
		t.Errorf("builder segments differ from Split:\n%+v\n%+v", segs, want)
	}
	if want := Links(segs, es); !reflect.DeepEqual(links, want) {
		t.Errorf("builder links differ from Links:\n%+v\n%+v", links, want)
	}
	if NewBuilder(Options{}).Finish() != nil {
		t.Error("Finish without entries is not nil")
	}
}

func TestForkPoint(t *testing.T) {
	parent := map[string]bool{"a": true, "b": true, "c": true, "d": true}
	tests := []struct {
		name  string
		child []session.Entry
		want  string
		ok    bool
	}{
		{"copied path, new label, new work", numbered(
			user("a", "", 0, "hi"), msg("b", "a", 1), label("n1", "b", "a", 1), user("x", "n1", 5, "new"),
		), "b", true},
		{"nothing shared", numbered(user("x", "", 0, "hi")), "", false},
		{"empty child", nil, "", false},
		{"ids missing", numbered(user("", "", 0, "hi")), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ForkPoint(tt.child, parent)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ForkPoint = %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestRandomSessions feeds random, often malformed sessions (missing and
// duplicate ids, dangling parents, zero and backwards timestamps) and checks
// that nothing panics, the segments tile the entries and the Builder agrees
// with Split and Links.
func TestRandomSessions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	types := []string{session.TypeMessage, session.TypeLabel, session.TypeSessionInfo, session.TypeCompaction,
		session.TypeBranchSummary, session.TypeCustom, session.TypeModelChange, "unknown"}
	for round := 0; round < 2000; round++ {
		n := rng.IntN(40)
		es := make([]session.Entry, n)
		for i := range es {
			e := &es[i]
			e.Seq, e.Type = i, types[rng.IntN(len(types))]
			if rng.IntN(10) > 0 {
				e.ID = fmt.Sprintf("e%d", rng.IntN(n+5))
			}
			switch rng.IntN(4) {
			case 0:
				e.ParentID = fmt.Sprintf("e%d", rng.IntN(n+5))
			case 1:
				if i > 0 {
					e.ParentID = es[i-1].ID
				}
			}
			if rng.IntN(8) > 0 {
				e.Timestamp = at(float64(rng.IntN(200)))
			}
			if e.Type == session.TypeMessage && rng.IntN(2) == 0 {
				e.Message = &session.Message{Role: session.RoleUser,
					Content: []session.Block{{Type: session.BlockText, Text: "handoff to x"}}}
			}
			if e.Type == session.TypeCustom {
				e.CustomType = "handoff"
			}
		}
		segs := Split(es, Options{})
		links := Links(segs, es)
		checkSegmentsCoverEntries(t, segs, es)
		if len(segs) > 0 && len(links) != len(segs)-1 {
			t.Fatalf("round %d: %d segments, %d links", round, len(segs), len(links))
		}
		for _, l := range links {
			if l.From < 0 || l.From >= l.To {
				t.Fatalf("round %d: link %d->%d", round, l.From, l.To)
			}
		}
		bsegs, blinks := buildAll(slices.Values(ptrs(es)), Options{})
		if !reflect.DeepEqual(bsegs, segs) || !reflect.DeepEqual(blinks, links) {
			t.Fatalf("round %d: Builder and Split/Links disagree", round)
		}
	}
}

// buildAll runs a Builder over entries and collects the segments and links it
// reports.
func buildAll(entries iter.Seq[*session.Entry], opts Options) ([]Segment, []Link) {
	b := NewBuilder(opts)
	var segs []Segment
	var links []Link
	for e := range entries {
		st := b.Add(e)
		if st.Closed != nil {
			segs = append(segs, *st.Closed)
		}
		if st.Link != nil {
			links = append(links, *st.Link)
		}
	}
	if s := b.Finish(); s != nil {
		segs = append(segs, *s)
	}
	return segs, links
}

func ptrs(es []session.Entry) []*session.Entry {
	out := make([]*session.Entry, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}
