package sessiondoc

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// contentHashBefore is ContentHash as it was written first (a copy of the
// value without white space, then its SHA-256): the keys in libraries
// were made by it, ContentHash must give what it gives.
func contentHashBefore(raw []byte) string {
	buf := make([]byte, 0, len(raw))
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			buf = append(buf, c)
			if c == '\\' && i+1 < len(raw) {
				i++
				buf = append(buf, raw[i])
			} else if c == '"' {
				inStr = false
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			if c == '"' {
				inStr = true
			}
			buf = append(buf, c)
		}
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8])
}

const (
	clineDoc        = "../cline/testdata/cline-home/sessions/1796293572120_9cho8/1796293572120_9cho8.messages.json"
	clineCompaction = "../cline/testdata/cline-home/sessions/1796293583446_al2g5/1796293583446_al2g5.compaction.json"
)

// Content hashes pinned before ContentHash went without its copy: keys
// stored in libraries (the golden files of backend/cline hold every real
// message's) must not change.
func TestContentHashPinned(t *testing.T) {
	doc, err := os.ReadFile(clineDoc)
	if err != nil {
		t.Fatal(err)
	}
	comp, err := os.ReadFile(clineCompaction)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		want string
	}{
		{`{}`, "44136fa355b3678a"},
		{`{"id": "m1", "text": "a  b"}`, "601fc160d1a46a9b"},
		{"{\n \"a\" : [1, 2,\t{\"b\\\"\\\\\": \"x \\\" y\"}]\r\n}", "b0d965fc6dfcb44a"},
		{`"tail\`, "5661e9accd045e9d"},
		{`{"a": "\\"}  `, "b44e4a398badc2fc"},
		{"[ \"\u00e9 \\u00e9\" , null ]", "daf4b27f16a8563b"},
		{string(doc), "9dd98b9113c6aa98"},
		{string(comp), "563afc721464caa0"},
	} {
		if got := ContentHash([]byte(c.in)); got != c.want {
			t.Errorf("%.40q: %s, want %s", c.in, got, c.want)
		}
	}
	// The first real message's key, as the golden file has it.
	top, _ := Members(doc, Span{Start: 0, End: len(doc)})
	list, _ := Find(top, "messages")
	msgs, _ := Elements(doc, list)
	if k := Key("aa28b00f-9a25-4487-a839-8b69a9bf7348", 0, doc[msgs[0].Start:msgs[0].End]); k != "id:aa28b00f-9a25-4487-a839-8b69a9bf7348#a2b3043a7fc12820" {
		t.Errorf("key %s", k)
	}
}

// ContentHash is contentHashBefore on any bytes (a ContentHasher walk
// gives it: the cline tests hold a format's walk to it).
func FuzzContentHash(f *testing.F) {
	doc, _ := os.ReadFile(clineDoc)
	comp, _ := os.ReadFile(clineCompaction)
	for _, s := range []string{"", `"`, `\`, `"\`, `"a\"`, " { \"a\" : \"\\\\\" } ", "\"\\\\\\\"\" x", string(doc), string(comp)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := contentHashBefore(raw)
		if got := ContentHash(raw); got != want {
			t.Fatalf("%q: %s, before %s", raw, got, want)
		}
	})
}
