package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Small files are written in one transaction, each inside a savepoint of
// its own: a file that fails in the middle of the batch is rolled back
// alone, and the files before and after it in the same transaction still
// import, the library then holding exactly what importing them alone gives.
func TestBatchFileFailsNeighboursImport(t *testing.T) {
	dir := t.TempDir()
	names := []string{"1-session-with-compaction.jsonl", "2-large-session.jsonl", "3-compact-with-images.jsonl"}
	var paths []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("samples", n[2:]))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}

	l := newTestLib(t)
	db := l.db(t)
	boom := errors.New("disk on fire")
	file, batched := 0, false
	failImport = func(n int) error {
		if n == 1 {
			file++
		}
		if file == 2 && n == 50 {
			// The first file is written, in the transaction still open.
			var committed int
			if err := db.QueryRow(`SELECT count(*) FROM sessions`).Scan(&committed); err != nil {
				t.Error(err)
			}
			batched = committed == 0
			return boom
		}
		return nil
	}
	defer func() { failImport = nil }()
	rep := l.importPaths(t, dir)
	failImport = nil
	if !batched {
		t.Error("the first file was committed before the second was written: the files were not batched")
	}
	if rep.Totals.Files != 3 || rep.Totals.Imported != 2 || rep.Totals.Failed != 1 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	for i, f := range rep.Files {
		want := statusImported
		if i == 1 {
			want = statusFailed
		}
		if filepath.Base(f.Path) != names[i] || f.Status != want {
			t.Errorf("file %d: %s %s %q, want %s %s", i, filepath.Base(f.Path), f.Status, f.Error, names[i], want)
		}
	}
	if f := rep.Files[1]; !strings.Contains(f.Error, "disk on fire") || f.Entries != 0 {
		t.Errorf("failed file's report %+v", f)
	}

	alone := newTestLib(t)
	alone.importPaths(t, paths[0], paths[2])
	if got, want := l.tableCounts(t), alone.tableCounts(t); !reflect.DeepEqual(got, want) {
		t.Errorf("counts %v, want those of the neighbours imported alone: %v", got, want)
	}
	if got, want := l.snapshot(t), alone.snapshot(t); !reflect.DeepEqual(got, want) {
		t.Errorf("the library differs from the neighbours imported alone: %s", firstDiff(got.Entries, want.Entries))
	}

	// The failed file imports on its own afterwards.
	if rep := l.importPaths(t, paths[1]); rep.Files[0].Status != statusImported {
		t.Errorf("the failed file again: %+v", rep.Files[0])
	}
}

// The reader waits for a file of the same session to be committed; the
// writer commits the batch as soon as that file is in it, whether the reader
// asked before the writer had it (it was still in the jobs channel: the
// batch used to stay open for batchTime, a second per such file) or after.
func TestBatchCommitsTheAwaitedFileOnceWritten(t *testing.T) {
	l := newTestLib(t)
	ctx := context.Background()
	b := &writeBatch{st: l.st}
	var rep ImportReport
	newJob := func() *job { return &job{src: source{size: 1 << 10}, done: make(chan struct{})} }
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
