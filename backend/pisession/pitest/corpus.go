// Package pitest builds large corpora of real pi sessions for tests and
// benchmarks that need a long import (lock contention, interruption, the
// write-ahead log's size, `make bench`): copies of real session files, each
// with a fresh session id in its header, so that every copy imports as a
// session of its own. Only the header line changes; every other byte is the
// original's.
package pitest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteCorpus writes copies of the *.jsonl sessions of the folder samples
// (round robin, in name order) into the folder dst, created if missing, until
// at least target bytes are written. Files are named as pi names them,
// "<time>_<id>.jsonl". It returns the number of files and bytes written. The
// error names the sample or file that failed; a samples folder without
// sessions is an error.
func WriteCorpus(samples, dst string, target int64) (files int, size int64, err error) {
	srcs, err := filepath.Glob(filepath.Join(samples, "*.jsonl"))
	if err != nil || len(srcs) == 0 {
		return 0, 0, fmt.Errorf("pitest: no sessions in %s", samples)
	}
	var contents [][]byte
	for _, s := range srcs {
		b, err := os.ReadFile(s)
		if err != nil {
			return 0, 0, fmt.Errorf("pitest: %w", err)
		}
		if bytes.IndexByte(b, '\n') < 0 {
			return 0, 0, fmt.Errorf("pitest: %s: no header line", s)
		}
		contents = append(contents, b)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return 0, 0, fmt.Errorf("pitest: %w", err)
	}
	for size < target {
		b := contents[files%len(contents)]
		nl := bytes.IndexByte(b, '\n')
		var header map[string]any
		if err := json.Unmarshal(b[:nl], &header); err != nil {
			return files, size, fmt.Errorf("pitest: %s: header: %w", srcs[files%len(srcs)], err)
		}
		id := NewUUID()
		header["id"] = id
		h, err := json.Marshal(header)
		if err != nil {
			return files, size, fmt.Errorf("pitest: header: %w", err)
		}
		name := filepath.Join(dst, fmt.Sprintf("2025-01-01T00-00-00-000Z_%s.jsonl", id))
		f, err := os.Create(name)
		if err != nil {
			return files, size, fmt.Errorf("pitest: %w", err)
		}
		w := bufio.NewWriter(f)
		w.Write(h)
		w.Write(b[nl:])
		if err := errors.Join(w.Flush(), f.Close()); err != nil {
			return files, size, fmt.Errorf("pitest: %s: %w", name, err)
		}
		size += int64(len(h) + len(b) - nl)
		files++
	}
	return files, size, nil
}

// NewUUID returns a random version 4 UUID, as pi gives sessions.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
