package patterns

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"rhizome/backend/link"
)

// syntheticKnowledge is a knowledge graph of n nodes over 20 projects and
// 200 topics: the eight kinds, supersession chains, similarity edges across
// projects, links from lessons to decisions, failed approaches with 64-dim
// embeddings, every node from one of n/4 segments.
func syntheticKnowledge(n int) Graph {
	rng := rand.New(rand.NewPCG(9, 9))
	kinds := []Kind{KindDecision, KindDecision, KindDecision, KindCorrection, KindException, KindFailedApproach,
		KindInsight, KindQuestion, KindProjectFact, KindLesson, KindLesson}
	words := []string{"sync", "async", "cache", "redis", "deploy", "docker", "auth", "token", "retry", "queue", "index", "schema"}
	g := Graph{Nodes: make([]Node, n)}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		nd.ID = link.Knowledge(fmt.Sprintf("k%06d", i))
		nd.Kind = kinds[rng.IntN(len(kinds))]
		nd.Project = fmt.Sprintf("/src/p%02d", rng.IntN(20))
		nd.Time = now.Add(-time.Duration(rng.Float64() * 400 * float64(24*time.Hour)))
		nd.Label = fmt.Sprintf("use %s for %s %d", words[rng.IntN(len(words))], words[rng.IntN(len(words))], i)
		nd.Topics = []string{fmt.Sprintf("t%d", rng.IntN(200)), fmt.Sprintf("t%d", rng.IntN(200))}
		nd.Sources = []link.Item{link.Node(fmt.Sprintf("s%05d", rng.IntN(n/4+1)))}
		switch nd.Kind {
		case KindException:
			nd.RuleBroken = fmt.Sprintf("rule %d", rng.IntN(100))
		case KindProjectFact:
			if rng.IntN(2) == 0 {
				nd.Label = "never " + nd.Label
			}
		case KindFailedApproach:
			nd.Embedding = make([]float32, 64)
			for d := range nd.Embedding {
				nd.Embedding[d] = float32(rng.NormFloat64())
			}
		}
	}
	for range 3 * n {
		a, b := &g.Nodes[rng.IntN(n)], &g.Nodes[rng.IntN(n)]
		rel := []link.Relation{link.Supersedes, link.SimilarTo, link.Reinforces, link.RelatesTo, link.ConflictsWith}[rng.IntN(5)]
		if rel == link.Supersedes && !a.Time.After(b.Time) {
			a, b = b, a
		}
		g.Edges = append(g.Edges, Edge{Source: a.ID, Target: b.ID, Relation: rel})
	}
	return g
}

// BenchmarkDetect20k: the seven patterns over 20,000 knowledge nodes and
// 60,000 edges (a library of about 5,000 sessions).
func BenchmarkDetect20k(b *testing.B) {
	g := syntheticKnowledge(20_000)
	var items int
	for b.Loop() {
		r, err := Detect(g, DefaultSettings(), now)
		if err != nil {
			b.Fatal(err)
		}
		items = 0
		for _, s := range r.Sections {
			items += len(s.Items)
		}
	}
	b.ReportMetric(float64(items), "items")
}

// BenchmarkReadGraph20k is Detect's baseline on the same graph: checking it
// and indexing it by id and edge end, with no pattern computed.
func BenchmarkReadGraph20k(b *testing.B) {
	g := syntheticKnowledge(20_000)
	for b.Loop() {
		if err := g.Validate(); err != nil {
			b.Fatal(err)
		}
		newIndex(g, DefaultSettings())
	}
}
