package link

import (
	"encoding/json"
	"strings"
	"testing"
)

// Real ids of the library's kinds: a pi session id (UUID), an analyzer node
// id (16 hex), a pi entry id (8 hex), loom ULIDs, a project path with a space
// and non-ASCII letters.
const (
	sessionID = "5fd1e58c-9635-410e-a644-133a96057c90"
	nodeID    = "47105fd765057025"
	entryID   = "304b053c"
	treeID    = "01JH8Z6Q7X3V9K2M4N5P6R7S8T"
	loomNode  = "01JH8Z6Q8A1B2C3D4E5F6G7H8J"
)

func TestParseValid(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want Item
	}{
		{"rhizome:session/" + sessionID, Session(sessionID)},
		{"rhizome:node/" + nodeID, Node(nodeID)},
		{"rhizome:entry/" + sessionID + "/" + entryID, Entry(sessionID, entryID)},
		{"rhizome:loom/" + treeID, LoomTree(treeID)},
		{"rhizome:loom/" + treeID + "/" + loomNode, LoomNode(treeID, loomNode)},
		{"rhizome:project/%2FUsers%2Fbadlogic%2Fworkspaces%2Fpi-mono", Project("/Users/badlogic/workspaces/pi-mono")},
		{"rhizome:project/%2Fhome%2Fz%C3%BC%20rich%2Fmy%20app", Project("/home/zü rich/my app")},
		{"rhizome:project/C%3A%5CUsers%5Cme%5Capp", Project(`C:\Users\me\app`)},
		{"rhizome:note/01JH8Z6Q7X3V9K2M4N5P6R7S8V", Note("01JH8Z6Q7X3V9K2M4N5P6R7S8V")},
		{"rhizome:knowledge/k-42", Knowledge("k-42")},
		// A v1 entry id is synthetic; an id with a slash is escaped.
		{"rhizome:entry/s%2F1/e%3F2", Entry("s/1", "e?2")},
		{"https://github.com/badlogic/pi-mono/issues/288", URL("https://github.com/badlogic/pi-mono/issues/288")},
		{"http://127.0.0.1:8080/x?q=1#frag", URL("http://127.0.0.1:8080/x?q=1#frag")},
		{"/Users/badlogic/workspaces/pi-mono/README.md", File("/Users/badlogic/workspaces/pi-mono/README.md")},
		{`C:\Users\me\notes.md`, File(`C:\Users\me\notes.md`)},
		{"C:/Users/me/notes.md", File("C:/Users/me/notes.md")},
		{`\\server\share\doc.txt`, File(`\\server\share\doc.txt`)},
	} {
		got, err := Parse(tc.uri)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.uri, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.uri, got, tc.want)
		}
		if s := got.String(); s != tc.uri {
			t.Errorf("Parse(%q).String() = %q, want the same URI back", tc.uri, s)
		}
	}
}

// Spellings Parse accepts that String writes differently: the canonical form.
func TestParseCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"rhizome:node/%61bc":           "rhizome:node/abc",
		"rhizome:project/%2fhome%2fme": "rhizome:project/%2Fhome%2Fme",
		"rhizome:session/a:b@c":        "rhizome:session/a%3Ab%40c",
		"file:///home/me/notes.md":     "/home/me/notes.md",
		"file://localhost/tmp/x":       "/tmp/x",
		"file:///C:/Users/me/x.md":     "C:/Users/me/x.md",
	} {
		it, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if got := it.String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", in, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ uri, want string }{
		{"", "empty URI"},
		{"rhizome:", "no kind"},
		{"rhizome:session", "0 segments after the kind, want 1"},
		{"rhizome:session/", "segment 1 is empty"},
		{"rhizome:session/a/b", "2 segments after the kind, want 1"},
		{"rhizome:entry/" + sessionID, "want 2 (rhizome:entry/<sessionId>/<entryId>)"},
		{"rhizome:entry/" + sessionID + "/", "segment 2 is empty"},
		{"rhizome:loom/a/b/c", "rhizome:loom/<treeId> or rhizome:loom/<treeId>/<nodeId>"},
		{"rhizome:loom//x", "segment 1 is empty"},
		{"rhizome:nodes/abc", `unknown kind "nodes"`},
		{"rhizome://session/abc", "no slashes after"},
		{"rhizome:node/abc?x=1", "no query or fragment"},
		{"rhizome:node/abc#top", "no query or fragment"},
		{"rhizome:node/a%2", "bad percent escape"},
		{"rhizome:node/a%zz", "bad percent escape"},
		{"rhizome:node/a b", "must be percent-encoded"},
		{"rhizome:node/ä", "must be percent-encoded"},
		{"rhizome:node/a%00b", "control character"},
		{"rhizome:node/%FF", "not valid UTF-8"},
		{"rhizome:node/" + strings.Repeat("a", MaxIDBytes+1), "the limit is 256"},
		{"Rhizome:node/abc", `write the scheme in lowercase ("rhizome:")`},
		{"HTTPS://example.com", "lowercase"},
		{"javascript:alert(1)", `unsupported scheme "javascript"`},
		{"data:text/html,x", `unsupported scheme "data"`},
		{"relative/path.md", "neither a URI"},
		{"./notes.md", "neither a URI"},
		{"https:///nohost", "no host"},
		{"https:opaque", "no host"},
		{"https://user:pw@example.com/", "user name or password"},
		{"https://example.com/a b", "has a space"},
		{"https://exa mple.com/", "has a space"},
		{"file://server/share/x", `names host "server"`},
		{"file:relative", "not an absolute path"},
		{"/tmp/a\x00b", "control character"},
		{strings.Repeat("/a", MaxURIBytes), "the limit is 12352"},
	} {
		_, err := Parse(tc.uri)
		if err == nil {
			t.Errorf("Parse(%q) = nil error, want one containing %q", tc.uri, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %q, want it to contain %q", tc.uri, err, tc.want)
		}
		if !strings.HasPrefix(err.Error(), "link: ") {
			t.Errorf("Parse(%q) error %q does not say it comes from link", tc.uri, err)
		}
	}
}

func TestItemValidate(t *testing.T) {
	for _, tc := range []struct {
		it   Item
		want string
	}{
		{Item{}, "no kind"},
		{Item{Kind: "folder", ID: "x"}, `unknown item kind "folder"`},
		{Session(""), "field id is empty"},
		{Item{Kind: KindSession, ID: "a", Within: "b"}, "field within must be empty"},
		{Entry("", entryID), "field sessionId is empty"},
		{LoomNode("", loomNode), "field treeId is empty"},
		{Project(""), "the path is empty"},
		{File("notes.md"), "not an absolute path"},
		{URL("https://example.com/é"), "not in canonical form"},
		{URL("ftp://example.com/"), `want https or http`},
	} {
		err := tc.it.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%#v.Validate() = %v, want an error containing %q", tc.it, err, tc.want)
		}
		if s := tc.it.String(); s != "" {
			t.Errorf("%#v.String() = %q, want \"\" for an invalid item", tc.it, s)
		}
	}
}

func TestItemJSON(t *testing.T) {
	type doc struct {
		Items []Item `json:"items"`
	}
	in := doc{Items: []Item{Entry(sessionID, entryID), Project("/srv/app"), URL("https://example.com/x")}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"items":["rhizome:entry/` + sessionID + `/` + entryID + `","rhizome:project/%2Fsrv%2Fapp","https://example.com/x"]}`
	if string(b) != want {
		t.Fatalf("json = %s\nwant   %s", b, want)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	for i := range in.Items {
		if out.Items[i] != in.Items[i] {
			t.Errorf("item %d: round trip gave %#v, want %#v", i, out.Items[i], in.Items[i])
		}
	}
	if err := json.Unmarshal([]byte(`{"items":["rhizome:nope/x"]}`), &out); err == nil ||
		!strings.Contains(err.Error(), `unknown kind "nope"`) {
		t.Errorf("unmarshal of a bad URI: %v, want the parse error", err)
	}
	if _, err := json.Marshal(doc{Items: []Item{Session("")}}); err == nil {
		t.Error("marshal of an invalid item: no error")
	}
}
