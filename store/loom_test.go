package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/loom"
)

// loomTestPNG is a 2x2 PNG.
var loomTestPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\x08\x02\x00\x00\x00\xfd\xd4\x9as" +
	"\x00\x00\x00\x16IDATx\x9cb\xf8\xcf\xc0\xf0\x9f\x81\x81\x81\x01\x10\x00\x00\xff\xff\x1b\xf4\x03\xfd\xbf\xf1\x92\xbb" +
	"\x00\x00\x00\x00IEND\xaeB`\x82")

func openLoomTestStore(t *testing.T, name string) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// loomFixture is a buffer-mode tree saved node by node as the app would:
// continuations by the model (with raw responses), two edits of one of them,
// an image, an annotation, node state and summaries.
type loomFixture struct {
	tree  *loom.Tree
	nodes map[string]*loom.Node
	human loom.Agent
	model loom.Agent
}

func newLoomFixture(t *testing.T, s *Store) *loomFixture {
	t.Helper()
	ctx := context.Background()
	grove, err := s.DefaultGrove(ctx)
	if err != nil {
		t.Fatal(err)
	}
	human, err := s.LoomHumanAgent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	model, err := s.LoomModelAgent(ctx, "anthropic/claude-sonnet-4", "Claude Sonnet 4")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := loom.NewTree(loom.TreeSpec{GroveID: grove.ID, Mode: loom.ModeBuffer, Root: loom.Text("The keeper's log. "),
		Author: human, SystemContext: "Continue the story."})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateLoomTree(ctx, tr); err != nil {
		t.Fatal(err)
	}
	f := &loomFixture{tree: tr, nodes: map[string]*loom.Node{"root": tr.Root()}, human: human, model: model}
	save := func(key string) func(*loom.Node, error) {
		return func(n *loom.Node, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SaveLoomNode(ctx, tr, n.ID); err != nil {
				t.Fatal(err)
			}
			f.nodes[key] = n
		}
	}
	save("a")(tr.AddContinuation(tr.RootNodeID, loom.Text("Day one: the lamp failed twice. "), model,
		[]byte(`{"id":"msg_01","model":"claude-sonnet-4","content":[{"type":"text","text":"Day one: the lamp failed twice. "}]}`)))
	save("b")(tr.AddContinuation(f.nodes["a"].ID, loom.Text("Day two: a ship, far out. "), model, []byte(`{"id":"msg_02"}`)))
	save("a2")(tr.Edit(f.nodes["a"].ID, loom.Text("Day one: the lamp failed three times. "), human))
	save("a3")(tr.Edit(f.nodes["a2"].ID, loom.Text("Day one: the lamp failed three times, then held. "), human))
	img, err := loom.NewImage(s.LoomBlobs(), loomTestPNG, "image/png", "the lamp")
	if err != nil {
		t.Fatal(err)
	}
	save("pic")(tr.AddContinuation(f.nodes["b"].ID, loom.Mixed(loom.Text("Sketch: "), img), human, nil))
	save("note")(tr.Annotate(f.nodes["b"].ID, loom.Text("which ship?"), human))
	if err := tr.SetBookmark(f.nodes["b"].ID, true, "the ship"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLoomNodeState(ctx, f.nodes["b"].ID, f.nodes["b"].Metadata); err != nil {
		t.Fatal(err)
	}
	_ = tr.SetSummary(f.nodes["a"].ID, "The lamp fails.")
	if err := s.SetLoomNodeSummary(ctx, f.nodes["a"].ID, "The lamp fails."); err != nil {
		t.Fatal(err)
	}
	return f
}

// exportStored is tree id as the library holds it, raw responses and blobs
// included, in Rhizome's export format.
func exportStored(t *testing.T, s *Store, id string) []byte {
	t.Helper()
	tr, err := s.LoadLoomTreeWithRaw(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := tr.Export(s.LoomBlobs())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// verifyStored is what loom.VerifyTree and loom.VerifyBlobs find in tree id
// as the library holds it.
func verifyStored(t *testing.T, s *Store, id string) []loom.Tamper {
	t.Helper()
	tr, err := s.LoadLoomTreeWithRaw(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return append(loom.VerifyTree(tr), loom.VerifyBlobs(tr, s.LoomBlobs())...)
}

// storeExport reads an export into s (its blobs into s's blob folder), or a
// copy of it when copySource is set, puts it in s's grove and stores it with
// CreateLoomTree.
func storeExport(t *testing.T, s *Store, data []byte, copySource string) (*loom.Tree, error) {
	t.Helper()
	ctx := context.Background()
	var tr *loom.Tree
	var err error
	if copySource != "" {
		tr, err = loom.ImportCopy(data, s.LoomBlobs(), copySource, time.Now())
	} else {
		tr, err = loom.Import(data, s.LoomBlobs())
	}
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.DefaultGrove(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.GroveID = g.ID
	return tr, s.CreateLoomTree(ctx, tr)
}

func TestLoomTreeRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "library.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f := newLoomFixture(t, s)
	want, err := f.tree.Export(s.LoomBlobs())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Reopened from the file: the same tree, byte for byte.
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := exportStored(t, s, f.tree.ID)
	if !bytes.Equal(got, want) {
		t.Errorf("stored tree differs:\n%s\n----\n%s", got, want)
	}
	loaded, err := s.LoadLoomTree(ctx, f.tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.RawResponse(f.nodes["a"].ID) != nil {
		t.Error("LoadLoomTree loaded raw responses")
	}
	raw, err := s.LoomRawResponse(ctx, f.nodes["a"].ID)
	if err != nil || !strings.Contains(string(raw), "msg_01") {
		t.Errorf("LoomRawResponse = %s, %v", raw, err)
	}
	if _, err := s.LoomRawResponse(ctx, f.nodes["pic"].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("raw response of a human node: %v", err)
	}
	path2, err := loaded.Path(f.nodes["b"].ID)
	if err != nil {
		t.Fatal(err)
	}
	if text := loom.PathText(path2); text != "The keeper's log. Day one: the lamp failed three times, then held. Day two: a ship, far out. " {
		t.Errorf("path text %q", text)
	}
	if findings := verifyStored(t, s, f.tree.ID); findings != nil {
		t.Errorf("verified: %+v", findings)
	}
	if m := loaded.Node(f.nodes["b"].ID).Metadata; !m.Bookmarked || m.BookmarkLabel != "the ship" {
		t.Errorf("state %+v", m)
	}
	if _, err := s.LoadLoomTree(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("LoadLoomTree(unknown) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "library.db.blobs", f.nodes["pic"].Content.Blocks[1].Ref)); err != nil {
		t.Errorf("the image is not beside the library: %v", err)
	}
}

func TestLoomSaveNode(t *testing.T) {
	ctx := context.Background()
	s := openLoomTestStore(t, "library.db")
	f := newLoomFixture(t, s)
	// Saving again is harmless; a different node under the same id is not.
	if err := s.SaveLoomNode(ctx, f.tree, f.nodes["b"].ID); err != nil {
		t.Errorf("saving a node twice: %v", err)
	}
	forged := *f.nodes["b"]
	forged.ContentHash = "00"
	other, _ := loom.Restore(f.tree.LoomTree, f.tree.Agents(), replaceLoomNode(f.tree.Nodes(), &forged), f.tree.Edges())
	if err := s.SaveLoomNode(ctx, other, forged.ID); err == nil {
		t.Error("a node was saved over another")
	}
	if err := s.SaveLoomNode(ctx, f.tree, "nope"); err == nil {
		t.Error("saving an unknown node succeeded")
	}
	if err := s.SetLoomNodeState(ctx, "nope", loom.NodeMetadata{Pruned: true}); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetLoomNodeState(unknown) = %v", err)
	}
	// State and summary are kept apart.
	if err := s.SetLoomNodeState(ctx, f.nodes["a"].ID, loom.NodeMetadata{Pruned: true}); err != nil {
		t.Fatal(err)
	}
	loaded, _ := s.LoadLoomTree(ctx, f.tree.ID)
	if n := loaded.Node(f.nodes["a"].ID); !n.Metadata.Pruned || n.Summary != "The lamp fails." {
		t.Errorf("node a %+v", n)
	}
}

func replaceLoomNode(nodes []*loom.Node, n *loom.Node) []*loom.Node {
	for i, m := range nodes {
		if m.ID == n.ID {
			nodes[i] = n
		}
	}
	return nodes
}

func TestLoomTreesListUpdateArchive(t *testing.T) {
	ctx := context.Background()
	s := openLoomTestStore(t, "library.db")
	f := newLoomFixture(t, s)
	grove, _ := s.DefaultGrove(ctx)
	for i := range 2 {
		tr, err := loom.NewTree(loom.TreeSpec{GroveID: grove.ID, Mode: loom.ModeDialogue, Root: loom.Text(""), Author: f.human})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CreateLoomTree(ctx, tr); err != nil {
			t.Fatal(err)
		}
		if n, err := s.CountLoomTrees(ctx, grove.ID); err != nil || n != i+2 {
			t.Errorf("CountLoomTrees = %d, %v; want %d", n, err, i+2)
		}
	}
	if ok, err := s.LoomGroveExists(ctx, grove.ID); !ok || err != nil {
		t.Errorf("LoomGroveExists(the grove) = %t, %v", ok, err)
	}
	if ok, err := s.LoomGroveExists(ctx, "nope"); ok || err != nil {
		t.Errorf("LoomGroveExists(nope) = %t, %v", ok, err)
	}
	list, err := s.ListLoomTrees(ctx, grove.ID, false)
	if err != nil || len(list) != 3 {
		t.Fatalf("ListLoomTrees = %+v, %v", list, err)
	}
	var fixture LoomTreeListing
	for _, l := range list {
		if l.ID == f.tree.ID {
			fixture = l
		}
	}
	if fixture.Nodes != 7 || fixture.Title != "The keeper's log." || fixture.Mode != loom.ModeBuffer {
		t.Errorf("listing %+v", fixture)
	}

	info := f.tree.LoomTree
	info.Title, info.Description = "Log", "A keeper's days."
	if err := s.UpdateLoomTree(ctx, &info); err != nil {
		t.Fatal(err)
	}
	if err := s.ArchiveLoomTree(ctx, f.tree.ID, true); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.ListLoomTrees(ctx, "", false); len(list) != 2 {
		t.Errorf("%d active trees, want 2", len(list))
	}
	list, _ = s.ListLoomTrees(ctx, "", true)
	loaded, _ := s.LoadLoomTree(ctx, f.tree.ID)
	if len(list) != 3 || loaded.Title != "Log" || loaded.Description != "A keeper's days." || loaded.ArchivedAt == nil {
		t.Errorf("after update and archive: %+v", loaded.LoomTree)
	}
	if err := s.ArchiveLoomTree(ctx, f.tree.ID, false); err != nil {
		t.Fatal(err)
	}
	if loaded, _ := s.LoadLoomTree(ctx, f.tree.ID); loaded.ArchivedAt != nil {
		t.Error("the tree is still archived")
	}
	if err := s.ArchiveLoomTree(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("ArchiveLoomTree(unknown) = %v", err)
	}

	// Agents: one human, one per model, made once.
	h2, _ := s.LoomHumanAgent(ctx)
	m2, _ := s.LoomModelAgent(ctx, "anthropic/claude-sonnet-4", "")
	m3, _ := s.LoomModelAgent(ctx, "openai/gpt-5", "GPT-5")
	if h2 != f.human || m2 != f.model || m3.ID == f.model.ID || m3.Name != "GPT-5" {
		t.Errorf("agents %+v %+v %+v", h2, m2, m3)
	}
	agents, _ := s.LoomAgents(ctx)
	if len(agents) != 3 {
		t.Errorf("agents %+v", agents)
	}
}

func TestLoomImmutableInDatabase(t *testing.T) {
	ctx := context.Background()
	s := openLoomTestStore(t, "library.db")
	f := newLoomFixture(t, s)
	a := f.nodes["a"].ID
	for _, q := range []string{
		`UPDATE loom_nodes SET content = '{"type":"text","text":"forged"}' WHERE id = '` + a + `'`,
		`UPDATE loom_nodes SET content_hash = 'ff' WHERE id = '` + a + `'`,
		`UPDATE loom_edges SET target_node_id = '` + f.tree.RootNodeID + `' WHERE target_node_id = '` + a + `'`,
		`UPDATE loom_edge_sources SET role = 'context'`,
		`UPDATE raw_responses SET data = x'00'`,
		`UPDATE loom_trees SET mode = 'dialogue'`,
		`DELETE FROM loom_nodes WHERE id = '` + f.nodes["b"].ID + `'`,
	} {
		if _, err := s.db.ExecContext(ctx, q); err == nil {
			t.Errorf("%s succeeded", q)
		} else if !strings.Contains(err.Error(), "loom:") {
			t.Errorf("%s: %v", q, err)
		}
	}
	// What may change does.
	if _, err := s.db.ExecContext(ctx, `UPDATE loom_trees SET title = 'x', updated_at = '2030-01-01T00:00:00.000Z'`); err != nil {
		t.Error(err)
	}
	// A tree goes with all it holds.
	if _, err := s.db.ExecContext(ctx, `DELETE FROM loom_trees WHERE id = ?`, f.tree.ID); err != nil {
		t.Fatalf("deleting a tree: %v", err)
	}
	for _, table := range []string{"loom_nodes", "loom_edges", "loom_edge_sources", "loom_node_state", "raw_responses"} {
		var n int
		_ = s.db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
		if n != 0 {
			t.Errorf("%d rows left in %s", n, table)
		}
	}
}

// TestLoomTamperInDatabase tampers with a stored tree the way someone with
// the sqlite3 shell would: the tree loaded back, verified, names exactly the
// changed node.
func TestLoomTamperInDatabase(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		tamper func(s *Store, f *loomFixture) error
		node   string
		reason loom.TamperReason
	}{
		{"content", func(s *Store, f *loomFixture) error {
			_, err := s.db.ExecContext(ctx, `UPDATE loom_nodes SET content = '{"type":"text","text":"Day two: nothing. "}',
				text = 'Day two: nothing. ' WHERE id = ?`, f.nodes["b"].ID)
			return err
		}, "b", loom.TamperContent},
		{"raw response", func(s *Store, f *loomFixture) error {
			_, err := s.db.ExecContext(ctx, `UPDATE raw_responses SET data = CAST('{"id":"msg_99"}' AS BLOB) WHERE node_id = ?`, f.nodes["a"].ID)
			return err
		}, "a", loom.TamperRawResponse},
		{"re-parented", func(s *Store, f *loomFixture) error {
			_, err := s.db.ExecContext(ctx, `UPDATE loom_edge_sources SET node_id = ? WHERE edge_id =
				(SELECT id FROM loom_edges WHERE target_node_id = ?)`, f.tree.RootNodeID, f.nodes["b"].ID)
			return err
		}, "b", loom.TamperParentSet},
		{"image file", func(s *Store, f *loomFixture) error {
			path, _ := s.LoomBlobs().Path(f.nodes["pic"].Content.Blocks[1].Ref)
			return os.WriteFile(path, []byte("not the lamp"), 0o644)
		}, "pic", loom.TamperBlob},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openLoomTestStore(t, "library.db")
			f := newLoomFixture(t, s)
			for _, trigger := range []string{"loom_nodes_immutable", "loom_edges_immutable", "loom_edge_sources_immutable", "raw_responses_immutable"} {
				if _, err := s.db.ExecContext(ctx, `DROP TRIGGER `+trigger); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.tamper(s, f); err != nil {
				t.Fatal(err)
			}
			got := verifyStored(t, s, f.tree.ID)
			if len(got) != 1 || got[0].NodeID != f.nodes[tt.node].ID || got[0].Reason != tt.reason {
				t.Errorf("verified: %+v, want one %s finding on %s (%s)", got, tt.reason, tt.node, f.nodes[tt.node].ID)
			}
		})
	}
}

// A tree exported from one library is stored whole in another (its blobs
// too), and exports from there identically but for the grove.
func TestLoomImportExportBetweenLibraries(t *testing.T) {
	ctx := context.Background()
	a := openLoomTestStore(t, "a.db")
	f := newLoomFixture(t, a)
	data := exportStored(t, a, f.tree.ID)
	b := openLoomTestStore(t, "b.db")
	tr, err := storeExport(t, b, data, "")
	if err != nil {
		t.Fatal(err)
	}
	if findings := verifyStored(t, b, tr.ID); findings != nil {
		t.Errorf("findings %+v", findings)
	}
	again := exportStored(t, b, tr.ID)
	groveB, _ := b.DefaultGrove(ctx)
	want := strings.Replace(string(data), f.tree.GroveID, groveB.ID, 1)
	if string(again) != want {
		t.Errorf("export from b differs:\n%s\n----\n%s", again, want)
	}
	if _, err := storeExport(t, b, data, ""); !errors.Is(err, ErrLoomTreeExists) {
		t.Errorf("second import: %v", err)
	}
	// The image came along.
	if got, err := b.LoomBlobs().Get(f.nodes["pic"].Content.Blocks[1].Ref); err != nil || !bytes.Equal(got, loomTestPNG) {
		t.Errorf("image in b: %v", err)
	}
	// A forged export is stored as it is, for verifying to find it.
	forged := strings.Replace(string(data), "Day two: a ship, far out. ", "Day two: no ship at all. ", 1)
	forged = strings.Replace(forged, f.tree.ID, "01JZZZZZZZZZZZZZZZZZZZZZZZ", -1)
	c := openLoomTestStore(t, "c.db")
	tr, err = storeExport(t, c, []byte(forged), "")
	if err != nil {
		t.Fatal(err)
	}
	if findings := verifyStored(t, c, tr.ID); len(findings) != 1 || findings[0].NodeID != f.nodes["b"].ID || findings[0].Reason != loom.TamperContent {
		t.Errorf("findings of a forged import %+v", findings)
	}
}

func TestLoomSocketteerIntoLibrary(t *testing.T) {
	ctx := context.Background()
	s := openLoomTestStore(t, "library.db")
	data, err := os.ReadFile("../backend/loom/testdata/socketteer-lighthouse.json")
	if err != nil {
		t.Fatal(err)
	}
	grove, _ := s.DefaultGrove(ctx)
	human, _ := s.LoomHumanAgent(ctx)
	imp, err := loom.ImportSocketteer(data, loom.SocketteerOptions{GroveID: grove.ID, Title: "lighthouse", Human: human,
		ModelAgent: func(name string) loom.Agent {
			a, err := s.LoomModelAgent(ctx, name, name)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateLoomTree(ctx, imp.Tree); err != nil {
		t.Fatal(err)
	}
	if findings := verifyStored(t, s, imp.Tree.ID); findings != nil {
		t.Errorf("verified: %+v", findings)
	}
	loaded, err := s.LoadLoomTree(ctx, imp.Tree.ID)
	if err != nil {
		t.Fatal(err)
	}
	path, err := loaded.ResolvePath(imp.ActivePath)
	if err != nil || !strings.HasSuffix(loom.PathText(path), "just a quarter turn, and listen. 🌩️") {
		t.Errorf("active path %q, %v", loom.PathText(path), err)
	}
}

// A tree the library already holds is found by its key (its id, or the id
// of a node already stored) in CreateLoomTree's transaction, not by a
// constraint failing: the typed error says which tree holds it, and nothing
// is written. Stored as a copy, it gets new ids and keeps its content,
// authors, times, node state, blobs and hash chain, and says where it came
// from.
func TestLoomImportDuplicateAndCopy(t *testing.T) {
	ctx := context.Background()
	a := openLoomTestStore(t, "a.db")
	f := newLoomFixture(t, a)
	data := exportStored(t, a, f.tree.ID)

	// The same tree again: found by its id.
	_, err := storeExport(t, a, data, "")
	var exists *LoomTreeExistsError
	if !errors.As(err, &exists) || !errors.Is(err, ErrLoomTreeExists) || exists.TreeID != f.tree.ID || exists.InTree != f.tree.ID || exists.NodeID != "" {
		t.Fatalf("second import: %v (%+v)", err, exists)
	}
	// Its nodes under another tree id: found by a node's id, in the tree that holds it.
	renamed := strings.ReplaceAll(string(data), f.tree.ID, "01JZZZZZZZZZZZZZZZZZZZZZZZ")
	_, err = storeExport(t, a, []byte(renamed), "")
	exists = nil
	if !errors.As(err, &exists) || exists.TreeID != "01JZZZZZZZZZZZZZZZZZZZZZZZ" || exists.InTree != f.tree.ID || exists.NodeID == "" {
		t.Fatalf("import of stored nodes under another tree id: %v (%+v)", err, exists)
	}
	if trees, _ := a.ListLoomTrees(ctx, "", true); len(trees) != 1 {
		t.Fatalf("%d trees after two refused imports, want 1", len(trees))
	}

	// As a copy: new ids, the same tree otherwise.
	cp, err := storeExport(t, a, data, "keeper.loom.json")
	if err != nil {
		t.Fatal(err)
	}
	if cp.ID == f.tree.ID || cp.CopiedFrom != f.tree.ID || cp.CopySource != "keeper.loom.json" || cp.Mode != f.tree.Mode ||
		cp.SystemContext != f.tree.SystemContext {
		t.Errorf("copy %+v of %+v", cp.LoomTree, f.tree.LoomTree)
	}
	orig := f.tree.Nodes()
	copied := cp.Nodes()
	if len(copied) != len(orig) {
		t.Fatalf("%d nodes copied, want %d", len(copied), len(orig))
	}
	for i, n := range copied {
		o := orig[i]
		if n.ID == o.ID || f.tree.Node(n.ID) != nil || n.TreeID != cp.ID {
			t.Errorf("node %d kept id %s or tree %s", i, n.ID, n.TreeID)
		}
		if n.ContentHash != o.ContentHash || n.Content.PlainText() != o.Content.PlainText() || !n.CreatedAt.Equal(o.CreatedAt) ||
			n.AuthorAgentID != o.AuthorAgentID || n.Metadata != o.Metadata || n.Summary != o.Summary {
			t.Errorf("node %d: copy %+v of %+v", i, n, o)
		}
		if (o.EditedFrom == "") != (n.EditedFrom == "") || (o.EditedFrom != "" && cp.Node(n.EditedFrom) == nil) {
			t.Errorf("node %d: editedFrom %q for %q", i, n.EditedFrom, o.EditedFrom)
		}
	}
	if cp.Root().Content.PlainText() != f.tree.Root().Content.PlainText() {
		t.Errorf("root %q", cp.Root().Content.PlainText())
	}
	// Stored as it was made: the hash chain holds, raw responses and the image came along, provenance kept.
	if found := verifyStored(t, a, cp.ID); found != nil {
		t.Errorf("verified copy: %+v", found)
	}
	loaded, err := a.LoadLoomTree(ctx, cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.CopiedFrom != f.tree.ID || loaded.CopySource != "keeper.loom.json" || loaded.Len() != len(orig) {
		t.Errorf("loaded copy %+v, %d nodes", loaded.LoomTree, loaded.Len())
	}
	if raw, err := a.LoomRawResponse(ctx, copied[1].ID); err != nil || len(raw) == 0 {
		t.Errorf("raw response of the copy's first continuation: %q, %v", raw, err)
	}
	trees, _ := a.ListLoomTrees(ctx, "", true)
	if len(trees) != 2 {
		t.Fatalf("%d trees, want the original and its copy", len(trees))
	}
	for _, l := range trees {
		if l.Nodes != len(orig) || l.Positions != f.tree.Positions() {
			t.Errorf("listing %s: %d nodes, %d positions; want %d, %d", l.ID, l.Nodes, l.Positions, len(orig), f.tree.Positions())
		}
	}
	// A copy of the copy, in another library, still says what it is a copy of.
	again := exportStored(t, a, cp.ID)
	b := openLoomTestStore(t, "b.db")
	back, err := storeExport(t, b, again, "")
	if err != nil || back.ID != cp.ID || back.CopiedFrom != f.tree.ID {
		t.Errorf("the copy imported elsewhere: %+v, %v", back, err)
	}
}
