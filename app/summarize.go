package app

import (
	"context"
	"sort"

	"rhizome/backend/summary"
	"rhizome/store"
)

// SummarizeOptions says what App.Summarize makes (`rhizome summarize`).
type SummarizeOptions struct {
	// Items are item URIs (rhizome:session/<id>, ...): those are made again.
	// None: every item that lacks a summary or shows a stale one.
	Items []string
	// Offline makes offline summaries only, whatever the settings say.
	Offline bool
	// Model makes them with the model (the summary model, or the one given
	// for this run: see App.SetModelOverride), whatever the settings say.
	Model bool
}

// Summarized is one summary App.Summarize returns: the item's summary as
// shown, and whether making it failed in this run (Error: the model's last
// failure; the previous summary was kept).
type Summarized struct {
	SummaryView
	FailedNow bool
}

// Summarize makes the summaries o asks for, in this goroutine (the
// background worker's jobs, until none is due), and returns them: the
// items named, else every item made or made again in this run together with
// every session's, project's and loom tree's summary (the library's titles),
// projects first, then sessions, loom trees, and the rest, each by item.
// Model failures are recorded on the items (see Summaries) and reported as
// FailedNow; an error is the library's, or ctx's end.
func (a *App) Summarize(ctx context.Context, o SummarizeOptions) ([]Summarized, error) {
	w := a.c.summaries
	w.mu.Lock()
	switch {
	case o.Offline:
		off := false
		w.useModel = &off
	case o.Model:
		on := true
		w.useModel = &on
	}
	run := &runLog{made: map[string]bool{}, failed: map[string]bool{}}
	w.log = run
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.log, w.useModel = nil, nil
		w.mu.Unlock()
	}()

	var keys []store.SummaryKey
	for _, it := range o.Items {
		k, _, err := itemKey(it)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	if len(keys) > 0 {
		items := make([]string, len(keys))
		for i, k := range keys {
			items[i] = k.Item
		}
		if err := w.regenerate(ctx, items); err != nil {
			return nil, err
		}
	} else {
		if err := w.regenerate(ctx, nil); err != nil {
			return nil, err
		}
		want := store.QueueOffline
		if w.modelOn() {
			want = store.QueueModel
		}
		if _, err := a.c.store.QueueStaleSummaries(ctx, want, w.now()); err != nil {
			return nil, err
		}
	}
	if err := w.runUntilIdle(ctx); err != nil {
		return nil, err
	}

	run.mu.Lock()
	defer run.mu.Unlock()
	made := run.made
	var list []string
	if len(keys) > 0 {
		for _, k := range keys {
			list = append(list, k.Item)
		}
	} else {
		for it := range made {
			list = append(list, it)
		}
		for _, kind := range []summary.Kind{summary.KindProject, summary.KindSession, summary.KindLoomTree} {
			rows, err := a.c.store.SummariesOf(ctx, string(kind), nil)
			if err != nil {
				return nil, err
			}
			for _, r := range rows {
				if !made[r.Item] && r.Shown.Source != "" {
					list = append(list, r.Item)
				}
			}
		}
	}
	out := make([]Summarized, 0, len(list))
	for _, it := range list {
		row, vs, err := a.c.store.Summary(ctx, it)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Summarized{SummaryView: summaryView(row, vs), FailedNow: run.failed[it]})
	}
	order := map[string]int{string(summary.KindProject): 0, string(summary.KindSession): 1, string(summary.KindLoomTree): 2,
		string(summary.KindSegment): 3, string(summary.KindLoomNode): 4}
	sort.SliceStable(out, func(i, j int) bool {
		if order[out[i].Kind] != order[out[j].Kind] {
			return order[out[i].Kind] < order[out[j].Kind]
		}
		return out[i].Item < out[j].Item
	})
	return out, nil
}
