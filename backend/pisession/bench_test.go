package pisession

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"rhizome/backend/session"
)

// BenchmarkReader reads each real session with the Reader: line splitting,
// one typed decode per object, v1 migration. Compare with BenchmarkBareDecode
// (same bytes per op): the ratio is the reader's cost relative to the
// importer's yardstick.
func BenchmarkReader(b *testing.B) {
	for _, rs := range realSessions {
		data, err := os.ReadFile(realPath(rs.name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(rs.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader(bytes.NewReader(data), rs.name)
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
				if n != rs.entries {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}

// BenchmarkReaderEntryText is BenchmarkReader plus EntryText of every entry,
// what an importer filling a full-text index does.
func BenchmarkReaderEntryText(b *testing.B) {
	for _, rs := range realSessions {
		data, err := os.ReadFile(realPath(rs.name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(rs.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				r := NewReader(bytes.NewReader(data), rs.name)
				for {
					e, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					_ = session.EntryText(e)
				}
			}
		})
	}
}

// BenchmarkBareDecode is the yardstick: json.Unmarshal of every line into a
// map[string]any, lines split beforehand (a line holding two objects fails,
// after scanning it, which is still counted).
func BenchmarkBareDecode(b *testing.B) {
	for _, rs := range realSessions {
		data, err := os.ReadFile(realPath(rs.name))
		if err != nil {
			b.Fatal(err)
		}
		lines := bytes.Split(data, []byte("\n"))
		b.Run(rs.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				for _, line := range lines {
					if len(line) == 0 {
						continue
					}
					m := map[string]any{}
					_ = json.Unmarshal(line, &m)
				}
			}
		})
	}
}
