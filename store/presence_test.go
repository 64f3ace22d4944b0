package store

import (
	"context"
	"testing"
	"time"
)

// A summary job leased by a process that is gone (killed mid-job) is free
// again as soon as the library's next only user opens it; while another
// Store has the library open, its lease stands (that Store may be the one
// running the job).
func TestOrphanedLeasesReleasedByTheOnlyUser(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	now := time.Now().UTC()
	key := SessionSummaryKey("s1")
	if err := s.WriteSummaries(ctx, []SummaryWrite{{Key: key, Queue: QueueOffline}}, showNewest, now); err != nil {
		t.Fatal(err)
	}
	if jobs, err := s.ClaimSummaries(ctx, 1, []string{QueueOffline}, now, time.Hour); err != nil || len(jobs) != 1 {
		t.Fatalf("claimed %d jobs (%v)", len(jobs), err)
	}
	due := func(st *Store) int {
		jobs, err := st.ClaimSummaries(ctx, 1, []string{QueueOffline}, time.Now().UTC(), 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(jobs)
	}

	other, err := Open(path) // s is open: not alone
	if err != nil {
		t.Fatal(err)
	}
	if n := due(other); n != 0 {
		t.Errorf("a second Store took the job leased by the first (%d due)", n)
	}
	other.Close()
	s.Close()

	next, err := Open(path) // nobody else: the lease was a dead process's
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if n := due(next); n != 1 {
		t.Errorf("the only user finds %d jobs due, want the orphaned one", n)
	}
}

// A job its worker stopped (Cancel) gives its lease back: still queued, it
// is due again at once, not when its lease would have ended.
func TestStoppedJobReleasesItsLease(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	now := time.Now().UTC()
	key := SessionSummaryKey("s1")
	if err := s.WriteSummaries(ctx, []SummaryWrite{{Key: key, Queue: QueueOffline}}, showNewest, now); err != nil {
		t.Fatal(err)
	}
	claim := func(at time.Time) []SummaryRow {
		jobs, err := s.ClaimSummaries(ctx, 1, []string{QueueOffline}, at, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	if jobs := claim(now); len(jobs) != 1 {
		t.Fatalf("claimed %d jobs", len(jobs))
	}
	later := now.Add(time.Second)
	if jobs := claim(later); len(jobs) != 0 {
		t.Fatalf("a leased job was claimed again: %+v", jobs)
	}
	if err := s.ReleaseSummaryLease(ctx, key.Item, later); err != nil {
		t.Fatal(err)
	}
	if jobs := claim(later); len(jobs) != 1 || jobs[0].SummaryKey != key {
		t.Fatalf("after the release: %+v", jobs)
	}
}
