package app

import (
	"context"
	"sort"
	"sync"
)

// relationQueue derives the relations across sessions of the projects that
// appends changed, after the append and off its path (issue 11 §2: an
// append's cost depends on the bytes appended). A project's relations are
// derived over all its segments (relate.Derive: every confidence depends on
// how many segments the project has), so deriving them inside each append
// made appending to a long session cost as much as its project. A live
// session appends every few seconds: the projects queued while a run goes
// are derived once, by the next run.
//
// Every derivation, queued or done inline by an import of new or rewritten
// sessions, holds mu: the last one to run reads the library last, so the
// stored relations end as the latest sessions make them.
type relationQueue struct {
	c *core

	mu sync.Mutex // held by each derivation

	qmu     sync.Mutex
	pending map[string]bool // projects to derive
	running bool
	done    chan struct{} // closed when the current run ends
	lastErr string
}

func newRelationQueue(c *core) *relationQueue {
	return &relationQueue{c: c, pending: map[string]bool{}}
}

// derive derives the relations of projects now, in the caller's goroutine.
func (q *relationQueue) derive(ctx context.Context, projects []string) (RelationsReport, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return deriveRelations(ctx, q.c.store, projects)
}

// add queues projects and starts a run unless one goes (it takes them when
// it ends).
func (q *relationQueue) add(projects []string) {
	q.qmu.Lock()
	defer q.qmu.Unlock()
	for _, p := range projects {
		q.pending[p] = true
	}
	if q.running {
		return
	}
	q.running = true
	q.done = make(chan struct{})
	go q.loop(q.done)
}

func (q *relationQueue) loop(done chan struct{}) {
	defer close(done)
	for {
		q.qmu.Lock()
		if len(q.pending) == 0 {
			q.running = false
			q.qmu.Unlock()
			return
		}
		projects := make([]string, 0, len(q.pending))
		for p := range q.pending {
			projects = append(projects, p)
		}
		sort.Strings(projects)
		q.pending = map[string]bool{}
		q.qmu.Unlock()

		_, err := q.derive(q.c.context(), projects)
		q.qmu.Lock()
		q.lastErr = ""
		if err != nil {
			q.lastErr = err.Error()
		}
		q.qmu.Unlock()
		if err != nil {
			// The projects stay marked in the library (relations_pending):
			// the next append or start derives them again. The window says
			// what went wrong meanwhile.
			q.c.emitEvent("relations:error", err.Error())
		}
		q.c.emitEvent("library:changed", nil)
	}
}

// wait blocks until no run goes or ctx ends; it returns the error of the
// last run ("" when it succeeded).
func (q *relationQueue) wait(ctx context.Context) (string, error) {
	var lastErr string
	err := waitIdle(ctx, func() (bool, <-chan struct{}) {
		q.qmu.Lock()
		defer q.qmu.Unlock()
		lastErr = q.lastErr
		return q.running, q.done
	})
	if err != nil {
		return "", err
	}
	return lastErr, nil
}
