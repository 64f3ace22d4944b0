package summary

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"rhizome/backend/segment"
)

var source = ModelSource("anthropic", "claude-haiku-4-5")

func TestParseReply(t *testing.T) {
	seg := Prompt{Kind: KindSegment, InputHash: "h-seg"}
	sess := Prompt{Kind: KindSession, InputHash: "h-sess"}
	node := Prompt{Kind: KindLoomNode, InputHash: "h-node"}
	for _, tc := range []struct {
		name         string
		p            Prompt
		reply        string
		title, label string
		text         string
	}{
		{"segment", seg, "Summary: Reviewed pi's docs against the source and fixed hooks.md and skills.md.\nLabel: Docs review against source",
			"", "Docs review against source", "Reviewed pi's docs against the source and fixed hooks.md and skills.md."},
		{"bold keys, list markers, quotes", seg, "- **Summary:** \"Added rate limiting to POST /api/login with express-rate-limit.\"\n- **Label:** Login rate limiting",
			"", "Login rate limiting", "Added rate limiting to POST /api/login with express-rate-limit."},
		{"code fence, summary over two lines", seg, "```\nSummary: Migrated internal/store to pgx v5\nwithout changing the Store interface.\nLabel: pgx migration\n```",
			"", "Pgx migration", "Migrated internal/store to pgx v5 without changing the Store interface."},
		{"label missing: made from the text", seg, "Summary: Fixed the flaky login tests by resetting the limiter between tests.",
			"", "Fixed the flaky login tests", "Fixed the flaky login tests by resetting the limiter between tests."},
		{"label too long: cut", seg, "Summary: Wrote a poem.\nLabel: A very long label that goes on for many words",
			"", "A long label", "Wrote a poem."},
		{"session", sess, "Title: Documentation review of pi's coding agent\nSummary: The user had the agent check every doc against the source. Skills, hooks and theme docs were fixed. It ended with a commit.",
			"Documentation review of pi's coding agent", "Documentation review of pi's coding agent",
			"The user had the agent check every doc against the source. Skills, hooks and theme docs were fixed. It ended with a commit."},
		{"loom node: the bare sentence", node, "The keeper caught her first storm at nine with a shrimping net.",
			"", "The keeper caught her first storm", "The keeper caught her first storm at nine with a shrimping net."},
		{"slightly overlong: cut at a phrase", node, "The keeper, who had lived alone on the rock for forty years, caught her very first storm when she was only nine years old, using nothing but a small shrimping net and luck.",
			"", "The keeper, who had lived alone", "The keeper, who had lived alone on the rock for forty years, caught her very first storm when she was only nine years old."},
	} {
		s, err := ParseReply(tc.p, tc.reply, source, madeAt)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s.Title != tc.title || s.Label != tc.label || s.Text != tc.text {
			t.Errorf("%s:\n got title %q label %q text %q\nwant title %q label %q text %q", tc.name, s.Title, s.Label, s.Text, tc.title, tc.label, tc.text)
		}
		if s.Kind != tc.p.Kind || s.Source != source || s.InputHash != tc.p.InputHash || !s.MadeAt.Equal(madeAt) {
			t.Errorf("%s: kind/source/hash/time not carried over: %+v", tc.name, s)
		}
	}
}

func TestParseReplyRejects(t *testing.T) {
	seg := Prompt{Kind: KindSegment, InputHash: "h"}
	sess := Prompt{Kind: KindSession, InputHash: "h"}
	for _, tc := range []struct {
		name   string
		p      Prompt
		reply  string
		reason string
	}{
		{"empty", seg, "  \n ", "empty"},
		{"empty fence", seg, "```\n```", "empty"},
		{"empty summary line", seg, "Summary:\nLabel: x", "no summary"},
		{"refusal", seg, "I'm sorry, but I can't summarize this conversation.", "refusal"},
		{"refusal in the field", seg, "Summary: As an AI, I cannot see the session.", "refusal"},
		{"no content", seg, "Summary: There is no message content provided to summarize.", "refusal"},
		{"prompt echoed", seg, "Summary: Summarize this part in ONE sentence (max 30 words).", "prompt echoed"},
		{"overlong", seg, "Summary: " + strings.Repeat("word ", 50), "overlong: 50 words, the limit is 30"},
		{"no title", sess, "Summary: The user fixed the login.", "no title"},
	} {
		_, err := ParseReply(tc.p, tc.reply, source, madeAt)
		var re *ReplyError
		if !errors.As(err, &re) || !errors.Is(err, ErrBadReply) {
			t.Errorf("%s: error %v, want a *ReplyError wrapping ErrBadReply", tc.name, err)
			continue
		}
		if !strings.HasPrefix(re.Reason, tc.reason) || re.Kind != tc.p.Kind {
			t.Errorf("%s: reason %q kind %s, want %q", tc.name, re.Reason, re.Kind, tc.reason)
		}
		if !strings.Contains(err.Error(), "unusable model reply for a "+string(tc.p.Kind)+" summary") {
			t.Errorf("%s: error %q does not say what it is about", tc.name, err)
		}
	}
}

func TestValidateAndHuman(t *testing.T) {
	ok := Summary{Kind: KindSegment, Text: "Fixed the login.", Label: "Login fix", Source: SourceOffline, InputHash: "h", MadeAt: madeAt}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(*Summary)
		want   string
	}{
		{func(s *Summary) { s.Kind = "chapter" }, `unknown kind "chapter"`},
		{func(s *Summary) { s.Text = " " }, "field text is empty"},
		{func(s *Summary) { s.Text = strings.Repeat("w ", 31) }, "field text has 31 words, the limit is 30"},
		{func(s *Summary) { s.Title = "A title" }, "field title must be empty"},
		{func(s *Summary) { s.Label = "" }, "field label is empty"},
		{func(s *Summary) { s.Label = "one two three four five six seven" }, "field label has 7 words"},
		{func(s *Summary) { s.Source = "model:" }, "field source"},
		{func(s *Summary) { s.Source = "gpt" }, "field source"},
		{func(s *Summary) { s.InputHash = "" }, "field inputHash is empty"},
		{func(s *Summary) { s.Text = "bad \xff" }, "not valid UTF-8"},
		{func(s *Summary) { s.MadeAt = time.Time{} }, "field madeAt"},
	} {
		s := ok
		tc.change(&s)
		err := s.Validate()
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want ErrInvalid and %q", err, tc.want)
		}
	}
	sess := Summary{Kind: KindSession, Text: "x", Label: "x", Source: ModelSource("openai", "gpt-4o-mini"), InputHash: "h", MadeAt: madeAt}
	if err := sess.Validate(); err == nil || !strings.Contains(err.Error(), "field title is empty") {
		t.Errorf("a session summary without a title: %v", err)
	}

	h, err := Human(KindSession, "  Login rate limiting  ", "Added a limiter to POST /api/login. Tests pass.", "", "h", madeAt)
	if err != nil {
		t.Fatal(err)
	}
	if h.Source != SourceHuman || h.Title != "Login rate limiting" || h.Label != "Login rate limiting" {
		t.Errorf("Human = %+v", h)
	}
	if _, err := Human(KindSegment, "", strings.Repeat("word ", 40), "", "h", madeAt); err == nil {
		t.Error("Human accepted a 40-word segment sentence")
	}
}

// TestPromptBounded: however long the session and its messages, a prompt
// stays within maxPromptRunes (plus its fixed instructions), says how many
// requests it leaves out, and marks cut texts.
func TestPromptBounded(t *testing.T) {
	a := NewAccumulator()
	long := strings.Repeat("please refactor the parser so that every token keeps its position ", 250) // ~16 KB
	for i := range 3000 {
		e := synthetic(i)
		if i%3 == 0 {
			e.Message.Content[0].Text = long
		}
		a.Add(e)
	}
	for _, p := range []Prompt{a.SessionPrompt(PromptContext{Project: "/srv/app"}, "s"),
		a.SegmentPrompt(PromptContext{Project: "/srv/app", SessionTitle: "Parser"}, "s", segment.Segment{EntryCount: 3000})} {
		if n := utf8.RuneCountInString(p.User); n > maxPromptRunes+1000 {
			t.Errorf("%s prompt has %d runes", p.Kind, n)
		}
		if !strings.Contains(p.User, "(14 of 1000 shown") || !strings.Contains(p.User, "[… 986 more requests not shown]") ||
			!strings.Contains(p.User, " […]") {
			t.Errorf("%s prompt does not say what it left out:\n%s", p.Kind, p.User[:600])
		}
	}
}
