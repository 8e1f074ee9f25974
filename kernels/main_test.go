package kernels

import (
	"os"
	"testing"
)

// TestMain runs the tests as runexp runs, with freed memory handed back by
// MADV_FREE (see ReexecMadvFree): they time both methods and the advice's
// probes, which pages faulted in again would slow.
func TestMain(m *testing.M) {
	ReexecMadvFree()
	os.Exit(m.Run())
}
