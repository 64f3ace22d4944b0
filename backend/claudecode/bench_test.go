package claudecode

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"rhizome/backend/pisession"
)

// benchCorpus is the real Claude Code files, copied end to end until it
// holds at least 4 MB, and its line count.
func benchCorpus(b *testing.B) ([]byte, int) {
	b.Helper()
	var one []byte
	for _, f := range realFiles(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		one = append(one, data...)
	}
	var corpus []byte
	for len(corpus) < 4<<20 {
		corpus = append(corpus, one...)
	}
	return corpus, bytes.Count(corpus, []byte("\n"))
}

// BenchmarkReader reads the corpus with the Reader: lines, a typed decode
// of every line, the mapping to entries, usage and tree state. Compare with
// BenchmarkBareDecode on the same bytes: the ratio is the reader's cost over
// the import's yardstick (issue 11 §4: within 3x).
func BenchmarkReader(b *testing.B) {
	corpus, lines := benchCorpus(b)
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(corpus), "bench.jsonl")
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != lines {
			b.Fatalf("%d entries for %d lines", n, lines)
		}
	}
}

// BenchmarkReaderEntryText adds EntryText of every entry (what the import
// indexes for search).
func BenchmarkReaderEntryText(b *testing.B) {
	corpus, _ := benchCorpus(b)
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(corpus), "bench.jsonl")
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			_ = pisession.EntryText(e)
		}
	}
}

// BenchmarkBareDecode is the yardstick: json.Unmarshal of every line into a
// map[string]any, the lines split beforehand.
func BenchmarkBareDecode(b *testing.B) {
	corpus, _ := benchCorpus(b)
	lines := bytes.Split(corpus, []byte("\n"))
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if len(l) == 0 {
				continue
			}
			m := map[string]any{}
			if err := json.Unmarshal(l, &m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkResumeAppend is an append import: the corpus was read and its
// State kept; the writer appended about 1 KB (one line); the import resumes
// at the stored offset and reads only the new bytes (issue 11 §2: under 50
// ms whatever the file's size). Its time does not grow with the corpus.
func BenchmarkResumeAppend(b *testing.B) {
	corpus, _ := benchCorpus(b)
	r := NewReader(bytes.NewReader(corpus), "bench.jsonl")
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
	}
	st := r.State()
	appended := []byte(line("appended-1", "") + "\n")
	appended = append(appended, bytes.Repeat([]byte(" "), max(0, 1024-len(appended)))...)
	appended = append(appended, '\n')
	file := append(append([]byte{}, corpus...), appended...)
	b.SetBytes(int64(len(appended)))
	b.ReportAllocs()
	for b.Loop() {
		rr := NewReaderAt(bytes.NewReader(file[st.Offset:]), "bench.jsonl", st)
		n := 0
		for {
			_, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1 {
			b.Fatalf("%d entries appended", n)
		}
	}
}
