package kernels

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// BenchmarkBesideCeiling times, by turns, a kernel's Gram matrix on one
// thread alone, on two threads, and on one thread twice at once, side by
// side on two goroutines, each copy with its own Workspace. The last is
// what two cores give when each does a whole one-thread matrix at once,
// so 2·solo/beside is about the most a split of one matrix over two
// threads can gain, which issue 9 asks 1.8× of: about, not at most, as
// the two copies hold twice the data the split does (in a stretch where
// the host slowed every run, sp's split on MUTAG gained 1.75–1.76×
// against ceilings of 1.66–1.68, and on ENZYMES 1.85–1.96× against
// 1.75–1.80, after 1713d3a). It reports the medians as
// solo-µs, two-µs and beside-µs (the slower copy's time, each timed from
// a barrier both reach spinning, as Warm has the runner's helpers), the
// speed-up solo/two as speedup-x, 2·solo/beside as ceiling-x, and the
// round trip between the cores after the runs as c2c-ns (see
// CoreLatency). The cells are the nightly two-thread spec's on MUTAG and
// on 200 ENZYMES graphs, the explicit methods and two implicit ones.
//
// On the 2-core VM of issue 9, three runs of 40 rounds, the cores far
// (370–611 ns) but for part of the first: the ceilings 1.76–2.01 where the
// matrix takes a millisecond or more (once 1.39 in a disturbed run), and
// 1.65–1.90 for MUTAG's csm and graphlet (0.4–0.6 ms); gi's explicit map
// on 200 ENZYMES graphs 1.38–1.39× (ceilings 1.76–1.94), on MUTAG
// 1.48–1.60× (1.85–1.97), the walk kernel at length 3 on MUTAG
// 1.58–1.92× (1.85–1.91), sp on MUTAG 1.68–1.70× (1.82–1.93), csm on
// MUTAG 1.39–1.72× (1.67–1.89). Without the ballast, the copies'
// collections put the small cells' ceilings at 0.8–1.5.
func BenchmarkBesideCeiling(b *testing.B) {
	cells := []struct {
		data   string
		n      int // a subset's graphs, 0 for all
		kernel string
		params Params
		m      Method
	}{
		{"MUTAG", 0, "walk", Params{"length": "3"}, Explicit},
		{"MUTAG", 0, "walk", Params{"length": "6"}, Explicit},
		{"MUTAG", 0, "sp", nil, Explicit},
		{"MUTAG", 0, "gi", Params{"vertex": "dirac"}, Explicit},
		{"MUTAG", 0, "gh", Params{"vertex": "dirac"}, Explicit},
		{"MUTAG", 0, "csm", nil, Explicit},
		{"MUTAG", 0, "graphlet", nil, Explicit},
		{"MUTAG", 0, "walk", Params{"length": "3"}, Implicit},
		{"MUTAG", 0, "grw", Params{"gamma": "0.01"}, Implicit},
		{"ENZYMES", 200, "walk", Params{"length": "3"}, Explicit},
		{"ENZYMES", 200, "sp", nil, Explicit},
		{"ENZYMES", 200, "gi", Params{"vertex": "dirac"}, Explicit},
		{"ENZYMES", 200, "csm", nil, Explicit},
		{"ENZYMES", 200, "graphlet", nil, Explicit},
	}
	// A ballast the collector counts as live, as runexp's default
	// -gc-floor has the runner hold: without it, two copies allocating at
	// once brought collections into their runs that the one-thread run
	// left to the idle core.
	ballast := make([]byte, 64<<20)
	defer runtime.KeepAlive(ballast)
	for _, c := range cells {
		name := fmt.Sprintf("%s/%s", c.data, c.kernel)
		for _, k := range []string{"length", "gamma"} {
			if v, ok := c.params[k]; ok {
				name += fmt.Sprintf("/%s=%s", k, v)
			}
		}
		b.Run(fmt.Sprintf("%s/%s", name, c.m), func(b *testing.B) {
			gs := graphtest.Dataset(b, c.data).Graphs
			if c.n > 0 {
				gs = enzymesSubset(b, c.n)
			}
			kernel := func(threads int) Kernel {
				k, err := New(c.kernel, paramsOnThreads(c.params, threads))
				if err != nil {
					b.Fatal(err)
				}
				return k
			}
			// Each copy and the two-thread matrix keep their own
			// buffers, as a benchmark's loop does (the nightly spec's
			// reuse).
			fresh := func() context.Context {
				return WithWorkspace(WithCrew(context.Background(), NewCrew(DefaultLinger)), NewWorkspace())
			}
			one, other, two := fresh(), fresh(), fresh()
			k1, k2 := kernel(1), kernel(2)
			gram := func(ctx context.Context, k Kernel) {
				if _, _, err := k.Gram(ctx, gs, c.m); err != nil {
					b.Error(err)
				}
			}
			// besideOnce returns the longer of the copies' times, each
			// timed on its own goroutine from a barrier that both
			// reach spinning, so that neither counts the other's
			// wake-up: an idle core takes 60–130 µs to wake here.
			besideOnce := func() time.Duration {
				var (
					wg      sync.WaitGroup
					arrived atomic.Int32
					took    [2]time.Duration
				)
				for i, ctx := range []context.Context{one, other} {
					wg.Go(func() {
						arrived.Add(1)
						for arrived.Load() < 2 {
						}
						t := time.Now()
						gram(ctx, k1)
						took[i] = time.Since(t)
					})
				}
				wg.Wait()
				return max(took[0], took[1])
			}
			// The first matrices grow the buffers.
			gram(one, k1)
			gram(other, k1)
			gram(two, k2)
			// settle starts each timing as the runner does, after a
			// collection of the heap and the linger of the last
			// two-thread matrix's helper, which would spin beside it.
			settle := func() {
				runtime.GC()
				time.Sleep(2 * DefaultLinger)
			}
			var solo, par, beside []float64
			for b.Loop() {
				settle()
				t := time.Now()
				gram(one, k1)
				solo = append(solo, time.Since(t).Seconds()*1e6)

				// As the runner times a run on more threads: the
				// helpers awake and held from before it.
				settle()
				Warm(two, 2)
				release := Hold(two)
				t = time.Now()
				gram(two, k2)
				par = append(par, time.Since(t).Seconds()*1e6)
				release()

				settle()
				beside = append(beside, besideOnce().Seconds()*1e6)
			}
			ms, mp, mb := medianOf(solo), medianOf(par), medianOf(beside)
			b.ReportMetric(ms, "solo-µs")
			b.ReportMetric(mp, "two-µs")
			b.ReportMetric(mb, "beside-µs")
			b.ReportMetric(ms/mp, "speedup-x")
			b.ReportMetric(2*ms/mb, "ceiling-x")
			// Where the host had put the cores, as the runner records
			// it before each run.
			if d, ok := CoreLatency(); ok {
				b.ReportMetric(float64(d.Nanoseconds()), "c2c-ns")
			}
		})
	}
}

// medianOf returns the median of x, which it sorts.
func medianOf(x []float64) float64 {
	slices.Sort(x)
	if len(x) == 0 {
		return 0
	}
	return x[len(x)/2]
}
