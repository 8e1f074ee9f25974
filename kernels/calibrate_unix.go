//go:build unix

package kernels

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time the process has used, user and system,
// over all its threads, and whether it is known. Calibration times by it
// too: unlike the wall clock it does not count the time other processes
// had the core. The runner records it for each run, as the cores a run
// had: a run on two threads whose CPU time is its wall time ran on one
// core, as this machine's scheduler at times puts both threads on one
// core.
func ProcessCPU() (time.Duration, bool) {
	ru, ok := selfUsage()
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ok
}

// minorFaults returns the page faults the process has taken that needed
// no disk, over all its threads, and whether the count is known.
func minorFaults() (int64, bool) {
	ru, ok := selfUsage()
	return int64(ru.Minflt), ok
}

// selfUsage returns the process's resource usage, over all its threads,
// and whether the system gave it; a zero usage where not.
func selfUsage() (syscall.Rusage, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return syscall.Rusage{}, false
	}
	return ru, true
}
