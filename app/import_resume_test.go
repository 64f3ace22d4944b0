package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"rhizome/app/ingest"
)

// A live session grown line by line goes on, at each append, from the
// summary pass and knowledge extractor its last import kept (the open
// segment's states in sessions.resume), and ends as a library that fed the
// open segment's stored entries again at each append (the states taken
// out before each import, as a library written before they were kept has
// them): the same nodes, knowledge, summaries and entries, on the real
// sessions with a compaction and without.
func TestAppendGoesOnFromTheKeptStates(t *testing.T) {
	for _, name := range []string{"session-with-compaction.jsonl", "large-session.jsonl"} {
		t.Run(name, func(t *testing.T) {
			full, err := os.ReadFile(filepath.Join("samples", name))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(string(full), "\n")
			kept, refed := newTestLib(t), newTestLib(t)
			live := filepath.Join(t.TempDir(), name) // one file, two libraries
			resumed := 0
			for n := 30; ; n += 47 {
				last := n >= lines
				b := full
				if !last {
					b = prefixLines(full, n)
				}
				if err := os.WriteFile(live, b, 0o644); err != nil {
					t.Fatal(err)
				}
				for i, l := range []*testLib{kept, refed} {
					if i == 1 {
						if _, err := l.db(t).Exec(`UPDATE sessions SET resume = json_remove(resume, '$.sums', '$.know') WHERE resume <> ''`); err != nil {
							t.Fatal(err)
						}
					}
					fr := l.importPaths(t, live).Files[0]
					if fr.Status == ingest.StatusFailed {
						t.Fatalf("%d lines: %+v", n, fr)
					}
				}
				if got := kept.texts(t, `SELECT count(*) FROM sessions WHERE json_extract(resume, '$.sums') IS NOT NULL AND json_extract(resume, '$.know') IS NOT NULL`); got[0] == "1" {
					resumed++
				}
				if last {
					break
				}
			}
			if resumed == 0 {
				t.Fatal("no import kept the open segment's states")
			}
			a, b := kept.snapshot(t), refed.snapshot(t)
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"entries", a.Entries, b.Entries}, {"nodes", a.Nodes, b.Nodes}, {"knowledge", a.Knowledge, b.Knowledge}, {"edges", a.Edges, b.Edges}} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s differ from the refed library's: %s", c.what, firstDiff(c.got, c.want))
				}
			}
			query := `SELECT item || ' ' || kind || ' ' || coalesce(title, '') || ' ' || text || ' ' || input_hash FROM summaries ORDER BY item, kind`
			if got, want := kept.texts(t, query), refed.texts(t, query); !reflect.DeepEqual(got, want) {
				t.Errorf("summaries differ from the refed library's: %s", firstDiff(got, want))
			}
			if len(a.Knowledge) == 0 || len(a.Nodes) < 2 {
				t.Errorf("%d knowledge items, %d nodes: the sessions show nothing", len(a.Knowledge), len(a.Nodes))
			}
		})
	}
}
