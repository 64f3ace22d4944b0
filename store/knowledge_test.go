package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"rhizome/backend/knowledge"
	"rhizome/backend/link"
)

func mustItem(t *testing.T, body any, project string, by knowledge.CreatedBy, at time.Time) knowledge.Item {
	t.Helper()
	src := knowledge.Provenance{CreatedBy: by}
	if by == knowledge.ByOffline {
		src.Rule, src.SessionID = knowledge.RuleDecided, "sess-1"
	}
	it, err := knowledge.New(body, project, at, 0.5, src, at)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

// TestKnowledgeVersionsAndSupersession stores a decision, edits it (version
// 2), refuses a stale edit, supersedes it by a newer one and reads the
// chain back; filters keep what they name.
func TestKnowledgeVersionsAndSupersession(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	a := mustItem(t, &knowledge.Decision{Description: "Use SQLite for the library"}, "/p", knowledge.ByUser, t0)
	if err := s.AddKnowledge(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.AddKnowledge(ctx, a); !errors.Is(err, ErrKnowledgeConflict) {
		t.Fatalf("adding twice: %v, want ErrKnowledgeConflict", err)
	}
	ed := a
	ed.Decision = &knowledge.Decision{Description: a.Decision.Description, Rationale: "one file", Status: a.Decision.Status}
	v2, err := knowledge.NewVersion(a, ed, knowledge.ByUser, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutKnowledgeVersion(ctx, v2); err != nil {
		t.Fatal(err)
	}
	if err := s.PutKnowledgeVersion(ctx, v2); !errors.Is(err, ErrKnowledgeConflict) {
		t.Fatalf("a stale version: %v, want ErrKnowledgeConflict", err)
	}
	vs, err := s.KnowledgeVersions(ctx, a.ID)
	if err != nil || len(vs) != 2 || vs[1].Decision.Rationale != "one file" || vs[0].Decision.Rationale != "" {
		t.Fatalf("versions %+v, %v", vs, err)
	}

	b := mustItem(t, &knowledge.Decision{Description: "Use SQLite with WAL"}, "/p", knowledge.ByUser, t0.Add(24*time.Hour))
	if err := s.AddKnowledge(ctx, b); err != nil {
		t.Fatal(err)
	}
	old := v2
	old.Status = knowledge.StatusSuperseded
	v3, err := knowledge.NewVersion(v2, old, knowledge.ByUser, t0.Add(25*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	sup := knowledge.Supersession{Newer: b.ID, Older: a.ID, StatedBy: knowledge.ByUser, StatedAt: t0.Add(25 * time.Hour)}
	if err := s.Supersede(ctx, sup, &v3); err != nil {
		t.Fatal(err)
	}
	if err := s.Supersede(ctx, sup, &v3); err == nil {
		t.Fatal("the same supersession twice was accepted")
	}
	sups, err := s.Supersessions(ctx)
	if err != nil || len(sups) != 1 || sups[0].Newer != b.ID || !sups[0].StatedAt.Equal(sup.StatedAt) {
		t.Fatalf("supersessions %+v, %v", sups, err)
	}
	items, err := s.ListKnowledge(ctx, KnowledgeFilter{})
	if err != nil || len(items) != 2 || items[0].ID != b.ID {
		t.Fatalf("list %+v, %v", items, err)
	}
	res, err := knowledge.Resolve(items, sups)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Chain(a.ID); len(c) != 2 || c[0] != b.ID || c[1] != a.ID {
		t.Fatalf("chain %v", c)
	}
	act, _ := s.ListKnowledge(ctx, KnowledgeFilter{Statuses: []knowledge.Status{knowledge.StatusActive}})
	if len(act) != 1 || act[0].ID != b.ID {
		t.Fatalf("active: %+v", act)
	}
	q, _ := s.ListKnowledge(ctx, KnowledgeFilter{Query: "sqlite WAL"})
	if len(q) != 1 || q[0].ID != b.ID {
		t.Fatalf("query: %+v", q)
	}
	other, _ := s.ListKnowledge(ctx, KnowledgeFilter{Project: "/q", CrossProject: true})
	if len(other) != 0 {
		t.Fatalf("project /q: %+v", other)
	}
	if _, err := s.Knowledge(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

// TestOfflineKnowledgeKeepsEdits: re-extraction replaces an offline item only
// while it is the rule's own version 1; an edited one stays as edited, and a
// rewrite deletes only the untouched ones.
func TestOfflineKnowledgeKeepsEdits(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	a := mustItem(t, &knowledge.Decision{Description: "Use pgx"}, "/p", knowledge.ByOffline, t0)
	b := mustItem(t, &knowledge.ProjectFact{Fact: "Never push to main", Category: knowledge.CategoryConstraint}, "/p", knowledge.ByOffline, t0)
	b.Source.Rule = knowledge.RuleAlwaysNever
	if _, _, err := s.ReplaceOfflineKnowledge(ctx, "sess-1", []knowledge.Item{a, b}); err != nil {
		t.Fatal(err)
	}
	ed := a
	ed.Decision = &knowledge.Decision{Description: "Use pgx v5", Status: a.Decision.Status}
	v2, err := knowledge.NewVersion(a, ed, knowledge.ByUser, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutKnowledgeVersion(ctx, v2); err != nil {
		t.Fatal(err)
	}
	// Found again, a minute later: a's edit stays, b is unchanged.
	a2, b2 := a, b
	a2.CreatedAt, b2.CreatedAt = t0.Add(2*time.Hour), t0.Add(2*time.Hour)
	before, after, err := s.ReplaceOfflineKnowledge(ctx, "sess-1", []knowledge.Item{a2, b2})
	if err != nil || before != 2 || after != 2 {
		t.Fatalf("replace: %d -> %d, %v", before, after, err)
	}
	got, _ := s.Knowledge(ctx, a.ID)
	if got.Version != 2 || got.Decision.Description != "Use pgx v5" {
		t.Fatalf("the edited item was overwritten: %+v", got)
	}
	gb, _ := s.Knowledge(ctx, b.ID)
	if !gb.CreatedAt.Equal(t0) {
		t.Fatalf("an unchanged offline item was rewritten: createdAt %v", gb.CreatedAt)
	}
	// The rules no longer find anything: only the untouched item goes.
	if _, after, err = s.ReplaceOfflineKnowledge(ctx, "sess-1", nil); err != nil || after != 1 {
		t.Fatalf("after an empty re-extraction: %d items, %v", after, err)
	}
	if _, err := s.Knowledge(ctx, a.ID); err != nil {
		t.Fatalf("the edited item went: %v", err)
	}
}

// TestAddKnowledgeSupersedingAllOrNothing: when the superseded item's new
// version conflicts (someone saved a version since), the new item is not
// stored either.
func TestAddKnowledgeSupersedingAllOrNothing(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	old := mustItem(t, &knowledge.Decision{Description: "Poll"}, "/p", knowledge.ByUser, t0)
	if err := s.AddKnowledge(ctx, old); err != nil {
		t.Fatal(err)
	}
	marked := old
	marked.Status = knowledge.StatusSuperseded
	v2, err := knowledge.NewVersion(old, marked, knowledge.ByUser, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	stale := v2
	stale.Version = 5 // not the next version
	newer := mustItem(t, &knowledge.Decision{Description: "Watch"}, "/p", knowledge.ByUser, t0.Add(time.Hour))
	sup := &knowledge.Supersession{Newer: newer.ID, Older: old.ID, StatedBy: knowledge.ByUser, StatedAt: t0.Add(time.Hour)}
	if err := s.AddKnowledgeSuperseding(ctx, newer, sup, &stale); !errors.Is(err, ErrKnowledgeConflict) {
		t.Fatalf("a stale version: %v, want ErrKnowledgeConflict", err)
	}
	if _, err := s.Knowledge(ctx, newer.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the new item was stored all the same: %v", err)
	}
	if sups, _ := s.Supersessions(ctx); len(sups) != 0 {
		t.Fatalf("supersessions %+v", sups)
	}
	if err := s.AddKnowledgeSuperseding(ctx, newer, sup, &v2); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Knowledge(ctx, old.ID); got.Version != 2 || got.Status != knowledge.StatusSuperseded {
		t.Fatalf("older %+v", got)
	}
}

// Knowledge items are found by the picker and the search box (migration
// 0086), new ones and edited ones as they are now, and those a library held
// before the migration once it is applied.
func TestKnowledgeInItemSearch(t *testing.T) {
	s, p := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	a := mustItem(t, &knowledge.Decision{Description: "Use SQLite for the library"}, "/p", knowledge.ByUser, t0)
	if err := s.AddKnowledge(ctx, a); err != nil {
		t.Fatal(err)
	}
	find := func(s *Store, q string) []ItemHit {
		hits, err := s.SearchItems(ctx, q, []link.Kind{link.KindKnowledge}, 5)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if h := find(s, "sqlite"); len(h) != 1 || h[0].Item != link.Knowledge(a.ID) || !h[0].Exists {
		t.Fatalf("sqlite: %+v", h)
	}
	s2 := reapplyMigration(t, s, p, 86, `DROP TRIGGER search_items_knowledge_insert`, `DROP TRIGGER search_items_knowledge_update`,
		`DROP TRIGGER search_items_knowledge_delete`, `DELETE FROM search_items WHERE kind = 'knowledge'`)
	if h := find(s2, "sqlite"); len(h) != 1 || h[0].Item != link.Knowledge(a.ID) {
		t.Fatalf("after the migration: %+v", h)
	}
}

// The model's items of a segment (issue 23): SegmentKnowledge lists the
// current versions of the items a maker first made from the segment, and
// PutKnowledge adds items and next versions in the caller's transaction,
// refusing an item stored already and a version that does not follow.
func TestSegmentKnowledgeInTx(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 0, time.UTC)
	item := func(body any, by knowledge.CreatedBy, seg string) knowledge.Item {
		it, err := knowledge.New(body, "/p", t0, 0.7, knowledge.Provenance{CreatedBy: by, SegmentNodeID: seg, Model: "openai/m"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	a := item(&knowledge.Decision{Description: "Use SQLite"}, knowledge.ByModel, "seg")
	b := item(&knowledge.FailedApproach{Approach: "sed", Outcome: "missed lines"}, knowledge.ByModel, "seg")
	other := item(&knowledge.Decision{Description: "Use WAL"}, knowledge.ByModel, "seg2")
	mine := item(&knowledge.Decision{Description: "Keep one file"}, knowledge.ByUser, "seg")
	write := func(added, versions []knowledge.Item) error {
		tx, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if err := tx.PutKnowledge(added, versions); err != nil {
			return err
		}
		return tx.Commit()
	}
	if err := write([]knowledge.Item{a, b, other, mine}, nil); err != nil {
		t.Fatal(err)
	}
	if err := write([]knowledge.Item{a}, nil); !errors.Is(err, ErrKnowledgeConflict) {
		t.Fatalf("adding twice: %v", err)
	}
	ed := a
	ed.Status = knowledge.StatusStale
	v2, err := knowledge.NewVersion(a, ed, knowledge.ByModel, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := write(nil, []knowledge.Item{v2}); err != nil {
		t.Fatal(err)
	}
	if err := write(nil, []knowledge.Item{v2}); !errors.Is(err, ErrKnowledgeConflict) {
		t.Fatalf("a version that does not follow: %v", err)
	}
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	got, err := tx.SegmentKnowledge("seg", knowledge.ByModel)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, it := range got {
		ids[it.ID] = it.Version
	}
	if len(got) != 2 || ids[a.ID] != 2 || ids[b.ID] != 1 {
		t.Errorf("the model's items of seg: %+v", got)
	}
}
