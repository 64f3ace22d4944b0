package loom

import (
	"encoding/json"
	"testing"
)

func TestContentJSON(t *testing.T) {
	tests := []struct {
		name    string
		content Content
		json    string
	}{
		{"text", Text("a <b> & c"), `{"type":"text","text":"a \u003cb\u003e \u0026 c"}`},
		{"image", Content{Type: ContentImage, Ref: "ab.png", Hash: "ab", MimeType: "image/png", Width: 2, Height: 3, AltText: "alt"},
			`{"type":"image","ref":"ab.png","hash":"ab","mimeType":"image/png","width":2,"height":3,"altText":"alt"}`},
		{"audio", Content{Type: ContentAudio, Ref: "cd.mp3", Hash: "cd", MimeType: "audio/mpeg", DurationMs: 1500, TranscriptRef: "01X"},
			`{"type":"audio","ref":"cd.mp3","hash":"cd","mimeType":"audio/mpeg","durationMs":1500,"transcriptRef":"01X"}`},
		{"mixed", Mixed(Text("look:"), Content{Type: ContentImage, Ref: "ab.png", Hash: "ab", MimeType: "image/png"}),
			`{"type":"mixed","blocks":[{"type":"text","text":"look:"},{"type":"image","ref":"ab.png","hash":"ab","mimeType":"image/png","width":0,"height":0}]}`},
		{"empty mixed", Mixed(), `{"type":"mixed","blocks":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.content)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.json {
				t.Errorf("Marshal = %s, want %s", got, tt.json)
			}
			var back Content
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if !back.Equal(tt.content) {
				t.Errorf("round trip: %+v, want %+v", back, tt.content)
			}
			if err := back.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
	for _, bad := range []string{
		`{"type":"video","ref":"x"}`,
		`{"text":"no type"}`,
		`{"type":"text","text":"x","extra":1}`,
		`{"type":"image","ref":"x","width":"wide"}`,
		`[1]`,
	} {
		var c Content
		if err := json.Unmarshal([]byte(bad), &c); err == nil {
			t.Errorf("Unmarshal(%s) succeeded: %+v", bad, c)
		}
	}
	for _, invalid := range []Content{
		{Type: ContentImage, Hash: "x", MimeType: "image/png"},
		{Type: ContentAudio, Ref: "x", MimeType: "audio/wav"},
		{Type: ContentImage, Ref: "x", Hash: "x"},
		Mixed(Mixed()),
		{Type: "video"},
	} {
		if err := invalid.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil", invalid)
		}
	}
}

func TestCanonicalJSON(t *testing.T) {
	got, err := CanonicalJSON(Content{Type: ContentImage, Ref: "r", Hash: "h", MimeType: "image/png", Width: 1, Height: 2, AltText: "<x> & y"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"altText":"<x> & y","hash":"h","height":2,"mimeType":"image/png","ref":"r","type":"image","width":1}`
	if string(got) != want {
		t.Errorf("CanonicalJSON = %s, want %s", got, want)
	}
}

func TestComputeHash(t *testing.T) {
	tr, n := bufferTree(t)
	_ = tr
	six := *n["6"]
	h1, _ := ComputeHash(&six)
	if h1 != six.ContentHash {
		t.Fatal("ComputeHash differs from the stored hash")
	}
	// Parent order does not matter; the raw response hash only counts for
	// model nodes.
	six.Parents = append(six.Parents, ParentRef{NodeID: "x", Hash: "aa"})
	h2, _ := ComputeHash(&six)
	six.Parents = []ParentRef{{NodeID: "x", Hash: "aa"}, n["6"].Parents[0]}
	h3, _ := ComputeHash(&six)
	if h2 != h3 || h2 == h1 {
		t.Error("parent hashes are not sorted, or not hashed")
	}
	root := *tr.Root()
	hr, _ := ComputeHash(&root)
	root.RawResponseHash = "ff"
	if h, _ := ComputeHash(&root); h != hr {
		t.Error("a human node's hash covers a raw response hash")
	}
	six = *n["6"]
	six.RawResponseHash = "ff"
	if h, _ := ComputeHash(&six); h == h1 {
		t.Error("a model node's hash does not cover its raw response hash")
	}
}
