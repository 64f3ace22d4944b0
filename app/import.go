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
	"strings"
	"sync"
)

// Import brings session files (pi, Claude Code, Codex) into the library.
//
// Each file is imported all or nothing: files are written in batches, one
// transaction for many small files, each file inside a savepoint of its own
// that is rolled back when the file fails (import_batch.go). A file is
// read once, streaming: a reader goroutine decodes entries, feeds the segment
// builder and the analyzer's accumulator and hands entries, segments and
// nodes in small batches to the writer, which stores them (raw JSON as in
// the file) in the file's transaction; the reader may be one file ahead.
// Memory stays bounded by the longest line and the batches in flight, never
// by the file. The outcome of a file (FileReport.Status):
//
//   - "imported": a session not in the library yet, or one whose file was
//     rewritten (same session id, stored bytes no longer a prefix of the file):
//     the session is replaced whole; nodes made again get a new version
//     (trigger "replace"), nodes whose segment is gone are removed.
//   - "unchanged": the same bytes as last time: nothing is written.
//   - "appended": the file grew and the imported bytes are still its prefix
//     (SHA-256 of the first N bytes): only the new entries are stored. The
//     segmenter's state is rebuilt by reading the file again from its start
//     (the entries already stored are fed to the segment builder, and those of
//     the last stored segment to the accumulator, but not written): this is
//     the simplest way to get exactly the state of a full read, including the
//     entry-to-segment map that branch and tree-jump links need. The last
//     segment is extended when no boundary intervenes, and its node gets a new
//     version (trigger "append") when it changed; new segments get new nodes
//     and edges.
//   - "failed": no session header, unreadable file, or a storage error; the
//     library is left as it was for that file and the other files still
//     import.
//
// A half-written last line (pending) is not imported; the next import of the
// grown file picks it up as an append. Malformed lines are reported and
// every other entry is imported: all of them are counted (the session's
// Malformed, FileReport.MalformedCount), the first session.MaxStoredProblems
// of each file are stored with their reasons (FileReport.MalformedLines).
//
// FileReport counts describe the file as the library now holds it (for
// "appended" and "unchanged" too): Entries, EntriesByType, MalformedLines,
// Segments and BoundariesByType over the whole file; EdgesByType counts the
// edges into or out of the session's nodes (fork edges included);
// NewEntries the entries written by this import. EntriesByType counts entries
// by entry type, and messages also by role as "message:<role>" (so "message"
// is the sum of the "message:*" keys).
//
// One file per job: import.go the entry points and reports,
// import_collect.go the files to read, import_driver.go the reader and writer
// goroutines, import_read.go streaming a file into writes, import_batch.go
// the batches, import_write.go a file's savepoint, import_forks.go fork
// edges, import_hash.go comparing a file with its stored session,
// import_progress.go progress events.
type Import struct {
	c  *core
	mu sync.Mutex // one import at a time
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
	return im.run(collectPaths(paths, host))
}

// ImportFiles imports files sent by the frontend, their content base64
// encoded (a browser File or a file dropped on the window). The path stored
// is the file name.
func (im *Import) ImportFiles(files []DroppedFile) (ImportReport, error) {
	srcs := make([]source, 0, len(files))
	for _, f := range files {
		name := filepath.Base(f.Name)
		b, err := base64.StdEncoding.DecodeString(f.Content)
		if err != nil {
			srcs = append(srcs, source{path: name, err: fmt.Errorf("%s: content is not base64: %w", name, err)})
			continue
		}
		srcs = append(srcs, memorySource(name, b))
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
	srcs := make([]source, 0, len(names))
	for _, n := range names {
		b, err := samples.ReadFile(n)
		if err != nil {
			return emptyReport(), fmt.Errorf("app: unable to read sample %s: %w", n, err)
		}
		srcs = append(srcs, memorySource(n, b))
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
	paths, err := d.OpenFiles(im.c.context(), "Import sessions (pi, Claude Code, Codex)")
	if err != nil {
		return emptyReport(), fmt.Errorf("app: unable to open the file dialog: %w", err)
	}
	if len(paths) == 0 {
		return emptyReport(), nil
	}
	return im.ImportPaths(paths)
}

func emptyReport() ImportReport {
	return ImportReport{Files: []FileReport{}}
}

// FileReport statuses.
const (
	statusImported  = "imported"
	statusUnchanged = "unchanged"
	statusAppended  = "appended"
	statusFailed    = "failed"
)

func newFileReport(p string) FileReport {
	return FileReport{
		Path:             p,
		EntriesByType:    map[string]int{},
		MalformedLines:   []LineProblem{},
		BoundariesByType: map[string]int{},
		EdgesByType:      map[string]int{},
	}
}

// failed turns fr into the report of a failed file: what was read is kept
// (format, version, session id), counts are zeroed as nothing was stored.
func failed(fr FileReport, p string, err error) FileReport {
	out := newFileReport(fr.Path)
	out.Version, out.SessionID, out.Format = fr.Version, fr.SessionID, fr.Format
	out.Status = statusFailed
	msg := err.Error()
	if !strings.Contains(msg, p) {
		msg = p + ": " + msg
	}
	out.Error = msg
	return out
}

// cancelled is err, or when ctx ended (the import was cancelled: Ctrl-C, the
// window closed) what that meant for the file: its transaction began and
// was rolled back (during), or never began.
func cancelled(ctx context.Context, err error, during bool) error {
	if ctx.Err() == nil {
		return err
	}
	if during {
		return fmt.Errorf("nothing of this file was written: the import was cancelled (%v) while it was imported", context.Cause(ctx))
	}
	return fmt.Errorf("not imported: the import was cancelled (%v) before this file", context.Cause(ctx))
}
