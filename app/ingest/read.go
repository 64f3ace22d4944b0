package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"rhizome/backend/analyze"
	"rhizome/backend/claudecode"
	"rhizome/backend/copilot"
	"rhizome/backend/gemini"
	"rhizome/backend/knowledge"
	"rhizome/backend/qwen"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/backend/summary"
	"rhizome/store"
)

// Reading: a file is streamed once through the session reader of its
// format (formats.go) into ops for the writer, cut into segments by
// the segment builder and analysed by the analyzer's accumulator as it
// goes; the bytes between entries are kept (gapScanner) so that the library
// gives the file back byte for byte. An append goes on from the state the
// last import stored (resumeState) and reads only the new bytes.

// resumeState is what an import stores with a session to go on from where
// it stopped when the file grows (store.Session.Resume, JSON): the reader's
// state at the commit point Offset (the end of the last line whose entries
// were all settled; entries from Seq on are replaced by the next import),
// the segment builder's state and the open segment's accumulator there, the
// SHA-256 state of the bytes before Offset, and the counts the file report
// needs. A few KB, whatever the file's size.
type resumeState struct {
	// Version of this layout; another version reads the file again.
	Version int                  `json:"v"`
	Reader  json.RawMessage      `json:"reader"`
	Seq     int                  `json:"seq"`
	Offset  int64                `json:"offset"`
	Line    int                  `json:"line"`
	Builder segment.BuilderState `json:"builder"`
	// Acc is the open segment's accumulator (analyze.Accumulator JSON).
	Acc json.RawMessage `json:"acc,omitempty"`
	// Sums and Know are the open segment's summary pass (summary.Pass.
	// OpenState) and knowledge extractor (knowledge.Extractor JSON): an
	// append goes on from them. Without them (a library written before
	// they were kept) it feeds the segment's stored entries again
	// (refeedOpen).
	Sums json.RawMessage `json:"sums,omitempty"`
	Know json.RawMessage `json:"know,omitempty"`
	// Hash is the SHA-256 state after the bytes before Offset.
	Hash []byte `json:"hash"`
	// Implicit: the bytes just before Offset are a line end left out of
	// the gaps (see gapScanner).
	Implicit bool `json:"implicit"`
	// Malformed counts the malformed lines before Offset.
	Malformed int `json:"malformed"`
	// Meta is what the metadata lines before Offset said.
	Meta SessionMeta `json:"meta"`
}

// resumeVersion is resumeState's layout version.
const resumeVersion = 1

// readResult is what the reader learned from a whole file.
type readResult struct {
	links          []segment.Link    // links into new segments
	segStart       map[int]int       // segment index -> Seq of its first entry (segments closed by this import)
	problems       []session.Problem // malformed lines not stored yet (of the reader's sample)
	malformed      int               // malformed lines in the whole file, past the sample too
	pending        bool
	consumed       int64 // bytes up to the commit point
	lines          int
	fileBytes      int64
	fileSHA256     string
	importedSHA256 string
	probe          string
	entries        int // entries in the file
	resume         *resumeState
	meta           SessionMeta
	// docMarks counts the stored entries a document read marked dropped or
	// held again (document.go).
	docMarks int
	// spawns maps the sub-agents the file's tool calls spawned to the seq
	// of the entry that names them.
	spawns map[string]int
	// copiedFrom is the original of the last entry copied from another
	// session (a Claude Code fork or resumed copy), nil when none.
	copiedFrom *store.EntryCopy

	session *summary.Summary // the session's offline summary; nil when the file was not read from its start
	// underived: the summaries and knowledge were left to the session's
	// derivation job (Hooks.DeriveLater): the session is marked pending.
	underived   bool
	lastEntryID string // id of the file's last entry
}

// open opens the file of j, finds its format and reads its header.
func (j *job) open() (*session.Header, error) {
	f, err := j.src.open()
	if err != nil {
		return nil, err
	}
	j.file, j.closeFile = f, f.Close
	format, err := "", error(nil)
	if sn := j.src.sniff; sn != nil && sn.detected {
		format, err = sn.format, sn.formatErr // read before the import (sniffSource)
	} else {
		format, err = detectFormat(f, j.src.size)
	}
	if errors.Is(err, errStillWritten) || err != nil && j.tooShortToTell() {
		j.docPending = true // retried when it says what it is (document.go)
		return &session.Header{}, nil
	}
	if err != nil {
		return nil, err
	}
	j.format = format
	j.counter = &countingReader{r: io.NewSectionReader(f, 0, 1<<62)}
	if isDocumentFormat(format) {
		return j.openDocument()
	}
	j.reader = newSessionReader(format, j.counter, j.src.path)
	if qr, ok := j.reader.(*qwenReader); ok && j.src.onDisk {
		// A Qwen Code sub-agent's records name no model: its sidecar does.
		if am, ok := qwen.AgentMetaOf(j.src.path); ok {
			qr.SetAgentModel(am.Model)
		}
	}
	if gr, ok := j.reader.(*geminiReader); ok && j.src.onDisk {
		// A Gemini CLI recording names no project root, and a later
		// recording of a session (a resume's stub) has the session's id:
		// the folders around it say (gemini.Layout).
		gr.SetLayout(gemini.LayoutOf(j.src.path))
	}
	return j.reader.Header()
}

// resumeAt replaces j's reader by one that goes on from rs.
func (j *job) resumeAt(rs *resumeState) error {
	j.counter = &countingReader{r: io.NewSectionReader(j.file, rs.Offset, 1<<62), n: rs.Offset}
	rd, err := resumeSessionReader(j.format, j.counter, j.src.path, rs.Reader)
	if err != nil {
		return err
	}
	if _, err := rd.Header(); err != nil {
		return err
	}
	j.reader, j.resume = rd, rs
	return nil
}

// countingReader counts the bytes read through it (from n on).
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// dedupeBatch is how many entries the reader looks up at once for copies
// in other files.
const dedupeBatch = 256

// streamJob reads the entries of the file (after the resume point for an
// append), cuts segments, analyzes them and sends the writes to the
// writer; reading reports progress.
func streamJob(ctx context.Context, st *store.Store, j *job, reading func(fileBytes int64, entries int)) error {
	j.byType = map[string]int{}
	s := &stream{ctx: ctx, st: st, j: j, reading: reading, lastIdx: -1,
		res: &readResult{segStart: map[int]int{}, spawns: map[string]int{}}, seen: map[string]bool{},
		now: time.Now().UTC()}
	return s.run()
}

// stream is the reader's state for one file.
type stream struct {
	ctx     context.Context
	st      *store.Store
	j       *job
	reading func(int64, int)
	res     *readResult
	now     time.Time

	builder *segment.Builder
	acc     *analyze.Accumulator
	kx      *knowledge.Extractor // the offline knowledge rules, beside the analyzer
	sums    *importSummaries     // the offline summaries, beside the builder
	// derive: the summaries and the knowledge rules run as the entries
	// stream by (Hooks.DeriveLater unset, or an append that goes on from
	// the states the last import kept); else they are left to the
	// session's derivation job (app/summary_jobs.go) and the reader only
	// makes the session readable.
	derive  bool
	scan    byteKeeper
	lastIdx int // the open segment an append goes on with (-1: none)
	fromSeq int // entries before this one are stored and kept
	seq     int // entries processed so far (fromSeq included)

	pending   []*session.Entry // returned, not settled (past the commit point)
	ready     []*session.Entry // settled, waiting for their copies to be looked up
	seen      map[string]bool  // dedupe keys of this file's entries
	batch     []op
	lookupErr error
	unpriced  map[string]bool
}

func (s *stream) run() error {
	j, rd := s.j, s.j.reader
	opts := segment.OptionsFor(j.format)
	s.acc = analyze.NewAccumulator()
	start, implicit := int64(0), false
	var hashState []byte
	s.unpriced = map[string]bool{}
	if rs := j.resume; rs != nil {
		start, implicit, hashState = rs.Offset, rs.Implicit, rs.Hash
		s.fromSeq, s.seq = rs.Seq, rs.Seq
		s.res.meta.Duplicates = rs.Meta.Duplicates
		for _, m := range rs.Meta.Unpriced {
			s.unpriced[m] = true
		}
		pk := j.stored.PK
		s.builder = segment.ResumeBuilder(opts, rs.Builder, func(id string) (int, bool) {
			idx, ok, err := s.st.EntrySegment(s.ctx, pk, id, rs.Seq)
			if err != nil && s.lookupErr == nil {
				s.lookupErr = err
			}
			return idx, ok
		})
		if rs.Builder.Open != nil {
			s.lastIdx = rs.Builder.Open.Index
			if len(rs.Acc) > 0 {
				if err := s.acc.UnmarshalJSON(rs.Acc); err != nil {
					return err
				}
			}
		}
	} else {
		s.builder = segment.NewBuilder(opts)
	}
	j.lastIdx = s.lastIdx
	s.kx = knowledge.NewExtractor()
	s.sums = newImportSummaries(j.hdr, s.now)
	s.derive = !j.hooks.DeriveLater
	if rs := j.resume; rs != nil && rs.Builder.Open != nil {
		switch {
		case s.resumeOpen(rs):
			s.derive = true // an append that goes on from the kept states: cheap
		case !s.derive:
			// The session's derivation job derives the open segment again.
		default:
			if err := s.refeedOpen(rs.Builder.Open, rs.Seq); err != nil {
				return err
			}
		}
	}
	if j.doc != nil {
		s.scan = docScanner{sum: j.docSHA} // the document is kept whole
	} else {
		scan, err := newGapScanner(j.file, start, hashState, implicit, s.gap)
		if err != nil {
			return err
		}
		s.scan = scan
	}
	defer s.scan.release()
	if cr, ok := rd.(*codexReader); ok {
		cr.SetParentTurns(s.parentTurns)
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
		if count&63 == 0 && s.reading != nil {
			s.reading(j.counter.n, count)
		}
		s.pending = append(s.pending, e)
		// Entries before the commit point are settled.
		consumed := rd.Consumed()
		n := 0
		for n < len(s.pending) && s.pending[n].Offset < consumed {
			n++
		}
		if n > 0 {
			s.ready = append(s.ready, s.pending[:n]...)
			s.pending = append(s.pending[:0], s.pending[n:]...)
			if len(s.ready) >= dedupeBatch {
				if err := s.flushReady(); err != nil {
					return err
				}
			}
		}
	}
	// Everything settled is processed; then the state to resume from is
	// taken at the commit point, before the entries still unsettled.
	if err := s.flushReady(); err != nil {
		return err
	}
	res := s.res
	res.consumed, res.lines = rd.Consumed(), rd.Lines()
	if err := s.scan.walkTo(res.consumed); err != nil {
		return err
	}
	readerState, seqAtCommit, err := rd.State()
	if err != nil {
		return err
	}
	if seqAtCommit != s.seq {
		return fmt.Errorf("the reader settled %d entries up to byte %d, the import processed %d", seqAtCommit, res.consumed, s.seq)
	}
	committedMalformed := rd.MalformedCount()
	for _, p := range rd.Malformed() {
		if p.Offset >= res.consumed {
			committedMalformed--
		}
	}
	base := 0
	if j.resume != nil {
		base = j.resume.Malformed
	}
	rs := &resumeState{Version: resumeVersion, Reader: readerState, Seq: s.seq, Offset: res.consumed, Line: res.lines,
		Builder: s.builder.State(), Hash: s.scan.hashState(), Implicit: s.scan.implicitEnd(), Malformed: base + committedMalformed,
		Meta: SessionMeta{Duplicates: res.meta.Duplicates, Unpriced: sortedKeys(s.unpriced)}}
	if open := rs.Builder.Open; open != nil {
		if rs.Acc, err = s.acc.MarshalJSON(); err != nil {
			return err
		}
		if sums, ok, err := s.sums.pass.OpenState(open.StartSeq); err != nil {
			return err
		} else if ok && s.derive {
			if rs.Know, err = s.kx.MarshalJSON(); err != nil {
				return err
			}
			rs.Sums = sums
		}
	}
	res.importedSHA256 = s.scan.sumHex()
	// The unsettled entries (a response awaiting its usage, an echo its
	// twin): stored now, replaced by the next import.
	s.ready = append(s.ready, s.pending...)
	s.pending = nil
	if err := s.flushReady(); err != nil {
		return err
	}
	last := s.builder.Finish()
	if s.derive {
		s.sums.finish(last)
	}
	if last != nil {
		if err := s.closeSegment(last, nil); err != nil {
			return err
		}
	}
	if err := s.takeSummaries(); err != nil {
		return err
	}
	// The reader's metadata covers the whole file (a resumed reader's
	// state carries what the lines before it said); a Codex rollout's title
	// is in its session_index.jsonl, a Copilot CLI session's in its
	// workspace.yaml. The session's summary takes the title when its
	// entries named it nothing.
	meta := rd.Meta()
	title := meta.Title
	if j.format == formatCodex && title == "" && j.titles != nil {
		title = j.titles.title(j.src.path, j.hdr.ID)
	}
	if j.format == formatCopilot && title == "" && j.src.onDisk {
		// A Copilot CLI session's name (--name, else its first prompt) is
		// in the workspace.yaml beside its events.jsonl.
		if ws, _, ok := copilot.WorkspaceOf(j.src.path); ok {
			title = ws.Name
		}
	}
	s.sums.pass.SessionAccumulator().NameIfNone(title)
	if sum, ok := s.sums.pass.Session(); ok && j.resume == nil && s.derive {
		res.session = &sum
	}
	res.lastEntryID = s.sums.lastEntryID
	res.underived = !s.derive
	// The rest of the file: a half-written last line, trailing bytes.
	res.fileBytes = j.counter.n
	if err := s.scan.walkTo(res.fileBytes); err != nil {
		return err
	}
	res.fileSHA256 = s.scan.sumHex()
	if s.lookupErr != nil {
		return s.lookupErr
	}
	if dr, ok := rd.(*docReader); ok {
		ch := dr.change
		res.docMarks = len(ch.Dropped) + len(ch.Back)
		if err := s.add(op{document: &docWrite{bytes: j.docBytes, dropped: ch.Dropped, back: ch.Back}}); err != nil {
			return err
		}
	}
	if err := s.send(); err != nil {
		return err
	}

	res.entries = s.seq
	res.pending = rd.Pending() != nil
	res.malformed = base + rd.MalformedCount()
	res.problems = rd.Malformed()
	res.meta.Title, res.meta.Models, res.meta.Rewinds, res.meta.RolledBackTurns = title, meta.Models, meta.Rewinds, meta.RolledBackTurns
	res.meta.HistoryThread, res.meta.HistoryEnd, res.meta.ForkPoint, res.meta.Record = meta.HistoryThread, meta.HistoryEnd, meta.ForkPoint, meta.Record
	res.meta.Unpriced = sortedKeys(s.unpriced)
	if j.format == formatClaudeCode && j.hdr.AgentID != "" && j.src.onDisk {
		if am, ok := claudecode.AgentMetaOf(j.src.path); ok {
			res.meta.SpawnedBy = am.ToolUseID
		}
	}
	if j.format == formatQwen && j.hdr.AgentID != "" && j.src.onDisk {
		if am, ok := qwen.AgentMetaOf(j.src.path); ok {
			res.meta.SpawnedBy = am.ToolUseID
		}
	}
	res.resume = rs
	if j.doc == nil { // a document is compared by its reading (decideDocument)
		probe, err := fileProbe(j.file, res.consumed)
		if err != nil {
			return err
		}
		res.probe = probe
	}
	j.read = res
	return nil
}

// send hands the batch of ops to the writer.
func (s *stream) send() error {
	if len(s.batch) == 0 {
		return nil
	}
	select {
	case s.j.ops <- s.batch:
	case <-s.j.abort:
		return errAborted
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
	s.batch = nil // the next add makes the next batch (the last send of a file needs none)
	return nil
}

func (s *stream) add(o op) error {
	if s.batch == nil {
		s.batch = make([]op, 0, opBatch)
	}
	s.batch = append(s.batch, o)
	if len(s.batch) >= opBatch {
		return s.send()
	}
	return nil
}

// gap hands bytes that belong to no entry to the writer.
func (s *stream) gap(off int64, b []byte) error {
	return s.add(op{gapOffset: off, gap: bytes.Clone(b)})
}

// flushReady finds which of the ready entries are copies of entries stored
// before (Claude Code lines by uuid, in this file or another), then
// processes them.
func (s *stream) flushReady() error {
	if len(s.ready) == 0 {
		return nil
	}
	if s.j.format == formatClaudeCode {
		if err := s.findCopies(s.ready); err != nil {
			return err
		}
	}
	for _, e := range s.ready {
		if err := s.process(e); err != nil {
			return err
		}
	}
	clear(s.ready)
	s.ready = s.ready[:0]
	return nil
}

// findCopies sets DuplicateOf on the entries whose uuid an earlier entry of
// this file, or a session stored before (by an earlier import or earlier in
// this one), holds (Claude Code's resumed and
// forked copies keep the uuid, beyond the 64 lines its reader looks back):
// the original is kept and counted, the copy kept and not counted.
func (s *stream) findCopies(es []*session.Entry) error {
	var keys []string
	for _, e := range es {
		k := claudecode.DedupeKey(e)
		if k == "" || e.DuplicateOf != "" {
			continue
		}
		if s.seen[k] {
			e.DuplicateOf = k
			continue
		}
		keys = append(keys, k)
	}
	var pk int64
	if s.j.stored != nil {
		pk = s.j.stored.PK
	}
	owners, err := s.lookupCopies(keys)
	if err != nil {
		return err
	}
	for _, e := range es {
		k := claudecode.DedupeKey(e)
		if k == "" {
			continue
		}
		if c, ok := owners[k]; ok && e.DuplicateOf == "" && !s.seen[k] {
			if c.SessionPK == pk {
				e.DuplicateOf = c.EntryID
			} else {
				e.DuplicateOf = "rhizome:entry/" + c.SessionID + "/" + c.EntryID
				cc := c
				s.res.copiedFrom = &cc
			}
		}
		s.seen[k] = true
	}
	if s.j.keys != nil {
		s.j.keys.add(keys)
	}
	return nil
}

// lookupCopies finds the entries the library holds that keys are copies of
// (store.Tx.DedupeOwners), asking the writer: it sees the files imported
// before this one whether their batch is committed yet or not. The reader
// waits for the writer to catch up.
func (s *stream) lookupCopies(keys []string) (map[string]store.EntryCopy, error) {
	if len(keys) == 0 {
		return map[string]store.EntryCopy{}, nil
	}
	if may, err := s.mayHaveCopies(keys); err != nil {
		return nil, err
	} else if !may {
		return map[string]store.EntryCopy{}, nil
	}
	req := &copyLookup{keys: keys, fromSeq: s.fromSeq, reply: make(chan copyReply, 1)}
	if err := s.add(op{lookup: req}); err != nil {
		return nil, err
	}
	if err := s.send(); err != nil {
		return nil, err
	}
	select {
	case r := <-req.reply:
		if r.err != nil {
			return nil, r.err
		}
		return r.owners, nil
	case <-s.j.abort:
		return nil, errAborted
	case <-s.ctx.Done():
		return nil, s.ctx.Err()
	}
}

// parentTurns returns the turns of the stored Codex thread, for the replay
// of a legacy fork or sub-agent file (codex.Reader.SetParentTurns), asking
// the writer: it sees the files before this one in the import, whether
// their batch is committed yet or not. A failed look-up fails the file.
func (s *stream) parentTurns(thread string) (map[string]bool, bool) {
	req := &turnLookup{thread: thread, reply: make(chan turnReply, 1)}
	err := s.add(op{turns: req})
	if err == nil {
		err = s.send()
	}
	if err == nil {
		select {
		case r := <-req.reply:
			if r.err == nil {
				return r.turns, r.ok
			}
			err = r.err
		case <-s.j.abort:
			err = errAborted
		case <-s.ctx.Done():
			err = s.ctx.Err()
		}
	}
	if s.lookupErr == nil {
		s.lookupErr = err
	}
	return nil, false
}

// process takes one settled entry through the gaps, the segment builder,
// the accumulator and to the writer.
func (s *stream) process(e *session.Entry) error {
	j := s.j
	if err := s.scan.entry(e); err != nil {
		return err
	}
	if (j.format == formatCodex || j.format == formatQwen || j.format == formatCopilot || j.format == formatGemini || j.format == formatCline ||
		j.format == formatOpenCode) && e.Message != nil && e.Message.Usage != nil && e.Message.Usage.Cost.Total == 0 &&
		e.Message.Model != "" && e.Message.Usage.TotalTokens+e.Message.Usage.Input+e.Message.Usage.Output > 0 {
		provider := "openai"
		switch j.format {
		case formatGemini:
			provider = "google"
		case formatOpenCode:
			provider = e.Message.Provider // OpenCode names it ("anthropic", "openai", a local one)
		}
		if !priceUsage(provider, e.Message.Model, e.Message.Usage) {
			s.unpriced[e.Message.Model] = true
		}
	}
	step := s.builder.Add(e)
	s.sums.add(e, step, s.builder.SegmentOf, s.derive && step.Segment >= s.lastIdx)
	if step.Closed != nil {
		if err := s.closeSegment(step.Closed, step.Link); err != nil {
			return err
		}
	}
	if err := s.takeSummaries(); err != nil {
		return err
	}
	if step.Link != nil && step.Link.To > s.lastIdx {
		s.res.links = append(s.res.links, *step.Link)
	}
	if step.Segment >= s.lastIdx && e.DuplicateOf == "" && !e.Replayed {
		s.acc.Add(e)
		if s.derive {
			s.kx.Add(e)
		}
	}
	if e.DuplicateOf != "" {
		s.res.meta.Duplicates++
	}
	if e.SubagentID != "" && e.Type == session.TypeMessage {
		if _, ok := s.res.spawns[e.SubagentID]; !ok {
			s.res.spawns[e.SubagentID] = e.Seq
		}
	}
	var key string
	if j.format == formatClaudeCode {
		key = claudecode.DedupeKey(e)
	}
	s.seq++
	j.byType[e.Type]++
	if e.Message != nil && e.Message.Role != "" {
		j.byType[e.Type+":"+e.Message.Role]++
	}
	outputs, text := s.toolOutputs(e)
	if err := s.add(op{entry: e, text: text, extra: store.EntryExtra{Meta: entryMeta(j.format, e), DedupeKey: key}}); err != nil {
		return err
	}
	for i := range outputs {
		if err := s.add(op{toolOutput: &outputs[i]}); err != nil {
			return err
		}
	}
	return nil
}

// toolOutputs reads the outputs a Claude Code tool result keeps in files
// beside its session (toolOutputsOf; a file on disk only: a dropped file
// has nothing beside it; not for a copy of another session's line, whose
// outputs are that session's), and returns them with the entry's
// searchable text.
func (s *stream) toolOutputs(e *session.Entry) ([]store.ToolOutput, string) {
	if s.j.format != formatClaudeCode || !s.j.src.onDisk || e.DuplicateOf != "" {
		return nil, session.EntryText(e)
	}
	return toolOutputsOf(s.j.src.path, e)
}

// toolOutputsOf reads the outputs tool result e of the Claude Code session
// file at path keeps in files beside it (claudecode.PersistedOutputs), and
// returns them with e's searchable text: the whole outputs' where they were
// read, else the line's own (a preview).
func toolOutputsOf(path string, e *session.Entry) ([]store.ToolOutput, string) {
	text := session.EntryText(e)
	pos := claudecode.PersistedOutputs(path, e)
	if len(pos) == 0 {
		return nil, text
	}
	out := make([]store.ToolOutput, 0, len(pos))
	var full []string
	for _, po := range pos {
		o := store.ToolOutput{Seq: e.Seq, Name: po.Name, RecordedPath: po.RecordedPath, Bytes: po.Size, Content: po.Content}
		switch {
		case po.Content != nil:
			if utf8.Valid(po.Content) {
				full = append(full, string(po.Content))
			}
		case errors.Is(po.Err, claudecode.ErrPersistedOutputTooLarge):
			o.Absent = "larger than 32 MiB: not kept"
		default:
			o.Absent = "not found beside the session when it was imported"
		}
		out = append(out, o)
	}
	if len(full) > 0 {
		text = strings.Join(full, "\n")
	}
	return out, text
}

// closeSegment analyzes a complete segment into its node.
func (s *stream) closeSegment(seg *segment.Segment, next *segment.Link) error {
	j := s.j
	s.res.segStart[seg.Index] = seg.StartSeq
	defer s.acc.Reset()
	defer s.kx.Reset()
	if seg.Index < s.lastIdx {
		return nil // stored already, unchanged
	}
	node := s.acc.Node(analyze.Input{
		Header:      *j.hdr,
		SessionFile: j.src.path,
		Computer:    j.src.computer,
		Segment:     *seg,
		// IsNewProject is the writer's to set.
		Abandoned: next != nil && (next.Type == segment.EdgeBranch || next.Type == segment.EdgeTreeJump),
	}, s.now)
	if !s.derive {
		return s.add(op{seg: seg, node: &node, last: seg.Index == s.lastIdx})
	}
	s.sums.label(&node, seg)
	items := s.kx.Items(knowledge.Source{Project: j.hdr.Cwd, SessionID: j.hdr.ID, SegmentNodeID: node.ID}, s.now)
	return s.add(op{seg: seg, node: &node, knowledge: items, derived: true, last: seg.Index == s.lastIdx})
}

// takeSummaries hands the summaries made since the last call to the writer.
func (s *stream) takeSummaries() error {
	if m := s.sums.take(); len(m) > 0 {
		return s.add(op{sums: m})
	}
	return nil
}

// resumeOpen restores the summary pass and the knowledge extractor of the
// segment an append goes on with from the states the last import kept
// (rs.Sums, rs.Know): false when it kept none or they do not restore, and
// the stored entries are fed again instead (refeedOpen).
func (s *stream) resumeOpen(rs *resumeState) bool {
	if len(rs.Sums) == 0 || len(rs.Know) == 0 {
		return false
	}
	kx := knowledge.NewExtractor()
	if kx.UnmarshalJSON(rs.Know) != nil {
		return false
	}
	pass, err := summary.ResumePass(s.j.hdr.ID, s.j.hdr.Cwd, s.now, rs.Sums)
	if err != nil {
		return false
	}
	s.kx, s.sums.pass, s.sums.lastEntryID = kx, pass, pass.LastEntryID()
	return true
}

// refeedOpen feeds the stored entries of the segment an append goes on
// with (open, up to seq upTo) to the knowledge rules and the summaries, so
// that they see the whole segment when it closes, as a fresh import does
// (the analyzer's accumulator resumes from its saved state instead).
func (s *stream) refeedOpen(open *segment.Segment, upTo int) error {
	j := s.j
	if open.StartSeq >= upTo {
		return nil
	}
	step := segment.Step{Segment: open.Index}
	return s.st.EachEntry(s.ctx, j.stored.PK, open.StartSeq, upTo-1, 0, func(recs []store.EntryRecord) error {
		es, err := DecodeRecords(j.format, j.stored.Header, j.src.path, recs)
		if err != nil {
			return err
		}
		for _, e := range es {
			s.sums.add(e, step, s.builder.SegmentOf, true)
			if e.DuplicateOf == "" && !e.Replayed {
				s.kx.Add(e)
			}
		}
		return nil
	})
}

// entryMeta is what an entry's reader derived from other lines, kept with
// it (store.EntryExtra.Meta): a decode of its object alone cannot tell.
// nil for pi entries and for entries with nothing to say.
func entryMeta(format string, e *session.Entry) []byte {
	if format == formatPi {
		return nil
	}
	type meta struct {
		Rewind          bool     `json:"rewind,omitempty"`
		DuplicateOf     string   `json:"duplicateOf,omitempty"`
		Replayed        bool     `json:"replayed,omitempty"`
		RolledBack      bool     `json:"rolledBack,omitempty"`
		ToolName        string   `json:"toolName,omitempty"`
		RolledBackTurns []string `json:"rolledBackTurns,omitempty"`
		SubagentID      string   `json:"subagentId,omitempty"`
	}
	m := meta{Rewind: e.Rewind, DuplicateOf: e.DuplicateOf, Replayed: e.Replayed, RolledBack: e.RolledBack,
		RolledBackTurns: e.RolledBackTurns}
	if e.Message != nil && e.Message.Role == session.RoleToolResult {
		m.ToolName = e.Message.ToolName
	}
	if isDocumentFormat(format) {
		// A Cline spawn_agent result names no sub-agent: the files beside
		// its conversation did (the reader matched the task).
		m.SubagentID = e.SubagentID
	}
	if m.ToolName == "" && !m.Rewind && m.DuplicateOf == "" && !m.Replayed && !m.RolledBack && len(m.RolledBackTurns) == 0 && m.SubagentID == "" {
		return nil
	}
	b, _ := json.Marshal(m)
	return b
}

// errBytesDiffer: an entry's object is not the file's bytes at its offset.
var errBytesDiffer = errors.New("an entry's object differs from the file's bytes at its offset")
