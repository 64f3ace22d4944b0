package app

import (
	"os"
	"runtime/debug"
	"sync"
)

// The garbage collector during an import: an import allocates fast and holds
// little (the files in flight on their way to the library), so the
// collector's default pace (a collection each time the heap doubles) spent a
// sixth of the import's CPU (pprof, 300 MB of Claude Code and Codex logs,
// before the readers allocated less). While imports run, the heap may grow
// to importGCPercent over what is live (about 12 MB mid-import), under a
// soft limit for bursts. GOGC 200 cut the writer's CPU by a tenth against
// the default; the peak RSS of the bench's import (185-210 MB) is mostly
// outside Go's heap (SQLite's memory, the window's libraries), and moved
// with neither knob. A GOGC or GOMEMLIMIT the user set is left as it is.

const (
	importGCPercent = 200
	importHeapLimit = 64 << 20 // bytes, Go's heap and runtime (SQLite's caches are outside it)
)

var importGC struct {
	mu      sync.Mutex
	running int   // imports under way
	percent int   // the GC percent before the first of them
	limit   int64 // the memory limit before the first of them
}

// paceGCForImport sets the collector's pace for an import and returns the
// function that restores it once no import is under way; calling it again
// does nothing.
func paceGCForImport() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	importGC.mu.Lock()
	if importGC.running == 0 {
		importGC.percent = debug.SetGCPercent(importGCPercent)
		importGC.limit = debug.SetMemoryLimit(importHeapLimit)
	}
	importGC.running++
	importGC.mu.Unlock()
	var once sync.Once
	return func() { once.Do(restoreImportGC) }
}

func restoreImportGC() {
	importGC.mu.Lock()
	defer importGC.mu.Unlock()
	importGC.running--
	if importGC.running == 0 {
		debug.SetGCPercent(importGC.percent)
		debug.SetMemoryLimit(importGC.limit)
	}
}
