package knowledge

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/backend/session"
)

// segmentedSample is one real session read into its segments' entries.
type segmentedSample struct {
	hdr   *session.Header
	segs  []segment.Segment
	parts [][]*session.Entry
	bytes int64
}

func readSegmented(b *testing.B) []segmentedSample {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(realDir, "*.jsonl"))
	var out []segmentedSample
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		fi, _ := f.Stat()
		rd := pisession.NewReader(f, path)
		hdr, err := rd.Header()
		if err != nil {
			b.Fatal(err)
		}
		s := segmentedSample{hdr: hdr, bytes: fi.Size()}
		bld := segment.NewBuilder(segment.DefaultOptions())
		var cur []*session.Entry
		for {
			e, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if st := bld.Add(e); st.Closed != nil {
				s.segs, s.parts, cur = append(s.segs, *st.Closed), append(s.parts, cur), nil
			}
			cur = append(cur, e)
		}
		if last := bld.Finish(); last != nil {
			s.segs, s.parts = append(s.segs, *last), append(s.parts, cur)
		}
		f.Close()
		out = append(out, s)
	}
	return out
}

// BenchmarkOfflinePass compares, in the same run, the import's two passes
// over the three real sessions' decoded entries: the offline analyzer
// (analyze.Accumulator, one node per segment) and the offline knowledge
// rules (Extractor, run beside it at import since issue 9). MB/s are of the
// session files.
func BenchmarkOfflinePass(b *testing.B) {
	samples := readSegmented(b)
	var size int64
	for _, s := range samples {
		size += s.bytes
	}
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	b.Run("analyze", func(b *testing.B) {
		b.SetBytes(size)
		acc := analyze.NewAccumulator()
		for b.Loop() {
			for _, s := range samples {
				for i, part := range s.parts {
					for _, e := range part {
						acc.Add(e)
					}
					_ = acc.Node(analyze.Input{Header: *s.hdr, Segment: s.segs[i]}, now)
					acc.Reset()
				}
			}
		}
	})
	b.Run("knowledge", func(b *testing.B) {
		b.SetBytes(size)
		x := NewExtractor()
		for b.Loop() {
			for _, s := range samples {
				for i, part := range s.parts {
					for _, e := range part {
						x.Add(e)
					}
					_ = x.Items(Source{Project: s.hdr.Cwd, SessionID: s.hdr.ID, SegmentNodeID: analyze.NodeID(s.hdr.ID, s.segs[i].StartSeq)}, now)
					x.Reset()
				}
			}
		}
	})
}
