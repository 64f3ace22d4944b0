package qwen

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

const sess = "9d4e6b21-0000-4000-8000-00000000b001"

// line is a small Qwen Code user record with the given uuid and parent.
func line(uuid, parent string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"uuid":"` + uuid + `","parentUuid":` + p + `,"sessionId":"` + sess + `","timestamp":"2026-12-03T09:37:40.986Z","type":"user","provenance":"real_user","cwd":"/w","version":"0.24.4","message":{"role":"user","parts":[{"text":"hi ` + uuid + `"}]}}`
}

// TestBadInput: a truncated last line, garbage between good lines, values
// that are not records, and the JSON Lines quirks every reader handles:
// every good line still comes out, bad ones are reported with file, line,
// byte offset and reason; a file of another format says what it is.
func TestBadInput(t *testing.T) {
	a, b, c := line("a", ""), line("b", "a"), line("c", "b")
	cases := []sessionlogtest.BadCase{
		{Name: "empty file", Input: "", HeaderErr: "qwen: x.jsonl: not a Qwen Code session: no JSON object in the first 64 lines"},
		{Name: "truncated last line", Input: a + "\n" + b + "\n" + c[:40], IDs: []string{"a", "b"},
			Pending: &sessionlogtest.Problem{Line: 3, Marker: c[:40], Reason: "still being written"}, Consumed: len(a + "\n" + b + "\n")},
		{Name: "a line of garbage between good ones", Input: a + "\n\x00\x17 garbage }{\n" + `{"type":"user","uuid":"x"` + "\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "\x00\x17 garbage", Reason: "line is not valid JSON"}, {Line: 3, Marker: `{"type":"user","uuid":"x"`, Reason: "line is not valid JSON: unexpected end of line"}}, Consumed: -1},
		{Name: "truncated line in the middle", Input: a + "\n" + c[:60] + "\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: c[:60], Reason: "line is not valid JSON"}}, Consumed: -1},
		{Name: "concatenated objects", Input: a + b + "\n" + c + "  " + `{"type":"system","subtype":"session_source","sessionId":"` + sess + `"}` + "\n", IDs: []string{"a", "b", "c", "L2.2"}, Consumed: -1},
		{Name: "good object then garbage", Input: a + "xyz\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 1, Marker: "xyz", Reason: "rest of the line is not valid JSON"}}, Consumed: -1},
		{Name: "values that are not objects", Input: a + "\n42\n[1]\n\"just a string\"\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "42", Reason: "JSON value is a number, not an object"}, {Line: 3, Marker: "[1]", Reason: "is an array"},
				{Line: 4, Marker: `"just a string"`, Reason: "is a string"}}, Consumed: -1},
		{Name: "object without type", Input: a + "\n" + `{"uuid":"q"}` + "\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: `{"uuid":"q"}`, Reason: `no "type"`}}, Consumed: -1},
		{Name: "CRLF, blank lines and a byte order mark", Input: "\xEF\xBB\xBF" + a + "\r\n\r\n   \n" + b + "\r\n", IDs: []string{"a", "b"}, Consumed: -1},
		{Name: "unknown type and fields kept", Input: a + "\n" + `{"type":"hologram","uuid":"h","parentUuid":"a","sessionId":"` + sess + `","x":{"y":[1]}}` + "\n", IDs: []string{"a", "h"}, Consumed: -1},
		{Name: "a Claude Code session", Input: `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","timestamp":"2026-01-01T00:00:01.000Z","sessionId":"s","cwd":"/w"}` + "\n",
			HeaderErr: `qwen: x.jsonl: line 1: not a Qwen Code session: first line is a Claude Code "user" line (a claude-code file)`},
		{Name: "a pi session", Input: `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			HeaderErr: `not a Qwen Code session: first line is a pi session header (version 3) (a pi file)`},
		{Name: "a Codex rollout", Input: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"t"}}` + "\n",
			HeaderErr: `not a Qwen Code session: first line is a Codex rollout item ("session_meta" with a payload) (a codex file)`},
		{Name: "other JSON Lines", Input: `{"event":"click","at":3}` + "\n",
			HeaderErr: `not a Qwen Code session: JSON Lines whose first object has no type and keys at, event`},
	}
	sessionlogtest.CheckBadInput(t, cases, openLog)
}

// TestFieldsOfWrongType keep their record and name the field in a warning
// with its line: a parentUuid that is a number, a token count that is a
// string, parts that are not a list, a time that is not a time, a
// systemPayload of the wrong shape.
func TestFieldsOfWrongType(t *testing.T) {
	in := line("a", "") + "\n" +
		`{"uuid":"b","parentUuid":7,"sessionId":"` + sess + `","type":"assistant","model":"m","message":{"role":"model","parts":[{"text":"ok"}]},"usageMetadata":{"promptTokenCount":"many"}}` + "\n" +
		`{"uuid":"c","parentUuid":"b","sessionId":"` + sess + `","type":"user","timestamp":"yesterday","message":{"role":"user","parts":"hi"}}` + "\n" +
		`{"uuid":"d","parentUuid":"c","sessionId":"` + sess + `","type":"system","subtype":"chat_compression","systemPayload":{"info":{"originalTokenCount":"lots"},"compressedHistory":{}}}` + "\n" +
		`{"uuid":"e","parentUuid":"d","sessionId":"` + sess + `","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"x","name":"read_file","response":{"error":"gone"}}}]},"toolCallResult":{"callId":"x","status":42}}` + "\n"
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 5 || s.MalformedCount != 0 {
		t.Fatalf("%d entries, malformed %v", len(s.Entries), s.Malformed)
	}
	want := []struct {
		line  int
		field string
	}{{2, `field "parentUuid"`}, {3, `field "message.parts"`}, {3, `field "timestamp": "yesterday"`}, {4, `field "systemPayload"`}, {5, `field "toolCallResult"`}}
	if len(s.Warnings) != len(want) {
		t.Fatalf("warnings %v", s.Warnings)
	}
	for i, w := range want {
		if p := s.Warnings[i]; p.Line != w.line || !strings.Contains(p.Reason, w.field) || p.File != "x.jsonl" {
			t.Errorf("warning %d = %v, want line %d ~%s", i, p, w.line, w.field)
		}
	}
	if e := s.Entries[1]; e.ParentID != "" || e.Message.Model != "m" || session.EntryText(&e) != "ok" {
		t.Errorf("assistant kept as %+v", e)
	}
	if e := s.Entries[3]; e.Type != session.TypeCompaction {
		t.Errorf("compression kept as %+v", e)
	}
	if m := s.Entries[4].Message; !m.IsError || m.ToolCallID != "x" || session.JoinText(m.Content) != "gone" {
		t.Errorf("error result kept as %+v", m)
	}
}

// TestHugeLine: a line over the limit is reported and skipped without
// being held in memory; the lines around it come out.
func TestHugeLine(t *testing.T) {
	const limit = 1 << 20
	huge := `{"type":"user","uuid":"big","message":{"role":"user","parts":[{"text":"` + strings.Repeat("x", 3*limit) + `"}]}}`
	in := line("a", "") + "\n" + huge + "\n" + line("b", "a") + "\n"
	sessionlogtest.CheckHugeLine(t, NewReader(strings.NewReader(in), "x.jsonl"), in, huge, 2, "a,b")
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil || len(s.Entries) != 3 || len(session.EntryText(&s.Entries[1])) != 3*limit {
		t.Errorf("default limit: %v", err)
	}
}

// TestReadErrorNamesFile: a failing input stops Next with an error naming
// the file and line; ReadFile names a missing file.
func TestReadErrorNamesFile(t *testing.T) {
	cause := errors.New("disk on fire")
	r := NewReader(io.MultiReader(strings.NewReader(line("a", "")+"\n"), errReader{cause}), "x.jsonl")
	if e, err := r.Next(); err != nil || e.ID != "a" {
		t.Fatalf("Next = %v %v", e, err)
	}
	if _, err := r.Next(); !errors.Is(err, cause) || !strings.Contains(err.Error(), "x.jsonl: line 2: read") {
		t.Errorf("Next = %v", err)
	}
	if _, err := ReadFile("testdata/none.jsonl"); err == nil || !strings.Contains(err.Error(), "testdata/none.jsonl") {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := os.Stat("testdata/none.jsonl"); err == nil {
		t.Fatal("testdata/none.jsonl exists")
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
