package codex

import (
	"os"
	"slices"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
)

func readHandmade(t *testing.T, name string) (*Session, map[int]*session.Entry) {
	t.Helper()
	s, err := ReadFile("testdata/handmade/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if s.MalformedCount != 0 || s.WarningCount != 0 {
		t.Fatalf("malformed %v warnings %v", s.Malformed, s.Warnings)
	}
	byLine := map[int]*session.Entry{}
	for i := range s.Entries {
		byLine[s.Entries[i].Line] = &s.Entries[i]
	}
	return s, byLine
}

// TestWrappedLegacy reads testdata/handmade/wrapped-legacy.jsonl (see its
// README): the values below are worked out by hand.
func TestWrappedLegacy(t *testing.T) {
	s, l := readHandmade(t, "wrapped-legacy.jsonl")
	// §2.5: the spec's own example: two requests, 24167 + 24430 = 48597
	// input and 209 + 26 = 235 output (114 reasoning); then 51403 input of
	// which 40000 cached, 65 output; then 1000 and 40. The repeated count
	// (line 16), the null one (17) and the fill-only one (38) count nothing.
	u := s.Metadata.Usage
	if u.Requests != 4 || u.Input != 24167+24430+11403+1000 || u.CacheRead != 40000 || u.Output != 209+26+65+40 || u.Reasoning != 114 {
		t.Errorf("§2.5 usage %+v", u)
	}
	// The late token count (§2.6.3) lands on the response it measures.
	for line, want := range map[int]int64{10: 24167, 14: 24430, 25: 11403, 35: 1000} {
		if m := l[line].Message; m == nil || m.Usage == nil || m.Usage.Input != want {
			t.Errorf("§2.6.3 line %d: usage %+v, want input %d", line, m, want)
		}
	}
	// §2.6.1: echoes name the response item they repeat, either order.
	for line, twin := range map[int]string{7: "L6", 13: "L14", 23: "L22", 26: "L25"} {
		if l[line].DuplicateOf != twin {
			t.Errorf("§2.6.1 line %d: duplicateOf %q, want %s", line, l[line].DuplicateOf, twin)
		}
	}
	// §2.6.2: harness context and developer messages are not prompts.
	if l[4].Message.CustomType != CustomDeveloper || l[5].Message.CustomType != CustomContext || l[6].Message.Role != session.RoleUser {
		t.Errorf("§2.6.2 roles")
	}
	// §2.3: an old exec output (JSON string, exit code 1) is an error; a
	// web search and apply_patch are tool calls; reasoning with only
	// encrypted content is one redacted thinking block.
	if m := l[11].Message; !m.IsError || m.ToolName != "shell" || m.ToolCallID != "call_a" {
		t.Errorf("§2.3 exec output %+v", m)
	}
	if b := l[24].Message.Content[0]; b.Type != session.BlockToolCall || b.Name != "web_search" || !strings.Contains(string(b.Arguments), "pytest sum") {
		t.Errorf("§2.3 web search %+v", b)
	}
	if b := l[35].Message.Content[0]; b.Name != "apply_patch" || !strings.Contains(string(b.Arguments), "Add File: test_main.py") {
		t.Errorf("§2.3 apply_patch %+v", b)
	}
	if b := l[9].Message.Content; len(b) != 1 || !b[0].Redacted {
		t.Errorf("§2.6.4 reasoning %+v", b)
	}
	// §2.4: a second session_meta of the thread is a resume; the model
	// changes with turn_context.
	if s.Metadata.Resumes != 1 || strings.Join(s.Metadata.Models, ",") != "gpt-5-codex,gpt-5.1-codex" || l[25].Message.Model != "gpt-5.1-codex" {
		t.Errorf("§2.4 resumes %d models %v", s.Metadata.Resumes, s.Metadata.Models)
	}
	// §2.4: thread_rolled_back of one turn flags turn B, kept.
	turnB := "0198a1b0-2000-7000-8000-00000000000b"
	if r := l[29].RolledBackTurns; len(r) != 1 || r[0] != turnB {
		t.Errorf("§2.4 rolled back %v", r)
	}
	for _, e := range s.Entries {
		if want := e.TurnID == turnB && e.Line < 29; e.RolledBack != want {
			t.Errorf("§2.4 line %d (turn %s): rolledBack %v", e.Line, e.TurnID, e.RolledBack)
		}
	}
	// §2.3: compacted is a compaction with its message as the summary.
	if e := l[32]; e.Type != session.TypeCompaction || e.Summary != "Summary: the total skips None." || e.TokensBefore != 51468 {
		t.Errorf("§2.3 compacted %+v", e)
	}
	if e := l[40]; e.Type != "codex:inter_agent_communication" || !strings.Contains(string(e.Raw), `"shiny":[1,2]`) {
		t.Errorf("unknown type %+v", e)
	}
	if s.Header.ID != "0198a1b0-0000-7000-8000-000000000001" || s.Header.ModelID != "gpt-5-codex" || s.Header.AgentVersion != "0.46.0" || s.Header.Provider != "openai" {
		t.Errorf("header %+v", s.Header)
	}
}

// TestForkReplay: a legacy fork replays its parent after the parent's
// session_meta; the replayed turn is flagged and its token count is not
// counted again (§2.4, agentsview #657/#1381).
func TestForkReplay(t *testing.T) {
	s, l := readHandmade(t, "fork-replay.jsonl")
	for _, e := range s.Entries {
		if want := e.Line >= 2 && e.Line <= 8; e.Replayed != want {
			t.Errorf("line %d: replayed %v, want %v", e.Line, e.Replayed, want)
		}
	}
	if u := s.Metadata.Usage; u.Requests != 1 || u.Input != 5833 || u.CacheRead != 24000 || u.Output != 50 {
		t.Errorf("usage %+v: the replayed request counted", u)
	}
	if l[12].Message.Usage == nil || l[6].Message.Usage != nil {
		t.Errorf("usage on the wrong entries")
	}
	if s.Header.ID != "0198a2c0-0000-7000-8000-0000000000c1" || s.Header.ParentSession != "0198a1b0-0000-7000-8000-0000000000a1" || s.Metadata.ForkedFrom == "" {
		t.Errorf("header %+v", s.Header)
	}
}

// TestForkReplayLegacyIDs: the same fork with turn ids that are not UUIDv7
// (an older Codex's): the replay ends at the first turn not among the
// parent's, when the reader is given them (SetParentTurns, §2.4: "the first
// turn_context.turn_id that does not exist in the parent"). Without them
// the reader cannot tell the fork's own turn from the parent's and counts
// neither, rather than the parent's twice.
func TestForkReplayLegacyIDs(t *testing.T) {
	const parent = "3d2c1b0a-8f7e-4d6c-b5a4-938271600a01"
	parentFile, err := ReadFile("testdata/handmade/fork-legacy-parent.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	parentTurns := map[string]bool{}
	for _, e := range parentFile.Entries {
		if e.TurnID != "" {
			parentTurns[e.TurnID] = true
		}
	}
	if len(parentTurns) != 1 || parentFile.Header.ID != parent {
		t.Fatalf("parent %s with turns %v", parentFile.Header.ID, parentTurns)
	}
	read := func(lookup func(string) (map[string]bool, bool)) *Session {
		t.Helper()
		f, err := os.Open("testdata/handmade/fork-legacy-ids.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := NewReader(f, "fork-legacy-ids.jsonl")
		var asked []string
		if lookup != nil {
			r.SetParentTurns(func(id string) (map[string]bool, bool) {
				asked = append(asked, id)
				return lookup(id)
			})
		}
		s, err := sessionlog.ReadAll(r.Reader, func(st *parseState) Metadata { return st.Meta })
		if err != nil {
			t.Fatal(err)
		}
		if lookup != nil && !slices.Equal(asked, []string{parent}) {
			t.Errorf("asked for the turns of %v, want the parent's once", asked)
		}
		return s
	}

	s := read(func(id string) (map[string]bool, bool) { return parentTurns, id == parent })
	for _, e := range s.Entries {
		if want := e.Line >= 2 && e.Line <= 8; e.Replayed != want {
			t.Errorf("parent's turns known: line %d replayed %v, want %v", e.Line, e.Replayed, want)
		}
	}
	if u := s.Metadata.Usage; u.Requests != 1 || u.Input != 5833 || u.CacheRead != 24000 || u.Output != 50 {
		t.Errorf("parent's turns known: usage %+v, want the fork's own request alone", u)
	}

	for name, lookup := range map[string]func(string) (map[string]bool, bool){
		"no lookup":      nil,
		"parent unknown": func(string) (map[string]bool, bool) { return nil, false },
	} {
		s := read(lookup)
		for _, e := range s.Entries {
			if want := e.Line >= 2; e.Replayed != want {
				t.Errorf("%s: line %d replayed %v, want %v", name, e.Line, e.Replayed, want)
			}
		}
		if u := s.Metadata.Usage; u.Requests != 0 {
			t.Errorf("%s: usage %+v: a turn that may be the parent's counted", name, u)
		}
	}
}

// TestBareEra: the first line is {id, timestamp, instructions, git}; items
// stand alone; old outputs are {content, success} (§2.2).
func TestBareEra(t *testing.T) {
	s, l := readHandmade(t, "bare-era.jsonl")
	if s.Header.ID != "5973b6c0-94b8-487b-a530-2aeb6098ae0e" || s.Header.Timestamp != "2025-08-01T09:00:00.000Z" || len(s.Entries) != 11 {
		t.Fatalf("header %+v, %d entries", s.Header, len(s.Entries))
	}
	if l[1].Type != TypeSessionMeta || l[2].Type != TypeState || l[10].Type != TypeState {
		t.Errorf("types %s %s %s", l[1].Type, l[2].Type, l[10].Type)
	}
	if l[3].Message.CustomType != CustomContext || l[4].Message.Role != session.RoleUser || l[11].Message.Role != session.RoleAssistant {
		t.Errorf("roles")
	}
	if b := l[6].Message.Content[0]; b.Name != "local_shell" || !strings.Contains(string(b.Arguments), `"ls"`) {
		t.Errorf("local shell %+v", b)
	}
	if m := l[7].Message; m.IsError || m.ToolName != "local_shell" || session.EntryText(l[7]) != "main.py\nREADME.md\n" {
		t.Errorf("output %+v", m)
	}
	if m := l[9].Message; !m.IsError || m.ToolName != "shell" {
		t.Errorf("failed output %+v", m)
	}
	if string(l[8].Message.Content[0].Arguments) != `{"command":["cat","missing.txt"]}` {
		t.Errorf("arguments %s", l[8].Message.Content[0].Arguments)
	}
}
