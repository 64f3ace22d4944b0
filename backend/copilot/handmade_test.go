package copilot

import (
	"encoding/json"
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
	if s.MalformedCount != 0 || s.WarningCount != 0 || len(s.Entries) != 28 || s.Pending != nil {
		t.Fatalf("%d entries, malformed %v, warnings %v", len(s.Entries), s.Malformed, s.Warnings)
	}
	byLine := map[int]*session.Entry{}
	for i := range s.Entries {
		if _, ok := byLine[s.Entries[i].Line]; !ok {
			byLine[s.Entries[i].Line] = &s.Entries[i]
		}
	}
	msg := func(line int) *session.Message {
		t.Helper()
		if e := byLine[line]; e != nil && e.Message != nil {
			return e.Message
		}
		t.Fatalf("line %d: no message", line)
		return nil
	}
	blocks := func(m *session.Message) string {
		var out []string
		for _, b := range m.Content {
			out = append(out, b.Type)
		}
		return strings.Join(out, ",")
	}

	// The header and the title.
	if h := s.Header; h.ID != "5b0c1d2e-0000-4000-8000-00000000c0a1" || h.AgentVersion != "1.0.90" || h.Timestamp != "2026-12-01T10:00:00.500Z" ||
		h.Cwd != "/home/dana/ledger" || h.ModelID != "claude-sonnet-4.5" {
		t.Errorf("header %+v", h)
	}
	if e := byLine[2]; e.Type != session.TypeSessionInfo || e.Name != "Fix the ledger" || s.Metadata.Title != "Fix the ledger" {
		t.Errorf("title %+v", e)
	}
	// Attachments: a text file and a directory by path, an image whose
	// asset is not held (no bytes).
	if m := msg(3); blocks(m) != "text,copilot:attachment,copilot:attachment,image" || m.Content[1].Text != "/home/dana/ledger/notes.txt" ||
		m.Content[2].Text != "/home/dana/ledger/src" || m.Content[3].MimeType != "image/png" || m.Content[3].Data != "" || m.ContentIsString {
		t.Errorf("attachments %+v", m.Content)
	}
	// Usage of req-1: 1000 input - 600 read - 100 written = 300 uncached;
	// through GitHub's service (not BYOK), the Anthropic API.
	m := msg(5)
	if u := m.Usage; u == nil || u.Input != 300 || u.CacheRead != 600 || u.CacheWrite != 100 || u.Output != 50 || u.TotalTokens != 1050 || u.Cost.Total != 0 ||
		m.Provider != ProviderCopilot || m.API != "anthropic-messages" || m.StopReason != "toolUse" {
		t.Errorf("req-1 usage %+v on %+v", m.Usage, m)
	}
	// Encrypted reasoning only: one redacted thinking block; no text
	// block for empty content; a custom tool's JSON string arguments
	// become the JSON.
	if blocks(m) != "thinking,toolCall,toolCall" || !m.Content[0].Redacted || string(m.Content[2].Arguments) != `{"patch":"*** Begin Patch"}` {
		t.Errorf("assistant blocks %+v", m.Content)
	}
	// A non-zero exit code is an error, whatever success says; results
	// take their call's name with no execution_start; a result's image.
	if r := msg(6); !r.IsError || r.ToolName != "bash" || !strings.Contains(string(r.Details), `"exitCode":2`) {
		t.Errorf("bash result %+v", r)
	}
	if r := msg(7); r.IsError || r.ToolName != "apply_patch" || blocks(r) != "text,image" || r.Content[1].Data != "iVBORw0KGgo=" {
		t.Errorf("apply_patch result %+v", r)
	}
	// req-2 has no message: unattached when the next call's record comes.
	if u := s.Metadata.UnattachedUsage; u.Requests != 1 || u.Input != 200 || u.CacheRead != 1000 {
		t.Errorf("unattached %+v", u)
	}
	m = msg(11)
	if u := m.Usage; u == nil || u.Input != 2000 || u.Reasoning != 30 || m.Provider != "azure" || m.API != "openai-responses" || m.StopReason != "stop" || m.Model != "gpt-5" {
		t.Errorf("req-3 %+v usage %+v", m, m.Usage)
	}
	// A cancelled compaction is not a compaction; its call is counted.
	if e := byLine[12]; e.Type != TypeCompactionOutcome || e.Subtype != "cancelled" || s.Metadata.FailedCompactions != 1 || s.Metadata.Compactions != 0 ||
		s.Metadata.CompactionUsage.Input != 500 {
		t.Errorf("cancelled compaction %+v, metadata %+v", e, s.Metadata)
	}
	// A prompt under an earlier event than the last: a rewind.
	if e := byLine[13]; !e.Rewind || s.Metadata.Rewinds != 1 || byLine[3].Rewind || byLine[26].Rewind {
		t.Errorf("rewind %+v", e)
	}
	// No id: "L<line>"; two objects on a line; unknown types kept.
	if e := byLine[14]; e.ID != "L14" || e.Type != "copilot:abort" || e.TurnID != "i2" {
		t.Errorf("abort %+v", e)
	}
	var second *session.Entry
	for i := range s.Entries {
		if s.Entries[i].Line == 15 && s.Entries[i].Type == "copilot:hologram.beam" {
			second = &s.Entries[i]
		}
	}
	if second == nil || !strings.Contains(string(second.Raw), `"shiny":{"new":[1,2,3]}`) || byLine[15].Subtype != "view" {
		t.Errorf("line 15: %+v, %+v", byLine[15], second)
	}
	if r := msg(16); r.ToolName != "" || r.ToolCallID != "t9" {
		t.Errorf("orphan result %+v", r)
	}
	// A background sub-agent: its events are sidechain under task call
	// t4 (from subagent.started when they do not say it), in its own
	// turn; the main agent's events between them are not.
	for line, want := range map[int]bool{17: false, 18: true, 19: false, 20: true, 23: false, 24: false} {
		if e := byLine[line]; e.Sidechain != want || want && (e.TargetID != "t4" || e.TurnID != "ia1") {
			t.Errorf("line %d: sidechain %v target %q turn %q", line, e.Sidechain, e.TargetID, e.TurnID)
		}
	}
	if e := byLine[19]; e.TurnID != "i2" {
		t.Errorf("main turn_end turn %q", e.TurnID)
	}
	if e := byLine[18]; e.Subtype != "agent-5b0c1d2e-0000-4000-8000-00000000c0a1" {
		t.Errorf("sub-agent prompt subtype %q", e.Subtype)
	}
	if m := msg(20); m.Model != "m-small" || m.Usage != nil {
		t.Errorf("sub-agent answer %+v", m)
	}
	// The model change, then the error message names the new model.
	if e := byLine[21]; e.Type != session.TypeModelChange || e.ModelID != "gpt-5.1" || e.Subtype != "model_command" {
		t.Errorf("model change %+v", e)
	}
	if e := byLine[22]; e.Subtype != "rate_limit" || e.Message.StopReason != "error" || e.Message.ErrorMessage != "429 Too Many Requests" || e.Message.Model != "gpt-5.1" {
		t.Errorf("error %+v %+v", e, e.Message)
	}
	if e := byLine[23]; e.SubagentID != "A1" || e.TargetID != "t4" {
		t.Errorf("subagent.failed %+v", e)
	}
	if e := byLine[24]; e.SubagentID != "A1" || !e.Message.IsError || session.JoinText(e.Message.Content) != "sub-agent failed: boom" {
		t.Errorf("task result %+v", e)
	}
	// An attachment whose asset is on the line before gets its bytes; an
	// inline blob has its own.
	if m := msg(26); blocks(m) != "text,image,image" || m.Content[1].Data != "/9g=" || m.Content[1].MimeType != "image/jpeg" || m.Content[2].Data != "R0lGOD==" {
		t.Errorf("attachments %+v", m.Content)
	}
	meta := s.Metadata
	if strings.Join(meta.Models, ",") != "claude-sonnet-4.5,gpt-5,m-small" || meta.Errors != 1 || meta.ToolErrors != 2 || meta.Subagents != 1 ||
		meta.Usage.Requests != 3 || meta.Branch != "fix" {
		t.Errorf("metadata %+v", meta)
	}
	var det struct {
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg(24).Details, &det); err != nil || !strings.Contains(string(det.Error), "boom") {
		t.Errorf("details %s", msg(24).Details)
	}
}
