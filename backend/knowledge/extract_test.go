package knowledge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"rhizome/backend/session"
)

// userEntry and assistantEntry make message entries as pisession reads them.
func userEntry(id, text string, at time.Time) session.Entry {
	return session.Entry{Type: session.TypeMessage, ID: id, Timestamp: at,
		Message: &session.Message{Role: session.RoleUser, Content: []session.Block{{Type: session.BlockText, Text: text}}}}
}

func assistantEntry(id, text string, at time.Time) session.Entry {
	return session.Entry{Type: session.TypeMessage, ID: id, Timestamp: at,
		Message: &session.Message{Role: session.RoleAssistant, Content: []session.Block{{Type: session.BlockText, Text: text}}}}
}

func extract(entries ...session.Entry) []Item {
	x := NewExtractor()
	for i := range entries {
		x.Add(&entries[i])
	}
	return x.Items(Source{Project: "/p", SessionID: "s1", SegmentNodeID: "0123456789abcdef"}, t0)
}

// Each offline rule fires on the wording that states the thing outright,
// and not on the near misses beside it (precision over recall).
func TestOfflineRules(t *testing.T) {
	cases := []struct {
		text  string
		rule  string // "" = nothing found
		title string
	}{
		{"From now on, run make lint before every commit.", RuleFromNowOn, "Run make lint before every commit."},
		{"ok, always run the tests before pushing", RuleAlwaysNever, "Always run the tests before pushing."},
		{"Never use sync I/O in request handlers!", RuleAlwaysNever, "Never use sync I/O in request handlers."},
		{"never mind, that was fine", "", ""},
		{"never do that again!", "", ""},
		{"From now on, check it before you push.", "", ""},
		{"please don't rewrite the changelog, make surgical edits", RuleDont, "Don't rewrite the changelog, make surgical edits."},
		{"don't do that", "", ""},
		{"ok don't change it again, the tests are fine", "", ""},
		{"don't we load all entries on construction?", RuleUserQuestion, "Don't we load all entries on construction?"},
		{"what's the footer using? should be dimmer, don't modify the theme", "", ""},
		{"my dude, invalid themes must NEVER explode", RuleMust, "Invalid themes must NEVER explode."},
		{"hm, i selected the theme and got a crash, that should never happen.", "", ""},
		{"it must point at a user message", "", ""},
		{"i think the list doesn't adhere to the invariant that every line must fit the width", RuleMust, "Every line must fit the width."},
		{"i think truncated text must stop at a newline", "", ""},
		{"We use pgx for all database access.", RuleWeUse, "We use pgx for all database access."},
		{"please use the format we use for the diagrams above", "", ""},
		{"The pattern is one storage file per entity.", RulePattern, "The pattern is one storage file per entity."},
		{"omfg use fucking rgb values in the themes, no rgb indices!", RuleUseNot, "Use rgb values in the themes, no rgb indices."},
		{"We prefer table-driven tests over one function per case.", RulePrefer, "We prefer table-driven tests over one function per case."},
		{"no, we should do a defensive copy and document it", RuleNoLets, "Do a defensive copy and document it."},
		{"no, the block should stay as is", "", ""},
		{"Migrate internal/store from database/sql to pgx v5.", RuleSwitch, "Migrate internal/store from database/sql to pgx v5."},
		{"Let's go with SQLite for the index.", RuleGoWith, "Let's go with SQLite for the index."},
		{"We decided to keep the Store interface unchanged.", RuleDecided, "Keep the Store interface unchanged."},
		{"Document the middleware in docs/limits.md instead of the README.", RuleInsteadOf, "Document the middleware in docs/limits.md."},
		{"Instead of polling, let's watch the file.", RuleInsteadOf, "Watch the file."},
		{"write a little poem instead of that", "", ""},
		{"can you adjust the example to use resolveApiKey instead of apiKey?", "", ""},
		{"this is not how it works. the session entry array is append only", RuleThatWasWrong, "The session entry array is append only."},
		{"that's wrong, the header carries no model", RuleThatWasWrong, "The header carries no model."},
		{"well, that's wrong no? i suppose we need to review the prompt", "", ""},
		{"md link is actually 666666", "", ""},
		{"The sed command didn't work because of the multiline format.", RuleDidntWork, "The sed command — didn't work because of the multiline format."},
		{"it didn't work because of the cache", "", ""},
		{"", "", ""},
		{"```\nalways paste code like this\n```", "", ""},
		{"i think we should rename loadSessionFromEntries to buildSessionContext", RuleWeShould, "Rename loadSessionFromEntries to buildSessionContext."},
		{"we need to pass resolveApiKey to the hooks as well, so they can call models", RuleWeShould, "Pass resolveApiKey to the hooks as well."},
		{"i want the example to use gemini flash, so we show another model", RuleWeShould, "The example should use gemini flash."},
		{"we need to fix the tui test sources", "", ""},
		{"let me try it, then we should be good to go", "", ""},
		{"maybe we should rename the loader", "", ""},
		{"we should do that", "", ""},
		{"oauth should be outside of all that machinery.", RuleShould, "Oauth should be outside of all that machinery."},
		{"setTheme should not log to the console", RuleShould, "SetTheme should not log to the console."},
		{"the tests should pass now", "", ""},
		{"it should be fine", "", ""},
		{"should be dimmer, look into the footer sources", "", ""},
		{"stop committing everything", RuleStop, "Stop committing everything."},
		{"stop doing that!", "", ""},
		{"no console logs!", RuleNoThing, "No console logs."},
		{"no, that's fine", "", ""},
		{"i suppose the workflow would be write the json, preview with /theme, repeat", RuleWorkflow, "The workflow would be write the json, preview with /theme, repeat."},
		{"call the file custom-compaction.ts, update the README too", RuleNaming, "Call the file custom-compaction.ts."},
		{"call me when it is done", "", ""},
		{"that's not it, both terminals use the dark theme", RuleThatWasWrong, "Both terminals use the dark theme."},
		{"not what i wanted. i wanted a list of concrete examples", RuleThatWasWrong, "I wanted a list of concrete examples."},
		{"The regex didn't catch multiline constructions.", RuleDidntWork, "The regex — didn't catch multiline constructions."},
		{"the test didn't catch it", "", ""},
	}
	for _, c := range cases {
		items := extract(userEntry("u1", c.text, t0))
		if c.rule == "" {
			if len(items) != 0 {
				t.Errorf("%q: found %s %q, want nothing", c.text, items[0].Source.Rule, items[0].Title())
			}
			continue
		}
		if len(items) != 1 {
			t.Errorf("%q: %d items, want one by %s", c.text, len(items), c.rule)
			continue
		}
		it := items[0]
		if it.Source.Rule != c.rule || it.Title() != c.title {
			t.Errorf("%q: %s %q, want %s %q", c.text, it.Source.Rule, it.Title(), c.rule, c.title)
		}
		if err := it.Validate(); err != nil || it.Source.CreatedBy != ByOffline || it.Project != "/p" {
			t.Errorf("%q: %v %+v", c.text, err, it.Source)
		}
	}
}

// A question the user asked takes the assistant's direct answer, a yes or
// no question the reply that opens with yes or no; a question whose reply
// is work in progress is dropped; one without any reply stays open.
func TestQuestionsAndAnswers(t *testing.T) {
	at := t0
	items := extract(
		userEntry("u1", "how was markdown rendering added? vendored marked?", at),
		assistantEntry("a1", "It's using the `marked` package, not vendored. It renders during export.\n\n```ts\nimport {marked}\n```", at),
		userEntry("u2", "does the default compaction include the last summary?", at),
		assistantEntry("a2", "Let me check how it builds its messages:", at),
		assistantEntry("a3", "Yes, it prepends the previous summary. So the model sees it.", at),
		userEntry("u3", "what color are the code blocks using in markdown?", at),
		assistantEntry("a4", "Let me check what color markdown code is using:", at),
		assistantEntry("a5", "Done! Now both use #8abeb7.", at),
		userEntry("u4", "why does the importer skip version 1 labels?", at),
	)
	var got []string
	for _, it := range items {
		b, _ := json.Marshal(it.Question)
		got = append(got, string(b)+" "+strings.Join(it.Source.EntryIDs, ","))
	}
	want := []string{
		`{"question":"How was markdown rendering added?","answer":"It's using the marked package, not vendored. It renders during export.","context":"vendored marked?"} u1,a1`,
		`{"question":"Does the default compaction include the last summary?","answer":"Yes, it prepends the previous summary. So the model sees it."} u2,a3`,
		`{"question":"Why does the importer skip version 1 labels?"} u4`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(items) == 3 && !items[2].Question.Open() {
		t.Error("the unanswered question is not open")
	}
}

// The extractor streams: repeats merge into one item with both entries,
// ids are stable across reads, Reset starts a new segment.
func TestExtractorRepeatsAndReset(t *testing.T) {
	e1 := userEntry("u1", "Never commit secrets.", t0)
	e2 := userEntry("u2", "never commit secrets", t0.Add(time.Minute))
	x := NewExtractor()
	x.Add(&e1)
	x.Add(&e2)
	src := Source{Project: "/p", SessionID: "s", SegmentNodeID: "n"}
	items := x.Items(src, t0)
	if len(items) != 1 || strings.Join(items[0].Source.EntryIDs, ",") != "u1,u2" {
		t.Fatalf("items %+v", items)
	}
	again := x.Items(src, t0)
	if again[0].ID != items[0].ID {
		t.Error("ids changed between two calls")
	}
	x.Reset()
	if got := x.Items(src, t0); len(got) != 0 {
		t.Errorf("after Reset: %d items", len(got))
	}
	other := x
	other.Add(&e1)
	if got := other.Items(Source{Project: "/p", SessionID: "s", SegmentNodeID: "m"}, t0); got[0].ID == items[0].ID {
		t.Error("two segments gave the same id")
	}
}

// TestAssistantFailureWording: the assistant's replies are read for a failed
// approach only when they name "work" and a negation (mayTellFailure); the
// wordings the rule reads all pass that check, markup and curly quotes
// included.
func TestAssistantFailureWording(t *testing.T) {
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	for _, text := range []string{
		"The sed command didn't work because of the multiline format.",
		"The **sed command** didn’t work because of the multiline format.",
		"The sed command did not work since the file uses CRLF endings.",
		"The SED command DOESN'T WORK because of the multiline format.",
		"The sed command won't work due to the multiline format.",
		"The sed command failed to work as the file was binary.",
	} {
		items := extract(userEntry("u1", "fix the file", t0), assistantEntry("a1", text, t0.Add(time.Second)))
		found := false
		for _, it := range items {
			found = found || it.Source.Rule == RuleDidntWork
		}
		if !found {
			t.Errorf("%q: no failed approach found", text)
		}
	}
	if mayTellFailure("Done: the tests pass and the build is green.") {
		t.Error("a reply without the wording is read for failures")
	}
}

// TestFailedApproachTitle: a failed approach's title says what came of it,
// so that a list or an agent reading only titles learns the lesson; repeats
// of one approach in a segment remain one item whatever each says came of it.
func TestFailedApproachTitle(t *testing.T) {
	t0 := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct{ text, title string }{
		{"The sed command did not work since the file uses CRLF endings.", "The sed command — didn't work since the file uses CRLF endings."},
		{"The sed command failed to work as the file was binary.", "The sed command — didn't work as the file was binary."},
	} {
		items := extract(userEntry("u1", "fix the file", t0), assistantEntry("a1", c.text, t0.Add(time.Second)))
		if len(items) != 1 || items[0].Title() != c.title {
			var got []string
			for _, it := range items {
				got = append(got, it.Title())
			}
			t.Errorf("%q: titles %q, want %q", c.text, got, c.title)
		}
	}
	items := extract(userEntry("u1", "The sed command didn't work because of the multiline format.", t0),
		userEntry("u2", "The sed command didn't work because of CRLF endings.", t0.Add(time.Minute)))
	if len(items) != 1 || len(items[0].Source.EntryIDs) != 2 {
		t.Errorf("one approach failing twice: %d items, want one citing both messages", len(items))
	}
	model := Item{FailedApproach: &FailedApproach{Approach: "Vendoring marked.", Outcome: "README rendering broke"}}
	if got := model.Title(); got != "Vendoring marked — README rendering broke" {
		t.Errorf("a model's failed approach is titled %q", got)
	}
}

// TestTurnRules: the rules that read both sides of a turn. A proposal is a
// decision when the other side takes it; the user's "no, …" corrects only
// what the assistant said; a point the assistant concedes is a correction
// (a decision when the user proposed it); "undo that" makes the assistant's
// last step a failed approach; what the assistant settles on is a decision
// unless it ends by asking or takes it back.
func TestTurnRules(t *testing.T) {
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	cases := []struct {
		name    string
		entries []session.Entry
		want    string // "rule: title [entries]", one per line; "" = nothing
	}{
		{"proposal agreed", []session.Entry{
			userEntry("u1", "can we use the same colors as in the dark theme?", at(0)),
			assistantEntry("a1", "Good idea. Let me check what the theme uses.", at(1))},
			"agreed: Use the same colors as in the dark theme. [u1 a1]"},
		{"proposal not taken up", []session.Entry{
			userEntry("u1", "can we use the same colors as in the dark theme?", at(0)),
			assistantEntry("a1", "Let me check how the colors are extracted:", at(1))},
			""},
		{"offer taken", []session.Entry{
			userEntry("u1", "do we only have a single link color?", at(0)),
			assistantEntry("a1", "We only have a single link function.\n\nShould I add a new token like mdLinkUrl to the theme system?", at(1)),
			userEntry("u2", "yes, in old pi the link url was 666666", at(2))},
			"user-question: Do we only have a single link color? [u1 a1]\nagreed: Add a new token like mdLinkUrl to the theme system. [u2 a1]"},
		{"offer of the session's work", []session.Entry{
			userEntry("u1", "bump the version", at(0)),
			assistantEntry("a1", "Bumped to 0.8.0. Should I proceed with committing and tagging?", at(1)),
			userEntry("u2", "yeah, do it all", at(2))},
			""},
		{"offer by pronoun takes what the reply settled on", []session.Entry{
			userEntry("u1", "agent-session.ts also calls getApiKeyForModel", at(0)),
			assistantEntry("a1", "I see. The cleanest fix would be to add a private helper in AgentSession that checks settings first. Want me to do this?", at(1)),
			userEntry("u2", "sounds good, do it", at(2))},
			"settled: Add a private helper in AgentSession that checks settings first. [u2 a1]"},
		{"choice asked", []session.Entry{
			userEntry("u1", "does the default compaction use the last summary?", at(0)),
			assistantEntry("a1", "Yes, it prepends it. We could document that or add it to the event. What do you prefer?", at(1)),
			userEntry("u2", "add the previous summary to the event data, can be undefined", at(2))},
			"user-question: Does the default compaction use the last summary? [u1 a1]\nchoice: Add the previous summary to the event data, can be undefined. [u2 a1]"},
		{"settled", []session.Entry{
			userEntry("u1", "fix issue 288", at(0)),
			assistantEntry("a1", "The fix should be to not throw when no models are available. Let me look at the code:", at(1))},
			"settled: Not throw when no models are available. [a1]"},
		{"settled, then taken back", []session.Entry{
			userEntry("u1", "fix issue 295", at(0)),
			assistantEntry("a1", "I think the cleanest approach is to add a resolver parameter to discoverAvailableModels. But that's more invasive.", at(1))},
			""},
		{"conceded", []session.Entry{
			userEntry("u1", "getApiKeyForModel is called in many places and ignores the settings keys.", at(0)),
			assistantEntry("a1", "You're right. The problem is that it is global.", at(1))},
			"conceded: GetApiKeyForModel is called in many places and ignores the settings keys. [u1 a1]"},
		{"conceded proposal", []session.Entry{
			userEntry("u1", "ok, i think our themes need explicit tokens for the thinking border", at(0)),
			assistantEntry("a1", "You're right. Explicit tokens make them themeable.", at(1))},
			"agreed: Our themes need explicit tokens for the thinking border. [u1 a1]"},
		{"not conceded", []session.Entry{
			userEntry("u1", "getApiKeyForModel is called in many places and ignores the settings keys.", at(0)),
			assistantEntry("a1", "Let me look at the call sites:", at(1))},
			""},
		{"no, replying to the assistant", []session.Entry{
			userEntry("u1", "make the code blocks use the accent color", at(0)),
			assistantEntry("a1", "Done! Both inline code and code blocks use the accent color now.", at(1)),
			userEntry("u2", "no, the block should stay as is", at(2))},
			"no-correction: The block should stay as is. [u2 a1]"},
		{"undo that", []session.Entry{
			userEntry("u1", "the selector needs to push the theme update to the next tick", at(0)),
			assistantEntry("a1", "Perfect! Now both callbacks use setImmediate() to defer the theme update.", at(1)),
			userEntry("u2", "yeah you can undo that, it was actually the console logs in theme.ts", at(2))},
			"undone: Both callbacks use setImmediate() to defer the theme update — undone: it was actually the console logs in theme.ts. [u2 a1]"},
		{"tag question confirmed", []session.Entry{
			userEntry("u1", "loadSessionFromEntries is kind of a bad name for this, no?", at(0)),
			assistantEntry("a1", "Yeah, it does more than load: it builds the context.", at(1))},
			"user-question: LoadSessionFromEntries is kind of a bad name for this, no? [u1 a1]"},
		{"short question answered", []session.Entry{
			userEntry("u1", "what's footer using?", at(0)),
			assistantEntry("a1", "The footer is using the muted color for both lines. It should use dim instead:", at(1))},
			"user-question: What's footer using? [u1 a1]"},
		{"answer not about the question", []session.Entry{
			userEntry("u1", "is Theme.fg maybe doing something stupid?", at(0)),
			assistantEntry("a1", "Wait, I need to export loadTheme first:", at(1)),
			assistantEntry("a2", "It's not exported.", at(2))},
			""},
		{"wondering, answered", []session.Entry{
			userEntry("u1", "i wonder why that's not a method on SessionManager", at(0)),
			assistantEntry("a1", "Good point. SessionManager already has loadSession(), which calls it.", at(1))},
			"user-question: Why that's not a method on SessionManager? [u1 a1]"},
	}
	for _, c := range cases {
		var got []string
		for _, it := range extract(c.entries...) {
			got = append(got, it.Source.Rule+": "+it.Title()+" ["+strings.Join(it.Source.EntryIDs, " ")+"]")
			if err := it.Validate(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}
		if g := strings.Join(got, "\n"); g != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, g, c.want)
		}
	}
}
