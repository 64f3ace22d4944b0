package store

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
)

// checkCounts fails unless every session's stored totals are what counting
// its rows gives.
func checkCounts(t *testing.T, tx *Tx, step string) {
	t.Helper()
	rows, err := tx.query(`SELECT pk FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	var pks []int64
	for rows.Next() {
		var pk int64
		rows.Scan(&pk)
		pks = append(pks, pk)
	}
	rows.Close()
	for _, pk := range pks {
		stored, err := tx.SessionCounts(pk)
		if err != nil {
			t.Fatal(err)
		}
		counted, err := tx.CountSession(pk)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(stored, counted) {
			t.Fatalf("after %s: session %d: stored %+v, counted %+v", step, pk, stored, counted)
		}
	}
	var orphans int
	tx.queryRow(`SELECT count(*) FROM session_counts WHERE session_pk NOT IN (SELECT pk FROM sessions)`).Scan(&orphans)
	if orphans != 0 {
		t.Fatalf("after %s: %d totals kept for sessions no longer stored", step, orphans)
	}
	for _, q := range []string{`SELECT count(*) FROM session_counts WHERE n < 0`} {
		var n int
		tx.queryRow(q).Scan(&n)
		if n != 0 {
			t.Fatalf("after %s: %d negative totals", step, n)
		}
	}
}

// Every way the library changes segments, nodes and edges (the writers the
// import uses, and deletes, cascades, moves and upserts in SQL) keeps the
// stored totals equal to the rows' counts, step after step of a random
// sequence; the migration's backfill computes the same totals.
func TestSessionCountsFollowTheRows(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rnd := rand.New(rand.NewSource(11))
	types := []segment.BoundaryType{"branch", "compaction", "resume", "tree_jump"}
	edgeTypes := []string{"continuation", "fork", "subagent", "branch"}
	var sessions []int64
	newSession := func() {
		sess := &Session{ID: fmt.Sprintf("s%d", rnd.Int63()), Path: "p", FileName: "f.jsonl", Cwd: "/w", Version: 3, Header: []byte(`{}`)}
		if err := tx.PutSession(sess); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, sess.PK)
	}
	nodesOf := func() []string {
		rows, err := tx.query(`SELECT id FROM nodes ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id string
			rows.Scan(&id)
			out = append(out, id)
		}
		return out
	}
	pick := func(xs []string) string { return xs[rnd.Intn(len(xs))] }
	for range 3 {
		newSession()
	}
	for step := 0; step < 600; step++ {
		pk := sessions[rnd.Intn(len(sessions))]
		nodes := nodesOf()
		op := rnd.Intn(24)
		var name string
		switch {
		case op <= 7: // a segment, new or replacing one (an append extends the open one), with its node
			name = "PutSegment+PutNode"
			idx := rnd.Intn(12)
			seg := &segment.Segment{Index: idx, StartEntryID: "e", EndEntryID: "e", StartSeq: idx * 10, EndSeq: idx*10 + 9}
			for range rnd.Intn(3) {
				seg.Boundaries = append(seg.Boundaries, segment.Boundary{Type: types[rnd.Intn(len(types))], EntryID: "e"})
			}
			if err := tx.PutSegment(pk, seg); err != nil {
				t.Fatal(err)
			}
			n := &graph.Node{ID: fmt.Sprintf("%08x%08x", pk, idx)}
			if err := tx.PutNode(pk, idx, n, TriggerReplace); err != nil {
				t.Fatal(err)
			}
		case op <= 15 && len(nodes) > 0: // an edge, structural or not, maybe one already stored (its maker may change), maybe a loop
			name = "PutEdge"
			by := graph.CreatedByBoundary
			if rnd.Intn(3) == 0 {
				by = graph.CreatedByOffline
			}
			src := pick(nodes)
			dst := src
			if rnd.Intn(8) != 0 {
				dst = pick(nodes)
			}
			if err := tx.PutEdge(&graph.Edge{SourceNodeID: src, TargetNodeID: dst, Type: edgeTypes[rnd.Intn(len(edgeTypes))], CreatedBy: by}); err != nil {
				t.Fatal(err)
			}
		case op == 16 && len(nodes) > 0:
			name = "DeleteEdgesInto"
			if err := tx.DeleteEdgesInto(pick(nodes), edgeTypes[rnd.Intn(len(edgeTypes))]); err != nil {
				t.Fatal(err)
			}
		case op == 17 && len(nodes) > 0: // a node deleted: its edges go by cascade
			name = "DELETE node"
			if _, err := tx.exec(`DELETE FROM nodes WHERE id = ?`, pick(nodes)); err != nil {
				t.Fatal(err)
			}
		case op == 18 && len(nodes) > 0: // a node moved to another session
			name = "move node"
			if _, err := tx.exec(`UPDATE nodes SET session_pk = ?, segment_idx = ? WHERE id = ?`, pk, -1000-step, pick(nodes)); err != nil {
				t.Fatal(err)
			}
		case op == 19: // a rewrite: cleared, then the detached nodes deleted
			name = "ClearSession+DeleteDetachedNodes"
			if err := tx.ClearSession(pk); err != nil {
				t.Fatal(err)
			}
			if rnd.Intn(2) == 0 {
				if err := tx.DeleteDetachedNodes(pk); err != nil {
					t.Fatal(err)
				}
			}
		case op == 20: // an append's resume from an open segment
			name = "ResumeSession"
			open := rnd.Intn(12)
			if _, err := tx.ResumeSession(pk, open*10, 0, open); err != nil {
				t.Fatal(err)
			}
			if err := tx.DeleteDetachedNodes(pk); err != nil {
				t.Fatal(err)
			}
		case op == 21 && rnd.Intn(4) == 0: // a session deleted with everything it holds, another begun
			name = "DELETE session"
			if _, err := tx.exec(`DELETE FROM sessions WHERE pk = ?`, pk); err != nil {
				t.Fatal(err)
			}
			for i, p := range sessions {
				if p == pk {
					sessions = append(sessions[:i], sessions[i+1:]...)
					break
				}
			}
			newSession()
		default:
			continue
		}
		checkCounts(t, tx, fmt.Sprintf("step %d (%s)", step, name))
	}
	var edges, segs int
	tx.queryRow(`SELECT count(*) FROM edges WHERE created_by = 'boundary'`).Scan(&edges)
	tx.queryRow(`SELECT count(*) FROM segments`).Scan(&segs)
	if edges < 10 || segs < 10 {
		t.Fatalf("the sequence left %d structural edges and %d segments: too few to check anything", edges, segs)
	}

	// The backfill of a library made before the totals were kept.
	b, err := os.ReadFile("migrations/0090_session_counts.sql")
	if err != nil {
		t.Fatal(err)
	}
	sql := string(b)
	backfill := sql[strings.Index(sql, "-- Backfill"):strings.Index(sql, "-- Segments and their boundaries.")]
	if _, err := tx.exec(`DELETE FROM session_counts`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.tx.ExecContext(ctx, backfill); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, tx, "the backfill")
}
