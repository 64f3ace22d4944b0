package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// columns lists table's columns but pk.
func columns(t testing.TB, db *sql.DB, table string) []string {
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		rows.Scan(&c)
		if c != "pk" {
			out = append(out, c)
		}
	}
	return out
}

// replicate copies the library's sessions, nodes and edges (real content,
// new ids) until it holds at least n nodes.
func replicate(t testing.TB, path string, n int) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var have int
	db.QueryRow(`SELECT count(*) FROM nodes`).Scan(&have)
	sc, nc, ec := columns(t, db, "sessions"), columns(t, db, "nodes"), columns(t, db, "edges")
	sel := func(cols []string, repl map[string]string) string {
		out := make([]string, len(cols))
		for i, c := range cols {
			if r, ok := repl[c]; ok {
				out[i] = r
			} else {
				out[i] = c
			}
		}
		return strings.Join(out, ", ")
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; have*(k+1) <= n+have-1 || k == 1; k++ {
		suffix := fmt.Sprintf("'-%d'", k)
		for _, q := range []string{
			`INSERT INTO sessions (` + strings.Join(sc, ", ") + `) SELECT ` + sel(sc, map[string]string{"id": "id || " + suffix, "path": "path || " + suffix}) + ` FROM sessions WHERE id NOT LIKE '%-%-%-%-%-%'`,
			`INSERT INTO nodes (` + strings.Join(nc, ", ") + `) SELECT ` + sel(nc, map[string]string{
				"id":         "substr(id, 1, 10) || printf('%06x', " + fmt.Sprint(k) + ")",
				"session_pk": "(SELECT s2.pk FROM sessions s1 JOIN sessions s2 ON s2.id = s1.id || " + suffix + " WHERE s1.pk = nodes.session_pk)"}) +
				` FROM nodes WHERE length(id) = 16 AND substr(id, 11) NOT GLOB '0000[0-9a-f][0-9a-f]' AND pk <= (SELECT min(pk) + ` + fmt.Sprint(have-1) + ` FROM nodes)`,
			`INSERT INTO edges (` + strings.Join(ec, ", ") + `) SELECT ` + sel(ec, map[string]string{
				"id":        "id || " + suffix,
				"source_id": "substr(source_id, 1, 10) || printf('%06x', " + fmt.Sprint(k) + ")",
				"target_id": "substr(target_id, 1, 10) || printf('%06x', " + fmt.Sprint(k) + ")"}) +
				` FROM edges WHERE id NOT LIKE '%-%'`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Fatalf("%v\n%s", err, q)
			}
		}
		if have*(k+1) >= n {
			break
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkGraphPayload12k measures the graph request over 12,000 nodes
// made from the real samples' nodes and edges (their content copied under
// new ids: 3,600 sessions): its JSON bytes as sent now, against the same
// graph with every edge's whole metadata (as sent before, in the same
// run), and the time of Graph.Graph. Issue 10, section 5.
func BenchmarkGraphPayload12k(b *testing.B) {
	l := newTestLib(&testing.T{})
	if _, err := l.Import.ImportSamples(); err != nil {
		b.Fatal(err)
	}
	replicate(b, l.path, 12000)
	for b.Loop() {
		t0 := time.Now()
		d, err := l.Graph.Graph(GraphFilter{})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(t0)
		now, _ := json.Marshal(d)
		edges, err := l.st.Edges(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		before := GraphData{Nodes: d.Nodes}
		for _, e := range edges {
			before.Edges = append(before.Edges, graphEdge(e))
		}
		old, _ := json.Marshal(before)
		nb, _ := json.Marshal(d.Nodes)
		b.Logf("%d nodes, %d edges: graph request %.2f MB (nodes %.2f MB), every edge's whole metadata %.2f MB; Graph.Graph %v",
			len(d.Nodes), len(d.Edges), float64(len(now))/1e6, float64(len(nb))/1e6, float64(len(old))/1e6, took.Round(time.Millisecond))
	}
}
