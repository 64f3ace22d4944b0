package app

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rhizome/app/ingest"
)

// A Claude Code sub-agent whose Task/Agent call was interrupted has no
// result naming it (toolUseResult.agentId): its sidecar's toolUseId
// (agent-<id>.meta.json) names the call, and links it to the parent's node
// holding that call, whichever file is imported first
// (claude-code-codex-formats.md §1.4: "link the two from either end:
// meta.json.toolUseId, …"). Without the sidecar nothing says which call
// spawned it, and no edge is made.
func TestInterruptedSubagentLinkedBySidecar(t *testing.T) {
	const project = "-tmp-rhizome-claudecode-fixtures-work-acme-api"
	const call = "toolu_4SKsBLcLf80xv9q8KmmPgIp1" // the Agent call in the fixture, its sidecar's toolUseId
	home := filepath.Join(t.TempDir(), "projects")
	copyTree(t, home, claudeHome, func(rel string, b []byte) []byte {
		if filepath.Base(rel) == claudeMain+".jsonl" {
			out := bytes.Replace(b, []byte(`"agentId":"`+claudeAgent+`",`), nil, 1)
			if bytes.Equal(out, b) {
				t.Fatal("the fixture's result no longer names its agent")
			}
			return out
		}
		return b
	})
	main := filepath.Join(home, project, claudeMain+".jsonl")
	agent := filepath.Join(home, project, claudeMain, "subagents", "agent-"+claudeAgent+".jsonl")
	// The node of the main session holding the call.
	callNode := func(l *testLib) string {
		ids := l.texts(t, `SELECT n.id FROM entries e JOIN sessions s ON s.pk = e.session_pk
			JOIN segments g ON g.session_pk = e.session_pk AND e.seq BETWEEN g.start_seq AND g.end_seq
			JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			WHERE s.id = ? AND e.role = 'assistant' AND instr(unpack_raw(e.raw), ?) > 0 ORDER BY e.seq LIMIT 1`, claudeMain, `"id":"`+call+`"`)
		if len(ids) != 1 {
			t.Fatalf("no node holds the call: %v", ids)
		}
		return ids[0]
	}
	edges := func(l *testLib) []string {
		return l.texts(t, `SELECT e.source_id FROM edges e JOIN nodes n ON n.id = e.target_id JOIN sessions s ON s.pk = n.session_pk
			WHERE e.type = 'subagent' AND s.id = ?`, "agent-"+claudeAgent)
	}
	for _, order := range [][]string{{main, agent}, {agent, main}} {
		l := newTestLib(t)
		for _, p := range order {
			if fr := l.importPaths(t, p).Files[0]; fr.Status != ingest.StatusImported {
				t.Fatalf("%s: %+v", p, fr)
			}
		}
		if got := edges(l); len(got) != 1 || got[0] != callNode(l) {
			t.Errorf("%s first: subagent edges from %v, want one from %s (the node of the call)", filepath.Base(order[0]), got, callNode(l))
		}
		// Imported again, the parent does not link it twice.
		os.WriteFile(main, append(mustRead(t, main), '\n'), 0o644)
		l.importPaths(t, main)
		if got := edges(l); len(got) != 1 {
			t.Errorf("%s first, then the parent appended to: subagent edges from %v", filepath.Base(order[0]), got)
		}
	}
	os.Remove(filepath.Join(filepath.Dir(agent), "agent-"+claudeAgent+".meta.json"))
	l := newTestLib(t)
	l.importPaths(t, main, agent)
	if got := edges(l); len(got) != 0 {
		t.Errorf("without the sidecar: subagent edges from %v", got)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
