package kernels

import (
	"os"
	"syscall"
)

// ReexecMadvFree runs the program again in place of this process, with
// madvdontneed=0 added to GODEBUG, unless GODEBUG already says how freed
// memory goes back to the kernel. It returns only if it did not run it.
// Programs that time Gram matrices call it first thing in main, as runexp
// does, and so does this package's test binary (TestMain).
//
// Why: the runtime reads madvdontneed only at its start, and hands freed
// memory back with MADV_DONTNEED by default, which unmaps it. The runner
// collects garbage before every timed run, and the runtime's scavenger
// then hands the last run's memory back at its own pace, in the background
// and during the next run, which pays page faults and the kernel's zeroing
// for what it had handed back by then. gi on ENZYMES on one thread took
// 7.0 ms in some runs and 9.5 ms in others; the walk kernel on MUTAG at
// length 9 took 61 ms on one thread and 34 ms on two, where go test
// -bench, whose loop collects no garbage before each matrix, took 59 and
// 32 ms. With MADV_FREE the memory stays mapped until the kernel needs it,
// and every run starts from the same state: gi on ENZYMES 6.8–7.3 ms, and
// the walk kernel 55 and 29 ms. The peaks the runner reports are the
// heap's, which MADV_FREE does not change; tools that read the resident
// set see freed memory in it until the kernel reclaims it.
//
// The sampling advisor's probes pay such faults too: on this VM a page
// handed back costs 12–15 µs to fault in again (64 MiB touched after
// debug.FreeOSMemory: 180–230 ms, against 0.5 ms with MADV_FREE). In the
// test binary, without it, gi's explicit probe of 2 ENZYMES graphs with 64
// binning iterations faulted in 107–394 pages in 9 of 240 advices after
// timing both methods (TestSamplingAdvisor), predicted 0.16–0.24 s for a
// run of 40–90 ms, and chose the implicit method (160–230 ms); with it,
// in 3 of 240, and in none of 800 once the advisor ran disturbed probes
// again (see adviseBySampling).
func ReexecMadvFree() {
	env, ok := madvFreeEnv(os.Environ())
	if !ok {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure
}
