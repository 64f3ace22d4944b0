package summary

import (
	"regexp"
	"strings"
)

// Digest is what a pi compaction or branch summary says, read from its
// markdown. pi's summaries are model-written summaries of the entries before
// them, in loosely fixed sections: current pi writes "## Goal", "##
// Constraints & Preferences", "## Progress" ("### Done", "### In Progress"),
// "## Key Decisions", "## Next Steps", "## Critical Context"; older versions
// and compaction hooks write "# Context Checkpoint: <title>", "## Current
// Progress", "### Completed", "## Remaining Work", "## Key Goals and
// Objectives" and the like. A branch summary may open with a sentence of
// prose ("The user explored …").
type Digest struct {
	// Title is the specific part of the first heading ("Documentation Review
	// & Update" of "# Context Checkpoint: Documentation Review & Update"),
	// "" when the heading is generic ("# Context Checkpoint Summary").
	Title string `json:"title,omitempty"`
	// Goal is the goal or objective, one sentence, its lead-in ("The primary
	// objective of this session was to") removed.
	Goal string `json:"goal,omitempty"`
	// Lead is the first sentence of prose before any heading, unless it is
	// pi's generic preamble.
	Lead string `json:"lead,omitempty"`
	// Done are the completed items, as short phrases ("system-prompt.ts",
	// "allow startup without API keys (#288)"), at most maxDigestItems.
	Done []string `json:"done,omitempty"`
	// Next are the remaining items and next steps, at most maxDigestItems.
	Next []string `json:"next,omitempty"`
	// Modified are the files the summary lists as modified (pi's
	// <modified-files> block), at most maxDigestItems.
	Modified []string `json:"modified,omitempty"`
}

// maxDigestItems bounds each list of a Digest.
const maxDigestItems = 12

// Section kinds of a pi summary.
type sectionKind int

const (
	secOther sectionKind = iota
	secGoal
	secDone
	secNext
	secSkip
)

// sectionKinds maps a normalised heading to its kind.
var sectionKinds = map[string]sectionKind{
	"goal": secGoal, "goals": secGoal, "key goals and objectives": secGoal, "objective": secGoal,
	"objectives": secGoal, "original request": secGoal, "current goal": secGoal, "final goal": secGoal,
	"task": secGoal, "current task": secGoal, "user request": secGoal, "user requests": secGoal,
	"current progress": secGoal, "goal and context": secGoal, "purpose": secGoal,
	"overall goal": secGoal, // Gemini CLI's and Qwen Code's state snapshot

	"done": secDone, "completed": secDone, "completed tasks": secDone, "work completed": secDone,
	"progress": secDone, "progress made": secDone, "what was done": secDone, "changes": secDone,
	"changes made": secDone, "key changes": secDone, "session progress": secDone,
	"progress and key decisions": secDone, "accomplished": secDone, "completed work": secDone,
	"accomplishments": secDone, "work done": secDone, "recent actions": secDone,

	"next steps": secNext, "remaining work": secNext, "remaining tasks": secNext, "remaining": secNext,
	"in progress": secNext, "todo": secNext, "to do": secNext, "pending": secNext, "next": secNext,
	"blocked": secNext, "open questions": secNext, "current plan": secNext,

	"constraints & preferences": secSkip, "constraints and preferences": secSkip, "key decisions": secSkip,
	"critical context": secSkip, "user preferences": secSkip, "key patterns established": secSkip,
	"important files": secSkip, "important code changes/files": secSkip, "releases": secSkip,
	"key architecture decisions": secSkip, "project overview": secSkip, "current state": secSkip,
	"turn context (split turn)": secSkip, "context": secSkip, "files": secSkip, "notes": secSkip,
	"decisions": secSkip, "key files": secSkip, "files modified": secSkip, "technical details": secSkip,
}

var (
	headingLine   = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	boldHeading   = regexp.MustCompile(`^\*\*([^*]+?):?\*\*:?$`)
	genericTitle  = regexp.MustCompile(`(?i)^(context\s+checkpoint|conversation\s+summary|session\s+summary|summary|checkpoint|compaction\s+summary|branch\s+summary|handoff|context\s+summary)(\s+summary)?\s*[:\-–—]?\s*`)
	goalLead      = regexp.MustCompile(`(?i)^(the\s+)?(primary\s+|main\s+|overall\s+|key\s+)?(goal|objective|aim|task|purpose)(\s+of\s+(this|the)\s+(session|conversation|work))?\s+(is|was)\s+(to\s+)?`)
	userLead      = regexp.MustCompile(`(?i)^(the\s+)?user\s+(asked|wants|wanted|requested|is trying|was trying|would like)\s+(me\s+|you\s+)?(to\s+)?`)
	summaryLeadIn = regexp.MustCompile(`(?i)^(here is |here's |this is )?(a |the |my )?(summary|recap|handoff( note)?|context summary|conversation summary|session summary)( (of|for) [^:]{1,40})?\s*:\s+`)
	genericLead   = regexp.MustCompile(`(?i)^(the user explored a different conversation branch|summary of that exploration|this (is a |)summary|here is (a|the) summary|the conversation (so far|history))`)
	filesBlock    = regexp.MustCompile(`(?s)<(read-files|modified-files)>(.*?)</(read-files|modified-files)>`)
	issueItem     = regexp.MustCompile(`(?i)^(issue|pr|bug|ticket|pull request)\s+#(\d+)\s*[-–—:]\s*(.+)$`)
	checkboxStart = regexp.MustCompile(`^\[[ xX]\]\s*`)
	xmlOpen       = regexp.MustCompile(`<([a-z][a-z_]{1,40})>`)
	xmlClose      = regexp.MustCompile(`</[a-z][a-z_]{1,40}>`)
)

// xmlSections reads the XML-tagged summaries other agents write as pi's
// markdown sections: Qwen Code's "<state_snapshot><overall_goal>…
// </overall_goal>…", Copilot CLI's "<overview>…</overview>". Each opening
// tag becomes a heading of its name ("## overall goal"), each closing tag
// a line break; a text with neither is returned as it is.
func xmlSections(md string) string {
	if !xmlClose.MatchString(md) {
		return md
	}
	// The tag wrapping the whole summary is no section: its text is.
	if m := xmlOpen.FindStringSubmatchIndex(md); m != nil && strings.TrimSpace(md[:m[0]]) == "" &&
		strings.Contains(md[m[1]:], "</"+md[m[2]:m[3]]+">") {
		md = md[m[1]:]
	}
	md = xmlOpen.ReplaceAllStringFunc(md, func(tag string) string {
		return "\n## " + strings.ReplaceAll(tag[1:len(tag)-1], "_", " ") + "\n"
	})
	return xmlClose.ReplaceAllString(md, "\n")
}

// ParseDigest reads a pi compaction or branch summary. It never fails: text
// it cannot read gives an empty Digest (see Digest.Empty), and only the
// first 16 KB are read.
func ParseDigest(md string) Digest {
	md = capBytes(md, maxInspectBytes)
	var d Digest
	for _, m := range filesBlock.FindAllStringSubmatch(md, -1) {
		if m[1] != "modified-files" {
			continue
		}
		for _, f := range strings.Fields(m[2]) {
			if len(d.Modified) < maxDigestItems {
				d.Modified = append(d.Modified, f)
			}
		}
	}
	md = filesBlock.ReplaceAllString(md, "")
	md = xmlSections(md)

	type level struct {
		depth int
		kind  sectionKind
	}
	var stack []level
	kind := secOther
	sawHeading := false
	itemIndent := -1 // indent of the items that count in the current section
	var goalText []string
	fence := ""
	for line := range strings.Lines(md) {
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
		if t == "" || isRule(t) || t[0] == '|' {
			continue
		}
		depth, head := 0, ""
		if m := headingLine.FindStringSubmatch(t); m != nil {
			depth, head = len(m[1]), m[2]
		} else if m := boldHeading.FindStringSubmatch(t); m != nil {
			depth, head = 7, m[1] // "**Turn Context (split turn):**" is a heading too
		}
		if depth > 0 {
			head = strings.TrimSpace(emphasisMarks.Replace(head))
			if strings.HasPrefix(normHeading(head), "turn context") {
				break // pi's split-turn part: about the turn under way, not the session
			}
			if !sawHeading && depth == 1 && d.Title == "" {
				d.Title = specificTitle(head)
			}
			sawHeading = true
			for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
				stack = stack[:len(stack)-1]
			}
			parent := secOther
			if len(stack) > 0 {
				parent = stack[len(stack)-1].kind
			}
			k, known := sectionKinds[normHeading(head)]
			switch {
			case known:
			case parent == secDone || parent == secNext:
				// A topic heading inside a progress section is itself an item
				// ("### SessionManager API Cleanup"); its list is detail.
				addItem(&d, parent, head)
				k = secSkip
			default:
				k = parent
			}
			stack = append(stack, level{depth, k})
			kind, itemIndent = k, -1
			continue
		}
		body, item := stripListMarker(t)
		switch {
		case !sawHeading && !item:
			// "Summary for the next window: X" says X.
			if d.Lead == "" && !genericLead.MatchString(summaryLeadIn.ReplaceAllString(t, "")) {
				if ss := Sentences(summaryLeadIn.ReplaceAllString(cleanInline(body), "")); len(ss) > 0 {
					d.Lead = capitalize(userLead.ReplaceAllString(ss[0], ""))
				}
			}
		case kind == secGoal:
			if len(goalText) == 0 {
				goalText = append(goalText, body)
			}
		case (kind == secDone || kind == secNext) && item:
			indent := len(line) - len(strings.TrimLeft(line, " \t"))
			if itemIndent < 0 {
				itemIndent = indent
			}
			if indent <= itemIndent {
				addItem(&d, kind, body)
			}
		}
	}
	if len(goalText) > 0 {
		if ss := Sentences(cleanInline(goalText[0])); len(ss) > 0 {
			g := ss[0]
			if goalLead.MatchString(g) {
				g = strings.Replace(goalLead.ReplaceAllString(g, ""), ", and to ", ", and ", 1)
			}
			g = userLead.ReplaceAllString(g, "")
			d.Goal = endSentence(capitalize(strings.TrimSpace(g)))
		}
	}
	return d
}

// Empty reports whether the digest says nothing usable.
func (d Digest) Empty() bool {
	return d.Title == "" && d.Goal == "" && d.Lead == "" && len(d.Done) == 0 && len(d.Next) == 0
}

// normHeading lowercases a heading and drops its numbering and end colon.
func normHeading(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimLeft(h, "0123456789. ")
	return strings.TrimRight(h, ": ")
}

// specificTitle is the specific part of a summary's first heading, "" when
// it is generic.
func specificTitle(h string) string {
	t := strings.TrimSpace(genericTitle.ReplaceAllString(h, ""))
	if _, known := sectionKinds[normHeading(t)]; known || wordCount(t) < 2 {
		return ""
	}
	return cleanInline(t)
}

// addItem adds a progress item to the digest's done or next list.
func addItem(d *Digest, k sectionKind, text string) {
	h := itemHead(text)
	if h == "" {
		return
	}
	switch {
	case k == secDone && len(d.Done) < maxDigestItems:
		d.Done = append(d.Done, h)
	case k == secNext && len(d.Next) < maxDigestItems:
		d.Next = append(d.Next, h)
	}
}

// itemHead is the short name of a list item: its bold part when it opens
// with one, else the part before ": " or " - " when short, else its first
// words; "Issue #288 - Allow startup" becomes "allow startup (#288)".
func itemHead(t string) string {
	t = checkboxStart.ReplaceAllString(strings.TrimSpace(t), "")
	if strings.HasPrefix(t, "**") {
		if end := strings.Index(t[2:], "**"); end > 0 {
			t = t[2 : 2+end]
		}
	}
	t = cleanInline(t)
	for _, sep := range []string{": ", " (", " — ", " – "} {
		if i := strings.Index(t, sep); i > 0 && wordCount(t[:i]) <= 8 {
			t = t[:i]
			break
		}
	}
	if i := strings.Index(t, "; "); i > 0 {
		t = t[:i]
	}
	t = strings.TrimRight(t, " :.;,")
	if m := issueItem.FindStringSubmatch(t); m != nil {
		t = m[3] + " (#" + m[2] + ")"
	}
	return lowerFirst(balanced(cutWords(t, 10, 3)))
}
