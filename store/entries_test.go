package store

import (
	"strings"
	"testing"
)

// A page of a segment's entries costs the page, not the session: both of
// its queries are searches of an index, the entries a range of
// (session_pk, seq) and the labels a lookup of the labels' index by target,
// never a scan of the session's entries (a million in a long session).
func TestSegmentPageQueriesUseIndexes(t *testing.T) {
	s, _ := openTemp(t)
	for _, c := range []struct {
		name, query string
		args        []any
		want        string
	}{
		{"entries", segmentPageQuery, []any{1, 100, 199}, "SEARCH entries USING INDEX entries_session_seq (session_pk=? AND seq>? AND seq<?)"},
		{"labels", segmentLabelsQuery, []any{1, `["a","b"]`}, "SEARCH entries USING INDEX entries_labels (session_pk=? AND target_id=?)"},
	} {
		rows, err := s.db.Query("EXPLAIN QUERY PLAN "+c.query, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		joined := strings.Join(plan, "; ")
		if !strings.Contains(joined, c.want) {
			t.Errorf("%s query plan %q, want %q", c.name, joined, c.want)
		}
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN entries") {
				t.Errorf("%s query scans the entries: %q", c.name, joined)
			}
		}
	}
}
