// Package knowledge holds Rhizome's first-class knowledge nodes: timestamped,
// per-project (or cross-project) items of ccmemory's kinds (Decision,
// Correction, Exception, FailedApproach, Insight, Question, ProjectFact) and
// pi-brain's Lesson, each with its provenance (the segment node and entries
// it came from, and who made it), a confidence, a status and versions.
//
// Supersession is a relation someone states (the model, the user, an agent),
// never one inferred from similarity (ERRATA.md, "ccmemory"); Resolve checks
// the stated relations, refuses cycles and resolves chains ("latest wins").
// Rules prints the active project facts as ccmemory's "## Project Rules".
// Extractor is the offline rule set that finds knowledge where a session's
// text states it; testdata/labelled.json holds the knowledge of three real
// sessions labelled by hand, against which TestLabelledSet measures it.
//
// See ../shared/specs/context-graph-dag.md ("Domain 1: Your Specifics",
// "Project Facts as Binding Instructions", "Open Questions"),
// interchange-formats.md, "4. ccmemory", and pi-brain-node-model.md
// ("Lessons", "Versioning").
package knowledge

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"rhizome/backend/graph"
	"rhizome/backend/link"
	"rhizome/backend/summary"
)

// Kind is what a knowledge item is.
type Kind string

// Knowledge kinds: ccmemory's Domain 1 node types (context-graph-dag.md) and
// pi-brain's Lesson (pi-brain-node-model.md, "Lessons").
const (
	KindDecision       Kind = "decision"
	KindCorrection     Kind = "correction"
	KindException      Kind = "exception"
	KindFailedApproach Kind = "failedApproach"
	KindInsight        Kind = "insight"
	KindQuestion       Kind = "question"
	KindProjectFact    Kind = "projectFact"
	KindLesson         Kind = "lesson"
)

// Kinds lists every kind in the order the UI offers them.
var Kinds = []Kind{KindDecision, KindCorrection, KindException, KindFailedApproach, KindInsight,
	KindQuestion, KindProjectFact, KindLesson}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Status is where an item stands.
type Status string

// Statuses. An item is active until a newer item supersedes it (a stated
// SUPERSEDES relation) or someone marks it stale (no longer checked, kept
// for history).
const (
	StatusActive     Status = "active"
	StatusSuperseded Status = "superseded"
	StatusStale      Status = "stale"
)

// Valid reports whether s is one of the statuses.
func (s Status) Valid() bool {
	return s == StatusActive || s == StatusSuperseded || s == StatusStale
}

// CreatedBy says who made an item (or a version of it).
type CreatedBy string

// Makers of knowledge: the model analyzer, an offline rule of Extractor, the
// person using Rhizome, or an agent writing through Rhizome's tools (an MCP
// client recording a decision, as ccmemory's record tools do).
const (
	ByModel   CreatedBy = "model"
	ByOffline CreatedBy = "offline"
	ByUser    CreatedBy = "user"
	ByAgent   CreatedBy = "agent"
)

// Valid reports whether c is one of the makers.
func (c CreatedBy) Valid() bool {
	return c == ByModel || c == ByOffline || c == ByUser || c == ByAgent
}

// Provenance says where an item came from.
type Provenance struct {
	// SessionID and SegmentNodeID name the session and the segment node
	// (graph.Node id, 16 hex) the item was found in; both "" for an item a
	// person wrote from nothing.
	SessionID     string `json:"sessionId,omitempty"`
	SegmentNodeID string `json:"segmentNodeId,omitempty"`
	// EntryIDs are the session entries that state it, in file order.
	EntryIDs []string `json:"entryIds,omitempty"`
	// CreatedBy made this version of the item.
	CreatedBy CreatedBy `json:"createdBy"`
	// Rule names the offline rule that found it (CreatedBy offline only),
	// Model the model that proposed it (CreatedBy model only).
	Rule  string `json:"rule,omitempty"`
	Model string `json:"model,omitempty"`
}

// Decision is a choice with its rationale (ccmemory recordDecision).
type Decision struct {
	Description       string   `json:"description"`
	Rationale         string   `json:"rationale,omitempty"`
	OptionsConsidered []string `json:"optionsConsidered,omitempty"`
	RevisitTrigger    string   `json:"revisitTrigger,omitempty"`
	// Status is ccmemory's decision status: DecisionDevelopmental (the
	// default) or DecisionCurated (promoted after review).
	Status string `json:"status"`
}

// Decision statuses (ccmemory graph.py: developmental decisions are the
// working set, promoted to curated).
const (
	DecisionDevelopmental = "developmental"
	DecisionCurated       = "curated"
)

// Correction is an updated belief (ccmemory recordCorrection). Offline
// corrections know the right belief; the wrong one is what the entries
// before it said, so WrongBelief may be empty for them.
type Correction struct {
	WrongBelief string `json:"wrongBelief,omitempty"`
	RightBelief string `json:"rightBelief"`
	Severity    string `json:"severity"` // SeverityMinor, SeveritySignificant (default) or SeverityCritical
}

// Correction severities (ccmemory).
const (
	SeverityMinor       = "minor"
	SeveritySignificant = "significant"
	SeverityCritical    = "critical"
)

// Exception is a rule that does not apply in this context (ccmemory
// recordException).
type Exception struct {
	RuleBroken    string `json:"ruleBroken"`
	Justification string `json:"justification"`
	Scope         string `json:"scope"` // ScopeOneTime (default), ScopeConditional or ScopeNewPrecedent
}

// Exception scopes (ccmemory).
const (
	ScopeOneTime      = "one-time"
	ScopeConditional  = "conditional"
	ScopeNewPrecedent = "new-precedent"
)

// FailedApproach is what did not work (ccmemory recordFailedApproach).
type FailedApproach struct {
	Approach string `json:"approach"`
	Outcome  string `json:"outcome"`
	Lesson   string `json:"lesson,omitempty"`
}

// Insight is a realization (ccmemory recordInsight).
type Insight struct {
	Summary      string `json:"summary"`
	Category     string `json:"category"` // realization (default), analysis, strategy, personal or synthesis
	Detail       string `json:"detail,omitempty"`
	Implications string `json:"implications,omitempty"`
}

// Insight categories (ccmemory).
var insightCategories = []string{"realization", "analysis", "strategy", "personal", "synthesis"}

// Question is a query, answered or open (ccmemory recordQuestion). An empty
// Answer makes it an open question: listed on demand, never injected into
// the rules (context-graph-dag.md, "Open Questions").
type Question struct {
	Question string `json:"question"`
	Answer   string `json:"answer,omitempty"`
	Context  string `json:"context,omitempty"`
}

// Open reports whether the question has no answer yet.
func (q Question) Open() bool { return strings.TrimSpace(q.Answer) == "" }

// ProjectFact is a stated fact about a project, injected as a project rule
// (ccmemory detection schema ProjectFact).
type ProjectFact struct {
	Fact     string   `json:"fact"`
	Category Category `json:"category"`
	Context  string   `json:"context,omitempty"`
}

// Category is the kind of a project fact, the heading it is listed under in
// the rules.
type Category string

// Project fact categories, in the order Rules lists them (context-graph-dag.md,
// "Project Facts as Binding Instructions"; environment from ccmemory's
// detection schema).
const (
	CategoryConvention  Category = "convention"
	CategoryConstraint  Category = "constraint"
	CategoryWorkflow    Category = "workflow"
	CategoryTool        Category = "tool"
	CategoryPattern     Category = "pattern"
	CategoryEnvironment Category = "environment"
)

// Categories lists the project fact categories in the order of the rules.
var Categories = []Category{CategoryConvention, CategoryConstraint, CategoryWorkflow, CategoryTool,
	CategoryPattern, CategoryEnvironment}

// Valid reports whether c is one of Categories.
func (c Category) Valid() bool {
	for _, v := range Categories {
		if c == v {
			return true
		}
	}
	return false
}

// LessonLevels are pi-brain's seven lesson levels (pi-brain-node-model.md,
// "Lessons").
var LessonLevels = []string{"project", "task", "user", "model", "tool", "skill", "subagent"}

// Limits on an item, in bytes of UTF-8.
const (
	MaxTextBytes    = 16 << 10 // one text field
	MaxListItems    = 64       // options considered, topics, entry ids
	MaxProjectBytes = link.MaxPathBytes
)

// Item is one knowledge node at one version. Exactly one of the kind bodies
// (Decision … Lesson) is set: the one Kind names. Items are values: an edit
// makes a new version (see NewVersion), and the store keeps every version.
type Item struct {
	ID      string `json:"id"`      // ULID, stable across versions
	Version int    `json:"version"` // 1, 2, …
	Kind    Kind   `json:"kind"`
	// Project is the absolute path of the project (a session's cwd); "" for
	// a cross-project item.
	Project string `json:"project,omitempty"`
	// Timestamp is when the knowledge was stated (the entry's time for an
	// extracted item): the DAG's primary order. UTC, milliseconds.
	Timestamp time.Time `json:"timestamp"`
	// CreatedAt is when this version was made. UTC, milliseconds.
	CreatedAt  time.Time  `json:"createdAt"`
	Status     Status     `json:"status"`
	Confidence float64    `json:"confidence"` // 0-1: how sure its maker is
	Topics     []string   `json:"topics,omitempty"`
	Source     Provenance `json:"source"`

	Decision       *Decision       `json:"decision,omitempty"`
	Correction     *Correction     `json:"correction,omitempty"`
	Exception      *Exception      `json:"exception,omitempty"`
	FailedApproach *FailedApproach `json:"failedApproach,omitempty"`
	Insight        *Insight        `json:"insight,omitempty"`
	Question       *Question       `json:"question,omitempty"`
	ProjectFact    *ProjectFact    `json:"projectFact,omitempty"`
	Lesson         *graph.Lesson   `json:"lesson,omitempty"`
}

// URI is the item's library URI, rhizome:knowledge/<id> (see link.Knowledge).
func (it Item) URI() link.Item { return link.Knowledge(it.ID) }

// Title is the item's one-line text: the decision's description, the right
// belief, the rule broken, the approach and what came of it ("The sed
// command — didn't work because of the multiline format."), the insight's
// summary, the question, the fact or the lesson's summary.
func (it Item) Title() string {
	if f := it.FailedApproach; f != nil && f.Outcome != "" {
		return strings.TrimRight(f.Approach, " .:;,") + " — " + summary.LowerFirst(f.Outcome)
	}
	return it.subject()
}

// subject is what the item is about, its title without a failed approach's
// outcome: repeats of an approach in one segment are one item (Extractor.add)
// whatever each says came of it.
func (it Item) subject() string {
	switch {
	case it.Decision != nil:
		return it.Decision.Description
	case it.Correction != nil:
		return it.Correction.RightBelief
	case it.Exception != nil:
		return it.Exception.RuleBroken
	case it.FailedApproach != nil:
		return it.FailedApproach.Approach
	case it.Insight != nil:
		return it.Insight.Summary
	case it.Question != nil:
		return it.Question.Question
	case it.ProjectFact != nil:
		return it.ProjectFact.Fact
	case it.Lesson != nil:
		return it.Lesson.Summary
	}
	return ""
}

// NewID returns a fresh ULID for time t (monotonic within a millisecond).
func NewID(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()).String()
}

// New makes version 1 of an item of the kind body names, with a fresh ULID
// for now, status active, and validates it. body is one of *Decision,
// *Correction, *Exception, *FailedApproach, *Insight, *Question,
// *ProjectFact or *graph.Lesson; defaults fill what the maker left empty
// (decision status developmental, correction severity significant,
// exception scope one-time, insight category realization, fact category
// convention). Times are truncated to milliseconds in UTC.
func New(body any, project string, stated time.Time, confidence float64, src Provenance, now time.Time) (Item, error) {
	now = now.UTC().Truncate(time.Millisecond)
	if stated.IsZero() {
		stated = now
	}
	it := Item{
		ID: NewID(now), Version: 1, Project: project,
		Timestamp: stated.UTC().Truncate(time.Millisecond), CreatedAt: now,
		Status: StatusActive, Confidence: confidence, Source: src,
	}
	if err := it.setBody(body); err != nil {
		return Item{}, err
	}
	it.fillDefaults()
	if err := it.Validate(); err != nil {
		return Item{}, err
	}
	return it, nil
}

// setBody stores body in its field and sets Kind.
func (it *Item) setBody(body any) error {
	switch b := body.(type) {
	case *Decision:
		it.Kind, it.Decision = KindDecision, b
	case *Correction:
		it.Kind, it.Correction = KindCorrection, b
	case *Exception:
		it.Kind, it.Exception = KindException, b
	case *FailedApproach:
		it.Kind, it.FailedApproach = KindFailedApproach, b
	case *Insight:
		it.Kind, it.Insight = KindInsight, b
	case *Question:
		it.Kind, it.Question = KindQuestion, b
	case *ProjectFact:
		it.Kind, it.ProjectFact = KindProjectFact, b
	case *graph.Lesson:
		it.Kind, it.Lesson = KindLesson, b
	default:
		return fmt.Errorf("knowledge: unknown body %T (want *Decision, *Correction, *Exception, *FailedApproach, *Insight, *Question, *ProjectFact or *graph.Lesson)", body)
	}
	if isNilBody(body) {
		return fmt.Errorf("knowledge: nil %s body", it.Kind)
	}
	return nil
}

func isNilBody(body any) bool {
	switch b := body.(type) {
	case *Decision:
		return b == nil
	case *Correction:
		return b == nil
	case *Exception:
		return b == nil
	case *FailedApproach:
		return b == nil
	case *Insight:
		return b == nil
	case *Question:
		return b == nil
	case *ProjectFact:
		return b == nil
	case *graph.Lesson:
		return b == nil
	}
	return true
}

// fillDefaults sets ccmemory's defaults on an empty enum field.
func (it *Item) fillDefaults() {
	switch {
	case it.Decision != nil && it.Decision.Status == "":
		it.Decision.Status = DecisionDevelopmental
	case it.Correction != nil && it.Correction.Severity == "":
		it.Correction.Severity = SeveritySignificant
	case it.Exception != nil && it.Exception.Scope == "":
		it.Exception.Scope = ScopeOneTime
	case it.Insight != nil && it.Insight.Category == "":
		it.Insight.Category = "realization"
	case it.ProjectFact != nil && it.ProjectFact.Category == "":
		it.ProjectFact.Category = CategoryConvention
	case it.Lesson != nil && it.Lesson.Level == "":
		it.Lesson.Level = "project"
	}
	if it.Lesson != nil && it.Lesson.Tags == nil {
		it.Lesson.Tags = []string{}
	}
}

// Validate reports the first thing wrong with an item, naming the field: an
// id that is not a ULID, a version below 1, an unknown kind, a body missing
// or not matching the kind (or more than one body), an empty required text
// (the title field of each kind, a correction's right belief, an
// exception's justification, a failed approach's outcome), an unknown enum
// value, a confidence outside 0-1, an unknown maker, a text over
// MaxTextBytes, not UTF-8 or holding NUL, a list over MaxListItems, or a
// zero timestamp.
func (it Item) Validate() error {
	if _, err := ulid.ParseStrict(it.ID); err != nil {
		return fmt.Errorf("knowledge: field id: %q is not a ULID: %w", it.ID, err)
	}
	where := "knowledge " + it.ID
	if it.Version < 1 {
		return fmt.Errorf("%s: field version: %d, want 1 or more", where, it.Version)
	}
	if !it.Kind.Valid() {
		return fmt.Errorf("%s: field kind: unknown kind %q", where, it.Kind)
	}
	if n := it.bodies(); n != 1 {
		return fmt.Errorf("%s: %d kind bodies set, want exactly the %s body", where, n, it.Kind)
	}
	if it.Timestamp.IsZero() {
		return fmt.Errorf("%s: field timestamp is not set", where)
	}
	if it.CreatedAt.IsZero() {
		return fmt.Errorf("%s: field createdAt is not set", where)
	}
	if !it.Status.Valid() {
		return fmt.Errorf("%s: field status: %q, want active, superseded or stale", where, it.Status)
	}
	if math.IsNaN(it.Confidence) || it.Confidence < 0 || it.Confidence > 1 {
		return fmt.Errorf("%s: field confidence: %v, want 0 to 1", where, it.Confidence)
	}
	if len(it.Project) > MaxProjectBytes {
		return fmt.Errorf("%s: field project: %d bytes, the limit is %d", where, len(it.Project), MaxProjectBytes)
	}
	if err := checkText("project", it.Project, false); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := checkList("topics", it.Topics); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := it.Source.validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := it.validateBody(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// bodies counts the kind bodies set; the one set must match Kind.
func (it Item) bodies() int {
	n := 0
	set := func(ok bool, k Kind) {
		if ok {
			n++
			if k != it.Kind {
				n += 100 // a body of another kind is never right
			}
		}
	}
	set(it.Decision != nil, KindDecision)
	set(it.Correction != nil, KindCorrection)
	set(it.Exception != nil, KindException)
	set(it.FailedApproach != nil, KindFailedApproach)
	set(it.Insight != nil, KindInsight)
	set(it.Question != nil, KindQuestion)
	set(it.ProjectFact != nil, KindProjectFact)
	set(it.Lesson != nil, KindLesson)
	if n > 100 {
		return 2
	}
	return n
}

func (p Provenance) validate() error {
	if !p.CreatedBy.Valid() {
		return fmt.Errorf("field source.createdBy: %q, want model, offline, user or agent", p.CreatedBy)
	}
	for _, f := range []struct{ name, v string }{{"source.sessionId", p.SessionID},
		{"source.segmentNodeId", p.SegmentNodeID}, {"source.rule", p.Rule}, {"source.model", p.Model}} {
		if len(f.v) > link.MaxIDBytes {
			return fmt.Errorf("field %s: %d bytes, the limit is %d", f.name, len(f.v), link.MaxIDBytes)
		}
		if err := checkText(f.name, f.v, false); err != nil {
			return err
		}
	}
	if p.CreatedBy == ByOffline && p.Rule == "" {
		return errors.New("field source.rule: an offline item names the rule that found it")
	}
	return checkList("source.entryIds", p.EntryIDs)
}

func (it Item) validateBody() error {
	type field struct {
		name, v  string
		required bool
	}
	var fields []field
	var lists []struct {
		name string
		v    []string
	}
	switch it.Kind {
	case KindDecision:
		d := it.Decision
		fields = []field{{"decision.description", d.Description, true}, {"decision.rationale", d.Rationale, false},
			{"decision.revisitTrigger", d.RevisitTrigger, false}}
		lists = append(lists, struct {
			name string
			v    []string
		}{"decision.optionsConsidered", d.OptionsConsidered})
		if d.Status != DecisionDevelopmental && d.Status != DecisionCurated {
			return fmt.Errorf("field decision.status: %q, want developmental or curated", d.Status)
		}
	case KindCorrection:
		c := it.Correction
		fields = []field{{"correction.wrongBelief", c.WrongBelief, false}, {"correction.rightBelief", c.RightBelief, true}}
		if c.Severity != SeverityMinor && c.Severity != SeveritySignificant && c.Severity != SeverityCritical {
			return fmt.Errorf("field correction.severity: %q, want minor, significant or critical", c.Severity)
		}
	case KindException:
		e := it.Exception
		fields = []field{{"exception.ruleBroken", e.RuleBroken, true}, {"exception.justification", e.Justification, true}}
		if e.Scope != ScopeOneTime && e.Scope != ScopeConditional && e.Scope != ScopeNewPrecedent {
			return fmt.Errorf("field exception.scope: %q, want one-time, conditional or new-precedent", e.Scope)
		}
	case KindFailedApproach:
		f := it.FailedApproach
		fields = []field{{"failedApproach.approach", f.Approach, true}, {"failedApproach.outcome", f.Outcome, true},
			{"failedApproach.lesson", f.Lesson, false}}
	case KindInsight:
		in := it.Insight
		fields = []field{{"insight.summary", in.Summary, true}, {"insight.detail", in.Detail, false},
			{"insight.implications", in.Implications, false}}
		if !contains(insightCategories, in.Category) {
			return fmt.Errorf("field insight.category: %q, want one of %s", in.Category, strings.Join(insightCategories, ", "))
		}
	case KindQuestion:
		q := it.Question
		fields = []field{{"question.question", q.Question, true}, {"question.answer", q.Answer, false},
			{"question.context", q.Context, false}}
	case KindProjectFact:
		f := it.ProjectFact
		fields = []field{{"projectFact.fact", f.Fact, true}, {"projectFact.context", f.Context, false}}
		if !f.Category.Valid() {
			return fmt.Errorf("field projectFact.category: %q, want convention, constraint, workflow, tool, pattern or environment", f.Category)
		}
	case KindLesson:
		l := it.Lesson
		fields = []field{{"lesson.summary", l.Summary, true}, {"lesson.details", l.Details, false},
			{"lesson.actionable", l.Actionable, false}}
		lists = append(lists, struct {
			name string
			v    []string
		}{"lesson.tags", l.Tags})
		if !contains(LessonLevels, l.Level) {
			return fmt.Errorf("field lesson.level: %q, want one of %s", l.Level, strings.Join(LessonLevels, ", "))
		}
		if l.Confidence != "" && l.Confidence != "high" && l.Confidence != "medium" && l.Confidence != "low" {
			return fmt.Errorf("field lesson.confidence: %q, want high, medium or low", l.Confidence)
		}
	}
	for _, f := range fields {
		if err := checkText(f.name, f.v, f.required); err != nil {
			return err
		}
	}
	for _, l := range lists {
		if err := checkList(l.name, l.v); err != nil {
			return err
		}
	}
	return nil
}

// checkText bounds one text field; required ones may not be blank.
func checkText(name, s string, required bool) error {
	switch {
	case required && strings.TrimSpace(s) == "":
		return fmt.Errorf("field %s is empty", name)
	case len(s) > MaxTextBytes:
		return fmt.Errorf("field %s: %d bytes, the limit is %d", name, len(s), MaxTextBytes)
	case !utf8.ValidString(s):
		return fmt.Errorf("field %s is not valid UTF-8", name)
	case strings.IndexByte(s, 0) >= 0:
		return fmt.Errorf("field %s holds a NUL byte", name)
	}
	return nil
}

func checkList(name string, list []string) error {
	if len(list) > MaxListItems {
		return fmt.Errorf("field %s: %d items, the limit is %d", name, len(list), MaxListItems)
	}
	for i, s := range list {
		if err := checkText(fmt.Sprintf("%s[%d]", name, i), s, true); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
