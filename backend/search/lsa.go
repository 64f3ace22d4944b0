package search

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"unicode"

	"github.com/kljensen/snowball/english"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// LSA is the offline embedding model: latent semantic analysis of the
// library's own text (Deerwester et al., 1990). Texts become TF-IDF
// vectors over stemmed terms (see lsaStem) (sublinear term frequency 1+ln tf, IDF ln(N/df), unit length)
// over a vocabulary of the library's terms; the model is the top Dims right
// singular vectors of the training documents' TF-IDF matrix, found by
// randomized SVD (Halko, Martinsson and Tropp, 2011: a Gaussian sketch,
// power iterations, then an exact SVD of the small projected matrix, with
// gonum). A text's embedding is its TF-IDF vector projected on them, unit
// length: terms that occur in the same documents land near one another, so
// "authentication" finds a text about "oauth login" that shares no word
// with it — as far as the library's own text taught it. It is not a
// pretrained language model: it knows only co-occurrence in this library,
// nothing of words the library never used. It runs in-process, in a few
// seconds for 50,000 training documents.
type LSA struct {
	Dims   int
	corpus int              // texts the training documents were drawn from
	terms  map[string]int32 // term -> row of proj
	idf    []float32
	proj   []float32 // len(terms) x Dims, row-major
	id     string
}

// LSAOptions tune BuildLSA. Zero fields take the defaults.
type LSAOptions struct {
	Dims     int // embedding dimensions (default 128)
	MaxTerms int // vocabulary size: the most frequent terms (default 30,000)
	MinDF    int // a term must occur in this many documents (default 2)
	MaxDocs  int // training documents at most, an even sample (default 50,000)
	// Corpus is how many texts docs were drawn from, when the caller
	// sampled them (default len(docs)); the model keeps it (LSA.Corpus)
	// so that its user can tell how much the library grew since.
	Corpus     int
	PowerIters int    // power iterations of the randomized SVD (default 3)
	Seed       uint64 // the random sketch's seed (default 1)
}

func (o LSAOptions) withDefaults() LSAOptions {
	if o.Dims <= 0 {
		o.Dims = 128
	}
	if o.MaxTerms <= 0 {
		o.MaxTerms = 30000
	}
	if o.MinDF <= 0 {
		o.MinDF = 2
	}
	if o.MaxDocs <= 0 {
		o.MaxDocs = 50000
	}
	if o.PowerIters <= 0 {
		o.PowerIters = 3
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// ErrTooFewDocuments is returned by BuildLSA when the texts hold too little
// to learn from (fewer distinct terms or documents than dimensions).
var ErrTooFewDocuments = errors.New("search: too little text to build a latent semantic model")

// BuildLSA learns an LSA model from docs (the library's texts: node
// summaries, messages). Terms are Tokenize's, without stopwords, numbers and
// one-letter words; a term in more than half the documents is left out. Dims
// shrinks to what the texts can support (at most a third of the documents
// and of the terms). ctx stops it between steps.
func BuildLSA(ctx context.Context, docs []string, opts LSAOptions) (*LSA, error) {
	o := opts.withDefaults()
	corpus := max(o.Corpus, len(docs))
	if len(docs) > o.MaxDocs {
		step := float64(len(docs)) / float64(o.MaxDocs)
		sample := make([]string, 0, o.MaxDocs)
		for i := 0; i < o.MaxDocs; i++ {
			sample = append(sample, docs[int(float64(i)*step)])
		}
		docs = sample
	}
	// Document frequencies.
	df := map[string]int{}
	stems := stemCache{}
	tokenized := make([]map[string]int, len(docs))
	for i, d := range docs {
		tf := map[string]int{}
		EachToken(d, func(t Token) bool {
			if lsaTerm(t.Term) {
				tf[stems.of(t.Term)]++
			}
			return true
		})
		tokenized[i] = tf
		for t := range tf {
			df[t]++
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type termDF struct {
		term string
		df   int
	}
	var vocab []termDF
	for t, n := range df {
		if n >= o.MinDF && n <= len(docs)/2 {
			vocab = append(vocab, termDF{t, n})
		}
	}
	sort.Slice(vocab, func(i, j int) bool {
		if vocab[i].df != vocab[j].df {
			return vocab[i].df > vocab[j].df
		}
		return vocab[i].term < vocab[j].term
	})
	if len(vocab) > o.MaxTerms {
		vocab = vocab[:o.MaxTerms]
	}
	m := &LSA{corpus: corpus, terms: make(map[string]int32, len(vocab)), idf: make([]float32, len(vocab))}
	for i, v := range vocab {
		m.terms[v.term] = int32(i)
		m.idf[i] = float32(math.Log(float64(len(docs)) / float64(v.df)))
	}
	// The sparse TF-IDF matrix, one unit row per document with terms.
	a := &csr{cols: len(vocab)}
	for _, tf := range tokenized {
		row := m.weights(tf)
		if len(row) == 0 {
			continue
		}
		for _, e := range row {
			a.idx = append(a.idx, e.col)
			a.val = append(a.val, e.w)
		}
		a.ptr = append(a.ptr, len(a.idx))
	}
	a.rows = len(a.ptr)
	a.ptr = append([]int{0}, a.ptr...)
	k := min(o.Dims, a.rows/3, a.cols/3)
	if k < 2 {
		return nil, ErrTooFewDocuments
	}
	m.Dims = k
	v, err := randomizedSVD(ctx, a, k, o.PowerIters, o.Seed)
	if err != nil {
		return nil, err
	}
	m.proj = v
	h := sha256.New()
	m.encode(h)
	m.id = "lsa-" + hex.EncodeToString(h.Sum(nil))[:12]
	return m, nil
}

// lsaTerm reports whether a term can carry meaning in the model: not a
// stopword, not one letter, not only digits.
func lsaTerm(t string) bool {
	if len(t) < 2 || stopwords[t] {
		return false
	}
	for _, r := range t {
		if !unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

type colWeight struct {
	col int32
	w   float32
}

// weights is a document's unit TF-IDF vector over the vocabulary, sorted by
// column.
func (m *LSA) weights(tf map[string]int) []colWeight {
	var row []colWeight
	var norm float64
	for t, n := range tf {
		c, ok := m.terms[t]
		if !ok {
			continue
		}
		w := (1 + math.Log(float64(n))) * float64(m.idf[c])
		row = append(row, colWeight{c, float32(w)})
		norm += w * w
	}
	if norm == 0 {
		return nil
	}
	inv := float32(1 / math.Sqrt(norm))
	for i := range row {
		row[i].w *= inv
	}
	sort.Slice(row, func(i, j int) bool { return row[i].col < row[j].col })
	return row
}

// ID names the model: "lsa-" and the start of the SHA-256 of its content.
// A retrained model has another ID, so vectors made with it are told apart.
func (m *LSA) ID() string { return m.id }

// Terms is the vocabulary size.
func (m *LSA) Terms() int { return len(m.idf) }

// Corpus is how many texts the model was trained from (LSAOptions.Corpus).
func (m *LSA) Corpus() int { return m.corpus }

// Embed implements Embedder: each text's unit vector (Dims values); a text
// with no term of the vocabulary gets a zero vector.
func (m *LSA) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	tf := map[string]int{}
	stems := stemCache{}
	for i, text := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		clear(tf)
		EachToken(text, func(t Token) bool {
			if lsaTerm(t.Term) {
				tf[stems.of(t.Term)]++
			}
			return true
		})
		v := make([]float32, m.Dims)
		for _, e := range m.weights(tf) {
			row := m.proj[int(e.col)*m.Dims : int(e.col+1)*m.Dims]
			for j, p := range row {
				v[j] += e.w * p
			}
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
}

// csr is a sparse matrix in compressed sparse row form.
type csr struct {
	rows, cols int
	ptr        []int
	idx        []int32
	val        []float32
}

// mulDense returns a*b (rows x b's columns); b is cols x k.
func (a *csr) mulDense(b *mat.Dense) *mat.Dense {
	_, k := b.Dims()
	out := mat.NewDense(a.rows, k, nil)
	raw := out.RawMatrix()
	braw := b.RawMatrix()
	for i := 0; i < a.rows; i++ {
		dst := raw.Data[i*raw.Stride : i*raw.Stride+k]
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			w := float64(a.val[p])
			src := braw.Data[int(a.idx[p])*braw.Stride : int(a.idx[p])*braw.Stride+k]
			for j, x := range src {
				dst[j] += w * x
			}
		}
	}
	return out
}

// tMulDense returns aᵀ*b (cols x b's columns); b is rows x k.
func (a *csr) tMulDense(b *mat.Dense) *mat.Dense {
	_, k := b.Dims()
	out := mat.NewDense(a.cols, k, nil)
	raw := out.RawMatrix()
	braw := b.RawMatrix()
	for i := 0; i < a.rows; i++ {
		src := braw.Data[i*braw.Stride : i*braw.Stride+k]
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			w := float64(a.val[p])
			dst := raw.Data[int(a.idx[p])*raw.Stride : int(a.idx[p])*raw.Stride+k]
			for j, x := range src {
				dst[j] += w * x
			}
		}
	}
	return out
}

// orthonormalize returns an orthonormal basis of y's columns (a thin QR's
// Q) by CholeskyQR2 (Fukaya et al., "CholeskyQR2: a simple and
// communication-avoiding algorithm for computing a tall-skinny QR
// factorization", 2014): twice, the Gram matrix YᵀY is factorised as RᵀR
// and Y becomes YR⁻¹. Its work is two blocked BLAS calls per pass, about
// twice as fast here as Gram-Schmidt column by column (BenchmarkOrthonormalize:
// 150-177 ms against 310-443 ms for 12,000 x 144 on two cores);
// gonum's QR.QTo would build the full rows x rows Q (20 GB for 50,000
// documents). Columns that are nearly dependent make the Gram matrix
// singular: then modified Gram-Schmidt, done twice, is used instead.
func orthonormalize(y *mat.Dense) *mat.Dense {
	q := mat.DenseCopyOf(y)
	_, c := q.Dims()
	for range 2 {
		g := mat.NewSymDense(c, nil)
		g.SymOuterK(1, q.T())
		var ch mat.Cholesky
		if !ch.Factorize(g) || ch.Cond() > 1e12 {
			return gramSchmidt(y)
		}
		var r mat.TriDense
		ch.UTo(&r)
		blas64.Trsm(blas.Right, blas.NoTrans, 1, r.RawTriangular(), q.RawMatrix())
	}
	return q
}

// gramSchmidt is orthonormalize by modified Gram-Schmidt done twice for
// stability; a column dependent on those before it is left zero.
func gramSchmidt(y *mat.Dense) *mat.Dense {
	r, c := y.Dims()
	cols := make([][]float64, c)
	for j := range cols {
		cols[j] = mat.Col(nil, j, y)
	}
	for pass := 0; pass < 2; pass++ {
		for j := range cols {
			for i := 0; i < j; i++ {
				var d float64
				for k, x := range cols[i] {
					d += x * cols[j][k]
				}
				for k, x := range cols[i] {
					cols[j][k] -= d * x
				}
			}
			var n float64
			for _, x := range cols[j] {
				n += x * x
			}
			n = math.Sqrt(n)
			if n < 1e-12 { // a dependent column: leave it zero
				clear(cols[j])
				continue
			}
			for k := range cols[j] {
				cols[j][k] /= n
			}
		}
	}
	q := mat.NewDense(r, c, nil)
	for j, col := range cols {
		q.SetCol(j, col)
	}
	return q
}

// randomizedSVD returns the top k right singular vectors of a, as a
// cols x k row-major float32 matrix.
func randomizedSVD(ctx context.Context, a *csr, k, iters int, seed uint64) ([]float32, error) {
	l := min(k+16, a.cols, a.rows)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	omega := mat.NewDense(a.cols, l, nil)
	raw := omega.RawMatrix()
	for i := range raw.Data {
		raw.Data[i] = rng.NormFloat64()
	}
	q := orthonormalize(a.mulDense(omega)) // rows x l
	for range iters {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		z := orthonormalize(a.tMulDense(q)) // cols x l
		q = orthonormalize(a.mulDense(z))
	}
	// B = Qᵀ A (l x cols) = (Aᵀ Q)ᵀ.
	bt := a.tMulDense(q) // cols x l
	var svd mat.SVD
	if !svd.Factorize(bt, mat.SVDThin) {
		return nil, errors.New("search: the SVD did not converge")
	}
	var u mat.Dense // bt = U Σ Wᵀ: U's columns are B's right singular vectors
	svd.UTo(&u)
	out := make([]float32, a.cols*k)
	for i := 0; i < a.cols; i++ {
		for j := 0; j < k; j++ {
			out[i*k+j] = float32(u.At(i, j))
		}
	}
	return out, nil
}

// lsaMagic starts an encoded model; "rhizome-lsa-1" models (before terms
// were stemmed) are refused with ErrLSAOutdated.
const (
	lsaMagic    = "rhizome-lsa-2\n"
	lsaMagicOld = "rhizome-lsa-1\n"
)

// ErrLSAOutdated is returned by UnmarshalLSA for a model an older Rhizome
// encoded, whose vocabulary this one cannot read: train a new one.
var ErrLSAOutdated = errors.New("search: the latent semantic model was made by an older Rhizome (unstemmed terms)")

// MarshalBinary encodes the model (see UnmarshalLSA).
func (m *LSA) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	m.encode(&b)
	return b.Bytes(), nil
}

func (m *LSA) encode(w io.Writer) {
	terms := make([]string, len(m.idf))
	for t, i := range m.terms {
		terms[i] = t
	}
	var b []byte
	b = append(b, lsaMagic...)
	b = binary.AppendUvarint(b, uint64(m.Dims))
	b = binary.AppendUvarint(b, uint64(m.corpus))
	b = binary.AppendUvarint(b, uint64(len(terms)))
	for i, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(m.idf[i]))
	}
	for _, x := range m.proj {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	w.Write(b)
}

// UnmarshalLSA decodes a model MarshalBinary encoded; the error says what is
// wrong with the bytes, ErrLSAOutdated for a model of an older format.
func UnmarshalLSA(data []byte) (*LSA, error) {
	if bytes.HasPrefix(data, []byte(lsaMagicOld)) {
		return nil, ErrLSAOutdated
	}
	if !bytes.HasPrefix(data, []byte(lsaMagic)) {
		return nil, errors.New("search: not a latent semantic model (bad header)")
	}
	b := data[len(lsaMagic):]
	next := func(what string) (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, fmt.Errorf("search: latent semantic model truncated in %s", what)
		}
		b = b[n:]
		return v, nil
	}
	dims, err := next("dims")
	if err != nil {
		return nil, err
	}
	corpus, err := next("corpus size")
	if err != nil {
		return nil, err
	}
	nterms, err := next("term count")
	if err != nil {
		return nil, err
	}
	if dims == 0 || dims > 4096 || nterms > uint64(len(b)) {
		return nil, fmt.Errorf("search: latent semantic model has %d dims and %d terms", dims, nterms)
	}
	m := &LSA{Dims: int(dims), corpus: int(min(corpus, math.MaxInt32)), terms: make(map[string]int32, nterms), idf: make([]float32, nterms)}
	for i := range int(nterms) {
		l, err := next("a term")
		if err != nil {
			return nil, err
		}
		if uint64(len(b)) < l+4 {
			return nil, fmt.Errorf("search: latent semantic model truncated in term %d", i)
		}
		m.terms[string(b[:l])] = int32(i)
		m.idf[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[l:]))
		b = b[l+4:]
	}
	if len(b) != int(nterms)*int(dims)*4 {
		return nil, fmt.Errorf("search: latent semantic model has %d bytes of projection, want %d", len(b), int(nterms)*int(dims)*4)
	}
	m.proj = make([]float32, int(nterms)*int(dims))
	for i := range m.proj {
		m.proj[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[i*4:]))
	}
	h := sha256.New()
	m.encode(h)
	m.id = "lsa-" + hex.EncodeToString(h.Sum(nil))[:12]
	return m, nil
}

// lsaStem is a term's Snowball English stem (Porter2: "skills" and
// "skill", "crashed" and "crash" are one term), so that the model learns
// from a word's every form at once; the small vocabulary of one person's
// library needs it more than a web-scale model would. Only the model's
// terms are stemmed: keyword search and the content component keep exact
// tokens.
func lsaStem(t string) string { return english.Stem(t, false) }

// stemCache remembers the stems of a batch of texts (a word recurs).
type stemCache map[string]string

func (c stemCache) of(t string) string {
	s, ok := c[t]
	if !ok {
		if len(c) > 1<<16 {
			clear(c)
		}
		s = lsaStem(t)
		c[t] = s
	}
	return s
}
