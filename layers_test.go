package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The layers import downwards only (README, "Map of the code"): backend
// packages import neither store nor app nor a transport; store never imports
// app; app/ingest never imports app; app imports no transport (cli, serve,
// mcp). Test files are left out: a test may reach up for a fixture.
func TestLayersImportDownwards(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	under := func(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
	forbidden := []struct{ from, to []string }{
		{[]string{"rhizome/backend"}, []string{"rhizome/store", "rhizome/app", "rhizome/cli", "rhizome/serve", "rhizome/mcp"}},
		{[]string{"rhizome/store"}, []string{"rhizome/app", "rhizome/cli", "rhizome/serve", "rhizome/mcp"}},
		{[]string{"rhizome/app/ingest"}, []string{"rhizome/app", "rhizome/cli", "rhizome/serve", "rhizome/mcp"}},
		{[]string{"rhizome/app"}, []string{"rhizome/cli", "rhizome/serve", "rhizome/mcp"}},
		{[]string{"rhizome/serve", "rhizome/mcp"}, []string{"rhizome/cli"}},
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 20 {
		t.Fatalf("go list found %d packages", len(lines))
	}
	for _, line := range lines {
		f := strings.Fields(line)
		pkg, imports := f[0], f[1:]
		for _, rule := range forbidden {
			from := false
			for _, r := range rule.from {
				from = from || under(pkg, r)
			}
			if !from {
				continue
			}
			for _, imp := range imports {
				for _, to := range rule.to {
					// A package's own sub-packages are below it (app/ingest
					// imports none of app, but app/ingest/x would be its own).
					if under(imp, to) && !under(imp, pkg) {
						t.Errorf("%s imports %s: the layers import downwards only", pkg, imp)
					}
				}
			}
		}
	}
}
