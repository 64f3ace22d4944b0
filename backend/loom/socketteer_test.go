package loom

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/authorship"
)

func importLighthouse(t *testing.T) *SocketteerImport {
	t.Helper()
	data, err := os.ReadFile("testdata/socketteer-lighthouse.json")
	if err != nil {
		t.Fatal(err)
	}
	ids := testIDs()
	models := map[string]Agent{}
	imp, err := ImportSocketteer(data, SocketteerOptions{
		GroveID: grove, Title: "lighthouse", Human: human,
		ModelAgent: func(name string) Agent {
			if a, ok := models[name]; ok {
				return a
			}
			a := Agent{ID: "01MODEL-" + name, Type: AuthorModel, Name: name, ModelConfigRef: name}
			models[name] = a
			return a
		},
		Location: time.FixedZone("CEST", 2*3600),
		Now:      testClock(), NewID: ids,
	})
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

func TestImportSocketteer(t *testing.T) {
	imp := importLighthouse(t)
	tr := imp.Tree
	if tr.Mode != ModeBuffer || tr.Title != "lighthouse" || tr.Len() != 9 {
		t.Fatalf("tree %+v with %d nodes", tr.LoomTree, tr.Len())
	}
	if got := VerifyTree(tr); got != nil {
		t.Errorf("VerifyTree = %+v", got)
	}
	root := tr.Root()
	if root.Content.Text != "" || !root.CreatedAt.Equal(time.Date(2021, 9, 15, 9, 58, 2, 123_000_000, time.UTC)) {
		t.Errorf("root %+v (its time comes from its version-1 UUID)", root)
	}
	node := func(loomID string) *Node {
		t.Helper()
		n := tr.Node(imp.IDs[loomID])
		if n == nil {
			t.Fatalf("loom node %s was not imported", loomID)
		}
		return n
	}
	prompt := node("fe893920-160b-11ec-b847-acde48001122")
	if prompt.AuthorType != AuthorHuman || !prompt.Metadata.Bookmarked || prompt.Metadata.BookmarkLabel != "The jar" {
		t.Errorf("prompt %+v", prompt)
	}
	generated := tr.Children(prompt.ID)
	if len(generated) != 3 {
		t.Fatalf("%d children of the prompt", len(generated))
	}
	first := generated[0]
	if first.AuthorType != AuthorModel || first.AuthorAgentID != "01MODEL-davinci-002" || first.RawResponseHash == "" {
		t.Errorf("generated node %+v", first)
	}
	if raw := tr.RawResponse(first.ID); !strings.Contains(string(raw), `"model":"davinci-002"`) {
		t.Errorf("raw response %s", raw)
	}

	// The edited generation: the model's original and two human versions.
	edited := node("0fac6e20-160c-11ec-b847-acde48001122")
	chain := tr.EditChain(edited.ID)
	if len(chain) != 3 || chain[0].AuthorType != AuthorModel || chain[1].AuthorType != AuthorHuman ||
		chain[0].ID != generated[1].ID {
		t.Fatalf("edit chain %q", texts(chain))
	}
	if !chain[1].CreatedAt.Equal(time.Date(2021, 9, 15, 10, 5, 31, 0, time.UTC)) {
		t.Errorf("first revision at %v: loom's local timestamp was not read in the given zone", chain[1].CreatedAt)
	}
	runs, _ := tr.Authorship(edited.ID, authorship.Semantic)
	var human []string
	for _, r := range runs {
		if r.Author == authorship.Human {
			human = append(human, r.Text)
		}
	}
	if want := []string{"one ", " —", "shrimping", ",", "great deal"}; !slices.Equal(human, want) {
		t.Errorf("human runs %q, want %q (all runs %q)", human, want, runs)
	}
	// Children hang off the original and are shared by its versions.
	checkTexts(t, "Children(edited)", tr.Children(edited.ID), tr.Children(chain[0].ID)[0].Content.Text,
		tr.Children(chain[0].ID)[1].Content.Text)

	mixed := generated[2]
	if mixed.AuthorType != AuthorHuman || !mixed.Metadata.Bookmarked || !mixed.Metadata.Excluded {
		t.Errorf("mixed node without history %+v", mixed)
	}
	if archived := node("ada0d4e0-160c-11ec-b847-acde48001122"); !archived.Metadata.Pruned {
		t.Errorf("archived node %+v", archived)
	}

	// loom's selection is the active path; it runs through the newest version.
	path, err := tr.ResolvePath(imp.ActivePath)
	if err != nil {
		t.Fatal(err)
	}
	want := "The lighthouse keeper kept a jar of storms on the windowsill. She had caught the first one when she was nine — " +
		"with a shrimping net, and a great deal of luck.\n\nOn stormless nights she would unscrew a lid, just a quarter turn, and listen. 🌩️"
	if got := PathText(path); got != want {
		t.Errorf("active path text %q", got)
	}
	wantWarnings := []string{
		"1 nodes were generated then edited without a revision history: imported as human-written",
		`tag "demo" on 2 nodes was not kept`,
	}
	if !slices.Equal(imp.Warnings, wantWarnings) {
		t.Errorf("warnings %q", imp.Warnings)
	}

	data, err := tr.Export(nil)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "socketteer-lighthouse.rhizome.json", data)
}

func TestImportSocketteerShapes(t *testing.T) {
	opts := SocketteerOptions{GroveID: grove, Human: human, Now: testClock(), NewID: testIDs()}
	tests := []struct {
		name, data string
		nodes      int
		text       string
	}{
		{"bare node", `{"text": "Once", "children": [{"text": " upon a time"}]}`, 2, "Once upon a time"},
		{"list of nodes", `[{"text": "A"}, {"text": "B", "children": [{"text": "C", "meta": {"source": "AI"}}]}]`, 4, "BC"},
		{"numeric ids", `{"root": {"id": 1, "text": "x", "children": [{"id": 2, "text": "y"}]}, "selected_node_id": 2}`, 2, "xy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imp, err := ImportSocketteer([]byte(tt.data), opts)
			if err != nil {
				t.Fatal(err)
			}
			path, err := imp.Tree.ResolvePath(imp.ActivePath)
			if err != nil {
				t.Fatal(err)
			}
			if imp.Tree.Len() != tt.nodes || PathText(path) != tt.text {
				t.Errorf("%d nodes, active path %q", imp.Tree.Len(), PathText(path))
			}
			if got := VerifyTree(imp.Tree); got != nil {
				t.Errorf("VerifyTree = %+v", got)
			}
		})
	}
	for _, bad := range []string{``, `42`, `{"settings": {}}`, `{"root": {"text": 5}}`} {
		if _, err := ImportSocketteer([]byte(bad), opts); err == nil {
			t.Errorf("ImportSocketteer(%q) succeeded", bad)
		}
	}
	if _, err := ImportSocketteer([]byte(`{"text": ""}`), SocketteerOptions{GroveID: grove}); err == nil {
		t.Error("an import without a human agent succeeded")
	}
	if !IsSocketteerTree([]byte(`{"root": {"text": ""}}`)) || IsSocketteerTree([]byte(`{"format": "rhizome.loom-tree"}`)) {
		t.Error("IsSocketteerTree misjudges")
	}
}

func TestUUID1Time(t *testing.T) {
	got, ok := uuid1Time("d56aafb6-165f-11ec-b847-acde48001122") // from loom's own loom_demo.json
	if !ok || got.Format(time.RFC3339) != "2021-09-15T20:02:19Z" {
		t.Errorf("uuid1Time = %v %v", got, ok)
	}
	for _, id := range []string{"3074457352913436487", "d56aafb6-165f-41ec-b847-acde48001122", ""} {
		if _, ok := uuid1Time(id); ok {
			t.Errorf("uuid1Time(%q) succeeded", id)
		}
	}
}
