package ingest

import (
	"sync"
	"time"
)

// Progress: how far an import is, sent to Hooks.Progress (the window's
// "import:progress" events).

// Progress is how far an import is. Bytes are file bytes, over all files;
// FileIndex is 0-based; Entries counts the entries read so far in the file;
// Phase is "reading", "writing" or "done"; Committed counts the files
// whose sessions were imported or appended to and committed so far: the
// library shows them (the window reads it again as it grows).
type Progress struct {
	File       string
	FileIndex  int
	FileCount  int
	BytesDone  int64
	BytesTotal int64
	Entries    int
	Phase      string
	Committed  int
}

// progress sends Progress to emit (when not nil) as the reader goes, so that they
// only move forward: at each file's start and while it is read ("reading",
// one per 256 KB or 100 ms, whichever comes first), when it is read and goes
// to the writer ("writing"), and once at the end ("done"). Bytes count what
// the reader has read, over all files.
type progress struct {
	emit       func(Progress)
	fileCount  int
	bytesTotal int64

	mu        sync.Mutex
	bytesRead int64 // files read completely
	index     int   // the file being read
	file      string
	lastBytes int64
	lastTime  time.Time
	sent      Progress // the last one sent
	committed int
}

const (
	progressBytes    = 256 << 10
	progressInterval = 100 * time.Millisecond
)

func (p *progress) startFile(index int, src Source) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.index, p.file, p.lastBytes = index, src.path, 0
	p.send(index, src.path, p.bytesRead, 0, "reading")
}

func (p *progress) reading(fileBytes int64, entries int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fileBytes-p.lastBytes < progressBytes && time.Since(p.lastTime) < progressInterval {
		return
	}
	p.lastBytes = fileBytes
	p.send(p.index, p.file, p.bytesRead+fileBytes, entries, "reading")
}

func (p *progress) readFile(index int, src Source) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytesRead += src.size
	if index < p.index { // the reader is already on a later file: keep the bar moving forward
		index, src.path = p.index, p.file
	}
	p.send(index, src.path, p.bytesRead, 0, "writing")
}

// wrote counts n more files committed with new content (the writer's,
// after a batch's commit) and says so at once.
func (p *progress) wrote(n int) {
	if n == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.committed += n
	if p.sent.Phase != "" {
		p.send(p.sent.FileIndex, p.sent.File, p.sent.BytesDone, p.sent.Entries, p.sent.Phase)
	}
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fileCount > 0 {
		p.send(p.fileCount-1, p.file, p.bytesTotal, 0, "done")
	}
}

func (p *progress) send(index int, file string, done int64, entries int, phase string) {
	p.lastTime = time.Now()
	p.sent = Progress{
		File: file, FileIndex: index, FileCount: p.fileCount,
		BytesDone: min(done, p.bytesTotal), BytesTotal: p.bytesTotal,
		Entries: entries, Phase: phase, Committed: p.committed,
	}
	if p.emit != nil {
		p.emit(p.sent)
	}
}
