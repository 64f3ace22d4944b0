package loom

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	_ "image/gif"  // registers GIF for image.DecodeConfig
	_ "image/jpeg" // registers JPEG
	_ "image/png"  // registers PNG
	"mime"
	"strings"
)

// BlobStore keeps the bytes of image and audio content as files beside the
// library; the database holds only references. It must be content-addressed:
// Put returns BlobRef(sha256(data), mimeType), so the same bytes get the same
// reference in every library and an exported tree imports with its content
// hashes intact.
type BlobStore interface {
	// Put stores data and returns its reference and SHA-256 (hex).
	Put(data []byte, mimeType string) (ref, sha256Hex string, err error)
	// Get returns the bytes of ref.
	Get(ref string) ([]byte, error)
}

// BlobRef is the reference of a blob: its SHA-256 (hex) and an extension for
// its MIME type ("" when none is known), e.g. "9f86d0…0a08.png".
func BlobRef(sha256Hex, mimeType string) string {
	ext := ""
	switch strings.ToLower(strings.TrimSpace(strings.Split(mimeType, ";")[0])) {
	case "image/png":
		ext = ".png"
	case "image/jpeg":
		ext = ".jpg"
	case "image/gif":
		ext = ".gif"
	case "image/webp":
		ext = ".webp"
	case "audio/mpeg", "audio/mp3":
		ext = ".mp3"
	case "audio/wav", "audio/x-wav", "audio/wave":
		ext = ".wav"
	case "audio/ogg":
		ext = ".ogg"
	case "audio/webm":
		ext = ".webm"
	default:
		if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
			ext = exts[0]
		}
	}
	return sha256Hex + ext
}

// SHA256Hex is the SHA-256 of data in lower-case hex.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// NewImage stores an image in blobs and returns its content. Width and
// height are read from PNG, JPEG and GIF data (0 for other formats).
func NewImage(blobs BlobStore, data []byte, mimeType, altText string) (Content, error) {
	ref, hash, err := blobs.Put(data, mimeType)
	if err != nil {
		return Content{}, fmt.Errorf("loom: unable to store an image: %w", err)
	}
	c := Content{Type: ContentImage, Ref: ref, Hash: hash, MimeType: mimeType, AltText: altText}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		c.Width, c.Height = cfg.Width, cfg.Height
	}
	return c, nil
}

// NewAudio stores audio in blobs and returns its content; durationMs is the
// caller's (no audio decoder here).
func NewAudio(blobs BlobStore, data []byte, mimeType string, durationMs int64) (Content, error) {
	ref, hash, err := blobs.Put(data, mimeType)
	if err != nil {
		return Content{}, fmt.Errorf("loom: unable to store audio: %w", err)
	}
	return Content{Type: ContentAudio, Ref: ref, Hash: hash, MimeType: mimeType, DurationMs: durationMs}, nil
}
