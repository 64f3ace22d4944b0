package cline

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/session"
	"rhizome/backend/sessiondoc"
	"rhizome/backend/sessionlog/sessionlogtest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the real sessions")

// The real sessions: Cline CLI 3.0.65 run against the scripted server
// (testdata/generate/README.md; testdata/expected.json says what each run
// did).
const home = "testdata/cline-home"

// Session ids (expected.json "sessions").
const (
	first    = "1796293572120_9cho8"
	agent    = "agent_1796293579109_125i2q"
	auto     = "1796293583446_al2g5"
	failed   = "1796293589712_off95"
	overflow = "1796293597420_flkpe"
	acp      = "1796293604352_IAYDJ_cli"
)

func realDocs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(home, "sessions", "*", "*"+MessagesSuffix))
	if err != nil || len(files) != 6 {
		t.Fatalf("%d conversations: %v", len(files), err)
	}
	return files
}

func docPath(id string) string { return filepath.Join(home, "sessions", id, id+MessagesSuffix) }

// readReal reads a real conversation as the import does: what lies beside
// it and its row of the index.
func readReal(t testing.TB, path string) *sessiondoc.Doc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(b, path, realSide(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// realSide is what lies beside a real conversation, with its row of the
// index.
func realSide(t testing.TB, path string) Side {
	t.Helper()
	rows, err := ReadIndex(context.Background(), filepath.Join(home, "db", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	side := SideOf(path)
	id, _, _ := strings.Cut(filepath.Base(path), ".")
	if !strings.HasPrefix(id, "agent_") {
		if r, ok := rows[id]; ok {
			side.Row = &r
		}
	} else if r, ok := rows[filepath.Base(filepath.Dir(path))+"__"+id]; ok {
		side.Row = &r
	}
	return side
}

// golden is what a real conversation reads as: the header, title, models,
// and per entry what the mapping says (texts as hashes).
type golden struct {
	Header   session.Header    `json:"header"`
	Title    string            `json:"title"`
	Models   []string          `json:"models"`
	Problems []session.Problem `json:"problems"`
	Entries  []goldenEntry     `json:"entries"`
}

type goldenEntry struct {
	Key          string         `json:"key"`
	Type         string         `json:"type"`
	ID           string         `json:"id"`
	Parent       string         `json:"parent,omitempty"`
	Turn         string         `json:"turn,omitempty"`
	Line         int            `json:"line"`
	Offset       int64          `json:"offset"`
	Time         string         `json:"time,omitempty"`
	Role         string         `json:"role,omitempty"`
	Blocks       []string       `json:"blocks,omitempty"`
	Model        string         `json:"model,omitempty"`
	Provider     string         `json:"provider,omitempty"`
	Usage        *session.Usage `json:"usage,omitempty"`
	Stop         string         `json:"stop,omitempty"`
	Error        string         `json:"error,omitempty"`
	Tool         string         `json:"tool,omitempty"`
	Call         string         `json:"call,omitempty"`
	IsError      bool           `json:"isError,omitempty"`
	Subagent     string         `json:"subagent,omitempty"`
	Sidechain    bool           `json:"sidechain,omitempty"`
	Summary      string         `json:"summary,omitempty"`
	FirstKept    string         `json:"firstKept,omitempty"`
	TokensBefore int64          `json:"tokensBefore,omitempty"`
}

func summarize(d *sessiondoc.Doc) golden {
	g := golden{Header: d.Header, Title: d.Title, Models: d.Models, Problems: d.Problems}
	for _, it := range d.Items {
		e := it.Entry
		ge := goldenEntry{Key: it.Key, Type: e.Type, ID: e.ID, Parent: e.ParentID, Turn: e.TurnID, Line: e.Line, Offset: e.Offset,
			Subagent: e.SubagentID, Sidechain: e.Sidechain, FirstKept: e.FirstKeptEntryID, TokensBefore: e.TokensBefore}
		if !e.Timestamp.IsZero() {
			ge.Time = e.Timestamp.Format(time.RFC3339Nano)
		}
		if e.Summary != "" {
			ge.Summary = sessionlogtest.TextHash(e.Summary) + " " + firstWords(e.Summary)
		}
		if m := e.Message; m != nil {
			ge.Role, ge.Model, ge.Provider, ge.Usage, ge.Stop = m.Role, m.Model, m.Provider, m.Usage, m.StopReason
			ge.Tool, ge.Call, ge.IsError, ge.Error = m.ToolName, m.ToolCallID, m.IsError, m.ErrorMessage
			for _, b := range m.Content {
				s := b.Type
				switch b.Type {
				case session.BlockText:
					s += " " + sessionlogtest.TextHash(b.Text) + " " + firstWords(b.Text)
				case session.BlockThinking:
					s += " " + sessionlogtest.TextHash(b.Thinking)
				case session.BlockToolCall:
					s += " " + b.Name + " " + b.ID + " " + sessionlogtest.TextHash(string(b.Arguments))
				}
				ge.Blocks = append(ge.Blocks, s)
			}
		}
		g.Entries = append(g.Entries, ge)
	}
	return g
}

// firstWords is the start of a text, for a person reading the golden file.
func firstWords(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 48 {
		return string(r[:48]) + "…"
	}
	return s
}

// Each real conversation reads as its golden file, testdata/golden/<name>.json
// (go test ./backend/cline -update rewrites them; review the diff).
func TestRealFilesGolden(t *testing.T) {
	for _, f := range realDocs(t) {
		d := readReal(t, f)
		name := strings.TrimSuffix(filepath.Base(f), MessagesSuffix) + ".json"
		sessionlogtest.CheckGolden(t, f, filepath.Join("testdata", "golden", name), summarize(d), *update)
	}
}

// Every message is one entry whose Raw is the document's bytes at its Offset
// (on its Line), in order; none is left out; the compactions sit where Cline
// compacted (README "Compaction"), their Raw the compaction document whole.
func TestRealFilesPositions(t *testing.T) {
	for _, f := range realDocs(t) {
		b, _ := os.ReadFile(f)
		d := readReal(t, f)
		var all struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatal(err)
		}
		msgs, comps := 0, 0
		var last int64 = -1
		for i, it := range d.Items {
			e := it.Entry
			if e.Type == session.TypeCompaction {
				comps++
				if side := SideOf(f); !bytes.Equal(e.Raw, side.Compaction) {
					t.Errorf("%s item %d: a compaction's Raw is not the compaction document", f, i)
				}
				continue
			}
			msgs++
			if e.Offset <= last || !bytes.Equal(b[e.Offset:e.Offset+int64(len(e.Raw))], e.Raw) || e.Line != sessiondoc.LineOf(b, e.Offset) {
				t.Errorf("%s item %d: Raw is not the document at byte %d (line %d)", f, i, e.Offset, e.Line)
			}
			last = e.Offset
		}
		if msgs != len(all.Messages) || len(d.Problems) != 0 {
			t.Errorf("%s: %d entries for %d messages, problems %v", f, msgs, len(all.Messages), d.Problems)
		}
		want := map[string]int{auto: 1, overflow: 1}[d.Header.ID]
		if comps != want {
			t.Errorf("%s: %d compactions, want %d", f, comps, want)
		}
	}
	d := readReal(t, docPath(auto))
	if e := d.Items[7].Entry; e.Type != session.TypeCompaction || d.Items[6].Entry.ID != "msg_6NqKgXFb" || e.FirstKeptEntryID != "msg_yGO0USPC" ||
		e.TokensBefore != 776 || !strings.HasPrefix(e.Summary, "## Goal\nPublish release notes for 0.3.0.") {
		t.Errorf("automatic compaction %+v after %s", e, d.Items[6].Entry.ID)
	}
	d = readReal(t, docPath(overflow))
	if e := d.Items[3].Entry; e.Type != session.TypeCompaction || e.TokensBefore != 6000 || !strings.Contains(e.Summary, "Earlier context was compacted") ||
		strings.Contains(e.Summary, "<user_input") || d.Items[4].Entry.ID != "msg_mPT2Q65n" {
		t.Errorf("overflow compaction %+v", e)
	}
}

// The usage of a root session's responses adds up to what its manifest
// reports (README: inputTokens = Σ prompt tokens, cached ones included).
func TestUsageAgainstTheManifest(t *testing.T) {
	for _, id := range []string{first, auto, failed, overflow, acp} {
		d := readReal(t, docPath(id))
		var man struct {
			Metadata struct {
				Usage struct {
					InputTokens, OutputTokens, CacheReadTokens int64
				} `json:"usage"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(d.Record, &man); err != nil {
			t.Fatal(err)
		}
		var in, out, cached int64
		for _, it := range d.Items {
			if m := it.Entry.Message; m != nil && m.Usage != nil {
				in += m.Usage.Input + m.Usage.CacheRead
				out += m.Usage.Output
				cached += m.Usage.CacheRead
			}
		}
		u := man.Metadata.Usage
		if in != u.InputTokens || out != u.OutputTokens || cached != u.CacheReadTokens || in == 0 && id != failed {
			t.Errorf("%s: responses %d in (%d cached), %d out; the manifest %+v", id, in, cached, out, u)
		}
	}
}

// Every tool result answers a call made before it, with the tool's name;
// the failures Cline records without is_error (a command that exits 1, a
// missing file, an edit whose text is not found) and the call plan mode
// rejected are errors; the spawn_agent result names the sub-agent whose
// conversation lies beside it; the API error is an error response.
func TestToolResults(t *testing.T) {
	errs := map[string]int{}
	for _, f := range realDocs(t) {
		d := readReal(t, f)
		calls := map[string]string{}
		for _, it := range d.Items {
			m := it.Entry.Message
			if m == nil {
				continue
			}
			for _, b := range m.Content {
				if b.Type == session.BlockToolCall {
					calls[b.ID] = b.Name
				}
			}
			if m.Role == session.RoleToolResult {
				if calls[m.ToolCallID] != m.ToolName || m.ToolName == "" || len(m.Content) == 0 {
					t.Errorf("%s %s: result of %s %q, the call was %q", f, it.Entry.ID, m.ToolCallID, m.ToolName, calls[m.ToolCallID])
				}
				if m.IsError {
					errs[d.Header.ID+" "+m.ToolName]++
				}
				if m.ToolName == "spawn_agent" && it.Entry.SubagentID != agent {
					t.Errorf("spawn_agent result names sub-agent %q", it.Entry.SubagentID)
				}
			}
			if m.StopReason == "error" && (d.Header.ID != failed || !strings.Contains(m.ErrorMessage, "string too long")) {
				t.Errorf("%s: error response %+v", f, m)
			}
		}
	}
	want := map[string]int{first + " read_files": 1, first + " run_commands": 1, first + " editor": 1, acp + " editor": 1}
	if len(errs) != len(want) {
		t.Errorf("errors %v, want %v", errs, want)
	}
	for k, n := range want {
		if errs[k] != n {
			t.Errorf("errors %v, want %v", errs, want)
		}
	}
}

// The sub-agent's conversation is a child of its root session's, all
// sidechain, titled by its index row; the prompts lose their <user_input>
// wrapper; the header of a root session comes from its manifest.
func TestHeaders(t *testing.T) {
	d := readReal(t, filepath.Join(home, "sessions", first, agent+MessagesSuffix))
	h := d.Header
	if h.ID != first+"__"+agent || h.AgentID != agent || h.ParentSession != first || h.Cwd != "/tmp/rhizome-cline-fixtures/work/notes-api" ||
		h.Timestamp != "2026-12-03T10:26:19.112Z" || d.Title != "Review notes.go: is the error from w.Write handled?" {
		t.Errorf("sub-agent %+v %q", h, d.Title)
	}
	for _, it := range d.Items {
		if !it.Entry.Sidechain {
			t.Errorf("sub-agent entry %s not sidechain", it.Entry.ID)
		}
	}
	d = readReal(t, docPath(acp))
	if h := d.Header; h.ID != acp || h.Provider != "openai-compatible" || h.ModelID != "scripted-coder" || h.AgentVersion != "3.0.65" ||
		d.Title != "Plan how to add tests for listNotes; do not change anything yet." {
		t.Errorf("ACP session %+v %q", h, d.Title)
	}
	if m := d.Items[0].Entry.Message; m.Role != session.RoleUser || m.Content[0].Text != "Plan how to add tests for listNotes; do not change anything yet." {
		t.Errorf("prompt %+v", m)
	}
	// A conversation alone (dropped on the window: no manifest, no index
	// row) starts when its first message was written, not when the
	// document was last updated.
	b, err := os.ReadFile(docPath(first))
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Read(b, "alone", Side{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := alone.Header.Timestamp, alone.Items[0].Entry.Timestamp.Format("2006-01-02T15:04:05.000Z"); got != want {
		t.Errorf("a conversation alone starts %s, its first message %s", got, want)
	}
}

// Every entry's Raw decodes alone (what the import stores) into the entry
// the whole read gave, but for what other messages said.
func TestDecodeStored(t *testing.T) {
	for _, f := range realDocs(t) {
		d := readReal(t, f)
		raws := make([][]byte, len(d.Items))
		for i, it := range d.Items {
			raws[i] = it.Entry.Raw
		}
		got, err := DecodeStored(d.Header, f, 0, raws)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range d.Items {
			w, g := it.Entry, got[i]
			if g.Seq != i || g.Type != w.Type || g.ID != w.ID || g.Sidechain != w.Sidechain || g.Summary != w.Summary || (i > 0 && g.ParentID != w.ParentID) {
				t.Errorf("%s entry %d: decodes alone as %s %s, read as %s %s", f, i, g.Type, g.ID, w.Type, w.ID)
			}
			if w.Message != nil {
				gm, wm := g.Message, w.Message
				if gm.Role != wm.Role || gm.ToolName != wm.ToolName || gm.IsError != wm.IsError || len(gm.Content) != len(wm.Content) || gm.Model != wm.Model {
					t.Errorf("%s entry %d: message %+v, read as %+v", f, i, gm, wm)
				}
			}
		}
	}
}

// The index is read without changing it (read-only, no journal or log
// left), one row per root session and sub-agent.
func TestReadIndexReadOnly(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "sessions.db")
	orig, err := os.ReadFile(filepath.Join(home, "db", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, orig, 0o444); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadIndex(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(db)
	left, _ := filepath.Glob(db + "-*")
	if len(rows) != 6 || !bytes.Equal(after, orig) || len(left) != 0 {
		t.Errorf("%d rows, changed %v, left %v", len(rows), !bytes.Equal(after, orig), left)
	}
	if r := rows[first+"__"+agent]; !r.IsSubagent || r.ParentSessionID != first || r.AgentID != agent || r.Title() == "" {
		t.Errorf("sub-agent row %+v", r)
	}
	if _, err := ReadIndex(context.Background(), filepath.Join(dir, "none.db")); err == nil || !strings.Contains(err.Error(), "none.db") {
		t.Errorf("no index: %v", err)
	}
}

// The files beside a conversation map to it: a change of the manifest or
// the compaction is a change of its reading.
func TestDocumentFor(t *testing.T) {
	for in, want := range map[string]string{
		filepath.Join(home, "sessions", auto, auto+".json"):            docPath(auto),
		filepath.Join(home, "sessions", auto, auto+".compaction.json"): docPath(auto),
		filepath.Join(home, "sessions", auto, "other.json"):            "",
		docPath(auto): "",
	} {
		if got, ok := DocumentFor(in); got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}
