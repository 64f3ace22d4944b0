package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeZebraSession writes a pi session of n user messages, each text.
func writeZebraSession(t *testing.T, dir, id string, n int, text string) string {
	t.Helper()
	start := time.Date(2026, 1, 12, 9, 0, 0, 0, time.UTC)
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":"/p/%s"}`+"\n", id, start.Format(time.RFC3339Nano), id)
	parent := "null"
	for i := range n {
		at := start.Add(time.Duration(i+1) * time.Minute)
		eid := fmt.Sprintf("%s%04d", id[:4], i)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":{"role":"user","content":%q,"timestamp":%d}}`+"\n",
			eid, parent, at.Format(time.RFC3339Nano), text, at.UnixMilli())
		parent = `"` + eid + `"`
	}
	p := filepath.Join(dir, start.Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The search box leaves out archived nodes and their entries in the query
// itself: with more archived matches ranked above the live ones than the
// 2*limit+20 hits it used to ask for and filter, it still returns limit
// live hits (it returned none). The hybrid search too.
func TestSearchQueryLeavesArchivedOutInSQL(t *testing.T) {
	l := newTestLib(t)
	dir := t.TempDir()
	archived := writeZebraSession(t, dir, "aaaaaaaa-0000-7000-8000-000000000001", 60, "zebra")
	live := writeZebraSession(t, dir, "bbbbbbbb-0000-7000-8000-000000000002", 10,
		"a long note that mentions the zebra once among many other words about fences, gates, fields, paths and the weather of the week")
	l.importPaths(t, archived, live)
	if _, err := l.db(t).Exec(`INSERT INTO memory_state (item, archived)
		SELECT 'rhizome:node/' || n.id, 1 FROM nodes n JOIN sessions s ON s.pk = n.session_pk WHERE s.id = 'aaaaaaaa-0000-7000-8000-000000000001'`); err != nil {
		t.Fatal(err)
	}
	const limit = 5
	hits, err := l.Search.Query("zebra", limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != limit {
		t.Fatalf("%d hits, want %d live ones: %+v", len(hits), limit, hits)
	}
	for _, h := range hits {
		if h.SessionID != "bbbbbbbb-0000-7000-8000-000000000002" {
			t.Errorf("hit %s %s of session %s: archived", h.Kind, h.NodeID, h.SessionID)
		}
	}

	res, err := l.Search.Hybrid(HybridQuery{Query: "zebra", Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != limit {
		t.Fatalf("hybrid: %d hits, want %d live ones", len(res.Hits), limit)
	}
	for _, h := range res.Hits {
		if h.SessionID != "bbbbbbbb-0000-7000-8000-000000000002" {
			t.Errorf("hybrid hit %s of session %s: archived", h.NodeID, h.SessionID)
		}
	}
}
