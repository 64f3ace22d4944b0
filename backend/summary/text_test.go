package summary

import (
	"slices"
	"strings"
	"testing"
)

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"ok, fix it. then run the tests", []string{"ok, fix it.", "then run the tests"}},
		{"What? Really! yes…  and then", []string{"What?", "Really!", "yes…", "and then"}},
		{"Use e.g. theme.md, i.e. the docs. Next one", []string{"Use e.g. theme.md, i.e. the docs.", "Next one"}},
		{"Bump to v1.2.3 now. Done", []string{"Bump to v1.2.3 now.", "Done"}},
		{"edit theme.md and skills.md.", []string{"edit theme.md and skills.md."}},
		{`He said "stop." Then he left.`, []string{`He said "stop."`, "Then he left."}},
		{"J. R. R. Tolkien wrote it. Read it", []string{"J. R. R. Tolkien wrote it.", "Read it"}},
		{"first line\n\nsecond line. third", []string{"first line", "second line.", "third"}},
		{"wait... what?! ok", []string{"wait...", "what?!", "ok"}},
		{"(see the docs.) Then fix", []string{"(see the docs.)", "Then fix"}},
		{"It opens with “Once upon a time.” Then more", []string{"It opens with “Once upon a time.”", "Then more"}},
		{"Asked “Why?” — because. Next", []string{"Asked “Why?” — because.", "Next"}},
		{"  ", nil},
	} {
		if got := Sentences(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCutWords(t *testing.T) {
	for _, tc := range []struct {
		in       string
		max, min int
		want     string
	}{
		// Fits: unchanged, punctuation and all.
		{"Add rate limiting to login.", 6, 3, "Add rate limiting to login."},
		// A clause end wins over a phrase start.
		{"Commit and push, comment with a concise thanks on the issue", 6, 3, "Commit and push"},
		// Else the last phrase start that leaves a whole phrase.
		{"Port over user-message-selector.ts based on the patterns you find", 6, 3, "Port over user-message-selector.ts"},
		{"Add syntax highlighting to HTML export in the dark theme", 6, 3, "Add syntax highlighting to HTML export"},
		// A phrase start after a word that cannot end a phrase is passed over.
		{"create a custom light theme i'll edit it in code", 8, 3, "create a custom light theme"},
		// No boundary: cut at max, trailing "the", "to" … dropped.
		{"make the documentation section of the readme much better", 6, 3, "make the documentation section"},
		// A bracket whose close was cut goes, with what follows it.
		{"Expose pool stats (acquired, idle, total) on vars and metrics", 4, 2, "Expose pool stats"},
		{`Add a "Bash Mode" section and a "Thinking Level" one to theme.md`, 7, 3, `Add a "Bash Mode" section`},
		// A quote cut inside goes, and the clause it ended with: the clause
		// before it stays (compact-with-images.jsonl's "commit and push, …").
		{`commit and push, comment with a concise "Thanks for reporting, fixed in the next release"`, 10, 3, "commit and push"},
		// A colon ends a clause even after "does".
		{"What release.sh does: it runs npm version and publishes", 6, 3, "What release.sh does"},
	} {
		got := cutWords(tc.in, tc.max, tc.min)
		if got != tc.want {
			t.Errorf("cutWords(%q, %d, %d) = %q, want %q", tc.in, tc.max, tc.min, got, tc.want)
		}
		if n := wordCount(got); n > tc.max {
			t.Errorf("cutWords(%q) has %d words, max %d", tc.in, n, tc.max)
		}
		if strings.HasSuffix(got, "…") {
			t.Errorf("cutWords(%q) = %q ends in an ellipsis", tc.in, got)
		}
	}
}

func TestCutRunes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Short enough.", 40, "Short enough."},
		{"First sentence is here. Second sentence is much longer than the room left for it.", 40, "First sentence is here."},
		{"one long clause without an end, then another clause that goes on and on", 40, "one long clause without an end…"},
		{"averyveryverylongwordwithoutanyspaceinit", 10, "averyvery…"},
	} {
		if got := cutRunes(tc.in, tc.max); got != tc.want {
			t.Errorf("cutRunes(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestCleanUserText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "fix the  login\tbug", "fix the login bug"},
		{"system reminder", "<system-reminder>\nYou are in plan mode.\n</system-reminder>\nadd tests for it", "add tests for it"},
		{"slash command wrapper", "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>the auth module</command-args>",
			"the auth module"},
		{"local command output", "<local-command-stdout>Total cost: $0.12</local-command-stdout>", ""},
		{"file dump", "look at this <file path=\"a.go\">package a\nfunc A() {}</file> and simplify it", "look at this\nand simplify it"},
		{"inline tag kept", "make the <b>title</b> bold", "make the title bold"},
		{"fenced code", "this fails:\n```go\nx := 1\n```\nwhy?", "this fails:\nwhy?"},
		{"unclosed fence", "run this\n```\nnpm test\nmore", "run this"},
		{"indented code", "fix:\n    if err != nil {\n        return\n    }\nplease", "fix:\nplease"},
		{"stack trace", "Error: Invalid hex color: #000cc\n    at hexToRgb (/src/theme.ts:148:9)\nat bgAnsi (/src/theme.ts:160:3)\ninvalid themes must never explode",
			"invalid themes must never explode"},
		{"table and heading", "## Available Imports\n| Package | Purpose |\n|---|---|\n| a | b |\nis this true for hooks as well?", "is this true for hooks as well?"},
		{"quote", "> the docs say X\nthat is wrong", "that is wrong"},
		{"shell and log", "➜ pi-mono git:(main) npx tsx cli.ts\n2025-11-21T01:27:52Z [theme] loaded\nwtf", "wtf"},
		{"box drawing", "│ Custom tool │ Additional tool │\n─────────\nmake it like that", "make it like that"},
		{"diff hunk", "+314 - Tips for creating harmonious themes\n\nkill this", "kill this"},
		{"github issue", "https://github.com/badlogic/pi-mono/issues/288", "issue #288"},
		{"github PR and repo", "merge https://github.com/badlogic/pi-mono/pull/299 and clone https://github.com/anthropics/skills.",
			"merge PR #299 and clone anthropics/skills."},
		{"other url", "read https://docs.example.com/guide/intro?x=1 first", "read docs.example.com first"},
		{"at-file", "like we do in @packages/coding-agent/src/modes/tool-execution.ts for the read tool", "like we do in tool-execution.ts for the read tool"},
		{"long path", "read packages/coding-agent/docs/theme.md in full", "read theme.md in full"},
		{"short path kept", "document it in docs/pgx.md", "document it in docs/pgx.md"},
		{"path inside a word", "copy it to the .pi/agent/themes folder and (see /etc/app/conf.d)", "copy it to the .pi/agent/themes folder and (see conf.d)"},
		{"screenshot path", "'/var/folders/49/T/Screenshot 2025-11-21 at 01.27.21.png'\n\nwhy do the colors differ?", "why do the colors differ?"},
		{"markdown", "make **this** `bold` and see [the docs](https://x.dev/a)", "make this bold and see the docs"},
		{"template var", "Your documentation is here ${readmePath}", "Your documentation is here"},
		{"only paste", "```\nnpm ERR! code 1\n```\n    at x (y.js:1:2)", ""},
	} {
		if got := CleanUserText(tc.in); got != tc.want {
			t.Errorf("%s: CleanUserText(%q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		in     string
		phrase string
		verb   bool
		min    int // lowest acceptable score
		max    int // highest acceptable score
	}{
		{"ok, i think we need to make the documentation section a bit better", "Make the documentation section a bit better", true, 4, 4},
		{"can you add a changelog entry for this?", "Add a changelog entry for this", true, 4, 4},
		{"Please add tests for the parser.", "Add tests for the parser", true, 3, 3},
		{"do you know how to create a custom tool?", "How to create a custom tool?", false, 1, 1},
		{"read the docs in full, then theme.ts. we still need to port over user-message-selector.ts",
			"Port over user-message-selector.ts", true, 4, 4},
		{"https://github.com/badlogic/pi-mono/issues/288", "Issue #288", false, 2, 2},
		{"kill this", "Kill this", true, -10, -1},
		// Swearing is toned down, and weighs against the sentence.
		{"you fucked that up. read the full fucking file", "Read the full file", true, 0, 0},
		{"it would also be nice to display compaction events as expandable blocks", "Display compaction events as expandable blocks", true, 4, 4},
		{"ok, create a custom light theme i'll edit it in code", "Create a custom light theme", true, 3, 3},
		{"well, i think we need to use findModel, so we also get custom models, no?", "Use findModel, so we also get custom models", true, 4, 4},
		{"the thinking border shit is broken", "The thinking border stuff is broken", false, -10, 0},
		// A request to sum up the conversation is not a task (Codex's
		// rollouts ask one before their compaction).
		{"Summarise everything we did so far in great detail.", "Summarise everything we did so far in great detail", false, -1, -1},
		{"can you recap what we discussed?", "Recap what we discussed", false, -1, -1},
		{"What have we done so far?", "What have we done so far?", false, -1, -1},
		{"Summarize the changes to the parser.", "Summarize the changes to the parser", true, 3, 3},
		{"What does the session file look like?", "What does the session file look like?", false, 1, 1},
		{"Count the lines of main.py.", "Count the lines of main.py", true, 2, 2},
	} {
		r, ok := parseRequest(tc.in)
		if !ok {
			t.Errorf("parseRequest(%q): not a request", tc.in)
			continue
		}
		if r.phrase != tc.phrase || r.verb != tc.verb || r.score < tc.min || r.score > tc.max {
			t.Errorf("parseRequest(%q) = %q (verb %v, score %d), want %q (verb %v, score %d..%d)",
				tc.in, r.phrase, r.verb, r.score, tc.phrase, tc.verb, tc.min, tc.max)
		}
	}
	for _, in := range []string{"/mode", "/theme dark", "ok", "continue", "sounds good, do it", "Yes please!",
		"```\nconst x = 1\n```", "   "} {
		if r, ok := parseRequest(in); ok {
			t.Errorf("parseRequest(%q) = %+v, want no request", in, r)
		}
	}
	// A pasted absolute path is not a slash command.
	if _, ok := parseRequest("/var/log/app.log shows the crash, fix it"); !ok {
		t.Error("a message starting with a path was taken for a slash command")
	}
}

func TestOutcomeOf(t *testing.T) {
	for _, tc := range []struct {
		reply    string
		want     string
		strength int
	}{
		{"Done. Added `previousSummary` to the `before_compact` hook event.", "added previousSummary to the before_compact hook event", outcomeStrong},
		{"Perfect! I've ported the `user-message-selector.ts` to match the other selectors.", "ported the user-message-selector.ts to match the other selectors", outcomeStrong},
		{"Done. Updated:\n- **README.md**: Shortened skills section\n- **skills.md**: Added skill repositories section\n\nReady for hooks.md?",
			"updated README.md and skills.md", outcomeStrong},
		{"Done. Changes to custom-tools.md:\n- Added intro explaining what custom tools are\n- Added example use cases\n- Added comparison table\n- Added link to examples",
			"added intro, example use cases, comparison table and more in custom-tools.md", outcomeStrong},
		{"Done: the limiter is reset before each test.", "the limiter is reset before each test", outcomeStrong},
		{"The fix is complete.\n\n**Fix**: Modified `packages/coding-agent/src/core/sdk.ts` to not throw.", "modified sdk.ts to not throw", outcomeStrong},
		{"Committed, pushed, and commented on the issue.", "committed, pushed, and commented on the issue", outcomeStrong},
		{"README.md now has a Rate limiting section.", "README.md now has a Rate limiting section", outcomeState},
		{"All checks pass. Let me know what is next.", "all checks pass", outcomeChecks},
		{"Now I understand the full picture. The system prompt says:", "", outcomeNone},
		{"Let me check the docs:\n```\ncat README.md\n```", "", outcomeNone},
		{"Should I fix the type in the agent package?", "", outcomeNone},
		// large-session.jsonl: a discovery that says nothing about what was done.
		{"Found it! Look at the constructor:\n\n```typescript\nthis.contentText = new Text(\n```", "", outcomeNone},
		{"Fixed it. Removed the stale cache entry from the loader.", "removed the stale cache entry from the loader", outcomeStrong},
		{"Done that.", "", outcomeNone},
	} {
		got, s := outcomeOf(tc.reply)
		if got != tc.want || s != tc.strength {
			t.Errorf("outcomeOf(%q)\n got %q (%d)\nwant %q (%d)", tc.reply, got, s, tc.want, tc.strength)
		}
	}
	for reply, want := range map[string]string{
		"It bumps the version (npm version <arg>), pushes the commit and tag, then publishes to npm.": "It bumps the version (npm version <arg>), pushes the commit and tag, then publishes to npm",
		"Good question. Let me check where it's populated:":                                           "",
		"You're right, it should probably be `ToolResultMessage[]`. The type comes from the agent.":   "it should probably be ToolResultMessage[]",
		"Done.": "",
		// session-with-compaction.jsonl, line 300: filler after filler is no answer.
		"Yes, good catch. Let me add it:": "",
	} {
		if got := answerOf(reply); got != want {
			t.Errorf("answerOf(%q) = %q, want %q", reply, got, want)
		}
	}
}

func TestParseDigest(t *testing.T) {
	// Current pi's format (segment/testdata/v3, written by pi's SessionManager).
	d := ParseDigest("## Goal\nMigrate internal/store from database/sql + lib/pq to pgx v5 without changing the Store interface.\n\n" +
		"## Progress\n### Done\n- [x] Store uses *pgxpool.Pool; pq.Array replaced by plain slices\n- [x] lib/pq removed from go.mod/go.sum\n\n" +
		"### In Progress\n- [ ] Pool metrics\n\n## Key Decisions\n- **pgxpool**: one pool per process\n\n" +
		"<read-files>\ninternal/store/store.go\n</read-files>\n<modified-files>\ninternal/store/store.go\ngo.mod\n</modified-files>")
	want := Digest{
		Goal:     "Migrate internal/store from database/sql + lib/pq to pgx v5 without changing the Store interface.",
		Done:     []string{"store uses *pgxpool.Pool", "lib/pq removed from go.mod/go.sum"},
		Next:     []string{"pool metrics"},
		Modified: []string{"internal/store/store.go", "go.mod"},
	}
	checkDigest(t, "pi v3", d, want)

	// An older checkpoint: a specific title, "Current Progress" prose as the
	// goal, numbered bold items, and a split-turn part that is left out.
	d = ParseDigest("# Context Checkpoint: Documentation Review & Update\n\n## Current Progress\n\n" +
		"Reviewing and updating pi-coding-agent documentation to ensure it matches the source.\n\n### Completed\n\n" +
		"1. **system-prompt.ts** (`/Users/x/system-prompt.ts`)\n   - Updated documentation section\n" +
		"2. **Issue #288 - Allow startup without API keys**\n   - Modified sdk.ts\n\n## Remaining Work\n\n1. **rpc.md**\n\n---\n\n" +
		"**Turn Context (split turn):**\n\n## Context Checkpoint Summary\n\n### Original Request\nUser asked to review custom-tools.md\n")
	want = Digest{
		Title: "Documentation Review & Update",
		Goal:  "Reviewing and updating pi-coding-agent documentation to ensure it matches the source.",
		Done:  []string{"system-prompt.ts", "allow startup without API keys (#288)"},
		Next:  []string{"rpc.md"},
	}
	checkDigest(t, "checkpoint", d, want)

	// Topic headings inside a progress section are its items; a generic
	// title is no title; the goal's lead-in goes.
	d = ParseDigest("# Conversation Summary\n\n## Key Goals and Objectives\nThe primary objective of this session was to refine the compaction docs, and to perform a cleanup.\n\n" +
		"## Progress and Key Decisions\n\n### SessionManager API Cleanup\n1. **Renamed** x\n\n### findModel Function Improvement\n- y\n")
	want = Digest{
		Goal: "Refine the compaction docs, and perform a cleanup.",
		Done: []string{"SessionManager API Cleanup", "findModel Function Improvement"},
	}
	checkDigest(t, "conversation summary", d, want)

	// A branch summary of prose only, and pi's generic preamble.
	d = ParseDigest("The user asked what scripts/release.sh does: it runs npm version, pushes with tags and publishes.")
	checkDigest(t, "prose", d, Digest{Lead: "What scripts/release.sh does: it runs npm version, pushes with tags and publishes."})
	// A lead-in naming the summary goes (Codex's compactions, other agents).
	d = ParseDigest("Summary for the next window: main.py counts a ledger total and now prints a label.")
	checkDigest(t, "lead-in", d, Digest{Lead: "main.py counts a ledger total and now prints a label."})
	d = ParseDigest("Here is a summary of our work: the parser now keeps unknown fields.")
	checkDigest(t, "lead-in", d, Digest{Lead: "The parser now keeps unknown fields."})
	d = ParseDigest("Summary of changes to the parser. It keeps unknown fields.")
	checkDigest(t, "no lead-in", d, Digest{Lead: "Summary of changes to the parser."})
	d = ParseDigest("The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\nTry SQLite.")
	checkDigest(t, "preamble", d, Digest{Goal: "Try SQLite."})

	if d := ParseDigest("just some words without structure or end"); d.Empty() {
		t.Error("a prose digest is not empty")
	}
	if d := ParseDigest("## Key Decisions\n- x\n## Critical Context\n- y"); !d.Empty() {
		t.Errorf("a digest with only skipped sections = %+v, want empty", d)
	}
}

func checkDigest(t *testing.T, name string, got, want Digest) {
	t.Helper()
	if got.Title != want.Title || got.Goal != want.Goal || got.Lead != want.Lead || !slices.Equal(got.Done, want.Done) ||
		!slices.Equal(got.Next, want.Next) || !slices.Equal(got.Modified, want.Modified) {
		t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
	}
}

func TestLabelAndTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Make the documentation section a bit better":                                          "Make the documentation section better",
		"Write a little poem instead":                                                          "Write a little poem instead",
		"Port over user-message-selector.ts based on the patterns you find in the other files": "Port over user-message-selector.ts",
		"what does scripts/release.sh do?":                                                     "What does scripts/release.sh do",
	} {
		if got := makeLabel(in); got != want {
			t.Errorf("makeLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"Add rate limiting to POST login using the express-rate-limit middleware (5 per minute per IP)": "Add rate limiting to POST login using the express-rate-limit middleware",
		"login rate limiting":              "Login rate limiting",
		"What does scripts/release.sh do?": "What does scripts/release.sh do?",
	} {
		if got := makeTitle(in); got != want {
			t.Errorf("makeTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
