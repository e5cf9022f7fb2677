//go:build !unix

package operator

import "time"

// cpuTime is not measured off unix: the CPU metric reads 0.
func cpuTime() time.Duration { return 0 }
