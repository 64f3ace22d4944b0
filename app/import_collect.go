package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"rhizome/backend/claudecode"
	"rhizome/backend/sessionformat"
)

// Collecting: what an import reads. Paths become sources (every *.jsonl
// below a folder, links followed, each file once); what is not a regular
// file (a named pipe, a device) is refused before it is opened.

// sessionFile is an open session file: read as a stream, and at offsets to
// hash a prefix.
type sessionFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// source is one file to import.
type source struct {
	path     string // as reported and stored: absolute for files on disk
	onDisk   bool   // a file on this machine (what is beside it can be read: a Claude Code session's tool-results/)
	computer string // hostname recorded in the nodes
	size     int64
	open     func() (sessionFile, error)
	err      error    // the file could not even be listed
	sniff    *sniffed // what its head told before the import (nil: not sniffed)
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func memorySource(name string, b []byte) source {
	return source{path: name, size: int64(len(b)), open: func() (sessionFile, error) {
		return nopCloser{bytes.NewReader(b)}, nil
	}}
}

func fileSource(p, host string, size int64) source {
	return source{path: p, onDisk: true, computer: host, size: size, open: func() (sessionFile, error) {
		f, err := openRegularFile(p)
		if err != nil {
			return nil, err
		}
		return f, nil
	}}
}

// openRegularFile opens path for reading only if it is a regular file (links
// followed). It opens without blocking and checks the file it got, so that a
// named pipe (whose open waits for a writer) or a device (/dev/zero never
// ends) is refused at once, even one put in place after the path was listed.
func openRegularFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(info.Mode())
	}
	return f, nil
}

// notRegular is the error for a file of mode mode that is not a regular
// file: it says what it is (the caller names the path).
func notRegular(mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode.IsDir():
		what = "a folder, not a file"
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a file"
	case mode&fs.ModeDevice != 0 || mode&fs.ModeCharDevice != 0:
		what = "a device, not a file"
	case mode&fs.ModeSocket != 0:
		what = "a socket, not a file"
	}
	return fmt.Errorf("%s: refused", what)
}

// collectPaths lists the files to import: each file given, and every *.jsonl
// file below each folder given, in lexical order, each once. Symbolic links
// are followed, to folders and to files (pi's ~/.pi/agent/sessions may be
// one); a file keeps the path it was found at. A folder reached again (a
// loop of links, two links to one folder) is walked once, and a file reached
// by two paths is imported once, by the first. What is not a regular file (a
// named pipe, a device, a socket, a broken link named *.jsonl) is listed as
// failed with the reason, never opened.
func collectPaths(paths []string, host string) []source {
	c := &collector{host: host, seen: map[string]bool{}, walked: map[string]bool{}}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		info, err := os.Stat(abs)
		switch {
		case err != nil:
			c.add(abs, source{path: abs, err: err})
		case info.IsDir():
			c.walk(abs)
		default:
			c.file(abs, info)
		}
	}
	return c.out
}

// collector gathers the sources of collectPaths.
type collector struct {
	host   string
	out    []source
	seen   map[string]bool // files listed, by real path (links resolved)
	walked map[string]bool // folders walked, by real path
}

// add lists s unless the file at the real path real is listed already.
func (c *collector) add(real string, s source) {
	if !c.seen[real] {
		c.seen[real] = true
		c.out = append(c.out, s)
	}
}

// file lists the file at path, as info (links followed) describes it.
func (c *collector) file(path string, info fs.FileInfo) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	if !info.Mode().IsRegular() {
		c.add(real, source{path: path, err: fmt.Errorf("%s: %w", path, notRegular(info.Mode()))})
		return
	}
	c.add(real, fileSource(path, c.host, info.Size()))
}

// walk lists every session file below the folder dir (isSessionFile: the
// *.jsonl files but Codex's session_index.jsonl and history.jsonl, read
// for titles or not at all), in lexical order, following links, each folder
// once.
func (c *collector) walk(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		c.add(dir, source{path: dir, err: err})
		return
	}
	if c.walked[real] {
		return // a loop of links, or a folder seen through another link
	}
	c.walked[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.add(dir, source{path: dir, err: err})
		return
	}
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		session := isSessionFile(p)
		if d.Type()&fs.ModeSymlink == 0 && !d.IsDir() && !session {
			continue
		}
		info, err := os.Stat(p) // follows a link
		switch {
		case err != nil:
			if session {
				c.add(p, source{path: p, err: err})
			}
		case info.IsDir():
			c.walk(p)
		case session:
			c.file(p, info)
		}
	}
}

// Sniffing: before the import, the head of every source is read once
// (sniffSources) for what the import needs of it before reading: whether
// it is a MemoBrain file (takeReasoning), when a Claude Code session began
// (orderSources), and its format (job.open). The sources are sniffed by a
// few goroutines at once: nothing else runs before the first file is read.

// sniffed is what the head of a source told.
type sniffed struct {
	reasoning   reasoningFile // a MemoBrain file (isReasoning)
	isReasoning bool
	claudeStart string // the header time of a Claude Code session (isClaude)
	isClaude    bool
	// detected: format and formatErr are detectFormat's answer.
	detected  bool
	format    string
	formatErr error
}

// sniffWorkers is how many sources are sniffed at once.
const sniffWorkers = 4

// sniffSources sniffs every source of srcs (see sniffed), looking for
// MemoBrain files until ctx is cancelled.
func sniffSources(ctx context.Context, srcs []source) []sniffed {
	out := make([]sniffed, len(srcs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(sniffWorkers, len(srcs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(srcs) {
					return
				}
				out[i] = sniffSource(srcs[i], ctx.Err() == nil)
			}
		}()
	}
	wg.Wait()
	return out
}

// headBuffers are sniffSource's buffers for the heads (nothing keeps a
// head: what is kept of it is copied).
var headBuffers = sync.Pool{New: func() any { b := make([]byte, sessionformat.HeadBytes); return &b }}

// sniffSource opens s once and reads its head: for a MemoBrain file (when
// reasoning), sniffReasoning's answer; else claudeStart's and
// detectFormat's.
func sniffSource(s source, reasoning bool) sniffed {
	var out sniffed
	if s.err != nil || s.open == nil {
		return out
	}
	f, err := s.open()
	if err != nil {
		return out // the session import reports it
	}
	defer f.Close()
	buf := headBuffers.Get().(*[]byte)
	defer headBuffers.Put(buf)
	n, _ := io.ReadFull(f, *buf)
	head := (*buf)[:n]
	format, why := sessionformat.Detect(head)
	if reasoning {
		if out.reasoning, out.isReasoning = sniffReasoning(s, f, head, format, why); out.isReasoning {
			return out
		}
	}
	if claudeHead(head, min(s.size, 4<<10), format) {
		rd := claudecode.NewReader(io.NewSectionReader(f, 0, s.size), s.path)
		if h, err := rd.Header(); err == nil {
			out.claudeStart, out.isClaude = h.Timestamp, true
		}
		rd.Release()
	}
	if want := min(s.size, sessionformat.HeadBytes); int64(len(head)) >= want {
		// detectFormat's head is the first min(size, HeadBytes) bytes.
		if int64(len(head)) == want {
			out.format, out.formatErr = detectFormatHead(f, s.size, head, format, why)
		} else {
			out.format, out.formatErr = detectFormatHead(f, s.size, head[:want], "", "")
		}
		out.detected = true
	}
	return out
}

// claudeHead reports whether sessionformat.Detect names the first n bytes
// of a file Claude Code (claudeStart's test: n is 4 KiB, or the file's
// size when smaller), from head, the file's first bytes, whose format is
// format. The first line decides when it ends within the n bytes; a first
// line that does not end there is a Claude Code line only if those bytes
// are one whole object.
func claudeHead(head []byte, n int64, format string) bool {
	if int64(len(head)) <= n {
		return format == sessionformat.ClaudeCode
	}
	h := head[:n]
	b := bytes.TrimLeft(bytes.TrimPrefix(h, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	switch {
	case len(b) == 0 || b[0] != '{':
		return false
	case bytes.IndexByte(b, '\n') > 0:
		return format == sessionformat.ClaudeCode
	}
	if t := bytes.TrimRight(b, " \t\r\n"); t[len(t)-1] != '}' {
		return false // not a whole object: Detect cannot name it Claude Code
	}
	f, _ := sessionformat.Detect(h)
	return f == sessionformat.ClaudeCode
}
