package app

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/analyze"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/store"
	"rhizome/store/storetest"
)

// The real sessions in app/samples and their entry counts (header excluded).
var sampleEntries = map[string]int{
	"large-session.jsonl":           1018,
	"session-with-compaction.jsonl": 463,
	"compact-with-images.jsonl":     1013,
}

// v3Dir holds version 3 sessions written by pi itself, two of them forks
// (see its README.md).
const v3Dir = "../backend/segment/testdata/v3/sessions"

const (
	v3Tree  = "2026-01-12T09-00-00-000Z_019bb16e-fe80-72b5-af2e-7d405d44d120.jsonl"
	v3Fork  = "2026-01-12T09-13-00-000Z_019bb17a-e560-71ac-aae0-1b2dd4825984.jsonl"
	v3Clone = "2026-01-12T09-16-00-000Z_019bb17d-a480-741c-a6c6-48963e5bf3d8.jsonl"
)

// testLib is an app over a library in a temporary file, recording events.
type testLib struct {
	*App
	st   *store.Store
	path string

	mu     sync.Mutex
	events []string
}

func newTestLib(t *testing.T) *testLib {
	t.Helper()
	p := storetest.Path(t) // migrated once per test binary, not per test
	st, err := store.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	l := &testLib{App: New(st, p), st: st, path: p}
	// Background writes (a loom edit queues its tree's summary from a
	// goroutine) end before the library closes and its folder goes.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = l.WaitBackground(ctx)
		st.Close()
	})
	l.SetEmitter(func(event string, data any) {
		l.mu.Lock()
		l.events = append(l.events, event)
		l.mu.Unlock()
	})
	return l
}

func (l *testLib) importPaths(t *testing.T, paths ...string) ImportReport {
	t.Helper()
	rep := l.importReadable(t, paths...)
	derive(t, l.App)
	return rep
}

// importReadable imports paths and returns once the sessions are readable,
// their derivation left to the background (issue 25).
func (l *testLib) importReadable(t *testing.T, paths ...string) ImportReport {
	t.Helper()
	rep, err := l.Import.ImportPaths(paths)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// db opens the library file for checks the app does not offer.
func (l *testLib) db(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", l.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// tableCounts counts the rows of every table, and checks that both
// full-text indexes agree with their content tables.
func (l *testLib) tableCounts(t *testing.T) map[string]int {
	t.Helper()
	db := l.db(t)
	out := map[string]int{}
	for _, tbl := range []string{"sessions", "entries", "import_problems", "segments", "nodes", "node_versions", "edges"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ` + tbl).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tbl] = n
	}
	for _, fts := range []string{"entries_fts", "nodes_fts"} {
		if _, err := db.Exec(`INSERT INTO ` + fts + `(` + fts + `) VALUES ('integrity-check')`); err != nil {
			t.Fatalf("%s: %v", fts, err)
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ` + fts + `_docsize`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[fts] = n
	}
	return out
}

// snapshot is the content of a library that must not depend on how it was
// built (import times and node versions left out).
type snapshot struct {
	Entries  []string
	Segments []string
	Nodes    []string
	Edges    []string
	Problems []string
	// Knowledge: the items the offline rules found (their version times
	// left out).
	Knowledge []string
	Gaps      []string
	Sessions  []string
}

func (l *testLib) snapshot(t *testing.T) snapshot {
	t.Helper()
	db := l.db(t)
	rows := func(q string) []string {
		r, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cols, _ := r.Columns()
		var out []string
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(vals...))
		}
		return out
	}
	return snapshot{
		Entries: rows(`SELECT s.id, e.seq, e.entry_id, e.parent_id, e.type, e.role, e.timestamp, e.line, e.byte_offset,
			e.target_id, e.text, e.raw, e.meta, e.turn_id, e.dedupe_key, e.subagent_id FROM entries e JOIN sessions s ON s.pk = e.session_pk ORDER BY s.id, e.seq`),
		Gaps: rows(`SELECT s.id, g.byte_offset, hex(g.bytes) FROM session_gaps g JOIN sessions s ON s.pk = g.session_pk ORDER BY s.id, g.byte_offset`),
		Sessions: rows(`SELECT id, path, cwd, version, timestamp, header, parent_session, name, imported_bytes, imported_sha256,
			file_bytes, file_sha256, lines, entries, entries_by_type, pending_tail, malformed, format, resume, imported_probe,
			agent_id, meta FROM sessions ORDER BY id`),
		Segments: rows(`SELECT s.id, g.idx, g.start_entry_id, g.end_entry_id, g.start_seq, g.end_seq, g.entry_count,
			g.start_timestamp, g.end_timestamp, g.boundaries FROM segments g JOIN sessions s ON s.pk = g.session_pk ORDER BY s.id, g.idx`),
		Nodes: rows(`SELECT n.id, s.id, n.segment_idx, n.type, n.outcome, n.summary, n.tags, n.topics, n.files,
			n.timestamp, n.cost, n.tokens, n.entry_count,
			json_remove(n.node, '$.version', '$.previousVersions', '$.metadata.analyzedAt')
			FROM nodes n JOIN sessions s ON s.pk = n.session_pk ORDER BY n.id`),
		Edges:    rows(`SELECT id, source_id, target_id, type, metadata, created_by FROM edges ORDER BY id`),
		Problems: rows(`SELECT s.id, p.line, p.byte_offset, p.reason FROM import_problems p JOIN sessions s ON s.pk = p.session_pk ORDER BY s.id, p.byte_offset`),
		Knowledge: rows(`SELECT id, version, kind, project, timestamp, status, title, session_id, segment_node_id,
			json_remove(item, '$.createdAt') FROM knowledge ORDER BY id`),
	}
}

func sessionIDOf(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := pisession.NewReader(f, file).Header()
	if err != nil {
		t.Fatal(err)
	}
	return h.ID
}

func reportByName(t *testing.T, rep ImportReport, name string) FileReport {
	t.Helper()
	for _, f := range rep.Files {
		if filepath.Base(f.Path) == name {
			return f
		}
	}
	t.Fatalf("no report for %s in %+v", name, rep.Files)
	return FileReport{}
}

func TestImportRealSessions(t *testing.T) {
	l := newTestLib(t)
	rep := l.importReadable(t, "samples")
	if rep.Totals.Files != 3 || rep.Totals.Imported != 3 || rep.Totals.Failed != 0 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	total, segsTotal := 0, 0
	db := l.db(t)
	for name, want := range sampleEntries {
		fr := reportByName(t, rep, name)
		if fr.Status != ingest.StatusImported || fr.Entries != want || fr.NewEntries != want || fr.Version != 1 || fr.Format != "pi" {
			t.Errorf("%s: %+v, want %d entries imported", name, fr, want)
		}
		if len(fr.MalformedLines) != 0 || fr.PendingTail || fr.Error != "" {
			t.Errorf("%s: problems %+v", name, fr)
		}
		// Plain types add up to the entries, roles to the messages.
		types, roles := 0, 0
		for k, v := range fr.EntriesByType {
			if strings.HasPrefix(k, "message:") {
				roles += v
			} else {
				types += v
			}
		}
		if types != want || roles != fr.EntriesByType["message"] {
			t.Errorf("%s: entriesByType %v", name, fr.EntriesByType)
		}
		total += want

		// The segments, nodes and edges are exactly those of the whole
		// session split by the segment package.
		s, err := pisession.ReadFile(filepath.Join("samples", name))
		if err != nil {
			t.Fatal(err)
		}
		segs := segment.Split(s.Entries, segment.DefaultOptions())
		links := segment.Links(segs, s.Entries)
		segsTotal += len(segs)
		if fr.Segments != len(segs) {
			t.Errorf("%s: %d segments, want %d", name, fr.Segments, len(segs))
		}
		var wantNodes, gotNodes []string
		for _, g := range segs {
			wantNodes = append(wantNodes, analyze.NodeID(s.Header.ID, g.StartSeq))
		}
		r, err := db.Query(`SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ? ORDER BY n.segment_idx`, s.Header.ID)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var id string
			r.Scan(&id)
			gotNodes = append(gotNodes, id)
		}
		r.Close()
		if !reflect.DeepEqual(gotNodes, wantNodes) {
			t.Errorf("%s: nodes %v, want %v", name, gotNodes, wantNodes)
		}
		wantEdges := map[string]bool{}
		byType := map[string]int{}
		for _, lk := range links {
			src, dst := wantNodes[lk.From], wantNodes[lk.To]
			wantEdges[store.EdgeID(src, dst, lk.Type)+" "+src+" "+dst+" "+lk.Type] = true
			byType[lk.Type]++
		}
		if !reflect.DeepEqual(fr.EdgesByType, byType) {
			t.Errorf("%s: edgesByType %v, want %v", name, fr.EdgesByType, byType)
		}
		r, err = db.Query(`SELECT id, source_id, target_id, type FROM edges WHERE created_by = 'boundary' AND source_id IN (SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ?)`, s.Header.ID)
		if err != nil {
			t.Fatal(err)
		}
		gotEdges := map[string]bool{}
		for r.Next() {
			var id, src, dst, typ string
			r.Scan(&id, &src, &dst, &typ)
			gotEdges[id+" "+src+" "+dst+" "+typ] = true
		}
		r.Close()
		if !reflect.DeepEqual(gotEdges, wantEdges) {
			t.Errorf("%s: edges %v, want %v", name, gotEdges, wantEdges)
		}
	}
	if rep.Totals.Entries != total || rep.Totals.Segments != segsTotal {
		t.Errorf("totals %+v, want %d entries, %d segments", rep.Totals, total, segsTotal)
	}
	c := l.tableCounts(t)
	if c["entries"] != total || c["nodes"] != c["segments"] || c["nodes"] != segsTotal || c["node_versions"] != c["nodes"] {
		t.Errorf("counts %v", c)
	}
	if c["nodes_fts"] != c["nodes"] {
		t.Errorf("nodes_fts has %d rows for %d nodes", c["nodes_fts"], c["nodes"])
	}

	// Events: progress, then done, then library:changed (and again once
	// the relations queue derived the sessions' relations).
	derive(t, l.App)
	l.mu.Lock()
	ev := append([]string(nil), l.events...)
	l.mu.Unlock()
	done := slices.Index(ev, "import:done")
	if done < 3 || ev[0] != "import:progress" || slices.Contains(ev[done+1:], "import:progress") ||
		done+1 >= len(ev) || ev[done+1] != "library:changed" {
		t.Errorf("events %v", ev)
	}
}

func TestReimportUnchanged(t *testing.T) {
	l := newTestLib(t)
	first := l.importPaths(t, "samples", v3Dir)
	before, snap := l.tableCounts(t), l.snapshot(t)
	l.mu.Lock()
	l.events = nil
	l.mu.Unlock()

	again := l.importPaths(t, "samples", v3Dir)
	if again.Totals.Unchanged != again.Totals.Files || again.Totals.Files != 8 {
		t.Fatalf("totals %+v", again.Totals)
	}
	for i, fr := range again.Files {
		want := first.Files[i]
		want.Status, want.NewEntries = ingest.StatusUnchanged, 0
		// The tree was imported before its forks: its fork edges came later.
		delete(fr.EdgesByType, "fork")
		delete(want.EdgesByType, "fork")
		if !reflect.DeepEqual(fr, want) {
			t.Errorf("%s: %+v\nwant %+v", fr.Path, fr, want)
		}
	}
	if after := l.tableCounts(t); !reflect.DeepEqual(after, before) {
		t.Errorf("counts %v, want %v", after, before)
	}
	if !reflect.DeepEqual(l.snapshot(t), snap) {
		t.Error("library changed")
	}
	for _, e := range l.events {
		if e == "library:changed" {
			t.Error("library:changed sent for an unchanged import")
		}
	}

	// The same bytes dropped on the window (base64) are unchanged too.
	b, _ := os.ReadFile(filepath.Join("samples", "large-session.jsonl"))
	rep, err := l.Import.ImportFiles([]DroppedFile{{Name: "large-session.jsonl", Content: base64.StdEncoding.EncodeToString(b)}})
	if err != nil || rep.Files[0].Status != ingest.StatusUnchanged || rep.Files[0].Entries != 1018 {
		t.Fatalf("dropped: %v %+v", err, rep)
	}
}

// prefixLines returns the first n lines of b (n may exceed its lines).
func prefixLines(b []byte, n int) []byte {
	off := 0
	for i := 0; i < n && off < len(b); i++ {
		j := bytes.IndexByte(b[off:], '\n')
		if j < 0 {
			return b
		}
		off += j + 1
	}
	return b[:off]
}

func TestAppendEqualsFullImport(t *testing.T) {
	tree := filepath.Join(v3Dir, v3Tree)
	cases := []struct {
		file string
		// keep: lines (header included) of the first import; a pending half
		// of the next line follows them.
		keep func(lines int) int
		// bump: the segment the first import ended in grows, so its node
		// gets a second version; otherwise it may or may not change (a
		// boundary follows it: it can become abandoned).
		bump bool
	}{
		{filepath.Join("samples", "large-session.jsonl"), func(n int) int { return n / 3 }, true},
		{filepath.Join("samples", "large-session.jsonl"), func(n int) int { return n / 2 }, true},
		{filepath.Join("samples", "session-with-compaction.jsonl"), func(n int) int { return n / 3 }, true},
		{filepath.Join("samples", "session-with-compaction.jsonl"), func(n int) int { return n / 2 }, true},
		{filepath.Join("samples", "compact-with-images.jsonl"), func(n int) int { return n / 3 }, true},
		{filepath.Join("samples", "compact-with-images.jsonl"), func(n int) int { return n / 2 }, true},
		{filepath.Join(v3Dir, "2026-01-13T13-00-00-000Z_019bb771-1480-742d-8e7b-bc50402e3eaa.jsonl"), func(n int) int { return n / 2 }, true},
		{tree, func(int) int { return 12 }, true},
		// Cut right before the tree jump (line 18), the branch (28) and the
		// jump on a label (36): the new entries start a segment.
		{tree, func(int) int { return 17 }, false},
		{tree, func(int) int { return 27 }, false},
		{tree, func(int) int { return 35 }, false},
		// Only the header.
		{tree, func(int) int { return 1 }, false},
	}
	for _, c := range cases {
		full, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		keep := c.keep(bytes.Count(full, []byte("\n")))
		t.Run(fmt.Sprintf("%s-%d", filepath.Base(c.file), keep), func(t *testing.T) {
			cut := prefixLines(full, keep)
			next := prefixLines(full, keep+1)
			partial := append(append([]byte(nil), cut...), next[len(cut):len(cut)+(len(next)-len(cut))/2]...)

			live := filepath.Join(t.TempDir(), filepath.Base(c.file))
			l := newTestLib(t)
			os.WriteFile(live, partial, 0o644)
			f1 := l.importPaths(t, live).Files[0]
			if f1.Status != ingest.StatusImported || !f1.PendingTail || f1.Entries == 0 && keep > 1 {
				t.Fatalf("first import %+v", f1)
			}
			os.WriteFile(live, full, 0o644)
			f2 := l.importPaths(t, live).Files[0]
			if f2.Status != ingest.StatusAppended || f2.PendingTail || f2.Entries != f1.Entries+f2.NewEntries || f2.NewEntries == 0 {
				t.Fatalf("append %+v after %+v", f2, f1)
			}

			fresh := newTestLib(t)
			f3 := fresh.importPaths(t, live).Files[0]
			if f3.Status != ingest.StatusImported {
				t.Fatalf("fresh %+v", f3)
			}
			f2.Status, f2.NewEntries, f3.Status, f3.NewEntries = "", 0, "", 0
			if !reflect.DeepEqual(f2, f3) {
				t.Errorf("append report %+v\nfresh report %+v", f2, f3)
			}
			a, b := l.snapshot(t), fresh.snapshot(t)
			for _, part := range []struct {
				name string
				a, b []string
			}{{"entries", a.Entries, b.Entries}, {"segments", a.Segments, b.Segments}, {"nodes", a.Nodes, b.Nodes},
				{"edges", a.Edges, b.Edges}, {"problems", a.Problems, b.Problems}, {"knowledge", a.Knowledge, b.Knowledge}, {"gaps", a.Gaps, b.Gaps},
				{"sessions", a.Sessions, b.Sessions}} {
				if !reflect.DeepEqual(part.a, part.b) {
					t.Errorf("%s differ after append:\n%s", part.name, firstDiff(part.a, part.b))
				}
			}
			ca, cb := l.tableCounts(t), fresh.tableCounts(t)
			extra := ca["node_versions"] - ca["nodes"]
			delete(ca, "node_versions")
			delete(cb, "node_versions")
			if !reflect.DeepEqual(ca, cb) {
				t.Errorf("counts %v, fresh %v", ca, cb)
			}
			var bumped int
			l.db(t).QueryRow(`SELECT count(*) FROM node_versions WHERE version = 2 AND trigger_reason = 'append'`).Scan(&bumped)
			if bumped != extra || bumped > 1 || c.bump && bumped != 1 {
				t.Errorf("%d nodes bumped by the append, %d extra versions", bumped, extra)
			}
			if bumped == 1 {
				var prev string
				l.db(t).QueryRow(`SELECT json_extract(node, '$.previousVersions') FROM nodes WHERE version = 2`).Scan(&prev)
				if !strings.Contains(prev, "-v1") {
					t.Errorf("previousVersions %s", prev)
				}
			}

			// Importing the grown file again changes nothing.
			if f4 := l.importPaths(t, live).Files[0]; f4.Status != ingest.StatusUnchanged {
				t.Errorf("re-import after append: %+v", f4)
			}
		})
	}
}

func firstDiff(a, b []string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			at := 0
			for at < len(a[i]) && at < len(b[i]) && a[i][at] == b[i][at] {
				at++
			}
			from := max(0, at-150)
			return fmt.Sprintf("row %d, from byte %d:\n  %.400s\n  %.400s", i, from, a[i][from:], b[i][from:])
		}
	}
	return fmt.Sprintf("%d rows vs %d", len(a), len(b))
}

func TestAllOrNothing(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, filepath.Join("samples", "session-with-compaction.jsonl"))
	before, snap := l.tableCounts(t), l.snapshot(t)

	boom := errors.New("disk on fire")
	l.Import.failImport = func(n int) error {
		if n == 500 {
			return boom
		}
		return nil
	}
	defer func() { l.Import.failImport = nil }()
	rep := l.importPaths(t, filepath.Join("samples", "large-session.jsonl"), filepath.Join("samples", "compact-with-images.jsonl"))
	if rep.Totals.Failed != 2 || rep.Files[0].Status != ingest.StatusFailed || !strings.Contains(rep.Files[0].Error, "disk on fire") ||
		!strings.Contains(rep.Files[0].Error, "large-session.jsonl") {
		t.Fatalf("report %+v", rep)
	}
	if rep.Files[0].Entries != 0 || rep.Files[0].SessionID == "" {
		t.Errorf("failed report %+v", rep.Files[0])
	}
	if after := l.tableCounts(t); !reflect.DeepEqual(after, before) {
		t.Errorf("counts %v, want %v", after, before)
	}
	if !reflect.DeepEqual(l.snapshot(t), snap) {
		t.Error("library changed")
	}

	// A failure in an append leaves the earlier import whole.
	l.Import.failImport = nil
	dir := t.TempDir()
	live := filepath.Join(dir, "large-session.jsonl")
	full, _ := os.ReadFile(filepath.Join("samples", "large-session.jsonl"))
	os.WriteFile(live, prefixLines(full, 300), 0o644)
	l.importPaths(t, live)
	before, snap = l.tableCounts(t), l.snapshot(t)
	totals, _ := l.storedTotals(t)
	os.WriteFile(live, full, 0o644)
	l.Import.failImport = func(n int) error {
		if n == 600 { // after segments of the append were written (and counted)
			return boom
		}
		return nil
	}
	if rep := l.importPaths(t, live); rep.Files[0].Status != ingest.StatusFailed {
		t.Fatalf("append %+v", rep.Files[0])
	}
	if after := l.tableCounts(t); !reflect.DeepEqual(after, before) || !reflect.DeepEqual(l.snapshot(t), snap) {
		t.Errorf("append failure changed the library: %v, want %v", after, before)
	}
	if after, _ := l.storedTotals(t); !reflect.DeepEqual(after, totals) {
		t.Errorf("append failure changed the session's totals: %+v, want %+v", after, totals)
	}
	l.Import.failImport = nil
	if rep := l.importPaths(t, live); rep.Files[0].Status != ingest.StatusAppended || rep.Files[0].Entries != 1018 {
		t.Fatalf("append after the failure %+v", rep.Files[0])
	}
}

func TestMalformedLines(t *testing.T) {
	full, _ := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	var b bytes.Buffer
	lines := bytes.SplitAfter(full, []byte("\n"))
	bad := map[int]string{3: "garbage{{\n", 10: "[1, 2, 3]\n", 50: "{\"no\":\"type\"}\n", 200: "{\"type\":\"message\",\"message\":\n"}
	wantLines := []int{}
	out := 0
	for i, ln := range lines {
		if s, ok := bad[i]; ok {
			b.WriteString(s)
			out++
			wantLines = append(wantLines, out)
		}
		b.Write(ln)
		if len(ln) > 0 {
			out++
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "with-garbage.jsonl")
	os.WriteFile(p, b.Bytes(), 0o644)

	l := newTestLib(t)
	fr := l.importPaths(t, p).Files[0]
	if fr.Status != ingest.StatusImported || fr.Entries != 463 {
		t.Fatalf("%+v", fr)
	}
	var got []int
	for _, m := range fr.MalformedLines {
		got = append(got, m.Line)
		if m.Reason == "" || m.Offset <= 0 {
			t.Errorf("problem %+v", m)
		}
	}
	if !reflect.DeepEqual(got, wantLines) {
		t.Errorf("malformed lines %v, want %v", got, wantLines)
	}
	ss, _ := l.Library.Sessions("")
	if len(ss) != 1 || ss[0].Malformed != len(wantLines) || ss[0].Entries != 463 {
		t.Errorf("sessions %+v", ss)
	}
}

func TestFailedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	noHeader := write("no-header.jsonl", `{"type":"message","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`+"\n")
	empty := write("empty.jsonl", "")
	notJSON := write("not-json.jsonl", "hello\nworld\n")
	missing := filepath.Join(dir, "missing.jsonl")
	l := newTestLib(t)
	rep := l.importPaths(t, noHeader, empty, filepath.Join("samples", "large-session.jsonl"), notJSON, missing)
	if rep.Totals.Failed != 4 || rep.Totals.Imported != 1 || rep.Totals.Files != 5 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	for _, fr := range rep.Files {
		if fr.Status == ingest.StatusImported {
			continue
		}
		base := filepath.Base(fr.Path)
		if fr.Status != ingest.StatusFailed || !strings.Contains(fr.Error, base) || fr.Entries != 0 {
			t.Errorf("%s: %+v", base, fr)
		}
		if base == "no-header.jsonl" && !strings.Contains(fr.Error, "header") {
			t.Errorf("no header: %s", fr.Error)
		}
	}
	if c := l.tableCounts(t); c["sessions"] != 1 || c["entries"] != 1018 {
		t.Errorf("counts %v", c)
	}
}

func TestReplacedSession(t *testing.T) {
	src := filepath.Join("samples", "compact-with-images.jsonl")
	full, _ := os.ReadFile(src)
	dir := t.TempDir()
	live := filepath.Join(dir, "session.jsonl")
	os.WriteFile(live, full, 0o644)
	l := newTestLib(t)
	l.importPaths(t, live)
	nodesBefore := map[string]bool{}
	g, _ := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	for _, n := range g.Nodes {
		nodesBefore[n.ID] = true
	}

	// pi rewrote the file: same header, the entries from the second
	// compaction on are gone and a line in the middle changed.
	lines := bytes.SplitAfter(full, []byte("\n"))
	keep := 700
	var b bytes.Buffer
	for i, ln := range lines[:keep] {
		if i == 5 {
			ln = bytes.Replace(ln, []byte(`"role":"`), []byte(`"role" : "`), 1)
		}
		b.Write(ln)
	}
	os.WriteFile(live, b.Bytes(), 0o644)
	fr := l.importPaths(t, live).Files[0]
	if fr.Status != ingest.StatusImported || fr.Entries != keep-1 || fr.NewEntries != keep-1 {
		t.Fatalf("replace %+v", fr)
	}
	fresh := newTestLib(t)
	fresh.importPaths(t, live)
	a, f := l.snapshot(t), fresh.snapshot(t)
	if !reflect.DeepEqual(a, f) {
		t.Errorf("replaced session differs from a fresh import:\nentries %s\nnodes %s\nedges %s",
			firstDiff(a.Entries, f.Entries), firstDiff(a.Nodes, f.Nodes), firstDiff(a.Edges, f.Edges))
	}
	// Nodes made again have a new version; the others are gone.
	g, _ = l.Graph.Graph(GraphFilter{NoKnowledge: true})
	replaced := 0
	for _, n := range g.Nodes {
		d, err := l.Graph.Node(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		if nodesBefore[n.ID] {
			replaced++
			if d.Node.Version != 2 || d.Versions[1].TriggerReason != store.TriggerReplace {
				t.Errorf("node %s: version %d, versions %+v", n.ID, d.Node.Version, d.Versions)
			}
		}
	}
	if replaced == 0 || len(g.Nodes) >= len(nodesBefore) {
		t.Errorf("%d nodes (%d replaced), %d before", len(g.Nodes), replaced, len(nodesBefore))
	}
	ca, cf := l.tableCounts(t), fresh.tableCounts(t)
	if ca["entries"] != cf["entries"] || ca["nodes"] != cf["nodes"] || ca["edges"] != cf["edges"] || ca["entries_fts"] != cf["entries_fts"] {
		t.Errorf("counts %v, fresh %v", ca, cf)
	}
}

func TestForkEdges(t *testing.T) {
	tree, fork, clone := filepath.Join(v3Dir, v3Tree), filepath.Join(v3Dir, v3Fork), filepath.Join(v3Dir, v3Clone)
	treeID := sessionIDOf(t, tree)
	// Where each child left the tree: the last copied entry, and the tree
	// segment that holds it.
	want := map[string]string{} // child node id -> parent node id
	ts, err := pisession.ReadFile(tree)
	if err != nil {
		t.Fatal(err)
	}
	treeSegs := segment.Split(ts.Entries, segment.DefaultOptions())
	nodeOfEntry := func(id string) string {
		for _, e := range ts.Entries {
			if e.ID == id {
				for _, g := range treeSegs {
					if e.Seq >= g.StartSeq && e.Seq <= g.EndSeq {
						return analyze.NodeID(treeID, g.StartSeq)
					}
				}
			}
		}
		t.Fatalf("entry %s not in the tree", id)
		return ""
	}
	for child, leaf := range map[string]string{fork: "55280234", clone: "bdc4938f"} {
		cs, err := pisession.ReadFile(child)
		if err != nil {
			t.Fatal(err)
		}
		want[analyze.NodeID(cs.Header.ID, cs.Entries[0].Seq)] = nodeOfEntry(leaf)
	}
	forkEdges := func(l *testLib) map[string]string {
		g, err := l.Graph.Graph(GraphFilter{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, e := range g.Edges {
			if e.Type == "fork" {
				got[e.Target] = e.Source
				if e.Metadata["childSession"] == nil || e.Metadata["forkEntryId"] == nil {
					t.Errorf("fork edge metadata %v", e.Metadata)
				}
			}
		}
		return got
	}
	for _, order := range [][]string{{tree, fork, clone}, {fork, clone, tree}, {clone, tree, fork}} {
		l := newTestLib(t)
		for _, f := range order { // one import per file: the parent may come later
			if fr := l.importPaths(t, f).Files[0]; fr.Status != ingest.StatusImported {
				t.Fatalf("%+v", fr)
			}
		}
		if got := forkEdges(l); !reflect.DeepEqual(got, want) {
			t.Errorf("order %v: fork edges %v, want %v", order, got, want)
		}
		// Importing everything again keeps the same edges.
		l.importPaths(t, v3Dir)
		if got := forkEdges(l); !reflect.DeepEqual(got, want) {
			t.Errorf("after re-import: fork edges %v, want %v", got, want)
		}
	}
	// All in one import, as a folder.
	l := newTestLib(t)
	rep := l.importPaths(t, v3Dir)
	if rep.Totals.Imported != 5 {
		t.Fatalf("%+v", rep.Totals)
	}
	if got := forkEdges(l); !reflect.DeepEqual(got, want) {
		t.Errorf("folder: fork edges %v, want %v", got, want)
	}
	if fr := reportByName(t, rep, v3Fork); fr.EdgesByType["fork"] != 1 {
		t.Errorf("fork report %+v", fr)
	}
}

func TestPiFolderLayout(t *testing.T) {
	// ~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl
	root := filepath.Join(t.TempDir(), ".pi", "agent", "sessions")
	for _, d := range []string{"--home-dana-src-acme-api--", "--home-dana-src-ledger-svc--"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	entries, _ := os.ReadDir(v3Dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(v3Dir, e.Name()))
		d := "--home-dana-src-acme-api--"
		if bytes.Contains(b[:300], []byte("ledger-svc")) {
			d = "--home-dana-src-ledger-svc--"
		}
		os.WriteFile(filepath.Join(root, d, e.Name()), b, 0o644)
	}
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("not a session"), 0o644)
	l := newTestLib(t)
	rep := l.importPaths(t, filepath.Join(root, ".."))
	if rep.Totals.Files != 5 || rep.Totals.Imported != 5 {
		t.Fatalf("%+v", rep.Totals)
	}
	ps, _ := l.Library.Projects()
	if len(ps) != 2 || ps[0].Name != "acme-api" || ps[0].Sessions != 4 || ps[1].Name != "ledger-svc" {
		t.Errorf("projects %+v", ps)
	}
	// isNewProject: the first session imported of each project only.
	newProject := 0
	g, _ := l.Graph.Graph(GraphFilter{})
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if seen[n.SessionID] {
			continue
		}
		seen[n.SessionID] = true
		d, _ := l.Graph.Node(n.ID)
		if d.Node.Classification.IsNewProject {
			newProject++
		}
	}
	if newProject != 2 {
		t.Errorf("%d sessions are a new project, want 2", newProject)
	}
}

func TestImportFilesAndDialogs(t *testing.T) {
	l := newTestLib(t)
	b, _ := os.ReadFile(filepath.Join(v3Dir, v3Tree))
	rep, err := l.Import.ImportFiles([]DroppedFile{
		{Name: v3Tree, Content: base64.StdEncoding.EncodeToString(b)},
		{Name: "bad.jsonl", Content: "%%%"},
	})
	if err != nil || rep.Files[0].Status != ingest.StatusImported || rep.Files[0].Entries != 39 || rep.Files[1].Status != ingest.StatusFailed {
		t.Fatalf("%v %+v", err, rep)
	}
	if _, err := l.Import.ChooseAndImport(); !errors.Is(err, ErrNoDialogs) {
		t.Errorf("no dialogs: %v", err)
	}
	l.SetDialogs(fakeDialogs{})
	rep, err = l.Import.ChooseAndImport()
	if err != nil || rep.Files == nil || len(rep.Files) != 0 {
		t.Errorf("cancelled: %v %+v", err, rep)
	}
	l.SetDialogs(fakeDialogs{paths: []string{filepath.Join("samples", "large-session.jsonl")}})
	rep, err = l.Import.ChooseAndImport()
	if err != nil || rep.Totals.Imported != 1 {
		t.Errorf("chosen: %v %+v", err, rep)
	}
	rep, err = l.Import.ImportSamples()
	if err != nil || rep.Totals.Files != 3 || rep.Totals.Imported != 2 || rep.Totals.Unchanged != 1 {
		t.Errorf("samples: %v %+v", err, rep.Totals)
	}
}

type fakeDialogs struct{ paths []string }

func (f fakeDialogs) OpenFiles(context.Context, string) ([]string, error) { return f.paths, nil }
func (f fakeDialogs) OpenFolder(context.Context, string) (string, error)  { return "", nil }

// A session stored without the state an append goes on from (by a Rhizome
// older than migration 0030) is read again whole when its file grows, and
// the library ends as a fresh import leaves it.
func TestAppendWithoutStoredStateReimports(t *testing.T) {
	full, _ := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	live := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(live, prefixLines(full, 200), 0o644)
	l := newTestLib(t)
	l.importPaths(t, live)
	if _, err := l.db(t).Exec(`UPDATE sessions SET resume = '', imported_probe = ''`); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(live, full, 0o644)
	fr := l.importPaths(t, live).Files[0]
	if fr.Status != ingest.StatusImported || fr.Entries != 463 || fr.NewEntries != 463 {
		t.Fatalf("%+v", fr)
	}
	fresh := newTestLib(t)
	fresh.importPaths(t, live)
	a, b := l.snapshot(t), fresh.snapshot(t)
	if !reflect.DeepEqual(a.Entries, b.Entries) || !reflect.DeepEqual(a.Nodes, b.Nodes) || !reflect.DeepEqual(a.Edges, b.Edges) {
		t.Errorf("differs from a fresh import: %s", firstDiff(a.Entries, b.Entries))
	}
}

func TestImportCancelled(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, filepath.Join("samples", "session-with-compaction.jsonl"))
	before, snap := l.tableCounts(t), l.snapshot(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l.SetContext(ctx)
	l.Import.failImport = func(n int) error {
		if n == 300 {
			cancel()
		}
		return nil
	}
	defer func() { l.Import.failImport = nil }()
	rep := l.importPaths(t, filepath.Join("samples", "large-session.jsonl"), filepath.Join("samples", "compact-with-images.jsonl"))
	if rep.Totals.Files != 2 || rep.Totals.Failed != 2 || !strings.Contains(rep.Files[1].Error, "cancel") {
		t.Fatalf("%+v", rep)
	}
	if after := l.tableCounts(t); !reflect.DeepEqual(after, before) || !reflect.DeepEqual(l.snapshot(t), snap) {
		t.Errorf("counts %v, want %v", after, before)
	}
}

// A damaged file whose entries all carry the same id still gives every
// segment its own node: node ids come from positions, not entry ids.
func TestRepeatedEntryIDsKeepEverySegment(t *testing.T) {
	l := newTestLib(t)
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"dup-ids","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp/dup"}` + "\n")
	for i := 0; i < 6; i++ {
		parent := `"aaaaaaaa"`
		if i == 0 {
			parent = "null"
		}
		fmt.Fprintf(&b, `{"type":"message","id":"aaaaaaaa","parentId":%s,"timestamp":"2025-01-01T0%d:00:00.000Z","message":{"role":"user","content":"request %d"}}`+"\n", parent, i, i)
	}
	p := filepath.Join(t.TempDir(), "dup.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f := reportByName(t, l.importPaths(t, p), "dup.jsonl")
	if f.Status != "imported" || f.Entries != 6 || f.Segments != 6 {
		t.Fatalf("report %+v, want 6 entries in 6 segments (hour-long gaps)", f)
	}
	counts := l.tableCounts(t)
	if counts["nodes"] != 6 || counts["node_versions"] != 6 || counts["edges"] != 5 {
		t.Errorf("nodes %d, versions %d, edges %d; want 6, 6, 5", counts["nodes"], counts["node_versions"], counts["edges"])
	}
}
