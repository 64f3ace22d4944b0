package app

import (
	"fmt"
	"strings"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/knowledge"
	"rhizome/store"
)

// Knowledge is the knowledge nodes (issue 9, section 2): decisions,
// corrections, exceptions, failed approaches, insights, questions, project
// facts and lessons, found offline at import, proposed by a model, recorded
// by hand or by an agent; their versions, the supersessions stated between
// them, a project's rules and its open questions. See
// ../shared/specs/context-graph-dag.md and backend/knowledge.
type Knowledge struct {
	c *core
}

// Knowledge limits: items a list returns by default and at most.
const (
	defaultKnowledgeLimit = 200
	maxKnowledgeLimit     = 2000
)

// List returns the current version of the items filter keeps, newest stated
// first, each with its direct supersessions.
func (k *Knowledge) List(filter KnowledgeFilter) ([]KnowledgeItem, error) {
	f, err := storeKnowledgeFilter(filter)
	if err != nil {
		return nil, err
	}
	ctx := k.c.context()
	items, err := k.c.store.ListKnowledge(ctx, f)
	if err != nil {
		return nil, err
	}
	res, err := k.resolve()
	if err != nil {
		return nil, err
	}
	out := make([]KnowledgeItem, 0, len(items))
	for _, it := range items {
		out = append(out, knowledgeItem(it, res))
	}
	return out, nil
}

// storeKnowledgeFilter checks filter's values and converts it.
func storeKnowledgeFilter(filter KnowledgeFilter) (store.KnowledgeFilter, error) {
	f := store.KnowledgeFilter{Project: filter.Project, CrossProject: filter.CrossProject, SessionID: filter.SessionID,
		OpenQuestions: filter.OpenQuestions, Query: filter.Query, Limit: filter.Limit}
	for _, v := range filter.Kinds {
		if !knowledge.Kind(v).Valid() {
			return f, fmt.Errorf("app: knowledge filter: field kinds: unknown kind %q", v)
		}
		f.Kinds = append(f.Kinds, knowledge.Kind(v))
	}
	for _, v := range filter.Statuses {
		if !knowledge.Status(v).Valid() {
			return f, fmt.Errorf("app: knowledge filter: field statuses: unknown status %q", v)
		}
		f.Statuses = append(f.Statuses, knowledge.Status(v))
	}
	for _, v := range filter.CreatedBy {
		if !knowledge.CreatedBy(v).Valid() {
			return f, fmt.Errorf("app: knowledge filter: field createdBy: unknown maker %q", v)
		}
		f.CreatedBy = append(f.CreatedBy, knowledge.CreatedBy(v))
	}
	switch {
	case f.Limit <= 0:
		f.Limit = defaultKnowledgeLimit
	case f.Limit > maxKnowledgeLimit:
		f.Limit = maxKnowledgeLimit
	}
	return f, nil
}

// all reads every item and every supersession.
func (k *Knowledge) all() ([]knowledge.Item, []knowledge.Supersession, error) {
	ctx := k.c.context()
	items, err := k.c.store.ListKnowledge(ctx, store.KnowledgeFilter{})
	if err != nil {
		return nil, nil, err
	}
	sups, err := k.c.store.Supersessions(ctx)
	if err != nil {
		return nil, nil, err
	}
	return items, sups, nil
}

// resolution is every item and supersession, checked and indexed, with the
// reason each superseded item was replaced for (the newest statement's).
type resolution struct {
	*knowledge.Resolution
	reasons map[string]string // older id -> reason
}

// resolve checks and indexes every item and supersession.
func (k *Knowledge) resolve() (*resolution, error) {
	items, sups, err := k.all()
	if err != nil {
		return nil, err
	}
	res, err := knowledge.Resolve(items, sups)
	if err != nil {
		return nil, fmt.Errorf("app: the library's supersessions do not hold together: %w", err)
	}
	r := &resolution{Resolution: res, reasons: map[string]string{}}
	for _, s := range sups { // oldest statement first: the newest wins
		if s.Reason != "" {
			r.reasons[s.Older] = s.Reason
		}
	}
	return r, nil
}

// Get returns item id (any version's id: the item's) with every version and
// its supersession chain.
func (k *Knowledge) Get(id string) (KnowledgeDetail, error) {
	ctx := k.c.context()
	res, err := k.resolve()
	if err != nil {
		return KnowledgeDetail{}, err
	}
	it, ok := res.Item(id)
	if !ok {
		return KnowledgeDetail{}, fmt.Errorf("app: no knowledge item %q: %w", id, store.ErrNotFound)
	}
	versions, err := k.c.store.KnowledgeVersions(ctx, id)
	if err != nil {
		return KnowledgeDetail{}, err
	}
	d := KnowledgeDetail{Item: knowledgeItem(it, res), Versions: make([]KnowledgeItem, 0, len(versions)), Chain: []KnowledgeItem{}}
	for _, v := range versions {
		d.Versions = append(d.Versions, knowledgeItem(v, res))
	}
	for _, cid := range res.Chain(id) {
		if c, ok := res.Item(cid); ok {
			d.Chain = append(d.Chain, knowledgeItem(c, res))
		}
	}
	return d, nil
}

// Record records a new item made by hand (createdBy user). With
// in.Supersedes it also states that the new item supersedes that one (same
// kind; no cycle), in the same call and the same transaction: a refused
// supersession records nothing.
func (k *Knowledge) Record(in KnowledgeInput) (KnowledgeItem, error) {
	return k.record(in, knowledge.ByUser, "")
}

func (k *Knowledge) record(in KnowledgeInput, by knowledge.CreatedBy, model string) (KnowledgeItem, error) {
	ctx := k.c.context()
	body, err := knowledgeBody(in.Kind, in.Fields)
	if err != nil {
		return KnowledgeItem{}, err
	}
	conf := in.Confidence
	if conf == 0 && by == knowledge.ByUser {
		conf = 1
	}
	src := knowledge.Provenance{CreatedBy: by, Model: model, SegmentNodeID: in.SegmentNodeID, EntryIDs: in.EntryIDs}
	if in.SegmentNodeID != "" {
		rec, err := k.c.store.Node(ctx, in.SegmentNodeID)
		if err != nil {
			return KnowledgeItem{}, fmt.Errorf("app: field segmentNodeId: %w", err)
		}
		src.SessionID = rec.SessionID
	}
	now := time.Now()
	it, err := knowledge.New(body, strings.TrimSpace(in.Project), now, conf, src, now)
	if err != nil {
		return KnowledgeItem{}, fmt.Errorf("app: %w", err)
	}
	it.Topics = in.Topics
	if err := it.Validate(); err != nil {
		return KnowledgeItem{}, fmt.Errorf("app: %w", err)
	}
	var older *knowledge.Item
	var sup *knowledge.Supersession
	if in.Supersedes != "" {
		items, sups, err := k.all()
		if err != nil {
			return KnowledgeItem{}, err
		}
		sup = &knowledge.Supersession{Newer: it.ID, Older: in.Supersedes, StatedBy: by, Reason: in.Reason, StatedAt: now.UTC().Truncate(time.Millisecond)}
		if err := knowledge.CheckSupersede(append(items, it), sups, *sup); err != nil {
			return KnowledgeItem{}, fmt.Errorf("app: %w", err)
		}
		older, err = k.supersededVersion(in.Supersedes, by, now)
		if err != nil {
			return KnowledgeItem{}, err
		}
	}
	// The item and its supersession: all of it or nothing.
	if err := k.c.store.AddKnowledgeSuperseding(ctx, it, sup, older); err != nil {
		return KnowledgeItem{}, err
	}
	return k.itemOut(it.ID)
}

// supersededVersion is the next version of item id, marked superseded by
// by; nil when it is marked so already (superseded twice: the second
// statement adds no version).
func (k *Knowledge) supersededVersion(id string, by knowledge.CreatedBy, now time.Time) (*knowledge.Item, error) {
	cur, err := k.c.store.Knowledge(k.c.context(), id)
	if err != nil {
		return nil, err
	}
	if cur.Status == knowledge.StatusSuperseded {
		return nil, nil
	}
	ed := cur
	ed.Status = knowledge.StatusSuperseded
	next, err := knowledge.NewVersion(cur, ed, by, now)
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	return &next, nil
}

// itemOut reads item id back with its supersessions.
func (k *Knowledge) itemOut(id string) (KnowledgeItem, error) {
	res, err := k.resolve()
	if err != nil {
		return KnowledgeItem{}, err
	}
	it, ok := res.Item(id)
	if !ok {
		return KnowledgeItem{}, fmt.Errorf("app: no knowledge item %q: %w", id, store.ErrNotFound)
	}
	return knowledgeItem(it, res), nil
}

// Edit makes the next version of item id from in (its kind cannot change;
// project, fields, confidence and topics can). version is the version the
// edit started from: when someone else saved a version since, the edit is
// refused (store.ErrKnowledgeConflict) and nothing is lost but this edit.
// An edit that changes nothing is refused.
func (k *Knowledge) Edit(id string, version int, in KnowledgeInput) (KnowledgeItem, error) {
	ctx := k.c.context()
	cur, err := k.c.store.Knowledge(ctx, id)
	if err != nil {
		return KnowledgeItem{}, err
	}
	if cur.Version != version {
		return KnowledgeItem{}, fmt.Errorf("app: knowledge %s is at version %d, the edit started from version %d: %w", id, cur.Version, version, store.ErrKnowledgeConflict)
	}
	if in.Kind != string(cur.Kind) {
		return KnowledgeItem{}, fmt.Errorf("app: field kind: an edit cannot change a %s into a %s; record a new item", cur.Kind, in.Kind)
	}
	body, err := knowledgeBody(in.Kind, in.Fields)
	if err != nil {
		return KnowledgeItem{}, err
	}
	ed := cur
	ed.Decision, ed.Correction, ed.Exception, ed.FailedApproach = nil, nil, nil, nil
	ed.Insight, ed.Question, ed.ProjectFact, ed.Lesson = nil, nil, nil, nil
	switch b := body.(type) {
	case *knowledge.Decision:
		ed.Decision = b
	case *knowledge.Correction:
		ed.Correction = b
	case *knowledge.Exception:
		ed.Exception = b
	case *knowledge.FailedApproach:
		ed.FailedApproach = b
	case *knowledge.Insight:
		ed.Insight = b
	case *knowledge.Question:
		ed.Question = b
	case *knowledge.ProjectFact:
		ed.ProjectFact = b
	case *graph.Lesson:
		ed.Lesson = b
	}
	ed.Project = strings.TrimSpace(in.Project)
	if in.Confidence > 0 {
		ed.Confidence = in.Confidence
	}
	ed.Topics = in.Topics
	next, err := knowledge.NewVersion(cur, ed, knowledge.ByUser, time.Now())
	if err != nil {
		return KnowledgeItem{}, fmt.Errorf("app: %w", err)
	}
	if err := k.c.store.PutKnowledgeVersion(ctx, next); err != nil {
		return KnowledgeItem{}, err
	}
	return k.itemOut(id)
}

// SetStatus marks item id active or stale (a new version). Superseded is
// not set by hand: state a supersession (Supersede).
func (k *Knowledge) SetStatus(id string, status string) (KnowledgeItem, error) {
	if status != string(knowledge.StatusActive) && status != string(knowledge.StatusStale) {
		return KnowledgeItem{}, fmt.Errorf("app: field status: %q, want active or stale (supersede an item to mark it superseded)", status)
	}
	ctx := k.c.context()
	cur, err := k.c.store.Knowledge(ctx, id)
	if err != nil {
		return KnowledgeItem{}, err
	}
	ed := cur
	ed.Status = knowledge.Status(status)
	next, err := knowledge.NewVersion(cur, ed, knowledge.ByUser, time.Now())
	if err != nil {
		return KnowledgeItem{}, fmt.Errorf("app: %w", err)
	}
	if err := k.c.store.PutKnowledgeVersion(ctx, next); err != nil {
		return KnowledgeItem{}, err
	}
	return k.itemOut(id)
}

// Supersede states that item newer supersedes item older ("we changed our
// approach"), stated by the user with reason: both of one kind, no cycle
// (knowledge.CheckSupersede). older gets a new version marked superseded.
// It returns the chain through newer, newest first.
func (k *Knowledge) Supersede(newer, older, reason string) (KnowledgeChain, error) {
	return k.supersede(newer, older, reason, knowledge.ByUser)
}

func (k *Knowledge) supersede(newer, older, reason string, by knowledge.CreatedBy) (KnowledgeChain, error) {
	items, sups, err := k.all()
	if err != nil {
		return KnowledgeChain{}, err
	}
	now := time.Now()
	sup := knowledge.Supersession{Newer: newer, Older: older, StatedBy: by, Reason: reason, StatedAt: now.UTC().Truncate(time.Millisecond)}
	if err := knowledge.CheckSupersede(items, sups, sup); err != nil {
		return KnowledgeChain{}, fmt.Errorf("app: %w", err)
	}
	for _, s := range sups {
		if s.Newer == newer && s.Older == older {
			return KnowledgeChain{}, fmt.Errorf("app: %s supersedes %s already", newer, older)
		}
	}
	next, err := k.supersededVersion(older, by, now)
	if err != nil {
		return KnowledgeChain{}, err
	}
	if err := k.c.store.Supersede(k.c.context(), sup, next); err != nil {
		return KnowledgeChain{}, err
	}
	res, err := k.resolve()
	if err != nil {
		return KnowledgeChain{}, err
	}
	return chainOf(res, res.Latest(newer)), nil
}

// chainOf is the chain through id, from its head.
func chainOf(res *resolution, id string) KnowledgeChain {
	c := KnowledgeChain{Head: id, Items: []KnowledgeItem{}}
	for _, cid := range res.Chain(id) {
		if it, ok := res.Item(cid); ok {
			c.Items = append(c.Items, knowledgeItem(it, res))
		}
	}
	return c
}

// Decisions returns the decisions of project (and the cross-project ones;
// project "" gives every project's) as supersession chains, newest head
// first: each current decision with the ones it replaced, and each decision
// nobody superseded as a chain of one. A decision that two newer ones
// superseded appears in the chain of each.
func (k *Knowledge) Decisions(project string) ([]KnowledgeChain, error) {
	res, err := k.resolve()
	if err != nil {
		return nil, err
	}
	f := store.KnowledgeFilter{Kinds: []knowledge.Kind{knowledge.KindDecision}}
	if project != "" {
		f.Project, f.CrossProject = project, true
	}
	decisions, err := k.c.store.ListKnowledge(k.c.context(), f)
	if err != nil {
		return nil, err
	}
	out := []KnowledgeChain{}
	for _, d := range decisions { // newest stated first
		if len(res.SupersededBy(d.ID)) > 0 {
			continue // shown in the chain of what supersedes it
		}
		out = append(out, chainOf(res, d.ID))
	}
	return out, nil
}

// Rules returns project's "## Project Rules": its active project facts and
// the cross-project ones, grouped by category, latest wins under stated
// supersession (knowledge.BuildRules). project "" gives the cross-project
// rules alone. Open questions are never in them.
func (k *Knowledge) Rules(project string) (ProjectRules, error) {
	items, sups, err := k.all()
	if err != nil {
		return ProjectRules{}, err
	}
	rs, err := knowledge.BuildRules(items, sups, project)
	if err != nil {
		return ProjectRules{}, fmt.Errorf("app: %w", err)
	}
	out := ProjectRules{Project: project, Markdown: rs.Markdown(), Groups: []ProjectRuleGroup{}}
	for _, g := range rs.Groups {
		pg := ProjectRuleGroup{Category: string(g.Category), Title: g.Title, Rules: []ProjectRule{}}
		for _, r := range g.Rules {
			pg.Rules = append(pg.Rules, ProjectRule{ID: r.ID, Fact: r.Fact, Context: r.Context, Project: r.Project,
				Timestamp: isoMillis(r.Timestamp), Confidence: r.Confidence, CreatedBy: string(r.CreatedBy),
				Supersedes: nonNil(r.Supersedes)})
		}
		out.Groups = append(out.Groups, pg)
	}
	return out, nil
}

// OpenQuestions lists the open questions (no answer, active) of project and
// the cross-project ones, oldest first; project "" gives every project's.
// Asked for on demand, never part of the rules.
func (k *Knowledge) OpenQuestions(project string) ([]KnowledgeItem, error) {
	res, err := k.resolve()
	if err != nil {
		return nil, err
	}
	f := store.KnowledgeFilter{Kinds: []knowledge.Kind{knowledge.KindQuestion}, OpenQuestions: true}
	if project != "" {
		f.Project, f.CrossProject = project, true
	}
	qs, err := k.c.store.ListKnowledge(k.c.context(), f)
	if err != nil {
		return nil, err
	}
	out := []KnowledgeItem{}
	for i := len(qs) - 1; i >= 0; i-- { // oldest first
		if res.Status(qs[i].ID) == knowledge.StatusActive {
			out = append(out, knowledgeItem(qs[i], res))
		}
	}
	return out, nil
}

// Projects lists the projects that hold knowledge ("" for cross-project
// items, when any), sorted.
func (k *Knowledge) Projects() ([]string, error) {
	return k.c.store.KnowledgeProjects(k.c.context())
}

// Reextract runs the offline rules again over every session the library
// holds (after the rules changed): each segment's entries are read back and
// the session's untouched offline items replaced by what the rules find now;
// items someone edited, and those in a supersession, stay.
func (k *Knowledge) Reextract() (KnowledgeReextract, error) {
	ctx := k.c.context()
	sessions, err := k.c.store.Sessions(ctx, "")
	if err != nil {
		return KnowledgeReextract{}, err
	}
	var rep KnowledgeReextract
	x := knowledge.NewExtractor()
	now := time.Now()
	for _, sess := range sessions {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		segs, err := k.c.store.Segments(ctx, sess.ID)
		if err != nil {
			return rep, err
		}
		var items []knowledge.Item
		for _, seg := range segs {
			nodeID := analyze.NodeID(sess.ID, seg.StartSeq)
			x.Reset()
			for off := 0; ; {
				page, err := k.c.store.SegmentEntries(ctx, nodeID, off, 2000)
				if err != nil {
					return rep, err
				}
				if len(page.Entries) == 0 {
					break
				}
				entries, err := ingest.DecodeRecords(sess.Format, sess.Header, sess.Path, page.Entries)
				if err != nil {
					return rep, fmt.Errorf("app: re-extracting session %s: %w", sess.ID, err)
				}
				for _, e := range entries {
					if e.DuplicateOf == "" && !e.Replayed { // as the import (a copy's knowledge is its original's)
						x.Add(e)
					}
				}
				off += len(page.Entries)
			}
			items = append(items, x.Items(knowledge.Source{Project: sess.Cwd, SessionID: sess.ID, SegmentNodeID: nodeID}, now)...)
		}
		before, after, err := k.c.store.ReplaceOfflineKnowledge(ctx, sess.ID, items)
		if err != nil {
			return rep, err
		}
		rep.Sessions++
		rep.Before += before
		rep.After += after
	}
	return rep, nil
}

// knowledgeItem converts an item for the frontend, with its direct
// supersessions from res (nil: none).
func knowledgeItem(it knowledge.Item, res *resolution) KnowledgeItem {
	out := KnowledgeItem{
		ID: it.ID, URI: it.URI().String(), Version: it.Version, Kind: string(it.Kind), Title: it.Title(),
		Project: it.Project, Timestamp: isoMillis(it.Timestamp), CreatedAt: isoMillis(it.CreatedAt),
		Status: string(it.Status), Confidence: it.Confidence, CreatedBy: string(it.Source.CreatedBy),
		Rule: it.Source.Rule, Model: it.Source.Model, SessionID: it.Source.SessionID,
		SegmentNodeID: it.Source.SegmentNodeID, EntryIDs: nonNil(it.Source.EntryIDs), Topics: nonNil(it.Topics),
		Fields: knowledgeFields(it), Supersedes: []string{}, SupersededBy: []string{},
	}
	out.Open = it.Question != nil && it.Question.Open()
	if res != nil {
		out.Supersedes = nonNil(res.Supersedes(it.ID))
		out.SupersededBy = nonNil(res.SupersededBy(it.ID))
		out.ReplacedBecause = res.reasons[it.ID]
		if st := res.Status(it.ID); st != "" {
			out.Status = string(st)
		}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// knowledgeFields flattens an item's body.
func knowledgeFields(it knowledge.Item) KnowledgeFields {
	var f KnowledgeFields
	switch {
	case it.Decision != nil:
		d := it.Decision
		f.Description, f.Rationale, f.OptionsConsidered, f.RevisitTrigger, f.DecisionStatus =
			d.Description, d.Rationale, d.OptionsConsidered, d.RevisitTrigger, d.Status
	case it.Correction != nil:
		c := it.Correction
		f.WrongBelief, f.RightBelief, f.Severity = c.WrongBelief, c.RightBelief, c.Severity
	case it.Exception != nil:
		e := it.Exception
		f.RuleBroken, f.Justification, f.Scope = e.RuleBroken, e.Justification, e.Scope
	case it.FailedApproach != nil:
		a := it.FailedApproach
		f.Approach, f.Outcome, f.Lesson = a.Approach, a.Outcome, a.Lesson
	case it.Insight != nil:
		in := it.Insight
		f.Summary, f.Category, f.Detail, f.Implications = in.Summary, in.Category, in.Detail, in.Implications
	case it.Question != nil:
		q := it.Question
		f.Question, f.Answer, f.Context = q.Question, q.Answer, q.Context
	case it.ProjectFact != nil:
		p := it.ProjectFact
		f.Fact, f.Category, f.Context = p.Fact, string(p.Category), p.Context
	case it.Lesson != nil:
		l := it.Lesson
		f.Summary, f.Details, f.Actionable, f.Level, f.Tags, f.LessonConfidence =
			l.Summary, l.Details, l.Actionable, l.Level, l.Tags, l.Confidence
	}
	return f
}

// knowledgeBody builds the body of kind from f (trimmed); the kind's
// required fields and enums are checked by knowledge.New / NewVersion.
func knowledgeBody(kind string, f KnowledgeFields) (any, error) {
	t := strings.TrimSpace
	list := func(xs []string) []string {
		var out []string
		for _, x := range xs {
			if x = t(x); x != "" {
				out = append(out, x)
			}
		}
		return out
	}
	switch knowledge.Kind(kind) {
	case knowledge.KindDecision:
		return &knowledge.Decision{Description: t(f.Description), Rationale: t(f.Rationale),
			OptionsConsidered: list(f.OptionsConsidered), RevisitTrigger: t(f.RevisitTrigger), Status: f.DecisionStatus}, nil
	case knowledge.KindCorrection:
		return &knowledge.Correction{WrongBelief: t(f.WrongBelief), RightBelief: t(f.RightBelief), Severity: f.Severity}, nil
	case knowledge.KindException:
		return &knowledge.Exception{RuleBroken: t(f.RuleBroken), Justification: t(f.Justification), Scope: f.Scope}, nil
	case knowledge.KindFailedApproach:
		return &knowledge.FailedApproach{Approach: t(f.Approach), Outcome: t(f.Outcome), Lesson: t(f.Lesson)}, nil
	case knowledge.KindInsight:
		return &knowledge.Insight{Summary: t(f.Summary), Category: f.Category, Detail: t(f.Detail), Implications: t(f.Implications)}, nil
	case knowledge.KindQuestion:
		return &knowledge.Question{Question: t(f.Question), Answer: t(f.Answer), Context: t(f.Context)}, nil
	case knowledge.KindProjectFact:
		return &knowledge.ProjectFact{Fact: t(f.Fact), Category: knowledge.Category(f.Category), Context: t(f.Context)}, nil
	case knowledge.KindLesson:
		tags := list(f.Tags)
		if tags == nil {
			tags = []string{}
		}
		return &graph.Lesson{Level: f.Level, Summary: t(f.Summary), Details: t(f.Details), Actionable: t(f.Actionable),
			Confidence: f.LessonConfidence, Tags: tags}, nil
	}
	return nil, fmt.Errorf("app: field kind: unknown kind %q (want decision, correction, exception, failedApproach, insight, question, projectFact or lesson)", kind)
}
