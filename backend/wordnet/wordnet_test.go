package wordnet

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"
)

func broader(t *testing.T, l *Lexicon, word string) map[string]int {
	t.Helper()
	m := map[string]int{}
	for _, c := range l.Broader(word, 2, 1, 8) {
		m[c.Lemma] = c.Steps
	}
	return m
}

// The bridges the search relies on, from WordNet 3.0 itself.
func TestBroader(t *testing.T) {
	l, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		word, concept string
	}{
		{"spokane", "city"},   // an instance
		{"kittens", "animal"}, // a plural, three steps up
		{"beagle", "dog"},     // a breed
		{"vegetarian", "eat"}, // a kind of eater, eat's noun
		{"clarinet", "instrument"},
		{"accountant", "accountant"},
	}
	for _, c := range cases {
		b := broader(t, l, c.word)
		if c.word == c.concept {
			if _, ok := b[c.concept]; ok {
				t.Errorf("%s is broader than itself", c.word)
			}
			continue
		}
		if _, ok := b[c.concept]; !ok {
			t.Errorf("%s: %s not among %d broader lemmas", c.word, c.concept, len(b))
		}
	}
	if !slices.Equal(l.Lemmas("cities"), []string{"city"}) || !slices.Contains(l.Lemmas("mice"), "mouse") {
		t.Errorf("lemmas: %v %v", l.Lemmas("cities"), l.Lemmas("mice"))
	}
}

// A damaged lexicon is an error naming the line, never a panic.
func FuzzRead(f *testing.F) {
	f.Add("S\tn\tcity metropolis\t1\t\nS\tn\tspokane\t\t\nL\tcity\t0\nX\tcities\tcity\n")
	f.Add("S\tn\ta\t5\t\n")
	f.Add("L\tx\t-1\n")
	f.Add("S\tv\tb\t\tq\n")
	f.Fuzz(func(t *testing.T, text string) {
		l, err := Read(gzipped(text))
		if err != nil {
			return
		}
		for w := range l.senses {
			l.Broader(w, 2, 1, 4)
		}
	})
}

func gzipped(text string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(text))
	zw.Close()
	return buf.Bytes()
}

// Records that do not read are errors that say so.
func TestReadErrors(t *testing.T) {
	for _, text := range []string{"S\tn\ta\t5\t\n", "L\tx\t-1\n", "S\tv\tb\t\tq\n", "Z\n"} {
		if _, err := Read(gzipped(text)); err == nil || !strings.Contains(err.Error(), "wordnet:") {
			t.Errorf("%q: %v", text, err)
		}
	}
	if _, err := Read([]byte("not gzip")); err == nil {
		t.Error("a file that is not gzip read")
	}
}
