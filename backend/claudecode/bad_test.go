package claudecode

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

const sess = "7f1c2d3e-0000-4000-8000-00000000b001"

// line is a small Claude Code user line with the given uuid and parent.
func line(uuid, parent string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"parentUuid":` + p + `,"type":"user","uuid":"` + uuid + `","sessionId":"` + sess + `","cwd":"/w","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi ` + uuid + `"}}`
}

// TestBadInput: the corruption cases of §1.6 and the JSON Lines quirks the
// pi reader handles (ERRATA.md): every good line still comes out, bad ones
// are reported with file, line, byte offset and reason.
func TestBadInput(t *testing.T) {
	a, b, c := line("a", ""), line("b", "a"), line("c", "b")
	cases := []sessionlogtest.BadCase{
		{Name: "empty file", Input: "", HeaderErr: "claudecode: x.jsonl: not a Claude Code session: no JSON object in the first 64 lines"},
		{Name: "truncated last line", Input: a + "\n" + b + "\n" + c[:40], IDs: []string{"a", "b"},
			Pending: &sessionlogtest.Problem{Line: 3, Marker: c[:40], Reason: "still being written"}, Consumed: len(a + "\n" + b + "\n")},
		{Name: "malformed line between good ones", Input: a + "\nnot json\n" + `{"type":"user","uuid":"x"` + "\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "not json", Reason: "line is not valid JSON"}, {Line: 3, Marker: `{"type":"user","uuid":"x"`, Reason: "line is not valid JSON: unexpected end of line"}}, Consumed: -1},
		{Name: "concatenated objects", Input: a + b + "\n" + c + "  " + `{"type":"mode","mode":"plan","sessionId":"` + sess + `"}` + "\n", IDs: []string{"a", "b", "c", "L2.2"}, Consumed: -1},
		{Name: "good object then garbage", Input: a + "xyz\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 1, Marker: "xyz", Reason: "rest of the line is not valid JSON"}}, Consumed: -1},
		{Name: "values that are not objects", Input: a + "\n42\n[1]\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "42", Reason: "JSON value is a number, not an object"}, {Line: 3, Marker: "[1]", Reason: "is an array"}}, Consumed: -1},
		{Name: "object without type", Input: a + "\n" + `{"uuid":"q"}` + "\n" + b + "\n", IDs: []string{"a", "b"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: `{"uuid":"q"}`, Reason: `no "type"`}}, Consumed: -1},
		{Name: "CRLF, blank lines and a byte order mark", Input: "\xEF\xBB\xBF" + a + "\r\n\r\n   \n" + b + "\r\n", IDs: []string{"a", "b"}, Consumed: -1},
		{Name: "unknown type and fields kept", Input: a + "\n" + `{"type":"hologram","uuid":"h","parentUuid":"a","sessionId":"` + sess + `","x":{"y":[1]}}` + "\n", IDs: []string{"a", "h"}, Consumed: -1},
		{Name: "a pi session", Input: `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			HeaderErr: `claudecode: x.jsonl: line 1: not a Claude Code session: first line is a pi session header (version 3) (a pi file)`},
		{Name: "a Codex rollout", Input: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"t"}}` + "\n",
			HeaderErr: `not a Claude Code session: first line is a Codex rollout item ("session_meta" with a payload) (a codex file)`},
		{Name: "other JSON Lines", Input: `{"event":"click","at":3}` + "\n",
			HeaderErr: `not a Claude Code session: JSON Lines whose first object has no type and keys at, event`},
	}
	sessionlogtest.CheckBadInput(t, cases, openLog)
}

// TestHugeLine: a line over the limit is reported and skipped without
// being held in memory; the lines around it come out.
func TestHugeLine(t *testing.T) {
	const limit = 1 << 20
	huge := `{"type":"user","uuid":"big","message":{"role":"user","content":"` + strings.Repeat("x", 3*limit) + `"}}`
	in := line("a", "") + "\n" + huge + "\n" + line("b", "a") + "\n"
	sessionlogtest.CheckHugeLine(t, NewReader(strings.NewReader(in), "x.jsonl"), in, huge, 2, "a,b")
	// The same line within the default limit is read whole.
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil || len(s.Entries) != 3 || len(session.EntryText(&s.Entries[1])) != 3*limit {
		t.Errorf("default limit: %v", err)
	}
}

// TestFieldOfWrongType keeps the entry and names the field in a warning.
func TestFieldOfWrongType(t *testing.T) {
	in := line("a", "") + "\n" + `{"type":"assistant","uuid":"b","parentUuid":7,"sessionId":"` + sess + `","message":{"role":"assistant","content":[],"usage":{"input_tokens":"many"}}}` + "\n"
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 2 || s.Entries[1].ParentID != "" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Reason, `field "parentUuid"`) {
		t.Errorf("entries %d warnings %v", len(s.Entries), s.Warnings)
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
