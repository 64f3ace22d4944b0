package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
	"rhizome/backend/sessionlog"
	"rhizome/backend/sessionlog/sessionlogtest"
)

const sess = "7f1c2d3e-0000-4000-8000-00000000ge01"

// meta is a small metadata record.
const meta = `{"sessionId":"` + sess + `","projectHash":"ab","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}`

// prompt is a user message with the given id.
func prompt(id string) string {
	return `{"id":"` + id + `","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"hi ` + id + `"}]}`
}

// answer is a gemini message with the given id.
func answer(id string) string {
	return `{"id":"` + id + `","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"ok","thoughts":[],"tokens":{"input":10,"output":2,"cached":0,"thoughts":0,"tool":0,"total":12},"model":"m"}`
}

// TestBadInput: the JSON Lines quirks every reader handles (ERRATA.md), and
// files of other formats: every good line still comes out, bad ones are
// reported with file, line, byte offset and reason.
func TestBadInput(t *testing.T) {
	a, b := prompt("u1"), prompt("u2")
	g := answer("g1")
	cases := []sessionlogtest.BadCase{
		{Name: "empty file", Input: "", HeaderErr: "gemini: x.jsonl: not a Gemini CLI chat recording: no JSON object in the first 64 lines"},
		{Name: "truncated last line", Input: meta + "\n" + a + "\n" + b[:40], IDs: []string{"L1", "u1"},
			Pending: &sessionlogtest.Problem{Line: 3, Marker: b[:40], Reason: "still being written"}, Consumed: len(meta + "\n" + a + "\n")},
		{Name: "a response held when the file ends", Input: meta + "\n" + a + "\n" + g + "\n" + b[:40], IDs: []string{"L1", "u1", "g1"},
			Pending: &sessionlogtest.Problem{Line: 4, Marker: b[:40], Reason: "still being written"}, Consumed: len(meta + "\n" + a + "\n")},
		{Name: "garbage line between good ones", Input: meta + "\nnot json\n" + `{"id":"x","type":"user"` + "\n" + a + "\n", IDs: []string{"L1", "u1"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "not json", Reason: "line is not valid JSON"},
				{Line: 3, Marker: `{"id":"x","type":"user"`, Reason: "line is not valid JSON: unexpected end of line"}}, Consumed: -1},
		{Name: "concatenated objects", Input: meta + a + "\n" + b + "  " + `{"$set":{"lastUpdated":"2026-01-01T00:00:03Z"}}` + "\n",
			IDs: []string{"L1", "u1", "u2", "L2.2"}, Consumed: -1},
		{Name: "good object then garbage", Input: meta + "\n" + a + "xyz\n" + b + "\n", IDs: []string{"L1", "u1", "u2"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "xyz", Reason: "rest of the line is not valid JSON"}}, Consumed: -1},
		{Name: "values that are not objects", Input: meta + "\n42\n[1]\n" + a + "\n", IDs: []string{"L1", "u1"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: "42", Reason: "JSON value is a number, not an object"}, {Line: 3, Marker: "[1]", Reason: "is an array"}}, Consumed: -1},
		{Name: "object of no record kind", Input: meta + "\n" + `{"foo":1}` + "\n" + a + "\n", IDs: []string{"L1", "u1"},
			Problems: []sessionlogtest.Problem{{Line: 2, Marker: `{"foo":1}`, Reason: `none of Gemini CLI's records`}}, Consumed: -1},
		{Name: "CRLF, blank lines and a byte order mark", Input: "\xEF\xBB\xBF" + meta + "\r\n\r\n   \n" + a + "\r\n", IDs: []string{"L1", "u1"}, Consumed: -1},
		{Name: "a rewrite on a line of its own", Input: meta + "\n" + `{"$set":{"messages":[` + a + `, ` + b + `],"lastUpdated":"2026-01-01T00:00:03Z"}}` + "\n",
			IDs: []string{"L1", "u1", "u2"}, Consumed: -1},
		{Name: "no metadata", Input: a + "\n" + b + "\n", HeaderErr: "gemini: x.jsonl: not a Gemini CLI chat recording: no metadata record with a sessionId in the first 64 lines"},
		{Name: "a pi session", Input: `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n",
			HeaderErr: `gemini: x.jsonl: line 1: not a Gemini CLI chat recording: first line is a pi session header (version 3) (a pi file)`},
		{Name: "a Claude Code session", Input: `{"type":"user","uuid":"u","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n",
			HeaderErr: `not a Gemini CLI chat recording: first line is a Claude Code "user" line (a claude-code file)`},
		{Name: "a Qwen Code session", Input: `{"uuid":"u","parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","parts":[{"text":"hi"}]}}` + "\n",
			HeaderErr: `not a Gemini CLI chat recording: first line is a Qwen Code "user" record`},
		{Name: "a Codex rollout", Input: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"t"}}` + "\n",
			HeaderErr: `not a Gemini CLI chat recording: first line is a Codex rollout item ("session_meta" with a payload) (a codex file)`},
		{Name: "other JSON Lines", Input: `{"event":"click","at":3}` + "\n",
			HeaderErr: `not a Gemini CLI chat recording: JSON Lines whose first object has no type and keys at, event`},
	}
	sessionlogtest.CheckBadInput(t, cases, openLog)
}

// TestFieldOfWrongType keeps each entry and names the field in a warning:
// the line, its byte offset and the field a person must look at.
func TestFieldOfWrongType(t *testing.T) {
	lines := []string{
		meta,
		`{"id":"p","timestamp":"yesterday","type":"user","content":[{"text":"hi"}]}`,
		`{"id":"g","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"ok","tokens":{"input":"many","output":3},"model":"m"}`,
		`{"id":"q","timestamp":"2026-01-01T00:00:03Z","type":"user","content":42}`,
		`{"$set":{"summary":7,"lastUpdated":"2026-01-01T00:00:04Z"}}`,
		`{"$set":{"messages":"all of them"}}`,
		`{"$set":"x"}`,
		`{"$rewindTo":5}`,
		`{"id":7,"type":"user","content":"hi"}`,
		`{"$set":{"messages":[{"id":"m","type":"gemini","content":[],"tokens":{"input":"x"}}]}}`,
	}
	in := strings.Join(lines, "\n") + "\n"
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		reason string
	}{
		{2, `field "timestamp": "yesterday" is not an ISO 8601 time; left zero`},
		{3, `field "tokens.input": JSON string where int64 is expected; left empty`},
		{4, `field "content": a number where a string or a list of parts is expected; left empty`},
		{5, `field "$set.summary": JSON number where string is expected; left empty`},
		{6, `field "$set.messages": a string where a list is expected; left empty`},
		{7, `field "$set": a string where an object is expected; left empty`},
		{8, `field "$rewindTo": a number where a message id is expected; nothing rewound`},
		{9, `field "id": JSON number where string is expected; left empty`},
		{9, `field "id": missing on a message; the entry is L9`},
		{10, `field "$set.messages[0].tokens.input": JSON string where int64 is expected; left empty`},
	}
	if len(s.Entries) != len(lines) || len(s.Warnings) != len(want) || s.MalformedCount != 0 {
		t.Fatalf("%d entries, warnings %v, malformed %v", len(s.Entries), s.Warnings, s.Malformed)
	}
	for i, w := range want {
		p := s.Warnings[i]
		off := int64(strings.Index(in, lines[w.line-1]))
		if w.line == 10 {
			off = int64(strings.Index(in, `{"id":"m"`))
		}
		if p.File != "x.jsonl" || p.Line != w.line || p.Offset != off || p.Reason != w.reason {
			t.Errorf("warning %d = %v, want line %d byte %d: %s", i, p, w.line, off, w.reason)
		}
	}
	if e := s.Entries[2]; e.Message.Usage == nil || e.Message.Usage.Output != 3 || e.Message.Usage.Input != 0 {
		t.Errorf("usage with a bad field %+v", e.Message)
	}
	if e := s.Entries[4]; e.Type != TypeSet || e.Subtype != "summary,lastUpdated" {
		t.Errorf("set with a bad summary %+v", e)
	}
}

// TestHugeLine: a line over the limit (a rewrite holds the whole
// conversation) is reported, not held; the lines around it come out.
func TestHugeLine(t *testing.T) {
	const limit = 1 << 20
	huge := `{"$set":{"messages":[{"id":"big","type":"user","content":[{"text":"` + strings.Repeat("x", 3*limit) + `"}]}]}}`
	in := meta + "\n" + prompt("u1") + "\n" + huge + "\n" + prompt("u2") + "\n"
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
	if strings.Join(ids, ",") != "L1,u1,u2" || len(ps) != 1 || ps[0].Line != 3 || !strings.Contains(ps[0].Reason, "over the 1048576-byte limit") ||
		ps[0].Offset != int64(strings.Index(in, huge)) {
		t.Errorf("ids %v problems %v", ids, ps)
	}
	s, err := Read(strings.NewReader(in), "x.jsonl")
	if err != nil || len(s.Entries) != 4 || s.Entries[2].ID != "big" || s.Entries[2].Offset != int64(strings.Index(in, `{"id":"big"`)) {
		t.Errorf("default limit: %v", err)
	}
}

// TestReadErrorNamesFile: a failing input stops Next with an error naming
// the file and line; ReadFile names a missing file.
func TestReadErrorNamesFile(t *testing.T) {
	cause := errors.New("disk on fire")
	r := NewReader(io.MultiReader(strings.NewReader(meta+"\n"+prompt("u1")+"\n"), errReader{cause}), "x.jsonl")
	for _, want := range []string{"L1", "u1"} {
		if e, err := r.Next(); err != nil || e.ID != want {
			t.Fatalf("Next = %v %v", e, err)
		}
	}
	if _, err := r.Next(); !errors.Is(err, cause) || !strings.Contains(err.Error(), "x.jsonl: line 3: read") {
		t.Errorf("Next = %v", err)
	}
	if _, err := ReadFile("testdata/none.jsonl"); err == nil || !strings.Contains(err.Error(), "testdata/none.jsonl") {
		t.Errorf("ReadFile: %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestDecodeStoredAlone: entries read back from the store start mid-file,
// with only the header the first read made (how the import decodes stored
// entries): any record may come first, even a bare tool result; a
// sub-agent's are sidechain; error messages name the header's model.
func TestDecodeStoredAlone(t *testing.T) {
	in := `{"functionResponse":{"id":"c1","name":"read_file","response":{"error":"File not found"}}}` + "\n" +
		`{"id":"e","type":"error","content":"boom"}` + "\n" + prompt("u9") + "\n"
	r := NewReaderAt(strings.NewReader(in), "x.jsonl", State{Header: session.Header{ID: "a1", AgentID: "a1", ModelID: "m0", Format: Format}, Seq: 40})
	es := sessionlogtest.Entries(t, r.Reader)
	if len(es) != 3 || es[0].Seq != 40 || es[0].ID != "c1" || !es[0].Message.IsError || es[0].Message.ToolName != "read_file" ||
		es[1].Message.Model != "m0" || es[2].ID != "u9" || !es[2].Sidechain || r.MalformedCount() != 0 {
		t.Errorf("entries %+v", es)
	}
}

// TestScanner holds members and elements, which find the byte spans of a
// rewrite's messages and a message's parts, to encoding/json's reading of
// the same objects: the spans hold the values json.Unmarshal gives.
func TestScanner(t *testing.T) {
	for _, in := range []string{
		`{}`, `{ }`, `{"a":1}`, ` { "a" : [ 1 , {"b":"}]\"" } ] , "c\"d": null, "e":true,"f":-1.5e3 } `,
		`{"$set":{"messages":[{"id":"x","content":[{"text":"a,b]}"}]},{"id":"y"}],"lastUpdated":"t"}}`,
		`{"k\u00e9y":"v","":{"":[]}}`,
	} {
		ms, ok := members([]byte(in))
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil || !ok || len(ms) != len(want) {
			t.Fatalf("%s: %v %v %d members", in, err, ok, len(ms))
		}
		for _, m := range ms {
			got := in[m.Val.Start:m.Val.End]
			if !bytes.Equal(bytes.TrimSpace(want[m.Key]), []byte(got)) {
				t.Errorf("%s: %q = %s, want %s", in, m.Key, got, want[m.Key])
			}
			if got[0] == '[' {
				es, ok := elements([]byte(got))
				var list []json.RawMessage
				if err := json.Unmarshal([]byte(got), &list); err != nil || !ok || len(es) != len(list) {
					t.Fatalf("%s: %v %v", got, err, ok)
				}
				for i, e := range es {
					if got[e.Start:e.End] != string(bytes.TrimSpace(list[i])) {
						t.Errorf("%s: element %d = %s", got, i, got[e.Start:e.End])
					}
				}
			}
		}
	}
	for _, in := range []string{``, `[`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"`, `[1 2]`, `{"a":1 "b":2}`} {
		if _, ok := members([]byte(in)); ok {
			t.Errorf("members(%q) ok", in)
		}
	}
}

// TestLooks holds the detection rule proposed for sessionformat.Detect
// (Looks): true on every line of the real and hand-made Gemini CLI files;
// false on every line of every other format's test files in the repository
// (pi, Claude Code, Codex, Qwen Code, Copilot CLI, the segmenter's pi
// sessions), whose detection it must not disturb; and Detect names no
// Gemini file as another format.
func TestLooks(t *testing.T) {
	var all []string
	err := filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && strings.Contains(filepath.ToSlash(p), "/testdata/") {
			all = append(all, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n, mine := 0, 0
	for _, path := range all {
		gemini := strings.HasPrefix(filepath.ToSlash(path), "../gemini/")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			spans, _ := sessionlog.Split(line)
			for _, sp := range spans {
				obj := line[sp.Start:sp.End]
				if gemini && bytes.Contains(obj, []byte(`"type":"tip"`)) {
					continue // the hand-made message of a type Gemini CLI does not write (line 20)
				}
				if Looks(obj) != gemini {
					t.Errorf("%s line %d: Looks %v", path, i+1, !gemini)
				}
			}
		}
		if gemini {
			mine++
			if f, _ := sessionformat.Detect(data); f != "" && f != Format {
				t.Errorf("%s: Detect names it %q", path, f)
			}
		} else {
			n++
		}
	}
	if n < 20 || mine != 7 {
		t.Errorf("%d files of other formats, %d of Gemini CLI", n, mine)
	}
	for _, s := range []string{`{"$set":5}`, `{"$set":{},"x":1}`, `{"$rewindTo":{}}`, `{"id":"x","type":"user","content":"hi","uuid":"u"}`,
		`{"sessionId":"s","projectHash":"h","type":"x"}`, `{"sessionId":"s"}`, `{"id":"x","type":"message","content":[]}`,
		`{"id":"x","type":"user"}`, `{"id":"x","type":"user","content":{}}`, `{"id":"x","type":"gemini","content":"","sessionId":"s"}`,
		`{"id":7,"type":"user","content":"hi"}`, `[1]`, `nonsense`} {
		if Looks([]byte(s)) {
			t.Errorf("Looks(%s)", s)
		}
	}
}
