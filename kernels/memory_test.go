package kernels

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// heapObjects returns the bytes of heap objects, live or not yet swept: the
// figure that the harness samples, records as a cell's peak and holds
// against its memory limit (harness/limits.go).
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakHeap returns the peak of heapObjects while f runs, above the live
// heap before it, sampled as the harness does but every 100 µs. The
// garbage collector runs at GOGC=100, whatever the environment says,
// since the headroom it leaves is part of the figure.
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	base := heapObjects()
	var (
		mu   sync.Mutex
		peak = base
		wg   sync.WaitGroup
		done = make(chan struct{})
	)
	sample := func() {
		v := heapObjects()
		mu.Lock()
		peak = max(peak, v)
		mu.Unlock()
	}
	wg.Go(func() {
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	sample()
	return peak - base
}

// memoryFactor bounds the ratio of an estimate to the measured peak. The
// estimates are gcHeadroom = 2 times the data they model as live, while
// the measured heap holds 1 to 2 times the live data, by when the
// collector ran; and the model over-estimates the live data by up to
// 2.5×, since its extrapolation of the distinct features from a sample
// over-estimates them by 3.6–7.4× far from the sample (see
// estimationSample.features), diluted by the non-zeros, which it
// estimates within 10–20%. On all of U251 and NCI1 at walk lengths 2 to
// 10 the ratio is 2 to 4.6.
const memoryFactor = 5

// TestMemoryEstimateMeasured checks that the memory estimates of the
// explicit walk and shortest-path maps bound the peak heap of their Gram
// computation, less the matrix, within memoryFactor, on real data.
func TestMemoryEstimateMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("measures Gram matrices of hundreds of graphs")
	}
	lambda := []float64{1, .5, .25, .125, .0625, .03125, .015625, .0078125, .00390625}
	tests := []struct {
		name string
		data string
		n    int // 0 for all graphs
		// factor bounds estimate/measured; 0 means memoryFactor. The
		// dot products' bytes count one block of posting lists, 16
		// bytes a non-zero, whichever scheme runs. SP on NCI1 takes
		// merge joins, which build none, but by 1.5% of mergeCheaper's
		// steps (1.38·10⁹ against 1.40·10⁹), closer than a sample can
		// tell (its estimates: 19% more non-zeros, 11% fewer
		// products), so the posting lists must be counted: 2 (the
		// headroom) × 1.19 × 2.1 (the lists) = 5.0×, and 5.4× with
		// the vectors' pairSlabs priced at their bound (see
		// slabPairs), which the largest graph's vector sets. Where the
		// collector ran then moves the measured peak: SP's on one
		// thread was 4.2 MiB in 13 of 15 runs (5.5×), 3.7 in 2 (6.3×),
		// and so SP's bound is 7.
		factor int64
		k      interface {
			Kernel
			MemoryEstimator
		}
		// ws computes the matrix under a Workspace that a first matrix
		// filled, and counts its buffers as the run's, as runexp's
		// limit does (see kernels.Workspace).
		ws bool
	}{
		{"walk-l8", "U251", 400, 0, &Walk{Length: 8}, false},
		{"walk-l10", "U251", 300, 0, &Walk{Length: 10}, false},
		{"walk-l6", "U251", 0, 0, &Walk{Length: 6}, false},
		{"walk-max-l8", "U251", 300, 0, &Walk{Length: 8, Max: true, Lambda: lambda}, false},
		{"walk-l8-threads2", "U251", 300, 0, &Walk{Length: 8, Threads: 2}, false},
		{"walk-l8-workspace", "U251", 400, 0, &Walk{Length: 8}, true},
		{"walk-l8-threads2-workspace", "U251", 300, 0, &Walk{Length: 8, Threads: 2}, true},
		{"walk-l9-threads2-workspace", "MUTAG", 0, 0, &Walk{Length: 9, Threads: 2}, true},
		{"walk-l4-wl1", "U251", 300, 0, &Walk{Length: 4, WL: 1}, false},
		// WL refinement's signature tables, which a Workspace keeps
		// (see refineBytes): one table on one thread, one an
		// iteration pipelined (h = 2 to 4, length 0, which the packed
		// map does not take), split (MUTAG, h = 1, length 0), and
		// with the packed map streamed one an iteration and every
		// iteration's colours all through the map (lengths 1).
		// Without the tables the estimate of the pipelined row was 17
		// MiB, its tables alone 24. The shared table keeps none, and
		// the sampler catches its peak or not: NCI1 at h = 1 measured
		// 3.4 to 5.8 MiB from run to run against 19.0 estimated, so
		// TestRefineBytes checks its formula instead.
		{"walk-l1-wl4-workspace", "NCI1", 0, 0, &Walk{Length: 1, WL: 4}, true},
		{"walk-l0-wl4-threads2-workspace", "NCI1", 0, 0, &Walk{Length: 0, WL: 4, Threads: 2}, true},
		{"walk-l1-wl3-threads2-workspace", "NCI1", 0, 0, &Walk{Length: 1, WL: 3, Threads: 2}, true},
		{"walk-l1-wl1-threads2-workspace", "MUTAG", 0, 0, &Walk{Length: 1, WL: 1, Threads: 2}, true},
		{"walk-l0-wl1-threads2-workspace", "MUTAG", 0, 0, &Walk{Length: 0, WL: 1, Threads: 2}, true},
		{"walk-l10", "NCI1", 400, 0, &Walk{Length: 10}, false},
		{"walk-l8", "NCI1", 0, 0, &Walk{Length: 8}, false},
		{"sp", "NCI1", 0, 7, &ShortestPath{}, false},
		{"sp-threads2", "NCI1", 0, 7, &ShortestPath{Threads: 2}, false},
		// SP with binned attributes counts its keys for pairs of
		// iterations (see ShortestPath.attrCount): all 16 at P = 4, 32
		// of 256 at P = 16. Attributes of one dimension fall into few
		// bins, whose keys the closed form overcounts 1300× and 140×
		// here.
		{"sp-hat", "ENZYMES", 150, 0, &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}}, false},
		{"sp-hat", "ENZYMES", 0, 0, &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}}, false},
		{"sp-hat-p16", "ENZYMES", 60, 0, &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 16, Seed: 1}}, false},
		{"sp-hat-p16", "SYNTHETICnew", 60, 0, &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 16, Seed: 1}}, false},
		{"sp-hat-p16", "PROTEINS", 60, 0, &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 16, Seed: 1}}, false},
		{"sp-hat", "Synthie", 60, 0, &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}}, false},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s-%d/%s", tt.data, tt.n, tt.name)
		t.Run(name, func(t *testing.T) {
			ds := graphtest.Dataset(t, tt.data)
			if tt.n > 0 {
				var err error
				if ds, err = ds.RandomSubset(tt.n, 1); err != nil {
					t.Fatal(err)
				}
			}
			gs := ds.Graphs
			n := int64(len(gs))
			est := tt.k.EstimateBytes(gs, Explicit, 0)
			ctx := context.Background()
			var ws *Workspace
			if tt.ws {
				ws = NewWorkspace()
				ctx = WithWorkspace(ctx, ws)
				if _, _, err := tt.k.Gram(ctx, gs, Explicit); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			peak := peakHeap(func() { _, _, err = tt.k.Gram(ctx, gs, Explicit) })
			if err != nil {
				t.Fatal(err)
			}
			// The estimates leave out the matrix, the result.
			got := int64(peak) - 8*n*n + ws.Bytes()
			t.Logf("estimate %.1f MiB, measured %.1f MiB (%.2f×)", mib(est), mib(got), float64(est)/float64(got))
			factor := tt.factor
			if factor == 0 {
				factor = memoryFactor
			}
			if est < got || est > factor*got {
				t.Errorf("estimate %.1f MiB, measured %.1f MiB: want the estimate in [1, %d]× the measurement", mib(est), mib(got), factor)
			}
		})
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// TestRefineBytes checks that refineBytes prices the way refineLabels
// refines: four paths of 200 vertices, 800 vertices and 2 × 796 arcs, so
// 2392 words of signature; a table 40·800 + 8·2392 = 51136 bytes, a
// labelling 3200 (expected values by hand from refineBytes's formulas).
func TestRefineBytes(t *testing.T) {
	gs := []*graph.Graph{plainPath(200), plainPath(200), plainPath(200), plainPath(200)}
	// The relabelled graphs: four graph.Graphs and their pointers.
	const table, labels, graphs = 51136.0, 3200.0, 4 * 216.0
	tests := []struct {
		name       string
		h, threads int
		streamed   bool
		peak, kept float64
	}{
		{"none", 0, 2, false, 0, 0},
		{"one thread", 3, 1, false, table + 2*labels + graphs, table + labels + graphs},
		// h = 2 to 4 on two threads: one table an iteration and every
		// iteration's colours.
		{"pipelined", 3, 2, false, 3*table + 4*labels + graphs, 3*table + labels + graphs},
		// h = 1 on two parts of at least 256 vertices: two tables.
		{"split", 1, 2, false, 2*table + 2*labels + graphs, 2*table + labels + graphs},
		// h = 5: the shared table, and 8 bytes a vertex, none kept.
		{"shared", 5, 2, false, table + 8*800 + 2*labels + graphs, labels + graphs},
		// Streamed with the packed map, at h = 1 and 3: the tables and
		// every iteration's colours through the map.
		{"streamed h=1", 1, 2, true, table + 2*labels + graphs, table + 2*labels + graphs},
		{"streamed h=3", 3, 2, true, 3*table + 4*labels + graphs, 3*table + 4*labels + graphs},
	}
	for _, tt := range tests {
		peak, kept := refineBytes(gs, tt.h, tt.threads, tt.streamed)
		if peak != tt.peak || kept != tt.kept {
			t.Errorf("%s: refineBytes = %v, %v; want %v, %v", tt.name, peak, kept, tt.peak, tt.kept)
		}
	}
}

// TestWalkEstimateBytesLimit checks that a limit changes only how much of
// the walk map's estimate is computed, not on which side of the limit it
// falls: below the limit the estimate is the same or the closed-form
// bound within it, above the limit it exceeds the limit.
func TestWalkEstimateBytesLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("maps samples of ENZYMES after WL refinement")
	}
	ds := graphtest.Dataset(t, "ENZYMES")
	sub, err := ds.RandomSubset(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	gs := sub.Graphs
	tests := []struct {
		name  string
		k     *Walk
		limit int64
	}{
		// fig-walk-wl's quick profile, its limit 1 GiB: without WL the
		// map fits; after 2 iterations long walks do not, which took the
		// unbounded estimate 28 s at length 7 (here length 5 and a
		// smaller limit, for the test's time).
		{"l7-fits", &Walk{Length: 7}, 1 << 30},
		{"l5-wl2-oom", &Walk{Length: 5, WL: 2}, 64 << 20},
		{"l4-wl1-fits", &Walk{Length: 4, WL: 1}, 1 << 30},
		// A limit below the estimate of a small map, on both paths.
		{"l3-tight", &Walk{Length: 3}, 64 << 10},
		{"l3-threads2-tight", &Walk{Length: 3, Threads: 2}, 64 << 10},
		{"l3-max-tight", &Walk{Length: 3, Max: true, Lambda: []float64{1, 1, 1, 1}}, 64 << 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			full := tt.k.EstimateBytes(gs, Explicit, 0)
			mid := time.Now()
			got := tt.k.EstimateBytes(gs, Explicit, tt.limit)
			t.Logf("estimate %.2f MiB in %v, with limit %.2f MiB: %.2f MiB in %v",
				mib(full), mid.Sub(start), mib(tt.limit), mib(got), time.Since(mid))
			if (full > tt.limit) != (got > tt.limit) {
				t.Errorf("estimate %d, with limit %d: %d, on the other side of the limit", full, tt.limit, got)
			}
			if got <= tt.limit && got < full {
				t.Errorf("estimate within limit %d is %d, below the unbounded %d", tt.limit, got, full)
			}
		})
	}
}

// TestSPAttrBound checks the bound of SP's non-zeros with attributes, and
// their count (see ShortestPath.attrCount), against hand counts, and that
// the bound holds the map's non-zeros.
func TestSPAttrBound(t *testing.T) {
	path := []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}}
	tests := []struct {
		name  string
		attrs []float64
		edges []graph.Edge
		p     int
		want  float64
	}{
		// Three equal attributes on a path: every vertex has the same
		// P = 2 features, so F = 2. Length 1: 4 ordered pairs × 2² =
		// 16 products, at most F² = 4 keys; length 2: 2 × 4 = 8, at
		// most 4. The map makes exactly those 4 + 4.
		{"equal", []float64{0.5, 0.5, 0.5}, path, 2, 8},
		// The same with one iteration: F = 1, one key a length.
		{"equal-p1", []float64{0.5, 0.5, 0.5}, path, 1, 2},
		// A vertex apart: its pairs have no path and make no key. The
		// edge's 2 ordered pairs at length 1, P² = 1 product each,
		// F = 1: one key.
		{"isolated", []float64{0.5, 0.5, 0.5}, []graph.Edge{{U: 0, V: 1}}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := attrGraph(t, []int32{0, 0, 0}, tt.edges, tt.attrs, 1)
			k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: tt.p, Seed: 1}}
			gs, vm, err := k.attrMap([]*graph.Graph{g})
			if err != nil {
				t.Fatal(err)
			}
			b := attrBound(gs, vm)
			if b.nnz != tt.want {
				t.Errorf("bound %v non-zeros, want %v", b.nnz, tt.want)
			}
			// Every pair of iterations is counted, exactly; one
			// graph's keys are all the features, which the sketch
			// counts within 1% when they are few.
			c, ok := k.attrCount(gs, vm)
			if !ok {
				t.Fatal("attrCount: not ok")
			}
			if c.nnz != tt.want || c.maxNNZ != tt.want || math.Abs(c.features-tt.want) > 0.01*tt.want {
				t.Errorf("counted %v non-zeros, %v in a graph, %v features; want %v each", c.nnz, c.maxNNZ, c.features, tt.want)
			}
			_, rep, err := k.Gram(context.Background(), []*graph.Graph{g}, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			if float64(rep.FeatureNNZ) > b.nnz {
				t.Errorf("the map made %d non-zeros, over the bound %v", rep.FeatureNNZ, b.nnz)
			}
		})
	}
	// On real subsets the bound holds the map's non-zeros.
	for _, data := range []string{"SYNTHETICnew", "ENZYMES"} {
		ds := graphtest.Dataset(t, data)
		sub, err := ds.RandomSubset(30, 1)
		if err != nil {
			t.Fatal(err)
		}
		k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}}
		gs, vm, err := k.attrMap(sub.Graphs)
		if err != nil {
			t.Fatal(err)
		}
		b := attrBound(gs, vm)
		_, rep, err := k.Gram(context.Background(), sub.Graphs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		if float64(rep.FeatureNNZ) > b.nnz {
			t.Errorf("%s: the map made %d non-zeros, over the bound %v", data, rep.FeatureNNZ, b.nnz)
		}
	}
}

// TestSPAttrCount checks the counted keys of SP with binned attributes
// against the map on real subsets: exactly where every pair of iterations
// is counted, and within the sample's error where 32 pairs of P² are.
// TestSPAttrBound checks them by hand.
func TestSPAttrCount(t *testing.T) {
	for _, data := range []string{"SYNTHETICnew", "ENZYMES"} {
		ds := graphtest.Dataset(t, data)
		sub, err := ds.RandomSubset(30, 1)
		if err != nil {
			t.Fatal(err)
		}
		// At P = 4 every pair is counted: the non-zeros exactly, the
		// features within three standard errors of the sketch, 5%. At
		// P = 16 the sample of 32 pairs plus two standard errors came
		// to 1.04–1.11 times the map's on 60 graphs of each.
		for _, tc := range []struct {
			p      int
			lo, hi float64
		}{{4, 1, 1}, {16, 0.9, 1.3}} {
			k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: tc.p, Seed: 1}}
			// count maps the graphs afresh, as the estimate does.
			count := func() spAttrCount {
				gs, vm, err := k.attrMap(sub.Graphs)
				if err != nil {
					t.Fatal(err)
				}
				c, ok := k.attrCount(gs, vm)
				if !ok {
					t.Fatalf("%s: attrCount: not ok", data)
				}
				return c
			}
			c, again := count(), count()
			if again != c {
				t.Errorf("%s P=%d: counted %+v, then %+v", data, tc.p, c, again)
			}
			_, rep, err := k.Gram(context.Background(), sub.Graphs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			nnz, feats := c.nnz/float64(rep.FeatureNNZ), c.features/float64(rep.Features)
			t.Logf("%s P=%d: non-zeros %.3f, features %.3f of the map's", data, tc.p, nnz, feats)
			if nnz < tc.lo || nnz > tc.hi || feats < tc.lo*0.95 || feats > tc.hi*1.05 {
				t.Errorf("%s P=%d: counted %.4g non-zeros and %.4g features, the map %d and %d: want [%v, %v] times them",
					data, tc.p, c.nnz, c.features, rep.FeatureNNZ, rep.Features, tc.lo, tc.hi)
			}
		}
	}
}

// TestHyperLogLog checks the sketch's counts against the numbers of
// distinct hashes added, each twice: within three of its standard errors
// of 1.6% (the sketch's m = 4096 registers), and exactly none of none.
func TestHyperLogLog(t *testing.T) {
	for _, n := range []int{0, 10, 1000, 30000, 1000000} {
		var s hyperLogLog
		for range 2 {
			for i := range n {
				s.add(mix64(uint64(i)))
			}
		}
		got := s.count()
		if math.Abs(got-float64(n)) > 0.05*float64(n) {
			t.Errorf("%d distinct hashes: counted %.1f", n, got)
		}
	}
}

// TestSPAttrEstimateLimit checks that a limit changes only how much of
// SP's estimate with attributes is computed, not on which side of the
// limit it falls: the closed form, taken within the limit, is never below
// the estimate from the counted keys.
func TestSPAttrEstimateLimit(t *testing.T) {
	ds := graphtest.Dataset(t, "SYNTHETICnew")
	sub, err := ds.RandomSubset(30, 1)
	if err != nil {
		t.Fatal(err)
	}
	k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1, Iterations: 16, Seed: 1}}
	full := k.EstimateBytes(sub.Graphs, Explicit, 0)
	closed := k.EstimateBytes(sub.Graphs, Explicit, 1<<62)
	if full >= closed {
		t.Fatalf("counted estimate %d bytes, closed form %d: want the counted one below", full, closed)
	}
	for _, limit := range []int64{full / 2, full, (full + closed) / 2, closed, 2 * closed} {
		got := k.EstimateBytes(sub.Graphs, Explicit, limit)
		if (got > limit) != (full > limit) {
			t.Errorf("limit %d: estimate %d, without a limit %d: on different sides", limit, got, full)
		}
	}
}
