package ingest

import "testing"

// The agents' bookkeeping files beside their sessions are not sessions:
// a whole ~/.codex or ~/.qwen imports without failing on them.
func TestIsSessionFile(t *testing.T) {
	for p, want := range map[string]bool{
		"/h/.qwen/projects/-w/chats/9d4e6b21.jsonl":          true,
		"/h/.claude/projects/-w/5e55a1d0.jsonl":              true,
		"/h/.codex/sessions/2026/11/24/rollout.JSONL":        true,
		"/h/.codex/session_index.jsonl":                      false,
		"/h/.codex/history.jsonl":                            false,
		"/h/.qwen/usage_record.jsonl":                        false,
		"/h/.qwen/projects/-w/subagents/s/agent-x.meta.json": false,
	} {
		if got := IsSessionFile(p); got != want {
			t.Errorf("IsSessionFile(%s) = %v, want %v", p, got, want)
		}
	}
}
