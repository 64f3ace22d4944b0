package search

import (
	"context"
	"math"
	"strings"
	"testing"
)

// The blended offline embedder finds what the library's text cannot teach
// its LSA model: a question about work lies nearer the turn that names the
// job than a turn on something else, though they share no word; each half
// keeps its part, and every vector is a unit vector.
func TestBlendedEmbedder(t *testing.T) {
	docs, _ := topicCorpus(400, 1)
	m, err := BuildLSA(context.Background(), docs, LSAOptions{Dims: 8})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := WithWordVectors(m).(*Blended)
	if !ok {
		t.Fatal("the word vectors were not blended in")
	}
	if !strings.HasPrefix(e.ID(), m.ID()+"+") {
		t.Fatalf("id %q, the LSA model's %q", e.ID(), m.ID())
	}
	texts := []string{
		"What does Kenji do for work?",
		"I've been an accountant for over a decade now.",
		"The weather was lovely at the beach yesterday.",
		"dark palette accent",
		"zzqx",
	}
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v {
		if len(x) != m.Dims+WordVectorDims {
			t.Fatalf("%q: %d values", texts[i], len(x))
		}
		if n := cos32(x, x); i < 4 && math.Abs(n-1) > 1e-4 {
			t.Errorf("%q: norm² %.4f", texts[i], n)
		}
	}
	if job, beach := cos32(v[0], v[1]), cos32(v[0], v[2]); job <= beach {
		t.Errorf("the question lies at %.3f from the job, %.3f from the beach", job, beach)
	}
	// A text of the library's topic words keeps its LSA half.
	var lsaPart float64
	for _, x := range v[3][:m.Dims] {
		lsaPart += float64(x) * float64(x)
	}
	if lsaPart < 0.4 {
		t.Errorf("the LSA half holds %.2f of the vector", lsaPart)
	}
	// No word either half knows: no direction.
	if n := cos32(v[4], v[4]); n != 0 {
		t.Errorf("an unknown word's vector has norm² %.3f", n)
	}
	if e.LSA != m || e.Words.Dims != WordVectorDims {
		t.Fatal("the halves")
	}
}
