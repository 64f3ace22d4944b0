// Package glove is the offline word vectors the search embeds texts with
// when no embeddings endpoint is configured: the 40,000 most frequent words
// of GloVe 6B, 100 dimensions (Pennington, Socher and Manning, "GloVe:
// Global Vectors for Word Representation", EMNLP 2014; trained on
// Wikipedia 2014 and Gigaword 5; Public Domain Dedication and License v1.0,
// see LICENSE). They know what the library's own text cannot teach its
// LSA model: that an accountant is a kind of work, that gardening and
// camping are things people do in their free time.
//
// glove.bin.gz is written by build/glovegen. After the line
// "rhizome-glove-1\n": the word count and the dimensions (uint32, little
// endian), then per word, most frequent first: its length (one byte), its
// letters, its scale (float32) and its values (int8, each times the scale;
// the mean of all the words' vectors taken away).
package glove

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

//go:embed glove.bin.gz
var packed []byte

const magic = "rhizome-glove-1\n"

// Vectors are word vectors by word; a word's rank is its place by
// frequency in the corpus GloVe was trained on (0: "the").
type Vectors struct {
	Dims  int
	index map[string]int32
	vals  []int8
	scale []float32
}

// Lookup adds weight times word's vector to dst (len Dims) and reports its
// rank; false when the vectors do not hold word (lower-case letters).
func (v *Vectors) Lookup(word string, weight float32, dst []float32) (rank int, ok bool) {
	i, ok := v.index[word]
	if !ok {
		return 0, false
	}
	w := weight * v.scale[i]
	row := v.vals[int(i)*v.Dims : int(i+1)*v.Dims]
	for j, x := range row {
		dst[j] += w * float32(x)
	}
	return int(i), true
}

// Rank is word's place by frequency; false when the vectors do not hold it.
func (v *Vectors) Rank(word string) (int, bool) {
	i, ok := v.index[word]
	return int(i), ok
}

// Words is how many words the vectors hold.
func (v *Vectors) Words() int { return len(v.scale) }

var (
	once    sync.Once
	loaded  *Vectors
	errLoad error
)

// Load returns the embedded vectors, read once (about 40 ms, 5 MB).
func Load() (*Vectors, error) {
	once.Do(func() { loaded, errLoad = read(bytes.NewReader(packed)) })
	return loaded, errLoad
}

// read decodes the format the package comment gives.
func read(r io.Reader) (*Vectors, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	br := bufio.NewReader(zr)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("glove: not a rhizome-glove-1 file")
	}
	var n, dims uint32
	if err := binary.Read(br, binary.LittleEndian, &n); err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	if err := binary.Read(br, binary.LittleEndian, &dims); err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	if n > 1<<22 || dims == 0 || dims > 1024 {
		return nil, fmt.Errorf("glove: %d words of %d dimensions is not a vectors file", n, dims)
	}
	// Grown as words are read: a header is not trusted with the memory.
	pre := min(int(n), 1<<16)
	v := &Vectors{Dims: int(dims), index: make(map[string]int32, pre), vals: make([]int8, 0, pre*int(dims)), scale: make([]float32, 0, pre)}
	word := make([]byte, 255)
	raw := make([]byte, dims)
	for i := range int(n) {
		l, err := br.ReadByte()
		if err == nil {
			_, err = io.ReadFull(br, word[:l])
		}
		var scale float32
		if err == nil {
			err = binary.Read(br, binary.LittleEndian, &scale)
		}
		if err == nil {
			_, err = io.ReadFull(br, raw)
		}
		if err != nil {
			return nil, fmt.Errorf("glove: word %d: %w", i, err)
		}
		v.index[string(word[:l])] = int32(i)
		v.scale = append(v.scale, scale)
		for _, b := range raw {
			v.vals = append(v.vals, int8(b))
		}
	}
	return v, nil
}
