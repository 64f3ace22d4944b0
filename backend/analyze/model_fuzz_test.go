package analyze

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
)

// FuzzParseAnalysis feeds arbitrary replies to the model-output parser and
// validator, and what it accepts to composeNode: never a panic; a refused
// reply is a *ValidationError; an accepted one has non-nil lists,
// confidences in 0..1 and relations of the vocabulary, and the node made
// from it keeps every model text and list within its bound.
func FuzzParseAnalysis(f *testing.F) {
	canned, err := os.ReadFile(filepath.Join("testdata", "model", "poem-segment.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(canned)
	f.Add(canned[:len(canned)/2])
	f.Add([]byte(chunkAnswer(0)))
	f.Add([]byte(chunkAnswer(1) + "\n"))
	f.Add([]byte(oversized()))
	for _, s := range []string{`{}`, `[]`, `null`, `1e999`, `"x"`, `{"classification":null}`, "\xff\xfe"} {
		f.Add([]byte(s))
	}
	s := &sessionBuilder{}
	s.user("Add a SQLite store for the nodes, please").say("Done: added store/nodes.go.").bash("go test ./...", "FAIL: TestStore", true)
	offline := s.node()
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := ParseAnalysis(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalidAnalysis) {
				t.Fatalf("error %v is not a *ValidationError", err)
			}
			return
		}
		if a.Relationships == nil || a.Semantic.Tags == nil || a.Lessons.Subagent == nil || a.Content.KeyDecisions == nil {
			t.Fatalf("nil list in %+v", a)
		}
		for _, r := range a.Relationships {
			if _, ok := link.Lookup(r.Relation); !ok || math.IsNaN(r.Confidence) || r.Confidence < 0 || r.Confidence > 1 {
				t.Fatalf("relationship %+v", r)
			}
		}
		r := &run{now: time.Now}
		n, rels := composeNode(offline, a, Input{}, nil, time.Now(), r)
		checkBounded(t, n)
		checkFindingsBounded(t, r.findings(a, nil, offline))
		if len(rels) > maxRelationships {
			t.Fatalf("%d relationships", len(rels))
		}
		for _, p := range rels {
			if p.TargetNodeID != "" || len(p.Rationale) > maxModelTextBytes || len(p.TargetDescription) > maxModelTextBytes {
				t.Fatalf("relationship %+v: no candidates were listed", p)
			}
		}
	})
}

// oversized is a valid analysis with texts and lists past every bound.
func oversized() string {
	long := strings.Repeat("ü long text ", 400)
	var a Analysis
	a.normalize()
	a.Classification.Type = graph.TypeCoding
	a.Content.Summary, a.Content.Outcome = long, graph.OutcomeSuccess
	for i := range 40 {
		a.Content.KeyDecisions = append(a.Content.KeyDecisions, AnalysisDecision{Decision: graph.Decision{What: long + strconv.Itoa(i), Why: long,
			AlternativesConsidered: []string{long}}, Confidence: "low", Entries: []int{i, -i}})
		a.Content.Corrections = append(a.Content.Corrections, AnalysisCorrection{Correction: Correction{WrongBelief: long,
			RightBelief: long + strconv.Itoa(i), Severity: "minor"}, Confidence: "high", Entries: []int{}})
		a.Content.FailedApproaches = append(a.Content.FailedApproaches, AnalysisFailedApproach{FailedApproach: FailedApproach{
			Approach: long + strconv.Itoa(i), Outcome: long, Lesson: long}, Confidence: "medium", Entries: []int{1}})
		a.Lessons.Task = append(a.Lessons.Task, AnalysisLesson{Lesson: graph.Lesson{Summary: long + strconv.Itoa(i), Details: long, Confidence: "low",
			Tags: []string{long, "b"}}, Entries: []int{}})
		a.Semantic.Tags = append(a.Semantic.Tags, long+strconv.Itoa(i))
		a.Observations.PromptingWins = append(a.Observations.PromptingWins, long+strconv.Itoa(i))
		a.Relationships = append(a.Relationships, ProposedRelationship{TargetNodeID: strconv.Itoa(i), TargetDescription: long, Relation: link.RelatesTo, Confidence: 0.5, Rationale: long})
	}
	b, _ := json.Marshal(a)
	// Lessons carry no level and actionable is required (null) in a reply.
	return strings.ReplaceAll(strings.ReplaceAll(string(b), `"level":"",`, ""), `"tags":["`+long+`","b"]}`, `"tags":["`+long+`","b"],"actionable":null}`)
}

// checkFindingsBounded fails when the findings of an analysis pass their
// bounds or lack the text their kind needs.
func checkFindingsBounded(t *testing.T, fs []Finding) {
	t.Helper()
	kinds := map[string]int{}
	for _, f := range fs {
		kinds[f.Kind]++
		if strings.TrimSpace(f.Subject()) == "" || len(f.Subject()) > maxModelTextBytes || len(f.EntryIDs) > maxFindingEntries {
			t.Fatalf("finding %+v", f)
		}
	}
	if kinds["decision"] > maxModelDecisions || kinds["correction"] > maxModelCorrections ||
		kinds["failedApproach"] > maxModelFailed || kinds["lesson"] > 7*maxLessonsPerLevel {
		t.Fatalf("findings by kind %v", kinds)
	}
}

// checkBounded fails when a model field of n passes its bound.
func checkBounded(t *testing.T, n graph.Node) {
	t.Helper()
	text := func(what, s string, bound int) {
		if len(s) > bound {
			t.Fatalf("%s: %d bytes > %d", what, len(s), bound)
		}
	}
	list := func(what string, l, bound int) {
		if l > bound {
			t.Fatalf("%s: %d items > %d", what, l, bound)
		}
	}
	text("summary", n.Content.Summary, maxModelSummaryBytes)
	list("keyDecisions", len(n.Content.KeyDecisions), maxModelDecisions)
	for _, d := range n.Content.KeyDecisions {
		text("decision what", d.What, maxModelTextBytes)
		text("decision why", d.Why, maxModelTextBytes)
		list("alternatives", len(d.AlternativesConsidered), maxObservations)
	}
	for _, l := range lessonLists(&n.Lessons) {
		list(l.level+" lessons", len(*l.list), maxLessonsPerLevel)
		for _, x := range *l.list {
			text("lesson", x.Details, maxModelTextBytes)
			list("lesson tags", len(x.Tags), maxTagsKept)
			if x.Level != l.level {
				t.Fatalf("lesson of %s has level %q", l.level, x.Level)
			}
		}
	}
	list("tags", len(n.Semantic.Tags), maxTagsKept)
	list("topics", len(n.Semantic.Topics), maxTopicsKept)
	list("concepts", len(n.Semantic.Concepts), maxTopicsKept)
	list("frameworks", len(n.Classification.Frameworks), maxFrameworksKept)
	for _, tag := range n.Semantic.Tags {
		text("tag", tag, maxTagBytes)
	}
	list("promptingWins", len(n.Observations.PromptingWins), maxObservations)
	list("modelQuirks", len(n.Observations.ModelQuirks), maxObservations)
	list("toolUseErrors", len(n.Observations.ToolUseErrors), maxObservations)
}
