// Package relate derives relations across sessions, offline: segment nodes
// that touch the same rare files, that name the same issue or pull request,
// that continue work an earlier session of the project left failed or
// partial, and the temporal order of a project's sessions. Every edge
// carries a relation of the one vocabulary (backend/link), a confidence
// from 0 to 1 with the reason for it in words, and createdBy "offline".
//
// Nothing here compares every segment with every other: each derivation
// walks an inverted index (file -> segments, reference -> segments) whose
// posting lists are capped, or a project's sessions in time order.
//
// See ../shared/specs/automem-features.md, "1. Relationship Model" (typed
// relations with confidence and similarity), context-graph-dag.md,
// "Cross-Reference Relationship Types", and pi-brain-node-model.md, "Edge
// Data Structure".
package relate

import (
	"fmt"
	"math"
	"rhizome/backend/project"
	"sort"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/link"
)

// Segment is the light description of one segment node that the
// derivations read: the app fills it from the stored nodes.
type Segment struct {
	ID        string    // the graph node id (16 hex)
	SessionID string    // the session the segment belongs to
	Project   string    // the session's cwd
	Start     time.Time // first entry's time
	End       time.Time // last entry's time
	// Files are the files the segment touched (graph.Content.FilesTouched:
	// relative to the project root inside it, absolute outside).
	Files   []string
	Outcome graph.Outcome
	// Refs are the issue, pull request and URL references of the segment's
	// text, as Refs extracts them (the app runs Refs over the user text).
	Refs []string
}

// Edge is one derived relation between two items.
type Edge struct {
	Source   link.Item     `json:"source"` // rhizome:node/<id> of a segment, or the item the relation starts at
	Target   link.Item     `json:"target"` // a segment node, or an external URL for REFERENCES
	Relation link.Relation `json:"relation"`
	// Confidence is how sure the derivation is, 0 to 1; Rationale says why
	// in words a person can check.
	Confidence float64 `json:"confidence"`
	// Similarity is the weighted file overlap of RELATES_TO edges from
	// shared files (a cosine, 0 to 1); nil for other edges.
	Similarity *float64       `json:"similarity,omitempty"`
	Rationale  string         `json:"rationale"`
	CreatedBy  link.CreatedBy `json:"createdBy"`
}

// Options bound the derivations. DefaultOptions gives the values the app
// uses; the zero value of a field means its default.
type Options struct {
	// MaxFilePostings: a file touched by more segments than this is
	// ubiquitous (a README, package.json) and relates nothing.
	MaxFilePostings int
	// UbiquitousShare: a file touched by more than this share of its
	// project's segments (and by at least 8) relates nothing either.
	UbiquitousShare float64
	// MaxRefPostings: a reference named by more segments than this relates
	// nothing (it is a project's tracking issue, or a docs URL).
	MaxRefPostings int
	// MinFileConfidence: shared-file relations below it are dropped.
	MinFileConfidence float64
	// MaxFileRelations: each segment keeps its strongest shared-file
	// relations, at most this many.
	MaxFileRelations int
	// ContinuationWindow: LEADS_TO links a failed or partial session to the
	// next session of the project only when that one starts within it.
	ContinuationWindow time.Duration
}

// DefaultOptions are the bounds the app uses.
func DefaultOptions() Options {
	return Options{MaxFilePostings: 50, UbiquitousShare: 0.2, MaxRefPostings: 20, MinFileConfidence: 0.25,
		MaxFileRelations: 5, ContinuationWindow: 14 * 24 * time.Hour}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.MaxFilePostings <= 0 {
		o.MaxFilePostings = d.MaxFilePostings
	}
	if o.UbiquitousShare <= 0 {
		o.UbiquitousShare = d.UbiquitousShare
	}
	if o.MaxRefPostings <= 0 {
		o.MaxRefPostings = d.MaxRefPostings
	}
	if o.MinFileConfidence <= 0 {
		o.MinFileConfidence = d.MinFileConfidence
	}
	if o.MaxFileRelations <= 0 {
		o.MaxFileRelations = d.MaxFileRelations
	}
	if o.ContinuationWindow <= 0 {
		o.ContinuationWindow = d.ContinuationWindow
	}
	return o
}

// Derive runs every derivation over segs and returns the edges, merged (see
// Merge) and sorted by source, target and relation. Segments without an id
// are skipped; the input is not modified.
//
// Cost: O(F·P² + R·Q² + S log S) for F indexed files with postings of at
// most P segments, R references with at most Q, and S segments: linear in
// the corpus for fixed caps, never S².
func Derive(segs []Segment, opts Options) []Edge {
	opts = opts.withDefaults()
	c := newCorpus(segs)
	var edges []Edge
	edges = append(edges, c.sharedFiles(opts)...)
	edges = append(edges, c.sharedRefs(opts)...)
	edges = append(edges, c.sessionOrder(opts)...)
	return mergeEdges(edges)
}

// corpus is the segments indexed by session and project.
type corpus struct {
	segs     []Segment
	sessions []*corpusSession            // every session, by project then start
	projects map[string][]*corpusSession // project -> its sessions in start order
	names    map[string]string           // project -> its name among the corpus's (project.Names)
}

// session is one session's segments in start order.
type corpusSession struct {
	id, project string
	segs        []int // indices into corpus.segs, by start
	start, end  time.Time
}

func newCorpus(in []Segment) *corpus {
	c := &corpus{projects: map[string][]*corpusSession{}}
	byID := map[string]*corpusSession{}
	for _, s := range in {
		if s.ID == "" {
			continue
		}
		c.segs = append(c.segs, s)
		i := len(c.segs) - 1
		key := s.Project + "\x00" + s.SessionID
		ss := byID[key]
		if ss == nil {
			ss = &corpusSession{id: s.SessionID, project: s.Project, start: s.Start, end: s.End}
			byID[key] = ss
			c.sessions = append(c.sessions, ss)
		}
		ss.segs = append(ss.segs, i)
		if s.Start.Before(ss.start) {
			ss.start = s.Start
		}
		if s.End.After(ss.end) {
			ss.end = s.End
		}
	}
	for _, ss := range c.sessions {
		sort.SliceStable(ss.segs, func(a, b int) bool { return c.segs[ss.segs[a]].Start.Before(c.segs[ss.segs[b]].Start) })
	}
	sort.SliceStable(c.sessions, func(a, b int) bool {
		x, y := c.sessions[a], c.sessions[b]
		if x.project != y.project {
			return x.project < y.project
		}
		if !x.start.Equal(y.start) {
			return x.start.Before(y.start)
		}
		return x.id < y.id
	})
	paths := []string{}
	for _, ss := range c.sessions {
		if c.projects[ss.project] == nil {
			paths = append(paths, ss.project)
		}
		c.projects[ss.project] = append(c.projects[ss.project], ss)
	}
	c.names = project.Names(paths)
	return c
}

// fileKey names a file across projects: a relative path is the project's.
func fileKey(project, f string) string {
	f = strings.TrimSpace(f)
	if f == "" {
		return ""
	}
	if strings.HasPrefix(f, "/") || len(f) > 2 && f[1] == ':' {
		return f
	}
	return project + "\x00" + strings.TrimPrefix(f, "./")
}

// displayFile is a file key as a person reads it.
func displayFile(key string) string {
	if _, f, ok := strings.Cut(key, "\x00"); ok {
		return f
	}
	return key
}

// pairKey orders two segment indices.
type pairKey struct{ a, b int32 }

func orderedPair(x, y int) pairKey {
	if x > y {
		x, y = y, x
	}
	return pairKey{int32(x), int32(y)}
}

// pairFiles accumulates the shared files of one pair.
type pairFiles struct {
	score float64
	files []int32 // indices into the file table, rarest first (at most 3 kept)
}

// sharedFiles relates segments of different sessions that touch the same
// files, weighted by how rare each file is (an IDF over all segments:
// idf = ln(N/df)); ubiquitous files are skipped. The evidence S is the sum
// of the shared files' idf; the confidence 0.9·S/(S + ln(N/2)) grows with
// each shared file and with its rarity, whatever the segments' sizes, and
// never reaches 0.9. Similarity is the cosine of the two IDF-weighted file
// sets: sum idf(shared) / sqrt(sum idf(a's files) · sum idf(b's files)).
func (c *corpus) sharedFiles(opts Options) []Edge {
	n := len(c.segs)
	if n < 2 {
		return nil
	}
	// The inverted index: file key -> segments touching it.
	index := map[string][]int32{}
	var keys []string
	projectSegs := map[string]int{}
	for i, s := range c.segs {
		projectSegs[s.Project]++
		seen := map[string]bool{}
		for _, f := range s.Files {
			k := fileKey(s.Project, f)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			if _, ok := index[k]; !ok {
				keys = append(keys, k)
			}
			index[k] = append(index[k], int32(i))
		}
	}
	sort.Strings(keys)
	idf := make([]float64, len(keys))
	usable := make([]bool, len(keys))
	norm := make([]float64, n) // sum of idf of each segment's usable files
	for fi, k := range keys {
		post := index[k]
		df := len(post)
		idf[fi] = math.Log(float64(n) / float64(df))
		proj := c.segs[post[0]].Project
		ubiquitous := df > opts.MaxFilePostings ||
			df >= 8 && float64(df) > opts.UbiquitousShare*float64(projectSegs[proj])
		usable[fi] = !ubiquitous && idf[fi] > 0
		if usable[fi] {
			for _, i := range post {
				norm[i] += idf[fi]
			}
		}
	}
	// pairIDF is the weight of a file only two segments touch: one such
	// file gives confidence 0.45, two 0.6, three 0.675; commoner files
	// count less.
	pairIDF := math.Log(float64(n) / 2)
	if pairIDF <= 0 {
		pairIDF = math.Ln2
	}
	pairs := map[pairKey]*pairFiles{}
	for fi, k := range keys {
		if !usable[fi] {
			continue
		}
		post := index[k]
		for x := 0; x < len(post); x++ {
			for y := x + 1; y < len(post); y++ {
				a, b := int(post[x]), int(post[y])
				if c.segs[a].SessionID == c.segs[b].SessionID && c.segs[a].Project == c.segs[b].Project {
					continue // within a session, continuation edges already say it
				}
				p := pairs[orderedPair(a, b)]
				if p == nil {
					p = &pairFiles{}
					pairs[orderedPair(a, b)] = p
				}
				p.score += idf[fi]
				p.files = append(p.files, int32(fi))
			}
		}
	}
	type scored struct {
		pair pairKey
		conf float64
	}
	best := make([][]scored, n) // per segment, its candidate relations
	for pk, p := range pairs {
		conf := 0.9 * p.score / (p.score + pairIDF)
		if conf < opts.MinFileConfidence {
			continue
		}
		best[pk.a] = append(best[pk.a], scored{pk, conf})
		best[pk.b] = append(best[pk.b], scored{pk, conf})
	}
	keep := map[pairKey]float64{}
	for _, list := range best {
		sort.Slice(list, func(i, j int) bool {
			if list[i].conf != list[j].conf {
				return list[i].conf > list[j].conf
			}
			if list[i].pair.a != list[j].pair.a {
				return list[i].pair.a < list[j].pair.a
			}
			return list[i].pair.b < list[j].pair.b
		})
		if len(list) > opts.MaxFileRelations {
			list = list[:opts.MaxFileRelations]
		}
		for _, s := range list {
			keep[s.pair] = s.conf
		}
	}
	edges := make([]Edge, 0, len(keep))
	for pk, conf := range keep {
		p := pairs[pk]
		sort.Slice(p.files, func(i, j int) bool {
			if idf[p.files[i]] != idf[p.files[j]] {
				return idf[p.files[i]] > idf[p.files[j]]
			}
			return p.files[i] < p.files[j]
		})
		names := make([]string, 0, 3)
		for _, fi := range p.files {
			if len(names) == 3 {
				break
			}
			names = append(names, displayFile(keys[fi]))
		}
		rarest := len(index[keys[p.files[0]]])
		more := ""
		if len(p.files) > 3 {
			more = fmt.Sprintf(" and %d more", len(p.files)-3)
		}
		src, dst := c.earlierFirst(int(pk.a), int(pk.b))
		sim := round3(math.Min(1, p.score/math.Sqrt(norm[pk.a]*norm[pk.b])))
		edges = append(edges, Edge{
			Source: link.Node(c.segs[src].ID), Target: link.Node(c.segs[dst].ID), Relation: link.RelatesTo,
			Confidence: round3(conf), Similarity: &sim, CreatedBy: link.ByOffline,
			Rationale: fmt.Sprintf("both touch %s%s; the rarest is touched by %d of %d segments (rarity-weighted evidence %.1f, file-set cosine %.2f)",
				strings.Join(names, ", "), more, rarest, n, p.score, sim),
		})
	}
	return edges
}

// earlierFirst orders two segments by start time (then id).
func (c *corpus) earlierFirst(a, b int) (int, int) {
	sa, sb := c.segs[a], c.segs[b]
	if sb.Start.Before(sa.Start) || sb.Start.Equal(sa.Start) && sb.ID < sa.ID {
		return b, a
	}
	return a, b
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
