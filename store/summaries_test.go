package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// showNewest is a ShowFunc for these tests: the person's edit in force,
// else the newest version. (The app's rule is summary.Choose and Shown.)
func showNewest(vs []SummaryVersion, human int, _ string) SummaryVersion {
	for _, v := range vs {
		if v.Version == human {
			return v
		}
	}
	var best SummaryVersion
	for _, v := range vs {
		if v.Source != "human" && v.Version > best.Version {
			best = v
		}
	}
	return best
}

func ptr[T any](v T) *T { return &v }

// The summaries of an item on a real library: versions kept (a person's
// edits all, the latest of every other source), what shows, the queue
// across a reopening, leases, cancel and the full-text index.
func TestSummariesStored(t *testing.T) {
	s, path := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	key := SummaryKey{Item: "rhizome:session/abc", Kind: "session", Subject: "abc"}
	w := func(ws ...SummaryWrite) {
		t.Helper()
		if err := s.WriteSummaries(ctx, ws, showNewest, t0); err != nil {
			t.Fatal(err)
		}
	}
	w(SummaryWrite{Key: key, InputHash: ptr("h1"),
		Add:   &SummaryVersion{Title: "Offline title", Text: "Offline lighthouse text.", Label: "Offline", Source: "offline", InputHash: "h1", MadeAt: t0},
		Queue: QueueModel})
	w(SummaryWrite{Key: key, Add: &SummaryVersion{Title: "Offline again", Text: "Remade.", Label: "Offline", Source: "offline", InputHash: "h1", MadeAt: t0}})
	w(SummaryWrite{Key: key, Add: &SummaryVersion{Title: "Mine", Text: "My text.", Label: "Mine", Source: "human", InputHash: "h1", MadeAt: t0}, EditInForce: ptr(EditAdded)})
	w(SummaryWrite{Key: key, Add: &SummaryVersion{Title: "Mine again", Text: "My text.", Label: "Mine", Source: "human", InputHash: "h1", MadeAt: t0}, EditInForce: ptr(EditAdded)})
	row, vs, err := s.Summary(ctx, key.Item)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, v := range vs {
		sources = append(sources, v.Source)
	}
	if got := strings.Join(sources, ","); got != "offline,human,human" {
		t.Errorf("versions %s, want the latest offline one and both edits", got)
	}
	if row.Shown.Title != "Mine again" || row.Human != vs[2].Version || row.Queued != QueueModel {
		t.Errorf("row %+v", row)
	}
	// Back to the generated one.
	w(SummaryWrite{Key: key, EditInForce: ptr(0)})
	row, _, _ = s.Summary(ctx, key.Item)
	if row.Shown.Title != "Offline again" || row.Human != 0 {
		t.Errorf("after taking the edit back: %+v", row)
	}
	if row.Stale() {
		t.Error("fresh summary reported stale")
	}
	w(SummaryWrite{Key: key, InputHash: ptr("h2")})
	row, _, _ = s.Summary(ctx, key.Item)
	if !row.Stale() {
		t.Error("summary of other inputs not reported stale")
	}

	// Search finds what shows, through the triggers.
	hits, err := s.SearchSummaries(ctx, MatchQuery("remade"), 10)
	if err != nil || len(hits) != 1 || hits[0].Item != key.Item {
		t.Fatalf("search remade: %+v %v", hits, err)
	}
	if hits, _ := s.SearchSummaries(ctx, MatchQuery("lighthouse"), 10); len(hits) != 0 {
		t.Errorf("a replaced summary is still found: %+v", hits)
	}

	// The queue survives closing the library; a lease keeps a job from a
	// second worker until it ends; a failure waits for its retry.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.ClaimSummaries(ctx, 10, []string{QueueModel}, t0, time.Minute)
	if err != nil || len(got) != 1 || got[0].Item != key.Item {
		t.Fatalf("claim after reopening: %+v %v", got, err)
	}
	if again, _ := s.ClaimSummaries(ctx, 10, []string{QueueModel}, t0.Add(30*time.Second), time.Minute); len(again) != 0 {
		t.Errorf("claimed while leased: %+v", again)
	}
	if err := s.WriteSummaries(ctx, []SummaryWrite{{Key: key, Failed: &SummaryFailure{Error: "HTTP 429", NextTry: t0.Add(5 * time.Minute)}}}, showNewest, t0); err != nil {
		t.Fatal(err)
	}
	st, err := s.SummaryQueue(ctx, t0.Add(2*time.Minute))
	if err != nil || st.Model != 1 || st.Retrying != 1 || st.Failed != 1 {
		t.Errorf("queue %+v %v", st, err)
	}
	if early, _ := s.ClaimSummaries(ctx, 10, []string{QueueModel}, t0.Add(2*time.Minute), time.Minute); len(early) != 0 {
		t.Error("claimed before its retry")
	}
	if later, _ := s.ClaimSummaries(ctx, 10, []string{QueueModel}, t0.Add(6*time.Minute), time.Minute); len(later) != 1 {
		t.Error("not claimed after its retry time")
	}
	n, err := s.DequeueSummaries(ctx)
	if err != nil || n != 1 {
		t.Errorf("dequeue: %d %v", n, err)
	}
	if _, _, err := s.Summary(ctx, "rhizome:session/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown item: %v", err)
	}
}

// What a list of hits is labelled with: the shown title and the start of
// the shown text, counted in characters, of the subjects that have a
// summary; the others are absent.
func TestSummaryHeadings(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	for _, sub := range []string{"a", "b"} {
		key := SummaryKey{Item: "rhizome:session/" + sub, Kind: "session", Subject: sub}
		text := strings.Repeat("é", 50) + " lighthouse " + sub
		if err := s.WriteSummaries(ctx, []SummaryWrite{{Key: key, InputHash: ptr("h"),
			Add: &SummaryVersion{Title: "Title " + sub, Text: text, Source: "offline", InputHash: "h", MadeAt: t0}}}, showNewest, t0); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.SummaryHeadings(ctx, "session", []string{"a", "a", "missing"}, 52)
	if err != nil {
		t.Fatal(err)
	}
	want := SummaryHeading{Title: "Title a", Text: strings.Repeat("é", 50) + " l"}
	if len(got) != 1 || got["a"] != want {
		t.Errorf("headings %+v, want only a: %+v", got, want)
	}
	if none, err := s.SummaryHeadings(ctx, "segment", []string{"a"}, 10); err != nil || len(none) != 0 {
		t.Errorf("another kind's: %+v %v", none, err)
	}
}
