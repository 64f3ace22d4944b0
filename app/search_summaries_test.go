package app

import (
	"strings"
	"testing"

	"rhizome/backend/pisession/pitest"
)

// Issue 8, section 1: summaries are searchable. Over the three real
// samples: a session is found by its title (a hit of kind "session" that
// opens its first segment), a person's words in a segment's summary find
// the segment, node hits are titled by the summary the node shows, and
// entry hits name their session by its title, never its file.
func TestSearchFindsSummaries(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, pitest.Samples()...)
	id := sampleSessionIDs["compact-with-images.jsonl"]

	hits, err := l.Search.Query("startup without API keys", 30)
	if err != nil {
		t.Fatal(err)
	}
	var ses *SearchHit
	for i, h := range hits {
		if h.Kind == "session" && h.SessionID == id {
			ses = &hits[i]
			break
		}
	}
	if ses == nil {
		t.Fatalf("no session hit for the session's title among %+v", hits)
	}
	first := l.segmentItems(t, id)[0]
	if ses.Title != "Allow startup without API keys (#288)" || nodeKey(ses.NodeID).Item != first || !strings.Contains(ses.Snippet, "\u0001") {
		t.Errorf("session hit %+v, want the title, the first segment %s and a marked snippet", *ses, first)
	}

	// A person's edit of a segment's summary is found by its words; the hit shows it.
	seg := l.segmentItems(t, sampleSessionIDs["large-session.jsonl"])[1]
	if _, err := l.Summaries.Edit(seg, "", "Chased the flickering zebra cursor through the theme selector."); err != nil {
		t.Fatal(err)
	}
	hits, err = l.Search.Query("zebra", 30)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range hits {
		if h.Kind == "node" && nodeKey(h.NodeID).Item == seg {
			found = true
			if !strings.HasPrefix(h.Title, "Chased the flickering zebra cursor") {
				t.Errorf("node hit titled %q, want the person's summary", h.Title)
			}
		}
	}
	if !found {
		t.Errorf("the edited summary is not found: %+v", hits)
	}

	// Entry hits: the session's title, not its file name.
	hits, err = l.Search.Query("selector", 30)
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	for _, h := range hits {
		if strings.Contains(h.Title, ".jsonl") {
			t.Errorf("hit titled by a file name: %+v", h)
		}
		if h.Kind == "entry" {
			entries++
		}
	}
	if entries == 0 {
		t.Errorf("no entry hits for selector: %+v", hits)
	}
}
