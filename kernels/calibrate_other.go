//go:build !unix

package kernels

import "time"

// processCPU reports that the process's CPU time is not known here, so
// calibration times by the wall clock alone.
func processCPU() (time.Duration, bool) { return 0, false }
