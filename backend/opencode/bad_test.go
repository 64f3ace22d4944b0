package opencode

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"rhizome/backend/session"
)

// Hand-made documents, in Export's layout.
const sess = `{"id":"ses_a","project_id":"p","parent_id":null,"slug":"s","directory":"/w","title":"T","version":"1.18.33","time_created":1000,"time_updated":2000}`

func doc(session string, msgs ...string) string {
	return `{"format":"opencode-session","schema":1,` + "\n" + `"session":` + session + ",\n" + `"messages":[` + "\n" + strings.Join(msgs, ",\n") + "]}\n"
}

func msg(id, data string, parts ...string) string {
	return `{"id":"` + id + `","session_id":"ses_a","time_created":1000,"time_updated":1000,"data":` + data + `,"parts":[` + strings.Join(parts, ",") + `]}`
}

func part(id, data string) string {
	return `{"id":"` + id + `","message_id":"m","session_id":"ses_a","time_created":1000,"time_updated":1000,"data":` + data + `}`
}

const (
	userData = `{"role":"user","time":{"created":1000}}`
	asstData = `{"role":"assistant","parentID":"m1","modelID":"x","providerID":"p","time":{"created":1000,"completed":1001},"tokens":{"input":1,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0.5,"finish":"stop"}`
	hi       = `{"type":"text","text":"hi"}`
)

func ids(p *Parsed) []string {
	var out []string
	for _, e := range p.Entries {
		out = append(out, e.ID)
	}
	return out
}

// TestNotADocument: input that is no OpenCode session document is told
// apart by its content, with an error matching ErrNoHeader that says what
// it is.
func TestNotADocument(t *testing.T) {
	for _, tc := range []struct{ name, in, why string }{
		{"empty", "", "empty"},
		{"blank", " \n\t", "empty"},
		{"binary", "\x00\xff\xfe\x01PNG", `byte 0 (0x00) does not start JSON`},
		{"a PNG", "\x89PNG\r\n\x1a\n", `byte 0 (0x89) does not start JSON`},
		{"a JSON list", `[1,2]`, "the JSON value at byte 0 is an array, not an object"},
		{"a JSON string", ` "x"`, "the JSON value at byte 1 is a string, not an object"},
		{"another JSON object", `{"a":1}`, `no "format" member`},
		{"a pi session line", `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n", `no "format" member`},
		{"another format", `{"format":"cline-task","session":` + sess + `}`, `format "cline-task", not "opencode-session"`},
		{"a format of the wrong type", `{"format":1,"session":` + sess + `}`, `format "", not "opencode-session"`},
		{"no session row", `{"format":"opencode-session","messages":[]}`, "no session row with an id"},
		{"a session row that is a list", `{"format":"opencode-session","session":[1]}`, "no session row with an id"},
		{"a session without id", `{"format":"opencode-session","session":{"title":"x"}}`, "no session row with an id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseDocument([]byte(tc.in), "x.json")
			if p != nil || !errors.Is(err, ErrNoHeader) || !strings.Contains(err.Error(), "opencode: x.json: not an OpenCode session document: "+tc.why) {
				t.Errorf("ParseDocument: %v, %v; want ErrNoHeader: %q", p, err, tc.why)
			}
		})
	}
}

// TestTruncatedDocument: a document cut anywhere (still being written, or
// cut short) is ErrIncomplete with the place, never a corrupt one; what it
// gives is the full read's entries up to the last complete message, the
// same bytes and fingerprints (so nothing stored is replaced by less).
func TestTruncatedDocument(t *testing.T) {
	x := readExpected(t)
	docs, _ := realDocs(t)
	full := docs[x.Session]
	want := parse(t, full, "x.json")
	for cut := 0; cut < len(full)-2; cut += 41 {
		p, err := ParseDocument(full[:cut], "x.json")
		switch {
		case cut == 0:
			if !errors.Is(err, ErrNoHeader) {
				t.Fatalf("cut at 0: %v", err)
			}
			continue
		case !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), fmt.Sprintf("(byte %d): the document ends", cut)):
			t.Fatalf("cut at %d: error %v, want ErrIncomplete at byte %d", cut, err, cut)
		case p == nil:
			if bytes.Contains(full[:cut], []byte(`"messages":[`)) {
				t.Fatalf("cut at %d: no Parsed though the session row is read", cut)
			}
			continue
		}
		if len(p.Entries) > len(want.Entries) {
			t.Fatalf("cut at %d: %d entries, the full read %d", cut, len(p.Entries), len(want.Entries))
		}
		for i, e := range p.Entries {
			w := &want.Entries[i]
			if e.ID != w.ID || !bytes.Equal(e.Raw, w.Raw) || e.Type != w.Type {
				t.Fatalf("cut at %d: entry %d is %s, the full read's %s", cut, i, e.ID, w.ID)
			}
		}
	}
}

// TestJunkInTheMiddle: bytes that stop being JSON end the read with
// ErrMalformed naming line and byte; the messages before them are kept.
func TestJunkInTheMiddle(t *testing.T) {
	in := doc(sess, msg("m1", userData, part("p1", hi)), msg("m2", userData, part("p2", hi)))
	at := strings.Index(in, `{"id":"m2"`)
	bad := in[:at] + "\x00\x01garbage" + in[at:]
	p, err := ParseDocument([]byte(bad), "x.json")
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), fmt.Sprintf("x.json: line 5 (byte %d): byte 0x00 where a JSON value should start", at)) {
		t.Fatalf("error %v", err)
	}
	if p == nil || strings.Join(ids(p), ",") != "m1" {
		t.Fatalf("entries %v, want m1", ids(p))
	}
	// Bytes after a complete document are a problem, not an error.
	p, err = ParseDocument([]byte(in+"trailing junk"), "x.json")
	if err != nil || len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Reason, "13 bytes after the end of the document; ignored") {
		t.Errorf("trailing junk: %v %v", err, p.Problems)
	}
}

// TestWrongTypes: a wrong type in a field drops only its message or part,
// reported with the message id, part id and field, on the row's line and
// at its byte; every other row is kept.
func TestWrongTypes(t *testing.T) {
	m1 := msg("m1", userData, part("p1", hi))
	m3 := msg("m3", asstData, part("p3", `{"type":"text","text":"ok"}`))
	cases := []struct {
		name    string
		in      string
		ids     []string
		marker  string // where the problem is: the first occurrence in the input
		reason  string
		problem int // problems wanted (1 unless said)
	}{
		{name: "tokens of the wrong type", in: doc(sess, m1, msg("m2", strings.Replace(asstData, `"input":1`, `"input":"1"`, 1)), m3),
			ids: []string{"m1", "m3"}, marker: `{"id":"m2"`,
			reason: `message m2: field "data.tokens.input": JSON string where an integer is expected; message left out`},
		{name: "a tool status of the wrong type", in: doc(sess, m1, msg("m2", asstData, part("p2", `{"type":"tool","tool":"bash","callID":"c","state":{"status":5,"input":{}}}`), part("p2b", `{"type":"text","text":"kept"}`)), m3),
			ids: []string{"m1", "m2", "m3"}, marker: `{"id":"p2"`,
			reason: `message m2, part p2: field "data.state.status": JSON number where a string is expected; part left out`},
		{name: "a message id of the wrong type", in: doc(sess, m1, `{"id":7,"data":`+userData+`,"parts":[]}`, m3),
			ids: []string{"m1", "m3"}, marker: `{"id":7`,
			reason: `message (no id): field "id": JSON number where a string is expected; message left out`},
		{name: "a message without data", in: doc(sess, m1, `{"id":"m2","parts":[]}`, m3),
			ids: []string{"m1", "m3"}, marker: `{"id":"m2"`, reason: `message m2: field "data": missing; message left out`},
		{name: "data that is not an object (invalid JSON text stored)", in: doc(sess, m1, msg("m2", `"{\"role\":"`), m3),
			ids: []string{"m1", "m3"}, marker: `{"id":"m2"`,
			reason: `message m2: field "data": JSON string where an object is expected; message left out`},
		{name: "a part that is not an object", in: doc(sess, msg("m1", userData, "42", part("p1", hi)), m3),
			ids: []string{"m1", "m3"}, marker: `42`,
			reason: `message m1: parts[0]: a number where a part row (an object) is expected; part left out`},
		{name: "a part without type", in: doc(sess, msg("m1", userData, part("p0", `{"text":"x"}`), part("p1", hi)), m3),
			ids: []string{"m1", "m3"}, marker: `{"id":"p0"`, reason: `message m1, part p0: field "data.type": missing; part left out`},
		{name: "parts that are no list", in: doc(sess, `{"id":"m2","session_id":"ses_a","time_created":1,"time_updated":1,"data":`+userData+`,"parts":{}}`, m3),
			ids: []string{"m3"}, marker: `{"id":"m2"`,
			reason: `message m2: field "parts": an object where a list of part rows is expected; message left out`},
		{name: "a message row that is a string", in: doc(sess, m1, `"m2"`, m3),
			ids: []string{"m1", "m3"}, marker: `"m2"`, reason: `messages[1]: a string where a message row (an object) is expected; left out`},
		{name: "messages that are no list", in: `{"format":"opencode-session","session":` + sess + `,"messages":{"m1":1}}`,
			ids: nil, marker: `{"m1"`, reason: `field "messages": an object where a list of message rows is expected; no message read`},
		{name: "a session column of the wrong type", in: doc(strings.Replace(sess, `"title":"T"`, `"title":5`, 1), m1),
			ids: []string{"m1"}, marker: `{"id":"ses_a"`, reason: `field "session.title": JSON number where a string is expected; left empty`},
		{name: "a todo row of the wrong type", in: strings.TrimSuffix(doc(sess, m1), "}\n") + `,"todos":[{"content":"a","status":"pending","priority":"high","position":0},{"content":3}]}`,
			ids: []string{"m1", TodosID}, marker: `{"content":3}`, reason: `field "todos[1].content": JSON number where a string is expected; todo left out`},
		{name: "fork_of of the wrong type", in: strings.TrimSuffix(doc(sess, m1), "}\n") + `,"fork_of":{"session":["x"]}}`,
			ids: []string{"m1"}, marker: `{"session":["x"]}`, reason: `field "fork_of.session": JSON array where a string is expected; the fork is not linked`},
		{name: "a file of the wrong type", in: doc(sess, `{"id":"m1","session_id":"ses_a","time_created":1,"time_updated":1,"data":`+userData+`,"parts":[`+part("p1", hi)+`],"files":[{"part":1}]}`),
			ids: []string{"m1"}, marker: `{"part":1}`, reason: `message m1: field "files[0].part": JSON number where a string is expected; file left out`},
		{name: "a later schema", in: strings.Replace(doc(sess, m1), `"schema":1`, `"schema":2`, 1),
			ids: []string{"m1"}, marker: `2,`, reason: `field "schema": 2, later than the 1 this reader knows; read as 1`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseDocument([]byte(tc.in), "x.json")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(p), tc.ids) {
				t.Errorf("entries %v, want %v", ids(p), tc.ids)
			}
			if len(p.Problems) != 1 {
				t.Fatalf("problems %v, want one", p.Problems)
			}
			pr, off := p.Problems[0], strings.Index(tc.in, tc.marker)
			line := strings.Count(tc.in[:off], "\n") + 1
			if pr.Reason != tc.reason || pr.Offset != int64(off) || pr.Line != line || pr.File != "x.json" {
				t.Errorf("problem %v, want line %d byte %d: %s", pr, line, off, tc.reason)
			}
		})
	}
}

// TestPartsAndRoles: how parts and messages from other versions and
// providers read. The first cases are agentsview's OpenCode fixtures
// (kenn-io/agentsview internal/parser/opencode_test.go): a message data of
// {"role": ...} alone, a tool part whose state has no status
// (TestParseOpenCodeDB_ToolParts), a non-zero bash exit in metadata
// without "exit status" text (TestParseOpenCodeDB_BashExitFailure), the
// "invalid" tool (TestParseOpenCodeDB_InvalidToolCall), a placeholder
// title (TestParseOpenCodeDB_TitleFallback), a system message
// (TestParseOpenCodeDB_OrdinalContinuity).
func TestPartsAndRoles(t *testing.T) {
	tool := func(id, state string) string {
		return part(id, `{"type":"tool","tool":"bash","callID":"c_`+id+`","state":`+state+`}`)
	}
	p := parse(t, []byte(doc(strings.Replace(sess, `"title":"T"`, `"title":"New session - 2026-03-22T10:00:00.000Z"`, 1),
		msg("u", `{"role":"user"}`, part("pu", `{"type":"text","text":"read my file"}`)),
		msg("a", `{"role":"assistant"}`,
			part("pr", `{"type":"reasoning","text":"Let me think about this..."}`),
			part("pt", `{"type":"tool","tool":"read","callID":"call_1","state":{"input":{"file_path":"main.go"}}}`),
			tool("e1", `{"input":{"command":"build"},"output":"error: command failed","metadata":{"exit":1}}`),
			tool("e2", `{"input":{"command":"build"},"output":"","metadata":{"exit":127}}`),
			tool("e3", `{"input":{"command":"build"},"output":"ok","metadata":{"exit":0}}`),
			tool("e4", `{"input":{"command":"build"},"output":"ok","metadata":{"truncated":false}}`),
			part("inv", `{"type":"tool","tool":"invalid","callID":"call_inv","state":{"status":"completed","input":{"tool":"nonexistent_tool","error":"Model tried to call unavailable tool"},"output":"The arguments provided to the tool are invalid"}}`),
			tool("run", `{"status":"running","input":{"command":"sleep 9"},"time":{"start":1}}`),
			part("img", `{"type":"file","mime":"image/png","filename":"a.png","url":"data:image/png;base64,iVBORw0KGgo="}`),
			part("new", `{"type":"hologram","depth":3}`),
			part("sf", `{"type":"step-finish","tokens":{"input":11,"output":7,"reasoning":2,"cache":{"read":3,"write":2}},"cost":0.25}`)),
		msg("s", `{"role":"system"}`, part("ps", `{"type":"text","text":"system msg"}`)),
	)), "x.json")
	if p.Meta.Title != "" || len(p.Problems) != 0 {
		t.Errorf("title %q (a placeholder is no title), problems %v", p.Meta.Title, p.Problems)
	}
	want := []string{"u", "a", "e1", "e2", "e3", "e4", "inv", "s"}
	if !slices.Equal(ids(p), want) {
		t.Fatalf("entries %v, want %v (no result for a call without status or output, nor for a running one)", ids(p), want)
	}
	a := p.Entries[1].Message
	var types []string
	for _, b := range a.Content {
		types = append(types, b.Type)
	}
	if strings.Join(types, " ") != "thinking toolCall toolCall toolCall toolCall toolCall toolCall toolCall image opencode:hologram" ||
		string(a.Content[1].Arguments) != `{"file_path":"main.go"}` || a.Content[8].Data != "iVBORw0KGgo=" {
		t.Errorf("assistant blocks %v", types)
	}
	if u := a.Usage; u == nil || u.Input != 11 || u.Output != 9 || u.Reasoning != 2 || u.TotalTokens != 25 || u.Cost.Total != 0.25 {
		t.Errorf("usage from step-finish %+v", u)
	}
	for i, wantErr := range map[int]bool{2: true, 3: true, 4: false, 5: false, 6: true} {
		if e := p.Entries[i]; e.Message.IsError != wantErr {
			t.Errorf("%s: IsError %v, want %v", e.ID, e.Message.IsError, wantErr)
		}
	}
	if !slices.Equal(p.Pending, []string{"a"}) || !slices.Equal(p.Meta.UnknownParts, []string{"hologram"}) {
		t.Errorf("pending %v unknown %v", p.Pending, p.Meta.UnknownParts)
	}
	if s := p.Entries[7].Message; s.Role != session.RoleCustom || s.CustomType != "opencode:system" || session.JoinText(s.Content) != "system msg" {
		t.Errorf("system message %+v", s)
	}
}

// TestEmptySession: a session with no message yet is a header and no
// entry (agentsview's TestParseOpenCodeDB_EmptySession skips it; the
// library keeps it, titled).
func TestEmptySession(t *testing.T) {
	p := parse(t, []byte(doc(sess)), "x.json")
	if p.Header.ID != "ses_a" || p.Header.Cwd != "/w" || p.Meta.Title != "T" || len(p.Entries) != 0 {
		t.Errorf("%+v %+v", p.Header, p.Entries)
	}
}
