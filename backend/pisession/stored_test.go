package pisession

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/session"
)

// See pi-brain-node-model.md, "Fork Edges", corrected by ERRATA.md: a parent
// not found by path or file name is found by the id in its file name.
func TestSessionUUID(t *testing.T) {
	for in, want := range map[string]string{
		"2026-01-12T09-00-00-000Z_019bb16e-fe80-72b5-af2e-7d405d44d120.jsonl": "019bb16e-fe80-72b5-af2e-7d405d44d120",
		"plain.jsonl": "plain",
		"a_b_c":       "c",
		"":            "",
	} {
		if got := SessionUUID(in); got != want {
			t.Errorf("SessionUUID(%q) = %q, want %q", in, got, want)
		}
	}
}

// ERRATA.md, "The pi session format": version 1 forks name their parent in
// branchedFrom, later versions in parentSession.
func TestHeaderParent(t *testing.T) {
	for _, tt := range []struct {
		header string
		want   string
	}{
		{`{"type":"session","id":"a","timestamp":"t","cwd":"/","branchedFrom":"/s/old.jsonl"}`, "/s/old.jsonl"},
		{`{"type":"session","version":3,"id":"a","timestamp":"t","cwd":"/","parentSession":"/s/p.jsonl"}`, "/s/p.jsonl"},
		{`{"type":"session","version":3,"id":"a","timestamp":"t","cwd":"/","parentSession":"/s/p.jsonl","branchedFrom":"/s/q.jsonl"}`, "/s/p.jsonl"},
		{`{"type":"session","version":3,"id":"a","timestamp":"t","cwd":"/"}`, ""},
	} {
		h, err := NewReader(strings.NewReader(tt.header+"\n"), "h.jsonl").Header()
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Parent(); got != tt.want {
			t.Errorf("Parent of %s = %q, want %q", tt.header, got, tt.want)
		}
	}
}

// Entries decoded from what the library stores (the header and each entry's
// raw object) are those the import read from the file: the same ids
// (version 1 synthetic ids continue from the first stored entry), parents
// and content, for a page anywhere in the file.
func TestDecodeStored(t *testing.T) {
	files := []string{filepath.Join("testdata", "handmade", "v3-all-types.jsonl"),
		filepath.Join("testdata", "handmade", "v1-first-kept-index.jsonl")}
	for _, rs := range realSessions {
		files = append(files, realPath(rs.name))
	}
	for _, path := range files {
		s, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := len(s.Entries)
		for _, page := range [][2]int{{0, min(n, 100)}, {n / 2, min(n, n/2+7)}, {n - 1, n}} {
			var raws [][]byte
			for _, e := range s.Entries[page[0]:page[1]] {
				raws = append(raws, e.Raw)
			}
			got, err := DecodeStored(s.Header.Raw, path, page[0], raws)
			if err != nil {
				t.Fatalf("%s %v: %v", path, page, err)
			}
			if len(got) != len(raws) {
				t.Fatalf("%s %v: %d entries, want %d", path, page, len(got), len(raws))
			}
			for i, e := range got {
				want := s.Entries[page[0]+i]
				e.Line, e.Offset, want.Line, want.Offset = 0, 0, 0, 0
				if !reflect.DeepEqual(*e, want) {
					a, _ := json.Marshal(e)
					b, _ := json.Marshal(want)
					t.Errorf("%s entry %d decoded from the store as\n%s\nread from the file as\n%s", path, want.Seq, a, b)
				}
			}
		}
	}

	s, _ := ReadFile(realPath("large-session"))
	if _, err := DecodeStored(s.Header.Raw, "large.jsonl", 7, [][]byte{s.Entries[7].Raw, []byte(`{"type":`)}); err == nil ||
		!strings.Contains(err.Error(), "entry 8 of large.jsonl") {
		t.Errorf("a damaged stored entry: %v, want an error naming entry 8 of the file", err)
	}
	if _, err := DecodeStored([]byte(`{"type":`), "large.jsonl", 0, [][]byte{s.Entries[0].Raw}); err == nil ||
		!strings.Contains(err.Error(), "header of large.jsonl") {
		t.Errorf("a damaged stored header: %v, want an error naming the header", err)
	}
	if got, err := DecodeStored(nil, "x", 0, nil); got != nil || err != nil {
		t.Errorf("no entries: %v, %v", got, err)
	}
}

// ViewEntry: every entry type and message role as a person reads it (ERRATA.md,
// "The pi session format").
func TestViewEntry(t *testing.T) {
	const header = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-05T10:00:00.000Z","cwd":"/p"}`
	for _, tt := range []struct {
		name  string
		entry string
		want  session.View
	}{
		{"user text", `{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":"hello"}}`,
			session.View{Role: "user", Blocks: []session.ViewBlock{{Type: "text", Text: "hello"}}}},
		{"assistant blocks and error", `{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hm"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"a"}},{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"future"}],"stopReason":"error","errorMessage":"overloaded"}}`,
			session.View{Role: "assistant", Model: "m", IsError: true, Blocks: []session.ViewBlock{{Type: "thinking", Text: "hm"},
				{Type: "toolCall", Name: "read", Arguments: `{"path":"a"}`}, {Type: "image", MimeType: "image/png", Data: "AAAA"},
				{Type: "future"}, {Type: "text", Text: "overloaded"}}}},
		{"tool result", `{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"file"}],"isError":true}}`,
			session.View{Role: "toolResult", ToolName: "read", IsError: true, Blocks: []session.ViewBlock{{Type: session.ViewToolResult, Text: "file"}}}},
		{"bash execution", `{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"bashExecution","command":"ls <x>","output":"a","exitCode":2}}`,
			session.View{Role: "bashExecution", ToolName: "bash", IsError: true, Blocks: []session.ViewBlock{
				{Type: "toolCall", Name: "bash", Arguments: `{"command":"ls \u003cx\u003e"}`}, {Type: session.ViewToolResult, Name: "bash", Text: "a"}}}},
		{"branch summary message", `{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"branchSummary","summary":"went left","fromId":"x"}}`,
			session.View{Role: "branchSummary", Summary: "went left", Blocks: []session.ViewBlock{}}},
		{"compaction", `{"type":"compaction","id":"1","parentId":null,"timestamp":"t","summary":"so far","firstKeptEntryId":"0","tokensBefore":5}`,
			session.View{Summary: "so far", Blocks: []session.ViewBlock{}}},
		{"custom message", `{"type":"custom_message","id":"1","parentId":null,"timestamp":"t","customType":"k","content":"note","display":true}`,
			session.View{Blocks: []session.ViewBlock{{Type: "text", Text: "note"}}}},
		{"custom", `{"type":"custom","id":"1","parentId":null,"timestamp":"t","customType":"k","data":{"a":1}}`,
			session.View{Blocks: []session.ViewBlock{{Type: "text", Name: "k", Text: `{"a":1}`}}}},
		{"label", `{"type":"label","id":"1","parentId":null,"timestamp":"t","targetId":"0","label":"here"}`,
			session.View{Blocks: []session.ViewBlock{{Type: "text", Text: "here"}}}},
		{"session info", `{"type":"session_info","id":"1","parentId":null,"timestamp":"t","name":"Moss"}`,
			session.View{Blocks: []session.ViewBlock{{Type: "text", Text: "Moss"}}}},
		{"model change", `{"type":"model_change","id":"1","parentId":null,"timestamp":"t","provider":"anthropic","modelId":"claude"}`,
			session.View{Model: "anthropic/claude", Blocks: []session.ViewBlock{}}},
		{"thinking level", `{"type":"thinking_level_change","id":"1","parentId":null,"timestamp":"t","thinkingLevel":"high"}`,
			session.View{Blocks: []session.ViewBlock{{Type: "text", Text: "thinking level: high"}}}},
		{"unknown type", `{"type":"future_thing","id":"1","parentId":null,"timestamp":"t"}`, session.View{Blocks: []session.ViewBlock{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(header+"\n"+tt.entry+"\n"), "v.jsonl")
			if err != nil || len(s.Entries) != 1 {
				t.Fatalf("%v, %d entries, malformed %+v", err, len(s.Entries), s.Malformed)
			}
			if got := session.ViewEntry(&s.Entries[0]); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ViewEntry = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
