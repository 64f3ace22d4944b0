package app

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// derive runs to its end what an import leaves to the background after
// making the sessions readable (issue 25), as the window's workers do: the
// summaries queue (the sessions' summaries and offline knowledge) and the
// relations queue.
func derive(t testing.TB, a *App) {
	t.Helper()
	ctx := context.Background()
	if err := a.c.summaries.runUntilIdle(ctx); err != nil {
		t.Fatalf("deriving: %v", err)
	}
	if msg, err := a.c.relations.wait(ctx); err != nil || msg != "" {
		t.Fatalf("deriving the relations: %v %s", err, msg)
	}
}

// An import makes the sessions readable and leaves their derivation to the
// summaries queue (issue 25): before it runs, the entries are stored and
// searched, the segments and nodes drawn, the sessions counted as still
// being analysed by the graph and the queue's status, and no knowledge is
// found; after it, the library holds what an import that derives as it
// reads makes: the same nodes (labels included), knowledge, summaries
// and relations.
func TestImportReadableThenDerived(t *testing.T) {
	l := newTestLib(t)
	rep := l.importReadable(t, "samples")
	if rep.Totals.Imported != 3 || rep.Totals.ReadableSeconds <= 0 {
		t.Fatalf("totals %+v", rep.Totals)
	}
	if n, err := l.App.DerivePending(context.Background()); err != nil || n != 3 {
		t.Fatalf("%d sessions still being analysed (%v), want 3", n, err)
	}
	g, err := l.Graph.Graph(GraphFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Analysing != 3 || len(g.Nodes) == 0 {
		t.Errorf("graph: %d nodes, %d analysing", len(g.Nodes), g.Analysing)
	}
	if st, err := l.Summaries.QueueStatus(); err != nil || st.Analysing != 3 || st.Queued == 0 {
		t.Errorf("queue status %+v (%v)", st, err)
	}
	if hits, err := l.Search.Query("theme colors", 5); err != nil || len(hits) == 0 {
		t.Errorf("the readable sessions' entries are not searched: %d hits (%v)", len(hits), err)
	}
	// Titled by their first prompts meanwhile, not their file names.
	sessions, err := l.Library.Sessions("")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		if strings.HasSuffix(s.Title, ".jsonl") || s.Title == "" || s.TitleSource != "" {
			t.Errorf("session %s titled %q (%s) while it is analysed", s.ID, s.Title, s.TitleSource)
		}
	}
	if got := l.texts(t, `SELECT count(*) FROM knowledge`); got[0] != "0" {
		t.Errorf("%s knowledge items before the derivation", got[0])
	}
	// Cancelling the summaries keeps the derivation queued.
	if _, err := l.Summaries.Cancel(); err != nil {
		t.Fatal(err)
	}
	if st, _ := l.Summaries.QueueStatus(); st.Queued != 3 {
		t.Errorf("after Cancel: %+v, want the 3 sessions' derivation still queued", st)
	}

	derive(t, l.App)
	if n, _ := l.App.DerivePending(context.Background()); n != 0 {
		t.Errorf("%d sessions still being analysed after the derivation", n)
	}
	inline := newTestLib(t)
	inline.Import.deriveInline = true
	inline.importPaths(t, "samples")
	a, b := l.snapshot(t), inline.snapshot(t)
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"entries", a.Entries, b.Entries}, {"segments", a.Segments, b.Segments}, {"nodes", a.Nodes, b.Nodes},
		{"knowledge", a.Knowledge, b.Knowledge}, {"edges", a.Edges, b.Edges}} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s differ from an import that derives as it reads: %s", c.what, firstDiff(c.got, c.want))
		}
		if len(c.got) == 0 {
			t.Errorf("no %s: the test checks nothing", c.what)
		}
	}
	query := `SELECT item || ' ' || title || ' ' || text || ' ' || source FROM summaries ORDER BY item`
	if got, want := l.texts(t, query), inline.texts(t, query); !reflect.DeepEqual(got, want) {
		t.Errorf("summaries differ from an import that derives as it reads: %s", firstDiff(got, want))
	}
	labels := l.texts(t, `SELECT count(*) FROM nodes n JOIN summaries s ON s.subject = n.id WHERE n.summary = s.text AND s.text <> ''`)
	if labels[0] == "0" {
		t.Error("no node took its segment summary's sentence")
	}
}
