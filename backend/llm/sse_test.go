package llm

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    []string // "name|data|line" per event
		wantErr error    // after the events; nil means io.EOF
	}{
		{"data lines", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`|{"a":1}|1`, "|[DONE]|3"}, nil},
		{"named events", "event: ping\ndata: {\"type\": \"ping\"}\n\n", []string{`ping|{"type": "ping"}|1`}, nil},
		{"CRLF and no space", "data:x\r\n\r\ndata:  two spaces\r\n\r\n", []string{"|x|1", "| two spaces|3"}, nil},
		{"comments and blank runs", ": OPENROUTER PROCESSING\n\n\n\n: keep-alive\ndata: y\n\n", []string{"|y|6"}, nil},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"|a\nb|1"}, nil},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: z\n\n", []string{"|z|1"}, nil},
		{"empty data field", "data\n\n", []string{"||1"}, nil},
		{"last event without blank line", "data: a\n\ndata: b\n", []string{"|a|1", "|b|3"}, nil},
		{"last line cut off", "data: a\n\ndata: {\"par", []string{"|a|1"}, io.ErrUnexpectedEOF},
		{"empty body", "", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tc.in))
			var got []string
			var err error
			for {
				var ev sseEvent
				ev, err = r.next()
				if err != nil {
					break
				}
				got = append(got, fmt.Sprintf("%s|%s|%d", ev.Name, ev.Data, ev.Line))
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("events %q, want %q", got, tc.want)
			}
			want := tc.wantErr
			if want == nil {
				want = io.EOF
			}
			if !errors.Is(err, want) {
				t.Errorf("ended with %v, want %v", err, want)
			}
		})
	}
}

// A line far longer than the read buffer is read whole.
func TestSSEReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	r := newSSEReader(strings.NewReader("data: " + long + "\n\n"))
	ev, err := r.next()
	if err != nil || string(ev.Data) != long {
		t.Fatalf("got %d bytes, %v", len(ev.Data), err)
	}
}

func TestCaptureReaderLimit(t *testing.T) {
	c := &captureReader{r: strings.NewReader(strings.Repeat("y", 100)), limit: 10}
	_, err := io.ReadAll(c)
	if err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("error %v, want the size limit", err)
	}
}
