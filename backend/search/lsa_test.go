package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// topicCorpus makes documents on a few topics, each a bag of its topic's
// words with some shared noise words.
func topicCorpus(n int, seed uint64) (docs []string, topicOf []int) {
	topics := [][]string{
		{"theme", "color", "dark", "light", "palette", "gray", "accent", "render"},
		{"compaction", "summary", "context", "tokens", "cut", "entries", "session", "turns"},
		{"login", "limiter", "rate", "attempts", "minute", "middleware", "express", "ip"},
		{"pgx", "postgres", "pool", "migration", "driver", "query", "connection", "store"},
	}
	noise := []string{"file", "change", "update", "check", "code", "run", "test", "build"}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < n; i++ {
		t := i % len(topics)
		var w []string
		for j := 0; j < 12; j++ {
			if rng.IntN(3) == 0 {
				w = append(w, noise[rng.IntN(len(noise))])
			} else {
				w = append(w, topics[t][rng.IntN(len(topics[t]))])
			}
		}
		docs = append(docs, strings.Join(w, " "))
		topicOf = append(topicOf, t)
	}
	return docs, topicOf
}

func cos32(a, b []float32) float64 {
	var d float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
	}
	return d
}

// Texts on the same topic land nearer one another than texts on different
// topics, even when they share no word; the model survives a round trip.
func TestLSA(t *testing.T) {
	docs, _ := topicCorpus(400, 1)
	m, err := BuildLSA(context.Background(), docs, LSAOptions{Dims: 8})
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.Embed(context.Background(), []string{"dark palette", "accent gray render", "rate limiter", "unknownword"})
	if err != nil {
		t.Fatal(err)
	}
	same, other := cos32(v[0], v[1]), cos32(v[0], v[2])
	if same < other+0.3 {
		t.Errorf("same topic, no shared word: %.3f; other topic: %.3f", same, other)
	}
	for _, x := range v[3] {
		if x != 0 {
			t.Fatal("a text without known words has a direction")
		}
	}
	data, _ := m.MarshalBinary()
	m2, err := UnmarshalLSA(data)
	if err != nil || m2.ID() != m.ID() || m2.Dims != m.Dims || m.Corpus() != 400 || m2.Corpus() != 400 {
		t.Fatalf("round trip: %v %s %s", err, m2.ID(), m.ID())
	}
	v2, _ := m2.Embed(context.Background(), []string{"dark palette"})
	if math.Abs(cos32(v[0], v2[0])-1) > 1e-6 {
		t.Error("the decoded model embeds differently")
	}
	for _, cut := range []int{0, 10, len(data) / 2, len(data) - 1} {
		if _, err := UnmarshalLSA(data[:cut]); err == nil {
			t.Errorf("a model cut at %d bytes decoded", cut)
		}
	}
	if _, err := BuildLSA(context.Background(), []string{"a b", "c d"}, LSAOptions{}); err == nil {
		t.Error("a model from two words")
	}
}

// A word's forms are one term of the model ("palettes" is "palette"), and a
// model an older Rhizome encoded (unstemmed, "rhizome-lsa-1") is refused as
// outdated so that the app trains a new one.
func TestLSAStems(t *testing.T) {
	docs, _ := topicCorpus(400, 1)
	m, err := BuildLSA(context.Background(), docs, LSAOptions{Dims: 8})
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.Embed(context.Background(), []string{"palette", "palettes", "rendering", "render", "limiters"})
	if err != nil {
		t.Fatal(err)
	}
	if c := cos32(v[0], v[1]); math.Abs(c-1) > 1e-6 {
		t.Errorf("palette and palettes: cosine %.3f, want 1", c)
	}
	if c := cos32(v[2], v[3]); math.Abs(c-1) > 1e-6 {
		t.Errorf("rendering and render: cosine %.3f, want 1", c)
	}
	if c := cos32(v[4], v[1]); c > 0.5 {
		t.Errorf("limiters and palettes: cosine %.3f, want another topic", c)
	}
	data, _ := m.MarshalBinary()
	old := append([]byte("rhizome-lsa-1\n"), data[len("rhizome-lsa-2\n"):]...)
	if _, err := UnmarshalLSA(old); !errors.Is(err, ErrLSAOutdated) {
		t.Errorf("an unstemmed model of the old format: %v, want ErrLSAOutdated", err)
	}
}

// Training on 50,000 documents stays within a few hundred megabytes (a
// full QR of the sketch would take 20 GB).
func TestLSAMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("trains on 50,000 documents")
	}
	docs, _ := topicCorpus(50000, 2)
	for i := range docs {
		docs[i] += fmt.Sprintf(" w%d", i%5000) // a larger vocabulary
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := BuildLSA(context.Background(), docs, LSAOptions{Dims: 64}); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if got := (after.TotalAlloc - before.TotalAlloc) >> 20; got > 2000 {
		t.Errorf("training allocated %d MB", got)
	}
}

// orthonormalize gives an orthonormal basis of the same span by either
// route: CholeskyQR2 for well-conditioned columns, Gram-Schmidt when a
// column depends on the others.
func TestOrthonormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dependent := range []bool{false, true} {
		y := mat.NewDense(500, 20, nil)
		for i := range 500 {
			for j := range 20 {
				y.Set(i, j, rng.NormFloat64())
			}
			if dependent {
				y.Set(i, 7, y.At(i, 2)+y.At(i, 3))
			}
		}
		q := orthonormalize(y)
		var qtq mat.Dense
		qtq.Mul(q.T(), q)
		for i := range 20 {
			for j := range 20 {
				want := 0.0
				if i == j && !(dependent && i == 7) {
					want = 1
				}
				if math.Abs(qtq.At(i, j)-want) > 1e-9 {
					t.Fatalf("dependent %v: QᵀQ[%d,%d] = %g", dependent, i, j, qtq.At(i, j))
				}
			}
		}
		// Q's columns span y's: projecting y onto them loses nothing.
		var proj, back mat.Dense
		proj.Mul(q.T(), y)
		back.Mul(q, &proj)
		back.Sub(&back, y)
		if n := mat.Norm(&back, 2); n > 1e-8 {
			t.Fatalf("dependent %v: y - QQᵀy has norm %g", dependent, n)
		}
	}
}

func BenchmarkOrthonormalize(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	y := mat.NewDense(12000, 144, nil)
	raw := y.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = rng.NormFloat64()
	}
	b.Run("CholeskyQR2", func(b *testing.B) {
		for b.Loop() {
			orthonormalize(y)
		}
	})
	b.Run("Gram-Schmidt", func(b *testing.B) {
		for b.Loop() {
			gramSchmidt(y)
		}
	})
}
