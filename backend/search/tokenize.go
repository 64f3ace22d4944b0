package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Token is one indexed word of a text: its folded form (Term) and where it
// lies in the text (Start, End: byte offsets, End exclusive).
type Token struct {
	Term       string
	Start, End int
}

// Tokenize splits text into tokens the way the library's full-text indexes
// do (SQLite FTS5's "unicode61 remove_diacritics 2" tokenizer): a token is a
// run of letters, numbers and private-use characters (Unicode categories L*,
// N*, Co), every other character separates tokens; a token is folded to lower
// case and Latin letters lose their diacritics ("Café" is "cafe"). Search and
// the keyword index read text through this one function, so that a term
// counted here is a term FTS5 matches (checked against SQLite in
// store/search_test.go).
func Tokenize(text string) []Token {
	var out []Token
	EachToken(text, func(t Token) bool {
		out = append(out, t)
		return true
	})
	return out
}

// EachToken calls fn with each token of text in order (see Tokenize) until
// fn returns false. Term strings of ASCII tokens already in lower case share
// text's memory.
func EachToken(text string, fn func(Token) bool) {
	var buf []byte
	i := 0
	for i < len(text) {
		// Skip separators.
		c := text[i]
		if c < utf8.RuneSelf {
			if !asciiTokenChar[c] {
				i++
				continue
			}
		} else {
			r, n := utf8.DecodeRuneInString(text[i:])
			if !tokenRune(r) {
				i += n
				continue
			}
		}
		// A token: ASCII fast path, folded only when needed.
		start := i
		simple := true // ASCII lower case and digits only
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if !asciiTokenChar[c] {
					break
				}
				if c >= 'A' && c <= 'Z' {
					simple = false
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(text[i:])
			if !tokenRune(r) && !unicode.Is(unicode.Mn, r) {
				break
			}
			simple = false
			i += n
		}
		var term string
		if simple {
			term = text[start:i]
		} else {
			buf = foldInto(buf[:0], text[start:i])
			if len(buf) == 0 { // only diacritics: nothing FTS5 would index
				continue
			}
			term = string(buf)
		}
		if !fn(Token{Term: term, Start: start, End: i}) {
			return
		}
	}
}

// Terms returns the folded terms of text in order, repeats included.
func Terms(text string) []string {
	var out []string
	EachToken(text, func(t Token) bool {
		out = append(out, t.Term)
		return true
	})
	return out
}

// Fold returns the folded form of one word as the index stores it (lower
// case, Latin diacritics removed); separators are kept as they are.
func Fold(word string) string {
	return string(foldInto(nil, word))
}

var asciiTokenChar = func() (t [utf8.RuneSelf]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return t
}()

// tokenRune reports whether r (not ASCII) is part of a token: a letter, a
// number or a private-use character.
func tokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// foldInto appends the folded form of s to b: lower case, combining marks
// dropped, Latin letters with diacritics replaced by their base letter.
func foldInto(b []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if r >= 0xC0 && r < 0x2C00 && isLatin(r) {
			r = baseLetter(r)
		}
		b = utf8.AppendRune(b, r)
	}
	return b
}

func isLatin(r rune) bool { return unicode.Is(unicode.Latin, r) }

// baseLetter is r without its diacritics when r decomposes into a Latin base
// letter and combining marks; r otherwise.
func baseLetter(r rune) rune {
	d := norm.NFD.String(string(r))
	base, n := utf8.DecodeRuneInString(d)
	if n == len(d) || base >= 0x250 {
		return r
	}
	if strings.IndexFunc(d[n:], func(m rune) bool { return !unicode.Is(unicode.Mn, m) }) >= 0 {
		return r
	}
	return base
}

// Stem is a term's Snowball (Porter 2) English stem: "researching",
// "researched" and "research" are one stem. The hybrid search's content
// component counts another form of a query word as the word (keyword
// retrieval does not: matching every form cost the real sessions' held-out
// questions more than it gained conversations).
func Stem(term string) string { return lsaStem(term) }

// MinStemRunes is the shortest stem whose other forms count as a query
// word: shorter stems ("us", "go") join unrelated words.
const MinStemRunes = 3
