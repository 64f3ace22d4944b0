package gemini

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"rhizome/backend/session"
)

const handmadeFile = "testdata/handmade/quirks.jsonl"

// TestHandmade reads testdata/handmade/quirks.jsonl (see its README): every
// expected value is worked out by hand.
func TestHandmade(t *testing.T) {
	s, err := ReadFile(handmadeFile)
	if err != nil {
		t.Fatal(err)
	}
	if s.MalformedCount != 0 || s.WarningCount != 3 || len(s.Entries) != 39 || s.Pending != nil || s.Lines != 25 {
		t.Fatalf("%d entries, malformed %v, warnings %v", len(s.Entries), s.Malformed, s.Warnings)
	}
	for i, w := range []struct {
		line   int
		reason string
	}{
		{8, `field "$rewindTo": message "nope" is not in the conversation; nothing rewound`},
		{21, `field "$set.messages[7]": a number where a message object is expected; skipped`},
		{21, `field "$set.messages[8].id": missing on a message; the entry is L21#9`},
	} {
		if p := s.Warnings[i]; p.Line != w.line || p.Reason != w.reason {
			t.Errorf("warning %d = %v, want line %d: %s", i, p, w.line, w.reason)
		}
	}
	// The entries of each line, as "id/type[:role]/marks".
	byLine := map[int][]string{}
	at := map[string]*session.Entry{} // the last entry of each line:id
	for i := range s.Entries {
		e := &s.Entries[i]
		k := e.Type
		if e.Message != nil {
			k += ":" + e.Message.Role
		}
		var marks []string
		if e.DuplicateOf != "" {
			marks = append(marks, "copy of "+e.DuplicateOf)
		}
		if len(e.RolledBackTurns) > 0 {
			marks = append(marks, fmt.Sprint("rolls back ", e.RolledBackTurns))
		}
		byLine[e.Line] = append(byLine[e.Line], strings.Join(append([]string{short(e.ID), k}, marks...), "/"))
		at[fmt.Sprint(e.Line, ":", short(e.ID))] = e
	}
	for line, want := range map[int]string{
		2:  "[c0/message:custom]",
		4:  "[g1/message:assistant/copy of g1]",
		6:  "[g1/message:assistant]",
		7:  "[run_shell_command__run_shell_command_1_0/message:toolResult glob__glob_1_1/message:toolResult]",
		8:  "[L8/gemini:rewind]",
		10: "[e1/message:assistant]",
		15: "[L15/gemini:rewind/rolls back [p2]]",
		18: "[L18/gemini:set L18.2/session_info]",
		19: "[r3#1/message:toolResult]",
		20: "[t1/message:custom]",
		21: "[c0/message:custom/copy of c0 p1/message:user/copy of p1 g1/message:assistant/copy of g1 " +
			"run_shell_command__run_shell_command_1_0/message:toolResult/copy of run_shell_command__run_shell_command_1_0 " +
			"glob__glob_1_1/message:toolResult/copy of glob__glob_1_1 p3b/message:user/copy of p3 g3/message:assistant/copy of g3 " +
			"r3#1/message:toolResult/copy of r3#1 L21#9/message:user]",
		22: "[c0/message:custom/copy of c0 s1/compaction a1/message:assistant p3c/message:user/copy of p3 g3c/message:assistant/copy of g3]",
		24: "[c0/message:custom/copy of c0]",
		25: "[L25/gemini:set/rolls back [p3]]",
	} {
		if got := fmt.Sprint(byLine[line]); got != want {
			t.Errorf("line %d: %s\nwant %s", line, got, want)
		}
	}

	// The prompt: text and image; what the person typed stays in Raw.
	if m := at["3:p1"].Message; len(m.Content) != 2 || m.Content[1].Type != session.BlockImage || m.Content[1].MimeType != "image/png" ||
		!strings.Contains(string(at["3:p1"].Raw), `"displayContent"`) || at["3:p1"].TurnID != "p1" {
		t.Errorf("prompt %+v", m)
	}
	// g1: 1000 prompt - 400 cached + 5 tool-use = 605 input; 50 + 20
	// thoughts = 70 output; counted once, on line 6, with the calls.
	g1 := at["6:g1"]
	if u := g1.Message.Usage; u == nil || u.Input != 605 || u.CacheRead != 400 || u.Output != 70 || u.Reasoning != 20 || u.TotalTokens != 1075 ||
		g1.Message.StopReason != "toolUse" || g1.Message.Model != "gemini-2.5-flash" || g1.ParentID != "p1" ||
		g1.Message.Content[0].Thinking != "**Plan**\n\nBuild, then list the Go files." {
		t.Errorf("g1 %+v usage %+v", g1.Message, g1.Message.Usage)
	}
	// The shell call exited 2: an error whatever its status; the glob's
	// status is error. Details from the held response.
	for id, want := range map[string]string{
		"7:" + "run_shell_command__run_shell_command_1_0": `{"status":"success","exitCode":2,"resultDisplay":"parser.go:3: syntax error"}`,
		"7:" + "glob__glob_1_1":                           `{"status":"error","resultDisplay":"bad pattern"}`,
	} {
		if m := at[id].Message; !m.IsError || string(m.Details) != want || at[id].ParentID != "g1" {
			t.Errorf("%s: error %v details %s", id, m.IsError, m.Details)
		}
	}
	if m := at["10:e1"].Message; m.StopReason != "error" || m.ErrorMessage != "Quota exceeded for gemini-2.5-flash." || m.Model != "gemini-2.5-flash" {
		t.Errorf("error message %+v", m)
	}
	if m := at["9:w1"].Message; m.CustomType != CustomWarning || !m.ContentIsString {
		t.Errorf("warning %+v", m)
	}
	if m := at["14:h1"].Message; m.Role != session.RoleCustom || m.CustomType != CustomHookContext {
		t.Errorf("hook context %+v", m)
	}
	if e := at["15:L15"]; e.TargetID != "p2" {
		t.Errorf("rewind %+v", e)
	}
	// After the rewind the conversation goes on from e1 (the last message
	// before p2), in the turn of p1 until p3.
	if e := at["16:p3"]; e.ParentID != "e1" || e.TurnID != "p3" || e.Message.Content[1].Type != "gemini:fileData" {
		t.Errorf("p3 %+v", e)
	}
	if m := at["17:g3"].Message; m.Usage != nil || m.Content[0].Type != session.BlockThinking || m.Content[2].Name != "read_file" {
		t.Errorf("g3 %+v", m)
	}
	if m := at["19:r3#1"].Message; m.ToolName != "read_file" || m.ToolCallID != "" || m.IsError {
		t.Errorf("r3 %+v", m)
	}
	if m := at["20:t1"].Message; m.CustomType != "gemini:tip" {
		t.Errorf("tip %+v", m)
	}
	// The rewrite's copies take its time; the new message counts.
	if e := at["21:p1"]; e.Timestamp.Format("04:05") != "00:18" || e.Message.Timestamp != at["3:p1"].Message.Timestamp {
		t.Errorf("copy time %v / %d", e.Timestamp, e.Message.Timestamp)
	}
	if e := at["21:L21#9"]; e.DuplicateOf != "" || e.TurnID != "L21#9" || session.EntryText(e) != "A prompt only the rewrite holds." {
		t.Errorf("new in the rewrite %+v", e)
	}
	// The compression: under the last message, first kept p3, tokens
	// before from the last response (g2: 2000).
	if e := at["22:s1"]; e.Summary != "<state_snapshot>\n<overall_goal>Fix the parser.</overall_goal>\n</state_snapshot>" ||
		e.FirstKeptEntryID != "p3" || e.TokensBefore != 2000 || e.ParentID != "L21#9" || e.Message != nil {
		t.Errorf("compaction %+v", e)
	}
	m := s.Metadata
	want := Metadata{Title: "Parser fixes", Kind: "main", ProjectHash: strings.Repeat("ab", 32), Models: []string{"gemini-2.5-flash", "gemini-2.5-pro"},
		FirstTimestamp: "2026-12-01T10:00:00Z", LastTimestamp: "2026-12-01T10:00:31Z", Prompts: 5, Responses: 4, Recordings: 2,
		Rewrites: 3, Compressions: 1, Rollbacks: 1, Rewinds: 1, Dropped: 13, Copies: 12, Superseded: 1, Revisions: 1, ToolErrors: 2,
		Usage: Totals{Responses: 2, Input: 2605, CacheRead: 400, Output: 80, Reasoning: 20}}
	gm, _ := json.Marshal(m)
	wm, _ := json.Marshal(want)
	if string(gm) != string(wm) {
		t.Errorf("metadata %s\nwant     %s", gm, wm)
	}
}

// A chat's summary is its title, unless it is a JSON object (Gemini CLI
// sets a sub-agent's summary to the start of its JSON result): then the
// object's first string member is, cut short or not.
func TestSummaryTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Add a health check endpoint", "Add a health check endpoint"},
		{"{\n  \"SummaryOfFindings\": \"Routes are in main.go.\",\n  \"ExplorationTrace\": [\n    \"grep\"\n  ]...", "Routes are in main.go."},
		{`{"a": "say \"hi\" \u00e9"}`, `say "hi" é`},
		{`{"a": "cut sho...`, ""},
		{`{"n": 3}`, ""},
		{`{`, ""},
	} {
		if got := summaryTitle(tc.in); got != tc.want {
			t.Errorf("summaryTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
