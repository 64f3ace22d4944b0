package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/store"
)

// Import brings pi session files into the library.
//
// Each file is imported in one transaction: all of it or nothing. A file is
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
// Malformed, FileReport.MalformedCount), the first pisession.MaxStoredProblems
// of each file are stored with their reasons (FileReport.MalformedLines).
//
// FileReport counts describe the file as the library now holds it (for
// "appended" and "unchanged" too): Entries, EntriesByType, MalformedLines,
// Segments and BoundariesByType over the whole file; EdgesByType counts the
// edges into or out of the session's nodes (fork edges included);
// NewEntries the entries written by this import. EntriesByType counts entries
// by entry type, and messages also by role as "message:<role>" (so "message"
// is the sum of the "message:*" keys).
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
	paths, err := d.OpenFiles(im.c.context(), "Import pi sessions")
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

// sessionFile is an open session file: read as a stream, and at offsets to
// hash a prefix.
type sessionFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// source is one file to import.
type source struct {
	path     string // as reported and stored: absolute for files on disk
	computer string // hostname recorded in the nodes
	size     int64
	open     func() (sessionFile, error)
	err      error // the file could not even be listed
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func memorySource(name string, b []byte) source {
	return source{path: name, size: int64(len(b)), open: func() (sessionFile, error) {
		return nopCloser{bytes.NewReader(b)}, nil
	}}
}

func fileSource(p, host string, size int64) source {
	return source{path: p, computer: host, size: size, open: func() (sessionFile, error) {
		f, err := openRegularFile(p)
		if err != nil {
			return nil, err
		}
		return f, nil
	}}
}

// openRegularFile opens path for reading only if it is a regular file (links
// followed). It opens without blocking and checks the file it got, so that a
// named pipe (whose open waits for a writer) or a device (/dev/zero never
// ends) is refused at once, even one put in place after the path was listed.
func openRegularFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(info.Mode())
	}
	return f, nil
}

// notRegular is the error for a file of mode mode that is not a regular
// file: it says what it is (the caller names the path).
func notRegular(mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode.IsDir():
		what = "a folder, not a file"
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a file"
	case mode&fs.ModeDevice != 0 || mode&fs.ModeCharDevice != 0:
		what = "a device, not a file"
	case mode&fs.ModeSocket != 0:
		what = "a socket, not a file"
	}
	return fmt.Errorf("%s: refused", what)
}

// collectPaths lists the files to import: each file given, and every *.jsonl
// file below each folder given, in lexical order, each once. Symbolic links
// are followed, to folders and to files (pi's ~/.pi/agent/sessions may be
// one); a file keeps the path it was found at. A folder reached again (a
// loop of links, two links to one folder) is walked once, and a file reached
// by two paths is imported once, by the first. What is not a regular file (a
// named pipe, a device, a socket, a broken link named *.jsonl) is listed as
// failed with the reason, never opened.
func collectPaths(paths []string, host string) []source {
	c := &collector{host: host, seen: map[string]bool{}, walked: map[string]bool{}}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		info, err := os.Stat(abs)
		switch {
		case err != nil:
			c.add(abs, source{path: abs, err: err})
		case info.IsDir():
			c.walk(abs)
		default:
			c.file(abs, info)
		}
	}
	return c.out
}

// collector gathers the sources of collectPaths.
type collector struct {
	host   string
	out    []source
	seen   map[string]bool // files listed, by real path (links resolved)
	walked map[string]bool // folders walked, by real path
}

// add lists s unless the file at the real path real is listed already.
func (c *collector) add(real string, s source) {
	if !c.seen[real] {
		c.seen[real] = true
		c.out = append(c.out, s)
	}
}

// file lists the file at path, as info (links followed) describes it.
func (c *collector) file(path string, info fs.FileInfo) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	if !info.Mode().IsRegular() {
		c.add(real, source{path: path, err: fmt.Errorf("%s: %w", path, notRegular(info.Mode()))})
		return
	}
	c.add(real, fileSource(path, c.host, info.Size()))
}

// walk lists every *.jsonl file below the folder dir, in lexical order,
// following links, each folder once.
func (c *collector) walk(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		c.add(dir, source{path: dir, err: err})
		return
	}
	if c.walked[real] {
		return // a loop of links, or a folder seen through another link
	}
	c.walked[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.add(dir, source{path: dir, err: err})
		return
	}
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		session := strings.EqualFold(filepath.Ext(d.Name()), ".jsonl")
		if d.Type()&fs.ModeSymlink == 0 && !d.IsDir() && !session {
			continue
		}
		info, err := os.Stat(p) // follows a link
		switch {
		case err != nil:
			if session {
				c.add(p, source{path: p, err: err})
			}
		case info.IsDir():
			c.walk(p)
		case session:
			c.file(p, info)
		}
	}
}

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
	}
	return rep, nil
}

// FileReport statuses.
const (
	statusImported  = "imported"
	statusUnchanged = "unchanged"
	statusAppended  = "appended"
	statusFailed    = "failed"
)

// failImport, when set (by tests), is called by the writer after each entry
// it stores with the number stored so far in the file; an error it returns
// fails the file as a storage error would.
var failImport func(entries int) error

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

	prepErr   error             // set before the job is sent: the file cannot be imported
	file      sessionFile       // open until the writer is done with the job
	closeFile func() error      // closes file
	reader    *pisession.Reader // past the header
	hashing   *hashingReader    // under reader: hashes the whole file

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

// readResult is what the reader learned from a whole file.
type readResult struct {
	name       string              // from the last session_info entry
	links      []segment.Link      // links into new segments
	segStart   map[int]int         // segment index -> Seq of its first entry
	problems   []pisession.Problem // malformed lines not stored yet (of the reader's sample)
	malformed  int                 // malformed lines in the whole file, past the sample too
	pending    bool
	consumed   int64 // bytes up to the end of the last complete line
	lines      int
	fileBytes  int64
	fileSHA256 string
	entries    int // entries in the file
}

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

// decide compares a file with the stored session of the same id: the same
// bytes are "unchanged", a file whose imported prefix is intact "appended",
// any other "imported" (rewritten: replaced).
func decide(f io.ReaderAt, size int64, s *store.Session) (string, error) {
	if s.FileBytes == size {
		sum, err := hashPrefix(f, size)
		if err != nil {
			return "", err
		}
		if sum == s.FileSHA256 {
			return statusUnchanged, nil
		}
	}
	if size >= s.ImportedBytes {
		sum, err := hashPrefix(f, s.ImportedBytes)
		if err != nil {
			return "", err
		}
		if sum == s.ImportedSHA256 {
			return statusAppended, nil
		}
	}
	return statusImported, nil
}

// errReplayMismatch: on an append, the bytes imported before no longer read
// as the entries stored from them (a newer reader decodes a line it skipped
// then, say). The file is then imported again whole, as a rewrite.
var errReplayMismatch = errors.New("the bytes imported before no longer read as the entries stored from them")

// streamJob reads every entry of the file, cuts segments, analyzes them and
// sends the writes to the writer; reading reports progress.
func streamJob(ctx context.Context, j *job, reading func(fileBytes int64, entries int)) error {
	rd, hr := j.reader, j.hashing
	builder := segment.NewBuilder(segment.DefaultOptions())
	acc := analyze.NewAccumulator()
	now := time.Now().UTC()
	res := &readResult{segStart: map[int]int{}}
	j.byType = map[string]int{}
	batch := make([]op, 0, opBatch)
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case j.ops <- batch:
		case <-j.abort:
			return errAborted
		case <-ctx.Done():
			return ctx.Err()
		}
		batch = make([]op, 0, opBatch)
		return nil
	}
	closeSegment := func(seg *segment.Segment, next *segment.Link) {
		res.segStart[seg.Index] = seg.StartSeq
		defer acc.Reset()
		if seg.Index < j.lastIdx {
			return // stored already, unchanged
		}
		node := acc.Node(analyze.Input{
			Header:      *j.hdr,
			SessionFile: j.src.path,
			Computer:    j.src.computer,
			Segment:     *seg,
			// IsNewProject is the writer's to set.
			Abandoned: next != nil && (next.Type == segment.EdgeBranch || next.Type == segment.EdgeTreeJump),
		}, now)
		batch = append(batch, op{seg: seg, node: &node, last: seg.Index == j.lastIdx})
	}

	count := 0
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		count++
		if count&63 == 0 && reading != nil {
			reading(hr.n, count)
		}
		replay := e.Seq < j.replaySeq
		if j.status == statusAppended && replay != (e.Offset < j.stored.ImportedBytes) {
			return errReplayMismatch
		}
		if e.Type == pisession.TypeSessionInfo && e.Name != "" {
			res.name = e.Name
		}
		step := builder.Add(e)
		if step.Closed != nil {
			closeSegment(step.Closed, step.Link)
		}
		if step.Link != nil && step.Link.To > j.lastIdx {
			res.links = append(res.links, *step.Link)
		}
		if step.Segment >= j.lastIdx {
			acc.Add(e)
		}
		if !replay {
			batch = append(batch, op{entry: e, text: pisession.EntryText(e)})
			j.byType[e.Type]++
			if e.Message != nil && e.Message.Role != "" {
				j.byType[e.Type+":"+e.Message.Role]++
			}
		}
		if len(batch) >= opBatch {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if count < j.replaySeq {
		return errReplayMismatch
	}
	if last := builder.Finish(); last != nil {
		closeSegment(last, nil)
	}
	if err := send(); err != nil {
		return err
	}
	res.entries = count

	// The reader stops at the end of the input only: the tee hashed the
	// whole file. The imported prefix ends before a pending line.
	if _, err := io.Copy(io.Discard, hr); err != nil {
		return fmt.Errorf("read: %w", err)
	}
	res.fileBytes = hr.n
	res.fileSHA256 = hex.EncodeToString(hr.h.Sum(nil))
	res.consumed = rd.Consumed()
	res.lines = rd.Lines()
	res.pending = rd.Pending() != nil
	// The reader keeps the first pisession.MaxStoredProblems problems and
	// counts them all; it read the file from its start (an append too).
	res.malformed = rd.MalformedCount()
	for _, p := range rd.Malformed() {
		if j.status != statusAppended || p.Offset >= j.stored.ImportedBytes {
			res.problems = append(res.problems, p)
		}
	}
	j.read = res
	return nil
}

var errAborted = errors.New("import of the file abandoned")

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

// open opens the file of j and reads its header.
func (j *job) open() (*pisession.Header, error) {
	f, err := j.src.open()
	if err != nil {
		return nil, err
	}
	j.file, j.closeFile = f, f.Close
	j.hashing = &hashingReader{r: f, h: sha256.New()}
	j.reader = pisession.NewReader(j.hashing, j.src.path)
	return j.reader.Header()
}

func newFileReport(p string) FileReport {
	return FileReport{
		Path:             p,
		Format:           "pi",
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
	out.Version, out.SessionID = fr.Version, fr.SessionID
	out.Status = statusFailed
	msg := err.Error()
	if !strings.Contains(msg, p) {
		msg = p + ": " + msg
	}
	out.Error = msg
	return out
}

// fileWrite is the writer's state for one job.
type fileWrite struct {
	ctx context.Context
	st  *store.Store
	j   *job
	rep *FileReport

	tx      *store.Tx
	sess    *store.Session
	trigger string // version trigger of nodes already stored
	written int
	now     time.Time
}

func (w *fileWrite) run() error {
	j := w.j
	w.now = time.Now().UTC()
	tx, err := w.st.Begin(w.ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w.tx = tx

	// The reader decided on the library as committed before this
	// transaction: check nothing changed since.
	stored, err := tx.SessionByID(j.hdr.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		stored = nil
	case err != nil:
		return err
	}
	if !sameStored(stored, j.stored) {
		return errors.New("the library changed while the file was read: import it again")
	}
	if j.status == statusUnchanged {
		w.rep.Status = statusUnchanged
		return w.report(stored, 0)
	}
	if err := w.begin(); err != nil {
		return err
	}
	for batch := range j.ops {
		for i := range batch {
			if err := w.apply(&batch[i]); err != nil {
				return err
			}
		}
	}
	if j.err != nil {
		return j.err
	}
	if err := w.finish(); err != nil {
		return err
	}
	status := j.status
	if status == statusAppended && w.written == 0 && len(j.read.problems) == 0 {
		status = statusUnchanged // only a pending tail changed: bookkeeping
	}
	w.rep.Status = status
	if err := w.report(w.sess, w.written); err != nil {
		return err
	}
	return tx.Commit()
}

// sameStored reports whether the session row in the transaction is the one
// the reader decided on.
func sameStored(now, then *store.Session) bool {
	if now == nil || then == nil {
		return now == nil && then == nil
	}
	return now.PK == then.PK && now.FileSHA256 == then.FileSHA256 && now.ImportedSHA256 == then.ImportedSHA256 &&
		now.Entries == then.Entries && now.UpdatedAt == then.UpdatedAt
}

// begin prepares the session row for the import mode.
func (w *fileWrite) begin() error {
	j, tx, hdr := w.j, w.tx, w.j.hdr
	w.trigger = store.TriggerReplace
	parent := hdr.Parent()
	sess := &store.Session{
		ID: hdr.ID, Path: j.src.path, FileName: path.Base(filepath.ToSlash(j.src.path)),
		Cwd: hdr.Cwd, Version: hdr.Version, Timestamp: hdr.Timestamp, Header: hdr.Raw,
		ParentSession: parent, EntriesByType: map[string]int{},
	}
	if parent != "" {
		sess.ParentFileName = path.Base(filepath.ToSlash(parent))
		sess.ParentUUID = pisession.SessionUUID(sess.ParentFileName)
	}
	w.sess = sess
	switch {
	case j.stored == nil:
		other, err := tx.HasProjectSession(hdr.Cwd, hdr.ID)
		if err != nil {
			return err
		}
		sess.IsNewProject = !other
		return tx.PutSession(sess)
	case j.status == statusAppended:
		sess.PK, sess.IsNewProject = j.stored.PK, j.stored.IsNewProject
		for k, v := range j.stored.EntriesByType {
			sess.EntriesByType[k] += v
		}
		w.trigger = store.TriggerAppend
		return nil
	default: // rewritten
		sess.PK, sess.IsNewProject = j.stored.PK, j.stored.IsNewProject
		return tx.ClearSession(sess.PK)
	}
}

// apply does one write.
func (w *fileWrite) apply(o *op) error {
	if o.entry != nil {
		if err := w.tx.InsertEntry(w.sess.PK, o.entry, o.text); err != nil {
			return err
		}
		w.written++
		if failImport != nil {
			return failImport(w.written)
		}
		return nil
	}
	n := o.node
	n.Classification.IsNewProject = w.sess.IsNewProject
	if o.last {
		old, err := w.tx.Node(n.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil && sameAnalysis(old, n) {
			return nil
		}
	}
	if err := w.tx.PutSegment(w.sess.PK, o.seg); err != nil {
		return err
	}
	return w.tx.PutNode(w.sess.PK, o.seg.Index, n, w.trigger)
}

// sameAnalysis reports whether two versions of a node say the same thing:
// equal apart from version bookkeeping and analysis time.
func sameAnalysis(a, b *graph.Node) bool {
	norm := func(n graph.Node) graph.Node {
		n.Version, n.PreviousVersions, n.Metadata.AnalyzedAt = 0, nil, ""
		return n
	}
	ja, errA := json.Marshal(norm(*a))
	jb, errB := json.Marshal(norm(*b))
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// finish writes problems, edges and the session row, and links forks.
func (w *fileWrite) finish() error {
	j, tx, sess, res := w.j, w.tx, w.sess, w.j.read
	for _, p := range res.problems {
		if err := tx.InsertProblem(sess.PK, store.Problem{Line: p.Line, Offset: p.Offset, Reason: p.Reason}); err != nil {
			return err
		}
	}
	for _, l := range res.links {
		from, okFrom := res.segStart[l.From]
		to, okTo := res.segStart[l.To]
		if !okFrom || !okTo {
			return fmt.Errorf("link %d -> %d: unknown segment", l.From, l.To)
		}
		e := &graph.Edge{
			SourceNodeID: analyze.NodeID(sess.ID, from),
			TargetNodeID: analyze.NodeID(sess.ID, to),
			Type:         l.Type,
			Metadata:     l.Metadata,
			CreatedAt:    isoMillis(w.now),
			CreatedBy:    graph.CreatedByBoundary,
		}
		if err := tx.PutEdge(e); err != nil {
			return err
		}
	}
	if j.stored != nil && j.status != statusAppended {
		if err := tx.DeleteDetachedNodes(sess.PK); err != nil {
			return err
		}
	}

	sess.Name = res.name
	sess.FileBytes, sess.FileSHA256 = res.fileBytes, res.fileSHA256
	sess.ImportedBytes, sess.ImportedSHA256 = res.consumed, res.fileSHA256
	if res.consumed != res.fileBytes {
		sum, err := hashPrefix(j.file, res.consumed)
		if err != nil {
			return err
		}
		sess.ImportedSHA256 = sum
	}
	sess.Lines = res.lines
	sess.Entries = res.entries
	for k, v := range j.byType {
		sess.EntriesByType[k] += v
	}
	sess.PendingTail = res.pending
	sess.Malformed = res.malformed
	if err := tx.PutSession(sess); err != nil {
		return err
	}
	return linkForks(tx, sess, w.now)
}

// report fills the file report from what the library now holds for sess.
func (w *fileWrite) report(sess *store.Session, written int) error {
	tx, fr := w.tx, w.rep
	fr.Entries = sess.Entries
	fr.NewEntries = written
	fr.PendingTail = sess.PendingTail
	fr.MalformedCount = sess.Malformed
	for k, v := range sess.EntriesByType {
		fr.EntriesByType[k] = v
	}
	segs, err := tx.Segments(sess.PK)
	if err != nil {
		return err
	}
	fr.Segments = len(segs)
	for _, s := range segs {
		for _, b := range s.Boundaries {
			fr.BoundariesByType[string(b.Type)]++
		}
	}
	edges, err := tx.SessionEdgeCounts(sess.PK)
	if err != nil {
		return err
	}
	fr.EdgesByType = edges
	problems, err := tx.Problems(sess.PK)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fr.MalformedLines = append(fr.MalformedLines, LineProblem{Line: p.Line, Offset: p.Offset, Reason: p.Reason})
	}
	return nil
}

// linkForks makes the fork edges of sess: into its first node from its
// parent's node at the fork point, if the parent is stored, and from sess
// into the first node of every stored fork whose parent resolves to sess
// (children imported before their parent). See pi-brain-node-model.md, "Fork
// Edges", and ERRATA.md: the parent is matched by path, then file name, then
// session id.
func linkForks(tx *store.Tx, sess *store.Session, now time.Time) error {
	if sess.ParentSession != "" {
		parent, err := tx.ForkParent(sess)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return err
		default:
			if err := linkFork(tx, parent, sess, now); err != nil {
				return err
			}
		}
	}
	children, err := tx.ForkChildren(sess)
	if err != nil {
		return err
	}
	for i := range children {
		child := &children[i]
		parent, err := tx.ForkParent(child)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if parent.PK == sess.PK {
			if err := linkFork(tx, sess, child, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// linkFork makes the fork edge from parent's node holding the fork point
// (segment.ForkPoint; the parent's last node when no child entry is in the
// parent) to child's first node.
func linkFork(tx *store.Tx, parent, child *store.Session, now time.Time) error {
	first, err := tx.SegmentAt(child.PK, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil // no entries: no node to link
	}
	if err != nil {
		return err
	}
	parentIDs, err := tx.EntryIDs(parent.PK)
	if err != nil {
		return err
	}
	in := make(map[string]bool, len(parentIDs))
	for id := range parentIDs {
		in[id] = true
	}
	var forkID string
	if err := tx.EntryChainBackward(child.PK, 1024, func(chunk []pisession.Entry) bool {
		id, ok := segment.ForkPoint(chunk, in)
		forkID = id
		return ok
	}); err != nil {
		return err
	}
	var from *store.SegmentRecord
	if forkID != "" {
		from, err = tx.SegmentOfSeq(parent.PK, parentIDs[forkID])
	} else {
		from, err = tx.LastSegment(parent.PK)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil // the parent has no entries
	}
	if err != nil {
		return err
	}
	if from.NodeID == "" || first.NodeID == "" {
		return nil
	}
	if err := tx.DeleteEdgesInto(first.NodeID, graph.EdgeFork); err != nil {
		return err
	}
	md := map[string]any{"parentSession": parent.Path, "childSession": child.Path}
	if forkID != "" {
		md["forkEntryId"] = forkID
	}
	return tx.PutEdge(&graph.Edge{
		SourceNodeID: from.NodeID,
		TargetNodeID: first.NodeID,
		Type:         graph.EdgeFork,
		Metadata:     md,
		CreatedAt:    isoMillis(now),
		CreatedBy:    graph.CreatedByBoundary,
	})
}

func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// hashingReader hashes and counts the bytes read through it.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// hashPrefix is the hex SHA-256 of the first n bytes of f.
func hashPrefix(f io.ReaderAt, n int64) (string, error) {
	h := sha256.New()
	got, err := io.Copy(h, io.NewSectionReader(f, 0, n))
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	if got != n {
		return "", fmt.Errorf("read: file shorter than %d bytes", n)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// progress sends "import:progress" events as the reader goes, so that they
// only move forward: at each file's start and while it is read ("reading",
// one per 256 KB or 100 ms, whichever comes first), when it is read and goes
// to the writer ("writing"), and once at the end ("done"). Bytes count what
// the reader has read, over all files.
type progress struct {
	emit       func(string, any)
	fileCount  int
	bytesTotal int64

	mu        sync.Mutex
	bytesRead int64 // files read completely
	index     int   // the file being read
	file      string
	lastBytes int64
	lastTime  time.Time
}

const (
	progressBytes    = 256 << 10
	progressInterval = 100 * time.Millisecond
)

func (p *progress) startFile(index int, src source) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.index, p.file, p.lastBytes = index, src.path, 0
	p.send(index, src.path, p.bytesRead, 0, "reading")
}

func (p *progress) reading(fileBytes int64, entries int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fileBytes-p.lastBytes < progressBytes && time.Since(p.lastTime) < progressInterval {
		return
	}
	p.lastBytes = fileBytes
	p.send(p.index, p.file, p.bytesRead+fileBytes, entries, "reading")
}

func (p *progress) readFile(index int, src source) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytesRead += src.size
	if index < p.index { // the reader is already on a later file: keep the bar moving forward
		index, src.path = p.index, p.file
	}
	p.send(index, src.path, p.bytesRead, 0, "writing")
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fileCount > 0 {
		p.send(p.fileCount-1, p.file, p.bytesTotal, 0, "done")
	}
}

func (p *progress) send(index int, file string, done int64, entries int, phase string) {
	p.lastTime = time.Now()
	p.emit("import:progress", ImportProgress{
		File: file, FileIndex: index, FileCount: p.fileCount,
		BytesDone: min(done, p.bytesTotal), BytesTotal: p.bytesTotal,
		Entries: entries, Phase: phase,
	})
}
