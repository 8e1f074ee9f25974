//go:build !linux

package main

// reexecMadvFree does nothing: madvdontneed is a setting of the runtime
// on Linux alone.
func reexecMadvFree() {}
