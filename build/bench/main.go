// Command bench measures import speed for `make bench`: it builds a corpus of
// about --mb megabytes by copying the real sample sessions with fresh session
// ids (pitest.WriteCorpus), times a bare encoding/json decode of every object
// of those bytes, then imports the corpus into an empty library with the real binary and reports
// MB/s, entries/s, peak RSS and the ratio to the bare decode, all in one run.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"rhizome/backend/pisession/pitest"
)

func main() {
	bin := flag.String("bin", "build/bin/rhizome", "rhizome binary")
	mb := flag.Int("mb", 300, "corpus size in MB")
	samples := flag.String("samples", "app/samples", "folder of real sessions to copy")
	keep := flag.Bool("keep", false, "keep the corpus and library")
	flag.Parse()
	if err := run(*bin, *samples, int64(*mb)<<20, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(bin, samples string, target int64, keep bool) error {
	dir, err := os.MkdirTemp("", "rhizome-bench-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(dir)
	}
	corpus := filepath.Join(dir, "corpus")
	files, size, err := pitest.WriteCorpus(samples, corpus, target)
	if err != nil {
		return err
	}
	fmt.Printf("corpus: %d files, %.1f MB in %s\n", files, float64(size)/1e6, corpus)

	start := time.Now()
	objects, err := bareDecode(corpus)
	if err != nil {
		return err
	}
	bare := time.Since(start)
	fmt.Printf("bare encoding/json decode: %d objects in %v (%.1f MB/s)\n", objects, bare.Round(time.Millisecond), float64(size)/1e6/bare.Seconds())

	db := filepath.Join(dir, "library.db")
	cmd := exec.Command(bin, "import", "--db", db, "--json", corpus)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	start = time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	took := time.Since(start)
	var report struct {
		Totals struct {
			Files, Failed, Entries, Segments int
		} `json:"totals"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		return fmt.Errorf("import report: %w", err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	st, _ := os.Stat(db)
	fmt.Printf("import: %d files (%d failed), %d entries, %d segments in %v\n",
		report.Totals.Files, report.Totals.Failed, report.Totals.Entries, report.Totals.Segments, took.Round(time.Millisecond))
	fmt.Printf("import speed: %.1f MB/s, %.0f entries/s, peak RSS %.0f MB, library %.0f MB\n",
		float64(size)/1e6/took.Seconds(), float64(report.Totals.Entries)/took.Seconds(), float64(rss)/1024, float64(st.Size())/1e6)
	ratio := took.Seconds() / bare.Seconds()
	fmt.Printf("import / bare decode: %.2fx (target <= 3x); peak RSS target < 200 MB\n", ratio)
	return nil
}

// bareDecode decodes every JSON object of every corpus file into
// map[string]any with encoding/json and counts them.
func bareDecode(dir string) (int, error) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	n := 0
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return n, err
		}
		dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
		for {
			var v map[string]any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				f.Close()
				return n, fmt.Errorf("%s: %w", name, err)
			}
			n++
		}
		f.Close()
	}
	return n, nil
}
