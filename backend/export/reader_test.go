package export

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rhizome/backend/link"
)

// pythonWith finds a python3 whose NetworkX reads GEXF 1.3 and that has
// PyYAML; "" when none.
func pythonWith(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		bin, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		probe := "import networkx, yaml; from networkx.readwrite.gexf import GEXF; assert '1.3' in GEXF.versions"
		if exec.Command(bin, "-c", probe).Run() == nil {
			return bin
		}
	}
	return ""
}

type pyGraph struct {
	Error      string                    `json:"error"`
	Nodes      int                       `json:"nodes"`
	Edges      int                       `json:"edges"`
	ByType     map[string]int            `json:"byType"`
	NodeAttrs  map[string]map[string]any `json:"nodeAttrs"`
	SampleEdge map[string]any            `json:"sampleEdge"`
}

// The GraphML, GEXF 1.3 and 1.2draft exports and the Markdown folder read
// with real third-party parsers: NetworkX for the graphs (every node, every
// edge, attribute types kept: doubles as floats, booleans as booleans) and
// PyYAML for every note's front matter.
func TestReadByNetworkXAndPyYAML(t *testing.T) {
	py := pythonWith(t)
	if py == "" {
		t.Skip("no python3 with NetworkX 2.6+ (GEXF 1.3) and PyYAML: the machine image's python3 has them; on Debian install python3-yaml and NetworkX 3")
	}
	g := realGraph(t)
	dir := t.TempDir()
	write := func(name string, fn func(*bytes.Buffer) error) string {
		var buf bytes.Buffer
		if err := fn(&buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gml := write("g.graphml", func(b *bytes.Buffer) error { return WriteGraphML(b, g) })
	g13 := write("g13.gexf", func(b *bytes.Buffer) error { return WriteGEXF(b, g, GEXF13) })
	g12 := write("g12.gexf", func(b *bytes.Buffer) error { return WriteGEXF(b, g, GEXF12Draft) })
	md := filepath.Join(dir, "notes")
	if err := WriteMarkdown(md, g); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, filepath.Join("testdata", "read_with_python.py"), gml, g13, g12, md).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var res struct {
		NetworkX string                    `json:"networkx"`
		GraphML  pyGraph                   `json:"graphml"`
		GEXF13   pyGraph                   `json:"gexf13"`
		GEXF12   pyGraph                   `json:"gexf12"`
		Notes    map[string]map[string]any `json:"notes"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	types := map[string]int{}
	for _, e := range g.Edges {
		types[e.Type]++
	}
	seg := g.Nodes[0]
	for name, r := range map[string]pyGraph{"GraphML": res.GraphML, "GEXF 1.3": res.GEXF13, "GEXF 1.2draft": res.GEXF12} {
		if r.Error != "" {
			t.Errorf("NetworkX %s could not read the %s export: %s", res.NetworkX, name, r.Error)
			continue
		}
		if r.Nodes != len(g.Nodes) || r.Edges != len(g.Edges) {
			t.Errorf("%s: NetworkX read %d nodes and %d edges, the graph has %d and %d", name, r.Nodes, r.Edges, len(g.Nodes), len(g.Edges))
		}
		for typ, n := range types {
			if r.ByType[typ] != n {
				t.Errorf("%s: %d %s edges read, %d written", name, r.ByType[typ], typ, n)
			}
		}
		a := r.NodeAttrs[seg.ID]
		if a["kind"] != "segment" || a["outcome"] != seg.Attrs["outcome"] || a["clearGoal"] != seg.Attrs["clearGoal"] ||
			a["costUSD"] != seg.Attrs["costUSD"] {
			t.Errorf("%s: first segment's attributes read as %v, written %v", name, a, seg.Attrs)
		}
		e := r.SampleEdge
		if e == nil || e["directed"] != false || e["confidence"] == nil || !strings.Contains(e["rationale"].(string), "both touch") {
			t.Errorf("%s: a RELATES_TO edge read as %v", name, e)
		}
	}
	if len(res.Notes) != len(g.Nodes) {
		t.Errorf("%d notes, %d nodes", len(res.Notes), len(g.Nodes))
	}
	for name, props := range res.Notes {
		if props["error"] != nil {
			t.Errorf("note %s: PyYAML: %v", name, props["error"])
			continue
		}
		id, _ := props["id"].(string)
		if _, err := link.Parse(id); err != nil && !strings.HasPrefix(id, "https://") {
			t.Errorf("note %s: id %q", name, id)
		}
	}
}

var wikiLink = regexp.MustCompile(`(^|[^\\])\[\[([^\]|#^]+)(?:[|#^][^\]]*)?\]\]`)

// interchange-formats.md, "Obsidian-style Markdown export": one note per
// node, names safe on every file system and unique ignoring case, every
// [[link]] (in the body and in the front matter) naming a note of the
// folder, link-like text from sessions escaped, nothing outside the folder,
// and a folder that is not empty refused untouched.
func TestMarkdownFolder(t *testing.T) {
	g := realGraph(t)
	dir := filepath.Join(t.TempDir(), "vault")
	if err := WriteMarkdown(dir, g); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(g.Nodes) {
		t.Fatalf("%d files for %d nodes", len(entries), len(g.Nodes))
	}
	names := map[string]bool{}
	lower := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".md") || strings.ContainsAny(n, `[]#^|\/:*"<>?`) || strings.HasPrefix(n, ".") {
			t.Errorf("bad note file %q", n)
		}
		if lower[strings.ToLower(n)] {
			t.Errorf("%q repeats a name ignoring case", n)
		}
		lower[strings.ToLower(n)] = true
		names[strings.TrimSuffix(n, ".md")] = true
	}
	links := 0
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("---\n")) || !bytes.Contains(b, []byte("\n---\n")) {
			t.Errorf("%s: no front matter at byte 0", e.Name())
		}
		for _, m := range wikiLink.FindAllSubmatch(b, -1) {
			links++
			if !names[string(m[2])] {
				t.Errorf("%s: [[%s]] names no note of the folder", e.Name(), m[2])
			}
		}
		if bytes.ContainsAny(b, "\x01\x02\x07\x1b") {
			t.Errorf("%s: control characters kept", e.Name())
		}
	}
	if links < len(g.Edges) {
		t.Errorf("%d links for %d edges", links, len(g.Edges))
	}
	nasty, err := os.ReadFile(filepath.Join(dir, "Fake tag block a b c 31m.md"))
	if err != nil {
		t.Fatalf("the note of a label full of link syntax: %v", err)
	}
	if !bytes.Contains(nasty, []byte(`# \[\[Fake\]\] | \#tag`)) {
		t.Errorf("link syntax of a label not escaped:\n%s", nasty)
	}
	if _, err := os.Stat(filepath.Join(dir, "CON (note).md")); err != nil {
		t.Error("a Windows device name was not renamed")
	}
	if err := WriteMarkdown(dir, g); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("writing into a full folder: %v", err)
	}
}
