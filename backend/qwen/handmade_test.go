package qwen

import (
	"strings"
	"testing"

	"rhizome/backend/session"
)

// TestQuirks reads testdata/handmade/quirks.jsonl, written by hand for what
// the real runs did not produce (see testdata/handmade/README.md); every
// expected value is worked out by hand.
func TestQuirks(t *testing.T) {
	s, err := ReadFile("testdata/handmade/quirks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if s.MalformedCount != 0 || s.WarningCount != 0 || len(s.Entries) != 14 {
		t.Fatalf("%d entries, malformed %v, warnings %v", len(s.Entries), s.Malformed, s.Warnings)
	}
	byLine := map[int]*session.Entry{}
	for i := range s.Entries {
		byLine[s.Entries[i].Line] = &s.Entries[i]
	}
	msg := func(line int) *session.Message {
		e := byLine[line]
		if e == nil || e.Message == nil {
			t.Fatalf("line %d: no message", line)
		}
		return e.Message
	}

	// A prompt with an image: text and image blocks, never the base64 in
	// its text.
	if b := msg(1).Content; len(b) != 2 || b[1].Type != session.BlockImage || b[1].MimeType != "image/png" || b[1].Data != "iVBORw0KGgo=" ||
		session.EntryText(byLine[1]) != "What is in this screenshot?" {
		t.Errorf("prompt blocks %+v", b)
	}
	// custom_title: the session's name.
	if e := byLine[2]; e.Type != session.TypeSessionInfo || e.Name != "Screenshot triage" || s.Metadata.Title != "Screenshot triage" {
		t.Errorf("custom_title %+v, title %q", e, s.Metadata.Title)
	}
	// Reasoning and two calls; Gemini's reading of the usage: 1200 prompt
	// of which 1000 cached, 40 candidates + 25 thoughts (1200+40+25 =
	// 1265 = totalTokenCount).
	m := msg(3)
	if len(m.Content) != 3 || m.Content[0].Type != session.BlockThinking || m.Content[1].ID != "call_a1" || m.Content[2].Name != "glob" ||
		m.StopReason != "toolUse" || m.Model != "gemini-2.5-pro" {
		t.Errorf("assistant %+v", m)
	}
	if u := m.Usage; u == nil || u.Input != 200 || u.CacheRead != 1000 || u.Output != 65 || u.Reasoning != 25 || u.TotalTokens != 1265 {
		t.Errorf("usage %+v", u)
	}
	// A result without a name takes its call's; an output that is not a
	// string is its JSON text.
	if m := msg(4); m.Role != session.RoleToolResult || m.ToolName != "read_file" || m.ToolCallID != "call_a1" || m.IsError ||
		session.JoinText(m.Content) != `{"lines":12,"truncated":false}` || !strings.Contains(string(m.Details), `"status":"success"`) {
		t.Errorf("result %+v", m)
	}
	if m := msg(5); !m.IsError || m.ToolName != "glob" || session.JoinText(m.Content) != "No files found" || s.Metadata.ToolErrors != 1 {
		t.Errorf("error result %+v (tool errors %d)", m, s.Metadata.ToolErrors)
	}
	// The same uuid again: a duplicate, not counted again, no rewind.
	if e := byLine[6]; e.DuplicateOf != byLine[3].ID || e.Message.Usage != nil || e.Rewind || s.Metadata.Duplicates != 1 {
		t.Errorf("duplicate %+v", e)
	}
	// A failed request: an assistant message stopped by an error.
	if e := byLine[7]; e.Type != session.TypeMessage || e.Subtype != SubtypeAPIError || e.Message.StopReason != "error" ||
		e.Message.ErrorMessage != "429 Too Many Requests" || e.Message.Usage != nil || s.Metadata.APIErrors != 1 {
		t.Errorf("api error %+v", e)
	}
	// A prompt under an earlier record: the one rewind.
	for line, want := range map[int]bool{1: false, 2: false, 4: false, 7: false, 8: true, 9: false, 10: false} {
		if byLine[line].Rewind != want {
			t.Errorf("line %d rewind %v, want %v", line, byLine[line].Rewind, want)
		}
	}
	if byLine[8].ParentID != byLine[1].ID || s.Metadata.Rewinds != 1 {
		t.Errorf("rewind parent %s, rewinds %d", byLine[8].ParentID, s.Metadata.Rewinds)
	}
	// Subtypes and types the reader does not map are kept by name, with
	// their bytes.
	if e := byLine[9]; e.Type != "qwen:goal_state" || e.ParentID != byLine[8].ID {
		t.Errorf("unknown subtype %+v", e)
	}
	if e := byLine[13]; e.Type != "qwen:hologram" || !strings.Contains(string(e.Raw), `"shiny":{"new":[1,2,3]}`) {
		t.Errorf("unknown type %+v", e)
	}
	if e := byLine[14]; e.ID != "L14" || e.ParentID != "" || e.Type != "qwen:session_source" {
		t.Errorf("record without uuid %+v", e)
	}
	// OpenAI's reading of another model's usage.
	if u := msg(10).Usage; u == nil || u.Input != 900 || u.Output != 12 || u.TotalTokens != 912 {
		t.Errorf("usage of line 10 %+v", u)
	}
	// A notification names its agent.
	if e := byLine[11]; e.Message.Role != session.RoleCustom || e.Message.CustomType != CustomNotification || e.SubagentID != "Explore-call_b7" {
		t.Errorf("notification %+v", e)
	}
	// An automatic compression.
	if e := byLine[12]; e.Type != session.TypeCompaction || e.Subtype != "auto" || e.TokensBefore != 64000 ||
		e.Summary != "<state_snapshot>CSS only.</state_snapshot>" || !strings.Contains(string(e.Details), `"newTokenCount":3000`) {
		t.Errorf("compression %+v", e)
	}
	md := s.Metadata
	if strings.Join(md.Models, ",") != "gemini-2.5-pro,qwen3-coder-plus" || md.Compressions != 1 || md.GitBranch != "dev" ||
		md.FirstTimestamp != "2026-12-01T10:00:01.000Z" || md.LastTimestamp != "2026-12-01T10:00:14.000Z" {
		t.Errorf("metadata %+v", md)
	}
	if h := s.Header; h.ModelID != "gemini-2.5-pro" || h.AgentVersion != "0.23.0" || h.Cwd != "/work/shop" || h.ParentSession != "" {
		t.Errorf("header %+v", h)
	}
}
