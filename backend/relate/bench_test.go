package relate

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"rhizome/backend/graph"
)

// synthetic makes n segment descriptors shaped like a real library: 40
// projects, sessions of 1 to 7 segments, each segment touching 1 to 12
// files drawn from its project's 3,000 by a Zipf law (a few files in
// nearly every segment, most in one or two), 10% naming an issue number
// (Zipf over 500) and 3% a GitHub issue URL; 15% of segments end partial
// and 5% failed. Deterministic (fixed seed).
func synthetic(n int) []Segment {
	r := rand.New(rand.NewPCG(1, 2))
	const projects, filesPerProject = 40, 3000
	fileZipf := rand.NewZipf(r, 1.2, 1, filesPerProject-1)
	issueZipf := rand.NewZipf(r, 1.3, 1, 499)
	segs := make([]Segment, 0, n)
	at := time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC)
	session := 0
	for len(segs) < n {
		session++
		p := r.IntN(projects)
		project := fmt.Sprintf("/home/dev/src/project-%02d", p)
		sid := fmt.Sprintf("019b%012x-session", session)
		at = at.Add(time.Duration(r.IntN(180)+5) * time.Minute)
		k := 1 + r.IntN(7)
		for j := 0; j < k && len(segs) < n; j++ {
			start := at
			at = at.Add(time.Duration(5+r.IntN(60)) * time.Minute)
			s := Segment{ID: fmt.Sprintf("%016x", len(segs)+1), SessionID: sid, Project: project, Start: start, End: at,
				Outcome: graph.OutcomeSuccess}
			for f := 1 + r.IntN(12); f > 0; f-- {
				s.Files = append(s.Files, fmt.Sprintf("src/pkg%d/file%d.go", fileZipf.Uint64()%40, fileZipf.Uint64()))
			}
			switch x := r.IntN(100); {
			case x < 5:
				s.Outcome = graph.OutcomeFailed
			case x < 20:
				s.Outcome = graph.OutcomePartial
			}
			if r.IntN(10) == 0 {
				s.Refs = append(s.Refs, fmt.Sprintf("#%d", issueZipf.Uint64()+1))
			}
			if r.IntN(33) == 0 {
				s.Refs = append(s.Refs, fmt.Sprintf("https://github.com/acme/project-%02d/issues/%d", p, issueZipf.Uint64()+1))
			}
			segs = append(segs, s)
		}
	}
	return segs
}

// BenchmarkDerive10k derives every relation of 10,000 segment nodes (the
// issue's figure: under 10 s).
func BenchmarkDerive10k(b *testing.B) {
	segs := synthetic(10000)
	b.ResetTimer()
	var edges []Edge
	for i := 0; i < b.N; i++ {
		edges = Derive(segs, Options{})
	}
	b.ReportMetric(float64(len(edges)), "edges")
}

// BenchmarkBaselineSort10k is the same-run baseline: a plain sort of the
// same 10,000 descriptors by project and start, and one pass naming every
// file they touch (what any derivation must at least read).
func BenchmarkBaselineSort10k(b *testing.B) {
	segs := synthetic(10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cp := append([]Segment(nil), segs...)
		sort.Slice(cp, func(x, y int) bool {
			if cp[x].Project != cp[y].Project {
				return cp[x].Project < cp[y].Project
			}
			return cp[x].Start.Before(cp[y].Start)
		})
		keys := map[string]int{}
		for _, s := range cp {
			for _, f := range s.Files {
				keys[fileKey(s.Project, f)]++
			}
		}
	}
}

// BenchmarkSynthetic10k is the cost of making the 10,000 descriptors.
func BenchmarkSynthetic10k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		synthetic(10000)
	}
}
