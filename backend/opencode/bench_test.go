package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
)

// benchDoc is one document of at least 4 MB: the real main session's
// message rows repeated (ids repeat too, which the reader does not mind),
// and the entries one read of it gives.
func benchDoc(b *testing.B) ([]byte, int) {
	b.Helper()
	x := readExpected(b)
	d := openDB(b, copyHome(b, false))
	doc, err := d.Export(context.Background(), x.Session)
	if err != nil {
		b.Fatal(err)
	}
	start := bytes.Index(doc, []byte(`"messages":[`)) + len(`"messages":[`)
	end := bytes.LastIndex(doc, []byte("],\n\"todos\""))
	rows := doc[start:end]
	var big bytes.Buffer
	big.Write(doc[:start])
	big.Write(rows)
	for big.Len() < 4<<20 {
		big.WriteString(",")
		big.Write(rows)
	}
	big.Write(doc[end:])
	p, err := ParseDocument(big.Bytes(), "bench.json")
	if err != nil || len(p.Problems) > 0 {
		b.Fatalf("%v %v", err, p.Problems)
	}
	return big.Bytes(), len(p.Entries)
}

// BenchmarkParseDocument reads a 4 MB document: one streaming decode, the
// mapping to entries; with text, EntryText of every entry too (what the
// import indexes). Compare per byte with BenchmarkBareDecode on the same
// bytes and with BenchmarkPiReader, pi's reader on pi's real sessions (the
// baseline issue 24 measures the import against: within 1.5x).
func BenchmarkParseDocument(b *testing.B) {
	doc, n := benchDoc(b)
	for _, text := range []bool{false, true} {
		name := "Read"
		if text {
			name = "ReadEntryText"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				p, err := ParseDocument(doc, "bench.json")
				if err != nil || len(p.Entries) != n {
					b.Fatalf("%v: %d entries, want %d", err, len(p.Entries), n)
				}
				if text {
					for i := range p.Entries {
						_ = session.EntryText(&p.Entries[i])
					}
				}
			}
		})
	}
	b.Run("BareDecode", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPiReader is the baseline: pisession's Reader over pi's real
// sessions, every entry read, per byte.
func BenchmarkPiReader(b *testing.B) {
	var files [][]byte
	var total int64
	for _, path := range pitest.Samples() {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Skipf("pi's samples: %v", err)
		}
		files = append(files, data)
		total += int64(len(data))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range files {
			r := pisession.NewReader(bytes.NewReader(data), "bench.jsonl")
			for {
				if _, err := r.Next(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkPiBareDecode is the yardstick on pi's bytes: json.Unmarshal of
// every line of pi's real sessions into a map, what BareDecode is on the
// document's. The two yardsticks' ratio is how much costlier the
// document's bytes are to decode at all (tool outputs full of escapes).
func BenchmarkPiBareDecode(b *testing.B) {
	var lines [][]byte
	var total int64
	for _, path := range pitest.Samples() {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Skipf("pi's samples: %v", err)
		}
		total += int64(len(data))
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if len(l) > 0 {
				m := map[string]any{}
				_ = json.Unmarshal(l, &m)
			}
		}
	}
}

// BenchmarkKeys computes the key of every entry of a 4 MB document
// (opencode.Key: each row's JSON decoded to leave out what OpenCode writes
// again): what a re-read adds to the parse to find its new entries.
func BenchmarkKeys(b *testing.B) {
	doc, _ := benchDoc(b)
	p, err := ParseDocument(doc, "bench.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		for i := range p.Entries {
			Key(&p.Entries[i], i)
		}
	}
}
