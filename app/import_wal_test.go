package app

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"rhizome/backend/pisession/pitest"
)

// maxLogBytes is the most the write-ahead log may hold during the import of
// TestWriteAheadLogStaysBounded: the log pages of store's walResetBytes (32
// MiB of entry bytes make about 55 MiB of pages) and of the transactions
// committed meanwhile (files of at most 1.6 MB here).
const maxLogBytes = 96 << 20

// The write-ahead log is checkpointed and truncated as the import goes: it
// stays bounded instead of growing to the size of the whole import (663 MiB
// for a 291 MB corpus) until the library is closed.
func TestWriteAheadLogStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 160 MB")
	}
	corpus := filepath.Join(t.TempDir(), "corpus")
	files, _, err := pitest.WriteCorpus("samples", corpus, 160<<20)
	if err != nil {
		t.Fatal(err)
	}
	l := newTestLib(t)
	var (
		mu      sync.Mutex
		maxSize int64
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if info, err := os.Stat(l.path + "-wal"); err == nil {
				mu.Lock()
				maxSize = max(maxSize, info.Size())
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	rep := l.importPaths(t, corpus)
	close(stop)
	wg.Wait()
	if rep.Totals.Imported != files {
		t.Fatalf("%+v", rep.Totals)
	}
	db, _ := os.Stat(l.path)
	t.Logf("%d files: write-ahead log at most %.1f MiB, library %.1f MiB", files, float64(maxSize)/(1<<20), float64(db.Size())/(1<<20))
	if maxSize > maxLogBytes {
		t.Errorf("the write-ahead log grew to %.1f MiB during the import, over %d MiB", float64(maxSize)/(1<<20), maxLogBytes>>20)
	}
}
