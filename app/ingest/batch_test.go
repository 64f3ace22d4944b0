package ingest

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"rhizome/backend/pisession/pitest"
	"rhizome/store"
)

// testStore is a library in a temporary file, closed at the test's end.
func testStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "library.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestCollectPathsOrder(t *testing.T) {
	srcs := Collect([]string{pitest.SamplesDir(), pitest.Sample("large-session.jsonl")}, "host")
	var names []string
	for _, s := range srcs {
		names = append(names, filepath.Base(s.path))
	}
	if !sort.StringsAreSorted(names) || len(names) != 3 {
		t.Errorf("sources %v", names)
	}
}

// The reader waits for a file of the same session to be committed; the
// writer commits the batch as soon as that file is in it, whether the reader
// asked before the writer had it (it was still in the jobs channel: the
// batch used to stay open for batchTime, a second per such file) or after.
func TestBatchCommitsTheAwaitedFileOnceWritten(t *testing.T) {
	st := testStore(t)
	ctx := context.Background()
	b := &writeBatch{st: st}
	var rep Report
	newJob := func() *job { return &job{src: Source{size: 1 << 10}, done: make(chan struct{})} }
	closed := func(j *job) bool {
		select {
		case <-j.done:
			return true
		default:
			return false
		}
	}
	write := func(j *job) {
		t.Helper()
		if _, err := b.open(ctx); err != nil {
			t.Fatal(err)
		}
		b.add(j, &rep, 0, false)
	}

	first, awaited := newJob(), newJob()
	write(first)
	b.await(awaited, &rep)
	if b.tx == nil || closed(first) {
		t.Fatal("the batch was committed before the awaited file was written into it")
	}
	write(awaited)
	if b.tx != nil || !closed(first) || !closed(awaited) {
		t.Fatalf("the batch is still open after the awaited file was written (committed: first %v, awaited %v)", closed(first), closed(awaited))
	}
	if b.awaited != nil {
		t.Fatal("the batch still waits for a committed file")
	}

	// Asked after the writer has it: committed at once.
	inBatch := newJob()
	write(inBatch)
	b.await(inBatch, &rep)
	if b.tx != nil || !closed(inBatch) {
		t.Fatal("the batch holding the awaited file was not committed")
	}

	// Asked for a file committed already: the open batch goes on.
	next := newJob()
	write(next)
	b.await(inBatch, &rep)
	if b.tx == nil || closed(next) || b.awaited != nil {
		t.Fatal("waiting for a committed file ended or marked the open batch")
	}
	b.commit(&rep)
}
