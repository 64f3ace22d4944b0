package authorship

import (
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Granularity is the unit a visual diff compares.
type Granularity string

// Granularities of Diff.
const (
	// Char compares user-perceived characters (grapheme clusters): a changed
	// emoji, flag or accented letter is deleted and inserted whole.
	Char Granularity = "char"
	// Word compares words, runs of whitespace and punctuation (UAX #29 word
	// boundaries): an ideograph is a word of its own, as are an emoji
	// sequence and a punctuation mark.
	Word Granularity = "word"
)

// Op is what a diff operation does to the old text.
type Op string

// Diff operations.
const (
	Equal  Op = "equal"
	Insert Op = "insert"
	Delete Op = "delete"
)

// DiffOp is one operation of a diff. Equal and Delete texts concatenated give
// the old text; Equal and Insert texts give the new one. Adjacent operations
// of the same kind are merged; a replacement is a Delete then an Insert.
type DiffOp struct {
	Op   Op     `json:"op"`
	Text string `json:"text"`
}

// Diff compares a and b by unit for the visual edit history. Each distinct
// unit is mapped to one rune and the rune strings are diffed, the line-mode
// trick of diff-match-patch applied to characters or words, so that no
// operation ever splits a unit.
func Diff(a, b string, g Granularity) []DiffOp {
	if a == b {
		if a == "" {
			return nil
		}
		return []DiffOp{{Op: Equal, Text: a}}
	}
	split := graphemes
	if g == Word {
		split = uaxWords
	}
	t := tokenizer{index: map[string]rune{}}
	ra := t.encode(split(a))
	rb := t.encode(split(b))
	dmp := newDMP()
	diffs := dmp.DiffMainRunes(ra, rb, false)
	var ops []DiffOp
	for _, d := range diffs {
		op := Equal
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = Insert
		case diffmatchpatch.DiffDelete:
			op = Delete
		}
		text := t.decode(d.Text)
		if text == "" {
			continue
		}
		if k := len(ops); k > 0 && ops[k-1].Op == op {
			ops[k-1].Text += text
			continue
		}
		ops = append(ops, DiffOp{Op: op, Text: text})
	}
	return ops
}

// tokenizer maps each distinct unit to a rune, skipping the surrogate range
// (not valid in UTF-8). There are about 1.1 million such runes: when they run
// out, the rest of the text being encoded becomes a single unit.
type tokenizer struct {
	index map[string]rune
	units []string
}

const maxUnits = utf8.MaxRune - 0x800 // code points that are not surrogates

func (t *tokenizer) encode(units []string) []rune {
	out := make([]rune, 0, len(units))
	for i, u := range units {
		r, ok := t.index[u]
		if !ok {
			if len(t.units) >= maxUnits-1 {
				u = strings.Join(units[i:], "")
				r, ok = t.index[u]
				if !ok {
					r = t.add(u)
				}
				return append(out, r)
			}
			r = t.add(u)
		}
		out = append(out, r)
	}
	return out
}

func (t *tokenizer) add(u string) rune {
	n := len(t.units)
	r := rune(n + 1) // from 1: NUL is left unused
	if r >= 0xD800 {
		r += 0x800
	}
	t.units = append(t.units, u)
	t.index[u] = r
	return r
}

func (t *tokenizer) decode(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(t.units[unitIndex(r)])
	}
	return b.String()
}

// graphemes splits s into grapheme clusters.
func graphemes(s string) []string {
	var out []string
	state := -1
	for s != "" {
		var c string
		c, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		out = append(out, c)
	}
	return out
}

// uaxWords splits s at UAX #29 word boundaries: words, runs of horizontal
// whitespace, single punctuation marks, single ideographs.
func uaxWords(s string) []string {
	var out []string
	state := -1
	for s != "" {
		var w string
		w, s, state = uniseg.FirstWordInString(s, state)
		out = append(out, w)
	}
	return out
}
