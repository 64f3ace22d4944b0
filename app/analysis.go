package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/backend/llm"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/store"
)

// Analysis is the model analyzer's queue (issue 9, section 1): segment
// nodes analysed by the configured model (backend/analyze) into new node
// versions, one at a time, with an estimate before a batch, a budget,
// pause, cancel, and a queue that survives a restart. The offline analyzer
// stays the default: nothing is sent to a model unless the user starts a
// batch.
type Analysis struct {
	c        *core
	settings *Settings

	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
	paused  chan struct{}  // Pause wakes a run waiting out a rate limit
	status  AnalysisStatus // of the current or last run

	// retryBase is the first wait after a rate limit or server error that
	// gives no Retry-After; each one after doubles it up to retryMax.
	retryBase, retryMax time.Duration
}

// Automatic resumption of a background run (goRun) stopped by a rate limit
// or a server error: it waits as the provider asked (Retry-After), else
// retryBase doubling up to retryMax, and goes on; after autoResumes such
// stops in a row with no node analysed in between it stays stopped until
// Resume.
const (
	defaultRetryBase = 30 * time.Second
	defaultRetryMax  = 10 * time.Minute
	autoResumes      = 5
)

// Settings keys of the analyzer.
const (
	settingBudget = "analysis.budgetUSD" // decimal USD; absent or 0: no budget
	settingPaused = "analysis.paused"    // "1" while the user paused the queue
)

// AnalysisStatus is the analyzer queue's state, for the status bar.
type AnalysisStatus struct {
	// State: idle (nothing queued), running (also while a background run
	// waits out a rate limit or server error to go on by itself, Message
	// saying until when), paused (by the user or the budget), stopped
	// (queued work waits: after a restart, an error, or a rate limit that
	// outlasted the automatic resumptions; Resume goes on).
	State  string `json:"state" ts_type:"'idle' | 'running' | 'paused' | 'stopped'"`
	Queued int    `json:"queued"`
	// Done and Failed count this run's nodes; Current is the node being
	// analysed.
	Done    int    `json:"done"`
	Failed  int    `json:"failed"`
	Current string `json:"current,omitempty"`
	Model   string `json:"model"` // "provider/model", "" when none is configured
	// BudgetUSD is the spending limit (0: none); SpentUSD and SpentTokens
	// what every recorded analysis spent.
	BudgetUSD   float64 `json:"budgetUsd"`
	SpentUSD    float64 `json:"spentUsd"`
	SpentTokens int64   `json:"spentTokens"`
	// Message says why the queue paused or stopped (a rate limit and when
	// to try again, the budget, an error).
	Message string `json:"message,omitempty"`
}

// AnalysisEstimate is what a batch is expected to take before it runs.
type AnalysisEstimate struct {
	Model    string                `json:"model"`
	Estimate analyze.BatchEstimate `json:"estimate"`
	// BudgetUSD and SpentUSD: the budget left is their difference.
	BudgetUSD float64 `json:"budgetUsd"`
	SpentUSD  float64 `json:"spentUsd"`
	// OverBudget is true when the estimate passes what is left of it.
	OverBudget bool `json:"overBudget"`
}

// AnalysisRequest starts a batch: Items are node ids, rhizome:node/ URIs,
// session ids or project paths (empty: every node no model has analysed
// yet); Manual makes a new version even of a node that is current.
type AnalysisRequest struct {
	Items  []string `json:"items"`
	Manual bool     `json:"manual"`
}

// NodeAnalysisInfo is one analysis of a node, for its panel: who made it,
// the version it wrote (0: none, it failed), what it spent, why it failed.
type NodeAnalysisInfo struct {
	At              string           `json:"at"`
	Source          string           `json:"source"`
	AnalyzerVersion string           `json:"analyzerVersion"`
	TriggerReason   string           `json:"triggerReason,omitempty"`
	Version         int              `json:"version"`
	Calls           int              `json:"calls"`
	InputTokens     int64            `json:"inputTokens"`
	OutputTokens    int64            `json:"outputTokens"`
	USD             float64          `json:"usd"`
	Failure         *analyze.Failure `json:"failure,omitempty"`
}

// AnalysisReport is what a run of the queue did (the command line prints it).
type AnalysisReport struct {
	Status AnalysisStatus `json:"status"`
	// Estimate is what the queue was expected to take at most when the
	// run began (zero offline).
	Estimate analyze.BatchEstimate `json:"estimate"`
	Nodes    []AnalysisNodeOutcome `json:"nodes"`
	ByResult map[string]int        `json:"byResult"` // nodes by result
	// USD and Tokens are what this run spent.
	USD    float64 `json:"usd"`
	Tokens int64   `json:"tokens"`
}

// AnalysisNodeOutcome is one node of a run: "analysed" (a new version),
// "current" (nothing to do), "failed" (recorded on the node), "deferred"
// (left queued: rate limit, budget, error).
type AnalysisNodeOutcome struct {
	NodeID  string `json:"nodeId"`
	Result  string `json:"result"`
	Version int    `json:"version,omitempty"`
	Trigger string `json:"trigger,omitempty"`
	Edges   int    `json:"edges,omitempty"` // model relations stored
	// Knowledge is what a model's analysis did to the knowledge items the
	// model made from the segment (nil offline and when not analysed).
	Knowledge *AnalysisKnowledge `json:"knowledge,omitempty"`
	USD       float64            `json:"usd"`
	Tokens    int64              `json:"tokens"`
	Failure   *analyze.Failure   `json:"failure,omitempty"`
	Error     string             `json:"error,omitempty"`
}

// analysisRun configures one run of the queue.
type analysisRun struct {
	client   llm.Provider // nil with offline
	provider string
	model    string
	baseURL  string
	offline  bool
	budget   float64 // USD, 0: none
	progress func(AnalysisNodeOutcome)
}

// modelName is "provider/model" of a configuration.
func modelName(provider, model string) string {
	if model == "" {
		return ""
	}
	return provider + "/" + model
}

// budgetSetting reads the stored budget (USD, 0: none).
func (a *Analysis) budgetSetting(ctx context.Context) (float64, error) {
	b, err := a.c.store.Setting(ctx, settingBudget)
	if errors.Is(err, store.ErrNotFound) || err == nil && len(b) == 0 {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, fmt.Errorf("app: the stored analysis budget %q is not a number: %w", b, err)
	}
	return v, nil
}

func (a *Analysis) pausedSetting(ctx context.Context) bool {
	b, _ := a.c.store.Setting(ctx, settingPaused)
	return string(b) == "1"
}

// Status says what the queue is doing.
func (a *Analysis) Status() (AnalysisStatus, error) {
	ctx := a.c.context()
	a.mu.Lock()
	st := a.status
	running := a.running
	a.mu.Unlock()
	q, err := a.c.store.AnalysisQueue(ctx)
	if err != nil {
		return st, err
	}
	st.Queued = len(q)
	if st.BudgetUSD, err = a.budgetSetting(ctx); err != nil {
		return st, err
	}
	if st.SpentUSD, st.SpentTokens, err = a.c.store.AnalysisSpent(ctx); err != nil {
		return st, err
	}
	if _, cfg, err := a.settings.llmProvider(); err == nil {
		st.Model = modelName(cfg.Provider, cfg.Model)
	}
	if !running {
		st.Current = ""
	}
	switch {
	case running:
		st.State = "running"
	case len(q) == 0:
		st.State, st.Current = "idle", ""
	case a.pausedSetting(ctx):
		st.State = "paused"
	default:
		st.State = "stopped"
		if st.Message == "" && len(q) > 0 && q[0].LastError != "" {
			st.Message = q[0].LastError
		}
	}
	return st, nil
}

// SetBudget sets the analyzer's spending limit in USD (0: none): every
// analysis recorded counts against it, across runs and restarts.
func (a *Analysis) SetBudget(usd float64) (AnalysisStatus, error) {
	if usd < 0 || usd != usd || usd > 1e6 {
		return AnalysisStatus{}, fmt.Errorf("app: a budget of %v USD: want 0 (none) to 1000000", usd)
	}
	if err := a.c.store.PutSetting(a.c.context(), settingBudget, []byte(strconv.FormatFloat(usd, 'f', -1, 64))); err != nil {
		return AnalysisStatus{}, err
	}
	return a.Status()
}

// resolveItems turns items into node ids (see AnalysisRequest).
func (a *Analysis) resolveItems(ctx context.Context, items []string, model string) ([]string, error) {
	if len(items) == 0 {
		nodes, err := a.c.store.Nodes(ctx, store.NodeFilter{})
		if err != nil {
			return nil, err
		}
		var out []string
		for _, n := range nodes {
			src, err := a.c.store.LastModelSource(ctx, n.ID)
			if err != nil {
				return nil, err
			}
			if model == "" || src != model {
				out = append(out, n.ID)
			}
		}
		return out, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		it = strings.TrimSpace(it)
		id := it
		if strings.HasPrefix(it, "rhizome:") {
			item, err := link.Parse(it)
			if err != nil {
				return nil, fmt.Errorf("app: item %q: %w", it, err)
			}
			switch item.Kind {
			case link.KindNode:
				id = item.ID
			case link.KindSession, link.KindProject:
				id = item.ID
			default:
				return nil, fmt.Errorf("app: item %q: only nodes, sessions and projects are analysed", it)
			}
		}
		ids := []string{id}
		if _, err := a.c.store.Node(ctx, id); err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			ids, err = a.c.store.NodeIDsOf(ctx, id)
			if err != nil {
				return nil, err
			}
			if len(ids) == 0 {
				return nil, fmt.Errorf("app: item %q is no node, session or project of the library", it)
			}
		}
		for _, x := range ids {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out, nil
}

// Estimate says what analysing items with the configured model would take
// at most (tokens and USD from the model's price), and how it stands
// against the budget. Nothing is sent.
func (a *Analysis) Estimate(items []string) (AnalysisEstimate, error) {
	ctx := a.c.context()
	_, cfg, err := a.settings.llmProvider()
	if err != nil {
		return AnalysisEstimate{}, err
	}
	return a.estimate(ctx, items, cfg.Provider, cfg.Model, cfg.BaseURL)
}

func (a *Analysis) estimate(ctx context.Context, items []string, provider, model, baseURL string) (AnalysisEstimate, error) {
	ids, err := a.resolveItems(ctx, items, analyze.ModelSource(provider, model))
	if err != nil {
		return AnalysisEstimate{}, err
	}
	return a.estimateIDs(ctx, ids, provider, model, baseURL)
}

func (a *Analysis) estimateIDs(ctx context.Context, ids []string, provider, model, baseURL string) (AnalysisEstimate, error) {
	tokens := make([]int, 0, len(ids))
	for _, id := range ids {
		_, _, entries, err := a.segmentEntries(ctx, id)
		if err != nil {
			return AnalysisEstimate{}, err
		}
		tokens = append(tokens, analyze.TranscriptTokens(entries))
	}
	price, known := analyze.DefaultPrices.Lookup(provider, model, baseURL)
	est := AnalysisEstimate{Model: modelName(provider, model), Estimate: analyze.Estimate(tokens, price, known)}
	var err error
	if est.BudgetUSD, err = a.budgetSetting(ctx); err != nil {
		return est, err
	}
	if est.SpentUSD, _, err = a.c.store.AnalysisSpent(ctx); err != nil {
		return est, err
	}
	est.OverBudget = est.BudgetUSD > 0 && est.SpentUSD+est.Estimate.USD > est.BudgetUSD
	return est, nil
}

// segmentEntries loads node id's session, segment and decoded entries.
func (a *Analysis) segmentEntries(ctx context.Context, id string) (*store.Session, *store.SegmentRecord, []session.Entry, error) {
	sess, seg, raws, err := a.c.store.SegmentOf(ctx, id)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(raws) == 0 {
		return sess, seg, nil, nil
	}
	ptrs, err := ingest.DecodeStored(sess.Format, sess.Header, sess.Path, seg.StartSeq, raws)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("app: session %s: %w", sess.ID, err)
	}
	entries := make([]session.Entry, len(ptrs))
	for i, p := range ptrs {
		entries[i] = *p
	}
	return sess, seg, entries, nil
}

// Start queues items (see AnalysisRequest) and analyses the queue in the
// background with the configured model; "analysis:progress" events carry
// the status after each node. It answers at once.
func (a *Analysis) Start(req AnalysisRequest) (AnalysisStatus, error) {
	ctx := a.c.context()
	client, cfg, err := a.settings.llmProvider()
	if err != nil {
		return AnalysisStatus{}, err
	}
	ids, err := a.resolveItems(ctx, req.Items, analyze.ModelSource(cfg.Provider, cfg.Model))
	if err != nil {
		return AnalysisStatus{}, err
	}
	if _, err := a.c.store.EnqueueAnalyses(ctx, ids, req.Manual); err != nil {
		return AnalysisStatus{}, err
	}
	if err := a.c.store.PutSetting(ctx, settingPaused, []byte("0")); err != nil {
		return AnalysisStatus{}, err
	}
	a.goRun(client, cfg)
	return a.Status()
}

// Resume goes on with the queue (after a pause, a restart, a rate limit).
func (a *Analysis) Resume() (AnalysisStatus, error) {
	client, cfg, err := a.settings.llmProvider()
	if err != nil {
		return AnalysisStatus{}, err
	}
	if err := a.c.store.PutSetting(a.c.context(), settingPaused, []byte("0")); err != nil {
		return AnalysisStatus{}, err
	}
	a.goRun(client, cfg)
	return a.Status()
}

// Pause stops the queue after the node being analysed; the rest stays
// queued, across restarts, until Resume.
func (a *Analysis) Pause() (AnalysisStatus, error) {
	if err := a.c.store.PutSetting(a.c.context(), settingPaused, []byte("1")); err != nil {
		return AnalysisStatus{}, err
	}
	a.mu.Lock()
	a.status.Message = "paused"
	a.mu.Unlock()
	select {
	case a.paused <- struct{}{}: // a run waiting out a rate limit stops now
	default:
	}
	return a.Status()
}

// Cancel stops the analysis under way (its spending so far is recorded)
// and empties the queue.
func (a *Analysis) Cancel() (AnalysisStatus, error) {
	a.mu.Lock()
	if a.cancel != nil {
		a.cancel()
	}
	a.status.Message = "cancelled"
	a.mu.Unlock()
	if _, err := a.c.store.ClearAnalysisQueue(a.c.context()); err != nil {
		return AnalysisStatus{}, err
	}
	return a.Status()
}

// goRun runs the queue in the background unless it runs already.
func (a *Analysis) goRun(client llm.Provider, cfg llm.Config) {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(a.c.context())
	a.running, a.cancel = true, cancel
	a.status = AnalysisStatus{}
	a.mu.Unlock()
	go func() {
		defer cancel()
		var err error
		for stops := 0; ; {
			budget, _ := a.budgetSetting(ctx)
			var rep AnalysisReport
			rep, err = a.runQueue(ctx, analysisRun{client: client, provider: cfg.Provider, model: cfg.Model, baseURL: cfg.BaseURL, budget: budget})
			if rep.ByResult["analysed"] > 0 {
				stops = 0
			}
			wait, ok := analyze.RetryAfter(err)
			if !ok || errors.Is(err, analyze.ErrBudgetExceeded) || ctx.Err() != nil || stops >= autoResumes {
				break
			}
			if wait <= 0 {
				wait = min(a.retryBase<<stops, a.retryMax)
			}
			stops++
			if !a.waitToResume(ctx, err, wait) {
				break
			}
		}
		a.mu.Lock()
		a.running, a.cancel = false, nil
		if err != nil && a.status.Message == "" {
			a.status.Message = err.Error()
		}
		a.mu.Unlock()
		st, _ := a.Status()
		a.c.emitEvent("analysis:progress", st)
		a.c.emitEvent("library:changed", nil)
	}()
}

// waitToResume waits d after err stopped a background run, saying so in the
// status, and tells whether to go on: not when the run was cancelled or the
// queue paused meanwhile.
func (a *Analysis) waitToResume(ctx context.Context, err error, d time.Duration) bool {
	a.mu.Lock()
	a.status.Message = fmt.Sprintf("%v: going on by itself at %s", err, time.Now().Add(d).Format("15:04:05"))
	a.status.Current = "" // nothing is being analysed meanwhile
	a.mu.Unlock()
	st, _ := a.Status()
	a.c.emitEvent("analysis:progress", st)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return false
	case <-a.paused:
	}
	if a.pausedSetting(ctx) {
		a.setMessage("paused")
		return false
	}
	a.setMessage("")
	return true
}

// errStop ends a run without an error: the queue was paused.
var errStop = errors.New("paused")

// runQueue analyses the queued nodes in order until the queue is empty,
// paused, or a node cannot be analysed now (a rate limit, the budget, a
// server error: it stays queued with the reason and the run stops).
func (a *Analysis) runQueue(ctx context.Context, r analysisRun) (AnalysisReport, error) {
	rep := AnalysisReport{Nodes: []AnalysisNodeOutcome{}, ByResult: map[string]int{}}
	spent, _, err := a.c.store.AnalysisSpent(ctx)
	if err != nil {
		return rep, err
	}
	var budget *analyze.Budget
	if !r.offline {
		budget = analyze.NewBudget(r.budget, spent)
	}
	q, err := a.c.store.AnalysisQueue(ctx)
	if err != nil {
		return rep, err
	}
	if !r.offline && len(q) > 0 {
		ids := make([]string, len(q))
		for i, x := range q {
			ids[i] = x.NodeID
		}
		if est, err := a.estimateIDs(ctx, ids, r.provider, r.model, r.baseURL); err == nil {
			rep.Estimate = est.Estimate
		}
	}
	for _, item := range q {
		if ctx.Err() != nil {
			break
		}
		if a.pausedSetting(ctx) {
			a.setMessage("paused")
			break
		}
		a.mu.Lock()
		a.status.Current = item.NodeID
		a.mu.Unlock()
		out, err := a.analyseOne(ctx, item, r, budget)
		rep.Nodes = append(rep.Nodes, out)
		rep.ByResult[out.Result]++
		a.mu.Lock()
		switch out.Result {
		case "analysed", "current":
			a.status.Done++
		case "failed":
			a.status.Failed++
		}
		a.mu.Unlock()
		if r.progress != nil {
			r.progress(out)
		}
		st, _ := a.Status()
		a.c.emitEvent("analysis:progress", st)
		if err != nil {
			msg := err.Error()
			if wait, ok := analyze.RetryAfter(err); ok && wait > 0 {
				msg += fmt.Sprintf(" (try again in %s)", (wait + time.Second - 1).Truncate(time.Second))
			}
			_ = a.c.store.SetQueueError(context.WithoutCancel(ctx), item.NodeID, msg)
			a.setMessage(msg)
			if errors.Is(err, analyze.ErrBudgetExceeded) {
				_ = a.c.store.PutSetting(context.WithoutCancel(ctx), settingPaused, []byte("1"))
			}
			rep.Status, _ = a.Status()
			return rep, err
		}
	}
	rep.Status, _ = a.Status()
	return rep, ctx.Err()
}

func (a *Analysis) setMessage(m string) {
	a.mu.Lock()
	a.status.Message = m
	a.mu.Unlock()
}

// analyseOne analyses one queued node and records the outcome (a new
// version with the model's relations, or the failure, with the spending),
// taking it off the queue; an error leaves it queued.
func (a *Analysis) analyseOne(ctx context.Context, item store.QueuedAnalysis, r analysisRun, budget *analyze.Budget) (AnalysisNodeOutcome, error) {
	out := AnalysisNodeOutcome{NodeID: item.NodeID}
	rec, err := a.c.store.Node(ctx, item.NodeID)
	if err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	sess, seg, entries, err := a.segmentEntries(ctx, item.NodeID)
	if err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	var hdr session.Header
	if err := json.Unmarshal(sess.Header, &hdr); err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, fmt.Errorf("app: session %s: header: %w", sess.ID, err)
	}
	segs, err := a.c.store.Segments(ctx, sess.ID)
	if err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	plain := make([]segment.Segment, len(segs))
	for i, s := range segs {
		plain[i] = s.Segment
	}
	in := analyze.Input{Header: hdr, SessionFile: sess.Path, Computer: rec.Node.Source.Computer, Segment: seg.Segment,
		IsNewProject: sess.IsNewProject, Abandoned: analyze.LeftByNavigation(plain, seg.Index)}
	lastSource, err := a.c.store.LastModelSource(ctx, item.NodeID)
	if err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	prev := &analyze.AnalysisState{AnalyzerVersion: rec.Node.Metadata.AnalyzerVersion, Source: lastSource,
		EntryCount: rec.Node.Source.Segment.EntryCount, EndEntryID: rec.Node.Source.Segment.EndEntryID}
	now := time.Now().UTC()

	if r.offline {
		if lastSource != analyze.SourceOffline && !item.Manual {
			// A model's analysis is not replaced by the offline rules
			// unless the user asks (--again).
			out.Result = "current"
			return out, a.dequeue(ctx, item.NodeID)
		}
		node := analyze.Analyze(in, entries, now)
		state := analyze.AnalysisState{AnalyzerVersion: node.Metadata.AnalyzerVersion, Source: analyze.SourceOffline,
			EntryCount: node.Source.Segment.EntryCount, EndEntryID: node.Source.Segment.EndEntryID}
		trigger, ok := analyze.DecideTrigger(prev, state, item.Manual)
		if !ok {
			out.Result = "current"
			return out, a.dequeue(ctx, item.NodeID)
		}
		return a.writeVersion(ctx, out, sess.PK, sess.ID, seg.Index, &node, string(trigger), analyze.Result{Source: analyze.SourceOffline})
	}

	res, err := analyze.AnalyzeSegment(ctx, r.client, analyze.SegmentInput{Input: in, Entries: entries},
		analyze.Options{Provider: r.provider, Model: r.model, BaseURL: r.baseURL, Budget: budget,
			Candidates: a.candidates(ctx, item.NodeID, rec.Node.Classification.Project), Previous: prev, Manual: item.Manual,
			Now: func() time.Time { return time.Now().UTC() }})
	out.USD, out.Tokens = res.Usage.USD, res.Usage.InputTokens+res.Usage.OutputTokens
	if err != nil {
		out.Result, out.Error = "deferred", err.Error()
		if res.Usage.Calls > 0 && (out.Tokens > 0 || out.USD > 0) {
			_ = a.record(context.WithoutCancel(ctx), item.NodeID, res, 0, "", nil)
		}
		return out, err
	}
	if res.Failure != nil {
		out.Result, out.Failure = "failed", res.Failure
		if err := a.record(ctx, item.NodeID, res, 0, "", res.Failure); err != nil {
			return out, err
		}
		return out, nil
	}
	return a.writeVersion(ctx, out, sess.PK, sess.ID, seg.Index, &res.Node, string(res.Trigger), res)
}

// writeVersion stores node as the node's new version with the model's
// relations, the knowledge items of its findings (putModelKnowledge) and
// the analysis record, and takes it off the queue, in one transaction.
func (a *Analysis) writeVersion(ctx context.Context, out AnalysisNodeOutcome, sessionPK int64, sessionID string, segIdx int, node *graph.Node, trigger string, res analyze.Result) (AnalysisNodeOutcome, error) {
	tx, err := a.c.store.Begin(ctx)
	if err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	defer tx.Rollback()
	if err := tx.PutNode(sessionPK, segIdx, node, trigger); err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	if !strings.HasPrefix(res.Source, "offline") {
		var edges []graph.Edge
		for _, p := range res.Relationships {
			if p.TargetNodeID == "" || p.Relation == "" {
				continue
			}
			edges = append(edges, graph.Edge{TargetNodeID: p.TargetNodeID, Type: string(p.Relation),
				Metadata: map[string]any{}, Confidence: min(max(p.Confidence, 0), 1), Rationale: p.Rationale})
		}
		skipped, err := tx.PutModelEdges(node.ID, edges)
		if err != nil {
			out.Result, out.Error = "deferred", err.Error()
			return out, err
		}
		out.Edges = len(edges) - skipped
		k, err := putModelKnowledge(tx, res.Findings, node, sessionID, strings.TrimPrefix(res.Source, "model:"), time.Now())
		if err != nil {
			out.Result, out.Error = "deferred", err.Error()
			return out, err
		}
		out.Knowledge = &k
	}
	r := store.AnalysisRecord{NodeID: node.ID, At: node.Metadata.AnalyzedAt, Source: res.Source,
		AnalyzerVersion: node.Metadata.AnalyzerVersion, TriggerReason: trigger, Version: node.Version,
		Calls: res.Usage.Calls, InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens,
		USD: res.Usage.USD, PriceKnown: res.Usage.PriceKnown}
	if err := tx.AddAnalysis(r); err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	if err := tx.Dequeue(node.ID); err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	if err := tx.Commit(); err != nil {
		out.Result, out.Error = "deferred", err.Error()
		return out, err
	}
	out.Result, out.Version, out.Trigger = "analysed", node.Version, trigger
	return out, nil
}

// record stores an analysis that wrote no version: a failure (taken off
// the queue) or the spending of an attempt that could not finish (fail nil:
// it stays queued).
func (a *Analysis) record(ctx context.Context, id string, res analyze.Result, version int, trigger string, fail *analyze.Failure) error {
	tx, err := a.c.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	r := store.AnalysisRecord{NodeID: id, At: time.Now().UTC().Format(time.RFC3339Nano), Source: res.Source,
		AnalyzerVersion: analyze.ModelVersion(), TriggerReason: trigger, Version: version, Calls: res.Usage.Calls,
		InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens, USD: res.Usage.USD, PriceKnown: res.Usage.PriceKnown}
	if fail != nil {
		b, err := json.Marshal(fail)
		if err != nil {
			return err
		}
		r.Failure = string(b)
		r.At = fail.At
		if err := tx.Dequeue(id); err != nil {
			return err
		}
	}
	if err := tx.AddAnalysis(r); err != nil {
		return err
	}
	return tx.Commit()
}

func (a *Analysis) dequeue(ctx context.Context, id string) error {
	tx, err := a.c.store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.Dequeue(id); err != nil {
		return err
	}
	return tx.Commit()
}

// maxCandidates bounds the nodes the model may relate a segment to.
const maxCandidates = 20

// candidates are the nodes the model may relate node id to: those the
// offline relations already connect it to, then the project's other
// sessions' nodes, latest first, at most maxCandidates.
func (a *Analysis) candidates(ctx context.Context, id, project string) []analyze.Candidate {
	var out []analyze.Candidate
	seen := map[string]bool{id: true}
	add := func(n store.NodeSummary) {
		if seen[n.ID] || len(out) >= maxCandidates {
			return
		}
		seen[n.ID] = true
		out = append(out, analyze.Candidate{NodeID: n.ID, Summary: clipRunes(n.Summary, 300), Type: graph.NodeType(n.Type),
			Outcome: graph.Outcome(n.Outcome), Project: n.Project, Timestamp: n.Timestamp})
	}
	nodes, err := a.c.store.Nodes(ctx, store.NodeFilter{Project: project})
	if err != nil {
		return nil
	}
	byID := make(map[string]store.NodeSummary, len(nodes))
	for _, n := range nodes {
		byID[n.ID] = n
	}
	in, outE, err := a.c.store.NodeEdges(ctx, id)
	if err == nil {
		for _, e := range append(in, outE...) {
			other := e.SourceNodeID
			if other == id {
				other = e.TargetNodeID
			}
			if n, ok := byID[other]; ok {
				add(n)
			}
		}
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		add(nodes[i])
	}
	return out
}

// RunAnalysis runs the analyzer queue in the caller's goroutine until it is
// empty or stops (the command line's `rhizome analyze`): items are queued
// first (none: every node the model has not analysed; with offline, every
// node), then analysed with client (the model provider/model at baseURL)
// or, offline, with the offline analyzer again (a new version only where
// its rules changed). budget (USD, 0: none) is also stored as the
// setting. progress, when set, is called after each node. A rate limit, the
// budget or a server error stops the run with that error; the remaining
// nodes stay queued for the next run.
func RunAnalysis(ctx context.Context, a *App, items []string, manual, offline bool, client llm.Provider, provider, model, baseURL string, budget float64, progress func(AnalysisNodeOutcome)) (AnalysisReport, error) {
	an := a.Analysis
	source := analyze.ModelSource(provider, model)
	if offline {
		source = ""
	}
	ids, err := an.resolveItems(ctx, items, source)
	if err != nil {
		return AnalysisReport{}, err
	}
	if _, err := a.c.store.EnqueueAnalyses(ctx, ids, manual); err != nil {
		return AnalysisReport{}, err
	}
	if budget > 0 {
		if _, err := an.SetBudget(budget); err != nil {
			return AnalysisReport{}, err
		}
	} else if budget, err = an.budgetSetting(ctx); err != nil {
		return AnalysisReport{}, err
	}
	if err := a.c.store.PutSetting(ctx, settingPaused, []byte("0")); err != nil {
		return AnalysisReport{}, err
	}
	an.mu.Lock()
	if an.running {
		an.mu.Unlock()
		return AnalysisReport{}, errors.New("app: the analyzer is running already")
	}
	an.running = true
	an.status = AnalysisStatus{}
	an.mu.Unlock()
	defer func() {
		an.mu.Lock()
		an.running = false
		an.mu.Unlock()
	}()
	rep, err := an.runQueue(ctx, analysisRun{client: client, provider: provider, model: model, baseURL: baseURL,
		offline: offline, budget: budget, progress: progress})
	for _, n := range rep.Nodes {
		rep.USD += n.USD
		rep.Tokens += n.Tokens
	}
	an.mu.Lock()
	an.running = false
	an.mu.Unlock()
	rep.Status, _ = an.Status()
	if !offline {
		rep.Status.Model = modelName(provider, model)
	}
	return rep, err
}

// AnalysisModel is the model the command line analyses with: the
// configured one, or, when model is given, that model of provider at
// baseURL (the configured API key is used when the provider is the
// configured one, else apiKey). It is not a bound use case.
func AnalysisModel(a *App, provider, baseURL, model, apiKey string) (llm.Provider, llm.Config, error) {
	if model == "" {
		return a.Settings.llmProvider()
	}
	stored, err := a.Settings.loadLLM()
	if err != nil {
		return nil, llm.Config{}, err
	}
	cfg := llm.Config{Provider: provider, BaseURL: baseURL, Model: model}
	switch {
	case apiKey != "":
		cfg.APIKey = llm.NewSecret(apiKey)
	case stored.Provider == provider && stored.APIKey.IsSet():
		cfg.APIKey = stored.APIKey
	}
	client, err := llm.New(cfg)
	if err != nil {
		return nil, llm.Config{}, fmt.Errorf("app: the model %s/%s at %s: %w", provider, model, baseURL, err)
	}
	return client, cfg, nil
}

// EstimateAnalysis is Analysis.Estimate for the command line's model.
func EstimateAnalysis(ctx context.Context, a *App, items []string, offline bool, cfg llm.Config) (AnalysisEstimate, error) {
	if offline {
		return AnalysisEstimate{}, nil
	}
	return a.Analysis.estimate(ctx, items, cfg.Provider, cfg.Model, cfg.BaseURL)
}
