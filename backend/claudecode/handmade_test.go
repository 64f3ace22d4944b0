package claudecode

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"rhizome/backend/session"
)

func readHandmade(t *testing.T, name string) *Session {
	t.Helper()
	s, err := ReadFile("testdata/handmade/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOlderFormat reads testdata/handmade/older-format.jsonl, written by hand
// after the quirks the spec reports from older and proxied files (see
// testdata/handmade/README.md); every expected value is worked out by hand.
func TestOlderFormat(t *testing.T) {
	s := readHandmade(t, "older-format.jsonl")
	if s.MalformedCount != 0 || s.WarningCount != 0 || len(s.Entries) != 28 {
		t.Fatalf("%d entries, malformed %v, warnings %v", len(s.Entries), s.Malformed, s.Warnings)
	}
	byLine := map[int]*session.Entry{}
	for i := range s.Entries {
		byLine[s.Entries[i].Line] = &s.Entries[i]
	}
	usage := func(line int) *session.Usage {
		e := byLine[line]
		if e == nil || e.Message == nil {
			t.Fatalf("line %d: no message", line)
		}
		return e.Message.Usage
	}

	// §1.6.2: placeholder usage on the lines before the last, no requestId:
	// only the last line of msg_a1 (line 7) counts, with its real usage.
	if usage(4) != nil || usage(5) != nil {
		t.Errorf("§1.6.2: placeholder lines carry usage")
	}
	if u := usage(7); u == nil || u.Input != 24 || u.Output != 310 || u.CacheRead != 24548 {
		t.Errorf("§1.6.2: msg_a1 usage %+v, want in 24 out 310 read 24548", u)
	}
	// §1.5: progressive output tokens: the last line (output 120, two web
	// searches) counts; 1h writes priced apart from 5m writes.
	if usage(9) != nil || usage(10) != nil {
		t.Errorf("§1.5: partial lines of msg_b2 carry usage")
	}
	u := usage(11)
	if u == nil || u.Output != 120 || u.CacheWrite != 1000 || u.CacheWrite5m != 400 || u.CacheWrite1h != 600 || u.WebSearches != 2 {
		t.Fatalf("§1.5: msg_b2 usage %+v", u)
	}
	// Sonnet 4.5, worked by hand: 10*3 + 400*3.75 + 600*6 + 2000*0.3 +
	// 120*15 per Mtok, plus 2 searches at $0.01.
	want := (10*3+400*3.75+600*6+2000*0.3+120*15)/1e6 + 0.02
	if math.Abs(u.Cost.Total-want) > 1e-12 {
		t.Errorf("§1.5: cost %.9f, want %.9f", u.Cost.Total, want)
	}
	// §1.6.1: the tool result between the split lines keeps its call's name.
	if m := byLine[6].Message; m.Role != session.RoleToolResult || m.ToolName != "Read" || m.ToolCallID != "toolu_r1" {
		t.Errorf("§1.6.1: line 6 %+v", m)
	}
	if m := byLine[8].Message; m.Role != session.RoleToolResult || !m.IsError || m.ToolName != "Bash" || string(m.Details) != `"Error: make: *** No rule"` {
		t.Errorf("§1.3: error result %+v", m)
	}
	// §1.3 blocks: image in a prompt, redacted thinking, server tool use.
	if b := byLine[3].Message.Content; len(b) != 2 || b[1].Type != session.BlockImage || b[1].MimeType != "image/png" {
		t.Errorf("§1.3: prompt blocks %+v", b)
	}
	if b := byLine[9].Message.Content; len(b) != 1 || !b[0].Redacted {
		t.Errorf("§1.3: redacted thinking %+v", b)
	}
	if b := byLine[10].Message.Content; len(b) != 2 || b[0].Type != session.BlockToolCall || b[0].Name != "web_search" || b[1].Type != "claude:web_search_tool_result" {
		t.Errorf("§1.3: server tool blocks %+v", b)
	}
	// §1.2: a queued prompt given as a block list is a user message.
	if e := byLine[15]; e.Type != session.TypeMessage || e.Subtype != SubtypeQueued || session.EntryText(e) != "also check CI" {
		t.Errorf("§1.2: queued_command %+v", e)
	}
	// §1.2: progress names its sub-agent; inline sidechain lines.
	if e := byLine[17]; e.Type != TypeProgress || e.SubagentID != "a1b2c3" || e.Subtype != "agent_progress" {
		t.Errorf("§1.2: progress %+v", e)
	}
	if !byLine[18].Sidechain || !byLine[19].Sidechain || byLine[18].ParentID != "" || byLine[20].Sidechain {
		t.Errorf("§1.4: inline sidechain lines")
	}
	// §1.6.7: a line written again with the same uuid is a duplicate, and
	// its usage is not counted again.
	if e := byLine[21]; e.DuplicateOf != e.ID || e.Message.Usage != nil || byLine[20].Message.Usage == nil {
		t.Errorf("§1.6.7: duplicate line 21 %+v", e)
	}
	// §1.4: a prompt under an earlier answer is a rewind; a prompt under
	// the last answer (line 16, through the system and attachment lines) is
	// not; tool results under their own call (line 6 under line 5) are not.
	for line, want := range map[int]bool{3: false, 6: false, 8: false, 16: false, 23: true} {
		if byLine[line].Rewind != want {
			t.Errorf("§1.4: line %d rewind %v, want %v", line, byLine[line].Rewind, want)
		}
	}
	// <synthetic>: no usage, no model count; an API error is stopReason error.
	if m := byLine[24].Message; m.Usage != nil || m.StopReason != "error" || m.ErrorMessage != "API Error: 529 overloaded" {
		t.Errorf("§1.5: synthetic %+v", m)
	}
	// §1.6.7: a dangling parent is kept; a line of another session counted.
	if byLine[25].ParentID != "00000000-0000-4000-8000-000000000999" || s.Metadata.ForeignLines != 1 {
		t.Errorf("§1.6.7: dangling parent %q, foreign lines %d", byLine[25].ParentID, s.Metadata.ForeignLines)
	}
	// Unknown types are kept with their prefix and Raw.
	if e := byLine[27]; e.Type != "claude:future-thing" || !strings.Contains(string(e.Raw), `"shiny":{"new":[1,2,3]}`) {
		t.Errorf("unknown type %+v", e)
	}
	// §1.2 metadata, last one wins: the second ai-title over the first and
	// over the legacy summary.
	m := s.Metadata
	if m.Title != "Fix the slow build" || m.Summary != "Old title from a summary line" || m.LeafUUID != "00000000-0000-4000-8000-000000000021" ||
		m.PermissionMode != "default" || m.LastPrompt != "Try again." || m.Duplicates != 1 || m.Rewinds < 1 {
		t.Errorf("§1.2 metadata %+v", m)
	}
	if got := strings.Join(m.Models, ","); got != "qwen3.7-plus,claude-sonnet-4-5-20250929,claude-haiku-4-5-20251001" {
		t.Errorf("models %s", got)
	}
	// Usage of the whole file: three responses of the main chain (msg_a1,
	// msg_b2, msg_c3) and the sidechain's (msg_s1), once each.
	n := 0
	for _, e := range s.Entries {
		if e.Message != nil && e.Message.Usage != nil {
			n++
		}
	}
	if n != 4 {
		t.Errorf("§1.5: %d responses with usage, want 4", n)
	}
}

// TestSubagentLinks follows the real sub-agent from both ends (§1.4): the
// parent's Agent tool result names the agent, whose transcript's header
// names the parent session and whose sidecar names the Agent call.
func TestSubagentLinks(t *testing.T) {
	for _, fx := range fixtureSets {
		t.Run(fx.Version, func(t *testing.T) { checkSubagentLinks(t, fx) })
	}
}

func checkSubagentLinks(t *testing.T, fx fixtureSet) {
	x := fx.expected(t)
	main := fx.project() + x.Session + ".jsonl"
	s, err := ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	var result *session.Entry
	for i := range s.Entries {
		if s.Entries[i].SubagentID != "" {
			result = &s.Entries[i]
		}
	}
	if result == nil || result.Message.ToolName != "Agent" {
		t.Fatalf("no Agent tool result with a sub-agent id")
	}
	subs, err := Subagents(main)
	if err != nil || len(subs) != 1 {
		t.Fatalf("Subagents: %v %v", subs, err)
	}
	sub := subs[0]
	if sub.AgentID != result.SubagentID || sub.Meta == nil || sub.Meta.ToolUseID != result.Message.ToolCallID || sub.Meta.AgentType != "general-purpose" {
		t.Errorf("link: result %s/%s, file %+v meta %+v", result.SubagentID, result.Message.ToolCallID, sub, sub.Meta)
	}
	ss, err := ReadFile(sub.Path)
	if err != nil {
		t.Fatal(err)
	}
	if ss.Header.ParentSession != x.Session || ss.Header.AgentID != sub.AgentID || ss.Header.ID != "agent-"+sub.AgentID {
		t.Errorf("sub-agent header %+v", ss.Header)
	}
	for _, e := range ss.Entries {
		if !e.Sidechain {
			t.Errorf("sub-agent line %d not a sidechain", e.Line)
		}
	}
	if none, err := Subagents(fx.Home + "/projects/x/no-such-session.jsonl"); err != nil || none != nil {
		t.Errorf("a session without sub-agents: %v %v", none, err)
	}
}

// TestPersistedOutput resolves the real <persisted-output> pointer: the
// recorded path is on the generating machine, the file beside the session
// holds the whole output (seq 1 1500), and the line is left as it is.
func TestPersistedOutput(t *testing.T) {
	for _, fx := range fixtureSets {
		t.Run(fx.Version, func(t *testing.T) { checkPersistedOutput(t, fx) })
	}
}

func checkPersistedOutput(t *testing.T, fx fixtureSet) {
	x := fx.expected(t)
	main := fx.project() + x.Session + ".jsonl"
	s, err := ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i := range s.Entries {
		e := &s.Entries[i]
		raw := string(e.Raw)
		for _, po := range PersistedOutputs(main, e) {
			found++
			if po.Err != nil {
				t.Fatal(po.Err)
			}
			var want strings.Builder
			for k := 1; k <= 1500; k++ {
				want.WriteString(strconv.Itoa(k) + "\n")
			}
			if string(po.Content) != want.String() || !strings.HasPrefix(po.RecordedPath, "/tmp/rhizome-claudecode-fixtures/home/") || !strings.Contains(raw, "<persisted-output>") {
				t.Errorf("persisted output %s: %d bytes, recorded %s", po.Path, len(po.Content), po.RecordedPath)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d persisted outputs, want 1", found)
	}
	// A pointer to a file that is gone: an error naming it, nothing else.
	e := &session.Entry{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleToolResult,
		Content: []session.Block{{Type: session.BlockText, Text: "<persisted-output>\nOutput too large. Full output saved to: /home/x/.claude/projects/p/s/tool-results/gone.txt\n</persisted-output>"}}}}
	pos := PersistedOutputs(main, e)
	if len(pos) != 1 || pos[0].Err == nil || !strings.Contains(pos[0].Err.Error(), "gone.txt") {
		t.Errorf("missing file: %+v", pos)
	}
}

// TestPersistedOutputLookup: a sub-agent transcript's outputs are found in
// its session's tool-results/; a file over MaxPersistedOutputBytes is named
// and sized, not read; a recorded path is only ever a name to look up
// there (never opened itself, nor climbed out of the folder by "..").
func TestPersistedOutputLookup(t *testing.T) {
	dir := t.TempDir()
	sess := filepath.Join(dir, "proj", "s1")
	for _, d := range []string{filepath.Join(sess, "subagents"), filepath.Join(sess, "tool-results")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(sess, "tool-results", "out.txt"), []byte("the whole output\n"), 0o644)
	big, _ := os.Create(filepath.Join(sess, "tool-results", "big.txt"))
	big.Truncate(MaxPersistedOutputBytes + 1)
	big.Close()
	// A named pipe where an output should be: never opened (a read would
	// wait for a writer for ever).
	if err := syscall.Mkfifo(filepath.Join(sess, "tool-results", "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("not the session's"), 0o644)
	result := func(paths ...string) *session.Entry {
		var text strings.Builder
		text.WriteString("<persisted-output>\n")
		for _, p := range paths {
			text.WriteString("Output too large. Full output saved to: " + p + "\n")
		}
		return &session.Entry{Type: session.TypeMessage, Message: &session.Message{Role: session.RoleToolResult,
			Content: []session.Block{{Type: session.BlockText, Text: text.String() + "</persisted-output>"}}}}
	}
	agent := filepath.Join(sess, "subagents", "agent-a1.jsonl")
	pos := PersistedOutputs(agent, result("/home/x/.claude/projects/p/s1/tool-results/out.txt", `C:\Users\x\.claude\projects\p\s1\tool-results\big.txt`))
	if len(pos) != 2 {
		t.Fatalf("%+v", pos)
	}
	if po := pos[0]; po.Err != nil || string(po.Content) != "the whole output\n" || po.Name != "out.txt" || po.Size != 17 ||
		po.Path != filepath.Join(sess, "tool-results", "out.txt") {
		t.Errorf("a sub-agent's output: %+v", po)
	}
	if po := pos[1]; !errors.Is(po.Err, ErrPersistedOutputTooLarge) || po.Content != nil || po.Size != MaxPersistedOutputBytes+1 || po.Name != "big.txt" {
		t.Errorf("an output over the limit: %+v", po)
	}
	for _, p := range []string{secret, "/home/x/.claude/projects/p/s1/tool-results/..", "../../secret.txt", "/x/s1/tool-results/pipe.txt"} {
		for _, po := range PersistedOutputs(filepath.Join(dir, "proj", "s1.jsonl"), result(p)) {
			if po.Content != nil || po.Err == nil {
				t.Errorf("recorded %s: read %q from %s", p, po.Content, po.Path)
			}
		}
	}
}

func TestPriceFor(t *testing.T) {
	for _, c := range []struct {
		model string
		in    float64
		ok    bool
	}{
		{"claude-opus-4-8", 5, true}, {"claude-opus-4-8[1m]", 5, true}, {"claude-opus-4-1-20250805", 15, true},
		{"claude-opus-4-20250514", 15, true}, {"claude-sonnet-4-5-20250929", 3, true}, {"claude-haiku-4-5-20251001", 1, true},
		{"claude-3-5-haiku-20241022", 0.8, true}, {"<synthetic>", 0, false}, {"qwen3.7-plus", 0, false}, {"claude-opus-48", 0, false},
	} {
		p, ok := PriceFor(c.model)
		if ok != c.ok || p.Input != c.in {
			t.Errorf("PriceFor(%q) = %v %v, want %v %v", c.model, p.Input, ok, c.in, c.ok)
		}
	}
	// Opus 5.5, the model Claude Code 2.1.332 uses by default: its own
	// price, not Opus 5's (which its id starts with); cache reads at 0.05x
	// input (platform.claude.com's Opus 5.5 page, and Claude Code 2.1.332's
	// built-in table).
	for _, model := range []string{"claude-opus-5-5", "claude-opus-5-5[1m]"} {
		want := Price{Input: 4, Output: 20, CacheWrite5m: 5, CacheWrite1h: 8, CacheRead: 0.2, WebSearch: 0.01}
		if p, ok := PriceFor(model); !ok || p != want {
			t.Errorf("PriceFor(%q) = %+v %v, want %+v", model, p, ok, want)
		}
	}
}

// TestSubagentBookkeepingLines: from 2.1.332 a sub-agent transcript also
// holds lines off the conversation chain (api-request, api-request-blob,
// api-request-shape: no uuid, no isSidechain, the agentId): they are the
// sub-agent's, so Sidechain like the chain lines around them (the segmenter
// would otherwise cut the transcript at each). A main session's lines off
// the chain carry no agentId and stay off the sidechain.
func TestSubagentBookkeepingLines(t *testing.T) {
	const agent = "a0123456789abcdef"
	chain := func(uuid, parent, typ string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		content := `"review it"`
		if typ == "assistant" {
			content = `[{"type":"text","text":"fine"}],"id":"msg_1","model":"claude-opus-5-5","stop_reason":"end_turn"`
		}
		return `{"parentUuid":` + p + `,"isSidechain":true,"agentId":"` + agent + `","type":"` + typ + `","uuid":"` + uuid + `","sessionId":"` + sess +
			`","cwd":"/w","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"` + typ + `","content":` + content + `}}`
	}
	in := strings.Join([]string{
		chain("u1", "", "user"),
		`{"type":"api-request-blob","sessionId":"` + sess + `","agentId":"` + agent + `","hash":"h1","message":{"role":"system","content":[{"type":"text","text":"x"}]}}`,
		`{"type":"api-request","sessionId":"` + sess + `","agentId":"` + agent + `","id":"r1","timestamp":"2026-01-01T00:00:02.000Z","version":"2.1.332"}`,
		chain("a1", "u1", "assistant"),
	}, "\n") + "\n"
	s, err := Read(strings.NewReader(in), "agent-"+agent+".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Entries) != 4 || s.Header.AgentID != agent {
		t.Fatalf("%d entries, header %+v", len(s.Entries), s.Header)
	}
	for _, e := range s.Entries {
		if !e.Sidechain {
			t.Errorf("line %d (%s): not a sidechain", e.Line, e.Type)
		}
	}
	main, err := Read(strings.NewReader(line("m1", "")+"\n"+`{"type":"api-request","sessionId":"`+sess+`","id":"r2"}`+"\n"), "main.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range main.Entries {
		if e.Sidechain {
			t.Errorf("main session line %d (%s): a sidechain", e.Line, e.Type)
		}
	}
}

// TestForkCopiesDedupe: the real --fork-session file copies lines of the
// session with their uuids (and a new sessionId); DedupeKey finds every
// copy in the original, and what is left is the fork's own turn (§1.4:
// deduplicate by uuid, keep the earliest).
func TestForkCopiesDedupe(t *testing.T) {
	for _, fx := range fixtureSets {
		t.Run(fx.Version, func(t *testing.T) { checkForkCopiesDedupe(t, fx) })
	}
}

func checkForkCopiesDedupe(t *testing.T, fx fixtureSet) {
	x := fx.expected(t)
	dir := fx.project()
	orig, err := ReadFile(dir + x.Session + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fork, err := ReadFile(dir + x.ForkSession + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for i := range orig.Entries {
		if k := DedupeKey(&orig.Entries[i]); k != "" {
			known[k] = true
		}
	}
	var copies, own []string
	for i := range fork.Entries {
		e := &fork.Entries[i]
		k := DedupeKey(e)
		switch {
		case k == "":
		case known[k]:
			copies = append(copies, k)
		case e.Type == session.TypeMessage:
			own = append(own, session.EntryText(e))
		}
	}
	// The fork's own lines: its prompt and the answer (2.1.332 also writes
	// an attachment of its own there).
	if len(copies) < 10 || len(own) != 2 || own[0] != "In a fork: would /ready be a better name?" || !strings.Contains(own[1], "/ready") {
		t.Errorf("fork: %d copies, own entries %q", len(copies), own)
	}
	if fork.Header.ID != x.ForkSession || fork.Metadata.ForeignLines != 0 {
		t.Errorf("fork header %s, foreign lines %d", fork.Header.ID, fork.Metadata.ForeignLines)
	}
}
