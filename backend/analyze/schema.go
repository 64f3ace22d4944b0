package analyze

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"rhizome/backend/graph"
	"rhizome/backend/link"
)

// analysisSchema is the JSON Schema of the model's answer: one object with
// the node fields a model can fill, in pi-brain's field names (see
// pi-brain-node-model.md, "Node Data Structure"), plus proposed
// relationships in the relation vocabulary of backend/link. It keeps to
// OpenAI's strict subset (every object lists all its properties in
// "required" and has "additionalProperties": false; optional values are
// nullable) so that the same schema is enforced by OpenAI, given to
// Anthropic as a tool's input_schema, and checked here. Ranges the strict
// subset cannot state (confidence 0..1) are checked by ParseAnalysis.
//
//go:embed analysis.schema.json
var analysisSchema []byte

// SchemaName names the schema in requests (OpenAI json_schema.name,
// Anthropic tool name).
const SchemaName = "segment_analysis"

// AnalysisSchema returns the JSON Schema of the model's answer
// (backend/analyze/analysis.schema.json). The slice is a copy.
func AnalysisSchema() json.RawMessage {
	return append(json.RawMessage(nil), analysisSchema...)
}

// schemaURL is the schema's id inside the compiler; nothing is fetched.
const schemaURL = "urn:rhizome:analysis.schema.json"

// compiledSchema is analysisSchema compiled once.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(analysisSchema))
	if err != nil {
		return nil, fmt.Errorf("analyze: analysis.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("analyze: analysis.schema.json: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("analyze: analysis.schema.json: %w", err)
	}
	return s, nil
})

// Analysis is the model's answer for one segment, or for one chunk of a long
// segment: every field of analysis.schema.json. Lists are never nil after
// ParseAnalysis. Lessons carry no level in the answer: their level is the
// list they are in (Node fills Lesson.Level).
type Analysis struct {
	Classification AnalysisClassification `json:"classification"`
	Content        AnalysisContent        `json:"content"`
	Lessons        AnalysisLessons        `json:"lessons"`
	Observations   AnalysisObservations   `json:"observations"`
	Semantic       AnalysisSemantic       `json:"semantic"`
	Relationships  []ProposedRelationship `json:"relationships"`
}

// AnalysisLessons are the lessons of an answer by level, as
// graph.LessonsByLevel holds a node's.
type AnalysisLessons struct {
	Project  []AnalysisLesson `json:"project"`
	Task     []AnalysisLesson `json:"task"`
	User     []AnalysisLesson `json:"user"`
	Model    []AnalysisLesson `json:"model"`
	Tool     []AnalysisLesson `json:"tool"`
	Skill    []AnalysisLesson `json:"skill"`
	Subagent []AnalysisLesson `json:"subagent"`
}

// AnalysisLesson is a lesson as the model reports it: the node's
// graph.Lesson (without its level) and the entries that state it.
type AnalysisLesson struct {
	graph.Lesson
	// Entries are the transcript's entry numbers ([#n], session.Entry.Seq)
	// the model says state the lesson; numbers outside the segment are
	// dropped when it becomes a knowledge item.
	Entries []int `json:"entries"`
}

// Confidence is how sure the model is of a decision, correction or failed
// approach: high, medium or low; "" when it gave none (null, or an answer
// written to the schema before it asked), written back as null.
type Confidence string

// MarshalJSON writes "" as null, as the schema has it.
func (c Confidence) MarshalJSON() ([]byte, error) {
	if c == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(c))
}

// AnalysisDecision is a key decision as the model reports it: the node's
// graph.Decision, how sure the model is, and the entries that state it.
type AnalysisDecision struct {
	graph.Decision
	Confidence Confidence `json:"confidence"`
	Entries    []int      `json:"entries"` // as AnalysisLesson.Entries
}

// Correction is a belief a segment corrected (ccmemory's Correction):
// what was believed ("" when the model does not say), what is right, and
// how much it mattered (minor, significant, critical).
type Correction struct {
	WrongBelief string `json:"wrongBelief"`
	RightBelief string `json:"rightBelief"`
	Severity    string `json:"severity"`
}

// FailedApproach is an approach a segment tried that did not work
// (ccmemory's FailedApproach): what was tried, what came of it, and what to
// do instead ("" when the model does not say).
type FailedApproach struct {
	Approach string `json:"approach"`
	Outcome  string `json:"outcome"`
	Lesson   string `json:"lesson"`
}

// AnalysisCorrection is a correction as the model reports it.
type AnalysisCorrection struct {
	Correction
	Confidence Confidence `json:"confidence"`
	Entries    []int      `json:"entries"` // as AnalysisLesson.Entries
}

// AnalysisFailedApproach is a failed approach as the model reports it.
type AnalysisFailedApproach struct {
	FailedApproach
	Confidence Confidence `json:"confidence"`
	Entries    []int      `json:"entries"` // as AnalysisLesson.Entries
}

// AnalysisClassification is the part of graph.Classification a model
// judges; project and isNewProject stay the offline analyzer's.
type AnalysisClassification struct {
	Type         graph.NodeType `json:"type"`
	HadClearGoal bool           `json:"hadClearGoal"`
	Language     *string        `json:"language"` // nil: the model named none
	Frameworks   []string       `json:"frameworks"`
}

// AnalysisContent is the part of graph.Content a model writes; filesTouched
// and toolsUsed stay the offline analyzer's. Corrections and failed
// approaches are not node fields: they become knowledge items only
// (Result.Findings).
type AnalysisContent struct {
	Summary          string                   `json:"summary"`
	Outcome          graph.Outcome            `json:"outcome"`
	KeyDecisions     []AnalysisDecision       `json:"keyDecisions"`
	ErrorsSeen       []graph.ErrorSummary     `json:"errorsSeen"`
	Corrections      []AnalysisCorrection     `json:"corrections"`
	FailedApproaches []AnalysisFailedApproach `json:"failedApproaches"`
}

// AnalysisObservations is graph.ModelObservations without modelsUsed,
// which stays the offline analyzer's (from the session's usage records).
type AnalysisObservations struct {
	PromptingWins     []string           `json:"promptingWins"`
	PromptingFailures []string           `json:"promptingFailures"`
	ModelQuirks       []graph.ModelQuirk `json:"modelQuirks"`
	ToolUseErrors     []graph.ToolError  `json:"toolUseErrors"`
}

// AnalysisSemantic is the part of graph.SemanticData a model writes.
type AnalysisSemantic struct {
	Tags     []string `json:"tags"`
	Topics   []string `json:"topics"`
	Concepts []string `json:"concepts"`
}

// ProposedRelationship is a relation the model proposes from the analysed
// segment's node (the source) to another node. The app turns it into an
// edge (createdBy "model") once it has resolved the target.
type ProposedRelationship struct {
	// TargetNodeID is the id of one of the candidate nodes the prompt listed
	// (Candidate.NodeID); "" when the model named none, or named one that
	// was not listed (AnalyzeSegment drops such ids, keeping the
	// description, and says so in daemonMeta.decisions).
	TargetNodeID string `json:"targetNodeId"`
	// TargetDescription says what the target is, for the app to search
	// when there is no id ("the session that added the SQLite store").
	TargetDescription string `json:"targetDescription"`
	// Relation is one of link.Relations: the source <relation> the target.
	Relation link.Relation `json:"relation"`
	// Confidence is 0 to 1.
	Confidence float64 `json:"confidence"`
	// Rationale is why, in the model's words.
	Rationale string `json:"rationale"`
}

// UnmarshalJSON reads a relationship whose targetNodeId may be null.
func (r *ProposedRelationship) UnmarshalJSON(b []byte) error {
	var w struct {
		TargetNodeID      *string       `json:"targetNodeId"`
		TargetDescription string        `json:"targetDescription"`
		Relation          link.Relation `json:"relation"`
		Confidence        float64       `json:"confidence"`
		Rationale         string        `json:"rationale"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*r = ProposedRelationship{TargetDescription: w.TargetDescription, Relation: w.Relation,
		Confidence: w.Confidence, Rationale: w.Rationale}
	if w.TargetNodeID != nil {
		r.TargetNodeID = *w.TargetNodeID
	}
	return nil
}

// maxValidationErrors bounds the schema errors a ValidationError lists.
const maxValidationErrors = 12

// ValidationError says why a model's reply is not a valid analysis: the
// JSON is malformed, or it breaks the schema (each Problem names the JSON
// pointer of the value at fault, "/content/outcome: value must be one of
// ..."). Its Error text is what the retry prompt shows the model.
type ValidationError struct {
	// Syntax is set when the reply is not one JSON value: the decoder's
	// message, with the byte offset.
	Syntax string
	// Problems are the schema violations, at most 12, in document order.
	Problems []string
	// More counts the violations not listed.
	More int
}

func (e *ValidationError) Error() string {
	if e.Syntax != "" {
		return "the reply is not valid JSON: " + e.Syntax
	}
	s := "the reply does not match the schema: " + strings.Join(e.Problems, "; ")
	if e.More > 0 {
		s += fmt.Sprintf("; and %d more", e.More)
	}
	return s
}

// ErrInvalidAnalysis is matched (errors.Is) by every *ValidationError.
var ErrInvalidAnalysis = errors.New("invalid analysis")

// Is makes errors.Is(err, ErrInvalidAnalysis) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidAnalysis }

// ParseAnalysis decodes a model's reply (the JSON text of
// llm.Completion.JSON) and validates it against analysis.schema.json, then
// checks what the schema cannot say: every confidence is a finite number in
// 0..1. Lists come back non-nil; strings are kept as written. A reply that
// is not one JSON object, or breaks the schema, gives a *ValidationError.
// A reply written to the schema before it asked for corrections, failed
// approaches, the confidence of decisions and the entries of decisions and
// lessons is read with those empty (see upgradeAnswer).
func ParseAnalysis(raw []byte) (Analysis, error) {
	schema, err := compiledSchema()
	if err != nil {
		return Analysis{}, err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return Analysis{}, &ValidationError{Syntax: "the reply is empty"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // as the schema library reads documents
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return Analysis{}, &ValidationError{Syntax: syntaxMessage(raw, err)}
	}
	if end := dec.InputOffset(); len(bytes.TrimSpace(raw[end:])) > 0 {
		return Analysis{}, &ValidationError{Syntax: fmt.Sprintf("text follows the JSON value, from byte %d of %d", end, len(raw))}
	}
	upgradeAnswer(doc)
	if err := schema.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return Analysis{}, &ValidationError{Problems: []string{err.Error()}}
		}
		return Analysis{}, schemaProblems(ve)
	}
	var a Analysis
	if err := json.Unmarshal(raw, &a); err != nil {
		// The schema admits only what decodes; kept for safety.
		return Analysis{}, &ValidationError{Problems: []string{err.Error()}}
	}
	var problems []string
	for i, r := range a.Relationships {
		if math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1 {
			problems = append(problems, fmt.Sprintf("at '/relationships/%d/confidence': %v is not between 0 and 1", i, r.Confidence))
		}
		if _, ok := link.Lookup(r.Relation); !ok {
			problems = append(problems, fmt.Sprintf("at '/relationships/%d/relation': %q is not a relation", i, r.Relation))
		}
	}
	if len(problems) > 0 {
		return Analysis{}, &ValidationError{Problems: problems}
	}
	a.normalize()
	return a, nil
}

// upgradeAnswer adds to doc (a decoded reply) the fields an answer written
// to the first analysis schema lacks: content.corrections and
// content.failedApproaches (empty), and each key decision's confidence
// (null) and entries (empty) and each lesson's entries (empty). Such
// answers stay readable (canned analyses, a server's cached replies); a
// field present is left as it is, for the schema to judge, and so is a
// value of the wrong type.
func upgradeAnswer(doc any) {
	root, ok := doc.(map[string]any)
	if !ok {
		return
	}
	fill := func(m map[string]any, key string, v any) {
		if _, ok := m[key]; !ok {
			m[key] = v
		}
	}
	if content, ok := root["content"].(map[string]any); ok {
		fill(content, "corrections", []any{})
		fill(content, "failedApproaches", []any{})
		if list, ok := content["keyDecisions"].([]any); ok {
			for _, d := range list {
				if d, ok := d.(map[string]any); ok {
					fill(d, "confidence", nil)
					fill(d, "entries", []any{})
				}
			}
		}
	}
	if lessons, ok := root["lessons"].(map[string]any); ok {
		for _, list := range lessons {
			list, _ := list.([]any)
			for _, l := range list {
				if l, ok := l.(map[string]any); ok {
					fill(l, "entries", []any{})
				}
			}
		}
	}
}

// syntaxMessage says where and why raw is not one JSON value.
func syntaxMessage(raw []byte, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%v at byte %d of %d", se, se.Offset, len(raw))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Sprintf("it ends after %d bytes in the middle of a value (cut off?)", len(raw))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%v at byte %d", te, te.Offset)
	}
	return err.Error()
}

// englishPrinter renders the schema library's messages.
var englishPrinter = message.NewPrinter(language.English)

// schemaProblems lists the leaf violations of a schema validation error (the
// errors with no causes below them), each as "at '/pointer': message", in
// document order, without repeats.
func schemaProblems(ve *jsonschema.ValidationError) *ValidationError {
	out := &ValidationError{}
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		p := fmt.Sprintf("at '/%s': %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(englishPrinter))
		if seen[p] {
			return
		}
		seen[p] = true
		if len(out.Problems) < maxValidationErrors {
			out.Problems = append(out.Problems, p)
		} else {
			out.More++
		}
	}
	walk(ve)
	return out
}

// normalize makes every list non-nil.
func (a *Analysis) normalize() {
	nonNil(&a.Classification.Frameworks)
	nonNil(&a.Content.KeyDecisions)
	nonNil(&a.Content.ErrorsSeen)
	nonNil(&a.Content.Corrections)
	nonNil(&a.Content.FailedApproaches)
	for i := range a.Content.KeyDecisions {
		nonNil(&a.Content.KeyDecisions[i].AlternativesConsidered)
		nonNil(&a.Content.KeyDecisions[i].Entries)
	}
	for i := range a.Content.Corrections {
		nonNil(&a.Content.Corrections[i].Entries)
	}
	for i := range a.Content.FailedApproaches {
		nonNil(&a.Content.FailedApproaches[i].Entries)
	}
	for _, l := range answerLessonLists(&a.Lessons) {
		nonNil(l.list)
		for i := range *l.list {
			nonNil(&(*l.list)[i].Tags)
			nonNil(&(*l.list)[i].Entries)
		}
	}
	nonNil(&a.Observations.PromptingWins)
	nonNil(&a.Observations.PromptingFailures)
	nonNil(&a.Observations.ModelQuirks)
	nonNil(&a.Observations.ToolUseErrors)
	nonNil(&a.Semantic.Tags)
	nonNil(&a.Semantic.Topics)
	nonNil(&a.Semantic.Concepts)
	nonNil(&a.Relationships)
}

func nonNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

// levelList is one level's lessons.
type levelList struct {
	level string
	list  *[]graph.Lesson
}

// lessonLists returns the seven lists of l with their level names, in the
// spec's order.
func lessonLists(l *graph.LessonsByLevel) []levelList {
	return []levelList{{"project", &l.Project}, {"task", &l.Task}, {"user", &l.User}, {"model", &l.Model},
		{"tool", &l.Tool}, {"skill", &l.Skill}, {"subagent", &l.Subagent}}
}

// answerLevelList is one level's lessons of an answer.
type answerLevelList struct {
	level string
	list  *[]AnalysisLesson
}

// answerLessonLists is lessonLists for an answer's lessons.
func answerLessonLists(l *AnalysisLessons) []answerLevelList {
	return []answerLevelList{{"project", &l.Project}, {"task", &l.Task}, {"user", &l.User}, {"model", &l.Model},
		{"tool", &l.Tool}, {"skill", &l.Skill}, {"subagent", &l.Subagent}}
}
