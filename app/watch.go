package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"rhizome/app/ingest"
	"rhizome/store"
)

// Watch keeps the library in step with the folders agents write their
// sessions to: the settings list the watched folders (pi's, Claude Code's,
// Qwen Code's, Copilot CLI's, Gemini CLI's, Cline's, OpenCode's and Codex's by default, each with a switch,
// and any folder added), and a watcher (fsnotify; every sub-folder
// watched, new ones as they appear, but below OpenCode's data folder, whose
// database is at its top) imports a session file within a moment
// of a line being written (events debounced by WatchDebounce), as an append
// that reads only the new bytes, and the sessions of an OpenCode database
// whose change marker moved when the database or its write-ahead log is
// written (read-only, never locking it against OpenCode).
// A session whose file is deleted stays in the library, marked "source
// deleted", as does one deleted inside OpenCode (its database no longer
// lists it). The window starts the watcher when it opens; `rhizome watch`
// runs it without a window.
//
// Events: "watch:imported" (WatchImported, after each import the watcher
// made), "watch:changed" (WatchStatus, when the folders or the watcher's
// state change), and "library:changed".
type Watch struct {
	c  *core
	im *Import

	mu      sync.Mutex
	running *watcher
	status  WatchStatus
}

// WatchDebounce is how long the watcher waits after a file event for the
// writer to finish a burst of lines before it imports: events in that time
// join one import.
const WatchDebounce = 150 * time.Millisecond

// LiveSeconds is how long after its last import a session counts as live
// (being written): the sidebar and graph mark it.
const LiveSeconds = 60

// watchSettingKey is the watched folders' setting: the folders added and
// the switches of every folder, JSON watchSetting.
const watchSettingKey = "watch.folders"

// watchSetting is what the library keeps of the watched folders: the
// default folders' switches (on unless set) and the folders added.
type watchSetting struct {
	Disabled []string `json:"disabled,omitempty"` // default or added folders switched off
	Added    []string `json:"added,omitempty"`
}

// defaultFolders are the folders agents write their sessions to, with the
// agent: pi's ~/.pi/agent/sessions ($PI_CODING_AGENT_DIR/sessions), Claude
// Code's ~/.claude/projects ($CLAUDE_CONFIG_DIR/projects), Qwen Code's
// ~/.qwen/projects ($QWEN_HOME/projects), GitHub Copilot CLI's
// ~/.copilot/session-state ($COPILOT_HOME/session-state), Gemini CLI's
// ~/.gemini/tmp (its project folders, whose chats/ hold the recordings;
// $GEMINI_CLI_HOME replaces the home folder), Cline CLI's
// ~/.cline/data/sessions ($CLINE_SESSION_DATA_DIR, else
// $CLINE_DATA_DIR/sessions, else $CLINE_DIR/data/sessions, as Cline CLI
// 3.0.65 resolves them), OpenCode's data folder holding opencode.db
// (opencodeFolder), Codex's
// ~/.codex/sessions and archived_sessions ($CODEX_HOME/...).
func defaultFolders() []WatchedFolder {
	home, _ := os.UserHomeDir()
	pi := filepath.Join(home, ".pi", "agent")
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		pi = d
	}
	claude := filepath.Join(home, ".claude")
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		claude = d
	}
	qwen := filepath.Join(home, ".qwen")
	if d := os.Getenv("QWEN_HOME"); d != "" {
		qwen = d
	}
	copilot := filepath.Join(home, ".copilot")
	if d := os.Getenv("COPILOT_HOME"); d != "" {
		copilot = d
	}
	geminiHome := home
	if d := os.Getenv("GEMINI_CLI_HOME"); d != "" {
		geminiHome = d
	}
	clineData := filepath.Join(home, ".cline", "data")
	if d := os.Getenv("CLINE_DIR"); d != "" {
		clineData = filepath.Join(d, "data")
	}
	if d := os.Getenv("CLINE_DATA_DIR"); d != "" {
		clineData = d
	}
	clineSessions := filepath.Join(clineData, "sessions")
	if d := os.Getenv("CLINE_SESSION_DATA_DIR"); d != "" {
		clineSessions = d
	}
	codex := filepath.Join(home, ".codex")
	if d := os.Getenv("CODEX_HOME"); d != "" {
		codex = d
	}
	return []WatchedFolder{
		{Path: filepath.Join(pi, "sessions"), Agent: "pi", Default: true},
		{Path: filepath.Join(claude, "projects"), Agent: "claude-code", Default: true},
		{Path: filepath.Join(qwen, "projects"), Agent: "qwen-code", Default: true},
		{Path: filepath.Join(copilot, "session-state"), Agent: "copilot-cli", Default: true},
		{Path: filepath.Join(geminiHome, ".gemini", "tmp"), Agent: "gemini-cli", Default: true},
		{Path: clineSessions, Agent: "cline", Default: true},
		{Path: opencodeFolder(home), Agent: "opencode", Default: true},
		{Path: filepath.Join(codex, "sessions"), Agent: "codex", Default: true},
		{Path: filepath.Join(codex, "archived_sessions"), Agent: "codex", Default: true},
	}
}

// opencodeFolder is the folder of OpenCode's database, as OpenCode 1.18.33
// resolves it: the folder of $OPENCODE_DB (a file path, absolute or under
// the data folder), else the data folder, $XDG_DATA_HOME/opencode or
// ~/.local/share/opencode (where it keeps opencode.db, its -wal, and
// tool-output/). home is the home folder.
func opencodeFolder(home string) string {
	data := filepath.Join(home, ".local", "share", "opencode")
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		data = filepath.Join(d, "opencode")
	}
	if db := os.Getenv("OPENCODE_DB"); db != "" && db != ":memory:" {
		if !filepath.IsAbs(db) {
			db = filepath.Join(data, db)
		}
		return filepath.Dir(db)
	}
	return data
}

func (w *Watch) loadSetting() (watchSetting, error) {
	var s watchSetting
	b, err := w.c.store.Setting(w.c.context(), watchSettingKey)
	if errors.Is(err, store.ErrNotFound) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("watch: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("watch: the watched folders setting in the library: %w", err)
	}
	return s, nil
}

func (w *Watch) saveSetting(s watchSetting) error {
	sort.Strings(s.Disabled)
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if err := w.c.store.PutSetting(w.c.context(), watchSettingKey, b); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// Folders lists the watched folders: the default ones, then those added,
// each with its switch and whether it exists.
func (w *Watch) Folders() ([]WatchedFolder, error) {
	s, err := w.loadSetting()
	if err != nil {
		return nil, err
	}
	return folders(s), nil
}

func folders(s watchSetting) []WatchedFolder {
	off := map[string]bool{}
	for _, p := range s.Disabled {
		off[p] = true
	}
	out := defaultFolders()
	for _, p := range s.Added {
		out = append(out, WatchedFolder{Path: p})
	}
	for i := range out {
		out[i].Enabled = !off[out[i].Path]
		if info, err := os.Stat(out[i].Path); err == nil && info.IsDir() {
			out[i].Exists = true
		}
	}
	return out
}

// SetFolderEnabled switches a listed folder on or off and returns the list;
// a running watcher follows at once. An unlisted path is an error.
func (w *Watch) SetFolderEnabled(path string, enabled bool) ([]WatchedFolder, error) {
	s, err := w.loadSetting()
	if err != nil {
		return nil, err
	}
	listed := false
	for _, f := range folders(s) {
		listed = listed || f.Path == path
	}
	if !listed {
		return nil, fmt.Errorf("watch: %s is not a watched folder: add it first", path)
	}
	var disabled []string
	for _, p := range s.Disabled {
		if p != path {
			disabled = append(disabled, p)
		}
	}
	if !enabled {
		disabled = append(disabled, path)
	}
	s.Disabled = disabled
	return w.changed(s)
}

// AddFolder adds a folder to watch (switched on) and returns the list. The
// path must be an absolute folder; in `rhizome serve` it is ErrNoPaths.
func (w *Watch) AddFolder(path string) ([]WatchedFolder, error) {
	if w.c.isServed() {
		return nil, ErrNoPaths
	}
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("watch: %s: give an absolute path", path)
	}
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("watch: %s is not a folder", path)
	}
	s, err := w.loadSetting()
	if err != nil {
		return nil, err
	}
	for _, f := range folders(s) {
		if f.Path == path {
			return w.SetFolderEnabled(path, true)
		}
	}
	s.Added = append(s.Added, path)
	return w.changed(s)
}

// ChooseFolder asks for a folder with the native dialog and adds it; the
// list unchanged when cancelled. ErrNoDialogs in `rhizome serve`.
func (w *Watch) ChooseFolder() ([]WatchedFolder, error) {
	w.c.mu.RLock()
	d := w.c.dialogs
	w.c.mu.RUnlock()
	if d == nil {
		return nil, ErrNoDialogs
	}
	p, err := d.OpenFolder(w.c.context(), "Watch a folder of sessions")
	if err != nil {
		return nil, fmt.Errorf("app: unable to open the folder dialog: %w", err)
	}
	if p == "" {
		return w.Folders()
	}
	return w.AddFolder(p)
}

// RemoveFolder removes a folder that was added (the default ones can only
// be switched off) and returns the list.
func (w *Watch) RemoveFolder(path string) ([]WatchedFolder, error) {
	s, err := w.loadSetting()
	if err != nil {
		return nil, err
	}
	var added []string
	for _, p := range s.Added {
		if p != path {
			added = append(added, p)
		}
	}
	if len(added) == len(s.Added) {
		return nil, fmt.Errorf("watch: %s was not added (a default folder is switched off, not removed)", path)
	}
	s.Added = added
	return w.changed(s)
}

// changed saves s, restarts a running watcher on the new folders and
// returns them.
func (w *Watch) changed(s watchSetting) ([]WatchedFolder, error) {
	if err := w.saveSetting(s); err != nil {
		return nil, err
	}
	w.mu.Lock()
	running := w.running != nil
	w.mu.Unlock()
	if running {
		w.Stop()
		if err := w.Start(); err != nil {
			return nil, err
		}
	}
	w.emitStatus()
	return folders(s), nil
}

// Status says whether the watcher runs and what it watches.
func (w *Watch) Status() (WatchStatus, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st := w.status
	if st.Folders == nil { // not started yet, or no folder to watch
		st.Folders = []string{}
	}
	st.Running = w.running != nil
	st.LiveSeconds = LiveSeconds
	return st, nil
}

func (w *Watch) emitStatus() {
	st, _ := w.Status()
	w.c.emitEvent("watch:changed", st)
}

// Start starts the watcher on the enabled folders that exist (a no-op when
// it runs): it imports what they hold that the library lacks or that grew,
// marks the sessions whose source is gone (a file deleted, a session
// deleted inside OpenCode: sweep), then follows the folders until
// Stop or the app's context ends. Its imports are quiet (no import:progress
// events): "watch:imported" says what changed.
func (w *Watch) Start() error {
	w.mu.Lock()
	if w.running != nil {
		w.mu.Unlock()
		return nil
	}
	fs, err := w.Folders()
	if err != nil {
		w.mu.Unlock()
		return err
	}
	var roots []string
	flat := map[string]bool{}
	for _, f := range fs {
		if f.Enabled && f.Exists {
			roots = append(roots, f.Path)
			if f.Agent == "opencode" {
				// Its database is at the top; below are OpenCode's file
				// snapshots (a git object store), logs and tool outputs.
				flat[f.Path] = true
			}
		}
	}
	ctx, cancel := context.WithCancel(w.c.context())
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		cancel()
		w.mu.Unlock()
		return fmt.Errorf("watch: unable to watch folders: %w", err)
	}
	wt := &watcher{w: w, fw: fw, ctx: ctx, cancel: cancel, roots: roots, flat: flat, done: make(chan struct{}),
		dirs: map[string]bool{}, pending: map[string]bool{}, listed: map[string]map[string]bool{}}
	w.running = wt
	w.status = WatchStatus{Folders: roots}
	w.mu.Unlock()
	for _, r := range roots {
		wt.addTree(r)
	}
	go wt.run()
	w.emitStatus()
	return nil
}

// Stop stops the watcher and waits for the import under way, if any, and
// for the relations its appends queued (relations_queue.go).
func (w *Watch) Stop() {
	w.mu.Lock()
	wt := w.running
	w.running = nil
	w.mu.Unlock()
	if wt == nil {
		return
	}
	wt.cancel()
	wt.fw.Close()
	<-wt.done
	w.c.relations.wait(context.Background())
	w.emitStatus()
}

// watcher is a running watch over some folders.
type watcher struct {
	w      *Watch
	fw     *fsnotify.Watcher
	ctx    context.Context
	cancel context.CancelFunc
	roots  []string
	flat   map[string]bool // roots watched without their sub-folders
	done   chan struct{}

	dirs    map[string]bool // folders watched
	pending map[string]bool // session files to import at the next tick
	removed map[string]bool // files gone since the last tick
	// listed is, per OpenCode database, the sessions ("<database>#<id>")
	// its last listing gave when the library was brought in step with it
	// (sweep): a database listed the same again has nothing to mark.
	listed map[string]map[string]bool
}

// addTree watches dir and every folder below it (fsnotify watches one
// folder, not its sub-folders), following no links; a flat root alone.
func (wt *watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && wt.flat[filepath.Dir(p)] {
			return filepath.SkipDir
		}
		if !wt.dirs[p] {
			if err := wt.fw.Add(p); err == nil {
				wt.dirs[p] = true
			} else {
				wt.w.noteError(fmt.Errorf("watch %s: %w", p, err))
			}
		}
		return nil
	})
}

func (wt *watcher) run() {
	defer close(wt.done)
	// What the folders hold now: imported (a file the library has as it is
	// costs a probe), and sessions whose file is gone marked.
	wt.importNow(wt.roots, true)
	var tick <-chan time.Time
	var timer *time.Timer
	for {
		select {
		case <-wt.ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-wt.fw.Events:
			if !ok {
				return
			}
			if wt.note(ev) && timer == nil {
				timer = time.NewTimer(WatchDebounce)
				tick = timer.C
			}
		case err, ok := <-wt.fw.Errors:
			if !ok {
				return
			}
			wt.w.noteError(err)
		case <-tick:
			timer, tick = nil, nil
			paths := slices.Sorted(maps.Keys(wt.pending))
			wt.pending = map[string]bool{}
			removed := wt.removed
			wt.removed = nil
			wt.markRemoved(removed)
			if len(paths) > 0 {
				wt.importNow(paths, false)
			}
		}
	}
}

// note takes one file event: a new folder is watched (and its files
// imported), a session file written or created is due for import, one
// removed or renamed away for a check. It reports whether something is due.
func (wt *watcher) note(ev fsnotify.Event) bool {
	p := ev.Name
	switch {
	case ev.Has(fsnotify.Create):
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			if wt.flat[filepath.Dir(p)] {
				return false // below OpenCode's data folder: not watched
			}
			wt.addTree(p)
			wt.pending[p] = true // what it already holds
			return true
		}
		fallthrough
	case ev.Has(fsnotify.Write):
		// A session file, or one beside it whose change changes its
		// reading (a Cline manifest or compaction), or a database or its
		// write-ahead log (OpenCode's: its sessions whose change marker
		// moved are read again).
		if sf, ok := ingest.SessionFileFor(p); ok {
			wt.pending[sf] = true
			return true
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		if wt.dirs[p] {
			delete(wt.dirs, p)
		}
		if ingest.IsSessionFile(p) || ingest.IsDatabaseName(p) {
			if wt.removed == nil {
				wt.removed = map[string]bool{}
			}
			wt.removed[p] = true
			return true
		}
	}
	return false
}

// markRemoved marks the sessions of files that are gone as "source
// deleted" (a file renamed back or re-created is not gone): those of a
// database gone are all its sessions ("<database>#<id>").
func (wt *watcher) markRemoved(paths map[string]bool) {
	now := time.Now().UTC()
	changed := false
	var stored map[string]bool
	for p := range paths {
		if _, err := os.Stat(p); err == nil {
			continue
		}
		gone := []string{p}
		if ingest.IsDatabaseName(p) {
			delete(wt.listed, p)
			if stored == nil {
				var err error
				if stored, err = wt.w.c.store.SessionPaths(wt.ctx); err != nil {
					wt.w.noteError(err)
				}
			}
			for sp := range stored {
				if sp != p && ingest.SourceFileOf(sp) == p {
					gone = append(gone, sp)
				}
			}
		}
		for _, g := range gone {
			n, err := wt.w.c.store.MarkSourceDeleted(wt.ctx, g, true, now)
			if err != nil {
				wt.w.noteError(err)
			}
			changed = changed || n > 0
		}
	}
	if changed {
		wt.w.c.emitEvent("library:changed", nil)
	}
}

// importNow imports paths (files or folders) quietly and tells the window
// what changed; with sweep it also marks the sessions under the watched
// folders whose source is gone (sweep), else those of the databases among
// paths that OpenCode deleted (sweepDatabases).
func (wt *watcher) importNow(paths []string, sweep bool) {
	var files []string
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && (info.IsDir() || ingest.IsSessionFile(p) || ingest.IsDatabaseName(p)) {
			files = append(files, p)
		}
	}
	host, _ := os.Hostname()
	var srcs []ingest.Source
	for _, s := range ingest.CollectFound(files, host) {
		// Session files, and the sessions of a database (or what is
		// wrong with one named as OpenCode's).
		if p := s.Path(); ingest.IsSessionFile(p) || ingest.IsDatabaseName(ingest.SourceFileOf(p)) {
			srcs = append(srcs, s)
		}
	}
	start := time.Now()
	// The first pass over the folders (a whole ~/.claude on the first run)
	// says how far it is: "watch:progress", as an import's progress.
	var onProgress func(ImportProgress)
	if sweep {
		onProgress = func(p ImportProgress) { wt.w.c.emitEvent("watch:progress", p) }
	}
	rep, err := wt.w.im.runQuiet(wt.ctx, srcs, onProgress)
	if err != nil {
		wt.w.noteError(err)
		return
	}
	if sweep {
		wt.sweep(func(p string) bool {
			for _, r := range wt.roots {
				if strings.HasPrefix(p, r+string(filepath.Separator)) {
					return true
				}
			}
			return false
		}, nil)
	} else {
		wt.sweepDatabases(files)
	}
	out := WatchImported{At: isoMillis(time.Now()), Millis: time.Since(start).Milliseconds(), Initial: sweep, Files: []FileReport{}}
	stopped := wt.ctx.Err() != nil
	for _, fr := range rep.Files {
		// Stopped (Ctrl-C, the window closed): the files the import did not
		// reach are not failures to report, one line each; the next start
		// imports them.
		if fr.Status == ingest.StatusImported || fr.Status == ingest.StatusAppended || (fr.Status == ingest.StatusFailed && !stopped) {
			out.Files = append(out.Files, fr)
		}
	}
	out.Totals = rep.Totals
	wt.w.mu.Lock()
	wt.w.status.LastImport = out.At
	wt.w.status.Imports++
	wt.w.mu.Unlock()
	if len(out.Files) > 0 {
		wt.w.c.emitEvent("watch:imported", out)
	}
}

// sweepDatabases brings the library in step with the OpenCode databases
// among paths (just imported): a database whose listing differs from its
// last one (wt.listed: a session deleted inside OpenCode, or back, or
// new) is swept with that listing. A database that cannot be listed
// (locked, damaged, not OpenCode's) is left to the import's report.
func (wt *watcher) sweepDatabases(paths []string) {
	listings := map[string]map[string]bool{}
	for _, p := range paths {
		if !ingest.IsDatabaseName(p) {
			continue
		}
		listed, err := ingest.ListedSessions(wt.ctx, p)
		if err != nil || maps.Equal(listed, wt.listed[p]) {
			continue
		}
		listings[p] = listed
	}
	if len(listings) == 0 {
		return
	}
	wt.sweep(func(p string) bool {
		_, ok := listings[ingest.SourceFileOf(p)]
		return ok
	}, listings)
}

// sweep marks the stored sessions within accepts (by path) whose source
// is gone as "source deleted", and unmarks those whose source is back; the
// sessions and their entries stay. A session file's source is the file. A
// database's session ("<database>#<id>") is gone with its database, or
// when the database, listed (ingest.ListedSessions), no longer holds it:
// OpenCode deleted it; it is back when listed again. A database that
// cannot be listed (locked, damaged) says nothing of its sessions: they are
// left as they are. listings holds the databases already listed (nil for
// none); the others are listed here, once each. Each listing becomes its
// database's wt.listed once the library holds what it says.
func (wt *watcher) sweep(within func(p string) bool, listings map[string]map[string]bool) {
	paths, err := wt.w.c.store.SessionPaths(wt.ctx)
	if err != nil {
		wt.w.noteError(err)
		return
	}
	if listings == nil {
		listings = map[string]map[string]bool{}
	}
	now := time.Now().UTC()
	changed, failed := false, false
	for p, deleted := range paths {
		if !within(p) {
			continue
		}
		file := ingest.SourceFileOf(p) // a database's session: its database
		_, err := os.Stat(file)
		gone := errors.Is(err, fs.ErrNotExist)
		if !gone && file != p {
			listed, ok := listings[file]
			if !ok {
				if listed, err = ingest.ListedSessions(wt.ctx, file); err != nil {
					wt.w.noteError(fmt.Errorf("watch: unable to tell which sessions OpenCode deleted: %w", err))
				}
				listings[file] = listed
			}
			if listed == nil {
				continue // not listed: nothing known
			}
			gone = !listed[p]
		}
		if gone != deleted {
			n, err := wt.w.c.store.MarkSourceDeleted(wt.ctx, p, gone, now)
			if err != nil {
				wt.w.noteError(err)
				failed = true
			}
			changed = changed || n > 0
		}
	}
	for file, listed := range listings {
		if listed != nil && !failed {
			wt.listed[file] = listed
		}
	}
	if changed {
		wt.w.c.emitEvent("library:changed", nil)
	}
}

func (w *Watch) noteError(err error) {
	w.mu.Lock()
	w.status.LastError = err.Error()
	w.mu.Unlock()
	w.emitStatus()
}
