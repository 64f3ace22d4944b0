package ingest

import (
	"path/filepath"
	"testing"
)

// The agents' bookkeeping files beside their sessions are not sessions:
// a whole ~/.codex, ~/.qwen or ~/.copilot imports without failing on them.
func TestIsSessionFile(t *testing.T) {
	for p, want := range map[string]bool{
		"/h/.qwen/projects/-w/chats/9d4e6b21.jsonl":          true,
		"/h/.claude/projects/-w/5e55a1d0.jsonl":              true,
		"/h/.codex/sessions/2026/11/24/rollout.JSONL":        true,
		"/h/.copilot/session-state/c0b1d2e3/events.jsonl":    true,
		"/h/.codex/session_index.jsonl":                      false,
		"/h/.codex/history.jsonl":                            false,
		"/h/.qwen/usage_record.jsonl":                        false,
		"/h/.qwen/projects/-w/subagents/s/agent-x.meta.json": false,
		// Copilot CLI's files beside events.jsonl: none is *.jsonl.
		"/h/.copilot/session-state/c0b1d2e3/workspace.yaml":                                 false,
		"/h/.copilot/session-state/c0b1d2e3/checkpoints/001-session-c0b1d2e3.md":            false,
		"/h/.copilot/session-state/c0b1d2e3/rewind-file-snapshots/index.json":               false,
		"/h/.copilot/session-state/c0b1d2e3/rewind-file-snapshots/backups/4a6bb75c5ea98856": false,
		"/h/.copilot/session-state/c0b1d2e3/session.db":                                     false,
		"/h/.copilot/session-store.db":                                                      false,
	} {
		if got := IsSessionFile(p); got != want {
			t.Errorf("IsSessionFile(%s) = %v, want %v", p, got, want)
		}
	}
}

// A whole ~/.copilot (the real one of backend/copilot/testdata) lists its
// two session logs and nothing else: workspace.yaml, the checkpoints, the
// rewind snapshots and their backups, session-store.db are passed over by
// name, as the watcher passes them over.
func TestCollectCopilotHome(t *testing.T) {
	home := "../../backend/copilot/testdata/copilot-home"
	for _, dir := range []string{home, home + "/session-state"} {
		srcs := Collect([]string{dir}, "h")
		var got []string
		for _, s := range srcs {
			if s.err != nil {
				t.Errorf("%s: %v", s.path, s.err)
			}
			rel, _ := filepath.Rel(mustAbs(t, home), s.path)
			got = append(got, filepath.ToSlash(rel))
		}
		want := []string{"session-state/c0b1d2e3-4f56-4789-8abc-def012345678/events.jsonl",
			"session-state/c685a495-edd5-4212-93d7-a99b116c67bf/events.jsonl"}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("Collect(%s) = %v, want %v", dir, got, want)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
