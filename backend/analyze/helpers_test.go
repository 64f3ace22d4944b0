package analyze

import (
	"encoding/json"
	"fmt"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/pisession"
)

// t0 is the start of the hand-built sessions.
var t0 = time.Date(2026, 1, 24, 10, 0, 0, 0, time.UTC)

// session builds hand-made entries: each call appends one entry, a minute of
// session time after the previous one, with ids e1, e2, ... chained by
// parentId.
type session struct {
	entries []pisession.Entry
	calls   int
}

func (s *session) add(e pisession.Entry) *session {
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

func (s *session) msg(m pisession.Message) *session {
	return s.add(pisession.Entry{Type: pisession.TypeMessage, Message: &m})
}

func (s *session) user(text string) *session {
	return s.msg(pisession.Message{Role: pisession.RoleUser,
		Content: []pisession.Block{{Type: pisession.BlockText, Text: text}}})
}

// say is an assistant message with text only, stopReason "stop".
func (s *session) say(text string) *session {
	return s.assistant("stop", nil, text)
}

// assistant appends an assistant message with the given stop reason, usage
// (may be nil) and text (may be empty).
func (s *session) assistant(stop string, u *pisession.Usage, text string) *session {
	m := pisession.Message{Role: pisession.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5",
		StopReason: stop, Usage: u}
	if text != "" {
		m.Content = append(m.Content, pisession.Block{Type: pisession.BlockText, Text: text})
	}
	if stop == "error" {
		m.ErrorMessage = "overloaded_error: Overloaded\nretry later"
	}
	return s.msg(m)
}

// tool appends an assistant message calling tool name with args (marshalled
// to JSON), then its result: text, failed or not.
func (s *session) tool(name string, args map[string]any, result string, failed bool) *session {
	s.calls++
	id := fmt.Sprintf("call%d", s.calls)
	raw, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	s.msg(pisession.Message{Role: pisession.RoleAssistant, Provider: "anthropic", Model: "claude-sonnet-4-5",
		StopReason: "toolUse", Content: []pisession.Block{{Type: pisession.BlockToolCall, ID: id, Name: name, Arguments: raw}}})
	return s.msg(pisession.Message{Role: pisession.RoleToolResult, ToolCallID: id, ToolName: name, IsError: failed,
		Content: []pisession.Block{{Type: pisession.BlockText, Text: result}}})
}

func (s *session) bash(cmd, result string, failed bool) *session {
	return s.tool("bash", map[string]any{"command": cmd}, result, failed)
}

func (s *session) read(path string) *session {
	return s.tool("read", map[string]any{"path": path}, "contents", false)
}

func (s *session) edit(path string) *session {
	return s.tool("edit", map[string]any{"path": path, "oldText": "a", "newText": "b"}, "Successfully replaced text", false)
}

func (s *session) write(path string) *session {
	return s.tool("write", map[string]any{"path": path, "content": "x"}, "Successfully wrote", false)
}

// testHeader is the header of the hand-built sessions.
var testHeader = pisession.Header{Type: "session", Version: 3, ID: "11111111-2222-3333-4444-555555555555",
	Cwd: "/home/will/projects/demo"}

// node analyzes all of s's entries as one segment.
func (s *session) node() graph.Node {
	return Analyze(Input{Header: testHeader, SessionFile: "/sessions/demo.jsonl", Computer: "desk"},
		s.entries, t0.Add(time.Hour))
}
