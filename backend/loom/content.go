package loom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ContentType is the discriminator of Content.
type ContentType string

// Content types. See aspen-grove-core-entities.md, "Content Types".
const (
	ContentText  ContentType = "text"
	ContentImage ContentType = "image"
	ContentAudio ContentType = "audio"
	ContentMixed ContentType = "mixed"
)

// Content is what a node holds: a discriminated union on Type. Only the
// fields of its type are meaningful, and only they appear in its JSON:
//
//	text  {type, text}
//	image {type, ref, hash, mimeType, width, height, thumbnailRef?, altText?}
//	audio {type, ref, hash, mimeType, durationMs, transcriptRef?}
//	mixed {type, blocks: [text | image | audio]}
//
// The tags name the JSON fields for generated bindings; MarshalJSON is what
// writes them. Image and audio bytes never enter the database: Ref names a file of the
// library's BlobStore (content-addressed, see BlobRef) and Hash is the SHA-256
// (hex) of its bytes, so the node's content hash covers the media too.
// See aspen-grove-core-entities.md, "Content Types".
type Content struct {
	Type ContentType `json:"type"`

	Text string `json:"text,omitempty"` // text

	Ref          string `json:"ref,omitempty"`          // image, audio: BlobStore reference
	Hash         string `json:"hash,omitempty"`         // image, audio: SHA-256 hex of the bytes
	MimeType     string `json:"mimeType,omitempty"`     // image, audio
	Width        int    `json:"width,omitempty"`        // image: pixels
	Height       int    `json:"height,omitempty"`       // image: pixels
	ThumbnailRef string `json:"thumbnailRef,omitempty"` // image, optional
	AltText      string `json:"altText,omitempty"`      // image, optional

	DurationMs    int64  `json:"durationMs,omitempty"`    // audio: milliseconds
	TranscriptRef string `json:"transcriptRef,omitempty"` // audio, optional: id of a node holding the transcript

	Blocks []Content `json:"blocks,omitempty"` // mixed: text, image or audio blocks in order
}

// Text returns text content.
func Text(s string) Content { return Content{Type: ContentText, Text: s} }

// Mixed returns mixed content of blocks.
func Mixed(blocks ...Content) Content { return Content{Type: ContentMixed, Blocks: blocks} }

type textJSON struct {
	Type ContentType `json:"type"`
	Text string      `json:"text"`
}

type imageJSON struct {
	Type         ContentType `json:"type"`
	Ref          string      `json:"ref"`
	Hash         string      `json:"hash"`
	MimeType     string      `json:"mimeType"`
	Width        int         `json:"width"`
	Height       int         `json:"height"`
	ThumbnailRef string      `json:"thumbnailRef,omitempty"`
	AltText      string      `json:"altText,omitempty"`
}

type audioJSON struct {
	Type          ContentType `json:"type"`
	Ref           string      `json:"ref"`
	Hash          string      `json:"hash"`
	MimeType      string      `json:"mimeType"`
	DurationMs    int64       `json:"durationMs"`
	TranscriptRef string      `json:"transcriptRef,omitempty"`
}

type mixedJSON struct {
	Type   ContentType `json:"type"`
	Blocks []Content   `json:"blocks"`
}

// MarshalJSON writes the fields of c's type only.
func (c Content) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case ContentText:
		return json.Marshal(textJSON{c.Type, c.Text})
	case ContentImage:
		return json.Marshal(imageJSON{c.Type, c.Ref, c.Hash, c.MimeType, c.Width, c.Height, c.ThumbnailRef, c.AltText})
	case ContentAudio:
		return json.Marshal(audioJSON{c.Type, c.Ref, c.Hash, c.MimeType, c.DurationMs, c.TranscriptRef})
	case ContentMixed:
		blocks := c.Blocks
		if blocks == nil {
			blocks = []Content{}
		}
		return json.Marshal(mixedJSON{c.Type, blocks})
	}
	return nil, fmt.Errorf("loom: unable to write content: unknown type %q", c.Type)
}

// UnmarshalJSON reads content by its "type". Unknown types and unknown fields
// are errors: content is hashed, and a field dropped on reading would change
// the hash.
func (c *Content) UnmarshalJSON(data []byte) error {
	var head struct {
		Type ContentType `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("loom: unable to read content: %w", err)
	}
	strict := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(data))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			return fmt.Errorf("loom: unable to read %s content: %w", head.Type, err)
		}
		return nil
	}
	switch head.Type {
	case ContentText:
		var v textJSON
		if err := strict(&v); err != nil {
			return err
		}
		*c = Content{Type: v.Type, Text: v.Text}
	case ContentImage:
		var v imageJSON
		if err := strict(&v); err != nil {
			return err
		}
		*c = Content{Type: v.Type, Ref: v.Ref, Hash: v.Hash, MimeType: v.MimeType, Width: v.Width,
			Height: v.Height, ThumbnailRef: v.ThumbnailRef, AltText: v.AltText}
	case ContentAudio:
		var v audioJSON
		if err := strict(&v); err != nil {
			return err
		}
		*c = Content{Type: v.Type, Ref: v.Ref, Hash: v.Hash, MimeType: v.MimeType, DurationMs: v.DurationMs,
			TranscriptRef: v.TranscriptRef}
	case ContentMixed:
		var v mixedJSON
		if err := strict(&v); err != nil {
			return err
		}
		*c = Content{Type: v.Type, Blocks: v.Blocks}
	case "":
		return errors.New(`loom: unable to read content: no "type"`)
	default:
		return fmt.Errorf("loom: unable to read content: unknown type %q", head.Type)
	}
	return nil
}

// Validate reports what makes c unusable as a node's content: an unknown
// type, media without a reference, hash or MIME type, negative sizes, or a
// mixed block that is itself mixed.
func (c Content) Validate() error {
	switch c.Type {
	case ContentText:
		return nil
	case ContentImage, ContentAudio:
		switch {
		case c.Ref == "":
			return fmt.Errorf("loom: %s content has no ref", c.Type)
		case c.Hash == "":
			return fmt.Errorf("loom: %s content %s has no hash", c.Type, c.Ref)
		case c.MimeType == "":
			return fmt.Errorf("loom: %s content %s has no MIME type", c.Type, c.Ref)
		case c.Width < 0 || c.Height < 0 || c.DurationMs < 0:
			return fmt.Errorf("loom: %s content %s has a negative size", c.Type, c.Ref)
		}
		return nil
	case ContentMixed:
		for i, b := range c.Blocks {
			if b.Type == ContentMixed {
				return fmt.Errorf("loom: mixed content block %d is itself mixed", i)
			}
			if err := b.Validate(); err != nil {
				return fmt.Errorf("loom: mixed content block %d: %w", i, err)
			}
		}
		return nil
	}
	return fmt.Errorf("loom: unknown content type %q", c.Type)
}

// PlainText is the text of c: a text's text, a mixed content's text blocks
// joined by newlines, an image's alt text; "" for audio.
func (c Content) PlainText() string {
	switch c.Type {
	case ContentText:
		return c.Text
	case ContentImage:
		return c.AltText
	case ContentMixed:
		var parts []string
		for _, b := range c.Blocks {
			if b.Type == ContentText {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// Equal reports whether a and b are the same content.
func (c Content) Equal(o Content) bool {
	a, errA := c.MarshalJSON()
	b, errB := o.MarshalJSON()
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// media returns the image and audio parts of c (c itself or its blocks).
func (c Content) media() []Content {
	switch c.Type {
	case ContentImage, ContentAudio:
		return []Content{c}
	case ContentMixed:
		var out []Content
		for _, b := range c.Blocks {
			out = append(out, b.media()...)
		}
		return out
	}
	return nil
}
