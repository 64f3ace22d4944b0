// Package sessionformat tells, from the first bytes of a file, which of the
// formats Rhizome reads it holds: a pi session, a Claude Code session, a Qwen
// Code session, a GitHub Copilot CLI session log, a Gemini CLI chat
// recording, a Codex rollout, a Cline CLI conversation (a JSON document,
// told by its envelope even when cut off), an OpenCode session document
// (the JSON document of a session's rows in OpenCode's database, as
// backend/opencode exports it: "format": "opencode-session"; the database
// itself is a SQLite file, told by its tables where it is opened, not
// here), a MemoBrain snapshot or a loom tree
// (Rhizome's own export, socketteer/loom and the other loom tools), and
// says what an unknown file looks like. It reads content only, never the
// file name.
//
// See ../shared/specs/interchange-formats.md §6 "Sniffing order" and
// claude-code-codex-formats.md §1.2, §2.2.
package sessionformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Formats Detect names.
const (
	Pi          = "pi"             // pi coding-agent session (JSON Lines, "session" header)
	ClaudeCode  = "claude-code"    // Claude Code session or sub-agent transcript (JSON Lines)
	QwenCode    = "qwen-code"      // Qwen Code session, fork or sub-agent transcript (JSON Lines)
	Copilot     = "copilot-cli"    // GitHub Copilot CLI session log, events.jsonl (JSON Lines)
	Gemini      = "gemini-cli"     // Gemini CLI chat recording, chats/session-*.jsonl (JSON Lines)
	Cline       = "cline"          // Cline CLI conversation, sessions/<id>/<id>.messages.json (a JSON document)
	OpenCode    = "opencode"       // OpenCode session: a session's rows of opencode.db as one JSON document ("format": "opencode-session")
	Codex       = "codex"          // Codex CLI rollout (JSON Lines, every era)
	MemoBrain   = "memobrain"      // MemoBrain reasoning-graph snapshot (JSON)
	RhizomeLoom = "rhizome-loom"   // Rhizome's lossless loom tree export (JSON)
	Loom        = "loom"           // socketteer/loom tree (JSON: root with children, a bare node or a list)
	MiniLoom    = "miniloom"       // MiniLoom (JSON: loomTree.nodeStore)
	Exoloom     = "exoloom"        // exoloom (JSON: loomType "Exoloom")
	Loomsidian  = "loomsidian"     // loomsidian data.json or per-note export (JSON)
	CCMemory    = "ccmemory-graph" // ccmemory /api/graph (JSON)
	Tapestry    = "tapestry"       // Tapestry Loom binary weave: recognised, not read
	GraphML     = "graphml"        // GraphML or GEXF graph (XML): recognised, not read
	Unknown     = ""               // none of the above; why says what it looks like
)

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// HeadBytes is how much of a file Detect needs to see at most: the first 64
// KiB (a truncated head is fine; JSON documents are sniffed token by token).
const HeadBytes = 64 << 10

// Detect names the format of a file from its first bytes (up to HeadBytes)
// and says why: what it found ("first line is a pi session header, version
// 3"), or, for an unknown format, what the file looks like ("JSON Lines whose
// first object has type \"event\" and keys id, type, when: not a session
// format Rhizome reads"). The checks run in the order of the spec's sniffing
// table, JSON Lines session formats first.
func Detect(head []byte) (format, why string) {
	if len(head) > HeadBytes {
		head = head[:HeadBytes]
	}
	b := bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	b = bytes.TrimLeft(b, " \t\r\n")
	switch {
	case len(b) == 0:
		return Unknown, "empty file"
	case bytes.HasPrefix(b, []byte("VersionedTapestryWeave__")):
		return Tapestry, "Tapestry Loom binary weave (VersionedTapestryWeave__): not a format Rhizome reads"
	case b[0] == '<':
		low := strings.ToLower(string(b[:min(len(b), 512)]))
		if strings.Contains(low, "<graphml") || strings.Contains(low, "<gexf") {
			return GraphML, "XML graph (GraphML or GEXF): not a format Rhizome reads"
		}
		return Unknown, "XML or HTML, not JSON"
	case b[0] == '-' && bytes.HasPrefix(b, []byte("---")):
		if bytes.Contains(b[:min(len(b), 4096)], []byte("TapestryLoomWeave")) {
			return Tapestry, "Markdown note with Tapestry Loom front matter: not a format Rhizome reads"
		}
		return Unknown, "Markdown with front matter, not JSON"
	case bytes.HasPrefix(b, []byte(sqliteHeader)):
		return Unknown, "a SQLite database (OpenCode keeps its sessions in one, opencode.db): import it by its path on this machine, where its tables are read"
	case b[0] != '{' && b[0] != '[':
		return Unknown, "not JSON: starts with " + quoteStart(b)
	}
	// JSON Lines: the first line is a whole object.
	if b[0] == '{' {
		if nl := bytes.IndexByte(b, '\n'); nl > 0 {
			first := bytes.TrimRight(b[:nl], " \t\r")
			var obj map[string]json.RawMessage
			if json.Unmarshal(first, &obj) == nil {
				if f, why, ok := sniffLine(obj); ok {
					return f, why
				}
				if !isDocumentStart(obj) {
					return Unknown, "JSON Lines whose first object has " + describe(obj) + ": not a session format Rhizome reads"
				}
			}
		} else {
			var obj map[string]json.RawMessage
			if json.Unmarshal(b, &obj) == nil {
				if f, why, ok := sniffLine(obj); ok {
					return f, why
				}
			}
		}
	}
	return sniffDocument(b)
}

// Line types of the session formats, for the first line.
var (
	claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true, "summary": true,
		"file-history-snapshot": true, "queue-operation": true, "progress": true, "permission-mode": true, "ai-title": true,
		"custom-title": true, "last-prompt": true, "agent-setting": true, "agent-name": true, "pr-link": true, "mode": true}
	codexTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
		"compacted": true, "world_state": true, "token_usage_record": true, "inter_agent_communication": true,
		"inter_agent_communication_metadata": true}
	// Bare-era Codex response items (no envelope).
	codexBareItems = map[string]bool{"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
		"local_shell_call": true, "custom_tool_call": true, "custom_tool_call_output": true, "web_search_call": true}
)

func str(obj map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := obj[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// sniffLine recognises the first line of a session file.
func sniffLine(obj map[string]json.RawMessage) (format, why string, ok bool) {
	typ, _ := str(obj, "type")
	_, hasPayload := obj["payload"]
	_, hasSessionID := obj["sessionId"]
	_, hasUUID := obj["uuid"]
	switch {
	case typ == "session":
		if id, _ := str(obj, "id"); id != "" {
			v := "1"
			if raw, ok := obj["version"]; ok {
				v = string(raw)
			}
			return Pi, "first line is a pi session header (version " + v + ")", true
		}
	case copilotEvent(obj):
		return Copilot, fmt.Sprintf("first line is a GitHub Copilot CLI %q event (type, data, id, parentId)", typ), true
	case geminiRecord(obj) != "":
		return Gemini, "first line is a Gemini CLI chat recording's " + geminiRecord(obj), true
	case codexTypes[typ] && hasPayload:
		return Codex, fmt.Sprintf("first line is a Codex rollout item (%q with a payload)", typ), true
	case hasSessionID && hasUUID && qwenField(obj) != "":
		// Before Claude Code: both write uuid, parentUuid and sessionId.
		return QwenCode, fmt.Sprintf("first line is a Qwen Code %q record (uuid, sessionId and %s)", typ, qwenField(obj)), true
	case claudeTypes[typ] && (hasSessionID || hasUUID || typ == "summary" || typ == "file-history-snapshot"):
		return ClaudeCode, fmt.Sprintf("first line is a Claude Code %q line", typ), true
	case hasSessionID && (hasUUID || obj["parentUuid"] != nil):
		return ClaudeCode, fmt.Sprintf("first line has Claude Code's sessionId and uuid (type %q)", typ), true
	}
	_, hasInstr := obj["instructions"]
	_, hasTS := obj["timestamp"]
	if id, _ := str(obj, "id"); id != "" && hasTS && typ == "" && (hasInstr || obj["git"] != nil) {
		return Codex, "first line is a bare-era Codex session header (id, timestamp, instructions)", true
	}
	if rt, _ := str(obj, "record_type"); rt == "state" {
		return Codex, "first line is a bare-era Codex state record", true
	}
	if codexBareItems[typ] && !hasSessionID && (obj["role"] != nil || obj["call_id"] != nil || obj["summary"] != nil) {
		return Codex, fmt.Sprintf("first line is a bare-era Codex response item (%q)", typ), true
	}
	return "", "", false
}

// qwenField names the field that tells a Qwen Code record (Qwen Code 0.24.4,
// see backend/qwen/testdata/generate/README.md) from a Claude Code line,
// which shares its envelope (uuid, parentUuid, sessionId, type, cwd,
// version, gitBranch): a message in Gemini API form ("message.parts"; Claude
// Code's has "content"), or a field only Qwen Code writes (systemPayload on
// system records, toolCallResult on tool results, usageMetadata,
// provenance). "" when there is none, or the message has Claude's content.
func qwenField(obj map[string]json.RawMessage) string {
	if raw, ok := obj["message"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			if _, ok := m["content"]; ok {
				return ""
			}
			if parts, ok := m["parts"]; ok && len(parts) > 0 && parts[0] == '[' {
				return "message.parts"
			}
		}
	}
	for _, k := range []string{"systemPayload", "toolCallResult", "usageMetadata", "provenance"} {
		if _, ok := obj[k]; ok {
			return k
		}
	}
	return ""
}

// copilotEvent reports whether a line is a GitHub Copilot CLI event
// (backend/copilot.LooksObject, which its tests hold against every format's
// files): a dotted lower-case type ("session.start"), a data object, an id
// string and a parentId key (a string or null).
func copilotEvent(obj map[string]json.RawMessage) bool {
	var typ, id string
	if json.Unmarshal(obj["type"], &typ) != nil || json.Unmarshal(obj["id"], &id) != nil {
		return false
	}
	words := strings.Split(typ, ".")
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			return false
		}
	}
	data, parent := obj["data"], obj["parentId"]
	return len(data) > 0 && data[0] == '{' && len(parent) > 0 && (parent[0] == '"' || string(parent) == "null")
}

// geminiMessageTypes are the message types Gemini CLI records.
var geminiMessageTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// geminiRecord names the kind of Gemini CLI chat recording record a line is
// ("metadata record (sessionId, projectHash)", ...), "" for none
// (backend/gemini.LooksObject, which its tests hold against every format's
// files): metadata with a sessionId and a projectHash and no id, type or
// uuid; a message with an id, a Gemini CLI type and content, without the
// other formats' envelope keys; {"$set": {...}} or {"$rewindTo": id} alone.
func geminiRecord(obj map[string]json.RawMessage) string {
	if len(obj) == 1 {
		if v, ok := obj["$set"]; ok && len(v) > 0 && v[0] == '{' {
			return "$set record"
		}
		if v, ok := obj["$rewindTo"]; ok && len(v) > 0 && v[0] == '"' {
			return "$rewindTo record"
		}
	}
	for _, k := range []string{"uuid", "parentUuid", "parentId", "payload", "data", "message"} {
		if _, ok := obj[k]; ok {
			return ""
		}
	}
	if _, hasID := obj["id"]; !hasID {
		sid, _ := str(obj, "sessionId")
		hash, _ := str(obj, "projectHash")
		if _, hasType := obj["type"]; !hasType && sid != "" && hash != "" {
			return "metadata record (sessionId, projectHash)"
		}
		return ""
	}
	id, _ := str(obj, "id")
	typ, _ := str(obj, "type")
	c := obj["content"]
	if _, ok := obj["sessionId"]; ok || id == "" || !geminiMessageTypes[typ] || len(c) == 0 || c[0] != '"' && c[0] != '[' {
		return ""
	}
	return fmt.Sprintf("%q message (id, type, content)", typ)
}

// isDocumentStart reports whether a one-line object looks like a JSON
// document that only happens to end its first line there (a pretty-printed
// file starts with "{" alone; a minified one has no newline at all).
func isDocumentStart(obj map[string]json.RawMessage) bool {
	for _, k := range []string{"root", "loomTree", "loomType", "nodes", "memory", "state", "format", "current", "text", "children",
		"messages", "messages_path", "source_message_count"} {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// sniffDocument recognises the JSON document formats from the keys of the
// top level and a few levels below, reading tokens so that a head cut off
// mid-document still works.
func sniffDocument(b []byte) (string, string) {
	s := scan(b)
	has := func(path string) bool { _, ok := s.paths[path]; return ok }
	val := func(path string) string { return s.paths[path] }
	switch {
	case s.top == '[':
		if has("[].text") || has("[].children") {
			return Loom, "a JSON list of loom nodes (text, children): a legacy loom file"
		}
		return Unknown, "a JSON list" + s.listDescription() + ": not a format Rhizome reads"
	case val("format") == `"opencode-session"`:
		return OpenCode, `JSON document with "format": "opencode-session" (an OpenCode session's rows, as export-session writes them)`
	case val("format") == `"rhizome.loom-tree"`:
		return RhizomeLoom, `JSON document with "format": "rhizome.loom-tree"`
	case has("loomTree.nodeStore"):
		return MiniLoom, "JSON document with loomTree.nodeStore (MiniLoom)"
	case val("loomType") == `"Exoloom"`:
		return Exoloom, `JSON document with "loomType": "Exoloom"`
	case has("root.children") || has("root.text"):
		return Loom, "JSON document with a root node (root.text, root.children): a socketteer/loom tree"
	case has("text") && has("children"):
		return Loom, "a bare loom node (text, children)"
	case s.stateHasCurrentNodes:
		return Loomsidian, "JSON document whose state values have current and nodes (loomsidian data.json)"
	case has("current") && has("nodes") && s.nodesHaveParentID:
		return Loomsidian, "JSON document with current and a nodes map of parentId nodes (loomsidian note export)"
	case s.memoNodes && (has("edges") || has("memory.edges")):
		return MemoBrain, "JSON document with a nodes map of {node_id, kind, thought} and edges: a MemoBrain snapshot"
	case s.memoNodes:
		return MemoBrain, "JSON document with a nodes map of {node_id, kind, thought}: a MemoBrain snapshot"
	case s.ccmemoryNodes && has("edges"):
		return CCMemory, "JSON document with typed nodes (Decision, ...) and source/target edges: a ccmemory graph"
	case has("sessionId") && (val("agent") == `"lead"` || val("agent") == `"subagent"` || has("origin.source")):
		return Cline, "JSON document with a sessionId and Cline's agent or origin (a Cline CLI conversation, <id>.messages.json)"
	case has("session_id") && (has("messages_path") || has("started_at") && has("workspace_root")):
		return Unknown, "a Cline CLI session manifest (<id>.json): not a conversation; it is read with the <id>.messages.json beside it"
	case has("source_message_count") && has("conversation_id"):
		return Unknown, "a Cline CLI compacted view (<id>.compaction.json): not a conversation; it is read with the <id>.messages.json beside it"
	}
	if len(s.keys) == 0 {
		return Unknown, "JSON that does not parse: " + quoteStart(b)
	}
	return Unknown, "JSON document with keys " + strings.Join(firstN(s.keys, 8), ", ") + ": not a format Rhizome reads"
}

// scanResult is what scan found: the top-level kind, the key paths (with
// "[]" for array elements) up to depth 3 and the scalar values at them.
type scanResult struct {
	top                  byte
	keys                 []string // top-level keys, in order
	paths                map[string]string
	memoNodes            bool
	ccmemoryNodes        bool
	nodesHaveParentID    bool
	stateHasCurrentNodes bool
	listLen              int
}

func (s *scanResult) listDescription() string {
	if s.listLen == 0 {
		return ""
	}
	return fmt.Sprintf(" of %d+ values", s.listLen)
}

// scan walks the JSON tokens of b until they run out or fail.
func scan(b []byte) *scanResult {
	s := &scanResult{top: b[0], paths: map[string]string{}}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var walk func(path string, depth int, key string) error
	walk = func(path string, depth int, key string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' {
				var objKeys []string
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return err
					}
					k, _ := kt.(string)
					objKeys = append(objKeys, k)
					s.noteObject(path, depth, objKeys) // as keys come: a head may stop mid-object
					if depth == 0 {
						s.keys = append(s.keys, k)
					}
					sub := k
					if path != "" {
						sub = path + "." + k
					}
					if depth < 4 {
						s.paths[sub] = ""
					}
					if err := walk(sub, depth+1, k); err != nil {
						return err
					}
				}
				_, err := dec.Token()
				return err
			}
			if t == '[' {
				n := 0
				for dec.More() {
					n++
					if depth == 0 {
						s.listLen = n
					}
					if err := walk(path+"[]", depth+1, key); err != nil {
						return err
					}
				}
				_, err := dec.Token()
				return err
			}
		default:
			if depth <= 4 {
				raw, _ := json.Marshal(t)
				s.paths[path] = string(raw)
			}
		}
		return nil
	}
	_ = walk("", 0, "") // a head cut off mid-document fails: what was seen counts
	return s
}

// noteObject records the shapes the document formats are told apart by.
func (s *scanResult) noteObject(path string, depth int, keys []string) {
	has := func(k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	parent := path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent = path[:i]
	}
	// A MemoBrain node: {node_id, kind, thought} under nodes (a map) or memory.nodes.
	if has("node_id") && (has("kind") || has("thought")) && (strings.HasPrefix(parent, "nodes") || strings.HasPrefix(parent, "memory.nodes")) {
		s.memoNodes = true
	}
	if path == "nodes[]" && has("type") && (has("id") || has("title")) {
		s.ccmemoryNodes = true
	}
	if strings.HasPrefix(parent, "nodes") && has("parentId") {
		s.nodesHaveParentID = true
	}
	if depth == 2 && strings.HasPrefix(path, "state.") && has("current") && has("nodes") {
		s.stateHasCurrentNodes = true
	}
}

// describe says what a JSON Lines object is: its type and first keys.
func describe(obj map[string]json.RawMessage) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	d := "keys " + strings.Join(firstN(keys, 8), ", ")
	if t, ok := str(obj, "type"); ok {
		return fmt.Sprintf("type %q and %s", t, d)
	}
	return "no type and " + d
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), "...")
}

// quoteStart quotes the first bytes of b for a message.
func quoteStart(b []byte) string {
	n := min(len(b), 24)
	return fmt.Sprintf("%q", b[:n])
}
