package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/sessionformat"
)

// The boundaries the segmenter finds in the real Claude Code and Codex logs
// (issue 11 §1: "the same segments, boundaries (compaction, branch/rewind,
// resume gap, fork, sub-agent, hand-off) … as pi"), as the programs wrote
// them: the Claude Code session's two /compact and its rewind; its resumed
// copy's compaction; the Codex rollout's automatic compaction; the
// hand-made legacy rollout's compaction, rollback (a branch) and an hour's
// pause (a resume); a legacy Claude Code file's rewinds and inline
// sub-agent. See pi-brain-node-model.md, "Boundary Detection".
func TestBoundariesOfClaudeCodeAndCodex(t *testing.T) {
	want := map[string]map[string]int{
		claudeMain + ".jsonl":                                  {"compaction": 2, "branch": 1},
		claudeFork + ".jsonl":                                  {"compaction": 1},
		"agent-" + claudeAgent + ".jsonl":                      {},
		"older-format.jsonl":                                   {"branch": 2, "subagent": 2},
		"rollout-2026-11-24T11-04-43-" + codexMain + ".jsonl":  {"compaction": 1},
		"rollout-2026-11-24T11-04-43-" + codexAgent + ".jsonl": {},
		"wrapped-legacy.jsonl":                                 {"compaction": 1, "branch": 1, "resume": 1},
		"bare-era.jsonl":                                       {},
	}
	l := newTestLib(t)
	rep := l.importPaths(t, claudeHome, claudeHandMd, codexHome, codexHandMd)
	seen := 0
	for _, fr := range rep.Files {
		w, ok := want[filepath.Base(fr.Path)]
		if !ok {
			continue
		}
		seen++
		got := map[string]int{}
		for k, v := range fr.BoundariesByType {
			got[k] = v
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s: boundaries %v, want %v", filepath.Base(fr.Path), got, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of the %d files imported", seen, len(want))
	}
}

// A pause of three hours before a prompt, and a prompt asking for a
// hand-off, cut a Claude Code session and a Codex rollout as they cut a pi
// session: a resume boundary with the pause in minutes, a handoff boundary
// with the line that asked (variants of the real logs: their later lines
// three hours on; a prompt's text, and Codex's echo of it, changed).
func TestResumeGapAndHandoffInClaudeCodeAndCodex(t *testing.T) {
	files := []struct{ format, path string }{
		{sessionformat.ClaudeCode, claudeHome + "/-tmp-rhizome-claudecode-fixtures-work-acme-api/" + claudeMain + ".jsonl"},
		{sessionformat.Codex, codexHome + "/sessions/2026/11/24/rollout-2026-11-24T11-04-43-" + codexMain + ".jsonl"},
	}
	const ask = "/handoff to a reviewer: check the total"
	for _, f := range files {
		orig, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		base := newTestLib(t)
		before := base.importPaths(t, f.path).Files[0].BoundariesByType

		lines := bytes.SplitAfter(orig, []byte("\n"))
		at, prompt := secondPrompt(t, f.format, lines)
		for _, v := range []struct {
			name   string
			change func(i int, obj map[string]any)
			want   string
			meta   func(m map[string]any) bool
		}{
			{"a pause", func(i int, obj map[string]any) {
				if i >= at {
					shiftTimes(obj, 3*time.Hour)
				}
			}, "resume", func(m map[string]any) bool {
				g, _ := m["gapMinutes"].(float64)
				return g >= 180 && g < 190
			}},
			{"a hand-off", func(i int, obj map[string]any) {
				if i == at || f.format == sessionformat.Codex && isPromptEcho(obj, prompt) {
					setPrompt(f.format, obj, ask)
				}
			}, "handoff", func(m map[string]any) bool { return m["reason"] == ask }},
		} {
			var out bytes.Buffer
			for i, ln := range lines {
				if len(bytes.TrimSpace(ln)) == 0 {
					out.Write(ln)
					continue
				}
				var obj map[string]any
				if err := json.Unmarshal(ln, &obj); err != nil {
					t.Fatal(err)
				}
				v.change(i, obj)
				b, _ := json.Marshal(obj)
				out.Write(append(b, '\n'))
			}
			p := filepath.Join(t.TempDir(), filepath.Base(f.path))
			os.WriteFile(p, out.Bytes(), 0o644)
			l := newTestLib(t)
			fr := l.importPaths(t, p).Files[0]
			if fr.Status != ingest.StatusImported || fr.BoundariesByType[v.want] != before[v.want]+1 {
				t.Errorf("%s with %s: boundaries %v (before %v): want one %s more", f.format, v.name, fr.BoundariesByType, before, v.want)
				continue
			}
			metas := l.texts(t, `SELECT coalesce(json_extract(b.value, '$.metadata'), '{}') FROM segments g, json_each(g.boundaries) b
				WHERE json_extract(b.value, '$.type') = ?`, v.want)
			ok := false
			for _, m := range metas {
				var meta map[string]any
				if json.Unmarshal([]byte(m), &meta) == nil && v.meta(meta) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s with %s: the %s boundaries' metadata %v", f.format, v.name, v.want, metas)
			}
		}
	}
}

// secondPrompt is the index of the line of the second prompt the person
// typed (not the harness's context, not a command), and its text.
func secondPrompt(t *testing.T, format string, lines [][]byte) (int, string) {
	t.Helper()
	n := 0
	for i, ln := range lines {
		var obj map[string]any
		if json.Unmarshal(ln, &obj) != nil {
			continue
		}
		if text, ok := promptText(format, obj); ok && !strings.HasPrefix(strings.TrimSpace(text), "<") {
			if n++; n == 2 {
				return i, text
			}
		}
	}
	t.Fatal("no second prompt")
	return 0, ""
}

// promptText is the text of a typed prompt line: Claude Code's user line
// whose content is a string, Codex's user message item.
func promptText(format string, obj map[string]any) (string, bool) {
	if format == sessionformat.ClaudeCode {
		m, _ := obj["message"].(map[string]any)
		s, ok := m["content"].(string)
		return s, ok && obj["type"] == "user" && obj["isMeta"] != true
	}
	p, _ := obj["payload"].(map[string]any)
	if obj["type"] != "response_item" || p["type"] != "message" || p["role"] != "user" {
		return "", false
	}
	c, _ := p["content"].([]any)
	if len(c) == 0 {
		return "", false
	}
	b, _ := c[0].(map[string]any)
	s, ok := b["text"].(string)
	return s, ok
}

// setPrompt puts text in a prompt line (or Codex's echo of it).
func setPrompt(format string, obj map[string]any, text string) {
	if format == sessionformat.ClaudeCode {
		obj["message"].(map[string]any)["content"] = text
		return
	}
	p := obj["payload"].(map[string]any)
	if p["type"] == "user_message" {
		p["message"] = text
		return
	}
	p["content"].([]any)[0].(map[string]any)["text"] = text
}

// isPromptEcho reports whether a Codex line is the event echoing the
// prompt text (event_msg user_message): with the prompt changed its echo
// must change too, or the two no longer pair.
func isPromptEcho(obj map[string]any, text string) bool {
	p, _ := obj["payload"].(map[string]any)
	return obj["type"] == "event_msg" && p["type"] == "user_message" && p["message"] == text
}

// shiftTimes moves a line's times d later: its timestamp and a Codex
// payload's.
func shiftTimes(obj map[string]any, d time.Duration) {
	shift := func(m map[string]any) {
		if s, ok := m["timestamp"].(string); ok {
			if tm, err := time.Parse(time.RFC3339Nano, s); err == nil {
				m["timestamp"] = tm.Add(d).UTC().Format("2006-01-02T15:04:05.000Z")
			}
		}
	}
	shift(obj)
	if p, ok := obj["payload"].(map[string]any); ok {
		shift(p)
	}
}

// A Codex 0.169 fork records where its history ends in its parent's file
// (session_meta.history_base.end_byte_offset): the fork edge comes from the
// parent's node holding the entry before that byte, also when the parent
// went on after the fork (here: its later lines, three hours on, a node of
// their own), and a window after a revert forks from where it was reverted
// to. See claude-code-codex-formats.md §2.4.
func TestCodexForkEdgeFromTheHistoryBase(t *testing.T) {
	parentFile := codexHome + "/sessions/2026/11/24/rollout-2026-11-24T11-04-43-" + codexMain + ".jsonl"
	orig, err := os.ReadFile(parentFile)
	if err != nil {
		t.Fatal(err)
	}
	// The parent went on: its last turn again, three hours later.
	lines := bytes.SplitAfter(orig, []byte("\n"))
	at, _ := secondPrompt(t, sessionformat.Codex, lines)
	var more bytes.Buffer
	for _, ln := range lines[at:] {
		var obj map[string]any
		if json.Unmarshal(ln, &obj) != nil {
			continue
		}
		shiftTimes(obj, 3*time.Hour)
		b, _ := json.Marshal(obj)
		more.Write(append(b, '\n'))
	}
	home := filepath.Join(t.TempDir(), "codex")
	copyTree(t, home, codexHome, func(rel string, b []byte) []byte {
		if filepath.Base(rel) == filepath.Base(parentFile) {
			return append(append([]byte(nil), b...), more.Bytes()...)
		}
		return b
	})
	l := newTestLib(t)
	if rep := l.importPaths(t, home); rep.Totals.Failed != 0 {
		t.Fatalf("%+v", rep.Files)
	}
	nodeBefore := func(offset int64) string {
		ids := l.texts(t, `SELECT n.id FROM entries e JOIN sessions s ON s.pk = e.session_pk
			JOIN segments g ON g.session_pk = e.session_pk AND e.seq BETWEEN g.start_seq AND g.end_seq
			JOIN nodes n ON n.session_pk = g.session_pk AND n.segment_idx = g.idx
			WHERE s.id = ? AND e.byte_offset < ? ORDER BY e.seq DESC LIMIT 1`, codexMain, offset)
		if len(ids) != 1 {
			t.Fatalf("no node of the parent before byte %d", offset)
		}
		return ids[0]
	}
	last := l.texts(t, `SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = ? ORDER BY n.segment_idx DESC LIMIT 1`, codexMain)[0]
	for _, c := range []struct {
		child  string
		offset int64 // the child's history_base.end_byte_offset
	}{{codexFork, 101991}, {codexWindow, 71435}} {
		want := nodeBefore(c.offset)
		if want == last {
			t.Fatalf("%s: the node before byte %d is the parent's last: the test shows nothing", c.child, c.offset)
		}
		got := l.texts(t, `SELECT e.source_id || ' ' || coalesce(json_extract(e.metadata, '$.forkOffset'), '') FROM edges e JOIN nodes n ON n.id = e.target_id
			JOIN sessions s ON s.pk = n.session_pk WHERE e.type = 'fork' AND s.id = ?`, c.child)
		if len(got) != 1 || got[0] != fmt.Sprintf("%s %d", want, c.offset) {
			t.Errorf("fork edge into %s: %v, want from %s (before byte %d), not the parent's last node %s", c.child, got, want, c.offset, last)
		}
	}
}

// A Codex 0.169 revert (thread/revert) starts a history window of the
// thread (<thread>_<window>.jsonl) that keeps the thread's bytes before its
// history_base.end_byte_offset: the thread's entries from there on are out
// of its history, kept and marked rolled back, whichever file is imported
// first; a fork's history_base supersedes nothing of its parent.
func TestCodexRevertMarksTheThreadsLaterEntries(t *testing.T) {
	thread := codexHome + "/sessions/2026/11/24/rollout-2026-11-24T11-04-43-" + codexMain + ".jsonl"
	window := codexHome + "/sessions/2026/11/24/rollout-2026-11-24T11-04-45-" + codexWindow + ".jsonl"
	fork := codexHome + "/archived_sessions/rollout-2026-11-24T11-04-45-" + codexFork + ".jsonl"
	const revertedAt = 71435 // the window's history_base.end_byte_offset
	for _, order := range [][]string{{thread, window, fork}, {window, fork, thread}} {
		l := newTestLib(t)
		for _, p := range order {
			l.importPaths(t, p)
		}
		flagged, kept := 0, 0
		segs, err := l.Library.Timeline(codexMain)
		if err != nil {
			t.Fatal(err)
		}
		offsets := map[int]int64{}
		for _, r := range l.texts(t, `SELECT e.seq || ' ' || e.byte_offset FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.id = ?`, codexMain) {
			var seq int
			var off int64
			fmt.Sscan(r, &seq, &off)
			offsets[seq] = off
		}
		for _, g := range segs {
			page, err := l.Library.SegmentEntries(g.NodeID, 0, MaxEntryPage)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entries {
				if want := offsets[e.Seq] >= revertedAt; e.RolledBack != want {
					t.Errorf("%s first: entry %d (byte %d) rolled back %v, want %v", filepath.Base(order[0]), e.Seq, offsets[e.Seq], e.RolledBack, want)
				} else if want {
					flagged++
				} else {
					kept++
				}
			}
		}
		if flagged == 0 || kept == 0 {
			t.Errorf("%s first: %d entries marked, %d not: the revert point is not inside the thread", filepath.Base(order[0]), flagged, kept)
		}
	}
}
