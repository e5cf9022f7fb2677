//go:build unix

// Package cputime gives benchmarks the CPU time the process has used:
// on a loaded machine it measures work where the wall clock also
// measures waiting for a core. Tests only (the library never reads a
// clock).
package cputime

import (
	"syscall"
	"time"
)

// Used is the CPU time the process has used, user and system, all
// threads (the garbage collector's included).
func Used() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
