package app

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"rhizome/store"
)

// Hashing: how a file compares with the session stored from it (the same
// bytes, a grown file, a rewritten one), from SHA-256 hashes of the whole
// file and of the prefix imported before.

// decide compares a file with the stored session of the same id: the same
// bytes are "unchanged", a file whose imported prefix is intact "appended",
// any other "imported" (rewritten: replaced).
func decide(f io.ReaderAt, size int64, s *store.Session) (string, error) {
	if s.FileBytes == size {
		sum, err := hashPrefix(f, size)
		if err != nil {
			return "", err
		}
		if sum == s.FileSHA256 {
			return statusUnchanged, nil
		}
	}
	if size >= s.ImportedBytes {
		sum, err := hashPrefix(f, s.ImportedBytes)
		if err != nil {
			return "", err
		}
		if sum == s.ImportedSHA256 {
			return statusAppended, nil
		}
	}
	return statusImported, nil
}

// hashingReader hashes and counts the bytes read through it.
type hashingReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// hashPrefix is the hex SHA-256 of the first n bytes of f.
func hashPrefix(f io.ReaderAt, n int64) (string, error) {
	h := sha256.New()
	got, err := io.Copy(h, io.NewSectionReader(f, 0, n))
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	if got != n {
		return "", fmt.Errorf("read: file shorter than %d bytes", n)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
