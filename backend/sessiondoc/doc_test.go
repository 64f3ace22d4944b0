package sessiondoc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
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

// Known says of each item what Diff does: stored or not, counting a key
// repeated within the document once per occurrence (a key that itself
// ends in "~2" too); a nil Known knows nothing.
func TestKnown(t *testing.T) {
	for _, c := range []struct {
		name string
		st   State
		doc  []string
	}{
		{"nothing stored", State{}, []string{"a", "b"}},
		{"grown", State{Keys: []string{"a", "b"}}, []string{"a", "b", "c"}},
		{"rewritten", State{Keys: []string{"a", "b", "c"}, Gone: []int{1}}, []string{"a", "c2", "b"}},
		{"a key twice", State{Keys: []string{"a", "a~2"}}, []string{"a", "b", "a", "a"}},
		{"the second stored only", State{Keys: []string{"a~2"}}, []string{"a", "a", "a~2"}},
		{"the third", State{Keys: []string{"x#1~3", "x#1~02", "x#1~1"}}, []string{"x#1", "x#1", "x#1", "x#1~1", "x#1~02"}},
		{"a tilde alone", State{Keys: []string{"~", "a~", "~2"}}, []string{"", "", "~", "a", "a", "a~"}},
		{"a key named as a repeat of another", State{Keys: []string{"0"}}, []string{"a", "a", "a~2"}},
	} {
		d := doc(c.doc...)
		ch := c.st.Diff(d)
		fresh := map[*session.Entry]bool{}
		for _, e := range ch.Fresh {
			fresh[e] = true
		}
		k := c.st.Known()
		for i, it := range d.Items {
			if got := k.Next(it.Key); got == fresh[it.Entry] {
				t.Errorf("%s: item %d (%s): stored %v, Diff says new %v", c.name, i, it.Key, got, fresh[it.Entry])
			}
		}
	}
	var none *Known
	if none.Next("a") {
		t.Error("a nil Known knows a")
	}
}

// A document read against a Known, its stored items without an entry,
// diffs as the same document read whole.
func TestDiffKnown(t *testing.T) {
	st := State{Keys: []string{"a", "b", "c"}, Gone: []int{2}}
	whole := doc("a", "x", "c", "a")
	light := doc("a", "x", "c", "a")
	k := st.Known()
	for i := range light.Items {
		if k.Next(light.Items[i].Key) {
			light.Items[i].Entry = nil
		}
	}
	if light.Items[0].Entry != nil || light.Items[2].Entry != nil || light.Items[1].Entry == nil || light.Items[3].Entry == nil {
		t.Fatalf("known items %+v", light.Items)
	}
	if cw, cl := st.Diff(whole), st.Diff(light); !reflect.DeepEqual(cw, cl) {
		t.Errorf("%+v, whole %+v", cl, cw)
	}
}

// CheckOutline gives Members of the top-level object and Elements of its
// lists, found in the pass that checks the document; nothing for a
// document that is no object; Check's error for one that is not whole
// JSON.
func TestCheckOutline(t *testing.T) {
	d := []byte(" { \"a\" : [1, {\"x\": \"]\"} , \"s\\\"q\"], \"b\\u00e9\": null, \"c\": [], \"d\": {\"e\": [2]}, \"a\": [[3], 4] }\n")
	o, err := CheckOutline(d, "f")
	if err != nil {
		t.Fatal(err)
	}
	checkOutline(t, d, o)
	if len(o.Members) != 5 || o.Elements[0] == nil || o.Elements[2] != nil || o.Elements[3] != nil || len(o.Elements[4]) != 2 {
		t.Errorf("%+v", o)
	}
	if o, err := CheckOutline([]byte(`[{"a": [1]}]`), "f"); err != nil || o.Object || len(o.Members) != 0 {
		t.Errorf("a list: %+v %v", o, err)
	}
	if o, err := CheckOutline([]byte(`{"a": [1`), "f"); o != nil || !errors.Is(err, ErrIncomplete) {
		t.Errorf("cut: %+v %v", o, err)
	}
}

// checkOutline holds an outline of the valid doc to Members and Elements.
func checkOutline(t *testing.T, doc []byte, o *Outline) {
	t.Helper()
	ms, ok := Members(doc, Span{Start: 0, End: len(doc)})
	if ok != o.Object || !reflect.DeepEqual(ms, o.Members) && len(ms)+len(o.Members) > 0 {
		t.Fatalf("%q: members %+v %v, outline %+v", doc, ms, ok, o)
	}
	for j, m := range ms {
		es, ok := Elements(doc, m.Val)
		if !ok {
			es = nil
		}
		if !reflect.DeepEqual(es, o.Elements[j]) {
			t.Fatalf("%q: %s: elements %+v, outline %+v", doc, m.Key, es, o.Elements[j])
		}
	}
	if len(o.Elements) != len(o.Members) {
		t.Fatalf("%q: %d elements for %d members", doc, len(o.Elements), len(o.Members))
	}
}

// valid is json.Valid on any bytes, and the outline of a valid document is
// what Members and Elements find.
func FuzzValid(f *testing.F) {
	doc, _ := os.ReadFile(clineDoc)
	for _, s := range []string{"", " ", "{}", "[]", "0", "-0.5e+7", "01", "1.", "-", "1e", `"\u12G4"`, `"\uD83D\uDE00"`, "\"a\x01\"",
		`"\q"`, "tru", "nul", "nulll", `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":[{"b":"\\"}]}`, "\"\xff\"", `{"a":1}}`,
		"[[[[[[[[[[]]]]]]]]]]", string(doc), string(doc[:len(doc)/2])} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		want := json.Valid(doc)
		if got := valid(doc); got != want {
			t.Fatalf("%q: valid %v, json.Valid %v", doc, got, want)
		}
		o, err := CheckOutline(doc, "f")
		if (err == nil) != want || want && o == nil {
			t.Fatalf("%q: CheckOutline %v", doc, err)
		}
		if want {
			checkOutline(t, doc, o)
		}
	})
}

// valid follows encoding/json's depth limit: 10000 lists deep, not 10001.
func TestValidDepth(t *testing.T) {
	for _, n := range []int{maxDepth, maxDepth + 1} {
		d := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if valid(d) != json.Valid(d) || valid(d) != (n == maxDepth) {
			t.Errorf("%d deep: valid %v, json.Valid %v", n, valid(d), json.Valid(d))
		}
	}
}

// Known agrees with Diff on any state and document: keys of a few bytes,
// "~" and digits among them.
func FuzzKnown(f *testing.F) {
	f.Add("a,a~2,b~3,~2/a,a,b,b,b,~,,a~2")
	f.Add("x~02,x~1,x~0/x,x,x,x~02")
	f.Fuzz(func(t *testing.T, in string) {
		stored, items, _ := strings.Cut(in, "/")
		st := State{Keys: strings.Split(stored, ",")}
		d := doc(strings.Split(items, ",")...)
		fresh := map[*session.Entry]bool{}
		for _, e := range st.Diff(d).Fresh {
			fresh[e] = true
		}
		k := st.Known()
		for i, it := range d.Items {
			if k.Next(it.Key) == fresh[it.Entry] {
				t.Fatalf("item %d (%q): Known and Diff disagree", i, it.Key)
			}
		}
	})
}

// special finds a quote, a backslash or a byte below 0x20 at any place of
// a word, among any other bytes; quoteOrEscape a quote or a backslash.
func TestSpecial(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff, '#', ']'} {
		for at := 0; at < 8; at++ {
			for v := 0; v < 256; v++ {
				w := bytes.Repeat([]byte{fill}, 8)
				w[at] = byte(v)
				want := v == '"' || v == '\\' || v < 0x20
				if got := special(binary.LittleEndian.Uint64(w)); got != want {
					t.Fatalf("%q: %v, want %v", w, got, want)
				}
				if got := quoteOrEscape(binary.LittleEndian.Uint64(w)); got != (v == '"' || v == '\\') {
					t.Fatalf("%q: quote or escape %v", w, got)
				}
			}
		}
	}
}
