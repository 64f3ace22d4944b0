package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/pisession/pitest"
)

// A live session grown line by line goes on, at each append, from the
// summary pass and knowledge extractor its last import kept (the open
// segment's states in sessions.resume), and ends as a library that fed the
// open segment's stored entries again at each append (the states taken
// out before each import, as a library written before they were kept has
// them): the same nodes, knowledge, summaries and entries, on the real
// sessions with a compaction and without.
func TestAppendGoesOnFromTheKeptStates(t *testing.T) {
	for _, name := range []string{"session-with-compaction.jsonl", "large-session.jsonl"} {
		t.Run(name, func(t *testing.T) {
			full, err := os.ReadFile(filepath.Join("samples", name))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(string(full), "\n")
			kept, refed := newTestLib(t), newTestLib(t)
			kept.Import.deriveInline, refed.Import.deriveInline = true, true // the engine's mode that keeps them
			live := filepath.Join(t.TempDir(), name)                         // one file, two libraries
			resumed := 0
			for n := 30; ; n += 47 {
				last := n >= lines
				b := full
				if !last {
					b = prefixLines(full, n)
				}
				if err := os.WriteFile(live, b, 0o644); err != nil {
					t.Fatal(err)
				}
				for i, l := range []*testLib{kept, refed} {
					if i == 1 {
						if _, err := l.db(t).Exec(`UPDATE sessions SET resume = json_remove(resume, '$.sums', '$.know') WHERE resume <> ''`); err != nil {
							t.Fatal(err)
						}
					}
					fr := l.importPaths(t, live).Files[0]
					if fr.Status == ingest.StatusFailed {
						t.Fatalf("%d lines: %+v", n, fr)
					}
				}
				if got := kept.texts(t, `SELECT count(*) FROM sessions WHERE json_extract(resume, '$.sums') IS NOT NULL AND json_extract(resume, '$.know') IS NOT NULL`); got[0] == "1" {
					resumed++
				}
				if last {
					break
				}
			}
			if resumed == 0 {
				t.Fatal("no import kept the open segment's states")
			}
			a, b := kept.snapshot(t), refed.snapshot(t)
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"entries", a.Entries, b.Entries}, {"nodes", a.Nodes, b.Nodes}, {"knowledge", a.Knowledge, b.Knowledge}, {"edges", a.Edges, b.Edges}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s differ from the refed library's: %s", c.what, firstDiff(c.got, c.want))
				}
			}
			query := `SELECT item || ' ' || kind || ' ' || coalesce(title, '') || ' ' || text || ' ' || input_hash FROM summaries ORDER BY item, kind`
			if got, want := kept.texts(t, query), refed.texts(t, query); !reflect.DeepEqual(got, want) {
				t.Errorf("summaries differ from the refed library's: %s", firstDiff(got, want))
			}
			if len(a.Knowledge) == 0 || len(a.Nodes) < 2 {
				t.Errorf("%d knowledge items, %d nodes: the sessions show nothing", len(a.Knowledge), len(a.Nodes))
			}
		})
	}
}

// An import of files the library read before trusts their size and
// modification time (store.FileStamps): a file of the stamped size and
// time is unchanged without being opened, so that bytes changed behind the
// stamp's back are not seen (as git would not see them); a file whose time
// moved is read and hashed, found unchanged and stamped anew; one whose
// time and bytes changed at the same size is read again whole.
func TestReimportTrustsSizeAndTime(t *testing.T) {
	dir := t.TempDir()
	names := []string{"session-with-compaction.jsonl", "large-session.jsonl", "compact-with-images.jsonl"}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("samples", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(dir, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	l := newTestLib(t)
	if rep := l.importPaths(t, dir); rep.Totals.Imported != 3 {
		t.Fatalf("%+v", rep.Totals)
	}
	stamps := func() []string {
		return l.texts(t, `SELECT file_mtime_ns FROM sessions ORDER BY path`)
	}
	before := stamps()
	for _, s := range before {
		if s == "0" {
			t.Fatalf("a file imported from disk without its time: %v", before)
		}
	}
	// Behind the stamp's back: other bytes of the same size, the time put
	// back. Not opened, not seen.
	hidden := filepath.Join(dir, names[0])
	info, _ := os.Stat(hidden)
	b, _ := os.ReadFile(hidden)
	junk := []byte(strings.Repeat("x", len(b)))
	if err := os.WriteFile(hidden, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(hidden, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	// Touched: the same bytes, a new time.
	touched := filepath.Join(dir, names[1])
	later := info.ModTime().Add(30 * time.Minute)
	if err := os.Chtimes(touched, later, later); err != nil {
		t.Fatal(err)
	}
	// Rewritten at the same size with a new time: one byte of a text
	// changed.
	rewritten := filepath.Join(dir, names[2])
	rb, _ := os.ReadFile(rewritten)
	i := strings.Index(string(rb), `"text":"`) + len(`"text":"`)
	rb[i] ^= 0x20
	if err := os.WriteFile(rewritten, rb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(rewritten, later, later); err != nil {
		t.Fatal(err)
	}
	rep := l.importPaths(t, dir)
	status := map[string]string{}
	for _, f := range rep.Files {
		status[filepath.Base(f.Path)] = f.Status
	}
	if want := (map[string]string{names[0]: ingest.StatusUnchanged, names[1]: ingest.StatusUnchanged, names[2]: ingest.StatusImported}); !reflect.DeepEqual(status, want) {
		t.Errorf("statuses %v, want %v", status, want)
	}
	after := stamps()
	byPath := l.texts(t, `SELECT path FROM sessions ORDER BY path`)
	for k, p := range byPath {
		moved := filepath.Base(p) != names[0]
		if (after[k] != before[k]) != moved {
			t.Errorf("%s: stamp %s then %s", filepath.Base(p), before[k], after[k])
		}
	}
	// Put back just now: read, hashed, found the same, and not stamped: a
	// file written within the tick it was read in could be written again
	// keeping its time ("racy git"). Written again so, at the same size
	// and time, it is read again.
	if err := os.WriteFile(hidden, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := l.importPaths(t, hidden); rep.Files[0].Status != ingest.StatusUnchanged {
		t.Errorf("the file put back: %+v", rep.Files[0])
	}
	if got := l.texts(t, `SELECT file_mtime_ns FROM sessions WHERE path = ?`, hidden); got[0] != "0" {
		t.Errorf("a file written just now stamped %s", got[0])
	}
	info, _ = os.Stat(hidden)
	if err := os.WriteFile(hidden, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(hidden, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if rep := l.importPaths(t, hidden); rep.Files[0].Status == ingest.StatusUnchanged {
		t.Errorf("a file rewritten within the racy window was trusted: %+v", rep.Files[0])
	}
}

// An import of many files makes them readable as it goes: after each batch
// it commits, a progress event counts the files whose sessions the library
// now shows (Committed, never going back), the library lists at least
// that many sessions by then, and the count reaches the files imported
// before import:done.
func TestImportProgressCountsWhatIsReadable(t *testing.T) {
	corpus := filepath.Join(t.TempDir(), "corpus")
	files, _, err := pitest.WriteCorpus(pitest.SamplesDir(), corpus, 14<<20)
	if err != nil {
		t.Fatal(err)
	}
	l := newTestLib(t)
	var mu sync.Mutex
	var committed, listed []int
	done := false
	l.SetEmitter(func(event string, data any) {
		p, ok := data.(ImportProgress)
		if event == "import:done" {
			mu.Lock()
			done = true
			mu.Unlock()
		}
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if done {
			t.Errorf("progress after import:done: %+v", p)
		}
		if n := len(committed); n > 0 && p.Committed == committed[n-1] {
			return
		}
		ss, err := l.Library.Sessions("")
		if err != nil {
			t.Error(err)
		}
		committed, listed = append(committed, p.Committed), append(listed, len(ss))
	})
	rep := l.importPaths(t, corpus)
	if rep.Totals.Imported != files {
		t.Fatalf("%+v", rep.Totals)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("committed, as the import went: %v of %d", committed, files)
	if len(committed) < 3 || committed[len(committed)-1] != files {
		t.Fatalf("committed counts %v, want several up to %d", committed, files)
	}
	for i, c := range committed {
		if i > 0 && c < committed[i-1] {
			t.Errorf("committed went back: %v", committed)
		}
		if listed[i] < c {
			t.Errorf("%d committed while the library listed %d sessions", c, listed[i])
		}
	}
}
