package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseEvent is one server-sent event: its "event:" name ("" when none) and
// its "data:" lines joined by "\n".
type sseEvent struct {
	Name string
	Data []byte
	Line int // line number of the event's first field, 1-based
}

// sseReader parses a text/event-stream body, the subset of the WHATWG
// "server-sent events" format providers use: lines end in "\n" or "\r\n";
// "field: value" with one optional space after the colon; "data" lines
// accumulate, "event" names the event, a blank line dispatches it; lines
// starting with ":" are comments (OpenRouter's ": OPENROUTER PROCESSING"
// keep-alives); "id" and "retry" are ignored. Lines are read whole, however
// long, one at a time: memory grows with the longest line, not the body.
type sseReader struct {
	r    *bufio.Reader
	line int
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the next event. At the end of the body it returns io.EOF;
// a final event whose last line ended with a newline but lacked the blank
// line is still dispatched. A last line cut off without its newline is
// dropped and reported as io.ErrUnexpectedEOF. Read errors are returned as is.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	hasData := false
	for {
		raw, err := s.r.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(raw) > 0 {
					return sseEvent{}, fmt.Errorf("line %d cut off without a newline: %w", s.line+1, io.ErrUnexpectedEOF)
				}
				if hasData || ev.Name != "" {
					ev.Data = data.Bytes()
					return ev, nil
				}
				return sseEvent{}, io.EOF
			}
			return sseEvent{}, err
		}
		s.line++
		line := bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			if hasData || ev.Name != "" {
				ev.Data = data.Bytes()
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(line, []byte(":"))
		if found {
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		if ev.Line == 0 {
			ev.Line = s.line
		}
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case "event":
			ev.Name = string(value)
		}
	}
}

// captureReader copies everything read through it, for Completion.Raw, and
// fails once more than limit bytes have come.
type captureReader struct {
	r     io.Reader
	buf   bytes.Buffer
	limit int
}

// maxResponseBytes bounds one response body.
const maxResponseBytes = 64 << 20

func (c *captureReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.buf.Write(p[:n])
	if c.buf.Len() > c.limit {
		return n, fmt.Errorf("response larger than %d bytes", c.limit)
	}
	return n, err
}
