package ingest

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/store"
)

// Fork linking: the fork edges between a session and its parent or
// children, whichever was imported first. See pi-brain-node-model.md,
// "Fork Edges", corrected by ERRATA.md.

// linkForks makes the fork edges of sess: into its first node from its
// parent's node at the fork point, if the parent is stored, and from sess
// into the first node of every stored fork whose parent resolves to sess
// (children imported before their parent). See pi-brain-node-model.md, "Fork
// Edges", and ERRATA.md: the parent is matched by path, then file name, then
// session id.
func linkForks(tx *store.Tx, sess *store.Session, now time.Time) error {
	if sess.ParentSession != "" && sess.AgentID == "" {
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
		if child.AgentID != "" {
			continue // a sub-agent: linked to the call that spawned it (linkSubagents)
		}
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

// linkForkOnAppend makes sess's fork edge from its parent when an append
// made it possible and it is not there yet: a fork being written is first
// seen before the lines that name its parent or make its first node (a
// watched Claude Code fork), and its edge would otherwise never be made.
// Once the edge exists an append costs one indexed lookup here.
func linkForkOnAppend(tx *store.Tx, sess *store.Session, now time.Time) error {
	if sess.ParentSession == "" || sess.AgentID != "" {
		return nil
	}
	first, err := tx.SegmentAt(sess.PK, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if first.NodeID == "" {
		return nil
	}
	if has, err := tx.HasEdgeInto(first.NodeID, graph.EdgeFork); err != nil || has {
		return err
	}
	parent, err := tx.ForkParent(sess)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return linkFork(tx, parent, sess, now)
}

// linkFork makes the fork edge from parent's node holding the fork point
// (segment.ForkPoint; for a Codex fork, the parent's entry before the end of
// the history it forked, its session_meta.history_base; the parent's last
// node when neither says) to child's first node.
func linkFork(tx *store.Tx, parent, child *store.Session, now time.Time) error {
	first, err := tx.SegmentAt(child.PK, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil // no entries: no node to link
	}
	if err != nil {
		return err
	}
	var forkID string
	var forkSeq int
	var cm SessionMeta
	_ = json.Unmarshal(child.Meta, &cm) // no meta: no fork point named
	if cm.ForkPoint != "" {
		// The fork's copies have ids of their own (OpenCode): its reader
		// named the parent's entry it goes on from.
		seqs, err := tx.EntrySeqs(parent.PK, []string{cm.ForkPoint})
		if err != nil {
			return err
		}
		if seq, ok := seqs[cm.ForkPoint]; ok {
			forkID, forkSeq = cm.ForkPoint, seq
		}
	} else if child.Format != formatCodex {
		// Codex entries have no ids of their own ("L<line>"): its fork
		// point is not in the file; the parent's last node stands for it.
		// From the child's end backwards, a chunk at a time, its ids are
		// looked up in the parent until one is there.
		var lookErr error
		if err := tx.EntryChainBackward(child.PK, 1024, func(chunk []session.Entry) bool {
			ids := make([]string, 0, len(chunk))
			for _, e := range chunk {
				if e.ID != "" {
					ids = append(ids, e.ID)
				}
			}
			seqs, err := tx.EntrySeqs(parent.PK, ids)
			if err != nil {
				lookErr = err
				return true
			}
			in := make(map[string]bool, len(seqs))
			for id := range seqs {
				in[id] = true
			}
			id, ok := segment.ForkPoint(chunk, in)
			forkID, forkSeq = id, seqs[id]
			return ok
		}); err != nil {
			return err
		}
		if lookErr != nil {
			return lookErr
		}
	}
	var forkOffset int64
	if child.Format == formatCodex {
		// Codex 0.169 records where in the parent's file the fork's
		// history ends (history_base: a fork of the thread, a window of it
		// after a revert).
		var m SessionMeta
		if json.Unmarshal(child.Meta, &m) == nil && m.HistoryThread == parent.ID && m.HistoryEnd > 0 {
			seq, err := tx.EntryBeforeOffset(parent.PK, m.HistoryEnd)
			switch {
			case err == nil:
				forkSeq, forkOffset = seq, m.HistoryEnd
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
	}
	var from *store.SegmentRecord
	if forkID != "" || forkOffset > 0 {
		from, err = tx.SegmentOfSeq(parent.PK, forkSeq)
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
	if forkOffset > 0 {
		md["forkOffset"] = forkOffset // bytes into the parent's file
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

// flagReverts marks rolled back what Codex 0.169 reverts took out of a
// thread: the entries of its file from where a history window's history
// ends (session_meta.history_base of a <thread>_<window> file) on. sess is
// the session just written: a window (its thread's entries are flagged) or
// a thread (by its stored windows). See codex.Superseded.
func flagReverts(tx *store.Tx, sess *store.Session, meta SessionMeta) error {
	if sess.Format != formatCodex {
		return nil
	}
	if isHistoryWindow(sess.ID, meta) {
		return tx.FlagRevertedFrom(meta.HistoryThread, meta.HistoryEnd)
	}
	windows, err := tx.HistoryWindows(sess.ID)
	if err != nil {
		return err
	}
	for i := range windows {
		var m SessionMeta
		if json.Unmarshal(windows[i].Meta, &m) == nil && isHistoryWindow(windows[i].ID, m) && m.HistoryThread == sess.ID {
			if err := tx.FlagRevertedFrom(sess.ID, m.HistoryEnd); err != nil {
				return err
			}
		}
	}
	return nil
}

// isHistoryWindow reports whether the Codex session id, with meta, is a
// history window of the thread its history comes from: its id is the
// thread's and a window's (a fork has an id of its own).
func isHistoryWindow(id string, meta SessionMeta) bool {
	return meta.HistoryThread != "" && meta.HistoryEnd > 0 && strings.HasPrefix(id, meta.HistoryThread+"_")
}
