package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"rhizome/backend/llm"
	"rhizome/backend/summary"
	"rhizome/store"
)

// summarizer is the background worker of the summaries queue (see
// Summaries). It takes due items from the queue in the library, a few at a
// time (the concurrency setting), leased so that another Rhizome process on
// the same library does not take them too, and makes their summaries:
// offline ones first, then, when summaries are made with a model, the
// model's. It never holds a write transaction while it reads entries or
// waits for a model, so imports and the UI never wait for it.
type summarizer struct {
	c        *core
	settings *Settings
	loom     *Loom

	mu       sync.Mutex
	running  map[string]context.CancelFunc // jobs under way, by item
	done     int                           // jobs finished since the queue was last empty
	wake     chan struct{}
	started  bool
	useModel *bool   // this run's choice (summarize --offline, a model given); nil: the setting
	log      *runLog // what App.Summarize made and what failed; nil outside it
	lastSent SummaryQueueStatus
	// only, when not nil, is the items a run until idle takes (App.Complete:
	// those of the sessions it imported), the others left to their workers.
	only     []string
	queueing sync.WaitGroup // observe's writes to the queue under way

	// Tunables; tests set them.
	now         func() time.Time
	timeout     time.Duration // one model request
	lease       time.Duration // a job's hold on its item
	idleWait    time.Duration // runUntilIdle waits for a retry due within this (the first back-off), not longer
	maxAttempts int           // model failures before an item leaves the queue (its error kept)
}

// runLog records the items made and failed in one App.Summarize.
type runLog struct {
	mu     sync.Mutex
	made   map[string]bool
	failed map[string]bool
}

// note records items made (or, with failed, an item whose model failed).
func (s *summarizer) note(items []string, failed bool) {
	s.mu.Lock()
	l := s.log
	s.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, it := range items {
		if failed {
			l.failed[it] = true
		} else {
			l.made[it] = true
		}
	}
}

// noteModelMade records that item's model summary was made (a failure
// before it in the same run is then over).
func (s *summarizer) noteModelMade(item string) {
	s.mu.Lock()
	l := s.log
	s.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.failed, item)
	l.mu.Unlock()
}

func newSummarizer(c *core) *summarizer {
	return &summarizer{c: c, running: map[string]context.CancelFunc{}, wake: make(chan struct{}, 1),
		now: func() time.Time { return time.Now().UTC() }, timeout: 90 * time.Second, lease: 30 * time.Second,
		idleWait: 10 * time.Second, maxAttempts: 6}
}

// backoff is the wait after a model's n-th failure in a row: 5 s, 20 s,
// 80 s, ... up to 30 minutes, or what the server asked for when longer.
func backoff(n int, err error) time.Duration {
	d := 5 * time.Second
	for i := 1; i < n && d < 30*time.Minute; i++ {
		d *= 4
	}
	d = min(d, 30*time.Minute)
	var api *llm.APIError
	if errors.As(err, &api) && api.RetryAfter > d {
		d = api.RetryAfter
	}
	return d
}

// poke wakes the worker: the queue or the settings changed.
func (s *summarizer) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// settingsChanged: the model or the concurrency may differ now.
func (s *summarizer) settingsChanged() {
	if s == nil {
		return
	}
	ctx := s.c.context()
	if s.modelOn() {
		_, _ = s.c.store.QueueModelSummaries(ctx, modelKinds, s.maxAttempts, s.now())
	}
	s.poke()
	s.emitProgress(true)
}

// modelKinds are the kinds a model is asked for in bulk; a loom tree's
// summary is made again every few new nodes instead (see loomTreePass).
var modelKinds = []string{string(summary.KindSession), string(summary.KindSegment), string(summary.KindProject),
	string(summary.KindLoomNode)}

// modelOn reports whether summaries are made with a model in this run.
func (s *summarizer) modelOn() bool {
	s.mu.Lock()
	u := s.useModel
	s.mu.Unlock()
	if u != nil {
		return *u
	}
	sc, err := s.settings.loadSummaryConfig()
	return err == nil && sc.UseModel
}

// provider returns the model to make summaries with and its source name
// ("openai/gpt-4o-mini"), or nil when they are made offline.
func (s *summarizer) provider() (llm.Provider, string) {
	p, name, err := s.settings.summaryProvider(s.modelOn())
	if err != nil {
		return nil, ""
	}
	return p, name
}

// concurrency is how many jobs run at once.
func (s *summarizer) concurrency() int {
	sc, err := s.settings.loadSummaryConfig()
	if err != nil {
		return DefaultSummaryConcurrency
	}
	return sc.Concurrency
}

// start runs the worker until ctx ends (the window, `rhizome serve`).
func (s *summarizer) start(ctx context.Context) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.mu.Unlock()
	go s.loop(ctx, false)
}

// runUntilIdle works until nothing is due (or due within idleWait) and
// nothing runs (`rhizome summarize`).
func (s *summarizer) runUntilIdle(ctx context.Context) error {
	return s.loop(ctx, true)
}

func (s *summarizer) loop(ctx context.Context, untilIdle bool) error {
	if err := s.discover(ctx); err != nil && ctx.Err() == nil {
		s.c.emitEvent("summary:error", err.Error())
	}
	for {
		if ctx.Err() != nil {
			s.stopAll()
			return ctx.Err()
		}
		prov, name := s.provider()
		s.mu.Lock()
		free := s.concurrency() - len(s.running)
		s.mu.Unlock()
		if free > 0 {
			s.mu.Lock()
			only := s.only
			s.mu.Unlock()
			jobs, err := s.c.store.ClaimSummariesOf(ctx, free, []string{store.QueueOffline, store.QueueModel}, only, s.now(), s.lease)
			if err != nil && ctx.Err() == nil {
				jobs = nil
			}
			for _, j := range jobs {
				s.launch(ctx, j, prov, name)
			}
		}
		s.emitProgress(false)
		wait := 2 * time.Second
		if st, err := s.queue(ctx); err == nil {
			s.mu.Lock()
			n := len(s.running)
			drained := n == 0 && st.Offline+st.Model == 0 && s.done > 0
			if n == 0 && st.Offline+st.Model == 0 {
				s.done = 0
			}
			s.mu.Unlock()
			if drained {
				s.c.afterDerivation()
			}
			if !st.NextTry.IsZero() {
				if d := st.NextTry.Sub(s.now()); d > 0 && d < wait {
					wait = d + 10*time.Millisecond
				}
			}
			if untilIdle && n == 0 {
				if st.Offline+st.Model == 0 || st.NextTry.Sub(s.now()) > s.idleWait {
					s.emitProgress(true)
					return nil
				}
				if d := st.NextTry.Sub(s.now()); d > 0 {
					wait = d + 10*time.Millisecond
				}
			}
		}
		select {
		case <-s.wake:
		case <-time.After(wait):
		case <-ctx.Done():
		}
	}
}

// afterDerivation hands what the summaries queue wrote to the rest of the
// background work once it is empty: the full-text indexes it wrote into
// are merged and the vectors of the items it made are computed, in an app
// that runs them (StartBackground, DeferRelations), as after an import.
func (c *core) afterDerivation() {
	c.mu.RLock()
	bg, deferRel := c.background, c.deferRel
	c.mu.RUnlock()
	if bg {
		c.vectors.Kick()
	}
	if bg || deferRel {
		c.merger.kick()
	}
}

// queue counts the queue, or only the items of s.only.
func (s *summarizer) queue(ctx context.Context) (store.SummaryQueueStats, error) {
	s.mu.Lock()
	only := s.only
	s.mu.Unlock()
	return s.c.store.SummaryQueueOf(ctx, only, s.now())
}

// holdLease renews the lease on item every third of the lease while its
// job runs (until ctx ends): a process killed mid-job holds it a lease at
// most, so the next run (the window, `rhizome import` again) takes it
// over within seconds, not minutes.
func (s *summarizer) holdLease(ctx context.Context, item string) {
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = s.c.store.RenewSummaryLease(ctx, item, s.now(), s.lease)
		}
	}
}

// stopAll cancels the jobs under way.
func (s *summarizer) stopAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, cancel := range s.running {
		cancel()
	}
}

// launch runs job j in a goroutine of its own.
func (s *summarizer) launch(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) {
	s.mu.Lock()
	if _, ok := s.running[j.Item]; ok {
		s.mu.Unlock()
		return
	}
	jctx, cancel := context.WithCancel(ctx)
	s.running[j.Item] = cancel
	s.mu.Unlock()
	go s.holdLease(jctx, j.Item)
	go func() {
		defer cancel()
		changed, err := s.job(jctx, j, prov, name)
		if jctx.Err() != nil {
			// Stopped (Cancel, or the app closing): what is still queued
			// of it is due again now, not when its lease would end.
			_ = s.c.store.ReleaseSummaryLease(context.WithoutCancel(ctx), j.Item, s.now())
		}
		if err != nil && jctx.Err() == nil {
			// Not a model failure (those are recorded on the item): the
			// library could not be read or written. Try again later.
			f := &store.SummaryFailure{Error: err.Error(), NextTry: s.now().Add(backoff(j.Attempts+1, err))}
			_ = s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{{Key: j.SummaryKey, Failed: f}}, showSummary, s.now())
		}
		s.mu.Lock()
		delete(s.running, j.Item)
		s.done++
		s.mu.Unlock()
		if len(changed) > 0 {
			s.updated(changed)
		}
		s.poke()
	}()
}

// updated tells the views that items' summaries changed, and pushes loom
// summaries into the loom trees.
func (s *summarizer) updated(items []string) {
	s.note(items, false)
	s.pushLoom(items)
	s.c.emitEvent("summary:updated", SummariesUpdated{Items: items})
}

// emitProgress sends "summary:progress" when the queue changed (always
// when force).
func (s *summarizer) emitProgress(force bool) {
	st, err := s.status(s.c.context())
	if err != nil {
		return
	}
	s.mu.Lock()
	same := st == s.lastSent
	s.lastSent = st
	s.mu.Unlock()
	if same && !force {
		return
	}
	s.c.emitEvent("summary:progress", st)
}

// status counts the queue.
func (s *summarizer) status(ctx context.Context) (SummaryQueueStatus, error) {
	now := s.now()
	st, err := s.c.store.SummaryQueue(ctx, now)
	if err != nil {
		return SummaryQueueStatus{}, err
	}
	s.mu.Lock()
	running, done := len(s.running), s.done
	s.mu.Unlock()
	_, name := s.provider()
	queued := st.Offline + st.Model - running
	if queued < 0 {
		queued = 0
	}
	analysing, err := s.c.store.DerivePending(ctx)
	if err != nil {
		return SummaryQueueStatus{}, err
	}
	return SummaryQueueStatus{Queued: queued, Running: running, Done: done, Retrying: st.Retrying, Failed: st.Failed,
		Model: name, Working: running > 0 || queued > st.Retrying, Analysing: analysing}, nil
}

// cancel empties the queue and stops the jobs under way.
func (s *summarizer) cancel(ctx context.Context) error {
	if _, err := s.c.store.DequeueSummaries(ctx); err != nil {
		return err
	}
	s.stopAll()
	s.mu.Lock()
	s.done = 0
	s.mu.Unlock()
	s.emitProgress(true)
	return nil
}

// regenerate queues items again (every missing or stale one for none).
func (s *summarizer) regenerate(ctx context.Context, items []string) error {
	want := store.QueueOffline
	if s.modelOn() {
		want = store.QueueModel
	}
	now := s.now()
	if len(items) == 0 {
		if err := s.discover(ctx); err != nil {
			return err
		}
		if want == store.QueueModel {
			if _, err := s.c.store.QueueModelSummaries(ctx, modelKinds, s.maxAttempts, now); err != nil {
				return err
			}
		}
		s.poke()
		s.emitProgress(true)
		return nil
	}
	ws := make([]store.SummaryWrite, 0, len(items))
	for _, it := range items {
		key, _, err := itemKey(it)
		if err != nil {
			return err
		}
		ws = append(ws, store.SummaryWrite{Key: key, Queue: want, Retry: true})
	}
	if err := s.c.store.WriteSummaries(ctx, ws, showSummary, now); err != nil {
		return err
	}
	s.poke()
	s.emitProgress(true)
	return nil
}

// discover queues, for their offline summaries, the sessions, loom trees
// and projects that have no summary row: a library imported before
// summaries existed, or by a command that does not make them.
func (s *summarizer) discover(ctx context.Context) error {
	now := s.now()
	var ws []store.SummaryWrite
	for _, kind := range []summary.Kind{summary.KindSession, summary.KindLoomTree, summary.KindProject} {
		ids, err := s.c.store.SubjectsWithoutSummary(ctx, string(kind))
		if err != nil {
			return err
		}
		for _, id := range ids {
			var key store.SummaryKey
			switch kind {
			case summary.KindSession:
				key = sessionKey(id)
			case summary.KindLoomTree:
				key = loomTreeKey(id)
			default:
				if id == "" {
					continue // the sessions that name no project have no project's summary
				}
				key = projectKey(id)
			}
			ws = append(ws, store.SummaryWrite{Key: key, Queue: store.QueueOffline})
		}
	}
	if len(ws) == 0 {
		return nil
	}
	return s.c.store.WriteSummaries(ctx, ws, showSummary, now)
}

// job makes the summaries item j is queued for and returns the items whose
// summary changed. A model failure is recorded on the item (not returned);
// an error is the library's.
func (s *summarizer) job(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string) ([]string, error) {
	var changed []string
	var err error
	switch summary.Kind(j.Kind) {
	case summary.KindSession:
		changed, err = s.sessionJob(ctx, j, prov, name)
	case summary.KindSegment:
		changed, err = s.segmentJob(ctx, j, prov, name)
	case summary.KindProject:
		changed, err = s.projectJob(ctx, j, prov, name)
	case summary.KindLoomTree:
		changed, err = s.loomTreeJob(ctx, j, prov, name)
	case summary.KindLoomNode:
		changed, err = s.loomNodeJob(ctx, j, prov, name)
	default:
		err = fmt.Errorf("app: summary of %s: unknown kind %q", j.Item, j.Kind)
	}
	if errors.Is(err, store.ErrNotFound) {
		// The item is gone (a session rewritten without that segment, a
		// tree deleted): nothing to make.
		done := j.QueuedAt
		err = s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{{Key: j.SummaryKey, Done: &done}}, showSummary, s.now())
	}
	return changed, err
}

// modelResult asks prov for the summary prompt p describes and records the
// outcome on item j: a new version (source "model:<name>") and j off the
// queue, or the failure (the previous summary stays) and the next try,
// after back-off; after maxAttempts failures the item leaves the queue, its
// error kept. It returns whether a summary was written.
func (s *summarizer) modelResult(ctx context.Context, j store.SummaryRow, prov llm.Provider, name string, p summary.Prompt) (bool, error) {
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	got, err := prov.Generate(rctx, llm.Request{
		Messages:  []llm.Message{{Role: llm.RoleSystem, Text: p.System}, {Role: llm.RoleUser, Text: p.User}},
		N:         1,
		MaxTokens: p.MaxTokens,
	}, nil)
	if ctx.Err() != nil {
		return false, nil // cancelled: nothing written, the item stays as it is
	}
	var sum summary.Summary
	if err == nil {
		text := ""
		if len(got) > 0 {
			text = got[0].Text
		}
		sum, err = summary.ParseReply(p, text, summary.ModelSource(splitName(name)), s.now())
	}
	done := j.QueuedAt
	w := store.SummaryWrite{Key: j.SummaryKey, Done: &done}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("the model did not answer within %s: %w", s.timeout, err)
		}
		s.note([]string{j.Item}, true)
		w.Failed = &store.SummaryFailure{Error: err.Error(), NextTry: s.now().Add(backoff(j.Attempts+1, err))}
		w.Done = nil // still queued: due again after the back-off
		if j.Attempts+1 >= s.maxAttempts {
			w.Queue = store.Dequeue
		}
		return false, s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{w}, showSummary, s.now())
	}
	v := versionOf(sum)
	w.Add = &v
	s.noteModelMade(j.Item)
	return true, s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{w}, showSummary, s.now())
}

// splitName splits "provider/model" (the model may hold slashes).
func splitName(name string) (string, string) {
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			return name[:i], name[i+1:]
		}
	}
	return name, ""
}

// wantsModel reports whether item j, queued for a model, should be sent to
// prov: a model is on, and the item was asked for on demand, or shows
// neither a fresh model summary nor a person's edit.
func wantsModel(j store.SummaryRow, prov llm.Provider) bool {
	if prov == nil || j.Queued != store.QueueModel {
		return false
	}
	if j.Forced {
		return true
	}
	if j.Human != 0 {
		return false
	}
	return !(summary.IsModel(j.Shown.Source) && j.Shown.InputHash == j.InputHash && j.InputHash != "")
}

// finish takes j off the queue (unless it was queued again meanwhile).
func (s *summarizer) finish(ctx context.Context, j store.SummaryRow) error {
	done := j.QueuedAt
	return s.c.store.WriteSummaries(context.WithoutCancel(ctx), []store.SummaryWrite{{Key: j.SummaryKey, Done: &done}}, showSummary, s.now())
}

// hasFresh reports whether versions hold one of source made from inputs
// hash (an empty hash is never fresh).
func hasFresh(vs []store.SummaryVersion, source, hash string) bool {
	if hash == "" {
		return false
	}
	for _, v := range vs {
		if v.Source == source && v.InputHash == hash {
			return true
		}
	}
	return false
}

// observe reacts to the app's own events: a loom tree changed (its nodes
// and, when due, its summary are to be made), the library changed (an
// import queued summaries). It never waits: the queue is written from a
// goroutine of its own.
func (s *summarizer) observe(event string, data any) {
	if s == nil {
		return
	}
	switch event {
	case "loom:changed":
		ch, ok := data.(LoomChanged)
		if !ok || ch.TreeID == "" {
			return
		}
		s.queueing.Add(1)
		go func() {
			defer s.queueing.Done()
			ctx := s.c.context()
			_ = s.c.store.WriteSummaries(ctx, []store.SummaryWrite{{Key: loomTreeKey(ch.TreeID), Queue: store.QueueOffline}}, showSummary, s.now())
			s.poke()
		}()
	case "library:changed":
		s.poke()
	}
}
