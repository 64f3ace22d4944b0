package app

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/store"
)

// sessionNodes returns the node ids of a session in segment order.
func sessionNodes(t *testing.T, l *testLib, sessionID string) []string {
	t.Helper()
	tl, err := l.Library.Timeline(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range tl {
		ids = append(ids, s.NodeID)
	}
	return ids
}

// allEntries reads every entry of a node's segment, page by page (limit
// entries a page; 0 the default).
func allEntries(t *testing.T, l *testLib, nodeID string, limit ...int) []EntryView {
	t.Helper()
	var out []EntryView
	for {
		p, err := l.Library.SegmentEntries(nodeID, len(out), append(limit, 0)[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Entries...)
		if len(p.Entries) == 0 || len(out) >= p.Total {
			return out
		}
	}
}

// A segment's entries come a page at a time: every page says the segment's
// total, pages of the default size follow each other without gap or
// overlap, a limit over the maximum is cut to it, and past the end is an
// empty page. The largest segment of the real sessions (691 entries) is
// seven pages.
func TestSegmentEntriesPaged(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	nodeID := sessionNodes(t, l, sessionIDOf(t, filepath.Join("samples", "large-session.jsonl")))[0]
	d, err := l.Graph.Node(nodeID)
	if err != nil {
		t.Fatal(err)
	}
	total := d.Node.Source.Segment.EntryCount
	if total != 691 {
		t.Fatalf("the first segment of large-session has %d entries, want 691", total)
	}
	var seqs []int
	pages := 0
	for off := 0; off < total; off += DefaultEntryPage {
		p, err := l.Library.SegmentEntries(nodeID, off, 0)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if p.Total != total || p.Offset != off || len(p.Entries) != min(DefaultEntryPage, total-off) {
			t.Fatalf("page at %d: offset %d, total %d, %d entries", off, p.Offset, p.Total, len(p.Entries))
		}
		for _, e := range p.Entries {
			seqs = append(seqs, e.Seq)
		}
	}
	if pages != 7 {
		t.Errorf("%d pages of %d, want 7", pages, DefaultEntryPage)
	}
	for i, s := range seqs {
		if s != seqs[0]+i {
			t.Fatalf("entry %d has seq %d after %d: pages overlap or leave a gap", i, s, seqs[0]+i-1)
		}
	}
	if len(seqs) != total {
		t.Errorf("%d entries over the pages, want %d", len(seqs), total)
	}
	if p, err := l.Library.SegmentEntries(nodeID, 0, 100_000); err != nil || len(p.Entries) != MaxEntryPage {
		t.Errorf("a limit of 100000: %d entries, %v; want %d", len(p.Entries), err, MaxEntryPage)
	}
	if p, err := l.Library.SegmentEntries(nodeID, 650, 100); err != nil || len(p.Entries) != 41 || p.Entries[0].Seq != seqs[650] {
		t.Errorf("the last 41: %d entries, %v", len(p.Entries), err)
	}
	if p, err := l.Library.SegmentEntries(nodeID, total, 10); err != nil || len(p.Entries) != 0 || p.Entries == nil || p.Total != total {
		t.Errorf("past the end: %+v, %v; want an empty page with the total", p, err)
	}
	if _, err := l.Library.SegmentEntries(nodeID, -1, 10); err == nil {
		t.Error("a negative offset: no error")
	}
}

func TestSegmentEntriesImages(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	id := sessionIDOf(t, filepath.Join("samples", "compact-with-images.jsonl"))
	images, entries, toolCalls, toolResults, bash := 0, 0, 0, 0, 0
	lastSeq := -1
	for _, nodeID := range sessionNodes(t, l, id) {
		views := allEntries(t, l, nodeID)
		d, _ := l.Graph.Node(nodeID)
		if len(views) != d.Node.Source.Segment.EntryCount {
			t.Errorf("node %s: %d entries, segment has %d", nodeID, len(views), d.Node.Source.Segment.EntryCount)
		}
		for _, v := range views {
			entries++
			if v.Seq != lastSeq+1 || v.Line <= 1 || v.ID == "" || v.Type == "" || v.Blocks == nil {
				t.Fatalf("entry %+v after seq %d", v, lastSeq)
			}
			lastSeq = v.Seq
			for _, b := range v.Blocks {
				switch b.Type {
				case "image":
					images++
					raw, err := base64.StdEncoding.DecodeString(b.Data)
					if !strings.HasPrefix(b.MimeType, "image/") || err != nil || len(raw) < 100 {
						t.Errorf("image block %s, %d bytes, %v", b.MimeType, len(raw), err)
					}
				case "toolCall":
					toolCalls++
					if b.Name == "" || !json.Valid([]byte(b.Arguments)) {
						t.Errorf("toolCall %+v", b)
					}
				case "toolResult":
					toolResults++
				}
			}
			if v.Role == "bashExecution" {
				bash++
				if len(v.Blocks) < 2 || v.Blocks[len(v.Blocks)-2].Name != "bash" {
					t.Errorf("bashExecution %+v", v)
				}
			}
			if v.Type == "compaction" && v.Summary == "" {
				t.Errorf("compaction without summary: %+v", v)
			}
		}
	}
	if entries != 1013 || images != 3 || toolCalls == 0 || toolResults == 0 || bash != 1 {
		t.Errorf("%d entries, %d images, %d tool calls, %d tool results, %d bash", entries, images, toolCalls, toolResults, bash)
	}
	if _, err := l.Library.SegmentEntries("0000000000000000", 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown node: %v", err)
	}
}

func TestLibraryV3(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, v3Dir)
	treeID := sessionIDOf(t, filepath.Join(v3Dir, v3Tree))

	// Timeline: the boundaries of the tree file, in order.
	tl, err := l.Library.Timeline(treeID)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for i, s := range tl {
		var types []string
		for _, b := range s.Boundaries {
			types = append(types, b.Type)
		}
		got = append(got, types)
		if s.Index != i || s.NodeID == "" || s.Summary == "" || s.Start == "" || s.End < s.Start || s.Entries == 0 {
			t.Errorf("segment %+v", s)
		}
	}
	if want := [][]string{nil, {"tree_jump"}, {"branch"}, {"tree_jump"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("boundaries %v, want %v", got, want)
	}
	if md := tl[2].Boundaries[0].Metadata; md["summary"] == nil || md["previousEntryId"] != "55280234" {
		t.Errorf("branch metadata %v", md)
	}

	// Labels are shown on the entries they name, whatever segment (and
	// page) they are written in.
	labels := map[string]string{}
	for _, s := range tl {
		for _, v := range allEntries(t, l, s.NodeID, 3) {
			if v.Label != "" {
				labels[v.ID] = v.Label
			}
			if v.Type == "session_info" && (len(v.Blocks) != 1 || v.Blocks[0].Text == "") {
				t.Errorf("session_info %+v", v)
			}
		}
	}
	want := map[string]string{"ad4dbe5d": "first-attempt", "bc1a2813": "manual-limiter", "55280234": "middleware-done"}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("labels %v, want %v", labels, want)
	}

	// Sessions: newest first; the session_info name is used.
	ss, err := l.Library.Sessions("")
	if err != nil || len(ss) != 5 {
		t.Fatalf("%v %+v", err, ss)
	}
	for i := 1; i < len(ss); i++ {
		if ss[i-1].Timestamp < ss[i].Timestamp {
			t.Errorf("sessions not newest first: %s before %s", ss[i-1].Timestamp, ss[i].Timestamp)
		}
	}
	var tree SessionSummary
	for _, s := range ss {
		if s.ID == treeID {
			tree = s
		}
	}
	if tree.Name == "" || strings.HasSuffix(tree.Name, ".jsonl") || tree.Entries != 39 || tree.Segments != 4 || tree.Version != 3 || tree.Cost <= 0 || tree.Tokens <= 0 {
		t.Errorf("tree %+v", tree)
	}
	acme, _ := l.Library.Sessions("/home/dana/src/acme-api")
	none, _ := l.Library.Sessions("/nowhere")
	if len(acme) != 4 || none == nil || len(none) != 0 {
		t.Errorf("by project: %d, %v", len(acme), none)
	}

	st, err := l.Library.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Sessions != 5 || st.Entries != 39+17+21+48+13 || st.Projects != 2 || st.Path != l.path || st.Nodes == 0 || st.Edges == 0 || st.Cost <= 0 {
		t.Errorf("stats %+v", st)
	}
	n := 0
	for _, c := range st.ByType {
		n += c
	}
	if n != st.Nodes {
		t.Errorf("byType %v for %d nodes", st.ByType, st.Nodes)
	}
}

func TestGraph(t *testing.T) {
	l := newTestLib(t)
	l.importPaths(t, v3Dir, "samples")
	all, err := l.Graph.Graph(GraphFilter{NoKnowledge: true})
	if err != nil {
		t.Fatal(err)
	}
	st, _ := l.Library.Stats()
	if len(all.Nodes) != st.Nodes || len(all.Edges) != st.Edges {
		t.Fatalf("%d nodes, %d edges; stats %+v", len(all.Nodes), len(all.Edges), st)
	}
	for _, n := range all.Nodes {
		if len([]rune(n.Label)) > labelRunes || n.Type == "" || n.SessionID == "" || n.Timestamp == "" || n.Entries == 0 {
			t.Errorf("node %+v", n)
		}
	}

	treeID := sessionIDOf(t, filepath.Join(v3Dir, v3Tree))
	g, _ := l.Graph.Graph(GraphFilter{SessionID: treeID, NoKnowledge: true})
	if len(g.Nodes) != 4 || len(g.Edges) != 3 {
		t.Errorf("tree: %d nodes, %d edges", len(g.Nodes), len(g.Edges))
	}
	g, _ = l.Graph.Graph(GraphFilter{Project: "/home/dana/src/ledger-svc", NoKnowledge: true})
	if len(g.Nodes) == 0 {
		t.Error("no ledger-svc nodes")
	}
	for _, n := range g.Nodes {
		if n.Project != "/home/dana/src/ledger-svc" {
			t.Errorf("project filter let %+v through", n)
		}
	}
	g, _ = l.Graph.Graph(GraphFilter{From: "2026-01-13", To: "2026-01-13", NoKnowledge: true})
	if len(g.Nodes) == 0 {
		t.Error("no nodes on 2026-01-13")
	}
	for _, n := range g.Nodes {
		if !strings.HasPrefix(n.Timestamp, "2026-01-13") {
			t.Errorf("date filter let %s through", n.Timestamp)
		}
	}
	typ := all.Nodes[0].Type
	g, _ = l.Graph.Graph(GraphFilter{Types: []string{typ}, NoKnowledge: true})
	for _, n := range g.Nodes {
		if n.Type != typ {
			t.Errorf("type filter let %s through", n.Type)
		}
	}
	empty, err := l.Graph.Graph(GraphFilter{SessionID: "nope", NoKnowledge: true})
	if err != nil || empty.Nodes == nil || empty.Edges == nil {
		t.Errorf("empty graph %v %+v", err, empty)
	}

	// Node detail: edges both ways and the version history.
	tl, _ := l.Library.Timeline(treeID)
	d, err := l.Graph.Node(tl[1].NodeID)
	if err != nil {
		t.Fatal(err)
	}
	// Structural edges only: the offline relations across sessions
	// (relations_test.go) come on top.
	boundaryIn := 0
	for _, e := range d.Incoming {
		if e.CreatedBy == "boundary" {
			boundaryIn++
		}
	}
	if d.Node.ID != tl[1].NodeID || d.Segment != 1 || d.SessionName == "" || len(d.Boundaries) != 1 ||
		boundaryIn != 1 || len(d.Outgoing) < 2 || len(d.Versions) != 1 || d.Versions[0].TriggerReason != "initial" {
		t.Errorf("detail %+v", d)
	}
	forks := 0
	for _, e := range d.Outgoing {
		if e.Type == "fork" {
			forks++
		}
	}
	if forks != 1 {
		t.Errorf("outgoing %+v", d.Outgoing)
	}
	if _, err := l.Graph.Node("nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown node: %v", err)
	}
}

func TestSearch(t *testing.T) {
	l := newTestLib(t)
	if _, err := l.Import.ImportSamples(); err != nil {
		t.Fatal(err)
	}
	// The first request of session-with-compaction.
	phrase := "create a custom tool"
	hits, err := l.Search.Query(`"`+phrase+`"`, 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("%v %v", err, hits)
	}
	sessID := sessionIDOf(t, filepath.Join("samples", "session-with-compaction.jsonl"))
	var hit *SearchHit
	for i := range hits {
		if hits[i].Kind == "entry" && hits[i].SessionID == sessID {
			hit = &hits[i]
			break
		}
	}
	if hit == nil {
		t.Fatalf("no entry hit in session-with-compaction: %+v", hits)
	}
	if !strings.Contains(hit.Snippet, "\u0001") || !strings.Contains(hit.Snippet, "\u0002") || hit.Score <= 0 || hit.Title == "" {
		t.Errorf("hit %+v", hit)
	}
	// The hit's node is the segment holding the entry.
	found := false
	for _, v := range allEntries(t, l, hit.NodeID) {
		for _, b := range v.Blocks {
			if strings.Contains(strings.ToLower(b.Text), phrase) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("node %s does not hold %q", hit.NodeID, phrase)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not best first: %v", hits)
		}
	}

	// Node hits: a word of a node summary finds the node.
	g, _ := l.Graph.Graph(GraphFilter{})
	var word string
	for _, f := range strings.Fields(g.Nodes[0].Label) {
		if len(f) > 6 && strings.IndexFunc(f, func(r rune) bool { return !('a' <= r && r <= 'z') }) < 0 {
			word = f
			break
		}
	}
	if word != "" {
		hits, _ = l.Search.Query(word, 50)
		node := false
		for _, h := range hits {
			node = node || h.Kind == "node" && h.NodeID != ""
		}
		if !node {
			t.Errorf("no node hit for %q", word)
		}
	}

	// Any input is a valid query; nothing found is [].
	for _, q := range []string{"", "   ", `"`, `""`, `"unclosed phrase`, `AND OR NOT`, `NEAR(a b)`, `a*`, `*`, `^start`,
		`col:value`, `(`, `)`, `'; DROP TABLE entries; --`, `-`, `+`, `\`, "\x00", "zzzzqqqxxyy", `foo" OR "bar`, `ünïcödé`, `-- /* */`} {
		hits, err := l.Search.Query(q, 5)
		if err != nil {
			t.Errorf("query %q: %v", q, err)
		}
		if hits == nil {
			t.Errorf("query %q: nil hits", q)
		}
	}
	if hits, _ := l.Search.Query("zzzzqqqxxyy", 5); len(hits) != 0 {
		t.Errorf("hits %v", hits)
	}
	if hits, _ := l.Search.Query("the", 0); len(hits) != defaultSearchLimit {
		t.Errorf("%d hits with the default limit", len(hits))
	}
}

// Five checkouts all called "workspace" (their directories differ higher
// up, one on Windows) are named apart in the projects list and in the
// usage chart, by the shortest end of their paths no other project shares.
func TestProjectsNamedApart(t *testing.T) {
	l := newTestLib(t)
	cwds := []string{"/home/dana/src/acme/workspace", "/home/dana/src/ledger/workspace", "/srv/ci/workspace", `C:\Users\dana\beta\workspace`, "/home/kim/workspace", "/home/kim/notes"}
	var files []DroppedFile
	for i, cwd := range cwds {
		header, _ := json.Marshal(map[string]any{"type": "session", "id": fmt.Sprintf("00000000-0000-4000-9000-%012d", i), "timestamp": "2025-12-01T09:00:00Z", "cwd": cwd})
		text := string(header) + "\n" +
			`{"type":"message","timestamp":"2025-12-01T09:00:01Z","message":{"role":"user","content":[{"type":"text","text":"Fix the build"}]}}` + "\n" +
			`{"type":"message","timestamp":"2025-12-01T09:00:20Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"provider":"openai","model":"gpt-5.5","usage":{"input":10,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":20,"cost":{"total":0.01}}}}` + "\n"
		files = append(files, DroppedFile{Name: fmt.Sprintf("s%d.jsonl", i), Content: base64.StdEncoding.EncodeToString([]byte(text))})
	}
	if _, err := l.Import.ImportFiles(files); err != nil {
		t.Fatal(err)
	}
	ps, err := l.Library.Projects()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/home/dana/src/acme/workspace": "acme/workspace", "/home/dana/src/ledger/workspace": "ledger/workspace",
		"/srv/ci/workspace": "ci/workspace", `C:\Users\dana\beta\workspace`: `beta\workspace`, "/home/kim/workspace": "kim/workspace", "/home/kim/notes": "notes"}
	got := map[string]string{}
	for _, p := range ps {
		got[p.Path] = p.Name
	}
	if !maps.Equal(got, want) {
		t.Errorf("projects named %q, want %q", got, want)
	}
	d, err := l.Patterns.Dashboard()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Usage.ByProject {
		if s.Name != want[s.Key] {
			t.Errorf("usage series of %s named %q, want %q", s.Key, s.Name, want[s.Key])
		}
	}
}
