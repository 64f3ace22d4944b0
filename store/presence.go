package store

import (
	"context"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// Every Store that has a library open holds a shared lock on <library>.open
// while it is open. One that finds no other holder when it opens (it takes
// the lock exclusively at once, then shares it) is the library's only
// user: the leases other processes took on the summaries queue
// (ClaimSummaries) belong to processes that are gone, killed mid-job
// (kill -9, a crash, a power cut), and are released, so the derivation
// they held goes on at once rather than when their leases run out
// (issue 25).

// presence is a Store's hold on <library>.open.
type presence struct{ lock *flock.Flock }

// takePresence locks <libraryPath>.open, shared, and reports whether this
// Store is the library's only user. A lock that cannot be taken (a file
// system without locks) is no presence and not alone.
func takePresence(libraryPath string) (*presence, bool) {
	l := flock.New(libraryPath+".open", flock.SetPermissions(0o600))
	alone, err := l.TryLock()
	if err != nil {
		return nil, false
	}
	if !alone {
		// Another Store holds it, shared, or one that is opening holds it
		// exclusively for a moment.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if ok, err := l.TryRLockContext(ctx, 10*time.Millisecond); err != nil || !ok {
			return nil, false
		}
		return &presence{lock: l}, false
	}
	// Exclusive to shared, atomically on Linux (flock(2) converts the
	// lock on the same open file).
	if ok, err := l.TryRLock(); err != nil || !ok {
		_ = l.Unlock()
		return nil, false
	}
	return &presence{lock: l}, true
}

// Alone reports whether this Store was the library's only user when it
// opened it: what other processes left half done (a kill -9) is then
// its to finish.
func (s *Store) Alone() bool { return s.alone }

func (p *presence) release() {
	if p != nil {
		_ = p.lock.Unlock()
	}
}

// releaseOrphanedLeases takes the leases off the queued summary jobs that
// are leased (due later) and have not failed (a failed one's later time is
// its back-off, kept): called by the library's only user, no job runs.
func (s *Store) releaseOrphanedLeases(ctx context.Context, now time.Time) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE summaries SET next_try = '' WHERE queued <> '' AND attempts = 0 AND next_try > ?`,
		isoTime(now)); err != nil {
		return fmt.Errorf("store: unable to release the summary jobs of a process that is gone: %w", err)
	}
	return nil
}
