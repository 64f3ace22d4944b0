package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12 §2: `rhizome import` reads MemoBrain snapshots like any other
// file (--json gives the format memobrain, the nodes by kind and the edge
// count), and `rhizome export --format memobrain ITEM OUT` writes one back,
// equal to the file imported.
func TestImportAndExportMemoBrain(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lib.db")
	in, err := os.ReadFile("../backend/memobrain/testdata/example_snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "kunsthaus.json")
	if err := os.WriteFile(snap, in, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"import", "--db", db, "--json", snap}, &out, &errb); code != 0 {
		t.Fatalf("import: exit status %d: %s", code, errb.String())
	}
	var rep struct {
		Files []struct {
			Format    string `json:"format"`
			Status    string `json:"status"`
			Reasoning struct {
				GraphID     string         `json:"graphId"`
				URI         string         `json:"uri"`
				NodesByKind map[string]int `json:"nodesByKind"`
				Nodes       int            `json:"nodes"`
				Edges       int            `json:"edges"`
			} `json:"reasoning"`
		} `json:"files"`
		Totals map[string]float64 `json:"totals"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("import --json: %v\n%s", err, out.String())
	}
	f := rep.Files[0]
	if len(rep.Files) != 1 || f.Format != "memobrain" || f.Status != "imported" || f.Reasoning.Nodes != 9 || f.Reasoning.Edges != 8 ||
		f.Reasoning.NodesByKind["task"] != 1 || f.Reasoning.NodesByKind["subtask"] != 2 || f.Reasoning.NodesByKind["evidence"] != 6 || rep.Totals["imported"] != 1 {
		t.Fatalf("import --json report: %s", out.String())
	}
	out.Reset()
	if code := run(context.Background(), []string{"import", "--db", db, snap}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "memobrain: 9 nodes (1 task, 2 subtask, 6 evidence), 8 edges") {
		t.Errorf("import's text report: %q", out.String())
	}

	// By URI and by id, to a file and to stdout.
	for _, item := range []string{f.Reasoning.URI, f.Reasoning.GraphID} {
		dst := filepath.Join(dir, "out.json")
		os.Remove(dst)
		errb.Reset()
		if code := run(context.Background(), []string{"export", "--db", db, "--format", "memobrain", item, dst}, &out, &errb); code != 0 {
			t.Fatalf("export %s: exit status %d: %s", item, code, errb.String())
		}
		got, err := os.ReadFile(dst)
		if err != nil || !bytes.Equal(got, in) {
			t.Errorf("export %s: the file written is not the one imported (%v)", item, err)
		}
	}
	out.Reset()
	if code := run(context.Background(), []string{"export", f.Reasoning.URI, "-", "--db", db}, &out, &errb); code != 0 || !bytes.Equal(out.Bytes(), in) {
		t.Errorf("export to stdout (format from the item): exit %d, %d bytes", code, out.Len())
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--db", db, "--format", "memobrain", f.Reasoning.URI}, 2, "give the item and the file to write"},
		{[]string{"export", "--db", db, "--format", "svg", f.Reasoning.URI, "x.svg"}, 2, `unknown format "svg" (want memobrain)`},
		{[]string{"export", "--db", db, "--format", "memobrain", "rhizome:session/abc", "x.json"}, 2, "memobrain exports a reasoning graph (rhizome:reasoning/<id>), not rhizome:session/abc"},
		{[]string{"export", "--db", db, "--format", "memobrain", "rhizome:reasoning/01NOSUCHGRAPH", filepath.Join(dir, "x.json")}, 1, "not found"},
		{[]string{"export", "--db", db, "--format", "memobrain", "rhizome:nope/x", "x.json"}, 2, `unknown kind "nope"`},
	} {
		errb.Reset()
		code := run(context.Background(), tc.args, &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args[1:], code, errb.String(), tc.code, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Error("a failed export wrote a file")
	}
}
