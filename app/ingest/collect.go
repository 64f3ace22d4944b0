package ingest

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"rhizome/store"
	"strings"
	"syscall"
	"time"

	"rhizome/backend/cline"
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

// Source is one file to import: made by Collect (files and folders on this
// machine), InMemory (a file's bytes) or FileAs (a file stored under another
// name), or Unreadable (one that cannot be read: its report says why).
type Source struct {
	path     string // as reported and stored: absolute for files on disk
	onDisk   bool   // a file on this machine (what is beside it can be read: a Claude Code session's tool-results/)
	computer string // hostname recorded in the nodes
	size     int64
	// mtime is the file's modification time when it was listed, at
	// listed (nanoseconds since 1970; 0 for a source not on disk).
	mtime, listed int64
	open          func() (sessionFile, error)
	err           error    // the file could not even be listed
	sniff         *sniffed // what its head told before the import (nil: not sniffed)
	// db: the source is a session of an agent's database (opencode.go),
	// its bytes the session's rows exported as a document.
	db *dbSession
	// trusted is the stored session the file's size and modification time
	// say it is, unchanged (trustStamps): it is not opened. Its row is
	// store.FileStamp.Session's (no header, resume state or metadata).
	trusted *store.Session
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// Path is the path of s as reported and stored.
func (s Source) Path() string { return s.path }

// InMemory is the file name, whose bytes are b (a file dropped on the
// window, a bundled sample): nothing beside it is read.
func InMemory(name string, b []byte) Source {
	return Source{path: name, size: int64(len(b)), open: func() (sessionFile, error) {
		return nopCloser{bytes.NewReader(b)}, nil
	}}
}

// FileAs is the file at path, of size bytes, reported and stored under
// name (a file sent to `rhizome serve`, spooled to disk): nothing beside it
// is read.
func FileAs(name, path string, size int64) Source {
	return Source{path: name, size: size, open: func() (sessionFile, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return f, nil
	}}
}

// Unreadable is the file at path that cannot be read for err: its import
// fails with err.
func Unreadable(path string, err error) Source { return Source{path: path, err: err} }

// fileSource is the file at p on this machine (host), of size bytes.
func fileSource(p, host string, size, mtime int64) Source {
	return Source{path: p, onDisk: true, computer: host, size: size, mtime: mtime, listed: time.Now().UnixNano(), open: func() (sessionFile, error) {
		f, err := OpenRegularFile(p)
		if err != nil {
			return nil, err
		}
		return f, nil
	}}
}

// OpenRegularFile opens path for reading only if it is a regular file (links
// followed). It opens without blocking and checks the file it got, so that a
// named pipe (whose open waits for a writer) or a device (/dev/zero never
// ends) is refused at once, even one put in place after the path was listed.
func OpenRegularFile(path string) (*os.File, error) {
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

// Collect lists the files to import: each file given, and every session
// file (IsSessionFile: *.jsonl, Cline's *.messages.json) below each folder
// given, in lexical order, each once; an OpenCode database, given or found
// below a folder (told by its content, among the *.db files), is listed as
// one source per session (opencode.go). Symbolic links
// are followed, to folders and to files (pi's ~/.pi/agent/sessions may be
// one); a file keeps the path it was found at. A folder reached again (a
// loop of links, two links to one folder) is walked once, and a file reached
// by two paths is imported once, by the first. What is not a regular file (a
// named pipe, a device, a socket, a broken link named *.jsonl) is listed as
// failed with the reason, never opened.
func Collect(paths []string, host string) []Source { return collect(paths, host, false) }

// CollectFound lists the sources of the files at paths as a walk finds
// them (a watcher's events): a folder and a session file as Collect does;
// a database (IsDatabaseName) only when it is an OpenCode database, or
// named as one (opencode*.db: reported when it is not); other files, and
// missing ones but session files, passed over.
func CollectFound(paths []string, host string) []Source { return collect(paths, host, true) }

// collect is Collect, or with found CollectFound.
func collect(paths []string, host string, found bool) []Source {
	c := &collector{host: host, seen: map[string]bool{}, walked: map[string]bool{}}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		info, err := os.Stat(abs)
		switch {
		case err != nil:
			if !found || IsSessionFile(abs) {
				c.add(abs, Source{path: abs, err: err})
			}
		case info.IsDir():
			c.walk(abs)
		case !found || IsSessionFile(abs):
			c.file(abs, "", info)
		case IsDatabaseName(abs) && info.Mode().IsRegular():
			c.foundDatabase(abs)
		}
	}
	return c.out
}

// collector gathers the sources of Collect.
type collector struct {
	host   string
	out    []Source
	seen   map[string]bool // files listed, by real path (links resolved)
	walked map[string]bool // folders walked, by real path
}

// add lists s unless the file at the real path real is listed already.
func (c *collector) add(real string, s Source) {
	if !c.seen[real] {
		c.seen[real] = true
		c.out = append(c.out, s)
	}
}

// file lists the file at path, as info (links followed) describes it;
// real is its real path when the caller knows it (a file that is no link in
// a walked folder), else "" (found by resolving the links).
func (c *collector) file(path, real string, info fs.FileInfo) {
	if real == "" {
		var err error
		if real, err = filepath.EvalSymlinks(path); err != nil {
			real = path
		}
	}
	if !info.Mode().IsRegular() {
		c.add(real, Source{path: path, err: fmt.Errorf("%s: %w", path, notRegular(info.Mode()))})
		return
	}
	if !IsSessionFile(path) && c.database(path, real, true) {
		return // an OpenCode database: its sessions (opencode.go)
	}
	c.add(real, fileSource(path, c.host, info.Size(), info.ModTime().UnixNano()))
}

// walk lists every session file below the folder dir (IsSessionFile: the
// *.jsonl files but Codex's session_index.jsonl and history.jsonl, read
// for titles or not at all, and Qwen Code's usage_record.jsonl), in
// lexical order, following links, each folder once.
func (c *collector) walk(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		c.add(dir, Source{path: dir, err: err})
		return
	}
	if c.walked[real] {
		return // a loop of links, or a folder seen through another link
	}
	c.walked[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		c.add(dir, Source{path: dir, err: err})
		return
	}
	for _, d := range entries {
		p := filepath.Join(dir, d.Name())
		session := IsSessionFile(p)
		db := !session && IsDatabaseName(p)
		if d.Type()&fs.ModeSymlink == 0 && !d.IsDir() && !session && !db {
			continue
		}
		info, err := os.Stat(p) // follows a link
		switch {
		case err != nil:
			if session {
				c.add(p, Source{path: p, err: err})
			}
		case info.IsDir():
			c.walk(p)
		case session:
			known := ""
			if d.Type()&fs.ModeSymlink == 0 {
				known = filepath.Join(real, d.Name()) // in the folder's real path: no link to resolve
			}
			c.file(p, known, info)
		case db && info.Mode().IsRegular():
			c.foundDatabase(p)
		}
	}
}

// IsSessionFile reports whether path names a session file (*.jsonl; a
// Codex session_index.jsonl or history.jsonl is not one, nor Qwen Code's
// ~/.qwen/usage_record.jsonl, a line of token counts per run; and the
// *.messages.json conversations of Cline CLI, whose format, like every
// file's, is told by content: the manifest and compaction beside them are
// read with them, not as sessions). What GitHub
// Copilot CLI keeps beside a session's events.jsonl (workspace.yaml,
// checkpoints/*.md, rewind-file-snapshots/*.json and backups/<sha256>,
// session.db, ~/.copilot/session-store.db) is no *.jsonl: no name needs
// passing over there, and the events.jsonl are told by content.
func IsSessionFile(p string) bool {
	base := filepath.Base(p)
	if strings.HasSuffix(strings.ToLower(base), cline.MessagesSuffix) {
		return true
	}
	return strings.EqualFold(filepath.Ext(base), ".jsonl") && base != "session_index.jsonl" && base != "history.jsonl" &&
		base != "usage_record.jsonl"
}

// SessionFileFor returns the session file whose reading the file at p
// changes: p itself for a session file (IsSessionFile), the Cline
// conversation beside a manifest or compaction file (a new title, a
// compaction), the database a write-ahead log belongs to and a database
// itself (DatabaseFor: which sessions changed, its change markers say), ok
// false for another file.
func SessionFileFor(p string) (string, bool) {
	if IsSessionFile(p) {
		return p, true
	}
	if db, ok := DatabaseFor(p); ok {
		return db, true
	}
	return cline.DocumentFor(p)
}
