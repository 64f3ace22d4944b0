package app

import (
	"errors"
	"fmt"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/summary"
	"rhizome/store"
)

// Summaries says what every session, segment (knowledge-graph node), loom
// tree and node, and project is about (issue 8): the summary an item
// shows, a person's edits (kept as versions, never replaced by a model's),
// and the background queue that makes missing and stale ones.
//
// Summaries are made offline by default: while a file is imported (its
// segments and the session), and by the background worker for the rest (a
// session that grew, loom trees, projects). With a model (Settings: the
// summary model, else the generation model; or a model given for the run),
// the worker then asks the model for each, a few at a time; the offline
// summary shows until the model's arrives, and a model failure leaves it
// in place, records the error on the item and is retried with back-off.
// The worker runs in the window and in `rhizome serve`, and resumes after a
// restart: the queue is in the library. Events: "summary:progress"
// (SummaryQueueStatus) while it works, "summary:updated"
// (SummariesUpdated) when items' summaries changed.
//
// Items are named by their rhizome: URI (backend/link): rhizome:session/<id>,
// rhizome:node/<id>, rhizome:loom/<treeId>, rhizome:loom/<treeId>/<nodeId>,
// rhizome:project/<path>.
type Summaries struct {
	c *core
}

// itemKey reads an item URI into its summary key. Errors: not a URI, or an
// item that has no summary (an entry, a note, a URL, a file).
func itemKey(uri string) (store.SummaryKey, summary.Kind, error) {
	it, err := link.Parse(uri)
	if err != nil {
		return store.SummaryKey{}, "", fmt.Errorf("app: summary of %q: %w", uri, err)
	}
	var k summary.Kind
	switch it.Kind {
	case link.KindSession:
		k = summary.KindSession
	case link.KindNode:
		k = summary.KindSegment
	case link.KindLoomTree:
		k = summary.KindLoomTree
	case link.KindLoomNode:
		k = summary.KindLoomNode
	case link.KindProject:
		k = summary.KindProject
	default:
		return store.SummaryKey{}, "", fmt.Errorf("app: summary of %s: a %s has no summary", uri, it.Kind)
	}
	return store.SummaryKey{Item: it.String(), Kind: string(k), Subject: it.ID}, k, nil
}

// Keys of the items of each kind.
func sessionKey(id string) store.SummaryKey { return store.SessionSummaryKey(id) }

func nodeKey(nodeID string) store.SummaryKey { return store.NodeSummaryKey(nodeID) }

func projectKey(path string) store.SummaryKey { return store.ProjectSummaryKey(path) }

func loomTreeKey(treeID string) store.SummaryKey {
	return store.SummaryKey{Item: link.LoomTree(treeID).String(), Kind: string(summary.KindLoomTree), Subject: treeID}
}

func loomNodeKey(treeID, nodeID string) store.SummaryKey {
	return store.SummaryKey{Item: link.LoomNode(treeID, nodeID).String(), Kind: string(summary.KindLoomNode), Subject: nodeID}
}

// Get returns the summary item shows. An item the library holds that has no
// summary yet (a loom node just written, a session whose import is still
// running) gets an empty one: Source "", no versions. The error wraps
// store.ErrNotFound when the library does not hold item.
func (s *Summaries) Get(item string) (SummaryView, error) {
	key, kind, err := itemKey(item)
	if err != nil {
		return SummaryView{}, err
	}
	ctx := s.c.context()
	row, vs, err := s.c.store.Summary(ctx, key.Item)
	if errors.Is(err, store.ErrNotFound) {
		it, perr := link.Parse(key.Item)
		if perr != nil {
			return SummaryView{}, err
		}
		rec, rerr := s.c.store.ResolveItem(ctx, it)
		if rerr != nil {
			return SummaryView{}, rerr
		}
		if !rec.Exists {
			return SummaryView{}, fmt.Errorf("app: summary of %s: %s is not in the library: %w", key.Item, key.Item, store.ErrNotFound)
		}
		return SummaryView{Item: key.Item, Kind: string(kind), Versions: []SummaryVersionView{}}, nil
	}
	if err != nil {
		return SummaryView{}, err
	}
	return summaryView(row, vs), nil
}

// Edit makes a person's edit of item's title and text the summary it shows,
// from now on, whatever a model makes later: a field left empty keeps the
// generated one (a segment or loom node has no title: give the text). The
// edit is kept as a version; Revert goes back to the generated summary.
// Errors (wrapping summary.ErrInvalid) say what is wrong: both fields
// empty, a title for a kind without one, a field over its limit.
func (s *Summaries) Edit(item, title, text string) (SummaryView, error) {
	key, kind, err := itemKey(item)
	if err != nil {
		return SummaryView{}, err
	}
	ctx := s.c.context()
	current := ""
	if row, _, err := s.c.store.Summary(ctx, key.Item); err == nil {
		current = row.InputHash
	} else if !errors.Is(err, store.ErrNotFound) {
		return SummaryView{}, err
	}
	now := time.Now().UTC()
	e, err := summary.Edit(kind, title, text, current, now)
	if err != nil {
		return SummaryView{}, fmt.Errorf("app: edit of %s: %w", key.Item, err)
	}
	v := versionOf(e)
	in := store.EditAdded
	if err := s.c.store.WriteSummaries(ctx, []store.SummaryWrite{{Key: key, Add: &v, EditInForce: &in}}, showSummary, now); err != nil {
		return SummaryView{}, err
	}
	return s.written(key.Item)
}

// Revert takes back the person's edit in force on item: it shows the
// generated summary again (the edit stays among its versions). An item
// without an edit is left as it is.
func (s *Summaries) Revert(item string) (SummaryView, error) {
	key, _, err := itemKey(item)
	if err != nil {
		return SummaryView{}, err
	}
	if _, _, err := s.c.store.Summary(s.c.context(), key.Item); err != nil {
		return SummaryView{}, err
	}
	none := 0
	if err := s.c.store.WriteSummaries(s.c.context(), []store.SummaryWrite{{Key: key, EditInForce: &none}}, showSummary, time.Now().UTC()); err != nil {
		return SummaryView{}, err
	}
	return s.written(key.Item)
}

// written tells the views item changed and returns its summary.
func (s *Summaries) written(item string) (SummaryView, error) {
	s.c.summaries.updated([]string{item})
	return s.Get(item)
}

// Regenerate queues items for their summaries to be made again (with the
// model when summaries are made with one, else offline), at once; with no
// items, every item that lacks a summary or shows a stale one. A person's
// edit in force still wins over what is made. It returns the queue.
func (s *Summaries) Regenerate(items []string) (SummaryQueueStatus, error) {
	if err := s.c.summaries.regenerate(s.c.context(), items); err != nil {
		return SummaryQueueStatus{}, err
	}
	return s.c.summaries.status(s.c.context())
}

// QueueStatus returns the background queue: what waits, runs, failed.
func (s *Summaries) QueueStatus() (SummaryQueueStatus, error) {
	return s.c.summaries.status(s.c.context())
}

// Cancel empties the queue and stops the summaries being made (a model's
// request is abandoned; nothing is written for it). The items keep the
// summaries they show; Regenerate queues them again.
func (s *Summaries) Cancel() (SummaryQueueStatus, error) {
	if err := s.c.summaries.cancel(s.c.context()); err != nil {
		return SummaryQueueStatus{}, err
	}
	return s.c.summaries.status(s.c.context())
}

// showSummary is the store.ShowFunc of the library: summary.Choose picks the
// generated summary, summary.Shown lays the person's edit over it.
func showSummary(vs []store.SummaryVersion, human int, inputHash string) store.SummaryVersion {
	gen := make([]summary.Summary, 0, len(vs))
	var edit *summary.Summary
	idx := make([]int, 0, len(vs))
	for i, v := range vs {
		s := summaryOf(v)
		if v.Source == summary.SourceHuman {
			if v.Version == human {
				edit = &s
			}
			continue
		}
		gen = append(gen, s)
		idx = append(idx, i)
	}
	var chosen summary.Summary
	out := store.SummaryVersion{}
	if i := summary.Choose(gen, inputHash); i >= 0 {
		chosen = gen[i]
		out.Version = vs[idx[i]].Version
	}
	sh := summary.Shown(chosen, edit)
	out.Title, out.Text, out.Label, out.Source, out.MadeAt = sh.Title, sh.Text, sh.Label, sh.Source, sh.MadeAt
	out.InputHash = chosen.InputHash
	if edit != nil && (edit.Title != "" && edit.Text != "" || out.Version == 0) {
		out.InputHash = edit.InputHash // all the person's: stale when what they saw changed
	}
	return out
}

func summaryOf(v store.SummaryVersion) summary.Summary {
	return summary.Summary{Title: v.Title, Text: v.Text, Label: v.Label, Source: v.Source, InputHash: v.InputHash, MadeAt: v.MadeAt}
}

func versionOf(s summary.Summary) store.SummaryVersion {
	return store.SummaryVersion{Title: s.Title, Text: s.Text, Label: s.Label, Source: s.Source, InputHash: s.InputHash, MadeAt: s.MadeAt}
}

// summaryView maps an item's summary state to its DTO.
func summaryView(row *store.SummaryRow, vs []store.SummaryVersion) SummaryView {
	v := SummaryView{Item: row.Item, Kind: row.Kind, Title: row.Shown.Title, Text: row.Shown.Text, Label: row.Shown.Label,
		Source: row.Shown.Source, MadeAt: isoTime(row.Shown.MadeAt), Stale: row.Stale(), Edited: row.Human != 0,
		Queued: row.Queued, Error: row.Error, Attempts: row.Attempts, Versions: make([]SummaryVersionView, 0, len(vs))}
	if row.Queued != "" && row.NextTry.After(time.Now()) && row.Attempts > 0 {
		v.NextTry = isoTime(row.NextTry)
	}
	for _, x := range vs {
		v.Versions = append(v.Versions, SummaryVersionView{Version: x.Version, Title: x.Title, Text: x.Text, Label: x.Label,
			Source: x.Source, MadeAt: isoTime(x.MadeAt), Stale: row.InputHash != "" && x.InputHash != row.InputHash})
	}
	if row.Human != 0 {
		g := showSummary(vs, 0, row.InputHash)
		if g.Source != "" {
			v.Generated = &SummaryVersionView{Version: g.Version, Title: g.Title, Text: g.Text, Label: g.Label, Source: g.Source,
				MadeAt: isoTime(g.MadeAt), Stale: row.InputHash != "" && g.InputHash != row.InputHash}
		}
	}
	return v
}
