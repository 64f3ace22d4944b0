package loom

import (
	"errors"
	"slices"
	"testing"
	"time"

	"rhizome/backend/authorship"
)

func TestNewTree(t *testing.T) {
	tr := newTestTree(t, ModeDialogue, "Write me a story about a lighthouse keeper who collects storms.")
	if tr.Title != "Write me a story about a…" {
		t.Errorf("title %q", tr.Title)
	}
	root := tr.Root()
	if root == nil || root.ID != tr.RootNodeID || len(root.Parents) != 0 || tr.IncomingEdge(root.ID) != nil {
		t.Fatalf("root %+v", root)
	}
	if len(root.LocalID) != LocalIDLength || root.TreeID != tr.ID || root.AuthorType != AuthorHuman {
		t.Errorf("root %+v", root)
	}
	if !root.CreatedAt.Equal(tr.CreatedAt) || root.CreatedAt.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("root created %v, tree %v", root.CreatedAt, tr.CreatedAt)
	}
	if got := VerifyTree(tr); got != nil {
		t.Errorf("VerifyTree = %+v", got)
	}

	empty := newTestTree(t, ModeBuffer, "  \n")
	if empty.Title != "" {
		t.Errorf("title of a wordless root %q, want \"\" (the store names it)", empty.Title)
	}
	if FallbackTitle(3) != "Loom Tree 3" {
		t.Error(FallbackTitle(3))
	}

	for _, spec := range []TreeSpec{
		{GroveID: grove, Mode: "chat", Root: Text("x"), Author: human},
		{Mode: ModeBuffer, Root: Text("x"), Author: human},
		{GroveID: grove, Mode: ModeBuffer, Root: Content{Type: "video"}, Author: human},
		{GroveID: grove, Mode: ModeBuffer, Root: Text("x")},
	} {
		if _, err := NewTree(spec); err == nil {
			t.Errorf("NewTree(%+v) succeeded", spec)
		}
	}
}

func TestAddValidation(t *testing.T) {
	tr := newTestTree(t, ModeDialogue, "root")
	root := tr.Root()
	if _, err := tr.AddContinuation(root.ID, Text("x"), model, nil); err == nil {
		t.Error("a model continuation without its raw response was accepted")
	}
	if _, err := tr.AddContinuation("nope", Text("x"), human, nil); err == nil {
		t.Error("a continuation of an unknown node was accepted")
	}
	if _, err := tr.AddContinuation(root.ID, Text("x"), Agent{ID: human.ID, Type: AuthorModel}, []byte("{}")); err == nil {
		t.Error("an agent changing type was accepted")
	}
	if _, err := tr.AddHyperContinuation([]EdgeSource{{NodeID: root.ID, Role: "alternative"}}, Text("x"), human, nil); err == nil {
		t.Error("an unknown role was accepted")
	}
	if _, err := tr.Edit(root.ID, Text("root"), human); !errors.Is(err, ErrUnchanged) {
		t.Errorf("Edit without change: %v", err)
	}
}

// dialogueTree builds:
//
//	root -> a (model) -> b (human) -> c1 (model)
//	                                -> c2 (model)
func dialogueTree(t *testing.T) (tr *Tree, root, a, b, c1, c2 *Node) {
	tr = newTestTree(t, ModeDialogue, "Tell me about moths.")
	root = tr.Root()
	a = mustAdd(t, tr, root, "Moths navigate by the moon.", model)
	b = mustAdd(t, tr, a, "Why do they circle lamps?", human)
	c1 = mustAdd(t, tr, b, "Lamps confuse their compass.", model)
	c2 = mustAdd(t, tr, b, "They tilt their backs to the light.", model)
	return
}

func TestDialoguePaths(t *testing.T) {
	tr, root, a, b, c1, c2 := dialogueTree(t)
	path, err := tr.Path(c2.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkTexts(t, "Path(c2)", path, root.Content.Text, a.Content.Text, b.Content.Text, c2.Content.Text)
	checkTexts(t, "Children(b)", tr.Children(b.ID), c1.Content.Text, c2.Content.Text)
	checkTexts(t, "Siblings(c1)", tr.Siblings(c1.ID), c2.Content.Text)
	checkTexts(t, "Siblings(a)", tr.Siblings(a.ID))
	checkTexts(t, "BranchPoints", tr.BranchPoints(), b.Content.Text)
	checkTexts(t, "Leaves", tr.Leaves(), c1.Content.Text, c2.Content.Text)

	// Editing a model node in dialogue mode: a human sibling, editedFrom set,
	// with its own (empty) downstream.
	a2 := mustEdit(t, tr, a, "Moths navigate by the moon and the stars.")
	if a2.EditedFrom != a.ID || a2.AuthorType != AuthorHuman || len(a2.Parents) != 1 || a2.Parents[0].NodeID != root.ID {
		t.Fatalf("edit %+v", a2)
	}
	checkTexts(t, "Children(root)", tr.Children(root.ID), a.Content.Text, a2.Content.Text)
	checkTexts(t, "Siblings(a)", tr.Siblings(a.ID), a2.Content.Text)
	checkTexts(t, "Children(a2)", tr.Children(a2.ID))
	checkTexts(t, "Versions(a)", tr.Versions(a.ID), a.Content.Text, a2.Content.Text)
	checkTexts(t, "BranchPoints", tr.BranchPoints(), root.Content.Text, b.Content.Text)
	checkTexts(t, "Leaves", tr.Leaves(), c1.Content.Text, c2.Content.Text, a2.Content.Text)
	path, _ = tr.Path(a2.ID)
	checkTexts(t, "Path(a2)", path, root.Content.Text, a2.Content.Text)
	// Versions choices do not apply in dialogue mode.
	path, _ = tr.ResolvePath(ActivePath{NodeID: c1.ID, Versions: map[string]string{a.ID: a2.ID}})
	checkTexts(t, "ResolvePath(c1)", path, root.Content.Text, a.Content.Text, b.Content.Text, c1.Content.Text)

	// Editing the root in dialogue mode: a second root-level branch.
	root2 := mustEdit(t, tr, root, "Tell me about butterflies.")
	checkTexts(t, "Siblings(root)", tr.Siblings(root.ID), root2.Content.Text)
	path, _ = tr.Path(root2.ID)
	checkTexts(t, "Path(root2)", path, root2.Content.Text)

	if got := VerifyTree(tr); got != nil {
		t.Errorf("VerifyTree = %+v", got)
	}
}

// bufferTree builds r -> n4 -> n5 -> n6 -> n7 in buffer mode, then edits n5
// twice: n5 -> n5b -> n5c.
func bufferTree(t *testing.T) (tr *Tree, nodes map[string]*Node) {
	tr = newTestTree(t, ModeBuffer, "Chapter one. ")
	nodes = map[string]*Node{"r": tr.Root()}
	prev := tr.Root()
	for _, k := range []string{"4", "5", "6", "7"} {
		prev = mustAdd(t, tr, prev, "Paragraph "+k+". ", model)
		nodes[k] = prev
	}
	nodes["5b"] = mustEdit(t, tr, nodes["5"], "Paragraph five, fixed. ")
	nodes["5c"] = mustEdit(t, tr, nodes["5b"], "Paragraph five, fixed twice. ")
	return tr, nodes
}

func TestBufferVersions(t *testing.T) {
	tr, n := bufferTree(t)
	text := func(k string) string { return n[k].Content.Text }

	// The downstream of every version is shared; versions are not children.
	checkTexts(t, "Children(4)", tr.Children(n["4"].ID), text("5"))
	for _, k := range []string{"5", "5b", "5c"} {
		checkTexts(t, "Children("+k+")", tr.Children(n[k].ID), text("6"))
	}
	checkTexts(t, "Versions(5b)", tr.Versions(n["5b"].ID), text("5"), text("5b"), text("5c"))
	checkTexts(t, "EditChain(5c)", tr.EditChain(n["5c"].ID), text("5"), text("5b"), text("5c"))
	checkTexts(t, "Leaves", tr.Leaves(), text("7"))
	checkTexts(t, "BranchPoints", tr.BranchPoints())
	checkTexts(t, "Siblings(5)", tr.Siblings(n["5"].ID))
	checkTexts(t, "Siblings(5c)", tr.Siblings(n["5c"].ID))
	if tr.Family(n["5c"].ID) != n["5"].ID {
		t.Errorf("Family(5c) = %s", tr.Family(n["5c"].ID))
	}

	// Default: the newest version at each position.
	path, err := tr.Path(n["7"].ID)
	if err != nil {
		t.Fatal(err)
	}
	checkTexts(t, "Path(7)", path, text("r"), text("4"), text("5c"), text("6"), text("7"))
	if PathText(path) != "Chapter one. Paragraph 4. Paragraph five, fixed twice. Paragraph 6. Paragraph 7. " {
		t.Errorf("PathText = %q", PathText(path))
	}
	// A choice per family.
	path, err = tr.ResolvePath(ActivePath{NodeID: n["7"].ID, Versions: map[string]string{n["5"].ID: n["5b"].ID}})
	if err != nil {
		t.Fatal(err)
	}
	checkTexts(t, "ResolvePath(7, 5b)", path, text("r"), text("4"), text("5b"), text("6"), text("7"))
	path, _ = tr.ResolvePath(ActivePath{NodeID: n["7"].ID, Versions: map[string]string{n["5"].ID: n["5"].ID}})
	checkTexts(t, "ResolvePath(7, 5)", path, text("r"), text("4"), text("5"), text("6"), text("7"))
	// The end of the path is the node asked for, unless a choice says otherwise.
	path, _ = tr.Path(n["5"].ID)
	checkTexts(t, "Path(5)", path, text("r"), text("4"), text("5"))
	path, _ = tr.ResolvePath(ActivePath{NodeID: n["5"].ID, Versions: map[string]string{n["5"].ID: n["5b"].ID}})
	checkTexts(t, "ResolvePath(5, 5b)", path, text("r"), text("4"), text("5b"))
	// Invalid choices.
	for _, v := range []map[string]string{{n["5"].ID: n["6"].ID}, {n["5b"].ID: n["5c"].ID}, {n["5"].ID: "nope"}} {
		if _, err := tr.ResolvePath(ActivePath{NodeID: n["7"].ID, Versions: v}); err == nil {
			t.Errorf("ResolvePath accepted %v", v)
		}
	}
	if _, err := tr.Path("nope"); err == nil {
		t.Error("Path of an unknown node succeeded")
	}

	// A branch generated from a version belongs to the position: shared too.
	x := mustAdd(t, tr, n["5b"], "Paragraph 6, another way. ", model)
	checkTexts(t, "Children(5)", tr.Children(n["5"].ID), text("6"), x.Content.Text)
	checkTexts(t, "BranchPoints", tr.BranchPoints(), text("5"))
	checkTexts(t, "Siblings(6)", tr.Siblings(n["6"].ID), x.Content.Text)
	path, _ = tr.Path(x.ID)
	checkTexts(t, "Path(x)", path, text("r"), text("4"), text("5c"), x.Content.Text)

	// The ERRATA's point: versions never change a downstream node's parents,
	// so the chain still verifies.
	if got := VerifyTree(tr); got != nil {
		t.Errorf("VerifyTree = %+v", got)
	}
	if len(n["6"].Parents) != 1 || n["6"].Parents[0].NodeID != n["5"].ID || len(tr.IncomingEdge(n["6"].ID).Sources) != 1 {
		t.Errorf("node 6's parents changed: %+v", n["6"].Parents)
	}

	// Root versions in buffer mode stand at the root's position.
	r2 := mustEdit(t, tr, n["r"], "Chapter One. ")
	path, _ = tr.Path(n["7"].ID)
	checkTexts(t, "Path(7) after a root edit", path, r2.Content.Text, text("4"), text("5c"), text("6"), text("7"))
	checkTexts(t, "Siblings(root)", tr.Siblings(n["r"].ID))
}

func TestMetadataAndContext(t *testing.T) {
	tr, n := bufferTree(t)
	if err := tr.SetBookmark(n["6"].ID, true, "the turn"); err != nil {
		t.Fatal(err)
	}
	_ = tr.SetExcluded(n["4"].ID, true)
	_ = tr.SetPruned(n["6"].ID, true)
	_ = tr.SetSummary(n["7"].ID, "The end.")
	if m := n["6"].Metadata; !m.Bookmarked || m.BookmarkLabel != "the turn" || !m.Pruned {
		t.Errorf("metadata %+v", m)
	}
	if !tr.Hidden(n["7"].ID) || tr.Hidden(n["5"].ID) {
		t.Error("Hidden is wrong")
	}
	ctx, err := tr.Context(ActivePath{NodeID: n["7"].ID})
	if err != nil {
		t.Fatal(err)
	}
	checkTexts(t, "Context(7)", ctx, n["r"].Content.Text, n["5c"].Content.Text, n["6"].Content.Text, n["7"].Content.Text)
	_ = tr.SetBookmark(n["6"].ID, false, "ignored")
	if m := n["6"].Metadata; m.Bookmarked || m.BookmarkLabel != "" {
		t.Errorf("metadata after unbookmarking %+v", m)
	}
	// UI state is not hashed.
	if got := VerifyTree(tr); got != nil {
		t.Errorf("VerifyTree = %+v", got)
	}
	if err := tr.SetPruned("nope", true); err == nil {
		t.Error("SetPruned of an unknown node succeeded")
	}
}

func TestHyperedgeAndAnnotation(t *testing.T) {
	tr := newTestTree(t, ModeDialogue, "Describe this picture.")
	blobs := memBlobs{}
	img, err := NewImage(blobs, tinyPNG, "image/png", "a red square")
	if err != nil {
		t.Fatal(err)
	}
	if img.Width != 2 || img.Height != 2 || img.Ref != img.Hash+".png" {
		t.Errorf("image %+v", img)
	}
	picture := mustAddContent(t, tr, tr.Root(), img, human)
	answer, err := tr.AddHyperContinuation([]EdgeSource{
		{NodeID: tr.RootNodeID, Role: RoleInstruction}, {NodeID: picture.ID, Role: RolePrimary},
	}, Text("A red square on white."), model, []byte(`{"id":"msg_1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(answer.Parents) != 2 {
		t.Fatalf("parents %+v", answer.Parents)
	}
	path, _ := tr.Path(answer.ID)
	checkTexts(t, "Path(answer)", path, "Describe this picture.", "a red square", "A red square on white.")
	checkTexts(t, "Children(picture)", tr.Children(picture.ID), "A red square on white.")
	checkTexts(t, "Children(root)", tr.Children(tr.RootNodeID), "a red square")

	note, err := tr.Annotate(answer.ID, Text("Check the colour."), human)
	if err != nil {
		t.Fatal(err)
	}
	checkTexts(t, "Annotations", tr.Annotations(answer.ID), note.Content.Text)
	checkTexts(t, "Children(answer)", tr.Children(answer.ID))
	checkTexts(t, "Leaves", tr.Leaves(), "A red square on white.")
	ctx, _ := tr.Context(ActivePath{NodeID: note.ID})
	checkTexts(t, "Context(note)", ctx, "Describe this picture.", "a red square", "A red square on white.")
	if got := VerifyTree(tr); got != nil {
		t.Errorf("VerifyTree = %+v", got)
	}
}

func mustAddContent(t *testing.T, tr *Tree, parent *Node, c Content, a Agent) *Node {
	t.Helper()
	n, err := tr.AddContinuation(parent.ID, c, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// tinyPNG is a 2x2 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9as" +
	"\x00\x00\x00\x16IDATx\x9cb\xf8\xcf\xc0\xf0\x9f\x81\x81\x81\x01\x10\x00\x00\xff\xff\x1b\xf4\x03\xfd\xbf\xf1\x92\xbb" +
	"\x00\x00\x00\x00IEND\xaeB`\x82")

func TestVerifyTreeTamper(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(tr *Tree, n map[string]*Node)
		want   []string // "node reason related"
	}{
		{"intact", func(*Tree, map[string]*Node) {}, nil},
		{"content changed in place", func(_ *Tree, n map[string]*Node) {
			n["5"].Content = Text("Paragraph 5, rewritten. ")
		}, []string{"5 content"}},
		{"content changed, hash recomputed", func(_ *Tree, n map[string]*Node) {
			n["5"].Content = Text("Paragraph 5, rewritten. ")
			n["5"].ContentHash, _ = ComputeHash(n["5"])
			// 5 passes its own check; its child 6 recorded its old hash. The
			// versions 5b and 5c recorded 5's parent, not 5: they stay quiet,
			// as do 6's descendants.
		}, []string{"6 parent_hash 5"}},
		{"creation time changed", func(_ *Tree, n map[string]*Node) {
			n["6"].CreatedAt = n["6"].CreatedAt.Add(-time.Hour)
		}, []string{"6 content"}},
		{"author changed", func(_ *Tree, n map[string]*Node) {
			n["7"].AuthorAgentID = human.ID
			n["7"].AuthorType = AuthorHuman
		}, []string{"7 content"}},
		{"recorded parent hash changed", func(_ *Tree, n map[string]*Node) {
			n["6"].Parents[0].Hash = n["5b"].ContentHash
		}, []string{"6 content", "6 parent_hash 5"}},
		{"re-parented", func(tr *Tree, n map[string]*Node) {
			tr.IncomingEdge(n["7"].ID).Sources[0].NodeID = n["4"].ID
		}, []string{"7 parent_set"}},
		{"raw response changed", func(tr *Tree, n map[string]*Node) {
			_ = tr.SetRawResponse(n["6"].ID, []byte(`{"forged":true}`))
		}, []string{"6 raw_response"}},
		{"edit lineage redirected", func(_ *Tree, n map[string]*Node) {
			n["5c"].EditedFrom = n["6"].ID
		}, []string{"5c edit_lineage"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, n := bufferTree(t)
			names := map[string]string{}
			for k, v := range n {
				names[v.ID] = k
			}
			tt.tamper(tr, n)
			var got []string
			for _, f := range VerifyTree(tr) {
				s := names[f.NodeID] + " " + string(f.Reason)
				if f.Reason == TamperParentHash {
					s += " " + names[f.RelatedID]
				}
				if f.Detail == "" || f.LocalID == "" {
					t.Errorf("finding without detail or local id: %+v", f)
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("VerifyTree = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAuthorshipOnTree(t *testing.T) {
	tr, _, a, _, _, _ := dialogueTree(t)
	e1 := mustEdit(t, tr, a, "Moths navigate by the full moon.")
	e2 := mustEdit(t, tr, e1, "Most moths navigate by the full moon.")
	runs, err := tr.Authorship(e2.ID, authorship.Semantic)
	if err != nil {
		t.Fatal(err)
	}
	// "Moths" -> "Most moths": the model's capital "Mo" survives.
	want := []authorship.Run{{Text: "Mo", Author: authorship.Model}, {Text: "st mo", Author: authorship.Human},
		{Text: "ths navigate by the ", Author: authorship.Model}, {Text: "full ", Author: authorship.Human},
		{Text: "moon.", Author: authorship.Model}}
	if !slices.Equal(runs, want) {
		t.Errorf("Authorship = %q, want %q", runs, want)
	}
	runs, _ = tr.Authorship(a.ID, authorship.Raw)
	if len(runs) != 1 || runs[0].Author != authorship.Model {
		t.Errorf("Authorship(unedited) = %q", runs)
	}
	if _, err := tr.Authorship("nope", authorship.Raw); err == nil {
		t.Error("Authorship of an unknown node succeeded")
	}
}
