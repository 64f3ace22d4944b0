package pisession

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"testing"

	"rhizome/backend/session"
)

// readAll returns the entries of r to io.EOF.
func readAll(t testing.TB, r *Reader) []session.Entry {
	t.Helper()
	var es []session.Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, *e)
	}
}

// lineEnd returns the offset just after the newline ending 1-based line k.
func lineEnd(data []byte, k int) int {
	off := 0
	for range k {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return off
}

// TestResumeMatchesFullRead reads a prefix of each real session ending at a
// line boundary, then resumes with NewReaderAt from Consumed over the rest:
// together they must give exactly the entries of a full read (ids, parents,
// firstKeptEntryId, lines, offsets, seq).
func TestResumeMatchesFullRead(t *testing.T) {
	for _, rs := range realSessions {
		data, err := os.ReadFile(realPath(rs.name))
		if err != nil {
			t.Fatal(err)
		}
		full := readAll(t, NewReader(bytes.NewReader(data), rs.name))
		lines := bytes.Count(data, []byte("\n"))
		for _, k := range []int{1, 2, 3, 100, 439, 440, 441, 600, lines - 1, lines} {
			if k > lines {
				continue
			}
			cut := lineEnd(data, k)
			first := NewReader(bytes.NewReader(data[:cut]), rs.name)
			head := readAll(t, first)
			h, err := first.Header()
			if err != nil {
				t.Fatal(err)
			}
			if first.Consumed() != int64(cut) || first.Lines() != k || first.Pending() != nil {
				t.Fatalf("%s prefix of %d lines: Consumed %d Lines %d Pending %v", rs.name, k, first.Consumed(), first.Lines(), first.Pending())
			}
			rest := NewReaderAt(bytes.NewReader(data[cut:]), rs.name, *h, first.Lines(), first.Consumed(), len(head))
			tail := readAll(t, rest)
			got := append(head, tail...)
			if !reflect.DeepEqual(got, full) {
				t.Errorf("%s resumed after line %d: %d entries differ from the full read's %d", rs.name, k, len(got), len(full))
			}
			if rest.Consumed() != int64(len(data)) || rest.Lines() != lines {
				t.Errorf("%s resumed after line %d: Consumed %d Lines %d", rs.name, k, rest.Consumed(), rest.Lines())
			}
		}
	}
}

// TestResumeAfterPendingLine is the append import of a session being written:
// the first read stops before the half-written line, the second read, once
// the line is finished, starts at Consumed and picks it up.
func TestResumeAfterPendingLine(t *testing.T) {
	v1 := `{"type":"session","id":"s1","timestamp":"2025-11-01T00:00:00.000Z","cwd":"/w"}` + "\n"
	msg := func(text string) string {
		return `{"type":"message","timestamp":"2025-11-01T00:00:01.000Z","message":{"role":"user","content":"` + text + `"}}`
	}
	complete := v1 + msg("a") + "\n" + msg("b") + "\n" + msg("c") + "\n" + msg("d") + "\n"
	half := complete[:lineEnd([]byte(complete), 3)+20] // line 4 cut short

	first := NewReader(bytes.NewReader([]byte(half)), "s.jsonl")
	head := readAll(t, first)
	if len(head) != 2 || first.Pending() == nil || first.Pending().Line != 4 || first.Consumed() != int64(lineEnd([]byte(complete), 3)) {
		t.Fatalf("first read: %d entries, pending %v, consumed %d", len(head), first.Pending(), first.Consumed())
	}
	h, _ := first.Header()
	rest := NewReaderAt(bytes.NewReader([]byte(complete[first.Consumed():])), "s.jsonl", *h, first.Lines(), first.Consumed(), len(head))
	tail := readAll(t, rest)
	full := readAll(t, NewReader(bytes.NewReader([]byte(complete)), "s.jsonl"))
	if got := append(head, tail...); !reflect.DeepEqual(got, full) {
		t.Errorf("resumed entries differ from a full read:\n got %+v\nwant %+v", got, full)
	}
	if tail[0].ID != independentID("s1", 2) || tail[0].ParentID != independentID("s1", 1) {
		t.Errorf("resumed v1 entry: id %s parent %s", tail[0].ID, tail[0].ParentID)
	}
}
