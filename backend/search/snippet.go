package search

import (
	"strings"
)

// SnippetTokens is how many tokens a snippet shows, as FTS5's snippet() is
// asked for by the store (24).
const SnippetTokens = 24

// Snippet returns the part of text around its hits (Match.Hits, as found in
// the same text) as plain text: a window of at most tokens tokens, each hit
// between start and end, "…" where the window cuts the text. Of the windows
// showing the most distinct hit terms, it is the one with the most hits. Without hits it is the start of the text. It never splits a UTF-8
// sequence.
func Snippet(text string, hits []Token, tokens int, start, end string) string {
	if tokens <= 0 {
		tokens = SnippetTokens
	}
	toks := Tokenize(text)
	if len(toks) == 0 {
		return ""
	}
	isHit := make(map[int]bool, len(hits))
	for _, h := range hits {
		isHit[h.Start] = true
	}
	// The window of `tokens` tokens showing the most distinct hit terms,
	// then the most hits; on a tie the earliest.
	best, bestScore := 0, -1
	count := 0
	terms := map[string]int{} // hit terms in the window
	for i := 0; i < len(toks); i++ {
		if isHit[toks[i].Start] {
			count++
			terms[toks[i].Term]++
		}
		if i >= tokens && isHit[toks[i-tokens].Start] {
			count--
			if out := toks[i-tokens].Term; terms[out] == 1 {
				delete(terms, out)
			} else {
				terms[out]--
			}
		}
		if first := i - tokens + 1; first >= 0 || i == len(toks)-1 {
			if first < 0 {
				first = 0
			}
			if score := len(terms)*(tokens+1) + count; score > bestScore {
				best, bestScore = first, score
			}
		}
	}
	// Move the window so that its first hit has context before it.
	firstHit := -1
	for i := best; i < min(best+tokens, len(toks)); i++ {
		if isHit[toks[i].Start] {
			firstHit = i
			break
		}
	}
	if firstHit >= 0 {
		best = max(0, min(firstHit-tokens/4, len(toks)-tokens))
	}
	last := min(best+tokens, len(toks)) - 1
	var b strings.Builder
	if best > 0 {
		b.WriteString("…")
	}
	pos := toks[best].Start
	for i := best; i <= last; i++ {
		t := toks[i]
		b.WriteString(text[pos:t.Start])
		if isHit[t.Start] {
			b.WriteString(start)
			b.WriteString(text[t.Start:t.End])
			b.WriteString(end)
		} else {
			b.WriteString(text[t.Start:t.End])
		}
		pos = t.End
	}
	if last < len(toks)-1 {
		b.WriteString("…")
	} else {
		b.WriteString(text[pos:])
	}
	return b.String()
}
