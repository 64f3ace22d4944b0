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
