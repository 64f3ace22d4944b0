package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/gemini"
	"rhizome/backend/segment"
	"rhizome/backend/sessionformat"
)

// The real Gemini CLI recordings, made by the real program (Gemini CLI
// 0.61.0) against a scripted local Gemini API server; see
// backend/gemini/testdata/generate.
const (
	geminiHome     = "../backend/gemini/testdata/gemini-home"
	geminiChats    = geminiHome + "/tmp/acme-api/chats"
	geminiMain     = "3f0c8a52-6d1e-4b7a-9e25-1c4d7b8a9f60"
	geminiAgent    = "776d42e1-30c7-40fa-90c9-28e2aa6c70eb"
	geminiImported = "503088f5-f7d5-4d83-b42a-cbdc124be0e7"
)

// A whole ~/.gemini imports as the other agents' homes do: its six
// recordings (two sessions, an imported one, two resume stubs under ids of
// their own, a sub-agent), every record kept (a rewrite's messages and a
// message's tool results as entries of their own, the bytes around them as
// gaps), none failed; the entries the reader reads; segments as the
// segmenter cuts them with the rewind rule (the compression a boundary,
// the rolled-back prompt a branch); each file written back by
// export-session byte for byte; read back from the library as the reader
// read it.
func TestImportGeminiCLI(t *testing.T) {
	l := newTestLib(t)
	rep := l.importPaths(t, geminiHome)
	if rep.Totals.Files != 6 || rep.Totals.Imported != 6 || rep.Totals.Failed != 0 || rep.Totals.Malformed != 0 {
		t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
	}
	for _, fr := range rep.Files {
		s, err := gemini.ReadFile(fr.Path)
		if err != nil {
			t.Fatal(err)
		}
		if fr.Format != sessionformat.Gemini || fr.SessionID != s.Header.ID || fr.Entries != len(s.Entries) {
			t.Errorf("%s: %s %s, %d entries; the reader reads %s, %d", fr.Path, fr.Format, fr.SessionID, fr.Entries, s.Header.ID, len(s.Entries))
		}
		segs := segment.Split(s.Entries, segment.OptionsFor(sessionformat.Gemini))
		if fr.Segments != len(segs) || fr.BoundariesByType["tree_jump"] != 0 {
			t.Errorf("%s: %d segments %v, the segmenter cuts %d", fr.SessionID, fr.Segments, fr.BoundariesByType, len(segs))
		}
		if fr.SessionID == geminiMain && (fr.BoundariesByType["compaction"] != 1 || fr.BoundariesByType["branch"] != 1) {
			t.Errorf("%s: boundaries %v, want the compression and the rollback", fr.SessionID, fr.BoundariesByType)
		}
		checkExportedBack(t, l, fr)
		var views []EntryView
		for _, id := range sessionNodes(t, l, fr.SessionID) {
			views = append(views, allEntries(t, l, id)...)
		}
		if len(views) != len(s.Entries) {
			t.Errorf("%s: %d entries read back, want %d", fr.SessionID, len(views), len(s.Entries))
			continue
		}
		for i, v := range views {
			e := s.Entries[i]
			if v.Type != e.Type || v.DuplicateOf != e.DuplicateOf || v.Replayed != e.Replayed || v.Sidechain != e.Sidechain {
				t.Errorf("%s entry %d (line %d): read back %s copy of %q, the reader %s copy of %q", fr.SessionID, i, e.Line, v.Type, v.DuplicateOf, e.Type, e.DuplicateOf)
			}
		}
	}

	byID := sessionsByID(t, l)
	if s := byID[geminiMain]; s.Name != "Add a health check endpoint to acme-api" || s.Project != "/tmp/rhizome-gemini-fixtures/work/acme-api" ||
		s.Format != sessionformat.Gemini || s.CostUnknown || s.Cost <= 0 {
		t.Errorf("the main session %+v: titled by its summary, priced at Google's gemini-2.5-pro and gemini-2.5-flash rates", s)
	}
	if s := byID[geminiAgent]; s.AgentID != geminiAgent || s.ParentSession != geminiMain {
		t.Errorf("the sub-agent %+v", s)
	}
	stubs := 0
	for id, s := range byID {
		if strings.Contains(id, "~") {
			stubs++
			if !strings.HasPrefix(s.Name, "Gemini CLI resume stub: no conversation") {
				t.Errorf("stub %s named %q", id, s.Name)
			}
		}
	}
	if stubs != 2 || len(byID) != 6 {
		t.Errorf("%d stubs among %d sessions", stubs, len(byID))
	}
	// The invoke_agent result leads to the sub-agent's first node.
	linked := false
	for _, id := range sessionNodes(t, l, geminiMain) {
		for _, v := range allEntries(t, l, id) {
			linked = linked || v.SubagentID == geminiAgent && v.DuplicateOf == "" && v.SubagentNodeID != ""
		}
	}
	if !linked {
		t.Error("the invoke_agent result does not lead to the sub-agent's node")
	}

	// Imported again: nothing changes.
	again := l.importPaths(t, geminiHome)
	if again.Totals.Files != 6 || again.Totals.Unchanged != 6 || again.Totals.Failed != 0 {
		t.Errorf("again: %+v", again.Totals)
	}
	// A file dropped on the window (no folder around it) imports under
	// its own id, without a project root.
	b, err := os.ReadFile(filepath.Join(geminiChats, "session-2026-12-03T09-37-b71e2c09.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fresh := newTestLib(t)
	if rep, err := fresh.Import.ImportFiles([]DroppedFile{dropped("session.jsonl", b)}); err != nil || rep.Totals.Imported != 1 || rep.Totals.Failed != 0 {
		t.Errorf("dropped: %v %+v", err, rep.Totals)
	}
}

// A recording imported while Gemini CLI writes it, line by line (the last
// line sometimes half-written), imports as appends: the response held at
// the end of each read (it may be written again, with its tool calls)
// comes again in its final form; the library ends as a whole import of the
// file: its entries as the reader reads them, byte for byte.
func TestImportGeminiAppends(t *testing.T) {
	full, err := os.ReadFile(filepath.Join(geminiChats, "session-2026-12-03T09-36-3f0c8a52.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tmp", "acme-api", "chats")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "session-2026-12-03T09-36-3f0c8a52.jsonl")
	l := newTestLib(t)
	lines := bytes.Count(full, []byte("\n"))
	appended := 0
	for k := 1; k <= lines; k++ {
		b := prefixLines(full, k)
		if k%5 == 0 && k < lines {
			b = append(b[:len(b):len(b)], full[len(b):len(b)+20]...) // half a line
		}
		if err := os.WriteFile(live, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rep := l.importPaths(t, live)
		if rep.Totals.Failed != 0 {
			t.Fatalf("line %d: %+v", k, rep.Files)
		}
		if k > 1 && rep.Files[0].Status == "appended" {
			appended++
		}
	}
	s, err := gemini.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	var views []EntryView
	for _, id := range sessionNodes(t, l, geminiMain) {
		views = append(views, allEntries(t, l, id)...)
	}
	if len(views) != len(s.Entries) || appended < lines/2 {
		t.Fatalf("%d entries in the library, the reader reads %d; %d appends", len(views), len(s.Entries), appended)
	}
	for i, v := range views {
		e := s.Entries[i]
		if v.ID != e.ID || v.Type != e.Type || v.DuplicateOf != e.DuplicateOf || v.Line != e.Line {
			t.Errorf("entry %d (line %d): %s %s copy of %q, the reader %s %s copy of %q", i, e.Line, v.Type, v.ID, v.DuplicateOf, e.Type, e.ID, e.DuplicateOf)
		}
	}
	if back := exportBack(t, l, geminiMain); !bytes.Equal(back, full) {
		t.Errorf("export after the appends: %d bytes, the file has %d; first difference at byte %d", len(back), len(full), firstByteDiff(back, full))
	}
}
