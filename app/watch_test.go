package app

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/sessionformat"
)

// watchLib is a test library whose events are kept with their payloads.
type watchLib struct {
	*testLib
	mu     sync.Mutex
	events []watchEvent
}

type watchEvent struct {
	name string
	data any
	at   time.Time
}

func newWatchLib(t *testing.T) *watchLib {
	w := &watchLib{testLib: newTestLib(t)}
	w.SetEmitter(func(event string, data any) {
		w.mu.Lock()
		w.events = append(w.events, watchEvent{event, data, time.Now()})
		w.mu.Unlock()
	})
	return w
}

// waitImported waits up to limit for a "watch:imported" event after since
// that names a file whose path ends with name, and returns its report and
// when it came.
func (w *watchLib) waitImported(t *testing.T, since time.Time, name string, limit time.Duration) (FileReport, time.Time) {
	t.Helper()
	_, fr, at := w.waitEvent(t, since, name, limit)
	return fr, at
}

// waitEvent is waitImported with the whole event.
func (w *watchLib) waitEvent(t *testing.T, since time.Time, name string, limit time.Duration) (WatchImported, FileReport, time.Time) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		for _, ev := range w.events {
			if ev.name != "watch:imported" || ev.at.Before(since) {
				continue
			}
			for _, fr := range ev.data.(WatchImported).Files {
				if strings.HasSuffix(fr.Path, name) {
					w.mu.Unlock()
					return ev.data.(WatchImported), fr, ev.at
				}
			}
		}
		w.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no watch:imported event for %s within %v", name, limit)
	return WatchImported{}, FileReport{}, time.Time{}
}

// progressEvents counts the "watch:progress" events of phase phase ("" for
// any) since since.
func (w *watchLib) progressEvents(since time.Time, phase string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, ev := range w.events {
		if p, ok := ev.data.(ImportProgress); ok && ev.name == "watch:progress" && !ev.at.Before(since) && (phase == "" || p.Phase == phase) && p.FileCount > 0 {
			n++
		}
	}
	return n
}

// agentHomes points the default watched folders into a temporary home and
// creates them, Qwen Code's and Copilot CLI's excepted (folders that do not
// exist yet).
func agentHomes(t *testing.T) (claude, codexSessions string) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(home, "pi"))
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("QWEN_HOME", filepath.Join(home, "qwen"))
	t.Setenv("COPILOT_HOME", filepath.Join(home, "copilot"))
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(home, "gemini"))
	t.Setenv("CLINE_DIR", filepath.Join(home, "cline"))
	t.Setenv("CLINE_DATA_DIR", "")
	t.Setenv("CLINE_SESSION_DATA_DIR", "")
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("OPENCODE_DB", "")
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	claude = filepath.Join(home, "claude", "projects")
	codexSessions = filepath.Join(home, "codex", "sessions")
	for _, d := range []string{claude, codexSessions, filepath.Join(home, "pi", "sessions")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return claude, codexSessions
}

// The watcher (real fsnotify on a temporary folder tree) imports what the
// watched folders hold when it starts, then every line a session's writer
// flushes, as an append (issue 11 §2; how quickly is measured by make
// bench's formats bench, not here); a new
// sub-folder is followed; a deleted file's session stays in the library,
// marked "source deleted", and is unmarked when the file comes back.
func TestWatcherImportsAppendsLive(t *testing.T) {
	claude, codexSessions := agentHomes(t)
	l := newWatchLib(t)
	fs, err := l.Watch.Folders()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 9 || !fs[1].Enabled || !fs[1].Exists || fs[1].Path != claude || fs[2].Exists || fs[3].Exists || fs[4].Exists || fs[5].Exists ||
		fs[6].Exists || fs[8].Exists {
		t.Fatalf("folders %+v", fs)
	}

	src := claudeHome + "/-tmp-rhizome-claudecode-fixtures-work-acme-api/" + claudeMain + ".jsonl"
	full, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(claude, "-work-acme")
	os.MkdirAll(proj, 0o755)
	live := filepath.Join(proj, claudeMain+".jsonl")
	os.WriteFile(live, prefixLines(full, 10), 0o644)

	start := time.Now()
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer l.Watch.Stop()
	ev, fr, _ := l.waitEvent(t, start, claudeMain+".jsonl", 30*time.Second)
	if fr.Status != ingest.StatusImported || fr.Entries != 10 || !ev.Initial {
		// Initial: what the folders held at the start is not live.
		t.Fatalf("first import %+v (initial %v)", fr, ev.Initial)
	}
	if st, _ := l.Watch.Status(); !st.Running || len(st.Folders) != 3 {
		t.Errorf("status %+v", st)
	}

	// The first pass said how far it was; the appends after it say nothing
	// of the kind (checked at the end).
	if n := l.progressEvents(time.Time{}, "done"); n != 1 {
		t.Errorf("%d watch:progress events done for the first pass, want 1", n)
	}
	appends := time.Now()

	// The writer appends a line at a time (some lines in two writes).
	lines := bytes.Count(full, []byte("\n"))
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var worst time.Duration
	for k := 10; k < 20 && k < lines; k++ {
		line := prefixLines(full, k+1)[len(prefixLines(full, k)):]
		wrote := time.Now()
		if k%3 == 0 {
			f.Write(line[:len(line)/2])
			time.Sleep(20 * time.Millisecond)
			f.Write(line[len(line)/2:])
		} else {
			f.Write(line)
		}
		ev, fr, at := l.waitEvent(t, wrote, claudeMain+".jsonl", 30*time.Second)
		if fr.Status != ingest.StatusAppended || fr.Entries < k+1 || ev.Initial {
			// A held entry may still wait for its settling line.
			t.Fatalf("line %d: %+v", k+1, fr)
		}
		worst = max(worst, at.Sub(wrote))
		ss, _ := l.Library.Sessions("")
		if len(ss) != 1 || ss[0].Entries != fr.Entries {
			t.Fatalf("library after line %d: %+v", k+1, ss)
		}
	}
	// How fast is make bench's business (the formats bench's appends);
	// a busy machine may take seconds here.
	t.Logf("slowest append to reach the library: %v", worst)
	if n := l.progressEvents(appends, ""); n != 0 {
		t.Errorf("%d watch:progress events for appends, want none (only the first pass has a bar)", n)
	}

	// A new folder of the day, with a Codex rollout in it.
	day := filepath.Join(codexSessions, "2026", "11", "24")
	wrote := time.Now()
	os.MkdirAll(day, 0o755)
	rollout := "rollout-2026-11-24T11-04-45-" + codexFork + ".jsonl"
	b, _ := os.ReadFile(codexHome + "/archived_sessions/" + rollout)
	time.Sleep(50 * time.Millisecond) // the watcher has the folder
	os.WriteFile(filepath.Join(day, rollout), b, 0o644)
	if fr, _ := l.waitImported(t, wrote, rollout, 30*time.Second); fr.Status != ingest.StatusImported || fr.Format != sessionformat.Codex {
		t.Fatalf("rollout in a new folder: %+v", fr)
	}

	// Deleted: kept, marked; back: unmarked.
	os.Remove(live)
	deadline := time.Now().Add(30 * time.Second)
	var kept SessionSummary
	for time.Now().Before(deadline) {
		ss, _ := l.Library.Sessions("")
		for _, s := range ss {
			if s.ID == claudeMain {
				kept = s
			}
		}
		if kept.SourceDeleted {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !kept.SourceDeleted || kept.Entries < 20 || kept.SourceDeletedAt == "" {
		t.Fatalf("after the file was deleted: %+v", kept)
	}
	nodes := sessionNodes(t, l.testLib, claudeMain)
	if len(nodes) == 0 || len(allEntries(t, l.testLib, nodes[0])) == 0 {
		t.Errorf("the deleted file's session lost its nodes or entries")
	}
	out := filepath.Join(t.TempDir(), "back.jsonl")
	if _, err := l.ExportSession(claudeMain, out); err != nil {
		t.Errorf("export of a deleted file's session: %v", err)
	}
}

// `rhizome watch` style: Start then Stop leaves nothing running, and the
// switches and added folders are kept in the library.
func TestWatchFoldersSettings(t *testing.T) {
	agentHomes(t)
	l := newWatchLib(t)
	extra := t.TempDir()
	fs, err := l.Watch.AddFolder(extra)
	if err != nil || len(fs) != 10 || fs[9].Path != extra || !fs[9].Enabled || fs[9].Default {
		t.Fatalf("%v %+v", err, fs)
	}
	if _, err := l.Watch.AddFolder("relative/path"); err == nil {
		t.Error("a relative path was added")
	}
	fs, err = l.Watch.SetFolderEnabled(fs[0].Path, false)
	if err != nil || fs[0].Enabled {
		t.Fatalf("%v %+v", err, fs)
	}
	if _, err := l.Watch.SetFolderEnabled("/nowhere", true); err == nil {
		t.Error("an unlisted folder was switched")
	}
	if _, err := l.Watch.RemoveFolder(fs[0].Path); err == nil {
		t.Error("a default folder was removed")
	}
	again := &Watch{c: l.c, im: l.Import}
	fs2, _ := again.Folders()
	if fs2[0].Enabled || len(fs2) != 10 {
		t.Errorf("not kept: %+v", fs2)
	}
	if fs, err = l.Watch.RemoveFolder(extra); err != nil || len(fs) != 9 {
		t.Errorf("%v %+v", err, fs)
	}
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	l.Watch.Stop()
	if st, _ := l.Watch.Status(); st.Running {
		t.Errorf("still running: %+v", st)
	}
	l.SetServed()
	if _, err := l.Watch.AddFolder(extra); err != ErrNoPaths {
		t.Errorf("served: %v", err)
	}
}

// Without PI_CODING_AGENT_DIR, CLAUDE_CONFIG_DIR, QWEN_HOME, COPILOT_HOME,
// GEMINI_CLI_HOME, CLINE_DIR (CLINE_DATA_DIR, CLINE_SESSION_DATA_DIR), XDG_DATA_HOME (OPENCODE_DB) and CODEX_HOME, the watched folders are the agents' own defaults under the home folder (issue 11 §2).
func TestWatchedFolderDefaultsUnderHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"PI_CODING_AGENT_DIR", "CLAUDE_CONFIG_DIR", "QWEN_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "CLINE_DIR", "CLINE_DATA_DIR",
		"CLINE_SESSION_DATA_DIR", "XDG_DATA_HOME", "OPENCODE_DB", "CODEX_HOME"} {
		t.Setenv(v, "")
	}
	var got []string
	for _, f := range defaultFolders() {
		got = append(got, f.Agent+" "+f.Path)
	}
	want := []string{
		"pi " + filepath.Join(home, ".pi/agent/sessions"),
		"claude-code " + filepath.Join(home, ".claude/projects"),
		"qwen-code " + filepath.Join(home, ".qwen/projects"),
		"copilot-cli " + filepath.Join(home, ".copilot/session-state"),
		"gemini-cli " + filepath.Join(home, ".gemini/tmp"),
		"cline " + filepath.Join(home, ".cline/data/sessions"),
		"opencode " + filepath.Join(home, ".local/share/opencode"),
		"codex " + filepath.Join(home, ".codex/sessions"),
		"codex " + filepath.Join(home, ".codex/archived_sessions"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("default folders %v, want %v", got, want)
	}
}

// Cline's sessions folder follows its own variables, as Cline CLI 3.0.65
// resolves them: CLINE_SESSION_DATA_DIR, else CLINE_DATA_DIR/sessions,
// else CLINE_DIR/data/sessions.
func TestWatchedFolderOfCline(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, c := range []struct{ dir, data, sessions, want string }{
		{"", "", "", filepath.Join(home, ".cline", "data", "sessions")},
		{"/c", "", "", "/c/data/sessions"},
		{"/c", "/d", "", "/d/sessions"},
		{"/c", "/d", "/s", "/s"},
	} {
		t.Setenv("CLINE_DIR", c.dir)
		t.Setenv("CLINE_DATA_DIR", c.data)
		t.Setenv("CLINE_SESSION_DATA_DIR", c.sessions)
		got := ""
		for _, f := range defaultFolders() {
			if f.Agent == "cline" {
				got = f.Path
			}
		}
		if got != c.want {
			t.Errorf("CLINE_DIR=%q CLINE_DATA_DIR=%q CLINE_SESSION_DATA_DIR=%q: %s, want %s", c.dir, c.data, c.sessions, got, c.want)
		}
	}
}

// OpenCode's folder is where OpenCode 1.18.33 keeps its database: the
// folder of OPENCODE_DB (absolute, or a path under the data folder; the
// in-memory ":memory:" keeps none), else XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode (backend/opencode/testdata/generate/README.md,
// and the binary's own resolution).
func TestWatchedFolderOfOpenCode(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, c := range []struct{ xdg, db, want string }{
		{"", "", filepath.Join(home, ".local", "share", "opencode")},
		{"/x", "", "/x/opencode"},
		{"/x", "/y/oc.db", "/y"},
		{"/x", "dev/opencode-dev.db", "/x/opencode/dev"},
		{"", ":memory:", filepath.Join(home, ".local", "share", "opencode")},
	} {
		t.Setenv("XDG_DATA_HOME", c.xdg)
		t.Setenv("OPENCODE_DB", c.db)
		got := ""
		for _, f := range defaultFolders() {
			if f.Agent == "opencode" {
				got = f.Path
			}
		}
		if got != c.want {
			t.Errorf("XDG_DATA_HOME=%q OPENCODE_DB=%q: %s, want %s", c.xdg, c.db, got, c.want)
		}
	}
}
