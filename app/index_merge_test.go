package app

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"rhizome/app/ingest"
)

// importOneAtATime imports the real pi samples and the Claude Code and
// Codex fixture sessions into l, one file per import, as a watcher meets
// them: each import adds its own segments to the full-text indexes.
func importOneAtATime(t *testing.T, l *testLib) {
	t.Helper()
	var files []string
	for _, root := range []string{"samples", claudeHome, codexHome} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" && ingest.IsSessionFile(p) {
				files = append(files, p)
			}
			return err
		})
	}
	if len(files) < 8 {
		t.Fatalf("%d session files: the fixtures moved", len(files))
	}
	for _, f := range files {
		if rep := l.importPaths(t, f); rep.Totals.Failed != 0 {
			t.Fatalf("%s: %+v", f, rep.Files)
		}
	}
}

// searchable is what the full-text indexes answer for a few words of the
// fixtures, in order: merging their segments must not change it.
func (l *testLib) searchable(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT 'e' || rowid FROM entries_fts WHERE entries_fts MATCH 'health OR ledger OR compaction' ORDER BY rank, rowid`,
		`SELECT 'n' || rowid FROM nodes_fts WHERE nodes_fts MATCH 'main OR session' ORDER BY rank, rowid`,
		`SELECT 's' || rowid FROM summaries_fts WHERE summaries_fts MATCH 'main OR session' ORDER BY rank, rowid`,
		`SELECT 'i' || rowid FROM search_items_fts WHERE search_items_fts MATCH 'main OR file' ORDER BY rank, rowid`,
	} {
		out = append(out, l.texts(t, q)...)
	}
	return out
}

// A running app merges what each import wrote into the full-text indexes
// after it, in the background, so that no later append pays for merging
// it (issue 11 §2: the fifth append of 1 KB to a 155 MB session took
// 150-170 ms, FTS5 merging the import's segments at once; build/bench
// prints the appends' slowest). An import without the background (the
// command line) leaves the merging to the next running app; merged or not,
// the indexes answer the same and agree with their content.
func TestImportsLeaveIndexMergingToTheBackground(t *testing.T) {
	ctx := context.Background()

	// The command line: nothing merges after the imports.
	cli := newTestLib(t)
	importOneAtATime(t, cli)
	before := cli.searchable(t)
	if len(before) == 0 {
		t.Fatal("the queries find nothing: they test nothing")
	}
	worked, err := cli.st.MergeFullTextIndexes(ctx, mergeStepPages)
	if err != nil {
		t.Fatal(err)
	}
	if !worked {
		t.Fatal("the imports left no segments to merge: the test shows nothing")
	}
	steps := 1
	for worked {
		if steps++; steps > 100 {
			t.Fatal("merging never ends")
		}
		if worked, err = cli.st.MergeFullTextIndexes(ctx, mergeStepPages); err != nil {
			t.Fatal(err)
		}
	}
	if after := cli.searchable(t); !reflect.DeepEqual(after, before) {
		t.Errorf("merging changed what the indexes answer:\n%v\n%v", before, after)
	}
	cli.checkFullTextIndexes(t)

	// A running app: once its background work is done, nothing is left.
	app := newTestLib(t)
	app.DeferRelations()
	importOneAtATime(t, app)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := app.WaitBackground(wctx); err != nil {
		t.Fatal(err)
	}
	if worked, err := app.st.MergeFullTextIndexes(ctx, mergeStepPages); err != nil || worked {
		t.Errorf("after the background work the indexes still had segments to merge (%v, %v)", worked, err)
	}
	if got := app.searchable(t); !reflect.DeepEqual(got, before) {
		t.Errorf("the indexes merged in the background answer otherwise:\n%v\n%v", before, got)
	}
	app.checkFullTextIndexes(t)
}

// checkFullTextIndexes runs FTS5's integrity check of every full-text index
// against its content table.
func (l *testLib) checkFullTextIndexes(t *testing.T) {
	t.Helper()
	db := l.db(t)
	for _, fts := range []string{"entries_fts", "nodes_fts", "summaries_fts", "search_items_fts"} {
		if _, err := db.Exec(`INSERT INTO ` + fts + `(` + fts + `, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Errorf("%s: %v", fts, err)
		}
	}
}
