package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"rhizome/backend/consolidate"
	"rhizome/backend/link"
	"rhizome/store"
)

// Memory is consolidation (issue 10, section 3; backend/consolidate): the
// four cycles run on demand and on a schedule while the app is open, each
// run's log kept and shown, and undone on request.
type Memory struct {
	c *core

	mu       sync.Mutex // one run at a time
	schedule sync.Once
	// now is the clock; tests set it.
	now func() time.Time
}

// ConsolidateSettingKey is the library setting holding consolidate.Settings
// (JSON).
const ConsolidateSettingKey = "consolidate"

// runChanges caps the changes a ConsolidationRun lists.
const runChanges = 500

// scheduleEvery is how often the open app checks which cycles are due.
const scheduleEvery = time.Hour

func (m *Memory) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

// settings returns the consolidation settings (AutoMem's by default).
// Deleting is always off here: consolidation never deletes what was
// imported, it archives it.
func (m *Memory) settings() (consolidate.Settings, error) {
	s := consolidate.DefaultSettings()
	b, err := m.c.store.Setting(m.c.context(), ConsolidateSettingKey)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return s, fmt.Errorf("app: %w", err)
	default:
		if err := json.Unmarshal(b, &s); err != nil {
			return s, fmt.Errorf("app: the consolidation setting in the library: %w", err)
		}
	}
	s.DeleteEnabled = false
	return s, nil
}

// nodeVectors returns the stored vector of each node for the vectors in
// force (none before the embedding queue made them).
func (m *Memory) nodeVectors(ctx context.Context) (map[string][]float32, error) {
	out := map[string][]float32{}
	model := m.c.vectors.current().model
	if model == "" {
		return out, nil
	}
	err := m.c.store.NodeVectors(ctx, model, func(id string, v []float32) error {
		out[id] = v
		return nil
	})
	return out, err
}

// Consolidate runs the cycles asked for (all four when none) over the
// graph now, applies what they change in one transaction and keeps the log;
// with DryRun it only returns the plan. Creative and cluster use the nodes'
// vectors (the hybrid search's: the embedding queue's model). An unknown
// cycle is an error naming it.
func (m *Memory) Consolidate(req ConsolidateRequest) (ConsolidationRun, error) {
	var cycles []consolidate.Cycle
	for _, c := range req.Cycles {
		cy, err := consolidate.ParseCycle(strings.TrimSpace(c))
		if err != nil {
			return ConsolidationRun{}, fmt.Errorf("app: field cycles: %w", err)
		}
		cycles = append(cycles, cy)
	}
	return m.run(cycles, req.DryRun, false)
}

func (m *Memory) run(cycles []consolidate.Cycle, dry, scheduled bool) (ConsolidationRun, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ctx := m.c.context()
	set, err := m.settings()
	if err != nil {
		return ConsolidationRun{}, err
	}
	vecs, err := m.nodeVectors(ctx)
	if err != nil {
		return ConsolidationRun{}, err
	}
	g, err := m.c.store.ConsolidationGraph(ctx, func(id string) []float32 { return vecs[id] })
	if err != nil {
		return ConsolidationRun{}, err
	}
	log, err := consolidate.Run(ctx, g, set, consolidate.Request{Cycles: cycles, Now: m.clock(), DryRun: dry})
	if err != nil {
		return ConsolidationRun{}, fmt.Errorf("app: %w", err)
	}
	if !dry {
		if err := m.c.store.ApplyConsolidation(ctx, log, scheduled); err != nil {
			return ConsolidationRun{}, err
		}
		m.c.emitEvent("memory:run", log.ID)
		m.c.emitEvent("library:changed", nil)
	}
	return m.view(ctx, store.MemoryRun{Log: log, Scheduled: scheduled})
}

// Runs returns the newest runs, newest first (at most limit; 0 means 20).
func (m *Memory) Runs(limit int) ([]ConsolidationRun, error) {
	if limit <= 0 {
		limit = 20
	}
	ctx := m.c.context()
	runs, err := m.c.store.MemoryRuns(ctx, min(limit, 200))
	if err != nil {
		return nil, err
	}
	out := make([]ConsolidationRun, 0, len(runs))
	for _, r := range runs {
		v, err := m.view(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Undo undoes run id: each of its changes reversed, last first, as a new
// run (logged, with UndoOf). It is refused when the run was already undone,
// is itself an undo, or when what it changed has changed since (a later
// run or an edit): undo the later run first.
func (m *Memory) Undo(id string) (ConsolidationRun, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ctx := m.c.context()
	r, err := m.c.store.MemoryRun(ctx, id)
	if err != nil {
		return ConsolidationRun{}, err
	}
	if r.UndoneBy != "" {
		return ConsolidationRun{}, fmt.Errorf("app: run %s was already undone by %s", id, r.UndoneBy)
	}
	if r.Log.UndoOf != "" {
		return ConsolidationRun{}, fmt.Errorf("app: run %s is an undo; it cannot be undone", id)
	}
	u, err := consolidate.Undo(r.Log, m.clock())
	if err != nil {
		return ConsolidationRun{}, fmt.Errorf("app: %w", err)
	}
	g, err := m.c.store.ConsolidationGraph(ctx, nil)
	if err != nil {
		return ConsolidationRun{}, err
	}
	if _, err := g.Apply(u.Changes); err != nil {
		return ConsolidationRun{}, fmt.Errorf("app: run %s cannot be undone, the graph changed since: %w", id, err)
	}
	if err := m.c.store.ApplyConsolidation(ctx, u, false); err != nil {
		return ConsolidationRun{}, err
	}
	m.c.emitEvent("memory:run", u.ID)
	m.c.emitEvent("library:changed", nil)
	return m.view(ctx, store.MemoryRun{Log: u})
}

func (m *Memory) view(ctx context.Context, r store.MemoryRun) (ConsolidationRun, error) {
	l := r.Log
	v := ConsolidationRun{ID: l.ID, At: l.At.UTC().Format(time.RFC3339), DryRun: l.DryRun, Scheduled: r.Scheduled,
		UndoOf: l.UndoOf, UndoneBy: r.UndoneBy, ChangeCount: len(l.Changes), Spared: len(l.Spared),
		Stats: []ConsolidationCycle{}, Changes: []ConsolidationChange{}, Cycles: []string{}}
	for _, c := range l.Cycles {
		v.Cycles = append(v.Cycles, string(c))
	}
	for _, s := range l.Stats {
		v.Stats = append(v.Stats, ConsolidationCycle{Cycle: string(s.Cycle), Examined: s.Examined, Rescored: s.Rescored,
			EdgesAdded: s.EdgesAdded, MetaPatterns: s.MetaPatterns, Extended: s.Extended, PartOf: s.PartOf,
			Archived: s.Archived, Deleted: s.Deleted, Spared: s.Spared})
	}
	var ids []string
	for _, c := range l.Changes[:min(len(l.Changes), runChanges)] {
		cc := ConsolidationChange{Op: string(c.Op), Cycle: string(c.Cycle), Before: c.Before, After: c.After, Reason: c.Reason}
		switch {
		case c.Edge != nil:
			cc.Item, cc.Target = c.Edge.Source.String(), c.Edge.Target.String()
		case c.Node != nil:
			cc.Item, cc.Label = c.Node.ID.String(), c.Node.Label
		default:
			cc.Item = c.Item.String()
		}
		if it, err := link.Parse(cc.Item); err == nil && it.Kind == link.KindNode {
			ids = append(ids, it.ID)
		}
		v.Changes = append(v.Changes, cc)
	}
	labels, err := m.c.store.NodeSummaries(ctx, ids)
	if err != nil {
		return v, err
	}
	for i, cc := range v.Changes {
		if cc.Label == "" {
			if it, err := link.Parse(cc.Item); err == nil && it.Kind == link.KindNode {
				v.Changes[i].Label = clipRunes(labels[it.ID], labelRunes)
			}
		}
	}
	return v, nil
}

// scheduleStartKey is the setting holding when the schedule first ran on
// this library (RFC 3339 as a JSON string).
const scheduleStartKey = "consolidate.scheduleStart"

// scheduleStart returns when the schedule first looked at this library,
// saving now as that time the first time.
func (m *Memory) scheduleStart() (time.Time, error) {
	ctx := m.c.context()
	b, err := m.c.store.Setting(ctx, scheduleStartKey)
	var t time.Time
	if err == nil && json.Unmarshal(b, &t) == nil && !t.IsZero() {
		return t, nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return t, fmt.Errorf("app: %w", err)
	}
	t = m.clock().UTC()
	b, _ = json.Marshal(t)
	if err := m.c.store.PutSetting(ctx, scheduleStartKey, b); err != nil {
		return t, fmt.Errorf("app: %w", err)
	}
	return t, nil
}

// Due lists the cycles whose scheduled run is due now (daily decay, weekly
// creative, monthly cluster, quarterly forget), counted from their last run
// that was not undone. Forget, which archives, counts from when the
// schedule first saw the library when it never ran: a library of old
// sessions is not emptied the first time it is opened, only a quarter
// later (or on demand).
func (m *Memory) Due() ([]string, error) {
	set, err := m.settings()
	if err != nil {
		return nil, err
	}
	last, err := m.c.store.LastCycleRuns(m.c.context())
	if err != nil {
		return nil, err
	}
	if last[consolidate.Forget].IsZero() {
		start, err := m.scheduleStart()
		if err != nil {
			return nil, err
		}
		last[consolidate.Forget] = start
	}
	out := []string{}
	for _, c := range consolidate.Due(last, m.clock(), set) {
		out = append(out, string(c))
	}
	return out, nil
}

// runDue runs the cycles that are due as one scheduled run; it returns
// false when none was due.
func (m *Memory) runDue() (bool, error) {
	due, err := m.Due()
	if err != nil || len(due) == 0 {
		return false, err
	}
	var cycles []consolidate.Cycle
	for _, c := range due {
		cycles = append(cycles, consolidate.Cycle(c))
	}
	_, err = m.run(cycles, false, true)
	return err == nil, err
}

// startSchedule checks the schedule now and every hour while the app's
// context lives.
func (m *Memory) startSchedule() {
	m.schedule.Do(func() {
		go func() {
			ctx := m.c.context()
			// Let the embedding queue make vectors first: creative and
			// cluster need them.
			_ = m.c.vectors.Wait(ctx)
			t := time.NewTicker(scheduleEvery)
			defer t.Stop()
			for {
				if _, err := m.runDue(); err != nil {
					m.c.emitEvent("memory:error", err.Error())
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
	})
}
