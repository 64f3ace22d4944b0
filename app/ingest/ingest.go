// Package ingest is Rhizome's import engine: it brings session files (pi,
// Claude Code, Gemini CLI, Qwen Code, Copilot CLI and Codex line by line;
// Cline conversations and OpenCode's database sessions as whole documents,
// document.go) into the library, behind one entry point, Run. The app
// (package app) lists what to import (Collect, InMemory, FileAs), calls Run,
// and turns its Report into the window's contract; nothing here knows the
// window, the HTTP server or the app's other use cases: what Run needs of
// them comes in Hooks.
//
// Each file is imported all or nothing: files are written in batches, one
// transaction for many small files, each file inside a savepoint of its own
// that is rolled back when the file fails (batch.go). A file is read once,
// streaming: a reader goroutine decodes entries, feeds the segment builder
// and the analyzer's accumulator and hands entries, segments and nodes in
// small batches to the writer, which stores them (raw JSON as in the file)
// in the file's transaction; the reader may be one file ahead. Memory stays
// bounded by the longest line and the batches in flight, never by the file.
// The outcome of a file (FileReport.Status):
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
// A dropped file's way through, one file per step: ingest.go (Run),
// collect.go (the files to read, and sniffing their heads), hash.go (the
// order, and comparing a file with its stored session), driver.go (the
// reader and writer goroutines, a file's report), read.go (streaming a file
// into writes, through formats.go's readers and gaps.go), batch.go (the
// batches), write.go (a file's savepoint, and its report read back), with
// forks.go, subagents.go and summary.go for what a written session links
// and summarises, and progress.go for the progress events.
package ingest

import (
	"context"

	"rhizome/store"
)

// Hooks is what Run needs of the rest of the app. Every field but
// ShowSummary may be left zero.
type Hooks struct {
	// Progress receives the progress of the import as it goes (the
	// window's "import:progress" events): only forward, the last one with
	// Phase "done".
	Progress func(Progress)
	// ModelSummaries says summaries are made with a model: the writer
	// queues what it summarised offline for it.
	ModelSummaries bool
	// DeriveLater makes the import make sessions readable only (entries,
	// raw lines, segments, nodes, the session row, the entries' full-text
	// index): their summaries and offline knowledge are queued for the
	// session's derivation job (the summaries queue, store.QueueOffline)
	// instead of being made as the entries stream by. An append that goes
	// on from the states the last import kept still derives its new
	// entries (issue 25).
	DeriveLater bool
	// ShowSummary decides what an item shows once the import wrote its
	// summaries (store.Tx.WriteSummaries): the app's rule. Required.
	ShowSummary store.ShowFunc
	// Finish runs once the session files are written, before the last
	// progress event, with the import's context and its report: the
	// caller's work on what the import changed (MemoBrain files, the
	// relations of the sessions changed).
	Finish func(ctx context.Context, rep *Report)
	// Stored, when set (by tests), is called by the writer after each entry
	// it stores with the number stored so far in the file; an error it
	// returns fails the file as a storage error would.
	Stored func(entries int) error
}

// Report is what an import did.
type Report struct {
	// Files has a report per source, in the order given; those Run did not
	// get to (cancelled) are failed.
	Files  []FileReport
	Totals Totals
	// Reasoning holds the MemoBrain files among the sources (found by
	// content, read whole), left to the caller: Run imports sessions.
	Reasoning []ReasoningFile
	// Changed lists the sessions imported or appended to, in order;
	// AppendsOnly, that every one of them was appended to.
	Changed     []string
	AppendsOnly bool
}

// FileReport is the result of importing one session file; see the package
// comment for its Status and counts, and app.FileReport for its fields.
type FileReport struct {
	Path             string
	Format           string
	Version          int
	SessionID        string
	Status           string
	Entries          int
	NewEntries       int
	EntriesByType    map[string]int
	MalformedCount   int
	MalformedLines   []LineProblem
	PendingTail      bool
	Segments         int
	BoundariesByType map[string]int
	EdgesByType      map[string]int
	Error            string
}

// LineProblem is a malformed line of a session file: its line number
// (1-based), its offset in bytes and what is wrong with it.
type LineProblem struct {
	Line   int
	Offset int64
	Reason string
}

// Totals sums an import's file reports: files by status, and the entries,
// segments and malformed lines (all of them) of the files.
type Totals struct {
	Files     int
	Imported  int
	Unchanged int
	Appended  int
	Failed    int
	Entries   int
	Segments  int
	Malformed int
}

// Run imports the sources in order, each all or nothing (in batches of
// files, each file between a savepoint and its release: batch.go), into
// st. Two goroutines share the work: a reader decodes, segments and
// analyzes the files (a few ahead of the writer) and hands the results to
// the writer, the caller's goroutine, which owns the transaction. Cancelling
// ctx stops the import: the files not written are reported failed, saying
// so. Run reports every failure in the files' reports; it returns no error.
func Run(ctx context.Context, st *store.Store, srcs []Source, h Hooks) Report {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rep := Report{Files: []FileReport{}, AppendsOnly: true}
	trustStamps(ctx, st, srcs)
	srcs, rep.Reasoning = takeReasoning(ctx, srcs)
	prog := &progress{emit: h.Progress, fileCount: len(srcs)}
	for _, s := range srcs {
		prog.bytesTotal += s.size
	}

	jobs := make(chan *job, readAheadFiles)
	waiting := make(chan *job)
	go readJobs(ctx, st, orderSources(srcs), prog, &h, jobs, waiting)
	b := &writeBatch{st: st, wrote: prog.wrote}
	for {
		var j *job
		var ok bool
		select {
		case j, ok = <-jobs:
		case p := <-waiting:
			// The reader waits for file p to be committed.
			b.await(p, &rep)
			continue
		case <-b.expiry():
			// The reader is slow to the next file (hashing a long one
			// to compare it with the library): other writers' turn.
			b.commit(&rep)
			continue
		}
		if !ok {
			break
		}
		fr, kept, err := writeJob(ctx, b, j)
		rep.Files = append(rep.Files, fr)
		if err != nil {
			b.jobs = append(b.jobs, j)
			b.abandon(&rep, err)
		} else {
			b.add(j, &rep, len(rep.Files)-1, kept)
		}
	}
	b.commit(&rep)
	rep.total()
	// Cancelled: the files the reader did not get to.
	for _, s := range srcs[len(rep.Files):] {
		rep.Files = append(rep.Files, Failed(NewFileReport(s.path), s.path, Cancelled(ctx, ctx.Err(), false)))
		rep.Totals.Files++
		rep.Totals.Failed++
	}
	if h.Finish != nil {
		h.Finish(ctx, &rep)
	}
	prog.done()
	return rep
}

// total sums the files' reports into the totals and lists the sessions
// changed.
func (rep *Report) total() {
	for _, fr := range rep.Files {
		t := &rep.Totals
		t.Files++
		switch fr.Status {
		case StatusImported:
			t.Imported++
			rep.Changed = append(rep.Changed, fr.SessionID)
			rep.AppendsOnly = false
		case StatusAppended:
			t.Appended++
			rep.Changed = append(rep.Changed, fr.SessionID)
		case StatusUnchanged:
			t.Unchanged++
		case StatusFailed:
			t.Failed++
		}
		t.Entries += fr.Entries
		t.Segments += fr.Segments
		t.Malformed += fr.MalformedCount
	}
}
