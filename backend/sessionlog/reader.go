package sessionlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"rhizome/backend/session"
)

// FieldWarning words the error of decoding a line's known field for a
// warning: a type mismatch as 'field "x": JSON string where int64 is
// expected; left empty', any other error as it is.
func FieldWarning(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q: JSON %s where %s is expected; left empty", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

// MaxHeld bounds the entries a Format may hold back (see Emitter.Hold): past
// it the held entries are released as they are.
const MaxHeld = 4096

// Pos is where an object is in the input.
type Pos struct {
	Line   int   // 1-based line number
	Offset int64 // byte offset of the object's first byte
}

// Format decodes the objects of one session log format, keeping what it
// needs across lines in a state S. S must be a plain value: copying it
// (assignment) must give an independent copy, because the Reader keeps
// copies at the points an append import may resume from. It must marshal to
// JSON and back unchanged (the resumable state).
type Format[S any] interface {
	// Decode decodes one JSON object of the file (obj is exactly its bytes,
	// starting with '{'), updating st and emitting its entries (em.Emit) in
	// file order. It returns false, having changed nothing, when obj is not
	// exactly one valid JSON value (the Reader then splits the line).
	Decode(st *S, obj []byte, at Pos, em *Emitter) bool
	// HeaderReady reports whether st holds enough of the header (see
	// Reader.Header); lines are read until it does or HeaderScanLines.
	HeaderReady(st *S) bool
	// Header returns the header from what the first lines gave, or an error
	// matching session.ErrNoHeader when they do not make a session of this
	// format.
	Header(st *S, file string) (*session.Header, error)
	// Finish is called at the end of the input, to settle what is held.
	Finish(st *S, em *Emitter)
}

// HeaderScanLines is how many lines Header reads at most to fill in the
// header (the entries of those lines are queued, not lost).
const HeaderScanLines = 64

// Emitter receives a line's entries from a Format and lets it hold entries
// back until a later line settles them (the usage of a response that is
// spread over several lines, an event whose twin comes later).
type Emitter struct {
	r       emitterTarget
	entries []*session.Entry
	hold    bool // holding after this line
	release bool // release what is held (before this line's entries)
	notMine error
	seq     *int
}

type emitterTarget interface {
	malformed(at Pos, reason string)
	warn(at Pos, reason string)
	heldEntries() []*session.Entry
}

// Emit appends the next entry, in file order. Seq is set here.
func (em *Emitter) Emit(e *session.Entry) {
	e.Seq = *em.seq
	*em.seq++
	em.entries = append(em.entries, e)
}

// NextSeq returns the Seq the next Emit will give.
func (em *Emitter) NextSeq() int { return *em.seq }

// Hold holds the entries of this line, and of the lines after it, back
// until Release: they are still returned in file order, later.
func (em *Emitter) Hold() { em.hold = true }

// Release ends holding: the held entries, then this line's, may be
// returned. Hold after Release in the same line holds this line's entries
// again (a new hold starts with them).
func (em *Emitter) Release() { em.release, em.hold = true, false }

// Holding reports whether entries are being held (from an earlier line or
// by Hold in this one).
func (em *Emitter) Holding() bool { return em.hold }

// Held returns the entries held from earlier lines (to patch them), then
// those emitted so far in this line.
func (em *Emitter) Held() []*session.Entry {
	h := em.r.heldEntries()
	return append(h[:len(h):len(h)], em.entries...)
}

// Malformed reports the object as not an entry (it is skipped): the reason
// names the field.
func (em *Emitter) Malformed(at Pos, reason string) { em.r.malformed(at, reason) }

// Warn reports an entry kept with a field left empty.
func (em *Emitter) Warn(at Pos, reason string) { em.r.warn(at, reason) }

// NotThisFormat stops the read before the header: the file is not of this
// format (err should match session.ErrNoHeader and say what it is).
func (em *Emitter) NotThisFormat(err error) { em.notMine = err }

// Reader reads a session log of a Format as a stream of entries in file
// order, with the tolerance pisession.Reader has: concatenated objects on a
// line, malformed lines reported and skipped, a half-written last line left
// pending, blank lines, CRLF, a UTF-8 byte order mark, lines up to a limit.
// Its memory does not grow with the file: one line, the entries being
// returned or held (at most MaxHeld), the format's state, and at most
// session.MaxStoredProblems problems and warnings. A Reader is not safe for
// concurrent use.
type Reader[S any] struct {
	file   string
	format Format[S]
	lr     *LineReader

	st  S // state after the last line decoded
	pre S // state before the line being decoded

	hdr      *session.Header
	hdrErr   error
	scanning bool // inside Header: lines are decoded before the queue drains

	seq  int // entries emitted so far
	off  int64
	line int

	out  []outItem[S]
	oi   int
	held []*session.Entry

	// The commit point: every entry before it has been returned and none is
	// held. Its state is st when commitLive, else commitSt.
	commitOff  int64
	commitLine int
	commitSeq  int
	commitLive bool
	commitSt   S

	problems  []session.Problem
	warnings  []session.Problem
	nProblems int
	nWarnings int
	pending   *session.Problem
	done      bool
	err       error
	em        Emitter
}

// checkpoint is a commit point: a line end, the entries before it, and the
// state there (nil: the live state, valid because nothing is decoded
// before the checkpoint is reached).
type checkpoint[S any] struct {
	off  int64
	line int
	seq  int
	st   *S
}

type outItem[S any] struct {
	e  *session.Entry
	cp *checkpoint[S] // after returning e, the commit point moves here
}

// NewReader returns a Reader over r, a whole file from its first byte; file
// names it in problems and errors.
func NewReader[S any](r io.Reader, file string, f Format[S]) *Reader[S] {
	rd := &Reader[S]{file: file, format: f, lr: NewLineReader(r, 0, 0, 0), commitLive: true}
	rd.em.r = rd
	rd.em.seq = &rd.seq
	return rd
}

// NewReaderAt returns a Reader that resumes a read at a commit point (see
// Position): r must be positioned at byte offset of the file, after line
// lines and seq entries; hdr is the header the first read returned and st
// the format's state at that point.
func NewReaderAt[S any](r io.Reader, file string, f Format[S], hdr *session.Header, st S, offset int64, line, seq int) *Reader[S] {
	rd := NewReader(r, file, f)
	rd.lr.release()
	rd.lr = NewLineReader(r, line, offset, 0)
	h := *hdr
	rd.hdr = &h
	rd.st = st
	rd.seq, rd.off, rd.line = seq, offset, line
	rd.commitOff, rd.commitLine, rd.commitSeq = offset, line, seq
	return rd
}

// Release gives the read buffer back for other Readers, before the end of
// the input (at the end it goes back by itself): r must not be read after.
func (r *Reader[S]) Release() { r.lr.release() }

// SetMaxLineBytes changes the limit on one line (before the first read);
// n <= 0 restores MaxLineBytes.
func (r *Reader[S]) SetMaxLineBytes(n int) {
	if n <= 0 {
		n = MaxLineBytes
	}
	r.lr.maxLine = n
}

// Header reads the first lines (at most HeaderScanLines) until the format
// has its header and returns it, or the format's error (matching
// session.ErrNoHeader) when they do not make a session of it. A read
// error is returned wrapped with the file and line.
func (r *Reader[S]) Header() (*session.Header, error) {
	if r.hdr != nil || r.hdrErr != nil {
		return r.hdr, r.hdrErr
	}
	r.scanning = true
	for n := 0; !r.done && n < HeaderScanLines && !(n > 0 && r.format.HeaderReady(&r.st)); n++ {
		r.step()
	}
	r.scanning = false
	if r.hdrErr == nil {
		// A read error after lines that make a header: Next returns their
		// entries, then the error.
		if h, err := r.format.Header(&r.st, r.file); err == nil {
			r.hdr = h
		} else if r.err != nil && r.err != io.EOF {
			r.hdrErr = r.err
		} else {
			if r.pending != nil && r.seq == 0 {
				err = fmt.Errorf("%w (line %d is still being written)", err, r.pending.Line)
			}
			r.hdrErr = err
		}
	}
	return r.hdr, r.hdrErr
}

// Next returns the next entry in file order, and io.EOF after the last. It
// reads the header first and returns its error. Malformed lines do not stop
// it; a read error does.
func (r *Reader[S]) Next() (*session.Entry, error) {
	if _, err := r.Header(); err != nil {
		return nil, err
	}
	for {
		if r.oi < len(r.out) {
			it := r.out[r.oi]
			r.out[r.oi] = outItem[S]{}
			r.oi++
			if r.oi == len(r.out) {
				r.out, r.oi = r.out[:0], 0
			}
			if it.cp != nil {
				r.commit(it.cp)
			}
			return it.e, nil
		}
		if r.done {
			return nil, r.err
		}
		r.step()
	}
}

func (r *Reader[S]) commit(cp *checkpoint[S]) {
	r.commitOff, r.commitLine, r.commitSeq = cp.off, cp.line, cp.seq
	if cp.st == nil {
		r.commitLive = true
	} else {
		r.commitSt, r.commitLive = *cp.st, false
	}
}

// Malformed returns the lines or rests of lines reported and skipped so far
// (at most session.MaxStoredProblems; see MalformedCount).
func (r *Reader[S]) Malformed() []session.Problem { return r.problems }

// MalformedCount counts every malformed line or rest of a line so far.
func (r *Reader[S]) MalformedCount() int { return r.nProblems }

// Warnings returns entries kept with a field left empty (at most
// session.MaxStoredProblems; see WarningCount).
func (r *Reader[S]) Warnings() []session.Problem { return r.warnings }

// WarningCount counts every warning so far.
func (r *Reader[S]) WarningCount() int { return r.nWarnings }

// Pending returns the half-written last line, or nil (see
// pisession.Reader.Pending).
func (r *Reader[S]) Pending() *session.Problem { return r.pending }

// Consumed returns the bytes of the file up to the commit point: the end of
// the last complete line whose entries, and all before them, have been
// returned, none held. It never includes a pending line.
func (r *Reader[S]) Consumed() int64 { return r.commitOff }

// Lines returns the complete lines up to Consumed.
func (r *Reader[S]) Lines() int { return r.commitLine }

// Position returns the commit point: Consumed, Lines, the number of entries
// before it, and the format's state there. NewReaderAt resumes from it; the
// entries returned after it come again, with the same Seq, in their final
// form: a line partly returned, and entries that were still held when the
// input ended (a response whose usage, or an event whose twin, the file did
// not have yet). An append import replaces the entries from that Seq on.
func (r *Reader[S]) Position() (offset int64, line, seq int, st S) {
	if r.commitLive {
		return r.commitOff, r.commitLine, r.commitSeq, r.st
	}
	return r.commitOff, r.commitLine, r.commitSeq, r.commitSt
}

// Live returns the format's state after the last line decoded: what the
// reader has seen so far, including lines whose entries are still queued.
func (r *Reader[S]) Live() *S { return &r.st }

func (r *Reader[S]) malformed(at Pos, reason string) {
	if r.nProblems++; len(r.problems) < session.MaxStoredProblems {
		r.problems = append(r.problems, session.Problem{File: r.file, Line: at.Line, Offset: at.Offset, Reason: reason})
	}
}

func (r *Reader[S]) warn(at Pos, reason string) {
	if r.nWarnings++; len(r.warnings) < session.MaxStoredProblems {
		r.warnings = append(r.warnings, session.Problem{File: r.file, Line: at.Line, Offset: at.Offset, Reason: reason})
	}
}

func (r *Reader[S]) heldEntries() []*session.Entry { return r.held }

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// step reads and decodes one line, or finishes at the end of the input.
func (r *Reader[S]) step() {
	l, err := r.lr.Read()
	if err == io.EOF {
		r.finish()
		return
	}
	if err != nil {
		r.done = true
		r.err = fmt.Errorf("%s: line %d: read: %w", r.file, r.line+1, err)
		return
	}
	if !l.Terminated && (l.TooLong || !whole(l.Bytes)) {
		// The last line, with no newline, that does not parse: the
		// session is still being written.
		r.pending = &session.Problem{File: r.file, Line: l.Number, Offset: l.Offset,
			Reason: fmt.Sprintf("last line (%d bytes) has no newline and does not parse: the session is still being written", l.Size)}
		r.finish()
		return
	}
	if r.commitLive {
		r.commitSt, r.commitLive = r.st, false // the live state is about to change
	}
	r.pre = r.st
	em := &r.em
	em.entries = em.entries[:0]
	em.release = false
	before := r.seq
	if l.TooLong {
		r.malformed(Pos{l.Number, l.Offset}, fmt.Sprintf("line is %d bytes, over the %d-byte limit; skipped", l.Size-1, r.lr.maxLine))
	} else {
		r.decodeLine(l)
	}
	if em.notMine != nil && r.hdr == nil {
		r.hdrErr = em.notMine
		r.done, r.err = true, em.notMine
		return
	}
	r.off, r.line = l.Offset+l.Size, l.Number
	r.place(l, before)
	if !l.Terminated {
		r.finish()
	}
}

// whole reports whether an unterminated last line is complete JSON values.
func whole(b []byte) bool {
	_, bad := Split(b)
	return bad == nil
}

// place sends the line's entries on: to the output queue, or held.
func (r *Reader[S]) place(l Line, seqBefore int) {
	em := &r.em
	if em.release {
		r.flushHeld()
	}
	if em.hold {
		if len(r.held) == 0 {
			// A hold begins with this line: the commit point stays before it.
			st := r.pre
			r.addCheckpoint(&checkpoint[S]{off: l.Offset, line: l.Number - 1, seq: seqBefore, st: &st})
		}
		r.held = append(r.held, em.entries...)
		if len(r.held) > MaxHeld {
			em.hold = false
			r.flushHeld()
			r.addCheckpoint(&checkpoint[S]{off: r.off, line: r.line, seq: r.seq})
		}
		return
	}
	for _, e := range em.entries {
		r.out = append(r.out, outItem[S]{e: e})
	}
	r.addCheckpoint(&checkpoint[S]{off: r.off, line: r.line, seq: r.seq})
}

func (r *Reader[S]) flushHeld() {
	for _, e := range r.held {
		r.out = append(r.out, outItem[S]{e: e})
	}
	clear(r.held)
	r.held = r.held[:0]
}

// addCheckpoint moves the commit point to cp once the queued entries have
// been returned (at once when none is queued).
func (r *Reader[S]) addCheckpoint(cp *checkpoint[S]) {
	if cp.st == nil && r.scanning {
		st := r.st // lines are decoded before the queue drains: keep a copy
		cp.st = &st
	}
	if r.oi < len(r.out) {
		r.out[len(r.out)-1].cp = cp
		return
	}
	r.commit(cp)
}

// finish settles what the format holds at the end of the input.
func (r *Reader[S]) finish() {
	if r.done {
		return
	}
	r.done, r.err = true, io.EOF
	if r.hdr == nil && r.hdrErr == nil && r.seq == 0 && len(r.held) == 0 {
		return
	}
	if r.commitLive {
		r.commitSt, r.commitLive = r.st, false
	}
	em := &r.em
	em.entries = em.entries[:0]
	em.release = false
	// Entries still held are returned as they stand, but the commit point
	// stays where the hold began: the lines a live file appends next may
	// settle them (a response's usage, an echo's twin), so a resumed read
	// reads them again and returns them in their final form.
	settled := len(r.held) == 0
	r.format.Finish(&r.st, em)
	em.hold = false
	r.flushHeld()
	for _, e := range em.entries {
		r.out = append(r.out, outItem[S]{e: e})
	}
	if settled {
		r.addCheckpoint(&checkpoint[S]{off: r.off, line: r.line, seq: r.seq})
	}
}

// decodeLine decodes the objects of one line.
func (r *Reader[S]) decodeLine(l Line) {
	b := l.Bytes
	start := 0
	if l.Offset == 0 && bytes.HasPrefix(b, utf8BOM) {
		start = len(utf8BOM)
	}
	start = SkipSpace(b, start)
	if start >= len(b) {
		return // blank line
	}
	// The common case: the line is one object.
	end := len(b)
	for end > start && (b[end-1] == ' ' || b[end-1] == '\t' || b[end-1] == '\r') {
		end--
	}
	if b[start] == '{' && r.decode(b[start:end], Pos{l.Number, l.Offset + int64(start)}) {
		return
	}
	spans, bad := Split(b[start:])
	for _, sp := range spans {
		s, e := start+sp.Start, start+sp.End
		at := Pos{l.Number, l.Offset + int64(s)}
		if b[s] != '{' {
			r.malformed(at, fmt.Sprintf("JSON value is %s, not an object", Kind(b[s])))
			continue
		}
		if !r.decode(b[s:e], at) {
			r.malformed(at, "object could not be decoded") // Split validated it: not expected
		}
	}
	if bad != nil {
		what := "line"
		if len(spans) > 0 {
			what = "rest of the line"
		}
		r.malformed(Pos{l.Number, l.Offset + int64(start+bad.Pos)}, fmt.Sprintf("%s is not valid JSON: %s (column %d)", what, bad.Msg, start+bad.Column))
	}
}

func (r *Reader[S]) decode(obj []byte, at Pos) bool {
	if !r.format.Decode(&r.st, obj, at, &r.em) {
		return false
	}
	if !utf8.Valid(obj) {
		r.warn(at, "invalid UTF-8; replaced by U+FFFD in decoded strings (Raw keeps the bytes)")
	}
	return true
}

// ErrNotFormat builds a header error that matches session.ErrNoHeader
// (errors.Is): "<pkg>: <msg>".
func ErrNotFormat(pkg, msg string) error { return &noHeader{msg: pkg + ": " + msg} }

type noHeader struct{ msg string }

func (e *noHeader) Error() string        { return e.msg }
func (e *noHeader) Is(target error) bool { return target == session.ErrNoHeader }
