package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
	"strings"
	"testing"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/knowledge"
	"rhizome/backend/link"
	"rhizome/backend/pisession"
	"rhizome/backend/relate"
	"rhizome/backend/segment"
)

var exportedAt = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// realGraph fills the neutral Graph the way the app will: segment nodes of
// the real sessions (the offline analyzer's node), their continuation
// edges, the knowledge the offline rules find in them (with a PART_OF…
// DERIVED_FROM edge to the segment), the offline relations across
// sessions, and the external URLs those reference; plus a loom tree and
// node, and hand-made nodes that carry what session text carries (control
// characters, markup, quotes, names a file system refuses).
func realGraph(t testing.TB) Graph {
	t.Helper()
	g := Graph{ExportedAt: exportedAt}
	now := exportedAt
	var descs []relate.Segment
	files, _ := filepath.Glob(filepath.Join(pitest.SamplesDir(), "*.jsonl"))
	more, _ := filepath.Glob("../segment/testdata/v3/sessions/*.jsonl")
	files = append(files, more...)
	if len(files) < 8 {
		t.Fatalf("sessions not found: %v", files)
	}
	for _, f := range files {
		sess, err := pisession.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		segs := segment.Split(sess.Entries, segment.DefaultOptions())
		prev := ""
		for i, s := range segs {
			entries := sess.Entries[s.StartSeq : s.EndSeq+1]
			node := analyze.Analyze(analyze.Input{Header: sess.Header, SessionFile: f, Segment: s,
				Abandoned: analyze.LeftByNavigation(segs, i)}, entries, now)
			id := link.Node(node.ID).String()
			g.Nodes = append(g.Nodes, Node{ID: id, Kind: "segment", Label: node.Content.Summary, Text: node.Content.Summary,
				Time: s.StartTimestamp, Attrs: map[string]any{"outcome": string(node.Content.Outcome),
					"project": sess.Header.Cwd, "costUSD": node.Metadata.Cost, "clearGoal": node.Classification.HadClearGoal,
					"entries": float64(node.Source.Segment.EntryCount)}})
			if prev != "" {
				g.Edges = append(g.Edges, Edge{Source: prev, Target: id, Type: "continuation", Confidence: 1, CreatedBy: "boundary", Directed: true})
			}
			prev = id
			x := knowledge.NewExtractor()
			var text []string
			for j := range entries {
				x.Add(&entries[j])
				if m := entries[j].Message; m != nil && m.Role == session.RoleUser {
					text = append(text, session.EntryText(&entries[j]))
				}
			}
			for _, it := range x.Items(knowledge.Source{Project: sess.Header.Cwd, SessionID: sess.Header.ID, SegmentNodeID: node.ID}, now) {
				kid := it.URI().String()
				g.Nodes = append(g.Nodes, Node{ID: kid, Kind: string(it.Kind), Label: it.Title(), Text: it.Title(), Time: it.Timestamp,
					Attrs: map[string]any{"status": string(it.Status), "confidence_": it.Confidence, "rule": it.Source.Rule}})
				g.Edges = append(g.Edges, Edge{Source: kid, Target: id, Type: string(link.DerivedFrom), Confidence: it.Confidence,
					CreatedBy: "offline", Rationale: "found by rule " + it.Source.Rule, Directed: true})
			}
			descs = append(descs, relate.Segment{ID: node.ID, SessionID: sess.Header.ID, Project: sess.Header.Cwd,
				Start: s.StartTimestamp, End: s.EndTimestamp, Files: node.Content.FilesTouched, Outcome: node.Content.Outcome,
				Refs: relate.Refs(strings.Join(text, "\n"))})
		}
	}
	have := map[string]bool{}
	for _, n := range g.Nodes {
		have[n.ID] = true
	}
	for _, e := range relate.Derive(descs, relate.Options{}) {
		src, dst := e.Source.String(), e.Target.String()
		if !have[dst] {
			g.Nodes = append(g.Nodes, Node{ID: dst, Kind: "url", Label: dst})
			have[dst] = true
		}
		g.Edges = append(g.Edges, Edge{Source: src, Target: dst, Type: string(e.Relation), Confidence: e.Confidence,
			Similarity: e.Similarity, Rationale: e.Rationale, CreatedBy: string(e.CreatedBy), Directed: e.Relation.Directed()})
	}
	tree, node := link.LoomTree("01JLOOMTREE0000000000000000").String(), link.LoomNode("01JLOOMTREE0000000000000000", "01JLOOMNODE000000000000000").String()
	g.Nodes = append(g.Nodes,
		Node{ID: tree, Kind: "loomTree", Label: "The lighthouse keeper", Attrs: map[string]any{"mode": "buffer"}},
		Node{ID: node, Kind: "loomNode", Label: "The lamp went dark at 3 a.m. & nobody <saw> it", Text: "The lamp went dark at 3 a.m.\n\nNobody \"saw\" it.",
			Attrs: map[string]any{"author": "model"}},
		Node{ID: "rhizome:note/nasty", Kind: "note", Label: "[[Fake]] | #tag ^block a/b\\c: *?\"<>\x01\x1b[31m", Text: "bell\x07 and NUL-free \x1b[0m <script>alert(1)</script>"},
		Node{ID: "rhizome:note/con", Kind: "note", Label: "CON"},
		Node{ID: "rhizome:note/same1", Kind: "note", Label: "Same name"},
		Node{ID: "rhizome:note/same2", Kind: "note", Label: "same NAME"},
		Node{ID: "rhizome:note/dots", Kind: "note", Label: "../../etc/passwd"},
		Node{ID: "rhizome:note/empty", Kind: "note", Label: ""},
	)
	g.Edges = append(g.Edges,
		Edge{Source: node, Target: tree, Type: string(link.PartOf), Confidence: 1, CreatedBy: "user", Directed: true},
		Edge{Source: "rhizome:note/nasty", Target: node, Type: string(link.RelatesTo), Confidence: 0.5, CreatedBy: "user",
			Rationale: "quote \" ampersand & angle < control \x02", Attrs: map[string]any{"weight_note": "x", "flag": true}},
		Edge{Source: "rhizome:note/same1", Target: "rhizome:note/same2", Type: string(link.SimilarTo), Confidence: 0.9, CreatedBy: "model"},
	)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestRealGraphShape(t *testing.T) {
	g := realGraph(t)
	kinds := map[string]int{}
	for _, n := range g.Nodes {
		kinds[n.Kind]++
	}
	types := map[string]int{}
	for _, e := range g.Edges {
		types[e.Type]++
	}
	if kinds["segment"] != 24 || kinds["projectFact"] == 0 || kinds["decision"] == 0 || kinds["url"] != 3 ||
		types["RELATES_TO"] == 0 || types["OCCURRED_BEFORE"] == 0 || types["continuation"] == 0 {
		t.Errorf("graph of the real sessions: kinds %v, edge types %v", kinds, types)
	}
}

// The JSON export reads back to the same graph.
func TestJSONRoundTrip(t *testing.T) {
	g := realGraph(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, g); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(g Graph) Graph {
		g.ExportedAt = g.ExportedAt.UTC()
		for i := range g.Nodes {
			g.Nodes[i].Time = g.Nodes[i].Time.UTC()
		}
		return g
	}
	if !reflect.DeepEqual(norm(g), norm(back)) {
		a, _ := json.Marshal(norm(g))
		b, _ := json.Marshal(norm(back))
		t.Errorf("round trip differs: %d vs %d bytes", len(a), len(b))
	}
	bad := []struct{ name, doc, want string }{
		{"format", `{"format":"ccmemory","version":1,"nodes":[],"edges":[]}`, "field format"},
		{"version", `{"format":"rhizome.graph","version":9,"nodes":[],"edges":[]}`, "field version"},
		{"unknown field", `{"format":"rhizome.graph","version":1,"nodes":[],"edges":[],"extra":1}`, "unknown field"},
		{"trailing", `{"format":"rhizome.graph","version":1,"nodes":[],"edges":[]} {}`, "after the graph"},
		{"dangling edge", `{"format":"rhizome.graph","version":1,"nodes":[{"id":"a","kind":"x","label":""}],"edges":[{"source":"a","target":"b","type":"RELATES_TO","confidence":1,"directed":true}]}`, "field target"},
		{"syntax", `{"format":`, "unable to read JSON"},
		{"type", `{"format":"rhizome.graph","version":"1"}`, "field version"},
		{"attr", `{"format":"rhizome.graph","version":1,"nodes":[{"id":"a","kind":"x","label":"","attrs":{"n":[1]}}],"edges":[]}`, "attribute"},
	}
	for _, c := range bad {
		_, err := ReadJSON(strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if err := WriteJSON(&buf, Graph{Nodes: []Node{{ID: "a", Kind: "x"}, {ID: "a", Kind: "x"}}}); err == nil || !strings.Contains(err.Error(), "repeats") {
		t.Errorf("duplicate id: %v", err)
	}
}

// xmllint validates a document against a schema; the test skips with a
// clear message when the validator is not installed.
func xmllint(t *testing.T, schema, doc string) error {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found: install the Debian package libxml2-utils to validate GraphML and GEXF against their schemas")
	}
	out, err := exec.Command(bin, "--noout", "--nonet", "--schema", schema, doc).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// interchange-formats.md, "GraphML": the export is valid against the
// official GraphML schema (testdata/xsd, from Debian's libjgrapht-java),
// checked by libxml2's validator; a document breaking the schema's key
// order fails the same check.
func TestGraphMLValidAgainstSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteGraphML(&buf, realGraph(t)); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join("testdata", "xsd", "graphml.xsd")
	if err := xmllint(t, schema, writeTemp(t, "real.graphml", buf.Bytes())); err != nil {
		t.Fatalf("the export does not validate: %v", err)
	}
	broken := strings.Replace(buf.String(), `<key id="d_uri" for="node" attr.name="uri" attr.type="string"/>`, "", 1)
	broken = strings.Replace(broken, `<graph id="G" edgedefault="directed">`, `<graph id="G" edgedefault="directed"><key id="d_uri" for="nodes"/>`, 1)
	if err := xmllint(t, schema, writeTemp(t, "broken.graphml", []byte(broken))); err == nil {
		t.Error("a GraphML with a key inside the graph and for=\"nodes\" validated: the check proves nothing")
	}
}

// interchange-formats.md, "GEXF 1.3": the 1.2draft export is valid against
// the official GEXF 1.2draft schema; the 1.3 export, whose constructs 1.2
// shares but for the edge kind, validates against it once its namespace
// and version are mapped and the kinds set aside. No GEXF 1.3 schema is
// packaged where this project can fetch it (testdata/xsd/README.md).
func TestGEXFValidAgainstSchema(t *testing.T) {
	g := realGraph(t)
	schema := filepath.Join("testdata", "xsd", "gexf.xsd")
	var v12, v13 bytes.Buffer
	if err := WriteGEXF(&v12, g, GEXF12Draft); err != nil {
		t.Fatal(err)
	}
	if err := xmllint(t, schema, writeTemp(t, "real12.gexf", v12.Bytes())); err != nil {
		t.Fatalf("the 1.2draft export does not validate: %v", err)
	}
	if err := WriteGEXF(&v13, g, GEXF13); err != nil {
		t.Fatal(err)
	}
	s := v13.String()
	if !strings.Contains(s, `xmlns="http://gexf.net/1.3"`) || !strings.Contains(s, `version="1.3"`) || !strings.Contains(s, `kind="RELATES_TO"`) {
		t.Fatalf("not a GEXF 1.3 document:\n%.400s", s)
	}
	mapped := strings.NewReplacer(`xmlns="http://gexf.net/1.3"`, `xmlns="http://www.gexf.net/1.2draft"`,
		`http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd`, `http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd`,
		`version="1.3"`, `version="1.2"`).Replace(s)
	mapped = regexp.MustCompile(` kind="[^"]*"`).ReplaceAllString(mapped, "")
	if err := xmllint(t, schema, writeTemp(t, "real13.gexf", []byte(mapped))); err != nil {
		t.Fatalf("the 1.3 export does not validate (mapped to 1.2draft): %v", err)
	}
	broken := strings.Replace(v12.String(), `mode="static"`, `mode="sometimes"`, 1)
	if err := xmllint(t, schema, writeTemp(t, "broken.gexf", []byte(broken))); err == nil {
		t.Error("a GEXF with mode=\"sometimes\" validated: the check proves nothing")
	}
	if err := WriteGEXF(&v12, g, "2.0"); err == nil {
		t.Error("GEXF 2.0 written")
	}
}
