package codex

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the real rollouts")

const realHome = "testdata/codex-home"

// realFiles are the rollouts Codex 0.169.0 wrote (testdata/generate),
// sessions/ and archived_sessions/.
func realFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(realHome, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 4 {
		t.Fatalf("real files: %v (%d)", err, len(files))
	}
	sort.Strings(files)
	return files
}

type expected struct {
	MainThread string `json:"mainThread"`
	ForkThread string `json:"forkThread"`
	Steps      []struct {
		Label        string `json:"label"`
		Thread       string `json:"thread"`
		RevertedTurn string `json:"revertedTurn"`
	} `json:"steps"`
	Requests []struct {
		N          int    `json:"n"`
		ResponseID string `json:"responseId"`
		Usage      struct {
			Input   int64 `json:"input_tokens"`
			Output  int64 `json:"output_tokens"`
			Details struct {
				Cached int64 `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutDetails struct {
				Reasoning int64 `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
	} `json:"requests"`
}

func loadExpected(t testing.TB) *expected {
	return sessionlogtest.ReadJSON[expected](t, "testdata/expected.json")
}

func readAll(t testing.TB, r *Reader) []session.Entry {
	t.Helper()
	return sessionlogtest.Entries(t, r.Reader)
}

// TestRealFilesPositions: Raw is the file's bytes at Offset, one entry per
// line, every line consumed, nothing malformed (§2, lossless).
func TestRealFilesPositions(t *testing.T) {
	for _, path := range realFiles(t) {
		_, s := sessionlogtest.ReadLossless(t, path, Read)
		for i, e := range s.Entries {
			if e.ID != fmt.Sprintf("L%d", e.Line) {
				t.Fatalf("%s: entry %d (line %d): id %s, want L<line>", path, i, e.Line, e.ID)
			}
			if i > 0 && e.ParentID != s.Entries[i-1].ID {
				t.Errorf("%s: entry %d: parent %s, want the entry before (a rollout is linear, §2.4)", path, i, e.ParentID)
			}
		}
		if len(s.Entries) != s.Lines {
			t.Errorf("%s: %d entries for %d lines", path, len(s.Entries), s.Lines)
		}
	}
}

// TestEveryLineAccountedFor compares with a count written in Python:
// entries + malformed + blank lines = lines, entries = JSON objects. It
// skips when python3 is not installed.
func TestEveryLineAccountedFor(t *testing.T) {
	sessionlogtest.CheckLinesAccountedFor(t, append(realFiles(t), "testdata/handmade/bare-era.jsonl", "testdata/handmade/wrapped-legacy.jsonl", "testdata/handmade/fork-replay.jsonl", "testdata/handmade/fork-legacy-ids.jsonl", "testdata/handmade/fork-legacy-parent.jsonl"), openLog)
}

// TestResumeAtEveryLine: a prefix read to every line boundary, its State
// through JSON, and a read resumed from it give exactly the full read
// (issue 11 §2).
func TestResumeAtEveryLine(t *testing.T) {
	sessionlogtest.CheckResumeAtEveryLine(t, append(realFiles(t), "testdata/handmade/wrapped-legacy.jsonl", "testdata/handmade/fork-replay.jsonl", "testdata/handmade/fork-legacy-ids.jsonl", "testdata/handmade/bare-era.jsonl"), openLog, resumeLog)
}

// TestUsageAgainstTheServer: every model request the scripted server
// answered is counted once, in the file of the thread that made it, with the
// server's token counts (§2.5: unique usage, input includes cached).
func TestUsageAgainstTheServer(t *testing.T) {
	x := loadExpected(t)
	served := map[string]int{}
	for i, r := range x.Requests {
		served[r.ResponseID] = i
	}
	counted := map[string]int{}
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The usage lines of the file, read here without the reader, in
		// order; each response entry's usage comes from the next one.
		var ids []string
		for _, e := range s.Entries {
			if e.Type == TypeUsageRecord {
				var l struct {
					Payload struct {
						ResponseID string `json:"response_id"`
					} `json:"payload"`
				}
				if err := json.Unmarshal(e.Raw, &l); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, l.Payload.ResponseID)
			}
		}
		k := 0
		for _, e := range s.Entries {
			if e.Message == nil || e.Message.Usage == nil {
				continue
			}
			if k >= len(ids) {
				t.Fatalf("%s line %d: more usage than usage lines", path, e.Line)
			}
			id := ids[k]
			k++
			i, ok := served[id]
			if !ok {
				t.Fatalf("%s: response %s was not served", path, id)
			}
			counted[id]++
			su, u := x.Requests[i].Usage, e.Message.Usage
			if e.Message.Role != session.RoleAssistant || u.Input != su.Input-su.Details.Cached || u.CacheRead != su.Details.Cached ||
				u.Output != su.Output || u.Reasoning != su.OutDetails.Reasoning {
				t.Errorf("%s line %d: usage %+v on a %s, the server said %+v", path, e.Line, *u, e.Message.Role, su)
			}
		}
		if k != len(ids) {
			t.Errorf("%s: %d usage lines, %d counted", path, len(ids), k)
		}
	}
	for _, r := range x.Requests {
		if counted[r.ResponseID] != 1 {
			t.Errorf("request %d (%s) counted %d times, want once", r.N, r.ResponseID, counted[r.ResponseID])
		}
	}
}

// TestEchoesDoNotDoubleTheConversation: every event that repeats a message
// (item_completed UserMessage, AgentMessage, Reasoning) names the message
// entry it repeats, of the same kind, and messages never do (§2.6.1).
func TestEchoesDoNotDoubleTheConversation(t *testing.T) {
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]*session.Entry{}
		for i := range s.Entries {
			byID[s.Entries[i].ID] = &s.Entries[i]
		}
		for _, e := range s.Entries {
			var l struct {
				Payload struct {
					Type string `json:"type"`
					Item struct {
						Type string `json:"type"`
					} `json:"item"`
				} `json:"payload"`
			}
			_ = json.Unmarshal(e.Raw, &l)
			want := map[string]string{"UserMessage": session.RoleUser, "AgentMessage": session.RoleAssistant, "Reasoning": session.RoleAssistant}[l.Payload.Item.Type]
			switch {
			case e.Type == session.TypeMessage && e.DuplicateOf != "":
				t.Errorf("%s line %d: a message marked as a duplicate", path, e.Line)
			case e.Type == TypeEvent && l.Payload.Type == "item_completed" && want != "":
				twin := byID[e.DuplicateOf]
				if twin == nil || twin.Type != session.TypeMessage || twin.Message.Role != want || twin.TurnID != e.TurnID {
					t.Errorf("%s line %d: %s echo not linked to its %s message (DuplicateOf %q)", path, e.Line, l.Payload.Item.Type, want, e.DuplicateOf)
				}
			}
		}
	}
}

// TestThreads follows the real threads: the sub-agent from both ends, the
// fork, the revert window and the archive, and the index title (§2.1, §2.4).
func TestThreads(t *testing.T) {
	x := loadExpected(t)
	byThread := map[string][]*Session{}
	paths := map[*Session]string{}
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fn, ok := ParseFileName(path)
		if !ok {
			t.Fatalf("%s: not a rollout name", path)
		}
		byThread[fn.ThreadID] = append(byThread[fn.ThreadID], s)
		paths[s] = path
		if fn.Archived != strings.Contains(path, "archived_sessions") {
			t.Errorf("%s: archived %v", path, fn.Archived)
		}
	}
	main := byThread[x.MainThread]
	if len(main) != 2 || main[0].Header.ID != x.MainThread || !strings.HasPrefix(main[1].Header.ID, x.MainThread+"_") || main[1].Header.ParentSession != x.MainThread {
		t.Fatalf("main thread files: %d", len(main))
	}
	// The revert: the window's history base cuts the main file where the
	// reverted turn begins; what follows in the main file is that turn.
	base := main[1].Metadata.HistoryBase
	reverted := x.Steps[5].RevertedTurn
	if base == nil || base.ThreadID != x.MainThread {
		t.Fatalf("revert window history base %+v", base)
	}
	for _, e := range main[0].Entries {
		if sup := Superseded(base, x.MainThread, &e); sup != (e.Offset >= base.EndByteOffset) || sup && e.TurnID != "" && e.TurnID != reverted {
			t.Errorf("main line %d (turn %s): superseded %v", e.Line, e.TurnID, sup)
		}
	}
	// The sub-agent: spawn_agent's result names it; its file names the parent.
	var spawned string
	for _, e := range main[0].Entries {
		if e.SubagentID != "" {
			spawned = e.SubagentID
		}
	}
	sub := byThread[spawned]
	if spawned == "" || len(sub) != 1 || sub[0].Header.ParentSession != x.MainThread || sub[0].Header.AgentID != spawned || sub[0].Metadata.Source != "subagent" {
		t.Errorf("sub-agent %q: %+v", spawned, sub)
	}
	// The fork: archived, forked from the main thread, its history in the
	// main file's first bytes (no replay in 0.169's paginated history).
	fork := byThread[x.ForkThread]
	if len(fork) != 1 || !strings.Contains(paths[fork[0]], "archived_sessions") || fork[0].Header.ParentSession != x.MainThread ||
		fork[0].Metadata.HistoryBase == nil || fork[0].Metadata.HistoryBase.ThreadID != x.MainThread {
		t.Errorf("fork: %+v", fork)
	}
	for _, e := range fork[0].Entries {
		if e.Replayed {
			t.Errorf("fork line %d replayed", e.Line)
		}
	}
	f, err := os.Open(realHome + "/session_index.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	idx, problems, err := ReadIndex(f, "session_index.jsonl")
	if err != nil || len(problems) != 0 || idx[x.MainThread].Name != "Ledger total: label and review" {
		t.Errorf("index %v %v %v", idx, problems, err)
	}
}

type goldenEntry struct {
	Line     int    `json:"line"`
	Type     string `json:"type"`
	Subtype  string `json:"subtype,omitempty"`
	Role     string `json:"role,omitempty"`
	Custom   string `json:"customType,omitempty"`
	Blocks   string `json:"blocks,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Turn     string `json:"turn,omitempty"`
	Usage    string `json:"usage,omitempty"`
	Model    string `json:"model,omitempty"` // of a request (an entry with usage)
	Flags    string `json:"flags,omitempty"`
	Echo     string `json:"duplicateOf,omitempty"`
	Subagent string `json:"subagent,omitempty"`
	Text     string `json:"textSha256,omitempty"`
}

type golden struct {
	File     string         `json:"file"`
	Header   session.Header `json:"spec 2.2 header: synthesised from session_meta and turn_context"`
	Metadata Metadata       `json:"spec 2.3 metadata and spec 2.5 usage totals"`
	ByType   map[string]int `json:"spec 2.3 entries by type and role"`
	Problems map[string]int `json:"spec 2.6 problems"`
	Consumed int64          `json:"consumedBytes"`
	Lines    int            `json:"lines"`
	State    int            `json:"stateJSONBytes"`
	Entries  []goldenEntry  `json:"entries"`
}

func summarize(s *Session, path string) golden {
	g := golden{File: filepath.ToSlash(path), Header: s.Header, Metadata: s.Metadata, ByType: map[string]int{},
		Problems: map[string]int{"malformed": s.MalformedCount, "warnings": s.WarningCount}, Consumed: s.Consumed, Lines: s.Lines}
	b, _ := json.Marshal(s.State)
	g.State = len(b)
	for i := range s.Entries {
		e := &s.Entries[i]
		k := e.Type
		ge := goldenEntry{Line: e.Line, Type: e.Type, Subtype: e.Subtype, Turn: tail(e.TurnID), Echo: e.DuplicateOf, Subagent: e.SubagentID}
		var flags []string
		if e.Replayed {
			flags = append(flags, "replayed")
		}
		if e.RolledBack {
			flags = append(flags, "rolledBack")
		}
		if len(e.RolledBackTurns) > 0 {
			flags = append(flags, "rollsBack:"+strings.Join(e.RolledBackTurns, "+"))
		}
		ge.Flags = strings.Join(flags, ",")
		if m := e.Message; m != nil {
			k += ":" + m.Role
			ge.Role, ge.Custom, ge.Tool = m.Role, m.CustomType, m.ToolName
			var bt []string
			for _, b := range m.Content {
				bt = append(bt, b.Type)
			}
			ge.Blocks = strings.Join(bt, ",")
			if u := m.Usage; u != nil {
				ge.Usage = fmt.Sprintf("in %d cached %d out %d (reasoning %d)", u.Input, u.CacheRead, u.Output, u.Reasoning)
				ge.Model = m.Provider + "/" + m.Model
			}
		}
		if txt := session.EntryText(e); txt != "" {
			ge.Text = sessionlogtest.TextHash(txt)
		}
		g.ByType[k]++
		g.Entries = append(g.Entries, ge)
	}
	return g
}

func tail(id string) string {
	if len(id) > 12 {
		return id[len(id)-12:]
	}
	return id
}

// TestGolden compares the parsed result of each real and hand-made file
// with testdata/golden (update with -update, review the diff).
func TestGolden(t *testing.T) {
	files := append(realFiles(t), "testdata/handmade/bare-era.jsonl", "testdata/handmade/wrapped-legacy.jsonl", "testdata/handmade/fork-replay.jsonl", "testdata/handmade/fork-legacy-ids.jsonl", "testdata/handmade/fork-legacy-parent.jsonl")
	for _, path := range files {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gp := filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(path), ".jsonl")+".json")
		sessionlogtest.CheckGolden(t, path, gp, summarize(s, path), *update)
	}
}

// The real automatic compaction's message is Codex's preamble for the next
// model, then the model's summary: the compaction's Summary is the summary
// alone (what the segment's summary and search show), its Raw the line
// whole.
func TestCompactionSummaryWithoutThePreamble(t *testing.T) {
	var seen int
	for _, path := range realFiles(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range readAll(t, NewReader(f, path)) {
			if e.Type != session.TypeCompaction {
				continue
			}
			seen++
			if e.Summary != "Summary for the next window: main.py counts a ledger total and now prints a label; a sub-agent confirmed total([]) is 0." {
				t.Errorf("%s line %d: summary %q", path, e.Line, e.Summary)
			}
			if !bytes.Contains(e.Raw, []byte(`"message":"Another language model started to solve this problem`)) {
				t.Errorf("%s line %d: the raw line lost the preamble", path, e.Line)
			}
		}
		f.Close()
	}
	if seen == 0 {
		t.Fatal("no compaction in the real rollouts: the test checks nothing")
	}
	for msg, want := range map[string]string{
		"Summary: the total skips None.":                    "Summary: the total skips None.", // no preamble (remote compaction, older eras)
		compactionPreamble + " … analysis:\n\n  Done: X.\n": "Done: X.",
		compactionPreamble + " … analysis:":                 compactionPreamble + " … analysis:", // nothing after it: kept
		compactionPreamble + " … analysis:\n  ":             compactionPreamble + " … analysis:\n  ",
		"": "",
	} {
		if got := compactionSummary(msg); got != want {
			t.Errorf("compactionSummary(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestStoredEntriesReadBackWithTheirModel: entries read back from the
// middle of a rollout with its stored header alone (as the library reads a
// segment's entries) name the request's provider and model, as the whole
// read does, in a rollout of one model; and every request of the whole read
// names its model, a compaction's made before the first turn_context
// included (Codex 0.169 says it in thread_settings_applied).
func TestStoredEntriesReadBackWithTheirModel(t *testing.T) {
	for _, path := range realFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full := NewReader(bytes.NewReader(data), path)
		all := readAll(t, full)
		h, _ := full.Header()
		for _, e := range all {
			if m := e.Message; m != nil && m.Usage != nil && (m.Model == "" || m.Provider == "") {
				t.Errorf("%s line %d: a request of %q/%q", filepath.Base(path), e.Line, m.Provider, m.Model)
			}
		}
		if len(full.Metadata().Models) != 1 {
			continue
		}
		starts := []int{0}
		for i, b := range data {
			if b == '\n' && i+1 < len(data) {
				starts = append(starts, i+1)
			}
		}
		for line, off := range starts[1:] {
			rd := NewReaderAt(bytes.NewReader(data[off:]), path, State{Header: *h, Seq: 0})
			for _, e := range readAll(t, rd) {
				if m := e.Message; m != nil && m.Role == session.RoleAssistant && (m.Model != h.ModelID || m.Provider != h.Provider) {
					t.Fatalf("%s read from line %d: an assistant message of %q/%q, want %q/%q", filepath.Base(path), line+2, m.Provider, m.Model, h.Provider, h.ModelID)
				}
			}
		}
	}
}
