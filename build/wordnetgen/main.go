// Command wordnetgen writes backend/wordnet/wordnet.txt.gz, the part of
// Princeton WordNet 3.0 the search uses to bridge a question's words to
// the words an answer is written in ("which city" and "Spokane", "which
// animal" and "kitten"): noun and verb synsets with their one-word lemmas,
// their hyponyms and instances, their derivationally related synsets, each
// one-word lemma's first senses, and the irregular forms.
//
// It reads WordNet's own database files as Debian's wordnet-base package
// installs them (see wndb(5WN)):
//
//	apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb /tmp/wn
//	go run ./build/wordnetgen -dict /tmp/wn/usr/share/wordnet
//
// The output is a gzipped text file, one record per line, described in
// backend/wordnet's package comment; WordNet's licence heads it.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// sensesKept is how many senses of each part of speech a lemma keeps, in
// WordNet's order (most frequent in its tagged corpus first).
const sensesKept = 3

const licence = `WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
Permission to use, copy, modify and distribute this software and database and its
documentation for any purpose and without fee or royalty is hereby granted, provided that
you agree to comply with the following copyright notice and statements, including the
disclaimer, and that the same appear on ALL copies of the software, database and
documentation, including modifications that you make for internal use or for distribution.
THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION,
PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS
FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR
DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER
RIGHTS. The name of Princeton University or Princeton may not be used in advertising or
publicity pertaining to distribution of the software and/or database. Title to copyright
in this software, database and any associated documentation shall at all times remain with
Princeton University and LICENSEE agrees to preserve same.
This file is a derived subset made by rhizome's build/wordnetgen from Debian's wordnet-base.`

type synset struct {
	pos      byte // 'n' or 'v'
	offset   int
	lemmas   []string
	children []string // keys ("n08524735") of hyponyms and instances
	derived  []string // keys of derivationally related noun and verb synsets
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "folder holding WordNet's data.noun, index.noun, noun.exc, …")
	out := flag.String("out", "backend/wordnet/wordnet.txt.gz", "file to write")
	flag.Parse()
	if err := run(*dict, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wordnetgen:", err)
		os.Exit(1)
	}
}

func run(dict, out string) error {
	var all []*synset
	byKey := map[string]*synset{}
	for _, pos := range []string{"noun", "verb"} {
		ss, err := readData(filepath.Join(dict, "data."+pos), pos[0])
		if err != nil {
			return err
		}
		for _, s := range ss {
			byKey[key(s.pos, s.offset)] = s
		}
		all = append(all, ss...)
	}
	index := map[string]int{}
	for i, s := range all {
		index[key(s.pos, s.offset)] = i
	}
	senses := map[string][]int{} // lemma -> synset indices, nouns' first then verbs'
	for _, pos := range []string{"noun", "verb"} {
		if err := readIndex(filepath.Join(dict, "index."+pos), pos[0], index, senses); err != nil {
			return err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	w := bufio.NewWriter(zw)
	for _, l := range strings.Split(licence, "\n") {
		fmt.Fprintf(w, "# %s\n", l)
	}
	ids := func(keys []string) string {
		var xs []string
		for _, k := range keys {
			if i, ok := index[k]; ok {
				xs = append(xs, strconv.Itoa(i))
			}
		}
		return strings.Join(xs, " ")
	}
	for _, s := range all {
		fmt.Fprintf(w, "S\t%c\t%s\t%s\t%s\n", s.pos, strings.Join(s.lemmas, " "), ids(s.children), ids(s.derived))
	}
	lemmas := make([]string, 0, len(senses))
	for l := range senses {
		lemmas = append(lemmas, l)
	}
	sort.Strings(lemmas)
	for _, l := range lemmas {
		var xs []string
		for _, i := range senses[l] {
			xs = append(xs, strconv.Itoa(i))
		}
		fmt.Fprintf(w, "L\t%s\t%s\n", l, strings.Join(xs, " "))
	}
	for _, pos := range []string{"noun", "verb"} {
		if err := copyExceptions(w, filepath.Join(dict, pos+".exc")); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func key(pos byte, offset int) string { return fmt.Sprintf("%c%08d", pos, offset) }

// oneWord reports whether a WordNet lemma is a single lower-case word the
// search can match ("city", not "urban_center" or "Spokane"'s capital,
// which is lowered first).
func oneWord(l string) bool {
	if l == "" || strings.ContainsAny(l, "_-.'0123456789") {
		return false
	}
	return true
}

// readData reads a data.noun or data.verb file: per line a synset's offset,
// lexicographer file, type, word count (hex), words with lex ids, pointer
// count and pointers (symbol, offset, part of speech, source/target).
func readData(path string, pos byte) ([]*synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*synset
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if strings.HasPrefix(t, "  ") {
			continue // licence header
		}
		if i := strings.Index(t, " | "); i >= 0 {
			t = t[:i]
		}
		fs := strings.Fields(t)
		if len(fs) < 4 {
			return nil, fmt.Errorf("%s:%d: too few fields", path, line)
		}
		off, err := strconv.Atoi(fs[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: offset: %w", path, line, err)
		}
		wc, err := strconv.ParseInt(fs[3], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: word count: %w", path, line, err)
		}
		s := &synset{pos: pos, offset: off}
		i := 4
		seen := map[string]bool{}
		for range wc {
			l := strings.ToLower(fs[i])
			if oneWord(l) && !seen[l] {
				seen[l] = true
				s.lemmas = append(s.lemmas, l)
			}
			i += 2
		}
		pc, err := strconv.Atoi(fs[i])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: pointer count: %w", path, line, err)
		}
		i++
		for range pc {
			sym, to, p := fs[i], fs[i+1], fs[i+2]
			i += 4
			o, err := strconv.Atoi(to)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: pointer offset: %w", path, line, err)
			}
			if p != "n" && p != "v" {
				continue
			}
			k := key(p[0], o)
			switch sym {
			case "~", "~i":
				s.children = append(s.children, k)
			case "+":
				s.derived = append(s.derived, k)
			}
		}
		s.derived = dedupe(s.derived)
		out = append(out, s)
	}
	return out, sc.Err()
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// readIndex reads an index file: per line a lemma, its part of speech,
// synset count, pointer symbols, sense counts and the synset offsets in
// sense order; it keeps the first sensesKept of each one-word lemma.
func readIndex(path string, pos byte, index map[string]int, senses map[string][]int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if strings.HasPrefix(t, "  ") {
			continue
		}
		fs := strings.Fields(t)
		if len(fs) < 6 || !oneWord(fs[0]) {
			continue
		}
		n, err := strconv.Atoi(fs[2])
		if err != nil {
			return fmt.Errorf("%s:%d: synset count: %w", path, line, err)
		}
		offs := fs[len(fs)-n:]
		for _, o := range offs[:min(sensesKept, len(offs))] {
			off, err := strconv.Atoi(o)
			if err != nil {
				return fmt.Errorf("%s:%d: offset: %w", path, line, err)
			}
			if i, ok := index[key(pos, off)]; ok {
				senses[fs[0]] = append(senses[fs[0]], i)
			}
		}
	}
	return sc.Err()
}

// copyExceptions copies the one-word lines of an exception list
// ("mice mouse") as X records.
func copyExceptions(w *bufio.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(b), "\n") {
		fs := strings.Fields(l)
		if len(fs) >= 2 && oneWord(fs[0]) && oneWord(fs[1]) {
			fmt.Fprintf(w, "X\t%s\t%s\n", fs[0], fs[1])
		}
	}
	return nil
}
