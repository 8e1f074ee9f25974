package kernels

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// TestWorkspaceWalk computes the walk kernel's explicit Gram matrices one
// after another under one Workspace, each kernel after others of other
// lengths, weights, base kernels, data and ways of mapping, and some after
// a matrix that was cancelled, and checks each against the matrix computed
// without a Workspace, to the bit: buffers handed on from another matrix
// must change nothing.
func TestWorkspaceWalk(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs[:120]
	enzymes := graphtest.Dataset(t, "ENZYMES").Graphs[:60]
	type cell struct {
		name string
		k    Walk
		gs   []*graph.Graph
	}
	cells := []cell{
		{"MUTAG l5", Walk{Length: 5}, mutag},
		{"ENZYMES l3", Walk{Length: 3}, enzymes},
		{"MUTAG l3-max", Walk{Length: 3, Max: true}, mutag},
		{"MUTAG l7", Walk{Length: 7}, mutag},
		{"ENZYMES l4-weights", Walk{Length: 4, Max: true, Lambda: []float64{1, 0.3, 0.09, 0.027, 0.0081}}, enzymes},
		{"MUTAG l4-wl1", Walk{Length: 4, WL: 1}, graph.RefineGraphs(mutag, 1, graph.FromLabels)},
		{"MUTAG l2-generic", Walk{Length: 2, Vertex: genericDirac{}, Edge: genericDirac{}}, mutag},
		{"MUTAG l0", Walk{Length: 0}, mutag},
	}
	want := make([]*Report, len(cells))
	wantK := make([]*symCopy, len(cells))
	for c, tt := range cells {
		tt.k.WL = 0 // the graphs are refined already
		K, rep, err := tt.k.Gram(context.Background(), tt.gs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		want[c], wantK[c] = rep, copySym(K)
	}
	ws := NewWorkspace()
	ctx := WithWorkspace(context.Background(), ws)
	hows := []overlapChoice{chooseAuto, chooseOverlap, chooseShared, choosePipe, choosePipeShared, choosePrivate, choosePipePrivate, choosePacked}
	run := 0
	for round := range 2 {
		for c, tt := range cells {
			tt.k.WL = 0
			for _, threads := range []int{1, 2} {
				for h, how := range hows {
					if threads == 1 && h > 0 {
						break // one thread maps in sequence
					}
					run++
					if run%5 == 0 {
						// A matrix cancelled in its map, whose buffers
						// must not be handed on.
						cctx, cancel := context.WithTimeout(ctx, 200*time.Microsecond)
						_, _ = tt.k.explicitGramBy(cctx, tt.gs, 2, &Report{}, how)
						cancel()
					}
					var K *symCopy
					rep := &Report{}
					if threads == 1 {
						k := tt.k
						k.Threads = 1
						got, r, err := k.Gram(ctx, tt.gs, Explicit)
						if err != nil {
							t.Fatal(err)
						}
						K, rep = copySym(got), r
					} else {
						got, err := tt.k.explicitGramBy(ctx, tt.gs, threads, rep, how)
						if err != nil {
							t.Fatal(err)
						}
						K = copySym(got)
					}
					what := fmt.Sprintf("round %d, %s, threads %d, choice %d", round, tt.name, threads, how)
					if !slices.Equal(K.data, wantK[c].data) {
						t.Fatalf("%s: matrix differs from the one without a Workspace", what)
					}
					features := want[c].Features
					if threads > 1 {
						features = wantWalkFeatures(t, tt.k, tt.gs, threads, how, features)
					}
					if rep.Features != features || rep.FeatureNNZ != want[c].FeatureNNZ {
						t.Errorf("%s: %d features, %d nnz; want %d, %d", what, rep.Features, rep.FeatureNNZ, features, want[c].FeatureNNZ)
					}
				}
			}
		}
	}
	if ws.Bytes() == 0 {
		t.Error("the Workspace holds no buffers after the matrices")
	}
	ws.Release()
	if b := ws.Bytes(); b != 0 {
		t.Errorf("the Workspace holds %d bytes after Release", b)
	}
}

// symCopy is a Gram matrix's upper triangle, copied: the matrices of one
// Workspace share no buffers with it, but the test should not depend on
// it.
type symCopy struct{ data []float64 }

func copySym(K *mat.SymDense) *symCopy {
	n := K.SymmetricDim()
	c := &symCopy{data: make([]float64, 0, n*(n+1)/2)}
	for i := range n {
		for j := i; j < n; j++ {
			c.data = append(c.data, K.At(i, j))
		}
	}
	return c
}

// TestWorkspaceGI computes GI's explicit Gram matrices on two threads,
// whose refinement is streamed (giStream), one after another under one
// Workspace, on data of more and fewer vertices, with more and fewer
// iterations, some after a matrix that was cancelled, and checks each
// against the matrix computed without a Workspace, to the bit: the
// signature tables that one matrix hands on to the next must change
// nothing. It also checks that the Workspace keeps the tables, and that
// the matrices allocate less with them.
func TestWorkspaceGI(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs[:120]
	enzymes := graphtest.Dataset(t, "ENZYMES").Graphs[:80]
	cells := []struct {
		name string
		h    int
		gs   []*graph.Graph
	}{
		{"MUTAG h3", 3, mutag},
		{"ENZYMES h3", 3, enzymes},
		{"MUTAG h2", 2, mutag},
		{"ENZYMES h4", 4, enzymes},
		{"MUTAG h5", 5, mutag},
		{"ENZYMES h1", 1, enzymes},
	}
	want := make([]*symCopy, len(cells))
	for c, tc := range cells {
		k := &GraphInvariant{H: tc.h, Attr: AttrKernel{Kind: "dirac"}, Threads: 2}
		K, _, err := k.Gram(context.Background(), tc.gs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		want[c] = copySym(K)
	}
	ws := NewWorkspace()
	ctx := WithWorkspace(context.Background(), ws)
	for round := range 2 {
		for c, tc := range cells {
			k := &GraphInvariant{H: tc.h, Attr: AttrKernel{Kind: "dirac"}, Threads: 2}
			if c%3 == 1 {
				cctx, cancel := context.WithTimeout(ctx, 50*time.Microsecond)
				_, _, _ = k.Gram(cctx, tc.gs, Explicit)
				cancel()
			}
			K, _, err := k.Gram(ctx, tc.gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(copySym(K).data, want[c].data) {
				t.Errorf("round %d, %s: the matrix differs from the one without a Workspace", round, tc.name)
			}
		}
	}
	if ws.Bytes() == 0 {
		t.Error("the Workspace holds no tables after the matrices")
	}
	// Allocated on ENZYMES's 80 graphs: the tables handed on save at
	// least a quarter (seen: 0.71 MB without them, 0.34 with).
	k := &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "dirac"}, Threads: 2}
	allocs := func(ctx context.Context) uint64 { return gramAllocated(ctx, t, k, enzymes) }
	allocs(ctx) // the tables grown to ENZYMES at h = 3, as the first matrix does
	with, without := allocs(ctx), allocs(context.Background())
	if with > without*3/4 {
		t.Errorf("allocated %d bytes with the Workspace, %d without", with, without)
	}
	t.Logf("allocated %d bytes with the Workspace, %d without", with, without)
	ws.Release()
	if b := ws.Bytes(); b != 0 {
		t.Errorf("the Workspace holds %d bytes after Release", b)
	}
}

// TestWorkspaceWalkAllocs checks that a Workspace keeps what the walk
// kernel's explicit Gram matrix allocates: MUTAG's at length 7 allocated
// 4.1 MB on one thread and 4.6 MB on two, and with the Workspace, from the
// second matrix on, 0.58 and 0.62 MB, mostly the matrix (0.28 MB) and
// the first graphs' vectors of the pipeline's check. The maps on two
// threads are the pipeline, the overlap and the private map, which the
// Workspace serves (the parallel map allocates its own). The private
// map's workers' tables grow to the sequences of the graphs each takes,
// which change with the split between them, so that now and then a
// matrix grows one: from the second matrix on, 0.93 MB in most (0.15 of
// the 6.2 MB without a Workspace) and 1.7–1.8 MB in about one of four,
// and their mean is checked, over four matrices. So is the pipeline's:
// its queue takes a new buffer where the column workers lag behind the
// map, as they do now and then, and in 400 matrices from the second on it
// allocated 0.10–0.36 of what it did without the Workspace (median 0.15,
// p90 0.25, p98 0.30), which failed one matrix of two against 0.3 in 4–5%
// of the runs.
func TestWorkspaceWalkAllocs(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	k := &Walk{Length: 7}
	for _, tt := range []struct {
		threads int
		how     overlapChoice
		mean    bool
	}{{1, chooseAuto, false}, {2, choosePipe, true}, {2, chooseOverlap, false}, {2, choosePrivate, true}} {
		t.Run(fmt.Sprintf("threads=%d/choice=%d", tt.threads, tt.how), func(t *testing.T) {
			alloc := func(ctx context.Context) uint64 {
				if tt.threads == 1 {
					return gramAllocated(ctx, t, k, gs)
				}
				return allocated(t, func() error {
					_, err := k.explicitGramBy(ctx, gs, tt.threads, &Report{}, tt.how)
					return err
				})
			}
			fresh := alloc(context.Background())
			ctx := WithWorkspace(context.Background(), NewWorkspace())
			first := alloc(ctx)
			if tt.mean {
				var sum uint64
				for range 4 {
					sum += alloc(ctx)
				}
				if got := sum / 4; float64(got) > 0.3*float64(fresh) {
					t.Errorf("matrices 2 to 5 with the Workspace allocated %d bytes in the mean, %.2f of the %d without (first with it: %d)",
						got, float64(got)/float64(fresh), fresh, first)
				}
				return
			}
			for i := range 2 {
				if got := alloc(ctx); float64(got) > 0.3*float64(fresh) {
					t.Errorf("matrix %d with the Workspace allocated %d bytes, %.2f of the %d without (first with it: %d)",
						i+2, got, float64(got)/float64(fresh), fresh, first)
				}
			}
		})
	}
}

// TestVecSlab checks that the vectors a vecSlab stores keep their values
// while later ones are added and after a vector too long for a chunk, and
// that a reset slab stores others as well in the chunks it kept.
func TestVecSlab(t *testing.T) {
	// Lengths chosen against chunks of slabFirst = 4096 to slabChunk =
	// 65536 non-zeros: several per chunk, one that leaves a chunk's tail
	// unused, and some longer than any chunk.
	rounds := [][]int{
		{1000, 30000, 30000, 10000, 70000, 5, 0, 65536},
		{70000, 80000, 3, 65536, 1, 40000, 40000},
	}
	var s vecSlab
	var a accumulator
	for r, lens := range rounds {
		s.reset()
		var vecs []Vec
		for v, n := range lens {
			// Ids from the top down, so that the sorted flush must
			// sort them; values that name the vector and the id.
			for i := n - 1; i >= 0; i-- {
				a.add(uint32(i), float64(v*1_000_000+i+1))
			}
			vecs = append(vecs, s.flush(&a, true))
		}
		for v, n := range lens {
			vec := vecs[v]
			if vec.Len() != n || len(vec.Vals) != n || cap(vec.IDs) != n || cap(vec.Vals) != n {
				t.Fatalf("round %d, vector %d: %d ids, %d values (caps %d, %d), want %d", r, v, vec.Len(), len(vec.Vals), cap(vec.IDs), cap(vec.Vals), n)
			}
			for i := range n {
				if vec.IDs[i] != uint32(i) || vec.Vals[i] != float64(v*1_000_000+i+1) {
					t.Fatalf("round %d, vector %d, entry %d: id %d value %v", r, v, i, vec.IDs[i], vec.Vals[i])
				}
			}
		}
	}
	if got, want := s.bytes(), int64(0); got <= want {
		t.Errorf("slab holds %d bytes", got)
	}
}

// TestWorkspaceLend checks that a Workspace lends its buffers to one
// matrix at a time and keeps the larger of two given back.
func TestWorkspaceLend(t *testing.T) {
	ws := NewWorkspace()
	ctx := WithWorkspace(context.Background(), ws)
	a := takeWalk(ctx)
	b := takeWalk(ctx)
	if a == b {
		t.Fatal("two matrices got the same buffers")
	}
	a.putCol(colBufs{dense: make([]float64, 500)})
	b.putCol(colBufs{dense: make([]float64, 5)})
	a.giveBack()
	b.giveBack()
	if got := ws.Bytes(); got != 4000 {
		t.Errorf("Workspace holds %d bytes, want the larger buffers' 4000", got)
	}
	if c := takeWalk(ctx); c != a {
		t.Error("the next matrix did not get the buffers kept")
	}
	if got := takeWalk(context.Background()); got.lent != nil {
		t.Error("buffers without a Workspace are lent")
	}
}

// TestWorkspaceGraphlet checks the graphlet and csm kernels' maps in a
// Workspace's workers (see glBufs): the matrices are those computed
// without one, on one thread and two, when one Workspace serves data
// sets of other sizes in turn, so that its workers hold more patterns and
// longer vectors than the next matrix needs; and from the second matrix
// on, a matrix allocates, besides the matrix itself (283 KB on MUTAG), at
// most half of what it allocates without: 14–21 KB against 54–87
// measured, the array of the vectors' headers (9 KB) and the dot
// products' scratch staying.
func TestWorkspaceGraphlet(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs
	enzymes := graphtest.Dataset(t, "ENZYMES").Graphs[:150]
	for _, threads := range []int{1, 2} {
		for _, k := range []Kernel{&Graphlet{Threads: threads}, &SubgraphMatching{Threads: threads}} {
			t.Run(fmt.Sprintf("%s/threads=%d", k.Name(), threads), func(t *testing.T) {
				ws := NewWorkspace()
				ctx := WithWorkspace(context.Background(), ws)
				for r, gs := range [][]*graph.Graph{enzymes, mutag, enzymes[:20], mutag} {
					want, _, err := k.Gram(context.Background(), gs, Explicit)
					if err != nil {
						t.Fatal(err)
					}
					got, _, err := k.Gram(ctx, gs, Explicit)
					if err != nil {
						t.Fatal(err)
					}
					if !mat.Equal(got, want) {
						t.Fatalf("round %d (%d graphs): the matrix in the Workspace differs from the one without", r, len(gs))
					}
				}
				if ws.Bytes() == 0 {
					t.Error("the Workspace holds no buffers after the matrices")
				}
				matrix := uint64(8 * len(mutag) * len(mutag))
				fresh := gramAllocated(context.Background(), t, k, mutag) - matrix
				// The fewest of three: a worker's buffers grow
				// where it maps more graphs than it ever did in
				// the Workspace, as the workers take the graphs
				// as they come (csm on two threads allocated 1.07
				// of the matrix without, about once in 60 runs,
				// with one matrix measured); once grown they stay.
				kept := gramAllocated(ctx, t, k, mutag) - matrix
				for range 2 {
					kept = min(kept, gramAllocated(ctx, t, k, mutag)-matrix)
				}
				if float64(kept) > 0.5*float64(fresh) {
					t.Errorf("besides the matrix, a matrix in the Workspace allocated %d bytes, %.2f of the %d without", kept, float64(kept)/float64(fresh), fresh)
				}
			})
		}
	}
}

// gramAllocated returns the bytes that k's explicit Gram matrix of gs
// allocates under ctx.
func gramAllocated(ctx context.Context, t *testing.T, k Kernel, gs []*graph.Graph) uint64 {
	t.Helper()
	return allocated(t, func() error {
		_, _, err := k.Gram(ctx, gs, Explicit)
		return err
	})
}

// allocated returns the bytes that fn allocates, and fails t if fn fails.
func allocated(t *testing.T, fn func() error) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := fn(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
