package kernels

import (
	"context"
	"runtime"
	"testing"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// TestWVEstimateBytes checks that the memory estimates of the explicit GI
// and GraphHopper maps bound what Gram allocates (the runtime's TotalAlloc,
// without the result's n² entries) on 100 ENZYMES graphs, and by how much.
//
// The estimates (wvBytes) are worst cases: every pair of a weight feature
// and a bin of a vertex a distinct non-zero and feature, every bin of a
// vertex a new bin, and the most that the tables' growth can allocate.
// Where hardly anything merges (δ = 10⁻⁹) the ratio is about 1.4 to 1.5,
// the worst-case constants over the typical ones. With δ = 1 binning merges
// the pairs of the vertices of a graph that share a weight feature and a
// bin, and ENZYMES's attributes fall into few bins (3650 over 64 iterations
// for 19580 vertices): GI's non-zeros are about 0.6 of its pairs, whence
// ratios of 1.8 to 3.7. GraphHopper's are about 0.3 of its pairs at P = 1
// and 0.26 from P = 4 on, as M(v)_00 = 1 and the entries of short paths are
// shared by most vertices of a graph, whence ratios of 4.4 at P = 1, 5.6 at
// P = 4 and 6.3 at P = 64, which no estimate can foresee without binning:
// these rows allow 8. (Before GraphHopper's map summed its weights by
// position, without listing them, it allocated 4.4 MB at P = 1 where it
// allocates 3.0, and the ratio was 3.7.)
func TestWVEstimateBytes(t *testing.T) {
	ds := graphtest.Dataset(t, "ENZYMES")
	sub, err := ds.RandomSubset(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	gs := sub.Graphs
	hat := func(p int) AttrKernel { return AttrKernel{Kind: "hat", Delta: 1, Iterations: p, Seed: 1} }
	tests := []struct {
		name string
		k    interface {
			Kernel
			MemoryEstimator
		}
		within float64
	}{
		{"gi/P=1", &GraphInvariant{H: 3, Attr: hat(1)}, 4},
		{"gi/P=16", &GraphInvariant{H: 3, Attr: hat(16)}, 4},
		{"gi/P=64", &GraphInvariant{H: 3, Attr: hat(64)}, 4},
		// The estimate prices every pair's rank as sorted, 16 bytes
		// (see rankBySort), where a bitmap ranks these, 3 labels by
		// the colours, for about 6: a ratio of 3.86.
		{"gi/dirac", &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "dirac"}}, 4.5},
		// Two threads stream the refinement (giStream), whose tables,
		// one an iteration, are sized for a new signature at every
		// vertex, as priced: these 100 graphs have 9, 404 and 2435
		// colours after the three iterations, among 3106 vertices, and
		// the first iteration's, numbered by degree, needs no table.
		// Allocated 0.90 MB (ratio 3.54), the two workers' pairSlabs
		// among it.
		{"gi/dirac/threads=2", &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "dirac"}, Threads: 2}, 4.5},
		{"gh/P=1", &GraphHopper{Attr: hat(1)}, 5},
		{"gh/P=4", &GraphHopper{Attr: hat(4)}, 8},
		{"gh/P=64", &GraphHopper{Attr: hat(64)}, 8},
		// With δ = 10⁻⁹ vertices share bins only when their attributes
		// are equal: close to the worst case. δ = 10⁻⁹ and 0.01 take
		// the tuple path of Binning (no packed layout fits 18
		// dimensions).
		{"gi/δ=1e-9/P=16", &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "hat", Delta: 1e-9, Iterations: 16}}, 2},
		{"gh/δ=1e-9/P=16", &GraphHopper{Attr: AttrKernel{Kind: "hat", Delta: 1e-9, Iterations: 16}}, 2},
		{"gi/δ=0.01/P=16", &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "hat", Delta: 0.01, Iterations: 16}}, 4},
	}
	for _, tc := range tests {
		name := tc.name
		est := tc.k.EstimateBytes(gs, Explicit, 0)
		runtime.GC()
		got := int64(gramAllocated(context.Background(), t, tc.k, gs)) - 8*int64(len(gs)*len(gs))
		ratio := float64(est) / float64(got)
		if est < got || ratio > tc.within {
			t.Errorf("%s: estimate %d bytes, allocated %d: ratio %.2f, want in [1, %g]", name, est, got, ratio, tc.within)
		}
		t.Logf("%s: estimate %d bytes, allocated %d, ratio %.2f", name, est, got, ratio)
	}
}
