package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rhizome/app"
	"rhizome/backend/export"
	"rhizome/backend/pisession/pitest"
	"rhizome/store"
)

// exportSchema validates doc against one of backend/export's schemas with
// libxml2's validator.
func exportSchema(t *testing.T, schema, doc string) {
	t.Helper()
	bin, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint not found: install libxml2-utils")
	}
	out, err := exec.Command(bin, "--noout", "--nonet", "--schema", filepath.Join("..", "backend", "export", "testdata", "xsd", schema), doc).CombinedOutput()
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
	args = append(args, "../backend/segment/testdata/v3/sessions")
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("import: %d %s", code, stderr.String())
	}
	// A decision recorded by hand that supersedes the one the offline rules
	// found, a person's link from it to its segment and one to a web page.
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(st, db)
	found, err := a.Knowledge.List(app.KnowledgeFilter{Kinds: []string{"decision"}})
	if err != nil || len(found) == 0 {
		t.Fatalf("no decision found offline in the samples: %v", err)
	}
	older := found[0]
	newer, err := a.Knowledge.Record(app.KnowledgeInput{Kind: "decision", Project: older.Project, SegmentNodeID: older.SegmentNodeID,
		Fields: app.KnowledgeFields{Description: "Resize images before inlining them"}, Supersedes: older.ID, Reason: "inline images broke the context"})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []app.LinkInput{
		{Source: newer.URI, Target: "rhizome:node/" + older.SegmentNodeID, Type: "REFERENCES", Note: "where it was decided"},
		{Source: newer.URI, Target: "https://example.org/adr/7", Type: "CITES"},
	} {
		if _, err := a.Links.Create(in); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

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
	// Knowledge nodes: the 84 items the offline rules find in these sessions
	// and the decision recorded, each DERIVED_FROM its segment node; the
	// stated supersession; the person's links, the web page as a url node.
	if kinds["decision"] < 2 || kinds["question"] == 0 || kinds["projectFact"] == 0 ||
		kinds["decision"]+kinds["question"]+kinds["projectFact"]+kinds["correction"]+kinds["failedApproach"] != 85 || kinds["url"] != 1 {
		t.Errorf("JSON export: knowledge kinds %v, want the 84 items found offline, the decision recorded and one url", kinds)
	}
	byID := map[string]export.Node{}
	for _, n := range g.Nodes {
		byID[n.ID] = n
	}
	derived := map[string]string{}
	var sup, refs, cites int
	for _, e := range g.Edges {
		switch {
		case e.Type == "DERIVED_FROM":
			derived[e.Source] = e.Target
			if byID[e.Target].Kind != "segment" || e.Confidence != 1 || !e.Directed {
				t.Errorf("provenance edge %+v", e)
			}
		case e.Type == "SUPERSEDES":
			sup++
			if e.Source != newer.URI || e.Target != older.URI || e.CreatedBy != "user" || e.Confidence != 1 || e.Rationale != "inline images broke the context" {
				t.Errorf("supersession edge %+v", e)
			}
		case e.Type == "REFERENCES" && e.Source == newer.URI:
			refs++
			if e.Target != "rhizome:node/"+older.SegmentNodeID || e.CreatedBy != "user" || e.Confidence != 1 || e.Attrs["note"] != "where it was decided" {
				t.Errorf("link edge %+v", e)
			}
		case e.Type == "CITES" && e.Source == newer.URI && e.Target == "https://example.org/adr/7":
			cites++
		}
	}
	for id, n := range byID {
		if strings.HasPrefix(id, "rhizome:knowledge/") {
			if derived[id] == "" || n.Label == "" || n.Attrs["status"] == nil || n.Attrs["madeBy"] == nil || n.Attrs["knowledgeConfidence"] == nil {
				t.Errorf("knowledge node %+v (source %q)", n, derived[id])
			}
		}
	}
	if byID[older.URI].Attrs["status"] != "superseded" || sup != 1 || refs != 1 || cites != 1 {
		t.Errorf("older decision %+v; %d SUPERSEDES, %d REFERENCES, %d CITES edges; want superseded and 1, 1, 1", byID[older.URI], sup, refs, cites)
	}

	gml := filepath.Join(dir, "graph.graphml")
	exp(0, "--format", "graphml", gml)
	exportSchema(t, "graphml.xsd", gml)
	b, _ := os.ReadFile(gml)
	for _, want := range []string{"RELATES_TO", "SUPERSEDES", "DERIVED_FROM", "CITES", newer.URI, ">projectFact<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the GraphML export has no %s", want)
		}
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
	for _, want := range []string{"SUPERSEDES", "DERIVED_FROM", newer.URI, "https://example.org/adr/7"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the GEXF export has no %s", want)
		}
	}

	md := filepath.Join(dir, "notes")
	exp(0, "--format", "markdown", md)
	notes, _ := filepath.Glob(filepath.Join(md, "*.md"))
	if len(notes) < len(g.Nodes) {
		t.Errorf("markdown: %d notes for %d nodes", len(notes), len(g.Nodes))
	}
	note, err := os.ReadFile(filepath.Join(md, "Resize images before inlining them.md"))
	if err != nil || !strings.Contains(string(note), `kind: "decision"`) || !strings.Contains(string(note), "supersedes:") ||
		!strings.Contains(string(note), "derived_from:") || !strings.Contains(string(note), "cites:") {
		t.Errorf("markdown: the recorded decision's note (%v):\n%s", err, note)
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
		if n.Kind == "url" || n.Kind == "node" { // a link's far end
			continue
		}
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
