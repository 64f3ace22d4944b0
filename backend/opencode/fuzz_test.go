package opencode

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"rhizome/backend/session"
)

// fuzzSeeds are the real documents (the golden exports: a fuzzing worker
// opens no database) whole, cut in the middle and with bytes
// dropped, the hand-made ones, and garbage.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob("testdata/golden/*.export.json")
	if err != nil || len(files) != 4 {
		tb.Fatalf("golden exports: %v (%d)", err, len(files))
	}
	var seeds [][]byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, d, d[:len(d)/2], append(append([]byte{}, d[:len(d)/3]...), d[len(d)/3+7:]...))
	}
	for _, s := range []string{
		"", "\x00\xff", "{", "[]", `{"format":"opencode-session"}`,
		doc(sess), doc(sess, msg("m1", userData, part("p1", hi)), msg("m2", asstData, part("p2", `{"type":"tool","tool":"task","callID":"c","state":{"status":"completed","input":{},"output":"<task id=\"ses_x\">","metadata":{"exit":"1","outputPath":"/x/tool-output/tool_1"}}}`))),
		doc(sess, msg("m1", `{"role":"user"}`, part("p1", `{"type":"compaction","overflow":true}`)), msg("m2", `{"role":"assistant","summary":true}`, part("p2", hi))),
		doc(sess, `"x"`, "5", msg("m1", `[1]`), `{"id":"m2","parts":7,"files":[{"part":"p"}]}`),
		`{"format":"opencode-session","session":` + sess + `,"fork_of":{"session":"ses_b","messages":[["m1","o1"]]},"todos":[{"content":"a"}],"messages":[` + msg("m1", userData) + `]}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzParseDocument reads arbitrary input and checks ParseDocument's
// promises: no panic; an error matching ErrNoHeader exactly when there is
// no Parsed, or ErrIncomplete or ErrMalformed; every entry's Raw the input
// at its Offset and on its Line, with a type and an id, numbered in order;
// problems inside the input, naming it; the same result twice.
func FuzzParseDocument(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseDocument(data, "f")
		switch {
		case p == nil && err == nil:
			t.Fatal("no Parsed and no error")
		case p == nil && !errors.Is(err, ErrNoHeader) && !errors.Is(err, ErrIncomplete) && !errors.Is(err, ErrMalformed):
			t.Fatalf("error %v matches none of ErrNoHeader, ErrIncomplete, ErrMalformed", err)
		case p != nil && err != nil && !errors.Is(err, ErrIncomplete) && !errors.Is(err, ErrMalformed):
			t.Fatalf("a Parsed with error %v", err)
		case p == nil:
			return
		}
		if p.Header == nil || p.Header.ID == "" || p.Header.Format != Format {
			t.Fatalf("header %+v", p.Header)
		}
		for i := range p.Entries {
			e := &p.Entries[i]
			end := e.Offset + int64(len(e.Raw))
			if e.Seq != i || e.Type == "" || e.ID == "" || e.Offset < 0 || end > int64(len(data)) || !bytes.Equal(data[e.Offset:end], e.Raw) ||
				e.Line != bytes.Count(data[:e.Offset], []byte("\n"))+1 {
				t.Fatalf("entry %d (%s %q): bad Seq, Type, ID, Line or Raw at %d", i, e.Type, e.ID, e.Offset)
			}
			_ = session.EntryText(e)
			_ = session.ViewEntry(e)
		}
		for _, pr := range p.Problems {
			if pr.File != "f" || pr.Offset < 0 || pr.Offset > int64(len(data)) || pr.Reason == "" || pr.Line < 1 {
				t.Fatalf("problem %v outside the input", pr)
			}
		}
		q, err2 := ParseDocument(data, "f")
		if !reflect.DeepEqual(p, q) || (err == nil) != (err2 == nil) {
			t.Fatal("two reads differ")
		}
	})
}
