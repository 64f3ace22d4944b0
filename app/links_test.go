package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rhizome/app/ingest"
	"rhizome/backend/link"
	"rhizome/store"
)

// linkLib is a library holding the real sample session with a compaction
// (a live copy in a temporary folder, so that the test can rewrite it) and a
// loom tree.
type linkLib struct {
	*testLib
	live    string // the session file as imported
	full    []byte // its original bytes
	session string
	nodes   []string // the session's nodes in segment order
	tree    LoomTreeView
}

func newLinkLib(t *testing.T) *linkLib {
	t.Helper()
	full, err := os.ReadFile(filepath.Join("samples", "session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(live, full, 0o644); err != nil {
		t.Fatal(err)
	}
	l := &linkLib{testLib: newTestLib(t), live: live, full: full}
	l.importPaths(t, live)
	l.session = sessionIDOf(t, live)
	l.nodes = sessionNodes(t, l.testLib, l.session)
	if len(l.nodes) < 3 {
		t.Fatalf("the sample has %d segments; the tests need 3", len(l.nodes))
	}
	if l.tree, err = l.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", RootText: "What did the compaction keep?"}); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *linkLib) root() string {
	return link.LoomNode(l.tree.Tree.ID, l.tree.Tree.RootNodeID).String()
}

func (l *linkLib) create(t *testing.T, in LinkInput) LinkView {
	t.Helper()
	v, err := l.Links.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (l *linkLib) of(t *testing.T, uri string) LinksOf {
	t.Helper()
	v, err := l.Links.Of(uri)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func nodeURI(id string) string { return link.Node(id).String() }

// A link from a loom node to a session node is listed on both sides: as
// the loom node's outgoing link (labelled with the relation) and as the
// session node's backlink (labelled with its inverse), each with the other
// end's title and where to open it; its type and note change; it is
// deleted. Bad input is refused with the field named, nothing written.
// Issue 8, "Links".
func TestLinkFromLoomNodeToSessionNode(t *testing.T) {
	l := newLinkLib(t)
	target := nodeURI(l.nodes[1])
	v := l.create(t, LinkInput{Source: l.root(), Target: target, Type: "leads to", Note: "see <b>this</b>"})
	if v.Type != "LEADS_TO" || v.Label != "led to" || v.Other.URI != target || !v.Other.Exists ||
		v.Other.Open.View != "graph" || v.Other.Open.NodeID != l.nodes[1] || v.CreatedBy != "user" || v.Broken {
		t.Fatalf("created %+v", v)
	}
	out := l.of(t, l.root())
	if len(out.Outgoing) != 1 || out.Outgoing[0].ID != v.ID || len(out.Backlinks) != 0 {
		t.Fatalf("links of the loom node: %+v", out)
	}
	if out.Item.Open.View != "loom" || out.Item.Open.TreeID != l.tree.Tree.ID || out.Item.Title != "What did the compaction keep?" {
		t.Fatalf("the loom node itself: %+v", out.Item)
	}
	back := l.of(t, target)
	if len(back.Backlinks) != 1 || back.Backlinks[0].Label != "came from" || back.Backlinks[0].Other.URI != l.root() ||
		back.Backlinks[0].Other.Open.LoomNodeID != l.tree.Tree.RootNodeID || back.Backlinks[0].Note != "see <b>this</b>" {
		t.Fatalf("backlinks of the session node: %+v", back)
	}

	u, err := l.Links.Update(v.ID, "CONTRADICTS", "")
	if err != nil {
		t.Fatal(err)
	}
	if u.Type != "CONTRADICTS" || u.Note != "" || u.ID != v.ID {
		t.Fatalf("updated %+v", u)
	}
	if _, err := l.Links.Update(v.ID, "DISLIKES", ""); err == nil || !strings.Contains(err.Error(), "type") {
		t.Fatalf("an unknown type: %v", err)
	}

	for _, bad := range []struct {
		in   LinkInput
		want string
	}{
		{LinkInput{Source: "rhizome:node/", Target: target}, "source"},
		{LinkInput{Source: l.root(), Target: "rhizome:node/0000000000000000"}, "target: rhizome:node/0000000000000000 is not in the library"},
		{LinkInput{Source: "https://example.com/", Target: target}, "outside the library"},
		{LinkInput{Source: target, Target: target}, "same item"},
		{LinkInput{Source: l.root(), Target: target, Type: "likes"}, "unknown relation"},
		{LinkInput{Source: l.root(), Target: target, Note: "a\x00b"}, "NUL"},
	} {
		if _, err := l.Links.Create(bad.in); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Create(%+v): %v, want an error containing %q", bad.in, err, bad.want)
		}
	}
	if n, _ := l.st.CountLinks(l.Links.c.context()); n != 1 {
		t.Fatalf("%d links stored, want 1", n)
	}
	if err := l.Links.Delete(v.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.Links.Delete(v.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if back := l.of(t, target); len(back.Backlinks) != 0 {
		t.Fatalf("backlinks after delete: %+v", back)
	}
}

// Links of a session's nodes and entries survive importing the session
// again: appended to (pi still writing it) and rewritten (node ids are
// stable), and stay resolved. A rewrite that drops a segment leaves the
// link to its node listed, broken ("target gone"), never dropped.
func TestLinksSurviveReimport(t *testing.T) {
	l := newLinkLib(t)
	last := len(l.nodes) - 1
	first := allEntries(t, l.testLib, l.nodes[0])
	entry := link.Entry(l.session, first[len(first)/4].ID).String() // in the part every import below keeps
	toFirst := l.create(t, LinkInput{Source: l.root(), Target: nodeURI(l.nodes[0])})
	toEntry := l.create(t, LinkInput{Source: l.root(), Target: entry, Type: "CITES"})
	toLast := l.create(t, LinkInput{Source: nodeURI(l.nodes[0]), Target: nodeURI(l.nodes[last]), Type: "OCCURRED_BEFORE"})

	check := func(stage string, wantLastBroken bool) {
		t.Helper()
		out := l.of(t, l.root())
		if len(out.Outgoing) != 2 {
			t.Fatalf("%s: the loom node has %d links, want 2: %+v", stage, len(out.Outgoing), out.Outgoing)
		}
		for _, lv := range out.Outgoing {
			if lv.Broken || !lv.Other.Exists {
				t.Errorf("%s: link %s to %s is broken", stage, lv.ID, lv.Other.URI)
			}
		}
		fromFirst := l.of(t, nodeURI(l.nodes[0]))
		if len(fromFirst.Outgoing) != 1 || fromFirst.Outgoing[0].ID != toLast.ID || fromFirst.Outgoing[0].Broken != wantLastBroken {
			t.Fatalf("%s: links of the first node %+v, want %s broken=%v", stage, fromFirst.Outgoing, toLast.ID, wantLastBroken)
		}
		if wantLastBroken && fromFirst.Outgoing[0].Other.Open.View != "" {
			t.Errorf("%s: a gone target opens: %+v", stage, fromFirst.Outgoing[0].Other)
		}
		if len(fromFirst.Backlinks) != 1 || fromFirst.Backlinks[0].ID != toFirst.ID {
			t.Fatalf("%s: backlinks of the first node %+v", stage, fromFirst.Backlinks)
		}
		if e := l.of(t, entry); len(e.Backlinks) != 1 || e.Backlinks[0].ID != toEntry.ID || !e.Item.Exists {
			t.Fatalf("%s: the entry's backlinks %+v", stage, e)
		}
	}

	// pi appends to the file: the first import saw two thirds of it.
	lines := bytes.SplitAfter(l.full, []byte("\n"))
	part := bytes.Join(lines[:len(lines)*2/3], nil)
	if err := os.WriteFile(l.live, l.full, 0o644); err != nil {
		t.Fatal(err)
	}
	l.importPaths(t, l.live) // unchanged
	check("unchanged", false)
	// Append: a library that first saw the start of the file.
	a := &linkLib{testLib: newTestLib(t), live: filepath.Join(t.TempDir(), "s.jsonl"), full: l.full}
	os.WriteFile(a.live, part, 0o644)
	a.importPaths(t, a.live)
	a.session = l.session
	a.nodes = sessionNodes(t, a.testLib, a.session)
	a.tree, _ = a.Loom.CreateTree(LoomTreeSpec{Mode: "dialogue", RootText: "x"})
	aFirst := allEntries(t, a.testLib, a.nodes[0])
	aEntry := link.Entry(a.session, aFirst[len(aFirst)-1].ID).String()
	a.create(t, LinkInput{Source: a.root(), Target: nodeURI(a.nodes[0])})
	a.create(t, LinkInput{Source: a.root(), Target: aEntry})
	os.WriteFile(a.live, l.full, 0o644)
	if fr := a.importPaths(t, a.live).Files[0]; fr.Status != ingest.StatusAppended {
		t.Fatalf("append import: %+v", fr)
	}
	if out := a.of(t, a.root()); len(out.Outgoing) != 2 || out.Outgoing[0].Broken || out.Outgoing[1].Broken {
		t.Fatalf("after the append: %+v", out.Outgoing)
	}

	// Rewrite: pi rewrote a line in the middle, every segment is still there.
	var b bytes.Buffer
	for i, ln := range lines {
		if i == 5 {
			ln = bytes.Replace(ln, []byte(`"role":"`), []byte(`"role" : "`), 1)
		}
		b.Write(ln)
	}
	os.WriteFile(l.live, b.Bytes(), 0o644)
	if fr := l.importPaths(t, l.live).Files[0]; fr.Status != ingest.StatusImported {
		t.Fatalf("rewrite import: %+v", fr)
	}
	if got := sessionNodes(t, l.testLib, l.session); !slices.Equal(got, l.nodes) {
		t.Fatalf("node ids changed on rewrite: %v, were %v", got, l.nodes)
	}
	check("rewritten", false)

	// Rewrite that drops the last segment: its node is gone, its link broken.
	b.Reset()
	for _, ln := range lines[:len(lines)*2/3] {
		b.Write(ln)
	}
	os.WriteFile(l.live, b.Bytes(), 0o644)
	l.importPaths(t, l.live)
	if got := sessionNodes(t, l.testLib, l.session); slices.Contains(got, l.nodes[last]) {
		t.Fatalf("the truncated file still has node %s: the test needs it gone", l.nodes[last])
	}
	check("truncated", true)
}

// A loom tree's export carries the links from or to the tree and its nodes
// (an optional "links" field); importing it into another library brings
// them (a target that library lacks shows broken); a copy imported beside
// the original gets them remapped to the copy under new ids, the original's
// untouched; an export written before links existed still imports; a link
// in an export that names neither the tree nor its nodes is refused with
// nothing written.
func TestLoomExportImportCarriesLinks(t *testing.T) {
	l := newLinkLib(t)
	child, err := l.Loom.AddNode(l.tree.Tree.ID, l.tree.Tree.RootNodeID, "A second thought.")
	if err != nil {
		t.Fatal(err)
	}
	childURI := link.LoomNode(l.tree.Tree.ID, child.ID).String()
	out := l.create(t, LinkInput{Source: l.root(), Target: nodeURI(l.nodes[1]), Type: "DERIVED_FROM", Note: "from the session"})
	in := l.create(t, LinkInput{Source: nodeURI(l.nodes[2]), Target: childURI, Type: "INFORMS"})
	inner := l.create(t, LinkInput{Source: childURI, Target: l.root(), Type: "EVOLVED_INTO"})
	l.create(t, LinkInput{Source: nodeURI(l.nodes[0]), Target: nodeURI(l.nodes[1])}) // not the tree's

	data, err := l.Loom.Export(l.tree.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	var x struct {
		Links []link.Link `json:"links"`
	}
	if err := json.Unmarshal([]byte(data), &x); err != nil {
		t.Fatal(err)
	}
	ids := []string{out.ID, in.ID, inner.ID}
	slices.Sort(ids)
	var got []string
	for _, lk := range x.Links {
		got = append(got, lk.ID)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("exported links %v, want %v", got, ids)
	}

	// Another library: the links come along; the session is not there.
	other := newTestLib(t)
	if _, err := other.Loom.Import("tree.json", base64.StdEncoding.EncodeToString([]byte(data))); err != nil {
		t.Fatal(err)
	}
	o, err := other.Links.Of(l.root())
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Outgoing) != 1 || o.Outgoing[0].ID != out.ID || !o.Outgoing[0].Broken || o.Outgoing[0].Note != "from the session" ||
		len(o.Backlinks) != 1 || o.Backlinks[0].ID != inner.ID || o.Backlinks[0].Broken {
		t.Fatalf("links of the imported root: %+v", o)
	}
	// Exported again from there, the links are the same.
	again, err := other.Loom.Export(l.tree.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	var y struct {
		Links json.RawMessage `json:"links"`
	}
	var x2 struct {
		Links json.RawMessage `json:"links"`
	}
	json.Unmarshal([]byte(again), &y)
	json.Unmarshal([]byte(data), &x2)
	if !bytes.Equal(y.Links, x2.Links) {
		t.Errorf("the links exported from the other library differ:\n%s\nwere\n%s", y.Links, x2.Links)
	}

	// A copy beside the original.
	cp, err := l.Loom.ImportCopy("tree.json", base64.StdEncoding.EncodeToString([]byte(data)))
	if err != nil {
		t.Fatal(err)
	}
	copyRoot := link.LoomNode(cp.Tree.ID, cp.Tree.RootNodeID).String()
	c := l.of(t, copyRoot)
	if len(c.Outgoing) != 1 || c.Outgoing[0].ID == out.ID || c.Outgoing[0].Target != nodeURI(l.nodes[1]) || c.Outgoing[0].Broken ||
		len(c.Backlinks) != 1 || c.Backlinks[0].ID == inner.ID || !strings.HasPrefix(c.Backlinks[0].Source, "rhizome:loom/"+cp.Tree.ID+"/") {
		t.Fatalf("links of the copy's root: %+v", c)
	}
	if orig := l.of(t, l.root()); len(orig.Outgoing) != 1 || orig.Outgoing[0].ID != out.ID || len(orig.Backlinks) != 1 {
		t.Fatalf("the original's links changed: %+v", orig)
	}
	if b := l.of(t, nodeURI(l.nodes[1])); len(b.Backlinks) != 3 {
		t.Fatalf("the session node's backlinks: %+v, want the original's, the copy's and the other node's", b.Backlinks)
	}

	// An export from before links: the field is absent; it imports.
	var doc map[string]json.RawMessage
	json.Unmarshal([]byte(data), &doc)
	delete(doc, "links")
	old, _ := json.Marshal(doc)
	third := newTestLib(t)
	if _, err := third.Loom.Import("old.json", base64.StdEncoding.EncodeToString(old)); err != nil {
		t.Fatalf("an export without links: %v", err)
	}
	if n, _ := third.st.CountLinks(third.Loom.c.context()); n != 0 {
		t.Fatalf("%d links from an export without any", n)
	}

	// A forged link between two items outside the tree: refused, nothing stored.
	forged := x.Links[0]
	forged.ID = "01JZZZZZZZZZZZZZZZZZZZZZZZ"
	forged.Source, forged.Target = link.Node(l.nodes[0]), link.Node(l.nodes[2])
	doc["links"], _ = json.Marshal(append(x.Links, forged))
	bad, _ := json.Marshal(doc)
	fourth := newTestLib(t)
	_, err = fourth.Loom.Import("bad.json", base64.StdEncoding.EncodeToString(bad))
	if err == nil || !strings.Contains(err.Error(), "links[3]") || !strings.Contains(err.Error(), forged.ID) {
		t.Fatalf("a forged link: %v, want an error naming links[3] and its id", err)
	}
	if trees, _ := fourth.Loom.ListTrees(true); len(trees) != 0 {
		t.Fatalf("a refused import left %d trees", len(trees))
	}
}

// What a person writes in a loom node or a note that mentions an item by
// URI links to it (RELATES_TO); a link whose type the person changed is not
// made again; a mention of a missing item or a plain query makes none.
func TestMentionsBecomeLinks(t *testing.T) {
	l := newLinkLib(t)
	target := nodeURI(l.nodes[1])
	text := "Compare [[" + target + "|the compaction]] with [[rhizome:node/0000000000000000]] and [[some query]]."
	n, err := l.Loom.AddNode(l.tree.Tree.ID, l.tree.Tree.RootNodeID, text)
	if err != nil {
		t.Fatal(err)
	}
	src := link.LoomNode(l.tree.Tree.ID, n.ID).String()
	out := l.of(t, src)
	if len(out.Outgoing) != 1 || out.Outgoing[0].Type != "RELATES_TO" || out.Outgoing[0].Target != target {
		t.Fatalf("links of the node with a mention: %+v", out.Outgoing)
	}
	if _, err := l.Links.Update(out.Outgoing[0].ID, "CITES", ""); err != nil {
		t.Fatal(err)
	}
	// An edit keeping the mention is a new node (dialogue: a sibling): it
	// gets its own link; the first node's link keeps its type.
	e, err := l.Loom.Edit(l.tree.Tree.ID, n.ID, text+" Again.")
	if err != nil {
		t.Fatal(err)
	}
	if o := l.of(t, link.LoomNode(l.tree.Tree.ID, e.ID).String()); len(o.Outgoing) != 1 {
		t.Fatalf("links of the edit: %+v", o.Outgoing)
	}
	if o := l.of(t, src); len(o.Outgoing) != 1 || o.Outgoing[0].Type != "CITES" {
		t.Fatalf("links of the first node after the edit: %+v", o.Outgoing)
	}

	// A note's mentions link from the note.
	nv, err := l.Notes.Put(nodeURI(l.nodes[0]), "Follow-up: [["+l.root()+"]]")
	if err != nil {
		t.Fatal(err)
	}
	if o := l.of(t, nv.URI); len(o.Outgoing) != 1 || o.Outgoing[0].Target != l.root() || o.Item.Open.NoteOf != nodeURI(l.nodes[0]) {
		t.Fatalf("links of the note: %+v", o)
	}
	// Written again, unchanged mention: no second link.
	if _, err := l.Notes.Put(nodeURI(l.nodes[0]), "Follow-up: [["+l.root()+"]] (done)"); err != nil {
		t.Fatal(err)
	}
	if o := l.of(t, nv.URI); len(o.Outgoing) != 1 {
		t.Fatalf("links of the rewritten note: %+v", o.Outgoing)
	}
}

// Notes: one per item, kept with its earlier text, found by search, with
// marks; a note with a script in it is stored as written (rendering escapes
// it; see the browser test); an empty note deletes it; a note on a missing
// item is refused.
func TestNotesAndMarksUseCases(t *testing.T) {
	l := newLinkLib(t)
	item := nodeURI(l.nodes[0])
	if v, err := l.Notes.Get(item); err != nil || v.Exists || len(v.Marks) != 0 {
		t.Fatalf("no note yet: %+v, %v", v, err)
	}
	script := "Watch the <script>window.pwned=1</script> **lighthouse** keeper"
	v, err := l.Notes.Put(item, script)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Exists || v.Markdown != script || !strings.HasPrefix(v.URI, "rhizome:note/") {
		t.Fatalf("note %+v", v)
	}
	hits, err := l.Search.Query("lighthouse keeper", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Kind != "note" || hits[0].URI != v.URI {
		t.Fatalf("search for the note: %+v", hits)
	}
	r, _ := l.Links.Resolve(v.URI)
	if r.Open.NoteOf != item || !r.Exists {
		t.Fatalf("the note resolves to %+v", r)
	}
	if v, _ = l.Notes.Put(item, "Second thoughts."); v.Versions != 1 {
		t.Fatalf("rewritten note %+v", v)
	}
	marks, err := l.Marks.Set(item, "to-revisit", true)
	if err != nil || !slices.Equal(marks, []string{"to-revisit"}) {
		t.Fatalf("marks %v, %v", marks, err)
	}
	if _, err := l.Marks.Set(item, "later", true); err == nil {
		t.Fatal("an unknown mark was set")
	}
	if v, _ = l.Notes.Put(item, "  \n"); v.Exists || !slices.Equal(v.Marks, []string{"to-revisit"}) {
		t.Fatalf("an empty note: %+v", v)
	}
	if _, err := l.Notes.Put("rhizome:node/0000000000000000", "x"); err == nil || !strings.Contains(err.Error(), "not in the library") {
		t.Fatalf("a note on a missing item: %v", err)
	}
}

// A loom started from a session message has that message's text as its
// root and is linked back to it (DERIVED_FROM), which the message lists as
// a backlink; only entries start looms.
func TestStartLoomFromMessage(t *testing.T) {
	l := newLinkLib(t)
	var user EntryView
	for _, e := range allEntries(t, l.testLib, l.nodes[0]) {
		if e.Role == "user" {
			user = e
			break
		}
	}
	if user.ID == "" {
		t.Fatal("no user message in the first segment")
	}
	entry := link.Entry(l.session, user.ID).String()
	v, err := l.Loom.StartFrom(entry, "")
	if err != nil {
		t.Fatal(err)
	}
	if v.Tree.Mode != "dialogue" || len(v.Nodes) != 1 || v.Nodes[0].Text != user.Blocks[0].Text {
		t.Fatalf("tree %+v, want its root to be %q", v, user.Blocks[0].Text)
	}
	back := l.of(t, entry)
	if len(back.Backlinks) != 1 || back.Backlinks[0].Type != "DERIVED_FROM" ||
		back.Backlinks[0].Source != link.LoomNode(v.Tree.ID, v.Tree.RootNodeID).String() {
		t.Fatalf("backlinks of the message: %+v", back)
	}
	if _, err := l.Loom.StartFrom(nodeURI(l.nodes[0]), ""); err == nil || !strings.Contains(err.Error(), "session message") {
		t.Fatalf("a loom from a node: %v", err)
	}
	if _, err := l.Loom.StartFrom(link.Entry(l.session, "nope").String(), ""); err == nil {
		t.Fatal("a loom from a missing entry")
	}
}

// Search hits name the exact item: an entry hit its entry, whose place in
// its segment (Links.Resolve's entryOffset) is where Library.SegmentEntries
// finds it; loom node hits their node and tree.
func TestSearchHitsOpenTheExactItem(t *testing.T) {
	l := newLinkLib(t)
	if _, err := l.Loom.AddNode(l.tree.Tree.ID, l.tree.Tree.RootNodeID, "Quasar lamps in the harbour."); err != nil {
		t.Fatal(err)
	}
	hits, err := l.Search.Query("compaction", 30)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, h := range hits {
		if h.Kind != "entry" {
			continue
		}
		r, err := l.Links.Resolve(h.URI)
		if err != nil {
			t.Fatal(err)
		}
		page, err := l.Library.SegmentEntries(r.Open.NodeID, r.Open.EntryOffset, 1)
		if err != nil {
			t.Fatal(err)
		}
		it, _ := link.Parse(h.URI)
		if r.Open.NodeID != h.NodeID || len(page.Entries) != 1 || page.Entries[0].ID != it.ID {
			t.Fatalf("hit %s opens %+v, which holds %+v", h.URI, r.Open, page.Entries)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no entry hit to check")
	}
	q, _ := l.Search.Query("quasar", 5)
	if len(q) != 1 || q[0].Kind != "loomNode" || !strings.HasPrefix(q[0].URI, "rhizome:loom/"+l.tree.Tree.ID+"/") || q[0].Within != l.tree.Tree.Title {
		t.Fatalf("loom node hit %+v", q)
	}
	items, err := l.Search.Items("quasar", nil, 5)
	if err != nil || len(items) != 1 || items[0].Item.Open.View != "loom" {
		t.Fatalf("picker: %+v, %v", items, err)
	}
	if _, err := l.Search.Items("x", []string{"planet"}, 5); err == nil {
		t.Fatal("an unknown kind was accepted")
	}
}

// Links between two graph nodes are drawn in the graph as edges of their
// own type, with the relation in their metadata; links to other items are
// not graph edges.
func TestGraphShowsUserLinks(t *testing.T) {
	l := newLinkLib(t)
	lv := l.create(t, LinkInput{Source: nodeURI(l.nodes[0]), Target: nodeURI(l.nodes[2]), Type: "REINFORCES", Note: "why"})
	l.create(t, LinkInput{Source: l.root(), Target: nodeURI(l.nodes[0])})
	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var found []GraphEdge
	for _, e := range g.Edges {
		if e.Type == LinkEdgeType {
			found = append(found, e)
		}
	}
	if len(found) != 1 || found[0].ID != "link:"+lv.ID || found[0].Source != l.nodes[0] || found[0].Target != l.nodes[2] ||
		found[0].Metadata["relation"] != "REINFORCES" || found[0].Metadata["note"] != "why" {
		t.Fatalf("link edges %+v", found)
	}
	// Outside the graph's filter, not drawn.
	if g, _ := l.Graph.Graph(GraphFilter{SessionID: "other"}); len(g.Edges) != 0 {
		t.Fatalf("edges of an empty graph: %+v", g.Edges)
	}
}

// A link's ends are named as the rest of the window names them: a session
// by its summary's title (not its file name), a segment node by its
// summary's label, as the graph draws it.
func TestLinkEndsNamedBySummaries(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	derive(t, l.App)
	sessions, err := l.Library.Sessions("")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		v, err := l.Links.Resolve("rhizome:session/" + s.ID)
		if err != nil || v.Title != s.Title || strings.HasSuffix(v.Title, ".jsonl") {
			t.Errorf("session %s: resolved as %q, the sidebar says %q (%v)", s.ID, v.Title, s.Title, err)
		}
	}
	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range g.Nodes {
		if n.Knowledge != nil {
			continue
		}
		sum, err := l.Summaries.Get("rhizome:node/" + n.ID)
		if err != nil || sum.Label == "" {
			continue
		}
		v, err := l.Links.Resolve("rhizome:node/" + n.ID)
		if err != nil || v.Title != sum.Label || v.Title != n.Label {
			t.Errorf("node %s: resolved as %q, its summary's label is %q, the graph's %q (%v)", n.ID, v.Title, sum.Label, n.Label, err)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no segment node has a summary label")
	}
	// A node's edges name their other ends so too, also ends in another
	// session (which a graph of one session does not hold).
	label := map[string]string{}
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
	}
	named := 0
	for _, n := range g.Nodes {
		if n.Knowledge != nil {
			continue
		}
		d, err := l.Graph.Node(n.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range append(d.Incoming, d.Outgoing...) {
			other := e.Source
			if other == n.ID {
				other = e.Target
			}
			if want, ok := label[other]; ok && want != "" {
				if d.Labels[other] != want {
					t.Errorf("node %s: edge end %s labelled %q, the graph says %q", n.ID, other, d.Labels[other], want)
				}
				named++
			}
		}
	}
	if named == 0 {
		t.Fatal("no edge end was named")
	}
}
