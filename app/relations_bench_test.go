package app

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/store"
)

// benchLibrary writes n segment nodes shaped like a real library into a
// new SQLite library: 40 projects, sessions of 1 to 7 segments, each
// touching 1 to 12 of its project's 3,000 files drawn by a Zipf law, 10%
// of the user messages naming an issue number and 3% a GitHub issue URL,
// 15% of segments partial and 5% failed (backend/relate's synthetic corpus,
// stored). It returns the store and the projects.
func benchLibrary(b *testing.B, n int) (*store.Store, []string) {
	b.Helper()
	st, err := store.Open(filepath.Join(b.TempDir(), "library.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	const projects, filesPerProject = 40, 3000
	fileZipf := rand.NewZipf(r, 1.2, 1, filesPerProject-1)
	issueZipf := rand.NewZipf(r, 1.3, 1, 499)
	ctx := context.Background()
	tx, err := st.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC)
	var names []string
	for p := range projects {
		names = append(names, fmt.Sprintf("/home/dev/src/project-%02d", p))
	}
	made := 0
	for s := 0; made < n; s++ {
		p := r.IntN(projects)
		sess := &store.Session{ID: fmt.Sprintf("019b0000-0000-7000-8000-%012x", s), Path: fmt.Sprintf("/s/%d.jsonl", s),
			FileName: fmt.Sprintf("%d.jsonl", s), Cwd: names[p], Version: 3, Header: []byte(`{"type":"session","version":3}`)}
		if err := tx.PutSession(sess); err != nil {
			b.Fatal(err)
		}
		at = at.Add(time.Duration(r.IntN(180)+5) * time.Minute)
		k := 1 + r.IntN(7)
		for j := 0; j < k && made < n; j++ {
			start := at
			at = at.Add(time.Duration(5+r.IntN(60)) * time.Minute)
			seg := &segment.Segment{Index: j, StartEntryID: fmt.Sprintf("e%d", j), EndEntryID: fmt.Sprintf("e%d", j),
				StartSeq: j, EndSeq: j, EntryCount: 1, StartTimestamp: start, EndTimestamp: at}
			text := "please fix the build"
			if r.IntN(10) == 0 {
				text += fmt.Sprintf(" see #%d", issueZipf.Uint64()+1)
			}
			if r.IntN(33) == 0 {
				text += fmt.Sprintf(" https://github.com/acme/project-%02d/issues/%d", p, issueZipf.Uint64()+1)
			}
			e := &session.Entry{Seq: j, Line: j + 2, Type: session.TypeMessage, ID: seg.StartEntryID, Timestamp: start,
				Message: &session.Message{Role: "user"}, Raw: []byte(`{}`)}
			if err := tx.InsertEntry(sess.PK, e, text, store.EntryExtra{}); err != nil {
				b.Fatal(err)
			}
			if err := tx.PutSegment(sess.PK, seg); err != nil {
				b.Fatal(err)
			}
			node := graph.Node{ID: fmt.Sprintf("%016x", made+1)}
			node.Classification.Project = names[p]
			node.Content.Outcome = graph.OutcomeSuccess
			switch x := r.IntN(100); {
			case x < 5:
				node.Content.Outcome = graph.OutcomeFailed
			case x < 20:
				node.Content.Outcome = graph.OutcomePartial
			}
			for f := 1 + r.IntN(12); f > 0; f-- {
				node.Content.FilesTouched = append(node.Content.FilesTouched, fmt.Sprintf("src/pkg%d/file%d.go", fileZipf.Uint64()%40, fileZipf.Uint64()))
			}
			node.Metadata.Timestamp = start.Format(time.RFC3339Nano)
			if err := tx.PutNode(sess.PK, j, &node, store.TriggerInitial); err != nil {
				b.Fatal(err)
			}
			made++
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return st, names
}

// BenchmarkDeriveRelationsStored10k is what an import does after the
// files of every project changed, for a library of 10,000 segment nodes
// (issue 9: under 10 s): each project's segments read from SQLite (files,
// outcome, user text), relate.Derive, and the offline edges replaced in
// one transaction per project.
func BenchmarkDeriveRelationsStored10k(b *testing.B) {
	st, projects := benchLibrary(b, 10000)
	ctx := context.Background()
	b.ResetTimer()
	var rep RelationsReport
	for i := 0; i < b.N; i++ {
		var err error
		rep, err = deriveRelations(ctx, st, projects)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rep.Segments), "segments")
	b.ReportMetric(float64(rep.Edges), "edges")
}

// BenchmarkBaselineReadRelationSegments10k is the same-run baseline: only
// reading the 10,000 segments of the same library, project by project, as
// the derivation reads them (the floor any derivation from the library
// pays).
func BenchmarkBaselineReadRelationSegments10k(b *testing.B) {
	st, projects := benchLibrary(b, 10000)
	ctx := context.Background()
	b.ResetTimer()
	segs := 0
	for i := 0; i < b.N; i++ {
		segs = 0
		for _, p := range projects {
			rows, err := st.RelationSegments(ctx, p)
			if err != nil {
				b.Fatal(err)
			}
			segs += len(rows)
		}
	}
	b.ReportMetric(float64(segs), "segments")
}
