package app

import (
	"context"
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

// Writing: a file's ops are applied in one transaction (fileWrite), all of
// them or none, and the file's report is read back from what the library
// holds.

// failImport, when set (by tests), is called by the writer after each entry
// it stores with the number stored so far in the file; an error it returns
// fails the file as a storage error would.
var failImport func(entries int) error

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
	sums    []summary.Made // offline summaries made while reading (import_summary.go)
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
		if err := tx.DeleteOfflineKnowledge(hdr.ID); err != nil {
			return err
		}
		return tx.ClearSession(sess.PK)
	}
}

// apply does one write.
func (w *fileWrite) apply(o *op) error {
	if o.sums != nil {
		w.sums = append(w.sums, o.sums...)
		return nil
	}
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
	if err := w.tx.PutOfflineKnowledge(o.node.ID, o.knowledge); err != nil {
		return err
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
	if err := w.writeSummaries(); err != nil {
		return err
	}
	return linkForks(tx, sess, w.now)
}

// writeSummaries saves the summaries made while reading, and queues what
// the import could not make (import_summary.go).
func (w *fileWrite) writeSummaries() error {
	res, sess := w.j.read, w.sess
	current := summary.SessionHash(summary.SessionInputs{SessionID: sess.ID, Entries: res.entries,
		LastEntryID: res.lastEntryID, Name: res.name})
	ws := summaryWrites(sess.ID, sess.Cwd, w.sums, res.session, current, w.j.modelSummaries)
	return w.tx.WriteSummaries(ws, showSummary, w.now)
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
