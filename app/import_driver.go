package app

import (
	"context"
	"errors"

	"rhizome/backend/graph"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/store"
)

// The driver: an import runs as two goroutines, a reader (readJobs:
// import_read.go) at most one file ahead of the writer (writeJob:
// import_write.go), joined by a job per file whose ops flow through a
// channel in batches.

// run imports the sources in order, each in its own transaction. Two
// goroutines share the work: a reader decodes, segments and analyzes the
// files (at most one file ahead of the writer) and hands the results to the
// writer, the caller's goroutine, which owns the transaction.
func (im *Import) run(srcs []source) (ImportReport, error) {
	im.mu.Lock()
	defer im.mu.Unlock()
	ctx, cancel := context.WithCancel(im.c.context())
	defer cancel()
	rep := emptyReport()
	prog := &progress{emit: im.c.emitEvent, fileCount: len(srcs)}
	for _, s := range srcs {
		prog.bytesTotal += s.size
	}

	jobs := make(chan *job, 1)
	go readJobs(ctx, im.c.store, srcs, prog, jobs)
	changed := false
	for j := range jobs {
		fr := writeJob(ctx, im.c.store, j)
		rep.Files = append(rep.Files, fr)
		t := &rep.Totals
		t.Files++
		switch fr.Status {
		case statusImported:
			t.Imported++
			changed = true
		case statusAppended:
			t.Appended++
			changed = true
		case statusUnchanged:
			t.Unchanged++
		case statusFailed:
			t.Failed++
		}
		t.Entries += fr.Entries
		t.Segments += fr.Segments
		t.Malformed += fr.MalformedCount
	}
	// Cancelled: the files the reader did not get to.
	for _, s := range srcs[len(rep.Files):] {
		rep.Files = append(rep.Files, failed(newFileReport(s.path), s.path, cancelled(ctx, ctx.Err(), false)))
		rep.Totals.Files++
		rep.Totals.Failed++
	}
	prog.done()
	im.c.emitEvent("import:done", rep)
	if changed {
		im.c.emitEvent("library:changed", nil)
		im.c.mu.RLock()
		bg := im.c.background
		im.c.mu.RUnlock()
		if bg {
			im.c.vectors.Kick()
		}
	}
	return rep, nil
}

// job is one file on its way through an import. The reader fills everything
// above ops before sending the job, and what follows ops before closing it;
// the writer reads the latter only once ops is closed.
type job struct {
	index int
	src   source

	hdr    *pisession.Header
	stored *store.Session // the stored session the reader decided on; nil if new
	status string         // the reader's decision: imported, unchanged or appended
	// Append: entries with Seq below replaySeq are stored already, and the
	// stored segments end with segment lastIdx (-1: none).
	replaySeq int
	lastIdx   int

	ops   chan []op     // what to write, in order; closed by the reader
	abort chan struct{} // closed by the writer when it gives up on the job
	done  chan struct{} // closed by the writer once the job is committed or dropped

	prepErr   error          // set before the job is sent: the file cannot be imported
	file      sessionFile    // open until the writer is done with the job
	closeFile func() error   // closes file
	reader    sessionReader  // past the header
	hashing   *hashingReader // under reader: hashes the whole file

	// Set by the reader before it closes ops.
	err    error          // reading failed: nothing of the file is written
	read   *readResult    // what reading found
	byType map[string]int // entries read after the replayed ones, by type and role
}

// op is one write of a file's import: an entry with its searchable text, or
// a complete segment with its node.
type op struct {
	entry *pisession.Entry
	text  string

	seg  *segment.Segment
	node *graph.Node
	// last: seg is the last segment stored by an earlier import (append);
	// it is written only if its node changed.
	last bool
}

// opBatch is how many ops go to the writer at once.
const opBatch = 128

// readJobs prepares the sources one by one and sends them to the writer,
// closing jobs after the last one.
func readJobs(ctx context.Context, st *store.Store, srcs []source, prog *progress, jobs chan<- *job) {
	defer close(jobs)
	var inflight []*job
	for i, src := range srcs {
		j := &job{index: i, src: src, lastIdx: -1, ops: make(chan []op, 16), abort: make(chan struct{}), done: make(chan struct{})}
		prog.startFile(i, src)
		j.prepErr = prepareJob(ctx, st, j, inflight)
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
		if j.prepErr == nil && j.status != statusUnchanged {
			j.err = streamJob(ctx, j, prog.reading)
		}
		prog.readFile(i, src)
		close(j.ops)
	}
}

// prepareJob opens the file, reads its header and decides, against the
// library as committed, how to import it. A file whose session is being
// written by an earlier job waits for that job.
func prepareJob(ctx context.Context, st *store.Store, j *job, inflight []*job) error {
	if j.src.err != nil {
		return j.src.err
	}
	hdr, err := j.open()
	if err != nil {
		return err
	}
	j.hdr = hdr
	for _, p := range inflight {
		if p.hdr != nil && p.hdr.ID == hdr.ID {
			select {
			case <-p.done:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	stored, err := st.SessionByID(ctx, hdr.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		j.status = statusImported
		return nil
	case err != nil && ctx.Err() != nil:
		return ctx.Err() // the query was interrupted: the import is cancelled
	case err != nil:
		return err
	}
	j.stored = stored
	j.status, err = decide(j.file, j.src.size, stored)
	if err != nil || j.status != statusAppended {
		return err
	}
	j.replaySeq = stored.Entries
	last, err := st.LastSegment(ctx, stored.PK)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return err
	default:
		j.lastIdx = last.Index
	}
	return nil
}

// writeJob writes one prepared job in one transaction and reports on it.
func writeJob(ctx context.Context, st *store.Store, j *job) FileReport {
	fr := newFileReport(j.src.path)
	defer j.finishWrite()
	if j.hdr != nil {
		fr.Version, fr.SessionID = j.hdr.Version, j.hdr.ID
	}
	if j.prepErr != nil {
		if errors.Is(j.prepErr, context.Canceled) {
			return failed(fr, j.src.path, cancelled(ctx, j.prepErr, false))
		}
		return failed(fr, j.src.path, j.prepErr)
	}
	w := &fileWrite{ctx: ctx, st: st, j: j, rep: &fr}
	err := w.run()
	if errors.Is(err, errReplayMismatch) {
		// Import the file again whole, as a rewrite: a fresh read, in this
		// goroutine's turn (a later job of the same session waits on j).
		r := &job{index: j.index, src: j.src, hdr: j.hdr, stored: j.stored, status: statusImported, lastIdx: -1,
			ops: make(chan []op, 16), abort: make(chan struct{}), done: make(chan struct{})}
		defer r.finishWrite()
		if _, err = r.open(); err == nil {
			go func() {
				r.err = streamJob(ctx, r, nil)
				close(r.ops)
			}()
			fr = newFileReport(j.src.path)
			fr.Version, fr.SessionID = j.hdr.Version, j.hdr.ID
			w = &fileWrite{ctx: ctx, st: st, j: r, rep: &fr}
			err = w.run()
		} else {
			close(r.ops)
		}
	}
	if err != nil {
		return failed(fr, j.src.path, cancelled(ctx, err, w.tx != nil))
	}
	return fr
}

// finishWrite stops the reader of j if it is still at it, waits for it, and
// releases the file.
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
	close(j.done)
}

// errReplayMismatch: on an append, the bytes imported before no longer read
// as the entries stored from them (a newer reader decodes a line it skipped
// then, say). The file is then imported again whole, as a rewrite.
var errReplayMismatch = errors.New("the bytes imported before no longer read as the entries stored from them")

var errAborted = errors.New("import of the file abandoned")
