package loom

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// naiveHidden is Hidden by its definition, one walk to the root per node,
// without remembering anything.
func naiveHidden(tr *Tree, id string) bool {
	seen := map[string]bool{}
	for n := tr.Node(id); n != nil && !seen[n.ID]; n = tr.Node(tr.Parent(n.ID)) {
		seen[n.ID] = true
		if n.Metadata.Pruned {
			return true
		}
	}
	return false
}

// Hidden remembers its answers and forgets them when pruning changes: on a
// random tree, after every prune and restore, it agrees with the definition
// (pruned, or under a pruned node along primary sources) for every node.
// See aspen-grove-core-entities.md, "NodeMetadata Properties" (pruned).
func TestHiddenRemembersAndForgets(t *testing.T) {
	for _, mode := range []Mode{ModeDialogue, ModeBuffer} {
		tr := newTestTree(t, mode, "Root. ")
		rng := rand.New(rand.NewPCG(7, 11))
		nodes := []*Node{tr.Root()}
		for i := range 120 {
			parent := nodes[rng.IntN(len(nodes))]
			if i%7 == 3 && tr.Parent(parent.ID) != "" {
				nodes = append(nodes, mustEdit(t, tr, parent, parent.Content.Text+"edited "))
				continue
			}
			nodes = append(nodes, mustAdd(t, tr, parent, "Node. ", model))
		}
		for step := range 60 {
			n := nodes[rng.IntN(len(nodes))]
			if err := tr.SetPruned(n.ID, !n.Metadata.Pruned); err != nil {
				t.Fatal(err)
			}
			// Ask in a random order, so that answers are remembered from
			// walks that start anywhere.
			order := slices.Clone(nodes)
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, m := range order {
				if got, want := tr.Hidden(m.ID), naiveHidden(tr, m.ID); got != want {
					t.Fatalf("%s step %d: Hidden(%s) = %t, want %t", mode, step, m.LocalID, got, want)
				}
			}
			// Bookmarks and exclusion change nothing hidden.
			_ = tr.SetBookmark(n.ID, true, "")
			_ = tr.SetExcluded(n.ID, step%2 == 0)
		}
	}
	tr := newTestTree(t, ModeDialogue, "x")
	if tr.Hidden("no-such-node") {
		t.Error("an unknown node is hidden")
	}
}

// A tampered tree whose edges make a cycle answers without looping.
func TestHiddenCycle(t *testing.T) {
	tr := newTestTree(t, ModeDialogue, "Root.")
	a := mustAdd(t, tr, tr.Root(), "a", model)
	b := mustAdd(t, tr, a, "b", model)
	tr.IncomingEdge(a.ID).Sources[0].NodeID = b.ID // a <- b <- a
	if tr.Hidden(b.ID) || tr.Hidden(a.ID) {
		t.Error("a cycle without a pruned node is hidden")
	}
	_ = tr.SetPruned(a.ID, true)
	if !tr.Hidden(b.ID) || !tr.Hidden(a.ID) {
		t.Error("a cycle with a pruned node is not hidden")
	}
}

// Parents, annotations and positions. See aspen-grove-core-entities.md,
// "Edge" and "Hyperedge Behavior for Version Nodes (Buffer Mode)".
func TestParentsAndPositions(t *testing.T) {
	tr, n := bufferTree(t)
	for k, want := range map[string]string{"r": "", "4": n["r"].ID, "5": n["4"].ID, "5b": n["4"].ID, "6": n["5"].ID} {
		if got := tr.Parent(n[k].ID); got != want {
			t.Errorf("Parent(%s) = %q, want %q", k, got, want)
		}
	}
	for k, want := range map[string]bool{"r": true, "4": true, "5": true, "5b": false, "5c": false, "7": true} {
		if got := tr.IsPosition(n[k].ID); got != want {
			t.Errorf("buffer IsPosition(%s) = %t, want %t", k, got, want)
		}
	}
	if tr.IsPosition("nope") || tr.Parent("nope") != "" || tr.IsAnnotation("nope") {
		t.Error("an unknown node is a position, has a parent or is an annotation")
	}

	d, root, a, _, _, _ := dialogueTree(t)
	a2 := mustEdit(t, d, a, "Moths use the moon.")
	note, err := d.Annotate(a.ID, Text("check"), human)
	if err != nil {
		t.Fatal(err)
	}
	// Several sources: the path follows the primary one.
	hyper, err := d.AddHyperContinuation([]EdgeSource{{NodeID: root.ID, Role: RoleInstruction}, {NodeID: a2.ID, Role: RolePrimary}},
		Text("both"), model, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsPosition(a2.ID) || d.IsPosition(note.ID) || !d.IsAnnotation(note.ID) || d.IsAnnotation(a2.ID) {
		t.Error("dialogue: an edit is a position, an annotation is not")
	}
	if d.Parent(hyper.ID) != a2.ID || d.IncomingEdge(hyper.ID).Primary() != a2.ID || d.Parent(note.ID) != a.ID {
		t.Errorf("Parent(hyper) = %s, want a2 %s", d.Parent(hyper.ID), a2.ID)
	}
	if (&Edge{Sources: []EdgeSource{{NodeID: "x", Role: RoleContext}}}).Primary() != "x" || (&Edge{}).Primary() != "" {
		t.Error("Primary without a primary source: want the first source")
	}
	if d.Positions() != 7 { // root, a, b, c1, c2, a2, hyper; not the annotation
		t.Errorf("Positions = %d, want 7", d.Positions())
	}
}

// SiblingIDs: the positions under a parent with the node's own in its place
// by creation order; in buffer mode a version stands as its family.
// See aspen-grove-core-entities.md, "Siblings".
func TestSiblingIDs(t *testing.T) {
	d, _, a, b, c1, c2 := dialogueTree(t)
	if ids, self := d.SiblingIDs(c2.ID); !slices.Equal(ids, []string{c1.ID, c2.ID}) || self != 1 {
		t.Errorf("SiblingIDs(c2) = %v %d", ids, self)
	}
	if ids, self := d.SiblingIDs(c1.ID); !slices.Equal(ids, []string{c1.ID, c2.ID}) || self != 0 {
		t.Errorf("SiblingIDs(c1) = %v %d", ids, self)
	}
	if ids, self := d.SiblingIDs(b.ID); !slices.Equal(ids, []string{b.ID}) || self != 0 {
		t.Errorf("SiblingIDs(b) = %v %d", ids, self)
	}
	a2 := mustEdit(t, d, a, "Moths use the moon.")
	if ids, self := d.SiblingIDs(a2.ID); !slices.Equal(ids, []string{a.ID, a2.ID}) || self != 1 {
		t.Errorf("dialogue SiblingIDs(edit) = %v %d", ids, self)
	}

	tr, n := bufferTree(t)
	x := mustAdd(t, tr, n["5b"], "Paragraph 6, another way. ", model)
	if ids, self := tr.SiblingIDs(n["5c"].ID); !slices.Equal(ids, []string{n["5"].ID}) || self != 0 {
		t.Errorf("buffer SiblingIDs(5c) = %v %d, want the family alone", ids, self)
	}
	if ids, self := tr.SiblingIDs(x.ID); !slices.Equal(ids, []string{n["6"].ID, x.ID}) || self != 1 {
		t.Errorf("buffer SiblingIDs(x) = %v %d", ids, self)
	}
	if ids, self := tr.SiblingIDs("nope"); len(ids) != 0 || self != 0 {
		t.Errorf("SiblingIDs(unknown) = %v %d", ids, self)
	}
}

// The active path: remembered while it resolves, normalised (version choices
// only in buffer mode), else the newest visible leaf, else the root.
func TestActivePath(t *testing.T) {
	d, root, _, b, c1, c2 := dialogueTree(t)
	if got := d.ActivePath(); got.NodeID != c2.ID || got.Versions != nil {
		t.Errorf("default ActivePath = %+v, want the newest leaf c2", got)
	}
	_ = d.SetPruned(c2.ID, true)
	if got := d.ActivePath(); got.NodeID != c1.ID {
		t.Errorf("ActivePath with c2 pruned = %+v, want c1", got)
	}
	_ = d.SetPruned(b.ID, true)
	if got := d.ActivePath(); got.NodeID != root.ID {
		t.Errorf("ActivePath with every leaf hidden = %+v, want the root", got)
	}
	if _, ok := d.RememberedPath(); ok {
		t.Error("a path is remembered before any was set")
	}
	got, err := d.SetActivePath(ActivePath{NodeID: b.ID, Versions: map[string]string{"x": "y"}})
	if err != nil || !reflect.DeepEqual(got, ActivePath{NodeID: b.ID}) {
		t.Errorf("SetActivePath in dialogue mode = %+v, %v; want the versions dropped", got, err)
	}
	if got := d.ActivePath(); !reflect.DeepEqual(got, ActivePath{NodeID: b.ID}) {
		t.Errorf("remembered ActivePath = %+v", got)
	}
	if _, err := d.SetActivePath(ActivePath{NodeID: "nowhere"}); err == nil {
		t.Error("a path to an unknown node was remembered")
	}
	if rp, _ := d.RememberedPath(); rp.NodeID != b.ID {
		t.Errorf("a refused path replaced the remembered one: %+v", rp)
	}
	// A remembered path that no longer resolves (restored from elsewhere)
	// is ignored.
	d.RestoreActivePath(ActivePath{NodeID: "gone"})
	if got := d.ActivePath(); got.NodeID != root.ID {
		t.Errorf("ActivePath with an unresolvable remembered path = %+v, want the default", got)
	}
	d.RestoreActivePath(ActivePath{})
	if _, ok := d.RememberedPath(); ok {
		t.Error("restoring an empty path remembers one")
	}

	tr, n := bufferTree(t)
	want := ActivePath{NodeID: n["7"].ID, Versions: map[string]string{n["5"].ID: n["5b"].ID}}
	if got, err := tr.SetActivePath(want); err != nil || !reflect.DeepEqual(got, want) || !reflect.DeepEqual(tr.ActivePath(), want) {
		t.Errorf("buffer SetActivePath = %+v, %v; ActivePath %+v", got, err, tr.ActivePath())
	}
	if _, err := tr.SetActivePath(ActivePath{NodeID: n["7"].ID, Versions: map[string]string{n["5"].ID: n["6"].ID}}); err == nil {
		t.Error("a version choice outside its family was remembered")
	}
	if got := tr.NormalPath(ActivePath{NodeID: "x", Versions: map[string]string{}}); got.Versions != nil {
		t.Errorf("NormalPath keeps empty versions: %+v", got)
	}
}

// The active path is exported with the tree and read back, and a copy's
// path names the copy's nodes; an export without one (written before it
// was added) imports with none.
func TestActivePathExported(t *testing.T) {
	tr, n := bufferTree(t)
	want := ActivePath{NodeID: n["6"].ID, Versions: map[string]string{n["5"].ID: n["5b"].ID}}
	if _, err := tr.SetActivePath(want); err != nil {
		t.Fatal(err)
	}
	data, err := tr.Export(memBlobs{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Import(data, memBlobs{})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := back.RememberedPath(); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("imported path %+v, %t; want %+v", got, ok, want)
	}
	cp, err := ImportCopy(data, memBlobs{}, "x.json", tr.UpdatedAt)
	if err != nil {
		t.Fatal(err)
	}
	got := cp.ActivePath()
	path, err := cp.ResolvePath(got)
	if err != nil || got.NodeID == n["6"].ID || len(got.Versions) != 1 {
		t.Fatalf("copy's path %+v: %v; want the copy's own ids", got, err)
	}
	checkTexts(t, "the copy's remembered path", path, texts([]*Node{n["r"], n["4"], n["5b"], n["6"]})...)

	plain, err := newTestTree(t, ModeDialogue, "x").Export(nil)
	if err != nil || bytes.Contains(plain, []byte(`"activePath"`)) {
		t.Errorf("an export without a remembered path: %v, activePath key present %t", err, bytes.Contains(plain, []byte(`"activePath"`)))
	}
	old, err := Import(plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := old.RememberedPath(); ok {
		t.Error("an export without an active path imports with one")
	}
}
