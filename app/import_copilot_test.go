package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/segment"
	"rhizome/backend/sessionformat"
)

// The real GitHub Copilot CLI logs, made by the real program (Copilot CLI
// 1.0.102) against a scripted local model server; see
// backend/copilot/testdata/generate.
const (
	copilotHome    = "../backend/copilot/testdata/copilot-home"
	copilotMain    = "c0b1d2e3-4f56-4789-8abc-def012345678"
	copilotLogo    = "c685a495-edd5-4212-93d7-a99b116c67bf"
	copilotAgent   = "f9c5407c-037d-4c3d-bf5d-47be3d7ffbbf"
	copilotTask    = "call_yeyt4u7zhon3o1y0ocheku4p"
	copilotHandMd  = "../backend/copilot/testdata/handmade"
	copilotMainLog = copilotHome + "/session-state/" + copilotMain + "/events.jsonl"
)

// A whole ~/.copilot imports as Claude Code's and Qwen Code's do: the two
// session logs, every line an entry, none failed, and none of the files
// beside them (workspace.yaml, checkpoints, rewind snapshots, the
// session-store.db index) reported; segments as the segmenter cuts them
// with the rewind rule (the two compactions boundaries, no false tree
// jumps); the titles from workspace.yaml; the sub-agent's events inline,
// under the task call that ran them; each file written back by
// export-session byte for byte.
func TestImportCopilotCLI(t *testing.T) {
	l := newTestLib(t)
	rep := l.importPaths(t, copilotHome)
	if rep.Totals.Files != 2 || rep.Totals.Imported != 2 || rep.Totals.Failed != 0 || rep.Totals.Malformed != 0 || rep.Totals.Entries != 120 {
		t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
	}
	want := map[string]int{copilotMain: 111, copilotLogo: 9}
	for _, fr := range rep.Files {
		entries, hdr := readOther(t, sessionformat.Copilot, fr.Path)
		if fr.Format != sessionformat.Copilot || fr.SessionID != hdr.ID || fr.Entries != len(entries) || fr.Entries != want[fr.SessionID] ||
			filepath.Base(fr.Path) != "events.jsonl" || filepath.Base(filepath.Dir(fr.Path)) != fr.SessionID {
			t.Errorf("%s: %s %s, %d entries; the reader reads %s, %d", fr.Path, fr.Format, fr.SessionID, fr.Entries, hdr.ID, len(entries))
		}
		segs := segment.Split(entries, segment.OptionsFor(sessionformat.Copilot))
		if fr.Segments != len(segs) || fr.BoundariesByType["tree_jump"] != 0 {
			t.Errorf("%s: %d segments %v, the segmenter cuts %d", fr.SessionID, fr.Segments, fr.BoundariesByType, len(segs))
		}
		if fr.SessionID == copilotMain && fr.BoundariesByType["compaction"] != 2 {
			t.Errorf("%s: boundaries %v, want the two compactions", fr.SessionID, fr.BoundariesByType)
		}
		checkExportedBack(t, l, fr)
	}

	byID := sessionsByID(t, l)
	// No session.title_changed in either log: the names are workspace.yaml's
	// (the --name given, else the first prompt).
	if s := byID[copilotLogo]; s.Name != "Logo check" || s.Title != "Logo check" || s.Format != sessionformat.Copilot {
		t.Errorf("the user-named session %+v", s)
	}
	if s := byID[copilotMain]; s.Name != "How many lines does ledger.py have, and what does it print?" || s.Title != s.Name ||
		s.Project != "/tmp/rhizome-copilot-fixtures/work/ledger-cli" || s.Entries != 111 || !s.CostUnknown {
		t.Errorf("the main session %+v: its name is workspace.yaml's; scripted-coder has no price in the table: its cost is unknown", s)
	}

	// Read back as the node panel reads it: thinking, tool calls and their
	// results with the tool's name, a failed call, the failed request, the
	// compactions' summaries, the edit's diff, the sub-agent's events under
	// the task call that ran them.
	var views []EntryView
	for _, id := range sessionNodes(t, l, copilotMain) {
		views = append(views, allEntries(t, l, id)...)
	}
	if len(views) != 111 {
		t.Errorf("%d entries read back, want 111", len(views))
	}
	seen := map[string]bool{}
	side := 0
	for _, v := range views {
		for _, b := range v.Blocks {
			seen["block:"+b.Type] = true
		}
		if v.Sidechain {
			side++
		}
		switch {
		case v.Role == "toolResult" && v.ToolName == "view" && v.IsError:
			seen["failed view"] = true
		case v.Role == "toolResult" && v.ToolName == "edit" && !v.IsError:
			seen["edit"] = true
		case v.Role == "assistant" && v.IsError && v.Subtype == "query":
			seen["failed request"] = true
		case v.Type == "compaction" && strings.Contains(v.Summary, "<overview>"):
			seen["compaction"] = true
		case v.Role == "toolResult" && v.ToolName == "task" && !v.IsError && len(v.Blocks) > 0:
			seen["task result"] = true
		case v.Type == "copilot:subagent.started" && v.SubagentID == copilotAgent:
			seen["sub-agent started"] = true
		case v.Sidechain && v.Role == "toolResult" && v.ToolName == "grep":
			seen["sub-agent's grep"] = true
		}
	}
	for _, k := range []string{"block:thinking", "block:toolCall", "block:toolResult", "failed view", "edit", "failed request", "compaction",
		"task result", "sub-agent started", "sub-agent's grep"} {
		if !seen[k] {
			t.Errorf("read back: no %s among %d entries", k, len(views))
		}
	}
	if side != 15 {
		t.Errorf("%d sub-agent entries, want 15 (lines 64-78)", side)
	}
	var logo []EntryView
	for _, id := range sessionNodes(t, l, copilotLogo) {
		logo = append(logo, allEntries(t, l, id)...)
	}
	image := false
	for _, v := range logo {
		for _, b := range v.Blocks {
			image = image || v.Role == "user" && b.Type == "image"
		}
	}
	if !image {
		t.Errorf("the attached logo is not an image of the prompt: %+v", logo)
	}

	// Imported again, or as ~/.copilot/session-state: nothing changes.
	again := l.importPaths(t, copilotHome+"/session-state")
	if again.Totals.Files != 2 || again.Totals.Unchanged != 2 || again.Totals.Failed != 0 {
		t.Errorf("again: %+v", again.Totals)
	}
	fresh := newTestLib(t)
	if rep := fresh.importPaths(t, copilotHome+"/session-state"); rep.Totals.Files != 2 || rep.Totals.Imported != 2 || rep.Totals.Failed != 0 {
		t.Errorf("~/.copilot/session-state alone: %+v", rep.Totals)
	}
}

// A session log dropped on the window (its bytes, no folder around it)
// imports under its own id, and two of them, both named events.jsonl, are
// two sessions; no workspace.yaml is looked for beside a name that is not
// a file on this machine (not even one in the working folder).
func TestDroppedCopilotLogs(t *testing.T) {
	l := newTestLib(t)
	var files []DroppedFile
	for _, id := range []string{copilotMain, copilotLogo} {
		b, err := os.ReadFile(copilotHome + "/session-state/" + id + "/events.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, dropped("events.jsonl", b))
	}
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "workspace.yaml"), []byte("name: Not this one\n"), 0o644)
	t.Chdir(cwd)
	rep, err := l.Import.ImportFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Imported != 2 || rep.Totals.Failed != 0 || rep.Totals.Entries != 120 {
		t.Fatalf("%+v: %+v", rep.Totals, rep.Files)
	}
	sessions, _ := l.Library.Sessions("")
	if len(sessions) != 2 {
		t.Fatalf("sessions %+v", sessions)
	}
	for _, s := range sessions {
		if s.Name == "Not this one" || s.Title == "Not this one" {
			t.Errorf("%s: named %q from a workspace.yaml it cannot have", s.ID, s.Name)
		}
	}
}

// The watcher follows a Copilot CLI session as it is written into
// ~/.copilot/session-state/<id>/events.jsonl (workspace.yaml beside it):
// the lines already there on its first pass, then each event appended
// (some in two writes), as appends; the library ends as the file, byte for
// byte, titled from workspace.yaml.
func TestWatcherFollowsCopilotCLI(t *testing.T) {
	claude, _ := agentHomes(t)
	dir := filepath.Join(filepath.Dir(filepath.Dir(claude)), "copilot", "session-state", copilotMain)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(copilotMainLog)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := os.ReadFile(filepath.Join(filepath.Dir(copilotMainLog), "workspace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "workspace.yaml"), ws, 0o644)
	live := filepath.Join(dir, "events.jsonl")
	os.WriteFile(live, prefixLines(full, 3), 0o644)

	l := newWatchLib(t)
	fs, err := l.Watch.Folders()
	if err != nil || len(fs) < 4 || fs[3].Agent != "copilot-cli" || !fs[3].Exists || !fs[3].Enabled {
		t.Fatalf("folders %+v %v", fs, err)
	}
	name := copilotMain + "/events.jsonl"
	start := time.Now()
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer l.Watch.Stop()
	if _, fr, _ := l.waitEvent(t, start, name, 30*time.Second); fr.Status != ingest.StatusImported || fr.Entries != 3 || fr.Format != sessionformat.Copilot {
		t.Fatalf("first import %+v", fr)
	}
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bytes.Count(full, []byte("\n"))
	for k := 3; k < 10; k++ {
		ln := prefixLines(full, k+1)[len(prefixLines(full, k)):]
		wrote := time.Now()
		if k%3 == 0 {
			f.Write(ln[:len(ln)/2])
			time.Sleep(20 * time.Millisecond)
			f.Write(ln[len(ln)/2:])
		} else {
			f.Write(ln)
		}
		if _, fr, _ := l.waitEvent(t, wrote, name, 30*time.Second); fr.Status != ingest.StatusAppended || fr.Entries != k+1 {
			t.Fatalf("line %d: %+v", k+1, fr)
		}
	}
	f.Write(full[len(prefixLines(full, 10)):])
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ss, _ := l.Library.Sessions("")
		if len(ss) == 1 && ss[0].Entries == lines {
			if ss[0].Name != "How many lines does ledger.py have, and what does it print?" {
				t.Errorf("title %q, want workspace.yaml's name", ss[0].Name)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rest of the file never reached the library: %+v", ss)
		}
	}
	if back := exportBack(t, l.testLib, copilotMain); !bytes.Equal(back, full) {
		t.Errorf("export after the appends: %d bytes, the file has %d; first difference at byte %d", len(back), len(full), firstByteDiff(back, full))
	}
}
