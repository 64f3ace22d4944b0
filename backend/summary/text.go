package summary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxInspectBytes caps the text of one entry the summarizer reads: a pasted
// log or file dump past the first 16 KB of a message is never scanned.
const maxInspectBytes = 16 << 10

// CleanUserText strips what a person pasted or a tool wrapped around a user
// message, leaving the words they wrote, one line per line of prose:
//
//   - XML-ish system blocks are removed whole: any <tag>…</tag> whose name
//     has a dash or underscore (<system-reminder>, <command-message>,
//     <local-command-stdout>, <user_prompt>) or is one of file, document,
//     context, output, stdout, stderr, log, logs, system; <command-args>
//     keeps its content; other tags are dropped, their text kept;
//   - fenced code blocks (closed or not) and lines indented as code;
//   - pasted lines: table rows, markdown headings, block quotes, box
//     drawing, diff hunks, stack frames, shell prompts, timestamped log
//     lines, "Error: …" lines and lines that are mostly not letters;
//   - quoted file paths (a dragged-in screenshot) vanish; URLs become what
//     they name ("issue #288", "PR #299", "owner/repo", the host); long paths
//     and @file mentions become the file's name;
//   - markdown emphasis, backticks and link syntax; runs of white space.
//
// Text that is nothing but paste gives "".
func CleanUserText(s string) string {
	s = capBytes(s, maxInspectBytes)
	s = stripTags(s)
	var out []string
	fence := ""
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if f := fenceRun(t); f != "" {
			fence = f
			continue
		}
		if t == "" {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			continue
		}
		if pastedLine(line, t) {
			continue
		}
		t = cleanInline(t)
		if t != "" {
			out = append(out, t)
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// fenceRun returns the ``` or ~~~ run opening a trimmed line, or "".
func fenceRun(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// systemTags are tag names whose whole element is machinery, not words.
var systemTags = map[string]bool{
	"file": true, "document": true, "context": true, "output": true, "stdout": true, "stderr": true,
	"log": true, "logs": true, "system": true, "attachment": true, "image": true, "diff": true,
}

var (
	tagOpen  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9_:-]*)(\s[^<>]*)?>`)
	tagClose = regexp.MustCompile(`</([a-zA-Z][a-zA-Z0-9_:-]*)\s*>`)
)

// stripTags removes XML-ish system elements and unwraps other tags.
func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for {
		loc := tagOpen.FindStringSubmatchIndex(s)
		if loc == nil {
			b.WriteString(s)
			break
		}
		name := strings.ToLower(s[loc[2]:loc[3]])
		b.WriteString(s[:loc[0]])
		rest := s[loc[1]:]
		closing := "</" + name
		end := indexFold(rest, closing)
		switch {
		case name == "command-args" && end >= 0:
			b.WriteString(rest[:end])
			s = skipClose(rest[end:])
		case (strings.ContainsAny(name, "-_") || systemTags[name]) && end >= 0:
			b.WriteByte('\n')
			s = skipClose(rest[end:])
		case strings.ContainsAny(name, "-_") || systemTags[name]:
			// An unclosed system tag: drop the tag itself.
			s = rest
		default:
			s = rest
		}
	}
	return tagClose.ReplaceAllString(b.String(), "")
}

// skipClose drops the closing tag at the start of s.
func skipClose(s string) string {
	if i := strings.IndexByte(s, '>'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// indexFold is strings.Index, ignoring ASCII case.
func indexFold(s, sub string) int {
	return strings.Index(strings.ToLower(s), sub)
}

var (
	stackFrame = regexp.MustCompile(`^\s*at \S.*[:(]\d+`)
	logStamp   = regexp.MustCompile(`^\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d`)
	diffHunk   = regexp.MustCompile(`^[+-]\s*\d+\s`)
	errorLine  = regexp.MustCompile(`^[A-Za-z]*(Error|Exception|Traceback)\b.*:`)
)

// pastedLine reports whether a line (raw, and trimmed t) was pasted rather
// than written: see CleanUserText.
func pastedLine(raw, t string) bool {
	switch {
	case strings.HasPrefix(raw, "    ") || strings.HasPrefix(raw, "\t"):
		return true // indented code
	case t[0] == '|' || t[0] == '>' || strings.HasPrefix(t, "#") && (len(t) == 1 || t[1] == '#' || t[1] == ' '):
		return true // table row, quote, heading
	case strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "➜") || strings.HasPrefix(t, "❯") || strings.HasPrefix(t, "% "):
		return true // shell prompt
	case strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "#!"):
		return true // code comment
	case stackFrame.MatchString(t) || logStamp.MatchString(t) || diffHunk.MatchString(t) || errorLine.MatchString(t):
		return true
	case strings.ContainsAny(t, "│─┌┐└┘├┤┬┴┼╭╮╰╯═║"):
		return true // box drawing: a pasted TUI or table
	}
	letters, other := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsSpace(r):
		default:
			other++
		}
	}
	return letters+other > 3 && letters*10 < (letters+other)*5
}

var (
	mdLink        = regexp.MustCompile(`!?\[([^\]]*)\]\(([^)\s]*)\)`)
	quotedPath    = regexp.MustCompile(`['"](/|~/|[A-Za-z]:\\)[^'"]*['"]`)
	urlPattern    = regexp.MustCompile(`\bhttps?://[^\s<>()\[\]"'` + "`" + `]+`)
	githubThing   = regexp.MustCompile(`^https?://github\.com/([\w.-]+)/([\w.-]+)(?:/(issues|pull|discussions)/(\d+))?`)
	atFile        = regexp.MustCompile(`(^|\s)@((?:[\w.-]+/)*[\w.-]+\.\w+)`)
	longPath      = regexp.MustCompile(`(^|[\s(\["'])((?:~|\.{1,2})?(?:/[\w.@+-]+){2,}/?|(?:[\w.@+-]+/){2,}[\w@+-]+\.[A-Za-z]\w*)`)
	templateVar   = regexp.MustCompile(`\$\{[^}]*\}`)
	emphasisMarks = strings.NewReplacer("**", "", "__", "", "`", "", "~~", "")
)

// cleanInline cleans one line of prose: links, paths, URLs, emphasis.
func cleanInline(t string) string {
	t = emphasisMarks.Replace(t)
	// Each pass only where its trigger is: this runs on every line read.
	if strings.Contains(t, "](") {
		t = mdLink.ReplaceAllString(t, "$1")
	}
	if strings.ContainsAny(t, `'"`) && strings.ContainsAny(t, `/\`) {
		t = quotedPath.ReplaceAllString(t, "")
	}
	if strings.Contains(t, "://") {
		t = urlPattern.ReplaceAllStringFunc(t, describeURL)
	}
	if strings.Contains(t, "@") {
		t = atFile.ReplaceAllStringFunc(t, func(m string) string {
			sp := m[:len(m)-len(strings.TrimLeft(m, " \t"))]
			return sp + baseName(strings.TrimLeft(m, " \t@"))
		})
	}
	if strings.Count(t, "/") >= 2 {
		t = longPath.ReplaceAllStringFunc(t, func(m string) string {
			i := strings.IndexFunc(m, func(r rune) bool { return !unicode.IsSpace(r) && !strings.ContainsRune(`(["'`, r) })
			return m[:i] + baseName(m[i:])
		})
	}
	if strings.Contains(t, "${") {
		t = templateVar.ReplaceAllString(t, "")
	}
	return collapseSpace(t)
}

// describeURL names what a URL points at in a few words: a GitHub issue or
// pull request as "issue #N" / "PR #N", a repository as owner/repo, any other
// URL as its host.
func describeURL(u string) string {
	trimmed := strings.TrimRight(u, ".,;:!?")
	end := u[len(trimmed):] // sentence punctuation after the URL
	u = trimmed
	if m := githubThing.FindStringSubmatch(u); m != nil {
		switch m[3] {
		case "issues":
			return "issue #" + m[4] + end
		case "pull":
			return "PR #" + m[4] + end
		case "discussions":
			return "discussion #" + m[4] + end
		}
		return m[1] + "/" + strings.TrimSuffix(m[2], ".git") + end
	}
	rest := u[strings.Index(u, "//")+2:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimPrefix(rest, "www.") + end
}

// baseName is the last element of a path ("" stays "").
func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexAny(p, `/\`); i >= 0 && i+1 < len(p) {
		return p[i+1:]
	}
	return p
}

// collapseSpace replaces every run of white space by one space and trims.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
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

// closers are the quotes and brackets that close a sentence after its
// punctuation.
const closers = `"')]*”’»`

// abbreviations end in a period that does not end a sentence (lowercase).
var abbreviations = map[string]bool{
	"e.g.": true, "i.e.": true, "etc.": true, "vs.": true, "approx.": true, "cf.": true, "mr.": true,
	"mrs.": true, "ms.": true, "dr.": true, "st.": true, "no.": true, "fig.": true, "incl.": true,
	"ca.": true, "resp.": true, "viz.": true,
}

// Sentences splits prose into sentences: at ".", "!", "?", "…" (runs of
// them) followed by a space, except after an abbreviation ("e.g.", "etc.")
// or a lone initial; and at every line break. Sentences keep their end
// punctuation and are trimmed; empty ones are dropped. User text is often
// all lowercase, so the next word's case is not required.
func Sentences(s string) []string {
	var out []string
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		start := 0
		for i := 0; i < len(line); {
			r, size := utf8.DecodeRuneInString(line[i:])
			if r != '.' && r != '!' && r != '?' && r != '…' {
				i += size
				continue
			}
			j := i + size
			for j < len(line) {
				r2, s2 := utf8.DecodeRuneInString(line[j:])
				if r2 != '.' && r2 != '!' && r2 != '?' && r2 != '…' {
					break
				}
				j += s2
			}
			// Closing quotes and brackets stay with the sentence.
			for j < len(line) {
				r2, s2 := utf8.DecodeRuneInString(line[j:])
				if !strings.ContainsRune(closers, r2) {
					break
				}
				j += s2
			}
			if j < len(line) && line[j] != ' ' || r == '.' && j == i+1 && notSentenceEnd(line[start:j]) ||
				dashAfter(line[j:]) {
				i = j
				continue
			}
			if t := strings.TrimSpace(line[start:j]); t != "" {
				out = append(out, t)
			}
			start = j
			i = j
		}
		if t := strings.TrimSpace(line[start:]); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// dashAfter reports whether rest goes on with a dash: "Asked “Why?” — because"
// is one sentence.
func dashAfter(rest string) bool {
	rest = strings.TrimLeft(rest, " ")
	return strings.HasPrefix(rest, "— ") || strings.HasPrefix(rest, "– ") || strings.HasPrefix(rest, "- ")
}

// notSentenceEnd reports whether s, which ends with a single period, ends
// with an abbreviation or an initial ("J.") rather than a sentence.
func notSentenceEnd(s string) bool {
	w := s[strings.LastIndexByte(s, ' ')+1:]
	if abbreviations[strings.ToLower(w)] {
		return true
	}
	return utf8.RuneCountInString(w) == 2 && unicode.IsUpper([]rune(w)[0])
}

// breakWords start a new phrase: a cut before one leaves a whole phrase.
var breakWords = map[string]bool{
	"and": true, "or": true, "but": true, "so": true, "because": true, "since": true, "then": true,
	"to": true, "in": true, "on": true, "at": true, "for": true, "from": true, "with": true, "by": true,
	"of": true, "into": true, "about": true, "after": true, "before": true, "while": true, "when": true,
	"where": true, "which": true, "that": true, "if": true, "unless": true, "as": true, "based": true,
	"using": true, "like": true, "without": true, "instead": true, "via": true, "per": true, "than": true,
	"through": true, "across": true, "including": true, "such": true, "i": true, "i'll": true,
	"we": true, "we'll": true, "you": true, "you'll": true, "i'd": true, "we'd": true, "against": true,
	"toward": true, "towards": true, "between": true, "within": true, "onto": true, "over": true,
	"under": true, "around": true, "behind": true, "beyond": true, "along": true, "until": true,
}

// clauseOpeners start a clause that a cut must not split.
var clauseOpeners = map[string]bool{
	"that": true, "which": true, "who": true, "whose": true, "where": true, "because": true, "if": true,
	"when": true, "while": true, "whether": true, "unless": true, "although": true, "since": true,
}

// dangling words cannot end a cut phrase.
var dangling = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "but": true, "to": true, "of": true,
	"in": true, "on": true, "at": true, "for": true, "from": true, "with": true, "by": true, "into": true,
	"is": true, "are": true, "was": true, "be": true, "my": true, "your": true, "our": true, "its": true,
	"their": true, "this": true, "that": true, "these": true, "those": true, "some": true, "any": true,
	"as": true, "if": true, "so": true, "then": true, "than": true, "via": true, "about": true,
	"we": true, "i": true, "you": true, "it": true, "not": true, "no": true, "all": true, "each": true,
	"every": true, "more": true, "less": true, "very": true, "also": true, "just": true, "can": true,
	"should": true, "will": true, "would": true, "could": true, "has": true, "have": true, "had": true,
	"do": true, "does": true, "did": true, "when": true, "where": true, "which": true, "who": true,
	"against": true, "toward": true, "towards": true, "between": true, "within": true, "onto": true,
	"over": true, "under": true, "around": true, "along": true, "until": true, "across": true,
	"what": true, "how": true, "why": true, "based": true, "using": true, "like": true, "per": true,
}

// cutWords shortens a sentence to at most max words. Text that fits is
// returned as is. Otherwise, in order of preference, it ends at the last
// clause end (",", ";", ":", " -", " —") that keeps at least min words, else
// at the last phrase start (see breakWords) that does and does not leave a
// word that cannot end a phrase ("the", "to", "it"), else at max words; such trailing
// words are then dropped, and so is an opening bracket or quote whose close
// was cut, and end punctuation. A cut phrase reads as a phrase: it never ends
// in "…".
func cutWords(s string, max, min int) string {
	words := strings.Fields(s)
	if len(words) <= max {
		return s
	}
	if max < 1 {
		return ""
	}
	if min > max {
		min = max
	}
	if min < 1 {
		min = 1
	}
	ok := func(n int) bool { return !dangling[strings.ToLower(strings.Trim(words[n-1], ",;:"))] }
	best, clause := -1, false
	for n := max; n >= min && best < 0; n-- {
		prev := words[n-1]
		if strings.HasSuffix(prev, ",") || strings.HasSuffix(prev, ";") || strings.HasSuffix(prev, ":") ||
			words[n] == "-" || words[n] == "—" || words[n] == "–" {
			best, clause = n, true
		}
	}
	for n := max; n >= min && best < 0; n-- {
		if breakWords[strings.ToLower(words[n])] && ok(n) {
			best = n
		}
	}
	if best < 0 {
		best = max
	}
	if !clause {
		// Cut before a clause that would be cut short ("add a test that the
		// 6th login attempt" reads better as "add a test").
		for n := best - 1; n >= min; n-- {
			if clauseOpeners[strings.ToLower(words[n])] {
				best = n
				break
			}
		}
	}
	out := balance(words[:best])
	if len(out) < best {
		// A quote or bracket was cut inside: what led into it ("comment with
		// a concise") is left hanging; end at the clause before it instead.
		for n := len(out); n >= min; n-- {
			if w := out[n-1]; strings.HasSuffix(w, ",") || strings.HasSuffix(w, ";") {
				out, clause = out[:n], true
				break
			}
		}
	}
	for !clause && len(out) > 1 && dangling[strings.ToLower(strings.Trim(out[len(out)-1], ",;:"))] {
		out = out[:len(out)-1]
	}
	return strings.TrimRight(strings.Join(out, " "), ",;:-—– ")
}

// balanced is s without an opening bracket or quote whose close is missing
// and the words after it (see balance).
func balanced(s string) string {
	w := strings.Fields(s)
	b := balance(w)
	if len(b) == len(w) {
		return s
	}
	return strings.TrimRight(strings.Join(b, " "), ",;:-—– ")
}

// balance drops the words from an opening bracket or quote whose closing one
// is not among words (a cut inside "(acquired, idle, total)"), unless that
// would leave nothing.
func balance(words []string) []string {
	for _, pair := range []string{"()", "[]", "“”", `""`} {
		o, c := []rune(pair)[0], []rune(pair)[1]
		depth, at := 0, -1
		for i, w := range words {
			for _, r := range w {
				switch {
				case o == c && r == o:
					if depth == 0 {
						depth, at = 1, i
					} else {
						depth = 0
					}
				case r == o:
					if depth == 0 {
						at = i
					}
					depth++
				case r == c && depth > 0:
					depth--
				}
			}
		}
		if depth > 0 && at > 0 {
			words = words[:at]
		}
	}
	return words
}

// cutRunes shortens s to at most max runes: at the last sentence end that
// keeps at least half of max, else at the last clause end or word with "…".
func cutRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max < 1 {
		return ""
	}
	if max == 1 {
		return "…"
	}
	head := s
	n := 0
	for i := range s {
		if n == max-1 {
			head = s[:i]
			break
		}
		n++
	}
	sents := Sentences(head)
	if len(sents) > 1 || len(sents) == 1 && endsSentence(sents[0]) && len(sents[0]) == len(strings.TrimSpace(head)) {
		// Keep the whole sentences that fit (the last may be cut short).
		var kept []string
		total := 0
		for _, st := range sents {
			if !endsSentence(st) {
				break
			}
			total += utf8.RuneCountInString(st) + 1
			kept = append(kept, st)
		}
		if len(kept) > 0 && total >= max/2 {
			return strings.Join(kept, " ")
		}
	}
	for _, sep := range []string{"; ", ", ", " — ", " - ", ": "} {
		if i := strings.LastIndex(head, sep); i > len(head)/2 {
			return strings.TrimRight(head[:i], " ,;:-—") + "…"
		}
	}
	if i := strings.LastIndexByte(head, ' '); i > len(head)/3 {
		head = head[:i]
	}
	return strings.TrimRight(head, " ,;:-—–") + "…"
}

// endsSentence reports whether s ends with sentence punctuation (possibly
// inside closing quotes or brackets).
func endsSentence(s string) bool {
	s = strings.TrimRight(s, closers)
	r, _ := utf8.DecodeLastRuneInString(s)
	return r == '.' || r == '!' || r == '?' || r == '…'
}

// wordCount is the number of white-space separated words of s.
func wordCount(s string) int { return len(strings.Fields(s)) }

// capitalize upper-cases the first letter of s unless the first word looks
// like code or a file name (has a dot, slash, underscore or inner capital).
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsLower(r) || codeLike(firstWord(s)) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// LowerFirst lower-cases the first letter of s, to go on a sentence after a
// dash or a comma, unless its first word is an acronym ("README"), a name
// with inner capitals ("AgentSession"), code, "I", or s is a heading.
func LowerFirst(s string) string { return lowerFirst(s) }

// lowerFirst is LowerFirst.
func lowerFirst(s string) string {
	w := firstWord(s)
	r, n := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) || codeLike(w) || w == "I" || w == "I've" || w == "I'm" {
		return s
	}
	for _, c := range w[n:] {
		if unicode.IsUpper(c) {
			return s // README, CHANGELOG, HTML, AgentSession
		}
	}
	if titleCase(s) {
		return s // "SessionManager API Cleanup", a heading
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// titleCase reports whether most words of s (three or more, small words
// aside) start with a capital: a heading, not a sentence.
func titleCase(s string) bool {
	caps, words := 0, 0
	for _, w := range strings.Fields(s) {
		if dangling[strings.ToLower(w)] {
			continue
		}
		words++
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			caps++
		}
	}
	return caps >= 3 && caps*3 >= words*2
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i]
	}
	return s
}

// codeLike reports whether a word is an identifier or file name rather than
// an English word: it holds a dot between letters, a slash, an underscore,
// parentheses or a capital after its first letter.
func codeLike(w string) bool {
	w = strings.TrimRight(w, ".,;:!?")
	if strings.ContainsAny(w, "/_()#@=<>{}[]") {
		return true
	}
	if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 {
		return true
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// endSentence ends s with a period unless it already ends a sentence.
func endSentence(s string) string {
	s = strings.TrimRight(s, " ,;:-—–")
	if s == "" || endsSentence(s) {
		return s
	}
	return s + "."
}

// joinList joins items as English: "a", "a and b", "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
