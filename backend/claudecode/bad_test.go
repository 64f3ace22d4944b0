package claudecode

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"rhizome/backend/session"
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

type wantProblem struct {
	line   int
	marker string // the problem's offset is where this first occurs in the input
	reason string
}

// TestBadInput: the corruption cases of §1.6 and the JSON Lines quirks the
// pi reader handles (ERRATA.md): every good line still comes out, bad ones
// are reported with file, line, byte offset and reason.
func TestBadInput(t *testing.T) {
	a, b, c := line("a", ""), line("b", "a"), line("c", "b")
	cases := []struct {
		name      string
		input     string
		ids       []string
		problems  []wantProblem
		pending   *wantProblem
		consumed  int // -1: all
		headerErr string
	}{
		{name: "empty file", input: "", headerErr: "claudecode: x.jsonl: not a Claude Code session: no JSON object in the first 64 lines"},
		{name: "truncated last line", input: a + "\n" + b + "\n" + c[:40], ids: []string{"a", "b"},
			pending: &wantProblem{3, c[:40], "still being written"}, consumed: len(a + "\n" + b + "\n")},
		{name: "malformed line between good ones", input: a + "\nnot json\n" + `{"type":"user","uuid":"x"` + "\n" + b + "\n", ids: []string{"a", "b"},
			problems: []wantProblem{{2, "not json", "line is not valid JSON"}, {3, `{"type":"user","uuid":"x"`, "line is not valid JSON: unexpected end of line"}}, consumed: -1},
		{name: "concatenated objects", input: a + b + "\n" + c + "  " + `{"type":"mode","mode":"plan","sessionId":"` + sess + `"}` + "\n", ids: []string{"a", "b", "c", "L2.2"}, consumed: -1},
		{name: "good object then garbage", input: a + "xyz\n" + b + "\n", ids: []string{"a", "b"},
			problems: []wantProblem{{1, "xyz", "rest of the line is not valid JSON"}}, consumed: -1},
		{name: "values that are not objects", input: a + "\n42\n[1]\n" + b + "\n", ids: []string{"a", "b"},
			problems: []wantProblem{{2, "42", "JSON value is a number, not an object"}, {3, "[1]", "is an array"}}, consumed: -1},
		{name: "object without type", input: a + "\n" + `{"uuid":"q"}` + "\n" + b + "\n", ids: []string{"a", "b"},
			problems: []wantProblem{{2, `{"uuid":"q"}`, `no "type"`}}, consumed: -1},
		{name: "CRLF, blank lines and a byte order mark", input: "\xEF\xBB\xBF" + a + "\r\n\r\n   \n" + b + "\r\n", ids: []string{"a", "b"}, consumed: -1},
		{name: "unknown type and fields kept", input: a + "\n" + `{"type":"hologram","uuid":"h","parentUuid":"a","sessionId":"` + sess + `","x":{"y":[1]}}` + "\n", ids: []string{"a", "h"}, consumed: -1},
		{name: "a pi session", input: `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			headerErr: `claudecode: x.jsonl: line 1: not a Claude Code session: first line is a pi session header (version 3) (a pi file)`},
		{name: "a Codex rollout", input: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"t"}}` + "\n",
			headerErr: `not a Claude Code session: first line is a Codex rollout item ("session_meta" with a payload) (a codex file)`},
		{name: "other JSON Lines", input: `{"event":"click","at":3}` + "\n",
			headerErr: `not a Claude Code session: JSON Lines whose first object has no type and keys at, event`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tc.input), "x.jsonl")
			_, err := r.Header()
			if tc.headerErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.headerErr) || !errors.Is(err, ErrNoHeader) {
					t.Fatalf("Header error %v, want one containing %q matching ErrNoHeader", err, tc.headerErr)
				}
				if _, err2 := r.Next(); err2 == nil {
					t.Errorf("Next after a header error: nil error")
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
			checkProblems(t, tc.input, "malformed", r.Malformed(), tc.problems)
			var pend []session.Problem
			if p := r.Pending(); p != nil {
				pend = append(pend, *p)
			}
			var wantPend []wantProblem
			if tc.pending != nil {
				wantPend = append(wantPend, *tc.pending)
			}
			checkProblems(t, tc.input, "pending", pend, wantPend)
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

func checkProblems(t *testing.T, input, what string, got []session.Problem, want []wantProblem) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s %v, want %d", what, got, len(want))
		return
	}
	for i, w := range want {
		p := got[i]
		if p.File != "x.jsonl" || p.Line != w.line || p.Offset != int64(strings.Index(input, w.marker)) || !strings.Contains(p.Reason, w.reason) {
			t.Errorf("%s %d = %v, want line %d offset %d reason ~%q", what, i, p, w.line, strings.Index(input, w.marker), w.reason)
		}
	}
}

// TestHugeLine: a line over the limit is reported and skipped without
// being held in memory; the lines around it come out.
func TestHugeLine(t *testing.T) {
	const limit = 1 << 20
	huge := `{"type":"user","uuid":"big","message":{"role":"user","content":"` + strings.Repeat("x", 3*limit) + `"}}`
	in := line("a", "") + "\n" + huge + "\n" + line("b", "a") + "\n"
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
	ps := r.Malformed()
	if strings.Join(ids, ",") != "a,b" || len(ps) != 1 || ps[0].Line != 2 || !strings.Contains(ps[0].Reason, "over the 1048576-byte limit") ||
		ps[0].Offset != int64(strings.Index(in, huge)) {
		t.Errorf("ids %v problems %v", ids, ps)
	}
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
