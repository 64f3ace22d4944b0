package app

import (
	"context"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"rhizome/app/ingest"
)

// Import brings session files (pi, Claude Code, Qwen Code, Copilot CLI, Codex) and MemoBrain files
// into the library. Its use cases list what to import and hand it to the
// import engine (ingest.Run, app/ingest); what the engine changed is then
// told to the window and the background work (relations, vectors, the
// full-text merge). MemoBrain files are imported here (reasoning_import.go).
type Import struct {
	c  *core
	mu sync.Mutex // one import at a time
	// failImport, when set (by tests), is ingest.Hooks.Stored.
	failImport func(entries int) error
	// deriveInline, set by tests of the engine's other mode, makes imports
	// derive as they read (ingest.Hooks.DeriveLater unset).
	deriveInline bool
}

//go:embed samples/*.jsonl
var samples embed.FS

// ImportPaths imports session files and folders (every *.jsonl below a
// folder, recursively, such as pi's ~/.pi/agent/sessions). A path that
// cannot be read gives a failed FileReport. In `rhizome serve` it returns
// ErrNoPaths and reads nothing.
func (im *Import) ImportPaths(paths []string) (ImportReport, error) {
	if im.c.isServed() {
		return emptyReport(), ErrNoPaths
	}
	host, _ := os.Hostname()
	return im.run(ingest.Collect(paths, host))
}

// ImportFiles imports files sent by the frontend, their content base64
// encoded (a browser File or a file dropped on the window). The path stored
// is the file name.
func (im *Import) ImportFiles(files []DroppedFile) (ImportReport, error) {
	srcs := make([]ingest.Source, 0, len(files))
	for _, f := range files {
		name := filepath.Base(f.Name)
		b, err := base64.StdEncoding.DecodeString(f.Content)
		if err != nil {
			srcs = append(srcs, ingest.Unreadable(name, fmt.Errorf("%s: content is not base64: %w", name, err)))
			continue
		}
		srcs = append(srcs, ingest.InMemory(name, b))
	}
	return im.run(srcs)
}

// ImportSamples imports the three real pi sessions bundled with Rhizome
// (app/samples, from badlogic/pi-mono, MIT licence).
func (im *Import) ImportSamples() (ImportReport, error) {
	names, err := fs.Glob(samples, "samples/*.jsonl")
	if err != nil {
		return emptyReport(), fmt.Errorf("app: unable to list the samples: %w", err)
	}
	sort.Strings(names)
	srcs := make([]ingest.Source, 0, len(names))
	for _, n := range names {
		b, err := samples.ReadFile(n)
		if err != nil {
			return emptyReport(), fmt.Errorf("app: unable to read sample %s: %w", n, err)
		}
		srcs = append(srcs, ingest.InMemory(n, b))
	}
	return im.run(srcs)
}

// ChooseAndImport asks for session files with the native dialog and imports
// them. It returns an empty report when the user cancels, and ErrNoDialogs
// in `rhizome serve`.
func (im *Import) ChooseAndImport() (ImportReport, error) {
	im.c.mu.RLock()
	d := im.c.dialogs
	im.c.mu.RUnlock()
	if d == nil {
		return emptyReport(), ErrNoDialogs
	}
	paths, err := d.OpenFiles(im.c.context(), "Import sessions (pi, Claude Code, Qwen Code, Copilot CLI, Codex)")
	if err != nil {
		return emptyReport(), fmt.Errorf("app: unable to open the file dialog: %w", err)
	}
	if len(paths) == 0 {
		return emptyReport(), nil
	}
	return im.ImportPaths(paths)
}

// run imports the sources (ingest.Run) under the app's context, telling the
// window: "import:progress" as it goes, "import:done" with the report, and
// "library:changed" when it changed the library.
func (im *Import) run(srcs []ingest.Source) (ImportReport, error) {
	return im.runWith(im.c.context(), srcs, false, nil)
}

// runQuiet is run for the watcher: under ctx, without import:progress and
// import:done events (library:changed still goes out); what would have gone
// out as import:progress goes to onProgress when it is not nil.
func (im *Import) runQuiet(ctx context.Context, srcs []ingest.Source, onProgress func(ImportProgress)) (ImportReport, error) {
	return im.runWith(ctx, srcs, true, onProgress)
}

func (im *Import) runWith(ctx context.Context, srcs []ingest.Source, quiet bool, onProgress func(ImportProgress)) (ImportReport, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	emit := im.c.emitEvent
	if quiet {
		emit = func(name string, data any) {
			if p, ok := data.(ImportProgress); ok && onProgress != nil && name == "import:progress" {
				onProgress(p)
			}
		}
	}
	rep := emptyReport()
	start := time.Now()
	changed, bg, deferRel := false, false, false
	ingest.Run(ctx, im.c.store, srcs, ingest.Hooks{
		Progress:       func(p ingest.Progress) { emit("import:progress", ImportProgress(p)) },
		ModelSummaries: im.c.summaries.modelOn(),
		DeriveLater:    !im.deriveInline,
		ShowSummary:    showSummary,
		Stored:         im.failImport,
		Finish: func(ctx context.Context, r *ingest.Report) {
			rep = importReport(r)
			changed = len(r.Changed) > 0
			if im.importReasoning(ctx, r.Reasoning, &rep) {
				changed = true
			}
			if im.markDatabaseSessions(ctx, r) {
				changed = true
			}
			im.c.mu.RLock()
			bg, deferRel = im.c.background, im.c.deferRel
			im.c.mu.RUnlock()
			if len(r.Changed) > 0 {
				// The relations across sessions are derived, as the
				// sessions' summaries and knowledge are, after the import
				// made them readable, by the relations queue: deriving
				// them costs as much as the project (relations_queue.go,
				// issue 25).
				if err := im.relateSessions(ctx, r.Changed); err != nil {
					rep.RelationsError = err.Error()
				}
			}
		},
	})
	rep.Totals.ReadableSeconds = time.Since(start).Seconds()
	emit("import:done", rep)
	if changed {
		im.c.emitEvent("library:changed", nil)
		if bg {
			im.c.vectors.Kick()
		}
		if bg || deferRel {
			// What the import wrote into the full-text indexes is merged
			// after it, off the next append's path (index_merge.go).
			im.c.merger.kick()
		}
	}
	return rep, nil
}

// markDatabaseSessions brings the library in step with the agents'
// databases the import read (OpenCode's): a stored session of one that its
// listing no longer holds was deleted inside the agent and is marked
// "source deleted" (kept, with its entries); one it holds again is
// unmarked. A database that cannot be listed says nothing (the watcher's
// sweep does the same for watched folders). It reports whether the
// library changed.
func (im *Import) markDatabaseSessions(ctx context.Context, r *ingest.Report) bool {
	dbs := map[string]bool{}
	for _, f := range r.Files {
		if file := ingest.SourceFileOf(f.Path); file != f.Path && f.Status != ingest.StatusFailed {
			dbs[file] = true
		}
	}
	if len(dbs) == 0 {
		return false
	}
	paths, err := im.c.store.SessionPaths(ctx)
	if err != nil {
		return false
	}
	listings := map[string]map[string]bool{}
	for file := range dbs {
		if listed, err := ingest.ListedSessions(ctx, file); err == nil {
			listings[file] = listed
		}
	}
	now, changed := time.Now().UTC(), false
	for p, deleted := range paths {
		listed, ok := listings[ingest.SourceFileOf(p)]
		if !ok || p == ingest.SourceFileOf(p) || listed[p] == !deleted {
			continue
		}
		if n, err := im.c.store.MarkSourceDeleted(ctx, p, !listed[p], now); err == nil && n > 0 {
			changed = true
		}
	}
	return changed
}

// relateSessions queues the projects of the sessions an import changed
// for the relations queue, which derives their relations across sessions
// again.
func (im *Import) relateSessions(ctx context.Context, sessionIDs []string) error {
	var projects []string
	for _, id := range sessionIDs {
		// The session's own row: SessionByID sums its segments and nodes.
		sess, err := im.c.store.ImportedSession(ctx, id)
		if err != nil {
			return fmt.Errorf("app: unable to derive relations: %w", err)
		}
		projects = append(projects, sess.Cwd)
	}
	im.c.relations.add(projects)
	return nil
}

func emptyReport() ImportReport {
	return ImportReport{Files: []FileReport{}}
}

// importReport is the engine's report r in the contract's shape (Relations
// aside: the caller's).
func importReport(r *ingest.Report) ImportReport {
	t := r.Totals
	out := ImportReport{Files: make([]FileReport, 0, len(r.Files)), Totals: ImportTotals{Files: t.Files, Imported: t.Imported,
		Unchanged: t.Unchanged, Appended: t.Appended, Failed: t.Failed, Entries: t.Entries, Segments: t.Segments, Malformed: t.Malformed}}
	for _, fr := range r.Files {
		out.Files = append(out.Files, fileReport(fr))
	}
	return out
}

// fileReport is the engine's report of a file in the contract's shape.
func fileReport(fr ingest.FileReport) FileReport {
	lines := make([]LineProblem, len(fr.MalformedLines))
	for i, p := range fr.MalformedLines {
		lines[i] = LineProblem(p)
	}
	return FileReport{Path: fr.Path, Format: fr.Format, Version: fr.Version, SessionID: fr.SessionID, Status: fr.Status,
		Entries: fr.Entries, NewEntries: fr.NewEntries, EntriesByType: fr.EntriesByType, MalformedCount: fr.MalformedCount,
		MalformedLines: lines, PendingTail: fr.PendingTail, Segments: fr.Segments, BoundariesByType: fr.BoundariesByType,
		EdgesByType: fr.EdgesByType, Error: fr.Error}
}
