package gemini

import (
	"bytes"
	"encoding/json"
)

// messageTypes are the message types Gemini CLI 0.61.0 records.
var messageTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// Looks reports whether line (one line of a file, with or without its
// newline) is a record of a Gemini CLI chat recording (see LooksObject).
func Looks(line []byte) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(line), &obj) != nil {
		return false
	}
	return LooksObject(obj)
}

// LooksObject is Looks for a line already decoded into its keys (as
// sessionformat.Detect decodes a first line). A record is one of the four
// kinds the CLI writes (testdata/generate/README.md, "Records"):
//
//   - metadata, the first line of every file: a "sessionId" string and a
//     "projectHash" string, no "id", "type" or "uuid";
//   - a message: an "id" string, a "type" Gemini CLI records ("user",
//     "gemini", "info", "error", "warning"), a "content" string or list,
//     and none of the envelope keys of the other formats ("uuid",
//     "parentUuid", "sessionId", "parentId", "payload", "data", "message");
//   - {"$set": {...}} and {"$rewindTo": "<id>"}, alone in their object.
//
// No other format Rhizome reads writes these: pi's and Copilot CLI's lines
// have a "parentId" (and pi's types are "session", "message", ...), Claude
// Code's and Qwen Code's a "uuid" and a "sessionId", Codex's a "payload"
// or a type of its own ("message" in the bare era).
func LooksObject(obj map[string]json.RawMessage) bool {
	if len(obj) == 1 {
		if v, ok := obj["$set"]; ok {
			return len(v) > 0 && v[0] == '{'
		}
		if v, ok := obj["$rewindTo"]; ok {
			return len(v) > 0 && v[0] == '"'
		}
	}
	for _, k := range []string{"uuid", "parentUuid", "parentId", "payload", "data", "message"} {
		if _, ok := obj[k]; ok {
			return false
		}
	}
	var sid, hash, id, typ string
	if _, hasID := obj["id"]; !hasID {
		_, hasType := obj["type"]
		return !hasType && json.Unmarshal(obj["sessionId"], &sid) == nil && sid != "" &&
			json.Unmarshal(obj["projectHash"], &hash) == nil && hash != ""
	}
	if _, ok := obj["sessionId"]; ok {
		return false
	}
	if json.Unmarshal(obj["id"], &id) != nil || id == "" || json.Unmarshal(obj["type"], &typ) != nil || !messageTypes[typ] {
		return false
	}
	c := obj["content"]
	return len(c) > 0 && (c[0] == '"' || c[0] == '[')
}
