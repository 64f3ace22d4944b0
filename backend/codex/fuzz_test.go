package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"

	"rhizome/backend/pisession"
)

// fuzzSeeds are slices of the real and hand-made files, and garbage.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var seeds [][]byte
	files := append(realFiles(tb), "testdata/handmade/bare-era.jsonl", "testdata/handmade/wrapped-legacy.jsonl", "testdata/handmade/fork-replay.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i := 0; i+3 <= len(lines); i += 3 {
			seeds = append(seeds, bytes.Join(lines[i:i+3], nil))
		}
		n := min(len(lines), 12)
		head := bytes.Join(lines[:n], nil)
		seeds = append(seeds, head[:len(head)-len(lines[n-1])/2], bytes.ReplaceAll(head, []byte("\n"), nil))
	}
	seeds = append(seeds, []byte(""), []byte("\x00\xff\n\n"), []byte(meta+"\n"+item("a")+"garbage\n[1]\n"+item("b")),
		[]byte(`{"type":"session","id":"s"}`+"\n"), []byte(meta+item("x")+"\n"))
	return seeds
}

// FuzzReader reads arbitrary input and checks the reader's promises: no
// panic, every entry's Raw the input at its Offset, lines and offsets
// increasing, problems inside the input, Consumed at a line end, and a read
// resumed from the State at the middle line giving the entries of a full
// read.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), "f")
		full, err := fuzzRead(t, r, data, 0)
		if err != nil {
			return
		}
		for _, p := range append(r.Malformed(), r.Warnings()...) {
			if p.Line < 1 || p.Offset < 0 || p.Offset >= int64(len(data)) || p.Reason == "" || p.File != "f" {
				t.Fatalf("problem %v outside the input", p)
			}
		}
		c := r.Consumed()
		if c < 0 || c > int64(len(data)) || c > 0 && data[c-1] != '\n' && c != int64(len(data)) {
			t.Fatalf("Consumed %d of %d not at a line end", c, len(data))
		}
		st := r.State()
		if p := r.Pending(); p == nil && st.Seq == len(full) && c != int64(len(data)) || p != nil && p.Offset < c {
			t.Fatalf("pending %v, consumed %d of %d", p, c, len(data))
		}
		if b, err := json.Marshal(st); err != nil || json.Unmarshal(b, new(State)) != nil {
			t.Fatalf("state does not round-trip: %v", err)
		}
		// Resume at the line boundary nearest the middle.
		nl := bytes.IndexByte(data[len(data)/2:], '\n')
		if nl < 0 {
			return
		}
		cut := len(data)/2 + nl + 1
		first := NewReader(bytes.NewReader(data[:cut]), "f")
		head, err := fuzzRead(t, first, data[:cut], 0)
		if err != nil {
			return
		}
		mid := first.State()
		b, _ := json.Marshal(mid)
		var back State
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		keep := 0
		for keep < len(head) && head[keep].Seq < back.Seq {
			keep++
		}
		rest := NewReaderAt(bytes.NewReader(data[back.Offset:]), "f", back)
		tail, err := fuzzRead(t, rest, data[back.Offset:], back.Offset)
		if err != nil {
			t.Fatalf("resume: %v", err)
		}
		if got := append(head[:keep:keep], tail...); !reflect.DeepEqual(got, full) {
			t.Fatalf("resumed at byte %d: %d entries, full read %d", back.Offset, len(got), len(full))
		}
	})
}

func fuzzRead(t *testing.T, r *Reader, data []byte, base int64) ([]pisession.Entry, error) {
	t.Helper()
	if _, err := r.Header(); err != nil {
		if !errors.Is(err, ErrNoHeader) {
			t.Fatalf("header error %v does not match ErrNoHeader", err)
		}
		return nil, err
	}
	var es []pisession.Entry
	lastLine, lastOff := 0, base-1
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		rel := e.Offset - base
		if e.Type == "" || e.ID == "" || e.Line < lastLine || e.Offset <= lastOff || rel < 0 || rel+int64(len(e.Raw)) > int64(len(data)) ||
			!bytes.Equal(data[rel:rel+int64(len(e.Raw))], e.Raw) {
			t.Fatalf("entry %d: type %q id %q line %d offset %d: bad position or Raw", len(es), e.Type, e.ID, e.Line, e.Offset)
		}
		_ = pisession.EntryText(e)
		lastLine, lastOff = e.Line, e.Offset
		es = append(es, *e)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("Next after the end: %v", err)
	}
	return es, nil
}
