package store

import (
	"context"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// busyTimeout is how long a writer waits for the write lock of the library
// (SQLite's busy timeout) before it fails with "database is locked". The
// write gate makes writers take turns, so a writer waits for at most the
// transactions of the writers ahead of it; the longest transaction is the
// import of one session file, all of it or nothing (a few seconds for the
// largest real files; two minutes leaves room for a slow disk) or of a
// batch of small files, which an import commits once it is a second old.
// Readers never wait: the library is in WAL mode, and opening a library
// whose migrations are applied reads only. A cancelled context ends the
// wait.
const busyTimeout = 2 * time.Minute

// gateRetry is how often a writer waiting at the gate tries it again.
const gateRetry = 5 * time.Millisecond

// writeGate makes the library's writers take turns, in this process and in
// others (another `rhizome import`, `rhizome serve`, the window). SQLite's
// busy handler alone is not fair: a waiting writer polls the lock (every
// 100 ms at most), and an import that begins its next file's transaction as
// soon as it commits the last one holds the lock nearly all the time, so the
// other writer only gets it once the whole import is done, or fails when its
// busy timeout runs out first.
//
// A writer passes the gate to begin: it takes the gate (an exclusive file
// lock on "<library>.lock", and a semaphore within the process), waits for
// SQLite's write lock (BEGIN IMMEDIATE, up to busyTimeout), then leaves the
// gate and does its work. While it waits it holds the gate, so a writer
// that is done with one transaction and wants the next waits at the gate
// until the waiting writer got the lock: writers alternate, one
// transaction each. The gate is held only while waiting, never during a
// transaction. The lock file is created (0600) on the first write; a
// process that only reads never touches it.
type writeGate struct {
	sem  chan struct{}
	lock *flock.Flock
}

func newWriteGate(libraryPath string) *writeGate {
	return &writeGate{sem: make(chan struct{}, 1), lock: flock.New(libraryPath+".lock", flock.SetPermissions(0o600))}
}

// enter waits for the gate, until ctx is done, and returns the function that
// leaves it.
func (g *writeGate) enter(ctx context.Context) (leave func(), err error) {
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("store: unable to wait for the write lock: %w", ctx.Err())
	}
	if _, err := g.lock.TryLockContext(ctx, gateRetry); err != nil {
		<-g.sem
		return nil, fmt.Errorf("store: unable to wait for the write lock (%s): %w", g.lock.Path(), err)
	}
	return func() {
		g.lock.Unlock()
		<-g.sem
	}, nil
}
