package patterns

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/link"
)

var now = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// graphBuilder makes graphs built to contain (or to just miss) a pattern.
type graphBuilder struct {
	g Graph
}

// node adds a node of kind recorded age days ago and returns its id.
func (b *graphBuilder) node(kind Kind, project, label string, age float64, topics ...string) link.Item {
	id := link.Knowledge(fmt.Sprintf("%s-%d", strings.ToLower(string(kind)), len(b.g.Nodes)+1))
	b.g.Nodes = append(b.g.Nodes, Node{
		ID: id, Kind: kind, Project: project, Label: label, Topics: topics,
		Time: now.Add(-time.Duration(age * float64(24*time.Hour))),
	})
	return id
}

// set edits node id.
func (b *graphBuilder) set(id link.Item, f func(*Node)) {
	for i := range b.g.Nodes {
		if b.g.Nodes[i].ID == id {
			f(&b.g.Nodes[i])
		}
	}
}

func (b *graphBuilder) edge(from link.Item, rel link.Relation, to link.Item) {
	b.g.Edges = append(b.g.Edges, Edge{Source: from, Target: to, Relation: rel})
}

// detect returns the items of pattern p.
func detect(t *testing.T, g Graph, s Settings, p Pattern) []Item {
	t.Helper()
	r, err := Detect(g, s, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sections) != 7 {
		t.Fatalf("%d sections, want the seven patterns", len(r.Sections))
	}
	for _, sec := range r.Sections {
		if sec.Pattern == p {
			for _, it := range sec.Items {
				if it.Pattern != p {
					t.Errorf("item %q of section %s says pattern %s", it.Title, p, it.Pattern)
				}
			}
			return sec.Items
		}
	}
	t.Fatalf("no section %s", p)
	return nil
}

func wantNodes(t *testing.T, it Item, want ...link.Item) {
	t.Helper()
	if !slices.Equal(it.Nodes, want) {
		t.Errorf("item %q: nodes %v, want %v", it.Title, it.Nodes, want)
	}
}

func wantTitle(t *testing.T, it Item, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(it.Title, p) {
			t.Errorf("title %q, want it to contain %q", it.Title, p)
		}
	}
}

const proj = "/home/ada/src/api-gateway"

// Row 1 of "Pattern Detection for Dashboard": GROUP BY rule_broken.
func TestExceptionClusters(t *testing.T) {
	b := &graphBuilder{}
	rule := b.node(KindProjectFact, proj, "Use async for I/O", 100)
	e1 := b.node(KindException, proj, "sync read of the config at start-up", 50)
	e2 := b.node(KindException, proj, "blocking call in the CLI", 40)
	e3 := b.node(KindException, proj, "sync write in a test helper", 30)
	e4 := b.node(KindException, proj, "sync DNS lookup", 20)
	lone := b.node(KindException, proj, "pushed to main once", 10)
	b.edge(e1, link.Contradicts, rule)
	b.edge(rule, link.ConflictsWith, e2) // either way round
	b.set(e3, func(n *Node) { n.RuleBroken = "use async for I/O." })
	b.set(e4, func(n *Node) { n.RuleBroken = `"Use  async for I/O"` })
	b.set(lone, func(n *Node) { n.RuleBroken = "never commit to main" })
	b.set(e1, func(n *Node) { n.Sources = []link.Item{link.Node("seg-1")} })
	b.set(e3, func(n *Node) { n.Sources = []link.Item{link.Node("seg-3"), link.Node("seg-1")} })

	items := detect(t, b.g, DefaultSettings(), ExceptionClusters)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1: %+v", len(items), items)
	}
	it := items[0]
	wantNodes(t, it, e1, e2, e3, e4, rule)
	wantTitle(t, it, `"Use async for I/O" has 4 exceptions`)
	if it.Count != 4 || it.Project != proj || !slices.Equal(it.Sources, []link.Item{link.Node("seg-1"), link.Node("seg-3")}) {
		t.Errorf("item %+v: want count 4, the project, the segments seg-1 and seg-3", it)
	}

	// Not triggered: every exception breaks its own rule.
	b = &graphBuilder{}
	for i := range 4 {
		e := b.node(KindException, proj, "x", float64(i))
		b.set(e, func(n *Node) { n.RuleBroken = fmt.Sprintf("rule %d", i) })
	}
	if items := detect(t, b.g, DefaultSettings(), ExceptionClusters); len(items) != 0 {
		t.Errorf("distinct rules: %+v, want none", items)
	}
}

// Archived nodes leave the patterns unless asked for.
func TestArchivedLeftOut(t *testing.T) {
	b := &graphBuilder{}
	e1 := b.node(KindException, proj, "a", 2)
	e2 := b.node(KindException, proj, "b", 1)
	b.set(e1, func(n *Node) { n.RuleBroken = "one rule" })
	b.set(e2, func(n *Node) { n.RuleBroken = "one rule"; n.Archived = true })
	if items := detect(t, b.g, DefaultSettings(), ExceptionClusters); len(items) != 0 {
		t.Errorf("with one exception archived: %+v, want none", items)
	}
	s := DefaultSettings()
	s.IncludeArchived = true
	if items := detect(t, b.g, s, ExceptionClusters); len(items) != 1 {
		t.Errorf("archived included: %d items, want 1", len(items))
	}
}

// Row 2: MATCH path = (d)-[:SUPERSEDES*2..]->(old).
func TestSupersessionChains(t *testing.T) {
	b := &graphBuilder{}
	a := b.node(KindDecision, proj, "Retry three times", 90, "retry-logic")
	bb := b.node(KindDecision, proj, "Retry with backoff", 60, "retry-logic", "http")
	c := b.node(KindDecision, proj, "Retry with jittered backoff", 30, "retry-logic")
	b.edge(bb, link.Supersedes, a)
	b.edge(c, link.Supersedes, bb)
	x := b.node(KindProjectFact, proj, "Tabs", 20)
	y := b.node(KindProjectFact, proj, "Spaces", 10)
	b.edge(y, link.Supersedes, x) // one hop: not a chain
	p := b.node(KindDecision, proj, "P", 5)
	q := b.node(KindDecision, proj, "Q", 4)
	r := b.node(KindDecision, proj, "R", 3)
	b.edge(p, link.Supersedes, q) // a cycle with no head: no chain, and no hang
	b.edge(q, link.Supersedes, r)
	b.edge(r, link.Supersedes, p)

	items := detect(t, b.g, DefaultSettings(), SupersessionChains)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1: %+v", len(items), items)
	}
	wantNodes(t, items[0], a, bb, c)
	wantTitle(t, items[0], `"retry-logic" decision evolved through 3 iterations: "Retry three times" → "Retry with backoff" → "Retry with jittered backoff"`)

	// A newer decision that supersedes both the chain's head and another
	// original: its chain is the longest path (4 nodes).
	d := b.node(KindDecision, proj, "Retry budget per client", 1, "retry-logic")
	other := b.node(KindDecision, proj, "No retries", 100)
	b.edge(d, link.Supersedes, other)
	b.edge(d, link.Supersedes, c)
	items = detect(t, b.g, DefaultSettings(), SupersessionChains)
	if len(items) != 1 || items[0].Count != 4 {
		t.Fatalf("%+v, want one chain of 4", items)
	}
	wantNodes(t, items[0], a, bb, c, d)

	// A head that leads into a cycle: the edge closing it is not followed.
	h := b.node(KindDecision, proj, "H", 0.5)
	b.edge(h, link.Supersedes, p)
	items = detect(t, b.g, DefaultSettings(), SupersessionChains)
	if len(items) != 2 {
		t.Fatalf("%+v, want two chains", items)
	}
	wantNodes(t, items[0], r, q, p, h)

	// Not triggered: only single hops.
	b = &graphBuilder{}
	for i := range 3 {
		n1 := b.node(KindDecision, proj, "old", 10)
		n2 := b.node(KindDecision, proj, "new", float64(i))
		b.edge(n2, link.Supersedes, n1)
	}
	if items := detect(t, b.g, DefaultSettings(), SupersessionChains); len(items) != 0 {
		t.Errorf("single hops: %+v, want none", items)
	}
}

// Row 3: similar failed approaches, by each of the three similarities.
func TestFailedApproachRecurrence(t *testing.T) {
	b := &graphBuilder{}
	f1 := b.node(KindFailedApproach, proj, "Cache sessions in Redis", 60, "caching", "redis")
	f2 := b.node(KindFailedApproach, proj, "Cache sessions in memory", 40, "caching", "lru", "memory")
	f3 := b.node(KindFailedApproach, proj, "Redis cluster cache", 20, "caching", "cluster", "ha")
	f4 := b.node(KindFailedApproach, proj, "Deploy with raw manifests", 30, "deploy", "k8s")
	f5 := b.node(KindFailedApproach, proj, "Deploy with Helm", 10, "deploy", "k8s", "helm")
	b.node(KindFailedApproach, proj, "Parse dates by hand", 5, "dates")
	dec := b.node(KindDecision, proj, "Cache nothing", 1, "caching", "redis")
	b.edge(dec, link.SimilarTo, f1) // a decision is not a failed approach
	// f1 ~ f2 by embeddings (cosine 0.98), f2 ~ f3 by a stated SIMILAR_TO;
	// topics alone would not join them (Jaccard 1/4 and 1/5).
	b.set(f1, func(n *Node) { n.Embedding = []float32{1, 0.2, 0} })
	b.set(f2, func(n *Node) { n.Embedding = []float32{1, 0, 0.1} })
	b.set(f3, func(n *Node) { n.Embedding = []float32{0, 1, 0}; n.Lesson = "network partitions" })
	b.edge(f3, link.SimilarTo, f2)
	// f4 ~ f5 by topics (Jaccard 2/3).

	items := detect(t, b.g, DefaultSettings(), FailedApproachRecurrence)
	if len(items) != 2 {
		t.Fatalf("%d items, want 2: %+v", len(items), items)
	}
	wantNodes(t, items[0], f1, f2, f3)
	wantTitle(t, items[0], `"caching" tried 3 times, failed each time`, `last attempt: "Redis cluster cache", lesson: "network partitions"`)
	wantNodes(t, items[1], f4, f5)
	wantTitle(t, items[1], `"deploy" tried 2 times`)

	// Not triggered: the same approaches with nothing joining them.
	for i := range b.g.Nodes {
		b.g.Nodes[i].Embedding, b.g.Nodes[i].Topics = nil, []string{fmt.Sprint(i)}
	}
	b.g.Edges = nil
	if items := detect(t, b.g, DefaultSettings(), FailedApproachRecurrence); len(items) != 0 {
		t.Errorf("unrelated failed approaches: %+v, want none", items)
	}
}

// Row 4: topics with a high correction count, per project.
func TestCorrectionHotspots(t *testing.T) {
	b := &graphBuilder{}
	c1 := b.node(KindCorrection, proj, "Tokens expire after 1h, not 24h", 30, "auth")
	c2 := b.node(KindCorrection, proj, "Refresh tokens are rotated", 20, "Auth")
	c3 := b.node(KindCorrection, proj, "The session cookie is HttpOnly", 10)
	d := b.node(KindDecision, proj, "Keep sessions in cookies", 40, "auth", "cookies")
	b.edge(c3, link.InvalidatedBy, d) // c3 takes d's topics
	other := "/home/ada/src/billing"
	b.node(KindCorrection, other, "auth is per tenant", 5, "auth")
	b.node(KindCorrection, other, "auth tokens are JWTs", 4, "auth")

	items := detect(t, b.g, DefaultSettings(), CorrectionHotspots)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1 (auth in api-gateway): %+v", len(items), items)
	}
	wantNodes(t, items[0], c1, c2, c3)
	wantTitle(t, items[0], `"auth" corrected 3 times in api-gateway — understanding may be incomplete`)

	s := DefaultSettings()
	s.MinCorrections = 4
	if items := detect(t, b.g, s, CorrectionHotspots); len(items) != 0 {
		t.Errorf("at most 3 corrections a topic, threshold 4: %+v, want none", items)
	}
}

// Row 5: MATCH (d)-[:SIMILAR_TO]-(other) WHERE other.project <> d.project.
func TestCrossProjectSimilarity(t *testing.T) {
	b := &graphBuilder{}
	billing := "/home/ada/src/billing"
	g1 := b.node(KindDecision, proj, "Rate limit per API key", 30)
	g2 := b.node(KindDecision, proj, "Circuit breaker on upstreams", 20)
	b1 := b.node(KindDecision, billing, "Rate limit per tenant", 10)
	b2 := b.node(KindDecision, billing, "Breaker around the payment API", 5)
	b.edge(g1, link.SimilarTo, b1)
	b.edge(b2, link.SimilarTo, g2)
	b.edge(g1, link.SharesTheme, b2)
	same := b.node(KindDecision, proj, "Rate limit the admin API", 3)
	b.edge(same, link.SimilarTo, g1) // same project
	loose := b.node(KindDecision, billing, "Log every request", 2)
	b.edge(loose, link.RelatesTo, g1) // not a similarity relation
	nowhere := b.node(KindInsight, "", "Limits need tests", 1)
	b.edge(nowhere, link.SimilarTo, g1) // no project

	items := detect(t, b.g, DefaultSettings(), CrossProjectSimilarity)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1: %+v", len(items), items)
	}
	wantNodes(t, items[0], g1, b1, b2, g2)
	wantTitle(t, items[0], `Similar work in api-gateway and billing (3 matches): "Rate limit per tenant", "Breaker around the payment API"`)
	if items[0].Count != 3 || items[0].Project != "" {
		t.Errorf("item %+v: want 3 matches across two projects", items[0])
	}

	b.g.Edges = b.g.Edges[3:]
	if items := detect(t, b.g, DefaultSettings(), CrossProjectSimilarity); len(items) != 0 {
		t.Errorf("no cross-project similarity edges: %+v, want none", items)
	}
}

// Row 6: stale decisions in the same topic.
func TestStaleDecisionClusters(t *testing.T) {
	b := &graphBuilder{}
	d1 := b.node(KindDecision, proj, "Deploy from a laptop", 300, "deployment")
	d2 := b.node(KindDecision, proj, "Blue-green by hand", 200, "deployment", "ops")
	d3 := b.node(KindDecision, proj, "Tag releases by date", 150, "Deployment")
	d4 := b.node(KindDecision, proj, "Deploy on Fridays", 200, "deployment")
	b.edge(b.node(KindLesson, proj, "Friday deploys went fine", 10), link.Reinforces, d4) // recent activity
	d5 := b.node(KindDecision, proj, "Deploy with scp", 250, "deployment")
	b.edge(b.node(KindDecision, proj, "Deploy with CI", 200, "ci"), link.Supersedes, d5) // retired
	d7 := b.node(KindDecision, proj, "Old DB pool size", 400, "deployment")
	b.set(d7, func(n *Node) { n.Status = "reversed" })
	recent := b.node(KindDecision, proj, "Use Postgres 16", 5, "db")
	b.set(recent, func(n *Node) { n.Status = "stale" }) // stale by status, alone in its topic

	items := detect(t, b.g, DefaultSettings(), StaleDecisionClusters)
	if len(items) != 1 {
		t.Fatalf("%d items, want 1: %+v", len(items), items)
	}
	wantNodes(t, items[0], d1, d2, d3)
	wantTitle(t, items[0], `3 stale decisions in "deployment" (api-gateway)`)

	s := DefaultSettings()
	s.StaleAfterDays = 365
	if items := detect(t, b.g, s, StaleDecisionClusters); len(items) != 0 {
		t.Errorf("stale after a year: %+v, want none", items)
	}
}

// Row 7: decisions that conflict with ProjectFacts, stated or detected.
func TestConstraintViolations(t *testing.T) {
	b := &graphBuilder{}
	rule := b.node(KindProjectFact, proj, "Never use sync I/O in request handlers", 100)
	bad := b.node(KindDecision, proj, "Use sync file reads in the request handler for config", 10)
	b.node(KindDecision, proj, "Use async I/O in request handlers", 9)
	b.node(KindDecision, proj, "Avoid sync I/O in request handlers", 8)
	b.node(KindDecision, "/home/ada/src/billing", "Sync request handlers are fine here", 7)
	tabs := b.node(KindProjectFact, proj, "Indent with tabs", 100)
	spaces := b.node(KindDecision, proj, "Indent the YAML with spaces", 6)
	b.edge(spaces, link.ConflictsWith, tabs)
	old := b.node(KindProjectFact, proj, "Don't use globals", 90)
	b.edge(b.node(KindProjectFact, proj, "Globals are fine in main", 50), link.Supersedes, old)
	b.node(KindDecision, proj, "Use globals for the config", 5)
	gone := b.node(KindDecision, proj, "Read request bodies with sync I/O in handlers", 4)
	b.set(gone, func(n *Node) { n.Status = "superseded" })

	items := detect(t, b.g, DefaultSettings(), ConstraintViolations)
	if len(items) != 2 {
		t.Fatalf("%d items, want 2: %+v", len(items), items)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.Title)
		if it.Count != 1 || len(it.Nodes) != 2 {
			t.Errorf("item %+v: want count 1 and the decision and the rule", it)
		}
	}
	slices.Sort(got)
	want := []string{
		`Decision "Indent the YAML with spaces" may conflict with rule "Indent with tabs" (stated)`,
		`Decision "Use sync file reads in the request handler for config" may conflict with rule "Never use sync I/O in request handlers" (forbids sync, request, handler)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("titles\n%q\nwant\n%q", got, want)
	}
	for _, it := range items {
		if strings.Contains(it.Title, "sync") {
			wantNodes(t, it, bad, rule)
		}
	}

	b.g.Nodes = slices.DeleteFunc(b.g.Nodes, func(n Node) bool { return n.ID == bad || n.ID == spaces })
	if items := detect(t, b.g, DefaultSettings(), ConstraintViolations); len(items) != 0 {
		t.Errorf("without the two conflicting decisions: %+v, want none", items)
	}
}

// An empty graph gives seven empty sections, which JSON writes as [].
func TestEmptyReport(t *testing.T) {
	r, err := Detect(Graph{}, DefaultSettings(), now)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(r)
	if strings.Contains(string(data), "null") || len(r.Sections) != 7 || r.Sections[6].Name != "Decisions that conflict with project rules" {
		t.Errorf("empty report %s", data)
	}
}

func TestPatternsValidate(t *testing.T) {
	cases := []struct {
		want string
		g    Graph
	}{
		{"node 0: field id", Graph{Nodes: []Node{{Kind: KindDecision, Time: now}}}},
		{"field kind is empty", Graph{Nodes: []Node{{ID: link.Knowledge("a"), Time: now}}}},
		{"field time is not set", Graph{Nodes: []Node{{ID: link.Knowledge("a"), Kind: KindDecision}}}},
		{"the same id as node 0", Graph{Nodes: []Node{{ID: link.Knowledge("a"), Kind: KindDecision, Time: now}, {ID: link.Knowledge("a"), Kind: KindLesson, Time: now}}}},
		{"field embedding: value 1 is NaN", Graph{Nodes: []Node{{ID: link.Knowledge("a"), Kind: KindDecision, Time: now, Embedding: []float32{1, float32(math.NaN())}}}}},
		{"field type: unknown relation", Graph{Edges: []Edge{{Source: link.Knowledge("a"), Target: link.Knowledge("b"), Relation: "LIKES"}}}},
	}
	for _, c := range cases {
		if _, err := Detect(c.g, DefaultSettings(), now); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
	s := DefaultSettings()
	s.MinFailedAttempts = 1
	if _, err := Detect(Graph{}, s, now); err == nil || !strings.Contains(err.Error(), "minFailedAttempts") {
		t.Errorf("bad setting: %v", err)
	}
}
