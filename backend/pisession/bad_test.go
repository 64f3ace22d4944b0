package pisession

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

const hdr = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`

// u is a small version 3 user message entry with the given id.
func u(id string) string {
	return `{"type":"message","id":"` + id + `","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi ` + id + `","timestamp":1}}`
}

// wantProblem locates a problem by a marker in the input: its offset is where
// the marker starts (found with strings.Index, not by the reader).
type wantProblem struct {
	line   int
	marker string
	reason string // a substring of the reason
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name      string
		input     string
		ids       []string // entry ids in order
		lines     []int    // entry lines, if checked
		problems  []wantProblem
		warnings  []string // substrings, in order
		pending   *wantProblem
		consumed  int    // -1: the whole input
		lineCount int    // Lines()
		headerErr string // substring of the session.Header error; "" for none
	}{
		{
			name:      "empty file",
			input:     "",
			consumed:  0,
			headerErr: "pisession: x.jsonl: missing session header: empty file",
		},
		{
			name:      "blank lines only",
			input:     "\n  \n\r\n",
			consumed:  -1,
			lineCount: 3,
			headerErr: "no JSON object in 3 lines (0 malformed)",
		},
		{
			name:      "binary junk",
			input:     "\x00\x01\x02\xff\xfe\n\x89PNG\r\n\x1a\n",
			problems:  []wantProblem{{1, "\x00", "not valid JSON"}, {2, "\x89PNG", "not valid JSON"}, {3, "\x1a", "not valid JSON"}},
			consumed:  -1,
			lineCount: 3,
			headerErr: "no JSON object in 3 lines (3 malformed)",
		},
		{
			name:      "missing header",
			input:     u("m1") + "\n" + u("m2") + "\n",
			headerErr: `pisession: x.jsonl: line 1: missing session header (first object has type "message")`,
		},
		{
			name:      "header without id",
			input:     `{"type":"session","version":3}` + "\n",
			headerErr: `line 1: session header has no "id"`,
		},
		{
			name:      "header with a field of the wrong type",
			input:     `{"type":"session","version":"3","id":"s"}` + "\n",
			headerErr: `line 1: session header: field "version": a string`,
		},
		{
			name:      "header still being written",
			input:     `{"type":"session","versi`,
			pending:   &wantProblem{1, `{"type"`, "still being written"},
			consumed:  0,
			headerErr: "line 1: missing session header: it is still being written",
		},
		{
			name:      "garbage before the header",
			input:     "garbage\n" + hdr + "\n" + u("a") + "\n",
			ids:       []string{"a"},
			lines:     []int{3},
			problems:  []wantProblem{{1, "garbage", "line is not valid JSON: invalid character 'g'"}},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name: "garbage lines between good lines",
			input: hdr + "\n" + u("a") + "\n" + "not json at all\n" + u("b") + "\n" + "\x00\x00\x00\n" +
				`{"type":"message","id":"broken"` + "\n" + u("c") + "\n",
			ids:   []string{"a", "b", "c"},
			lines: []int{2, 4, 7},
			problems: []wantProblem{
				{3, "not json", "line is not valid JSON"},
				{5, "\x00\x00\x00", "invalid character '\\x00'"},
				{6, `{"type":"message","id":"broken"`, "line is not valid JSON: unexpected end of line (column 32)"},
			},
			consumed:  -1,
			lineCount: 7,
		},
		{
			name:      "half-written last line",
			input:     hdr + "\n" + u("a") + "\n" + `{"type":"message","id":"b","message":{"role":"us`,
			ids:       []string{"a"},
			pending:   &wantProblem{3, `{"type":"message","id":"b"`, "still being written"},
			consumed:  len(hdr + "\n" + u("a") + "\n"),
			lineCount: 2,
		},
		{
			name:      "last line without newline that parses",
			input:     hdr + "\n" + u("a") + "\n" + u("b"),
			ids:       []string{"a", "b"},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name:      "last line without newline: good object then a half-written one",
			input:     hdr + "\n" + u("a") + "\n" + u("b") + `{"type":"mess`,
			ids:       []string{"a"},
			pending:   &wantProblem{3, u("b"), "still being written"},
			consumed:  len(hdr + "\n" + u("a") + "\n"),
			lineCount: 2,
		},
		{
			name:      "CRLF line endings",
			input:     hdr + "\r\n" + u("a") + "\r\n" + u("b") + "\r\n",
			ids:       []string{"a", "b"},
			lines:     []int{2, 3},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name:      "blank lines and indentation",
			input:     "\n" + hdr + "\n\n  \t\n   " + u("a") + "   \n\n",
			ids:       []string{"a"},
			lines:     []int{5},
			consumed:  -1,
			lineCount: 6,
		},
		{
			name:      "UTF-8 byte order mark",
			input:     "\xEF\xBB\xBF" + hdr + "\n" + u("a") + "\n",
			ids:       []string{"a"},
			consumed:  -1,
			lineCount: 2,
		},
		{
			name:      "two objects on one line",
			input:     hdr + "\n" + u("a") + u("b") + "\n" + u("c") + "  " + u("d") + "\n",
			ids:       []string{"a", "b", "c", "d"},
			lines:     []int{2, 2, 3, 3},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name:      "header and entry on one line",
			input:     hdr + u("a") + "\n" + u("b") + "\n",
			ids:       []string{"a", "b"},
			lines:     []int{1, 2},
			consumed:  -1,
			lineCount: 2,
		},
		{
			name:      "concatenated good object and garbage",
			input:     hdr + "\n" + u("a") + `{"type":"mess` + "\n" + u("b") + "\n",
			ids:       []string{"a", "b"},
			problems:  []wantProblem{{2, `{"type":"mess` + "\n", "rest of the line is not valid JSON: unexpected end of line (column 153)"}},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name:      "good object then trailing junk",
			input:     hdr + "\n" + u("a") + "xyz\n" + u("b") + "\n",
			ids:       []string{"a", "b"},
			problems:  []wantProblem{{2, "xyz", "rest of the line is not valid JSON: invalid character 'x'"}},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name:  "JSON values that are not objects",
			input: hdr + "\n42\n[]\n\"s\"\nnull\ntrue\n" + u("a") + "7\n",
			ids:   []string{"a"},
			problems: []wantProblem{{2, "42", "JSON value is a number, not an object"}, {3, "[]", "is an array"},
				{4, `"s"`, "is a string"}, {5, "null", "is null"}, {6, "true", "is a boolean"}, {7, "7\n", "is a number"}},
			consumed:  -1,
			lineCount: 7,
		},
		{
			name:      "object without type",
			input:     hdr + "\n" + `{"id":"x","message":{}}` + "\n" + `{"type":7}` + "\n" + u("a") + "\n",
			ids:       []string{"a"},
			problems:  []wantProblem{{2, `{"id":"x"`, `no "type"`}, {3, `{"type":7}`, `no "type"`}},
			consumed:  -1,
			lineCount: 4,
		},
		{
			name: "field of the wrong type: entry kept, warning names the field",
			input: hdr + "\n" + `{"type":"message","id":"m","message":{"role":"assistant","content":[],"usage":{"input":"many","output":3}}}` + "\n" +
				`{"type":"compaction","id":"c","tokensBefore":"lots","summary":"s"}` + "\n",
			ids:       []string{"m", "c"},
			warnings:  []string{`field "message.usage.input": a string where int64 is expected`, `field "tokensBefore"`},
			consumed:  -1,
			lineCount: 3,
		},
		{
			name:      "content of the wrong type",
			input:     hdr + "\n" + `{"type":"message","id":"m","message":{"role":"user","content":17}}` + "\n",
			ids:       []string{"m"},
			warnings:  []string{`field "message.content": a number where string or array of content blocks is expected`},
			consumed:  -1,
			lineCount: 2,
		},
		{
			name:      "unparseable timestamp",
			input:     hdr + "\n" + `{"type":"label","id":"l","timestamp":"yesterday","targetId":"x","label":"y"}` + "\n",
			ids:       []string{"l"},
			warnings:  []string{`field "timestamp": "yesterday" is not an ISO 8601 time`},
			consumed:  -1,
			lineCount: 2,
		},
		{
			name:      "invalid UTF-8 inside a string",
			input:     hdr + "\n" + `{"type":"message","id":"m","message":{"role":"user","content":"caf` + "\xe9" + `"}}` + "\n",
			ids:       []string{"m"},
			warnings:  []string{"invalid UTF-8"},
			consumed:  -1,
			lineCount: 2,
		},
		{
			name:      "NUL byte inside a string",
			input:     hdr + "\n" + `{"type":"message","id":"m","message":{"role":"user","content":"a` + "\x00" + `b"}}` + "\n" + u("a") + "\n",
			ids:       []string{"a"},
			problems:  []wantProblem{{2, `{"type":"message","id":"m"`, "invalid character '\\x00' in string literal"}},
			consumed:  -1,
			lineCount: 3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(c.input), "x.jsonl")
			_, err := r.Header()
			if c.headerErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.headerErr) || !errors.Is(err, session.ErrNoHeader) {
					t.Fatalf("Header error = %v, want one containing %q and matching session.ErrNoHeader", err, c.headerErr)
				}
				if _, err2 := r.Next(); err2 == nil || err2.Error() != err.Error() {
					t.Errorf("Next after a header error = %v, want the same error", err2)
				}
			} else if err != nil {
				t.Fatalf("Header: %v", err)
			}
			var ids []string
			var lines []int
			for c.headerErr == "" {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				if e.Type == "" {
					t.Errorf("entry with empty type")
				}
				if !bytes.Equal([]byte(c.input[e.Offset:e.Offset+int64(len(e.Raw))]), e.Raw) {
					t.Errorf("entry %s: Raw is not the input at offset %d", e.ID, e.Offset)
				}
				ids = append(ids, e.ID)
				lines = append(lines, e.Line)
			}
			if strings.Join(ids, ",") != strings.Join(c.ids, ",") {
				t.Errorf("entries %v, want %v", ids, c.ids)
			}
			if c.lines != nil && !equalInts(lines, c.lines) {
				t.Errorf("entry lines %v, want %v", lines, c.lines)
			}
			checkProblems(t, "malformed", c.input, r.Malformed(), c.problems)
			ws := r.Warnings()
			if len(ws) != len(c.warnings) {
				t.Errorf("warnings %v, want %d", ws, len(c.warnings))
			} else {
				for i, w := range c.warnings {
					if !strings.Contains(ws[i].Reason, w) || ws[i].File != "x.jsonl" {
						t.Errorf("warning %d = %v, want reason containing %q", i, ws[i], w)
					}
				}
			}
			var pend []wantProblem
			if c.pending != nil {
				pend = []wantProblem{*c.pending}
			}
			var gotPend []session.Problem
			if p := r.Pending(); p != nil {
				gotPend = []session.Problem{*p}
			}
			checkProblems(t, "pending", c.input, gotPend, pend)
			if c.headerErr == "" || c.consumed != 0 || c.lineCount != 0 {
				want := int64(c.consumed)
				if c.consumed == -1 {
					want = int64(len(c.input))
				}
				if r.Consumed() != want {
					t.Errorf("Consumed = %d, want %d", r.Consumed(), want)
				}
				if r.Lines() != c.lineCount {
					t.Errorf("Lines = %d, want %d", r.Lines(), c.lineCount)
				}
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func checkProblems(t *testing.T, what, input string, got []session.Problem, want []wantProblem) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %v, want %d", what, got, len(want))
		return
	}
	for i, w := range want {
		p := got[i]
		off := strings.Index(input, w.marker)
		if p.Line != w.line || p.Offset != int64(off) || !strings.Contains(p.Reason, w.reason) || p.File != "x.jsonl" {
			t.Errorf("%s %d = %v, want line %d offset %d reason containing %q", what, i, p, w.line, off, w.reason)
		}
	}
}

// TestInvalidUTF8IsReplaced checks what the warning promises.
func TestInvalidUTF8IsReplaced(t *testing.T) {
	s, err := Read(strings.NewReader(hdr+"\n"+`{"type":"message","id":"m","message":{"role":"user","content":"caf`+"\xe9"+`"}}`+"\n"), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Entries[0].Message.Content[0].Text; got != "caf\uFFFD" || !utf8.ValidString(got) {
		t.Errorf("text = %q, want %q", got, "caf\uFFFD")
	}
}

// TestHugeLines reads 50 MB lines: a valid user message is read whole; a
// garbage line of the same size is reported and the next entry still comes out.
func TestHugeLines(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB lines")
	}
	const size = 50 << 20
	text := strings.Repeat("0123456789abcdef", size/16)
	var in bytes.Buffer
	in.WriteString(hdr + "\n")
	in.WriteString(`{"type":"message","id":"big","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1}}` + "\n")
	garbageAt := in.Len()
	in.WriteString(`{"type":"message","id":"junk","message":{"role":"user","content":"` + text[:size-100] + "\n") // unterminated string
	in.WriteString(u("after") + "\n")
	input := in.Bytes()

	r := NewReader(bytes.NewReader(input), "big.jsonl")
	var got []*session.Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 2 || got[0].ID != "big" || got[1].ID != "after" || got[1].Line != 4 {
		t.Fatalf("got %d entries, want big then after (line 4)", len(got))
	}
	if tx := got[0].Message.Content[0].Text; len(tx) != len(text) || tx != text {
		t.Errorf("text of the big message: %d bytes, want %d", len(tx), len(text))
	}
	ps := r.Malformed()
	if len(ps) != 1 || ps[0].Line != 3 || ps[0].Offset != int64(garbageAt) || !strings.Contains(ps[0].Reason, "not valid JSON") {
		t.Errorf("malformed = %v, want line 3 at offset %d", ps, garbageAt)
	}
	if r.Consumed() != int64(len(input)) {
		t.Errorf("Consumed = %d, want %d", r.Consumed(), len(input))
	}
}

// TestLineLimit checks the boundary of the line limit with a small limit: a
// line of exactly the limit is read, one byte more is reported and skipped,
// without its bytes being accumulated.
func TestLineLimit(t *testing.T) {
	const limit = 1 << 20
	pad := func(n int) string { // a user message of exactly n bytes
		base := u("p")
		return base[:len(base)-len(`","timestamp":1}}`)] + strings.Repeat("x", n-len(base)) + `","timestamp":1}}`
	}
	exact, over := pad(limit), pad(limit+1)
	huge := strings.Repeat("y", 3*limit+readBufferBytes)
	input := hdr + "\n" + exact + "\n" + over + "\n" + huge + "\n" + u("a") + "\n"
	r := NewReader(strings.NewReader(input), "x.jsonl")
	r.SetMaxLineBytes(limit)
	var ids []string
	sessionlogtest.Each(t, r, func(e *session.Entry) {
		ids = append(ids, e.ID)
		if cap(r.buf) > limit+readBufferBytes {
			t.Errorf("line buffer grew to %d bytes, over the limit", cap(r.buf))
		}
	})
	if strings.Join(ids, ",") != "p,a" {
		t.Errorf("entries %v, want p,a", ids)
	}
	ps := r.Malformed()
	if len(ps) != 2 || ps[0].Line != 3 || ps[1].Line != 4 ||
		ps[0].Offset != int64(strings.Index(input, over)) || ps[1].Offset != int64(strings.Index(input, huge)) ||
		!strings.Contains(ps[0].Reason, "over the 1048576-byte limit") {
		t.Errorf("malformed = %v", ps)
	}
	if r.Consumed() != int64(len(input)) || r.Lines() != 5 {
		t.Errorf("Consumed %d Lines %d, want %d and 5", r.Consumed(), r.Lines(), len(input))
	}

	// Over the limit and without newline at the end: still being written.
	r = NewReader(strings.NewReader(hdr+"\n"+huge), "x.jsonl")
	r.SetMaxLineBytes(limit)
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	if p := r.Pending(); p == nil || p.Line != 2 || len(r.Malformed()) != 0 {
		t.Errorf("pending %v malformed %v", p, r.Malformed())
	}
}

// genReader produces a session whose second line is n bytes of 'x', without
// holding it in memory.
type genReader struct {
	parts []string
	n     int // bytes of 'x' still to produce, after parts[0]
}

func (g *genReader) Read(p []byte) (int, error) {
	if len(g.parts) == 0 {
		return 0, io.EOF
	}
	if g.parts[0] == "" { // the long line
		if g.n == 0 {
			g.parts = g.parts[1:]
			return 0, nil
		}
		k := min(len(p), g.n)
		for i := range k {
			p[i] = 'x'
		}
		g.n -= k
		return k, nil
	}
	k := copy(p, g.parts[0])
	g.parts[0] = g.parts[0][k:]
	if g.parts[0] == "" {
		g.parts = g.parts[1:]
	}
	return k, nil
}

// TestOverDefaultLimitInConstantMemory skips a line four times the default
// limit, streamed from a generator, and checks that the reader's allocations
// are bounded by the limit, not by the line.
func TestOverDefaultLimitInConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB line")
	}
	const n = 4*MaxLineBytes + 1
	g := &genReader{parts: []string{hdr + "\n", "", "\n" + u("a") + "\n"}, n: n}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Read(g, "x.jsonl")
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 1 || s.Entries[0].ID != "a" || len(s.Malformed) != 1 || s.Malformed[0].Line != 2 ||
		!strings.Contains(s.Malformed[0].Reason, "268435457 bytes, over the 67108864-byte limit") {
		t.Errorf("entries %v malformed %v", s.Entries, s.Malformed)
	}
	// Up to the limit the line is kept (it may still end in time), in a
	// buffer that doubles: about 2x the limit in all.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*MaxLineBytes/2 {
		t.Errorf("reading allocated %d bytes for a skipped %d-byte line", alloc, n)
	}
}

// TestReadError: a failing reader stops Next with an error that names the
// file and line and wraps the cause; the entries before it come out.
func TestReadError(t *testing.T) {
	cause := errors.New("disk on fire")
	in := io.MultiReader(strings.NewReader(hdr+"\n"+u("a")+"\n"+`{"type":"mess`), iotest.ErrReader(cause))
	r := NewReader(in, "x.jsonl")
	e, err := r.Next()
	if err != nil || e.ID != "a" {
		t.Fatalf("Next = %v, %v; want entry a", e, err)
	}
	_, err = r.Next()
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), "pisession: x.jsonl: line 3: read: disk on fire") {
		t.Fatalf("Next = %v, want the read error for line 3", err)
	}
	if _, err2 := r.Next(); err2 != err {
		t.Errorf("Next after the error = %v, want the same error", err2)
	}
	if _, err := ReadFile("testdata/no-such-file.jsonl"); err == nil || !strings.Contains(err.Error(), "testdata/no-such-file.jsonl") {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	if _, err := Read(strings.NewReader(u("a")+"\n"), "y.jsonl"); !errors.Is(err, session.ErrNoHeader) {
		t.Errorf("Read without header: %v", err)
	}
}

// TestProblemsAreBounded: a file of garbage keeps at most MaxStoredProblems
// problems in memory and counts the rest.
func TestProblemsAreBounded(t *testing.T) {
	n := session.MaxStoredProblems + 5
	in := hdr + "\n" + strings.Repeat("#\n", n) + u("a") + "\n"
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Malformed) != session.MaxStoredProblems || s.MalformedCount != n || len(s.Entries) != 1 {
		t.Errorf("stored %d problems, counted %d, %d entries; want %d, %d, 1", len(s.Malformed), s.MalformedCount, len(s.Entries), session.MaxStoredProblems, n)
	}
	if last := s.Malformed[session.MaxStoredProblems-1]; last.Line != session.MaxStoredProblems+1 {
		t.Errorf("last stored problem on line %d, want %d", last.Line, session.MaxStoredProblems+1)
	}
}
