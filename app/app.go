// Package app holds Rhizome's use cases, one file per area. Every exported
// method of an area (Import, Library, Graph, Search, ...) is bound to the
// window by Wails and served as POST /api/<Area>/<Method> by `rhizome serve`
// (serve.go, beside main.go: the transport is not here). Their argument and
// result types (types_<area>.go) are the contract the frontend's types are
// generated from (build/contract). No SQL and no parsing here: the work is
// done by backend/ and store/.
package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"rhizome/backend/search"
	"rhizome/store"
)

// Emitter sends a named event with a JSON-encodable payload to the frontend:
// Wails events in the window, server-sent events in `rhizome serve`.
type Emitter func(event string, data any)

// Dialogs opens native file dialogs; nil in `rhizome serve`, where the
// browser's file input is used instead.
type Dialogs interface {
	// OpenFiles asks the user for session files; it returns no paths and no
	// error when the user cancels.
	OpenFiles(ctx context.Context, title string) ([]string, error)
	// OpenFolder asks the user for a folder.
	OpenFolder(ctx context.Context, title string) (string, error)
}

// FileSaver is implemented by Dialogs that can also ask where to save a file
// (the window); Loom.ExportToFile uses it. SaveFile returns "" and no error
// when the user cancels.
type FileSaver interface {
	SaveFile(ctx context.Context, title, defaultName string) (string, error)
}

// ErrNoDialogs is returned by dialog use cases in `rhizome serve`.
var ErrNoDialogs = errors.New("app: native dialogs are only available in the window")

// ErrNoPaths is returned in `rhizome serve` by the use cases that take paths
// on this machine (Import.ImportPaths, Loom.ImportPaths), before any path is
// looked at: whoever holds the token must not learn which files exist or
// make the server read a device. The browser sends the files' contents
// instead. Its text names no path.
var ErrNoPaths = errors.New("app: importing by path is only available in the window and the command line; in a browser, drop or choose the files")

// ErrInvalid is matched (errors.Is) by the errors of input a use case
// refuses as it is: a MemoBrain patch or conversation that does not read, an
// operation naming a node that is not there. Their text is the reason, as
// it was.
var ErrInvalid = errors.New("app: invalid input")

// invalidError marks err as ErrInvalid without changing its text.
type invalidError struct{ err error }

func (e invalidError) Error() string        { return e.err.Error() }
func (e invalidError) Unwrap() error        { return e.err }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// invalid marks err, when not nil, as refused input (ErrInvalid).
func invalid(err error) error {
	if err == nil {
		return nil
	}
	return invalidError{err}
}

// core is what every area shares.
type core struct {
	store  *store.Store
	dbPath string

	mu      sync.RWMutex
	emit    Emitter
	dialogs Dialogs
	ctx     context.Context
	served  bool             // set by SetServed: the app is served to a browser
	clock   func() time.Time // SetClock: the time searches are relative to; nil is time.Now

	summaries  *summarizer    // the summaries' background worker
	vectors    *vectorQueue   // the background embedding queue (vectors.go)
	relations  *relationQueue // relations across sessions after appends (relations_queue.go)
	merger     *indexMerger   // the full-text indexes merged after imports (index_merge.go)
	deferRel   bool           // appends leave their relations to the queue (StartBackground, DeferRelations)
	background bool           // StartBackground ran: imports kick the queue

	narrower search.NarrowerCache // the hybrid search's WordNet bridges over the library's terms

	bridgeMu   sync.Mutex
	bridges    *search.Graph // the graph bridges walk, as of bridgesVer
	bridgesVer string
}

// isServed reports whether the app is served to a browser (`rhizome serve`),
// where paths on this machine are not taken from the caller.
func (c *core) isServed() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.served
}

func (c *core) emitEvent(event string, data any) {
	c.summaries.observe(event, data)
	c.mu.RLock()
	emit := c.emit
	c.mu.RUnlock()
	if emit != nil {
		emit(event, data)
	}
}

// now is the time searches read "last week" and recency against (SetClock).
func (c *core) now() time.Time {
	c.mu.RLock()
	clock := c.clock
	c.mu.RUnlock()
	if clock == nil {
		return time.Now()
	}
	return clock()
}

func (c *core) context() context.Context {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.ctx == nil {
		return context.Background()
	}
	return c.ctx
}

// App is the set of areas bound to the window and served over HTTP.
type App struct {
	c *core

	Import    *Import
	Library   *Library
	Graph     *Graph
	Search    *Search
	Loom      *Loom
	Reasoning *Reasoning
	Settings  *Settings
	Links     *Links
	Notes     *Notes
	Marks     *Marks
	Knowledge *Knowledge
	Summaries *Summaries
	Analysis  *Analysis
	Watch     *Watch
	Memory    *Memory
	Patterns  *Patterns

	// Agent is what an agent may do through `rhizome mcp` (not bound to the
	// window).
	Agent *Agent
}

// New makes the app over an open library. dbPath is shown in Stats.
func New(st *store.Store, dbPath string) *App {
	c := &core{store: st, dbPath: dbPath}
	c.vectors = newVectorQueue(c)
	c.relations = newRelationQueue(c)
	c.merger = newIndexMerger(c)
	settings := &Settings{c: c}
	kn := &Knowledge{c: c}
	im := &Import{c: c}
	lm := newLoom(c, settings)
	c.summaries = newSummarizer(c)
	c.summaries.settings, c.summaries.loom = settings, lm
	return &App{
		c:         c,
		Import:    im,
		Watch:     &Watch{c: c, im: im},
		Library:   &Library{c: c},
		Graph:     &Graph{c: c},
		Search:    &Search{c: c},
		Loom:      lm,
		Reasoning: newReasoning(c, settings),
		Settings:  settings,
		Links:     &Links{c: c},
		Notes:     &Notes{c: c},
		Marks:     &Marks{c: c},
		Knowledge: kn,
		Agent:     &Agent{c: c, k: kn},
		Summaries: &Summaries{c: c},
		Analysis:  &Analysis{c: c, settings: settings, paused: make(chan struct{}), retryBase: defaultRetryBase, retryMax: defaultRetryMax},
		Memory:    &Memory{c: c},
		Patterns:  &Patterns{c: c},
	}
}

// StartSummaries runs the summaries' background worker until ctx ends (the
// window and `rhizome serve` call it once): it makes the missing and stale
// summaries the queue in the library holds, a few at a time, resuming what
// an earlier run left.
func (a *App) StartSummaries(ctx context.Context) { a.c.summaries.start(ctx) }

// SetEmitter routes events to the frontend.
func (a *App) SetEmitter(e Emitter) { a.c.mu.Lock(); a.c.emit = e; a.c.mu.Unlock() }

// SetDialogs installs native dialogs (window only).
func (a *App) SetDialogs(d Dialogs) { a.c.mu.Lock(); a.c.dialogs = d; a.c.mu.Unlock() }

// SetServed marks the app as served to a browser (`rhizome serve`): from
// then on the use cases that take paths on this machine answer ErrNoPaths
// before looking at them.
func (a *App) SetServed() { a.c.mu.Lock(); a.c.served = true; a.c.mu.Unlock() }

// SetClock sets the time the searches read time expressions ("last
// Tuesday", "2 weeks ago") and recency against: `rhizome eval` asks each
// benchmark question at the date the benchmark gives it. nil is the
// system's clock.
func (a *App) SetClock(now func() time.Time) { a.c.mu.Lock(); a.c.clock = now; a.c.mu.Unlock() }

// SetContext sets the context long-running use cases run under (the Wails
// start-up context in the window).
func (a *App) SetContext(ctx context.Context) { a.c.mu.Lock(); a.c.ctx = ctx; a.c.mu.Unlock() }

// StartBackground starts the background work of an open library: the
// embedding queue (vectors for the hybrid search), the relations queue
// (DeferRelations), the merging of the full-text indexes after imports
// (index_merge.go: first what an import by another process, `rhizome
// import`, left) and, with schedule, the consolidation schedule. The
// window calls it with schedule, `rhizome serve` without (a served library
// is consolidated on demand only).
func (a *App) StartBackground(schedule bool) {
	a.c.mu.Lock()
	a.c.background = true
	a.c.deferRel = true
	a.c.mu.Unlock()
	a.c.vectors.Kick()
	a.c.merger.kick()
	// Relations an earlier run left to its queue and did not derive (the
	// window closed right after an append).
	if pending, err := a.c.store.RelationsPending(a.c.context()); err == nil && len(pending) > 0 {
		projects := make([]string, 0, len(pending))
		for p := range pending {
			projects = append(projects, p)
		}
		a.c.relations.add(projects)
	}
	if schedule {
		a.Memory.startSchedule()
	}
}

// DeferRelations makes imports leave what a running app does after them
// to its background, as StartBackground does, without starting the other
// background work: an append then returns without deriving the relations
// across sessions of its project (relations_queue.go), and no import
// merges the full-text indexes it wrote (index_merge.go). WaitBackground
// waits for both.
func (a *App) DeferRelations() { a.c.mu.Lock(); a.c.deferRel = true; a.c.mu.Unlock() }

// WaitBackground blocks until the relations queue, the merging of the
// full-text indexes and the embedding queue have nothing under way and the
// summaries queue has taken what loom edits handed it, or ctx ends: what
// imports and edits handed them is done. It returns the last error of the
// relations queue or of the merging, if any.
func (a *App) WaitBackground(ctx context.Context) error {
	queued := make(chan struct{})
	go func() { a.c.summaries.queueing.Wait(); close(queued) }()
	select {
	case <-queued:
	case <-ctx.Done():
		return ctx.Err()
	}
	msg, err := a.c.relations.wait(ctx)
	if err != nil {
		return err
	}
	mergeMsg, err := a.c.merger.wait(ctx)
	if err != nil {
		return err
	}
	if err := a.c.vectors.Wait(ctx); err != nil {
		return err
	}
	if msg != "" {
		return errors.New(msg)
	}
	if mergeMsg != "" {
		return errors.New(mergeMsg)
	}
	return nil
}

// Complete derives what imports left after making sessions readable
// (issue 25) and returns when nothing is left for the window to do, or
// ctx ends: the sessions' summaries and offline knowledge (the summaries
// queue, run until idle: `rhizome summarize` runs it so too), then the
// background work of StartBackground without the consolidation schedule
// (the relations, the full-text index merges, the vectors), waited for.
// A process that runs the summaries worker already (the window, serve)
// has no need of it. sessions are the sessions the import changed (header
// ids): their items and their projects' are derived, those another import
// queues meanwhile left to it; none: those earlier imports left pending
// (--no-wait, a kill), and when there are none and no relations are
// pending it returns at once (the background's start, the vectors' index
// and the search index's refresh, alone costs seconds on a large library).
func (a *App) Complete(ctx context.Context, sessions []string) error {
	if len(sessions) == 0 || a.c.store.Alone() {
		// What earlier imports left (--no-wait, a kill): when nothing was
		// imported, or when no other process had the library open (no
		// other import is deriving them).
		ids, err := a.c.store.DerivePendingIDs(ctx)
		if err != nil {
			return err
		}
		rel, err := a.c.store.RelationsPending(ctx)
		if err != nil {
			return err
		}
		if len(sessions) == 0 && len(ids) == 0 && len(rel) == 0 {
			return nil
		}
		seen := map[string]bool{}
		for _, id := range sessions {
			seen[id] = true
		}
		for _, id := range ids {
			if !seen[id] {
				sessions = append(sessions, id)
			}
		}
	}
	// The sessions' own items: another import's, queued meanwhile, are
	// left to it, and so are their projects' summaries (each session that
	// import derives queues its project again). Alone, every item (nil): a
	// killed run's half-finished jobs too.
	var items []string
	if !a.c.store.Alone() {
		items = make([]string, 0, len(sessions))
		for _, id := range sessions {
			items = append(items, sessionKey(id).Item)
		}
	}
	a.c.summaries.mu.Lock()
	a.c.summaries.only = items
	a.c.summaries.mu.Unlock()
	defer func() {
		a.c.summaries.mu.Lock()
		a.c.summaries.only = nil
		a.c.summaries.mu.Unlock()
	}()
	for {
		if err := a.c.summaries.runUntilIdle(ctx); err != nil {
			return err
		}
		// Sessions another worker holds (the window, another import, or
		// a process killed mid-job, whose lease runs out within seconds)
		// are waited for.
		n, err := a.c.store.DerivePendingOf(ctx, sessions)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		now := a.c.summaries.now()
		st, err := a.c.store.SummaryQueueOf(ctx, items, now)
		if err != nil {
			return err
		}
		if st.Offline+st.Model == 0 || st.NextTry.IsZero() {
			break // nothing queued for them: nothing to wait for
		}
		if !a.c.store.Alone() && st.NextTry.After(now) {
			// Held by another process that has the library open (the
			// window, serve, another import), which derives them in its
			// turn: waiting would wait for all it holds before them.
			break
		}
		select {
		case <-time.After(max(st.NextTry.Sub(now), 0) + 50*time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.StartBackground(false)
	return a.WaitBackground(ctx)
}

// Alone reports whether no other process had the library open when this
// App's store opened it (store.Store.Alone).
func (a *App) Alone() bool { return a.c.store.Alone() }

// DerivePending counts the sessions still being analysed: readable, their
// summaries and knowledge not derived yet.
func (a *App) DerivePending(ctx context.Context) (int, error) {
	return a.c.store.DerivePending(ctx)
}

// LoadVectors takes the vectors and index the background queue saved in
// the library, for a process that runs no queue (the command line). A
// library without them is searched without the vector component.
func (a *App) LoadVectors() error { return a.c.vectors.load(a.c.context()) }

// RefreshVectors is LoadVectors again when the library's vectors changed
// since (the window's background queue saved new ones): a long-running
// process without a queue (`rhizome mcp`) calls it before it searches. It
// costs one small query when nothing changed.
func (a *App) RefreshVectors() error { return a.c.vectors.refresh(a.c.context()) }

// Areas returns the bound areas by name, in a stable order: the window binds
// them (window.go), build/contract generates the frontend's types from them,
// and `rhizome serve` serves the same use cases (serve_methods.go).
func (a *App) Areas() []Area {
	return []Area{
		{"Import", a.Import},
		{"Library", a.Library},
		{"Graph", a.Graph},
		{"Search", a.Search},
		{"Loom", a.Loom},
		{"Reasoning", a.Reasoning},
		{"Settings", a.Settings},
		{"Links", a.Links},
		{"Notes", a.Notes},
		{"Marks", a.Marks},
		{"Knowledge", a.Knowledge},
		{"Summaries", a.Summaries},
		{"Analysis", a.Analysis},
		{"Watch", a.Watch},
		{"Memory", a.Memory},
		{"Patterns", a.Patterns},
	}
}

// Area is a named group of use cases.
type Area struct {
	Name string
	Impl any
}
