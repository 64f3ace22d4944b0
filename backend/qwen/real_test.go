package qwen

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

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the real sessions")

const (
	realRoot  = "testdata/qwen-home/projects"
	realProj  = realRoot + "/-tmp-rhizome-qwen-fixtures-work-acme-api"
	realAgent = "Explore-call_IiGUgr73okfuK2WTKvME31ev"
)

// realFiles are the session files Qwen Code 0.24.4 wrote (see
// testdata/generate/README.md): the session, its fork and the sub-agent's
// transcript.
func realFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(realRoot, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) != 3 {
		t.Fatalf("real files: %v (%d)", err, len(files))
	}
	sort.Strings(files)
	return files
}

// expected is testdata/expected.json, written by the generator: the steps
// it ran and every request its model server answered.
type expected struct {
	Session     string `json:"session"`
	ForkSession string `json:"forkSession"`
	Steps       []struct {
		Label     string `json:"label"`
		SessionID string `json:"sessionId"`
		Requests  []int  `json:"requests"`
	} `json:"steps"`
	Requests []struct {
		N      int    `json:"n"`
		Model  string `json:"model"`
		ID     string `json:"id"`
		Prompt string `json:"prompt"`
		Usage  *struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
			Total      int64 `json:"total_tokens"`
			Prompt2    struct {
				Cached int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			Completion2 struct {
				Reasoning int64 `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
		} `json:"usage"`
		Error *struct {
			Status int `json:"status"`
		} `json:"error"`
	} `json:"requests"`
}

func loadExpected(t testing.TB) *expected {
	return sessionlogtest.ReadJSON[expected](t, "testdata/expected.json")
}

func mainPath(x *expected) string { return realProj + "/chats/" + x.Session + ".jsonl" }
func forkPath(x *expected) string { return realProj + "/chats/" + x.ForkSession + ".jsonl" }
func agentPath(x *expected) string {
	return realProj + "/subagents/" + x.Session + "/agent-" + realAgent + ".jsonl"
}

func readReal(t *testing.T, path string) *Session {
	t.Helper()
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRealFilesPositions checks every entry against the file: Raw is the
// file's bytes at Offset on its line's start, Seq counts from 0, nothing is
// malformed or warned about, and the whole file is consumed (lossless).
func TestRealFilesPositions(t *testing.T) {
	for _, path := range realFiles(t) {
		data, s := sessionlogtest.ReadLossless(t, path, Read)
		if len(s.Entries) != bytes.Count(data, []byte("\n")) {
			t.Errorf("%s: %d entries for %d lines", path, len(s.Entries), bytes.Count(data, []byte("\n")))
		}
		sessionlogtest.CheckAtLineStarts(t, path, data, s.Entries)
	}
}

// TestEveryLineAccountedFor compares the reader with a count written in
// Python: entries + malformed + blank lines = lines, and entries = JSON
// objects. It skips when python3 is not installed.
func TestEveryLineAccountedFor(t *testing.T) {
	sessionlogtest.CheckLinesAccountedFor(t, append(realFiles(t), "testdata/handmade/quirks.jsonl"), openLog)
}

// TestResumeAtEveryLine reads a prefix of each real file ending at every
// line boundary, stores the State as JSON, resumes with NewReaderAt over
// the rest: together they give exactly the entries, metadata and final
// State of a full read (what the watcher does as Qwen Code appends).
func TestResumeAtEveryLine(t *testing.T) {
	sessionlogtest.CheckResumeAtEveryLine(t, append(realFiles(t), "testdata/handmade/quirks.jsonl"), openLog, resumeLog)
}

// TestUsageAgainstTheServer checks usage on the real files against what the
// scripted server reported (testdata/expected.json), independently of the
// reader: each response the files record carries the server's counts
// (input less cached, cached, output with its reasoning), and every
// request served is counted exactly once over the session, its sub-agent
// and the fork's own turn - except the summary request of /compress and the
// failed request, which Qwen Code records only as telemetry.
func TestUsageAgainstTheServer(t *testing.T) {
	x := loadExpected(t)
	byID := map[string]int{}
	for i, r := range x.Requests {
		if r.ID != "" {
			byID[r.ID] = i
		}
	}
	counted := map[int]int{}
	for _, path := range []string{mainPath(x), forkPath(x), agentPath(x)} {
		s := readReal(t, path)
		responseID := "" // of the last api_response telemetry record
		agentRound := 0
		for _, e := range s.Entries {
			var raw struct {
				SystemPayload struct {
					UIEvent struct {
						Name       string `json:"event.name"`
						ResponseID string `json:"response_id"`
						SubagentID string `json:"subagent_id"`
					} `json:"uiEvent"`
				} `json:"systemPayload"`
			}
			if e.Type == TypeTelemetry {
				if err := json.Unmarshal(e.Raw, &raw); err != nil {
					t.Fatal(err)
				}
				if ev := raw.SystemPayload.UIEvent; ev.Name == "qwen-code.api_response" && ev.SubagentID == "" {
					responseID = ev.ResponseID
				}
				continue
			}
			if e.Message == nil || e.Message.Usage == nil {
				continue
			}
			var n int
			switch {
			case path == agentPath(x):
				// The sub-agent's responses are the requests of its task, in order.
				n = requestsOf(t, x, "Find where the HTTP routes")[agentRound]
				agentRound++
			default:
				i, ok := byID[responseID]
				if !ok {
					t.Fatalf("%s line %d: no api_response before the response", path, e.Line)
				}
				n = x.Requests[i].N
				responseID = ""
			}
			if !e.Replayed {
				counted[n]++
			}
			su, u := x.Requests[n-1].Usage, e.Message.Usage
			if u.Input != su.Prompt-su.Prompt2.Cached || u.CacheRead != su.Prompt2.Cached || u.Output != su.Completion ||
				u.Reasoning != su.Completion2.Reasoning || u.TotalTokens != su.Total || e.Message.Model != x.Requests[n-1].Model {
				t.Errorf("%s line %d: usage %+v of %s, the server said %+v of %s", path, e.Line, *u, e.Message.Model, *su, x.Requests[n-1].Model)
			}
		}
	}
	for _, r := range x.Requests {
		want := 1
		if r.Usage == nil || strings.HasPrefix(r.Prompt, "You are the component that summarizes") {
			want = 0 // failed, or the summary request of /compress: telemetry only
		}
		if counted[r.N] != want {
			t.Errorf("request %d (%.40q): counted %d times, want %d", r.N, r.Prompt, counted[r.N], want)
		}
	}
}

// requestsOf returns the numbers of the requests whose prompt starts with
// prefix, in order.
func requestsOf(t *testing.T, x *expected, prefix string) []int {
	var out []int
	for _, r := range x.Requests {
		if strings.HasPrefix(r.Prompt, prefix) {
			out = append(out, r.N)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no request for %q", prefix)
	}
	return out
}

// TestSubagentLinks follows the real sub-agent from both ends: the
// parent's agent result and the notification name it, its transcript's
// header names the parent session, its sidecar the agent call and the
// model its records do not name.
func TestSubagentLinks(t *testing.T) {
	x := loadExpected(t)
	s := readReal(t, mainPath(x))
	var result, notification *session.Entry
	var call *session.Block
	for i := range s.Entries {
		e := &s.Entries[i]
		switch {
		case e.SubagentID != "" && e.Message.Role == session.RoleToolResult:
			result = e
		case e.SubagentID != "" && e.Message.CustomType == CustomNotification:
			notification = e
		case e.Message != nil && e.Message.Role == session.RoleAssistant:
			for j, b := range e.Message.Content {
				if b.Type == session.BlockToolCall && b.Name == "agent" {
					call = &e.Message.Content[j]
				}
			}
		}
	}
	if result == nil || notification == nil || call == nil || result.SubagentID != realAgent || notification.SubagentID != realAgent ||
		result.Message.ToolName != "agent" || result.Message.ToolCallID != call.ID || s.Metadata.Subagents != 1 {
		t.Fatalf("result %+v notification %+v call %+v", result, notification, call)
	}
	subs, err := Subagents(mainPath(x))
	if err != nil || len(subs) != 1 {
		t.Fatalf("Subagents: %v %v", subs, err)
	}
	sub := subs[0]
	if sub.AgentID != realAgent || sub.Path != agentPath(x) || sub.Meta == nil || sub.Meta.ToolUseID != call.ID ||
		sub.Meta.ParentSessionID != x.Session || sub.Meta.AgentType != "Explore" || sub.Meta.Model != "qwen3-coder-plus" {
		t.Errorf("sub-agent file %+v meta %+v", sub, sub.Meta)
	}
	ss := readReal(t, sub.Path)
	if h := ss.Header; h.ID != "agent-"+realAgent || h.AgentID != realAgent || h.ParentSession != x.Session || h.ModelID != "qwen3-coder-plus" {
		t.Errorf("sub-agent header %+v", h)
	}
	for _, e := range ss.Entries {
		if !e.Sidechain {
			t.Errorf("sub-agent line %d not a sidechain", e.Line)
		}
		if m := e.Message; m != nil && m.Role == session.RoleAssistant && m.Model != "qwen3-coder-plus" {
			t.Errorf("sub-agent line %d: model %q, want the sidecar's", e.Line, m.Model)
		}
	}
	// Read without its sidecar, the transcript names no model.
	f, err := os.ReadFile(sub.Path)
	if err != nil {
		t.Fatal(err)
	}
	if bare, err := Read(bytes.NewReader(f), sub.Path); err != nil || bare.Header.ModelID != "" {
		t.Errorf("without the sidecar: %v %+v", err, bare.Header)
	}
	if none, err := Subagents(realProj + "/chats/" + x.ForkSession + ".jsonl"); err != nil || none != nil {
		t.Errorf("a session without sub-agents: %v %v", none, err)
	}
}

// TestForkAndCompression: the real --fork-session file copies every record
// of the session with its uuid, parent and time (forkedFrom): those entries
// are Replayed, its own turn is not, and its header names the session it
// was forked from. The real /compress is a compaction with the rewritten
// history's summary.
func TestForkAndCompression(t *testing.T) {
	x := loadExpected(t)
	orig, fork := readReal(t, mainPath(x)), readReal(t, forkPath(x))
	if len(fork.Entries) <= len(orig.Entries) {
		t.Fatalf("fork %d entries, session %d", len(fork.Entries), len(orig.Entries))
	}
	for i, o := range orig.Entries {
		f := fork.Entries[i]
		if !f.Replayed || f.ID != o.ID || f.ParentID != o.ParentID || !f.Timestamp.Equal(o.Timestamp) || f.Type != o.Type {
			t.Fatalf("fork line %d: %+v, not a copy of %+v", f.Line, f, o)
		}
	}
	var own []string
	for _, e := range fork.Entries[len(orig.Entries):] {
		if e.Replayed {
			t.Errorf("fork line %d, its own, is Replayed", e.Line)
		}
		if txt := session.EntryText(&e); e.Message != nil && txt != "" {
			own = append(own, txt)
		}
	}
	if len(own) != 2 || own[0] != "In a fork: would /ready be a better name than /health?" || !strings.Contains(own[1], "/ready") {
		t.Errorf("the fork's own turn %q", own)
	}
	last := orig.Entries[len(orig.Entries)-1].ID
	if h, m := fork.Header, fork.Metadata; h.ID != x.ForkSession || h.ParentSession != x.Session || m.ForkedFrom != x.Session || m.ForkPoint != last ||
		fork.Entries[len(orig.Entries)].ParentID != last {
		t.Errorf("fork header %+v, metadata %+v", h, m)
	}
	if orig.Header.ParentSession != "" || orig.Metadata.ForkedFrom != "" {
		t.Errorf("the session itself is not a fork: %+v", orig.Header)
	}
	var comp []session.Entry
	for _, e := range orig.Entries {
		if e.Type == session.TypeCompaction {
			comp = append(comp, e)
		}
	}
	if len(comp) != 1 || comp[0].TokensBefore != 10900 || comp[0].Subtype != "manual" || !strings.HasPrefix(comp[0].Summary, "<state_snapshot>") ||
		!strings.Contains(string(comp[0].Details), `"newTokenCount":7433`) || orig.Metadata.Compressions != 1 {
		t.Errorf("compression %+v", comp)
	}
}

// goldenEntry is one entry of a golden file: what the mapping decided.
type goldenEntry struct {
	Line       int    `json:"line"`
	ID         string `json:"id"`
	Parent     string `json:"parent,omitempty"`
	Type       string `json:"type"`
	Subtype    string `json:"subtype,omitempty"`
	Role       string `json:"role,omitempty"`
	Custom     string `json:"customType,omitempty"`
	Blocks     string `json:"blocks,omitempty"`
	Stop       string `json:"stopReason,omitempty"`
	Tool       string `json:"tool,omitempty"`
	Model      string `json:"model,omitempty"`
	Usage      string `json:"usage,omitempty"`
	Flags      string `json:"flags,omitempty"`
	Subagent   string `json:"subagent,omitempty"`
	Name       string `json:"name,omitempty"`
	TextSHA256 string `json:"textSha256,omitempty"`
}

// golden is testdata/golden/<file>.json: what the reader made of the file,
// by aspect, then every entry.
type golden struct {
	File       string              `json:"file"`
	Header     session.Header      `json:"header: synthesised from the first records"`
	Metadata   Metadata            `json:"metadata"`
	ByType     map[string]int      `json:"entries by type and role"`
	Tree       map[string][]string `json:"tree: roots; rewinds; duplicates; compactions; dangling parents; copies a fork made"`
	Tools      []string            `json:"tool calls paired with their results"`
	Usage      map[string]any      `json:"usage: once per response"`
	Problems   map[string]int      `json:"problems"`
	Consumed   int64               `json:"consumedBytes"`
	Lines      int                 `json:"lines"`
	StateBytes int                 `json:"stateJSONBytes"`
	Entries    []goldenEntry       `json:"entries"`
}

func summarize(s *Session, path string) golden {
	g := golden{File: filepath.ToSlash(path), Header: s.Header, Metadata: s.Metadata, ByType: map[string]int{},
		Tree:     map[string][]string{"roots": {}, "rewinds": {}, "duplicates": {}, "compactions": {}, "danglingParents": {}, "forkCopies": {}},
		Tools:    []string{},
		Problems: map[string]int{"malformed": s.MalformedCount, "warnings": s.WarningCount}, Consumed: s.Consumed, Lines: s.Lines}
	if s.Pending != nil {
		g.Problems["pending"] = 1
	}
	b, _ := json.Marshal(s.State)
	g.StateBytes = len(b)
	ids := map[string]bool{}
	type callAt struct {
		line int
		name string
	}
	calls := map[string]callAt{}
	var order []string
	results := map[string]string{}
	var total session.Usage
	responses, replayed, firstCopy, lastCopy := 0, 0, 0, 0
	for i := range s.Entries {
		e := &s.Entries[i]
		ids[e.ID] = true
		k := e.Type
		ge := goldenEntry{Line: e.Line, ID: short(e.ID), Parent: short(e.ParentID), Type: e.Type, Subtype: e.Subtype,
			Subagent: e.SubagentID, Name: e.Name}
		var flags []string
		for _, f := range []struct {
			on   bool
			name string
		}{{e.Rewind, "rewind"}, {e.Sidechain, "sidechain"}, {e.DuplicateOf != "", "duplicate"}, {e.Replayed, "replayed"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		ge.Flags = strings.Join(flags, ",")
		if m := e.Message; m != nil {
			k += ":" + m.Role
			ge.Role, ge.Custom, ge.Stop, ge.Tool, ge.Model = m.Role, m.CustomType, m.StopReason, m.ToolName, m.Model
			var bt []string
			for _, b := range m.Content {
				bt = append(bt, b.Type)
				if b.Type == session.BlockToolCall {
					calls[b.ID] = callAt{e.Line, b.Name}
					order = append(order, b.ID)
				}
			}
			ge.Blocks = strings.Join(bt, ",")
			if m.Role == session.RoleToolResult {
				status := "ok"
				if m.IsError {
					status = "error"
				}
				results[m.ToolCallID] = fmt.Sprintf("line %d %s", e.Line, status)
				if _, ok := calls[m.ToolCallID]; !ok {
					g.Tools = append(g.Tools, fmt.Sprintf("line %d: result of %s without a call", e.Line, m.ToolCallID))
				}
			}
			if u := m.Usage; u != nil {
				ge.Usage = fmt.Sprintf("in %d out %d (reasoning %d) read %d", u.Input, u.Output, u.Reasoning, u.CacheRead)
				if !e.Replayed {
					responses++
					total.Input += u.Input
					total.Output += u.Output
					total.Reasoning += u.Reasoning
					total.CacheRead += u.CacheRead
					total.TotalTokens += u.TotalTokens
				}
			}
		}
		if txt := session.EntryText(e); txt != "" {
			ge.TextSHA256 = sessionlogtest.TextHash(txt)
		}
		g.ByType[k]++
		switch {
		case e.Type == session.TypeCompaction:
			g.Tree["compactions"] = append(g.Tree["compactions"], fmt.Sprintf("line %d %s: %d tokens before (%s)", e.Line, short(e.ID), e.TokensBefore, e.Subtype))
		case e.ParentID == "" && !strings.HasPrefix(e.ID, "L"):
			g.Tree["roots"] = append(g.Tree["roots"], fmt.Sprintf("line %d %s", e.Line, short(e.ID)))
		}
		if e.ParentID != "" && !ids[e.ParentID] {
			g.Tree["danglingParents"] = append(g.Tree["danglingParents"], fmt.Sprintf("line %d %s -> %s", e.Line, short(e.ID), short(e.ParentID)))
		}
		if e.Rewind {
			g.Tree["rewinds"] = append(g.Tree["rewinds"], fmt.Sprintf("line %d %s under %s", e.Line, short(e.ID), short(e.ParentID)))
		}
		if e.DuplicateOf != "" {
			g.Tree["duplicates"] = append(g.Tree["duplicates"], fmt.Sprintf("line %d %s", e.Line, short(e.ID)))
		}
		if e.Replayed {
			replayed++
			if firstCopy == 0 {
				firstCopy = e.Line
			}
			lastCopy = e.Line
		}
		g.Entries = append(g.Entries, ge)
	}
	if replayed > 0 {
		g.Tree["forkCopies"] = append(g.Tree["forkCopies"], fmt.Sprintf("%d records, lines %d-%d, from %s up to %s", replayed, firstCopy, lastCopy,
			s.Metadata.ForkedFrom, short(s.Metadata.ForkPoint)))
	}
	for _, id := range order {
		c := calls[id]
		r, ok := results[id]
		if !ok {
			r = "no result"
		}
		g.Tools = append(g.Tools, fmt.Sprintf("line %d %s %s -> %s", c.line, c.name, id, r))
	}
	g.Usage = map[string]any{"responses": responses, "input": total.Input, "output": total.Output, "reasoning": total.Reasoning,
		"cacheRead": total.CacheRead, "totalTokens": total.TotalTokens}
	return g
}

func short(id string) string {
	if len(id) > 8 && !strings.HasPrefix(id, "L") {
		return id[:8]
	}
	return id
}

// TestRealFilesGolden compares the parsed result of each real file with
// testdata/golden (update with -update, review the diff): entries by type,
// tool calls paired with their results, models, usage totals, the tree,
// the compression and the fork's copies.
func TestRealFilesGolden(t *testing.T) {
	for _, path := range realFiles(t) {
		gp := filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(path), ".jsonl")+".json")
		sessionlogtest.CheckGolden(t, path, gp, summarize(readReal(t, path), path), *update)
	}
}
