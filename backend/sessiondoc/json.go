package sessiondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"rhizome/backend/sessionlog"
	"strings"
)

// Reading a document's structure without decoding it twice: Check tells a
// whole document from one that breaks off or is not JSON, and Members and
// Elements find the byte spans of an object's values and a list's elements
// in a checked document, so that a format decodes each message from its own
// bytes and keeps them as the entry's Raw.

// Check reports whether doc, the document named file, is one whole JSON
// value: nil; an error matching ErrIncomplete when it breaks off (empty,
// only whitespace, or a value left open at its last byte); else a
// *SyntaxError naming the byte and line where it stops being JSON.
func Check(doc []byte, file string) error {
	if json.Valid(doc) {
		return nil
	}
	var v struct{}
	err := json.Unmarshal(doc, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &SyntaxError{File: file, Line: 1, Msg: "not JSON"}
	}
	// The end of the input is a document that breaks off: a value left
	// open, or an escape, number or literal cut short (encoding/json says
	// so of the space it feeds itself after the last byte).
	if se.Error() == "unexpected end of JSON input" || se.Offset >= int64(len(doc)) && strings.HasPrefix(se.Error(), "invalid character ' '") {
		return fmt.Errorf("%s (%d bytes so far): %w", file, len(doc), ErrIncomplete)
	}
	off := se.Offset - 1 // the offset after the byte that failed
	if off < 0 {
		off = 0
	}
	return &SyntaxError{File: file, Offset: off, Line: LineOf(doc, off), Msg: "not JSON: " + se.Error()}
}

// LineOf is the 1-based line of byte off of doc.
func LineOf(doc []byte, off int64) int {
	if off > int64(len(doc)) {
		off = int64(len(doc))
	}
	return bytes.Count(doc[:off], []byte("\n")) + 1
}

// Lines counts lines forward through a document: At(off) is the line of
// byte off, for offsets that do not go back (the items of a document in
// order), in one pass over the document whatever the number of calls.
type Lines struct {
	doc  []byte
	off  int
	line int
}

// NewLines counts the lines of doc.
func NewLines(doc []byte) *Lines { return &Lines{doc: doc, line: 1} }

// At returns the 1-based line of byte off (off not before the last one
// asked; an earlier one is counted from the start).
func (l *Lines) At(off int) int {
	if off < l.off {
		l.off, l.line = 0, 1
	}
	off = min(off, len(l.doc))
	l.line += bytes.Count(l.doc[l.off:off], []byte("\n"))
	l.off = off
	return l.line
}

// Span is where a value lies in a document: doc[Start:End].
type Span = sessionlog.Span

// Member is one key of a JSON object and the span of its value.
type Member = sessionlog.Member

// Members lists the keys of the JSON object at doc[v.Start:v.End] (of a
// document Check accepted) with their values' spans in doc, in order; ok is
// false when the value is not an object.
func Members(doc []byte, v Span) (out []Member, ok bool) {
	out, _, ok = sessionlog.Object(doc[:v.End], v.Start)
	return out, ok
}

// Elements lists the spans in doc of the elements of the JSON list at
// doc[v.Start:v.End] (of a document Check accepted); ok is false when the
// value is not a list.
func Elements(doc []byte, v Span) (out []Span, ok bool) {
	return sessionlog.Elements(doc[:v.End], v.Start)
}

// Find returns the span of key's value among ms.
func Find(ms []Member, key string) (Span, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Val, true
		}
	}
	return Span{}, false
}

// Kind names the JSON kind of a value starting with c, for messages ("JSON
// string", "JSON list", ...).
func Kind(c byte) string {
	switch c {
	case '"':
		return "JSON string"
	case '{':
		return "JSON object"
	case '[':
		return "JSON list"
	case 't', 'f':
		return "JSON boolean"
	case 'n':
		return "JSON null"
	}
	return "JSON number"
}
