package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// What an import writes for every file goes through the Store's prepared
// statements: the offline summaries and knowledge of each file were run
// unprepared, so SQLite parsed them again for every file (a tenth of the
// CPU of importing thousands of small Claude Code and Codex files, pprof).
func TestImportWritesUsePreparedStatements(t *testing.T) {
	s, _ := openTemp(t)
	tx, err := s.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	t0 := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	key := SummaryKey{Item: "rhizome:session/abc", Kind: "session", Subject: "abc"}
	ws := []SummaryWrite{{Key: key, Add: &SummaryVersion{Title: "t", Text: "x", Source: "offline", MadeAt: t0}, Queue: QueueOffline}}
	if err := tx.WriteSummaries(ws, showNewest, t0); err != nil {
		t.Fatal(err)
	}
	// Again: the item has a row now (the first write inserted it whole).
	if err := tx.WriteSummaries(ws, showNewest, t0); err != nil {
		t.Fatal(err)
	}
	if err := tx.PutOfflineKnowledge("node-1", nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.DeleteOfflineKnowledge("sess-1"); err != nil {
		t.Fatal(err)
	}
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for _, want := range []string{"SELECT count(*) FROM summaries WHERE item", "INSERT INTO summaries (item", "INSERT INTO summary_versions", "UPDATE summaries SET input_hash",
		"DELETE FROM knowledge WHERE segment_node_id", "DELETE FROM knowledge WHERE session_id"} {
		found := false
		for q := range s.stmts.m {
			if strings.Contains(q, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%q… was not run through the prepared statements", want)
		}
	}
}
