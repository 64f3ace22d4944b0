package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clause is one required part of a keyword query: a word or a "quoted
// phrase", as its folded terms in order. A clause of several terms is a
// phrase: its terms must follow one another. Prefix makes the last term
// match any term that starts with it (the word being typed).
type Clause struct {
	Terms  []string
	Prefix bool
}

// Query is what a person typed, read as keyword clauses, all required
// (Any: at least one).
type Query struct {
	Clauses []Clause
	// Any asks for the items holding at least one clause, ranked by bm25
	// over the clauses they hold (a disjunction, as retrieval for a hybrid
	// ranking wants), instead of every clause.
	Any bool
}

// AnyWord returns q as a disjunction without its stopword clauses (one-word
// clauses such as "the", "of"), unless every clause is one.
func (q Query) AnyWord() Query {
	out := Query{Any: true}
	for _, c := range q.Clauses {
		if len(c.Terms) == 1 && stopwords[c.Terms[0]] {
			continue
		}
		out.Clauses = append(out.Clauses, c)
	}
	if len(out.Clauses) == 0 {
		out.Clauses = q.Clauses
	}
	return out
}

// MinPrefixRunes is the shortest last word that also matches as a prefix:
// a one-letter prefix would match a large part of the vocabulary.
const MinPrefixRunes = 2

// ParseQuery reads q as the search box does: every word is a clause, "quoted
// text" a phrase, all of them required; the last word also matches as a
// prefix (search while typing) when q does not end with a space and the word
// has at least MinPrefixRunes characters. Words are split and folded by
// Tokenize, so "foo.bar" is the phrase "foo bar". Operators (AND, OR, NEAR,
// *, :, ^, parentheses) are plain text. Clauses with no token are dropped; a
// query with none has no clauses.
func ParseQuery(q string) Query {
	var out Query
	add := func(words string, prefix bool) {
		terms := Terms(words)
		if len(terms) == 0 {
			return
		}
		if prefix {
			last := []rune(terms[len(terms)-1])
			// A word ending in a separator ("foo.") is complete.
			r, _ := utf8.DecodeLastRuneInString(words)
			endsInToken := tokenRune(r) || (r < utf8.RuneSelf && asciiTokenChar[r])
			prefix = len(last) >= MinPrefixRunes && endsInToken
		}
		out.Clauses = append(out.Clauses, Clause{Terms: terms, Prefix: prefix})
	}
	Lex(q, add)
	return out
}

// Lex splits what a person typed into the search box into its clauses, in
// order: each "quoted text" (without its quotes) and each word between
// spaces and quotes, handed to clause with last set for a word (never a
// phrase) that ends q, q not ending with a space: the word being typed. An
// unclosed quote is dropped and the words after it read as words. Lex does
// not tokenize: the words keep their punctuation (ParseQuery splits them as
// the index does, store.MatchQuery quotes them for FTS5).
func Lex(q string, clause func(words string, last bool)) {
	rest := q
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			return
		}
		if rest[0] == '"' {
			if end := strings.IndexByte(rest[1:], '"'); end >= 0 {
				clause(rest[1:1+end], false)
				rest = rest[end+2:]
				continue
			}
			rest = rest[1:] // an unclosed quote: the words after it
			continue
		}
		end := strings.IndexFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || r == '"' })
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		rest = rest[end:]
		clause(word, strings.TrimSpace(rest) == "" && !strings.HasSuffix(q, " "))
	}
}

// Empty reports whether q has nothing to search for.
func (q Query) Empty() bool { return len(q.Clauses) == 0 }

// AllTerms lists the distinct terms of every clause, in order of appearance.
func (q Query) AllTerms() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range q.Clauses {
		for _, t := range c.Terms {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// FTS5 returns q as an FTS5 MATCH expression: each clause a quoted phrase
// (joined by AND, or OR when q.Any),
// a prefix clause's phrase followed by "*". expand, when not nil, replaces a
// prefix clause by an OR of the phrases ending in each of the terms it
// returns for the clause's last term (a prefix rewritten to the terms the
// library holds); an empty list keeps the prefix as it is.
func (q Query) FTS5(expand func(prefix string) []string) string {
	parts := make([]string, 0, len(q.Clauses))
	for _, c := range q.Clauses {
		head := c.Terms[:len(c.Terms)-1]
		last := c.Terms[len(c.Terms)-1]
		if c.Prefix && expand != nil {
			if terms := expand(last); len(terms) > 0 {
				alts := make([]string, len(terms))
				for i, t := range terms {
					alts[i] = quotePhrase(append(append([]string(nil), head...), t))
				}
				if len(alts) == 1 {
					parts = append(parts, alts[0])
				} else {
					parts = append(parts, "("+strings.Join(alts, " OR ")+")")
				}
				continue
			}
		}
		p := quotePhrase(c.Terms)
		if c.Prefix {
			p += "*"
		}
		parts = append(parts, p)
	}
	// FTS5 reads "a" ("b" OR "c") as a syntax error: say AND.
	if q.Any {
		return strings.Join(parts, " OR ")
	}
	return strings.Join(parts, " AND ")
}

// quotePhrase is terms as one FTS5 string: the terms are already tokens, so
// only quotes need escaping (folded terms hold none, but be safe).
func quotePhrase(terms []string) string {
	return `"` + strings.ReplaceAll(strings.Join(terms, " "), `"`, `""`) + `"`
}
