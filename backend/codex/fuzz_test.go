package codex

import (
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
	return sessionlogtest.Seeds(tb, append(realFiles(tb), "testdata/handmade/bare-era.jsonl", "testdata/handmade/wrapped-legacy.jsonl", "testdata/handmade/fork-replay.jsonl", "testdata/handmade/fork-legacy-ids.jsonl", "testdata/handmade/fork-legacy-parent.jsonl"),
		"", "\x00\xff\n\n", meta+"\n"+item("a")+"garbage\n[1]\n"+item("b"),
		`{"type":"session","id":"s"}`+"\n", meta+item("x")+"\n")
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
