package search

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// clustered returns n unit vectors of dims dimensions around clusters
// centres, as embeddings of texts on a few topics are.
func clustered(n, dims, clusters int, seed uint64) [][]float32 {
	return clusteredNoise(n, dims, clusters, 0.6, seed)
}

func clusteredNoise(n, dims, clusters int, noise float32, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	centres := make([][]float32, clusters)
	for i := range centres {
		centres[i] = make([]float32, dims)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.IntN(clusters)]
		v := make([]float32, dims)
		for j := range v {
			v[j] = c[j] + noise*float32(rng.NormFloat64())
		}
		normalize(v)
		out[i] = v
	}
	return out
}

func recallAt(h *HNSW, queries [][]float32, k int) float64 {
	hit, total := 0, 0
	for _, q := range queries {
		want := map[string]bool{}
		for _, x := range h.Exact(q, k) {
			want[x.Item] = true
		}
		for _, x := range h.Nearest(q, k) {
			if want[x.Item] {
				hit++
			}
		}
		total += len(want)
	}
	return float64(hit) / float64(total)
}

// The graph finds nearly every true nearest neighbour, survives a round trip
// through its encoding, and refuses vectors it cannot place.
func TestHNSW(t *testing.T) {
	vecs := clustered(5000, 48, 40, 1)
	h := NewHNSW()
	for i, v := range vecs {
		if err := h.Add(fmt.Sprint("k", i), v); err != nil {
			t.Fatal(err)
		}
	}
	queries := clustered(200, 48, 40, 2)
	if r := recallAt(h, queries, 10); r < 0.95 {
		t.Errorf("recall@10 %.3f, want >= 0.95", r)
	}
	// Round trip.
	data, err := h.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]float32{}
	for i, v := range vecs {
		byKey[fmt.Sprint("k", i)] = v
	}
	h2, err := UnmarshalHNSW(data, func(k string) ([]float32, bool) { v, ok := byKey[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries[:20] {
		a, b := h.Nearest(q, 10), h2.Nearest(q, 10)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("after a round trip: %v, before %v", b, a)
		}
	}
	for _, cut := range []int{0, 5, len(data) / 2, len(data) - 1} {
		if _, err := UnmarshalHNSW(data[:cut], func(k string) ([]float32, bool) { v, ok := byKey[k]; return v, ok }); err == nil {
			t.Errorf("a graph cut at %d bytes decoded", cut)
		}
	}
	if _, err := UnmarshalHNSW(data, func(string) ([]float32, bool) { return nil, false }); err == nil {
		t.Error("a graph without its vectors decoded")
	}
	// Deleted and replaced keys.
	first := h.Nearest(vecs[0], 1)[0].Item
	if !h.Delete(first) || h.Delete(first) {
		t.Error("Delete did not report once")
	}
	for _, x := range h.Nearest(vecs[0], 10) {
		if x.Item == first {
			t.Error("a deleted key was found")
		}
	}
	// Bad vectors.
	for _, v := range [][]float32{nil, make([]float32, 48), make([]float32, 47)} {
		if err := h.Add("bad", v); err == nil {
			t.Errorf("a vector of %d values (zeros) was added", len(v))
		}
	}
	if got := h.Nearest(make([]float32, 5), 3); got != nil {
		t.Errorf("a query of the wrong length found %v", got)
	}
}

// lowRank returns n unit vectors of dims dimensions that vary along only
// rank latent directions plus a little noise, as text embeddings do (their
// intrinsic dimension is far below their length).
func lowRank(n, dims, rank int, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 8))
	basis := make([][]float32, rank)
	bases := rand.New(rand.NewPCG(99, 8)) // the same directions for every seed
	for i := range basis {
		basis[i] = make([]float32, dims)
		for j := range basis[i] {
			basis[i][j] = float32(bases.NormFloat64())
		}
	}
	out := make([][]float32, n)
	for i := range out {
		v := make([]float32, dims)
		for _, b := range basis {
			c := float32(rng.NormFloat64())
			for j := range v {
				v[j] += c * b[j]
			}
		}
		for j := range v {
			v[j] += 0.5 * float32(rng.NormFloat64())
		}
		normalize(v)
		out[i] = v
	}
	return out
}

// BenchmarkHNSW reports, for 100,000 vectors of 128 dimensions (of
// intrinsic dimension 16, see lowRank), the
// recall@10 and query time of the graph against comparing every vector
// (the baseline), and the build time.
func BenchmarkHNSW(b *testing.B) {
	vecs := lowRank(100000, 128, 16, 1)
	queries := lowRank(200, 128, 16, 2)
	for b.Loop() {
		start := time.Now()
		h := NewHNSW()
		for i, v := range vecs {
			h.Add(fmt.Sprint("k", i), v)
		}
		build := time.Since(start)
		start = time.Now()
		for _, q := range queries {
			h.Nearest(q, 10)
		}
		ann := time.Since(start) / time.Duration(len(queries))
		start = time.Now()
		for _, q := range queries[:20] {
			h.Exact(q, 10)
		}
		exact := time.Since(start) / 20
		b.Logf("100,000 x 128: build %v; query %v (every vector: %v); recall@10 %.3f",
			build.Round(time.Millisecond), ann.Round(time.Microsecond), exact.Round(time.Microsecond), recallAt(h, queries[:50], 10))
	}
}
