package patterns

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"rhizome/backend/link"
)

// exceptionClusters: `GROUP BY rule_broken, COUNT(*)`. An Exception's rule
// is the node it CONTRADICTS or CONFLICTS_WITH (a ProjectFact or Decision,
// either way round) when it has one, else its RuleBroken text; exceptions
// whose rules read the same as normal text (case, spaces, quotes and final
// punctuation aside) group together, a rule node with the texts that name
// it. A group of MinExceptions or more is an item: the exceptions oldest
// first, then the rule nodes. Exceptions with no rule are left out.
// See context-graph-dag.md, "Pattern Detection for Dashboard", row 1.
func (x *index) exceptionClusters() []Item {
	type group struct {
		rule       string
		exceptions []*Node
		rules      []*Node
	}
	groups := map[string]*group{}
	var order []string
	for _, e := range x.ofKind(KindException) {
		rule, ruleNode := e.RuleBroken, (*Node)(nil)
		for _, r := range x.linked(e, link.Contradicts, link.ConflictsWith) {
			if r.Kind == KindProjectFact || r.Kind == KindDecision {
				rule, ruleNode = r.Label, r
				break
			}
		}
		key := normal(rule)
		if key == "" {
			continue
		}
		g := groups[key]
		if g == nil {
			g = &group{rule: strings.TrimSpace(rule)}
			groups[key] = g
			order = append(order, key)
		}
		g.exceptions = append(g.exceptions, e)
		if ruleNode != nil && !slices.Contains(g.rules, ruleNode) {
			g.rules = append(g.rules, ruleNode)
			g.rule = strings.TrimSpace(ruleNode.Label)
		}
	}
	var items []Item
	for _, key := range order {
		g := groups[key]
		if len(g.exceptions) < x.s.MinExceptions {
			continue
		}
		items = append(items, Item{
			Key:   key,
			Title: fmt.Sprintf("%s has %d exceptions — consider revising the rule or documenting the exceptions", quote(g.rule, 80), len(g.exceptions)),
			Count: len(g.exceptions),
			Nodes: append(ids(g.exceptions), ids(g.rules)...),
		})
	}
	return items
}

// supersessionChains: `MATCH path = (d)-[:SUPERSEDES*2..]->(old)`. A
// SUPERSEDES edge runs from the newer node to the one it replaces. From
// every head (a node that supersedes and is superseded by none), the
// longest path of SUPERSEDES edges (ties: the older next node) is a chain;
// one of MinChainHops hops or more is an item, its nodes oldest (the
// original) to newest (the head), counted as iterations (nodes). An edge
// that would close a cycle is not followed; nodes on a cycle with no head
// make no chain. Any kind may supersede (decisions, project facts).
// See context-graph-dag.md, "Pattern Detection for Dashboard", row 2.
func (x *index) supersessionChains() []Item {
	supersedes := func(n *Node) []*Node {
		var out []*Node
		for _, e := range x.out[n.ID] {
			if e.Relation == link.Supersedes {
				out = append(out, x.byID[e.Target])
			}
		}
		sortByTime(out)
		return out
	}
	// longest[n] is the longest chain from n back to an original, n first.
	longest := map[*Node][]*Node{}
	onPath := map[*Node]bool{}
	var walk func(n *Node) []*Node
	walk = func(n *Node) []*Node {
		if c, ok := longest[n]; ok {
			return c
		}
		onPath[n] = true
		var best []*Node
		for _, older := range supersedes(n) {
			if onPath[older] {
				continue // a cycle
			}
			if c := walk(older); len(c) > len(best) {
				best = c
			}
		}
		onPath[n] = false
		chain := append([]*Node{n}, best...)
		longest[n] = chain
		return chain
	}
	var items []Item
	for _, n := range x.nodes {
		if len(supersedes(n)) == 0 || slices.ContainsFunc(x.in[n.ID], func(e Edge) bool { return e.Relation == link.Supersedes }) {
			continue
		}
		chain := slices.Clone(walk(n))
		if len(chain)-1 < x.s.MinChainHops {
			continue
		}
		slices.Reverse(chain) // oldest first
		labels := make([]string, len(chain))
		for i, c := range chain {
			labels[i] = quote(c.Label, 40)
		}
		what := string(chain[0].Kind)
		if t := sharedTopic(chain); t != "" {
			what = fmt.Sprintf("%q %s", t, strings.ToLower(what))
		}
		items = append(items, Item{
			Key:   n.ID.String(),
			Title: fmt.Sprintf("%s evolved through %d iterations: %s", what, len(chain), strings.Join(labels, " → ")),
			Count: len(chain),
			Nodes: ids(chain),
		})
	}
	return items
}

// sharedTopic is the first topic of ns[0] that every node of ns has, or "".
func sharedTopic(ns []*Node) string {
	for _, t := range topicKeys(ns[0].Topics) {
		all := true
		for _, n := range ns[1:] {
			all = all && slices.Contains(topicKeys(n.Topics), t)
		}
		if all {
			return t
		}
	}
	return ""
}

// failedApproachRecurrence: "similar failed approaches". Two FailedApproach
// nodes are similar when a SIMILAR_TO or SHARES_THEME edge joins them, or
// their embeddings' cosine similarity is at least FailedSimilarity, or the
// Jaccard overlap of their topics is at least FailedTopicOverlap; a
// connected group of MinFailedAttempts or more similar failed approaches is
// an item, its attempts oldest first, named by the topic most of them share
// (else the first attempt's label), with the last attempt and its lesson.
// Comparing every pair costs f² for f failed approaches, a small share of a
// library. See context-graph-dag.md, "Pattern Detection for Dashboard",
// row 3, and "Patterns Noticed" ("Caching approaches failed twice — last
// attempt: …, lesson: …").
func (x *index) failedApproachRecurrence() []Item {
	fa := x.ofKind(KindFailedApproach)
	pos := map[*Node]int{}
	for i, n := range fa {
		pos[n] = i
	}
	parent := make([]int, len(fa))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra != rb {
			parent[max(ra, rb)] = min(ra, rb)
		}
	}
	topics := make([][]string, len(fa))
	for i, n := range fa {
		topics[i] = topicKeys(n.Topics)
		for _, o := range x.linked(n, link.SimilarTo, link.SharesTheme) {
			if j, ok := pos[o]; ok {
				union(i, j)
			}
		}
	}
	for i := range fa {
		for j := i + 1; j < len(fa); j++ {
			if find(i) == find(j) {
				continue
			}
			if cosine(fa[i].Embedding, fa[j].Embedding) >= x.s.FailedSimilarity || jaccard(topics[i], topics[j]) >= x.s.FailedTopicOverlap {
				union(i, j)
			}
		}
	}
	groups := map[int][]*Node{}
	for i, n := range fa {
		r := find(i)
		groups[r] = append(groups[r], n)
	}
	var items []Item
	for r := range len(fa) {
		g := groups[r]
		if len(g) < x.s.MinFailedAttempts {
			continue
		}
		theme := commonTopic(g)
		if theme == "" {
			theme = g[0].Label
		}
		last := g[len(g)-1]
		title := fmt.Sprintf("%s tried %d times, failed each time — review before trying again; last attempt: %s", quote(theme, 60), len(g), quote(last.Label, 60))
		if strings.TrimSpace(last.Lesson) != "" {
			title += ", lesson: " + quote(last.Lesson, 80)
		}
		items = append(items, Item{Key: normal(theme), Title: title, Count: len(g), Nodes: ids(g)})
	}
	return items
}

// jaccard is |a∩b| / |a∪b| of two sets of topic keys; 0 when either is
// empty.
func jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	both := 0
	for _, t := range a {
		if slices.Contains(b, t) {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// commonTopic is the topic most of ns carry (more than half), the most
// common first, ties by first seen; "" when none does.
func commonTopic(ns []*Node) string {
	count := map[string]int{}
	var order []string
	for _, n := range ns {
		for _, t := range topicKeys(n.Topics) {
			if count[t] == 0 {
				order = append(order, t)
			}
			count[t]++
		}
	}
	best := ""
	for _, t := range order {
		if count[t] > count[best] {
			best = t
		}
	}
	if 2*count[best] <= len(ns) {
		return ""
	}
	return best
}

// correctionHotspots: "topics with high correction count". A Correction
// counts toward each of its topics — its own, or when it has none, those of
// the nodes it is linked to (the beliefs it corrects) — within its project;
// a (project, topic) with MinCorrections or more corrections is an item,
// the corrections oldest first. See context-graph-dag.md, "Pattern
// Detection for Dashboard", row 4 ("auth decisions corrected 3x —
// understanding may be incomplete").
func (x *index) correctionHotspots() []Item {
	type key struct{ project, topic string }
	groups := map[key][]*Node{}
	var order []key
	for _, c := range x.ofKind(KindCorrection) {
		topics := topicKeys(c.Topics)
		if len(topics) == 0 {
			for _, o := range x.linked(c) {
				for _, t := range topicKeys(o.Topics) {
					if !slices.Contains(topics, t) {
						topics = append(topics, t)
					}
				}
			}
		}
		for _, t := range topics {
			k := key{c.Project, t}
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], c)
		}
	}
	var items []Item
	for _, k := range order {
		g := groups[k]
		if len(g) < x.s.MinCorrections {
			continue
		}
		where := ""
		if p := x.projectName(k.project); p != "" {
			where = " in " + p
		}
		items = append(items, Item{
			Key:   k.project + " · " + k.topic,
			Title: fmt.Sprintf("%q corrected %d times%s — understanding may be incomplete", k.topic, len(g), where),
			Count: len(g),
			Nodes: ids(g),
		})
	}
	return items
}

// crossProjectSimilarity: `MATCH (d)-[:SIMILAR_TO]-(other) WHERE
// other.project <> d.project`. Every SIMILAR_TO or SHARES_THEME edge (the
// similarity relations; creative consolidation makes the second) between
// nodes of two different named projects is a match; the matches of each
// pair of projects make an item counting them, its nodes in the order the
// edges give them, each once, with the labels of up to three in the title.
// See context-graph-dag.md, "Pattern Detection for Dashboard", row 5
// ("Similar to api-gateway project (3 matches)").
func (x *index) crossProjectSimilarity() []Item {
	type pair struct{ a, b string }
	matches := map[pair][][2]*Node{}
	var order []pair
	seen := map[[2]link.Item]bool{}
	for _, n := range x.nodes {
		for _, e := range x.out[n.ID] {
			if e.Relation != link.SimilarTo && e.Relation != link.SharesTheme {
				continue
			}
			a, b := n, x.byID[e.Target]
			if a.Project == "" || b.Project == "" || a.Project == b.Project {
				continue
			}
			if a.Project > b.Project {
				a, b = b, a
			}
			if seen[[2]link.Item{a.ID, b.ID}] {
				continue // the same two nodes, joined twice
			}
			seen[[2]link.Item{a.ID, b.ID}] = true
			k := pair{a.Project, b.Project}
			if matches[k] == nil {
				order = append(order, k)
			}
			matches[k] = append(matches[k], [2]*Node{a, b})
		}
	}
	var items []Item
	for _, k := range order {
		var nodes []*Node
		for _, m := range matches[k] {
			for _, n := range m {
				if !slices.Contains(nodes, n) {
					nodes = append(nodes, n)
				}
			}
		}
		var labels []string
		for _, n := range nodes {
			if n.Project == k.b && len(labels) < 3 {
				labels = append(labels, quote(n.Label, 40))
			}
		}
		items = append(items, Item{
			Key:   k.a + " ↔ " + k.b,
			Title: fmt.Sprintf("Similar work in %s and %s (%d matches): %s", x.projectName(k.a), x.projectName(k.b), len(matches[k]), strings.Join(labels, ", ")),
			Count: len(matches[k]),
			Nodes: ids(nodes),
		})
	}
	return items
}

// staleDecisionClusters: "stale decisions in same topic". A Decision in
// force (see retired) is stale when its status says "stale", or when
// neither it nor any node linked to it was recorded in the last
// StaleAfterDays before now. Stale decisions group by (project, topic); a
// group of MinStaleDecisions or more is an item, oldest first. Decisions
// without topics group under none. See context-graph-dag.md, "Pattern
// Detection for Dashboard", row 6 ("3 stale decisions in 'deployment'
// topic").
func (x *index) staleDecisionClusters(now time.Time) []Item {
	cutoff := now.Add(-time.Duration(x.s.StaleAfterDays * float64(24*time.Hour)))
	type key struct{ project, topic string }
	groups := map[key][]*Node{}
	var order []key
	for _, d := range x.ofKind(KindDecision) {
		if x.retired(d) {
			continue
		}
		stale := strings.EqualFold(strings.TrimSpace(d.Status), "stale")
		if !stale {
			last := d.Time
			for _, o := range x.linked(d) {
				if o.Time.After(last) {
					last = o.Time
				}
			}
			stale = last.Before(cutoff)
		}
		if !stale {
			continue
		}
		for _, t := range topicKeys(d.Topics) {
			k := key{d.Project, t}
			if groups[k] == nil {
				order = append(order, k)
			}
			groups[k] = append(groups[k], d)
		}
	}
	var items []Item
	for _, k := range order {
		g := groups[k]
		if len(g) < x.s.MinStaleDecisions {
			continue
		}
		where := ""
		if p := x.projectName(k.project); p != "" {
			where = " (" + p + ")"
		}
		items = append(items, Item{
			Key:   k.project + " · " + k.topic,
			Title: fmt.Sprintf("%d stale decisions in %q%s — revisit or retire them", len(g), k.topic, where),
			Count: len(g),
			Nodes: ids(g),
		})
	}
	return items
}

// constraintViolations: decisions that conflict with ProjectFacts. A
// Decision in force conflicts with a ProjectFact in force (see retired)
// when:
//
//   - stated: a CONFLICTS_WITH or CONTRADICTS edge joins them, either way;
//   - or detected: the fact is a prohibition — it begins, after an
//     optional "always", with "never", "do not", "don't", "avoid" or "no" —
//     of the same project (or of none), and the decision's label holds
//     every key word of what the fact forbids (words of two or more
//     letters or digits, without common words such as "use", "the", "in";
//     plurals and "-ing" forms folded) and no negation ("not", "never",
//     "no", "avoid", "without", "instead of") of its own.
//
// Each conflicting pair is an item: the decision, then the fact. The
// detection is a cue ("may conflict"), not a verdict. See
// context-graph-dag.md, "Pattern Detection for Dashboard", row 7, and
// "Project Facts as Binding Instructions" ("Always/Never" rules).
func (x *index) constraintViolations() []Item {
	type fact struct {
		n         *Node
		forbidden []string
	}
	var facts []fact
	for _, f := range x.ofKind(KindProjectFact) {
		if !x.retired(f) {
			facts = append(facts, fact{f, prohibition(f.Label)})
		}
	}
	var items []Item
	for _, d := range x.ofKind(KindDecision) {
		if x.retired(d) {
			continue
		}
		stated := map[*Node]bool{}
		for _, f := range x.linked(d, link.ConflictsWith, link.Contradicts) {
			stated[f] = true
		}
		words := stems(d.Label)
		negated := hasNegation(d.Label)
		for _, f := range facts {
			basis := ""
			switch {
			case stated[f.n]:
				basis = "stated"
			case !negated && len(f.forbidden) > 0 && (f.n.Project == "" || f.n.Project == d.Project) && containsAll(words, f.forbidden):
				basis = "forbids " + strings.Join(f.forbidden, ", ")
			}
			if basis == "" {
				continue
			}
			items = append(items, Item{
				Key:   d.ID.String() + " " + f.n.ID.String(),
				Title: fmt.Sprintf("Decision %s may conflict with rule %s (%s)", quote(d.Label, 60), quote(f.n.Label, 60), basis),
				Count: 1,
				Nodes: []link.Item{d.ID, f.n.ID},
			})
		}
	}
	return items
}

// prohibitionStarts are the openings of a rule that forbids something.
var prohibitionStarts = []string{"never ", "do not ", "don't ", "dont ", "avoid ", "no "}

// negations make a decision's own text a refusal rather than a choice.
var negations = []string{"not", "never", "no", "avoid", "avoids", "avoiding", "without", "instead", "don't", "dont", "stop", "stopped", "removed", "drop", "dropped"}

// stopWords carry no subject.
var stopWords = []string{"use", "using", "used", "the", "a", "an", "in", "on", "for", "of", "to", "with", "and", "or",
	"any", "all", "be", "is", "are", "we", "our", "it", "its", "this", "that", "when", "from", "into", "by", "at", "as", "ever", "anything", "make"}

// prohibition returns the key words of what rule forbids, or nil when the
// rule is not a prohibition.
func prohibition(rule string) []string {
	r := strings.ToLower(strings.Join(strings.Fields(strings.ReplaceAll(rule, "’", "'")), " "))
	r = strings.TrimPrefix(r, "always ")
	for _, p := range prohibitionStarts {
		if strings.HasPrefix(r, p) {
			return stems(r[len(p):])
		}
	}
	return nil
}

// hasNegation reports whether text says no to something itself.
func hasNegation(text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(text, "’", "'")), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		if slices.Contains(negations, w) || strings.HasSuffix(w, "n't") {
			return true
		}
	}
	return false
}

// stems lists the key words of text, each once, folded: lower case, words
// of letters and digits of two or more, no stop words, "-ing" and plural
// endings removed.
func stems(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) < 2 || slices.Contains(stopWords, w) {
			continue
		}
		switch {
		case len(w) > 5 && strings.HasSuffix(w, "ing"):
			w = w[:len(w)-3]
		case len(w) > 4 && strings.HasSuffix(w, "ies"):
			w = w[:len(w)-3] + "y"
		case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
			w = w[:len(w)-1]
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// containsAll reports whether every word of want is in have.
func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// byCount orders items for a section: the largest count first, then key.
func byCount(a, b Item) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key)) }
