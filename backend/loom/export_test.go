package loom

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// richTree has every kind of thing an export must carry: versions,
// branches, a hyperedge, media, an annotation, metadata, summaries and raw
// responses.
func richTree(t *testing.T, blobs BlobStore) *Tree {
	t.Helper()
	tr, n := bufferTree(t)
	tr.Description = "A test of everything."
	tr.Summary = "Paragraphs, fixed."
	tr.SystemContext = "You are a careful editor."
	img, err := NewImage(blobs, tinyPNG, "image/png", "a red square")
	if err != nil {
		t.Fatal(err)
	}
	pic, err := tr.AddContinuation(n["7"].ID, Mixed(Text("See: "), img), human, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.AddHyperContinuation([]EdgeSource{{NodeID: pic.ID, Role: RolePrimary}, {NodeID: n["4"].ID, Role: RoleContext}},
		Text("A square. "), model, []byte(`{"id":"msg_x","usage":{"input_tokens":12}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Annotate(n["6"].ID, Text("too long?"), human); err != nil {
		t.Fatal(err)
	}
	_ = tr.SetBookmark(n["6"].ID, true, "middle")
	_ = tr.SetPruned(n["5b"].ID, true)
	_ = tr.SetExcluded(n["4"].ID, true)
	_ = tr.SetSummary(n["7"].ID, "It ends.")
	archived := time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	tr.ArchivedAt = &archived
	return tr
}

func TestExportImportRoundTrip(t *testing.T) {
	blobs := memBlobs{}
	tr := richTree(t, blobs)
	first, err := tr.Export(blobs)
	if err != nil {
		t.Fatal(err)
	}
	other := memBlobs{} // another library
	back, err := Import(first, other)
	if err != nil {
		t.Fatal(err)
	}
	if got := VerifyTree(back); got != nil {
		t.Errorf("VerifyTree after import = %+v", got)
	}
	second, err := back.Export(other)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("export -> import -> export differs:\n%s\n----\n%s", first, second)
	}
	if len(other) != 1 {
		t.Errorf("%d blobs imported, want 1", len(other))
	}
	if back.Len() != tr.Len() || back.Mode != ModeBuffer || back.Title != tr.Title || back.ArchivedAt == nil {
		t.Errorf("imported tree %+v", back.LoomTree)
	}
	if !strings.Contains(string(first), `"format": "rhizome.loom-tree"`) || !strings.Contains(string(first), `"rawResponses"`) {
		t.Error("export lacks its format or raw responses")
	}
	// Without a blob store the media bytes are left out, the rest is the same.
	lean, err := tr.Export(nil)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(lean, []byte(`"blobs"`)) {
		t.Error("export without a blob store embeds blobs")
	}
	if _, err := tr.Export(memBlobs{}); err == nil {
		t.Error("export with a missing blob succeeded")
	}
}

func TestImportRejects(t *testing.T) {
	tr := richTree(t, memBlobs{})
	good, _ := tr.Export(nil)
	tests := []struct {
		name, from, to string
	}{
		{"other format", `"rhizome.loom-tree"`, `"something-else"`},
		{"future version", `"version": 1`, `"version": 2`},
		{"unknown content type", `"type": "text"`, `"type": "hologram"`},
		{"root missing", `"rootNodeId": "`, `"rootNodeId": "X`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(string(good), tt.from, tt.to, 1)
			if bad == string(good) {
				t.Fatalf("%q not in the export", tt.from)
			}
			if _, err := Import([]byte(bad), nil); err == nil {
				t.Error("Import succeeded")
			}
		})
	}
	if _, err := Import([]byte("not json"), nil); err == nil {
		t.Error("Import of garbage succeeded")
	}
}

func TestImportedTamperIsReported(t *testing.T) {
	tr := richTree(t, memBlobs{})
	data, _ := tr.Export(nil)
	forged := strings.Replace(string(data), "Paragraph 6. ", "Paragraph 6, forged. ", 1)
	back, err := Import([]byte(forged), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := VerifyTree(back)
	if len(got) != 1 || got[0].Reason != TamperContent || back.Node(got[0].NodeID).Content.Text != "Paragraph 6, forged. " {
		t.Errorf("VerifyTree = %+v", got)
	}
}

func TestVerifyBlobs(t *testing.T) {
	blobs := memBlobs{}
	tr := richTree(t, blobs)
	if got := VerifyBlobs(tr, blobs); got != nil {
		t.Errorf("VerifyBlobs = %+v", got)
	}
	for ref := range blobs {
		blobs[ref] = []byte("not a png")
	}
	got := VerifyBlobs(tr, blobs)
	if len(got) != 1 || got[0].Reason != TamperBlob {
		t.Errorf("VerifyBlobs after overwriting = %+v", got)
	}
	if got := VerifyBlobs(tr, memBlobs{}); len(got) != 1 {
		t.Errorf("VerifyBlobs with the blob missing = %+v", got)
	}
}

// IsExport tells Rhizome's exports, damaged ones included, from other files
// (socketteer/loom trees, anything else).
func TestIsExport(t *testing.T) {
	good, _ := richTree(t, memBlobs{}).Export(nil)
	socketteer, err := os.ReadFile(filepath.Join("testdata", "socketteer-lighthouse.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		want bool
	}{
		{"export", good, true},
		{"truncated export", good[:len(good)/2], true},
		{"socketteer tree", socketteer, false},
		{"another format", []byte(`{"format": "something-else"}`), false},
		{"empty", nil, false},
	} {
		if got := IsExport(tt.data); got != tt.want {
			t.Errorf("IsExport(%s) = %t, want %t", tt.name, got, tt.want)
		}
	}
}
