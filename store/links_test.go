package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/link"
)

func newLink(t *testing.T, src, dst link.Item, typ link.Relation, note string, at time.Time) link.Link {
	t.Helper()
	l, err := link.New(src, dst, typ, note, link.ByUser, at)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func linkIDs(ls []link.Link) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.ID
	}
	return out
}

// Links are stored, read back whole, changed (type and note, nothing else),
// listed from their source and from their target (backlinks: by type, then
// newest first) and deleted; a duplicate id, an invalid link and an unknown
// id are errors that name what is wrong. See issue 8, "Links".
func TestLinksCRUDAndBacklinks(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	a, b, c := link.Node("aaaa"), link.Node("bbbb"), link.LoomNode("T1", "N1")
	ab := newLink(t, a, b, link.LeadsTo, "the **fix**", t0)
	cb := newLink(t, c, b, link.RelatesTo, "", t0.Add(time.Minute))
	cb2 := newLink(t, a, b, link.RelatesTo, "", t0.Add(2*time.Minute))
	url := newLink(t, a, link.URL("https://example.com/x"), link.Cites, "", t0.Add(3*time.Minute))
	for _, l := range []link.Link{ab, cb, cb2, url} {
		if err := s.PutLink(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutLink(ctx, ab); !errors.Is(err, ErrLinkExists) {
		t.Fatalf("a second PutLink of %s: %v, want ErrLinkExists", ab.ID, err)
	}
	bad := ab
	bad.ID, bad.Type = newLink(t, a, b, link.LeadsTo, "", t0).ID, "LIKES"
	if err := s.PutLink(ctx, bad); err == nil || !strings.Contains(err.Error(), "field type") {
		t.Fatalf("PutLink of an unknown type: %v, want an error naming the field", err)
	}

	got, err := s.Link(ctx, ab.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got != ab {
		t.Fatalf("Link(%s) = %+v, want %+v", ab.ID, got, ab)
	}
	back, err := s.LinksTo(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	// By type (LEADS_TO before RELATES_TO), newest first within a type.
	if want := []string{ab.ID, cb2.ID, cb.ID}; !slices.Equal(linkIDs(back), want) {
		t.Fatalf("backlinks of %s = %v, want %v", b, linkIDs(back), want)
	}
	out, err := s.LinksFrom(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{url.ID, ab.ID, cb2.ID}; !slices.Equal(linkIDs(out), want) {
		t.Fatalf("links from %s = %v, want %v", a, linkIDs(out), want)
	}
	if none, err := s.LinksTo(ctx, a); err != nil || len(none) != 0 {
		t.Fatalf("backlinks of %s = %v, %v; want none", a, none, err)
	}

	upd, err := s.UpdateLink(ctx, ab.ID, link.EvolvedInto, "  later  ", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if upd.Type != link.EvolvedInto || upd.Note != "later" || upd.Source != a || upd.Target != b || !upd.CreatedAt.Equal(t0) {
		t.Fatalf("UpdateLink = %+v", upd)
	}
	if again, _ := s.Link(ctx, ab.ID); again != upd {
		t.Fatalf("after UpdateLink, Link = %+v, want %+v", again, upd)
	}
	if _, err := s.UpdateLink(ctx, ab.ID, "NOPE", "", t0); err == nil || !strings.Contains(err.Error(), "field type") {
		t.Fatalf("UpdateLink to an unknown type: %v", err)
	}
	if _, err := s.UpdateLink(ctx, "01JZZZZZZZZZZZZZZZZZZZZZZZ", link.Cites, "", t0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("UpdateLink of an unknown link: %v, want ErrNotFound", err)
	}
	if ok, err := s.HasLinkBetween(ctx, c, b); err != nil || !ok {
		t.Fatalf("HasLinkBetween(%s, %s) = %v, %v", c, b, ok, err)
	}
	if err := s.DeleteLink(ctx, cb.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteLink(ctx, cb.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleting %s twice: %v, want ErrNotFound", cb.ID, err)
	}
	if ok, _ := s.HasLinkBetween(ctx, c, b); ok {
		t.Fatal("the deleted link is still found")
	}
	if n, _ := s.CountLinks(ctx); n != 3 {
		t.Fatalf("%d links, want 3", n)
	}
}

// The links between a set of items are those with both ends in it; the
// links of a loom tree are those from or to the tree or one of its nodes,
// and no other tree's, even one whose id begins with this tree's.
func TestLinksAmongAndOfLoomTree(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	n1, n2, n3 := link.Node("n1"), link.Node("n2"), link.Node("n3")
	tree, treeNode := link.LoomTree("TREE"), link.LoomNode("TREE", "X")
	longer := link.LoomNode("TREEX", "Y")
	ls := []link.Link{
		newLink(t, n1, n2, link.RelatesTo, "", t0),
		newLink(t, n2, n3, link.RelatesTo, "", t0),
		newLink(t, treeNode, n1, link.DerivedFrom, "", t0),
		newLink(t, n2, tree, link.Informs, "", t0),
		newLink(t, longer, n1, link.Cites, "", t0),
	}
	for _, l := range ls {
		if err := s.PutLink(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	among, err := s.LinksAmong(ctx, []link.Item{n1, n2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ls[0].ID}; !slices.Equal(linkIDs(among), want) {
		t.Fatalf("LinksAmong(n1, n2) = %v, want %v", linkIDs(among), want)
	}
	of, err := s.LinksOfLoomTree(ctx, "TREE")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ls[2].ID, ls[3].ID}; !slices.Equal(linkIDs(of), want) {
		t.Fatalf("LinksOfLoomTree(TREE) = %v, want %v", linkIDs(of), want)
	}
}

// Every kind of item resolves to what the library holds under it, with a
// title and where to open it; an item the library does not hold resolves
// as missing (a broken link's target), never as an error. Real sessions.
func TestResolveItems(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	importFile(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	var sessionID, cwd, nodeID, entryID string
	var seq, start int
	if err := s.db.QueryRow(`SELECT s.id, s.cwd FROM sessions s`).Scan(&sessionID, &cwd); err != nil {
		t.Fatal(err)
	}
	// The last entry of the second segment: its offset is its place there.
	if err := s.db.QueryRow(`SELECT n.id, g.start_seq, g.end_seq, e.entry_id FROM segments g
		JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
		JOIN entries e ON e.session_pk = g.session_pk AND e.seq = g.end_seq WHERE g.idx = 1`).Scan(&nodeID, &start, &seq, &entryID); err != nil {
		t.Fatal(err)
	}
	f := newLoomFixture(t, s)
	note, err := s.PutNote(ctx, link.Node(nodeID), "# Why\nbecause", "01JNOTE0000000000000000000", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	items := []link.Item{
		link.Session(sessionID), link.Node(nodeID), link.Entry(sessionID, entryID), link.LoomTree(f.tree.ID),
		link.LoomNode(f.tree.ID, f.nodes["b"].ID), link.Project(cwd), link.Note(note.ID), link.URL("https://example.com/"),
		// Missing: an unknown node, an entry of an unknown session, a loom
		// node named under another tree, a knowledge node.
		link.Node("0000000000000000"), link.Entry("nope", entryID), link.LoomNode("OTHER", f.nodes["b"].ID), link.Knowledge("k1"),
	}
	recs, err := s.ResolveItems(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(items) {
		t.Fatalf("%d records for %d items", len(recs), len(items))
	}
	get := func(it link.Item) ItemRecord { return recs[it.String()] }
	for _, it := range items[:8] {
		if r := get(it); !r.Exists || r.Title == "" {
			t.Errorf("%s: %+v, want it found with a title", it, r)
		}
	}
	for _, it := range items[8:] {
		if r := get(it); r.Exists {
			t.Errorf("%s: %+v, want it missing", it, r)
		}
	}
	if r := get(link.Session(sessionID)); r.NodeID == "" || r.Project != cwd {
		t.Errorf("session: %+v, want its first node and project", r)
	}
	if r := get(link.Node(nodeID)); r.NodeID != nodeID || r.SessionID != sessionID {
		t.Errorf("node: %+v", r)
	}
	if r := get(link.Entry(sessionID, entryID)); r.NodeID != nodeID || r.EntrySeq != seq || r.EntryOffset != seq-start {
		t.Errorf("entry: %+v, want node %s, seq %d, offset %d", r, nodeID, seq, seq-start)
	}
	if r := get(link.LoomNode(f.tree.ID, f.nodes["b"].ID)); r.TreeID != f.tree.ID || r.LoomNodeID != f.nodes["b"].ID ||
		r.Title != "Day two: a ship, far out." {
		t.Errorf("loom node: %+v", r)
	}
	if r := get(link.Note(note.ID)); r.NoteOf != link.Node(nodeID) || r.Title != "# Why" {
		t.Errorf("note: %+v", r)
	}
}

// A note is one per item: writing it again keeps the text before as a
// version, an unchanged text writes nothing; marks are set and cleared; a
// note too long or with a NUL, and an unknown mark, are refused.
func TestNotesAndMarks(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	it := link.Session("s1")
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	if _, err := s.NoteOn(ctx, it); !errors.Is(err, ErrNotFound) {
		t.Fatalf("NoteOn before any note: %v", err)
	}
	n1, err := s.PutNote(ctx, it, "first", "01JNOTE0000000000000000001", t0)
	if err != nil {
		t.Fatal(err)
	}
	n2, err := s.PutNote(ctx, it, "second", "01JNOTE0000000000000000002", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if n2.ID != n1.ID || n2.Markdown != "second" || n2.Versions != 1 || !n2.CreatedAt.Equal(t0) || !n2.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("rewritten note: %+v (first %+v)", n2, n1)
	}
	if n3, _ := s.PutNote(ctx, it, "second", "x", t0.Add(2*time.Hour)); n3.Versions != 1 || !n3.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("unchanged note rewritten: %+v", n3)
	}
	if _, err := s.PutNote(ctx, it, "a\x00b", "y", t0); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Fatalf("a note with NUL: %v", err)
	}
	if _, err := s.PutNote(ctx, it, strings.Repeat("x", link.MaxNoteBytes+1), "y", t0); err == nil {
		t.Fatal("an overlong note was saved")
	}
	if err := s.DeleteNote(ctx, it); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "note_versions"); n != 0 {
		t.Fatalf("%d versions left after the note was deleted", n)
	}
	for _, m := range []string{MarkDone, MarkStarred, MarkStarred} {
		if err := s.SetMark(ctx, it, m, true, t0); err != nil {
			t.Fatal(err)
		}
	}
	if ms, _ := s.Marks(ctx, it); !slices.Equal(ms, []string{MarkStarred, MarkDone}) {
		t.Fatalf("marks %v", ms)
	}
	if err := s.SetMark(ctx, it, MarkStarred, false, t0); err != nil {
		t.Fatal(err)
	}
	if ms, _ := s.Marks(ctx, it); !slices.Equal(ms, []string{MarkDone}) {
		t.Fatalf("marks after clearing starred: %v", ms)
	}
	if err := s.SetMark(ctx, it, "urgent", true, t0); err == nil {
		t.Fatal("an unknown mark was set")
	}
}

// Search finds loom trees, loom nodes, notes and summaries beside nodes
// and entries, each hit naming its item; the full-text index of those items
// matches its content through inserts, updates and deletes; a search
// filtered by what only sessions have leaves them out.
func TestSearchFindsLoomNotesAndSummaries(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	importFile(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	f := newLoomFixture(t, s)
	var nodeID string
	s.db.QueryRow(`SELECT id FROM nodes LIMIT 1`).Scan(&nodeID)
	note, err := s.PutNote(ctx, link.Node(nodeID), "The lighthouse keeper wrote this note.", "01JNOTE0000000000000000003", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.IndexSummaryText(ctx, link.Session("sess-x"), "Lamp repairs", "A session about a flickering lighthouse lamp."); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, "lamp", 50)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]SearchHit{}
	for _, h := range hits {
		found[h.Kind+" "+h.Item.String()] = h
	}
	for _, want := range []string{
		HitLoomNode + " " + link.LoomNode(f.tree.ID, f.nodes["a"].ID).String(),
		HitSummary + " " + link.Session("sess-x").String(),
	} {
		h, ok := found[want]
		if !ok {
			t.Fatalf("no hit %q among %v", want, keys(found))
		}
		if !strings.Contains(h.Snippet, SnippetStart+"lamp"+SnippetEnd) {
			t.Errorf("%s: snippet %q does not mark the match", want, h.Snippet)
		}
	}
	if h := found[HitLoomNode+" "+link.LoomNode(f.tree.ID, f.nodes["a"].ID).String()]; h.Within != f.tree.Title {
		t.Errorf("loom node hit: tree %q, want %q", h.Within, f.tree.Title)
	}
	noteHits, _ := s.Search(ctx, "lighthouse keeper", 10)
	if len(noteHits) == 0 || noteHits[0].Item != link.Note(note.ID) {
		t.Fatalf("note not found first: %+v", noteHits)
	}
	if only, _ := s.SearchWith(ctx, "lamp", SearchFilter{SessionID: "x"}, 10); len(only) != 0 {
		t.Fatalf("a session-filtered search found items: %+v", only)
	}

	// Tree titles, notes and summaries change; the index follows.
	info := f.tree.LoomTree
	info.Title = "Harbour diary"
	if err := s.UpdateLoomTree(ctx, &info); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutNote(ctx, link.Node(nodeID), "Rewritten without the word.", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.UnindexSummaryText(ctx, link.Session("sess-x")); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.Search(ctx, "lighthouse", 10); len(h) != 0 {
		t.Fatalf("rewritten note and dropped summary still found: %+v", h)
	}
	h, _ := s.SearchWith(ctx, "harbour", SearchFilter{Kinds: []string{HitLoomTree, HitLoomNode}}, 50)
	if len(h) == 0 || h[0].Kind != HitLoomTree {
		t.Fatalf("renamed tree not found first: %+v", h)
	}
	integrityCheck(t, s, "search_items_fts")
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The picker finds items of every kind, grouped by kind; a URI finds its
// item alone; an empty query offers the newest sessions and trees.
func TestSearchItemsForThePicker(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	importFile(t, s, filepath.Join(sampleDir, "session-with-compaction.jsonl"))
	f := newLoomFixture(t, s)
	var sessionID, fileName string
	s.db.QueryRow(`SELECT id, file_name FROM sessions`).Scan(&sessionID, &fileName)

	hits, err := s.SearchItems(ctx, "lamp", nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Item.Kind != link.KindLoomTree && hits[0].Item.Kind != link.KindLoomNode {
		t.Fatalf("lamp: %+v", hits)
	}
	// Kinds come in PickerKinds' order.
	last := -1
	for _, h := range hits {
		i := slices.Index(PickerKinds, h.Item.Kind)
		if i < last {
			t.Fatalf("hits not grouped by kind: %+v", hits)
		}
		last = i
	}
	byName, _ := s.SearchItems(ctx, strings.TrimSuffix(fileName, ".jsonl")[:12], []link.Kind{link.KindSession}, 5)
	if len(byName) != 1 || byName[0].Item != link.Session(sessionID) {
		t.Fatalf("session by file name: %+v", byName)
	}
	uri := link.LoomNode(f.tree.ID, f.nodes["b"].ID).String()
	one, _ := s.SearchItems(ctx, uri, nil, 5)
	if len(one) != 1 || one[0].Item.String() != uri || !one[0].Exists {
		t.Fatalf("by URI: %+v", one)
	}
	recent, _ := s.SearchItems(ctx, "", nil, 5)
	if len(recent) != 2 || recent[0].Item.Kind != link.KindSession || recent[1].Item != link.LoomTree(f.tree.ID) {
		t.Fatalf("empty query: %+v", recent)
	}
}
