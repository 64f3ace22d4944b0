package link

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: Parse never panics; whatever it accepts is a valid item whose
// URI parses back to the same item, and the URI is canonical (printing it
// again changes nothing).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"rhizome:session/" + sessionID, "rhizome:node/" + nodeID, "rhizome:entry/" + sessionID + "/" + entryID,
		"rhizome:loom/" + treeID, "rhizome:loom/" + treeID + "/" + loomNode,
		"rhizome:project/%2FUsers%2Fme%2Fapp", "rhizome:note/n1", "rhizome:knowledge/k1",
		"https://github.com/badlogic/pi-mono/issues/288", "http://[::1]:80/a?b#c", "/home/me/x.md",
		`C:\x\y`, `\\srv\share`, "file:///C:/x", "rhizome:node/%zz", "https://u@h/", "rhizome:loom/a/b/c",
		"rhizome:reasoning/" + graphID, "rhizome:reasoning/" + graphID + "/7", "rhizome:reasoning/a/b/c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		it, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "link: ") {
				t.Fatalf("Parse(%q) error %q lacks the package prefix", s, err)
			}
			return
		}
		if err := it.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %#v, which is invalid: %v", s, it, err)
		}
		uri := it.String()
		if uri == "" || !utf8.ValidString(uri) {
			t.Fatalf("Parse(%q).String() = %q", s, uri)
		}
		back, err := Parse(uri)
		if err != nil {
			t.Fatalf("Parse(%q) = %#v; its URI %q does not parse: %v", s, it, uri, err)
		}
		if back != it {
			t.Fatalf("round trip of %q: %#v -> %q -> %#v", s, it, uri, back)
		}
		if again := back.String(); again != uri {
			t.Fatalf("URI %q prints as %q: not canonical", uri, again)
		}
	})
}

// FuzzItemRoundTrip: every item the constructors make from any ids either is
// invalid (String "") or survives String and Parse unchanged.
func FuzzItemRoundTrip(f *testing.F) {
	f.Add(uint8(0), sessionID, entryID)
	f.Add(uint8(2), "s/1", "e?2#x")
	f.Add(uint8(5), "/home/zü rich/%41", "")
	f.Add(uint8(8), "https://example.com/a?b=c#d", "")
	f.Add(uint8(9), `C:\dir\file.txt`, "")
	f.Fuzz(func(t *testing.T, kind uint8, a, b string) {
		var it Item
		switch kind % 12 {
		case 0:
			it = Session(a)
		case 1:
			it = Node(a)
		case 2:
			it = Entry(a, b)
		case 3:
			it = LoomTree(a)
		case 4:
			it = LoomNode(a, b)
		case 5:
			it = Project(a)
		case 6:
			it = Note(a)
		case 7:
			it = Knowledge(a)
		case 8:
			it = URL(a)
		case 9:
			it = File(a)
		case 10:
			it = Reasoning(a)
		case 11:
			it = ReasoningNode(a, b)
		}
		uri := it.String()
		if it.Validate() != nil {
			if uri != "" {
				t.Fatalf("invalid %#v has URI %q", it, uri)
			}
			return
		}
		back, err := Parse(uri)
		if err != nil || back != it {
			t.Fatalf("%#v -> %q -> %#v, %v", it, uri, back, err)
		}
	})
}

// FuzzMentions: Mentions never panics, and every mention's span is an
// in-order slice of the text that opens with "[[" and closes with "]]".
func FuzzMentions(f *testing.F) {
	for _, s := range []string{
		"see [[rhizome:node/abc|a node]] and [[query]]", "```\n[[x]]\n```\n[[y]]", "`[[x]]` \\[[y]] [[[z]]]",
		"[[a [[b]] c]]", "[[", "]]", "[[\n]]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last := 0
		for _, m := range Mentions(text) {
			if m.Start < last || m.End > len(text) || m.Start+4 > m.End {
				t.Fatalf("mention %+v out of order or bounds in %q", m, text)
			}
			span := text[m.Start:m.End]
			if !strings.HasPrefix(span, "[[") || !strings.HasSuffix(span, "]]") {
				t.Fatalf("mention span %q is not [[…]]", span)
			}
			if m.Target == "" || strings.ContainsAny(span, "\n\r") {
				t.Fatalf("mention %+v: empty target or spans lines", m)
			}
			if m.Item.Kind != "" && m.Item.Validate() != nil {
				t.Fatalf("mention %+v holds an invalid item", m)
			}
			last = m.End
		}
	})
}
