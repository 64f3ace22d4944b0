package analyze

import (
	"encoding/json"
	"fmt"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/session"
)

// t0 is the start of the hand-built sessions.
var t0 = time.Date(2026, 1, 24, 10, 0, 0, 0, time.UTC)

// session builds hand-made entries: each call appends one entry, a minute of
// session time after the previous one, with ids e1, e2, ... chained by
// parentId.
type sessionBuilder struct {
	entries []session.Entry
	calls   int
}

func (s *sessionBuilder) add(e session.Entry) *sessionBuilder {
	n := len(s.entries)
	e.Seq = n
	e.ID = fmt.Sprintf("e%d", n+1)
	if n > 0 {
		e.ParentID = s.entries[n-1].ID
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = t0.Add(time.Duration(n) * time.Minute)
	}
	s.entries = append(s.entries, e)
	return s
}

func (s *sessionBuilder) msg(m session.Message) *sessionBuilder {
	return s.add(session.Entry{Type: session.TypeMessage, Message: &m})
}

func (s *sessionBuilder) user(text string) *sessionBuilder {
	return s.msg(session.Message{Role: session.RoleUser,
		Content: []session.Block{{Type: session.BlockText, Text: text}}})
}

// say is an assistant message with text only, stopReason "stop".
func (s *sessionBuilder) say(text string) *sessionBuilder {
	return s.assistant("stop", nil, text)
}

// assistant appends an assistant message with the given stop reason, usage
// (may be nil) and text (may be empty).
func (s *sessionBuilder) assistant(stop string, u *session.Usage, text string) *sessionBuilder {
	m := session.Message{Role: session.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5",
		StopReason: stop, Usage: u}
	if text != "" {
		m.Content = append(m.Content, session.Block{Type: session.BlockText, Text: text})
	}
	if stop == "error" {
		m.ErrorMessage = "overloaded_error: Overloaded\nretry later"
	}
	return s.msg(m)
}

// tool appends an assistant message calling tool name with args (marshalled
// to JSON), then its result: text, failed or not.
func (s *sessionBuilder) tool(name string, args map[string]any, result string, failed bool) *sessionBuilder {
	s.calls++
	id := fmt.Sprintf("call%d", s.calls)
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	s.msg(session.Message{Role: session.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5",
		StopReason: "toolUse", Content: []session.Block{{Type: session.BlockToolCall, ID: id, Name: name, Arguments: raw}}})
	return s.msg(session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: name, IsError: failed,
		Content: []session.Block{{Type: session.BlockText, Text: result}}})
}

func (s *sessionBuilder) bash(cmd, result string, failed bool) *sessionBuilder {
	return s.tool("bash", map[string]any{"command": cmd}, result, failed)
}

func (s *sessionBuilder) read(path string) *sessionBuilder {
	return s.tool("read", map[string]any{"path": path}, "contents", false)
}

func (s *sessionBuilder) edit(path string) *sessionBuilder {
	return s.tool("edit", map[string]any{"path": path, "oldText": "a", "newText": "b"}, "Successfully replaced text", false)
}

func (s *sessionBuilder) write(path string) *sessionBuilder {
	return s.tool("write", map[string]any{"path": path, "content": "x"}, "Successfully wrote", false)
}

// testHeader is the header of the hand-built sessions.
var testHeader = session.Header{Type: "session", Version: 3, ID: "11111111-2222-3333-4444-555555555555",
	Cwd: "/home/will/projects/demo"}

// node analyzes all of s's entries as one segment.
func (s *sessionBuilder) node() graph.Node {
	return Analyze(Input{Header: testHeader, SessionFile: "/sessions/demo.jsonl", Computer: "desk"},
		s.entries, t0.Add(time.Hour))
}
