package summary

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzText: the text tools never panic on any input, a cut never has more
// words than asked, and valid UTF-8 stays valid.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"ok, i think we need to make the documentation section a bit better",
		"<system-reminder>x</system-reminder>\n```go\nx\n```\nfix https://github.com/a/b/issues/1 in @src/a/b.ts",
		"Done. Updated:\n- **README.md**: x\n- **a.md**: y", "# Context Checkpoint: T\n## Goal\nG.\n### Done\n- [x] a\n**Turn Context (split turn):**",
		"(unclosed \"quote and [bracket", "…!?.", "\xff\xfe", "a\tb\r\nc", "<a <b></c>",
	} {
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = (n%40+40)%40 + 1
		valid := utf8.ValidString(s)
		check := func(what, out string) {
			if valid && !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: not UTF-8", what, s, out)
			}
		}
		check("CleanUserText", CleanUserText(s))
		for _, st := range Sentences(s) {
			check("Sentences", st)
			if strings.TrimSpace(st) == "" {
				t.Fatalf("Sentences(%q) has an empty sentence", s)
			}
		}
		c := cutWords(s, n, min(3, n))
		check("cutWords", c)
		if wordCount(c) > n {
			t.Fatalf("cutWords(%q, %d) = %q: %d words", s, n, c, wordCount(c))
		}
		check("cutRunes", cutRunes(s, n+1))
		if valid && utf8.RuneCountInString(cutRunes(s, n+1)) > n+1 {
			t.Fatalf("cutRunes(%q, %d) too long", s, n+1)
		}
		if r, ok := parseRequest(s); ok {
			check("parseRequest", r.phrase)
			if r.phrase == "" {
				t.Fatalf("parseRequest(%q): a request without a phrase", s)
			}
		}
		o, _ := outcomeOf(s)
		check("outcomeOf", o)
		check("answerOf", answerOf(s))
		d := ParseDigest(s)
		check("ParseDigest", d.Goal+d.Title+d.Lead+strings.Join(d.Done, "")+strings.Join(d.Next, ""))
		check("makeLabel", makeLabel(s))
		if l := makeLabel(s); wordCount(l) > MaxLabelWords {
			t.Fatalf("makeLabel(%q) = %q: over %d words", s, l, MaxLabelWords)
		}
		if ti := makeTitle(s); utf8.RuneCountInString(ti) > MaxTitleRunes {
			t.Fatalf("makeTitle(%q) = %q: over %d runes", s, ti, MaxTitleRunes)
		}
	})
}

// FuzzParseReply: any reply gives a valid summary or a *ReplyError, never a
// panic.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		"Summary: Fixed it.\nLabel: Fix", "Title: T\nSummary: S.", "```\nSummary: x\n```", "I'm sorry, I can't.",
		"**Summary:** \"quoted\"", "Summary:\nLabel:", strings.Repeat("w ", 44),
	} {
		for _, k := range []Kind{KindSegment, KindSession, KindLoomNode, KindLoomTree, KindProject} {
			f.Add(s, string(k))
		}
	}
	f.Fuzz(func(t *testing.T, reply, kind string) {
		p := Prompt{Kind: Kind(kind), InputHash: "h"}
		s, err := ParseReply(p, reply, ModelSource("p", "m"), madeAt)
		if err != nil {
			if _, ok := err.(*ReplyError); !ok {
				t.Fatalf("ParseReply(%q) error %T %v, want *ReplyError", reply, err, err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("ParseReply(%q) = %+v, invalid: %v", reply, s, err)
		}
	})
}
