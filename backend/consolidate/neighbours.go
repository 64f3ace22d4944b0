package consolidate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"rhizome/backend/link"
)

// Neighbour is one near node: its id and its cosine similarity to the
// node asked about, in [-1, 1].
type Neighbour struct {
	ID         link.Item `json:"id"`
	Similarity float64   `json:"similarity"`
}

// NeighbourIndex finds the nodes whose embeddings are nearest to a node's,
// without comparing it to every other node. The creative and cluster cycles
// ask it for every node they consider, from several goroutines at once.
//
// The app may fill it from the search index (an HNSW over the same
// embeddings); Index is the built-in one.
type NeighbourIndex interface {
	// Neighbours returns up to k nodes nearest to id by cosine similarity,
	// the most similar first, never id itself. An id the index does not
	// hold is an error. It must be safe for concurrent use.
	Neighbours(id link.Item, k int) ([]Neighbour, error)
}

// probeCells is how many cells of the inverted file a query searches: its
// own and the two next nearest, which catches most neighbours that fall
// just over a cell's border.
const probeCells = 3

// bruteForceBelow is the size under which Index compares every pair: a
// single cell.
const bruteForceBelow = 512

// Index is the built-in NeighbourIndex: an inverted file (IVF) over the
// unit-length embeddings. Spherical k-means on a sample places about
// sqrt(3n) centroids; every vector is filed under its nearest centroid, and
// a query compares the vector only with those filed under its probeCells
// nearest centroids (about 3n/C = sqrt(3n) vectors each; n*sqrt(3n) dot
// products for all n queries instead of n^2). It is approximate: a true
// neighbour filed in a fourth cell is missed (TestIndexRecall measures it).
// Building is deterministic; queries are safe for concurrent use.
type Index struct {
	dim  int
	ids  []link.Item
	pos  map[link.Item]int
	vecs []float32 // n*dim, unit length, cell by cell (slot order)
	// cellStart[c] is the first slot of cell c; cellStart[C] = n. A query
	// reads its cells' vectors in one sweep each, not scattered in memory.
	cellStart []int32
	slotOf    []int32 // vector i's slot
	atSlot    []int32 // the vector at each slot
	probes    []int32 // n*nprobe: each vector's nearest cells, nearest first
	nprobe    int
}

// NewIndex builds the index of vectors[i] under ids[i]. The vectors are
// copied and normalised. Errors: lengths that differ, a repeated id, an
// empty, non-finite or zero vector, or dimensions that differ (each naming
// the position and id).
func NewIndex(ctx context.Context, ids []link.Item, vectors [][]float32) (*Index, error) {
	if len(ids) != len(vectors) {
		return nil, fmt.Errorf("consolidate: index: %d ids for %d vectors", len(ids), len(vectors))
	}
	n := len(ids)
	x := &Index{ids: slices.Clone(ids), pos: make(map[link.Item]int, n)}
	if n == 0 {
		return x, nil
	}
	x.dim = len(vectors[0])
	x.vecs = make([]float32, n*x.dim) // in input order until filed
	for i, v := range vectors {
		if err := checkVector(v); err != nil {
			return nil, fmt.Errorf("consolidate: index: vector %d (%s): %w", i, ids[i], err)
		}
		if len(v) != x.dim {
			return nil, fmt.Errorf("consolidate: index: vector %d (%s): %d dimensions, vector 0 has %d", i, ids[i], len(v), x.dim)
		}
		if j, ok := x.pos[ids[i]]; ok {
			return nil, fmt.Errorf("consolidate: index: vector %d (%s): the same id as vector %d", i, ids[i], j)
		}
		x.pos[ids[i]] = i
		normalise(x.vecs[i*x.dim:(i+1)*x.dim], v)
	}
	ncells := 1
	if n >= bruteForceBelow {
		ncells = int(math.Sqrt(float64(probeCells * n)))
	}
	x.nprobe = min(probeCells, ncells)
	centroids := x.kmeans(ncells)
	x.probes = make([]int32, n*x.nprobe)
	err := parallel(ctx, n, func(i int) {
		x.nearestCells(x.vec(i), centroids, ncells, x.probes[i*x.nprobe:(i+1)*x.nprobe])
	})
	if err != nil {
		return nil, err
	}
	// File every vector under its nearest cell, cell by cell.
	x.cellStart = make([]int32, ncells+1)
	for i := range n {
		x.cellStart[x.probes[i*x.nprobe]+1]++
	}
	for c := range ncells {
		x.cellStart[c+1] += x.cellStart[c]
	}
	next := slices.Clone(x.cellStart[:ncells])
	x.slotOf = make([]int32, n)
	x.atSlot = make([]int32, n)
	filed := make([]float32, n*x.dim)
	for i := range n {
		c := x.probes[i*x.nprobe]
		slot := next[c]
		next[c]++
		x.slotOf[i], x.atSlot[slot] = slot, int32(i)
		copy(filed[int(slot)*x.dim:], x.vec(i))
	}
	x.vecs = filed
	return x, nil
}

// Len is the number of vectors in the index.
func (x *Index) Len() int { return len(x.ids) }

// vec is the vector at position (before filing) or slot (after) i.
func (x *Index) vec(i int) []float32 { return x.vecs[i*x.dim : (i+1)*x.dim] }

// kmeans places k unit centroids by spherical k-means (five rounds on a
// random sample of 16 vectors per centroid, seeded: the same input gives
// the same centroids), returned as k*dim values.
func (x *Index) kmeans(k int) []float32 {
	n := len(x.ids)
	c := make([]float32, k*x.dim)
	if k == 1 {
		return c // one cell: every vector, whatever the centroid
	}
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))
	perm := rng.Perm(n)
	for j := range k {
		copy(c[j*x.dim:(j+1)*x.dim], x.vec(perm[j]))
	}
	sample := perm[:min(n, 16*k)]
	sums := make([]float64, k*x.dim)
	counts := make([]int, k)
	for range 5 {
		clear(sums)
		clear(counts)
		for _, i := range sample {
			v := x.vec(i)
			best, bestSim := 0, float32(-2)
			for j := range k {
				if s := dot(v, c[j*x.dim:(j+1)*x.dim]); s > bestSim {
					best, bestSim = j, s
				}
			}
			counts[best]++
			sum := sums[best*x.dim : (best+1)*x.dim]
			for d, f := range v {
				sum[d] += float64(f)
			}
		}
		for j := range k {
			if counts[j] == 0 {
				continue // an empty cell keeps its centroid
			}
			var norm float64
			for _, f := range sums[j*x.dim : (j+1)*x.dim] {
				norm += f * f
			}
			if norm == 0 {
				continue
			}
			norm = math.Sqrt(norm)
			for d := range x.dim {
				c[j*x.dim+d] = float32(sums[j*x.dim+d] / norm)
			}
		}
	}
	return c
}

// nearestCells writes into out the len(out) centroids most similar to v,
// most similar first.
func (x *Index) nearestCells(v, centroids []float32, k int, out []int32) {
	sims := make([]float32, len(out))
	for i := range out {
		out[i], sims[i] = -1, -3
	}
	for j := range k {
		s := dot(v, centroids[j*x.dim:(j+1)*x.dim])
		if s <= sims[len(out)-1] {
			continue
		}
		p := len(out) - 1
		for p > 0 && sims[p-1] < s {
			sims[p], out[p] = sims[p-1], out[p-1]
			p--
		}
		sims[p], out[p] = s, int32(j)
	}
}

// Neighbours returns up to k vectors nearest to id's, most similar first
// (ties by position in the index), from the cells it probes.
func (x *Index) Neighbours(id link.Item, k int) ([]Neighbour, error) {
	i, ok := x.pos[id]
	if !ok {
		return nil, fmt.Errorf("consolidate: index: no vector for %s", id)
	}
	top, sims := x.nearest(i, k)
	out := make([]Neighbour, len(top))
	for p, j := range top {
		out[p] = Neighbour{ID: x.ids[j], Similarity: float64(sims[p])}
	}
	return out, nil
}

// nearest is Neighbours by position: the positions of up to k vectors
// nearest to vector i and their similarities, most similar first.
func (x *Index) nearest(i, k int) ([]int32, []float32) {
	k = min(k, len(x.ids)-1)
	if k <= 0 {
		return nil, nil
	}
	self := x.slotOf[i]
	v := x.vec(int(self))
	top := make([]int32, 0, k)
	sims := make([]float32, 0, k)
	for _, c := range x.probes[i*x.nprobe : (i+1)*x.nprobe] {
		for slot := x.cellStart[c]; slot < x.cellStart[c+1]; slot++ {
			if slot == self {
				continue
			}
			j := x.atSlot[slot]
			s := dot(v, x.vecs[int(slot)*x.dim:int(slot+1)*x.dim])
			if len(top) == k && s <= sims[k-1] {
				continue
			}
			if len(top) < k {
				top, sims = append(top, 0), append(sims, 0)
			}
			p := len(top) - 1
			for p > 0 && (sims[p-1] < s || sims[p-1] == s && top[p-1] > j) {
				top[p], sims[p] = top[p-1], sims[p-1]
				p--
			}
			top[p], sims[p] = j, s
		}
	}
	return top, sims
}

// Cosine is the cosine similarity of a and b (0 when either is the zero
// vector or their lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

// normalise writes v scaled to unit length into dst.
func normalise(dst, v []float32) {
	var sum float64
	for _, f := range v {
		sum += float64(f) * float64(f)
	}
	inv := 1 / math.Sqrt(sum)
	for i, f := range v {
		dst[i] = float32(float64(f) * inv)
	}
}

// dot is the dot product of two vectors of the same length, four lanes at
// a time.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// parallel calls f(i) for i in [0, n) on GOMAXPROCS goroutines and stops
// early, with ctx's error, when ctx is done.
func parallel(ctx context.Context, n int, f func(i int)) error {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	const chunk = 256
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				if ctx.Err() != nil {
					return
				}
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					f(i)
				}
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}
