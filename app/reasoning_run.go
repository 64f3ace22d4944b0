package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/llm"
	"rhizome/backend/loom"
	"rhizome/backend/memobrain"
	"rhizome/backend/session"
	"rhizome/store"
)

// DefaultReasoningBudget is how many nodes a graph made by RunOnSession may
// show to the model (active or flushed) before MemoBrain's flush and fold
// run, when the request names no budget.
const DefaultReasoningBudget = 30

// MaxReasoningBudget bounds a run's budget.
const MaxReasoningBudget = 10_000

// sessionPage is how many entries RunOnSession reads at once.
const sessionPage = 500

// RunOnSession makes the reasoning graph of session req.SessionID with the
// configured model, running MemoBrain's own loop (memobrain.go: init_memory,
// memorize, recall) over the session read as MemoBrain's conversation
// (memobrain.ConversationBuilder): the task from the first request (init),
// then for each turn (the agent's step and what answered it) a memory patch
// asked with MemoBrain's patch prompt and applied with the turn's two
// message indexes as related turn ids, and after a patch, when the graph
// shows more than req.Budget nodes (active or flushed), a flush and fold
// asked with MemoBrain's recall prompt. Each turn links to the session
// entries it was made from (rhizome:entry/<session>/<entry>).
//
// A reply that cannot be used (not a patch, a bad op) is left out and the
// run goes on, as MemoBrain goes on; ReasoningRunResult.Problems lists them
// with the error naming the op. Unlike MemoBrain, whose turn count does not
// advance past a failed patch, a turn's ids are always its messages' real
// indexes, so that the links to entries stay right.
//
// It blocks until the run ends, with "reasoning:progress" events meanwhile;
// the graph is stored at the end, all of it or nothing: a failed run (no
// model configured, the provider's refusal, a session without a request)
// or a cancelled one (CancelRun, the window closing) writes nothing.
func (r *Reasoning) RunOnSession(req ReasoningRunRequest) (ReasoningRunResult, error) {
	id := req.RequestID
	if id == "" {
		id = loom.NewID(time.Now())
	}
	ctx, cancel := context.WithCancel(r.c.context())
	defer cancel()
	r.mu.Lock()
	if _, busy := r.running[id]; busy {
		r.mu.Unlock()
		return ReasoningRunResult{}, fmt.Errorf("reasoning: run %s is already running", id)
	}
	r.running[id] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.running, id)
		r.mu.Unlock()
	}()
	res, err := r.run(ctx, id, req)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return ReasoningRunResult{}, fmt.Errorf("reasoning: run cancelled, nothing written: %w", context.Canceled)
	}
	return res, err
}

// CancelRun stops run requestID; its RunOnSession then fails and writes
// nothing. It reports whether the run was still going.
func (r *Reasoning) CancelRun(requestID string) bool {
	r.mu.Lock()
	cancel, ok := r.running[requestID]
	r.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

func (r *Reasoning) run(ctx context.Context, id string, req ReasoningRunRequest) (ReasoningRunResult, error) {
	budget := req.Budget
	if budget == 0 {
		budget = DefaultReasoningBudget
	}
	if budget < 1 || budget > MaxReasoningBudget {
		return ReasoningRunResult{}, fmt.Errorf("reasoning: budget %d: want 1..%d nodes", budget, MaxReasoningBudget)
	}
	p, cfg, err := r.settings.llmProvider()
	if err != nil {
		return ReasoningRunResult{}, fmt.Errorf("reasoning: %w", err)
	}
	sess, err := r.c.store.SessionByID(ctx, req.SessionID)
	if err != nil {
		return ReasoningRunResult{}, err
	}
	conv, err := r.sessionConversation(ctx, sess)
	if err != nil {
		return ReasoningRunResult{}, err
	}
	g := memobrain.NewGraph()
	if _, err := g.Init(conv.Task); err != nil {
		return ReasoningRunResult{}, fmt.Errorf("reasoning: session %s: %w", sess.ID, err)
	}
	pairs := memobrain.Pairs(conv.Messages, 2)
	res := ReasoningRunResult{RequestID: id, Turns: len(pairs), Problems: []ReasoningRunProblem{}}
	progress := func(turn int, phase string) {
		c := g.Counts()
		r.c.emitEvent("reasoning:progress", ReasoningRunProgress{RequestID: id, SessionID: sess.ID, Turn: turn, Turns: len(pairs),
			Phase: phase, Shown: c.Active + c.Flushed, Problems: len(res.Problems)})
	}
	for k, pair := range pairs {
		turn := k + 1
		progress(turn, "patch")
		reply, err := ask(ctx, p, memobrain.PatchPrompt(g, pair))
		if err != nil {
			return ReasoningRunResult{}, fmt.Errorf("reasoning: turn %d of %d: %w", turn, len(pairs), err)
		}
		patch, err := memobrain.ReadPatch([]byte(reply))
		if err == nil {
			_, err = g.ApplyPatch(patch, []int{2 + 2*k, 3 + 2*k})
		}
		if err != nil {
			res.Problems = append(res.Problems, ReasoningRunProblem{Turn: turn, Phase: "patch", Error: err.Error()})
			continue
		}
		res.Applied++
		if c := g.Counts(); c.Active+c.Flushed <= budget {
			continue
		}
		progress(turn, "recall")
		reply, err = ask(ctx, p, memobrain.RecallPrompt(g))
		if err != nil {
			return ReasoningRunResult{}, fmt.Errorf("reasoning: flush and fold after turn %d of %d: %w", turn, len(pairs), err)
		}
		ops, err := memobrain.ReadFlushAndFold([]byte(reply))
		if err == nil {
			_, err = g.ApplyFlushAndFold(ops)
		}
		if err != nil {
			res.Problems = append(res.Problems, ReasoningRunProblem{Turn: turn, Phase: "recall", Error: err.Error()})
			continue
		}
		res.Recalls++
	}
	progress(len(pairs), "saving")
	rec, err := r.saveRun(ctx, sess, conv, g, cfg)
	if err != nil {
		return ReasoningRunResult{}, err
	}
	res.Graph = graphInfo(listingOf(rec))
	r.changed(rec.ID)
	return res, nil
}

// ask sends prompt to the model and returns its reply's text.
func ask(ctx context.Context, p llm.Provider, prompt memobrain.Prompt) (string, error) {
	got, err := p.Generate(ctx, llm.Request{N: 1, Messages: []llm.Message{
		{Role: llm.RoleSystem, Text: prompt.System}, {Role: llm.RoleUser, Text: prompt.User}}}, nil)
	if err != nil {
		return "", err
	}
	if len(got) == 0 {
		return "", errors.New("the model sent no reply")
	}
	return got[0].Text, nil
}

// sessionConversation reads session sess's entries, page by page, as
// MemoBrain's conversation.
func (r *Reasoning) sessionConversation(ctx context.Context, sess *store.Session) (memobrain.Conversation, error) {
	var hdr session.Header
	if err := json.Unmarshal(sess.Header, &hdr); err != nil {
		return memobrain.Conversation{}, fmt.Errorf("reasoning: session %s: the stored header does not read: %w", sess.ID, err)
	}
	if hdr.ID == "" {
		hdr.ID = sess.ID
	}
	if hdr.Cwd == "" {
		hdr.Cwd = sess.Cwd
	}
	b := memobrain.NewConversationBuilder(hdr)
	for from := 0; ; {
		recs, err := r.c.store.SessionEntries(ctx, sess.ID, from, sessionPage)
		if err != nil {
			return memobrain.Conversation{}, err
		}
		if len(recs) == 0 {
			break
		}
		entries, err := ingest.DecodeRecords(sess.Format, sess.Header, sess.Path, recs)
		if err != nil {
			return memobrain.Conversation{}, fmt.Errorf("reasoning: session %s: %w", sess.ID, err)
		}
		for i, e := range entries {
			e.ID = recs[i].ID // as stored: a version 1 entry's synthetic id
			b.Add(e)
		}
		from = recs[len(recs)-1].Seq + 1
	}
	conv, err := b.Conversation()
	if err != nil {
		return memobrain.Conversation{}, fmt.Errorf("reasoning: session %s: %w", sess.ID, err)
	}
	return conv, nil
}

// saveRun stores the graph a run made, with its history, its conversation
// and its turns' links to the session's entries.
func (r *Reasoning) saveRun(ctx context.Context, sess *store.Session, conv memobrain.Conversation, g *memobrain.Graph, cfg llm.Config) (*store.ReasoningGraph, error) {
	out, err := memobrain.WriteSnapshot(memobrain.NewSnapshot(g))
	if err != nil {
		return nil, err
	}
	steps := g.Log().Steps
	rows, err := stepRows(0, steps)
	if err != nil {
		return nil, err
	}
	var turns []store.ReasoningTurnEntry
	for t, ids := range conv.Entries {
		for _, e := range ids {
			turns = append(turns, store.ReasoningTurnEntry{Turn: t, SessionID: sess.ID, EntryID: e})
		}
	}
	name := sess.Name
	if name == "" {
		name = titleText(conv.Task)
	}
	counts, _ := json.Marshal(g.Counts())
	now := time.Now().UTC()
	rec := &store.ReasoningGraph{ID: loom.NewID(now), Title: titleText("Reasoning of " + strings.TrimSpace(name)), SessionID: sess.ID,
		Model: cfg.Provider + "/" + cfg.Model, Snapshot: out, Messages: messagesList(conv.Messages), Counts: counts, CreatedAt: now}
	if err := r.c.store.CreateReasoningGraph(ctx, rec, rows, turns); err != nil {
		return nil, err
	}
	return rec, nil
}
