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
	Lessons        graph.LessonsByLevel   `json:"lessons"`
	Observations   AnalysisObservations   `json:"observations"`
	Semantic       AnalysisSemantic       `json:"semantic"`
	Relationships  []ProposedRelationship `json:"relationships"`
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
// and toolsUsed stay the offline analyzer's.
type AnalysisContent struct {
	Summary      string               `json:"summary"`
	Outcome      graph.Outcome        `json:"outcome"`
	KeyDecisions []graph.Decision     `json:"keyDecisions"`
	ErrorsSeen   []graph.ErrorSummary `json:"errorsSeen"`
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
	for i := range a.Content.KeyDecisions {
		nonNil(&a.Content.KeyDecisions[i].AlternativesConsidered)
	}
	for _, l := range lessonLists(&a.Lessons) {
		nonNil(l.list)
		for i := range *l.list {
			nonNil(&(*l.list)[i].Tags)
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
