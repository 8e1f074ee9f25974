//go:build !unix

package kernels

import "time"

// ProcessCPU reports that the process's CPU time is not known here, so
// calibration times by the wall clock alone, and the runner records no
// CPU time.
func ProcessCPU() (time.Duration, bool) { return 0, false }

// minorFaults reports that the process's page faults are not counted here.
func minorFaults() (int64, bool) { return 0, false }
