package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/* from the real database")

// realHome is what the generator copied from OpenCode 1.18.33's data
// folder (testdata/generate/README.md): opencode.db and tool-output/.
const realHome = "testdata/opencode-home"

// expected is testdata/expected.json, written by the generator: the
// session ids, the runs, and every request its model server answered.
type expected struct {
	Version  string `json:"opencodeVersion"`
	Session  string `json:"session"`
	Second   string `json:"second"`
	Fork     string `json:"fork"`
	Requests []struct {
		N      int      `json:"n"`
		Tools  []string `json:"tools"`
		Prompt string   `json:"prompt"`
		Usage  *struct {
			Total int64 `json:"total_tokens"`
		} `json:"usage"`
	} `json:"requests"`
}

func readExpected(t testing.TB) *expected {
	return sessionlogtest.ReadJSON[expected](t, "testdata/expected.json")
}

// copyHome copies the real data folder into a temporary one (the tests
// never open the committed database) and returns the database's path
// there; without tool-output/ when noOutputs.
func copyHome(t testing.TB, noOutputs bool) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.WalkDir(realHome, func(path string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(realHome, path)
		if noOutputs && strings.HasPrefix(rel, "tool-output") {
			return nil
		}
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "opencode.db")
}

func openDB(t testing.TB, path string) *DB {
	t.Helper()
	d, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// realDocs exports every session of a copy of the real database: id ->
// document, and the session list.
func realDocs(t testing.TB) (map[string][]byte, []SessionInfo) {
	t.Helper()
	d := openDB(t, copyHome(t, false))
	ss, err := d.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	for _, s := range ss {
		doc, err := d.Export(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		docs[s.ID] = doc
	}
	return docs, ss
}

func parse(t testing.TB, doc []byte, name string) *Parsed {
	t.Helper()
	p, err := ParseDocument(doc, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// TestRealSessions: the list is every session the generator's runs made
// (README "What each run covers"): the main one, its sub-agent, the second
// one and its fork, oldest first, with the change marker from
// event_sequence.
func TestRealSessions(t *testing.T) {
	x := readExpected(t)
	_, ss := realDocs(t)
	var ids []string
	byID := map[string]SessionInfo{}
	for _, s := range ss {
		ids = append(ids, s.ID)
		byID[s.ID] = s
	}
	if len(ss) != 4 || ids[0] != x.Session || ids[2] != x.Second || ids[3] != x.Fork {
		t.Fatalf("sessions %v, want %s, its sub-agent, %s, %s", ids, x.Session, x.Second, x.Fork)
	}
	child := ss[1]
	if child.ParentID != x.Session || child.Agent != "general" || child.Title != "Review notes.go (@general subagent)" {
		t.Errorf("sub-agent session %+v", child)
	}
	if s := byID[x.Session]; s.Title != "main.go size and routes" || s.Directory != "/tmp/rhizome-opencode-fixtures/work/notes-api" ||
		s.Version != x.Version || s.Change.Seq != 190 || s.Change.Updated != s.Updated || s.Change.String() != fmt.Sprintf("u%d.s190", s.Updated) {
		t.Errorf("main session %+v", s)
	}
	if f := byID[x.Fork]; f.ParentID != "" || f.Title != "Release notes (fork #1)" {
		t.Errorf("fork %+v: OpenCode leaves no parent_id on a fork", f)
	}
}

// TestRealGolden compares each session's document (Export) and its read
// (ParseDocument) with testdata/golden/<id>.export.json and
// <id>.parsed.json (update with -update, review the diff).
func TestRealGolden(t *testing.T) {
	docs, ss := realDocs(t)
	for _, s := range ss {
		doc := docs[s.ID]
		gp := filepath.Join("testdata", "golden", s.ID+".export.json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(gp), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gp, doc, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(gp)
		if err != nil {
			t.Fatalf("%v (run go test ./backend/opencode -update to create it)", err)
		}
		if !bytes.Equal(doc, want) {
			t.Errorf("the export of %s differs from %s (review, then -update)", s.ID, gp)
		}
		p := parse(t, doc, s.ID+".json")
		sessionlogtest.CheckGolden(t, s.ID, filepath.Join("testdata", "golden", s.ID+".parsed.json"), digest(doc, p), *update)
	}
}

// entryDigest is one entry as the golden files show it.
type entryDigest struct {
	Seq        int    `json:"seq"`
	Line       int    `json:"line"`
	Type       string `json:"type"`
	ID         string `json:"id"`
	Turn       string `json:"turn,omitempty"`
	Subtype    string `json:"subtype,omitempty"`
	Role       string `json:"role,omitempty"`
	Custom     string `json:"customType,omitempty"`
	Model      string `json:"model,omitempty"`
	Stop       string `json:"stop,omitempty"`
	Error      string `json:"error,omitempty"`
	Blocks     string `json:"blocks,omitempty"`
	Tool       string `json:"tool,omitempty"`
	IsError    bool   `json:"isError,omitempty"`
	Details    string `json:"details,omitempty"` // its keys
	Usage      string `json:"usage,omitempty"`
	Summary    string `json:"summary,omitempty"`
	TokensBef  int64  `json:"tokensBefore,omitempty"`
	Subagent   string `json:"subagent,omitempty"`
	Duplicate  string `json:"duplicateOf,omitempty"`
	Replayed   bool   `json:"replayed,omitempty"`
	Sidechain  bool   `json:"sidechain,omitempty"`
	Text       string `json:"text,omitempty"` // EntryText, first 100 runes
	TextSHA    string `json:"textSha,omitempty"`
	Fingerprnt string `json:"fingerprint"`
}

// parsedDigest is a document's read as the golden files show it.
type parsedDigest struct {
	Header    *session.Header   `json:"header"`
	Meta      Metadata          `json:"meta"`
	Problems  []session.Problem `json:"problems"`
	Subagents []Subagent        `json:"subagents,omitempty"`
	Fork      *Fork             `json:"fork,omitempty"`
	Pending   []string          `json:"pending,omitempty"`
	Entries   []entryDigest     `json:"entries"`
}

func digest(doc []byte, p *Parsed) parsedDigest {
	g := parsedDigest{Header: p.Header, Meta: p.Meta, Problems: p.Problems, Subagents: p.Subagents, Fork: p.Fork, Pending: p.Pending}
	if g.Problems == nil {
		g.Problems = []session.Problem{}
	}
	for i := range p.Entries {
		e := &p.Entries[i]
		d := entryDigest{Seq: e.Seq, Line: e.Line, Type: e.Type, ID: e.ID, Turn: e.TurnID, Subtype: e.Subtype,
			Summary: clip(e.Summary), TokensBef: e.TokensBefore, Subagent: e.SubagentID, Duplicate: e.DuplicateOf,
			Replayed: e.Replayed, Sidechain: e.Sidechain, Fingerprnt: Fingerprint(e)}
		if m := e.Message; m != nil {
			d.Role, d.Custom, d.Model, d.Stop, d.Error, d.Tool, d.IsError = m.Role, m.CustomType, strings.TrimPrefix(m.Provider+"/"+m.Model, "/"), m.StopReason, clip(m.ErrorMessage), m.ToolName, m.IsError
			var bs []string
			for _, b := range m.Content {
				s := b.Type
				if b.Name != "" {
					s += ":" + b.Name
				}
				bs = append(bs, s)
			}
			d.Blocks = strings.Join(bs, " ")
			if u := m.Usage; u != nil {
				d.Usage = fmt.Sprintf("in %d out %d (reasoning %d) cache read %d write %d total %d, $%g", u.Input, u.Output, u.Reasoning, u.CacheRead, u.CacheWrite, u.TotalTokens, u.Cost.Total)
			}
			if len(m.Details) > 0 {
				var det map[string]json.RawMessage
				_ = json.Unmarshal(m.Details, &det)
				var keys []string
				for k, v := range det {
					if k == "fullOutput" || k == "fullOutputBytes" || k == "status" {
						keys = append(keys, k+"="+strings.Trim(string(v), `"`))
					} else {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				d.Details = strings.Join(keys, " ")
			}
		}
		if txt := session.EntryText(e); txt != "" {
			d.Text, d.TextSHA = clip(txt), sessionlogtest.TextHash(txt)
		}
		g.Entries = append(g.Entries, d)
	}
	return g
}

// clip is s's first 100 runes.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 100 {
		return s
	}
	return string([]rune(s)[:100]) + "…"
}

// TestRealEntriesAtTheirRows: every entry's Raw is the document at its
// Offset and on its Line, a JSON object, and its id is unique; every
// message row of the database is an entry (package comment, "Entries").
func TestRealEntriesAtTheirRows(t *testing.T) {
	docs, ss := realDocs(t)
	for _, s := range ss {
		doc := docs[s.ID]
		p := parse(t, doc, s.ID)
		if len(p.Problems) != 0 || len(p.Pending) != 0 {
			t.Errorf("%s: problems %v pending %v", s.ID, p.Problems, p.Pending)
		}
		seen := map[string]bool{}
		for i, e := range p.Entries {
			end := e.Offset + int64(len(e.Raw))
			if e.Seq != i || end > int64(len(doc)) || !bytes.Equal(doc[e.Offset:end], e.Raw) || !json.Valid(e.Raw) || e.Raw[0] != '{' && e.Raw[0] != '[' {
				t.Fatalf("%s: entry %d (%s): Raw is not the document at offset %d", s.ID, i, e.ID, e.Offset)
			}
			if line := bytes.Count(doc[:e.Offset], []byte("\n")) + 1; line != e.Line {
				t.Errorf("%s: entry %s on line %d, its offset is on line %d", s.ID, e.ID, e.Line, line)
			}
			if e.ID == "" || seen[e.ID] {
				t.Errorf("%s: entry %d: id %q empty or repeated", s.ID, i, e.ID)
			}
			seen[e.ID] = true
		}
		var rows struct {
			Messages []struct {
				ID string `json:"id"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(doc, &rows); err != nil {
			t.Fatal(err)
		}
		for _, m := range rows.Messages {
			if !seen[m.ID] {
				t.Errorf("%s: message row %s has no entry", s.ID, m.ID)
			}
		}
	}
}

// TestRealStructure checks what each run made (README "What each run
// covers") against the entries, a run at a time.
func TestRealStructure(t *testing.T) {
	x := readExpected(t)
	docs, ss := realDocs(t)
	child := ss[1].ID
	main := parse(t, docs[x.Session], "main")
	byID := map[string]*session.Entry{}
	for i := range main.Entries {
		byID[main.Entries[i].ID] = &main.Entries[i]
	}
	var compactions, requests []*session.Entry
	var parallel, reasoning bool
	for i := range main.Entries {
		e := &main.Entries[i]
		switch e.Type {
		case session.TypeCompaction:
			compactions = append(compactions, e)
		case TypeCompactionRequest:
			requests = append(requests, e)
		}
		if m := e.Message; m != nil && m.Role == session.RoleAssistant {
			calls := 0
			for _, b := range m.Content {
				calls += map[bool]int{true: 1}[b.Type == session.BlockToolCall]
				reasoning = reasoning || b.Type == session.BlockThinking && b.Thinking != ""
			}
			parallel = parallel || calls == 2
		}
	}
	// Run 1: reasoning and two parallel tool calls in one response.
	if !parallel || !reasoning {
		t.Errorf("run 1: parallel calls %v, reasoning %v", parallel, reasoning)
	}
	// Run 2: todowrite, a tool error, an edit with its diff, a truncated
	// output whose full text is in tool-output/.
	if e := byID["prt_23b475b24001X9SWvUpQnzjeAS"]; e == nil || !e.Message.IsError || e.Message.ToolName != "read" ||
		!strings.Contains(session.EntryText(e), "File not found") {
		t.Errorf("run 2: the read of a missing file is no error result: %+v", e)
	}
	if e := byID["prt_23b475e750019amdGFv2oHewSY"]; e == nil || !bytes.Contains(e.Message.Details, []byte(`"diff":"Index:`)) {
		t.Errorf("run 2: the edit's result has no diff")
	}
	if e := byID["prt_23b47608d001tb1wZ74hcDdQNF"]; e == nil ||
		!bytes.Contains(e.Message.Details, []byte(`"fullOutput":"tool-output/tool_23b476179001rXepi4vDLtz8PR","fullOutputBytes":8400`)) {
		t.Errorf("run 2: the truncated output's file is not named: %s", e.Message.Details)
	}
	var doc struct {
		Messages []struct {
			Files []struct {
				Text *string `json:"text"`
			} `json:"files"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(docs[x.Session], &doc)
	for _, m := range doc.Messages {
		for _, f := range m.Files {
			if f.Text == nil || strings.Count(*f.Text, "200\n") != 2100 {
				t.Errorf("run 2: the full output in the document is not the 2100 lines the command printed")
			}
		}
	}
	if e := main.Entries[len(main.Entries)-1]; e.Type != TypeTodos || main.Meta.Todos != 2 || !bytes.Contains(e.Data, []byte("Add /health to main.go")) {
		t.Errorf("run 2: the todo list: %+v", e)
	}
	// Run 3: a sub-agent in a child session; an automatic compaction and
	// its synthetic "Continue".
	if len(main.Subagents) != 1 || main.Subagents[0].Session != child || byID[main.Subagents[0].EntryID].SubagentID != child {
		t.Errorf("run 3: sub-agent links %+v, want the child %s", main.Subagents, child)
	}
	if len(compactions) != 2 || len(requests) != 2 || requests[0].Subtype != "auto" || compactions[0].Subtype != "auto" ||
		compactions[0].TokensBefore != 120408 || !strings.HasPrefix(compactions[0].Summary, "## Goal") || compactions[0].ParentID != requests[0].ID {
		t.Errorf("run 3: compaction %+v after %+v", compactions, requests)
	}
	if e := main.Entries[compactions[0].Seq+1]; e.Message == nil || e.Message.CustomType != CustomContinue {
		t.Errorf("run 3: no synthetic continue after the compaction: %+v", e)
	}
	// Run 5: an API error on the assistant message.
	if e := byID["msg_23b47a1f90017kMK9tCk85bcMQ"]; e == nil || e.Message.StopReason != "error" ||
		e.Message.ErrorMessage != "APIError: Invalid 'messages[3].tool_calls[0].id': string too long." {
		t.Errorf("run 5: %+v", e.Message)
	}
	// Run 6: an overflow compaction; the prompt sent again is a copy.
	if requests[1].Subtype != "overflow" || compactions[1].Subtype != "overflow" {
		t.Errorf("run 6: compaction %s after %s", compactions[1].Subtype, requests[1].Subtype)
	}
	if e := main.Entries[compactions[1].Seq+1]; e.DuplicateOf != "msg_23b47b27500163tJ28Kpo3RBC6" {
		t.Errorf("run 6: the replayed prompt is not marked: %+v", e)
	}
	// The sub-agent's session.
	sub := parse(t, docs[child], "child")
	if sub.Header.ParentSession != x.Session || sub.Header.AgentID != child {
		t.Errorf("sub-agent header %+v", sub.Header)
	}
	for _, e := range sub.Entries {
		if !e.Sidechain {
			t.Errorf("sub-agent entry %s not Sidechain", e.ID)
		}
	}
	// Run 7: a given title and an attached file.
	second := parse(t, docs[x.Second], "second")
	if second.Meta.Title != "Release notes" || second.Entries[0].Message.Content[2].Type != BlockFile ||
		second.Entries[0].Message.Content[2].Name != "CHANGELOG.md" {
		t.Errorf("run 7: %+v %+v", second.Meta, second.Entries[0].Message.Content)
	}
	// Run 8: the fork, linked to the second session, its copies Replayed.
	fork := parse(t, docs[x.Fork], "fork")
	if fork.Header.ParentSession != x.Second || fork.Fork == nil || fork.Fork.Point != second.Entries[1].ID || fork.Fork.Copied != 2 ||
		!fork.Entries[0].Replayed || !fork.Entries[1].Replayed || fork.Entries[2].Replayed || fork.Meta.Prompts != 1 || fork.Meta.Responses != 1 {
		t.Errorf("run 8: fork %+v %+v", fork.Header, fork.Fork)
	}
}

// TestRealUsage holds the usage read against what the model server
// reported (expected.json): every request but the title requests (no
// tools, not a compaction) is one response or compaction counted, with
// OpenCode's total tokens; the sessions' cost is OpenCode's own total but
// for the fork's copies.
func TestRealUsage(t *testing.T) {
	x := readExpected(t)
	docs, ss := realDocs(t)
	var want, got []int64
	for _, r := range x.Requests {
		title := len(r.Tools) == 0 && !strings.HasPrefix(r.Prompt, "Here is the conversation so far")
		if r.Usage != nil && !title {
			want = append(want, r.Usage.Total)
		}
	}
	for _, s := range ss {
		p := parse(t, docs[s.ID], s.ID)
		for i := range p.Entries {
			e := &p.Entries[i]
			var tok *wireTokens
			switch {
			case e.Replayed:
				continue
			case e.Type == session.TypeCompaction:
				var m struct {
					Data wireMessage `json:"data"`
				}
				_ = json.Unmarshal(e.Raw, &m)
				tok = m.Data.Tokens
			case e.Message != nil && e.Message.Usage != nil:
				if u := e.Message.Usage; u.TotalTokens > 0 {
					got = append(got, u.TotalTokens)
				}
				continue
			}
			if tok != nil {
				got = append(got, tok.usage(0).TotalTokens)
			}
		}
		if s.ID != x.Fork && fmt.Sprintf("%.9f", p.Meta.Cost) != fmt.Sprintf("%.9f", p.Meta.SessionCost) {
			t.Errorf("%s: cost %v, OpenCode's %v", s.ID, p.Meta.Cost, p.Meta.SessionCost)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("total tokens per response %v, the server's %v", got, want)
	}
}

// TestRealStableIdentity: two exports of the same state are the same
// bytes; after OpenCode appends a turn, a re-read gives the earlier
// entries again with their ids and fingerprints, and new ids only for
// the new rows (what a re-read writes).
func TestRealStableIdentity(t *testing.T) {
	x := readExpected(t)
	path := copyHome(t, false)
	d := openDB(t, path)
	ctx := context.Background()
	a, err := d.Export(ctx, x.Second)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := d.Export(ctx, x.Second); !bytes.Equal(a, b) {
		t.Fatal("two exports of the same state differ")
	}
	before := map[string]string{}
	for i, e := range parse(t, a, "before").Entries {
		before[e.ID] = Fingerprint(&parse(t, a, "before").Entries[i])
	}
	w := writer(t, path, "")
	appendTurn(t, w, x.Second, "msg_zzzz00000001", "prt_zzzz00000001", 1796290999000)
	after := parse(t, mustExport(t, d, x.Second), "after")
	var fresh []string
	for i := range after.Entries {
		e := &after.Entries[i]
		fp, ok := before[e.ID]
		switch {
		case !ok:
			fresh = append(fresh, e.ID)
		case fp != Fingerprint(e):
			t.Errorf("entry %s changed though its rows did not", e.ID)
		}
	}
	if strings.Join(fresh, ",") != "msg_zzzz00000001" {
		t.Errorf("new entries %v, want the appended message only", fresh)
	}
}

func mustExport(t testing.TB, d *DB, id string) []byte {
	t.Helper()
	doc, err := d.Export(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestExportMatchesRows: Export holds each row's columns with the values
// sqlite3 gives (read back through JSON), JSON text columns as JSON.
func TestExportMatchesRows(t *testing.T) {
	x := readExpected(t)
	path := copyHome(t, false)
	d := openDB(t, path)
	var doc struct {
		Session  map[string]json.RawMessage   `json:"session"`
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(mustExport(t, d, x.Session), &doc); err != nil {
		t.Fatal(err)
	}
	w := writer(t, path, "")
	var title, model string
	var created int64
	if err := w.QueryRow(`SELECT title, model, time_created FROM session WHERE id = ?`, x.Session).Scan(&title, &model, &created); err != nil {
		t.Fatal(err)
	}
	if string(doc.Session["title"]) != `"`+title+`"` || string(doc.Session["model"]) != model || string(doc.Session["time_created"]) != fmt.Sprint(created) ||
		string(doc.Session["parent_id"]) != "null" {
		t.Errorf("session row %s %s %s %s", doc.Session["title"], doc.Session["model"], doc.Session["time_created"], doc.Session["parent_id"])
	}
	var n int
	_ = w.QueryRow(`SELECT count(*) FROM message WHERE session_id = ?`, x.Session).Scan(&n)
	if len(doc.Messages) != n {
		t.Fatalf("%d messages exported, %d rows", len(doc.Messages), n)
	}
	for _, m := range doc.Messages {
		var id string
		_ = json.Unmarshal(m["id"], &id)
		var data string
		if err := w.QueryRow(`SELECT data FROM message WHERE id = ?`, id).Scan(&data); err != nil {
			t.Fatal(err)
		}
		if string(m["data"]) != data {
			t.Errorf("message %s: data %s, stored %s", id, m["data"], data)
		}
	}
}
