package app

import (
	"context"
	"sync"
)

// indexMerger merges the library's full-text indexes in the background
// after imports (store.MergeFullTextIndexes), a bounded step at a time, so
// that no append pays for merging what an import before it left (issue 11
// §2: an append of 1 KB after a 155 MB import took 150-170 ms once every
// few appends, FTS5 merging the import's segments in it). Each step is a
// transaction of its own: an append waiting for one waits for one step.
type indexMerger struct {
	c *core

	mu      sync.Mutex
	running bool
	again   bool          // kicked while running: run once more
	done    chan struct{} // closed when the current run ends
	lastErr string
}

// mergeStepPages is how many pages (4 KB) of merged segments a step may
// write: about 25 ms of work here.
const mergeStepPages = 200

func newIndexMerger(c *core) *indexMerger { return &indexMerger{c: c} }

// kick starts a run unless one goes; one going runs again once it ends.
func (m *indexMerger) kick() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		m.again = true
		return
	}
	m.running = true
	m.done = make(chan struct{})
	go m.loop(m.done)
}

func (m *indexMerger) loop(done chan struct{}) {
	defer close(done)
	for {
		err := m.run(m.c.context())
		m.mu.Lock()
		m.lastErr = ""
		if err != nil {
			m.lastErr = err.Error()
		}
		if !m.again || err != nil {
			m.again, m.running = false, false
			m.mu.Unlock()
			return
		}
		m.again = false
		m.mu.Unlock()
	}
}

// run merges until no index has segments to merge or ctx ends (the app
// closing: what is left is merged by the next run).
func (m *indexMerger) run(ctx context.Context) error {
	for ctx.Err() == nil {
		worked, err := m.c.store.MergeFullTextIndexes(ctx, mergeStepPages)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil || !worked {
			return err
		}
	}
	return nil
}

// wait blocks until no run goes or ctx ends; it returns the error of the
// last run ("" when it succeeded).
func (m *indexMerger) wait(ctx context.Context) (string, error) {
	var lastErr string
	err := waitIdle(ctx, func() (bool, <-chan struct{}) {
		m.mu.Lock()
		defer m.mu.Unlock()
		lastErr = m.lastErr
		return m.running, m.done
	})
	if err != nil {
		return "", err
	}
	return lastErr, nil
}
