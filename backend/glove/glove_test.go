package glove

import (
	"bytes"
	"compress/gzip"
	"math"
	"testing"
)

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// The embedded vectors read whole, ranked by frequency, and place words
// by meaning: a job near work, a hobby near gardening, a city near a city.
func TestEmbeddedVectors(t *testing.T) {
	v, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if v.Words() != 40000 || v.Dims != 100 {
		t.Fatalf("%d words of %d dimensions", v.Words(), v.Dims)
	}
	if r, ok := v.Rank("the"); !ok || r != 0 {
		t.Fatalf(`"the" ranks %d (%v)`, r, ok)
	}
	if _, ok := v.Rank("The"); ok {
		t.Fatal("a capitalised word is held")
	}
	vec := func(w string) []float32 {
		d := make([]float32, v.Dims)
		if _, ok := v.Lookup(w, 1, d); !ok {
			t.Fatalf("%q is not held", w)
		}
		return d
	}
	for _, c := range [][3]string{
		{"accountant", "job", "banana"},
		{"gardening", "hobby", "election"},
		{"spokane", "seattle", "violin"},
		{"kitten", "cat", "mortgage"},
	} {
		near, far := cosine(vec(c[0]), vec(c[1])), cosine(vec(c[0]), vec(c[2]))
		if near <= far+0.1 {
			t.Errorf("%s: %s %.2f, %s %.2f", c[0], c[1], near, c[2], far)
		}
	}
}

// A file that is not the format, or cut short, is an error, never a panic.
func TestReadRefusesBadFiles(t *testing.T) {
	for name, b := range map[string][]byte{
		"not gzip":  []byte("hello"),
		"no magic":  gz([]byte("something else entirely")),
		"cut short": gz(append([]byte(magic), 2, 0, 0, 0, 100, 0, 0, 0, 3, 'a', 'b')),
		"too large": gz(append([]byte(magic), 255, 255, 255, 255, 100, 0, 0, 0)),
	} {
		if _, err := read(bytes.NewReader(b)); err == nil {
			t.Errorf("%s: read", name)
		}
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func FuzzRead(f *testing.F) {
	f.Add(append([]byte(magic), 1, 0, 0, 0, 2, 0, 0, 0, 1, 'a', 0, 0, 128, 63, 1, 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := read(bytes.NewReader(gz(b)))
		if err == nil && len(v.vals) != v.Words()*v.Dims {
			t.Fatalf("%d values for %d words of %d", len(v.vals), v.Words(), v.Dims)
		}
	})
}
