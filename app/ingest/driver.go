package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sync/semaphore"

	"rhizome/backend/graph"
	"rhizome/backend/knowledge"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
	"rhizome/backend/summary"
	"rhizome/store"
)

// The driver: an import runs as two goroutines, a reader (readJobs:
// read.go) a few files ahead of the writer (writeJob:
// write.go), joined by a job per file whose ops flow through a
// channel in batches.

// How far the reader goes ahead of the writer: files whose sizes add up to
// readAheadBytes (a larger file alone), readAheadFiles at most (each holds
// its file open). One file ahead, the two took turns on a corpus of small
// files whose costs differ (a Codex file costs the reader more, a Claude
// Code file the writer): the writer waited 2.1 s of a 19 s import (block
// profile); one byte ahead (a file at a time), the import took 18 s where
// 1 MB ahead takes 13-14 s. The ops of a file still being read are bounded
// apart (16 batches of opBatch).
const (
	readAheadBytes = 1 << 20
	readAheadFiles = 8
)

// job is one file on its way through an import. The reader fills everything
// above ops before sending the job, and what follows ops before closing it;
// the writer reads the latter only once ops is closed.
type job struct {
	index int
	src   Source

	hdr    *session.Header
	format string         // pi, claude-code or codex (detected from the content)
	stored *store.Session // the stored session the reader decided on; nil if new
	status string         // the reader's decision: imported, unchanged or appended
	// Append: the state the last import stored, which the reader goes on
	// from; the stored segments from lastIdx on (the one left open) are
	// made again (-1: none).
	resume  *resumeState
	lastIdx int
	titles  *codexTitles // Codex thread names, shared by the import's jobs
	keys    *importKeys  // dedupe keys of the files read before, shared by the import's jobs
	beside  *besideCache // what files beside documents hold (Cline's index), shared by the import's jobs

	// A document format's file (document.go): the reading of the whole
	// document, its bytes and their hex SHA-256; docPending, a document that
	// breaks off (nothing is read or written).
	doc        *sessiondoc.Doc
	docBytes   []byte
	docSHA     string
	docPending bool
	// storedDoc finds the state the library holds of a document session
	// by its id, before the document is read (set by prepareJob): what it
	// holds is not decoded again (sessiondoc.Known). docAgainst is the
	// state the reading went by (the zero State: none).
	storedDoc  func(id string) (sessiondoc.State, bool)
	docAgainst sessiondoc.State
	docStored  *docStored // what storedDoc found

	ahead       *semaphore.Weighted // the reader's lead over the writer, released once the job is written
	aheadWeight int64

	ops   chan []op     // what to write, in order; closed by the reader
	abort chan struct{} // closed by the writer when it gives up on the job
	done  chan struct{} // closed by the writer once the job is committed or dropped

	prepErr   error           // set before the job is sent: the file cannot be imported
	file      sessionFile     // open until the writer is done with the job
	closeFile func() error    // closes file
	reader    sessionReader   // past the header
	counter   *countingReader // under reader: the bytes it has read

	// hooks are the import's (Run).
	hooks *Hooks

	// Set by the reader before it closes ops.
	err    error          // reading failed: nothing of the file is written
	read   *readResult    // what reading found
	byType map[string]int // entries read after the replayed ones, by type and role
}

// op is one write of a file's import: an entry with its searchable text and
// extra columns, bytes of the file between entries, or a complete segment
// with its node.
type op struct {
	entry *session.Entry
	text  string
	extra store.EntryExtra

	gap       []byte
	gapOffset int64

	seg  *segment.Segment
	node *graph.Node
	// knowledge is what the offline knowledge rules found in seg, when
	// derived (else the session's derivation job finds it).
	knowledge []knowledge.Item
	derived   bool
	// last: seg is the last segment stored by an earlier import (append);
	// it is written only if its node changed.
	last bool

	sums []summary.Made // offline summaries made (summary.go)

	// lookup asks the writer which entries of the library, as its
	// transaction holds it, the keys are copies of (stream.findCopies).
	lookup *copyLookup
	// turns asks the writer for the turns of a stored Codex thread
	// (stream.parentTurns).
	turns *turnLookup
	// toolOutput is a tool output the entry before it names, kept beside
	// a Claude Code session (stream.toolOutputs).
	toolOutput *store.ToolOutput
	// document is a document session's document, kept whole, and the
	// marks of the stored entries it dropped or holds again (document.go).
	document *docWrite
}

// docWrite is what the writer keeps of a document read: its bytes, the
// seqs of the stored entries it no longer holds, and of those marked
// dropped that it holds again.
type docWrite struct {
	bytes         []byte
	dropped, back []int
}

// copyLookup is a look-up of Claude Code copies the reader asks the writer
// for: the writer runs it in its transaction, where the files before this
// one in the import are (committed or in the open batch), and replies.
type copyLookup struct {
	keys    []string
	fromSeq int // the file's entries from this seq on are not owners
	reply   chan copyReply
}

type copyReply struct {
	owners map[string]store.EntryCopy
	err    error
}

// turnLookup asks the writer for the turns of the stored session thread,
// as its transaction holds it (store.Tx.SessionTurnIDs).
type turnLookup struct {
	thread string
	reply  chan turnReply
}

type turnReply struct {
	turns map[string]bool
	ok    bool
	err   error
}

// opBatch is how many ops go to the writer at once.
const opBatch = 128

// readJobs prepares the sources one by one and sends them to the writer,
// closing jobs after the last one.
func readJobs(ctx context.Context, st *store.Store, srcs []Source, prog *progress, h *Hooks, jobs chan<- *job, waiting chan<- *job) {
	defer close(jobs)
	var inflight []*job
	titles, keys, beside := &codexTitles{}, &importKeys{}, &besideCache{}
	ahead := semaphore.NewWeighted(readAheadBytes)
	for i, src := range srcs {
		weight := min(max(src.size, 1), readAheadBytes)
		if err := ahead.Acquire(ctx, weight); err != nil {
			return // cancelled: Run reports the files not read
		}
		j := &job{index: i, src: src, hooks: h, lastIdx: -1, titles: titles, keys: keys, beside: beside, ops: make(chan []op, 16), abort: make(chan struct{}), done: make(chan struct{}),
			ahead: ahead, aheadWeight: weight}
		prog.startFile(i, src)
		j.prepErr = prepareJob(ctx, st, j, inflight, waiting)
		// Forget the jobs already written.
		live := inflight[:0]
		for _, p := range inflight {
			select {
			case <-p.done:
			default:
				live = append(live, p)
			}
		}
		inflight = append(live, j)
		select {
		case jobs <- j:
		case <-ctx.Done():
			if j.closeFile != nil {
				j.closeFile()
			}
			return
		}
		if j.prepErr == nil && j.status != StatusUnchanged {
			j.err = streamJob(ctx, st, j, prog.reading)
		}
		prog.readFile(i, src)
		close(j.ops)
	}
}

// prepareJob opens the file, reads its header and decides, against the
// library as committed, how to import it. A file whose session is being
// written by an earlier job waits for that job's batch to end, telling the
// writer which job it waits for (waiting), so that the writer commits the
// batch as soon as that job is written into it.
func prepareJob(ctx context.Context, st *store.Store, j *job, inflight []*job, waiting chan<- *job) error {
	if j.src.err != nil {
		return j.src.err
	}
	if j.src.db != nil {
		if done, err := prepareDatabaseSession(ctx, st, j, inflight, waiting); done || err != nil {
			return err
		}
	}
	if done, err := prepareTrusted(ctx, st, j, inflight, waiting); done || err != nil {
		return err
	}
	j.storedDoc = func(id string) (sessiondoc.State, bool) {
		stored, err := st.ImportedSession(ctx, id)
		if err != nil {
			return sessiondoc.State{}, false
		}
		ds, ok := storedDocState(stored, j.format)
		j.docStored = &docStored{session: stored, state: ds, ok: ok} // decideDocument's, when the library is the same then
		return ds.Doc, ok
	}
	hdr, err := j.open()
	if err != nil {
		return err
	}
	j.hdr = hdr
	if j.docPending && hdr.ID == "" {
		// A document too short to name its session: the session stored
		// from the same file, if any, is the one reported.
		if ss, err := st.SessionsByPath(ctx, j.src.path); err == nil && len(ss) == 1 && isDocumentFormat(ss[0].Format) {
			hdr.ID, j.format = ss[0].ID, ss[0].Format
		} else {
			j.status = StatusUnchanged
			return nil
		}
	}
	if err := awaitInflight(ctx, hdr.ID, inflight, waiting); err != nil {
		return err
	}
	stored, err := st.ImportedSession(ctx, hdr.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		j.status = StatusImported
		switch {
		case j.docPending:
			j.status = StatusUnchanged // retried when the document is whole
		case j.doc != nil:
			if err := j.readDocumentAgainst(sessiondoc.State{}); err != nil {
				return err
			}
			j.reader = newDocReader(j, sessiondoc.State{})
		}
		return nil
	case err != nil && ctx.Err() != nil:
		return ctx.Err() // the query was interrupted: the import is cancelled
	case err != nil:
		return err
	}
	j.stored = stored
	switch {
	case j.docPending:
		j.status = StatusUnchanged // the version stored stays
		return nil
	case j.doc != nil:
		return decideDocument(j, stored)
	}
	var rs *resumeState
	j.status, rs, err = decide(j.file, j.src.size, stored, j.format)
	if err != nil || j.status != StatusAppended {
		return err
	}
	return j.resumeAt(rs)
}

// prepareTrusted decides a file trustStamps trusted, without opening it:
// unchanged when the library still holds its session where it was, of the
// size it has; done false (the file is read) otherwise.
func prepareTrusted(ctx context.Context, st *store.Store, j *job, inflight []*job, waiting chan<- *job) (done bool, err error) {
	stored := j.src.trusted
	if stored == nil {
		return false, nil
	}
	for _, p := range inflight {
		if p.hdr != nil && p.hdr.ID == stored.ID {
			// An earlier file of this import writes the session: what
			// the library held before the import says nothing now.
			if err := awaitInflight(ctx, stored.ID, inflight, waiting); err != nil {
				return true, err
			}
			if stored, err = st.ImportedSession(ctx, stored.ID); err != nil || stored.SourceDeletedAt != "" {
				return false, nil
			}
			break
		}
	}
	if stored.Path != j.src.path || stored.FileBytes != j.src.size || isDocumentFormat(stored.Format) {
		return false, nil
	}
	j.hdr = &session.Header{ID: stored.ID, Version: stored.Version, Format: stored.Format}
	j.format, j.stored, j.status = stored.Format, stored, StatusUnchanged
	return true, nil
}

// awaitInflight waits for the jobs of inflight that import the session id
// to be committed, telling the writer which one it waits for (waiting).
func awaitInflight(ctx context.Context, id string, inflight []*job, waiting chan<- *job) error {
	for _, p := range inflight {
		if p.hdr != nil && p.hdr.ID == id {
			select {
			case waiting <- p:
			case <-p.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case <-p.done:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return nil
}

// writeJob writes one prepared job into the batch b, between a savepoint
// and its release, and reports on it. kept says the file's writes stay in
// the batch (they are rolled back when it failed); err, that the batch's
// transaction can no longer be trusted (the rollback to the savepoint
// failed): the caller abandons it. j.done is the batch's to close.
func writeJob(ctx context.Context, b *writeBatch, j *job) (fr FileReport, kept bool, err error) {
	fr = NewFileReport(j.src.path)
	defer j.finishWrite()
	if j.hdr != nil {
		fr.Version, fr.SessionID = j.hdr.Version, j.hdr.ID
	}
	if j.format != "" {
		fr.Format = j.format
	}
	if j.prepErr != nil {
		if errors.Is(j.prepErr, context.Canceled) {
			return Failed(fr, j.src.path, Cancelled(ctx, j.prepErr, false)), false, nil
		}
		return Failed(fr, j.src.path, j.prepErr), false, nil
	}
	w := &fileWrite{ctx: ctx, b: b, j: j, rep: &fr}
	if err := w.run(); err != nil {
		fr = Failed(fr, j.src.path, Cancelled(ctx, err, w.tx != nil))
		if w.tx != nil {
			if rerr := w.tx.RollbackTo(); rerr != nil {
				return fr, false, rerr
			}
		}
		return fr, false, nil
	}
	if err := w.tx.Release(); err != nil {
		return Failed(fr, j.src.path, err), false, err
	}
	return fr, true, nil
}

// FileReport statuses.
const (
	StatusImported  = "imported"
	StatusUnchanged = "unchanged"
	StatusAppended  = "appended"
	StatusFailed    = "failed"
)

// NewFileReport is the empty report of the file at p: no status yet, every
// count zero, its lists and maps empty (not nil).
func NewFileReport(p string) FileReport {
	return FileReport{
		Path:             p,
		EntriesByType:    map[string]int{},
		MalformedLines:   []LineProblem{},
		BoundariesByType: map[string]int{},
		EdgesByType:      map[string]int{},
	}
}

// Failed turns fr into the report of a failed file: what was read is kept
// (format, version, session id), counts are zeroed as nothing was stored.
// Its Error is err's message, prefixed with the path p unless it names it.
func Failed(fr FileReport, p string, err error) FileReport {
	out := NewFileReport(fr.Path)
	out.Version, out.SessionID, out.Format = fr.Version, fr.SessionID, fr.Format
	out.Status = StatusFailed
	msg := err.Error()
	if !strings.Contains(msg, p) {
		msg = p + ": " + msg
	}
	out.Error = msg
	return out
}

// Cancelled is err, or when ctx ended (the import was cancelled: Ctrl-C, the
// window closed) what that meant for the file: its transaction began and
// was rolled back (during), or never began.
func Cancelled(ctx context.Context, err error, during bool) error {
	if ctx.Err() == nil {
		return err
	}
	if during {
		return fmt.Errorf("nothing of this file was written: the import was cancelled (%v) while it was imported", context.Cause(ctx))
	}
	return fmt.Errorf("not imported: the import was cancelled (%v) before this file", context.Cause(ctx))
}

// finishWrite stops the reader of j if it is still at it, waits for it, and
// releases the file. The job is done (j.done) when its batch ends.
func (j *job) finishWrite() {
	select {
	case <-j.abort:
	default:
		close(j.abort)
	}
	for range j.ops {
	}
	if j.closeFile != nil {
		j.closeFile()
	}
	if j.ahead != nil {
		j.ahead.Release(j.aheadWeight)
		j.ahead = nil
	}
	// The job waits for its batch to end holding only what the reader
	// checks (hdr, done): not its read buffers (a batch holds hundreds of
	// small files).
	j.file, j.closeFile, j.reader, j.counter = nil, nil, nil, nil
	j.read, j.resume, j.stored, j.byType = nil, nil, nil, nil
	j.doc, j.docBytes = nil, nil
}

var errAborted = errors.New("import of the file abandoned")
