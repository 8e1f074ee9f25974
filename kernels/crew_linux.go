package kernels

import "syscall"

// osYield gives the core to another thread the system has queued on it, if
// any, and returns at once otherwise (sched_yield).
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
