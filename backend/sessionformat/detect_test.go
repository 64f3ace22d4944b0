package sessionformat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/backend/pisession/pitest"
)

// head reads the first HeadBytes of a file, as a caller sniffing a drop
// would.
func head(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b[:min(len(b), HeadBytes)]
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files for %s: %v", pattern, err)
	}
	return files
}

// TestDetectRealFiles sniffs the real files of every format in the
// repository: pi sessions (v1 and v3), Claude Code sessions and sub-agent
// transcripts, Qwen Code sessions, Copilot CLI session logs, Codex rollouts and the hand-made eras, socketteer/loom and
// Rhizome loom exports.
func TestDetectRealFiles(t *testing.T) {
	cases := []struct {
		pattern string
		format  string
		why     string
	}{
		{filepath.Join(pitest.SamplesDir(), "*.jsonl"), Pi, "pi session header (version 1)"},
		{"../segment/testdata/v3/sessions/*.jsonl", Pi, "pi session header (version 3)"},
		{"../claudecode/testdata/claude-home/projects/*/*.jsonl", ClaudeCode, "Claude Code"},
		{"../claudecode/testdata/claude-home/projects/*/*/subagents/*.jsonl", ClaudeCode, `Claude Code "user" line`},
		{"../claudecode/testdata/handmade/*.jsonl", ClaudeCode, `Claude Code "summary" line`},
		{"../qwen/testdata/qwen-home/projects/*/chats/*.jsonl", QwenCode, `Qwen Code "user" record (uuid, sessionId and message.parts)`},
		{"../qwen/testdata/qwen-home/projects/*/subagents/*/*.jsonl", QwenCode, `Qwen Code "user" record (uuid, sessionId and message.parts)`},
		{"../copilot/testdata/copilot-home/session-state/*/events.jsonl", Copilot, `GitHub Copilot CLI "session.start" event (type, data, id, parentId)`},
		{"../copilot/testdata/handmade/*.jsonl", Copilot, `GitHub Copilot CLI "session.start" event`},
		{"../codex/testdata/codex-home/sessions/*/*/*/*.jsonl", Codex, `Codex rollout item ("session_meta" with a payload)`},
		{"../codex/testdata/codex-home/archived_sessions/*.jsonl", Codex, "Codex rollout item"},
		{"../codex/testdata/handmade/bare-era.jsonl", Codex, "bare-era Codex session header"},
		{"../codex/testdata/handmade/wrapped-legacy.jsonl", Codex, "Codex rollout item"},
		{"../loom/testdata/socketteer-lighthouse.json", Loom, "socketteer/loom tree"},
		{"../loom/testdata/socketteer-lighthouse.rhizome.json", RhizomeLoom, "rhizome.loom-tree"},
	}
	for _, c := range cases {
		for _, f := range glob(t, c.pattern) {
			got, why := Detect(head(t, f))
			if got != c.format || !strings.Contains(why, c.why) {
				t.Errorf("%s: %q (%s), want %q (~%s)", f, got, why, c.format, c.why)
			}
		}
	}
}

// TestDetectSamples covers the document formats of the sniffing table
// (interchange-formats.md §6) and what unknown input is said to look like.
func TestDetectSamples(t *testing.T) {
	for _, c := range []struct {
		name, in, format, why string
	}{
		{"memobrain snapshot", `{"nodes": {"1": {"node_id": 1, "kind": "task", "related_turn_ids": [0, 1], "thought": "Begin", "active": true}}, "edges": [{"src": 1, "dst": 2, "rationale": "r"}]}`, MemoBrain, "MemoBrain"},
		{"memobrain wrapped in memory, pretty", "{\n    \"memory\": {\n        \"nodes\": {\n            \"1\": {\n                \"node_id\": 1,\n                \"kind\": \"task\",\n                \"thought\": \"x\"\n            }\n        },\n        \"edges\": []\n    }\n}\n", MemoBrain, "MemoBrain"},
		{"memobrain cut off after the first node", `{"memory": {"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "Begin to solve`, MemoBrain, "MemoBrain"},
		{"miniloom", `{"loomTree": {"nodeStore": {"a": {}}}}`, MiniLoom, "nodeStore"},
		{"exoloom", `{"loomType": "Exoloom", "nodes": []}`, Exoloom, "Exoloom"},
		{"bare loom node", `{"text": "Once", "children": []}`, Loom, "bare loom node"},
		{"legacy loom list", `[{"text": "Once", "children": []}]`, Loom, "legacy loom"},
		{"loomsidian data.json", `{"settings": {}, "state": {"note.md": {"current": "a", "nodes": {"a": {"text": "x", "parentId": null}}}}}`, Loomsidian, "loomsidian"},
		{"loomsidian note", `{"current": "a", "nodes": {"a": {"text": "x", "parentId": null}}}`, Loomsidian, "loomsidian"},
		{"ccmemory graph", `{"nodes": [{"id": "d1", "type": "Decision", "title": "Use SQLite"}], "edges": [{"source": "d1", "target": "d2", "type": "CITES"}]}`, CCMemory, "ccmemory"},
		{"tapestry", "VersionedTapestryWeave__v2\x00\x01", Tapestry, "not a format Rhizome reads"},
		{"graphml", `<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">`, GraphML, "GraphML"},
		{"empty", "", Unknown, "empty file"},
		{"binary", "\x89PNG\r\n\x1a\n", Unknown, `not JSON: starts with "\x89PNG`},
		{"other JSON Lines", `{"event":"click","x":1}` + "\n" + `{"event":"key"}` + "\n", Unknown, `JSON Lines whose first object has no type and keys event, x: not a session format Rhizome reads`},
		{"JSON Lines of another type", `{"type":"span","name":"db"}` + "\n", Unknown, `type "span"`},
		{"other JSON document", `{"name": "package", "version": "1.0.0", "dependencies": {}}`, Unknown, "JSON document with keys name, version, dependencies"},
		{"broken JSON", `{"a": [1, 2`, Unknown, "JSON document with keys a"},
		{"markdown", "# Notes\n\nhello\n", Unknown, "not JSON"},
		{"codex bare item first", `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}` + "\n", Codex, "bare-era Codex response item"},
		{"claude metadata first", `{"type":"custom-title","customTitle":"x","sessionId":"s"}` + "\n", ClaudeCode, `"custom-title"`},
		{"pi header only, no newline", `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}`, Pi, "version 3"},
		{"byte order mark", "\xEF\xBB\xBF" + `{"type":"session","id":"s"}` + "\n", Pi, "version 1"},
	} {
		got, why := Detect([]byte(c.in))
		if got != c.format || !strings.Contains(why, c.why) {
			t.Errorf("%s: %q (%s), want %q (~%s)", c.name, got, why, c.format, c.why)
		}
	}
}

// TestDetectQwenOrClaude tells Qwen Code records from Claude Code lines,
// whose envelopes are the same (uuid, parentUuid, sessionId, type, cwd,
// version, gitBranch): by the Gemini-form message (parts, not content) or a
// field only Qwen Code writes; each real first line, and the other record
// types each could start with, both ways.
func TestDetectQwenOrClaude(t *testing.T) {
	const env = `"uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-12-03T09:37:40.986Z","cwd":"/w","version":"0.24.4","gitBranch":"main"`
	for _, c := range []struct {
		name, line, format, why string
	}{
		{"qwen prompt", `{` + env + `,"type":"user","provenance":"real_user","message":{"role":"user","parts":[{"text":"hi"}]}}`, QwenCode, "message.parts"},
		{"qwen sub-agent task (no provenance)", `{` + env + `,"type":"user","agentId":"Explore-call_1","isSidechain":true,"message":{"role":"user","parts":[{"text":"find"}]}}`, QwenCode, "message.parts"},
		{"qwen system record first", `{` + env + `,"type":"system","subtype":"custom_title","systemPayload":{"customTitle":"t"}}`, QwenCode, "systemPayload"},
		{"qwen tool result", `{` + env + `,"type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c","name":"x","response":{}}}]},"toolCallResult":{"callId":"c"}}`, QwenCode, "message.parts"},
		{"qwen record without a message", `{` + env + `,"type":"assistant","provenance":"assistant_output"}`, QwenCode, "provenance"},
		{"claude prompt", `{` + env + `,"type":"user","isSidechain":false,"userType":"external","message":{"role":"user","content":"hi"}}`, ClaudeCode, `Claude Code "user" line`},
		{"claude blocks", `{` + env + `,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]}}`, ClaudeCode, "Claude Code"},
		{"claude content beats a stray provenance", `{` + env + `,"type":"user","provenance":"x","message":{"role":"user","content":"hi"}}`, ClaudeCode, "Claude Code"},
		{"claude system line", `{` + env + `,"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}`, ClaudeCode, "Claude Code"},
	} {
		got, why := Detect([]byte(c.line + "\n"))
		if got != c.format || !strings.Contains(why, c.why) {
			t.Errorf("%s: %q (%s), want %q (~%s)", c.name, got, why, c.format, c.why)
		}
	}
}

// TestDetectCopilotLines holds the GitHub Copilot CLI rule (copilotEvent,
// the envelope {type: "a.b", data: {}, id, parentId}) against every line of
// the repository's session files, not only the first (a file cut at any
// line, or a line pasted alone, is sniffed as well): every event of the
// real and hand-made Copilot CLI logs is Copilot's, and no line of a pi,
// Claude Code, Qwen Code, Codex or Gemini CLI file is; then the shapes
// around the rule, both ways.
func TestDetectCopilotLines(t *testing.T) {
	lines := func(path string) [][]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, l := range bytes.Split(b, []byte("\n")) {
			var obj map[string]json.RawMessage
			if json.Unmarshal(l, &obj) == nil { // one object (not a line of two, nor a broken one)
				out = append(out, l)
			}
		}
		return out
	}
	var mine []string
	for _, p := range []string{"../copilot/testdata/copilot-home/session-state/*/events.jsonl", "../copilot/testdata/handmade/*.jsonl"} {
		mine = append(mine, glob(t, p)...)
	}
	n := 0
	for _, f := range mine {
		for i, l := range lines(f) {
			if !bytes.Contains(l, []byte(`"id":`)) {
				continue // the hand-made event without an id: not an event's first line
			}
			n++
			if got, why := Detect(append(l, '\n')); got != Copilot || !strings.Contains(why, "GitHub Copilot CLI") {
				t.Errorf("%s line %d: %q (%s), want %q", f, i+1, got, why, Copilot)
			}
		}
	}
	if n < 120 {
		t.Errorf("only %d Copilot CLI events", n)
	}
	var others []string
	for _, p := range []string{
		filepath.Join(pitest.SamplesDir(), "*.jsonl"),
		"../segment/testdata/v3/sessions/*.jsonl",
		"../pisession/testdata/handmade/*.jsonl",
		"../claudecode/testdata/claude-home/projects/*/*.jsonl",
		"../claudecode/testdata/claude-home/projects/*/*/subagents/*.jsonl",
		"../claudecode/testdata/handmade/*.jsonl",
		"../qwen/testdata/qwen-home/projects/*/chats/*.jsonl",
		"../qwen/testdata/qwen-home/projects/*/subagents/*/*.jsonl",
		"../qwen/testdata/handmade/*.jsonl",
		"../codex/testdata/codex-home/sessions/*/*/*/*.jsonl",
		"../codex/testdata/codex-home/archived_sessions/*.jsonl",
		"../codex/testdata/handmade/*.jsonl",
		"../gemini/testdata/gemini-home/tmp/*/chats/*.jsonl",
	} {
		others = append(others, glob(t, p)...)
	}
	n = 0
	for _, f := range others {
		for i, l := range lines(f) {
			n++
			if got, why := Detect(append(l, '\n')); got == Copilot {
				t.Errorf("%s line %d: %q (%s)", f, i+1, got, why)
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d lines of other formats", n)
	}

	const ev = `"data":{"sessionId":"s"},"id":"e1","timestamp":"2026-12-03T09:41:50.886Z"`
	for _, c := range []struct {
		name, line, format string
	}{
		{"session.start", `{"type":"session.start",` + ev + `,"parentId":null}`, Copilot},
		{"a sub-agent's event", `{"type":"assistant.turn_start",` + ev + `,"parentId":"e0","agentId":"a1"}`, Copilot},
		{"an unknown event type", `{"type":"hologram.beam_v2",` + ev + `,"parentId":"e0"}`, Copilot},
		{"no parentId", `{"type":"session.start",` + ev + `}`, Unknown},
		{"a parentId that is no string", `{"type":"session.start",` + ev + `,"parentId":7}`, Unknown},
		{"data not an object", `{"type":"session.start","data":"x","id":"e1","parentId":null}`, Unknown},
		{"no id", `{"type":"abort","data":{},"parentId":"e0"}`, Unknown},
		{"an id that is no string", `{"type":"session.start","data":{},"id":1,"parentId":null}`, Unknown},
		{"a type without a dot", `{"type":"custom","data":{},"id":"e1","parentId":null}`, Unknown},
		{"upper case", `{"type":"Session.Start","data":{},"id":"e1","parentId":null}`, Unknown},
		{"an empty word", `{"type":"session.","data":{},"id":"e1","parentId":null}`, Unknown},
		{"a pi header", `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}`, Pi},
		{"a codex item", `{"timestamp":"t","type":"event_msg","payload":{"type":"user_message"}}`, Codex},
		{"a claude line with data", `{"type":"progress","data":{"type":"hook_progress"},"uuid":"u","parentUuid":null,"sessionId":"s"}`, ClaudeCode},
	} {
		if got, why := Detect([]byte(c.line + "\n")); got != c.format {
			t.Errorf("%s: %q (%s), want %q", c.name, got, why, c.format)
		}
	}
}

// Every line of the real Gemini CLI recordings (metadata, messages, $set) is
// one, whatever line a file starts with (backend/gemini.LooksObject holds
// the same rule against every format's files); no line of another format
// is.
func TestDetectGeminiCLI(t *testing.T) {
	lines := func(path string) [][]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, l := range bytes.Split(b, []byte("\n")) {
			var obj map[string]json.RawMessage
			if json.Unmarshal(l, &obj) == nil { // one object (not a line of two, nor a broken one)
				out = append(out, l)
			}
		}
		return out
	}
	n := 0
	for _, p := range []string{"../gemini/testdata/gemini-home/tmp/*/chats/*.jsonl", "../gemini/testdata/gemini-home/tmp/*/chats/*/*.jsonl"} {
		for _, f := range glob(t, p) {
			for i, l := range lines(f) {
				n++
				if got, why := Detect(append(l, '\n')); got != Gemini {
					t.Errorf("%s line %d: %q (%s)", f, i+1, got, why)
				}
			}
		}
	}
	if n != 119 {
		t.Errorf("%d Gemini CLI records", n)
	}
	m := 0
	for _, p := range []string{
		"../claudecode/testdata/claude-home/projects/*/*.jsonl", "../claudecode/testdata/handmade/*.jsonl",
		"../qwen/testdata/qwen-home/projects/*/chats/*.jsonl", "../qwen/testdata/handmade/*.jsonl",
		"../codex/testdata/codex-home/sessions/*/*/*/*.jsonl", "../codex/testdata/handmade/*.jsonl",
		"../copilot/testdata/copilot-home/session-state/*/events.jsonl", "../pisession/testdata/handmade/*.jsonl",
		"../segment/testdata/v3/sessions/*.jsonl",
	} {
		for _, f := range glob(t, p) {
			for i, l := range lines(f) {
				m++
				if got, why := Detect(append(l, '\n')); got == Gemini {
					t.Errorf("%s line %d: %q (%s)", f, i+1, got, why)
				}
			}
		}
	}
	if m < 500 {
		t.Errorf("only %d lines of other formats", m)
	}
	if got, why := Detect([]byte(`{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}` + "\n")); got != Gemini ||
		why != "first line is a Gemini CLI chat recording's metadata record (sessionId, projectHash)" {
		t.Errorf("metadata: %q (%s)", got, why)
	}
}

// The real Cline CLI 3.0.65 conversations (root sessions and a sub-agent's)
// are told by their envelope, whole and cut anywhere after it; a minified
// one too; the manifest and the compacted view beside them are said to be
// what they are, not conversations (backend/cline/testdata/generate/README.md).
func TestDetectCline(t *testing.T) {
	for _, f := range glob(t, "../cline/testdata/cline-home/sessions/*/*.messages.json") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{len(b), len(b) / 2, bytes.Index(b, []byte(`"origin"`)) + 40, bytes.Index(b, []byte(`"messages"`))} {
			if got, why := Detect(b[:cut]); got != Cline {
				t.Errorf("%s cut at %d: %q (%s)", f, cut, got, why)
			}
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		min, _ := json.Marshal(v)
		for _, in := range [][]byte{min, append(min, '\n')} {
			if got, why := Detect(in); got != Cline {
				t.Errorf("%s minified: %q (%s)", f, got, why)
			}
		}
	}
	for pattern, why := range map[string]string{
		"../cline/testdata/cline-home/sessions/*/[0-9]*_*[^sn].json": "Cline CLI session manifest",
		"../cline/testdata/cline-home/sessions/*/*.compaction.json":  "Cline CLI compacted view",
	} {
		for _, f := range glob(t, pattern) {
			if got, w := Detect(head(t, f)); got != Unknown || !strings.Contains(w, why) {
				t.Errorf("%s: %q (%s), want ~%s", f, got, w, why)
			}
		}
	}
	// No line of a JSON Lines format is one.
	for _, p := range []string{"../claudecode/testdata/claude-home/projects/*/*.jsonl", "../gemini/testdata/gemini-home/tmp/*/chats/*.jsonl",
		"../copilot/testdata/copilot-home/session-state/*/events.jsonl", "../qwen/testdata/qwen-home/projects/*/chats/*.jsonl"} {
		for _, f := range glob(t, p) {
			if got, _ := Detect(head(t, f)); got == Cline {
				t.Errorf("%s: Cline", f)
			}
		}
	}
}

// An OpenCode session document (the rows of a session in opencode.db, as
// backend/opencode exports them and export-session gives them back) is told
// by its "format" member, whole and cut anywhere after it; the database
// itself, a SQLite file, is said to be one (it is read by its tables where
// it is opened, not from its first bytes).
func TestDetectOpenCode(t *testing.T) {
	for _, f := range glob(t, "../opencode/testdata/golden/*.export.json") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range []int{len(b), len(b) / 2, bytes.Index(b, []byte(`"session"`)), 40} {
			if got, why := Detect(b[:cut]); got != OpenCode {
				t.Errorf("%s cut at %d: %q (%s)", f, cut, got, why)
			}
		}
	}
	if got, why := Detect(head(t, "../opencode/testdata/opencode-home/opencode.db")); got != Unknown || !strings.Contains(why, "a SQLite database") {
		t.Errorf("opencode.db: %q (%s)", got, why)
	}
}
