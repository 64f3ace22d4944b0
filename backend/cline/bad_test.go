package cline

import (
	"errors"
	"os"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
)

// envelopeOf wraps messages (JSON text) in a conversation's envelope.
func envelopeOf(messages string) string {
	return "{\n  \"version\": 1,\n  \"agent\": \"lead\",\n  \"sessionId\": \"s1\",\n  \"origin\": {\"source\": \"cli\"},\n  \"messages\": [\n" + messages + "\n  ]\n}\n"
}

const (
	prompt = `{"id": "u1", "role": "user", "content": [{"type": "text", "text": "<user_input mode=\"act\">hi</user_input>"}], "ts": 1796293572527}`
	answer = `{"id": "a1", "role": "assistant", "content": [{"type": "text", "text": "hello"}], "ts": 1796293572600}`
)

// Bad input, case by case: what breaks the document (its place named),
// what breaks a message (left out, reported with its place, the others
// read), what is only unusual (kept).
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name       string
		in         string
		incomplete bool
		err        string   // a *sessiondoc.SyntaxError containing this
		problems   []string // the problems' "line N: reason", in order
		ids        []string // the entries read
		check      func(t *testing.T, d *sessiondoc.Doc)
	}{
		{name: "empty", in: "", incomplete: true},
		{name: "cut inside a message", in: envelopeOf(prompt + ",\n" + answer)[:150], incomplete: true},
		{name: "cut after the messages", in: strings.TrimSuffix(envelopeOf(prompt), "}\n"), incomplete: true},
		{name: "binary", in: "\x89PNG\r\n\x1a\n", err: "x.messages.json: line 1 (byte 0): not JSON"},
		{name: "junk after the document", in: envelopeOf(prompt) + "\x00\x00", err: "invalid character '\\x00' after top-level value"},
		{name: "a list", in: "[1, 2]", err: "line 1 (byte 0): not a Cline conversation: a JSON list where an object"},
		{name: "messages not a list", in: `{"sessionId": "s", "agent": "lead", "messages": {"a": 1}}`,
			err: `line 1 (byte 48): field "messages": JSON object where a list of messages is expected`},
		{name: "sessionId a number", in: `{"sessionId": 5, "messages": []}`, err: `field "sessionId": JSON number where a string is expected`},
		{name: "no sessionId", in: `{"agent": "lead", "messages": []}`, err: `no "sessionId"`},
		{name: "ts a string", in: envelopeOf(prompt + ",\n" + strings.Replace(answer, "1796293572600", `"soon"`, 1)),
			problems: []string{`line 8: messages[1]: field "ts": JSON string where int64 is expected; the message is left out`}, ids: []string{"u1"}},
		{name: "content a number", in: envelopeOf(`{"id": "x", "role": "user", "content": 5},` + "\n" + answer),
			problems: []string{`line 7: messages[0]: field "content": JSON number where a list of blocks or a string is expected; the message is left out`}, ids: []string{"a1"}},
		{name: "a block's text a number", in: envelopeOf(`{"id": "x", "role": "assistant", "content": [{"type": "text", "text": 5}]}`),
			problems: []string{`line 7: messages[0]: field "content[0].text": JSON number where string is expected; the message is left out`}},
		{name: "no role", in: envelopeOf(`{"id": "x", "content": []},` + "\n" + prompt),
			problems: []string{`line 7: messages[0]: no "role"; the message is left out`}, ids: []string{"u1"}},
		{name: "a message not an object", in: envelopeOf(`7,` + "\n" + prompt),
			problems: []string{`line 7: messages[0]: JSON number where cline.wireMessage is expected; the message is left out`}, ids: []string{"u1"}},
		{name: "string content, unknown role and block, no id", in: envelopeOf(`{"role": "user", "content": "plain"},` + "\n" +
			`{"id": "s", "role": "system", "content": [{"type": "text", "text": "note"}]},` + "\n" +
			`{"id": "a", "role": "assistant", "content": [{"type": "fancy", "x": 1}, {"type": "redacted_thinking", "data": "zz"}]}`),
			ids: []string{"m-", "s", "a"}, check: func(t *testing.T, d *sessiondoc.Doc) {
				m0, m1, m2 := d.Items[0].Entry.Message, d.Items[1].Entry.Message, d.Items[2].Entry.Message
				if !m0.ContentIsString || m0.Content[0].Text != "plain" || m1.Role != session.RoleCustom || m1.CustomType != "cline:system" ||
					m2.Content[0].Type != "fancy" || !m2.Content[1].Redacted || !strings.HasPrefix(d.Items[0].Key, "at:0#") {
					t.Errorf("%+v %+v %+v", m0, m1, m2)
				}
			}},
		{name: "a tool result with is_error and items that failed", in: envelopeOf(`{"id": "a", "role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "run_commands", "input": {"commands": ["false"]}}]},` + "\n" +
			`{"id": "r", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": [{"query": "false", "result": "", "error": "exit 1", "success": false}]}]}`),
			ids: []string{"a", "r"}, check: func(t *testing.T, d *sessiondoc.Doc) {
				m := d.Items[1].Entry.Message
				if m.Role != session.RoleToolResult || m.ToolName != "run_commands" || !m.IsError || m.Content[0].Text != "false\nexit 1" {
					t.Errorf("%+v", m)
				}
			}},
	} {
		d, err := Read([]byte(c.in), "x.messages.json", Side{})
		var se *sessiondoc.SyntaxError
		switch {
		case c.incomplete:
			if !errors.Is(err, sessiondoc.ErrIncomplete) {
				t.Errorf("%s: %v, want incomplete", c.name, err)
			}
			continue
		case c.err != "":
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want ~%s", c.name, err, c.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var problems, ids []string
		for _, p := range d.Problems {
			problems = append(problems, strings.Join([]string{"line ", itoa(p.Line), ": ", p.Reason}, ""))
			if p.File != "x.messages.json" || p.Offset <= 0 {
				t.Errorf("%s: problem %+v", c.name, p)
			}
		}
		for _, it := range d.Items {
			id := it.Entry.ID
			if strings.HasPrefix(id, "m-") {
				id = "m-"
			}
			ids = append(ids, id)
		}
		if strings.Join(problems, "|") != strings.Join(c.problems, "|") || strings.Join(ids, ",") != strings.Join(c.ids, ",") {
			t.Errorf("%s: problems %q ids %v, want %q %v", c.name, problems, ids, c.problems, c.ids)
		}
		if c.check != nil {
			c.check(t, d)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// A real conversation cut at every byte is incomplete, never a syntax
// error, until it is whole (the newline after it is not needed); the id is
// known once the envelope is written.
func TestCutEverywhere(t *testing.T) {
	b, err := os.ReadFile(docPath(failed))
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(b)-1; cut++ {
		d, err := Read(b[:cut], "f", Side{})
		if !errors.Is(err, sessiondoc.ErrIncomplete) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if cut > strings.Index(string(b), `"origin"`) && d.Header.ID != failed {
			t.Fatalf("cut at %d: id %q", cut, d.Header.ID)
		}
	}
	if _, err := Read(b[:len(b)-1], "f", Side{}); err != nil {
		t.Errorf("without its last newline: %v", err)
	}
}
