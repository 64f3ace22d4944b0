package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/link"
)

func exampleSnapshot(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "backend", "memobrain", "testdata", "example_snapshot.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A reasoning graph is stored whole with its log and turn links, read back
// as written, grows by steps only from the step count it was read at, and
// goes with everything it holds.
func TestReasoningGraphs(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	snap := exampleSnapshot(t)
	g := &ReasoningGraph{ID: "01JH8Z6Q9B2C3D4E5F6G7H8J9K", Title: "Kunsthaus", SourceName: "example_snapshot.json",
		SourceSHA256: "abc", Snapshot: snap, Base: []byte(`{"nodes":{},"edges":[]}`), Messages: []byte(`[{"role":"system","content":"x"}]`),
		Counts: []byte(`{"nodes":9}`)}
	steps := []ReasoningStep{{Kind: "patch", Step: []byte(`{"kind":"patch"}`), Summary: []byte(`{"nodesAdded":1}`)}}
	turns := []ReasoningTurnEntry{{Turn: 3, SessionID: "s", EntryID: "e2"}, {Turn: 3, SessionID: "s", EntryID: "e1"}, {Turn: 2, SessionID: "s", EntryID: "e0"}}
	if err := s.CreateReasoningGraph(ctx, g, steps, turns); err != nil {
		t.Fatal(err)
	}
	got, err := s.ReasoningGraph(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Snapshot) != string(snap) || got.Steps != 1 || string(got.Messages) != string(g.Messages) || got.Title != "Kunsthaus" || got.CreatedAt.IsZero() {
		t.Errorf("read back %+v", got)
	}
	l, err := s.ReasoningGraphBySource(ctx, "abc")
	if err != nil || l.ID != g.ID || l.Messages != 1 {
		t.Errorf("by source: %+v %v", l, err)
	}
	if _, err := s.ReasoningGraphBySource(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("an empty hash finds nothing: %v", err)
	}
	te, err := s.ReasoningTurnEntries(ctx, g.ID, []int{3})
	if err != nil || len(te) != 2 || te[0].EntryID != "e2" || te[1].EntryID != "e1" {
		t.Errorf("turn 3's entries in the order given: %+v %v", te, err)
	}

	// Steps append after the count read; a stale count writes nothing.
	more := []ReasoningStep{{Kind: "flush", Step: []byte(`{"kind":"flush"}`)}, {Kind: "fold", Step: []byte(`{"kind":"fold"}`)}}
	if err := s.AppendReasoningSteps(ctx, g.ID, 1, more, []byte(`{"nodes":{}}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendReasoningSteps(ctx, g.ID, 1, more, []byte(`{}`), nil); !errors.Is(err, ErrReasoningChanged) {
		t.Errorf("a stale step count: %v, want ErrReasoningChanged", err)
	}
	all, err := s.ReasoningSteps(ctx, g.ID, 0, 10, true)
	if err != nil || len(all) != 3 || all[2].Kind != "fold" || string(all[1].Step) != `{"kind":"flush"}` {
		t.Errorf("steps %+v %v", all, err)
	}
	light, _ := s.ReasoningSteps(ctx, g.ID, 1, 2, false)
	if len(light) != 1 || light[0].Step != nil || light[0].Seq != 1 {
		t.Errorf("a step without its JSON: %+v", light)
	}
	if err := s.AppendReasoningSteps(ctx, "nope", 0, nil, nil, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("append to a missing graph: %v", err)
	}

	// The conversation is set once.
	if err := s.SetReasoningMessages(ctx, g.ID, g.Messages); err != nil {
		t.Errorf("the same conversation again: %v", err)
	}
	if err := s.SetReasoningMessages(ctx, g.ID, []byte(`[]`)); err == nil || !strings.Contains(err.Error(), "already has another conversation") {
		t.Errorf("another conversation: %v", err)
	}

	list, err := s.ReasoningGraphs(ctx)
	if err != nil || len(list) != 1 || list[0].Steps != 3 {
		t.Errorf("list %+v %v", list, err)
	}
	if err := s.DeleteReasoningGraph(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "reasoning_steps") + count(t, s, "reasoning_turn_entries"); n != 0 {
		t.Errorf("%d steps and turn links outlive their graph", n)
	}
	if _, err := s.ReasoningGraph(ctx, g.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a deleted graph: %v", err)
	}
}

// A failure half way through storing a graph stores none of it.
func TestReasoningGraphAllOrNothing(t *testing.T) {
	s, _ := openTemp(t)
	g := &ReasoningGraph{ID: "g1", Title: "t", Snapshot: exampleSnapshot(t)}
	err := s.CreateReasoningGraph(context.Background(), g, []ReasoningStep{{Kind: "patch", Step: []byte(`{}`)}, {Kind: "bogus", Step: []byte(`{}`)}}, nil)
	if err == nil {
		t.Fatal("a step of an unknown kind was stored")
	}
	if n := count(t, s, "reasoning_graphs") + count(t, s, "reasoning_steps"); n != 0 {
		t.Errorf("%d rows left by a failed create", n)
	}
}

// A real session's entries page by page, and the knowledge-graph node of
// the segment holding an entry.
func TestSessionEntriesAndEntryNodes(t *testing.T) {
	s, _ := openTemp(t)
	tx, sess, err := importSession(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var all []EntryRecord
	for {
		page, err := s.SessionEntries(ctx, sess.ID, len(all), 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		all = append(all, page...)
	}
	if len(all) != sess.Entries || all[0].Seq != 0 || all[len(all)-1].Seq != sess.Entries-1 {
		t.Fatalf("%d entries read, %d stored", len(all), sess.Entries)
	}
	if _, err := s.SessionEntries(ctx, "nope", 0, 10); !errors.Is(err, ErrNotFound) {
		t.Errorf("an unknown session: %v", err)
	}
	segs, err := s.Segments(ctx, sess.ID)
	if err != nil || len(segs) < 2 {
		t.Fatalf("segments %d %v", len(segs), err)
	}
	last := segs[len(segs)-1]
	inLast := all[last.StartSeq].ID
	nodes, err := s.EntryNodes(ctx, sess.ID, []string{all[0].ID, inLast, "no-such-entry"})
	if err != nil {
		t.Fatal(err)
	}
	if nodes[all[0].ID] != segs[0].NodeID || nodes[inLast] != last.NodeID || len(nodes) != 2 {
		t.Errorf("entry nodes %v; want %s -> %s, %s -> %s", nodes, all[0].ID, segs[0].NodeID, inLast, last.NodeID)
	}
}

// Migration 0085 indexes the reasoning graphs a library already holds: a
// library whose graph was stored before it (its triggers and rows taken
// away, its record removed) finds the graph and its nodes once reopened.
func TestReasoningSearchMigrationBackfills(t *testing.T) {
	s, p := openTemp(t)
	ctx := context.Background()
	g := &ReasoningGraph{ID: "01JH8Z6Q9B2C3D4E5F6G7H8J9K", Title: "Kunsthaus", Snapshot: exampleSnapshot(t), Counts: []byte(`{"nodes":9}`)}
	if err := s.CreateReasoningGraph(ctx, g, nil, nil); err != nil {
		t.Fatal(err)
	}
	rows := func(s *Store) (graphs, nodes int) {
		s.db.QueryRow(`SELECT count(*) FILTER (WHERE kind = 'reasoning'), count(*) FILTER (WHERE kind = 'reasoningNode') FROM search_items`).Scan(&graphs, &nodes)
		return
	}
	if gr, n := rows(s); gr != 1 || n != 9 {
		t.Fatalf("indexed on insert: %d graphs, %d nodes; want 1 and 9", gr, n)
	}
	s2 := reapplyMigration(t, s, p, 85, `DROP TRIGGER search_items_reasoning_insert`, `DROP TRIGGER search_items_reasoning_update`,
		`DROP TRIGGER search_items_reasoning_delete`, `DROP VIEW reasoning_node_texts`,
		`DELETE FROM search_items WHERE kind IN ('reasoning', 'reasoningNode')`)
	if gr, n := rows(s2); gr != 1 || n != 9 {
		t.Fatalf("after the migration: %d graphs, %d nodes; want 1 and 9", gr, n)
	}
	hits, err := s2.SearchItems(ctx, "Chipperfield", []link.Kind{link.KindReasoningNode}, 5)
	if err != nil || len(hits) == 0 || hits[0].Item.Within != g.ID {
		t.Fatalf("Chipperfield: %+v, %v", hits, err)
	}
}

// Every form of thought MemoBrain keeps is indexed without failing the
// graph's save: text, notes with custom roles, one note object, an encoded
// list; a list of plain strings and a null are left out.
func TestReasoningSearchThoughtForms(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	b, err := os.ReadFile(filepath.Join("..", "backend", "memobrain", "testdata", "variants", "thought_forms.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := &ReasoningGraph{ID: "01JH8Z6Q9B2C3D4E5F6G7H8J9K", Title: "Caching", Snapshot: b, Counts: []byte(`{}`)}
	if err := s.CreateReasoningGraph(ctx, g, nil, nil); err != nil {
		t.Fatalf("a graph with every form of thought: %v", err)
	}
	for q, node := range map[string]string{"compare the two caching": "1", "measure p99": "2", "one note": "8", "ARC p99 35 ms beats": "6"} {
		hits, err := s.SearchItems(ctx, q, []link.Kind{link.KindReasoningNode}, 5)
		if err != nil || len(hits) == 0 || hits[0].Item.ID != node {
			t.Errorf("%q: %+v, %v; want node %s", q, hits, err, node)
		}
	}
}
