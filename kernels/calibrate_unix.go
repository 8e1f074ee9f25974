//go:build unix

package kernels

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used, user and system,
// and whether it is known. Calibration times by it too: unlike the wall
// clock it does not count the time other processes had the core.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
