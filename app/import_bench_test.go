package app

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"rhizome/store"
)

// BenchmarkImport imports the three real sample sessions into an empty
// library file, per iteration.
func BenchmarkImport(b *testing.B) {
	var size int64
	for _, n := range sampleNames {
		fi, err := os.Stat(filepath.Join("samples", n))
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	for i := 0; b.Loop(); i++ {
		dir := b.TempDir()
		st, err := store.Open(filepath.Join(dir, "lib.db"))
		if err != nil {
			b.Fatal(err)
		}
		a := New(st, "")
		rep, err := a.Import.ImportPaths([]string{"samples"})
		if err != nil || rep.Totals.Imported != 3 {
			b.Fatalf("import: %v %+v", err, rep.Totals)
		}
		st.Close()
	}
}

// BenchmarkImportCorpus imports a corpus of RHIZOME_BENCH_MB megabytes
// (copies of the samples with fresh session ids, as `make bench` builds it)
// and compares with a bare encoding/json decode of the same bytes. Skipped
// unless RHIZOME_BENCH_MB is set; run with -benchtime 1x.
func BenchmarkImportCorpus(b *testing.B) {
	mb, _ := strconv.Atoi(os.Getenv("RHIZOME_BENCH_MB"))
	if mb <= 0 {
		b.Skip("set RHIZOME_BENCH_MB to run")
	}
	dir := b.TempDir()
	corpus := filepath.Join(dir, "corpus")
	size := buildCorpus(b, corpus, int64(mb)<<20)
	start, cpu0 := time.Now(), cpuTime()
	objects := bareDecode(b, corpus)
	bare, bareCPU := time.Since(start), cpuTime()-cpu0
	for b.Loop() {
		db := filepath.Join(dir, fmt.Sprintf("lib-%d.db", time.Now().UnixNano()))
		st, err := store.Open(db)
		if err != nil {
			b.Fatal(err)
		}
		a := New(st, db)
		start, cpu0 = time.Now(), cpuTime()
		rep, err := a.Import.ImportPaths([]string{corpus})
		took, tookCPU := time.Since(start), cpuTime()-cpu0
		if err != nil || rep.Totals.Failed != 0 {
			b.Fatalf("import: %v %+v", err, rep.Totals)
		}
		st.Close()
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		fi, _ := os.Stat(db)
		b.Logf("corpus %.1f MB, %d objects; bare decode %v (%.1f MB/s); import %v (%.1f MB/s, %d entries); ratio %.2fx (CPU time: %v / %v = %.2fx); peak RSS %d MB; library %.0f MB",
			float64(size)/1e6, objects, bare.Round(time.Millisecond), float64(size)/1e6/bare.Seconds(),
			took.Round(time.Millisecond), float64(size)/1e6/took.Seconds(), rep.Totals.Entries,
			took.Seconds()/bare.Seconds(), tookCPU.Round(time.Millisecond), bareCPU.Round(time.Millisecond),
			tookCPU.Seconds()/bareCPU.Seconds(), ru.Maxrss/1024, float64(fi.Size())/1e6)
	}
}

var sampleNames = []string{"compact-with-images.jsonl", "large-session.jsonl", "session-with-compaction.jsonl"}

func buildCorpus(tb testing.TB, dst string, target int64) int64 {
	tb.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	var size int64
	for i := 0; size < target; i++ {
		b, err := os.ReadFile(filepath.Join("samples", sampleNames[i%len(sampleNames)]))
		if err != nil {
			tb.Fatal(err)
		}
		nl := bytes.IndexByte(b, '\n')
		var header map[string]any
		if err := json.Unmarshal(b[:nl], &header); err != nil {
			tb.Fatal(err)
		}
		id := fmt.Sprintf("%x", rand.Text())
		header["id"] = id
		h, _ := json.Marshal(header)
		out := append(h, b[nl:]...)
		if err := os.WriteFile(filepath.Join(dst, fmt.Sprintf("2025-01-01T00-00-00-000Z_%s.jsonl", id)), out, 0o644); err != nil {
			tb.Fatal(err)
		}
		size += int64(len(out))
	}
	return size
}

func bareDecode(tb testing.TB, dir string) int {
	tb.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	n := 0
	br := bufio.NewReaderSize(nil, 1<<20) // one buffer for every file
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		br.Reset(f)
		dec := json.NewDecoder(br)
		for {
			var v map[string]any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				tb.Fatal(err)
			}
			n++
		}
		f.Close()
	}
	return n
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
