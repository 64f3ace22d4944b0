package codex

import (
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

const meta = `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"0198a1b0-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","cli_version":"0.50.0"}}`

// item is a small enveloped user message with the given text.
func item(text string) string {
	return `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}`
}

// TestBadInput: the corruption cases (§2.6 and the JSON Lines quirks of
// ERRATA.md): every good line comes out, bad ones are reported with file,
// line, byte offset and reason.
func TestBadInput(t *testing.T) {
	a, b := item("a"), item("b")
	cases := []sessionlogtest.BadCase{
		{Name: "empty file", Input: "", HeaderErr: "codex: x.jsonl: not a Codex rollout: no JSON object in the first 64 lines"},
		{Name: "truncated last line", Input: meta + "\n" + a + "\n" + b[:50], IDs: []string{"L1", "L2"},
			Pending: &sessionlogtest.Problem{Line: 3, Marker: b[:50], Reason: "still being written"}, Consumed: len(meta + "\n" + a + "\n")},
		{Name: "malformed line between good ones", Input: meta + "\n" + a + "\n{oops\n" + b + "\n", IDs: []string{"L1", "L2", "L4"},
			Problems: []sessionlogtest.Problem{{Line: 3, Marker: "{oops", Reason: "line is not valid JSON"}}, Consumed: -1},
		{Name: "concatenated objects", Input: meta + a + "\n" + b + " " + a + "\n", IDs: []string{"L1", "L1.2", "L2", "L2.2"}, Consumed: -1},
		{Name: "object without type", Input: meta + "\n" + `{"payload":{}}` + "\n" + a + "\n", IDs: []string{"L1", "L3"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: `{"payload":{}}`, Reason: `no "type"`}}, Consumed: -1},
		{Name: "value that is not an object", Input: meta + "\n" + `"text"` + "\n" + a + "\n", IDs: []string{"L1", "L3"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: `"text"`, Reason: "JSON value is a string, not an object"}}, Consumed: -1},
		{Name: "unknown type kept", Input: meta + "\n" + `{"timestamp":"2026-01-01T00:00:02Z","type":"hologram","payload":{"x":1}}` + "\n", IDs: []string{"L1", "L2"}, Consumed: -1},
		{Name: "CRLF and blank lines", Input: meta + "\r\n\r\n" + a + "\r\n", IDs: []string{"L1", "L3"}, Consumed: -1},
		{Name: "a Claude Code session", Input: `{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n",
			HeaderErr: `codex: x.jsonl: line 1: not a Codex rollout: first line is a Claude Code "user" line (a claude-code file)`},
		{Name: "a pi session", Input: `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			HeaderErr: "not a Codex rollout: first line is a pi session header (version 3) (a pi file)"},
		{Name: "no session_meta", Input: a + "\n" + b + "\n", HeaderErr: "not a Codex rollout: no session_meta in the first 64 lines"},
	}
	sessionlogtest.CheckBadInput(t, cases, openLog)
}

// TestHugeLine: a line over the limit (a compacted replacement history with
// images can be several MB, §2.3) is reported, not held; the rest reads.
func TestHugeLine(t *testing.T) {
	const limit = 1 << 20
	huge := `{"timestamp":"2026-01-01T00:00:03Z","type":"compacted","payload":{"message":"","replacement_history":["` + strings.Repeat("i", 2*limit) + `"]}}`
	in := meta + "\n" + huge + "\n" + item("after") + "\n"
	sessionlogtest.CheckHugeLine(t, NewReader(strings.NewReader(in), "x.jsonl"), in, huge, 2, "L1,L3")
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil || len(s.Entries) != 3 || s.Entries[1].Type != session.TypeCompaction {
		t.Errorf("default limit: %v", err)
	}
}

// TestIndexProblems: session_index.jsonl lines that are not index entries
// are reported; the last name of a thread wins.
func TestIndexProblems(t *testing.T) {
	in := `{"id":"t1","thread_name":"first"}` + "\n" + "garbage\n" + `{"thread_name":"no id"}` + "\n" + `{"id":"t1","thread_name":"second"}` + "\n" + `{"id":"t2","thr`
	idx, ps, err := ReadIndex(strings.NewReader(in), "session_index.jsonl")
	if err != nil || idx["t1"].Name != "second" || len(idx) != 1 || len(ps) != 3 || ps[0].Line != 2 || ps[0].Offset != int64(strings.Index(in, "garbage")) ||
		!strings.Contains(ps[2].Reason, "still being written") {
		t.Errorf("index %v problems %v err %v", idx, ps, err)
	}
}
