package graph

import (
	"encoding/json"
	"reflect"
	"testing"
)

func diffTestNode() Node {
	return Node{
		ID:      "a1b2c3d4e5f6a7b8",
		Version: 1,
		Classification: Classification{
			Type: TypeDebugging, Project: "/home/me/rhizome",
		},
		Content: Content{
			Summary:      "Fixed the import of forked sessions.",
			Outcome:      OutcomePartial,
			FilesTouched: []string{"store/sessions.go", "app/import.go"},
			ToolsUsed:    []string{"bash", "edit"},
		},
		Lessons: LessonsByLevel{
			Model: []Lesson{{Level: "model", Summary: "Claude forgets the -count=1 flag", Confidence: "high", Tags: []string{"go"}}},
		},
		Metadata: NodeMetadata{TokensUsed: 1200, Cost: 0.25, AnalyzerVersion: "v1"},
	}
}

func TestComputeDiff(t *testing.T) {
	old := diffTestNode()
	new := diffTestNode()
	new.Version = 2
	new.PreviousVersions = []string{"a1b2c3d4e5f6a7b8-v1"}
	new.Classification.Type = TypeRefactoring
	new.Classification.Language = "go"
	new.Content.Summary = "Fixed and tested the import of forked sessions."
	new.Content.FilesTouched = []string{"store/sessions.go"}
	new.Content.ToolsUsed = []string{"bash", "edit"}
	new.Lessons.Model = append(new.Lessons.Model, Lesson{Level: "model", Summary: "It reads go.mod first", Confidence: "low"})
	new.Lessons.Model[0].Confidence = "medium"
	new.Lessons.Task = []Lesson{} // nil -> empty: no change
	new.Metadata.Cost = 0.5

	d := ComputeDiff(old, new)
	if d.NodeID != old.ID || d.FromVersion != 1 || d.ToVersion != 2 {
		t.Errorf("diff header %+v", d)
	}
	var got []string
	for _, c := range d.Changes {
		got = append(got, c.String())
	}
	want := []string{
		`changed classification.type: "debugging" -> "refactoring"`,
		`added classification.language: "go"`,
		`changed content.summary: "Fixed the import of forked sessions." -> "Fixed and tested the import of forked sessions."`,
		`removed content.filesTouched[1]: "app/import.go"`,
		`changed lessons.model[0].confidence: "high" -> "medium"`,
		`added lessons.model[1]: {"level":"model","summary":"It reads go.mod first","details":"","confidence":"low","tags":null}`,
		`changed metadata.cost: 0.25 -> 0.5`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes:\n%q\nwant\n%q", got, want)
	}
	// Deterministic, and serialisable as the spec's FieldChange.
	again := ComputeDiff(old, new)
	a, _ := json.Marshal(d)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Error("ComputeDiff is not deterministic")
	}
	var back struct {
		Changes []struct {
			Path     string `json:"path"`
			Type     string `json:"type"`
			OldValue any    `json:"oldValue"`
			NewValue any    `json:"newValue"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(a, &back); err != nil || back.Changes[1].Type != "added" || back.Changes[1].OldValue != nil ||
		back.Changes[1].NewValue != "go" {
		t.Errorf("JSON %s (%v)", a, err)
	}

	if d := ComputeDiff(old, old); len(d.Changes) != 0 || d.Changes == nil {
		t.Errorf("diff of a node with itself: %+v", d.Changes)
	}
}

func TestComputeDiffPaths(t *testing.T) {
	if got := join("", "content"); got != "content" {
		t.Error(got)
	}
	if got := join("metadata", "odd key"); got != `metadata["odd key"]` {
		t.Error(got)
	}
	var changes []FieldChange
	old, _ := jsonTree(map[string]any{"m": map[string]any{"x y": 1, "list": []any{1, 2}}})
	new, _ := jsonTree(map[string]any{"m": map[string]any{"x y": 2, "list": map[string]any{"a": 1}}})
	compare("", old, new, &changes)
	var got []string
	for _, c := range changes {
		got = append(got, c.String())
	}
	want := []string{`changed m.list: [1,2] -> {"a":1}`, `changed m["x y"]: 1 -> 2`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes %q, want %q", got, want)
	}
}

// Two versions say the same thing when only their version bookkeeping and
// analysis time differ (pi-brain-node-model.md, "Versioning Rules").
func TestSameAnalysis(t *testing.T) {
	a := diffTestNode()
	b := diffTestNode()
	b.Version, b.PreviousVersions, b.Metadata.AnalyzedAt = 3, []string{"x-v1", "x-v2"}, "2026-01-01T00:00:00Z"
	if !SameAnalysis(&a, &b) {
		t.Error("versions differing only in bookkeeping and analysis time are not the same")
	}
	if a.Version != 1 || b.Version != 3 || b.Metadata.AnalyzedAt == "" {
		t.Error("SameAnalysis changed its arguments")
	}
	b.Content.Summary += " Again."
	if SameAnalysis(&a, &b) {
		t.Error("a changed summary is the same analysis")
	}
	c := diffTestNode()
	c.Metadata.Cost = 0.5
	if SameAnalysis(&a, &c) {
		t.Error("a changed cost is the same analysis")
	}
}
