package gemini

import (
	"bytes"
	"io"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

// benchCorpus is the real Gemini CLI files, copied end to end until it
// holds at least 4 MB, and the entries one read of it gives.
func benchCorpus(b *testing.B) ([]byte, int) {
	b.Helper()
	corpus, _ := sessionlogtest.Corpus(b, realFiles(b))
	return corpus, len(readAll(b, corpus, false))
}

func readAll(b *testing.B, corpus []byte, text bool) []*session.Entry {
	r := NewReader(bytes.NewReader(corpus), "bench.jsonl")
	var es []*session.Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			b.Fatal(err)
		}
		if text {
			_ = session.EntryText(e)
		}
		es = append(es, e)
	}
}

// benchReader reads the corpus with the Reader (lines, a typed decode of
// every record, the spans of rewrites and results, the mapping to entries,
// the list and hold state); with text, EntryText of every entry too (what
// the import indexes for search). A rewrite is many entries: the corpus's
// entries, not its lines, are counted.
func benchReader(b *testing.B, text bool) {
	corpus, n := benchCorpus(b)
	b.SetBytes(int64(len(corpus)))
	b.ReportAllocs()
	for b.Loop() {
		if got := len(readAll(b, corpus, text)); got != n {
			b.Fatalf("%d entries, want %d", got, n)
		}
	}
}

// BenchmarkReader: compare with BenchmarkBareDecode on the same bytes, the
// ratio is the reader's cost over the import's yardstick (issue 11 §4:
// within 3x).
func BenchmarkReader(b *testing.B) { benchReader(b, false) }

// BenchmarkReaderEntryText adds EntryText of every entry.
func BenchmarkReaderEntryText(b *testing.B) { benchReader(b, true) }

// BenchmarkBareDecode is the yardstick: json.Unmarshal of every line into a
// map[string]any, the lines split beforehand.
func BenchmarkBareDecode(b *testing.B) {
	corpus, _ := sessionlogtest.Corpus(b, realFiles(b))
	sessionlogtest.BenchBareDecode(b, corpus)
}

// BenchmarkResumeAppend is an append import: the corpus was read and its
// State kept; Gemini CLI appended a prompt of about 1 KB; the import
// resumes at the stored offset and reads only the new bytes (and the
// response held at the end of the corpus). Its time does not grow with the
// corpus.
func BenchmarkResumeAppend(b *testing.B) {
	corpus, _ := sessionlogtest.Corpus(b, realFiles(b))
	r := NewReader(bytes.NewReader(corpus), "bench.jsonl")
	for {
		if _, err := r.Next(); err == io.EOF {
			break
		} else if err != nil {
			b.Fatal(err)
		}
	}
	st := r.State()
	appended := []byte(prompt("appended-1") + "\n")
	appended = append(appended, bytes.Repeat([]byte(" "), max(0, 1024-len(appended)))...)
	appended = append(appended, '\n')
	file := append(append([]byte{}, corpus...), appended...)
	b.SetBytes(int64(len(file)) - st.Offset)
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
		if n == 0 || int64(len(file))-st.Offset > 8<<10 {
			b.Fatalf("%d entries from byte %d of %d", n, st.Offset, len(file))
		}
	}
}
