package gemini

import (
	"bytes"
	"testing"

	"rhizome/backend/session"
	"rhizome/backend/sessionlog/sessionlogtest"
)

// fuzzSeeds are slices of the real and hand-made files, and garbage.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	return sessionlogtest.Seeds(tb, append(realFiles(tb), handmadeFile),
		"", "\x00\xff\n\n", meta+"\n"+prompt("u1")+"garbage\n[1]\n"+prompt("u2"),
		meta+"\n"+answer("g1")+"\n"+answer("g1")+"\n"+answer("g1")+"\n",
		meta+"\n"+`{"$set":{"messages":[`+prompt("u1")+`,5,{},`+answer("g1")+`]}}`+"\n"+`{"$set":{"messages":[]}}`+"\n"+`{"$rewindTo":"u1"}`+"\n",
		`{"type":"session","id":"s"}`+"\n", `{"$set":{}}`+"\n")
}

// FuzzReader reads arbitrary input and checks the reader's promises
// (sessionlogtest.CheckReader): no panic, a header error matching
// ErrNoHeader, every entry's Raw the input at its Offset, lines and offsets
// increasing, problems inside the input, Consumed at a line end, and a read
// resumed from the State at the middle line giving the entries of a full
// read. And what the import needs to decode stored entries: each entry's
// Raw read alone gives exactly one entry, of the same type.
func FuzzReader(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sessionlogtest.CheckReader(t, data, openLog, resumeLog)
		s, err := Read(bytes.NewReader(data), "f")
		if err != nil || len(s.Entries) == 0 {
			return
		}
		var buf bytes.Buffer
		for _, e := range s.Entries {
			buf.Write(e.Raw)
			buf.WriteByte('\n')
		}
		r := NewReaderAt(&buf, "f", State{Header: s.Header})
		got := sessionlogtest.Entries(t, r.Reader)
		if len(got) != len(s.Entries) {
			t.Fatalf("%d stored objects decode to %d entries", len(s.Entries), len(got))
		}
		for i := range got {
			w := &s.Entries[i]
			// A <state_snapshot> is a compaction by its own text, but
			// a copy of one stays a message; a summary without the tag
			// is one by the rewrite it came in only.
			snapshot := bytes.Contains(w.Raw, []byte(`"text":"<state_snapshot>`))
			if got[i].Type != w.Type && !(w.DuplicateOf != "" && got[i].Type == session.TypeCompaction) &&
				!(w.Type == session.TypeCompaction && !snapshot && got[i].Type == session.TypeMessage) {
				t.Fatalf("entry %d (line %d): %s decodes alone as %s", i, w.Line, w.Type, got[i].Type)
			}
		}
	})
}

// FuzzScanner holds members and elements to encoding/json on arbitrary
// objects: no panic, and a span for every key json finds.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":"]"}]}`, `{"$set":{"messages":[{"id":"x"},5]}}`, `{"a\"":"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, ok := members(data)
		if !ok {
			return
		}
		for _, m := range ms {
			if m.Val.Start < 0 || m.Val.End > len(data) || m.Val.Start >= m.Val.End {
				t.Fatalf("member %q span %v of %d bytes", m.Key, m.Val, len(data))
			}
			if es, ok := elements(data[m.Val.Start:m.Val.End]); ok {
				for _, e := range es {
					if e.Start < 0 || e.End > m.Val.End-m.Val.Start || e.Start >= e.End {
						t.Fatalf("element span %v", e)
					}
				}
			}
		}
	})
}
