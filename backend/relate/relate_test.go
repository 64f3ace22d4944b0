package relate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
)

var t0 = time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)

func seg(id, session, project string, start time.Duration, files ...string) Segment {
	return Segment{ID: id, SessionID: session, Project: project, Start: t0.Add(start), End: t0.Add(start + 10*time.Minute),
		Files: files, Outcome: graph.OutcomeSuccess}
}

func find(edges []Edge, rel link.Relation, a, b string) *Edge {
	for i, e := range edges {
		if e.Relation == rel && (e.Source.ID == a && e.Target.ID == b || !rel.Directed() && e.Source.ID == b && e.Target.ID == a) {
			return &edges[i]
		}
	}
	return nil
}

func count(edges []Edge, rel link.Relation) int {
	n := 0
	for _, e := range edges {
		if e.Relation == rel {
			n++
		}
	}
	return n
}

// automem-features.md, "Edge Types" (RELATES_TO): segments of different
// sessions touching the same rare files relate, weighted by rarity; a file
// every segment touches relates nothing; segments of one session are left
// to the continuation edges.
func TestSharedFilesWeightedByRarity(t *testing.T) {
	var segs []Segment
	// 40 sessions of one project all touch package.json (ubiquitous).
	for i := 0; i < 40; i++ {
		segs = append(segs, seg(fmt.Sprintf("n%02d", i), fmt.Sprintf("s%02d", i), "/p", time.Duration(i)*time.Hour,
			"package.json", fmt.Sprintf("src/only%d.ts", i)))
	}
	segs[3].Files = append(segs[3].Files, "src/auth/jwt.ts", "src/auth/refresh.ts")
	segs[17].Files = append(segs[17].Files, "src/auth/jwt.ts", "src/auth/refresh.ts")
	segs[25].Files = append(segs[25].Files, "src/auth/jwt.ts")
	// The same session twice: no shared-file edge between its own segments.
	segs = append(segs, seg("n03b", "s03", "/p", 3*time.Hour+20*time.Minute, "src/auth/jwt.ts", "src/auth/refresh.ts"))
	// Another project's file of the same relative name is another file.
	segs = append(segs, seg("q1", "t1", "/q", 0, "src/auth/jwt.ts", "src/auth/refresh.ts"))
	edges := Derive(segs, Options{})
	e := find(edges, link.RelatesTo, "n03", "n17")
	if e == nil {
		t.Fatalf("no RELATES_TO between n03 and n17: %v", edges)
	}
	weak := find(edges, link.RelatesTo, "n03", "n25")
	if weak == nil || weak.Confidence >= e.Confidence {
		t.Errorf("one shared file %v should relate less than two %v", weak, e)
	}
	if e.Similarity == nil || *e.Similarity <= 0 || *e.Similarity > 1 || e.CreatedBy != link.ByOffline {
		t.Errorf("edge %+v", e)
	}
	if !strings.Contains(e.Rationale, "src/auth/jwt.ts") || !strings.Contains(e.Rationale, "of 42 segments") {
		t.Errorf("rationale %q", e.Rationale)
	}
	if find(edges, link.RelatesTo, "n03", "n03b") != nil {
		t.Error("two segments of one session related by files")
	}
	if find(edges, link.RelatesTo, "n03", "q1") != nil {
		t.Error("files of two projects with the same relative path related")
	}
	for _, x := range edges {
		if x.Relation == link.RelatesTo && strings.Contains(x.Rationale, "package.json") {
			t.Errorf("the ubiquitous package.json relates: %+v", x)
		}
		if err := x.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// Refs reads issue and pull request numbers and URLs, not colours.
func TestRefs(t *testing.T) {
	got := Refs("https://github.com/badlogic/pi-mono/issues/288 see PR #299 and https://GitHub.com/Badlogic/pi-mono/pull/299/files. " +
		"colours #b5bd68 and #283228; issue 42, (#7) https://docs.example.com/a?b=1#frag. fixed #issue")
	want := []string{"https://github.com/badlogic/pi-mono/issues/288", "#299", "https://github.com/badlogic/pi-mono/pull/299",
		"#42", "#7", "https://docs.example.com/a?b=1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Refs:\n%v\nwant\n%v", got, want)
	}
	if len(Refs(strings.Repeat("#1 #2 #3 ", 100))) > MaxRefs {
		t.Error("more than MaxRefs")
	}
}

// The same issue named in two sessions relates them; the segment
// REFERENCES the URL; a bare number relates only within a project.
func TestSharedRefs(t *testing.T) {
	a := seg("a", "s1", "/p", 0)
	a.Refs = Refs("https://github.com/o/r/issues/12 and #5")
	b := seg("b", "s2", "/p", time.Hour)
	b.Refs = Refs("follow-up on https://github.com/O/R/pull/12, also #5")
	c := seg("c", "s3", "/q", 2*time.Hour)
	c.Refs = []string{"#5"}
	edges := Derive([]Segment{a, b, c}, Options{})
	if e := find(edges, link.RelatesTo, "a", "b"); e == nil || e.Confidence != 0.6 {
		t.Errorf("issue/PR 12 relation: %+v", e)
	}
	if find(edges, link.RelatesTo, "a", "c") != nil || find(edges, link.RelatesTo, "b", "c") != nil {
		t.Error("bare #5 related two projects")
	}
	var refs int
	for _, e := range edges {
		if e.Relation == link.References {
			refs++
			if e.Target.Kind != link.KindURL || e.Confidence != 0.9 {
				t.Errorf("REFERENCES %+v", e)
			}
		}
	}
	if refs != 2 {
		t.Errorf("%d REFERENCES edges, want 2 (a and b each name their issue URL)", refs)
	}
}

// OCCURRED_BEFORE joins neighbours only (n-1 edges for n sessions), and
// LEADS_TO joins a session that ended failed or partial to the next one
// that picks up its files.
func TestSessionOrderAndContinuation(t *testing.T) {
	var segs []Segment
	for i := 0; i < 6; i++ {
		s := seg(fmt.Sprintf("n%d", i), fmt.Sprintf("s%d", i), "/p", time.Duration(i)*3*time.Hour, fmt.Sprintf("f%d.go", i))
		segs = append(segs, s)
	}
	segs[1].Outcome = graph.OutcomeFailed
	segs[1].Files = append(segs[1].Files, "store/db.go")
	segs[2].Files = append(segs[2].Files, "store/db.go")
	segs[3].Outcome = graph.OutcomePartial // the next session touches nothing of it
	// An overlapping session.
	segs = append(segs, seg("o", "so", "/p", 15*time.Hour+5*time.Minute, "x.go"))
	edges := Derive(segs, Options{})
	if n := count(edges, link.OccurredBefore); n != 6 {
		t.Errorf("%d OCCURRED_BEFORE edges for 7 sessions, want 6", n)
	}
	if e := find(edges, link.OccurredBefore, "n0", "n1"); e == nil || e.Confidence != 1 || !strings.Contains(e.Rationale, "2 h") {
		t.Errorf("n0 -> n1: %+v", e)
	}
	if e := find(edges, link.OccurredBefore, "n5", "o"); e == nil || e.Confidence != 0.8 {
		t.Errorf("overlapping sessions: %+v", e)
	}
	l := find(edges, link.LeadsTo, "n1", "n2")
	if l == nil || l.Confidence != 0.75 || !strings.Contains(l.Rationale, "store/db.go") || !strings.Contains(l.Rationale, "failed") {
		t.Errorf("LEADS_TO n1 -> n2: %+v", l)
	}
	if count(edges, link.LeadsTo) != 1 {
		t.Errorf("LEADS_TO without shared evidence: %d edges", count(edges, link.LeadsTo))
	}
}

// Merge keeps one edge per (source, target, relation), either way round for
// a symmetric relation, the highest confidence and every rationale.
func TestMerge(t *testing.T) {
	a, b := link.Node("aaaa"), link.Node("bbbb")
	sim := 0.4
	offline := []Edge{{Source: a, Target: b, Relation: link.RelatesTo, Confidence: 0.4, Similarity: &sim, Rationale: "both touch x.go", CreatedBy: link.ByOffline}}
	model := []Edge{
		{Source: b, Target: a, Relation: link.RelatesTo, Confidence: 0.8, Rationale: "same auth refactor", CreatedBy: link.ByModel},
		{Source: a, Target: b, Relation: link.LeadsTo, Confidence: 0.7, Rationale: "b fixes a's bug", CreatedBy: link.ByModel},
		{Source: a, Target: b, Relation: link.LeadsTo, Confidence: 0.5, Rationale: "b fixes a's bug", CreatedBy: link.ByModel},
	}
	got, err := Merge(offline, model)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d edges: %+v", len(got), got)
	}
	rel := find(got, link.RelatesTo, "aaaa", "bbbb")
	if rel.Confidence != 0.8 || rel.CreatedBy != link.ByModel || rel.Similarity == nil || *rel.Similarity != 0.4 ||
		rel.Rationale != "offline: both touch x.go; model: same auth refactor" {
		t.Errorf("merged %+v", rel)
	}
	if l := find(got, link.LeadsTo, "aaaa", "bbbb"); l.Confidence != 0.7 || l.Rationale != "b fixes a's bug" {
		t.Errorf("merged LEADS_TO %+v", l)
	}
	bad := []Edge{{Source: a, Target: b, Relation: "FRIENDS_WITH", Confidence: 0.5, CreatedBy: link.ByModel}}
	if _, err := Merge(offline, bad); err == nil || !strings.Contains(err.Error(), "list 1, edge 0") {
		t.Errorf("bad relation: %v", err)
	}
	if _, err := Merge([]Edge{{Source: a, Target: a, Relation: link.RelatesTo, Confidence: 0.5, CreatedBy: link.ByModel}}); err == nil {
		t.Error("a self loop merged")
	}
	if _, err := Merge([]Edge{{Source: a, Target: b, Relation: link.RelatesTo, Confidence: 1.5, CreatedBy: link.ByModel}}); err == nil {
		t.Error("confidence 1.5 merged")
	}
}

// No n² step: a file every segment touches, and a corpus of segments that
// all share one hot file, make no quadratic pile of edges.
func TestNoQuadraticBlowUp(t *testing.T) {
	var segs []Segment
	for i := 0; i < 3000; i++ {
		segs = append(segs, seg(fmt.Sprintf("n%04d", i), fmt.Sprintf("s%04d", i), "/p", time.Duration(i)*time.Minute*11, "hot.go"))
	}
	edges := Derive(segs, Options{})
	if n := count(edges, link.RelatesTo); n != 0 {
		t.Errorf("%d RELATES_TO edges from a file all 3000 segments touch", n)
	}
	if n := count(edges, link.OccurredBefore); n != 2999 {
		t.Errorf("%d OCCURRED_BEFORE, want 2999", n)
	}
}
