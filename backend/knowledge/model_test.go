package knowledge

import (
	"testing"
	"time"

	"rhizome/backend/graph"
)

// modelItem is version 1 of an item the model proposed from segment
// "seg" at time at, citing entries.
func modelItem(t *testing.T, body any, at time.Time, entries ...string) Item {
	t.Helper()
	it, err := New(body, "/p", t0, ModelConfidence("medium"), Provenance{SessionID: "s", SegmentNodeID: "seg",
		EntryIDs: entries, CreatedBy: ByModel, Model: "openai/m"}, at)
	if err != nil {
		t.Fatal(err)
	}
	it.ID = ModelID(at, "seg", ModelGroup(it), it.subject())
	return it
}

func lesson(level, summary string) *graph.Lesson {
	return &graph.Lesson{Level: level, Summary: summary, Confidence: "medium", Tags: []string{}}
}

// ReconcileModel (issue 23): an analysis run again matches the items the
// model made from the segment before, by kind (and lesson level) and
// subject: the same answer writes nothing; a reworded item is a new
// version of the same id; an item no longer reported is marked stale, and
// comes back active when reported again; an item a person edited, or one
// superseded, is never overwritten; what matches nothing is added. No
// supersession is ever made.
func TestReconcileModel(t *testing.T) {
	at1, at2 := t0.Add(time.Hour), t0.Add(2*time.Hour)
	dec := modelItem(t, &Decision{Description: "Use SQLite for the library"}, at1, "e1")
	tool := modelItem(t, lesson("tool", "The edit tool needs the exact text"), at1, "e2")
	task := modelItem(t, lesson("task", "Read the whole file before porting it"), at1, "e3")
	prev := []Item{dec, tool, task}

	// The same answer again: nothing.
	again := []Item{modelItem(t, &Decision{Description: "Use SQLite for the library"}, at2, "e1"),
		modelItem(t, lesson("tool", "The edit tool needs the exact text"), at2, "e2"),
		modelItem(t, lesson("task", "Read the whole file before porting it"), at2, "e3")}
	ch, err := ReconcileModel(prev, again, at2)
	if err != nil || len(ch.Add) != 0 || len(ch.Versions) != 0 || ch.Unchanged != 3 {
		t.Fatalf("the same answer: %+v %v", ch, err)
	}

	// The decision reworded (same entry), the tool lesson left out, a
	// question of level "task" lesson reworded past recognition, a new
	// correction.
	found := []Item{modelItem(t, &Decision{Description: "Use SQLite for the whole library"}, at2, "e1"),
		modelItem(t, lesson("task", "Porting needs the file read in full first"), at2, "e3"),
		modelItem(t, lesson("user", "Read the whole file before porting it"), at2, "e3"),
		modelItem(t, &Correction{RightBelief: "pi writes v3"}, at2, "e4")}
	ch, err = ReconcileModel(prev, found, at2)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Item{}
	for _, v := range ch.Versions {
		byID[v.ID] = v
	}
	if v := byID[dec.ID]; v.Version != 2 || v.Decision.Description != "Use SQLite for the whole library" || v.Source.CreatedBy != ByModel || v.Status != StatusActive {
		t.Errorf("reworded decision: %+v", v)
	}
	if v := byID[task.ID]; v.Version != 2 || v.Lesson.Summary != "Porting needs the file read in full first" {
		t.Errorf("a task lesson sharing its entry and some words: %+v", v)
	}
	if v := byID[tool.ID]; v.Version != 2 || v.Status != StatusStale || v.Lesson.Summary != tool.Lesson.Summary {
		t.Errorf("a lesson no longer reported: %+v", v)
	}
	if len(ch.Add) != 2 || ch.Add[0].Kind != KindLesson || ch.Add[0].Lesson.Level != "user" || ch.Add[1].Kind != KindCorrection {
		t.Errorf("added %+v (a lesson of another level is another item)", ch.Add)
	}
	if ch.Updated != 2 || ch.Retired != 1 || ch.Unchanged != 0 {
		t.Errorf("counts %+v", ch)
	}

	// Reported again after it was retired: active again.
	retired := byID[tool.ID]
	ch, err = ReconcileModel([]Item{retired}, []Item{modelItem(t, lesson("tool", "The edit tool needs the exact text"), at2, "e2")}, at2)
	if err != nil || len(ch.Versions) != 1 || ch.Versions[0].Status != StatusActive || ch.Versions[0].Version != 3 {
		t.Errorf("back from stale: %+v %v", ch, err)
	}
	// Not reported while stale: left stale, no version.
	if ch, err = ReconcileModel([]Item{retired}, nil, at2); err != nil || len(ch.Versions) != 0 || ch.Unchanged != 1 {
		t.Errorf("stale and still not reported: %+v %v", ch, err)
	}

	// A person's edit, and a superseded item, stay as they are.
	edited := dec
	edited.Decision = &Decision{Description: "Use SQLite, one file per library", Status: DecisionDevelopmental}
	edited, err = NewVersion(dec, edited, ByUser, at1)
	if err != nil {
		t.Fatal(err)
	}
	sup := task
	sup.Status = StatusSuperseded
	ch, err = ReconcileModel([]Item{edited, sup}, []Item{modelItem(t, &Decision{Description: "Use SQLite for the whole library"}, at2, "e1")}, at2)
	if err != nil || len(ch.Versions) != 0 || len(ch.Add) != 0 || ch.Unchanged != 2 {
		t.Errorf("a person's edit and a superseded item: %+v %v", ch, err)
	}
}

// The model's confidence words map above the offline rules' and below a
// person's word; ids are stable for the same answer at the same time.
func TestModelConfidenceAndID(t *testing.T) {
	if ModelConfidence("high") != 0.9 || ModelConfidence("medium") != 0.7 || ModelConfidence("low") != 0.5 || ModelConfidence("") != DefaultModelConfidence {
		t.Errorf("confidences")
	}
	a, b := ModelID(t0, "seg", "decision", "Use SQLite."), ModelID(t0, "seg", "decision", "use sqlite")
	if a != b || a == ModelID(t0.Add(time.Second), "seg", "decision", "Use SQLite.") || a == ModelID(t0, "seg", "lesson/tool", "Use SQLite.") {
		t.Errorf("ids %s %s", a, b)
	}
	it := modelItem(t, &Decision{Description: "x y"}, t0)
	if err := it.Validate(); err != nil {
		t.Errorf("a model id is no valid ULID: %v", err)
	}
}
