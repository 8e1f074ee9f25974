package kernels

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// spThreadCases are the shortest-path cells of the thread tests: the label
// path, the generic path of a vertex map (slowDirac, numbered by [3]uint64
// keys on one thread and by packed keys on several), and attributes with
// the hat kernel (binning for the explicit map, the exact kernel for the
// implicit method) and the RBF kernel (implicit only). ENZYMES has 18
// attributes and Synthie 15 (shared/data/README.md).
var spThreadCases = []struct {
	name, data string
	n          int // a random subset of n graphs; 0 for all
	k          ShortestPath
	methods    []Method
}{
	{"labels", "MUTAG", 0, ShortestPath{}, []Method{Explicit, Implicit}},
	{"generic", "MUTAG", 60, ShortestPath{Vertex: slowDirac{}}, []Method{Explicit, Implicit}},
	// Enough graphs for the matrix to be allocated while the maps run
	// (gramAheadMin).
	{"labels", "U251", gramAheadMin, ShortestPath{}, []Method{Explicit}},
	{"hat", "ENZYMES", 60, ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 0.5, Iterations: 3, Seed: 7}}, []Method{Explicit, Implicit}},
	{"hat", "Synthie", 20, ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 2, Seed: 1}}, []Method{Explicit, Implicit}},
	// Some 8 distinct bins a vertex, too many for the table of
	// spScratch.vector: its keys take the map.
	{"hat-map", "ENZYMES", 20, ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 0.5, Iterations: 8, Seed: 2}}, []Method{Explicit}},
	{"rbf", "ENZYMES", 40, ShortestPath{Attr: &AttrKernel{Kind: "rbf", Sigma: 0.5}}, []Method{Implicit}},
}

func spThreadData(t *testing.T, data string, n int) []*graph.Graph {
	t.Helper()
	ds := graphtest.Dataset(t, data)
	if n > 0 {
		var err error
		if ds, err = ds.RandomSubset(n, 3); err != nil {
			t.Fatal(err)
		}
	}
	return ds.Graphs
}

// TestSPThreadsSame checks that the Gram matrix and the Report's counters
// of every cell on 2 and 3 threads equal, bit for bit, those on one
// thread, the sequential code of the paper's timings: each entry is the
// same arithmetic, done by one worker.
func TestSPThreadsSame(t *testing.T) {
	for _, c := range spThreadCases {
		gs := spThreadData(t, c.data, c.n)
		for _, m := range c.methods {
			t.Run(fmt.Sprintf("%s/%s/%s", c.name, c.data, m), func(t *testing.T) {
				k := c.k
				k.Threads = 1
				want, wantRep, err := k.Gram(context.Background(), gs, m)
				if err != nil {
					t.Fatal(err)
				}
				if wantRep.Pairs+wantRep.FeatureNNZ == 0 {
					t.Fatal("an empty report: the cell tests nothing")
				}
				for _, threads := range []int{2, 3} {
					k.Threads = threads
					got, rep, err := k.Gram(threadsContext(threads), gs, m)
					if err != nil {
						t.Fatal(err)
					}
					requireEqual(t, fmt.Sprintf("%d threads", threads), want, got)
					if c := spCounters(rep); c != spCounters(wantRep) {
						t.Errorf("%d threads: counters %+v, want %+v", threads, c, spCounters(wantRep))
					}
				}
			})
		}
	}
}

// spCounters returns the counters of a Report, which unlike its times do
// not depend on the threads.
func spCounters(r *Report) [7]int64 {
	return [7]int64{r.FeatureNNZ, r.MaxFeatureNNZ, r.Features, r.ProductVertices, r.ProductEdges, r.Pairs, r.Comparisons}
}

// TestSPThreadsFeatureIDs checks that the explicit vectors on 1, 2 and 3
// threads are those of the direct sequential map, ids included: the ids
// are numbered in graph order whatever the map and the threads, which the
// matrix alone would not show, since a renumbering leaves the dot products
// as they are. With attributes, one thread takes the packed map too (see
// ShortestPath.FeatureVectors).
func TestSPThreadsFeatureIDs(t *testing.T) {
	for _, c := range spThreadCases {
		if !slices.Contains(c.methods, Explicit) {
			continue
		}
		t.Run(c.name+"/"+c.data, func(t *testing.T) {
			gs := spThreadData(t, c.data, c.n)
			if c.k.Attr != nil {
				// As Gram does before the map.
				gs = graph.ScaleAttributes(gs)
			}
			k := c.k
			want, err := k.sequentialVectors(context.Background(), gs)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 2, 3} {
				k.Threads = threads
				got, err := k.FeatureVectors(context.Background(), gs)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !sameVec(got[i], want[i]) {
						t.Fatalf("%d threads: graph %d has vector %v %v, want %v %v", threads, i, got[i].IDs, got[i].Vals, want[i].IDs, want[i].Vals)
					}
				}
			}
		})
	}
}

// TestSPThreadsWideLabels checks the graphs whose labels do not fit the
// 24 bits of a packed key, which the parallel map leaves to the
// sequential one: the vectors, ids included, are those of one thread.
func TestSPThreadsWideLabels(t *testing.T) {
	var gs []*graph.Graph
	for _, g := range []*graph.Graph{tinyPath, tinyTriangle, tinyStar} {
		labels := slices.Clone(g.Labels)
		for i := range labels {
			labels[i] += 1 << 25
		}
		var edges []graph.Edge
		for u := range g.N() {
			for _, v := range g.Neighbors(u) {
				edges = append(edges, graph.Edge{U: int32(u), V: v})
			}
		}
		gs = append(gs, graph.MustBuild(labels, edges))
	}
	for _, k := range []ShortestPath{{}, {Vertex: slowDirac{}}} {
		k.Threads = 1
		want, err := k.FeatureVectors(context.Background(), gs)
		if err != nil {
			t.Fatal(err)
		}
		k.Threads = 2
		got, err := k.FeatureVectors(context.Background(), gs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !sameVec(got[i], want[i]) || len(want[i].IDs) == 0 {
				t.Fatalf("%T: graph %d has vector %v %v, want %v %v, not empty", k.Vertex, i, got[i].IDs, got[i].Vals, want[i].IDs, want[i].Vals)
			}
		}
	}
}

// TestSPThreadsCancel checks that a cancelled context stops both methods
// on several threads with its error.
func TestSPThreadsCancel(t *testing.T) {
	gs := spThreadData(t, "MUTAG", 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, k := range []*ShortestPath{{Threads: 2}, {Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 1}, Threads: 2}} {
		for _, m := range []Method{Explicit, Implicit} {
			if _, _, err := k.Gram(ctx, gs, m); !errors.Is(err, context.Canceled) {
				t.Errorf("attr %v, %s: error %v, want %v", k.Attr != nil, m, err, context.Canceled)
			}
		}
	}
}

// TestSPThreadsCancelMidway cancels the parallel map at many points of
// its run, where a worker may wait for the numbering of a graph that
// another worker, cancelled, never counts: every call must return, with
// the vectors or the context's error.
func TestSPThreadsCancelMidway(t *testing.T) {
	gs := spThreadData(t, "ENZYMES", 0)
	k := &ShortestPath{Threads: 2}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for d := time.Duration(0); d < 4*time.Millisecond; d += 50 * time.Microsecond {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			_, err := k.FeatureVectors(ctx, gs)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("cancelled after %v: error %v", d, err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the parallel map did not return after its context was cancelled")
	}
}

// countingContext counts the calls of Err.
type countingContext struct {
	context.Context
	calls int
}

func (c *countingContext) Err() error {
	c.calls++
	return c.Context.Err()
}

// TestSPMapChecksWithinGraph checks that the explicit map checks its
// context within a graph where vertices have several features, every
// spCheckWork triples at least, by the packed keys (spParallelVectors) and
// by the direct map (sequentialVectors): a graph of ENZYMES binned 64
// times took 1.8 s, which a probe of the advice sat out whatever its
// limit. The graph is ENZYMES's first, binned 8 times: 8² triples for
// each ordered pair of connected vertices.
func TestSPMapChecksWithinGraph(t *testing.T) {
	g := graphtest.Dataset(t, "ENZYMES").Graphs[0]
	k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 8, Seed: 1}}
	gs := graph.ScaleAttributes([]*graph.Graph{g})
	d := graph.DistancesInto(nil, g)
	vm, err := k.vertexMap(gs)
	if err != nil {
		t.Fatal(err)
	}
	var triples int
	for u := range g.N() {
		nu := len(vm.VertexFeatures(nil, gs[0], u))
		for v, duv := range d[u*g.N() : (u+1)*g.N()] {
			if duv > 0 {
				triples += nu * len(vm.VertexFeatures(nil, gs[0], v))
			}
		}
	}
	for _, tc := range []struct {
		name string
		vecs func(ctx context.Context) error
	}{
		{"packed keys", func(ctx context.Context) error { _, err := k.FeatureVectors(ctx, gs); return err }},
		{"direct", func(ctx context.Context) error { _, err := k.sequentialVectors(ctx, gs); return err }},
	} {
		ctx := &countingContext{Context: context.Background()}
		if err := tc.vecs(ctx); err != nil {
			t.Fatal(err)
		}
		if want := triples / spCheckWork; ctx.calls < want {
			t.Errorf("%s: %d checks of the context for %d triples, want at least %d", tc.name, ctx.calls, triples, want)
		}
	}
}

// TestSPThreadsMemory checks, as TestMemoryEstimateMeasured does on one
// thread, that the memory estimate of the explicit map on attributes
// bounds the peak heap on two threads, within memoryFactor: two workers'
// interners and the numbering's, each charged for every feature (see
// spFeatureBytes).
func TestSPThreadsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a Gram matrix of 150 graphs")
	}
	gs := spThreadData(t, "ENZYMES", 150)
	k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}, Threads: 2}
	est := k.EstimateBytes(gs, Explicit, 0)
	var err error
	peak := peakHeap(func() { _, _, err = k.Gram(context.Background(), gs, Explicit) })
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(gs))
	got := int64(peak) - 8*n*n
	t.Logf("estimate %.1f MiB, measured %.1f MiB (%.2f×)", mib(est), mib(got), float64(est)/float64(got))
	if est < got || est > memoryFactor*got {
		t.Errorf("estimate %.1f MiB, measured %.1f MiB: want the estimate in [1, %d]× the measurement", mib(est), mib(got), memoryFactor)
	}
}
