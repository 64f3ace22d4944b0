package app

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/app/ingest"
	"rhizome/backend/link"
	"rhizome/store"
)

// toolOutputEntry finds the entry of session sessionID whose tool result
// keeps an output in a file of its own, reading every node's entries as
// the node panel does.
func (l *testLib) toolOutputEntry(t *testing.T, sessionID string) (EntryView, bool) {
	t.Helper()
	segs, err := l.Library.Timeline(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range segs {
		page, err := l.Library.SegmentEntries(g.NodeID, 0, MaxEntryPage)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entries {
			if len(e.ToolOutputs) > 0 {
				return e, true
			}
		}
	}
	return EntryView{}, false
}

// A Claude Code tool output too large for its line is saved beside the
// session (<session>/tool-results/<name>), the line holding a preview
// (claude-code-codex-formats.md §1.1). The import keeps the whole file:
// the node panel lists it under its tool result and reads it back byte for
// byte, the search finds what only the whole output says, it outlives the
// files Claude Code deletes, and export-session writes it back where
// Claude Code keeps it. An append keeps one copy of it; a dropped file
// (nothing beside it) has none.
func TestClaudeCodeToolOutputsKept(t *testing.T) {
	const project = "-tmp-rhizome-claudecode-fixtures-work-acme-api"
	const name = "bz85kpk1b.txt"
	want, err := os.ReadFile(filepath.Join(claudeHome, project, claudeMain, "tool-results", name))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "projects")
	copyTree(t, home, claudeHome, func(_ string, b []byte) []byte { return b })
	main := filepath.Join(home, project, claudeMain+".jsonl")

	l := newTestLib(t)
	if rep := l.importPaths(t, home); rep.Totals.Failed != 0 {
		t.Fatalf("%+v", rep.Files)
	}
	e, ok := l.toolOutputEntry(t, claudeMain)
	if !ok {
		t.Fatal("no entry lists a tool output")
	}
	if len(e.ToolOutputs) != 1 || e.ToolOutputs[0] != (ToolOutputInfo{Name: name, Bytes: int64(len(want)), Kept: true}) || e.Role != "toolResult" {
		t.Fatalf("entry %s (%s): tool outputs %+v", e.ID, e.Role, e.ToolOutputs)
	}
	if !strings.Contains(e.Blocks[0].Text, "<persisted-output>") {
		t.Errorf("the line's own text changed: %q", e.Blocks[0].Text)
	}
	uri := link.Entry(claudeMain, e.ID).String()
	out, err := l.Library.ToolOutput(uri, name)
	if err != nil || out.Text != string(want) || out.Bytes != int64(len(want)) || out.Truncated || out.Binary {
		t.Fatalf("ToolOutput: %d bytes, truncated %v, %v", len(out.Text), out.Truncated, err)
	}
	// The preview is the output's first 2 KB; its last lines are only in
	// the file (the fixture's output is the numbers 1 to 1500, one a line,
	// and 1500 is in its command too).
	if !strings.Contains(string(want), "\n1499\n") || strings.Contains(e.Blocks[0].Text, "1499") {
		t.Fatal("the fixture no longer has a line only its whole output holds")
	}
	found := l.texts(t, `SELECT e.entry_id FROM entries_fts f JOIN entries e ON e.pk = f.rowid WHERE entries_fts MATCH '"1499"'`)
	if len(found) != 1 || found[0] != e.ID {
		t.Errorf("a search for what only the whole output says found %v, want %s", found, e.ID)
	}
	if _, err := l.Library.ToolOutput(uri, "other.txt"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an output the entry does not name: %v", err)
	}

	// Claude Code deletes the session and its folder: the output stays.
	if err := os.RemoveAll(filepath.Join(home, project)); err != nil {
		t.Fatal(err)
	}
	if out, err := l.Library.ToolOutput(uri, name); err != nil || out.Text != string(want) {
		t.Errorf("after the files were deleted: %v", err)
	}
	dst := filepath.Join(t.TempDir(), claudeMain+".jsonl")
	res, err := l.ExportSession("rhizome:session/"+claudeMain, dst)
	if err != nil {
		t.Fatal(err)
	}
	wrote := filepath.Join(filepath.Dir(dst), claudeMain, "tool-results", name)
	if got, err := os.ReadFile(wrote); err != nil || !bytes.Equal(got, want) || len(res.ToolOutputs) != 1 || res.ToolOutputs[0] != wrote {
		t.Errorf("export-session wrote %v (%v): %d bytes", res.ToolOutputs, err, len(got))
	}

	// A session being written: the line naming the output comes in an
	// append, and an append that reads it again (from a line left
	// unsettled) keeps one copy.
	full, err := os.ReadFile(filepath.Join(claudeHome, project, claudeMain+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	copyTree(t, home, claudeHome, func(_ string, b []byte) []byte { return b })
	at := bytes.Index(full, []byte(name))
	lineStart := bytes.LastIndexByte(full[:at], '\n') + 1
	lineEnd := at + bytes.IndexByte(full[at:], '\n') + 1
	for _, cut := range []int{lineStart, lineEnd, (lineStart + lineEnd) / 2} {
		w := newTestLib(t)
		os.WriteFile(main, full[:cut], 0o644)
		w.importPaths(t, main)
		os.WriteFile(main, full, 0o644)
		if fr := w.importPaths(t, main).Files[0]; fr.Status != ingest.StatusAppended {
			t.Fatalf("cut at %d: %+v", cut, fr)
		}
		if n := w.texts(t, `SELECT name FROM tool_outputs`); len(n) != 1 || n[0] != name {
			t.Errorf("cut at %d, then appended: tool outputs %v", cut, n)
		}
		if e, ok := w.toolOutputEntry(t, claudeMain); !ok || len(e.ToolOutputs) != 1 {
			t.Errorf("cut at %d, then appended: the entry lists %+v", cut, e.ToolOutputs)
		}
	}

	// Rewritten (a byte of its first line changed): read again whole, one
	// copy of the output still.
	rw := newTestLib(t)
	rw.importPaths(t, main)
	changed := bytes.Replace(full, []byte(`"isSidechain":false`), []byte(`"isSidechain":false `), 1)
	os.WriteFile(main, changed, 0o644)
	if fr := rw.importPaths(t, main).Files[0]; fr.Status != ingest.StatusImported {
		t.Fatalf("rewritten: %+v", fr)
	}
	if n := rw.texts(t, `SELECT name FROM tool_outputs`); len(n) != 1 || n[0] != name {
		t.Errorf("rewritten: tool outputs %v", n)
	}

	// Dropped, the file comes alone: nothing beside it to read.
	d := newTestLib(t)
	if _, err := d.Import.ImportFiles([]DroppedFile{dropped(claudeMain+".jsonl", full)}); err != nil {
		t.Fatal(err)
	}
	if e, ok := d.toolOutputEntry(t, claudeMain); ok {
		t.Errorf("a dropped file's entry lists %+v", e.ToolOutputs)
	}
}

// A library an older Rhizome made kept the previews only: migration 0111
// lists its Claude Code sessions whose tool results name an output saved
// apart, and the next import that meets the file, unchanged, reads them
// (before Claude Code deletes them), search included, once.
func TestToolOutputsReadForSessionsImportedBefore(t *testing.T) {
	home := filepath.Join(t.TempDir(), "projects")
	copyTree(t, home, claudeHome, func(_ string, b []byte) []byte { return b })
	old := newTestLib(t)
	old.importPaths(t, home)
	// As an older Rhizome left it: no outputs, the preview searched, the
	// two migrations not applied.
	db := old.db(t)
	for _, q := range []string{
		`DELETE FROM tool_outputs`,
		`UPDATE entries SET text = 'the preview' WHERE role = 'toolResult' AND instr(unpack_raw(raw), '<persisted-output>') > 0`,
		`DROP TABLE tool_outputs_unread`,
		`DELETE FROM schema_migrations WHERE version = 111`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	old.st.Close()

	st, err := store.Open(old.path) // applies 0111 again
	if err != nil {
		t.Fatal(err)
	}
	l := &testLib{App: New(st, old.path), st: st, path: old.path}
	t.Cleanup(func() { st.Close() })
	if n := l.texts(t, `SELECT s.id FROM tool_outputs_unread u JOIN sessions s ON s.pk = u.session_pk`); len(n) != 1 || n[0] != claudeMain {
		t.Fatalf("sessions listed with outputs to read: %v, want the main session", n)
	}
	if _, ok := l.toolOutputEntry(t, claudeMain); ok {
		t.Fatal("the outputs were not taken away: the test shows nothing")
	}
	for round := range 2 {
		rep := l.importPaths(t, home)
		if rep.Totals.Unchanged != rep.Totals.Files {
			t.Fatalf("round %d: %+v", round, rep.Totals)
		}
		e, ok := l.toolOutputEntry(t, claudeMain)
		if !ok || len(e.ToolOutputs) != 1 || !e.ToolOutputs[0].Kept {
			t.Fatalf("round %d: the unchanged file's outputs were not read: %+v", round, e.ToolOutputs)
		}
		if found := l.texts(t, `SELECT e.entry_id FROM entries_fts f JOIN entries e ON e.pk = f.rowid WHERE entries_fts MATCH '"1499"'`); len(found) != 1 || found[0] != e.ID {
			t.Errorf("round %d: the search finds %v by the whole output, want %s", round, found, e.ID)
		}
		if n := l.texts(t, `SELECT name FROM tool_outputs`); len(n) != 1 {
			t.Errorf("round %d: tool outputs %v", round, n)
		}
		if n := l.texts(t, `SELECT session_pk FROM tool_outputs_unread`); len(n) != 0 {
			t.Errorf("round %d: still listed to read: %v", round, n)
		}
	}
	l.checkFullTextIndexes(t)
}
