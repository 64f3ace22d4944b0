package store

import (
	"context"
	"testing"
	"time"
)

// A relations mark is cleared only if it is still the one read before the
// derivation: a project marked again meanwhile stays marked; a failed
// transaction leaves no mark.
func TestRelationsPendingMarks(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	mark := func(at time.Time, commit bool) {
		tx, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if err := tx.MarkRelationsPending("/p", at); err != nil {
			t.Fatal(err)
		}
		if commit {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
	}
	t0 := time.Date(2026, 1, 5, 10, 0, 0, 1, time.UTC)
	mark(t0, false)
	if m, _ := s.RelationsPending(ctx); len(m) != 0 {
		t.Fatalf("a rolled-back mark: %v", m)
	}
	mark(t0, true)
	read, _ := s.RelationsPending(ctx)
	mark(t0.Add(time.Nanosecond), true) // an import marks it again while it is derived
	if err := s.ClearRelationsPending(ctx, "/p", read["/p"]); err != nil {
		t.Fatal(err)
	}
	m, _ := s.RelationsPending(ctx)
	if len(m) != 1 {
		t.Fatalf("the later mark was cleared: %v", m)
	}
	if err := s.ClearRelationsPending(ctx, "/p", m["/p"]); err != nil {
		t.Fatal(err)
	}
	if m, _ := s.RelationsPending(ctx); len(m) != 0 {
		t.Fatalf("not cleared: %v", m)
	}
}
