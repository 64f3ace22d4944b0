package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"rhizome/backend/pisession/pitest"
)

// kill -9 during either phase of an import (issue 25): while it makes the
// sessions readable (four moments: a fifth, two, three and four fifths of
// the files committed) and while it derives them (the same fractions of
// the sessions derived), each time `rhizome import` run again: the last
// run completes, and the library holds what a clean import of the same
// files makes, nothing lost or doubled: sessions, entries, nodes and
// their versions, summaries, knowledge, relations.
func TestImportKilledInEachPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: eight imports killed and resumed")
	}
	corpus := filepath.Join(t.TempDir(), "sessions")
	files, _, err := pitest.WriteCorpus("../app/samples", corpus, 24<<20)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "library.db")
	count := func(query string) int {
		c, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(2000)")
		if err != nil {
			return -1
		}
		defer c.Close()
		var n int
		if c.QueryRow(query).Scan(&n) != nil {
			return -1
		}
		return n
	}
	committed := func() int { return count(`SELECT count(*) FROM sessions`) }
	derived := func() int {
		if committed() < files {
			return -1 // still in the readable phase
		}
		return count(`SELECT count(*) FROM sessions WHERE derive_pending = 0`)
	}
	kills := map[string]int{}
	for _, phase := range []struct {
		name  string
		reach func() int
	}{{"readable", committed}, {"derived", derived}} {
		for k := 1; k <= 4; k++ {
			at := files * k / 5
			done := start(t, rhizomeCmd("import", "--db", db, "--json", corpus))
			killed := false
			for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				select {
				case r := <-done:
					if r.code != 0 {
						t.Fatalf("%s phase, moment %d: the import failed (%d): %s", phase.name, k, r.code, r.err)
					}
					t.Logf("%s phase, moment %d (%d of %d): the import ended first", phase.name, k, at, files)
				default:
					if phase.reach() < at {
						continue
					}
					// The moment: kill -9 (the test's process is the parent).
					if err := syscall.Kill(cmdPid(t, done), syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					<-done
					killed = true
				}
				break
			}
			if killed {
				kills[phase.name]++
			}
		}
	}
	t.Logf("killed %v", kills)
	if kills["readable"] < 2 || kills["derived"] < 2 {
		t.Fatalf("killed %v: fewer than two moments of each phase were caught, the test shows little", kills)
	}

	r, code := importJSON(t, db, corpus)
	if code != 0 || r.Totals["completeSeconds"] <= 0 || r.Totals["failed"] != 0 {
		t.Fatalf("the import after the kills: status %d, totals %v", code, r.Totals)
	}
	clean := filepath.Join(t.TempDir(), "clean.db")
	if _, code := importJSON(t, clean, corpus); code != 0 {
		t.Fatalf("clean import: status %d", code)
	}
	for _, q := range []string{
		`SELECT id || ' ' || entries || ' ' || derive_pending FROM sessions`,
		`SELECT count(*) || ' entries' FROM entries`,
		`SELECT id || ' ' || summary FROM nodes`,
		`SELECT node_id || ' v' || version FROM node_versions`,
		`SELECT item || ' ' || title || ' ' || text || ' ' || source || ' ' || queued FROM summaries`,
		`SELECT session_id || ' ' || kind || ' ' || title || ' v' || version FROM knowledge`,
		`SELECT source_id || ' ' || target_id || ' ' || type || ' ' || created_by FROM edges`,
	} {
		got, want := rowsOf(t, db, q), rowsOf(t, clean, q)
		if len(want) == 0 {
			t.Errorf("%s: no rows in the clean library: the check shows nothing", q)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d rows after the kills, %d in a clean import; first difference: %s", q, len(got), len(want), firstRowDiff(got, want))
		}
	}
}

// cmdPid is the pid of the process whose result done will carry: the
// newest rhizomeCmd started (start keeps it).
func cmdPid(t *testing.T, done <-chan processResult) int {
	t.Helper()
	pid, ok := startedPids.Load(done)
	if !ok {
		t.Fatal("no process for this result channel")
	}
	return pid.(int)
}

// rowsOf runs query on the library at path and returns its rows, sorted.
func rowsOf(t *testing.T, path, query string) []string {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(query + ` ORDER BY 1`)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	return out
}

// firstRowDiff shows the first row where a and b differ.
func firstRowDiff(a, b []string) string {
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			j, _ := json.Marshal([]string{x, y})
			return fmt.Sprintf("row %d: %s", i, strings.TrimSpace(string(j)))
		}
	}
	return "none"
}
