package app

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"rhizome/app/ingest"
	"rhizome/store"
)

// The totals an append reports are the library's stored totals
// (store.SessionCounts, kept by triggers as the segments and edges are
// written), not a count over the whole session (issue 11 §2). They must be
// what a fresh import of the grown file reports, and the stored totals what
// counting the rows gives, after every piece.

// totalsOf is the part of a file report an append must get right.
type totalsOf struct {
	Status           string
	Entries          int
	EntriesByType    map[string]int
	MalformedCount   int
	MalformedLines   []LineProblem
	PendingTail      bool
	Segments         int
	BoundariesByType map[string]int
	EdgesByType      map[string]int
}

func reportTotals(fr FileReport) totalsOf {
	return totalsOf{fr.Status, fr.Entries, fr.EntriesByType, fr.MalformedCount, fr.MalformedLines, fr.PendingTail,
		fr.Segments, fr.BoundariesByType, fr.EdgesByType}
}

// storedTotals returns, by session id, the totals the library keeps and the
// same totals counted from its rows.
func (l *testLib) storedTotals(t *testing.T) (stored, counted map[string]store.SessionCounts) {
	t.Helper()
	rows, err := l.db(t).Query(`SELECT pk, id FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]string{}
	for rows.Next() {
		var pk int64
		var id string
		if err := rows.Scan(&pk, &id); err != nil {
			t.Fatal(err)
		}
		ids[pk] = id
	}
	rows.Close()
	tx, err := l.st.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stored, counted = map[string]store.SessionCounts{}, map[string]store.SessionCounts{}
	for pk, id := range ids {
		if stored[id], err = tx.SessionCounts(pk); err != nil {
			t.Fatal(err)
		}
		if counted[id], err = tx.CountSession(pk); err != nil {
			t.Fatal(err)
		}
	}
	return stored, counted
}

// checkStoredTotals fails unless every session's stored totals are its
// rows' counts.
func (l *testLib) checkStoredTotals(t *testing.T, when string) map[string]store.SessionCounts {
	t.Helper()
	stored, counted := l.storedTotals(t)
	for id, c := range counted {
		if !reflect.DeepEqual(stored[id], c) {
			t.Fatalf("%s: session %s: stored totals %+v, its rows count %+v", when, id, stored[id], c)
		}
	}
	return stored
}

// copyTree copies the files of root (all of them, sidecars included) to a
// new folder, each session file cut by cut(path, content); nil leaves it
// out.
func copyTree(t *testing.T, dst, root string, cut func(rel string, b []byte) []byte) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if strings.HasSuffix(p, ".jsonl") {
			if b = cut(rel, b); b == nil {
				return nil
			}
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pieces are where the growing files are cut, as fractions of their lines;
// the half-line cut leaves a line half written (a pending tail).
var pieces = []struct {
	frac     float64
	halfLine bool
}{{0.25, false}, {0.5, true}, {0.55, false}, {0.8, false}, {1, false}}

func cutAt(b []byte, frac float64, halfLine bool) []byte {
	lines := bytes.Count(b, []byte("\n"))
	k := int(float64(lines) * frac)
	at := len(prefixLines(b, k))
	if halfLine {
		at += (len(prefixLines(b, k+1)) - at) / 2
	}
	return b[:at]
}

// withGarbage returns the pi sample with malformed lines among its entries,
// so that the problems reported are checked too.
func withGarbage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("samples", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	var out bytes.Buffer
	for i, ln := range lines {
		if i > 0 && i%97 == 0 {
			out.WriteString("not json {{\n")
		}
		out.Write(ln)
	}
	return out.Bytes()
}

// Each file on its own, grown in pieces and imported after each: every
// report total of the last append is the fresh import's, and the stored
// totals equal the counts of the rows after every piece.
func TestAppendReportTotalsEqualFreshImport(t *testing.T) {
	files := map[string]func() []byte{}
	for _, name := range []string{"session-with-compaction.jsonl", "compact-with-images.jsonl"} {
		files["pi/"+name] = func() []byte { return withGarbage(t, name) }
	}
	for _, paths := range otherFiles(t) {
		for _, p := range paths {
			files[p] = func() []byte {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		full := files[name]()
		p := filepath.Join(t.TempDir(), filepath.Base(name))
		l := newTestLib(t)
		var last FileReport
		appended := 0
		for _, pc := range pieces {
			os.WriteFile(p, cutAt(full, pc.frac, pc.halfLine), 0o644)
			last = l.importPaths(t, p).Files[0]
			if last.Status == ingest.StatusAppended {
				appended++
			}
			l.checkStoredTotals(t, name)
		}
		if appended == 0 {
			t.Fatalf("%s: no piece was appended: %+v", name, last)
		}
		fresh := newTestLib(t)
		want := fresh.importPaths(t, p).Files[0]
		got, exp := reportTotals(last), reportTotals(want)
		exp.Status = last.Status // appended (or unchanged for a tail of bookkeeping) against imported
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: the last append reports\n%+v\na fresh import\n%+v", name, got, exp)
		}
		if s, f := l.checkStoredTotals(t, name), fresh.checkStoredTotals(t, name+" fresh"); !reflect.DeepEqual(s, f) {
			t.Errorf("%s: stored totals after the appends %+v, after a fresh import %+v", name, s, f)
		}
	}
}

// A whole Claude Code home and Codex home (forks, sub-agents, a resumed
// window) grown in pieces, one file after another, the longest (the
// parents, whose lines the forks copy) first: the totals of every session,
// edges between sessions included, stay their rows' counts after every
// piece and end as a fresh import's; an import of the unchanged files
// reports the same totals in both libraries. Each file begins at a quarter
// of its lines: a Claude Code fork first seen so is linked to its parent by
// a later append (linkForkOnAppend), as a fresh import links it.
func TestAppendStoredTotalsAcrossSessions(t *testing.T) {
	const firstFrac = 0
	for _, root := range []string{claudeHome, codexHome} {
		type file struct {
			rel  string
			size int64
		}
		var order []file
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && d.Name() != "session_index.jsonl" {
				fi, _ := d.Info()
				rel, _ := filepath.Rel(root, p)
				order = append(order, file{rel, fi.Size()})
			}
			return err
		})
		sort.Slice(order, func(i, j int) bool { return order[i].size > order[j].size })
		grown := map[string]int{} // rel -> pieces written; absent: not yet begun
		dir := filepath.Join(t.TempDir(), "home")
		l := newTestLib(t)
		for _, f := range order {
			for i := range pieces {
				if pieces[i].frac < firstFrac {
					continue
				}
				grown[f.rel] = i
				os.RemoveAll(dir)
				copyTree(t, dir, root, func(rel string, b []byte) []byte {
					if filepath.Base(rel) == "session_index.jsonl" {
						return b
					}
					k, ok := grown[rel]
					if !ok {
						return nil
					}
					return cutAt(b, pieces[k].frac, pieces[k].halfLine)
				})
				for _, fr := range l.importPaths(t, dir).Files {
					if fr.Status == ingest.StatusFailed && !strings.Contains(fr.Error, "still being written") &&
						!strings.Contains(fr.Error, "no line with a sessionId") && !strings.Contains(fr.Error, "empty file") {
						t.Fatalf("%s: %+v", root, fr)
					}
				}
				l.checkStoredTotals(t, root+" "+f.rel)
			}
		}
		fresh := newTestLib(t)
		fresh.importPaths(t, dir)
		if s, f := l.checkStoredTotals(t, root), fresh.checkStoredTotals(t, root+" fresh"); !reflect.DeepEqual(s, f) {
			t.Errorf("%s: stored totals after the appends\n%+v\nafter a fresh import\n%+v", root, s, f)
		}
		a, b := l.importPaths(t, dir), fresh.importPaths(t, dir)
		for i := range a.Files {
			if ga, gb := reportTotals(a.Files[i]), reportTotals(b.Files[i]); !reflect.DeepEqual(ga, gb) {
				t.Errorf("%s: %s: %+v, fresh %+v", root, a.Files[i].Path, ga, gb)
			}
		}
	}
}
