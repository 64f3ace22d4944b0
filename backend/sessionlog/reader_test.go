package sessionlog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"rhizome/backend/session"
)

// holdFormat is a test format: {"t":"x"} lines are entries; {"t":"open"}
// holds from its entry on, {"t":"close"} settles the held "open" entry
// (Name "settled") and releases. Its state counts objects.
type holdFormat struct{}

type holdState struct {
	N       int  `json:"n"`
	Open    bool `json:"open"`
	OpenSeq int  `json:"openSeq"`
}

func (holdFormat) Decode(st *holdState, obj []byte, at Pos, em *Emitter) bool {
	var v struct {
		T string `json:"t"`
	}
	if json.Unmarshal(obj, &v) != nil {
		return false
	}
	st.N++
	e := &session.Entry{Type: v.T, ID: fmt.Sprintf("L%d:%d", at.Line, st.N), Line: at.Line, Offset: at.Offset, Raw: append(json.RawMessage(nil), obj...)}
	switch v.T {
	case "open":
		st.Open, st.OpenSeq = true, em.NextSeq()
		em.Emit(e)
		em.Hold()
		return true
	case "close":
		for _, h := range em.Held() {
			if h.Seq == st.OpenSeq {
				h.Name = "settled"
			}
		}
		st.Open = false
		em.Release()
	}
	em.Emit(e)
	return true
}
func (holdFormat) HeaderReady(st *holdState) bool { return st.N > 0 }
func (holdFormat) Header(st *holdState, file string) (*session.Header, error) {
	if st.N == 0 {
		return nil, ErrNotFormat("test", file+": empty")
	}
	return &session.Header{ID: "h"}, nil
}
func (holdFormat) Finish(st *holdState, em *Emitter) { em.Release() }

func readAllTest(t *testing.T, r *Reader[holdState]) []session.Entry {
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

// TestHoldAndCommit: held entries come out in file order once settled; the
// commit point never passes an entry that is not returned, and stays
// before entries still held when the input ends, so that a resumed read
// returns them settled.
func TestHoldAndCommit(t *testing.T) {
	x := `{"t":"x"}` + "\n"
	open := `{"t":"open"}` + "\n"
	cl := `{"t":"close"}` + "\n"
	in := x + open + x + cl + x
	r := NewReader[holdState](strings.NewReader(in), "f", holdFormat{})
	es := readAllTest(t, r)
	var types []string
	for _, e := range es {
		types = append(types, e.Type)
	}
	if strings.Join(types, ",") != "x,open,x,close,x" || es[1].Name != "settled" {
		t.Fatalf("entries %v, open %q", types, es[1].Name)
	}
	if off, line, seq, st := r.Position(); off != int64(len(in)) || line != 5 || seq != 5 || st.N != 5 {
		t.Errorf("position %d %d %d %+v", off, line, seq, st)
	}

	// The input ends while "open" is held: it comes out unsettled, the
	// commit point stays before its line.
	cut := x + open + x
	r = NewReader[holdState](strings.NewReader(cut), "f", holdFormat{})
	es = readAllTest(t, r)
	off, line, seq, st := r.Position()
	if len(es) != 3 || es[1].Name != "" || off != int64(len(x)) || line != 1 || seq != 1 || st.N != 1 || st.Open {
		t.Fatalf("cut: %d entries, position %d %d %d %+v", len(es), off, line, seq, st)
	}
	h, _ := r.Header()
	rest := NewReaderAt[holdState](strings.NewReader(in[off:]), "f", holdFormat{}, h, st, off, line, seq)
	tail := readAllTest(t, rest)
	if len(tail) != 4 || tail[0].Type != "open" || tail[0].Name != "settled" || tail[0].Seq != 1 || tail[0].Line != 2 {
		t.Errorf("resumed: %+v", tail)
	}
}

// TestHeaderError: a format's header error matches session.ErrNoHeader.
func TestHeaderError(t *testing.T) {
	r := NewReader[holdState](strings.NewReader("\n\n"), "f", holdFormat{})
	if _, err := r.Next(); !errors.Is(err, session.ErrNoHeader) || err.Error() != "test: f: empty" {
		t.Errorf("Next = %v", err)
	}
}

// TestSplit finds values with no separator and reports the rest.
func TestSplit(t *testing.T) {
	spans, bad := Split([]byte(`{"a":1}{"b":2}  [3] {"c"`))
	if len(spans) != 3 || spans[1] != (Span{7, 14}) || bad == nil || bad.Pos != 20 {
		t.Errorf("spans %v bad %+v", spans, bad)
	}
}

// TestBufferReusedAfterTheEnd reads files one after the other, as an import
// does: a Reader's buffer goes to the next Reader once its input has ended
// (or on Release), and nothing the first returned may change when the next
// one fills the buffer; a LineReader at its end stays there.
func TestBufferReusedAfterTheEnd(t *testing.T) {
	var kept []*session.Entry
	var want []string
	for i := range 6 {
		var b strings.Builder
		for k := range 50 {
			fmt.Fprintf(&b, "{\"t\":\"x\",\"file\":%d,\"line\":%d,\"pad\":%q}\n", i, k, strings.Repeat(string(rune('a'+i)), 40+k))
		}
		fmt.Fprintf(&b, "{\"t\":\"x\",\"file\":%d,\"last\":true}", i) // the last line has no newline
		in := b.String()
		r := NewReader(strings.NewReader(in), "f", holdFormat{})
		if i%3 == 2 {
			if _, err := r.Header(); err != nil {
				t.Fatal(err)
			}
			r.Release() // left after the header
			continue
		}
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, e)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("Next after the end: %v", err)
		}
		if l, err := r.lr.Read(); err != io.EOF || l.Bytes != nil {
			t.Fatalf("LineReader after the end: %q %v", l.Bytes, err)
		}
		want = append(want, strings.Split(in, "\n")...)
	}
	if len(kept) != len(want) {
		t.Fatalf("%d entries for %d lines", len(kept), len(want))
	}
	for i, e := range kept {
		if string(e.Raw) != want[i] {
			t.Fatalf("entry %d: %s, the line was %s", i, e.Raw, want[i])
		}
	}
}
