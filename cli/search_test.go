package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"rhizome/app"
)

// `rhizome search` is the hybrid search: --explain breaks scores down,
// --bridges lists paths between the hits, --filter narrows them and names a
// bad key; `rhizome consolidate --dry-run` plans without changing the
// library, and a real run is logged.
func TestSearchAndConsolidateCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lib.db")
	if _, code := importJSON(t, db, "../app/samples"); code != 0 {
		t.Fatalf("import: exit %d", code)
	}
	cmd := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(context.Background(), args, &out, &errb)
		return out.String(), errb.String(), code
	}
	out, errs, code := cmd("search", "--db", db, "--json", "--explain", "--bridges", "--filter", "kind=entry", "--filter", "role=user", "theme colors")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, errs)
	}
	var res app.HybridResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json: %v: %s", err, out)
	}
	if len(res.Hits) == 0 || len(res.Bridges) == 0 {
		t.Fatalf("%d hits, %d bridges", len(res.Hits), len(res.Bridges))
	}
	for _, h := range res.Hits {
		if h.Kind != "entry" || h.Role != "user" || len(h.Why) != 8 {
			t.Errorf("hit %+v", h)
		}
	}
	out, _, code = cmd("search", "--db", db, "--explain", "--bridges", "theme", "selector")
	if code != 0 || !strings.Contains(out, "why: ") || !strings.Contains(out, "bridges (") || !strings.Contains(out, "]-") {
		t.Errorf("search text: exit %d:\n%s", code, out)
	}
	if _, errs, code := cmd("search", "--db", db, "--filter", "colour=red", "theme"); code != 2 || !strings.Contains(errs, `unknown key "colour"`) {
		t.Errorf("a bad filter: exit %d: %s", code, errs)
	}

	out, errs, code = cmd("consolidate", "--db", db, "--dry-run", "--json", "--cycle", "decay")
	if code != 0 {
		t.Fatalf("consolidate --dry-run: exit %d: %s", code, errs)
	}
	var dry app.ConsolidationRun
	if err := json.Unmarshal([]byte(out), &dry); err != nil || !dry.DryRun || dry.ChangeCount == 0 || dry.Stats[0].Cycle != "decay" {
		t.Fatalf("dry run %+v %v: %s", dry.Stats, err, out)
	}
	out, errs, code = cmd("consolidate", "--db", db, "--cycle", "decay")
	if code != 0 || !strings.Contains(out, "decay    examined") {
		t.Fatalf("consolidate: exit %d: %s %s", code, out, errs)
	}
	if _, errs, code := cmd("consolidate", "--db", db, "--cycle", "nap"); code != 1 || !strings.Contains(errs, `"nap"`) {
		t.Errorf("an unknown cycle: exit %d: %s", code, errs)
	}
}
