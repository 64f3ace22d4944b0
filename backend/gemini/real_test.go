package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog"
	"rhizome/backend/sessionlog/sessionlogtest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the real sessions")

const (
	chatsDir     = "testdata/gemini-home/tmp/acme-api/chats"
	mainSession  = "3f0c8a52-6d1e-4b7a-9e25-1c4d7b8a9f60"
	agentSession = "776d42e1-30c7-40fa-90c9-28e2aa6c70eb"
)

// The files Gemini CLI 0.61.0 wrote (testdata/generate/README.md, "What each
// run covers").
var (
	mainFile     = filepath.Join(chatsDir, "session-2026-12-03T09-36-3f0c8a52.jsonl")
	mainStub     = filepath.Join(chatsDir, "session-2026-12-03T09-37-3f0c8a52.jsonl")
	secondFile   = filepath.Join(chatsDir, "session-2026-12-03T09-37-b71e2c09.jsonl")
	importedFile = filepath.Join(chatsDir, "session-1796290655478-503088f5.jsonl")
	importedStub = filepath.Join(chatsDir, "session-2026-12-03T09-37-503088f5.jsonl")
	agentFile    = filepath.Join(chatsDir, mainSession, agentSession+".jsonl")
)

// realFiles are the recordings in testdata/gemini-home, sorted.
func realFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(chatsDir, "*.jsonl"))
	more, err2 := filepath.Glob(filepath.Join(chatsDir, "*", "*.jsonl"))
	files = append(files, more...)
	if err != nil || err2 != nil || len(files) != 6 {
		t.Fatalf("real files: %v %v (%d)", err, err2, len(files))
	}
	sort.Strings(files)
	return files
}

// expected is testdata/expected.json, written by the generator: the runs,
// the CLI's own stats of each, and every request its model server answered.
type expected struct {
	Steps []struct {
		Label       string `json:"label"`
		SessionID   string `json:"sessionId"`
		Exit        int    `json:"exit"`
		Requests    []int  `json:"requests"`
		ResultStats *struct {
			Input  int64 `json:"input_tokens"`
			Output int64 `json:"output_tokens"`
			Cached int64 `json:"cached"`
		} `json:"resultStats"`
		ToolResults []struct {
			ToolID string `json:"tool_id"`
			Status string `json:"status"`
		} `json:"toolResults"`
	} `json:"steps"`
	Requests []struct {
		N      int    `json:"n"`
		Method string `json:"method"`
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
		Usage  *struct {
			Prompt     int64 `json:"promptTokenCount"`
			Candidates int64 `json:"candidatesTokenCount"`
			Total      int64 `json:"totalTokenCount"`
			Cached     int64 `json:"cachedContentTokenCount"`
			Thoughts   int64 `json:"thoughtsTokenCount"`
			Tool       int64 `json:"toolUsePromptTokenCount"`
		} `json:"usage"`
		Parts []map[string]any `json:"parts"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"requests"`
}

func loadExpected(t testing.TB) *expected {
	return sessionlogtest.ReadJSON[expected](t, "testdata/expected.json")
}

func readReal(t testing.TB, path string) *Session {
	t.Helper()
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// counts reports whether e counts in the conversation (as app/ingest
// counts: neither a copy nor replayed).
func counts(e *session.Entry) bool { return e.DuplicateOf == "" && !e.Replayed }

// TestRealFilesPositions checks every entry against the file: Seq from 0,
// offsets increasing, Raw the file's bytes at Offset on Line and a JSON
// object, nothing malformed, warned about or pending; the whole file
// consumed but for a last response still held (it may be written again);
// a line is one entry, its whole object, but for a rewrite and a message
// of tool results, whose entries are the line's messages and results
// (README "Records": every line kept).
func TestRealFilesPositions(t *testing.T) {
	for _, path := range realFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Read(bytes.NewReader(data), path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		starts := make([]int64, len(lines)+1)
		for i, l := range lines {
			starts[i+1] = starts[i] + int64(len(l))
		}
		var end int64
		perLine := map[int]int{}
		for i, e := range s.Entries {
			stop := e.Offset + int64(len(e.Raw))
			if e.Seq != i || e.Offset < end || stop > int64(len(data)) || !bytes.Equal(data[e.Offset:stop], e.Raw) ||
				e.Raw[0] != '{' || !json.Valid(e.Raw) || e.Offset < starts[e.Line-1] || stop > starts[e.Line] {
				t.Fatalf("%s: entry %d (line %d, offset %d): bad Seq, position or Raw", path, i, e.Line, e.Offset)
			}
			end = stop
			perLine[e.Line]++
			if whole := bytes.TrimRight(lines[e.Line-1], "\r\n"); perLine[e.Line] == 1 && !bytes.Equal(e.Raw, whole) &&
				!bytes.HasPrefix(whole, []byte(`{"$set":{"messages":`)) && !bytes.Contains(whole, []byte(`"content":[{"functionResponse"`)) {
				t.Errorf("%s line %d: entry is not the whole line", path, e.Line)
			}
		}
		for n := 1; n < len(lines); n++ {
			if perLine[n] == 0 {
				t.Errorf("%s: line %d has no entry", path, n)
			}
		}
		// A last response is held (it may be written again): the read
		// is consumed up to its line.
		consumed, doneLines := int64(len(data)), len(lines)-1
		for n := len(lines) - 1; n >= 1; n-- {
			var rec struct{ ID, Type string }
			if json.Unmarshal(lines[n-1], &rec) == nil && rec.ID != "" {
				if rec.Type == "gemini" {
					consumed, doneLines = starts[n-1], n-1
				}
				break
			}
		}
		if len(s.Malformed) != 0 || len(s.Warnings) != 0 || s.Pending != nil || s.Lines != doneLines || s.Consumed != consumed {
			t.Errorf("%s: malformed %v warnings %v pending %v consumed %d of %d lines %d", path, s.Malformed, s.Warnings, s.Pending, s.Consumed, len(data), s.Lines)
		}
	}
}

// lineCountScript counts, independently of Go, what each line of each file
// should give by the package comment's rule: an entry per object, but a
// $set's messages list an entry per message, and a user message made of
// functionResponse parts an entry per part.
const lineCountScript = `
import json, sys
dec = json.JSONDecoder()
def message(m):
    c = m.get("content")
    if m.get("type") == "user" and isinstance(c, list) and c and all(list(p.keys()) == ["functionResponse"] for p in c):
        return len(c)
    return 1
for path in sys.argv[1:]:
    counts = []
    with open(path, "rb") as f:
        for raw in f:
            s = raw.decode("utf-8").strip()
            n, i = 0, 0
            while i < len(s):
                o, j = dec.raw_decode(s, i)
                msgs = o.get("$set", {}).get("messages") if isinstance(o.get("$set"), dict) else None
                if isinstance(msgs, list) and msgs:
                    n += sum(message(m) for m in msgs)
                elif "id" in o:
                    n += message(o)
                else:
                    n += 1
                while j < len(s) and s[j] in " \t\r\n":
                    j += 1
                i = j
            counts.append(str(n))
    print(path, " ".join(counts))
`

// TestEveryLineAccountedFor compares the entries of each line with a count
// written in Python (lineCountScript): every line's objects, messages and
// results, none missing, none more. It skips when python3 is not
// installed.
func TestEveryLineAccountedFor(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the independent line count needs it")
	}
	files := realFiles(t)
	out, err := exec.Command(py, append([]string{"-c", lineCountScript}, files...)...).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	rows := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(rows) != len(files) {
		t.Fatalf("python3 counted %d files of %d", len(rows), len(files))
	}
	total := 0
	for _, row := range rows {
		f := strings.Fields(row)
		s := readReal(t, f[0])
		got := map[int]int{}
		for _, e := range s.Entries {
			got[e.Line]++
		}
		for i, c := range f[1:] {
			total++
			if fmt.Sprint(got[i+1]) != c {
				t.Errorf("%s line %d: %d entries, python counts %s", f[0], i+1, got[i+1], c)
			}
		}
		if len(got) != len(f)-1 {
			t.Errorf("%s: entries on %d lines, python counts %d lines", f[0], len(got), len(f)-1)
		}
	}
	if total != 119 {
		t.Errorf("%d lines", total)
	}
}

// openLog and resumeLog are NewReader and NewReaderAt for sessionlogtest.
func openLog(r io.Reader, file string) *sessionlog.Reader[parseState] {
	return NewReader(r, file).Reader
}

func resumeLog(r io.Reader, file string, st State) *sessionlog.Reader[parseState] {
	return NewReaderAt(r, file, st).Reader
}

// TestResumeAtEveryLine reads a prefix of each real file (and of the
// hand-made one) ending at every line boundary, stores the State as JSON,
// resumes with NewReaderAt over the rest: together they give exactly the
// entries, metadata and final State of a full read (a recording grows by
// appends; a response held at the end of a prefix comes again in its final
// form).
func TestResumeAtEveryLine(t *testing.T) {
	sessionlogtest.CheckResumeAtEveryLine(t, append(realFiles(t), handmadeFile), openLog, resumeLog)
}

// TestDecodeStored decodes every entry's Raw alone, as app/ingest decodes
// the entries it stored (DecodeStored: the objects joined by newlines, read
// from a State holding the header): each gives exactly one entry, of the
// same type, id, role, call and text as the whole read's. What a read
// derives from other lines (a copy's DuplicateOf, a result's Details) the
// import keeps beside the entry.
func TestDecodeStored(t *testing.T) {
	for _, path := range realFiles(t) {
		s := readReal(t, path)
		var buf bytes.Buffer
		for _, e := range s.Entries {
			buf.Write(e.Raw)
			buf.WriteByte('\n')
		}
		r := NewReaderAt(&buf, path, State{Header: s.Header, Seq: 0})
		got := sessionlogtest.Entries(t, r.Reader)
		if len(got) != len(s.Entries) || r.MalformedCount() != 0 {
			t.Fatalf("%s: %d objects gave %d entries (malformed %v)", path, len(s.Entries), len(got), r.Malformed())
		}
		for i := range got {
			g, w := &got[i], &s.Entries[i]
			// "L<line>" ids count the lines the decode sees.
			if g.Type != w.Type || g.ID != w.ID && !strings.HasPrefix(w.ID, "L") || session.EntryText(g) != session.EntryText(w) || g.Sidechain != w.Sidechain ||
				(g.Message == nil) != (w.Message == nil) || g.Message != nil && (g.Message.Role != w.Message.Role ||
				g.Message.ToolCallID != w.Message.ToolCallID || g.Message.ToolName != w.Message.ToolName || g.Message.IsError != w.Message.IsError) {
				t.Errorf("%s: entry %d (line %d, %s %s) decodes alone as %s %s", path, i, w.Line, w.Type, w.ID, g.Type, g.ID)
			}
		}
	}
}

// response is a counted gemini message with its usage, for the server
// comparison.
type response struct {
	file  string
	e     *session.Entry
	calls []string
}

// countedResponses are the counted responses with usage of every file, in
// time order.
func countedResponses(t *testing.T) []response {
	var out []response
	for _, path := range realFiles(t) {
		s := readReal(t, path)
		for i := range s.Entries {
			e := &s.Entries[i]
			if !counts(e) || e.Message == nil || e.Message.Role != session.RoleAssistant || e.Message.Usage == nil {
				continue
			}
			r := response{file: filepath.Base(path), e: e}
			for _, b := range e.Message.Content {
				if b.Type == session.BlockToolCall {
					r.calls = append(r.calls, b.Name)
				}
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].e.Timestamp.Before(out[j].e.Timestamp) })
	return out
}

// TestUsageAgainstTheServer checks usage against what the scripted server
// reported (testdata/expected.json), independently of the reader: each
// streamed request the server answered is one counted response, in order,
// with its tool calls, Input = prompt - cached + tool-use prompt,
// CacheRead = cached, Output = candidates + thoughts, Reasoning = thoughts,
// TotalTokens = the server's total, and the model. The requests the CLI
// does not record (the compression's two generateContent calls, the
// session summary) and the refused one have none. The CLI's own stats of
// each run agree, less the compression's calls: its input is prompt
// tokens, its output candidates only.
func TestUsageAgainstTheServer(t *testing.T) {
	x := loadExpected(t)
	got := countedResponses(t)
	var streamed []int
	for i, r := range x.Requests {
		if r.Method == "streamGenerateContent" && r.Error == nil {
			streamed = append(streamed, i)
		}
	}
	if len(got) != len(streamed) || len(streamed) != 16 {
		t.Fatalf("%d counted responses, the server streamed %d answers", len(got), len(streamed))
	}
	for k, i := range streamed {
		r, g := x.Requests[i], got[k]
		u, m := r.Usage, g.e.Message
		var calls []string
		for _, p := range r.Parts {
			if name, ok := p["functionCall"].(string); ok {
				calls = append(calls, name)
			}
		}
		if m.Usage.Input != u.Prompt-u.Cached+u.Tool || m.Usage.CacheRead != u.Cached || m.Usage.Output != u.Candidates+u.Thoughts ||
			m.Usage.Reasoning != u.Thoughts || m.Usage.TotalTokens != u.Total || m.Usage.Cost.Total != 0 || m.Model != r.Model ||
			strings.Join(calls, ",") != strings.Join(g.calls, ",") {
			t.Errorf("request %d (%s): %s line %d usage %+v calls %v, server said %+v calls %v", r.N, r.Prompt, g.file, g.e.Line, *m.Usage, g.calls, *u, calls)
		}
	}
	// The CLI's stats of a run count its compression's calls too, which
	// the recording does not hold.
	var stats, mine Totals
	for _, s := range x.Steps {
		if rs := s.ResultStats; rs != nil {
			stats.Input += rs.Input
			stats.Output += rs.Output
			stats.CacheRead += rs.Cached
			for _, n := range s.Requests {
				if r := x.Requests[n-1]; r.N == n && r.Method != "streamGenerateContent" && r.Usage != nil {
					stats.Input -= r.Usage.Prompt
					stats.Output -= r.Usage.Candidates
					stats.CacheRead -= r.Usage.Cached
				}
			}
		}
	}
	var meta Totals
	for _, path := range realFiles(t) {
		u := readReal(t, path).Metadata.Usage
		meta.Responses += u.Responses
		meta.Input += u.Input
		meta.CacheRead += u.CacheRead
		meta.Output += u.Output
		meta.Reasoning += u.Reasoning
	}
	for _, g := range got {
		u := g.e.Message.Usage
		mine.Responses++
		mine.Input += u.Input + u.CacheRead
		mine.CacheRead += u.CacheRead
		mine.Output += u.Output - u.Reasoning
	}
	if mine.Input != stats.Input || mine.Output != stats.Output || mine.CacheRead != stats.CacheRead {
		t.Errorf("responses sum to %+v, the CLI's stats %+v", mine, stats)
	}
	if meta.Responses != 16 || meta.Input+meta.CacheRead != stats.Input || meta.Output-meta.Reasoning != stats.Output {
		t.Errorf("metadata usage %+v, stats %+v", meta, stats)
	}
}

// TestToolCallsPaired: every tool call of a counted response has exactly
// one counted result, named after it, whose status is the one the CLI
// reported for the run (expected.json's toolResults); the read of a
// missing file is an error result with its message, the shell command
// that exits 1 an error by its exit code (Gemini says success); replace
// and write_file keep their diff; only complete_task, which ends the
// sub-agent and is never sent back, has no result (README "Sub-agent").
func TestToolCallsPaired(t *testing.T) {
	x := loadExpected(t)
	status := map[string]string{}
	for _, s := range x.Steps {
		for _, r := range s.ToolResults {
			status[r.ToolID] = r.Status
		}
	}
	calls := map[string]string{}
	results := map[string][]*session.Entry{}
	for _, path := range realFiles(t) {
		s := readReal(t, path)
		for i := range s.Entries {
			e := &s.Entries[i]
			if !counts(e) || e.Message == nil {
				continue
			}
			for _, b := range e.Message.Content {
				if b.Type == session.BlockToolCall {
					calls[b.ID] = b.Name
					if !json.Valid(b.Arguments) || b.Arguments[0] != '{' {
						t.Errorf("call %s arguments %s", b.ID, b.Arguments)
					}
				}
			}
			if e.Message.Role == session.RoleToolResult {
				results[e.Message.ToolCallID] = append(results[e.Message.ToolCallID], e)
			}
		}
	}
	var unpaired []string
	for id, name := range calls {
		rs := results[id]
		if len(rs) == 0 {
			unpaired = append(unpaired, name)
			continue
		}
		if len(rs) != 1 || rs[0].Message.ToolName != name || rs[0].ID != id {
			t.Errorf("call %s (%s): %d results", id, name, len(rs))
		}
	}
	if len(results) != len(calls)-1 || fmt.Sprint(unpaired) != "[complete_task]" {
		t.Errorf("%d results for %d calls; without a result %v", len(results), len(calls), unpaired)
	}
	var errs []string
	for id, rs := range results {
		m := rs[0].Message
		var det struct {
			Status        string          `json:"status"`
			ExitCode      *int            `json:"exitCode"`
			ResultDisplay json.RawMessage `json:"resultDisplay"`
		}
		if err := json.Unmarshal(m.Details, &det); err != nil {
			t.Errorf("%s details %s: %v", id, m.Details, err)
		}
		if want, ok := status[id]; ok && det.Status != want {
			t.Errorf("%s: status %q, the CLI said %q", id, det.Status, want)
		}
		if m.IsError {
			errs = append(errs, fmt.Sprintf("%s %s: %.40s", m.ToolName, det.Status, session.JoinText(m.Content)))
			if m.ToolName == ToolShell && (det.ExitCode == nil || *det.ExitCode != 1) {
				t.Errorf("shell error without its exit code: %s", m.Details)
			}
		}
		if (m.ToolName == "replace" || m.ToolName == "write_file") && !bytes.Contains(det.ResultDisplay, []byte(`"fileDiff":"Index: `)) {
			t.Errorf("%s: resultDisplay %.80s", m.ToolName, det.ResultDisplay)
		}
	}
	sort.Strings(errs)
	if strings.Join(errs, "; ") != "read_file error: File not found: /tmp/rhizome-gemini-fixt; run_shell_command success: <untrusted_context>\nOutput: # ./...\npatt" {
		t.Errorf("error results %q", errs)
	}
}

// TestSupersededResponses: each response that called tools was written
// twice with one id (README "Records"); the first copy names the second,
// which counts, with the calls; the second follows the first's parent.
func TestSupersededResponses(t *testing.T) {
	s := readReal(t, mainFile)
	seen := map[string]*session.Entry{}
	var superseded []string
	for i := range s.Entries {
		e := &s.Entries[i]
		if e.Message == nil || e.Message.Role != session.RoleAssistant || e.Line == 0 {
			continue
		}
		if first := seen[e.ID]; first != nil && first.DuplicateOf == e.ID && e.Line == first.Line+2 {
			superseded = append(superseded, fmt.Sprintf("%d>%d", first.Line, e.Line))
			calls := 0
			for _, b := range e.Message.Content {
				if b.Type == session.BlockToolCall {
					calls++
				}
			}
			if !counts(e) || calls == 0 || e.ParentID != first.ParentID || fmt.Sprint(e.Message.Usage) != fmt.Sprint(first.Message.Usage) {
				t.Errorf("line %d: %+v", e.Line, e)
			}
		}
		if seen[e.ID] == nil {
			seen[e.ID] = e
		}
	}
	if fmt.Sprint(superseded) != "[5>7 16>18 21>23 32>34 48>50 59>61]" || s.Metadata.Superseded != 6 {
		t.Errorf("superseded %v (%d)", superseded, s.Metadata.Superseded)
	}
}

// TestCompression: the rewrite of run 6 (README "Compression") gives a
// compaction entry for its summary, under the last response before it,
// whose first kept entry is the prompt the kept tail starts with; the tail
// under new ids is copies of the messages it keeps; the acknowledgement
// is new; the turns it summarised are not rolled back.
func TestCompression(t *testing.T) {
	s := readReal(t, mainFile)
	var comp *session.Entry
	var tail []string
	for i := range s.Entries {
		e := &s.Entries[i]
		if e.Type == session.TypeCompaction {
			comp = e
		}
		if e.Line == 63 && comp != nil && e != comp {
			txt := session.EntryText(e)
			tail = append(tail, fmt.Sprintf("%s>%s %.20s", short(e.ID), short(e.DuplicateOf), txt))
			if len(e.RolledBackTurns) > 0 {
				t.Errorf("line 63 rolls back %v", e.RolledBackTurns)
			}
		}
	}
	if comp == nil || comp.Line != 63 || !strings.HasPrefix(comp.Summary, "<state_snapshot>\n<overall_goal>Add a /health handler") ||
		comp.FirstKeptEntryID != "1f9547ee-afbc-4ae5-b4a2-e7f2a1f51ff1" && !strings.HasPrefix(comp.FirstKeptEntryID, "1f9547ee") ||
		comp.TokensBefore != 600000 || !strings.HasPrefix(comp.ParentID, "86548051") || s.Metadata.Compressions != 1 {
		t.Fatalf("compaction %+v", comp)
	}
	const call = "invoke_agent__invoke_agent_1796290637472_0"
	want := "[64f678da> Got it. Thanks for t 89e64d32>1f9547ee Ask a sub-agent wher d5e57310>7d9d3308 invoke_agent\ncodebas " +
		call + ">" + call + " Subagent 'codebase_i " + call + ">" + call + " Subagent 'codebase_i 42fc8341>533abba2 The sub-agent says t " +
		"111e2806>7b29613d Summarise everything 7a3e032c>86548051 list_directory\n.]"
	if fmt.Sprint(tail) != want {
		t.Errorf("tail %q", tail)
	}
}

// TestRollback: the prompt of run 4 was written, then the failed request
// rolled it back with a rewrite without it (README "API error"): its turn
// is rolled back on that line's first entry, nothing else is.
func TestRollback(t *testing.T) {
	s := readReal(t, mainFile)
	var prompt string
	var rolled []string
	for _, e := range s.Entries {
		if e.Message != nil && session.EntryText(&e) == "Trigger the API error now." && counts(&e) {
			prompt = e.ID
		}
		if len(e.RolledBackTurns) > 0 {
			rolled = append(rolled, fmt.Sprintf("line %d seq %d %v", e.Line, e.Seq, e.RolledBackTurns))
		}
	}
	if prompt == "" || fmt.Sprint(rolled) != fmt.Sprintf("[line 43 seq 98 [%s]]", prompt) || s.Metadata.Rollbacks != 1 {
		t.Errorf("prompt %s rolled back %v", prompt, rolled)
	}
}

// TestResumeStubs: a resume in a later minute leaves a file of its own with
// the session's id, metadata and the session context only (README
// "Resume"). With its layout it is a session of its own id
// (LaterRecordingID), named as what it is; alone, a near-empty session of
// the session's id. Neither is an error.
func TestResumeStubs(t *testing.T) {
	for _, c := range []struct{ stub, main string }{{mainStub, mainFile}, {importedStub, importedFile}} {
		l := LayoutOf(c.stub)
		if l.EarlierRecording != c.main || l.ProjectRoot != "/tmp/rhizome-gemini-fixtures/work/acme-api" || l.Slug != "acme-api" {
			t.Errorf("%s: layout %+v", c.stub, l)
		}
		if LayoutOf(c.main).EarlierRecording != "" {
			t.Errorf("%s: an earlier recording", c.main)
		}
		s := readReal(t, c.stub)
		m := s.Metadata
		main := readReal(t, c.main)
		if !strings.HasPrefix(s.Header.ID, main.Header.ID+"~2026-12-03T09:37:") || s.Header.ID != LaterRecordingID(main.Header.ID, s.Header.Timestamp) ||
			m.Prompts+m.Responses+m.Replayed != 0 || m.Usage != (Totals{}) || s.MalformedCount+s.WarningCount != 0 ||
			m.Name() != "Gemini CLI resume stub: no conversation (the session is in "+filepath.Base(c.main)+")" {
			t.Errorf("%s: header %+v metadata %+v name %q", c.stub, s.Header, m, m.Name())
		}
		for _, e := range s.Entries {
			if e.Type != TypeMetadata && (e.Message == nil || e.Message.CustomType != CustomSessionContext) {
				t.Errorf("%s line %d: %s", c.stub, e.Line, e.Type)
			}
		}
		alone, err := Read(bytes.NewReader(mustRead(t, c.stub)), filepath.Base(c.stub))
		if err != nil || alone.Header.ID != main.Header.ID || alone.Metadata.Name() != "Gemini CLI session with no conversation" {
			t.Errorf("%s alone: %v %+v", c.stub, err, alone)
		}
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSameMinuteResume: run 9 resumed the second session within its first
// minute, so the stub landed in the session's own file and its list of
// the session context alone wiped Gemini's list until the history was
// written back (README "Resume"): nothing dropped, nothing rolled back,
// the history written back is copies.
func TestSameMinuteResume(t *testing.T) {
	s := readReal(t, secondFile)
	m := s.Metadata
	if m.Dropped != 0 || m.Rollbacks != 0 || m.Rewrites != 1 || m.Recordings != 2 || m.Resumes != 1 || m.Prompts != 2 || m.Responses != 2 || m.Copies != 4 {
		t.Errorf("metadata %+v", m)
	}
	for _, e := range s.Entries {
		if e.Line == 10 && (e.DuplicateOf != e.ID || e.Timestamp.Format("15:04:05.000") != "09:37:32.592") {
			t.Errorf("line 10 entry %s: copy of %q at %v", e.ID, e.DuplicateOf, e.Timestamp)
		}
	}
}

// TestImportedSession: --session-file (run 10) copies the second session
// into a new one after an info message: those messages are Replayed (they
// are the second session's), the rewrite after them copies, the new turn
// counts; the header names the file it came from (README "Records").
func TestImportedSession(t *testing.T) {
	s := readReal(t, importedFile)
	var replayed, counted []string
	for _, e := range s.Entries {
		if e.Replayed {
			replayed = append(replayed, fmt.Sprint(e.Line))
		}
		if e.Message != nil && counts(&e) {
			counted = append(counted, fmt.Sprintf("%d %s", e.Line, e.Message.Role))
		}
	}
	m := s.Metadata
	want := "/tmp/rhizome-gemini-fixtures/home/.gemini/tmp/acme-api/chats/session-2026-12-03T09-37-b71e2c09.jsonl"
	if strings.Join(replayed, ",") != "3,4,5,6,7" || fmt.Sprint(counted) != "[2 custom 10 user 12 assistant]" || m.ImportedFrom != want ||
		s.Header.ParentSession != want || m.Replayed != 5 || m.Prompts != 1 || m.Responses != 1 || m.Dropped != 0 {
		t.Errorf("replayed %v counted %v metadata %+v header %+v", replayed, counted, m, s.Header)
	}
}

// TestSubagent: run 5's codebase_investigator recorded its own file under
// the parent's folder (README "Sub-agent"): a sub-agent session (AgentID,
// ParentSession the folder's), Sidechain throughout, titled by its
// report; the parent's invoke_agent result names it.
func TestSubagent(t *testing.T) {
	s := readReal(t, agentFile)
	h, m := s.Header, s.Metadata
	if h.ID != agentSession || h.AgentID != agentSession || h.ParentSession != mainSession || h.Cwd != "/tmp/rhizome-gemini-fixtures/work/acme-api" ||
		m.Kind != "subagent" || m.Title != "The routes are registered in main.go: /health on line 6, served by http.ListenAndServe on line 7." ||
		m.Prompts != 1 || m.Responses != 2 || m.Usage.Responses != 2 {
		t.Errorf("header %+v metadata %+v", h, m)
	}
	for _, e := range s.Entries {
		if !e.Sidechain {
			t.Errorf("line %d: not sidechain", e.Line)
		}
	}
	var spawn *session.Entry
	main := readReal(t, mainFile)
	for i := range main.Entries {
		if e := &main.Entries[i]; e.SubagentID != "" && counts(e) {
			spawn = e
		}
	}
	if spawn == nil || spawn.SubagentID != agentSession || spawn.Message.ToolName != "invoke_agent" || main.Metadata.Subagents != 1 ||
		!strings.Contains(session.EntryText(spawn), "The routes are registered in main.go") {
		t.Errorf("spawn %+v", spawn)
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
	Turn       string `json:"turn,omitempty"`
	Usage      string `json:"usage,omitempty"`
	Flags      string `json:"flags,omitempty"`
	CopyOf     string `json:"copyOf,omitempty"`
	Subagent   string `json:"subagent,omitempty"`
	RolledBack string `json:"rolledBackTurns,omitempty"`
	TextSHA256 string `json:"textSha256,omitempty"`
}

// golden is testdata/golden/<file>.json: the header, the metadata, what the
// entries add up to, then every entry.
type golden struct {
	File     string         `json:"file"`
	Header   session.Header `json:"header"`
	Name     string         `json:"name (Metadata.Name)"`
	Metadata Metadata       `json:"metadata"`
	Layout   Layout         `json:"layout"`
	ByType   map[string]int `json:"entries by type and role"`
	Counted  map[string]int `json:"counted (no copy and not replayed) by type and role"`
	Marks    map[string]any `json:"marks (copies; superseded first copies; replayed; compactions; rollbacks)"`
	Tools    map[string]any `json:"tool calls paired with results"`
	Problems map[string]int `json:"problems"`
	Consumed int64          `json:"consumedBytes"`
	Lines    int            `json:"lines"`
	StateLen int            `json:"stateJSONBytes"`
	Entries  []goldenEntry  `json:"entries"`
}

func summarize(path string, s *Session) golden {
	g := golden{File: filepath.ToSlash(path), Header: s.Header, Name: s.Metadata.Name(), Metadata: s.Metadata, Layout: LayoutOf(path),
		ByType: map[string]int{}, Counted: map[string]int{}, Marks: map[string]any{}, Tools: map[string]any{},
		Problems: map[string]int{"malformed": s.MalformedCount, "warnings": s.WarningCount}, Consumed: s.Consumed, Lines: s.Lines}
	if s.Pending != nil {
		g.Problems["pending"] = 1
	}
	b, _ := json.Marshal(s.State)
	g.StateLen = len(b)
	calls, results := map[string]string{}, map[string]int{}
	var errs, comps, rolled, superseded []string
	copies, replayed := 0, 0
	for i := range s.Entries {
		e := &s.Entries[i]
		k := e.Type
		ge := goldenEntry{Line: e.Line, ID: short(e.ID), Parent: short(e.ParentID), Type: e.Type, Subtype: e.Subtype, Turn: short(e.TurnID),
			Subagent: short(e.SubagentID), CopyOf: short(e.DuplicateOf)}
		var flags []string
		for _, f := range []struct {
			on   bool
			name string
		}{{e.Sidechain, "sidechain"}, {e.Replayed, "replayed"}, {e.Rewind, "rewind"}} {
			if f.on {
				flags = append(flags, f.name)
			}
		}
		ge.Flags = strings.Join(flags, ",")
		if len(e.RolledBackTurns) > 0 {
			var ts []string
			for _, t := range e.RolledBackTurns {
				ts = append(ts, short(t))
			}
			ge.RolledBack = strings.Join(ts, ",")
			rolled = append(rolled, fmt.Sprintf("line %d: %s", e.Line, ge.RolledBack))
		}
		if m := e.Message; m != nil {
			k += ":" + m.Role
			ge.Role, ge.Custom, ge.Stop, ge.Tool, ge.Model = m.Role, m.CustomType, m.StopReason, m.ToolName, m.Model
			var bt []string
			for _, b := range m.Content {
				bt = append(bt, b.Type)
				if b.Type == session.BlockToolCall && counts(e) {
					calls[b.ID] = b.Name
				}
			}
			ge.Blocks = strings.Join(bt, ",")
			if m.Role == session.RoleToolResult && counts(e) {
				results[m.ToolCallID]++
				if m.IsError {
					errs = append(errs, fmt.Sprintf("line %d %s", e.Line, m.ToolName))
				}
			}
			if u := m.Usage; u != nil {
				ge.Usage = fmt.Sprintf("in %d out %d read %d reasoning %d total %d", u.Input, u.Output, u.CacheRead, u.Reasoning, u.TotalTokens)
			}
		}
		if e.Type == session.TypeCompaction {
			comps = append(comps, fmt.Sprintf("line %d %s under %s, first kept %s, tokens before %d", e.Line, short(e.ID), short(e.ParentID), short(e.FirstKeptEntryID), e.TokensBefore))
		}
		switch {
		case e.DuplicateOf != "" && e.DuplicateOf == e.ID && e.Message != nil && e.Message.Role == session.RoleAssistant && i+2 < len(s.Entries) && s.Entries[i+2].ID == e.ID && counts(&s.Entries[i+2]):
			superseded = append(superseded, fmt.Sprintf("line %d", e.Line))
		case e.DuplicateOf != "":
			copies++
		case e.Replayed:
			replayed++
		default:
			g.Counted[k]++
		}
		if txt := session.EntryText(e); txt != "" {
			ge.TextSHA256 = sha(txt)
		}
		g.ByType[k]++
		g.Entries = append(g.Entries, ge)
	}
	unpaired := []string{}
	for id, name := range calls {
		if results[id] == 0 {
			unpaired = append(unpaired, name)
		}
	}
	sort.Strings(unpaired)
	g.Tools["calls"], g.Tools["results"], g.Tools["callsWithoutResult"], g.Tools["errors"] = len(calls), len(results), unpaired, errs
	g.Marks["copies"], g.Marks["supersededFirstCopies"], g.Marks["replayed"], g.Marks["compactions"], g.Marks["rolledBack"] = copies, superseded, replayed, comps, rolled
	return g
}

func short(id string) string {
	if i := strings.LastIndex(id, "__"); i > 0 {
		return id // a tool call's id: <tool>__<tool>_<ms>_<n>
	}
	if len(id) > 8 && !strings.HasPrefix(id, "L") {
		return id[:8]
	}
	return id
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// TestRealFilesGolden compares the parsed result of each real file with
// testdata/golden/<file>.json (update with -update, review the diff).
func TestRealFilesGolden(t *testing.T) {
	for _, path := range realFiles(t) {
		s := readReal(t, path)
		got, err := json.MarshalIndent(summarize(path, s), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		gp := filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(path), ".jsonl")+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(gp), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gp, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(gp)
		if err != nil {
			t.Fatalf("%v (run go test ./backend/gemini -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (review, then -update)", path, gp)
		}
	}
}
