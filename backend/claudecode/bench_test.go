package claudecode

import (
	"testing"

	"rhizome/backend/sessionlog/sessionlogtest"
)

// BenchmarkReader reads the real Claude Code files, copied end to end until they
// hold at least 4 MB, with the Reader: lines, a typed decode of every line,
// the mapping to entries and usage and tree state, then with EntryText of every
// entry too (what the import indexes for search). BareDecode, a
// json.Unmarshal of every line into a map, is the yardstick (issue 11 §4:
// within 3x). ResumeAppend is an append import: about 1 KB (one entry)
// appended, read from the stored offset alone (issue 11 §2: under 50 ms
// whatever the file's size). See sessionlogtest.Benchmarks.
func BenchmarkReader(b *testing.B) {
	sessionlogtest.Benchmarks(b, realFiles(b), line("appended-1", ""), openLog, resumeLog)
}
