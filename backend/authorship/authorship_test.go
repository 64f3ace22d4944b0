package authorship

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

func TestAttributeEditChain(t *testing.T) {
	model := "The quick brown fox jumps over the lazy dog."
	edit1 := "The quick red fox jumps over the lazy dog."
	edit2 := "The quick red fox leaps over the sleepy dog!"
	chain := []Version{{model, Model}, {edit1, Human}, {edit2, Human}}
	tests := []struct {
		view View
		want []Run
	}{
		{Raw, []Run{
			// "brown" -> "red" keeps the model's r; "jumps" -> "leaps" its "ps";
			// "lazy" -> "sleepy" its "l" and "y": character noise.
			{"The quick r", Model}, {"ed", Human}, {" fox ", Model}, {"lea", Human},
			{"ps over the ", Model}, {"s", Human}, {"l", Model}, {"eep", Human},
			{"y dog", Model}, {"!", Human},
		}},
		{Semantic, []Run{
			// The lone "r" and "l" become the human's; "ps" and "y" survive as
			// they sit beside long unchanged text.
			{"The quick ", Model}, {"red", Human}, {" fox ", Model}, {"lea", Human},
			{"ps over the ", Model}, {"sleep", Human}, {"y dog", Model}, {"!", Human},
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.view), func(t *testing.T) {
			got := Attribute(chain, tt.view)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Attribute(%s) =\n%q\nwant\n%q", tt.view, got, tt.want)
			}
			checkRuns(t, got, edit2)
		})
	}
}

func TestAttributeDecisions(t *testing.T) {
	tests := []struct {
		name  string
		chain []Version
		want  []Run
	}{
		{"unedited model text", []Version{{"Hello there.", Model}}, []Run{{"Hello there.", Model}}},
		{"empty", []Version{{"", Model}}, nil},
		{"no chain", nil, nil},
		{
			// Deleting and retyping the same characters in the same place is
			// invisible in the texts: they stay the model's.
			"retyped in place", []Version{{"hello world", Model}, {"hello world", Human}},
			[]Run{{"hello world", Model}},
		},
		{
			// A moved word is deleted and inserted: the human's.
			"moved word", []Version{{"one two three", Model}, {"three one two", Human}},
			[]Run{{"three ", Human}, {"one two", Model}},
		},
		{
			// A model rewrite of a human edit: what the model inserts is the model's.
			"model after human", []Version{{"abc", Model}, {"abXc", Human}, {"abXcdef", Model}},
			[]Run{{"ab", Model}, {"X", Human}, {"cdef", Model}},
		},
		{
			"human deletes everything", []Version{{"abc", Model}, {"", Human}}, nil,
		},
		{
			"human writes from scratch", []Version{{"", Model}, {"mine", Human}}, []Run{{"mine", Human}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Attribute(tt.chain, Raw)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Attribute = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAttributeMultiByte(t *testing.T) {
	family := "\U0001F468\u200D\U0001F469\u200D\U0001F467"  // man ZWJ woman ZWJ girl
	family2 := "\U0001F468\u200D\U0001F469\u200D\U0001F466" // ... boy
	tests := []struct {
		name        string
		model, edit string
		want        []Run
	}{
		{"ZWJ sequence edited inside", "we " + family + " ok", "we " + family2 + " ok",
			[]Run{{"we ", Model}, {family2, Human}, {" ok", Model}}},
		{"CJK", "我爱北京天安门", "我爱上海天安门",
			[]Run{{"我爱", Model}, {"上海", Human}, {"天安门", Model}}},
		{"combining accent added to a model letter", "cafe au lait", "cafe\u0301 au lait",
			[]Run{{"caf", Model}, {"e\u0301", Human}, {" au lait", Model}}},
		{"precomposed letter", "naïve idea", "naïf idea",
			[]Run{{"naï", Model}, {"f", Human}, {" idea", Model}}},
		{"flag changed by one regional indicator", "vive la 🇫🇷!", "vive la 🇫🇮!",
			[]Run{{"vive la ", Model}, {"🇫🇮", Human}, {"!", Model}}},
		{"skin tone modifier added", "thumbs 👍 up", "thumbs 👍🏽 up",
			[]Run{{"thumbs ", Model}, {"👍🏽", Human}, {" up", Model}}},
		{"emoji appended after CRLF", "a\r\nb", "a\r\nb😀",
			[]Run{{"a\r\nb", Model}, {"😀", Human}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, view := range []View{Raw, Semantic} {
				got := Attribute([]Version{{tt.model, Model}, {tt.edit, Human}}, view)
				checkRuns(t, got, tt.edit)
				if view == Raw && !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Attribute = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestAttributeInvalidUTF8(t *testing.T) {
	runs := Attribute([]Version{{"a\xffb", Model}, {"a\xffbc\xfe", Human}}, Raw)
	checkRuns(t, runs, "a\uFFFDbc\uFFFD")
	if len(runs) != 2 || runs[0].Text != "a\uFFFDb" || runs[1].Author != Human {
		t.Errorf("runs %q", runs)
	}
}

// TestAttributeInvariants edits random multi-byte texts many times: the runs
// always concatenate to the final text, are valid UTF-8, alternate authors
// and never end inside a grapheme cluster.
func TestAttributeInvariants(t *testing.T) {
	alphabet := []string{"a", "b", " ", "é", "e\u0301", "我", "爱", "😀", "👍🏽", "🇫🇷",
		"\U0001F468\u200D\U0001F469\u200D\U0001F467", "\u200D", "\u0301", "\r", "\n", "\r\n", "ก", "ำ"}
	rng := rand.New(rand.NewPCG(1, 2))
	randomText := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 300 {
		text := randomText(rng.IntN(40))
		chain := []Version{{text, Model}}
		for range 1 + rng.IntN(4) {
			r := []rune(text)
			at := rng.IntN(len(r) + 1)
			del := min(rng.IntN(4), len(r)-at)
			text = string(r[:at]) + randomText(rng.IntN(3)) + string(r[at+del:])
			chain = append(chain, Version{text, Human})
		}
		for _, view := range []View{Raw, Semantic} {
			runs := Attribute(chain, view)
			t.Run(fmt.Sprintf("%d-%s", i, view), func(t *testing.T) { checkRuns(t, runs, text) })
		}
	}
}

// checkRuns checks the invariants of Attribute's result for final text want.
func checkRuns(t *testing.T, runs []Run, want string) {
	t.Helper()
	var b strings.Builder
	boundaries := map[int]bool{}
	pos := 0
	for i, r := range runs {
		if r.Text == "" {
			t.Errorf("run %d is empty", i)
		}
		if !utf8.ValidString(r.Text) {
			t.Errorf("run %d is not valid UTF-8: %q", i, r.Text)
		}
		if i > 0 && runs[i-1].Author == r.Author {
			t.Errorf("runs %d and %d have the same author %s", i-1, i, r.Author)
		}
		b.WriteString(r.Text)
		pos += len(r.Text)
		boundaries[pos] = true
	}
	if b.String() != want {
		t.Fatalf("runs concatenate to %q, want %q", b.String(), want)
	}
	clusterEnds := map[int]bool{}
	rest, state, pos := want, -1, 0
	for rest != "" {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		pos += len(c)
		clusterEnds[pos] = true
	}
	for p := range boundaries {
		if !clusterEnds[p] {
			t.Errorf("a run ends inside a grapheme cluster at byte %d of %q: %q", p, want, runs)
		}
	}
}

func TestDiff(t *testing.T) {
	family := "\U0001F468\u200D\U0001F469\u200D\U0001F467"
	family2 := "\U0001F468\u200D\U0001F469\u200D\U0001F466"
	tests := []struct {
		name string
		a, b string
		g    Granularity
		want []DiffOp
	}{
		{"identical", "same", "same", Char, []DiffOp{{Equal, "same"}}},
		{"both empty", "", "", Word, nil},
		{"word replaced", "The quick brown fox", "The slow brown fox", Word,
			[]DiffOp{{Equal, "The "}, {Delete, "quick"}, {Insert, "slow"}, {Equal, " brown fox"}}},
		{"word mode keeps words whole", "brown", "brawn", Word,
			[]DiffOp{{Delete, "brown"}, {Insert, "brawn"}}},
		{"char mode", "brown", "brawn", Char,
			[]DiffOp{{Equal, "br"}, {Delete, "o"}, {Insert, "a"}, {Equal, "wn"}}},
		{"punctuation is its own word", "Hello, world.", "Hello; world.", Word,
			[]DiffOp{{Equal, "Hello"}, {Delete, ","}, {Insert, ";"}, {Equal, " world."}}},
		{"whitespace runs", "a  b", "a b", Word,
			[]DiffOp{{Equal, "a"}, {Delete, "  "}, {Insert, " "}, {Equal, "b"}}},
		{"ZWJ sequence is one character", "a" + family + "b", "a" + family2 + "b", Char,
			[]DiffOp{{Equal, "a"}, {Delete, family}, {Insert, family2}, {Equal, "b"}}},
		{"combining mark is part of its letter", "cafe", "cafe\u0301", Char,
			[]DiffOp{{Equal, "caf"}, {Delete, "e"}, {Insert, "e\u0301"}}},
		{"ideographs are words", "我爱北京", "我爱上海", Word,
			[]DiffOp{{Equal, "我爱"}, {Delete, "北京"}, {Insert, "上海"}}},
		{"insert only", "ab", "a b", Word, []DiffOp{{Delete, "ab"}, {Insert, "a b"}}},
		{"insert char", "ab", "a b", Char, []DiffOp{{Equal, "a"}, {Insert, " "}, {Equal, "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.a, tt.b, tt.g)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff(%q, %q, %s) = %q, want %q", tt.a, tt.b, tt.g, got, tt.want)
			}
			checkDiff(t, got, tt.a, tt.b)
		})
	}
}

func checkDiff(t *testing.T, ops []DiffOp, a, b string) {
	t.Helper()
	var old, cur strings.Builder
	for i, op := range ops {
		if i > 0 && ops[i-1].Op == op.Op {
			t.Errorf("ops %d and %d are both %s", i-1, i, op.Op)
		}
		if op.Op != Insert {
			old.WriteString(op.Text)
		}
		if op.Op != Delete {
			cur.WriteString(op.Text)
		}
	}
	if old.String() != a || cur.String() != b {
		t.Errorf("ops rebuild %q -> %q, want %q -> %q", old.String(), cur.String(), a, b)
	}
}

func TestDiffManyDistinctUnits(t *testing.T) {
	var a, b strings.Builder
	for i := range 70000 { // more distinct words than the BMP below the surrogates
		fmt.Fprintf(&a, "w%d ", i)
		if i%1000 == 0 {
			fmt.Fprintf(&b, "x%d ", i)
		} else {
			fmt.Fprintf(&b, "w%d ", i)
		}
	}
	ops := Diff(a.String(), b.String(), Word)
	checkDiff(t, ops, a.String(), b.String())
	var changed int
	for _, op := range ops {
		if op.Op == Insert {
			changed++
		}
	}
	if changed != 70 {
		t.Errorf("%d insertions, want 70", changed)
	}
}

// document100KB returns a deterministic ~100 KB text of English-like
// paragraphs and a chain of two human edits, each with 20 scattered changes
// (a word replaced, a phrase inserted, a few words deleted).
func document100KB() []Version {
	vocab := strings.Fields("the model wrote a long answer about trees and branches while the human " +
		"read every line changed some words kept others moved on to the next paragraph of text " +
		"where context windows tokens and edits mattered more than anything else in this loom")
	rng := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	for b.Len() < 100_000 {
		for s := 0; s < 6; s++ {
			n := 8 + rng.IntN(12)
			for w := 0; w < n; w++ {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(vocab[rng.IntN(len(vocab))])
			}
			b.WriteString(". ")
		}
		b.WriteString("\n\n")
	}
	model := b.String()
	edit := func(text string) string {
		r := []rune(text)
		for range 20 {
			at := rng.IntN(len(r) - 100)
			switch rng.IntN(3) {
			case 0:
				r = append(r[:at:at], append([]rune("rewritten"), r[at+5:]...)...)
			case 1:
				r = append(r[:at:at], append([]rune(" and then, quite deliberately, "), r[at:]...)...)
			default:
				r = append(r[:at:at], r[at+15:]...)
			}
		}
		return string(r)
	}
	edit1 := edit(model)
	edit2 := edit(edit1)
	return []Version{{model, Model}, {edit1, Human}, {edit2, Human}}
}

func TestAttribute100KB(t *testing.T) {
	chain := document100KB()
	for _, view := range []View{Raw, Semantic} {
		runs := Attribute(chain, view)
		checkRuns(t, runs, chain[2].Text)
		var human int
		for _, r := range runs {
			if r.Author == Human {
				human += len(r.Text)
			}
		}
		if human == 0 || human > 5000 {
			t.Errorf("%s: %d bytes human of %d", view, human, len(chain[2].Text))
		}
	}
}

func BenchmarkAttribute100KB(b *testing.B) {
	chain := document100KB()
	b.SetBytes(int64(len(chain[2].Text)))
	for b.Loop() {
		Attribute(chain, Raw)
	}
}

func BenchmarkAttribute100KBSemantic(b *testing.B) {
	chain := document100KB()
	b.SetBytes(int64(len(chain[2].Text)))
	for b.Loop() {
		Attribute(chain, Semantic)
	}
}

func BenchmarkDiffWords100KB(b *testing.B) {
	chain := document100KB()
	for b.Loop() {
		Diff(chain[0].Text, chain[1].Text, Word)
	}
}
