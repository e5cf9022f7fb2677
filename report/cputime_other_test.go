//go:build !unix

package report

import "time"

var cpuStart = time.Now()

// cpuTime falls back on the wall clock where getrusage is missing.
func cpuTime() time.Duration { return time.Since(cpuStart) }
