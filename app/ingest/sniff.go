package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"rhizome/backend/claudecode"
	"rhizome/backend/memobrain"
	"rhizome/backend/sessionformat"
)

// Sniffing: before the import, the head of every source is read once
// (sniffSources) for what the import needs of it before reading: whether
// it is a MemoBrain file (takeReasoning), when a Claude Code session began
// (orderSources), and its format (job.open). The sources are sniffed by a
// few goroutines at once: nothing else runs before the first file is read.

// sniffed is what the head of a source told.
type sniffed struct {
	reasoning   ReasoningFile // a MemoBrain file (isReasoning)
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
func sniffSources(ctx context.Context, srcs []Source) []sniffed {
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
func sniffSource(s Source, reasoning bool) sniffed {
	var out sniffed
	if s.err != nil || s.open == nil {
		return out
	}
	if s.trusted != nil {
		return out // unchanged: not read (trustStamps)
	}
	if s.db != nil {
		// A database's session: told by the database; its export waits
		// for the import to decide it is needed (prepareDatabaseSession).
		return sniffed{detected: true, format: formatOpenCode}
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

// MaxReasoningFileBytes is the largest MemoBrain file an import reads: the
// whole file is read into memory (a snapshot of 10,000 nodes is a few MB).
const MaxReasoningFileBytes = 256 << 20

// ReasoningFile is a MemoBrain file among an import's sources, left to the
// caller to import (Report.Reasoning).
type ReasoningFile struct {
	Path string // as given
	Data []byte // the whole file
	// Conversation: a JSON list of messages (else a snapshot).
	Conversation bool
	Err          error // reading it failed
}

// takeReasoning reads the head of each source once (sniffSources) and
// takes out the MemoBrain snapshots (sessionformat.Detect, or for a JSON
// document it cannot place from the first 64 KB, such as a run result whose
// conversation comes before "memory", memobrain.LooksLikeSnapshot over the
// whole file) and conversations (a JSON list of {role, content} messages).
// The other sources are returned in order, with what their heads told
// (Source.sniff).
func takeReasoning(ctx context.Context, srcs []Source) (rest []Source, files []ReasoningFile) {
	sniffs := sniffSources(ctx, srcs)
	for i, s := range srcs {
		if sn := &sniffs[i]; sn.isReasoning {
			files = append(files, sn.reasoning)
			continue
		} else if s.err == nil {
			s.sniff = sn
		}
		rest = append(rest, s)
	}
	return rest, files
}

// sniffReasoning tells from the head of source s (its first bytes, head,
// which sessionformat.Detect names format for why; f is the file, open and
// read past them) whether it is a MemoBrain file, and if so reads it whole.
func sniffReasoning(s Source, f io.Reader, head []byte, format, why string) (ReasoningFile, bool) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	var candidate, conversation bool
	switch {
	case format == sessionformat.MemoBrain:
		candidate = true
	case format != sessionformat.Unknown || len(trimmed) == 0:
		return ReasoningFile{}, false
	case trimmed[0] == '[':
		candidate, conversation = true, true
	case trimmed[0] == '{' && strings.HasPrefix(why, "JSON document"):
		candidate = true // a document longer than the head: look at all of it
	}
	if !candidate {
		return ReasoningFile{}, false
	}
	if s.size > MaxReasoningFileBytes {
		if format == sessionformat.MemoBrain {
			return ReasoningFile{Path: s.path, Err: fmt.Errorf("a MemoBrain snapshot of %d MB: the largest Rhizome reads is %d MB", s.size>>20, MaxReasoningFileBytes>>20)}, true
		}
		return ReasoningFile{}, false
	}
	var buf bytes.Buffer
	buf.Write(head)
	if _, err := io.Copy(&buf, io.LimitReader(f, MaxReasoningFileBytes+1-int64(len(head)))); err != nil {
		if format == sessionformat.MemoBrain {
			return ReasoningFile{Path: s.path, Err: err}, true
		}
		return ReasoningFile{}, false
	}
	data := buf.Bytes()
	switch {
	case format == sessionformat.MemoBrain:
		return ReasoningFile{Path: s.path, Data: data}, true
	case conversation:
		if msgs, err := memobrain.ReadMessages(data); err == nil && len(msgs) > 0 && bytes.HasPrefix(bytes.TrimSpace(trimBOM(data)), []byte("[")) {
			return ReasoningFile{Path: s.path, Data: data, Conversation: true}, true
		}
	case memobrain.LooksLikeSnapshot(data):
		return ReasoningFile{Path: s.path, Data: data}, true
	}
	return ReasoningFile{}, false
}

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF}) }
