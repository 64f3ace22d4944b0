package pisession

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"rhizome/backend/session"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func intPtr(i int) *int { return &i }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// readHandmade reads testdata/handmade/<name> and checks what every file must
// satisfy: no problems, Raw exact at Offset, Seq and Line in order.
func readHandmade(t *testing.T, name string) *Session {
	t.Helper()
	path := filepath.Join("testdata", "handmade", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Malformed)+len(s.Warnings) != 0 || s.Pending != nil {
		t.Fatalf("malformed %v warnings %v pending %v", s.Malformed, s.Warnings, s.Pending)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines)-1 != len(s.Entries) {
		t.Fatalf("%d entries for %d lines after the header", len(s.Entries), len(lines)-1)
	}
	for i := range s.Entries {
		e := &s.Entries[i]
		if e.Seq != i || e.Line != i+2 || !bytes.Equal(e.Raw, lines[i+1]) ||
			!bytes.Equal(data[e.Offset:e.Offset+int64(len(e.Raw))], e.Raw) {
			t.Errorf("entry %d: seq %d line %d offset %d, raw not line %d", i, e.Seq, e.Line, e.Offset, i+2)
		}
	}
	return s
}

// stripPosition clears what readHandmade already checked so the rest can be
// compared with a literal.
func stripPosition(es []session.Entry) []session.Entry {
	out := make([]session.Entry, len(es))
	for i, e := range es {
		e.Seq, e.Line, e.Offset, e.Raw = 0, 0, 0, nil
		out[i] = e
	}
	return out
}

func compareEntries(t *testing.T, got, want []session.Entry) {
	t.Helper()
	got = stripPosition(got)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(want[i])
			t.Errorf("entry %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

func TestV3AllEntryTypesAndRoles(t *testing.T) {
	s := readHandmade(t, "v3-all-types.jsonl")
	ts := func(s string) time.Time { return mustTime(t, "2026-01-05T10:00:"+s+"Z") }
	wantHeader := session.Header{Type: "session", Version: 3, ID: "0b7e3f5c-7a55-4c1e-9d7f-2f9a8c1d4e01",
		Timestamp: "2026-01-05T10:00:00.000Z", Cwd: "/home/ana/rhizome",
		ParentSession: "/home/ana/.pi/agent/sessions/--home-ana-rhizome--/2026-01-04T09-00-00-000Z_5d1c.jsonl"}
	h := s.Header
	h.Raw = nil
	if !reflect.DeepEqual(h, wantHeader) {
		t.Errorf("header = %+v, want %+v", h, wantHeader)
	}
	usage := &session.Usage{Input: 1200, Output: 80, CacheRead: 300, CacheWrite: 50, TotalTokens: 1630,
		Cost: session.Cost{Input: 0.006, Output: 0.002, CacheRead: 0.00015, CacheWrite: 0.0003125, Total: 0.0084625}}
	want := []session.Entry{
		{Type: session.TypeModelChange, ID: "a1000001", Timestamp: ts("00.100"), Provider: "anthropic", ModelID: "claude-opus-4-5"},
		{Type: session.TypeThinkingLevelChange, ID: "a1000002", ParentID: "a1000001", Timestamp: ts("00.200"), ThinkingLevel: "high"},
		{Type: session.TypeMessage, ID: "a1000003", ParentID: "a1000002", Timestamp: ts("01.000"), Message: &session.Message{
			Role: session.RoleUser, Content: []session.Block{{Type: session.BlockText, Text: "Why does the importer drop line 440?"}},
			ContentIsString: true, Timestamp: 1767607201000}},
		{Type: session.TypeMessage, ID: "a1000004", ParentID: "a1000003", Timestamp: ts("05.000"), Message: &session.Message{
			Role: session.RoleAssistant, Content: []session.Block{
				{Type: session.BlockThinking, Thinking: "Line 440 holds two objects."},
				{Type: session.BlockThinking, Thinking: "opaque", Redacted: true},
				{Type: session.BlockText, Text: "Let me look."},
				{Type: session.BlockToolCall, ID: "toolu_01", Name: "bash", Arguments: raw(`{"command":"sed -n 440p session.jsonl","timeout":30}`)},
			},
			Timestamp: 1767607205000, API: "anthropic-messages", Provider: "anthropic", Model: "claude-opus-4-5",
			Usage: usage, StopReason: "toolUse"}},
		{Type: session.TypeMessage, ID: "a1000005", ParentID: "a1000004", Timestamp: ts("06.000"), Message: &session.Message{
			Role: session.RoleToolResult, Content: []session.Block{
				{Type: session.BlockText, Text: "two objects on one line"},
				{Type: session.BlockImage, Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", MimeType: "image/png"},
			},
			Timestamp: 1767607206000, ToolCallID: "toolu_01", ToolName: "bash", IsError: true, Details: raw(`{"exitCode":0}`)}},
		{Type: session.TypeMessage, ID: "a1000006", ParentID: "a1000005", Timestamp: ts("07.000"), Message: &session.Message{
			Role: session.RoleAssistant, Content: []session.Block{}, Timestamp: 1767607207000, API: "openai-responses", Provider: "openai",
			Model: "gpt-5.1-codex", Usage: &session.Usage{}, StopReason: "error", ErrorMessage: "429 rate limited"}},
		{Type: session.TypeMessage, ID: "a1000007", ParentID: "a1000006", Timestamp: ts("08.000"), Message: &session.Message{
			Role: session.RoleBashExecution, Timestamp: 1767607208000, Command: "go test ./...", Output: "ok  rhizome/backend/pisession",
			ExitCode: intPtr(1), Truncated: true, FullOutputPath: "/tmp/pi-bash-1.log", ExcludeFromContext: true}},
		{Type: session.TypeMessage, ID: "a1000008", ParentID: "a1000007", Timestamp: ts("09.000"), Message: &session.Message{
			Role: session.RoleCustom, Content: []session.Block{{Type: session.BlockText, Text: "Run the linter."}}, ContentIsString: true,
			Timestamp: 1767607209000, CustomType: "reminder", Display: true, Details: raw(`{"n":1}`)}},
		{Type: session.TypeCustom, ID: "a1000009", ParentID: "a1000008", Timestamp: ts("10.000"), CustomType: "handoff", Data: raw(`{"to":"reviewer"}`)},
		{Type: session.TypeCustomMessage, ID: "a100000a", ParentID: "a1000009", Timestamp: ts("11.000"), CustomType: "plan",
			Content: []session.Block{{Type: session.BlockText, Text: "Step 1: split lines."},
				{Type: session.BlockImage, Data: "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", MimeType: "image/gif"}},
			Details: raw(`{"steps":1}`)},
		{Type: session.TypeCustomMessage, ID: "a100000b", ParentID: "a100000a", Timestamp: ts("12.000"), CustomType: "note",
			Content: []session.Block{{Type: session.BlockText, Text: "plain string note"}}, ContentIsString: true, Display: true},
		{Type: session.TypeLabel, ID: "a100000c", ParentID: "a100000b", Timestamp: ts("13.000"), TargetID: "a1000004", Label: "first look"},
		{Type: session.TypeLabel, ID: "a100000d", ParentID: "a100000c", Timestamp: ts("14.000"), TargetID: "a1000004"},
		{Type: session.TypeSessionInfo, ID: "a100000e", ParentID: "a100000d", Timestamp: ts("15.000"), Name: "Line 440 investigation"},
		{Type: session.TypeCompaction, ID: "a100000f", ParentID: "a100000e", Timestamp: ts("16.000"), Summary: "Investigated line 440.",
			FirstKeptEntryID: "a1000007", TokensBefore: 150000, Details: raw(`{"readFiles":["session.jsonl"]}`), FromHook: true},
		{Type: session.TypeBranchSummary, ID: "a1000010", ParentID: "a1000003", Timestamp: ts("17.000"), FromID: "a1000003",
			Summary: "Abandoned: tried strict parsing.", Details: raw(`{"modifiedFiles":[]}`)},
		{Type: session.TypeMessage, ID: "a1000011", ParentID: "a1000010", Timestamp: ts("18.000"), Message: &session.Message{
			Role: session.RoleBranchSummary, Summary: "Abandoned: tried strict parsing.", FromID: "a1000003", Timestamp: 1767607218000}},
		{Type: session.TypeMessage, ID: "a1000012", ParentID: "a1000011", Timestamp: ts("19.000"), Message: &session.Message{
			Role: session.RoleCompactionSummary, Summary: "Investigated line 440.", TokensBefore: 150000, Timestamp: 1767607219000}},
		{Type: session.TypeMessage, ID: "a1000013", ParentID: "a1000012", Timestamp: ts("20.000"), Message: &session.Message{
			Role: session.RoleUser, Content: []session.Block{{Type: session.BlockText, Text: "See the screenshot"},
				{Type: session.BlockImage, Data: "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAEklEQVR42mNk", MimeType: "image/png"}},
			Timestamp: 1767607220000}},
		{Type: session.TypeBranchSummary, ID: "a1000014", Timestamp: ts("21.000"), FromID: "root", Summary: "Back to the start."},
		{Type: "future_thing", ID: "a1000015", ParentID: "a1000014", Timestamp: ts("22.000")},
	}
	compareEntries(t, s.Entries, want)

	// The unknown type keeps everything in Raw.
	last := s.Entries[len(s.Entries)-1]
	if !bytes.Contains(last.Raw, []byte(`"payload":{"k":[1,2,3]}`)) {
		t.Errorf("unknown entry lost its payload: %s", last.Raw)
	}
}

func TestV2HookMessageBecomesCustom(t *testing.T) {
	s := readHandmade(t, "v2-hook-message.jsonl")
	if s.Header.Version != 2 {
		t.Errorf("version %d, want 2", s.Header.Version)
	}
	ts := func(s string) time.Time { return mustTime(t, "2025-12-20T08:00:"+s+"Z") }
	compareEntries(t, s.Entries, []session.Entry{
		{Type: session.TypeMessage, ID: "b2000001", Timestamp: ts("01.000"), Message: &session.Message{
			Role: session.RoleUser, Content: []session.Block{{Type: session.BlockText, Text: "hello"}}, Timestamp: 1766217601000}},
		{Type: session.TypeMessage, ID: "b2000002", ParentID: "b2000001", Timestamp: ts("02.000"), Message: &session.Message{
			Role: session.RoleCustom, Content: []session.Block{{Type: session.BlockText, Text: "3 files changed"}}, ContentIsString: true,
			CustomType: "git-status", Display: true, Timestamp: 1766217602000}},
		{Type: session.TypeCompaction, ID: "b2000003", ParentID: "b2000002", Timestamp: ts("03.000"), Summary: "Said hello.",
			FirstKeptEntryID: "b2000002", TokensBefore: 1200},
	})
	// pi migrates only files older than version 3.
	s3 := readHandmade(t, "v3-hook-message.jsonl")
	if r := s3.Entries[0].Message.Role; r != session.RoleHookMessage {
		t.Errorf("version 3 file: role %q, want hookMessage kept as written", r)
	}
}

func TestV1Migration(t *testing.T) {
	s := readHandmade(t, "v1-first-kept-index.jsonl")
	h := s.Header
	if h.Version != 1 || h.Provider != "anthropic" || h.ModelID != "claude-sonnet-4-5" || h.ThinkingLevel != "off" || h.BranchedFrom != "/w/.pi/old.jsonl" {
		t.Errorf("header = %+v", h)
	}
	id := func(seq int) string { return independentID("s1", seq) }
	for i, e := range s.Entries {
		if e.ID != id(i) {
			t.Errorf("entry %d: id %q, want %q", i, e.ID, id(i))
		}
		want := ""
		if i > 0 {
			want = id(i - 1)
		}
		if e.ParentID != want {
			t.Errorf("entry %d: parentId %q, want %q", i, e.ParentID, want)
		}
	}
	for _, c := range []struct {
		seq  int
		want string
	}{
		{2, id(1)}, // index 2 = header, user, assistant: the assistant (Seq 1)
		{3, ""},    // index 0 is the header
		{4, ""},    // index after the compaction: not yet an entry when pi migrates
		{5, id(5)}, // index of the compaction itself: its own id, as pi does
		{6, ""},    // not an integer
	} {
		e := s.Entries[c.seq]
		if e.Type != session.TypeCompaction || e.FirstKeptEntryID != c.want {
			t.Errorf("entry %d (%s, %q): firstKeptEntryId %q, want %q", c.seq, e.Type, e.Summary, e.FirstKeptEntryID, c.want)
		}
	}
	if m := s.Entries[7].Message; m == nil || m.Role != session.RoleCustom || m.CustomType != "h" || !m.ContentIsString {
		t.Errorf("v1 hookMessage not migrated: %+v", m)
	}
	if s.Entries[8].ID == "ignored" {
		t.Errorf("a version 1 entry keeps the id it carries; pi replaces it")
	}
}

func TestEntryText(t *testing.T) {
	s := readHandmade(t, "v3-all-types.jsonl")
	byID := map[string]*session.Entry{}
	for i := range s.Entries {
		byID[s.Entries[i].ID] = &s.Entries[i]
	}
	for _, c := range []struct {
		id, want string
	}{
		{"a1000001", ""},
		{"a1000002", ""},
		{"a1000003", "Why does the importer drop line 440?"},
		{"a1000004", "Line 440 holds two objects.\nLet me look.\nbash\nsed -n 440p session.jsonl\n30"},
		{"a1000005", "two objects on one line"},
		{"a1000006", "429 rate limited"},
		{"a1000007", "go test ./...\nok  rhizome/backend/pisession"},
		{"a1000008", "Run the linter."},
		{"a1000009", ""},
		{"a100000a", "Step 1: split lines."},
		{"a100000b", "plain string note"},
		{"a100000c", "first look"},
		{"a100000d", ""},
		{"a100000e", "Line 440 investigation"},
		{"a100000f", "Investigated line 440."},
		{"a1000010", "Abandoned: tried strict parsing."},
		{"a1000011", "Abandoned: tried strict parsing."},
		{"a1000012", "Investigated line 440."},
		{"a1000013", "See the screenshot"},
		{"a1000015", ""},
	} {
		if got := session.EntryText(byID[c.id]); got != c.want {
			t.Errorf("session.EntryText(%s) = %q, want %q", c.id, got, c.want)
		}
	}
	// No base64 image data, in any entry.
	for i := range s.Entries {
		if txt := session.EntryText(&s.Entries[i]); strings.Contains(txt, "iVBORw0KGgo") || strings.Contains(txt, "R0lGOD") {
			t.Errorf("EntryText of %s holds image data: %q", s.Entries[i].ID, txt)
		}
	}
	// Escapes in tool call arguments come out as the characters they stand for.
	e := &session.Entry{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleAssistant, Content: []session.Block{{Type: session.BlockToolCall, Name: "edit",
		Arguments: raw(`{"path":"a.go","edits":[{"old":"x\ty","new":"\"q\"\n"}],"dry":false,"n":null}`)}}}}
	if got, want := session.EntryText(e), "edit\na.go\nx\ty\n\"q\"\n\nfalse"; got != want {
		t.Errorf("tool call text = %q, want %q", got, want)
	}
}
