package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The lookups an import makes for every file must not read the whole
// sessions table: with thousands of sessions a full scan per file made a
// library's import quadratic (build/bench: 7x a bare decode at 300 MB of
// Claude Code and Codex logs). Their columns have partial indexes
// (non-empty values only), which SQLite uses only when the query itself
// says the value is not empty.
func TestPerFileLookupsUseTheirIndexes(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "library.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, q := range map[string]struct {
		sql  string
		args []any
	}{
		"ForkChildren":      {forkChildrenQuery, []any{1, "/a/b.jsonl", "b.jsonl", "id"}},
		"SubagentSessions":  {subagentSessionsQuery, []any{`["x"]`, "parent"}},
		"SubagentFirstNode": {subagentFirstNodeQuery, []any{"x", "parent"}},
	} {
		rows, err := st.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q.sql, q.args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN s") {
				t.Errorf("%s reads every session: %s", name, strings.Join(plan, "; "))
			}
		}
	}
}

// An append deletes the boundary edges of the nodes it remakes (one or two)
// by their nodes, not by a list of every node of the session: with 14,000
// segments that list made appending 1 KB to a long Claude Code session slow.
func TestAppendEdgeDeleteReadsOnlyTheNodesRemade(t *testing.T) {
	plan := queryPlan(t, resumeEdgesQuery, 1)
	for _, step := range plan {
		// Every node of the session: nodes_segment searched by session alone.
		if strings.HasPrefix(step, "SCAN") || strings.Contains(step, "nodes_segment (session_pk=?)") {
			t.Errorf("the append's edge delete reads more than the nodes remade: %s", strings.Join(plan, "; "))
			break
		}
	}
}

// An import looks its session up by id without reading its segments and
// nodes (three subqueries over thousands of rows in a long session, twice
// per append).
func TestImportLookupReadsOneSession(t *testing.T) {
	plan := queryPlan(t, importSessionQuery, "id")
	if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH s USING INDEX") {
		t.Errorf("the import's lookup reads more than its session: %s", strings.Join(plan, "; "))
	}
}

// A file's report counts the boundary edges of its session's nodes through
// their nodes (edges_source, edges_target), not by reading every boundary
// edge of the library: that read, once per imported file, made an import of
// thousands of small files quadratic (an eighth of its time at 60 MB of
// Claude Code and Codex logs, growing with the library).
func TestSessionEdgeCountsReadOnlyTheSessionsEdges(t *testing.T) {
	plan := queryPlan(t, sessionEdgeCountsQuery, 1)
	for _, step := range plan {
		if strings.HasPrefix(step, "SCAN e") || strings.Contains(step, "edges_created_by (created_by=?)") {
			t.Errorf("the session's edge counts read every boundary edge: %s", strings.Join(plan, "; "))
			break
		}
	}
}

// A rewritten file's session is cleared by deleting the boundary edges of
// its nodes through those nodes, not by reading every boundary edge of the
// library (an eighth of an import of 300 MB where files are rewritten).
func TestClearSessionReadsOnlyTheSessionsEdges(t *testing.T) {
	plan := queryPlan(t, clearSessionEdgesQuery, 1)
	for _, step := range plan {
		if strings.HasPrefix(step, "SCAN e") || strings.Contains(step, "edges_created_by (created_by=?)") {
			t.Errorf("clearing a session reads every boundary edge: %s", strings.Join(plan, "; "))
			break
		}
	}
}

// A sub-agent's spawn is one seek of its parent session's entries naming
// the agent, however many other sessions name the same agent id (copies of
// a session: reading them all made importing copies quadratic).
func TestSubagentSpawnSeeksOneSession(t *testing.T) {
	plan := queryPlan(t, subagentSpawnQuery, "session", "agent")
	joined := strings.Join(plan, "; ")
	if !strings.Contains(joined, "entries_subagent_id (subagent_id=? AND session_pk=?)") || strings.Contains(joined, "TEMP B-TREE") {
		t.Errorf("the spawn look-up reads more than the parent's entries naming the agent: %s", joined)
	}
}

// Finding a fork point looks up the child's ids in its parent, one seek
// each: it read every id of the parent before (a tenth of the writer's
// time importing 300 MB of Claude Code and Codex copies, pprof).
func TestEntrySeqsSeeksEachID(t *testing.T) {
	plan := queryPlan(t, entrySeqsQuery, 1, `["a","b"]`)
	joined := strings.Join(plan, "; ")
	if !strings.Contains(joined, "SEARCH e USING INDEX") || !strings.Contains(joined, "(session_pk=? AND entry_id=?)") {
		t.Errorf("the look-up of a child's ids reads more than one index entry per id: %s", joined)
	}
}

// The reader's check for copies in the library seeks each key.
func TestHasDedupeKeysSeeksEachKey(t *testing.T) {
	plan := queryPlan(t, hasDedupeKeysQuery, `["a","b"]`)
	joined := strings.Join(plan, "; ")
	if !strings.Contains(joined, "entries_dedupe_key (dedupe_key=?)") {
		t.Errorf("the check for copies reads more than one index entry per key: %s", joined)
	}
}

// queryPlan is SQLite's plan for query with args in a new library: the
// detail of each step (EXPLAIN QUERY PLAN).
func queryPlan(t *testing.T, query string, args ...any) []string {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), "library.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}
