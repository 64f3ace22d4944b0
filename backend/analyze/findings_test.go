package analyze

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/llm/llmtest"
)

// An answer with key decisions, corrections, failed approaches and lessons
// citing entries (issue 23): each becomes a Finding of its kind with the
// model's confidence and the ids of the entries cited, stated when the
// first of them was written; a number that is no entry of the segment is
// dropped, a repeated failed approach kept once, one without its approach
// dropped, each noted in daemonMeta.decisions. The node keeps the decision
// and lessons (graph.Node has no corrections or failed approaches).
func TestModelFindings(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "model", "poem-segment-knowledge.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, providers[0])
	f.script(llmtest.Reply{Text: string(b)})
	in, _ := realSegment(t, "session-with-compaction", 1)
	res, err := AnalyzeSegment(context.Background(), f.client, in, f.options())
	if err != nil || res.Failure != nil {
		t.Fatalf("error %v, failure %+v", err, res.Failure)
	}
	bySeq := map[int]string{}
	stated := map[int]string{}
	for _, e := range in.Entries {
		bySeq[e.Seq] = e.ID
		stated[e.Seq] = e.Timestamp.UTC().Format("15:04:05")
	}
	if bySeq[459] == "" || bySeq[460] == "" {
		t.Fatalf("entries 459 and 460 are not in the segment (%d to %d)", in.Entries[0].Seq, in.Entries[len(in.Entries)-1].Seq)
	}
	var kinds []string
	for _, fd := range res.Findings {
		kinds = append(kinds, fd.Kind)
	}
	if want := []string{FindingDecision, FindingCorrection, FindingFailedApproach, FindingLesson, FindingLesson}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("findings %v, want %v", kinds, want)
	}
	d, c, fa, user, model := res.Findings[0], res.Findings[1], res.Findings[2], res.Findings[3], res.Findings[4]
	if d.Decision.What != "Leave the agent-session.ts change uncommitted and write the poem" || d.Confidence != "" ||
		!reflect.DeepEqual(d.Decision.AlternativesConsidered, []string{"commit the documentation work first"}) ||
		!reflect.DeepEqual(d.EntryIDs, []string{bySeq[459], bySeq[460]}) || d.Stated.UTC().Format("15:04:05") != stated[459] {
		t.Errorf("decision %+v", d)
	}
	if c.Correction.RightBelief != "The user wanted a short poem, not git commands" || c.Correction.Severity != "significant" ||
		c.Confidence != "high" || !reflect.DeepEqual(c.EntryIDs, []string{bySeq[459], bySeq[460]}) {
		t.Errorf("correction %+v (entry 9999 dropped)", c)
	}
	if !strings.HasPrefix(fa.FailedApproach.Approach, "Running git status") || fa.FailedApproach.Lesson == "" ||
		fa.Confidence != "medium" || !reflect.DeepEqual(fa.EntryIDs, []string{bySeq[459]}) {
		t.Errorf("failed approach %+v", fa)
	}
	if user.Lesson.Level != "user" || !reflect.DeepEqual(user.EntryIDs, []string{bySeq[460], bySeq[459]}) || user.Stated.UTC().Format("15:04:05") != stated[459] ||
		model.Lesson.Level != "model" || model.Confidence != "high" || len(model.EntryIDs) != 0 || model.Stated.IsZero() {
		t.Errorf("lessons %+v %+v", user, model)
	}
	var notes []string
	for _, x := range res.Node.DaemonMeta.Decisions {
		notes = append(notes, x.Decision)
	}
	for _, want := range []string{"Dropped entry numbers outside the segment", "Dropped findings without their text"} {
		if !contains(notes, want) {
			t.Errorf("daemonMeta decisions %v lack %q", notes, want)
		}
	}
	if n := res.Node; len(n.Content.KeyDecisions) != 1 || n.Content.KeyDecisions[0].What != d.Decision.What || len(n.Lessons.User) != 1 {
		t.Errorf("node content %+v, lessons %+v", n.Content, n.Lessons)
	}
	if got := nodeJSON(t, res.Node); strings.Contains(got, "rightBelief") || strings.Contains(got, `"entries"`) {
		t.Errorf("the node holds the findings' fields: %s", got)
	}
}

// An answer to the first schema (no corrections, failed approaches,
// decision confidence or entries) still parses, with those empty.
func TestParseAnalysisFirstSchema(t *testing.T) {
	a, err := ParseAnalysis([]byte(poem(t)))
	if err != nil {
		t.Fatal(err)
	}
	if a.Content.Corrections == nil || a.Content.FailedApproaches == nil || a.Lessons.User[0].Entries == nil || len(a.Lessons.User[0].Entries) != 0 {
		t.Errorf("content %+v, lessons %+v", a.Content, a.Lessons)
	}
	if _, err := ParseAnalysis([]byte(strings.Replace(poem(t), `"keyDecisions": []`, `"keyDecisions": [{"what": "x", "why": "y", "alternativesConsidered": [], "confidence": "sure"}]`, 1))); err == nil ||
		!strings.Contains(err.Error(), "keyDecisions/0/confidence") {
		t.Errorf("a confidence outside the enum: %v", err)
	}
	// The hand-over shows a decision without confidence as the schema has it.
	if b, _ := json.Marshal(AnalysisDecision{}); !strings.Contains(string(b), `"confidence":null`) {
		t.Errorf("a decision without confidence written as %s", b)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
