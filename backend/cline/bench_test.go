package cline

import (
	"encoding/json"
	"os"
	"rhizome/backend/cline/clinetest"
	"testing"

	"rhizome/backend/sessiondoc"
)

// benchDocs are the real conversations, each read with what lies beside it.
func benchDocs(b *testing.B) ([][]byte, []Side, int64) {
	var docs [][]byte
	var sides []Side
	var n int64
	for _, p := range realDocs(b) {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		docs, sides, n = append(docs, d), append(sides, SideOf(p)), n+int64(len(d))
	}
	return docs, sides, n
}

// BenchmarkRead reads every real conversation whole (Check, the envelope,
// a typed decode of every message, the keys): bytes per second beside
// BenchmarkBareDecode on the same bytes, and pisession's BenchmarkReader
// in the same `make bench` run (the baseline).
func BenchmarkRead(b *testing.B) {
	docs, sides, n := benchDocs(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for i, d := range docs {
			if _, err := Read(d, "bench", sides[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBareDecode is the yardstick: json.Unmarshal of each document
// into a map[string]any.
func BenchmarkBareDecode(b *testing.B) {
	docs, _, n := benchDocs(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			var v map[string]any
			if err := json.Unmarshal(d, &v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// bigConversation is a conversation of about size bytes: the real first
// session's messages again and again under new ids, and the same with one
// message more.
func bigConversation(b *testing.B, size int) (doc, grown []byte) {
	full, err := os.ReadFile(docPath(first))
	if err != nil {
		b.Fatal(err)
	}
	g, err := clinetest.NewGrowing(full)
	if err != nil {
		b.Fatal(err)
	}
	g.Grow(size)
	doc = g.Bytes()
	g.Add()
	return doc, g.Bytes()
}

// BenchmarkReread5MB is a live re-read of a 5 MB conversation that gained
// one message: the whole document read again against the state stored
// (ReadKnown: the stored messages scanned, not decoded), and the one new
// message found (issue 24: a whole-document re-read of a 5 MB session
// under 200 ms). BenchmarkReread5MBWhole is the same read decoding every
// message (Read), the baseline. The import adds writing that one entry and
// the document's bytes (app: BenchmarkImportClineReread5MB).
func BenchmarkReread5MB(b *testing.B) {
	benchReread(b, true)
}

// BenchmarkReread5MBWhole is BenchmarkReread5MB with every message decoded.
func BenchmarkReread5MBWhole(b *testing.B) {
	benchReread(b, false)
}

func benchReread(b *testing.B, withKnown bool) {
	doc, grown := bigConversation(b, 5<<20)
	d, err := Read(doc, "bench", Side{})
	if err != nil {
		b.Fatal(err)
	}
	st := sessiondoc.State{}.Diff(d).Next
	b.SetBytes(int64(len(grown)))
	b.ReportAllocs()
	for b.Loop() {
		var known *sessiondoc.Known
		if withKnown {
			known = st.Known()
		}
		g, err := ReadKnown(grown, "bench", Side{}, known)
		if err != nil {
			b.Fatal(err)
		}
		if ch := st.Diff(g); len(ch.Fresh) != 1 {
			b.Fatalf("%d new", len(ch.Fresh))
		}
	}
}
