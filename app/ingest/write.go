package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/pisession"
	"rhizome/backend/summary"
	"rhizome/store"
)

// Writing: a file's ops are applied in the batch's transaction, inside a
// savepoint of the file's (fileWrite), all of them or none, and the file's
// report is read back from what the library holds.

// fileWrite is the writer's state for one job.
type fileWrite struct {
	ctx context.Context
	b   *writeBatch
	j   *job
	rep *FileReport

	tx      *store.Tx // the batch's, inside the file's savepoint (nil before)
	sess    *store.Session
	trigger string // version trigger of nodes already stored
	written int    // entries written
	added   int    // entries written that the library did not hold (an append rewrites unsettled ones)
	now     time.Time
	sums    []summary.Made // offline summaries made while reading (summary.go)
	// turnStart is the seq of the first entry of each turn this write
	// stored: a rollback flags its turns from there on. An append's first
	// turn may have begun before it (firstSeq).
	turnStart map[string]int
	firstSeq  int
}

// run writes the job into the batch's transaction, inside a savepoint of
// its own that the caller releases, or rolls back when run fails.
func (w *fileWrite) run() error {
	j := w.j
	w.now = time.Now().UTC()
	tx, err := w.b.open(w.ctx)
	if err != nil {
		return err
	}
	if err := tx.Savepoint(); err != nil {
		return err
	}
	w.tx = tx

	// The reader decided on the library as committed before this
	// transaction: check nothing changed since.
	stored, err := tx.ImportedSession(j.hdr.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		stored = nil
	case err != nil:
		return err
	}
	if !sameStored(stored, j.stored) {
		return errors.New("the library changed while the file was read: import it again")
	}
	if j.status == StatusUnchanged {
		w.rep.Status = StatusUnchanged
		if stored == nil {
			// A document caught while the agent writes it, of a session
			// the library does not hold yet: read when it is whole.
			w.rep.PendingTail = true
			return nil
		}
		if stored.Path != j.src.path || stored.SourceDeletedAt != "" {
			// The same file found at another path (moved, archived), or
			// back where it was.
			if err := tx.MoveSession(stored.PK, j.src.path, path.Base(filepath.ToSlash(j.src.path))); err != nil {
				return err
			}
		}
		if err := w.readUnreadToolOutputs(stored); err != nil {
			return err
		}
		if !j.docPending {
			// Read or hashed and found the same: trusted by its stamp
			// next time (trustStamps).
			if err := tx.StampFile(stored.PK, j.src.stamp()); err != nil {
				return err
			}
		}
		err := w.report(stored, 0)
		// A document caught mid-write: the version stored stays, the whole
		// one is read next time.
		w.rep.PendingTail = w.rep.PendingTail || j.docPending
		return err
	}
	if err := w.begin(); err != nil {
		return err
	}
	for batch := range j.ops {
		if err := w.ctx.Err(); err != nil {
			return err // cancelled: the reader stops too
		}
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
	if status == StatusAppended && w.added == 0 && (j.doc != nil && j.read.docMarks == 0 || j.doc == nil && len(j.read.problems) == 0) {
		status = StatusUnchanged // only a pending tail, or a document's bytes around the same messages, changed: bookkeeping
	}
	w.rep.Status = status
	return w.report(w.sess, w.added)
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
	header := hdr.Raw
	if header == nil {
		// Claude Code and Codex files have no header line: the one their
		// reader made from the first lines is kept.
		b, err := json.Marshal(hdr)
		if err != nil {
			return fmt.Errorf("header: %w", err)
		}
		header = b
	}
	sess := &store.Session{
		ID: hdr.ID, Path: j.src.path, FileName: path.Base(filepath.ToSlash(j.src.path)),
		Cwd: hdr.Cwd, Version: hdr.Version, Timestamp: hdr.Timestamp, Header: header,
		ParentSession: parent, EntriesByType: map[string]int{}, Format: j.format, AgentID: hdr.AgentID,
	}
	if parent != "" {
		sess.ParentFileName = path.Base(filepath.ToSlash(parent))
		sess.ParentUUID = pisession.SessionUUID(sess.ParentFileName)
		if j.format == formatOpenCode {
			sess.ParentUUID = parent // a session id ("ses_…"), not a file name
		}
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
	case j.status == StatusAppended:
		sess.PK, sess.IsNewProject = j.stored.PK, j.stored.IsNewProject
		sess.ParentSession, sess.ParentFileName, sess.ParentUUID = j.stored.ParentSession, j.stored.ParentFileName, j.stored.ParentUUID
		for k, v := range j.stored.EntriesByType {
			sess.EntriesByType[k] += v
		}
		w.trigger = store.TriggerAppend
		open := -1
		if o := j.resume.Builder.Open; o != nil {
			open = o.Index
		}
		removed, err := tx.ResumeSession(sess.PK, j.resume.Seq, j.resume.Offset, open)
		if err != nil {
			return err
		}
		for k, v := range removed {
			if sess.EntriesByType[k] -= v; sess.EntriesByType[k] <= 0 {
				delete(sess.EntriesByType, k)
			}
		}
		return nil
	default: // rewritten
		sess.PK, sess.IsNewProject = j.stored.PK, j.stored.IsNewProject
		if err := tx.DeleteOfflineKnowledge(hdr.ID); err != nil {
			return err
		}
		if err := tx.ToolOutputsRead(sess.PK); err != nil { // read again with every entry
			return err
		}
		return tx.ClearSession(sess.PK)
	}
}

// readUnreadToolOutputs reads the tool outputs saved beside a Claude Code
// session the library stored before it kept them (store.Tx.ToolOutputsUnread,
// migrations/0111_tool_outputs_unread.sql), met unchanged or appended to:
// those its stored tool results name, as an import now reads them with
// their entries, which then search by them. Once read, the session is off
// the list; a file met where nothing is beside it (dropped) leaves it on.
func (w *fileWrite) readUnreadToolOutputs(stored *store.Session) error {
	j := w.j
	if j.format != formatClaudeCode || !j.src.onDisk || stored == nil {
		return nil
	}
	unread, err := w.tx.ToolOutputsUnread(stored.PK)
	if err != nil || !unread {
		return err
	}
	recs, err := w.tx.PersistedOutputEntries(stored.PK)
	if err != nil {
		return err
	}
	for _, r := range recs {
		es, err := DecodeRecords(j.format, stored.Header, j.src.path, []store.EntryRecord{r})
		if err != nil || len(es) != 1 || es[0].DuplicateOf != "" {
			continue // what cannot be read names nothing; a copy's outputs are its original's
		}
		outputs, text := toolOutputsOf(j.src.path, es[0])
		for _, o := range outputs {
			o.Seq = r.Seq
			if err := w.tx.PutToolOutput(stored.PK, o); err != nil {
				return err
			}
		}
		if len(outputs) > 0 {
			if err := w.tx.SetEntryText(stored.PK, r.Seq, r.Role, text); err != nil {
				return err
			}
		}
	}
	return w.tx.ToolOutputsRead(stored.PK)
}

// apply does one write.
func (w *fileWrite) apply(o *op) error {
	if o.lookup != nil {
		owners, err := w.tx.DedupeOwners(o.lookup.keys, w.sess.PK, o.lookup.fromSeq)
		o.lookup.reply <- copyReply{owners, err}
		return nil // the reader fails the file on err
	}
	if o.toolOutput != nil {
		return w.tx.PutToolOutput(w.sess.PK, *o.toolOutput)
	}
	if d := o.document; d != nil {
		if err := w.tx.PutSessionDocument(w.sess.PK, d.bytes); err != nil {
			return err
		}
		if err := w.tx.MarkDropped(w.sess.PK, d.dropped, true); err != nil {
			return err
		}
		return w.tx.MarkDropped(w.sess.PK, d.back, false)
	}
	if o.turns != nil {
		turns, ok, err := w.tx.SessionTurnIDs(o.turns.thread)
		o.turns.reply <- turnReply{turns, ok, err}
		return nil // the reader fails the file on err
	}
	if o.sums != nil {
		w.sums = append(w.sums, o.sums...)
		return nil
	}
	if o.entry != nil {
		if err := w.tx.InsertEntry(w.sess.PK, o.entry, o.text, o.extra); err != nil {
			return err
		}
		if w.written == 0 {
			w.firstSeq = o.entry.Seq
		}
		if id := o.entry.TurnID; id != "" {
			if w.turnStart == nil {
				w.turnStart = map[string]int{}
			}
			if _, ok := w.turnStart[id]; !ok {
				w.turnStart[id] = o.entry.Seq
			}
		}
		if turns := o.entry.RolledBackTurns; len(turns) > 0 {
			from := o.entry.Seq
			for _, t := range turns {
				s, ok := w.turnStart[t]
				if !ok || s == w.firstSeq && w.firstSeq > 0 {
					from = 0 // a turn stored (or begun) before this write: from the session's start
					break
				}
				from = min(from, s)
			}
			if err := w.tx.FlagRolledBack(w.sess.PK, turns, from, o.entry.Seq); err != nil {
				return err
			}
		}
		w.written++
		if w.j.stored == nil || w.j.status != StatusAppended || o.entry.Seq >= w.j.stored.Entries {
			w.added++
		}
		if stored := w.j.hooks.Stored; stored != nil {
			return stored(w.written)
		}
		return nil
	}
	if o.gap != nil {
		return w.tx.InsertGap(w.sess.PK, o.gapOffset, o.gap)
	}
	if o.derived {
		if err := w.tx.PutOfflineKnowledge(o.node.ID, o.knowledge); err != nil {
			return err
		}
	}
	n := o.node
	n.Classification.IsNewProject = w.sess.IsNewProject
	if o.last {
		old, err := w.tx.Node(n.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil && graph.SameAnalysis(old, n) {
			return nil
		}
	}
	if err := w.tx.PutSegment(w.sess.PK, o.seg); err != nil {
		return err
	}
	return w.tx.PutNode(w.sess.PK, o.seg.Index, n, w.trigger)
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
		if !okFrom && j.status == StatusAppended {
			// A link from a segment an earlier import stored.
			seg, err := tx.SegmentAt(sess.PK, l.From)
			if err == nil {
				from, okFrom = seg.StartSeq, true
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
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
	if j.stored != nil {
		if err := tx.DeleteDetachedNodes(sess.PK); err != nil {
			return err
		}
	}

	sess.Name = res.meta.Title
	sess.FileBytes, sess.FileSHA256 = res.fileBytes, res.fileSHA256
	sess.ImportedBytes, sess.ImportedSHA256, sess.ImportedProbe = res.consumed, res.importedSHA256, res.probe
	sess.Lines = res.lines
	sess.Entries = res.entries
	for k, v := range j.byType {
		sess.EntriesByType[k] += v
	}
	sess.PendingTail = res.pending
	sess.Malformed = res.malformed
	resume, err := json.Marshal(res.resume)
	if err != nil {
		return fmt.Errorf("resume state: %w", err)
	}
	sess.Resume = resume
	if sess.Meta, err = json.Marshal(res.meta); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	if c := res.copiedFrom; c != nil && sess.ParentSession == "" && sess.AgentID == "" {
		// A Claude Code fork or resumed copy: its lines copied from another
		// session make that session its parent.
		sess.ParentSession, sess.ParentUUID = c.SessionID, c.SessionID
	}
	if err := tx.PutSession(sess); err != nil {
		return err
	}
	if err := tx.StampFile(sess.PK, j.src.stamp()); err != nil {
		return err
	}
	// Its project's relations are derived after the import (inline, or by
	// the queue for an append): the mark outlives a window closed before.
	if err := tx.MarkRelationsPending(sess.Cwd, time.Now()); err != nil {
		return err
	}
	if err := w.writeSummaries(); err != nil {
		return err
	}
	if err := linkSubagents(tx, sess, res.spawns, res.meta.SpawnedBy, w.now); err != nil {
		return err
	}
	if err := flagReverts(tx, sess, res.meta); err != nil {
		return err
	}
	if j.status == StatusAppended {
		if err := w.readUnreadToolOutputs(j.stored); err != nil {
			return err
		}
		return linkForkOnAppend(tx, sess, w.now)
	}
	return linkForks(tx, sess, w.now)
}

// writeSummaries saves the summaries made while reading, and queues what
// the import could not make (summary.go).
func (w *fileWrite) writeSummaries() error {
	res, sess := w.j.read, w.sess
	current := summary.SessionHash(summary.SessionInputs{SessionID: sess.ID, Entries: res.entries,
		LastEntryID: res.lastEntryID, Name: res.meta.Title})
	ws := summaryWrites(sess.ID, sess.Cwd, w.sums, res.session, current, w.j.hooks.ModelSummaries)
	if res.underived {
		if err := w.tx.MarkDerivePending(sess.PK, true); err != nil {
			return err
		}
	}
	return w.tx.WriteSummaries(ws, w.j.hooks.ShowSummary, w.now)
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
	// The totals the library keeps as it writes (store.SessionCounts):
	// counting them here grew with the session (issue 11 §2).
	counts, err := tx.SessionCounts(sess.PK)
	if err != nil {
		return err
	}
	fr.Segments = counts.Segments
	for k, v := range counts.Boundaries {
		fr.BoundariesByType[k] += v
	}
	fr.EdgesByType = counts.Edges
	problems, err := tx.Problems(sess.PK)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fr.MalformedLines = append(fr.MalformedLines, LineProblem{Line: p.Line, Offset: p.Offset, Reason: p.Reason})
	}
	return nil
}

// isoMillis is t as the library stores times: ISO 8601 UTC with
// milliseconds.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
