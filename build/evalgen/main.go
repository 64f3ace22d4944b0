// Command evalgen writes synthetic conversational-memory benchmark data in
// the exact JSON formats of LoCoMo (locomo10.json) and LongMemEval
// (longmemeval_s.json), for tuning and testing the memory's retrieval
// without the real files:
//
//	go run ./build/evalgen -out backend/eval/testdata
//
// writes synthetic-locomo-tune.json, synthetic-locomo-test.json,
// synthetic-longmemeval-tune.json and synthetic-longmemeval-test.json. The
// output is a pure function of the seeds below (math/rand/v2's PCG): the
// same program writes the same bytes. See README.md beside this file.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The seeds of the four files. The tune and test halves use different
// seeds, and LoCoMo's halves different people (see splitNames).
const (
	seedLoCoMoTune      = 0x5eed_10c0_0001
	seedLoCoMoTest      = 0x5eed_10c0_0002
	seedLongMemEvalTune = 0x5eed_1e0e_0001
	seedLongMemEvalTest = 0x5eed_1e0e_0002
	seedNames           = 0x5eed_0a3e_0001
)

// conversationsPerFile is how many LoCoMo conversations each file holds;
// questionsPerFile how many LongMemEval questions.
const (
	conversationsPerFile = 6
	questionsPerFile     = 30
)

func main() {
	out := flag.String("out", "backend/eval/testdata", "the folder to write the files to")
	flag.Parse()
	files, err := writeFiles(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "evalgen:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Printf("wrote %s (%d bytes)\n", filepath.Join(*out, f.name), len(f.data))
	}
}

// writeFiles generates the files into dir.
func writeFiles(dir string) ([]outFile, error) {
	files, err := generate()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return nil, err
		}
	}
	return files, nil
}

type outFile struct {
	name string
	data []byte
}

// generate makes the four files' contents.
func generate() ([]outFile, error) {
	tuneNames, testNames := splitNames()
	var files []outFile
	for _, half := range []struct {
		name  string
		seed  uint64
		names []personName
	}{{"tune", seedLoCoMoTune, tuneNames}, {"test", seedLoCoMoTest, testNames}} {
		samples, err := genLoCoMo(half.name, half.seed, half.names)
		if err != nil {
			return nil, err
		}
		data, err := encodeJSON(samples)
		if err != nil {
			return nil, err
		}
		files = append(files, outFile{"synthetic-locomo-" + half.name + ".json", data})
	}
	// The test half of LongMemEval avoids the tune half's question texts.
	seen := map[string]bool{}
	for _, half := range []struct {
		name string
		seed uint64
	}{{"tune", seedLongMemEvalTune}, {"test", seedLongMemEvalTest}} {
		items, err := genLongMemEval(half.name, half.seed, seen)
		if err != nil {
			return nil, err
		}
		data, err := encodeJSON(items)
		if err != nil {
			return nil, err
		}
		files = append(files, outFile{"synthetic-longmemeval-" + half.name + ".json", data})
	}
	return files, nil
}

// encodeJSON writes v indented by two spaces, without escaping <, > and &.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ordered is a JSON object whose keys keep their order (LoCoMo's
// conversation object: speaker_a, speaker_b, session_1_date_time,
// session_1, ...).
type ordered []kv

type kv struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(e.k)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		var vb bytes.Buffer
		enc := json.NewEncoder(&vb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e.v); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(vb.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// vars are a template's values by name.
type vars map[string]string

// with is a copy of v with more values.
func (v vars) with(kvs ...string) vars {
	out := make(vars, len(v)+len(kvs)/2)
	for k, x := range v {
		out[k] = x
	}
	for i := 0; i+1 < len(kvs); i += 2 {
		out[kvs[i]] = kvs[i+1]
	}
	return out
}

// parseVars reads "k=v; k=v" (a value may hold '=' but not "; ").
func parseVars(s string) vars {
	v := vars{}
	for _, part := range strings.Split(s, "; ") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, x, ok := strings.Cut(part, "=")
		if !ok {
			panic("evalgen: bad option " + s)
		}
		v[strings.TrimSpace(k)] = strings.TrimSpace(x)
	}
	return v
}

// templater fills templates: {key} is the first of the vars that has key,
// else a random pick from the pool of that name; {Key} (a capital first
// letter) is the same with its value's first letter capitalized. A value
// may itself hold {keys}. fill fails when a key has no value.
type templater struct {
	r     *rand.Rand
	pools map[string][]string
}

func (t *templater) fill(s string, vs ...vars) (string, bool) {
	for depth := 0; depth < 6; depth++ {
		if !strings.Contains(s, "{") {
			return s, true
		}
		var b strings.Builder
		for i := 0; i < len(s); {
			if s[i] != '{' {
				b.WriteByte(s[i])
				i++
				continue
			}
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return "", false
			}
			val, ok := t.lookup(s[i+1:i+j], vs)
			if !ok {
				return "", false
			}
			b.WriteString(val)
			i += j + 1
		}
		s = b.String()
	}
	return "", false
}

// must is fill that panics on a missing key: for templates the program
// itself guarantees.
func (t *templater) must(s string, vs ...vars) string {
	out, ok := t.fill(s, vs...)
	if !ok {
		panic("evalgen: template " + s + " has a key without a value")
	}
	return out
}

func (t *templater) lookup(key string, vs []vars) (string, bool) {
	for _, v := range vs {
		if x, ok := v[key]; ok {
			return x, true
		}
	}
	if p, ok := t.pools[key]; ok {
		return p[t.r.IntN(len(p))], true
	}
	r, n := utf8.DecodeRuneInString(key)
	if unicode.IsUpper(r) {
		x, ok := t.lookup(string(unicode.ToLower(r))+key[n:], vs)
		return capFirst(x), ok
	}
	return "", false
}

// capFirst capitalizes s's first letter.
func capFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// pick is a random element of xs.
func pick[T any](r *rand.Rand, xs []T) T {
	return xs[r.IntN(len(xs))]
}

// between is a random int in [lo, hi].
func between(r *rand.Rand, lo, hi int) int {
	return lo + r.IntN(hi-lo+1)
}

// chance is true with probability p.
func chance(r *rand.Rand, p float64) bool {
	return r.Float64() < p
}

// shuffled is a shuffled copy of xs.
func shuffled[T any](r *rand.Rand, xs []T) []T {
	out := append([]T(nil), xs...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// joinList is "a", "a and b", "a, b and c".
func joinList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// numberWord spells small counts out as people write them.
func numberWord(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}
