//go:build !linux

package kernels

// osYield does nothing where the package does not know how to yield the
// thread: spinners yield to the Go scheduler alone (see relax).
func osYield() {}
