package summary

import (
	"regexp"
	"strings"
)

// Outcome strengths: how surely a sentence of an assistant reply says what
// was done.
const (
	outcomeNone   = 0
	outcomeChecks = 1 // checks passed ("All checks pass", "Tests pass")
	outcomeState  = 2 // a new state ("README.md now has a Rate limiting section"), or the answer to a question
	outcomeStrong = 3 // a deed ("Added X", "I've fixed Y", "Done: Z", "Released v1.2")
)

// maxOutcomeWords bounds an outcome phrase.
const maxOutcomeWords = 18

// pastVerbs open sentences that report work done.
var pastVerbs = wordSet(`added fixed updated removed changed renamed created implemented replaced moved refactored
released committed pushed merged published converted simplified restored deleted wrote rewrote ported cleaned
documented opened installed tagged bumped shortened standardized standardised clarified extracted made set
switched improved reverted enabled disabled adjusted modified migrated introduced wired exposed split closed
commented resolved corrected reworked restructured reorganized reorganised tightened increased reduced dropped
deduplicated unified consolidated inlined generated built ran verified confirmed reviewed investigated found
identified traced explained answered described drafted planned designed proposed outlined listed copied
configured deployed upgraded downgraded styled aligned formatted linked referenced trimmed expanded extended
exported imported handled ensured allowed prevented kept applied passed undid skipped killed stored cached
guarded wrapped marked sorted filtered grouped limited capped validated sanitized escaped encoded decoded
serialized logged emitted patched bundled shipped uploaded downloaded fetched sent posted started stopped
pinned replied finished completed`)

var (
	doneOpener   = regexp.MustCompile(`(?i)^(all\s+)?(done|fixed|finished|complete|completed)\s*[.!:]+\s*$`)
	doneColon    = regexp.MustCompile(`(?i)^(all\s+)?done\s*(:|—|–|-)\s+`)
	labelPrefix  = regexp.MustCompile(`^(Fix|Solution|Result|Change|Changes|Outcome|Status|Summary|Implementation)\s*:\s+`)
	nowState     = regexp.MustCompile(`(?i)^(\S+\s+){0,5}(is now|are now|has now|have now|now\s+(is|are|has|have|uses|use|shows|show|comes|come|returns|return|works|work|gets|get|lives|live|reads|read|takes|take|handles|handle|supports|support|includes|include|points|point|matches|match|runs|run|writes|write|sets|set|falls|fall|checks|check|passes|pass|calls|call|loads|load|renders|render|displays|display|respects|respect|defaults|default|accepts|accept|throws|throw|lists|list|explains|explain))\b`)
	checksPass   = regexp.MustCompile(`(?i)^((all|the) )?(\d+ )?([\w-]+ )?(tests?|checks?|specs?|build|type ?checks?|lint(ing)?)( all)? (pass|passes|passed|succeed|succeeds|succeeded|are green|is green|still pass)|^everything (works|passes|builds)`)
	notAnswer    = regexp.MustCompile(`(?i)^(let me|i'?ll|i will|i'?m going|looking|checking|let'?s|first,? (let|i)|good question|great question|sure|okay|ok)\b`)
	fillerOpener = regexp.MustCompile(`(?i)^((good|great|excellent|nice) (catch|question|idea|point|call)|you'?re (absolutely |totally |completely )?right|got it|all set|of course|perfect|great|excellent|good|ok(ay)?|alright|awesome|nice|right|yes|sure|understood|absolutely|certainly)\b[.!,:]*\s*`)
	iveOpener    = regexp.MustCompile(`(?i)^(i'?ve|i have|i)\s+(now\s+|also\s+|just\s+)?`)
	summaryLead  = regexp.MustCompile(`(?i)^(here'?s|here is)?\s*(a )?(summary|what i (did|changed|updated|fixed)|changes( made)?|key changes)\b`)
)

// dropFiller removes the filler a sentence opens with, however much of it
// there is ("Yes, good catch." is all filler).
func dropFiller(s string) string {
	for {
		t := fillerOpener.ReplaceAllString(s, "")
		if t == s {
			return s
		}
		s = t
	}
}

// outcomeOf finds the sentence of an assistant reply that says what was
// done, rewritten as a phrase: "Done." and opening filler ("Perfect!") are
// skipped, "I've added X" becomes "added X", and a sentence ending in ":"
// before a list ("Updated:", "Here's what I changed:") becomes the list's
// heads ("updated README.md and skills.md"). It returns "" and outcomeNone
// when no sentence reports work.
func outcomeOf(reply string) (string, int) {
	lines := replyLines(reply)
	weak, weakStrength := "", outcomeNone
	for i, line := range lines {
		if line.item {
			continue
		}
		sents := Sentences(line.text)
		for j, s := range sents {
			s = dropFiller(s)
			s = labelPrefix.ReplaceAllString(s, "")
			if s == "" || doneOpener.MatchString(s) {
				continue
			}
			if m := doneColon.FindString(s); m != "" && len(s) > len(m) {
				return outcomePhrase(s[len(m):]), outcomeStrong
			}
			if strings.HasSuffix(s, ":") && j == len(sents)-1 {
				if heads := listHeads(lines[i+1:]); len(heads) > 0 {
					lead := iveOpener.ReplaceAllString(strings.TrimSuffix(s, ":"), "")
					w := strings.ToLower(firstWord(lead))
					switch {
					case pastVerbs[w]:
						return lowerFirst(cutWords(lead+" "+joinList(heads), maxOutcomeWords, 4)), outcomeStrong
					case summaryLead.MatchString(lead):
						return listOutcome(lead, heads), outcomeStrong
					}
				}
				continue
			}
			if strings.HasSuffix(s, "?") {
				continue
			}
			p := iveOpener.ReplaceAllString(s, "")
			w := strings.ToLower(strings.Trim(firstWord(p), ",.:;!"))
			switch {
			case pastVerbs[w] && (p != s || w != "set" && w != "made") && !vacuous(p):
				return outcomePhrase(p), outcomeStrong
			case weakStrength < outcomeState && nowState.MatchString(s) && !notAnswer.MatchString(s):
				weak, weakStrength = outcomePhrase(s), outcomeState
			case weakStrength < outcomeChecks && checksPass.MatchString(s):
				weak, weakStrength = outcomePhrase(s), outcomeChecks
			}
		}
	}
	return weak, weakStrength
}

// vagueWords are the words of a deed that names nothing ("Found it!",
// "Fixed that too.").
var vagueWords = wordSet(`it that this them these those so now too as well also here there again all everything`)

// vacuous reports whether a sentence reporting a deed names nothing after
// its verb: "Found it!", "Fixed that too." say nothing a reader can use;
// a bare "Committed." does, after the request it answers.
func vacuous(s string) bool {
	words := strings.Fields(s)
	if len(words) < 2 {
		return false // "Committed." answers "commit it"
	}
	for _, w := range words[1:] {
		if !vagueWords[strings.ToLower(strings.Trim(w, ",.:;!?"))] {
			return false
		}
	}
	return true
}

var leadTarget = regexp.MustCompile(`(?i)\b(to|in|of)\s+(\S+)$`)

// listOutcome writes the list of changes after a lead such as "Changes to
// custom-tools.md:": when the items start with the same verb ("Added X",
// "Added Y"), "added X, Y and more in custom-tools.md"; else "changed" and
// the items.
func listOutcome(lead string, heads []string) string {
	target := ""
	if m := leadTarget.FindStringSubmatch(lead); m != nil && codeLike(m[2]) {
		target = " in " + m[2]
	}
	verb := strings.ToLower(firstWord(heads[0]))
	if !pastVerbs[verb] {
		return "changed " + joinList(heads) + target
	}
	var objs []string
	for _, h := range heads {
		if h == "more" {
			objs = append(objs, h)
			continue
		}
		if strings.ToLower(firstWord(h)) != verb {
			return cutWords(joinList(heads), maxOutcomeWords, 4) + target
		}
		objs = append(objs, nounPhrase(strings.TrimSpace(h[len(verb):])))
	}
	return verb + " " + joinList(objs) + target
}

// nounPhrase is the first phrase of an object: up to its first phrase start
// or participle ("intro explaining what …" gives "intro").
func nounPhrase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		lw := strings.ToLower(w)
		if i > 0 && (breakWords[lw] || strings.HasSuffix(lw, "ing") && len(lw) > 5) {
			return strings.Join(words[:i], " ")
		}
	}
	return s
}

// answerOf is the answer a reply gives to a question: its first sentence of
// prose, when it answers rather than announces work ("Let me check …") and
// has at most 30 words; "" otherwise.
func answerOf(reply string) string {
	lines := replyLines(reply)
	for _, l := range lines[:min(3, len(lines))] {
		for _, s := range Sentences(l.text) {
			s = dropFiller(s)
			if s == "" || doneOpener.MatchString(s) {
				continue
			}
			if notAnswer.MatchString(s) || strings.HasSuffix(s, "?") || strings.HasSuffix(s, ":") ||
				wordCount(s) > MaxSentenceWords {
				return ""
			}
			return strings.TrimRight(s, " .!")
		}
	}
	return ""
}

// outcomePhrase is a reported sentence as a phrase: first letter lowered,
// end punctuation gone, at most maxOutcomeWords words.
func outcomePhrase(s string) string {
	s = strings.TrimRight(cutWords(s, maxOutcomeWords, 5), " .!")
	return lowerFirst(s)
}

// replyLine is one line of prose of a reply; item marks a list item.
type replyLine struct {
	text   string
	item   bool
	indent int // leading white space of an item, in bytes
}

// replyLines turns a markdown reply into lines of prose: fenced code, table
// rows, rules and headings are dropped; list markers, emphasis, backticks
// and links are stripped, and list items are marked.
func replyLines(s string) []replyLine {
	s = capBytes(s, maxInspectBytes)
	var out []replyLine
	fence := ""
	for line := range strings.Lines(s) {
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
		if t == "" || t[0] == '|' || t[0] == '#' || isRule(t) {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		body, item := stripListMarker(strings.TrimLeft(t, "> "))
		body = cleanInline(body)
		if body == "" {
			continue
		}
		out = append(out, replyLine{text: body, item: item, indent: indent})
	}
	return out
}

// listHeads returns the heads of the list items at the start of lines:
// those of the outermost level, at most three and then "more". A head is the
// part before ": " or " - " when that is short (the bold name of
// "**README.md**: shortened …"), else the item's first words.
func listHeads(lines []replyLine) []string {
	var heads []string
	n, level := 0, -1
	for _, l := range lines {
		if !l.item {
			break
		}
		if level < 0 {
			level = l.indent
		}
		if l.indent > level {
			continue
		}
		n++
		if len(heads) == 3 {
			continue
		}
		h := l.text
		for _, sep := range []string{": ", " - ", " — ", " – ", " ("} {
			if i := strings.Index(h, sep); i > 0 && wordCount(h[:i]) <= 5 {
				h = h[:i]
				break
			}
		}
		h = strings.TrimRight(balanced(cutWords(h, 6, 2)), " .:;")
		if h != "" {
			heads = append(heads, lowerFirst(h))
		}
	}
	if n > len(heads) && len(heads) > 0 {
		heads = append(heads, "more")
	}
	return heads
}

// stripListMarker removes a markdown list marker ("- ", "* ", "+ ", "1. ",
// "2) ", "- [x] ") from a trimmed line and reports whether there was one.
func stripListMarker(t string) (string, bool) {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		t = strings.TrimSpace(t[2:])
		for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
			t = strings.TrimPrefix(t, box)
		}
		return t, true
	}
	i := 0
	for i < len(t) && i < 4 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' ' {
		return strings.TrimSpace(t[i+2:]), true
	}
	return t, false
}

// isRule reports whether a markdown line is a horizontal rule.
func isRule(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "-*_= ") == ""
}
