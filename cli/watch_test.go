package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"rhizome/app"
	"rhizome/backend/pisession/pitest"
)

// `rhizome watch` (a process of its own, real fsnotify) imports the
// sessions of the watched folders, then the lines a writer appends, each
// at once (well under a second; within appendBound); Ctrl-C stops it with
// status 130. `rhizome export-session`
// then writes the grown file back byte for byte, also once the file is
// deleted (the library is the archive).
// appendBound is how long a line appended to a watched session may take to
// reach the library before the test fails: ten times the second it
// normally takes at most, so that a loaded machine does not fail a watcher
// that works. The bound stays (a live append that waits for the next
// rescan, or for nothing, is what it catches); how fast appends land is
// `make bench`'s figure.
const appendBound = 10 * time.Second

func TestWatchCommandAndExportSession(t *testing.T) {
	home := t.TempDir()
	projects := filepath.Join(home, "claude", "projects", "-work-acme")
	if err := os.MkdirAll(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "../backend/claudecode/testdata/claude-home/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api/5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41.jsonl"
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lineEnd := func(k int) int {
		off := 0
		for range k {
			off += bytes.IndexByte(full[off:], '\n') + 1
		}
		return off
	}
	live := filepath.Join(projects, "5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41.jsonl")
	os.WriteFile(live, full[:lineEnd(20)], 0o644)
	lib := filepath.Join(t.TempDir(), "library.db")

	cmd, out, errb := startWatch(t, home, lib)
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor := func(what string, limit time.Duration, ok func() bool) time.Duration {
		t.Helper()
		start := time.Now()
		for !ok() {
			if time.Since(start) > limit {
				t.Fatalf("%s: not within %v\nstdout: %s\nstderr: %s", what, limit, out.String(), errb.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		return time.Since(start)
	}
	waitFor("the first import", 60*time.Second, func() bool { return strings.Contains(out.String(), "imported") })
	// The first pass over the folders has a bar, as an import has.
	if !strings.Contains(errb.String(), "1/1 5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41.jsonl") {
		t.Errorf("no progress bar for the first pass: stderr %q", errb.String())
	}
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k := 20; k < 30; k++ {
		before := strings.Count(out.String(), "appended")
		f.Write(full[lineEnd(k):lineEnd(k+1)])
		took := waitFor("an appended line", 3*appendBound, func() bool { return strings.Count(out.String(), "appended") > before })
		if took > appendBound {
			t.Errorf("line %d reached the library after %v, want within %v", k+1, took, appendBound)
		}
	}
	f.Write(full[lineEnd(30):])
	f.Close()
	waitFor("the rest of the file", 3*appendBound, func() bool { return strings.Count(out.String(), "appended") >= 11 })
	time.Sleep(300 * time.Millisecond)
	if code := interruptWatch(t, cmd); code != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit status %d, stderr %q; want 130 and interrupted", code, errb.String())
	}

	os.Remove(live)
	back := filepath.Join(t.TempDir(), "back.jsonl")
	var o, e bytes.Buffer
	if code := run(context.Background(), []string{"export-session", "--db", lib, "rhizome:session/5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41", back}, &o, &e); code != 0 {
		t.Fatalf("export-session: %d %s", code, e.String())
	}
	got, _ := os.ReadFile(back)
	if !bytes.Equal(got, full) {
		t.Errorf("exported %d bytes, the file had %d", len(got), len(full))
	}
	if code := run(context.Background(), []string{"export-session", "--db", lib, "nope", back}, &o, &e); code != 1 || !strings.Contains(e.String(), "nope") {
		t.Errorf("unknown item: %d %s", code, e.String())
	}
}

// startWatch starts `rhizome watch --db lib` with home as its home and the
// agents' folders under it (claude, codex, pi), its output kept.
func startWatch(t *testing.T, home, lib string) (cmd *exec.Cmd, out, errb *syncBuffer) {
	t.Helper()
	cmd = rhizomeCmd("watch", "--db", lib)
	cmd.Env = append(cmd.Env, "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"),
		"CODEX_HOME="+filepath.Join(home, "codex"), "PI_CODING_AGENT_DIR="+filepath.Join(home, "pi"))
	out, errb = &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out, errb
}

// syncBuffer is a bytes.Buffer safe for a process's output and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `rhizome watch` runs the embedding queue as the window does: the sessions
// it imports get vectors, which `rhizome search` and `rhizome mcp` then rank
// with (the vector component is in their "why").
func TestWatchMakesVectors(t *testing.T) {
	home := t.TempDir()
	sessions := filepath.Join(home, "pi", "sessions", "--work-pi-mono--")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(pitest.SamplesDir(), "*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sessions, filepath.Base(f)), b, 0o644)
	}
	lib := filepath.Join(t.TempDir(), "library.db")
	cmd, out, errb := startWatch(t, home, lib)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var res app.HybridResult
	deadline := time.Now().Add(90 * time.Second)
	for !strings.HasPrefix(res.VectorModel, "lsa-") {
		if time.Now().After(deadline) {
			t.Fatalf("no vectors 90 s after watch started (last search: model %q, note %q)\nstdout: %s\nstderr: %s",
				res.VectorModel, res.VectorNote, out.String(), errb.String())
		}
		time.Sleep(500 * time.Millisecond)
		var o, e bytes.Buffer
		if code := run(context.Background(), []string{"search", "--db", lib, "--json", "theme colors"}, &o, &e); code != 0 {
			continue // the first import may not have made the library yet
		}
		res = app.HybridResult{}
		json.Unmarshal(o.Bytes(), &res)
	}
	cs := connectMCP(t, "--db", lib, "--read-only")
	var found struct {
		Items []struct{ Why []struct{ Component string } }
	}
	callTool(t, cs, "search", map[string]any{"query": "theme colors", "kinds": []string{"entry"}, "limit": 5}, &found)
	withVector := 0
	for _, h := range found.Items {
		for _, p := range h.Why {
			if p.Component == "vector" {
				withVector++
			}
		}
	}
	if len(found.Items) == 0 || withVector == 0 {
		t.Errorf("rhizome mcp search ranked without the watch's vectors: %+v", found.Items)
	}
}

// Ctrl-C during the watcher's first pass: the files it did not reach are
// not reported as failures, one line each (a first run over a whole
// ~/.claude printed thousands of "not imported: the import was cancelled").
func TestWatchInterruptedFirstPass(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "pi", "sessions", "--work--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 600
	for i := range n {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		at := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC).Format(time.RFC3339)
		body := fmt.Sprintf(`{"type":"session","id":%q,"timestamp":%q,"cwd":"/work"}`+"\n"+
			`{"type":"message","timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"Rename the field q%d."}]}}`+"\n", id, at, at, i)
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd, out, errb := startWatch(t, home, filepath.Join(t.TempDir(), "library.db"))
	t.Cleanup(func() { cmd.Process.Kill() })
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(errb.String(), "/600 ") {
		if time.Now().After(deadline) {
			t.Fatalf("no first pass under way: stderr %q", errb.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	code := interruptWatch(t, cmd)
	if strings.Contains(out.String(), "failed") {
		t.Errorf("files the interrupted pass did not reach are reported as failed:\n%s", firstLines(out.String(), 3))
	}
	if code != 130 {
		t.Errorf("exit status %d, want 130", code)
	}
}

// interruptWatch sends cmd (a running `rhizome watch`) Ctrl-C and returns
// its exit status once it has stopped (at most 10 s later).
func interruptWatch(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("watch still running 10 s after Ctrl-C")
	}
	return cmd.ProcessState.ExitCode()
}

// firstLines is the first k lines of s.
func firstLines(s string, k int) string {
	lines := strings.SplitN(s, "\n", k+1)
	return strings.Join(lines[:min(k, len(lines))], "\n")
}
