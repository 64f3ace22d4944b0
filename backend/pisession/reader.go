// Package pisession reads pi coding-agent session files (JSON Lines, format
// versions 1 to 3) as a stream of entries of the format-neutral model
// (backend/session), migrated to version 3 meaning.
//
// See ../shared/specs/ERRATA.md, "The pi session format (what real files contain)".
package pisession

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"rhizome/backend/session"

	"rhizome/backend/sessionlog"
)

// CurrentVersion is the newest session format version this package reads.
const CurrentVersion = 3

// MaxLineBytes is the default limit on one line of a session file, in bytes
// (newline excluded): 64 MiB. A longer line is reported as malformed and
// skipped: no more than the limit of it is ever held in memory, the rest is
// discarded as it is read. See Reader.SetMaxLineBytes.
const MaxLineBytes = 64 << 20

const (
	readBufferBytes = 256 << 10 // bufio buffer: lines up to this size are never copied
	keepBufferBytes = 4 << 20   // a long-line buffer larger than this is released after use
)

// headerError is a missing or unusable header; errors.Is(err, ErrNoHeader).
type headerError struct{ msg string }

func (e *headerError) Error() string        { return e.msg }
func (e *headerError) Is(target error) bool { return target == session.ErrNoHeader }

// noHeader formats a headerError: "pisession: " + format.
func noHeader(format string, args ...any) error {
	return &headerError{msg: "pisession: " + fmt.Sprintf(format, args...)}
}

// Reader reads a pi session file as a stream of entries in file order. Its
// memory does not grow with the file: it holds one line (at most the line
// limit), the entries of that line until they are returned, and at most
// MaxStoredProblems problems and warnings. Each object is parsed once, straight
// into its Entry. It is tolerant in the ways real files need (see ERRATA.md,
// "The pi session format"):
//
//   - a line may hold several JSON objects with no separator: each becomes an
//     entry with the same Line and its own Offset;
//   - a malformed line, or the malformed rest of a line after good objects, is
//     reported (Malformed) and skipped; every other entry still comes out;
//   - a last line with no newline that does not parse is the session still
//     being written: it is Pending, not malformed, and Consumed stops before it;
//   - blank lines and CRLF line endings are accepted; lines up to
//     MaxLineBytes are read, longer ones are reported and skipped.
//
// Entries come out with version 3 meaning (see Entry). A Reader is not safe
// for concurrent use.
type Reader struct {
	file    string
	br      *bufio.Reader
	maxLine int
	buf     []byte // accumulates lines longer than the bufio buffer

	p parser // reused for every line

	hdr    *session.Header
	hdrErr error
	v1, v2 bool   // file older than version 2 / 3: migrate
	prevID string // version 1: id of the previous entry

	off  int64 // input offset of the next unread byte
	line int   // lines read so far
	seq  int   // entries decoded so far

	// Entries of the current line not yet returned; consumed/lines advance
	// to off/line when the last of them is returned.
	queue    []*session.Entry
	qi       int
	consumed int64
	lines    int

	problems  []session.Problem
	warnings  []session.Problem
	nProblems int // all malformed, stored or not
	nWarnings int
	pending   *session.Problem
	done      bool
	err       error // io.EOF or a read error, returned once the queue is empty
}

// NewReader returns a Reader over r, a whole session file from its first
// byte. file names the file in problems and errors (a path or a base name).
func NewReader(r io.Reader, file string) *Reader {
	return &Reader{
		file:    file,
		br:      bufio.NewReaderSize(r, readBufferBytes),
		maxLine: MaxLineBytes,
	}
}

// NewReaderAt returns a Reader that resumes an earlier read for an append
// import: r must be positioned at byte startOffset of the file, where a
// previous Reader's Consumed() ended; hdr is the header that reader returned,
// startLine its Lines() and startSeq the number of entries it returned.
// Lines, offsets, Seq and version 1 synthetic ids continue from there and are
// identical to those of a full read.
//
// One limit: if the earlier read ended in a last line without a newline that
// parsed (so it was counted as complete) and the writer later appended to that
// same line, the appended objects get line startLine+1 where a full read says
// startLine. pi terminates every entry with a newline, so this only happens
// after a write was cut short.
func NewReaderAt(r io.Reader, file string, hdr session.Header, startLine int, startOffset int64, startSeq int) *Reader {
	rd := NewReader(r, file)
	h := hdr
	rd.setHeader(&h)
	rd.line, rd.lines = startLine, startLine
	rd.off, rd.consumed = startOffset, startOffset
	rd.seq = startSeq
	if rd.v1 && startSeq > 0 {
		rd.prevID = SyntheticID(h.ID, startSeq-1)
	}
	return rd
}

// SetMaxLineBytes changes the limit on one line, in bytes (newline excluded);
// n <= 0 restores MaxLineBytes. Call it before the first read.
func (r *Reader) SetMaxLineBytes(n int) {
	if n <= 0 {
		n = MaxLineBytes
	}
	r.maxLine = n
}

// Header reads and returns the session header, the first JSON object of the
// file (malformed lines before it are reported and skipped, as pi does).
// Version is 1 when the header has none.
//
// The error matches ErrNoHeader (errors.Is) and names the file and line when
// the file is empty, holds no JSON object, starts with an object that is not
// {"type":"session",...} (e.g. `pisession: x.jsonl: line 1: missing session
// header (first object has type "message")`), has a header without "id" or
// with a field of the wrong JSON type, or ends in a header still being
// written. A read error is returned wrapped, naming the file and line.
func (r *Reader) Header() (*session.Header, error) {
	for r.hdr == nil && r.hdrErr == nil {
		if r.done {
			r.hdrErr = r.noHeaderError()
			break
		}
		r.step()
	}
	if r.hdrErr != nil {
		return nil, r.hdrErr
	}
	return r.hdr, nil
}

func (r *Reader) noHeaderError() error {
	if r.err != nil && r.err != io.EOF {
		return r.err
	}
	switch {
	case r.pending != nil && r.nProblems == 0:
		return noHeader("%s: line %d: missing session header: it is still being written (last line incomplete)", r.file, r.pending.Line)
	case r.line == 0:
		return noHeader("%s: missing session header: empty file", r.file)
	default:
		return noHeader("%s: missing session header: no JSON object in %d lines (%d malformed)", r.file, r.line, r.nProblems)
	}
}

// Next returns the next entry in file order, and io.EOF after the last one.
// It reads the header first if Header has not been called, and returns its
// error. Malformed lines do not stop it (see Malformed); a read error does,
// and is returned wrapped with the file and line.
func (r *Reader) Next() (*session.Entry, error) {
	if _, err := r.Header(); err != nil {
		return nil, err
	}
	for {
		if r.qi < len(r.queue) {
			e := r.queue[r.qi]
			r.queue[r.qi] = nil
			r.qi++
			if r.qi == len(r.queue) {
				r.queue, r.qi = r.queue[:0], 0
				r.commit()
			}
			return e, nil
		}
		if r.done {
			return nil, r.err
		}
		r.step()
	}
}

// Malformed returns the lines, or rests of lines, reported and skipped so
// far, in file order: invalid JSON, a JSON value that is not an object, an
// object with no "type", a line over the length limit. Only the first
// MaxStoredProblems are kept (see MalformedCount).
func (r *Reader) Malformed() []session.Problem { return r.problems }

// MalformedCount returns the number of malformed lines or rests of lines so
// far, including those beyond MaxStoredProblems.
func (r *Reader) MalformedCount() int { return r.nProblems }

// Warnings returns the entries kept so far although part of them could not be
// decoded: a field of an unexpected JSON type (left empty), an unparseable
// timestamp (left zero), invalid UTF-8 (replaced by U+FFFD). Raw holds them
// intact. Only the first MaxStoredProblems are kept (see WarningCount).
func (r *Reader) Warnings() []session.Problem { return r.warnings }

// WarningCount returns the number of warnings so far, including those beyond
// MaxStoredProblems.
func (r *Reader) WarningCount() int { return r.nWarnings }

// Pending returns the half-written last line, or nil: set when the input ends
// in a line with no newline that does not parse (or is over the length
// limit). The session is still being written; this is neither an error nor
// malformed, and Consumed stops before that line.
func (r *Reader) Pending() *session.Problem { return r.pending }

// Consumed returns the number of bytes of the input (counted from the file's
// start, so including NewReaderAt's startOffset) up to the end of the last
// complete line whose entries have all been returned. It never includes a
// Pending line. An append import re-reads from this offset with NewReaderAt.
func (r *Reader) Consumed() int64 { return r.consumed }

// Lines returns the number of complete lines consumed (blank and malformed
// lines included), counted like Consumed.
func (r *Reader) Lines() int { return r.lines }

// commit advances Consumed and Lines to the end of the line last read.
func (r *Reader) commit() {
	r.consumed = r.off
	r.lines = r.line
}

func (r *Reader) malformed(line int, off int64, reason string) {
	if r.nProblems++; len(r.problems) < session.MaxStoredProblems {
		r.problems = append(r.problems, session.Problem{File: r.file, Line: line, Offset: off, Reason: reason})
	}
}

func (r *Reader) warn(line int, off int64, reason string) {
	if r.nWarnings++; len(r.warnings) < session.MaxStoredProblems {
		r.warnings = append(r.warnings, session.Problem{File: r.file, Line: line, Offset: off, Reason: reason})
	}
}

// step reads one line and decodes it into the queue, or sets done.
func (r *Reader) step() {
	start := r.off
	line, size, terminated, tooLong, err := r.readLine()
	if err != nil && err != io.EOF {
		r.done = true
		r.err = fmt.Errorf("pisession: %s: line %d: read: %w", r.file, r.line+1, err)
		return
	}
	if size == 0 { // clean end of input
		r.done = true
		r.err = io.EOF
		return
	}
	lineNo := r.line + 1

	if !terminated {
		// The last line, with no newline: keep it only if it parses
		// entirely; otherwise it is still being written.
		r.done = true
		r.err = io.EOF
		if !tooLong && r.tentative(line, lineNo, start) {
			r.line = lineNo
			r.off += size
			if len(r.queue) == 0 {
				r.commit()
			}
			return
		}
		r.pending = &session.Problem{File: r.file, Line: lineNo, Offset: start,
			Reason: fmt.Sprintf("last line (%d bytes) has no newline and does not parse: the session is still being written", size)}
		return
	}

	r.line = lineNo
	r.off += size
	if tooLong {
		r.malformed(lineNo, start, fmt.Sprintf("line is %d bytes, over the %d-byte limit; skipped", size-1, r.maxLine))
	} else {
		r.parseLine(line, lineNo, start)
	}
	if len(r.queue) == 0 {
		r.commit()
	}
}

// tentative decodes an unterminated last line, keeping its effects only if
// nothing in it is malformed.
func (r *Reader) tentative(line []byte, lineNo int, start int64) bool {
	hdr, v1, v2, prevID, seq := r.hdr, r.v1, r.v2, r.prevID, r.seq
	np, nw := r.nProblems, r.nWarnings
	sp, sw := len(r.problems), len(r.warnings)
	hadErr := r.hdrErr
	r.parseLine(line, lineNo, start)
	if r.nProblems == np {
		return true
	}
	r.hdr, r.v1, r.v2, r.prevID, r.seq = hdr, v1, v2, prevID, seq
	r.nProblems, r.nWarnings = np, nw
	r.problems, r.warnings = r.problems[:sp], r.warnings[:sw]
	r.hdrErr = hadErr
	for i := range r.queue {
		r.queue[i] = nil
	}
	r.queue, r.qi = r.queue[:0], 0
	return false
}

// readLine returns the next line without its newline, the number of input
// bytes it took (newline included), whether it ended in a newline, and
// whether it was over the limit (then line is nil and its bytes were
// discarded as they were read). size 0 with io.EOF is the end of input.
// line is only valid until the next call.
func (r *Reader) readLine() (line []byte, size int64, terminated, tooLong bool, err error) {
	if cap(r.buf) > keepBufferBytes {
		r.buf = nil
	}
	r.buf = r.buf[:0]
	for {
		chunk, e := r.br.ReadSlice('\n')
		size += int64(len(chunk))
		if e == nil && size == int64(len(chunk)) {
			// The whole line is in the bufio buffer: use it in place.
			if len(chunk)-1 > r.maxLine {
				return nil, size, true, true, nil
			}
			return chunk[:len(chunk)-1], size, true, false, nil
		}
		content := size
		if e == nil {
			content--
		}
		if !tooLong && content > int64(r.maxLine) {
			// Over the limit: drop what was kept, discard the rest.
			tooLong = true
			r.buf = nil
		}
		if !tooLong {
			r.grow(len(chunk))
			r.buf = append(r.buf, chunk...)
		}
		switch e {
		case bufio.ErrBufferFull:
			continue
		case nil:
			if tooLong {
				return nil, size, true, true, nil
			}
			return r.buf[:len(r.buf)-1], size, true, false, nil
		case io.EOF:
			if tooLong {
				return nil, size, false, true, io.EOF
			}
			return r.buf, size, false, false, io.EOF
		default:
			return nil, size, false, tooLong, e
		}
	}
}

// grow makes room for n more bytes in the line buffer, doubling it (never
// past the line limit) so that a long line costs about twice its size in
// allocations.
func (r *Reader) grow(n int) {
	need := len(r.buf) + n
	if need <= cap(r.buf) {
		return
	}
	c := max(2*cap(r.buf), need, readBufferBytes)
	if c > r.maxLine+1 {
		c = max(need, r.maxLine+1)
	}
	nb := make([]byte, len(r.buf), c)
	copy(nb, r.buf)
	r.buf = nb
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseLine decodes the objects of one line (newline excluded) starting at
// input offset start: the header if it is still to come, entries into the
// queue, problems for what cannot be used. Each object is parsed once; its end
// is where the next object, if any, begins.
func (r *Reader) parseLine(line []byte, lineNo int, start int64) {
	p := &r.p
	p.reset(line)
	if start == 0 && bytes.HasPrefix(line, utf8BOM) {
		p.pos = len(utf8BOM)
	}
	p.ws()
	first := p.pos
	for {
		p.ws()
		if p.pos >= len(line) {
			return
		}
		vstart := p.pos
		off := start + int64(vstart)
		if line[vstart] != '{' {
			if err := p.skipValue(); err != nil {
				r.syntaxProblem(lineNo, off, vstart > first, err)
				return
			}
			r.malformed(lineNo, off, fmt.Sprintf("JSON value is %s, not an object", sessionlog.Kind(line[vstart])))
			continue
		}
		p.warnings = p.warnings[:0]
		if r.hdr == nil {
			if r.hdrErr != nil {
				return // the file has no usable header: Next returns hdrErr
			}
			h := &session.Header{}
			hasVersion, err := p.header(h)
			if err != nil {
				r.syntaxProblem(lineNo, off, vstart > first, err)
				return
			}
			r.useHeader(h, hasVersion, line[vstart:p.pos], lineNo, off)
			continue
		}
		e := &session.Entry{}
		var x entryExtras
		if err := p.entry(e, &x); err != nil {
			r.syntaxProblem(lineNo, off, vstart > first, err)
			return
		}
		if e.Type == "" {
			r.malformed(lineNo, off, `JSON object has no "type" string; not a session entry`)
			continue
		}
		obj := line[vstart:p.pos]
		e.Seq, e.Line, e.Offset = r.seq, lineNo, off
		e.Raw = append(json.RawMessage(nil), obj...)
		if t, ok := parseTimestamp(x.timestamp); ok {
			e.Timestamp = t
		} else if x.timestamp != "" {
			r.warn(lineNo, off, fmt.Sprintf("field \"timestamp\": %q is not an ISO 8601 time; left zero", x.timestamp))
		}
		for _, w := range p.warnings {
			r.warn(lineNo, off, w)
		}
		if !utf8.Valid(obj) {
			r.warn(lineNo, off, "invalid UTF-8; replaced by U+FFFD in decoded strings (Raw keeps the bytes)")
		}
		r.migrate(e, &x)
		r.seq++
		r.queue = append(r.queue, e)
	}
}

// useHeader checks and records the first object of the file.
func (r *Reader) useHeader(h *session.Header, hasVersion bool, obj []byte, lineNo int, off int64) {
	switch {
	case len(r.p.warnings) > 0:
		r.hdrErr = noHeader("%s: line %d: session header: %s", r.file, lineNo, r.p.warnings[0])
		return
	case h.Type != "session":
		found := "no type"
		if h.Type != "" {
			found = fmt.Sprintf("type %q", h.Type)
		}
		r.hdrErr = noHeader("%s: line %d: missing session header (first object has %s)", r.file, lineNo, found)
		return
	case h.ID == "":
		r.hdrErr = noHeader("%s: line %d: session header has no \"id\" string", r.file, lineNo)
		return
	}
	if !hasVersion {
		h.Version = 1
	}
	h.Raw = append(json.RawMessage(nil), obj...)
	if !utf8.Valid(obj) {
		r.warn(lineNo, off, "invalid UTF-8 in the header; replaced by U+FFFD in decoded strings")
	}
	r.setHeader(h)
}

// syntaxProblem reports invalid JSON from input offset off to the end of the
// line; rest says good objects came before it on the line.
func (r *Reader) syntaxProblem(lineNo int, off int64, rest bool, err error) {
	what := "line"
	if rest {
		what = "rest of the line"
	}
	col := 0
	if se, ok := err.(*syntaxError); ok {
		col = se.pos + 1
	}
	r.malformed(lineNo, off, fmt.Sprintf("%s is not valid JSON: %v (column %d)", what, err, col))
}
