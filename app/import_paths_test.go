//go:build unix

package app

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rhizome/app/ingest"
)

// copyV3 copies the version 3 sessions written by pi into dir.
func copyV3(t *testing.T, dir string) []string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	entries, _ := os.ReadDir(v3Dir)
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(v3Dir, e.Name()))
		os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
		names = append(names, e.Name())
	}
	return names
}

// importWithin imports paths, failing the test if it takes over 5 s (a named
// pipe or a device read forever, say); unblock is called then, to let what
// it can unblock finish.
func importWithin(t *testing.T, l *testLib, unblock func(), paths ...string) ImportReport {
	t.Helper()
	done := make(chan ImportReport, 1)
	go func() {
		rep, _ := l.Import.ImportPaths(paths)
		done <- rep
	}()
	select {
	case rep := <-done:
		return rep
	case <-time.After(5 * time.Second):
		if unblock != nil {
			unblock()
		}
		t.Fatalf("import of %v still running after 5 s", paths)
		return ImportReport{}
	}
}

// A sessions folder that is a symbolic link (pi's ~/.pi/agent/sessions
// moved elsewhere) imports through the link, .jsonl links inside a folder
// are followed, a loop of links ends, and a file reached twice imports once.
func TestImportFollowsSymlinks(t *testing.T) {
	tmp := t.TempDir()
	real := filepath.Join(tmp, "disk", "pi-sessions")
	names := copyV3(t, filepath.Join(real, "--home-dana-src-acme-api--"))
	agent := filepath.Join(tmp, "home", ".pi", "agent")
	os.MkdirAll(agent, 0o755)
	sessions := filepath.Join(agent, "sessions")
	if err := os.Symlink(real, sessions); err != nil {
		t.Fatal(err)
	}

	l := newTestLib(t)
	rep := importWithin(t, l, nil, sessions)
	if rep.Totals.Imported != len(names) || rep.Totals.Failed != 0 {
		t.Fatalf("symlinked folder: %+v, want %d imported", rep.Totals, len(names))
	}
	for _, f := range rep.Files {
		if !strings.HasPrefix(f.Path, sessions+string(filepath.Separator)) {
			t.Errorf("%s: not stored under the path given", f.Path)
		}
	}

	// Links to session files inside a folder, a loop back to an ancestor,
	// and a second link to the same folder.
	other := filepath.Join(tmp, "other")
	os.MkdirAll(filepath.Join(other, "deeper"), 0o755)
	elsewhere := filepath.Join(tmp, "elsewhere")
	os.MkdirAll(elsewhere, 0o755)
	b, _ := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	os.WriteFile(filepath.Join(elsewhere, "compaction.jsonl"), b, 0o644)
	os.Symlink(filepath.Join(elsewhere, "compaction.jsonl"), filepath.Join(other, "linked.jsonl"))
	os.Symlink(filepath.Join(elsewhere, "compaction.jsonl"), filepath.Join(other, "deeper", "same-again.jsonl"))
	os.Symlink(other, filepath.Join(other, "deeper", "loop"))
	os.Symlink(elsewhere, filepath.Join(other, "elsewhere-link"))
	fresh := newTestLib(t)
	rep = importWithin(t, fresh, nil, other)
	if rep.Totals.Files != 1 || rep.Totals.Imported != 1 || rep.Files[0].Entries != 463 {
		t.Fatalf("links inside a folder: %+v", rep)
	}
	if got := filepath.Base(rep.Files[0].Path); got != "same-again.jsonl" {
		t.Errorf("imported as %s, want the first path in lexical order (deeper/same-again.jsonl)", got)
	}
}

// A named pipe, a device or a broken link given as a session file, or found
// as *.jsonl in a folder, is refused with the reason, never read forever.
func TestImportRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	unblock := func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
	os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "broken.jsonl"))
	b, _ := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	os.WriteFile(filepath.Join(dir, "good.jsonl"), b, 0o644)

	l := newTestLib(t)
	rep := importWithin(t, l, unblock, fifo, "/dev/zero")
	want := map[string]string{fifo: "named pipe", "/dev/zero": "device"}
	for _, f := range rep.Files {
		if f.Status != ingest.StatusFailed || !strings.Contains(f.Error, want[f.Path]) || !strings.Contains(f.Error, f.Path) {
			t.Errorf("%s: %s %q, want failed naming it and saying %q", f.Path, f.Status, f.Error, want[f.Path])
		}
	}
	if len(rep.Files) != 2 {
		t.Errorf("%d reports, want 2", len(rep.Files))
	}

	rep = importWithin(t, l, unblock, dir)
	got := map[string]FileReport{}
	for _, f := range rep.Files {
		got[filepath.Base(f.Path)] = f
	}
	if f := got["good.jsonl"]; f.Status != ingest.StatusImported {
		t.Errorf("good.jsonl: %s %s", f.Status, f.Error)
	}
	if f := got["pipe.jsonl"]; f.Status != ingest.StatusFailed || !strings.Contains(f.Error, "named pipe") {
		t.Errorf("pipe.jsonl in a folder: %s %q, want failed: named pipe", f.Status, f.Error)
	}
	if f := got["broken.jsonl"]; f.Status != ingest.StatusFailed || !strings.Contains(f.Error, "broken.jsonl") {
		t.Errorf("broken link in a folder: %s %q, want failed naming it", f.Status, f.Error)
	}

	// Loom tree files dropped on the window: the same refusal.
	done := make(chan error, 1)
	go func() {
		_, err := l.Loom.ImportPaths([]string{fifo, dir})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), "folder") {
			t.Errorf("loom import of a pipe and a folder: %v", err)
		}
	case <-time.After(5 * time.Second):
		unblock()
		t.Fatal("loom import of a named pipe still running after 5 s")
	}
}
