package copilot

import (
	"bytes"
	"io"
	"testing"

	"rhizome/backend/sessionlog"
	"rhizome/backend/sessionlog/sessionlogtest"
)

// openLog and resumeLog are NewReader and NewReaderAt for sessionlogtest.
var (
	openLog   = func(r io.Reader, file string) *sessionlog.Reader[parseState] { return NewReader(r, file).Reader }
	resumeLog = func(r io.Reader, file string, st State) *sessionlog.Reader[parseState] {
		return NewReaderAt(r, file, st).Reader
	}
)

// fuzzSeeds are slices of the real and hand-made files, and garbage.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	return sessionlogtest.Seeds(tb, append(realFiles(tb), handmadeFile),
		"", "\x00\xff\n\n", start+"\n"+prompt("u1", "s1")+"garbage\n[1]\n"+prompt("u2", "u1"),
		start+"\n"+asset("a1", "s1")+"\n"+asset("a2", "a1")+"\n"+prompt("u1", "a2")+"\n",
		`{"type":"session","id":"s"}`+"\n", `{"type":"user.message","data":"x","id":"i","parentId":null}`+"\n")
}

// FuzzReader reads arbitrary input and checks the reader's promises
// (sessionlogtest.CheckReader): no panic, a header error matching
// ErrNoHeader, every entry's Raw the input at its Offset, lines and offsets
// increasing, problems inside the input, Consumed at a line end, and a read
// resumed from the State at the middle line giving the entries of a full
// read.
func FuzzReader(f *testing.F) {
	sessionlogtest.FuzzReader(f, fuzzSeeds(f), openLog, resumeLog)
}

// FuzzWorkspace reads arbitrary input as a workspace.yaml: no panic, and
// every problem inside the input.
func FuzzWorkspace(f *testing.F) {
	for _, s := range []string{"", "name: x\n", "name: \"a\\\"b\"\nuser_named: maybe\n", "name: |-\n  two\n  lines\nid: z", "- a\n  b: c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, problems, err := ReadWorkspace(bytes.NewReader(data), "w.yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			if p.Line < 1 || p.Offset < 0 || p.Offset >= int64(len(data)) || p.Reason == "" {
				t.Fatalf("problem %v outside the input", p)
			}
		}
	})
}
