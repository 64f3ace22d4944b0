package summary

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rhizome/backend/loom"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/segment"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/* from the current output")

// madeAt is the fixed summary time of the golden files.
var madeAt = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// goldenSummary is a summary as the golden files show it: what a reader sees.
type goldenSummary struct {
	Title     string `json:"title,omitempty"`
	Label     string `json:"label"`
	Text      string `json:"text"`
	Source    string `json:"source"`
	InputHash string `json:"inputHash"`
}

func golden(s Summary) goldenSummary {
	return goldenSummary{Title: s.Title, Label: s.Label, Text: s.Text, Source: s.Source, InputHash: s.InputHash}
}

type goldenSegment struct {
	Index      int      `json:"index"`
	Entries    string   `json:"entries"` // "startSeq-endSeq"
	Boundaries []string `json:"boundaries,omitempty"`
	goldenSummary
	// Pi is the summary a later compaction gives the segment (SourcePi).
	Pi *goldenSummary `json:"pi,omitempty"`
}

type goldenSession struct {
	File     string          `json:"file"`
	Session  goldenSummary   `json:"session"`
	Segments []goldenSegment `json:"segments"`
}

// goldenPath names a session file in a golden file: the real samples by
// their place in the repository (app/samples), the fixtures by their path
// here, so that golden files do not depend on where the repository is.
func goldenPath(path string) string {
	if filepath.Dir(path) == pitest.SamplesDir() {
		return "app/samples/" + filepath.Base(path)
	}
	return "backend/" + strings.TrimPrefix(filepath.ToSlash(path), "../")
}

// v3Dir holds the version 3 sessions written by pi's own SessionManager,
// kept once, with backend/segment's test data.
const v3Dir = "../segment/testdata/v3/sessions/"

// summarizeFile reads a session file the way the importer does (app/ingest/read.go):
// a streaming reader, a segment.Builder and a Pass beside it. It returns
// what the golden files show and the summaries, the session's first, then
// the segments' in order (their offline ones).
func summarizeFile(t *testing.T, path string) (goldenSession, []Summary) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := pisession.NewReader(f, path)
	hdr, err := rd.Header()
	if err != nil {
		t.Fatal(err)
	}
	b := segment.NewBuilder(segment.DefaultOptions())
	pass := NewPass(hdr.ID, hdr.Cwd, madeAt)
	var segs []Summary
	g := goldenSession{File: goldenPath(path)}
	bySeg := map[int]int{} // segment index -> its place in g.Segments
	collect := func() {
		for _, m := range pass.Take() {
			checkValid(t, m.Summary)
			if i, ok := bySeg[m.Segment]; ok {
				// A later compaction's summary of a segment summarised already.
				if m.Summary.Source != SourcePi || m.Summary.InputHash != g.Segments[i].InputHash || g.Segments[i].Pi != nil {
					t.Fatalf("segment %d summarised twice: %+v", m.Segment, m.Summary)
				}
				gs := golden(m.Summary)
				g.Segments[i].Pi = &gs
				continue
			}
			segs = append(segs, m.Summary)
			bySeg[m.Segment] = len(g.Segments)
			g.Segments = append(g.Segments, goldenSegment{Index: m.Segment, goldenSummary: golden(m.Summary)})
		}
	}
	var closed []segment.Segment
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		st := b.Add(e)
		if st.Closed != nil {
			closed = append(closed, *st.Closed)
		}
		pass.Add(e, st, b.SegmentOf)
		collect()
	}
	if last := b.Finish(); last != nil {
		closed = append(closed, *last)
		pass.Finish(last)
		collect()
	}
	if len(closed) != len(g.Segments) {
		t.Fatalf("%d segments, %d summaries", len(closed), len(g.Segments))
	}
	for i, s := range closed {
		var bs []string
		for _, bd := range s.Boundaries {
			bs = append(bs, string(bd.Type))
		}
		g.Segments[i].Entries = fmt.Sprintf("%d-%d", s.StartSeq, s.EndSeq)
		g.Segments[i].Boundaries = bs
		if g.Segments[i].Index != s.Index {
			t.Fatalf("summary %d is of segment %d", i, g.Segments[i].Index)
		}
	}
	s, ok := pass.Session()
	if !ok {
		t.Fatal("the pass saw the whole session but has no session summary")
	}
	checkValid(t, s)
	g.Session = golden(s)
	return g, append([]Summary{s}, segs...)
}

// looseMark is punctuation standing alone between spaces: a sign of parts
// joined badly.
var looseMark = regexp.MustCompile(`\s[.,;:!?](\s|$)`)

func checkValid(t *testing.T, s Summary) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Errorf("%v\n%+v", err, s)
	}
	if s.Kind == KindSegment || s.Kind == KindLoomNode {
		if n := len(Sentences(s.Text)); n != 1 {
			t.Errorf("%s summary has %d sentences, want one: %q", s.Kind, n, s.Text)
		}
	}
	if n := wordCount(s.Label); n > MaxLabelWords {
		t.Errorf("label %q has %d words", s.Label, n)
	}
	if m := looseMark.FindString(s.Title + "\n" + s.Text + "\n" + s.Label); m != "" {
		t.Errorf("%s summary has a loose punctuation mark %q: %+v", s.Kind, m, s)
	}
	for _, bad := range []string{"User asked:", "Last request:", "Final reply:", ".jsonl", "  ", "…"} {
		if strings.Contains(s.Text, bad) || strings.Contains(s.Label, bad) || strings.Contains(s.Title, bad) {
			t.Errorf("%s summary holds %q: %+v", s.Kind, bad, s)
		}
	}
}

// TestGoldenSessions: the titles and summaries of the three real sample
// sessions and of the version 3 fixtures (session_info names, branch
// summaries, a compaction), every segment's sentence and label. Read the
// golden files as a user would when they change.
func TestGoldenSessions(t *testing.T) {
	files := pitest.Samples()
	v3, _ := filepath.Glob(v3Dir + "*.jsonl")
	files = append(files, v3...)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		if strings.HasPrefix(path, v3Dir) {
			name = "v3-" + name[len(name)-12:]
		}
		t.Run(name, func(t *testing.T) {
			g, _ := summarizeFile(t, path)
			checkGolden(t, filepath.Join("testdata/golden", name+".json"), g)
		})
	}
}

func checkGolden(t *testing.T, path string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the current output (go test -update rewrites it; review the diff):\n%s", path, buf.String())
	}
}

// memBlobs is an in-memory, content-addressed loom.BlobStore for importing
// the loom testdata (the trees hold text only).
type memBlobs map[string][]byte

func (m memBlobs) Put(data []byte, mimeType string) (string, string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	ref := loom.BlobRef(h, mimeType)
	m[ref] = bytes.Clone(data)
	return ref, h, nil
}

func (m memBlobs) Get(ref string) ([]byte, error) {
	if b, ok := m[ref]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("blob %s not found", ref)
}

// lighthouse is backend/loom's testdata tree: a buffer-mode story with
// branches and edited versions.
func lighthouse(t *testing.T) *loom.Tree {
	t.Helper()
	data, err := os.ReadFile("../loom/testdata/socketteer-lighthouse.rhizome.json")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := loom.Import(data, memBlobs{})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

type goldenLoomNode struct {
	LocalID    string `json:"localId"`
	EditedFrom string `json:"editedFrom,omitempty"`
	goldenSummary
}

type goldenLoom struct {
	Tree  goldenSummary    `json:"tree"`
	Nodes []goldenLoomNode `json:"nodes"`
}

// TestGoldenLoom: the offline summaries of the loom testdata tree and of
// each of its nodes.
func TestGoldenLoom(t *testing.T) {
	tree := lighthouse(t)
	ts, err := LoomTree(tree, loom.ActivePath{}, madeAt)
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, ts)
	g := goldenLoom{Tree: golden(ts)}
	for _, n := range tree.Nodes() {
		s, err := LoomNode(tree, n.ID, madeAt)
		if err != nil {
			t.Fatal(err)
		}
		checkValid(t, s)
		gn := goldenLoomNode{LocalID: n.LocalID, goldenSummary: golden(s)}
		if n.EditedFrom != "" {
			gn.EditedFrom = tree.Node(n.EditedFrom).LocalID
		}
		g.Nodes = append(g.Nodes, gn)
	}
	checkGolden(t, "testdata/golden/loom-lighthouse.json", g)
}

// TestGoldenProject: the project of the three real sessions.
func TestGoldenProject(t *testing.T) {
	files := pitest.Samples()
	var sessions []Summary
	for _, f := range files {
		_, sums := summarizeFile(t, f)
		sessions = append(sessions, sums[0])
	}
	p := Project("/Users/badlogic/workspaces/pi-mono", sessions, madeAt)
	checkValid(t, p)
	checkGolden(t, "testdata/golden/project-pi-mono.json", golden(p))
}

// TestGoldenPrompts: the model prompts, as a model reads them, for a real
// segment and session, the loom testdata tree and one of its nodes, and the
// project of the real sessions.
func TestGoldenPrompts(t *testing.T) {
	var out strings.Builder
	write := func(name string, p Prompt) {
		fmt.Fprintf(&out, "======== %s (kind %s, maxTokens %d)\n--- system\n%s\n--- user\n%s\n\n", name, p.Kind, p.MaxTokens, p.System, p.User)
	}
	// Segment 0 and the session of session-with-compaction.jsonl.
	s, err := pisession.ReadFile(pitest.Sample("session-with-compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	segs := segment.Split(s.Entries, segment.DefaultOptions())
	acc, sess := NewAccumulator(), NewAccumulator()
	for i := range s.Entries {
		e := &s.Entries[i]
		if e.Seq <= segs[0].EndSeq {
			acc.Add(e)
		}
		sess.Add(e)
	}
	ctx := PromptContext{Project: s.Header.Cwd, SessionTitle: "Documentation Review & Update"}
	p := acc.SegmentPrompt(ctx, s.Header.ID, segs[0])
	if want := SegmentHash(SegmentInputsOf(s.Header.ID, segs, 0)); p.InputHash != want {
		t.Errorf("segment prompt input hash %s, want %s", p.InputHash, want)
	}
	write("segment 0 of session-with-compaction.jsonl", p)
	write("session session-with-compaction.jsonl", sess.SessionPrompt(PromptContext{Project: s.Header.Cwd}, s.Header.ID))

	tree := lighthouse(t)
	np, err := LoomNodePrompt(tree, tree.NodeByLocalID("qecpwm").ID)
	if err != nil {
		t.Fatal(err)
	}
	write("loom node qecpwm of the lighthouse tree", np)
	tp, err := LoomTreePrompt(tree, loom.ActivePath{})
	if err != nil {
		t.Fatal(err)
	}
	write("the lighthouse tree", tp)

	var sessions []Summary
	files := pitest.Samples()
	for _, f := range files {
		_, sums := summarizeFile(t, f)
		sessions = append(sessions, sums[0])
	}
	write("project pi-mono", ProjectPrompt("/Users/badlogic/workspaces/pi-mono", sessions))

	path := "testdata/golden/prompts.txt"
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if out.String() != string(want) {
		t.Errorf("%s differs from the current prompts (go test -update rewrites it; review the diff):\n%s", path, out.String())
	}
}

// A summary does not say the same thing twice: "Port over X — ported X to
// match …" reads as the outcome alone. Over the real samples, no segment's
// or session's first sentence is a request whose outcome restates it.
func TestNoRestatedRequest(t *testing.T) {
	for _, p := range pitest.Samples() {
		_, sums := summarizeFile(t, p)
		for _, s := range sums {
			first := Sentences(s.Text)[0]
			req, what, ok := strings.Cut(first, " — ")
			if n := len(contentWords(req)); ok && n >= 2 && overlap(req, what) == n {
				t.Errorf("%s: %q restates its request", filepath.Base(p), first)
			}
		}
	}
}

// A mention in a loom node reads as its chip in the node's and the tree's
// summaries: its alias, never its [[rhizome:…|…]] markup.
func TestLoomSummariesReadMentions(t *testing.T) {
	you := loom.Agent{ID: "a1", Type: loom.AuthorHuman, Name: "you"}
	tree, err := loom.NewTree(loom.TreeSpec{GroveID: "g1", Mode: loom.ModeDialogue, Root: loom.Text("Write about moss, slowly."), Author: you})
	if err != nil {
		t.Fatal(err)
	}
	n, err := tree.AddContinuation(tree.RootNodeID, loom.Text("And then, as in [[rhizome:node/6e5e069b2e7aece1|the little poem]], moss again."), you, nil)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := LoomNode(tree, n.ID, madeAt)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := LoomTree(tree, loom.ActivePath{NodeID: n.ID}, madeAt)
	if err != nil {
		t.Fatal(err)
	}
	if ns.Text != "And then, as in the little poem, moss again." {
		t.Errorf("node summary %q", ns.Text)
	}
	if strings.Contains(ts.Text, "[[") || !strings.Contains(ts.Text, "the little poem") {
		t.Errorf("tree summary %q", ts.Text)
	}
}
