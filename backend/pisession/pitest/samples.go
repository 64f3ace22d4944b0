package pitest

import (
	"path/filepath"
	"runtime"
	"sort"
)

// The real pi sessions Rhizome is tested on are committed once, in
// app/samples (the app embeds them for ImportSamples, and go:embed cannot
// reach outside its package). Tests of other packages read them through
// Sample and Samples.

// SampleNames are the file names of the real sample sessions, in name order.
var SampleNames = []string{"compact-with-images.jsonl", "large-session.jsonl", "session-with-compaction.jsonl"}

// SamplesDir is the absolute path of the folder of the real sample sessions,
// app/samples, found from this source file's location, so that it holds from
// any package's test (whose working directory is that package's folder).
func SamplesDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("app", "samples") // no caller information: the module root's relative path
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "app", "samples")
}

// Sample is the absolute path of the real sample session name (a file name
// of SampleNames, e.g. "large-session.jsonl").
func Sample(name string) string { return filepath.Join(SamplesDir(), name) }

// Samples are the absolute paths of every real sample session, in name
// order.
func Samples() []string {
	out := make([]string, 0, len(SampleNames))
	for _, n := range SampleNames {
		out = append(out, Sample(n))
	}
	sort.Strings(out)
	return out
}
