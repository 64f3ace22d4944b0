// Package sessionlog is the streaming machinery shared by the readers of
// other agents' session logs (backend/claudecode, backend/codex): JSON Lines
// read line by line with positions, lines holding several objects split,
// malformed lines reported and skipped, a half-written last line left
// pending, and entries returned in file order with an optional hold-back
// (for usage that a later line settles) and a resumable state.
//
// The pi reader (backend/pisession) has its own, older copy of the line
// handling; the rules are the same (see pisession.Reader).
package sessionlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// MaxLineBytes is the default limit on one line, in bytes (newline
// excluded): 64 MiB, as pisession.MaxLineBytes. A longer line is reported as
// malformed and skipped without being held in memory.
const MaxLineBytes = 64 << 20

const (
	readBufferBytes = 256 << 10 // bufio buffer: lines up to this size are never copied
	keepBufferBytes = 4 << 20   // a long-line buffer larger than this is released after use
)

// Line is one line of the input.
type Line struct {
	Number     int    // 1-based line number
	Offset     int64  // byte offset of the line's first byte
	Size       int64  // bytes the line takes in the input, newline included
	Bytes      []byte // the line without its newline; valid until the next Read
	Terminated bool   // the line ended in a newline
	TooLong    bool   // over the limit: Bytes is nil, the bytes were discarded
}

// LineReader reads an input line by line, counting lines and bytes from a
// starting position (for a resumed read).
type LineReader struct {
	br      *bufio.Reader // nil after the end of the input: back in readers
	maxLine int
	buf     []byte
	line    int
	off     int64
}

// readers keeps the bufio readers of the LineReaders that reached the end
// of their input, for the next ones (an import reads thousands of files of
// a few KB: a new 256 KiB buffer for each was most of what it allocated).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readBufferBytes) }}

// NewLineReader returns a LineReader over r, whose first byte is byte
// startOffset of the file, just after line startLine. maxLine <= 0 means
// MaxLineBytes.
func NewLineReader(r io.Reader, startLine int, startOffset int64, maxLine int) *LineReader {
	if maxLine <= 0 {
		maxLine = MaxLineBytes
	}
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return &LineReader{br: br, maxLine: maxLine, line: startLine, off: startOffset}
}

// release gives the buffer back, for a LineReader no longer read.
func (lr *LineReader) release() {
	if lr.br != nil {
		lr.br.Reset(nil)
		readers.Put(lr.br)
		lr.br = nil
	}
}

// Read returns the next line, or io.EOF at the end of the input (a last line
// without a newline is returned first, Terminated false), and io.EOF again
// after that. Other errors are the underlying reader's.
func (lr *LineReader) Read() (Line, error) {
	if lr.br == nil {
		return Line{}, io.EOF
	}
	if cap(lr.buf) > keepBufferBytes {
		lr.buf = nil
	}
	lr.buf = lr.buf[:0]
	start := lr.off
	var size int64
	tooLong := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		size += int64(len(chunk))
		if err == nil && size == int64(len(chunk)) {
			// The whole line is in the bufio buffer: use it in place.
			lr.line++
			lr.off += size
			if len(chunk)-1 > lr.maxLine {
				return Line{Number: lr.line, Offset: start, Size: size, Terminated: true, TooLong: true}, nil
			}
			return Line{Number: lr.line, Offset: start, Size: size, Bytes: chunk[:len(chunk)-1], Terminated: true}, nil
		}
		content := size
		if err == nil {
			content--
		}
		if !tooLong && content > int64(lr.maxLine) {
			tooLong = true
			lr.buf = nil
		}
		if !tooLong {
			lr.buf = append(lr.buf, chunk...)
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil, io.EOF:
			if err == io.EOF && size == 0 {
				lr.release()
				return Line{}, io.EOF
			}
			lr.line++
			lr.off += size
			l := Line{Number: lr.line, Offset: start, Size: size, Terminated: err == nil, TooLong: tooLong}
			if !tooLong {
				l.Bytes = lr.buf
				if err == nil {
					l.Bytes = lr.buf[:len(lr.buf)-1]
				}
			}
			return l, nil
		default:
			return Line{}, err
		}
	}
}

// Span is where one JSON value lies in the bytes it was scanned in (a
// line, a document): bytes [Start, End).
type Span struct{ Start, End int }

// SyntaxError is invalid JSON at byte Pos of a line (the start of the value
// that does not parse); Column is the 1-based column where the parser
// stopped.
type SyntaxError struct {
	Pos    int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Split finds the JSON values of a line: the spans of the complete values,
// in order, and a *SyntaxError for a rest that is not valid JSON (nil when
// the line is only values and whitespace). Values need no separator
// between them (real files hold lines of two objects).
func Split(line []byte) ([]Span, *SyntaxError) {
	var spans []Span
	dec := json.NewDecoder(bytes.NewReader(line))
	pos := 0
	for {
		pos = SkipSpace(line, pos)
		if pos >= len(line) {
			return spans, nil
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			col := len(line) + 1
			if se, ok := err.(*json.SyntaxError); ok {
				col = int(se.Offset)
			}
			msg := err.Error()
			if err == io.ErrUnexpectedEOF {
				msg = "unexpected end of line"
			}
			return spans, &SyntaxError{Pos: pos, Column: col, Msg: msg}
		}
		end := int(dec.InputOffset())
		spans = append(spans, Span{Start: pos, End: end})
		pos = end
	}
}

// Kind names the kind of JSON value starting with byte c, for messages: "an
// object", "an array", "a string", "a boolean", "null", "a number".
func Kind(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}
