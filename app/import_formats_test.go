package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rhizome/app/ingest"
	"rhizome/backend/claudecode"
	"rhizome/backend/codex"
	"rhizome/backend/copilot"
	"rhizome/backend/qwen"
	"rhizome/backend/search"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/store"
)

// The real Claude Code and Codex logs, made by the real programs (Claude
// Code 2.1.197, Codex 0.169.0) against scripted local model servers; see
// the readers' testdata/generate.
const (
	claudeHome   = "../backend/claudecode/testdata/claude-home/projects"
	claudeMain   = "5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41"
	claudeFork   = "4b8ffd03-82e2-4bd0-a892-6c7ed15aeaea"
	claudeAgent  = "a765be5fbac609558"
	codexHome    = "../backend/codex/testdata/codex-home"
	codexMain    = "01a20d3a-bd07-7491-8132-c49792fbf869"
	codexAgent   = "01a20d3a-c090-7762-b7c9-19d96f2a2538"
	codexFork    = "01a20d3a-c584-7af0-bccf-99d2a7a1f38d"
	codexWindow  = codexMain + "_01a20d3a-c6c1-7c32-8289-c1191393189b"
	claudeHandMd = "../backend/claudecode/testdata/handmade"
	codexHandMd  = "../backend/codex/testdata/handmade"
)

// otherFiles lists the real and hand-made Claude Code, Qwen Code, Copilot
// CLI and Codex files by format.
func otherFiles(t *testing.T) map[string][]string {
	t.Helper()
	glob := func(p string) []string {
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %v %v", p, m, err)
		}
		return m
	}
	cc := append(glob(claudeHome+"/*/*.jsonl"), glob(claudeHome+"/*/*/subagents/*.jsonl")...)
	cc = append(cc, glob(claudeHandMd+"/*.jsonl")...)
	cx := append(glob(codexHome+"/sessions/*/*/*/*.jsonl"), glob(codexHome+"/archived_sessions/*.jsonl")...)
	cx = append(cx, glob(codexHandMd+"/*.jsonl")...)
	qw := append(glob(qwenHome+"/projects/*/chats/*.jsonl"), glob(qwenHome+"/projects/*/subagents/*/*.jsonl")...)
	qw = append(qw, glob(qwenHandMd+"/*.jsonl")...)
	cp := append(glob(copilotHome+"/session-state/*/events.jsonl"), glob(copilotHandMd+"/*.jsonl")...)
	return map[string][]string{sessionformat.ClaudeCode: cc, sessionformat.Codex: cx, sessionformat.QwenCode: qw, sessionformat.Copilot: cp}
}

// readOther reads a Claude Code, Qwen Code, Copilot CLI or Codex file with
// its own reader.
func readOther(t *testing.T, format, path string) ([]session.Entry, session.Header) {
	t.Helper()
	if format == sessionformat.Copilot {
		s, err := copilot.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.Entries, s.Header
	}
	if format == sessionformat.QwenCode {
		s, err := qwen.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.Entries, s.Header
	}
	if format == sessionformat.ClaudeCode {
		s, err := claudecode.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.Entries, s.Header
	}
	s, err := codex.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s.Entries, s.Header
}

// Claude Code and Codex files import as pi sessions do (issue 11 §1): every
// line an entry, segments and boundaries as the segmenter cuts them with
// the format's branch rule (no false tree jumps), a node per segment, titles
// from the metadata lines and session_index.jsonl, and the links between
// sessions: sub-agent transcripts to the call that spawned them, a Claude
// Code fork (found by its copied uuids, which are marked copies and not
// counted again) and Codex forks to their parents.
func TestImportClaudeCodeAndCodex(t *testing.T) {
	l := newTestLib(t)
	// The homes as a whole: Codex's session_index.jsonl is its threads' names,
	// not a session; a folder import passes over it as the watcher does.
	rep := l.importPaths(t, claudeHome, codexHome)
	if rep.Totals.Files != 7 || rep.Totals.Imported != 7 || rep.Totals.Failed != 0 {
		t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
	}
	db := l.db(t)
	for _, fr := range rep.Files {
		format := sessionformat.Codex
		if strings.Contains(fr.Path, "claude-home") {
			format = sessionformat.ClaudeCode
		}
		if fr.Format != format {
			t.Errorf("%s: format %q, want %q", fr.Path, fr.Format, format)
		}
		entries, hdr := readOther(t, format, fr.Path)
		if fr.SessionID != hdr.ID || fr.Entries != len(entries) || fr.NewEntries != len(entries) {
			t.Errorf("%s: %s, %d entries (%d new); the reader reads %s, %d", filepath.Base(fr.Path), fr.SessionID, fr.Entries, fr.NewEntries, hdr.ID, len(entries))
		}
		segs := segment.Split(entries, segment.OptionsFor(format))
		if fr.Segments != len(segs) || fr.BoundariesByType["tree_jump"] != 0 {
			t.Errorf("%s: %d segments %v, the segmenter cuts %d", filepath.Base(fr.Path), fr.Segments, fr.BoundariesByType, len(segs))
		}
		var nodes int
		db.QueryRow(`SELECT count(*) FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ?`, hdr.ID).Scan(&nodes)
		if nodes != len(segs) {
			t.Errorf("%s: %d nodes for %d segments", filepath.Base(fr.Path), nodes, len(segs))
		}
	}

	byID := sessionsByID(t, l)
	if s := byID[claudeMain]; s.Format != sessionformat.ClaudeCode || s.Name == "" || s.Name == filepath.Base(s.Path) {
		t.Errorf("Claude Code session %+v: want its title", s)
	}
	if s := byID[codexMain]; s.Format != sessionformat.Codex || s.Name != "Ledger total: label and review" {
		t.Errorf("Codex session %+v: want the title of session_index.jsonl", s)
	}
	if s := byID[codexMain]; !s.CostUnknown {
		t.Errorf("Codex session %+v: gpt-5.5-codex has no price in the table: its cost is unknown", s)
	}
	if s := byID[claudeMain]; s.CostUnknown || s.Cost <= 0 {
		t.Errorf("Claude Code session %+v: priced by its reader", s)
	}
	// A project says its cost is a lower bound when one of its sessions'
	// models has no price.
	ps, err := l.Library.Projects()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if want := p.Path == byID[codexMain].Project; p.CostUnknown != want {
			t.Errorf("project %s: cost unknown %v, want %v", p.Path, p.CostUnknown, want)
		}
	}

	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	nodeSession := map[string]string{}
	for _, n := range g.Nodes {
		nodeSession[n.ID] = n.SessionID
	}
	edgeInto := func(typ, childID string) *GraphEdge {
		var found *GraphEdge
		for i, e := range g.Edges {
			if e.Type == typ && nodeSession[e.Target] == childID {
				if found != nil {
					t.Errorf("two %s edges into %s", typ, childID)
				}
				found = &g.Edges[i]
			}
		}
		return found
	}
	// The node of a session holding the entry at seq.
	nodeOf := func(sessionID string, seq int) string {
		var id string
		if err := db.QueryRow(`SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk
			JOIN segments g ON g.session_pk = n.session_pk AND g.idx = n.segment_idx
			WHERE s.id = ? AND g.start_seq <= ? AND g.end_seq >= ?`, sessionID, seq, seq).Scan(&id); err != nil {
			t.Fatalf("node of %s seq %d: %v", sessionID, seq, err)
		}
		return id
	}
	spawnSeq := func(format, path, agent string) int {
		entries, _ := readOther(t, format, path)
		for _, e := range entries {
			if e.SubagentID == agent && e.Type == session.TypeMessage {
				return e.Seq
			}
		}
		t.Fatalf("%s: no entry spawns %s", path, agent)
		return 0
	}
	for _, c := range []struct {
		format, parent, parentPath, child, agent string
	}{
		{sessionformat.ClaudeCode, claudeMain, claudeHome + "/-tmp-rhizome-claudecode-fixtures-work-acme-api/" + claudeMain + ".jsonl", "agent-" + claudeAgent, claudeAgent},
		{sessionformat.Codex, codexMain, codexHome + "/sessions/2026/11/24/rollout-2026-11-24T11-04-43-" + codexMain + ".jsonl", codexAgent, codexAgent},
	} {
		e := edgeInto("subagent", c.child)
		if e == nil {
			t.Errorf("%s: no subagent edge into %s", c.format, c.child)
			continue
		}
		if want := nodeOf(c.parent, spawnSeq(c.format, c.parentPath, c.agent)); e.Source != want || nodeSession[e.Target] != c.child {
			t.Errorf("%s: subagent edge %s -> %s, want from %s (the node of the spawning call)", c.format, e.Source, e.Target, want)
		}
		if edgeInto("fork", c.child) != nil {
			t.Errorf("%s: the sub-agent %s also got a fork edge", c.format, c.child)
		}
	}
	for _, child := range []string{claudeFork, codexFork, codexWindow} {
		e := edgeInto("fork", child)
		if e == nil {
			t.Errorf("no fork edge into %s", child)
			continue
		}
		if parent := nodeSession[e.Source]; parent != claudeMain && parent != codexMain {
			t.Errorf("fork edge into %s from session %s", child, parent)
		}
	}
}

// Each Claude Code release the generator ran (2.1.197 and 2.1.332, the
// newest npm served) imports whole from its own home: every line an entry,
// the file given back byte for byte, a node per segment the segmenter
// cuts, the session titled and priced, the sub-agent's transcript linked
// from the node of the call that spawned it, and the fork's copied lines
// marked copies of the main session's, by uuid (its own turn is not).
func TestImportClaudeCodeReleases(t *testing.T) {
	for _, rel := range []struct {
		version, home, fork, agent string
	}{
		{"2.1.197", claudeHome, claudeFork, claudeAgent},
		{"2.1.332", "../backend/claudecode/testdata/claude-home-2.1.332/projects", "94221956-a045-42d1-b253-ae844e9ed501", "af55d8c78a5bc6632"},
	} {
		t.Run(rel.version, func(t *testing.T) {
			l := newTestLib(t)
			rep := l.importPaths(t, rel.home)
			if rep.Totals.Files != 3 || rep.Totals.Imported != 3 || rep.Totals.Failed != 0 {
				t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
			}
			db := l.db(t)
			for _, fr := range rep.Files {
				entries, hdr := readOther(t, sessionformat.ClaudeCode, fr.Path)
				if fr.Format != sessionformat.ClaudeCode || fr.SessionID != hdr.ID || fr.Entries != len(entries) {
					t.Errorf("%s: %s %s, %d entries; the reader reads %s, %d", filepath.Base(fr.Path), fr.Format, fr.SessionID, fr.Entries, hdr.ID, len(entries))
				}
				segs := segment.Split(entries, segment.OptionsFor(sessionformat.ClaudeCode))
				var nodes int
				db.QueryRow(`SELECT count(*) FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ?`, hdr.ID).Scan(&nodes)
				if fr.Segments != len(segs) || nodes != len(segs) {
					t.Errorf("%s: %d segments, %d nodes; the segmenter cuts %d", filepath.Base(fr.Path), fr.Segments, nodes, len(segs))
				}
				checkExportedBack(t, l, fr)
			}
			byID := sessionsByID(t, l)
			if s := byID[claudeMain]; s.Name == "" || s.Name == filepath.Base(s.Path) || s.CostUnknown || s.Cost <= 0 {
				t.Errorf("the main session %+v: titled by its metadata lines, priced by its reader", s)
			}
			if s := byID["agent-"+rel.agent]; s.ParentSession != claudeMain {
				t.Errorf("the sub-agent %+v: a child of %s", s, claudeMain)
			}
			// The sub-agent's first node is linked from the node of the call
			// that spawned it.
			var spawned bool
			for _, id := range sessionNodes(t, l, claudeMain) {
				for _, v := range allEntries(t, l, id) {
					spawned = spawned || v.SubagentID == rel.agent && v.SubagentNodeID != ""
				}
			}
			if !spawned {
				t.Errorf("no entry of %s links the sub-agent %s's node", claudeMain, rel.agent)
			}
			// The fork's copied lines are copies of the main session's, by
			// uuid; its own turn is not.
			mainEntries, _ := readOther(t, sessionformat.ClaudeCode, rel.home+"/-tmp-rhizome-claudecode-fixtures-work-acme-api/"+claudeMain+".jsonl")
			inMain := map[string]bool{}
			for _, e := range mainEntries {
				if k := claudecode.DedupeKey(&e); k != "" {
					inMain[k] = true
				}
			}
			rows, err := db.Query(`SELECT e.entry_id, e.meta FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.id = ? ORDER BY e.seq`, rel.fork)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			copies, own := 0, 0
			for rows.Next() {
				var id, meta string
				if err := rows.Scan(&id, &meta); err != nil {
					t.Fatal(err)
				}
				var m struct {
					DuplicateOf string `json:"duplicateOf"`
				}
				if meta != "" {
					json.Unmarshal([]byte(meta), &m)
				}
				switch {
				case inMain[id]:
					copies++
					if m.DuplicateOf != "rhizome:entry/"+claudeMain+"/"+id {
						t.Errorf("fork entry %s, copied from the main session: duplicateOf %q", id, m.DuplicateOf)
					}
				case m.DuplicateOf != "":
					t.Errorf("fork entry %s is its own, marked a copy of %s", id, m.DuplicateOf)
				default:
					own++
				}
			}
			if copies == 0 || own == 0 {
				t.Errorf("fork: %d copies, %d own entries", copies, own)
			}
		})
	}
}

// A Codex rollback keeps the turns it supersedes, flagged, and starts a
// branch from before them; the entry view says so (shown dimmed).
func TestCodexRolledBackTurnsKeptAndFlagged(t *testing.T) {
	path := codexHandMd + "/wrapped-legacy.jsonl"
	s, err := codex.ReadFile(path) // flags rolled-back entries (FlagRolledBack)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{}
	for _, e := range s.Entries {
		if e.RolledBack {
			want[e.Seq] = true
		}
	}
	if len(want) == 0 {
		t.Fatal("the hand-made rollout has no rolled-back entry")
	}
	l := newTestLib(t)
	fr := l.importPaths(t, path).Files[0]
	if fr.Status != ingest.StatusImported || fr.BoundariesByType["branch"] != 1 {
		t.Fatalf("%+v", fr)
	}
	got := map[int]bool{}
	for _, id := range sessionNodes(t, l, s.Header.ID) {
		for _, v := range allEntries(t, l, id) {
			if v.RolledBack {
				got[v.Seq] = true
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("rolled back in the library %v, the reader says %v", got, want)
	}
	for seq := range want {
		if !got[seq] {
			t.Errorf("entry %d: rolled back by the reader, not in the library", seq)
		}
	}
}

// A file that is no session Rhizome reads fails with an error that names
// the file and says what it looks like; one of each kind, dropped.
func TestUnknownFormatSaysWhatItLooksLike(t *testing.T) {
	l := newTestLib(t)
	index, _ := os.ReadFile(codexHome + "/session_index.jsonl")
	rep, err := l.Import.ImportFiles([]DroppedFile{
		dropped("notes.jsonl", []byte("hello world\n")),
		dropped("index.jsonl", index),
		dropped("graph.json", []byte(`{"nodes": {"n1": {"node_id": "n1", "kind": "task", "thought": "x"}}, "edges": []}`)),
		dropped("empty.jsonl", nil),
		// One JSON object of 17 MB on one whole line: no session's first
		// line, not one being written.
		dropped("huge.jsonl", []byte(`{"a":"`+strings.Repeat("x", 17<<20)+`"}`+"\n")),
	})
	if err != nil {
		t.Fatal(err)
	}
	// A file that looks like a MemoBrain snapshot is read as one (its
	// report comes after the session files') and says what is wrong in it.
	want := map[string]string{"notes.jsonl": "not json", "index.jsonl": "thread_name", "graph.json": "memobrain", "empty.jsonl": "empty",
		"huge.jsonl": "first line is longer than 16 mb"}
	if len(rep.Files) != len(want) {
		t.Fatalf("%d reports, want %d", len(rep.Files), len(want))
	}
	for _, fr := range rep.Files {
		w := want[filepath.Base(fr.Path)]
		if w == "" || fr.Status != ingest.StatusFailed || !strings.Contains(strings.ToLower(fr.Error), w) || !strings.Contains(fr.Error, fr.Path) {
			t.Errorf("%s: %s %q, want an error naming it and %q", fr.Path, fr.Status, fr.Error, w)
		}
	}
}

// The analysis of a Claude Code session counts each response once: the
// nodes' cost adds up to the reader's usage priced once per response.
func TestClaudeCodeCostCountedOnce(t *testing.T) {
	path := claudeHome + "/-tmp-rhizome-claudecode-fixtures-work-acme-api/" + claudeMain + ".jsonl"
	entries, _ := readOther(t, sessionformat.ClaudeCode, path)
	var want float64
	for _, e := range entries {
		if e.Message != nil && e.Message.Usage != nil && e.DuplicateOf == "" {
			want += e.Message.Usage.Cost.Total
		}
	}
	l := newTestLib(t)
	l.importPaths(t, path)
	ss, _ := l.Library.Sessions("")
	if len(ss) != 1 || want <= 0 || diff(ss[0].Cost, want) > 1e-9 {
		t.Errorf("session cost %v, the reader's responses cost %v", ss, want)
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}

func dropped(name string, b []byte) DroppedFile {
	return DroppedFile{Name: name, Content: base64.StdEncoding.EncodeToString(b)}
}

// An append goes on from the state stored at the last import (reader,
// segmenter, open segment's accumulator, hash, gaps) and leaves the library
// exactly as a fresh import of the grown file (issue 11 §2): for every real
// and hand-made Claude Code and Codex file, cut after every line and in the
// middle of lines (a half-written line pending; a response still awaiting
// its usage, an echo its twin: entries returned unsettled and replaced).
func TestAppendEqualsFullImportAllFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("the real-corpus matrix (a library per cut of every Claude Code and Codex file): make test runs it")
	}
	for format, files := range otherFiles(t) {
		for _, path := range files {
			t.Run(format+"/"+filepath.Base(path), func(t *testing.T) {
				t.Parallel() // libraries of its own: two files at once on two cores
				appendEqualsFullImport(t, format, path)
			})
		}
	}
}

// appendEqualsFullImport checks TestAppendEqualsFullImportAllFormats for the
// file at path, of format.
func appendEqualsFullImport(t *testing.T, format, path string) {
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(p, full, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := newTestLib(t)
	if fr := fresh.importPaths(t, p).Files[0]; fr.Status != ingest.StatusImported {
		t.Fatalf("%+v", fr)
	}
	want := fresh.snapshot(t)
	lines := bytes.Count(full, []byte("\n"))
	for k := 1; k < lines; k++ {
		cut := len(prefixLines(full, k))
		next := len(prefixLines(full, k+1))
		for _, at := range []int{cut, cut + (next-cut)/2} {
			if at == 0 || at >= len(full) {
				continue
			}
			l := newTestLib(t)
			os.WriteFile(p, full[:at], 0o644)
			f1 := l.importPaths(t, p).Files[0]
			os.WriteFile(p, full, 0o644)
			f2 := l.importPaths(t, p).Files[0]
			if f1.Status == ingest.StatusFailed && (strings.Contains(f1.Error, "still being written") || strings.Contains(f1.Error, "not a Claude Code session: no line with a sessionId")) {
				// Not a session yet: the lines that make its header
				// are still to come.
				if f2.Status != ingest.StatusImported {
					t.Fatalf("%s cut at %d: %+v", filepath.Base(path), at, f2)
				}
			} else if f1.Status != ingest.StatusImported || f2.Status != ingest.StatusAppended && f2.Status != ingest.StatusUnchanged {
				t.Fatalf("%s (%s) cut at byte %d (line %d): first %+v, then %+v", filepath.Base(path), format, at, k, f1, f2)
			}
			got := l.snapshot(t)
			for _, part := range []struct {
				name string
				a, b []string
			}{{"entries", got.Entries, want.Entries}, {"segments", got.Segments, want.Segments}, {"nodes", got.Nodes, want.Nodes},
				{"edges", got.Edges, want.Edges}, {"problems", got.Problems, want.Problems}, {"gaps", got.Gaps, want.Gaps},
				{"sessions", got.Sessions, want.Sessions}} {
				if !reflect.DeepEqual(part.a, part.b) {
					t.Fatalf("%s (%s) cut at byte %d (line %d): %s differ after the append:\n%s", filepath.Base(path), format, at, k, part.name, firstDiff(part.a, part.b))
				}
			}
		}
	}
}

// What a person reads of the real Codex rollout: the segment before the
// automatic compaction shows the model's summary, not Codex's preamble to
// the next model; the session's summary is about the work asked for, not
// the request to sum it up that preceded the compaction.
func TestCodexSummariesReadAsTheWork(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, codexHome+"/sessions")
	sess, err := l.Summaries.Get("rhizome:session/" + codexMain)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sess.Text, "Count the lines of main.py — main.py has 4 lines; it now prints total: 6.") || strings.Contains(sess.Text, "Summarise everything") {
		t.Errorf("session summary %q", sess.Text)
	}
	// Its title is the thread's name in session_index.jsonl, as a pi
	// session's is its session_info name; the worker's remade summary
	// keeps it.
	if sess.Title != "Ledger total: label and review" {
		t.Errorf("session title %q", sess.Title)
	}
	if _, err := l.Summaries.Regenerate([]string{"rhizome:session/" + codexMain}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.App.Summarize(context.Background(), SummarizeOptions{Offline: true}); err != nil {
		t.Fatal(err)
	}
	if again, _ := l.Summaries.Get("rhizome:session/" + codexMain); again.Title != sess.Title || again.Text != sess.Text {
		t.Errorf("remade: %q %q, want %q %q", again.Title, again.Text, sess.Title, sess.Text)
	}
	var node string
	l.db(t).QueryRow(`SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ? AND n.segment_idx = 0`, codexMain).Scan(&node)
	seg, err := l.Summaries.Get("rhizome:node/" + node)
	if err != nil {
		t.Fatal(err)
	}
	if seg.Text != "main.py counts a ledger total and now prints a label; a sub-agent confirmed total([]) is 0." || seg.Source != "pi" {
		t.Errorf("the compacted segment's summary: %q (%s)", seg.Text, seg.Source)
	}
}

// Every use case that reads a stored Claude Code or Codex session back
// decodes it with its format's reader, as the import did: the worker's
// summaries, the analyzer's transcript, the knowledge re-extraction, a
// reasoning run's conversation and an entry taken into a loom tree. Read
// as pi's format, their lines are entries of unknown types with no
// messages ("No conversation", an empty transcript, no knowledge).
func TestStoredClaudeAndCodexSessionsReadBack(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, claudeHome, codexHome+"/sessions")
	ctx := context.Background()
	for _, tc := range []struct{ session, request string }{
		{codexMain, "Count the lines of main.py"},
		{claudeMain, "Look at main.go"},
	} {
		var node string
		l.db(t).QueryRow(`SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ? AND n.segment_idx = 0`, tc.session).Scan(&node)
		_, _, entries, err := l.Analysis.segmentEntries(ctx, node)
		if err != nil {
			t.Fatal(err)
		}
		var users []string
		for _, e := range entries {
			if e.Message != nil && e.Message.Role == session.RoleUser {
				users = append(users, session.EntryText(&e))
			}
		}
		if len(users) == 0 || !strings.Contains(strings.Join(users, "\n"), tc.request) {
			t.Errorf("%s: the analyzer's entries hold the user's messages %q, want %q", tc.session, users, tc.request)
		}

		sess, err := l.st.SessionByID(ctx, tc.session)
		if err != nil {
			t.Fatal(err)
		}
		conv, err := l.Reasoning.sessionConversation(ctx, sess)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(conv); !strings.Contains(string(b), tc.request) {
			t.Errorf("%s: the reasoning run's conversation lacks %q", tc.session, tc.request)
		}

		// A loom tree started from the user's message has its text as root.
		var entryID string
		l.db(t).QueryRow(`SELECT e.entry_id FROM entries e JOIN sessions s ON s.pk = e.session_pk
			WHERE s.id = ? AND e.role = 'user' AND e.text LIKE ? ORDER BY e.seq LIMIT 1`, tc.session, "%"+tc.request+"%").Scan(&entryID)
		tree, err := l.Loom.StartFrom("rhizome:entry/"+tc.session+"/"+entryID, "")
		if err != nil {
			t.Fatalf("%s: StartFrom entry %q: %v", tc.session, entryID, err)
		}
		if root := tree.Nodes[0]; !strings.Contains(root.Text, tc.request) {
			t.Errorf("%s: the loom tree's root %q", tc.session, root.Text)
		}
	}

	// The knowledge re-extraction finds what the import found.
	knowledgeOf := func() []string {
		return l.texts(t, `SELECT session_id || ' ' || kind || ' ' || title FROM knowledge WHERE created_by = 'offline' ORDER BY 1`)
	}
	before := knowledgeOf()
	if len(before) == 0 {
		t.Fatal("no offline knowledge in the Claude Code and Codex sessions: the test checks nothing")
	}
	if _, err := l.Knowledge.Reextract(); err != nil {
		t.Fatal(err)
	}
	if after := knowledgeOf(); !reflect.DeepEqual(after, before) {
		t.Errorf("knowledge after Reextract:\n%v\nafter the import:\n%v", after, before)
	}
}

// Filtering search by tool or model finds Claude Code and Codex messages
// too: an entry's facets are read in its format's shape.
func TestSearchFacetsOfClaudeAndCodexEntries(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, claudeHome, codexHome+"/sessions")
	ctx := context.Background()
	for _, tc := range []struct {
		session, tool, model string
	}{
		{claudeMain, "Bash", "claude-"},
		{codexMain, "exec_command", "gpt-5.5-codex"},
	} {
		var items []string
		for _, pk := range l.texts(t, `SELECT e.pk FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.id = ?`, tc.session) {
			n, _ := strconv.ParseInt(pk, 10, 64)
			items = append(items, store.EntryItem(n))
		}
		docs, err := l.st.SearchSource().Docs(ctx, items, search.Filter{Tools: []string{tc.tool}})
		if err != nil {
			t.Fatal(err)
		}
		calls, results, models := 0, 0, 0
		for _, d := range docs {
			if d.Kind != search.KindEntry || !slices.Contains(d.Tools, tc.tool) {
				continue
			}
			if d.Role == session.RoleToolResult {
				results++
			} else {
				calls++
			}
			for _, m := range d.Models {
				if tc.model != "" && strings.HasPrefix(m, tc.model) {
					models++
				}
			}
		}
		if calls == 0 || results == 0 || (tc.model != "" && models == 0) {
			t.Errorf("%s: %d calls and %d results of %s, %d entries of a %s model", tc.session, calls, results, tc.tool, models, tc.model)
		}
	}
}

// The background worker remakes a Claude Code or Codex session's summaries
// (after an append, a new rule, Regenerate) from its stored entries: it
// cuts them into the segments the import cut, with that format's options,
// and writes what the import wrote. With pi's options its segments began
// elsewhere and two of the main Claude Code session's nodes read "No
// conversation".
func TestWorkerRemakesTheImportsSummaries(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, claudeHome, codexHome+"/sessions")
	summaries := func() []string {
		return l.texts(t, `SELECT item || ' ' || title || ' ' || text FROM summaries
			WHERE kind IN ('session', 'segment') AND text <> '' ORDER BY item`)
	}
	before := summaries()
	if len(before) < 10 {
		t.Fatalf("%d summaries: the test checks little", len(before))
	}
	items := l.texts(t, `SELECT item FROM summaries WHERE kind IN ('session', 'segment')`)
	if _, err := l.Summaries.Regenerate(items); err != nil {
		t.Fatal(err)
	}
	made, err := l.App.Summarize(context.Background(), SummarizeOptions{Offline: true, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != len(items) {
		t.Fatalf("Summarize made %d of %d items", len(made), len(items))
	}
	if after := summaries(); !reflect.DeepEqual(after, before) {
		t.Errorf("summaries after the worker remade them:\n%s\nafter the import:\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
}

// A Claude Code or Codex session watched while it is written: after the
// appends and the worker's pass over what they left stale, its summaries
// read as an import of the whole file makes them.
func TestAppendedSessionSummariesAsAWholeImport(t *testing.T) {
	codexDir := filepath.Join(t.TempDir(), "codex")
	codexLive := filepath.Join(codexDir, "sessions/2026/11/24/rollout-2026-11-24T11-04-43-"+codexMain+".jsonl")
	codexFull, err := os.ReadFile(filepath.Join(codexHome, "sessions/2026/11/24/rollout-2026-11-24T11-04-43-"+codexMain+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	copyTree(t, codexDir, codexHome, func(rel string, b []byte) []byte {
		if strings.HasSuffix(rel, codexMain+".jsonl") && strings.Contains(rel, "sessions/") {
			return cutAt(b, 0.4, false)
		}
		return b
	})
	claudeDir, claudeLive, claudeFull := halfWrittenClaudeHome(t)
	for _, tc := range []struct {
		name, dir, live string
		full            []byte
	}{
		{"claude-code", claudeDir, claudeLive, claudeFull},
		{"codex", codexDir + "/sessions", codexLive, codexFull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLib(t)
			l.importPaths(t, tc.dir)
			if err := os.WriteFile(tc.live, tc.full, 0o644); err != nil {
				t.Fatal(err)
			}
			if rep := l.importPaths(t, tc.live); rep.Files[0].Status != ingest.StatusAppended {
				t.Fatalf("append: %+v", rep.Files[0])
			}
			if _, err := l.App.Summarize(context.Background(), SummarizeOptions{Offline: true}); err != nil {
				t.Fatal(err)
			}
			query := `SELECT item || ' ' || title || ' ' || text FROM summaries WHERE kind IN ('session', 'segment') ORDER BY item`
			whole := newTestLib(t)
			whole.importPaths(t, tc.dir)
			if got, want := l.texts(t, query), whole.texts(t, query); !reflect.DeepEqual(got, want) {
				t.Errorf("after the append and the worker:\n%s\nan import of the whole files:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// A session that names no project (a Codex rollout of the bare era, with
// no cwd) gets its summaries from the worker too, and none for a project:
// the worker's pass over it and its discovery of what lacks a summary
// failed on the empty project ("no item or kind").
func TestSummariesOfASessionWithoutProject(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, "../backend/codex/testdata/handmade/bare-era.jsonl")
	ctx := context.Background()
	items := l.texts(t, `SELECT item FROM summaries WHERE kind = 'session'`)
	if len(items) != 1 {
		t.Fatalf("session summaries %v", items)
	}
	if _, err := l.Summaries.Regenerate(items); err != nil {
		t.Fatal(err)
	}
	if _, err := l.App.Summarize(ctx, SummarizeOptions{Offline: true}); err != nil {
		t.Fatalf("the worker's pass: %v", err)
	}
	// A library whose summaries were never made: discovery queues them.
	if _, err := l.db(t).Exec(`PRAGMA foreign_keys = ON; DELETE FROM summaries`); err != nil {
		t.Fatal(err)
	}
	if _, err := l.App.Summarize(ctx, SummarizeOptions{Offline: true}); err != nil {
		t.Fatalf("discovery: %v", err)
	}
	if got := l.texts(t, `SELECT item || ' ' || text FROM summaries WHERE kind = 'session'`); len(got) != 1 || !strings.Contains(got[0], "List the files") {
		t.Errorf("session summaries after discovery: %v", got)
	}
	if got := l.texts(t, `SELECT item FROM summaries WHERE kind = 'project'`); len(got) != 0 {
		t.Errorf("project summaries of a session without project: %v", got)
	}
}

// A legacy Codex fork whose turn ids are not UUIDv7 replays its parent's
// turn before its own: imported with its parent (before it in the import,
// or in an earlier one), its own turn is counted and the parent's is not
// (claude-code-codex-formats.md §2.4: the replay ends at the first turn
// not in the parent). Alone, the reader cannot tell them apart and counts
// neither.
func TestLegacyCodexForkCountsItsOwnTurnOnly(t *testing.T) {
	parent, fork := codexHandMd+"/fork-legacy-parent.jsonl", codexHandMd+"/fork-legacy-ids.jsonl"
	const forkID = "6b1f0e2a-9c3d-4e8f-a1b2-c3d4e5f60c01"
	// The fork's own request: 5,833 input tokens, 24,000 read from the
	// cache and 50 output (its token count's running total less the
	// parent's, as codex.TestForkReplay reads it); the replayed one of the
	// parent: 24,167 and 209.
	const own, replayed = 5833 + 24000 + 50, 24167 + 209
	tokens := func(l *testLib) int64 {
		t.Helper()
		ss, err := l.Library.Sessions("")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if s.ID == forkID {
				return s.Tokens
			}
		}
		t.Fatalf("the fork is not in the library: %+v", ss)
		return 0
	}
	together := newTestLib(t)
	if rep := together.importPaths(t, parent, fork); rep.Totals.Imported != 2 {
		t.Fatalf("%+v", rep.Files)
	}
	if got := tokens(together); got != own {
		t.Errorf("imported with its parent: the fork has %d tokens, want its own request's %d (the replayed one has %d)", got, own, replayed)
	}
	after := newTestLib(t)
	after.importPaths(t, parent)
	after.importPaths(t, fork)
	if got := tokens(after); got != own {
		t.Errorf("imported after its parent: the fork has %d tokens, want %d", got, own)
	}
	alone := newTestLib(t)
	alone.importPaths(t, fork)
	if got := tokens(alone); got != 0 {
		t.Errorf("imported alone: the fork has %d tokens, want none (a turn that may be the parent's is not counted)", got)
	}
}
