package summary

import (
	"testing"

	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// TestHashFields: every input field changes the hash, equal inputs give equal
// hashes, and fields cannot be shifted into each other.
func TestHashFields(t *testing.T) {
	base := SessionInputs{SessionID: "s1", Entries: 10, LastEntryID: "e9", Name: "login"}
	h := SessionHash(base)
	if len(h) != 32 || SessionHash(base) != h {
		t.Fatalf("SessionHash = %q: want 32 hex characters, stable", h)
	}
	for name, in := range map[string]SessionInputs{
		"id":      {SessionID: "s2", Entries: 10, LastEntryID: "e9", Name: "login"},
		"entries": {SessionID: "s1", Entries: 11, LastEntryID: "e9", Name: "login"},
		"last":    {SessionID: "s1", Entries: 10, LastEntryID: "e8", Name: "login"},
		"name":    {SessionID: "s1", Entries: 10, LastEntryID: "e9", Name: "logout"},
		"shifted": {SessionID: "s1", Entries: 10, LastEntryID: "e9login", Name: ""},
	} {
		if SessionHash(in) == h {
			t.Errorf("changing %s leaves the session hash unchanged", name)
		}
	}
	seg := SegmentInputs{SessionID: "s1", StartSeq: 0, EntryCount: 5, StartEntryID: "a", EndEntryID: "b"}
	sh := SegmentHash(seg)
	seg.FollowedBy = "c"
	if SegmentHash(seg) == sh {
		t.Error("a branch summary after the segment leaves its hash unchanged")
	}
	// The same fields under another kind hash differently.
	if hashFields(KindSession, "a") == hashFields(KindSegment, "a") {
		t.Error("kinds share hashes")
	}
	tree := LoomTreeInputs{TreeID: "t", Title: "x", PathHashes: []string{"h1", "h2"}}
	th := LoomTreeHash(tree)
	tree.PathHashes = []string{"h1", "h2", "h3"}
	if LoomTreeHash(tree) == th {
		t.Error("a longer main path leaves the tree hash unchanged")
	}
	if ProjectHash(ProjectInputs{Path: "/p", SessionHashes: []string{"a"}}) == ProjectHash(ProjectInputs{Path: "/p", SessionHashes: []string{"a", "b"}}) {
		t.Error("a new session leaves the project hash unchanged")
	}
	node := LoomNodeInputs{TreeTitle: "t", NodeHash: "n", ParentHash: "p"}
	nh := LoomNodeHash(node)
	node.ParentSummaryAvailable = true
	if LoomNodeHash(node) == nh {
		t.Error("a parent summary arriving leaves the node hash unchanged")
	}
}

// TestStaleness: a real session read in part, as pi was still writing it,
// then whole (an append import). The session summary and the segments that
// grew are stale; the segments that were already closed are not. The hashes
// a summary records are the ones the app computes from what it stores
// (SessionInputs, SegmentInputsOf).
func TestStaleness(t *testing.T) {
	path := pitest.Sample("compact-with-images.jsonl")
	whole, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const prefix = 700 // inside segment 3 (entries 668-1011)
	partSess, partSegs := summarizeEntries(t, whole.Header.ID, whole.Entries[:prefix])
	wholeSess, wholeSegs := summarizeEntries(t, whole.Header.ID, whole.Entries)

	if !partSess.Stale(wholeSess.InputHash) {
		t.Error("the session summary of the first 700 entries is not stale once the session has grown")
	}
	if wholeSess.Stale(wholeSess.InputHash) {
		t.Error("a summary is stale against its own inputs")
	}
	want := SessionHash(SessionInputs{SessionID: whole.Header.ID, Entries: len(whole.Entries),
		LastEntryID: whole.Entries[len(whole.Entries)-1].ID})
	if wholeSess.InputHash != want {
		t.Errorf("session summary hash %s, want the hash of its stored inputs %s", wholeSess.InputHash, want)
	}

	segs := segment.Split(whole.Entries, segment.DefaultOptions())
	for i := range partSegs {
		stale := partSegs[i].Stale(wholeSegs[i].InputHash)
		if wantStale := i >= 3; stale != wantStale {
			t.Errorf("segment %d: stale = %v after the append, want %v", i, stale, wantStale)
		}
	}
	for i := range wholeSegs {
		if h := SegmentHash(SegmentInputsOf(whole.Header.ID, segs, i)); wholeSegs[i].InputHash != h {
			t.Errorf("segment %d: hash %s, want the hash of its stored inputs %s", i, wholeSegs[i].InputHash, h)
		}
	}
}

// summarizeEntries summarises a session's entries as the importer would.
func summarizeEntries(t *testing.T, sessionID string, entries []session.Entry) (Summary, []Summary) {
	t.Helper()
	b := segment.NewBuilder(segment.DefaultOptions())
	seg, sess := NewAccumulator(), NewAccumulator()
	var segs []Summary
	for i := range entries {
		e := &entries[i]
		if st := b.Add(e); st.Closed != nil {
			seg.Followed(e)
			segs = append(segs, seg.Segment(sessionID, *st.Closed, madeAt))
			seg.Reset()
		}
		seg.Add(e)
		sess.Add(e)
	}
	if last := b.Finish(); last != nil {
		segs = append(segs, seg.Segment(sessionID, *last, madeAt))
	}
	return sess.Session(sessionID, "", madeAt), segs
}

// TestBranchSummaryFollows: a segment the user navigated away from with a
// summary takes pi's summary, and its hash names that summary entry, as
// SegmentInputsOf does from the stored segments.
func TestBranchSummaryFollows(t *testing.T) {
	const path = "../segment/testdata/v3/sessions/2026-01-12T09-00-00-000Z_019bb16e-fe80-72b5-af2e-7d405d44d120.jsonl"
	s, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	segs := segment.Split(s.Entries, segment.DefaultOptions())
	_, sums := summarizeEntries(t, s.Header.ID, s.Entries)
	found := false
	for i := range segs {
		in := SegmentInputsOf(s.Header.ID, segs, i)
		if sums[i].InputHash != SegmentHash(in) {
			t.Errorf("segment %d: hash differs from SegmentInputsOf's", i)
		}
		if in.FollowedBy != "" {
			found = true
			if sums[i].Text != "Rate-limit POST login to 5 attempts per minute per IP; done: installed express-rate-limit@7, added rateLimit.ts and all 14 tests passed." {
				t.Errorf("segment %d, left with a branch summary, reads %q: want pi's summary of it", i, sums[i].Text)
			}
		}
	}
	if !found {
		t.Fatal("the fixture has no segment followed by a branch summary")
	}
}
