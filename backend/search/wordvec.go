package search

import (
	"context"
	"math"

	"rhizome/backend/glove"
)

// WordVectorDims is how many values WithWordVectors adds to a vector.
const WordVectorDims = 100

// Smooth inverse frequency (Arora, Liang and Ma, "A Simple but
// Tough-to-Beat Baseline for Sentence Embeddings", ICLR 2017): a word of
// probability p weighs sifA/(sifA+p). GloVe's words come by frequency, so
// p is read from the rank by Zipf's law, 1/((rank+10)·H) with H about 13
// for its 400,000 words.
const (
	sifA     = 3e-4
	zipfH    = 13.0
	zipfSkew = 10.0
)

// Blended is an offline embedder of two halves: the library's own LSA
// model (what its text taught it: "oauth" near "authentication") and the
// smooth-inverse-frequency mean of the text's GloVe word vectors (backend/
// glove: what English teaches, "accountant" near "work", "gardening" near
// "hobby"). Each half is a unit vector times 1/√2, so the whole is a unit
// vector of LSA.Dims+WordVectorDims values; a text with no word of one half
// keeps the other. Measured with rhizome eval and the real sessions'
// held-out sets in the commit that made it (issue 23).
type Blended struct {
	LSA   *LSA
	Words *glove.Vectors
}

// WithWordVectors returns m blended with the embedded GloVe vectors; m
// alone when they cannot be read.
func WithWordVectors(m *LSA) Embedder {
	w, err := glove.Load()
	if err != nil || w.Dims != WordVectorDims {
		return m
	}
	return &Blended{LSA: m, Words: w}
}

// ID names the model vectors made by b are stored under: the LSA model's
// id and the word vectors'.
func (b *Blended) ID() string { return b.LSA.ID() + "+glove100" }

// Embed implements Embedder.
func (b *Blended) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	lsa, err := b.LSA.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	half := float32(1 / math.Sqrt2)
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, b.LSA.Dims+WordVectorDims)
		words := v[b.LSA.Dims:]
		b.wordMean(text, words)
		normalize(words)
		copy(v, lsa[i])
		for j := range v {
			v[j] *= half
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

// wordMean adds the SIF-weighted vectors of text's words to dst.
func (b *Blended) wordMean(text string, dst []float32) {
	EachToken(text, func(t Token) bool {
		if r, ok := b.Words.Rank(t.Term); ok {
			p := 1 / ((float64(r) + zipfSkew) * zipfH)
			b.Words.Lookup(t.Term, float32(sifA/(sifA+p)), dst)
		}
		return true
	})
}
