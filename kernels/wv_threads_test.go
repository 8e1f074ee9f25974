package kernels

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// wvThreadsCases returns the kernels and graphs of the thread tests: MUTAG
// whole with the Dirac kernel on its labels (it has no attributes), which
// are their own ids, and on labels beyond directLabels, which are numbered
// (see newWVVertexMapper), and
// subsets of ENZYMES (18 attributes, packed bins) and Synthie (15
// attributes, larger graphs) with the hat kernel, binned with P = 16
// iterations by the explicit method. mk makes the kernel for a number of
// threads.
func wvThreadsCases(t *testing.T) []struct {
	name string
	gs   []*graph.Graph
	mk   func(threads int) Kernel
} {
	t.Helper()
	subset := func(name string, n int) []*graph.Graph {
		sub, err := graphtest.Dataset(t, name).RandomSubset(n, 2)
		if err != nil {
			t.Fatal(err)
		}
		return sub.Graphs
	}
	mutag := graphtest.Dataset(t, "MUTAG").Graphs
	enzymes, synthie := subset("ENZYMES", 60), subset("Synthie", 24)
	dirac := AttrKernel{Kind: "dirac"}
	hat := AttrKernel{Kind: "hat", Delta: 1, Iterations: 16, Seed: 5}
	type tc = struct {
		name string
		gs   []*graph.Graph
		mk   func(threads int) Kernel
	}
	var cases []tc
	for _, d := range []struct {
		name string
		gs   []*graph.Graph
		a    AttrKernel
	}{{"MUTAG/dirac", mutag, dirac}, {"MUTAG/dirac/far", farLabels(mutag), dirac}, {"ENZYMES/hat", enzymes, hat}, {"Synthie/hat", synthie, hat}} {
		cases = append(cases,
			tc{"gi/" + d.name, d.gs, func(th int) Kernel { return &GraphInvariant{H: 3, Attr: d.a, Threads: th} }},
			tc{"gh/" + d.name, d.gs, func(th int) Kernel { return &GraphHopper{Attr: d.a, Threads: th} }})
	}
	return cases
}

// farLabels returns gs with label l replaced by directLabels+7−l, the same
// partition of the vertices with labels that are not their own ids.
func farLabels(gs []*graph.Graph) []*graph.Graph {
	out := make([]*graph.Graph, len(gs))
	for i, g := range gs {
		ls := make([]int32, len(g.Labels))
		for v, l := range g.Labels {
			ls[v] = directLabels + 7 - l
		}
		out[i] = g.WithLabels(ls)
	}
	return out
}

// TestWVFarLabels checks that labels numbered as met give GI and
// GraphHopper the matrix of the same labels as their own ids: relabelling
// the vertices one to one leaves a Dirac kernel unchanged, and the sums
// are of integers, so the two agree exactly.
func TestWVFarLabels(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs[:60]
	far := farLabels(mutag)
	if x := newWVVertexMapper(Dirac{}, mutag); x.labels == 0 {
		t.Fatalf("MUTAG's labels are not their own ids")
	}
	if x := newWVVertexMapper(Dirac{}, far); x.labels != 0 {
		t.Fatalf("labels from %d are their own ids", directLabels)
	}
	dirac := AttrKernel{Kind: "dirac"}
	for _, k := range []Kernel{&GraphInvariant{H: 3, Attr: dirac}, &GraphHopper{Attr: dirac}} {
		want, _, err := k.Gram(context.Background(), mutag, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := k.Gram(context.Background(), far, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		requireEqual(t, k.Name()+" far labels", want, got)
	}
}

// TestWVThreads checks that GI and GraphHopper give the same matrix, to the
// bit, and the same counters on 2 and 3 threads as on one (the reference,
// the sequential code of the paper's timings), by both methods. The
// number of pairs is also checked against n(n+1)/2, the pairs i ≤ j.
func TestWVThreads(t *testing.T) {
	ctx := context.Background()
	for _, tc := range wvThreadsCases(t) {
		for _, m := range []Method{Explicit, Implicit} {
			want, wrep, err := tc.mk(1).Gram(ctx, tc.gs, m)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, m, err)
			}
			n := int64(len(tc.gs))
			if m == Implicit && wrep.Pairs != n*(n+1)/2 {
				t.Errorf("%s %s: %d pairs, want %d", tc.name, m, wrep.Pairs, n*(n+1)/2)
			}
			for _, threads := range []int{2, 3} {
				what := fmt.Sprintf("%s %s threads %d", tc.name, m, threads)
				got, rep, err := tc.mk(threads).Gram(threadsContext(threads), tc.gs, m)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				requireEqual(t, what, want, got)
				if c, w := wvCounters(rep), wvCounters(wrep); c != w {
					t.Errorf("%s: counters %+v, want %+v", what, c, w)
				}
			}
		}
	}
}

// wvCounters returns the counters of a Report, which must not depend on
// the number of threads, unlike its times.
func wvCounters(r *Report) [7]int64 {
	return [7]int64{r.FeatureNNZ, r.MaxFeatureNNZ, r.Features, r.ProductVertices, r.ProductEdges, r.Pairs, r.Comparisons}
}

// TestWVThreadsCancel checks that a cancelled context stops both methods
// on several threads with its error, also GI's map with the hat kernel,
// whose colours are refined ahead (see giLater).
func TestWVThreadsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	enzymes := graphtest.Dataset(t, "ENZYMES").Graphs[:60]
	hat := AttrKernel{Kind: "hat", Delta: 1, Iterations: 4}
	if !giRefineAhead(enzymes, &hat, 3) {
		t.Fatal("GI's map refines ENZYMES's colours as it goes, want ahead")
	}
	for _, c := range []struct {
		k  Kernel
		gs []*graph.Graph
	}{
		{&GraphInvariant{H: 3, Attr: AttrKernel{Kind: "dirac"}, Threads: 2}, gs},
		{&GraphHopper{Attr: AttrKernel{Kind: "dirac"}, Threads: 2}, gs},
		{&GraphInvariant{H: 3, Attr: hat, Threads: 2}, enzymes},
	} {
		k := c.k
		for _, m := range []Method{Explicit, Implicit} {
			if _, _, err := k.Gram(ctx, c.gs, m); !errors.Is(err, context.Canceled) {
				t.Errorf("%s %s: error %v, want %v", k.Name(), m, err, context.Canceled)
			}
		}
	}
}

// TestWVEstimateBytesThreads checks that the memory estimates of the
// explicit GI and GraphHopper maps on 2 threads bound what Gram allocates
// beyond the result, as TestWVEstimateBytes does for one thread, on 100
// ENZYMES graphs: with δ = 10⁻⁹, where hardly any pairs merge, so that the
// estimate is close to what the map allocates, and whose bins do not pack,
// so that one goroutine bins them in turn; and with δ = 1, whose bins
// pack, so that all workers bin ahead (see numberBins).
func TestWVEstimateBytesThreads(t *testing.T) {
	sub, err := graphtest.Dataset(t, "ENZYMES").RandomSubset(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	gs := sub.Graphs
	a := AttrKernel{Kind: "hat", Delta: 1e-9, Iterations: 16}
	packed := AttrKernel{Kind: "hat", Delta: 1, Iterations: 16}
	for _, k := range []interface {
		Kernel
		MemoryEstimator
	}{&GraphInvariant{H: 3, Attr: a, Threads: 2}, &GraphHopper{Attr: a, Threads: 2},
		&GraphInvariant{H: 3, Attr: packed, Threads: 2}, &GraphHopper{Attr: packed, Threads: 2}} {
		est := k.EstimateBytes(gs, Explicit, 0)
		runtime.GC()
		got := int64(gramAllocated(context.Background(), t, k, gs)) - 8*int64(len(gs)*len(gs))
		if est < got {
			t.Errorf("%s: estimate %d bytes, allocated %d", k.Name(), est, got)
		}
		t.Logf("%s: estimate %d bytes, allocated %d, ratio %.2f", k.Name(), est, got, float64(est)/float64(got))
	}
}

// TestGHStreamSameVectors checks that the explicit GraphHopper map, which
// computes M(v) graph by graph in its workers and renumbers the weight
// features once δ is known (ghStream), gives the same vectors to the bit,
// with the same ids, as the map over the matrices of every graph kept
// beforehand (ghWeights), which the implicit method uses, on 1 to 3
// threads. On these graphs the stride, the most vertices of a graph, is
// well above δ, so the renumbering is exercised.
func TestGHStreamSameVectors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range wvThreadsCases(t) {
		k, ok := tc.mk(1).(*GraphHopper)
		if !ok {
			continue
		}
		gs := graph.ScaleAttributes(tc.gs)
		kept, _, err := newGHWeights(ctx, gs, 1)
		if err != nil {
			t.Fatal(err)
		}
		stream := newGHStream(gs)
		if stream.stride <= kept.delta {
			t.Fatalf("%s: stride %d, δ %d: the renumbering goes untested", tc.name, stream.stride, kept.delta)
		}
		dim, err := attrDim(gs)
		if err != nil {
			t.Fatal(err)
		}
		vm, err := k.Attr.featureMap(dim)
		if err != nil {
			t.Fatal(err)
		}
		want, wantDim, err := wvVectorsOn(ctx, gs, kept, vm, 1)
		if err != nil {
			t.Fatal(err)
		}
		for threads := 1; threads <= 3; threads++ {
			vm, _ := k.Attr.featureMap(dim)
			got, gotDim, err := wvVectorsOn(ctx, gs, newGHStream(gs), vm, threads)
			if err != nil {
				t.Fatal(err)
			}
			if gotDim != wantDim {
				t.Errorf("%s, %d threads: %d features, want %d", tc.name, threads, gotDim, wantDim)
			}
			for i := range want {
				if !sameVec(got[i], want[i]) {
					t.Errorf("%s, %d threads: graph %d's vector differs", tc.name, threads, i)
					break
				}
			}
		}
	}
}

// byRows hides the columns of GI's weight features, so that the explicit
// map sums them as it sums any weights, all of a graph's at once.
type byRows struct{ w *giWeights }

func (r byRows) features(dst []Feature, g, u int) []Feature { return r.w.features(dst, g, u) }

func (r byRows) load(context.Context, int, *weightScratch) (weightFeatures, error) {
	return r, nil
}

func (r byRows) dense() (int, func([]uint64)) { return r.w.dense() }

// TestGIColumnsSameVectors checks that GI's map summed a column (an
// iteration) at a time (wvScratch.sumColumns), from colours refined
// beforehand, streamed or refined ahead on 1 to 3 threads, gives the
// vectors, to the bit and with the same ids, that the map of any weights
// gives, which sorts all of a graph's features at once: with the Dirac
// kernel, whose vertex features are the labels with value 1, and with
// binned attributes, whose values are not.
func TestGIColumnsSameVectors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range wvThreadsCases(t) {
		k, ok := tc.mk(1).(*GraphInvariant)
		if !ok {
			continue
		}
		gs := graph.ScaleAttributes(tc.gs)
		vecsOf := wvVecsOf(t, gs, k.Attr)
		refined := newGIWeights(graph.Refine(gs, k.H, graph.Uniform))
		want, wantDim := vecsOf(byRows{refined}, 1)
		check := func(name string, got []Vec, gotDim int) {
			t.Helper()
			checkSameVecs(t, tc.name+", "+name, got, gotDim, want, wantDim)
		}
		got, gotDim := vecsOf(refined, 1)
		check("refined", got, gotDim)
		for threads := 1; threads <= 3; threads++ {
			st, ok := newGIStream(ctx, gs, k.H)
			if !ok {
				t.Fatalf("%s: no stream", tc.name)
			}
			got, gotDim := vecsOf(st, threads)
			check(fmt.Sprintf("streamed on %d threads", threads), got, gotDim)
			got, gotDim = vecsOf(refineAhead(ctx, gs, k.H), threads)
			check(fmt.Sprintf("refined ahead on %d threads", threads), got, gotDim)
		}
	}
}

// TestGIStreamLoad checks the waits of GI's streamed refinement: a graph's
// weights load once it is refined, with Refine's colours; a worker that
// waits while others run the stages it needs stops when ctx is done, and
// so does one that runs a stage, keeping the graphs it refined; and the
// stages run side by side, each in order.
func TestGIStreamLoad(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	want := graph.Refine(gs, 3, graph.Uniform)
	w, ok := newGIStream(context.Background(), gs, 3)
	if !ok {
		t.Fatal("MUTAG's colours do not fit")
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()

	// Other workers run every stage: the waiting one gives up.
	for i := range w.stages {
		w.stages[i].running.Lock()
	}
	if _, err := w.load(done, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting load: error %v, want %v", err, context.Canceled)
	}
	for i := range w.stages {
		w.stages[i].running.Unlock()
	}
	// A worker that runs a stage checks ctx before its first graph.
	if _, err := w.load(done, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("refining load: error %v, want %v", err, context.Canceled)
	}
	if d := w.stages[0].done.Load(); d != 0 {
		t.Errorf("%d graphs refined under a done ctx, want 0", d)
	}
	// With the first stage taken, the others wait for it.
	w.stages[0].running.Lock()
	if ran, err := w.advance(context.Background(), 0, 1); ran || err != nil {
		t.Errorf("advance with the first stage taken: ran %v, error %v; want false, nil", ran, err)
	}
	w.stages[0].running.Unlock()
	// The latest stage that can run does, a batch at a time.
	for range 3 {
		if ran, err := w.advance(context.Background(), 0, 1); !ran || err != nil {
			t.Fatalf("advance: ran %v, error %v; want true, nil", ran, err)
		}
	}
	for i, d := range []int64{streamBatch, streamBatch, streamBatch} {
		if got := w.stages[i].done.Load(); got != d {
			t.Errorf("stage %d: %d graphs refined, want %d", i+1, got, d)
		}
	}
	// Of two workers, the first prefers stages 1 and 2, the second stage
	// 3: each runs the latest of its own that can, else the latest of
	// any. The batches through each stage after each advance, from one
	// each:
	for _, step := range []struct {
		worker  int
		batches [3]int64
	}{
		{1, [3]int64{2, 1, 1}}, // its stage 3 waits for stage 2
		{0, [3]int64{2, 2, 1}}, // stage 2, its latest that can run
		{0, [3]int64{3, 2, 1}}, // stage 1, though stage 3 could run
		{1, [3]int64{3, 2, 2}},
	} {
		if ran, err := w.advance(context.Background(), step.worker, 2); !ran || err != nil {
			t.Fatalf("advance of worker %d: ran %v, error %v; want true, nil", step.worker, ran, err)
		}
		for i, b := range step.batches {
			if got := w.stages[i].done.Load(); got != b*streamBatch {
				t.Errorf("after worker %d's advance, stage %d: %d graphs refined, want %d", step.worker, i+1, got, b*streamBatch)
			}
		}
	}
	// Then four workers refine them all for the graphs they ask for, the
	// fourth preferring no stage.
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Go(func() {
			sc := &weightScratch{worker: k, workers: 4}
			for g := k; g < len(gs); g += 4 {
				if _, err := w.load(context.Background(), g, sc); err != nil {
					t.Error(err)
					return
				}
				if !w.refined(g) {
					t.Errorf("graph %d loaded before it was refined", g)
				}
			}
		})
	}
	wg.Wait()
	for i := range w.stages {
		if d := w.stages[i].done.Load(); d != int64(len(gs)) {
			t.Errorf("stage %d: %d graphs refined, want %d", i+1, d, len(gs))
		}
	}
	if !reflect.DeepEqual(w.colours, want) {
		t.Error("streamed colours differ from Refine's")
	}
}

// TestGIRefineAhead checks giRefineAhead's choice for the cells it was
// fitted to: ahead where the binning, with the scaling, costs at least the
// refinement, measured on two threads as faster (ENZYMES at P = 1,
// PROTEINS from P = 2, Synthie and SYNTHETICnew at P = 4), and streamed
// where the refinement costs more (PROTEINS and SYNTHETICnew at P = 1,
// which took 11% and 6% longer refined ahead), and never with the Dirac
// kernel, which bins nothing, or without iterations.
func TestGIRefineAhead(t *testing.T) {
	for _, tc := range []struct {
		data  string
		a     AttrKernel
		h     int
		ahead bool
	}{
		{"ENZYMES", AttrKernel{Kind: "hat", Delta: 1, Iterations: 1}, 3, true},
		{"PROTEINS", AttrKernel{Kind: "hat", Delta: 1, Iterations: 1}, 3, false},
		{"PROTEINS", AttrKernel{Kind: "hat", Delta: 1, Iterations: 2}, 3, true},
		{"Synthie", AttrKernel{Kind: "hat", Delta: 1, Iterations: 4}, 3, true},
		{"SYNTHETICnew", AttrKernel{Kind: "hat", Delta: 1, Iterations: 1}, 3, false},
		{"SYNTHETICnew", AttrKernel{Kind: "hat", Delta: 1, Iterations: 4}, 3, true},
		{"ENZYMES", AttrKernel{Kind: "dirac"}, 3, false},
		{"ENZYMES", AttrKernel{Kind: "hat", Delta: 1, Iterations: 4}, 0, false},
	} {
		gs := graphtest.Dataset(t, tc.data).Graphs
		if got := giRefineAhead(gs, &tc.a, tc.h); got != tc.ahead {
			t.Errorf("%s, %s kernel, P = %d, h = %d: ahead %t, want %t", tc.data, tc.a.Kind, tc.a.Iterations, tc.h, got, tc.ahead)
		}
	}
}

// TestNumberBins checks that the bins numbered ahead by several workers
// are the sequential binning's, id for id, and that the binning then holds
// the same bins; and that it leaves the binning to the sequential feeder
// where the bins do not pack (no layout fits δ = 10⁻⁹ on 18 attributes,
// or the attributes are not scaled) or the binning has bins already.
func TestNumberBins(t *testing.T) {
	sub, err := graphtest.Dataset(t, "ENZYMES").RandomSubset(60, 3)
	if err != nil {
		t.Fatal(err)
	}
	gs := graph.ScaleAttributes(sub.Graphs)
	const p = 16
	seq, _ := NewBinning(1, p, 18, 5)
	var want [][]uint32
	var fv []Feature
	for _, g := range gs {
		var ids []uint32
		for v := range g.N() {
			fv = seq.VertexFeatures(fv[:0], g, v)
			for _, f := range fv {
				ids = append(ids, uint32(f.ID))
			}
		}
		want = append(want, ids)
	}
	for _, threads := range []int{2, 3} {
		b, _ := NewBinning(1, p, 18, 5)
		bins, err := numberBins(threadsContext(threads), gs, b, threads)
		if err != nil || bins == nil {
			t.Fatalf("threads %d: bins %v, err %v, want bins", threads, bins, err)
		}
		for i, g := range gs {
			f := bins.features(wvVertexFeatures{vs: []int32{0}}, i, g.N())
			if len(f.vf) != len(want[i]) {
				t.Fatalf("threads %d, graph %d: %d bins, want %d", threads, i, len(f.vf), len(want[i]))
			}
			for r, id := range f.vf {
				if id != want[i][r] {
					t.Fatalf("threads %d, graph %d, vertex %d, iteration %d: bin %d, want %d", threads, i, r/p, r%p, id, want[i][r])
				}
			}
		}
		if b.Bins() != seq.Bins() {
			t.Errorf("threads %d: %d bins, want %d", threads, b.Bins(), seq.Bins())
		}
	}
	// Unscaled, ENZYMES's attributes lie in [−213, 762]: their bins do not pack
	// into δ = 1's layout, and the workers' would be tuple ids.
	unpacked, _ := NewBinning(1e-9, p, 18, 5)
	used, _ := NewBinning(1, p, 18, 5)
	used.VertexFeatures(nil, gs[0], 0)
	outside, _ := NewBinning(1, p, 18, 5)
	for _, tc := range []struct {
		name string
		b    *Binning
		gs   []*graph.Graph
	}{{"unpacked", unpacked, gs}, {"used", used, gs}, {"outside", outside, sub.Graphs}} {
		if bins, err := numberBins(threadsContext(2), tc.gs, tc.b, 2); bins != nil || err != nil {
			t.Errorf("%s: bins %v, err %v, want neither", tc.name, bins != nil, err)
		}
	}
}

// listed hides the packed positions of GraphHopper's weight features
// (and the columns of GI's), so that the explicit map sums them as it sums
// any weights, each vertex's non-zeros listed and sorted by feature.
type listed struct{ explicitWeights }

func (l listed) load(ctx context.Context, g int, sc *weightScratch) (weightFeatures, error) {
	wf, err := l.explicitWeights.load(ctx, g, sc)
	return listedFeatures{wf}, err
}

type listedFeatures struct{ weightFeatures }

// TestGHPositionsSameVectors checks that GraphHopper's map summed a packed
// position at a time (wvScratch.sumPacked), from matrices computed
// beforehand or streamed on 1 to 3 threads, gives the vectors, to the bit
// and with the same ids, that the map of any weights gives, which lists a
// graph's features and sorts them: with the Dirac kernel and with binned
// attributes.
func TestGHPositionsSameVectors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range wvThreadsCases(t) {
		k, ok := tc.mk(1).(*GraphHopper)
		if !ok {
			continue
		}
		gs := graph.ScaleAttributes(tc.gs)
		vecsOf := wvVecsOf(t, gs, k.Attr)
		kept, _, err := newGHWeights(ctx, gs, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, wantDim := vecsOf(listed{kept}, 1)
		check := func(name string, got []Vec, gotDim int) {
			t.Helper()
			checkSameVecs(t, tc.name+", "+name, got, gotDim, want, wantDim)
		}
		got, gotDim := vecsOf(kept, 1)
		check("kept", got, gotDim)
		for threads := 1; threads <= 3; threads++ {
			got, gotDim := vecsOf(newGHStream(gs), threads)
			check(fmt.Sprintf("streamed on %d threads", threads), got, gotDim)
			got, gotDim = vecsOf(listed{newGHStream(gs)}, threads)
			check(fmt.Sprintf("streamed and listed on %d threads", threads), got, gotDim)
		}
	}
}

// wvVecsOf returns a function that maps gs, whose attributes are scaled,
// with weights w and attribute kernel a on threads workers, and returns
// the vectors and their number of features.
func wvVecsOf(t *testing.T, gs []*graph.Graph, a AttrKernel) func(w explicitWeights, threads int) ([]Vec, int) {
	t.Helper()
	dim, err := attrDim(gs)
	if err != nil {
		t.Fatal(err)
	}
	return func(w explicitWeights, threads int) ([]Vec, int) {
		t.Helper()
		vm, err := a.featureMap(dim)
		if err != nil {
			t.Fatal(err)
		}
		vecs, n, err := wvVectorsOn(context.Background(), gs, w, vm, threads)
		if err != nil {
			t.Fatal(err)
		}
		return vecs, n
	}
}

// checkSameVecs reports where got, of gotDim features, differs from want,
// of wantDim: in the number of features or, for the first graph that
// differs, in a vector's ids or values.
func checkSameVecs(t *testing.T, name string, got []Vec, gotDim int, want []Vec, wantDim int) {
	t.Helper()
	if gotDim != wantDim {
		t.Errorf("%s: %d features, want %d", name, gotDim, wantDim)
	}
	for i := range want {
		if !sameVec(got[i], want[i]) {
			t.Errorf("%s: graph %d's vector differs", name, i)
			return
		}
	}
}
