// Package authorship computes who wrote which characters of a loom node's
// text, model or human, by diffing along the node's editedFrom chain, and the
// word and character diffs the visual edit history shows.
//
// Results are runs of text, never offsets: JavaScript counts UTF-16 code
// units and go-diff counts runes, so an offset computed here would point at
// the wrong character in the frontend as soon as the text holds an emoji.
// See aspen-grove-core-entities.md, "Visual Distinction in Buffer Mode",
// corrected by ERRATA.md, "Aspen Grove".
//
// Text is handled as Unicode code points for diffing and as grapheme clusters
// (UAX #29, what a reader sees as one character) for the results: a run never
// ends inside a cluster, so an emoji ZWJ sequence, a flag or a letter with a
// combining accent is never drawn in two colours. Input must be valid UTF-8
// (every Go string decoded from JSON is); an invalid byte is read as U+FFFD,
// and the runs then concatenate to the text with that replacement made.
package authorship

import (
	"time"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Author says who wrote a run of text.
type Author string

// Authors of a run.
const (
	Model Author = "model"
	Human Author = "human"
)

// Version is one text in a node's edit chain and who produced it: the model's
// original generation, then each human (or model) edit, oldest first.
type Version struct {
	Text   string `json:"text"`
	Author Author `json:"author"`
}

// Run is a maximal stretch of the final text written by one author. Adjacent
// runs always have different authors; their texts concatenated are the final
// text exactly.
type Run struct {
	Text   string `json:"text"`
	Author Author `json:"author"`
}

// View chooses how edits are grouped.
type View string

// Views of authorship (ERRATA.md, "Aspen Grove": offer both).
const (
	// Raw keeps every surviving character of the original with its author:
	// exact, but an edit that rewrites a sentence leaves single surviving
	// letters coloured as the model's.
	Raw View = "raw"
	// Semantic runs diff-match-patch's semantic cleanup on every edit: short
	// surviving fragments inside an edit become the editor's, giving word-sized
	// runs instead of character noise.
	Semantic View = "semantic"
)

// diffTimeout bounds one diff. Past it go-diff returns a correct but coarser
// diff (larger replaced blocks, so more text counted as the editor's), never
// a wrong one. Typing-sized edits of a 100 KB text diff in well under 1 ms.
const diffTimeout = 500 * time.Millisecond

// newDMP returns a diff-match-patch configured for this package.
func newDMP() *diffmatchpatch.DiffMatchPatch {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	return dmp
}

// span is a run of the current text by rune count.
type span struct {
	n      int // runes
	author Author
}

// Attribute returns the authorship runs of the last version of chain: a
// character is the model's only if a model version wrote it and no later
// version changed it. Each step diffs version i-1 against version i; what the
// diff keeps keeps its author, what it inserts belongs to version i's author.
//
// Authorship comes from the texts, not from keystrokes: a human who deletes
// characters and types the same ones back in the same place leaves them the
// model's (the diff sees no change), while characters the diff sees as
// deleted and inserted, a moved sentence for instance, are the human's even
// though the model once wrote the same letters. A grapheme cluster that holds
// any human-written code point is the human's whole (an accent added to a
// model's letter makes the accented letter human).
//
// It returns nil for an empty chain or an empty final text.
func Attribute(chain []Version, view View) []Run {
	if len(chain) == 0 {
		return nil
	}
	d := newChainDiffer(newDMP())
	final := chain[len(chain)-1].Text
	if !utf8.ValidString(final) {
		final = string([]rune(final)) // each invalid byte becomes U+FFFD, as in the diff
	}
	prev := []rune(chain[0].Text)
	spans := []span{{n: len(prev), author: chain[0].Author}}
	for _, v := range chain[1:] {
		cur := []rune(v.Text)
		spans = applyDiff(spans, d.diff(prev, cur, view), v.Author)
		prev = cur
	}
	return runsOf(final, prev, spans)
}

// applyDiff maps the spans of the old text through ops to spans of the new
// text: equal text keeps its authors, inserted text is by author.
func applyDiff(old []span, ops []op, author Author) []span {
	out := make([]span, 0, len(old)+len(ops))
	push := func(n int, a Author) {
		if n == 0 {
			return
		}
		if k := len(out); k > 0 && out[k-1].author == a {
			out[k-1].n += n
			return
		}
		out = append(out, span{n: n, author: a})
	}
	i, used := 0, 0 // old[i] has used runes consumed
	take := func(n int, keep bool) {
		for n > 0 && i < len(old) {
			k := min(old[i].n-used, n)
			if keep {
				push(k, old[i].author)
			}
			n -= k
			used += k
			if used == old[i].n {
				i, used = i+1, 0
			}
		}
	}
	for _, o := range ops {
		switch o.kind {
		case diffmatchpatch.DiffEqual:
			take(o.n, true)
		case diffmatchpatch.DiffDelete:
			take(o.n, false)
		case diffmatchpatch.DiffInsert:
			push(o.n, author)
		}
	}
	return out
}

// runsOf cuts final, whose runes are text, into runs along spans, moving
// every boundary that falls inside a grapheme cluster so that the cluster
// goes to the human side. Run texts are substrings of final.
func runsOf(final string, text []rune, spans []span) []Run {
	if len(text) == 0 {
		return nil
	}
	// One byte per rune: an index into table.
	var table []Author
	index := func(a Author) uint8 {
		for i, t := range table {
			if t == a {
				return uint8(i)
			}
		}
		if len(table) == 255 { // more distinct authors than any real chain has
			return 0
		}
		table = append(table, a)
		return uint8(len(table) - 1)
	}
	human := index(Human)
	authors := make([]uint8, len(text))
	pos := 0
	for _, s := range spans {
		a := index(s.author)
		for j := pos; j < pos+s.n && j < len(text); j++ {
			authors[j] = a
		}
		pos += s.n
	}
	for b := 1; b < len(text); b++ {
		if authors[b] == authors[b-1] {
			continue
		}
		if start, end := clusterAround(text, b); start < b {
			// b is inside the cluster [start, end): the cluster goes to the
			// human side (between two other authors, to the later text's).
			a := authors[b]
			if authors[b-1] == human {
				a = human
			}
			for j := start; j < end; j++ {
				authors[j] = a
			}
			b = end - 1
		}
	}
	var runs []Run
	start, byteStart, byteAt := 0, 0, 0
	for j := 0; j <= len(text); j++ {
		if j > start && (j == len(text) || authors[j] != authors[start]) {
			runs = append(runs, Run{Text: final[byteStart:byteAt], Author: table[authors[start]]})
			start, byteStart = j, byteAt
		}
		if j < len(text) {
			byteAt += utf8.RuneLen(text[j])
		}
	}
	return runs
}

// clusterWindow is how far (in runes) clusterAround looks on either side of a
// position. A cluster longer than this (hundreds of stacked combining marks)
// is cut at the window's edge.
const clusterWindow = 256

// clusterAround returns the grapheme cluster [start, end) of text that
// contains rune position b, or (b, b) when a cluster boundary falls exactly at
// b. It segments only a window around b, starting at a position that is
// certainly a boundary: between two ASCII characters other than CR LF
// (UAX #29 GB9-GB999), or the start of the text.
func clusterAround(text []rune, b int) (start, end int) {
	p := b
	for p > 0 && b-p < clusterWindow {
		if text[p-1] < utf8.RuneSelf && text[p] < utf8.RuneSelf && !(text[p-1] == '\r' && text[p] == '\n') {
			break
		}
		p--
	}
	if p == b {
		return b, b
	}
	limit := min(len(text), b+clusterWindow)
	rest := string(text[p:limit])
	state := -1
	pos := p
	for rest != "" {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		n := utf8.RuneCountInString(cluster)
		if pos == b {
			return b, b
		}
		if pos < b && b < pos+n {
			return pos, pos + n
		}
		pos += n
	}
	return b, b
}
