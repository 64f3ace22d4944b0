//go:build unix

package consolidate

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used so far,
// so that a benchmark can report its work apart from a busy machine's
// waits.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
