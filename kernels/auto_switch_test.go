package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// TestWalkGramSwitching checks the explicit method's switch to the
// implicit one: with an implicit prediction of zero every projection of
// the rest of the maps exceeds the limit, so the guard stops the maps once
// switchCheck(n) graphs are mapped; with one of an hour it never does.
// Either way the matrix is the implicit one to the bit (Dirac kernels:
// both methods sum the same integer walk counts), on every number of
// threads, whose explicit maps differ (sequential, overlapped, pipelined).
func TestWalkGramSwitching(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	ctx := context.Background()
	want, _, err := (&Walk{Length: 5}).Gram(ctx, gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2, 3} {
		for _, tt := range []struct {
			name     string
			implicit float64 // predicted seconds
			switched bool
		}{
			{"switch", 0, true},
			{"stay", 3600, false},
		} {
			k := &Walk{Length: 5, Threads: threads}
			K, rep, sw, err := k.gramSwitching(ctx, gs, &Advice{Implicit: Prediction{Method: Implicit, Seconds: tt.implicit}}, nil)
			if err != nil {
				t.Fatalf("threads %d, %s: %v", threads, tt.name, err)
			}
			requireEqual(t, tt.name, want, K)
			if got := sw != nil; got != tt.switched {
				t.Fatalf("threads %d, %s: switched %v, want %v", threads, tt.name, got, tt.switched)
			}
			wantMethod := Explicit
			if tt.switched {
				wantMethod = Implicit
				// Several maps may finish at once on threads > 1.
				if sw.Mapped < switchCheck(len(gs)) || sw.Mapped >= len(gs) || sw.N != len(gs) || sw.Took <= 0 {
					t.Errorf("threads %d: switch %+v: want it after %d of %d graphs", threads, sw, switchCheck(len(gs)), len(gs))
				}
			}
			if rep.Method != wantMethod {
				t.Errorf("threads %d, %s: report of %s, want %s", threads, tt.name, rep.Method, wantMethod)
			}
		}
	}
}

// TestSwitchGuard checks when the guard trips: never before switchCheck(n)
// graphs or after the last, nor within its limit, and at the check where
// the dot products estimated from the first vectors exceed it alone.
func TestSwitchGuard(t *testing.T) {
	two := Vec{IDs: []uint32{0, 1}, Vals: []float64{1, 1}}
	tests := []struct {
		name   string
		n      int
		limit  float64 // seconds
		dots   float64 // seconds, whatever the vectors
		mapped int
		trips  bool
	}{
		{"before the check", 100, 0, 0, switchCheck(100) - 1, false},
		{"at the check", 100, 0, 0, switchCheck(100), true},
		{"within the limit", 100, 3600, 0, 100, false},
		{"dot products over the limit", 100, 3600, 7200, switchCheck(100), true},
		{"all mapped", 5, 0, 0, 5, false}, // switchCheck(5) = 5: nothing left to project
	}
	for _, tt := range tests {
		dots := func(dotCounts) time.Duration { return time.Duration(tt.dots * 1e9) }
		g, ctx := newSwitchGuard(context.Background(), tt.n, time.Duration(tt.limit*1e9), dots)
		for range tt.mapped {
			g.done(two)
		}
		if got := ctx.Err() != nil; got != tt.trips {
			t.Errorf("%s: tripped %v, want %v", tt.name, got, tt.trips)
		}
		if got := g.switched() != nil; got != tt.trips {
			t.Errorf("%s: switch %v, want %v", tt.name, got, tt.trips)
		}
		g.release()
	}
	var g *switchGuard
	g.done(two) // a nil guard counts nothing
}

// TestSwitchGuardFirstMap checks that the first map's time, which pays
// the start-up, is left out of the projection: 30 ms before the first of
// 100 graphs, then nine quick maps, project nothing near a limit of 0.1 s,
// where counting the 30 ms ten times over would project 0.27 s; 30 ms
// before the second graph projects them for the other 90, 0.3 s.
func TestSwitchGuardFirstMap(t *testing.T) {
	two := Vec{IDs: []uint32{0, 1}, Vals: []float64{1, 1}}
	for _, tt := range []struct {
		slow  int // the map that takes 30 ms
		trips bool
	}{
		{0, false},
		{1, true},
	} {
		g, ctx := newSwitchGuard(context.Background(), 100, 100*time.Millisecond, nil)
		for i := range switchCheck(100) {
			if i == tt.slow {
				time.Sleep(30 * time.Millisecond)
			}
			g.done(two)
		}
		if got := ctx.Err() != nil; got != tt.trips {
			t.Errorf("slow map %d: tripped %v, want %v", tt.slow, got, tt.trips)
		}
		g.release()
	}
}

// TestSwitchGuardSetLimit checks a guard that starts without a limit, as
// the walk kernel's explicit run beside its advice does: it projects
// nothing until setLimit, which projects the rest at once where the first
// graphs are counted, and else leaves it to the next graph. 100 graphs
// whose first map takes 20 ms and the others none: the rest projects to
// about nothing, so that a negative limit trips and an hour does not.
func TestSwitchGuardSetLimit(t *testing.T) {
	two := Vec{IDs: []uint32{0, 1}, Vals: []float64{1, 1}}
	check := switchCheck(100)
	for _, tt := range []struct {
		name   string
		before int // graphs mapped before setLimit
		limit  time.Duration
		after  int // graphs mapped after
		trips  bool
	}{
		{"counted, then a negative limit", check + 1, -1, 0, true},
		{"counted, then an hour", check + 1, time.Hour, 5, false},
		{"a negative limit before the count", check - 1, -1, 0, false},
		{"a negative limit before the count, then graphs", check - 1, -1, 3, true},
		{"all mapped, then a negative limit", 100, -1, 0, true},
	} {
		g, ctx := newSwitchGuard(context.Background(), 100, noLimit, nil)
		for i := range tt.before {
			if i == 0 {
				time.Sleep(20 * time.Millisecond)
			}
			g.done(two)
		}
		if ctx.Err() != nil {
			t.Errorf("%s: tripped without a limit", tt.name)
		}
		g.setLimit(tt.limit)
		for range tt.after {
			g.done(two)
		}
		if got := ctx.Err() != nil; got != tt.trips {
			t.Errorf("%s: tripped %v, want %v", tt.name, got, tt.trips)
		}
		g.release()
	}
}

// TestSwitchGuardDotEstimate checks the estimate of the dot products'
// counts from the first check vectors: where all of 10 of 100 graphs have
// the same two features, the estimate is that all 100 have them, 200
// non-zeros and Σ_f df_f² = 2·100² (by hand: Σ d(d−1) = 2·10·9 = 180 over
// the sample, 200 + 100·99·180/(10·9) = 20000), and no features beyond
// the sample's, none of them in one graph alone. The merge joins are
// counted only where the ids are too many to scatter, like the sample's
// pairs: each takes two steps, both matches, without a turn, 2·100·99/2
// steps off the diagonal and 200 on it.
func TestSwitchGuardDotEstimate(t *testing.T) {
	for _, tt := range []struct {
		last uint32
		want dotCounts
	}{
		{1, dotCounts{nnz: 200, df2: 20000, dim: 2}},
		{scatterMaxDim, dotCounts{nnz: 200, df2: 20000, dim: scatterMaxDim + 1, steps: 2*100*99/2 + 200, turns: 0}},
	} {
		var got dotCounts
		dots := func(c dotCounts) time.Duration {
			got = c
			return 0
		}
		g, _ := newSwitchGuard(context.Background(), 100, time.Hour, dots)
		for range switchCheck(100) {
			g.done(Vec{IDs: []uint32{0, tt.last}, Vals: []float64{1, 1}})
		}
		g.release()
		if switchCheck(100) != 10 || got != tt.want {
			t.Errorf("ids 0, %d, check %d: estimated %+v; want 10: %+v", tt.last, switchCheck(100), got, tt.want)
		}
	}
}

// fixedAdvisor is a kernel whose advice is given, recording the method
// GramAuto runs.
type fixedAdvisor struct {
	explicit, implicit float64
	hedge              bool
	ran                Method
}

func (f *fixedAdvisor) Name() string      { return "fixed" }
func (f *fixedAdvisor) Methods() []Method { return []Method{Explicit, Implicit} }
func (f *fixedAdvisor) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	f.ran = m
	return mat.NewSymDense(1, nil), &Report{Method: m}, nil
}
func (f *fixedAdvisor) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	a := &Advice{Explicit: Prediction{Method: Explicit, Seconds: f.explicit}, Implicit: Prediction{Method: Implicit, Seconds: f.implicit}, Choice: Explicit, Hedge: f.hedge}
	if f.implicit < f.explicit {
		a.Choice = Implicit
	}
	return a, nil
}

// switchingAdvisor can switch, so GramAuto runs its explicit method
// where the implicit one is predicted less than hedge times faster.
type switchingAdvisor struct{ fixedAdvisor }

func (s *switchingAdvisor) gramSwitching(ctx context.Context, gs []*graph.Graph, a *Advice, c Costs) (*mat.SymDense, *Report, *Switch, error) {
	K, rep, err := s.Gram(ctx, gs, Explicit)
	return K, rep, nil, err
}

// TestGramAutoHedge checks the method GramAuto runs given the predictions:
// the faster, except that a kernel that can switch runs the explicit
// method where the advice hedges, unless the implicit one is predicted
// hedge times faster.
func TestGramAutoHedge(t *testing.T) {
	tests := []struct {
		name               string
		explicit, implicit float64
		switches, hedges   bool
		choice, ran        Method
	}{
		{"explicit faster", 1, 2, true, false, Explicit, Explicit},
		{"implicit a little faster, hedging", 1.4, 1, true, true, Implicit, Explicit},
		{"implicit a little faster, certain", 1.4, 1, true, false, Implicit, Implicit},
		{"implicit a little faster, cannot switch", 1.4, 1, false, true, Implicit, Implicit},
		{"implicit hedge times faster", 1.6, 1, true, true, Implicit, Implicit},
	}
	gs := []*graph.Graph{graphtest.Random(newTestRand(), 5, 0.5, 2, 1)}
	for _, tt := range tests {
		f := fixedAdvisor{explicit: tt.explicit, implicit: tt.implicit, hedge: tt.hedges}
		var k interface {
			Kernel
			Advisor
		} = &f
		s := &switchingAdvisor{f}
		if tt.switches {
			k = s
		}
		_, rep, a, err := GramAuto(context.Background(), k, gs, AdviseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if first := a.First(k); first != tt.ran {
			t.Errorf("%s: First %s, want %s", tt.name, first, tt.ran)
		}
		if got := CanSwitch(k); got != tt.switches {
			t.Errorf("%s: CanSwitch %v, want %v", tt.name, got, tt.switches)
		}
		if a.Choice != tt.choice || a.Run != tt.ran || rep.Method != tt.ran {
			t.Errorf("%s: choice %s, ran %s (report %s); want %s, %s", tt.name, a.Choice, a.Run, rep.Method, tt.choice, tt.ran)
		}
	}
}

// TestSwitchGuardWorkers checks that the guard counts the ids of the
// private map's workers, each the worker's own, as other features than
// every other worker's, and keeps none of their vectors, whose ids are
// unsorted. Ten vectors of ids {0, 1}, five from each of two
// workers, hold four features of five graphs each: Σ_f df_f(df_f−1) =
// 4·5·4 = 80, which scales to 100 graphs as nnz + n(n−1)·80/(m(m−1)) =
// 200 + 100·99·80/90 = 9000, where one worker's ten give 20000 (see
// TestSwitchGuardDotEstimate).
func TestSwitchGuardWorkers(t *testing.T) {
	var got dotCounts
	dots := func(c dotCounts) time.Duration {
		got = c
		return 0
	}
	g, _ := newSwitchGuard(context.Background(), 100, time.Hour, dots)
	for i := range switchCheck(100) {
		g.doneBy(Vec{IDs: []uint32{1, 0}, Vals: []float64{1, 1}}, i%2, 2)
	}
	g.release()
	if got.nnz != 200 || got.df2 != 9000 {
		t.Errorf("estimated %+v; want nnz 200, df2 9000", got)
	}
	if len(g.vecs) != 0 {
		t.Errorf("kept %d of the workers' vectors for the merge joins, want none", len(g.vecs))
	}
}

// dotsCalls records the dot products' counts that a guard prices, from
// any goroutine, as a switchGuard's dots, for nothing.
type dotsCalls struct {
	mu     sync.Mutex
	counts []dotCounts
}

func (d *dotsCalls) dots(c dotCounts) time.Duration {
	d.mu.Lock()
	d.counts = append(d.counts, c)
	d.mu.Unlock()
	return 0
}

// TestSwitchGuardRewrite has a third worker map the check-th graph, whose
// vector has the guard count its sample, while the private map's second
// worker rewrites the ids of the vectors it gave the sample (see
// switchGuard.rewrite): the count must see all the non-zeros either way,
// once, and under go test -race the two must not race, as they did in
// TestEveryKernelAgrees on three threads before rewrite took the
// sample's lock.
func TestSwitchGuardRewrite(t *testing.T) {
	var dc dotsCalls
	const n = 8 // the sample: switchCheck(8) = 8
	g, _ := newSwitchGuard(context.Background(), n, time.Hour, dc.dots)
	var mine []Vec
	for range n - 1 {
		v := Vec{IDs: []uint32{0, 1, 2}, Vals: []float64{1, 1, 1}}
		mine = append(mine, v)
		g.doneBy(v, 1, 3)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		g.rewrite(func() {
			for _, v := range mine {
				for t := range v.IDs {
					v.IDs[t] += 10
				}
			}
		})
	})
	wg.Go(func() { g.doneBy(Vec{IDs: []uint32{4}, Vals: []float64{1}}, 2, 3) })
	wg.Wait()
	// 7 vectors of 3 non-zeros and one of 1.
	if counts := dc.counts; len(counts) != 1 || counts[0].nnz != 22 {
		t.Errorf("estimated %+v; want once, of 22 non-zeros", counts)
	}
}

// TestSwitchGuardConcurrent checks the guard under workers that count
// their graphs at once, as the parallel maps do: the first check graphs'
// vectors are counted once, whoever maps them, into the estimate that
// TestSwitchGuardDotEstimate works out by hand for ten vectors of ids 0
// and 1 (200 non-zeros, Σ_f df_f² = 20000), the packed map's keys as
// well as vectors; and a guard whose limit every projection exceeds
// stops the maps once, with the graphs mapped at its projection.
func TestSwitchGuardConcurrent(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit time.Duration
		keys  bool
	}{
		{"vectors", time.Hour, false},
		{"packed keys", time.Hour, true},
		{"tripped", 0, false},
	} {
		var dc dotsCalls
		const n, workers = 100, 4
		g, ctx := newSwitchGuard(context.Background(), n, tt.limit, dc.dots)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range n / workers {
					if tt.keys {
						g.doneKeys([]uint64{7, 1 << 40}, []float64{1, 1})
					} else {
						g.done(Vec{IDs: []uint32{0, 1}, Vals: []float64{1, 1}})
					}
				}
			})
		}
		wg.Wait()
		want := dotCounts{nnz: 200, df2: 20000, dim: 2}
		if counts := dc.counts; len(counts) != 1 || counts[0] != want {
			t.Errorf("%s: estimated %+v; want once %+v", tt.name, counts, want)
		}
		tripped := tt.limit == 0
		if got := ctx.Err() != nil; got != tripped {
			t.Errorf("%s: tripped %v, want %v", tt.name, got, tripped)
		}
		sw := g.switched()
		if got := sw != nil; got != tripped {
			t.Fatalf("%s: switch %v, want %v", tt.name, got, tripped)
		}
		if sw != nil && (sw.Mapped < switchCheck(n) || sw.Mapped >= n || sw.N != n) {
			t.Errorf("%s: switched at %d of %d, want from %d to %d of %d", tt.name, sw.Mapped, sw.N, switchCheck(n), n-1, n)
		}
		g.release()
	}
}

// TestImplicitPairSeconds checks that the guard prices a pair as the
// advice prices the data set: on 20 MUTAG graphs, the prices of every
// pair i ≤ j, each counted from its product graph as built, sum to the
// implicit probe's prediction from all 20 graphs' label counts (Dirac
// kernels, lengths 0, 3 and 7), and on the generic path to the terms of
// the counts genericCounts gives the same pairs.
func TestImplicitPairSeconds(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs[:20]
	model := newWalkModel(nil)
	for _, tt := range []struct {
		name string
		k    *Walk
	}{
		{"dirac l=0", &Walk{Length: 0}},
		{"dirac l=3", &Walk{Length: 3}},
		{"dirac l=7", &Walk{Length: 7}},
		{"generic l=3", &Walk{Length: 3, Vertex: genericDirac{}, Edge: genericDirac{}}},
	} {
		l := float64(tt.k.Length)
		pw := newPairWorkspace(tt.k, gs, true)
		counter := newPairWorkspace(tt.k, gs, true)
		var got, pairs, cand, v, arcs float64
		for i := range gs {
			for j := i; j < len(gs); j++ {
				var rep Report
				pw.pair(gs[i], gs[j], &rep)
				got += model.implicitPairSeconds(pw, gs[i], gs[j], &rep, l)
				pv, pa, pc := counter.genericCounts(gs[i], gs[j])
				pairs, v, arcs, cand = pairs+1, v+float64(pv), arcs+float64(pa), cand+float64(pc)
			}
		}
		var want float64
		if pw.dirac {
			p := newImplicitProbe(tt.k, gs, &graphSample{}, nil, false)
			p.sample = newGraphSample(rand.New(rand.NewPCG(1, 2)), len(gs))
			if err := p.grow(context.Background(), len(gs)); err != nil {
				t.Fatal(err)
			}
			want = p.predict(model).seconds
		} else {
			want = sumTerms(model.implicitGenericTerms(pairs, cand, v, arcs, l))
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: pairs priced %.9g s in all, want %.9g", tt.name, got, want)
		}
	}
}

// TestSwitchGuardSpeed checks the guard's measure of this machine's speed
// on the implicit method. 100 graphs, the second mapped 30 ms after the
// first and the others at once: at the check the maps project 30 ms ×
// 90/9 = 0.3 s for the rest. A limit of 0.2 s measures the speed, since
// 0.3 s is over half of it, and scales the limit by it: at 1 and 0.5
// the guard trips, at 3 it does not (at 2, against 0.4 s, the 30 ms could
// take only 10 more). Under a limit of 1 s it does not measure. A
// measurement of 100 ms is left out of the maps' time (at 2.5, 0.3 s
// against 0.5 s; counted, the maps would project 1.3 s). At 1.6, against
// 0.32 s, the 30 ms could take only 2 ms more, and under the race detector
// in CI they once took more and the guard tripped.
func TestSwitchGuardSpeed(t *testing.T) {
	two := Vec{IDs: []uint32{0, 1}, Vals: []float64{1, 1}}
	for _, tt := range []struct {
		name     string
		limit    time.Duration
		speed    float64
		pause    time.Duration // the measurement's time
		measured bool
		trips    bool
	}{
		{"as fast as the model", 200 * time.Millisecond, 1, 0, true, true},
		{"three times as slow", 200 * time.Millisecond, 3, 0, true, false},
		{"twice as fast", 200 * time.Millisecond, 0.5, 0, true, true},
		{"far within the limit", time.Second, 2, 0, false, false},
		{"a long measurement", 200 * time.Millisecond, 2.5, 100 * time.Millisecond, true, false},
	} {
		g, ctx := newSwitchGuard(context.Background(), 100, tt.limit, nil)
		calls := 0
		g.threads = 1
		g.measure = func(budget time.Duration) (float64, time.Duration) {
			calls++
			if want := time.Duration(measureShare * float64(tt.limit)); budget != want {
				t.Errorf("%s: budget %v, want %v", tt.name, budget, want)
			}
			time.Sleep(tt.pause)
			return tt.speed, tt.pause
		}
		for i := range switchCheck(100) {
			if i == 1 {
				time.Sleep(30 * time.Millisecond)
			}
			g.done(two)
		}
		if want := map[bool]int{false: 0, true: 1}[tt.measured]; calls != want {
			t.Errorf("%s: measured %d times, want %d", tt.name, calls, want)
		}
		if got := ctx.Err() != nil; got != tt.trips {
			t.Errorf("%s: tripped %v, want %v", tt.name, got, tt.trips)
		}
		if sw := g.switched(); sw != nil {
			if sw.Speed != tt.speed || sw.Limit != time.Duration(tt.speed*float64(tt.limit)) {
				t.Errorf("%s: switch at speed %g, limit %v; want %g, %v", tt.name, sw.Speed, sw.Limit, tt.speed, time.Duration(tt.speed*float64(tt.limit)))
			}
		}
		g.release()
	}
}

// TestImplicitSpeed checks the measurement itself on MUTAG: it times at
// least minSpeedPairs pairs whatever the budget, returns a speed within
// its bounds, and stops at the budget.
func TestImplicitSpeed(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs
	k := &Walk{Length: 5}
	model := newWalkModel(nil)
	for _, budget := range []time.Duration{0, time.Millisecond} {
		speed, took := k.implicitSpeed(context.Background(), gs, model, budget)
		if speed < 1/maxSpeed || speed > maxSpeed || took <= 0 {
			t.Errorf("budget %v: speed %g in %v; want within [%g, %g], some time", budget, speed, took, 1/maxSpeed, maxSpeed)
		}
		if budget > 0 && took < budget {
			t.Errorf("budget %v: took %v, want at least the budget", budget, took)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if speed, _ := k.implicitSpeed(ctx, gs, model, time.Hour); speed != 1 {
		t.Errorf("cancelled: speed %g, want 1 (nothing timed)", speed)
	}
}
