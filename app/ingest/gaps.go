package ingest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"sync"

	"rhizome/backend/session"
)

// Keeping every byte: the library holds each entry's object exactly as in
// the file (entries.raw); the gap scanner walks the file a second time,
// alongside the entries, checks that each object is the file's bytes at its
// offset, hashes everything (SHA-256, resumable) and hands the writer the
// bytes between objects that are not a plain line end: the pi header, blank
// and malformed lines, spaces, other line ends, a half-written last line.
// See store/migrations/0030_formats_archive.sql (session_gaps) for the rule
// that gives the file back (store.WriteSessionFile).

// maxGapRow bounds the bytes of one gap row: a longer stretch (a huge
// malformed line) is stored in several.
const maxGapRow = 1 << 20

// gapScanner walks a file from an offset, in step with its entries.
type gapScanner struct {
	r        *bufio.Reader
	pos      int64
	h        hash.Hash
	implicit bool // the last piece was a line end left out of the gaps
	emit     func(off int64, b []byte) error
	buf      []byte
	bufs     *gapBuffer // where r and buf came from (nil: released)
}

// newGapScanner returns a scanner of f from offset start, with the SHA-256
// state of the bytes before it (nil from the file's start) and whether the
// bytes just before start were a line end left out (implicit); emit gets
// the gaps to store, in order (b is only valid during the call).
func newGapScanner(f io.ReaderAt, start int64, hashState []byte, implicit bool, emit func(off int64, b []byte) error) (*gapScanner, error) {
	h := sha256.New()
	if len(hashState) > 0 {
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(hashState); err != nil {
			return nil, fmt.Errorf("the stored hash state: %w", err)
		}
	}
	bufs := gapBuffers.Get().(*gapBuffer)
	bufs.r.Reset(io.NewSectionReader(f, start, 1<<62))
	return &gapScanner{r: bufs.r, buf: bufs.buf, bufs: bufs, pos: start, h: h, implicit: implicit, emit: emit}, nil
}

// gapBuffer is a scanner's reader and the buffer it reads entries into.
type gapBuffer struct {
	r   *bufio.Reader
	buf []byte
}

// gapBuffers keeps the buffers of the scanners released, for the next
// files (new ones for each file of a few KB were a large part of what an
// import allocated).
var gapBuffers = sync.Pool{New: func() any {
	return &gapBuffer{r: bufio.NewReaderSize(nil, gapWindow), buf: make([]byte, gapEntryChunk)}
}}

// release gives the scanner's buffers back: g is not used after it.
func (g *gapScanner) release() {
	if g.bufs != nil {
		g.bufs.r.Reset(nil)
		gapBuffers.Put(g.bufs)
		g.bufs, g.r, g.buf = nil, nil, nil
	}
}

// entry walks over the gap before e and e's object, which must be the
// file's bytes at e.Offset.
func (g *gapScanner) entry(e *session.Entry) error {
	if e.Offset < g.pos {
		return fmt.Errorf("line %d: entry at byte %d overlaps the bytes before %d: %w", e.Line, e.Offset, g.pos, errBytesDiffer)
	}
	if err := g.walkTo(e.Offset); err != nil {
		return err
	}
	raw := e.Raw
	for len(raw) > 0 {
		n := min(len(raw), gapEntryChunk)
		if cap(g.buf) < n {
			g.buf = make([]byte, n)
		}
		b := g.buf[:n]
		if _, err := io.ReadFull(g.r, b); err != nil {
			return fmt.Errorf("line %d: read the entry at byte %d again: %w", e.Line, e.Offset, err)
		}
		if !bytes.Equal(b, raw[:n]) {
			return fmt.Errorf("line %d (byte %d): %w", e.Line, e.Offset, errBytesDiffer)
		}
		g.h.Write(b)
		raw = raw[n:]
		g.pos += int64(n)
	}
	g.implicit = false
	return nil
}

// walkTo walks the gap up to offset to, in stretches cut after each
// newline: a stretch that is "\n" or "\r\n" right after an object or a
// stored stretch is left implicit, every other one is emitted (in rows of
// at most the reader's buffer).
func (g *gapScanner) walkTo(to int64) error {
	for g.pos < to {
		b, err := g.r.Peek(int(min(to-g.pos, gapWindow)))
		if len(b) == 0 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("read the bytes at %d again: %w", g.pos, err)
		}
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		g.h.Write(line)
		if !g.implicit && (len(line) == 1 && line[0] == '\n' || len(line) == 2 && line[0] == '\r' && line[1] == '\n') {
			g.implicit = true
		} else {
			if err := g.emit(g.pos, line); err != nil {
				return err
			}
			g.implicit = false
		}
		g.pos += int64(len(line))
		g.r.Discard(len(line))
	}
	return nil
}

// gapWindow is the scanner's buffer: the longest gap row.
const gapWindow = 256 << 10

// gapEntryChunk is how much of an entry's bytes the scanner reads and
// compares at once.
const gapEntryChunk = 64 << 10

// hashState returns the SHA-256 state after the bytes walked.
func (g *gapScanner) hashState() []byte {
	b, _ := g.h.(encoding.BinaryMarshaler).MarshalBinary()
	return b
}

// sum returns the hex SHA-256 of the bytes walked (from the file's start).
func (g *gapScanner) sum() string { return hex.EncodeToString(g.h.Sum(nil)) }

// byteKeeper is what a stream keeps of a file's bytes as it reads: the gaps
// between entries of a line format (gapScanner), nothing for a document
// kept whole (docScanner).
type byteKeeper interface {
	// entry walks over the bytes before e and e's own.
	entry(e *session.Entry) error
	// walkTo walks the bytes up to offset to.
	walkTo(to int64) error
	// hashState is the SHA-256 state after the bytes walked (nil: none).
	hashState() []byte
	// sumHex is the hex SHA-256 of the bytes walked.
	sumHex() string
	// implicitEnd: the last bytes walked are a line end left out of the
	// gaps.
	implicitEnd() bool
	release()
}

func (g *gapScanner) sumHex() string    { return g.sum() }
func (g *gapScanner) implicitEnd() bool { return g.implicit }

// Probing: whether a grown file still starts with the bytes imported
// before, without hashing them all (a 155 MB session appended to every
// second). fileProbe hashes the whole prefix up to probeWhole bytes; past
// that, its first and last probeEdge bytes and probeSamples blocks of
// probeBlock bytes spread evenly between them, with the prefix's length. A
// rewrite that keeps those bytes and the length (an edit inside a long
// session that changes no sampled byte, while the file also grows) is
// taken for an append: the library then keeps the bytes it imported.
const (
	probeWhole   = 1 << 20
	probeEdge    = 64 << 10
	probeSamples = 32
	probeBlock   = 4 << 10
)

// probeBuffers are fileProbe's read buffers (io.Copy allocated one per
// read).
var probeBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// fileProbe is the probe (hex) of the first n bytes of f.
func fileProbe(f io.ReaderAt, n int64) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "rhizome-probe %d\n", n)
	buf := probeBuffers.Get().(*[]byte)
	defer probeBuffers.Put(buf)
	read := func(off, size int64) error {
		got, err := io.CopyBuffer(h, io.NewSectionReader(f, off, size), *buf)
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if got != size {
			return fmt.Errorf("read: file shorter than %d bytes", off+size)
		}
		return nil
	}
	if n <= probeWhole {
		if err := read(0, n); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if err := read(0, probeEdge); err != nil {
		return "", err
	}
	span := n - 2*probeEdge - probeBlock
	for i := int64(1); i <= probeSamples; i++ {
		if err := read(probeEdge+span*i/(probeSamples+1), probeBlock); err != nil {
			return "", err
		}
	}
	if err := read(n-probeEdge, probeEdge); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
