package pitest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"rhizome/backend/pisession"
)

// Every copy reads as a pi session with its own id and, past the header,
// the original's bytes.
func TestWriteCorpus(t *testing.T) {
	dst := t.TempDir()
	files, size, err := WriteCorpus(SamplesDir(), dst, 5<<20)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dst, "*.jsonl"))
	if files != len(names) || files < 3 || size < 5<<20 {
		t.Fatalf("%d files (%d on disk), %d bytes; want at least 3 files and 5 MiB", files, len(names), size)
	}
	samples := Samples()
	ids := map[string]bool{}
	var total int64
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		hdr, err := pisession.NewReader(f, name).Header()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ids[hdr.ID] || filepath.Base(name) != "2025-01-01T00-00-00-000Z_"+hdr.ID+".jsonl" {
			t.Errorf("%s: id %s repeated or not in the name", name, hdr.ID)
		}
		ids[hdr.ID] = true
		got, _ := os.ReadFile(name)
		total += int64(len(got))
		var same bool
		for _, s := range samples {
			want, _ := os.ReadFile(s)
			if bytes.Equal(got[bytes.IndexByte(got, '\n'):], want[bytes.IndexByte(want, '\n'):]) {
				same = true
			}
		}
		if !same {
			t.Errorf("%s: past the header, not a copy of a sample", name)
		}
	}
	if total != size {
		t.Errorf("%d bytes on disk, WriteCorpus said %d", total, size)
	}
}

// Sample and Samples find the one copy of the real sessions, app/samples,
// from any working directory, and SampleNames lists every session there.
func TestSamples(t *testing.T) {
	found, err := filepath.Glob("../../../app/samples/*.jsonl")
	if err != nil || len(found) != len(SampleNames) {
		t.Fatalf("app/samples holds %v (%v), SampleNames %v", found, err, SampleNames)
	}
	for i, p := range Samples() {
		if !filepath.IsAbs(p) || filepath.Base(p) != SampleNames[i] || filepath.Base(found[i]) != SampleNames[i] {
			t.Errorf("Samples()[%d] = %s, want the absolute path of %s", i, p, found[i])
		}
		want, _ := os.ReadFile(found[i])
		got, err := os.ReadFile(Sample(SampleNames[i]))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Sample(%s): %v", SampleNames[i], err)
		}
	}
}
