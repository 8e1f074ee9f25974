package kernels

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// subgraphCounters are the Report fields that must not depend on the
// number of threads: the time fields are wall or CPU times and do.
type subgraphCounters struct {
	nnz, maxNNZ, features, vertices, edges, pairs, comparisons int64
}

func countersOf(r *Report) subgraphCounters {
	return subgraphCounters{r.FeatureNNZ, r.MaxFeatureNNZ, r.Features, r.ProductVertices, r.ProductEdges, r.Pairs, r.Comparisons}
}

// TestSubgraphThreads checks that the graphlet and subgraph matching
// kernels give the same matrix to the bit, and the same Report counters,
// for 1, 2 and 3 threads. The expected values are the one-thread run's,
// the sequential code of the paper's timings; TestCSMExplicitImplicit and
// the graphlet tests check those against hand counts and each other. The
// implicit method runs on small subsets: a pair of MUTAG graphs takes about
// a millisecond, one of ENZYMES ten.
func TestSubgraphThreads(t *testing.T) {
	tests := []struct {
		data string
		n    int // the first n graphs, 0 for all
		k    func(threads int) Kernel
		m    Method
	}{
		{"MUTAG", 0, func(th int) Kernel { return &Graphlet{Threads: th} }, Explicit},
		{"ENZYMES", 0, func(th int) Kernel { return &Graphlet{Threads: th} }, Explicit},
		// Many labels: patterns by the hundred, new ones met late.
		{"U251", 600, func(th int) Kernel { return &Graphlet{Threads: th} }, Explicit},
		{"MUTAG", 0, func(th int) Kernel { return &SubgraphMatching{Threads: th} }, Explicit},
		{"MUTAG", 30, func(th int) Kernel { return &SubgraphMatching{Threads: th} }, Implicit},
		{"ENZYMES", 8, func(th int) Kernel { return &SubgraphMatching{Threads: th} }, Implicit},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/%d/%s/%s", tt.data, tt.n, tt.k(1).Name(), tt.m)
		t.Run(name, func(t *testing.T) {
			gs := graphtest.Dataset(t, tt.data).Graphs
			if tt.n > 0 {
				gs = gs[:tt.n]
			}
			want, wrep, err := tt.k(1).Gram(context.Background(), gs, tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if tt.m == Implicit && wrep.Pairs != int64(len(gs)*(len(gs)+1)/2) {
				t.Fatalf("one thread: %d pairs reported, want %d", wrep.Pairs, len(gs)*(len(gs)+1)/2)
			}
			for _, th := range []int{2, 3} {
				got, rep, err := tt.k(th).Gram(threadsContext(th), gs, tt.m)
				if err != nil {
					t.Fatal(err)
				}
				requireEqual(t, fmt.Sprintf("threads=%d", th), want, got)
				if c, wc := countersOf(rep), countersOf(wrep); c != wc {
					t.Errorf("threads=%d: counters %+v, one thread %+v", th, c, wc)
				}
			}
		})
	}
}

// TestGraphletThreadsFeatureVectors checks that the parallel map numbers
// the patterns as the sequential one does, so that the vectors, not only
// their dot products, are the same for any number of threads.
func TestGraphletThreadsFeatureVectors(t *testing.T) {
	tests := []struct {
		data string
		n    int
	}{
		{"MUTAG", 0},
		{"U251", 600},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			gs := graphtest.Dataset(t, tt.data).Graphs
			if tt.n > 0 {
				gs = gs[:tt.n]
			}
			want, waut := graphletVectors(t, gs, 1)
			for _, th := range []int{2, 3} {
				got, aut := graphletVectors(t, gs, th)
				if !slices.Equal(aut, waut) {
					t.Fatalf("threads=%d: automorphisms %v, one thread %v", th, aut, waut)
				}
				for i := range want {
					if !sameVec(got[i], want[i]) {
						t.Fatalf("threads=%d: graph %d: %v, one thread %v", th, i, got[i], want[i])
					}
				}
			}
		})
	}
}

func graphletVectors(t *testing.T, gs []*graph.Graph, threads int) ([]Vec, []int) {
	t.Helper()
	vecs, aut, err := (&Graphlet{Threads: threads}).FeatureVectors(context.Background(), gs)
	if err != nil {
		t.Fatal(err)
	}
	return vecs, aut
}

// TestSubgraphThreadsErrors checks that a cancelled context stops the
// parallel maps and pairs with its error, and that the parallel map
// reports the first graph with a label too large for the packed keys, as
// the sequential map does, though a worker may meet a later one first.
func TestSubgraphThreadsErrors(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs[:20]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, k := range []Kernel{&Graphlet{Threads: 2}, &SubgraphMatching{Threads: 2}} {
		for _, m := range k.Methods() {
			if _, _, err := k.Gram(ctx, gs, m); !errors.Is(err, context.Canceled) {
				t.Errorf("%s %s: err = %v after cancel, want context.Canceled", k.Name(), m, err)
			}
		}
	}
	// Graphs 5 to 19 have bad labels, each its own, so that an error
	// from any but graph 5 shows. Whether a worker meets a later one
	// first is up to the scheduler: this fails for sure only if the
	// parallel map misses bad labels or reports them differently.
	bad := slices.Clone(gs)
	for i := 5; i < len(bad); i++ {
		g := *bad[i]
		g.Labels = slices.Clone(g.Labels)
		g.Labels[0] = 1<<glLabelBits + int32(i)
		bad[i] = &g
	}
	_, _, want := (&Graphlet{}).FeatureVectors(context.Background(), bad)
	if want == nil {
		t.Fatal("sequential map: no error on a bad label")
	}
	for _, th := range []int{2, 3} {
		for range 20 {
			_, _, err := (&Graphlet{Threads: th}).FeatureVectors(context.Background(), bad)
			if err == nil || err.Error() != want.Error() {
				t.Fatalf("threads=%d: err = %v, want %v", th, err, want)
			}
		}
	}
}

// TestCountsExact checks the bound under which glParallelMap and sp's
// map number their features in any order: w·s² < 2^53 for the largest sum
// s of a vector's counts. For the graphlets' weights, w = 6, s up to
// 38,745,320 (6·s² = 9,007,198,931,414,400, below 2^53 =
// 9,007,199,254,740,992) and not from 38,745,321 on; unweighted (sp), s up
// to 94,906,265 (s² = 9,007,199,136,250,225) and not from 94,906,266 on
// (9,007,199,326,062,756).
func TestCountsExact(t *testing.T) {
	for _, tt := range []struct {
		name string
		w    float64
		vals [][]float64
		want bool
	}{
		{"none", 6, nil, true},
		{"MUTAG-sized", 6, [][]float64{{3, 12, 40}, {7}}, true},
		{"at the bound", 6, [][]float64{{1}, {38745320}}, true},
		{"at the bound, split", 6, [][]float64{{38745000, 320}}, true},
		{"past the bound", 6, [][]float64{{38745321}}, false},
		{"past the bound, split", 6, [][]float64{{1}, {38745000, 321}}, false},
		{"unweighted, past the weighted bound", 1, [][]float64{{38745321}}, true},
		{"unweighted, at the bound", 1, [][]float64{{94906000, 265}}, true},
		{"unweighted, past the bound", 1, [][]float64{{2}, {94906266}}, false},
	} {
		vecs := make([]Vec, len(tt.vals))
		for i, vals := range tt.vals {
			vecs[i] = Vec{IDs: make([]uint32, len(vals)), Vals: vals}
		}
		if got := countsExact(vecs, tt.w); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
