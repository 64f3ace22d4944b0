package qwen

import (
	"bytes"
	"testing"

	"rhizome/backend/sessionlog/sessionlogtest"
)

// benchCorpus is the real Qwen Code files, copied end to end until it holds
// at least 4 MB, and its line count.
func benchCorpus(b *testing.B) ([]byte, int) {
	b.Helper()
	return sessionlogtest.Corpus(b, realFiles(b))
}

// BenchmarkReader reads the corpus with the Reader: lines, a typed decode
// of every record, the mapping to entries and the tree state. Compare with
// BenchmarkBareDecode on the same bytes (issue 11 §4: within 3x).
func BenchmarkReader(b *testing.B) {
	corpus, lines := benchCorpus(b)
	sessionlogtest.BenchReader(b, corpus, lines, openLog, false)
}

// BenchmarkBareDecode is the yardstick: json.Unmarshal of every line into a
// map[string]any, the lines split beforehand.
func BenchmarkBareDecode(b *testing.B) {
	corpus, _ := benchCorpus(b)
	sessionlogtest.BenchBareDecode(b, corpus)
}

// BenchmarkResumeAppend is an append import: the corpus was read and its
// State kept; the writer appended about 1 KB (one line); the import resumes
// at the stored offset and reads only the new bytes (issue 11 §2).
func BenchmarkResumeAppend(b *testing.B) {
	corpus, _ := benchCorpus(b)
	appended := []byte(line("appended-1", "") + "\n")
	appended = append(appended, bytes.Repeat([]byte(" "), max(0, 1024-len(appended)))...)
	appended = append(appended, '\n')
	sessionlogtest.BenchResumeAppend(b, corpus, appended, openLog, resumeLog)
}
