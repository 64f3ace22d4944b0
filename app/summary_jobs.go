package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/analyze"
	"rhizome/backend/knowledge"
	"rhizome/backend/link"
	"rhizome/backend/llm"
	"rhizome/backend/loom"
	"rhizome/backend/segment"
	"rhizome/backend/summary"
	"rhizome/store"
)

// The summarizer's jobs, one per kind of item: what an item queued for its
// offline summary or a model's makes.

// sessionJob replays the session's stored entries through a summary.Pass
// (as the import does) and saves what changed: the session's offline
// summary, its segments', pi's; then asks the model for the session's when
// the job is a model one.
func (s *summarizer) sessionJob(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) ([]string, error) {
	// The session's own row: its cost and counts (summed over its nodes,
	// a millisecond a session) are not needed here.
	sess, err := s.c.store.ImportedSession(ctx, j.Subject)
	if err != nil {
		return nil, err
	}
	changed, acc, err := s.sessionPass(ctx, sess, j.Queued == store.QueueModel)
	if err != nil || ctx.Err() != nil {
		return changed, err
	}
	row, _, err := s.c.store.Summary(ctx, j.Item)
	if err != nil {
		return changed, err
	}
	row.Queued, row.QueuedAt, row.Forced = j.Queued, j.QueuedAt, j.Forced
	if !wantsModel(*row, prov) {
		return changed, s.finish(ctx, j)
	}
	p := acc.SessionPrompt(summary.PromptContext{Project: sess.Cwd}, sess.ID)
	made, err := s.modelResult(ctx, j, prov, name, p)
	if made {
		changed = append(changed, j.Item)
	}
	return changed, err
}

// sessionPass is the session's derivation (issue 25: an import makes a
// session readable and queues this): it replays session sess's stored
// entries through a summary.Pass and the offline knowledge rules, as an
// import that derives as it reads does, and saves in one transaction the
// offline summaries that changed (and the items' current input hashes),
// each segment node's label (its summary's sentence) and each segment's
// offline knowledge; its project is queued, and for a model job in model
// mode the items that lack a model's summary (an offline job, such as the
// derivation a Cancel keeps, queues no model work). It returns the items
// changed and the session's accumulator (for its model prompt).
func (s *summarizer) sessionPass(ctx context.Context, sess *store.Session, model bool) ([]string, *summary.Accumulator, error) {
	now := s.now()
	b := segment.NewBuilder(segment.OptionsFor(sess.Format))
	pass := summary.NewPass(sess.ID, sess.Cwd, now)
	kx := knowledge.NewExtractor()
	var made []summary.Made
	replayed := 0
	found := map[string][]knowledge.Item{} // by segment node
	closeSegment := func(seg *segment.Segment) {
		id := analyze.NodeID(sess.ID, seg.StartSeq)
		found[id] = kx.Items(knowledge.Source{Project: sess.Cwd, SessionID: sess.ID, SegmentNodeID: id}, now)
		kx.Reset()
	}
	err := s.c.store.EachEntry(ctx, sess.PK, 0, -1, 512, func(recs []store.EntryRecord) error {
		es, err := ingest.DecodeRecords(sess.Format, sess.Header, sess.Path, recs)
		if err != nil {
			return fmt.Errorf("app: session %s: %w", sess.ID, err)
		}
		replayed += len(recs)
		for _, e := range es {
			st := b.Add(e)
			pass.Add(e, st, b.SegmentOf)
			made = append(made, pass.Take()...)
			if st.Closed != nil {
				closeSegment(st.Closed)
			}
			if e.DuplicateOf == "" && !e.Replayed {
				kx.Add(e)
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, nil, err
	}
	last := b.Finish()
	pass.Finish(last)
	if last != nil {
		closeSegment(last)
	}
	made = append(made, pass.Take()...)
	pass.SessionAccumulator().NameIfNone(sess.Name)
	labels := map[string]string{} // a segment node's sentence: a model's or pi's own before the offline one
	for _, m := range made {
		id := analyze.NodeID(sess.ID, m.StartSeq)
		if m.Summary.Source != summary.SourcePi || labels[id] == "" {
			labels[id] = m.Summary.Text
		}
	}

	items := make([]string, 0, len(made)+1)
	subjects := make([]string, 0, len(made))
	for _, m := range made {
		subjects = append(subjects, analyze.NodeID(sess.ID, m.StartSeq))
	}
	rows, err := s.c.store.SummariesOf(ctx, string(summary.KindSegment), subjects)
	if err != nil {
		return nil, nil, err
	}
	var ws []store.SummaryWrite
	for i, m := range made {
		key := nodeKey(subjects[i])
		sum := m.Summary
		if row := rows[key.Subject]; row != nil && row.InputHash == sum.InputHash {
			_, vs, err := s.c.store.Summary(ctx, key.Item)
			if err != nil {
				return nil, nil, err
			}
			if hasFresh(vs, sum.Source, sum.InputHash) {
				continue
			}
		}
		v := versionOf(sum)
		ws = append(ws, store.SummaryWrite{Key: key, InputHash: &sum.InputHash, Add: &v})
		items = append(items, key.Item)
	}
	if sum, ok := pass.Session(); ok {
		key := sessionKey(sess.ID)
		_, vs, err := s.c.store.Summary(ctx, key.Item)
		if err != nil && !isNotFound(err) {
			return nil, nil, err
		}
		w := store.SummaryWrite{Key: key, InputHash: &sum.InputHash}
		if !hasFresh(vs, summary.SourceOffline, sum.InputHash) {
			v := versionOf(sum)
			w.Add = &v
			items = append(items, key.Item)
		}
		ws = append(ws, w)
	}
	// Its project, unless the session names none (a Codex rollout of the
	// bare era) or this is an offline job in model mode (the derivation a
	// Cancel kept: the project's job would ask the model).
	if sess.Cwd != "" && (model || !s.modelOn()) {
		ws = append(ws, store.SummaryWrite{Key: projectKey(sess.Cwd), Queue: store.QueueOffline})
	}
	if err := s.saveDerived(context.WithoutCancel(ctx), sess.PK, replayed, ws, labels, found, now); err != nil {
		return nil, nil, err
	}
	if model && s.modelOn() {
		if _, err := s.c.store.QueueModelSummaries(ctx, modelKinds, s.maxAttempts, now); err != nil {
			return items, nil, err
		}
	}
	return items, pass.SessionAccumulator(), nil
}

// saveDerived saves a session's derivation in one transaction: the
// summary writes ws, the segment nodes' labels and their offline
// knowledge (a node the library no longer holds, its session rewritten
// meanwhile, is passed over).
func (s *summarizer) saveDerived(ctx context.Context, pk int64, replayed int, ws []store.SummaryWrite, labels map[string]string, found map[string][]knowledge.Item, now time.Time) error {
	tx, err := s.c.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ids := make([]string, 0, len(found))
	for id := range found {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if _, err := tx.Node(id); errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		if err := tx.PutOfflineKnowledge(id, found[id]); err != nil {
			return err
		}
		if t := labels[id]; t != "" {
			if _, err := tx.SetNodeSummary(id, t); err != nil {
				return err
			}
		}
	}
	if err := tx.WriteSummaries(ws, showSummary, now); err != nil {
		return err
	}
	if err := tx.MarkDerived(pk, replayed); err != nil {
		return err
	}
	return tx.Commit()
}

// segmentJob remakes a segment's offline summary from its stored entries
// when it lacks a fresh one, and asks the model for one in a model job.
func (s *summarizer) segmentJob(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) ([]string, error) {
	rec, err := s.c.store.Node(ctx, j.Subject)
	if err != nil {
		return nil, err
	}
	sess, err := s.c.store.SessionByID(ctx, rec.SessionID)
	if err != nil {
		return nil, err
	}
	segs, err := s.c.store.Segments(ctx, rec.SessionID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(segs, func(g store.SegmentRecord) bool { return g.Index == rec.Segment })
	if i < 0 {
		return nil, fmt.Errorf("app: summary of %s: segment %d of session %s: %w", j.Item, rec.Segment, rec.SessionID, store.ErrNotFound)
	}
	seg := segs[i].Segment
	acc := summary.NewAccumulator()
	err = s.c.store.EachEntry(ctx, sess.PK, seg.StartSeq, seg.EndSeq+1, 512, func(recs []store.EntryRecord) error {
		es, err := ingest.DecodeRecords(sess.Format, sess.Header, sess.Path, recs)
		if err != nil {
			return fmt.Errorf("app: session %s: %w", sess.ID, err)
		}
		for _, e := range es {
			if e.Seq > seg.EndSeq {
				acc.Followed(e)
			} else {
				acc.Add(e)
			}
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	now := s.now()
	var changed []string
	off := acc.Segment(sess.ID, seg, now)
	_, vs, err := s.c.store.Summary(ctx, j.Item)
	if err != nil {
		return nil, err
	}
	if !hasFresh(vs, off.Source, off.InputHash) {
		v := versionOf(off)
		if err := s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{{Key: j.SummaryKey, InputHash: &off.InputHash, Add: &v}},
			showSummary, now); err != nil {
			return nil, err
		}
		changed = append(changed, j.Item)
	}
	row, _, err := s.c.store.Summary(ctx, j.Item)
	if err != nil {
		return changed, err
	}
	row.Queued, row.Forced = j.Queued, j.Forced
	if !wantsModel(*row, prov) || !j.Forced && row.Shown.Source == summary.SourcePi && row.Shown.InputHash == row.InputHash {
		return changed, s.finish(ctx, j)
	}
	title := ""
	if srow, _, err := s.c.store.Summary(ctx, sessionKey(sess.ID).Item); err == nil {
		title = srow.Shown.Title
	}
	p := acc.SegmentPrompt(summary.PromptContext{Project: sess.Cwd, SessionTitle: title}, sess.ID, seg)
	made, err := s.modelResult(ctx, j, prov, name, p)
	if made {
		changed = append(changed, j.Item)
	}
	return changed, err
}

// projectJob makes a project's summary from its sessions' titles: offline,
// then the model's in a model job.
func (s *summarizer) projectJob(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) ([]string, error) {
	path := j.Subject
	list, err := s.c.store.Sessions(ctx, path)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- { // oldest first
		if list[i].Cwd == path {
			ids = append(ids, list[i].ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("app: summary of %s: no sessions: %w", j.Item, store.ErrNotFound)
	}
	rows, err := s.c.store.SummariesOf(ctx, string(summary.KindSession), ids)
	if err != nil {
		return nil, err
	}
	var sessions []summary.Summary
	for _, id := range ids {
		if r := rows[id]; r != nil && r.Shown.Title != "" {
			sessions = append(sessions, summary.Summary{Kind: summary.KindSession, Title: r.Shown.Title, Text: r.Shown.Text, InputHash: r.InputHash})
		}
	}
	now := s.now()
	off := summary.Project(path, sessions, now)
	var changed []string
	_, vs, err := s.c.store.Summary(ctx, j.Item)
	if err != nil {
		return nil, err
	}
	w := store.SummaryWrite{Key: j.SummaryKey, InputHash: &off.InputHash}
	if !hasFresh(vs, summary.SourceOffline, off.InputHash) {
		v := versionOf(off)
		w.Add = &v
		changed = append(changed, j.Item)
	}
	if err := s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{w}, showSummary, now); err != nil {
		return nil, err
	}
	row, _, err := s.c.store.Summary(ctx, j.Item)
	if err != nil {
		return changed, err
	}
	row.Queued, row.Forced = j.Queued, j.Forced
	if j.Queued != store.QueueModel && s.modelOn() && prov != nil && !summary.IsModel(row.Shown.Source) && row.Human == 0 {
		row.Queued = store.QueueModel // a project is summarised again when its sessions change: ask the model too
	}
	if !wantsModel(*row, prov) {
		return changed, s.finish(ctx, j)
	}
	made, err := s.modelResult(ctx, j, prov, name, summary.ProjectPrompt(path, sessions))
	if made {
		changed = append(changed, j.Item)
	}
	return changed, err
}

// loomTreeJob makes the offline summaries of a loom tree's nodes that lack
// a fresh one, and the tree's own when due: when it has none, on demand, or
// when LoomTreeEvery nodes were added since it was made; with a model, the
// model's too (the nodes' are queued as jobs of their own).
func (s *summarizer) loomTreeJob(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) ([]string, error) {
	treeID := j.Subject
	now := s.now()
	sc, err := s.settings.loadSummaryConfig()
	if err != nil {
		return nil, err
	}
	modelOn := s.modelOn() && prov != nil
	var ws []store.SummaryWrite
	var changed []string
	var prompt *summary.Prompt
	due := false
	err = s.loom.readTree(treeID, func(t *loom.Tree) error {
		nodes := t.Nodes()
		ids := make([]string, len(nodes))
		for i, n := range nodes {
			ids[i] = n.ID
		}
		rows, err := s.c.store.SummariesOf(ctx, string(summary.KindLoomNode), ids)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			in, err := summary.LoomNodeInputsOf(t, n.ID)
			if err != nil {
				return err
			}
			h := summary.LoomNodeHash(in)
			if r := rows[n.ID]; r != nil && r.InputHash == h {
				continue
			}
			off, err := summary.LoomNode(t, n.ID, now)
			if err != nil {
				return err
			}
			v := versionOf(off)
			w := store.SummaryWrite{Key: loomNodeKey(treeID, n.ID), InputHash: &h, Add: &v}
			if modelOn {
				w.Queue = store.QueueModel
			}
			ws = append(ws, w)
			changed = append(changed, w.Key.Item)
		}
		in, err := summary.LoomTreeInputsOf(t, loom.ActivePath{})
		if err != nil {
			return err
		}
		h := summary.LoomTreeHash(in)
		w := store.SummaryWrite{Key: j.SummaryKey, InputHash: &h}
		due = j.Shown.Source == "" || j.Forced || t.Len()-j.Basis >= sc.LoomTreeEvery || j.Queued == store.QueueModel && !summary.IsModel(j.Shown.Source)
		if due {
			off, err := summary.LoomTree(t, loom.ActivePath{}, now)
			if err != nil {
				return err
			}
			v := versionOf(off)
			w.Add = &v
			n := t.Len()
			w.Basis = &n
			changed = append(changed, j.Item)
			if modelOn && (j.Human == 0 || j.Forced) {
				p, err := summary.LoomTreePrompt(t, loom.ActivePath{})
				if err != nil {
					return err
				}
				prompt = &p
			}
		}
		ws = append(ws, w)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.c.store.WriteSummaries(context.WithoutCancel(ctx), ws, showSummary, now); err != nil {
		return nil, err
	}
	if prompt == nil {
		return changed, s.finish(ctx, j)
	}
	j.Queued = store.QueueModel
	made, err := s.modelResult(ctx, j, prov, name, *prompt)
	if made {
		changed = append(changed, j.Item)
	}
	return changed, err
}

// loomNodeJob makes a loom node's offline summary when it lacks a fresh one
// and, in a model job, the model's (the Aspen Grove prompt: the tree title,
// the parent, the grandparent when the node is short).
func (s *summarizer) loomNodeJob(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) ([]string, error) {
	it, err := link.Parse(j.Item)
	if err != nil {
		return nil, err
	}
	treeID, nodeID := it.Within, it.ID
	now := s.now()
	var w *store.SummaryWrite
	var prompt summary.Prompt
	err = s.loom.readTree(treeID, func(t *loom.Tree) error {
		if t.Node(nodeID) == nil {
			return fmt.Errorf("app: summary of %s: %w", j.Item, store.ErrNotFound)
		}
		in, err := summary.LoomNodeInputsOf(t, nodeID)
		if err != nil {
			return err
		}
		h := summary.LoomNodeHash(in)
		if j.InputHash != h || j.Shown.Source == "" {
			off, err := summary.LoomNode(t, nodeID, now)
			if err != nil {
				return err
			}
			v := versionOf(off)
			w = &store.SummaryWrite{Key: j.SummaryKey, InputHash: &h, Add: &v}
		}
		prompt, err = summary.LoomNodePrompt(t, nodeID)
		return err
	})
	if err != nil {
		return nil, err
	}
	var changed []string
	if w != nil {
		if err := s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{*w}, showSummary, now); err != nil {
			return nil, err
		}
		changed = append(changed, j.Item)
		j.InputHash = *w.InputHash
	}
	if !wantsModel(j, prov) {
		return changed, s.finish(ctx, j)
	}
	made, err := s.modelResult(ctx, j, prov, name, prompt)
	if made {
		changed = append(changed, j.Item)
	}
	return changed, err
}

// pushLoom copies the summaries loom items show into their trees (the
// node's and the tree's summary fields: what a loom node prompt reads of
// its parent and what the tree list shows).
func (s *summarizer) pushLoom(items []string) {
	ctx := s.c.context()
	byTree := map[string]map[string]string{}
	trees := map[string]*string{}
	for _, item := range items {
		it, err := link.Parse(item)
		if err != nil || it.Kind != link.KindLoomNode && it.Kind != link.KindLoomTree {
			continue
		}
		row, _, err := s.c.store.Summary(ctx, item)
		if err != nil {
			continue
		}
		text := row.Shown.Text
		if it.Kind == link.KindLoomTree {
			trees[it.ID] = &text
			continue
		}
		if byTree[it.Within] == nil {
			byTree[it.Within] = map[string]string{}
		}
		byTree[it.Within][it.ID] = text
	}
	for id := range trees {
		if byTree[id] == nil {
			byTree[id] = map[string]string{}
		}
	}
	for treeID, nodes := range byTree {
		_ = s.loom.setSummaries(treeID, nodes, trees[treeID])
	}
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
