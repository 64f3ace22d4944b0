package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The MCP SDK's stdio transport reads its input with one json.Decoder: a
// line that is not JSON, or not a JSON-RPC message, ends the session (the
// decoder cannot resynchronise). `rhizome mcp` reads its input line by line
// in front of it instead (frames): a bad line gets a JSON-RPC error reply
// (-32700 parse error, -32600 invalid request) naming the line, and the
// session goes on with the next line.

// maxLine bounds one input line, in bytes: a longer line is answered
// with a parse error and skipped, never held whole.
const maxLine = 16 << 20

// lockedWriter serialises writes: the SDK's replies and frames' error
// replies go to the same stdout, one message per Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close does nothing: closing the session does not close stdout.
func (l *lockedWriter) Close() error { return nil }

// frames is the server's input as the SDK reads it: only the lines that
// are one JSON-RPC message each, newline-terminated; the others are answered
// on out and dropped.
type frames struct {
	r       *bufio.Reader
	closer  io.Closer
	out     io.Writer
	line    int    // lines read
	pending []byte // a valid message not yet read by the SDK
	maxLine int
}

func newFrames(r io.ReadCloser, out io.Writer) *frames {
	return &frames{r: bufio.NewReaderSize(r, 64<<10), closer: r, out: out, maxLine: maxLine}
}

// Read gives the SDK the next valid message line.
func (f *frames) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, tooLong, err := f.readLine()
		if len(line) > 0 || tooLong {
			f.line++
			f.check(line, tooLong)
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// Close closes the input.
func (f *frames) Close() error { return f.closer.Close() }

// readLine reads one line without its newline; past maxLine bytes it drops
// the rest of the line and reports tooLong.
func (f *frames) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > f.maxLine {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return bytes.TrimRight(buf, "\r\n"), tooLong, err
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, nil
	}
}

// check passes a valid message on (pending) or answers a bad line.
func (f *frames) check(line []byte, tooLong bool) {
	trimmed := bytes.TrimSpace(line)
	switch {
	case tooLong:
		f.reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: line %d is longer than %d bytes", f.line, f.maxLine))
	case len(trimmed) == 0:
	case !json.Valid(trimmed):
		f.reply(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: line %d is not one JSON value", f.line))
	case trimmed[0] == '[':
		f.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: line %d is a batch; MCP 2025-06-18 has no JSON-RPC batches", f.line))
	default:
		if _, err := jsonrpc.DecodeMessage(trimmed); err != nil {
			var probe struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(trimmed, &probe)
			f.reply(probe.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: line %d: %v", f.line, err))
			return
		}
		f.pending = append(append(f.pending[:0], trimmed...), '\n')
	}
}

// reply writes a JSON-RPC error response with id (null when none could be
// read).
func (f *frames) reply(id json.RawMessage, code int64, message string) {
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || (id[0] >= '0' && id[0] <= '9')) {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil {
		return
	}
	_, _ = f.out.Write(append(b, '\n'))
}
