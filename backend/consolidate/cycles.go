package consolidate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"rhizome/backend/link"
)

// decay recomputes the relevance of every live, unarchived node and sets
// the scores that changed. See automem-features.md, "Cycles" 1, with
// ERRATA.md's formula (Relevance).
func (ru *runner) decay() error {
	st := ru.st
	for i := range st.nodes {
		if err := ru.tick(i); err != nil {
			return err
		}
		if !ru.live(i) {
			continue
		}
		ru.stats.Examined++
		n := &st.nodes[i]
		score := Relevance(n, st.degree(n.ID), ru.now, ru.s)
		if score == n.Relevance {
			continue
		}
		ru.stats.Rescored++
		if err := ru.emit(Change{Op: OpScore, Cycle: Decay, Item: n.ID, Before: n.Relevance, After: score}); err != nil {
			return err
		}
	}
	return nil
}

// creative links similar but unconnected nodes. A node takes part when it
// is live, not a MetaPattern, has an embedding and a relevance above
// CreativeMinRelevance. Among each one's CreativeNeighbours nearest, every
// other such node with cosine similarity above CreativeSimilarity and no
// edge either way to it makes a pair; the pairs, most similar first, become
// edges while neither end has CreativeLinksPerNode new edges and the run
// has fewer than CreativeMaxEdges. A pair that shares a tag (compared
// without case) gets SHARES_THEME, the tags named in its note; any other
// gets RELATES_TO. The edge's confidence is the similarity; its maker is
// consolidation. See automem-features.md, "Cycles" 2, and issue 10,
// section 3.
func (ru *runner) creative() error {
	if err := ru.neighbours(); err != nil {
		return err
	}
	st, s := ru.st, ru.s
	type pair struct {
		a, b int32
		sim  float32
	}
	best := map[[2]int32]float32{}
	for i := range st.nodes {
		if err := ru.tick(i); err != nil {
			return err
		}
		if !ru.similarityCandidate(i, s.CreativeMinRelevance) {
			continue
		}
		ru.stats.Examined++
		nbs := ru.near[i]
		for _, nb := range nbs[:min(len(nbs), s.CreativeNeighbours)] {
			if float64(nb.sim) <= s.CreativeSimilarity || !ru.similarityCandidate(int(nb.j), s.CreativeMinRelevance) {
				continue
			}
			key := [2]int32{int32(i), nb.j}
			if key[0] > key[1] {
				key[0], key[1] = key[1], key[0]
			}
			if old, ok := best[key]; !ok || nb.sim > old {
				best[key] = nb.sim
			}
		}
	}
	pairs := make([]pair, 0, len(best))
	for k, sim := range best {
		pairs = append(pairs, pair{k[0], k[1], sim})
	}
	slices.SortFunc(pairs, func(x, y pair) int {
		return cmp.Or(cmp.Compare(y.sim, x.sim), cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	added := map[int32]int{}
	for _, p := range pairs {
		if s.CreativeMaxEdges > 0 && ru.stats.EdgesAdded >= s.CreativeMaxEdges {
			break
		}
		if added[p.a] >= s.CreativeLinksPerNode || added[p.b] >= s.CreativeLinksPerNode {
			continue
		}
		a, b := &st.nodes[p.a], &st.nodes[p.b]
		if st.connected(a.ID, b.ID) {
			continue
		}
		sim := math.Min(1, math.Max(0, float64(p.sim)))
		rel, note := link.RelatesTo, fmt.Sprintf("similarity %.2f", sim)
		if shared := sharedTags(a.Tags, b.Tags); len(shared) > 0 {
			rel, note = link.SharesTheme, note+"; shared tags: "+strings.Join(shared, ", ")
		}
		e := Edge{
			ID:         newID(ru.now, "creative", a.ID.String(), b.ID.String(), string(rel)),
			Source:     a.ID,
			Target:     b.ID,
			Relation:   rel,
			Confidence: sim,
			CreatedBy:  link.ByConsolidation,
			CreatedAt:  ru.now,
			Note:       note,
		}
		if err := ru.emit(Change{Op: OpAddEdge, Cycle: Creative, Edge: &e, Reason: note}); err != nil {
			return err
		}
		added[p.a]++
		added[p.b]++
		ru.stats.EdgesAdded++
	}
	return nil
}

// sharedTags lists the tags of a that b has too, compared without case or
// surrounding space, in a's order and spelling, each once.
func sharedTags(a, b []string) []string {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	in := make(map[string]bool, len(b))
	for _, t := range b {
		in[strings.ToLower(strings.TrimSpace(t))] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range a {
		k := strings.ToLower(strings.TrimSpace(t))
		if k != "" && in[k] && !seen[k] {
			seen[k] = true
			out = append(out, strings.TrimSpace(t))
		}
	}
	return out
}

// cluster groups dense regions of embedding space, DBSCAN-style, under
// MetaPattern nodes. A node takes part when it is live, not a MetaPattern,
// has an embedding and a relevance above ClusterMinRelevance. Its
// neighbours are those of its ClusterNeighbours nearest (found through the
// neighbour index, not by comparing every pair) with similarity above
// ClusterSimilarity; a node with at least ClusterMinPoints - 1 of them is a
// core node; core nodes that are neighbours (either way) join one cluster;
// a non-core node joins the cluster of its most similar core neighbour
// (either way) and links no further. A cluster of ClusterMinSize or more
// nodes becomes:
//
//   - when at least half its nodes are already PART_OF one live MetaPattern,
//     more members of that MetaPattern (PART_OF edges from the others), so a
//     monthly run grows the patterns it made instead of repeating them;
//   - otherwise a new MetaPattern node (rhizome:knowledge/<ULID>, kind
//     MetaPattern, confidence 0.8 and relevance 0.9 as AutoMem gives its
//     meta-memories, importance UnknownImportance, the normalised mean of
//     its members' embeddings, a label and an offline summary from the
//     members' tags, kinds, times and labels), with a PART_OF edge from each
//     member whose confidence is the member's similarity to the centre.
//
// See automem-features.md, "Cycles" 3 and "Persistence".
func (ru *runner) cluster() error {
	if err := ru.neighbours(); err != nil {
		return err
	}
	st, s := ru.st, ru.s
	n := len(st.nodes)
	in := func(i int) bool { return ru.similarityCandidate(i, s.ClusterMinRelevance) }
	nb := make([][]near, n)
	core := make([]bool, n)
	for i := range n {
		if err := ru.tick(i); err != nil {
			return err
		}
		if !in(i) {
			continue
		}
		ru.stats.Examined++
		all := ru.near[i]
		for _, x := range all[:min(len(all), s.ClusterNeighbours)] {
			if float64(x.sim) > s.ClusterSimilarity && in(int(x.j)) {
				nb[i] = append(nb[i], x)
			}
		}
		core[i] = len(nb[i])+1 >= s.ClusterMinPoints
	}
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra < rb {
			parent[rb] = ra
		} else if rb < ra {
			parent[ra] = rb
		}
	}
	// Border nodes: the most similar core neighbour, looked for both ways.
	borderOf := make([]int32, n)
	borderSim := make([]float32, n)
	for i := range borderOf {
		borderOf[i] = -1
	}
	offer := func(border, c int32, sim float32) {
		if sim > borderSim[border] || borderOf[border] < 0 || sim == borderSim[border] && c < borderOf[border] {
			borderOf[border], borderSim[border] = c, sim
		}
	}
	for i := range n {
		for _, x := range nb[i] {
			switch {
			case core[i] && core[x.j]:
				union(int32(i), x.j)
			case core[i]:
				offer(x.j, int32(i), x.sim)
			case core[x.j]:
				offer(int32(i), x.j, x.sim)
			}
		}
	}
	groups := map[int32][]int32{}
	for i := range n {
		switch {
		case core[i]:
			r := find(int32(i))
			groups[r] = append(groups[r], int32(i))
		case borderOf[i] >= 0:
			r := find(borderOf[i])
			groups[r] = append(groups[r], int32(i))
		}
	}
	roots := make([]int32, 0, len(groups))
	for r, g := range groups {
		if len(g) >= s.ClusterMinSize {
			slices.Sort(g)
			roots = append(roots, r)
		}
	}
	slices.SortFunc(roots, func(a, b int32) int { return cmp.Compare(groups[a][0], groups[b][0]) })
	for _, r := range roots {
		if err := ru.ctx.Err(); err != nil {
			return err
		}
		if err := ru.metaPattern(groups[r]); err != nil {
			return err
		}
	}
	return nil
}

// metaPattern makes the changes for one cluster: more members for the live
// MetaPattern half of it already belongs to, or a new MetaPattern.
func (ru *runner) metaPattern(members []int32) error {
	st := ru.st
	// Existing patterns: live MetaPatterns members are PART_OF.
	count := map[int]int{}
	partOf := make([]map[int]bool, len(members))
	for m, i := range members {
		id := st.nodes[i].ID
		st.incident(id, func(e *Edge) {
			if e.Relation != link.PartOf || e.Source != id {
				return
			}
			if j := st.node(e.Target); j >= 0 && !st.nodes[j].Archived && st.nodes[j].Kind == KindMetaPattern {
				if partOf[m] == nil {
					partOf[m] = map[int]bool{}
				}
				if !partOf[m][j] {
					partOf[m][j] = true
					count[j]++
				}
			}
		})
	}
	meta, most := -1, 0
	for j, c := range count {
		if c > most || c == most && j < meta {
			meta, most = j, c
		}
	}
	if meta >= 0 && 2*most >= len(members) {
		var grew bool
		for m, i := range members {
			if partOf[m][meta] {
				continue
			}
			if err := ru.partOf(int(i), meta, len(members)); err != nil {
				return err
			}
			grew = true
		}
		if grew {
			ru.stats.Extended++
		}
		return nil
	}
	nodes := make([]*Node, len(members))
	ids := make([]string, len(members))
	for m, i := range members {
		nodes[m] = &st.nodes[i]
		ids[m] = nodes[m].ID.String()
	}
	slices.Sort(ids)
	centre := centroid(nodes)
	label, summary, tags := summarise(nodes, centre)
	mp := Node{
		ID:         link.Knowledge(newID(ru.now, append([]string{"meta"}, ids...)...)),
		Kind:       KindMetaPattern,
		Label:      label,
		Summary:    summary,
		Tags:       tags,
		Importance: UnknownImportance,
		Confidence: 0.8,
		CreatedAt:  ru.now,
		Relevance:  0.9,
		Embedding:  centre,
	}
	if err := ru.emit(Change{Op: OpAddNode, Cycle: Cluster, Node: &mp, Reason: fmt.Sprintf("a dense cluster of %d nodes", len(members))}); err != nil {
		return err
	}
	ru.stats.MetaPatterns++
	j := st.node(mp.ID)
	for _, i := range members {
		if err := ru.partOf(int(i), j, len(members)); err != nil {
			return err
		}
	}
	return nil
}

// partOf adds the PART_OF edge from member i to MetaPattern j, of a
// cluster of size nodes.
func (ru *runner) partOf(i, j, size int) error {
	m, mp := &ru.st.nodes[i], &ru.st.nodes[j]
	sim := 0.0
	if mp.Embedding != nil {
		sim = math.Min(1, math.Max(0, Cosine(m.Embedding, mp.Embedding)))
	}
	note := fmt.Sprintf("member of a cluster of %d; similarity to its centre %.2f", size, sim)
	e := Edge{
		ID:         newID(ru.now, "partOf", m.ID.String(), mp.ID.String()),
		Source:     m.ID,
		Target:     mp.ID,
		Relation:   link.PartOf,
		Confidence: sim,
		CreatedBy:  link.ByConsolidation,
		CreatedAt:  ru.now,
		Note:       note,
	}
	if err := ru.emit(Change{Op: OpAddEdge, Cycle: Cluster, Edge: &e, Reason: note}); err != nil {
		return err
	}
	ru.stats.PartOf++
	return nil
}

// centroid is the normalised mean of the nodes' normalised embeddings, or
// nil when they cancel out.
func centroid(nodes []*Node) []float32 {
	dim := len(nodes[0].Embedding)
	sum := make([]float64, dim)
	unit := make([]float32, dim)
	for _, n := range nodes {
		normalise(unit, n.Embedding)
		for d, f := range unit {
			sum[d] += float64(f)
		}
	}
	var norm float64
	for _, f := range sum {
		norm += f * f
	}
	if norm == 0 {
		return nil
	}
	norm = math.Sqrt(norm)
	out := make([]float32, dim)
	for d, f := range sum {
		out[d] = float32(f / norm)
	}
	return out
}

// Limits on the generated texts, in runes.
const (
	maxLabelRunes  = 80
	maxQuotedRunes = 120
)

// summarise writes a MetaPattern's label, summary and tags offline, from
// its members:
//
//   - tags: up to three tags that two or more members carry, the most
//     common first (ties alphabetical, compared without case);
//   - label: those tags joined by " · "; with none, the label of the member
//     nearest the centre that has one; with none at all, "<kind> cluster"
//     (the most common kind);
//   - summary: "<N> nodes (<count> <kind>, …) from <date> to <date>, about
//     <tags>. Nearest the centre: "<label>"; "<label>"; "<label>"."
//
// A model-written summary is the app's option; it replaces Summary.
func summarise(nodes []*Node, centre []float32) (label, summary string, tags []string) {
	type tally struct {
		name  string
		count int
	}
	tagCount := map[string]*tally{}
	kindCount := map[string]int{}
	first, last := nodes[0].CreatedAt, nodes[0].CreatedAt
	for _, n := range nodes {
		kindCount[n.Kind]++
		if n.CreatedAt.Before(first) {
			first = n.CreatedAt
		}
		if n.CreatedAt.After(last) {
			last = n.CreatedAt
		}
		seen := map[string]bool{}
		for _, t := range n.Tags {
			t = strings.TrimSpace(t)
			k := strings.ToLower(t)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			if tagCount[k] == nil {
				tagCount[k] = &tally{name: t}
			}
			tagCount[k].count++
		}
	}
	var common []*tally
	for _, t := range tagCount {
		if t.count >= 2 {
			common = append(common, t)
		}
	}
	slices.SortFunc(common, func(a, b *tally) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name)))
	})
	for _, t := range common[:min(3, len(common))] {
		tags = append(tags, t.name)
	}
	// Members nearest the centre, for the label and the quotes.
	order := make([]int, len(nodes))
	sims := make([]float64, len(nodes))
	for i, n := range nodes {
		order[i] = i
		if centre != nil {
			sims[i] = Cosine(n.Embedding, centre)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sims[b], sims[a]) })
	var quotes []string
	for _, i := range order {
		if l := strings.TrimSpace(nodes[i].Label); l != "" && len(quotes) < 3 {
			quotes = append(quotes, `"`+clipRunes(l, maxQuotedRunes)+`"`)
		}
	}
	kinds := make([]string, 0, len(kindCount))
	for k := range kindCount {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b string) int { return cmp.Or(cmp.Compare(kindCount[b], kindCount[a]), cmp.Compare(a, b)) })
	if len(tags) > 0 {
		label = strings.Join(tags, " · ")
	} else {
		for _, i := range order {
			if l := strings.TrimSpace(nodes[i].Label); l != "" {
				label = clipRunes(l, maxLabelRunes)
				break
			}
		}
	}
	if label == "" {
		label = kinds[0] + " cluster"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes (", len(nodes))
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d %s", kindCount[k], k)
	}
	fmt.Fprintf(&b, ") from %s to %s", first.UTC().Format("2006-01-02"), last.UTC().Format("2006-01-02"))
	if len(tags) > 0 {
		fmt.Fprintf(&b, ", about %s", strings.Join(tags, ", "))
	}
	b.WriteString(".")
	if len(quotes) > 0 {
		fmt.Fprintf(&b, " Nearest the centre: %s.", strings.Join(quotes, "; "))
	}
	return label, b.String(), tags
}

// clipRunes cuts s to at most n runes, ending in "…" when cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// forget archives live nodes whose relevance, computed afresh at the run's
// time with their edges as the run has left them (as AutoMem's code does),
// is under ArchiveBelow, and — when DeleteEnabled — deletes nodes, archived
// or not, under DeleteBelow (a deleted node takes its edges with it; the
// change keeps them for undo). A protected node is never archived or
// deleted: it is listed in the log's Spared with its protections (see
// Protections: importance >= ProtectImportance, younger than
// ProtectYoungerThanDays, a kind in ProtectedKinds, touched by a person).
// All scores are judged before any node goes, so a deletion does not lower
// its neighbours' scores in the same run. See automem-features.md, "Cycles"
// 4, ERRATA.md line 82 and issue 10, section 3.
func (ru *runner) forget() error {
	st, s := ru.st, ru.s
	n := len(st.nodes)
	scores := make([]float64, n)
	touched := make([]bool, n)
	for i := range n {
		if st.nodeAlive[i] {
			id := st.nodes[i].ID
			scores[i] = Relevance(&st.nodes[i], st.degree(id), ru.now, s)
			touched[i] = st.touched(id)
		}
	}
	for i := range n {
		if err := ru.tick(i); err != nil {
			return err
		}
		if !st.nodeAlive[i] {
			continue
		}
		ru.stats.Examined++
		node := &st.nodes[i]
		score := scores[i]
		var op Op
		var reason string
		switch {
		case s.DeleteEnabled && score < s.DeleteBelow:
			op, reason = OpRemoveNode, fmt.Sprintf("relevance %.3f < delete threshold %v", score, s.DeleteBelow)
		case !node.Archived && score < s.ArchiveBelow:
			op, reason = OpArchive, fmt.Sprintf("relevance %.3f < archive threshold %v", score, s.ArchiveBelow)
		default:
			continue
		}
		if p := Protections(node, touched[i], ru.now, s); len(p) > 0 {
			ru.log.Spared = append(ru.log.Spared, Spared{Item: node.ID, Kind: node.Kind, Relevance: score, Would: op, Protections: p})
			ru.stats.Spared++
			continue
		}
		c := Change{Op: op, Cycle: Forget, Relevance: score, Reason: reason}
		if op == OpArchive {
			c.Item = node.ID
			ru.stats.Archived++
		} else {
			snap := *node
			c.Node = &snap
			c.Edges = st.incidentEdges(node.ID)
			ru.stats.Deleted++
		}
		if err := ru.emit(c); err != nil {
			return err
		}
	}
	return nil
}
