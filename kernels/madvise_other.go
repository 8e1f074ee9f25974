//go:build !linux

package kernels

// ReexecMadvFree does nothing: madvdontneed is a setting of the runtime
// on Linux alone.
func ReexecMadvFree() {}
