package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"rhizome/app"
	"rhizome/backend/pisession/pitest"
	"rhizome/store"
)

// mcpLibrary is a library holding the real sample sessions (their offline
// knowledge with them).
func mcpLibrary(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "library.db")
	if _, code := importJSON(t, db, pitest.SamplesDir()); code != 0 {
		t.Fatalf("import exit status %d", code)
	}
	return db
}

// connectMCP starts `rhizome mcp args...` as a process of its own (this test
// binary as the command) and connects the SDK's real client to it over
// stdio.
func connectMCP(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "rhizome-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: rhizomeCmd(append([]string{"mcp"}, args...)...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and decodes its structured content into out.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCPServer drives `rhizome mcp` with the official SDK's client over
// stdio on a library of the real sessions: the tools are listed; search finds
// the offline knowledge and segments; record makes an agent's decision and
// fact, which get, project_rules, search and the resource template read back;
// open_questions lists a recorded open question and not an answered one;
// recent_work lists the newest segments.
func TestMCPServer(t *testing.T) {
	db := mcpLibrary(t)
	cs := connectMCP(t, "--db", db)
	ctx := context.Background()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"search", "get", "project_rules", "open_questions", "recent_work", "record"} {
		if !contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if inst := cs.InitializeResult().Instructions; !strings.Contains(inst, "open_questions only") {
		t.Errorf("instructions: %q", inst)
	}

	// The offline rules found "Use rgb values in the themes, no rgb indices."
	// in large-session (a convention of that project).
	var found struct {
		Items []struct {
			URI, Kind, Title, Project, KnowledgeKind, CreatedBy string
		}
	}
	callTool(t, cs, "search", map[string]any{"query": "rgb values"}, &found)
	if len(found.Items) == 0 || found.Items[0].Kind != "knowledge" || found.Items[0].KnowledgeKind != "projectFact" ||
		!strings.Contains(found.Items[0].Title, "rgb values") || found.Items[0].CreatedBy != "offline" {
		t.Fatalf("search rgb values: %+v", found.Items)
	}
	project := found.Items[0].Project
	var segs struct{ Items []struct{ URI, Kind string } }
	callTool(t, cs, "search", map[string]any{"query": "theme", "kinds": []string{"node", "entry"}, "limit": 5}, &segs)
	if len(segs.Items) == 0 || !strings.HasPrefix(segs.Items[0].URI, "rhizome:") {
		t.Fatalf("search theme in sessions: %+v", segs.Items)
	}
	// Session hits come from the hybrid search: each says why, and its
	// filters apply (only the user's messages here).
	var user struct {
		Items []struct {
			URI, Kind string
			Why       []struct {
				Component    string
				Contribution float64
			}
		}
	}
	callTool(t, cs, "search", map[string]any{"query": "theme colors", "kinds": []string{"entry"}, "roles": []string{"user"}, "limit": 5}, &user)
	if len(user.Items) == 0 {
		t.Fatal("search theme colors in the user's messages: nothing")
	}
	for _, h := range user.Items {
		var got struct{ Entry struct{ Role string } }
		callTool(t, cs, "get", map[string]any{"uri": h.URI}, &got)
		if h.Kind != "entry" || got.Entry.Role != "user" || len(h.Why) == 0 || h.Why[0].Contribution <= 0 {
			t.Errorf("a user-message hit: %+v, role %q", h, got.Entry.Role)
		}
	}
	if res := callTool(t, cs, "search", map[string]any{"query": "theme", "kinds": []string{"entry"}, "from": "last tuesday"}, nil); !res.IsError ||
		!strings.Contains(toolText(res), "filter.from") {
		t.Errorf("an unreadable date: isError %v, %s", res.IsError, toolText(res))
	}
	for _, h := range segs.Items {
		var got struct{ Kind string }
		if res := callTool(t, cs, "get", map[string]any{"uri": h.URI}, &got); res.IsError || got.Kind != h.Kind {
			t.Errorf("get %s: %s %+v", h.URI, toolText(res), got)
		}
	}

	var rec struct {
		ID, URI, CreatedBy, Kind string
		Confidence               float64
	}
	res := callTool(t, cs, "record", map[string]any{"kind": "decision", "project": project, "confidence": 0.8,
		"fields": map[string]any{"description": "Themes are JSON files validated at load", "rationale": "invalid themes must never explode"}}, &rec)
	if res.IsError || rec.CreatedBy != "agent" || rec.Confidence != 0.8 || rec.Kind != "decision" {
		t.Fatalf("record: %s %+v", toolText(res), rec)
	}
	var fact struct{ ID string }
	callTool(t, cs, "record", map[string]any{"kind": "fact", "project": project, "confidence": 0.7,
		"fields": map[string]any{"fact": "Run npm run check before committing", "category": "workflow"}}, &fact)
	var lesson struct{ Kind, CreatedBy, Title string }
	if res := callTool(t, cs, "record", map[string]any{"kind": "lesson", "project": project, "confidence": 0.6,
		"fields": map[string]any{"summary": "Reload the theme after editing it", "level": "project"}}, &lesson); res.IsError ||
		lesson.Kind != "lesson" || lesson.CreatedBy != "agent" || !strings.Contains(lesson.Title, "Reload the theme") {
		t.Errorf("record a lesson: %s %+v", toolText(res), lesson)
	}
	callTool(t, cs, "record", map[string]any{"kind": "question", "project": project,
		"fields": map[string]any{"question": "Should themes support light and dark variants?"}}, nil)
	callTool(t, cs, "record", map[string]any{"kind": "question", "project": project,
		"fields": map[string]any{"question": "Which port does the dev server use?", "answer": "5173"}}, nil)

	var got struct {
		Kind      string
		Knowledge struct {
			Item struct{ ID, CreatedBy, Title string }
		}
	}
	callTool(t, cs, "get", map[string]any{"uri": rec.URI}, &got)
	if got.Kind != "knowledge" || got.Knowledge.Item.ID != rec.ID || got.Knowledge.Item.CreatedBy != "agent" {
		t.Fatalf("get %s: %+v", rec.URI, got)
	}
	// An agent states a supersession with record's supersedes (a URI).
	var newer struct{ ID, URI string }
	callTool(t, cs, "record", map[string]any{"kind": "decision", "project": project, "confidence": 0.9, "supersedes": rec.URI,
		"reason": "schemas catch typos", "fields": map[string]any{"description": "Themes are JSON files checked against a JSON Schema at load"}}, &newer)
	var chain struct {
		Knowledge struct {
			Chain []struct{ ID, Status, ReplacedBecause string }
		}
	}
	callTool(t, cs, "get", map[string]any{"uri": rec.URI}, &chain)
	if c := chain.Knowledge.Chain; len(c) != 2 || c[0].ID != newer.ID || c[1].ID != rec.ID || c[1].Status != "superseded" || c[1].ReplacedBecause != "schemas catch typos" {
		t.Fatalf("chain after an agent's supersession: %+v", c)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: rec.URI})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Themes are JSON files") {
		t.Fatalf("read resource %s: %+v, %v", rec.URI, rr, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rhizome:knowledge/01ARZ3NDEKTSV4RRFFQ69G5FAV"}); err == nil {
		t.Error("reading an unknown knowledge item gave no error")
	}

	rules := callTool(t, cs, "project_rules", map[string]any{"project": project}, nil)
	md := toolText(rules)
	if !strings.HasPrefix(md, "## Project Rules") || !strings.Contains(md, "- Run npm run check before committing") ||
		!strings.Contains(md, "- Use rgb values in the themes, no rgb indices.") || strings.Contains(md, "light and dark") {
		t.Fatalf("project_rules:\n%s", md)
	}
	var qs struct{ Items []struct{ Title string } }
	callTool(t, cs, "open_questions", map[string]any{"project": project, "topic": "themes"}, &qs)
	if len(qs.Items) != 1 || !strings.Contains(qs.Items[0].Title, "light and dark") {
		t.Fatalf("open_questions: %+v", qs.Items)
	}
	var work struct {
		Items []struct{ URI, Summary, Timestamp string }
	}
	callTool(t, cs, "recent_work", map[string]any{"project": project, "limit": 3}, &work)
	if len(work.Items) != 3 || work.Items[0].Summary == "" || work.Items[0].Timestamp < work.Items[2].Timestamp {
		t.Fatalf("recent_work: %+v", work.Items)
	}

	// A bad URI or an unknown kind is a tool error naming what is wrong.
	if res := callTool(t, cs, "get", map[string]any{"uri": "rhizome:nothing/x"}, nil); !res.IsError || !strings.Contains(toolText(res), "nothing") {
		t.Errorf("get of a bad URI: %+v %s", res.IsError, toolText(res))
	}
	if res := callTool(t, cs, "record", map[string]any{"kind": "rumour", "fields": map[string]any{}}, nil); !res.IsError || !strings.Contains(toolText(res), "rumour") {
		t.Errorf("record of an unknown kind: %s", toolText(res))
	}
	if res := callTool(t, cs, "record", map[string]any{"kind": "decision", "fields": map[string]any{}}, nil); !res.IsError || !strings.Contains(toolText(res), "decision.description") {
		t.Errorf("record of an empty decision: %s", toolText(res))
	}
}

// TestMCPReadOnly: with --read-only, reading works and record refuses, and
// the library file is not written.
func TestMCPReadOnly(t *testing.T) {
	db := mcpLibrary(t)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMCP(t, "--db", db, "--read-only")
	var found struct{ Items []struct{ URI string } }
	callTool(t, cs, "search", map[string]any{"query": "rgb values"}, &found)
	if len(found.Items) == 0 {
		t.Fatal("search found nothing in read-only mode")
	}
	res := callTool(t, cs, "record", map[string]any{"kind": "decision", "fields": map[string]any{"description": "Write something"}}, nil)
	if !res.IsError || !strings.Contains(toolText(res), "read-only") {
		t.Fatalf("record in read-only mode: isError %v, %s", res.IsError, toolText(res))
	}
	cs.Close()
	after, _ := os.ReadFile(db)
	if !bytes.Equal(before, after) {
		t.Error("the library file changed in read-only mode")
	}
}

// TestMCPMalformedRequests writes raw lines to `rhizome mcp`'s stdin: a line
// that is not JSON gets a JSON-RPC parse error (the SDK's own stdio reader
// would end the session there: mcpFrames answers it instead), JSON that is
// not a JSON-RPC message and a batch "invalid request", an unknown method
// "method not found", a tool call with arguments of the wrong type an error; the
// server answers a valid request afterwards, so none of them crashed it.
func TestMCPMalformedRequests(t *testing.T) {
	db := mcpLibrary(t)
	cmd := rhizomeCmd("mcp", "--db", db)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	type reply struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	recv := func(what string) reply {
		t.Helper()
		ch := make(chan bool, 1)
		go func() { ch <- lines.Scan() }()
		select {
		case ok := <-ch:
			if !ok {
				t.Fatalf("%s: the server closed stdout (%v); stderr: %s", what, lines.Err(), stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no reply", what)
		}
		var r reply
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			t.Fatalf("%s: reply %q: %v", what, lines.Text(), err)
		}
		return r
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := recv("initialize"); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":`) // cut short
	if r := recv("a line that is not JSON"); r.Error == nil || r.Error.Code != -32700 {
		t.Fatalf("a line that is not JSON: %+v", r)
	}
	send(`{"hello":"world","id":7}`)
	if r := recv("JSON that is not JSON-RPC"); r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "7" {
		t.Fatalf("JSON that is not JSON-RPC: %+v id %s", r.Error, r.ID)
	}
	send(`[{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`)
	if r := recv("a batch"); r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("a batch: %+v", r)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`)
	if r := recv("an unknown method"); r.Error == nil || r.Error.Code != -32601 {
		t.Fatalf("an unknown method: %+v", r)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":42}}}`)
	if r := recv("a wrongly typed argument"); r.Error == nil && !strings.Contains(string(r.Result), `"isError":true`) {
		t.Fatalf("a wrongly typed argument: %s", r.Result)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`)
	if r := recv("an unknown tool"); r.Error == nil && !strings.Contains(string(r.Result), `"isError":true`) {
		t.Fatalf("an unknown tool: %s", r.Result)
	}
	send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"rgb values"}}}`)
	r := recv("a valid call after the bad ones")
	if r.Error != nil || !strings.Contains(string(r.Result), "rgb values") {
		t.Fatalf("a valid call after the bad ones: %+v %s; stderr: %s", r.Error, r.Result, stderr.String())
	}
	if string(r.ID) != "6" {
		t.Fatalf("reply id %s, want 6", r.ID)
	}
	stdin.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("rhizome mcp exited with %v after stdin closed; stderr: %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rhizome mcp did not exit after stdin closed")
	}
}

// TestRulesCommand prints a project's rules as Markdown and JSON, and refuses
// an unknown format.
func TestRulesCommand(t *testing.T) {
	db := mcpLibrary(t)
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"rules", "--db", db, "--project", "/Users/badlogic/workspaces/pi-mono"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	md := out.String()
	if !strings.HasPrefix(md, "## Project Rules") || !strings.Contains(md, "### Conventions\n- Use rgb values in the themes, no rgb indices.") ||
		!strings.Contains(md, "### Constraints\n") || strings.Contains(md, "?") {
		t.Fatalf("rules:\n%s", md)
	}
	out.Reset()
	if code := run(context.Background(), []string{"rules", "--db", db, "--project", "/Users/badlogic/workspaces/pi-mono", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rs struct {
		Markdown string
		Groups   []struct {
			Category string
			Rules    []struct{ Fact, CreatedBy string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil || len(rs.Groups) == 0 || rs.Markdown != md {
		t.Fatalf("json %s: %v", out.String(), err)
	}
	if code := run(context.Background(), []string{"rules", "--db", db, "--format", "yaml"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "yaml") {
		t.Fatalf("--format yaml: exit %d, %s", code, errb.String())
	}
}

// `rhizome mcp` runs for as long as the agent does, while the window's
// background queue makes vectors for what it imports: a search uses the
// vectors the library holds now, not those it held when the server started.
func TestMCPSearchUsesVectorsSavedSinceStart(t *testing.T) {
	// Imported by the command line without waiting for the derivation: no
	// vectors yet, and the sessions still being analysed (issue 25).
	db := filepath.Join(t.TempDir(), "library.db")
	if _, code := importJSON(t, db, "--no-wait", pitest.SamplesDir()); code != 0 {
		t.Fatalf("import exit status %d", code)
	}
	cs := connectMCP(t, "--db", db)
	var first struct{ Note string }
	callTool(t, cs, "search", map[string]any{"query": "theme colors"}, &first)
	if !strings.HasPrefix(first.Note, "3 sessions are still being analysed") {
		t.Errorf("search's note while the sessions are analysed: %q", first.Note)
	}
	type hits struct {
		Note  string
		Items []struct {
			URI string
			Why []struct {
				Component string
				Value     float64
			}
		}
	}
	vectorShare := func() (with, all int) {
		var h hits
		callTool(t, cs, "search", map[string]any{"query": "theme colors", "kinds": []string{"node", "entry"}, "limit": 10}, &h)
		for _, it := range h.Items {
			all++
			for _, w := range it.Why {
				if w.Component == "vector" && w.Value > 0 {
					with++
				}
			}
		}
		return with, all
	}
	if with, all := vectorShare(); all == 0 || with != 0 {
		t.Fatalf("before any vectors: %d of %d hits have a vector component", with, all)
	}

	// The window opens the library and its queue makes the vectors.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	win := app.New(st, db)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := win.Complete(ctx, nil); err != nil { // the derivation, then the vectors
		t.Fatal(err)
	}
	st.Close()

	if with, all := vectorShare(); with == 0 {
		t.Errorf("after the window saved vectors: %d of %d hits have a vector component", with, all)
	}
	var after struct{ Note string }
	if callTool(t, cs, "search", map[string]any{"query": "theme colors"}, &after); after.Note != "" {
		t.Errorf("search's note once every session is analysed: %q", after.Note)
	}
}

// `get` and the resources read every kind of item a rhizome: URI names
// (issue 11 §3: "get (any rhizome: URI)"): a session, a segment node, an
// entry, a project, a knowledge item, a loom tree and one of its nodes, a
// note, a reasoning graph and one of its nodes, from a library opened
// read-only; a URL is refused by name.
func TestMCPGetEveryKind(t *testing.T) {
	db := mcpLibrary(t)
	if _, code := importJSON(t, db, "../backend/memobrain/testdata/example_snapshot.json"); code != 0 {
		t.Fatalf("import of a MemoBrain snapshot: exit status %d", code)
	}
	// A loom tree with a branch, and a note on a session, made as the
	// window makes them.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(st, db)
	tv, err := a.Loom.CreateTree(app.LoomTreeSpec{Title: "Moss", Mode: "dialogue", RootText: "Tell me about moss."})
	if err != nil {
		t.Fatal(err)
	}
	answer, err := a.Loom.AddNode(tv.Tree.ID, tv.Tree.RootNodeID, "Moss holds water like a sponge.")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Loom.AddNode(tv.Tree.ID, tv.Tree.RootNodeID, "Moss has no roots."); err != nil {
		t.Fatal(err)
	}
	if err := a.Loom.SetActivePath(tv.Tree.ID, app.ActivePath{NodeID: answer.ID}); err != nil {
		t.Fatal(err)
	}
	sessions, err := a.Library.Sessions("")
	if err != nil || len(sessions) == 0 {
		t.Fatalf("sessions %v %v", sessions, err)
	}
	sess := sessions[0]
	timeline, err := a.Library.Timeline(sess.ID)
	if err != nil || len(timeline) == 0 {
		t.Fatalf("timeline %v %v", timeline, err)
	}
	nodeURI := "rhizome:node/" + timeline[0].NodeID
	note, err := a.Notes.Put("rhizome:session/"+sess.ID, "Read this one **first**.")
	if err != nil {
		t.Fatal(err)
	}
	graphs, err := a.Reasoning.List()
	if err != nil || len(graphs) != 1 {
		t.Fatalf("reasoning graphs %v %v", graphs, err)
	}
	rg, err := a.Reasoning.Open(graphs[0].ID)
	if err != nil || len(rg.Nodes) < 2 {
		t.Fatalf("reasoning graph %+v %v", rg.Info, err)
	}
	st.Close()

	cs := connectMCP(t, "--db", db, "--read-only")
	var hits struct{ Items []struct{ URI, Kind string } }
	callTool(t, cs, "search", map[string]any{"query": "rgb values"}, &hits)
	var knowledgeURI, entryURI string
	for _, h := range hits.Items {
		switch {
		case h.Kind == "knowledge" && knowledgeURI == "":
			knowledgeURI = h.URI
		case h.Kind == "entry" && entryURI == "":
			entryURI = h.URI
		}
	}
	if knowledgeURI == "" || entryURI == "" {
		t.Fatalf("search hits %+v: want a knowledge item and an entry", hits.Items)
	}
	reasoningNode := rg.Nodes[len(rg.Nodes)-1]

	type item struct {
		Kind    string
		Session *struct {
			Session  struct{ ID string }
			Segments []struct{ NodeID string }
		}
		Node      *struct{ Node struct{ ID string } }
		Entry     *struct{ ID, Role string }
		Project   *struct{ Path string }
		Knowledge *struct{ Item struct{ ID string } }
		LoomTree  *struct {
			Tree   struct{ Title string }
			Path   []struct{ URI, Author, Text string }
			Leaves int
		}
		LoomNode *struct {
			Node struct{ ID, Text string }
			Path []struct{ Text string }
		}
		Note      *struct{ URI, Item, Markdown string }
		Reasoning *struct {
			Info  struct{ ID string }
			Nodes []struct{ URI string }
		}
		ReasoningNode *struct {
			Node    struct{ URI, Text string }
			Parents []string
		}
	}
	treeURI := "rhizome:loom/" + tv.Tree.ID
	for _, c := range []struct {
		uri, kind string
		check     func(it item) bool
	}{
		{"rhizome:session/" + sess.ID, "session", func(it item) bool {
			return it.Session != nil && it.Session.Session.ID == sess.ID && len(it.Session.Segments) > 0
		}},
		{nodeURI, "node", func(it item) bool { return it.Node != nil && "rhizome:node/"+it.Node.Node.ID == nodeURI }},
		{entryURI, "entry", func(it item) bool { return it.Entry != nil && it.Entry.ID != "" }},
		{"rhizome:project/" + url.PathEscape(sess.Project), "project", func(it item) bool { return it.Project != nil && it.Project.Path == sess.Project }},
		{knowledgeURI, "knowledge", func(it item) bool {
			return it.Knowledge != nil && "rhizome:knowledge/"+it.Knowledge.Item.ID == knowledgeURI
		}},
		{treeURI, "loom", func(it item) bool {
			if it.LoomTree == nil {
				return false
			}
			p := it.LoomTree.Path
			return it.LoomTree.Tree.Title == "Moss" && it.LoomTree.Leaves == 2 && len(p) == 2 &&
				p[0].Text == "Tell me about moss." && p[1].Text == "Moss holds water like a sponge." && p[1].Author == "human"
		}},
		{treeURI + "/" + answer.ID, "loomNode", func(it item) bool {
			return it.LoomNode != nil && it.LoomNode.Node.ID == answer.ID && len(it.LoomNode.Path) == 2 &&
				it.LoomNode.Path[0].Text == "Tell me about moss."
		}},
		{note.URI, "note", func(it item) bool {
			return it.Note != nil && it.Note.URI == note.URI && it.Note.Item == "rhizome:session/"+sess.ID && it.Note.Markdown == "Read this one **first**."
		}},
		{rg.Info.URI, "reasoning", func(it item) bool {
			return it.Reasoning != nil && it.Reasoning.Info.ID == rg.Info.ID && len(it.Reasoning.Nodes) == len(rg.Nodes)
		}},
		{reasoningNode.URI, "reasoningNode", func(it item) bool {
			return it.ReasoningNode != nil && it.ReasoningNode.Node.URI == reasoningNode.URI && it.ReasoningNode.Node.Text == reasoningNode.Text &&
				len(it.ReasoningNode.Parents) > 0
		}},
	} {
		var got item
		if res := callTool(t, cs, "get", map[string]any{"uri": c.uri}, &got); res.IsError || got.Kind != c.kind || !c.check(got) {
			t.Errorf("get %s (%s): %s %+v", c.uri, c.kind, toolText(res), got)
		}
		rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: c.uri})
		if err != nil || len(rr.Contents) != 1 {
			t.Errorf("read resource %s: %+v %v", c.uri, rr, err)
			continue
		}
		var read item
		if err := json.Unmarshal([]byte(rr.Contents[0].Text), &read); err != nil || read.Kind != c.kind || !c.check(read) {
			t.Errorf("resource %s: %v %s", c.uri, err, rr.Contents[0].Text)
		}
	}
	if res := callTool(t, cs, "get", map[string]any{"uri": treeURI + "/no-such-node"}, nil); !res.IsError || !strings.Contains(toolText(res), "not found") {
		t.Errorf("get of a node not in the tree: %s", toolText(res))
	}
	if res := callTool(t, cs, "get", map[string]any{"uri": "https://example.com/x"}, nil); !res.IsError || !strings.Contains(toolText(res), "cannot be read") {
		t.Errorf("get of a URL: %s", toolText(res))
	}
}
