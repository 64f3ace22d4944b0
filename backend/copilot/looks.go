package copilot

import (
	"bytes"
	"encoding/json"
)

// Looks reports whether line (one line of a file, with or without its
// newline) is a Copilot CLI session event: a JSON object whose "type" is a
// dotted event name of lower-case words ("session.start", "user.message",
// "tool.execution_complete"), with a "data" object, an "id" string and a
// "parentId" key (a string, or null on the first event). It is the rule
// sessionformat.Detect needs to name an events.jsonl by its first line (see
// LooksObject): no other format Rhizome reads writes that envelope (pi's
// and Claude Code's types have no dot and their lines no "data"; Codex
// lines carry a "payload"; Qwen Code's records a "uuid" and a "sessionId").
func Looks(line []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(line), &obj) != nil {
		return false
	}
	return LooksObject(obj)
}

// LooksObject is Looks for a line already decoded into its keys (as
// sessionformat.Detect decodes a first line).
func LooksObject(obj map[string]json.RawMessage) bool {
	var typ, id string
	if json.Unmarshal(obj["type"], &typ) != nil || json.Unmarshal(obj["id"], &id) != nil || !eventName(typ) {
		return false
	}
	data, parent := obj["data"], obj["parentId"]
	if len(data) == 0 || data[0] != '{' || len(parent) == 0 {
		return false
	}
	return parent[0] == '"' || bytes.Equal(parent, []byte("null"))
}

// eventName reports whether s is a dotted event name: words of a-z, 0-9
// and "_", at least two, separated by dots.
func eventName(s string) bool {
	words, n := 1, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.':
			if n == 0 {
				return false
			}
			words, n = words+1, 0
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			n++
		default:
			return false
		}
	}
	return words >= 2 && n > 0
}
