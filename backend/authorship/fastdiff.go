package authorship

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// unitPassMin is the size (runes, after trimming the common prefix and
// suffix) from which diffRunes diffs larger units before characters. Below it
// a character diff is already fast.
const unitPassMin = 2000

// A level is the unit diffRunes compares at one pass.
type level int

const (
	sentences level = iota // up to a line break or sentence-final punctuation
	wordRuns               // words and whitespace runs
	chars                  // code points
)

// op is a diff operation by length in runes.
type op struct {
	kind diffmatchpatch.Operation
	n    int
}

// chainDiffer diffs the successive versions of a chain, fast on long texts
// with scattered edits. A plain Myers diff of a 100 KB text with twenty
// scattered edits costs O(N·D) ≈ 25 ms, as prefix and suffix trimming leaves
// almost the whole text in between. So, like diff-match-patch's line mode,
// long texts are first diffed as sentences (each distinct sentence becomes
// one rune; each version is encoded once for the whole chain), the sentence
// diff is cleaned up semantically to drop freak matches (a blank line common
// to two different paragraphs), and every changed region is diffed again as
// words, then as characters; a text without sentences simply goes down a
// level. The Semantic view's cleanup then runs within each changed region.
// The result can be slightly less minimal than a character diff of the whole
// text; it is always a valid diff.
type chainDiffer struct {
	dmp       *diffmatchpatch.DiffMatchPatch
	sentences *spanTokens
	encoded   map[*rune][]rune // first rune of a version -> its sentence encoding
}

func newChainDiffer(dmp *diffmatchpatch.DiffMatchPatch) *chainDiffer {
	return &chainDiffer{dmp: dmp, sentences: newSpanTokens(sentences), encoded: map[*rune][]rune{}}
}

func (c *chainDiffer) encode(text []rune) []rune {
	if len(text) == 0 {
		return nil
	}
	if e, ok := c.encoded[&text[0]]; ok {
		return e
	}
	e := c.sentences.encode(text)
	c.encoded[&text[0]] = e
	return e
}

// diff returns the operations turning a into b.
func (c *chainDiffer) diff(a, b []rune, view View) []op {
	p := commonPrefix(a, b)
	s := commonSuffix(a[p:], b[p:])
	if len(a)-p-s < unitPassMin || len(b)-p-s < unitPassMin {
		return charOps(c.dmp, a, b, view)
	}
	return unitOps(c.dmp, c.sentences, a, b, c.encode(a), c.encode(b), view)
}

// charOps diffs a and b by characters.
func charOps(dmp *diffmatchpatch.DiffMatchPatch, a, b []rune, view View) []op {
	diffs := dmp.DiffMainRunes(a, b, false)
	if view == Semantic {
		diffs = dmp.DiffCleanupSemantic(diffs)
	}
	ops := make([]op, len(diffs))
	for i, d := range diffs {
		ops[i] = op{kind: d.Type, n: utf8.RuneCountInString(d.Text)}
	}
	return ops
}

// unitOps diffs a and b, encoded by t as ea and eb, by units, and each
// changed region a level down.
func unitOps(dmp *diffmatchpatch.DiffMatchPatch, t *spanTokens, a, b, ea, eb []rune, view View) []op {
	units := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ea, eb, false))
	var ops []op
	ia, ib, da, db := 0, 0, 0, 0 // positions in a and b, pending region sizes
	flush := func() {
		ops = append(ops, regionOps(dmp, t.level+1, a[ia:ia+da], b[ib:ib+db], view)...)
		ia, ib, da, db = ia+da, ib+db, 0, 0
	}
	for _, u := range units {
		n := 0
		for _, r := range u.Text {
			n += len(t.words[unitIndex(r)])
		}
		switch u.Type {
		case diffmatchpatch.DiffDelete:
			da += n
		case diffmatchpatch.DiffInsert:
			db += n
		default:
			flush()
			ops = append(ops, op{kind: diffmatchpatch.DiffEqual, n: n})
			ia, ib = ia+n, ib+n
		}
	}
	flush()
	return ops
}

// regionOps diffs a changed region: a replaced by b.
func regionOps(dmp *diffmatchpatch.DiffMatchPatch, lv level, a, b []rune, view View) []op {
	switch {
	case len(a) == 0 && len(b) == 0:
		return nil
	case len(a) == 0:
		return []op{{kind: diffmatchpatch.DiffInsert, n: len(b)}}
	case len(b) == 0:
		return []op{{kind: diffmatchpatch.DiffDelete, n: len(a)}}
	case lv == chars || len(a) < unitPassMin || len(b) < unitPassMin:
		return charOps(dmp, a, b, view)
	}
	t := newSpanTokens(lv)
	return unitOps(dmp, t, a, b, t.encode(a), t.encode(b), view)
}

func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

// spanTokens maps each distinct unit of a level to a rune, as tokenizer
// does, without allocating a string per unit: units are spans of the texts,
// found by hash and compared rune by rune. Units are cut simply (the pass
// needs speed, not linguistics): a sentence ends after a line break or after
// sentence-final punctuation and the whitespace that follows; a word is a
// maximal run of whitespace or of anything else.
type spanTokens struct {
	level level
	index map[uint64][]rune // hash -> runes of the units with that hash
	words [][]rune
}

func newSpanTokens(lv level) *spanTokens {
	return &spanTokens{level: lv, index: map[uint64][]rune{}}
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// encode maps text to one rune per unit. Cutting and hashing the units is
// one pass over the text.
func (t *spanTokens) encode(text []rune) []rune {
	out := make([]rune, 0, len(text)/64)
	for i := 0; i < len(text); {
		h, j := uint64(fnvOffset), i
		if len(t.words) >= maxUnits-1 { // out of runes: the rest is one unit
			for ; j < len(text); j++ {
				h = (h ^ uint64(text[j])) * fnvPrime
			}
		} else if t.level == wordRuns {
			space := unicode.IsSpace(text[i])
			for ; j < len(text) && unicode.IsSpace(text[j]) == space; j++ {
				h = (h ^ uint64(text[j])) * fnvPrime
			}
		} else {
		sentence:
			for ; j < len(text); j++ {
				r := text[j]
				h = (h ^ uint64(r)) * fnvPrime
				if r > '?' && r < '。' { // letters and most of Unicode
					continue
				}
				switch r {
				case '\n':
					j++
					break sentence
				case '.', '!', '?', '。', '！', '？':
					for j++; j < len(text) && (text[j] == ' ' || text[j] == '\t'); j++ {
						h = (h ^ uint64(text[j])) * fnvPrime
					}
					break sentence
				}
			}
		}
		out = append(out, t.lookup(h, text[i:j]))
		i = j
	}
	return out
}

// lookup returns the rune of unit w, whose hash is h.
func (t *spanTokens) lookup(h uint64, w []rune) rune {
	for _, r := range t.index[h] {
		if slices.Equal(t.words[unitIndex(r)], w) {
			return r
		}
	}
	r := rune(len(t.words) + 1)
	if r >= 0xD800 {
		r += 0x800
	}
	t.words = append(t.words, w)
	t.index[h] = append(t.index[h], r)
	return r
}

// unitIndex inverts the rune mapping of tokenizer and spanTokens.
func unitIndex(r rune) int {
	n := int(r) - 1
	if r >= 0xE000 {
		n -= 0x800
	}
	return n
}
