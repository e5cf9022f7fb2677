//go:build unix

package operator

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, all
// threads (the garbage collector's included). On a loaded machine it
// measures work where the wall clock also measures waiting for a core.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
