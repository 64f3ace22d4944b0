package store

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"rhizome/backend/loom"
)

// LoomBlobs keeps the bytes of loom image and audio content as files in a
// folder beside the library, "<library>.blobs/", each named by its SHA-256
// and an extension for its MIME type (loom.BlobRef). It implements
// loom.BlobStore.
type LoomBlobs struct {
	dir string
}

// LoomBlobs returns the library's blob folder (created on first Put, mode
// 0700; blob files are 0600).
func (s *Store) LoomBlobs() *LoomBlobs { return &LoomBlobs{dir: s.path + ".blobs"} }

// Dir is the blob folder.
func (b *LoomBlobs) Dir() string { return b.dir }

// loomBlobRefPattern is what loom.BlobRef makes: a reference never names a path.
var loomBlobRefPattern = regexp.MustCompile(`^[0-9a-f]{64}(\.[a-z0-9]{1,8})?$`)

// Put stores data (once: the same bytes are the same file) and returns its
// reference and SHA-256 (hex). The file is written atomically (WriteFile),
// so a reader never sees half of it.
func (b *LoomBlobs) Put(data []byte, mimeType string) (ref, sha256Hex string, err error) {
	sha256Hex = loom.SHA256Hex(data)
	ref = loom.BlobRef(sha256Hex, mimeType)
	path := filepath.Join(b.dir, ref)
	if _, err := os.Stat(path); err == nil {
		return ref, sha256Hex, nil
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil { // the user's alone, as the library
		return "", "", fmt.Errorf("store: unable to create the blob folder %s: %w", b.dir, err)
	}
	if err := WriteFile(path, data, 0o600); err != nil {
		return "", "", fmt.Errorf("store: unable to store blob %s: %w", ref, err)
	}
	return ref, sha256Hex, nil
}

// Get returns the bytes of ref.
func (b *LoomBlobs) Get(ref string) ([]byte, error) {
	path, err := b.Path(ref)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read blob %s: %w", ref, err)
	}
	return data, nil
}

// Path returns the file of ref, for serving it; an error for a reference
// loom.BlobRef cannot have made (a path, "..").
func (b *LoomBlobs) Path(ref string) (string, error) {
	if !loomBlobRefPattern.MatchString(ref) {
		return "", fmt.Errorf("store: %q is not a blob reference", ref)
	}
	return filepath.Join(b.dir, ref), nil
}
