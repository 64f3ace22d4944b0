package qwen

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
	return sessionlogtest.Seeds(tb, append(realFiles(tb), "testdata/handmade/quirks.jsonl"),
		"", "\x00\xff\n\n", line("a", "")+"garbage\n[1]\n"+line("b", "a"),
		`{"type":"session","id":"s"}`+"\n",
		line("a", "")+"\n"+`{"uuid":"b","parentUuid":"a","sessionId":"`+sess+`","type":"tool_result","message":{"role":"user","parts":[{"functionResponse":{"id":"c","response":{"error":7}}}]},"toolCallResult":{"status":"error","resultDisplay":{"type":"task_execution","subagentName":"X"}}}`+"\n",
		line("a", "")+"\n"+`{"uuid":"c","parentUuid":"a","sessionId":"`+sess+`","type":"system","subtype":"chat_compression","systemPayload":{"info":{"originalTokenCount":"many"},"compressedHistory":[{"parts":[{"text":"s"}]}]}}`+"\n")
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
