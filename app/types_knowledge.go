package app

// The shapes of the Knowledge area (knowledge.go): knowledge nodes of
// ccmemory's kinds and pi-brain's lesson (backend/knowledge.Item), with their
// supersession chains and a project's rules: the Knowledge area's part of the
// contract with the frontend (types.go says how it is kept).

// KnowledgeFields are the text fields of every kind, flat: a kind uses its
// own (Decision: description, rationale, optionsConsidered, revisitTrigger,
// decisionStatus; Correction: wrongBelief, rightBelief, severity;
// Exception: ruleBroken, justification, scope; FailedApproach: approach,
// outcome, lesson; Insight: summary, category, detail, implications;
// Question: question, answer, context; ProjectFact: fact, category,
// context; Lesson: summary, details, actionable, level, tags,
// lessonConfidence) and the others stay empty. Empty enum fields get
// ccmemory's defaults. See ../shared/specs/context-graph-dag.md.
type KnowledgeFields struct {
	Description       string   `json:"description,omitempty"`
	Rationale         string   `json:"rationale,omitempty"`
	OptionsConsidered []string `json:"optionsConsidered,omitempty"`
	RevisitTrigger    string   `json:"revisitTrigger,omitempty"`
	DecisionStatus    string   `json:"decisionStatus,omitempty" ts_type:"'' | 'developmental' | 'curated'"`
	WrongBelief       string   `json:"wrongBelief,omitempty"`
	RightBelief       string   `json:"rightBelief,omitempty"`
	Severity          string   `json:"severity,omitempty" ts_type:"'' | 'minor' | 'significant' | 'critical'"`
	RuleBroken        string   `json:"ruleBroken,omitempty"`
	Justification     string   `json:"justification,omitempty"`
	Scope             string   `json:"scope,omitempty" ts_type:"'' | 'one-time' | 'conditional' | 'new-precedent'"`
	Approach          string   `json:"approach,omitempty"`
	Outcome           string   `json:"outcome,omitempty"`
	Lesson            string   `json:"lesson,omitempty"`
	Summary           string   `json:"summary,omitempty"`
	// Category: an insight's (realization, analysis, strategy, personal,
	// synthesis) or a project fact's (convention, constraint, workflow,
	// tool, pattern, environment).
	Category         string   `json:"category,omitempty"`
	Detail           string   `json:"detail,omitempty"`
	Implications     string   `json:"implications,omitempty"`
	Question         string   `json:"question,omitempty"`
	Answer           string   `json:"answer,omitempty"`
	Context          string   `json:"context,omitempty"`
	Fact             string   `json:"fact,omitempty"`
	Details          string   `json:"details,omitempty"`
	Actionable       string   `json:"actionable,omitempty"`
	Level            string   `json:"level,omitempty"` // project, task, user, model, tool, skill, subagent
	Tags             []string `json:"tags,omitempty"`
	LessonConfidence string   `json:"lessonConfidence,omitempty" ts_type:"'' | 'high' | 'medium' | 'low'"`
}

// KnowledgeItem is the current version of a knowledge node. Timestamp is
// when the knowledge was stated, CreatedAt when this version was made (ISO
// 8601, UTC, milliseconds). CreatedBy made this version, FirstBy the first
// one. Supersedes and SupersededBy are the ids of the items this one directly
// replaces and that directly replace it (stated, never inferred), newest
// first.
type KnowledgeItem struct {
	ID            string          `json:"id"`
	URI           string          `json:"uri"` // rhizome:knowledge/<id>
	Version       int             `json:"version"`
	Kind          string          `json:"kind" ts_type:"'decision' | 'correction' | 'exception' | 'failedApproach' | 'insight' | 'question' | 'projectFact' | 'lesson'"`
	Title         string          `json:"title"`
	Project       string          `json:"project"` // "" for a cross-project item
	Timestamp     string          `json:"timestamp"`
	CreatedAt     string          `json:"createdAt"`
	Status        string          `json:"status" ts_type:"'active' | 'superseded' | 'stale'"`
	Confidence    float64         `json:"confidence"` // 0-1
	CreatedBy     string          `json:"createdBy" ts_type:"'offline' | 'model' | 'user' | 'agent'"`
	Rule          string          `json:"rule,omitempty"`  // the offline rule that found it
	Model         string          `json:"model,omitempty"` // the model that proposed it
	SessionID     string          `json:"sessionId,omitempty"`
	SegmentNodeID string          `json:"segmentNodeId,omitempty"`
	EntryIDs      []string        `json:"entryIds"`
	Topics        []string        `json:"topics"`
	Open          bool            `json:"open"` // a question with no answer
	Fields        KnowledgeFields `json:"fields"`
	Supersedes    []string        `json:"supersedes"`
	SupersededBy  []string        `json:"supersededBy"`
	// ReplacedBecause is the reason stated when it was superseded ("" when
	// none was given, or it is not superseded).
	ReplacedBecause string `json:"replacedBecause,omitempty"`
}

// KnowledgeFilter narrows Knowledge.List; empty fields do not filter.
// Project keeps that project's items (and the cross-project ones when
// CrossProject); Query keeps items holding every word of it; Limit caps
// the items (newest stated first; 0: 200, at most 2,000).
type KnowledgeFilter struct {
	Kinds         []string `json:"kinds"`
	Project       string   `json:"project"`
	CrossProject  bool     `json:"crossProject"`
	Statuses      []string `json:"statuses"`
	CreatedBy     []string `json:"createdBy"`
	SessionID     string   `json:"sessionId"`
	OpenQuestions bool     `json:"openQuestions"`
	Query         string   `json:"query"`
	Limit         int      `json:"limit"`
}

// KnowledgeInput is what a person (or an agent) records or edits: the kind,
// its fields, the project ("" for cross-project), a confidence 0-1 (0 means
// 1 for a person's own word), topics, where it came from (a segment node and
// its entries, optional) and, for a new item, the id of an item of the same
// kind it supersedes (optional; a stated supersession).
type KnowledgeInput struct {
	Kind          string          `json:"kind" ts_type:"'decision' | 'correction' | 'exception' | 'failedApproach' | 'insight' | 'question' | 'projectFact' | 'lesson'"`
	Project       string          `json:"project"`
	Fields        KnowledgeFields `json:"fields"`
	Confidence    float64         `json:"confidence"`
	Topics        []string        `json:"topics"`
	SegmentNodeID string          `json:"segmentNodeId"`
	EntryIDs      []string        `json:"entryIds"`
	Supersedes    string          `json:"supersedes"`
	Reason        string          `json:"reason"` // why it supersedes
}

// KnowledgeDetail is one item with every version (oldest first) and its
// supersession chain (newest first, the item itself included).
type KnowledgeDetail struct {
	Item     KnowledgeItem   `json:"item"`
	Versions []KnowledgeItem `json:"versions"`
	Chain    []KnowledgeItem `json:"chain"`
}

// KnowledgeChain is a supersession chain, newest first: Items[0] is the
// current one (the head), each item superseded by the one before it. A
// decision nobody superseded is a chain of one.
type KnowledgeChain struct {
	Head  string          `json:"head"`
	Items []KnowledgeItem `json:"items"`
}

// ProjectRule is one rule of a project: an active project fact, with the ids
// of the facts it replaced (newest first).
type ProjectRule struct {
	ID         string   `json:"id"`
	Fact       string   `json:"fact"`
	Context    string   `json:"context,omitempty"`
	Project    string   `json:"project"`
	Timestamp  string   `json:"timestamp"`
	Confidence float64  `json:"confidence"`
	CreatedBy  string   `json:"createdBy" ts_type:"'offline' | 'model' | 'user' | 'agent'"`
	Supersedes []string `json:"supersedes"`
}

// ProjectRuleGroup is the rules of one category.
type ProjectRuleGroup struct {
	Category string        `json:"category"`
	Title    string        `json:"title"` // "Conventions", "Constraints", …
	Rules    []ProjectRule `json:"rules"`
}

// ProjectRules is a project's "## Project Rules" (ccmemory): Markdown ready to
// paste into AGENTS.md or CLAUDE.md, and the same rules grouped by category.
// Open questions are never part of them.
type ProjectRules struct {
	Project  string             `json:"project"`
	Markdown string             `json:"markdown"`
	Groups   []ProjectRuleGroup `json:"groups"`
}

// KnowledgeReextract is what a re-run of the offline rules did: sessions
// read, and the items the library held for them before and after.
type KnowledgeReextract struct {
	Sessions int `json:"sessions"`
	Before   int `json:"before"`
	After    int `json:"after"`
}
