package copilot

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
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
	realRoot    = "testdata/copilot-home/session-state"
	mainSession = "c0b1d2e3-4f56-4789-8abc-def012345678"
	logoSession = "c685a495-edd5-4212-93d7-a99b116c67bf"
)

// realFiles are the events.jsonl files Copilot CLI 1.0.102 wrote (see
// testdata/generate/README.md).
func realFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(realRoot, "*", "events.jsonl"))
	if err != nil || len(files) != 2 {
		t.Fatalf("real files: %v (%d)", err, len(files))
	}
	sort.Strings(files)
	return files
}

func realFile(id string) string { return filepath.Join(realRoot, id, "events.jsonl") }

// expected is testdata/expected.json, written by the generator: the steps
// it ran and every request its model server answered.
type expected struct {
	Session string `json:"session"`
	Steps   []struct {
		Label     string `json:"label"`
		SessionID string `json:"sessionId"`
		Exit      int    `json:"exit"`
		Requests  []int  `json:"requests"`
		Errors    []struct {
			Message string `json:"message"`
		} `json:"errors"`
	} `json:"steps"`
	Requests []struct {
		N      int    `json:"n"`
		ID     string `json:"id"`
		Prompt string `json:"prompt"`
		Usage  *struct {
			Prompt     int64 `json:"prompt_tokens"`
			Completion int64 `json:"completion_tokens"`
			Prompted   struct {
				Cached int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			Completed struct {
				Reasoning int64 `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
		} `json:"usage"`
		Error *struct {
			Status  int    `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"requests"`
}

func loadExpected(t testing.TB) *expected {
	return sessionlogtest.ReadJSON[expected](t, "testdata/expected.json")
}

func readReal(t testing.TB, id string) *Session {
	t.Helper()
	s, err := ReadFile(realFile(id))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawEvent is what a test reads of an entry's raw event, independently of
// the reader's mapping.
type rawEvent struct {
	Type    string          `json:"type"`
	AgentID string          `json:"agentId"`
	Data    json.RawMessage `json:"data"`
}

func raw(t testing.TB, e *session.Entry) rawEvent {
	t.Helper()
	var ev rawEvent
	if err := json.Unmarshal(e.Raw, &ev); err != nil {
		t.Fatalf("line %d: %v", e.Line, err)
	}
	return ev
}

// TestRealFilesPositions checks every entry against the file: Raw is the
// file's bytes at Offset on Line, Seq counts from 0, one entry per line,
// nothing malformed, warned about or pending, the whole file consumed
// (README "events.jsonl": every line kept).
func TestRealFilesPositions(t *testing.T) {
	for _, path := range realFiles(t) {
		data, s := sessionlogtest.ReadLossless(t, path, Read)
		if n := bytes.Count(data, []byte("\n")); len(s.Entries) != n {
			t.Errorf("%s: %d entries for %d lines", path, len(s.Entries), n)
		}
		for i := range s.Entries {
			e := &s.Entries[i]
			var v struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(e.Raw, &v); err != nil || e.Line != i+1 || e.ID != v.ID {
				t.Errorf("%s: entry %d: line %d id %s, the line's id %s (%v)", path, i, e.Line, e.ID, v.ID, err)
			}
		}
	}
}

// TestEveryLineAccountedFor compares the reader with a count written in
// Python: entries + malformed + blank lines = lines, and entries = JSON
// objects. It skips when python3 is not installed.
func TestEveryLineAccountedFor(t *testing.T) {
	sessionlogtest.CheckLinesAccountedFor(t, realFiles(t), openLog)
}

// TestResumeAtEveryLine reads a prefix of each real file ending at every
// line boundary, stores the State as JSON, resumes with NewReaderAt over
// the rest: together they give exactly the entries, metadata and final
// State of a full read (an events.jsonl grows by appends: README "Resume").
func TestResumeAtEveryLine(t *testing.T) {
	sessionlogtest.CheckResumeAtEveryLine(t, realFiles(t), openLog, resumeLog)
}

// TestResumeHalf is the append import spelled out: the first half of the
// main session's lines is read and its State kept (as JSON); the rest is
// read from the State's offset alone; the two reads together equal a read
// of the whole file, usage and metadata included.
func TestResumeHalf(t *testing.T) {
	data, err := os.ReadFile(realFile(mainSession))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Read(bytes.NewReader(data), "events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	half := len(bytes.Join(lines[:len(lines)/2], nil))
	first, err := Read(bytes.NewReader(data[:half]), "events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(first.State)
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Offset != int64(half) || st.Seq != len(first.Entries) {
		t.Fatalf("state at byte %d seq %d, want %d and %d", st.Offset, st.Seq, half, len(first.Entries))
	}
	r := NewReaderAt(bytes.NewReader(data[st.Offset:]), "events.jsonl", st)
	rest := sessionlogtest.Entries(t, r.Reader)
	got := append(first.Entries, rest...)
	if len(got) != len(whole.Entries) {
		t.Fatalf("%d + %d entries, whole read %d", len(first.Entries), len(rest), len(whole.Entries))
	}
	for i := range got {
		g, w := got[i], whole.Entries[i]
		if g.Seq != w.Seq || g.ID != w.ID || g.TurnID != w.TurnID || g.Sidechain != w.Sidechain || g.TargetID != w.TargetID ||
			session.EntryText(&g) != session.EntryText(&w) || (g.Message == nil) != (w.Message == nil) ||
			g.Message != nil && fmt.Sprint(g.Message.Usage, g.Message.ToolName) != fmt.Sprint(w.Message.Usage, w.Message.ToolName) {
			t.Fatalf("entry %d (line %d) differs from the whole read's", i, w.Line)
		}
	}
	gm, _ := json.Marshal(r.Metadata())
	wm, _ := json.Marshal(whole.Metadata)
	if !bytes.Equal(gm, wm) || r.Consumed() != int64(len(data)) {
		t.Errorf("metadata %s\nwant %s\nconsumed %d of %d", gm, wm, r.Consumed(), len(data))
	}
}

// TestUsageAgainstTheServer checks usage against what the scripted server
// reported (testdata/expected.json), independently of the reader: each
// answered request appears once, on the assistant message whose apiCallId
// is the response id, with Input = prompt minus cached tokens, CacheRead =
// cached, Output = completion (reasoning included), Reasoning (README
// "Token fields"); the two compaction calls (no usage record) are the
// compaction usage; the refused request left a session.error with the
// server's message and no usage.
func TestUsageAgainstTheServer(t *testing.T) {
	x := loadExpected(t)
	onMessages := map[string][]*session.Usage{} // by apiCallId
	var errorMessages []string
	var compaction Totals
	for _, id := range []string{mainSession, logoSession} {
		s := readReal(t, id)
		for i := range s.Entries {
			m := s.Entries[i].Message
			if m == nil || m.Role != session.RoleAssistant {
				continue
			}
			if m.StopReason == "error" && m.Usage == nil {
				errorMessages = append(errorMessages, m.ErrorMessage)
			}
			if m.Usage == nil {
				continue
			}
			var d struct {
				APICallID string `json:"apiCallId"`
			}
			if err := json.Unmarshal(raw(t, &s.Entries[i]).Data, &d); err != nil {
				t.Fatal(err)
			}
			onMessages[d.APICallID] = append(onMessages[d.APICallID], m.Usage)
		}
		c := s.Metadata.CompactionUsage
		compaction.Requests += c.Requests
		compaction.Input += c.Input
		compaction.CacheRead += c.CacheRead
		compaction.Output += c.Output
	}
	var wantCompaction Totals
	answered := 0
	for _, r := range x.Requests {
		switch {
		case r.Error != nil:
			if len(errorMessages) != 1 || !strings.Contains(errorMessages[0], r.Error.Message) {
				t.Errorf("request %d: error messages %q, want one with %q", r.N, errorMessages, r.Error.Message)
			}
		case strings.HasPrefix(r.Prompt, "Please create a detailed summary"):
			wantCompaction.Requests++
			wantCompaction.Input += r.Usage.Prompt - r.Usage.Prompted.Cached
			wantCompaction.CacheRead += r.Usage.Prompted.Cached
			wantCompaction.Output += r.Usage.Completion
			if len(onMessages[r.ID]) != 0 {
				t.Errorf("compaction request %d counted on a message", r.N)
			}
		default:
			answered++
			us := onMessages[r.ID]
			if len(us) != 1 {
				t.Errorf("request %d (%s): on %d messages, want 1", r.N, r.ID, len(us))
				continue
			}
			u := us[0]
			if u.Input != r.Usage.Prompt-r.Usage.Prompted.Cached || u.CacheRead != r.Usage.Prompted.Cached ||
				u.Output != r.Usage.Completion || u.Reasoning != r.Usage.Completed.Reasoning || u.CacheWrite != 0 ||
				u.TotalTokens != r.Usage.Prompt+r.Usage.Completion || u.Cost.Total != 0 {
				t.Errorf("request %d: usage %+v, server said %+v", r.N, *u, *r.Usage)
			}
		}
	}
	if compaction != wantCompaction || wantCompaction.Requests != 2 {
		t.Errorf("compaction usage %+v, server said %+v", compaction, wantCompaction)
	}
	if len(onMessages) != answered {
		t.Errorf("%d calls with usage on messages, the server answered %d", len(onMessages), answered)
	}
}

// TestUsageAgainstShutdown compares the usage summed over the usage records
// with Copilot CLI's own totals: the last session.shutdown's modelMetrics,
// cumulative over the session (README "Resume"), in the same units
// (inputTokens includes the cached input).
func TestUsageAgainstShutdown(t *testing.T) {
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var last *session.Entry
		for i := range s.Entries {
			if s.Entries[i].Type == TypeSessionShutdown {
				last = &s.Entries[i]
			}
		}
		var d struct {
			ModelMetrics map[string]struct {
				Requests struct {
					Count int `json:"count"`
				} `json:"requests"`
				Usage struct {
					Input     int64 `json:"inputTokens"`
					Output    int64 `json:"outputTokens"`
					CacheRead int64 `json:"cacheReadTokens"`
					Reasoning int64 `json:"reasoningTokens"`
				} `json:"usage"`
			} `json:"modelMetrics"`
		}
		if err := json.Unmarshal(raw(t, last).Data, &d); err != nil {
			t.Fatal(err)
		}
		var want Totals
		for _, m := range d.ModelMetrics {
			want.Requests += m.Requests.Count
			want.Input += m.Usage.Input - m.Usage.CacheRead
			want.CacheRead += m.Usage.CacheRead
			want.Output += m.Usage.Output
			want.Reasoning += m.Usage.Reasoning
		}
		if got := s.Metadata.Usage; got != want || s.Metadata.UnattachedUsage != (Totals{}) {
			t.Errorf("%s: usage %+v (unattached %+v), shutdown says %+v", path, got, s.Metadata.UnattachedUsage, want)
		}
	}
}

// TestToolCallsPaired: every tool call of an assistant message has exactly
// one result, named after the call (tool.execution_complete has no
// toolName); the view of a missing file is an error result with the error's
// message; edit and create keep their diff and file edits in Details.
func TestToolCallsPaired(t *testing.T) {
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]string{}
		results := map[string][]*session.Message{}
		for i := range s.Entries {
			m := s.Entries[i].Message
			if m == nil {
				continue
			}
			for _, b := range m.Content {
				if b.Type == session.BlockToolCall {
					calls[b.ID] = b.Name
					if !json.Valid(b.Arguments) || b.Arguments[0] != '{' {
						t.Errorf("%s: call %s arguments %s", path, b.ID, b.Arguments)
					}
				}
			}
			if m.Role == session.RoleToolResult {
				results[m.ToolCallID] = append(results[m.ToolCallID], m)
			}
		}
		for id, name := range calls {
			rs := results[id]
			if len(rs) != 1 || rs[0].ToolName != name {
				t.Errorf("%s: call %s (%s): %d results", path, id, name, len(rs))
			}
		}
		if len(results) != len(calls) {
			t.Errorf("%s: %d results for %d calls", path, len(results), len(calls))
		}
		for _, rs := range results {
			m := rs[0]
			switch m.ToolName {
			case "view":
				if m.IsError && session.JoinText(m.Content) != "Path does not exist" {
					t.Errorf("error result %q", session.JoinText(m.Content))
				}
			case "edit", "create":
				var det struct {
					DetailedContent string `json:"detailedContent"`
					FileEdits       []struct {
						Path string `json:"path"`
						Kind string `json:"kind"`
					} `json:"fileEdits"`
				}
				if err := json.Unmarshal(m.Details, &det); err != nil || !strings.HasPrefix(det.DetailedContent, "\ndiff --git") ||
					len(det.FileEdits) != 1 || det.FileEdits[0].Kind != m.ToolName || m.IsError {
					t.Errorf("%s result details %s: %v", m.ToolName, m.Details, err)
				}
			case "bash":
				if m.IsError || !strings.Contains(string(m.Details), `"exitCode":0`) {
					t.Errorf("bash result %v details %s", m.IsError, m.Details)
				}
			}
		}
	}
	if s := readReal(t, mainSession); s.Metadata.ToolErrors != 1 {
		t.Errorf("tool errors %d, want the one view of a missing file", s.Metadata.ToolErrors)
	}
}

// TestCompactions: the automatic (threshold) and the manual compaction are
// compaction entries whose summary is the checkpoint file Copilot CLI wrote
// for them (checkpoints/00N-session-c0b1d2e3.md), after the compaction_start
// of the same attempt (compactionAttemptId); workspace.yaml counts them
// too. The manual one hangs under its compaction_start, the automatic one
// under the line before it.
func TestCompactions(t *testing.T) {
	s := readReal(t, mainSession)
	var got []string
	starts := map[string]*session.Entry{} // by attempt
	lineOf := map[string]int{}
	for i := range s.Entries {
		e := &s.Entries[i]
		lineOf[e.ID] = e.Line
		var d struct {
			Attempt string `json:"compactionAttemptId"`
		}
		if err := json.Unmarshal(raw(t, e).Data, &d); err != nil {
			t.Fatal(err)
		}
		if e.Type == TypeCompactionStart {
			starts[d.Attempt] = e
		}
		if e.Type != session.TypeCompaction {
			continue
		}
		cp, err := os.ReadFile(filepath.Join(realRoot, mainSession, "checkpoints", fmt.Sprintf("%03d-session-c0b1d2e3.md", len(got)+1)))
		if err != nil {
			t.Fatal(err)
		}
		if e.Summary != string(cp) || e.Summary == "" {
			t.Errorf("line %d: summary %q, checkpoint %q", e.Line, e.Summary, cp)
		}
		st := starts[d.Attempt]
		if st == nil || st.Subtype != e.Subtype {
			t.Errorf("line %d: no compaction_start of attempt %s", e.Line, d.Attempt)
			continue
		}
		got = append(got, fmt.Sprintf("line %d %s %d, started line %d, under line %d", e.Line, e.Subtype, e.TokensBefore, st.Line, lineOf[e.ParentID]))
	}
	if strings.Join(got, "; ") != "line 51 threshold 19154, started line 44, under line 50; line 96 manual 10814, started line 88, under line 88" ||
		s.Metadata.Compactions != 2 {
		t.Errorf("compactions %v", got)
	}
	ws, problems, ok := WorkspaceOf(realFile(mainSession))
	if !ok || len(problems) != 0 || ws.SummaryCount != s.Metadata.Compactions {
		t.Errorf("workspace %+v problems %v", ws, problems)
	}
}

// TestSubagent follows the explore sub-agent of run 3 (README
// "Sub-agents"): its events (agentId) are Sidechain and name the task call
// they run under, but the parent's records of the spawn; the task call's
// result names the sub-agent and holds its last answer.
func TestSubagent(t *testing.T) {
	s := readReal(t, mainSession)
	const call, agentID = "call_yeyt4u7zhon3o1y0ocheku4p", "f9c5407c-037d-4c3d-bf5d-47be3d7ffbbf"
	var side []int
	var lastAnswer string
	var result *session.Entry
	for i := range s.Entries {
		e := &s.Entries[i]
		ev := raw(t, e)
		spawn := ev.Type == "subagent.started" || ev.Type == "subagent.completed"
		if e.Sidechain != (ev.AgentID != "" && !spawn) {
			t.Errorf("line %d %s: sidechain %v", e.Line, ev.Type, e.Sidechain)
		}
		if e.Sidechain {
			side = append(side, e.Line)
			if e.TargetID != call {
				t.Errorf("line %d: target %q, want the task call", e.Line, e.TargetID)
			}
			if m := e.Message; m != nil && m.Role == session.RoleAssistant {
				lastAnswer = session.JoinText(m.Content)
			}
		}
		if spawn && (e.SubagentID != agentID || e.TargetID != call || e.Sidechain) {
			t.Errorf("line %d %s: %+v", e.Line, ev.Type, e)
		}
		if m := e.Message; m != nil && m.ToolCallID == call {
			result = e
		}
	}
	if fmt.Sprint(side) != "[64 65 66 67 68 69 70 71 72 73 74 75 76 77 78]" {
		t.Errorf("sidechain lines %v", side)
	}
	if result == nil || result.SubagentID != agentID || result.Message.ToolName != "task" || session.JoinText(result.Message.Content) != lastAnswer || lastAnswer == "" {
		t.Errorf("task result %+v, sub-agent's answer %q", result, lastAnswer)
	}
	if s.Metadata.Subagents != 1 {
		t.Errorf("subagents %d", s.Metadata.Subagents)
	}
}

// TestResumes: each process after the first appended a session.resume and
// ended with a session.shutdown (README "Resume"); the header is the first
// process's session.start.
func TestResumes(t *testing.T) {
	s := readReal(t, mainSession)
	m, h := s.Metadata, s.Header
	if m.Resumes != 5 || m.Shutdowns != 6 || h.ID != mainSession || h.Format != Format || h.AgentVersion != "1.0.102" ||
		h.ModelID != "scripted-coder" || h.Cwd != "/tmp/rhizome-copilot-fixtures/work/ledger-cli" || h.Timestamp != "2026-12-03T09:41:50.886Z" {
		t.Errorf("header %+v metadata %+v", h, m)
	}
	if fmt.Sprint(m.Models) != "[scripted-coder]" || m.Errors != 1 || m.Branch != "main" {
		t.Errorf("metadata %+v", m)
	}
	// The five prompts (and the sub-agent's task prompt) start their own
	// turns: the interactionId of the message being answered.
	turns := map[string]bool{}
	for _, e := range s.Entries {
		if e.Message != nil && e.Message.Role == session.RoleUser {
			if e.TurnID == "" || turns[e.TurnID] {
				t.Errorf("line %d: turn %q", e.Line, e.TurnID)
			}
			turns[e.TurnID] = true
		}
	}
	if len(turns) != 6 {
		t.Errorf("%d turns", len(turns))
	}
}

// TestImageAttachment: the logo attached with --attachment is an image
// block of the prompt whose bytes are the session.binary_asset's (README
// "with an attachment"): a 70-byte PNG whose sha256 is the asset id.
func TestImageAttachment(t *testing.T) {
	s := readReal(t, logoSession)
	var prompt *session.Message
	for _, e := range s.Entries {
		if e.Message != nil && e.Message.Role == session.RoleUser {
			prompt = e.Message
		}
	}
	if prompt == nil || len(prompt.Content) != 2 || prompt.Content[0].Text != "Describe the attached logo." {
		t.Fatalf("prompt %+v", prompt)
	}
	img := prompt.Content[1]
	png, err := base64.StdEncoding.DecodeString(img.Data)
	sum := sha256.Sum256(png)
	if err != nil || img.Type != session.BlockImage || img.MimeType != "image/png" || len(png) != 70 ||
		"sha256:"+hex.EncodeToString(sum[:]) != "sha256:6b7fa434f92a8b80aab02d9bf1a12e49ffcae424e4013a1c4f68b67e3d2bbcd0" {
		t.Errorf("image %s %d bytes: %v", img.MimeType, len(png), err)
	}
	ws, _, ok := WorkspaceOf(realFile(logoSession))
	if !ok || ws.Name != "Logo check" || !ws.UserNamed || ws.ID != logoSession {
		t.Errorf("workspace %+v", ws)
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
	CallID     string `json:"callId,omitempty"`
	Model      string `json:"model,omitempty"`
	Turn       string `json:"turn,omitempty"`
	Usage      string `json:"usage,omitempty"`
	Flags      string `json:"flags,omitempty"`
	Subagent   string `json:"subagent,omitempty"`
	Target     string `json:"target,omitempty"`
	TextSHA256 string `json:"textSha256,omitempty"`
}

// golden is testdata/golden/<session>.json: assertions tagged with the
// README section they check, then every entry.
type golden struct {
	File     string              `json:"file"`
	Header   session.Header      `json:"header: session.start"`
	Metadata Metadata            `json:"metadata"`
	Wspace   Workspace           `json:"workspace.yaml beside it (name: the title)"`
	ByType   map[string]int      `json:"entries by type and role (README: event types in these files)"`
	Chain    map[string][]string `json:"chain: roots; compactions; dangling parents; rewinds; sub-agent"`
	Tools    map[string]any      `json:"tool calls paired with results"`
	Usage    map[string]any      `json:"usage once per model call (README: token fields)"`
	Problems map[string]int      `json:"problems"`
	Consumed int64               `json:"consumedBytes"`
	Lines    int                 `json:"lines"`
	StateLen int                 `json:"stateJSONBytes"`
	Entries  []goldenEntry       `json:"entries"`
}

func summarize(t *testing.T, path string, s *Session) golden {
	g := golden{File: filepath.ToSlash(path), Header: s.Header, Metadata: s.Metadata, ByType: map[string]int{},
		Chain: map[string][]string{"roots": {}, "compactions": {}, "danglingParents": {}, "rewinds": {}, "sidechain": {}},
		Tools: map[string]any{}, Problems: map[string]int{"malformed": s.MalformedCount, "warnings": s.WarningCount},
		Consumed: s.Consumed, Lines: s.Lines}
	if s.Pending != nil {
		g.Problems["pending"] = 1
	}
	b, _ := json.Marshal(s.State)
	g.StateLen = len(b)
	ws, problems, ok := WorkspaceOf(path)
	if !ok || len(problems) != 0 {
		t.Errorf("%s: workspace.yaml: %v", path, problems)
	}
	g.Wspace = ws
	ids := map[string]bool{}
	calls, results := map[string]string{}, map[string]string{}
	var errs []string
	var total session.Usage
	responses := 0
	for i := range s.Entries {
		e := &s.Entries[i]
		ids[e.ID] = true
		k := e.Type
		ge := goldenEntry{Line: e.Line, ID: short(e.ID), Parent: short(e.ParentID), Type: e.Type, Subtype: e.Subtype, Turn: short(e.TurnID),
			Subagent: short(e.SubagentID), Target: e.TargetID}
		var flags []string
		for _, f := range []struct {
			on   bool
			name string
		}{{e.Rewind, "rewind"}, {e.Sidechain, "sidechain"}, {e.DuplicateOf != "", "duplicate"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		ge.Flags = strings.Join(flags, ",")
		if m := e.Message; m != nil {
			k += ":" + m.Role
			ge.Role, ge.Custom, ge.Stop, ge.Tool, ge.CallID, ge.Model = m.Role, m.CustomType, m.StopReason, m.ToolName, m.ToolCallID, m.Model
			var bt []string
			for _, b := range m.Content {
				bt = append(bt, b.Type)
				if b.Type == session.BlockToolCall {
					calls[b.ID] = b.Name
				}
			}
			ge.Blocks = strings.Join(bt, ",")
			if m.Role == session.RoleToolResult {
				results[m.ToolCallID] = fmt.Sprintf("line %d", e.Line)
				if m.IsError {
					errs = append(errs, fmt.Sprintf("line %d %s: %s", e.Line, m.ToolName, session.JoinText(m.Content)))
				}
			}
			if u := m.Usage; u != nil {
				responses++
				ge.Usage = fmt.Sprintf("in %d out %d read %d write %d reasoning %d via %s %s", u.Input, u.Output, u.CacheRead, u.CacheWrite, u.Reasoning, m.Provider, m.API)
				total.Input += u.Input
				total.Output += u.Output
				total.CacheRead += u.CacheRead
				total.CacheWrite += u.CacheWrite
				total.Reasoning += u.Reasoning
			}
		}
		if txt := session.EntryText(e); txt != "" {
			ge.TextSHA256 = sessionlogtest.TextHash(txt)
		}
		g.ByType[k]++
		switch {
		case e.Type == session.TypeCompaction:
			g.Chain["compactions"] = append(g.Chain["compactions"], fmt.Sprintf("line %d %s (%s) under %s", e.Line, short(e.ID), e.Subtype, short(e.ParentID)))
		case e.ParentID == "":
			g.Chain["roots"] = append(g.Chain["roots"], fmt.Sprintf("line %d %s %s", e.Line, short(e.ID), e.Type))
		}
		if e.ParentID != "" && !ids[e.ParentID] {
			g.Chain["danglingParents"] = append(g.Chain["danglingParents"], fmt.Sprintf("line %d %s -> %s", e.Line, short(e.ID), short(e.ParentID)))
		}
		if e.Rewind {
			g.Chain["rewinds"] = append(g.Chain["rewinds"], fmt.Sprintf("line %d", e.Line))
		}
		if e.Sidechain {
			g.Chain["sidechain"] = append(g.Chain["sidechain"], fmt.Sprintf("line %d under %s", e.Line, e.TargetID))
		}
		g.Entries = append(g.Entries, ge)
	}
	unpaired := []string{}
	for id := range calls {
		if results[id] == "" {
			unpaired = append(unpaired, id)
		}
	}
	sort.Strings(unpaired)
	g.Tools["calls"], g.Tools["results"], g.Tools["callsWithoutResult"], g.Tools["errors"] = len(calls), len(results), unpaired, errs
	g.Usage = map[string]any{"responses": responses, "input": total.Input, "output": total.Output, "cacheRead": total.CacheRead,
		"cacheWrite": total.CacheWrite, "reasoning": total.Reasoning}
	return g
}

func short(id string) string {
	if len(id) > 8 && !strings.HasPrefix(id, "L") && !strings.HasPrefix(id, "call_") {
		return id[:8]
	}
	return id
}

// TestRealFilesGolden compares the parsed result of each real file with
// testdata/golden/<session>.json (update with -update, review the diff).
func TestRealFilesGolden(t *testing.T) {
	for _, path := range realFiles(t) {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gp := filepath.Join("testdata", "golden", filepath.Base(filepath.Dir(path))+".json")
		sessionlogtest.CheckGolden(t, path, gp, summarize(t, path, s), *update)
	}
}
