package kernels

import (
	"slices"
	"testing"
)

// TestEveryKernelHasThreads checks that every registered kernel documents
// the threads parameter: the harness passes runexp's -threads to every
// kernel of a spec and no longer rejects specs for a single-threaded one.
func TestEveryKernelHasThreads(t *testing.T) {
	for _, name := range Names() {
		_, docs, err := Describe(name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(docs, func(d ParamDoc) bool { return d.Name == "threads" }) {
			t.Errorf("kernel %s has no threads parameter", name)
		}
	}
}
