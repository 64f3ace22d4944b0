package analyze

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"

	"rhizome/backend/session"
)

// maxInspectBytes caps the text of one entry (or one tool argument) that the
// analyzer looks at beyond its length: words, paths, error lines and summary
// candidates all come from the first 4 KB. A session's huge tool outputs and
// file contents are only measured, never scanned.
const maxInspectBytes = 4 << 10

// appendBlockText appends the text blocks of blocks to buf, separated by
// newlines, until buf holds limit bytes (cut at a rune boundary), and returns
// buf and the total length in bytes of all text blocks (uncapped).
func appendBlockText(buf []byte, blocks []session.Block, limit int) ([]byte, int) {
	total := 0
	for i := range blocks {
		b := &blocks[i]
		if b.Type != session.BlockText || b.Text == "" {
			continue
		}
		total += len(b.Text)
		if len(buf) >= limit {
			continue
		}
		if len(buf) > 0 {
			buf = append(buf, '\n')
		}
		buf = appendCapped(buf, b.Text, limit)
	}
	return buf, total
}

// appendCapped appends s to buf without letting buf grow past limit bytes,
// cutting at a rune boundary.
func appendCapped(buf []byte, s string, limit int) []byte {
	room := limit - len(buf)
	if room <= 0 {
		return buf
	}
	return append(buf, capBytes(s, room)...)
}

// capBytes is s cut to at most n bytes at a rune boundary.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// collapseSpace replaces every run of white space in s by one space and trims
// both ends.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// cutSentences shortens s (white space already collapsed) to at most max
// runes: at the last sentence end (". ", "! ", "? " or the end of a sentence
// at the end of the text) that keeps at least a third of max, else at the
// last word boundary, with "…" appended. Text that fits is returned as is.
func cutSentences(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	// head is the first max-1 runes, leaving room for the ellipsis; best
	// the end of its last sentence that keeps at least a third of max runes.
	head, best, n := s, -1, 0
	for i, r := range s {
		if n == max-1 {
			head = s[:i]
			break
		}
		if (r == '.' || r == '!' || r == '?') && i+1 < len(s) && s[i+1] == ' ' &&
			n+1 >= max/3 && !abbreviation(s[:i+1]) {
			best = i + 1
		}
		n++
	}
	if best > 0 && best <= len(head) {
		return head[:best]
	}
	if sp := strings.LastIndexByte(head, ' '); sp > len(head)/2 {
		head = head[:sp]
	}
	return strings.TrimRight(head, " ,;:-–—") + "…"
}

// abbreviation reports whether s ends with a common abbreviation whose period
// is not a sentence end ("e.g.", "i.e.", "etc.", "vs.").
func abbreviation(s string) bool {
	l := strings.ToLower(s)
	for _, a := range []string{"e.g.", "i.e.", "etc.", "vs.", "approx."} {
		if strings.HasSuffix(l, a) {
			return true
		}
	}
	return false
}

// isSlashCommand reports whether a user message is a pi slash command such
// as "/mode", "/theme dark" or a bare "/": its first word starts with "/" and
// has no other "/" (so pasted paths like "/var/folders/x.png are not
// commands).
func isSlashCommand(s string) bool {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(s, "/") {
		return false
	}
	word := s
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		word = s[:i]
	}
	return !strings.Contains(word[1:], "/")
}

// trivialRequests are user messages that carry no task of their own: they
// steer a conversation already under way.
var trivialRequests = map[string]bool{
	"ok": true, "okay": true, "k": true, "yes": true, "y": true, "yep": true, "yeah": true, "no": true,
	"nope": true, "n": true, "sure": true, "continue": true, "go on": true, "go": true, "go ahead": true,
	"do it": true, "proceed": true, "thanks": true, "thank you": true, "thx": true, "stop": true,
	"still there": true, "are you there": true, "hello": true, "hi": true, "test": true, "retry": true,
	"try again": true, "again": true, "next": true, "done": true, "good": true, "great": true,
	"perfect": true, "nice": true, "cool": true, "lgtm": true, "looks good": true, "yes please": true,
	"sounds good": true, "sounds good, do it": true, "yeah, do it all": true, "do it all": true,
}

// minRequestRunes is the length under which a user message is trivial.
const minRequestRunes = 12

// isTrivial reports whether a user message (white space collapsed) carries no
// task: shorter than minRequestRunes runes, or one of trivialRequests once
// lowercased and stripped of trailing punctuation.
func isTrivial(s string) bool {
	if utf8.RuneCountInString(s) < minRequestRunes {
		return true
	}
	l := strings.TrimRight(strings.ToLower(s), " .!?,")
	return trivialRequests[l]
}

// fillerSentences open many assistant replies without saying anything; they
// are dropped from the start of a reply when more follows.
var fillerSentences = map[string]bool{
	"perfect": true, "done": true, "great": true, "excellent": true, "good": true, "sure": true,
	"ok": true, "okay": true, "got it": true, "alright": true, "all done": true, "awesome": true,
	"nice": true, "right": true, "you're right": true, "you're absolutely right": true,
	"absolutely": true, "of course": true, "certainly": true, "understood": true, "good catch": true,
	"good question": true, "great question": true, "perfect, done": true, "great, done": true,
	"yes": true, "no": true, "hmm": true, "ah": true, "oh": true, "ah, i see": true, "i see": true,
	"all set": true, "fixed": true, "good idea": true, "great idea": true, "makes sense": true,
}

// fillerOpeners are the filler words that also open a reply before a
// comma ("Good, the message is shown" says "the message is shown"). Yes and
// no are not among them: "No, that is wrong" must keep its "No".
var fillerOpeners = map[string]bool{
	"perfect": true, "great": true, "good": true, "excellent": true, "ok": true, "okay": true,
	"alright": true, "done": true, "got it": true, "awesome": true, "nice": true,
}

// dropFiller removes filler sentences ("Perfect!", "Done.", "You're right!")
// and filler openers ("Good, the ...", whose next word is then capitalised)
// from the start of s (white space collapsed) as long as text follows.
func dropFiller(s string) string {
	for {
		end := strings.IndexAny(s, ".!:,")
		if end < 0 || end+2 >= len(s) || s[end+1] != ' ' {
			return s
		}
		head := strings.ToLower(strings.Trim(s[:end], " *_`'\"“”"))
		head = strings.ReplaceAll(head, "’", "'")
		comma := s[end] == ','
		if comma && !fillerOpeners[head] || !comma && !fillerSentences[head] {
			return s
		}
		s = s[end+2:]
		if comma && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
	}
}

// markdownInline strips the inline markdown a summary does not need:
// emphasis and backticks.
var markdownInline = strings.NewReplacer("**", "", "__", "", "`", "")

// proseLines yields the trimmed, non-empty lines of markdown s that are
// prose: fenced code blocks and table rows are left out, and so are block
// quotes when quotes is false.
func proseLines(s string, quotes bool) iter.Seq[string] {
	return func(yield func(string) bool) {
		fenced := false
		for line := range strings.Lines(s) {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				fenced = !fenced
				continue
			}
			if fenced || t == "" || strings.HasPrefix(t, "|") || !quotes && strings.HasPrefix(t, ">") {
				continue
			}
			if !yield(t) {
				return
			}
		}
	}
}

// plainReply turns an assistant's markdown reply (capped) into one line of
// prose for a summary: fenced code blocks, table rows and rules are dropped;
// headings, list markers, block quotes, emphasis and backticks are stripped;
// lines are joined with spaces, and a line that does not end a sentence or
// clause gets a period before the next (so list items read as sentences).
// Leading filler sentences are dropped.
func plainReply(s string) string {
	var b strings.Builder
	for t := range proseLines(s, true) {
		if isRule(t) {
			continue
		}
		t = strings.TrimSpace(markdownInline.Replace(stripListMarker(strings.TrimLeft(t, "#> "))))
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			if last := lastRune(b.String()); !strings.ContainsRune(".!?:;,…", last) {
				b.WriteByte('.')
			}
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return dropFiller(collapseSpace(b.String()))
}

// plainRequest is a user request as one line of prose for a summary: lines
// the user pasted rather than wrote (fenced code, table rows, block quotes)
// are dropped when other lines remain, markdown emphasis and backticks are
// stripped and white space is collapsed.
func plainRequest(s string) string {
	var b strings.Builder
	for t := range proseLines(s, false) {
		b.WriteString(t)
		b.WriteByte('\n')
	}
	text := b.String()
	if text == "" {
		text = s
	}
	return collapseSpace(markdownInline.Replace(text))
}

// isRule reports whether a markdown line is a horizontal rule.
func isRule(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "-*_= ") == ""
}

// stripListMarker removes a markdown list marker ("- ", "* ", "+ ", "1. ",
// "2) ", "- [ ] ") from the start of a trimmed line.
func stripListMarker(t string) string {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		t = strings.TrimSpace(t[2:])
		for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
			t = strings.TrimPrefix(t, box)
		}
		return t
	}
	i := 0
	for i < len(t) && i < 4 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return strings.TrimSpace(t[i+2:])
	}
	return t
}

// lastRune is the last rune of s, or 0 when s is empty.
func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError {
		return 0
	}
	return r
}

// firstLines is the first non-empty lines of s joined by spaces, white space
// collapsed, until at least 80 runes or 3 lines are taken, cut to max runes.
// It is how an error message is quoted.
func firstLines(s string, max int) string {
	var parts []string
	n := 0
	for line := range strings.Lines(s) {
		t := collapseSpace(line)
		if t == "" {
			continue
		}
		parts = append(parts, t)
		n += utf8.RuneCountInString(t)
		if n >= 80 || len(parts) == 3 {
			break
		}
	}
	return truncateRunes(strings.Join(parts, " "), max)
}

// truncateRunes cuts s to at most max runes, ending in "…" when cut.
func truncateRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// errorHints mark the line of a failed command's output that says what went
// wrong (lowercase).
var errorHints = []string{"error", "fail", "no such file", "not found", "cannot", "can't", "rejected",
	"fatal", "denied", "exception", "panic", "invalid", "unexpected", "missing", "undefined"}

// errorNoise are lines of tool output that look like errors but are not
// about the failure (Node's debugger attaching under VS Code).
var errorNoise = []string{"js-debug", "debugger attached", "waiting for the debugger"}

// errorMessage quotes a failed tool's output (capped) in at most max runes:
//  1. the first line that says what went wrong (see errorHints), errorNoise
//     lines skipped;
//  2. else, for output of more than three lines, pi's closing line when it
//     has one ("Command aborted", "Command exited with code 2");
//  3. else the first lines that are not noise (see firstLines).
//
// Tool output often starts with banners ("> npm run check") that say
// nothing about the failure.
func errorMessage(s string, max int) string {
	var kept strings.Builder
	lines, last := 0, ""
next:
	for line := range strings.Lines(s) {
		l := strings.ToLower(line)
		for _, n := range errorNoise {
			if strings.Contains(l, n) {
				continue next
			}
		}
		for _, h := range errorHints {
			if strings.Contains(l, h) {
				return truncateRunes(collapseSpace(line), max)
			}
		}
		if t := strings.TrimSpace(line); t != "" {
			lines++
			last = t
			kept.WriteString(line)
		}
	}
	if lines > 3 && strings.HasPrefix(last, "Command ") {
		return truncateRunes(last, max)
	}
	return firstLines(kept.String(), max)
}
