package link

import (
	"strings"
)

// MaxMentionBytes is the longest text a [[…]] mention may hold; longer
// bracketed text is not a mention.
const MaxMentionBytes = 1024

// Mention is one [[…]] in a text: a link the UI draws as a chip. It names an
// item by URI ([[rhizome:node/3f2a…]], [[https://…]], [[/abs/path]]) or holds
// a query the picker searches for ([[login rate limit]]); an alias after "|"
// is what the chip shows ([[rhizome:session/…|the pgx migration]]).
type Mention struct {
	// Start and End are the byte offsets of the opening "[[" and just past
	// the closing "]]" in the text (Go strings: bytes, not UTF-16 units).
	Start int `json:"start"` // byte offset of "[["
	End   int `json:"end"`   // byte offset just past "]]"
	// Target is the text inside the brackets before any "|", trimmed.
	Target string `json:"target"`
	// Alias is the trimmed text after the first "|" ("" if none).
	Alias string `json:"alias,omitempty"`
	// Item is the item Target names when it is a URI or an absolute path;
	// its Kind is "" when Target is a query (or a URI that does not parse).
	Item Item `json:"-"`
	// Err says why a Target that looks like a URI (rhizome:, http:, https:,
	// file:) does not parse; nil otherwise.
	Err error `json:"-"`
}

// IsQuery reports whether the mention holds a search query rather than a URI.
func (m Mention) IsQuery() bool { return m.Item.Kind == "" && m.Err == nil }

// Mentions returns the [[…]] mentions of a markdown text, in order. A mention
// opens at "[[" (a longer run of "[" opens at its last two) and closes at the
// next "]]" on the same line; it is not a mention when it is empty, holds a
// newline or "[[", is longer than MaxMentionBytes, is escaped ("\[["), or
// lies in a fenced code block or an inline code span, where brackets are
// code. Text without mentions gives nil.
func Mentions(text string) []Mention {
	var out []Mention
	inFence, fence := false, ""
	off := 0
	for line := range strings.Lines(text) {
		start := off
		off += len(line)
		t := strings.TrimLeft(line, " \t")
		if f := fenceOf(t); f != "" {
			switch {
			case !inFence:
				inFence, fence = true, f
				continue
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence) && strings.TrimSpace(t[len(f):]) == "":
				inFence = false
				continue
			}
		}
		if inFence {
			continue
		}
		out = lineMentions(line, start, out)
	}
	return out
}

// fenceOf returns the run of ``` or ~~~ (three or more) that opens a
// trimmed line, or "".
func fenceOf(t string) string {
	if len(t) < 3 || t[0] != '`' && t[0] != '~' {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// lineMentions appends the mentions of one line (without fences) whose first
// byte is at offset base of the text.
func lineMentions(line string, base int, out []Mention) []Mention {
	for i := 0; i < len(line); {
		switch line[i] {
		case '`': // an inline code span: skip to the closing run of the same length
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			if end := strings.Index(line[i+n:], line[i:i+n]); end >= 0 {
				i += n + end + n
			} else {
				i += n
			}
			continue
		case '\\': // an escaped character
			i += 2
			continue
		case '[':
			if i+1 >= len(line) || line[i+1] != '[' {
				break
			}
			for i+2 < len(line) && line[i+2] == '[' {
				i++
			}
			m, next, ok := mentionAt(line, i)
			if ok {
				m.Start += base
				m.End += base
				out = append(out, m)
			}
			i = next
			continue
		}
		i++
	}
	return out
}

// mentionAt reads the mention whose "[[" is at line[i] and returns it, the
// offset to continue scanning from and whether it is a mention.
func mentionAt(line string, i int) (Mention, int, bool) {
	body := line[i+2:]
	end := strings.Index(body, "]]")
	if end < 0 {
		return Mention{}, i + 2, false
	}
	inner := body[:end]
	if j := strings.Index(inner, "[["); j >= 0 { // a later "[[" starts the real one
		return Mention{}, i + 2 + j, false
	}
	next := i + 2 + end + 2
	if len(inner) > MaxMentionBytes || strings.ContainsAny(inner, "\r\n") {
		return Mention{}, next, false
	}
	target, alias, _ := strings.Cut(inner, "|")
	m := Mention{Start: i, End: next, Target: strings.TrimSpace(target), Alias: strings.TrimSpace(alias)}
	if m.Target == "" {
		return Mention{}, next, false
	}
	if looksLikeURI(m.Target) {
		m.Item, m.Err = Parse(m.Target)
	}
	return m, next, true
}

// looksLikeURI reports whether a mention's target is meant as a URI or path
// rather than a query: it starts with a scheme Parse knows (any case) or is
// an absolute path.
func looksLikeURI(s string) bool {
	l := strings.ToLower(s)
	for _, p := range []string{Scheme + ":", "https:", "http:", "file:"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return isAbsPath(s)
}

// Readable returns text with each mention as a person reads its chip: the
// alias, else the target (a query, a URI, a path), without the brackets.
// "And then, as in [[rhizome:node/6e5e…|the poem]]" reads "And then, as in
// the poem". Text without mentions is returned as it is.
func Readable(text string) string {
	ms := Mentions(text)
	if len(ms) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(text[last:m.Start])
		if m.Alias != "" {
			b.WriteString(m.Alias)
		} else {
			b.WriteString(m.Target)
		}
		last = m.End
	}
	b.WriteString(text[last:])
	return b.String()
}
