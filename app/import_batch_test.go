package app

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/app/ingest"
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
	l.Import.failImport = func(n int) error {
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
	defer func() { l.Import.failImport = nil }()
	rep := l.importPaths(t, dir)
	l.Import.failImport = nil
	if !batched {
		t.Error("the first file was committed before the second was written: the files were not batched")
	}
	if rep.Totals.Files != 3 || rep.Totals.Imported != 2 || rep.Totals.Failed != 1 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	for i, f := range rep.Files {
		want := ingest.StatusImported
		if i == 1 {
			want = ingest.StatusFailed
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
	if rep := l.importPaths(t, paths[1]); rep.Files[0].Status != ingest.StatusImported {
		t.Errorf("the failed file again: %+v", rep.Files[0])
	}
}
