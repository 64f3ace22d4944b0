package copilot

import (
	"bytes"
	"testing"

	"rhizome/backend/sessionlog/sessionlogtest"
)

// benchCorpus is the real Copilot CLI files, copied end to end until it
// holds at least 4 MB, and its line count.
func benchCorpus(b *testing.B) ([]byte, int) {
	b.Helper()
	return sessionlogtest.Corpus(b, realFiles(b))
}

// BenchmarkReader reads the corpus with the Reader: lines, a typed decode
// of every line, the mapping to entries, usage and chain state. Compare
// with BenchmarkBareDecode on the same bytes: the ratio is the reader's
// cost over the import's yardstick (issue 11 §4: within 3x).
func BenchmarkReader(b *testing.B) {
	corpus, lines := benchCorpus(b)
	sessionlogtest.BenchReader(b, corpus, lines, openLog, false)
}

// BenchmarkReaderEntryText adds EntryText of every entry (what the import
// indexes for search).
func BenchmarkReaderEntryText(b *testing.B) {
	corpus, lines := benchCorpus(b)
	sessionlogtest.BenchReader(b, corpus, lines, openLog, true)
}

// BenchmarkBareDecode is the yardstick: json.Unmarshal of every line into a
// map[string]any, the lines split beforehand.
func BenchmarkBareDecode(b *testing.B) {
	corpus, _ := benchCorpus(b)
	sessionlogtest.BenchBareDecode(b, corpus)
}

// BenchmarkResumeAppend is an append import: the corpus was read and its
// State kept; Copilot CLI appended about 1 KB (one event); the import
// resumes at the stored offset and reads only the new bytes. Its time does
// not grow with the corpus.
func BenchmarkResumeAppend(b *testing.B) {
	corpus, _ := benchCorpus(b)
	appended := []byte(prompt("appended-1", "") + "\n")
	appended = append(appended, bytes.Repeat([]byte(" "), max(0, 1024-len(appended)))...)
	appended = append(appended, '\n')
	sessionlogtest.BenchResumeAppend(b, corpus, appended, openLog, resumeLog)
}
