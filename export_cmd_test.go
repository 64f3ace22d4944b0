package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rhizome/backend/export"
	"rhizome/backend/pisession/pitest"
)

// exportSchema validates doc against one of backend/export's schemas with
// libxml2's validator.
func exportSchema(t *testing.T, schema, doc string) {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found: install libxml2-utils")
	}
	out, err := exec.Command(bin, "--noout", "--nonet", "--schema", filepath.Join("backend", "export", "testdata", "xsd", schema), doc).CombinedOutput()
	if err != nil {
		t.Fatalf("%s does not validate against %s: %v\n%s", doc, schema, err, out)
	}
}

// `rhizome export` over a library of the real sessions: the JSON reads
// back (export.ReadJSON) with every segment node and the offline relations
// across sessions (confidence in (0, 1], a rationale, maker "offline"); the
// GraphML validates against the GraphML schema and the GEXF 1.3 against
// the GEXF schema (namespace mapped, as backend/export's test does); the
// Markdown folder has one note per node. --project narrows it; a missing or
// unknown format is a usage error.
func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "library.db")
	var stdout, stderr bytes.Buffer
	args := append([]string{"import", "--db", db, "--json"}, pitest.Samples()...)
	args = append(args, "backend/segment/testdata/v3/sessions")
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("import: %d %s", code, stderr.String())
	}
	exp := func(wantCode int, args ...string) string {
		t.Helper()
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), append([]string{"export", "--db", db}, args...), &stdout, &stderr); code != wantCode {
			t.Fatalf("export %v: status %d, want %d: %s %s", args, code, wantCode, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	jsonPath := filepath.Join(dir, "out", "graph.json")
	exp(0, "--format", "json", jsonPath)
	f, err := os.Open(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	g, err := export.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatalf("the JSON export does not read back: %v", err)
	}
	kinds := map[string]int{}
	for _, n := range g.Nodes {
		kinds[n.Kind]++
	}
	offline, projects := 0, map[string]bool{}
	for _, n := range g.Nodes {
		if p, ok := n.Attrs["project"].(string); ok {
			projects[p] = true
		}
	}
	for _, e := range g.Edges {
		if e.CreatedBy == "offline" {
			offline++
			if e.Confidence <= 0 || e.Confidence > 1 || e.Rationale == "" {
				t.Errorf("offline edge %+v", e)
			}
		}
	}
	if kinds["segment"] < 10 || offline == 0 || len(projects) < 2 {
		t.Fatalf("JSON export: kinds %v, %d offline edges, projects %v", kinds, offline, projects)
	}

	gml := filepath.Join(dir, "graph.graphml")
	exp(0, "--format", "graphml", gml)
	exportSchema(t, "graphml.xsd", gml)
	b, _ := os.ReadFile(gml)
	if !strings.Contains(string(b), "RELATES_TO") {
		t.Error("the GraphML export has no RELATES_TO edge")
	}

	gexf := filepath.Join(dir, "graph.gexf")
	exp(0, gexf, "--format", "gexf") // flags after the path work too
	b, _ = os.ReadFile(gexf)
	mapped := strings.NewReplacer(`xmlns="http://gexf.net/1.3"`, `xmlns="http://www.gexf.net/1.2draft"`,
		`http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd`, `http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd`,
		`version="1.3"`, `version="1.2"`).Replace(string(b))
	mapped = regexp.MustCompile(` kind="[^"]*"`).ReplaceAllString(mapped, "")
	m := filepath.Join(dir, "mapped.gexf")
	os.WriteFile(m, []byte(mapped), 0o644)
	exportSchema(t, "gexf.xsd", m)

	md := filepath.Join(dir, "notes")
	exp(0, "--format", "markdown", md)
	notes, _ := filepath.Glob(filepath.Join(md, "*.md"))
	if len(notes) < len(g.Nodes) {
		t.Errorf("markdown: %d notes for %d nodes", len(notes), len(g.Nodes))
	}

	// One project only.
	pj := filepath.Join(dir, "pi.json")
	exp(0, "--project", "/Users/badlogic/workspaces/pi-mono", "--format", "json", pj)
	f, _ = os.Open(pj)
	one, err := export.ReadJSON(f)
	f.Close()
	if err != nil || len(one.Nodes) == 0 || len(one.Nodes) >= len(g.Nodes) {
		t.Errorf("project export: %v, %d of %d nodes", err, len(one.Nodes), len(g.Nodes))
	}
	for _, n := range one.Nodes {
		if n.Attrs["project"] != "/Users/badlogic/workspaces/pi-mono" {
			t.Errorf("project export has node %s of %v", n.ID, n.Attrs["project"])
		}
	}

	exp(2, filepath.Join(dir, "x"))
	if !strings.Contains(stderr.String(), "--format is required") {
		t.Errorf("no format: %s", stderr.String())
	}
	exp(2, "--format", "pdf", filepath.Join(dir, "x"))
	if !strings.Contains(stderr.String(), `unknown format "pdf"`) {
		t.Errorf("bad format: %s", stderr.String())
	}
}
