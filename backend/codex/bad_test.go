package codex

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"rhizome/backend/session"
)

const meta = `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"0198a1b0-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","cli_version":"0.50.0"}}`

// item is a small enveloped user message with the given text.
func item(text string) string {
	return `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"` + text + `"}]}}`
}

type wantProblem struct {
	line   int
	marker string
	reason string
}

// TestBadInput: the corruption cases (§2.6 and the JSON Lines quirks of
// ERRATA.md): every good line comes out, bad ones are reported with file,
// line, byte offset and reason.
func TestBadInput(t *testing.T) {
	a, b := item("a"), item("b")
	cases := []struct {
		name      string
		input     string
		ids       []string
		problems  []wantProblem
		pending   *wantProblem
		consumed  int
		headerErr string
	}{
		{name: "empty file", input: "", headerErr: "codex: x.jsonl: not a Codex rollout: no JSON object in the first 64 lines"},
		{name: "truncated last line", input: meta + "\n" + a + "\n" + b[:50], ids: []string{"L1", "L2"},
			pending: &wantProblem{3, b[:50], "still being written"}, consumed: len(meta + "\n" + a + "\n")},
		{name: "malformed line between good ones", input: meta + "\n" + a + "\n{oops\n" + b + "\n", ids: []string{"L1", "L2", "L4"},
			problems: []wantProblem{{3, "{oops", "line is not valid JSON"}}, consumed: -1},
		{name: "concatenated objects", input: meta + a + "\n" + b + " " + a + "\n", ids: []string{"L1", "L1.2", "L2", "L2.2"}, consumed: -1},
		{name: "object without type", input: meta + "\n" + `{"payload":{}}` + "\n" + a + "\n", ids: []string{"L1", "L3"},
			problems: []wantProblem{{2, `{"payload":{}}`, `no "type"`}}, consumed: -1},
		{name: "value that is not an object", input: meta + "\n" + `"text"` + "\n" + a + "\n", ids: []string{"L1", "L3"},
			problems: []wantProblem{{2, `"text"`, "JSON value is a string, not an object"}}, consumed: -1},
		{name: "unknown type kept", input: meta + "\n" + `{"timestamp":"2026-01-01T00:00:02Z","type":"hologram","payload":{"x":1}}` + "\n", ids: []string{"L1", "L2"}, consumed: -1},
		{name: "CRLF and blank lines", input: meta + "\r\n\r\n" + a + "\r\n", ids: []string{"L1", "L3"}, consumed: -1},
		{name: "a Claude Code session", input: `{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n",
			headerErr: `codex: x.jsonl: line 1: not a Codex rollout: first line is a Claude Code "user" line (a claude-code file)`},
		{name: "a pi session", input: `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			headerErr: "not a Codex rollout: first line is a pi session header (version 3) (a pi file)"},
		{name: "no session_meta", input: a + "\n" + b + "\n", headerErr: "not a Codex rollout: no session_meta in the first 64 lines"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.input), "x.jsonl")
			_, err := r.Header()
			if tc.headerErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.headerErr) || !errors.Is(err, ErrNoHeader) {
					t.Fatalf("Header error %v, want one containing %q matching ErrNoHeader", err, tc.headerErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal([]byte(tc.input[e.Offset:e.Offset+int64(len(e.Raw))]), e.Raw) {
					t.Errorf("entry %s: Raw is not the input at %d", e.ID, e.Offset)
				}
				ids = append(ids, e.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
				t.Errorf("ids %v, want %v", ids, tc.ids)
			}
			check := func(what string, got []session.Problem, want []wantProblem) {
				if len(got) != len(want) {
					t.Errorf("%s %v, want %d", what, got, len(want))
					return
				}
				for i, w := range want {
					p := got[i]
					off := strings.Index(tc.input, w.marker)
					if what == "pending" {
						off = strings.LastIndex(tc.input, w.marker) // the last line
					}
					if p.File != "x.jsonl" || p.Line != w.line || p.Offset != int64(off) || !strings.Contains(p.Reason, w.reason) {
						t.Errorf("%s %d = %v, want line %d offset %d reason ~%q", what, i, p, w.line, off, w.reason)
					}
				}
			}
			check("malformed", r.Malformed(), tc.problems)
			var pend []session.Problem
			if p := r.Pending(); p != nil {
				pend = append(pend, *p)
			}
			var wantPend []wantProblem
			if tc.pending != nil {
				wantPend = append(wantPend, *tc.pending)
			}
			check("pending", pend, wantPend)
			want := int64(tc.consumed)
			if tc.consumed == -1 {
				want = int64(len(tc.input))
			}
			if r.Consumed() != want {
				t.Errorf("Consumed %d, want %d", r.Consumed(), want)
			}
		})
	}
}

// TestHugeLine: a line over the limit (a compacted replacement history with
// images can be several MB, §2.3) is reported, not held; the rest reads.
func TestHugeLine(t *testing.T) {
	const limit = 1 << 20
	huge := `{"timestamp":"2026-01-01T00:00:03Z","type":"compacted","payload":{"message":"","replacement_history":["` + strings.Repeat("i", 2*limit) + `"]}}`
	in := meta + "\n" + huge + "\n" + item("after") + "\n"
	r := NewReader(strings.NewReader(in), "x.jsonl")
	r.SetMaxLineBytes(limit)
	var ids []string
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if ps := r.Malformed(); strings.Join(ids, ",") != "L1,L3" || len(ps) != 1 || ps[0].Line != 2 || !strings.Contains(ps[0].Reason, "over the 1048576-byte limit") {
		t.Errorf("ids %v problems %v", ids, ps)
	}
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
