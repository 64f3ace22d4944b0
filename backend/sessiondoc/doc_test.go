package sessiondoc

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/session"
)

func doc(keys ...string) *Doc {
	d := &Doc{Fingerprint: strings.Join(keys, ",")}
	for _, k := range keys {
		d.Items = append(d.Items, Item{Key: k, Entry: &session.Entry{ID: k}})
	}
	return d
}

// Diff stores what is new (numbered on), marks what a rewrite dropped,
// unmarks what comes back, and counts a key repeated within a document
// once per occurrence.
func TestDiff(t *testing.T) {
	type want struct {
		fresh         []string
		seqs          []int
		dropped, back []int
		keys          []string
		gone          []int
	}
	for _, c := range []struct {
		name string
		st   State
		doc  *Doc
		want want
	}{
		{"nothing stored", State{}, doc("a", "b"), want{fresh: []string{"a", "b"}, seqs: []int{0, 1}, keys: []string{"a", "b"}}},
		{"the same", State{Keys: []string{"a", "b"}}, doc("a", "b"), want{keys: []string{"a", "b"}}},
		{"grown", State{Keys: []string{"a", "b"}}, doc("a", "b", "c"), want{fresh: []string{"c"}, seqs: []int{2}, keys: []string{"a", "b", "c"}}},
		{"dropped and replaced", State{Keys: []string{"a", "b", "c"}}, doc("a", "c2"),
			want{fresh: []string{"c2"}, seqs: []int{3}, dropped: []int{1, 2}, keys: []string{"a", "b", "c", "c2"}, gone: []int{1, 2}}},
		{"still dropped", State{Keys: []string{"a", "b"}, Gone: []int{1}}, doc("a"), want{keys: []string{"a", "b"}, gone: []int{1}}},
		{"back", State{Keys: []string{"a", "b"}, Gone: []int{1}}, doc("a", "b"), want{back: []int{1}, keys: []string{"a", "b"}}},
		{"a key twice", State{Keys: []string{"a"}}, doc("a", "a"), want{fresh: []string{"a"}, seqs: []int{1}, keys: []string{"a", "a~2"}}},
	} {
		ch := c.st.Diff(c.doc)
		var fresh []string
		var seqs []int
		for _, e := range ch.Fresh {
			fresh = append(fresh, e.ID)
			seqs = append(seqs, e.Seq)
		}
		got := want{fresh, seqs, ch.Dropped, ch.Back, ch.Next.Keys, ch.Next.Gone}
		if !reflect.DeepEqual(got, c.want) || ch.Next.Fingerprint != c.doc.Fingerprint {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Check tells a whole document, one that breaks off, and one that is not
// JSON (with its place).
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		in         string
		incomplete bool
		syntax     string // "" for none
	}{
		{in: `{"a": [1, 2]}`},
		{in: "{\n \"a\": [1, 2]}\n"},
		{in: ``, incomplete: true},
		{in: "  \n", incomplete: true},
		{in: `{"a": [1, 2`, incomplete: true},
		{in: `{"a": "x`, incomplete: true},
		{in: "{\n\"a\": 1,\n\"b\" 2}", syntax: "f: line 3 (byte 14): not JSON: invalid character '2' after object key"},
		{in: `{"a": 1} x`, syntax: "line 1 (byte 9)"},
		{in: "\x00\x01", syntax: "line 1 (byte 0)"},
	} {
		err := Check([]byte(c.in), "f")
		var se *SyntaxError
		switch {
		case c.incomplete && !errors.Is(err, ErrIncomplete):
			t.Errorf("%q: %v, want incomplete", c.in, err)
		case c.syntax != "" && (!errors.As(err, &se) || !strings.Contains(err.Error(), c.syntax)):
			t.Errorf("%q: %v, want ~%s", c.in, err, c.syntax)
		case !c.incomplete && c.syntax == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		}
	}
}

// A key names the content without the whitespace between tokens (not
// inside strings), and the id or the index.
func TestKey(t *testing.T) {
	a := Key("m1", 0, []byte(`{"id": "m1", "text": "a  b"}`))
	if b := Key("m1", 3, []byte("{\n  \"id\":\"m1\",\n  \"text\":   \"a  b\"\n}")); a != b {
		t.Errorf("reindented: %s, %s", a, b)
	}
	if b := Key("m1", 0, []byte(`{"id": "m1", "text": "a b"}`)); a == b {
		t.Error("a space inside a string changes nothing")
	}
	if !strings.HasPrefix(a, "id:m1#") || !strings.HasPrefix(Key("", 4, []byte(`{}`)), "at:4#") {
		t.Errorf("keys %s, %s", a, Key("", 4, []byte(`{}`)))
	}
}

// Members and Elements find the spans of an object's values and a list's
// elements in the document.
func TestSpans(t *testing.T) {
	d := []byte(`{ "a" : [1, {"x": "]"} , "s\"q"], "b\u00e9": null }`)
	ms, ok := Members(d, Span{Start: 0, End: len(d)})
	if !ok || len(ms) != 2 || ms[0].Key != "a" || ms[1].Key != "bé" || string(d[ms[1].Val.Start:ms[1].Val.End]) != "null" {
		t.Fatalf("%v %+v", ok, ms)
	}
	es, ok := Elements(d, ms[0].Val)
	var got []string
	for _, e := range es {
		got = append(got, string(d[e.Start:e.End]))
	}
	if !ok || !reflect.DeepEqual(got, []string{`1`, `{"x": "]"}`, `"s\"q"`}) {
		t.Errorf("%v %q", ok, got)
	}
	if _, ok := Elements(d, ms[1].Val); ok {
		t.Error("null is a list")
	}
	l := NewLines([]byte("a\nb\nc"))
	if l.At(0) != 1 || l.At(2) != 2 || l.At(4) != 3 || l.At(1) != 1 || LineOf([]byte("a\nb"), 3) != 2 {
		t.Error("lines")
	}
}
