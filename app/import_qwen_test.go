package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
)

// The real Qwen Code logs, made by the real program (Qwen Code 0.24.4)
// against a scripted local model server; see backend/qwen/testdata/generate.
const (
	qwenHome   = "../backend/qwen/testdata/qwen-home"
	qwenProj   = qwenHome + "/projects/-tmp-rhizome-qwen-fixtures-work-acme-api"
	qwenMain   = "9d4e6b21-3c7a-4f08-b5e2-6a1c0d8f7e39"
	qwenFork   = "73a2ed20-0fa3-4173-bda8-09d8f927e759"
	qwenAgent  = "Explore-call_IiGUgr73okfuK2WTKvME31ev"
	qwenHandMd = "../backend/qwen/testdata/handmade"
)

var qwenFiles = map[string]string{
	qwenMain:             qwenProj + "/chats/" + qwenMain + ".jsonl",
	qwenFork:             qwenProj + "/chats/" + qwenFork + ".jsonl",
	"agent-" + qwenAgent: qwenProj + "/subagents/" + qwenMain + "/agent-" + qwenAgent + ".jsonl",
}

// A whole ~/.qwen imports as Claude Code's does: the session, its fork and
// the sub-agent's transcript, every line an entry, none failed; segments as
// the segmenter cuts them with the rewind rule (the compression a
// boundary, no false tree jumps); the sub-agent linked to the node of the
// agent call that launched it, the fork to its source at the fork point,
// its copied records kept and not counted again; each file written back by
// export-session byte for byte.
func TestImportQwenCode(t *testing.T) {
	l := newTestLib(t)
	rep := l.importPaths(t, qwenHome)
	if rep.Totals.Files != 3 || rep.Totals.Imported != 3 || rep.Totals.Failed != 0 || rep.Totals.Malformed != 0 || rep.Totals.Entries != 131 {
		t.Fatalf("totals %+v: %+v", rep.Totals, rep.Files)
	}
	db := l.db(t)
	for _, fr := range rep.Files {
		entries, hdr := readOther(t, sessionformat.QwenCode, fr.Path)
		if fr.Format != sessionformat.QwenCode || fr.SessionID != hdr.ID || fr.Entries != len(entries) || qwenFiles[fr.SessionID] == "" {
			t.Errorf("%s: %s %s, %d entries; the reader reads %s, %d", filepath.Base(fr.Path), fr.Format, fr.SessionID, fr.Entries, hdr.ID, len(entries))
		}
		segs := segment.Split(entries, segment.OptionsFor(sessionformat.QwenCode))
		if fr.Segments != len(segs) || fr.BoundariesByType["tree_jump"] != 0 {
			t.Errorf("%s: %d segments %v, the segmenter cuts %d", filepath.Base(fr.Path), fr.Segments, fr.BoundariesByType, len(segs))
		}
		if fr.SessionID != "agent-"+qwenAgent && fr.BoundariesByType["compaction"] != 1 {
			t.Errorf("%s: boundaries %v, want the compression", filepath.Base(fr.Path), fr.BoundariesByType)
		}
		checkExportedBack(t, l, fr)
	}

	byID := sessionsByID(t, l)
	if s := byID[qwenMain]; s.Format != sessionformat.QwenCode || !s.CostUnknown || s.Entries != 61 {
		t.Errorf("Qwen Code session %+v: qwen3-coder-plus has no price in the table: its cost is unknown", s)
	}
	if s := byID["agent-"+qwenAgent]; s.AgentID != qwenAgent || s.ParentSession != qwenMain {
		t.Errorf("sub-agent session %+v", s)
	}

	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	nodeSession := map[string]string{}
	for _, n := range g.Nodes {
		nodeSession[n.ID] = n.SessionID
	}
	edgesInto := func(typ, child string) []GraphEdge {
		var out []GraphEdge
		for _, e := range g.Edges {
			if e.Type == typ && nodeSession[e.Target] == child {
				out = append(out, e)
			}
		}
		return out
	}
	// The sub-agent hangs off the node holding the agent call's result.
	mainEntries, _ := readOther(t, sessionformat.QwenCode, qwenFiles[qwenMain])
	spawn := -1
	for _, e := range mainEntries {
		if e.SubagentID == qwenAgent && e.Message.Role == session.RoleToolResult {
			spawn = e.Seq
		}
	}
	var want string
	if err := db.QueryRow(`SELECT n.id FROM nodes n JOIN sessions s ON s.pk = n.session_pk
		JOIN segments g ON g.session_pk = n.session_pk AND g.idx = n.segment_idx
		WHERE s.id = ? AND g.start_seq <= ? AND g.end_seq >= ?`, qwenMain, spawn, spawn).Scan(&want); err != nil {
		t.Fatalf("node of the agent call (seq %d): %v", spawn, err)
	}
	if es := edgesInto("subagent", "agent-"+qwenAgent); len(es) != 1 || es[0].Source != want {
		t.Errorf("subagent edges %+v, want one from %s", es, want)
	}
	if es := edgesInto("fork", "agent-"+qwenAgent); len(es) != 0 {
		t.Errorf("the sub-agent also got a fork edge: %+v", es)
	}
	if es := edgesInto("fork", qwenFork); len(es) != 1 || nodeSession[es[0].Source] != qwenMain {
		t.Errorf("fork edges into the fork %+v", es)
	}

	// The fork's copies are stored as replayed, its own turn not.
	rows, err := db.Query(`SELECT e.entry_id, e.meta FROM entries e JOIN sessions s ON s.pk = e.session_pk WHERE s.id = ? ORDER BY e.seq`, qwenFork)
	if err != nil {
		t.Fatal(err)
	}
	inMain := map[string]bool{}
	for _, e := range mainEntries {
		inMain[e.ID] = true
	}
	copies, own := 0, 0
	for rows.Next() {
		var id, meta string
		rows.Scan(&id, &meta)
		var m struct {
			Replayed bool `json:"replayed"`
		}
		if meta != "" {
			json.Unmarshal([]byte(meta), &m)
		}
		switch {
		case inMain[id] && m.Replayed:
			copies++
		case !inMain[id] && !m.Replayed:
			own++
		default:
			t.Errorf("fork entry %s: in the session %v, replayed %v", id, inMain[id], m.Replayed)
		}
	}
	rows.Close()
	if copies != 61 || own != 4 {
		t.Errorf("fork: %d copies, %d own entries", copies, own)
	}

	// Read back as the node panel reads it: thinking, tool calls and their
	// results with the tool's name, a failed call, the failed request, the
	// compression's summary, the agent call naming its sub-agent's node.
	var views []EntryView
	for _, id := range sessionNodes(t, l, qwenMain) {
		views = append(views, allEntries(t, l, id)...)
	}
	seen := map[string]bool{}
	for _, v := range views {
		for _, b := range v.Blocks {
			seen["block:"+b.Type] = true
		}
		switch {
		case v.Role == "toolResult" && v.ToolName == "run_shell_command" && v.IsError:
			seen["failed shell"] = true
		case v.Role == "assistant" && v.IsError && v.Subtype == "qwen-code.api_error":
			seen["failed request"] = true
		case v.Type == "compaction" && strings.HasPrefix(v.Summary, "<state_snapshot>"):
			seen["compaction"] = true
		case v.SubagentID == qwenAgent && v.Role == "toolResult" && v.SubagentNodeID != "":
			seen["sub-agent node"] = true
		}
	}
	for _, k := range []string{"block:thinking", "block:toolCall", "block:toolResult", "failed shell", "failed request", "compaction", "sub-agent node"} {
		if !seen[k] {
			t.Errorf("read back: no %s among %d entries", k, len(views))
		}
	}

	// Imported again: nothing changes.
	again := l.importPaths(t, qwenHome)
	if again.Totals.Unchanged != 3 || again.Totals.Failed != 0 {
		t.Errorf("again: %+v", again.Totals)
	}
}

// A sub-agent imported before its parent is linked when the parent comes,
// and its records take the model its sidecar names.
func TestQwenSubagentBeforeItsParent(t *testing.T) {
	l := newTestLib(t)
	first := l.importPaths(t, qwenFiles["agent-"+qwenAgent])
	if first.Totals.Imported != 1 {
		t.Fatalf("%+v", first.Files)
	}
	l.importPaths(t, qwenFiles[qwenMain])
	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	nodeSession := map[string]string{}
	for _, n := range g.Nodes {
		nodeSession[n.ID] = n.SessionID
	}
	n := 0
	for _, e := range g.Edges {
		if e.Type == "subagent" && nodeSession[e.Target] == "agent-"+qwenAgent && nodeSession[e.Source] == qwenMain {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d subagent edges from the session into its sub-agent, want 1", n)
	}
	sessions, _ := l.Library.Sessions("")
	for _, s := range sessions {
		var m ingest.SessionMeta
		if s.ID == "agent-"+qwenAgent {
			stored, err := l.st.SessionByID(t.Context(), s.ID)
			if err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(stored.Meta, &m)
			if strings.Join(m.Models, ",") != "qwen3-coder-plus" || m.SpawnedBy != "call_IiGUgr73okfuK2WTKvME31ev" {
				t.Errorf("sub-agent meta %+v", m)
			}
		}
	}
}

// The watcher follows a Qwen Code session as it is written into
// ~/.qwen/projects: the lines already there on its first pass, then each
// record appended (some in two writes), as appends; the library ends as the
// file, byte for byte.
func TestWatcherFollowsQwenCode(t *testing.T) {
	claude, _ := agentHomes(t)
	chats := filepath.Join(filepath.Dir(filepath.Dir(claude)), "qwen", "projects", "-work-acme", "chats")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(qwenFiles[qwenMain])
	if err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(chats, qwenMain+".jsonl")
	os.WriteFile(live, prefixLines(full, 3), 0o644)

	l := newWatchLib(t)
	fs, err := l.Watch.Folders()
	if err != nil || len(fs) < 3 || fs[2].Agent != "qwen-code" || !fs[2].Exists || !fs[2].Enabled {
		t.Fatalf("folders %+v %v", fs, err)
	}
	start := time.Now()
	if err := l.Watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer l.Watch.Stop()
	if _, fr, _ := l.waitEvent(t, start, qwenMain+".jsonl", 30*time.Second); fr.Status != ingest.StatusImported || fr.Entries != 3 || fr.Format != sessionformat.QwenCode {
		t.Fatalf("first import %+v", fr)
	}
	f, err := os.OpenFile(live, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bytes.Count(full, []byte("\n"))
	for k := 3; k < 10; k++ {
		ln := prefixLines(full, k+1)[len(prefixLines(full, k)):]
		wrote := time.Now()
		if k%3 == 0 {
			f.Write(ln[:len(ln)/2])
			time.Sleep(20 * time.Millisecond)
			f.Write(ln[len(ln)/2:])
		} else {
			f.Write(ln)
		}
		if _, fr, _ := l.waitEvent(t, wrote, qwenMain+".jsonl", 30*time.Second); fr.Status != ingest.StatusAppended || fr.Entries != k+1 {
			t.Fatalf("line %d: %+v", k+1, fr)
		}
	}
	f.Write(full[len(prefixLines(full, 10)):])
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		ss, _ := l.Library.Sessions("")
		if len(ss) == 1 && ss[0].Entries == lines {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rest of the file never reached the library: %+v", ss)
		}
	}
	if back := exportBack(t, l.testLib, qwenMain); !bytes.Equal(back, full) {
		t.Errorf("export after the appends: %d bytes, the file has %d; first difference at byte %d", len(back), len(full), firstByteDiff(back, full))
	}
}
