package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/knowledge"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/backend/summary"
)

// Reading: a file is streamed once through a session reader into ops for
// the writer, cut into segments by the segment builder and analysed by the
// analyzer's accumulator as it goes.

// sessionReader reads a session file as a stream of entries in file order,
// with what it found wrong: the import reads every file through one. Today
// every file is a pi session (pisession.Reader); the readers of other
// agents' logs (backend/claudecode, backend/codex) have the same methods.
type sessionReader interface {
	// Header reads and returns the session header (ErrNoHeader when none).
	Header() (*pisession.Header, error)
	// Next returns the next entry, io.EOF after the last one.
	Next() (*pisession.Entry, error)
	// Malformed returns the first pisession.MaxStoredProblems malformed lines.
	Malformed() []pisession.Problem
	// MalformedCount counts every malformed line.
	MalformedCount() int
	// Pending returns the half-written last line, or nil.
	Pending() *pisession.Problem
	// Consumed is the bytes up to the end of the last complete line.
	Consumed() int64
	// Lines is the number of complete lines.
	Lines() int
}

// newSessionReader returns the reader of the session file r, named path in
// problems and errors.
func newSessionReader(r io.Reader, path string) sessionReader { return pisession.NewReader(r, path) }

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

	session     *summary.Summary // the session's offline summary; nil when the file was not read from its start
	lastEntryID string           // id of the file's last entry
}

// open opens the file of j and reads its header.
func (j *job) open() (*pisession.Header, error) {
	f, err := j.src.open()
	if err != nil {
		return nil, err
	}
	j.file, j.closeFile = f, f.Close
	j.hashing = &hashingReader{r: f, h: sha256.New()}
	j.reader = newSessionReader(j.hashing, j.src.path)
	return j.reader.Header()
}

// streamJob reads every entry of the file, cuts segments, analyzes them and
// sends the writes to the writer; reading reports progress.
func streamJob(ctx context.Context, j *job, reading func(fileBytes int64, entries int)) error {
	rd, hr := j.reader, j.hashing
	builder := segment.NewBuilder(segment.DefaultOptions())
	acc := analyze.NewAccumulator()
	kx := knowledge.NewExtractor() // the offline knowledge rules, beside the analyzer
	now := time.Now().UTC()
	sums := newImportSummaries(j.hdr, now)
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
		defer kx.Reset()
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
		sums.label(&node, seg)
		items := kx.Items(knowledge.Source{Project: j.hdr.Cwd, SessionID: j.hdr.ID, SegmentNodeID: node.ID}, now)
		batch = append(batch, op{seg: seg, node: &node, knowledge: items, last: seg.Index == j.lastIdx})
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
		sums.add(e, step, builder.SegmentOf, step.Segment >= j.lastIdx)
		if step.Closed != nil {
			closeSegment(step.Closed, step.Link)
		}
		if m := sums.take(); len(m) > 0 {
			batch = append(batch, op{sums: m})
		}
		if step.Link != nil && step.Link.To > j.lastIdx {
			res.links = append(res.links, *step.Link)
		}
		if step.Segment >= j.lastIdx {
			acc.Add(e)
			kx.Add(e)
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
	last := builder.Finish()
	sums.finish(last)
	if last != nil {
		closeSegment(last, nil)
	}
	if m := sums.take(); len(m) > 0 {
		batch = append(batch, op{sums: m})
	}
	if s, ok := sums.pass.Session(); ok {
		res.session = &s
	}
	res.lastEntryID = sums.lastEntryID
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
