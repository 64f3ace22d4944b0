package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// HNSW is an approximate nearest-neighbour index of unit vectors by cosine
// similarity: a hierarchical navigable small-world graph (Malkov and
// Yashunin, 2018, algorithms 1 to 4, with the neighbour-selection
// heuristic). A query visits a few hundred vectors instead of all of them.
//
// Why not github.com/coder/hnsw: its search stops at the first expansion
// that does not improve the best distance (not the paper's ef-bounded
// search, which costs recall), sorts every visited node's neighbour map, and
// panics on a vector of another length; this one keeps neighbours in slices
// and returns errors.
//
// Add and Nearest may be called concurrently (a read-write lock).
type HNSW struct {
	// M is the neighbours kept per node above level 0 (2M at level 0);
	// EfConstruction and EfSearch the candidate list lengths when adding
	// and searching. Set them before the first Add.
	M, EfConstruction, EfSearch int

	mu      sync.RWMutex
	dims    int
	keys    []string
	index   map[string]int32
	vecs    []float32 // len(keys) x dims
	links   [][][]int32
	deleted []bool
	entry   int32
	top     int
	rng     *rand.Rand
	visits  sync.Pool // *visitSet
}

// visitSet marks visited nodes by stamping them with the search's number,
// so it is cleared in O(1) between searches.
type visitSet struct {
	stamp []uint32
	now   uint32
}

func (h *HNSW) visitor() *visitSet {
	v, _ := h.visits.Get().(*visitSet)
	if v == nil {
		v = &visitSet{}
	}
	if n := len(h.keys); len(v.stamp) < n {
		v.stamp = append(v.stamp, make([]uint32, n-len(v.stamp)+n/4)...)
	}
	v.now++
	if v.now == 0 { // wrapped: clear
		clear(v.stamp)
		v.now = 1
	}
	return v
}

// visit marks i and reports whether it was already marked.
func (v *visitSet) visit(i int32) bool {
	if v.stamp[i] == v.now {
		return true
	}
	v.stamp[i] = v.now
	return false
}

// NewHNSW returns an empty index with M 16, EfConstruction 100, EfSearch 96.
func NewHNSW() *HNSW {
	return &HNSW{M: 16, EfConstruction: 100, EfSearch: 96, index: map[string]int32{}, entry: -1,
		rng: rand.New(rand.NewPCG(7, 11))}
}

// Len is the number of vectors, deleted ones excluded.
func (h *HNSW) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for _, d := range h.deleted {
		if !d {
			n++
		}
	}
	return n
}

// Dims is the vectors' length (0 while empty).
func (h *HNSW) Dims() int { return h.dims }

func (h *HNSW) vec(i int32) []float32 {
	return h.vecs[int(i)*h.dims : int(i+1)*h.dims]
}

func dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	b = b[:len(a)]
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += x[0]*y[0] + x[4]*y[4]
		s1 += x[1]*y[1] + x[5]*y[5]
		s2 += x[2]*y[2] + x[6]*y[6]
		s3 += x[3]*y[3] + x[7]*y[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Add inserts or replaces the vector of key (normalized to unit length). A
// vector of another length than the index's, or of only zeros or NaN, is
// an error.
func (h *HNSW) Add(key string, v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("search: vector of %s is empty", key)
	}
	u := append([]float32(nil), v...)
	normalize(u)
	var n float32
	for _, x := range u {
		n += x * x
	}
	if math.IsNaN(float64(n)) || n == 0 {
		return fmt.Errorf("search: vector of %s has no direction (zeros or NaN)", key)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dims == 0 {
		h.dims = len(u)
	}
	if len(u) != h.dims {
		return fmt.Errorf("search: vector of %s has %d dimensions, the index %d", key, len(u), h.dims)
	}
	if old, ok := h.index[key]; ok {
		h.deleted[old] = true // replaced: the old node stays as a waypoint
	}
	id := int32(len(h.keys))
	h.keys = append(h.keys, key)
	h.index[key] = id
	h.vecs = append(h.vecs, u...)
	h.deleted = append(h.deleted, false)
	level := int(math.Floor(-math.Log(1-h.rng.Float64()) / math.Log(float64(h.m()))))
	h.links = append(h.links, make([][]int32, level+1))
	if h.entry < 0 {
		h.entry, h.top = id, level
		return nil
	}
	ep := h.entry
	for l := h.top; l > level; l-- {
		ep = h.greedy(u, ep, l)
	}
	for l := min(level, h.top); l >= 0; l-- {
		cands := h.searchLayer(u, []int32{ep}, h.efc(), l)
		neigh := h.selectNeighbors(u, cands, h.m())
		h.links[id][l] = neigh
		for _, nb := range neigh {
			h.connect(nb, id, l)
		}
		ep = cands[0].id
	}
	if level > h.top {
		h.entry, h.top = id, level
	}
	return nil
}

func (h *HNSW) m() int {
	if h.M < 2 {
		return 16
	}
	return h.M
}

func (h *HNSW) efc() int { return max(h.EfConstruction, h.m()) }

func (h *HNSW) maxLinks(level int) int {
	if level == 0 {
		return 2 * h.m()
	}
	return h.m()
}

// connect adds a link from a to b at level l, pruning a's links by the
// heuristic when over the limit.
func (h *HNSW) connect(a, b int32, l int) {
	links := append(h.links[a][l], b)
	// Pruning (the heuristic over every link) is the costliest part of
	// adding; letting a list grow a quarter past its size before pruning
	// it back does it a quarter as often.
	if len(links) <= h.maxLinks(l)+h.maxLinks(l)/4 {
		h.links[a][l] = links
		return
	}
	va := h.vec(a)
	cands := make([]scored, len(links))
	for i, x := range links {
		cands[i] = scored{x, dot(va, h.vec(x))}
	}
	sortScored(cands)
	h.links[a][l] = h.selectNeighbors(va, cands, h.maxLinks(l))
}

type scored struct {
	id  int32
	sim float32
}

func sortScored(s []scored) {
	// insertion sort: the lists are short
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].sim > s[j-1].sim; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// selectNeighbors is the paper's heuristic (algorithm 4): keep a candidate
// only if it is nearer the new vector than to every neighbour kept so far,
// then fill up with the nearest of the rest. cands is sorted best first.
func (h *HNSW) selectNeighbors(v []float32, cands []scored, m int) []int32 {
	out := make([]int32, 0, m)
	var skipped []int32
	for _, c := range cands {
		if len(out) == m {
			break
		}
		good := true
		vc := h.vec(c.id)
		for _, o := range out {
			if dot(vc, h.vec(o)) > c.sim {
				good = false
				break
			}
		}
		if good {
			out = append(out, c.id)
		} else {
			skipped = append(skipped, c.id)
		}
	}
	for _, s := range skipped {
		if len(out) == m {
			break
		}
		out = append(out, s)
	}
	return out
}

// greedy walks level l from ep to the vector most similar to v.
func (h *HNSW) greedy(v []float32, ep int32, l int) int32 {
	best := dot(v, h.vec(ep))
	for changed := true; changed; {
		changed = false
		for _, nb := range h.links[ep][l] {
			if s := dot(v, h.vec(nb)); s > best {
				best, ep, changed = s, nb, true
			}
		}
	}
	return ep
}

// simHeap is a binary heap of scored by similarity: the most similar on
// top when max, the least similar otherwise. Typed, so pushing allocates
// nothing (container/heap boxes every element).
type simHeap struct {
	s   []scored
	max bool
}

// Len is the number of elements.
func (h *simHeap) Len() int { return len(h.s) }

func (h *simHeap) less(i, j int) bool {
	if h.max {
		return h.s[i].sim > h.s[j].sim
	}
	return h.s[i].sim < h.s[j].sim
}

func (h *simHeap) push(x scored) {
	h.s = append(h.s, x)
	for i := len(h.s) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.s[i], h.s[p] = h.s[p], h.s[i]
		i = p
	}
}

func (h *simHeap) pop() scored {
	top := h.s[0]
	last := len(h.s) - 1
	h.s[0] = h.s[last]
	h.s = h.s[:last]
	h.down(0)
	return top
}

func (h *simHeap) down(i int) {
	n := len(h.s)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.less(r, l) {
			c = r
		}
		if !h.less(c, i) {
			return
		}
		h.s[i], h.s[c] = h.s[c], h.s[i]
		i = c
	}
}

// searchLayer is the paper's algorithm 2: the ef vectors of level l most
// similar to v found from eps, best first.
func (h *HNSW) searchLayer(v []float32, eps []int32, ef int, l int) []scored {
	visited := h.visitor()
	defer h.visits.Put(visited)
	cand := &simHeap{max: true, s: make([]scored, 0, ef)}
	found := &simHeap{s: make([]scored, 0, ef+1)}
	for _, ep := range eps {
		s := scored{ep, dot(v, h.vec(ep))}
		visited.visit(ep)
		cand.push(s)
		found.push(s)
	}
	for cand.Len() > 0 {
		c := cand.pop()
		if found.Len() >= ef && c.sim < found.s[0].sim {
			break
		}
		for _, nb := range h.links[c.id][l] {
			if visited.visit(nb) {
				continue
			}
			s := dot(v, h.vec(nb))
			if found.Len() < ef || s > found.s[0].sim {
				cand.push(scored{nb, s})
				found.push(scored{nb, s})
				if found.Len() > ef {
					found.pop()
				}
			}
		}
	}
	out := found.s
	sortScoredFast(out)
	return out
}

func sortScoredFast(s []scored) {
	if len(s) < 32 {
		sortScored(s)
		return
	}
	h := &simHeap{s: append([]scored(nil), s...), max: true}
	for i := len(h.s)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	for i := range s {
		s[i] = h.pop()
	}
}

// Nearest implements VectorIndex: at most k keys, most similar to v first,
// Score the cosine similarity. A vector of the wrong length finds nothing.
func (h *HNSW) Nearest(v []float32, k int) []Hit {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.entry < 0 || len(v) != h.dims || k <= 0 {
		return nil
	}
	q := append([]float32(nil), v...)
	normalize(q)
	ep := h.entry
	for l := h.top; l > 0; l-- {
		ep = h.greedy(q, ep, l)
	}
	found := h.searchLayer(q, []int32{ep}, max(h.EfSearch, k), 0)
	out := make([]Hit, 0, k)
	for _, s := range found {
		if h.deleted[s.id] {
			continue
		}
		out = append(out, Hit{Item: h.keys[s.id], Score: float64(s.sim)})
		if len(out) == k {
			break
		}
	}
	return out
}

// Similarity implements VectorIndex: the cosine similarity of v and key's
// vector, false when key has none (or was deleted) or v has another length.
func (h *HNSW) Similarity(v []float32, key string) (float64, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	id, ok := h.index[key]
	if !ok || len(v) != h.dims {
		return 0, false
	}
	q := append([]float32(nil), v...)
	normalize(q)
	return float64(dot(q, h.vec(id))), true
}

// Exact returns the k keys most similar to v by comparing every vector: the
// baseline Nearest approximates.
func (h *HNSW) Exact(v []float32, k int) []Hit {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if len(v) != h.dims || k <= 0 {
		return nil
	}
	q := append([]float32(nil), v...)
	normalize(q)
	best := &simHeap{}
	for i := range h.keys {
		if h.deleted[i] {
			continue
		}
		s := scored{int32(i), dot(q, h.vec(int32(i)))}
		if best.Len() < k {
			best.push(s)
		} else if s.sim > best.s[0].sim {
			best.s[0] = s
			best.down(0)
		}
	}
	sortScoredFast(best.s)
	out := make([]Hit, len(best.s))
	for i, s := range best.s {
		out[i] = Hit{Item: h.keys[s.id], Score: float64(s.sim)}
	}
	return out
}

// Delete removes key from the results (its node stays in the graph as a
// waypoint until the index is rebuilt). It reports whether key was there.
func (h *HNSW) Delete(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	id, ok := h.index[key]
	if !ok || h.deleted[id] {
		return false
	}
	h.deleted[id] = true
	delete(h.index, key)
	return true
}

const hnswMagic = "rhizome-hnsw-1\n"

// MarshalBinary encodes the graph: its keys and links, not the vectors
// (they are stored once, with the items; UnmarshalHNSW takes them back).
func (h *HNSW) MarshalBinary() ([]byte, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	var b []byte
	b = append(b, hnswMagic...)
	for _, v := range []int{h.M, h.EfConstruction, h.EfSearch, h.dims, len(h.keys), int(h.entry) + 1, h.top} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	for i, k := range h.keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		del := uint64(0)
		if h.deleted[i] {
			del = 1
		}
		b = binary.AppendUvarint(b, del)
		b = binary.AppendUvarint(b, uint64(len(h.links[i])))
		for _, l := range h.links[i] {
			b = binary.AppendUvarint(b, uint64(len(l)))
			for _, x := range l {
				b = binary.AppendUvarint(b, uint64(x))
			}
		}
	}
	return b, nil
}

// UnmarshalHNSW decodes a graph MarshalBinary encoded, taking each key's
// vector from vector (false: the key has none, an error). The error says
// what is wrong with the bytes.
func UnmarshalHNSW(data []byte, vector func(key string) ([]float32, bool)) (*HNSW, error) {
	if !bytes.HasPrefix(data, []byte(hnswMagic)) {
		return nil, errors.New("search: not a nearest-neighbour graph (bad header)")
	}
	b := data[len(hnswMagic):]
	bad := errors.New("search: nearest-neighbour graph truncated")
	next := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, bad
		}
		b = b[n:]
		return v, nil
	}
	var hdr [7]uint64
	for i := range hdr {
		v, err := next()
		if err != nil {
			return nil, err
		}
		hdr[i] = v
	}
	n := hdr[4]
	if n > uint64(len(data)) || hdr[3] > 65536 || hdr[5] > n {
		return nil, fmt.Errorf("search: nearest-neighbour graph of %d vectors of %d dimensions does not fit its %d bytes", n, hdr[3], len(data))
	}
	h := &HNSW{M: int(hdr[0]), EfConstruction: int(hdr[1]), EfSearch: int(hdr[2]), dims: int(hdr[3]),
		entry: int32(hdr[5]) - 1, top: int(hdr[6]), index: make(map[string]int32, n),
		keys: make([]string, 0, n), links: make([][][]int32, 0, n), deleted: make([]bool, 0, n),
		vecs: make([]float32, 0, int(n)*int(hdr[3])), rng: rand.New(rand.NewPCG(7, 11))}
	for i := range int(n) {
		l, err := next()
		if err != nil {
			return nil, err
		}
		if uint64(len(b)) < l {
			return nil, bad
		}
		key := string(b[:l])
		b = b[l:]
		del, err := next()
		if err != nil {
			return nil, err
		}
		levels, err := next()
		if err != nil || levels > 64 {
			return nil, bad
		}
		links := make([][]int32, levels)
		for lv := range links {
			cnt, err := next()
			if err != nil || cnt > n {
				return nil, bad
			}
			links[lv] = make([]int32, cnt)
			for j := range links[lv] {
				x, err := next()
				if err != nil || x >= n {
					return nil, bad
				}
				links[lv][j] = int32(x)
			}
		}
		v, ok := vector(key)
		if !ok && del == 0 {
			return nil, fmt.Errorf("search: nearest-neighbour graph: no vector for %s", key)
		}
		if !ok {
			v = make([]float32, h.dims)
		}
		if len(v) != h.dims {
			return nil, fmt.Errorf("search: nearest-neighbour graph: vector of %s has %d dimensions, want %d", key, len(v), h.dims)
		}
		u := append([]float32(nil), v...)
		normalize(u)
		h.keys = append(h.keys, key)
		h.vecs = append(h.vecs, u...)
		h.links = append(h.links, links)
		h.deleted = append(h.deleted, del == 1)
		if del == 0 {
			h.index[key] = int32(i)
		}
	}
	if len(b) != 0 {
		return nil, errors.New("search: nearest-neighbour graph has trailing bytes")
	}
	return h, nil
}
