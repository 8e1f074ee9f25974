package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// enzymesSubset returns a fixed random subset of n ENZYMES graphs.
func enzymesSubset(t testing.TB, n int) []*graph.Graph {
	t.Helper()
	ds := graphtest.Dataset(t, "ENZYMES")
	r := rand.New(rand.NewPCG(7, 8))
	var gs []*graph.Graph
	for _, i := range r.Perm(ds.Len())[:n] {
		gs = append(gs, ds.Graphs[i])
	}
	return gs
}

// gramTime is the wall time of k's Gram matrix of gs by method m.
func gramTime(t *testing.T, k Kernel, gs []*graph.Graph, m Method) time.Duration {
	t.Helper()
	start := time.Now()
	if _, _, err := k.Gram(context.Background(), gs, m); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// The sampling advisor picks the measured faster method where the two
// differ clearly, for little probing, and the same each time for a seed.
// The expected choices were measured on 100 ENZYMES graphs on a 2-core
// machine (runexp gram -subset 100): sp with Dirac labels 4 ms explicit
// against 320 ms implicit; gi with the hat kernel 1.3 ms against 210 ms,
// and with 64 binning iterations 62–70 ms against 235–273 ms; gh 27 ms
// against 460 ms; sp with the hat kernel and 16 binning iterations 4.6 s
// explicit against 430 ms implicit, the one case where implicit wins.
// With 64 iterations, gi was a coin toss while the sample's dot products
// were timed and scaled by n(n+1)/(m(m+1)): their fixed cost, which is
// partly per feature, made them about the implicit time, and seeds 1 to 8
// chose implicit 4 times. Counted (see vecStats), they chose explicit 8
// times, predicted at 51–97 ms.
func TestSamplingAdvisor(t *testing.T) {
	if testing.Short() {
		t.Skip("times both methods on ENZYMES")
	}
	sub := enzymesSubset(t, 100)
	hat := func(iterations int) AttrKernel {
		return AttrKernel{Kind: "hat", Delta: 1, Iterations: iterations}
	}
	hat16 := hat(16)
	cases := []struct {
		name string
		k    Kernel
		gs   []*graph.Graph
		want Method
	}{
		{"sp", &ShortestPath{}, sub, Explicit},
		{"gi", &GraphInvariant{H: 3, Attr: hat(1)}, sub, Explicit},
		{"gi iterations=64", &GraphInvariant{H: 3, Attr: hat(64)}, sub, Explicit},
		{"gh", &GraphHopper{Attr: hat(1)}, sub, Explicit},
		{"sp hat iterations=16", &ShortestPath{Attr: &hat16}, sub, Implicit},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gs := c.gs
			adv := c.k.(Advisor)
			a, err := adv.Advise(ctx, gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			te, ti := gramTime(t, c.k, gs, Explicit), gramTime(t, c.k, gs, Implicit)
			t.Logf("%s; measured explicit %v, implicit %v", a, te, ti)
			faster, chosen := Explicit, te
			if ti < te {
				faster, chosen = Implicit, ti
			}
			// Only a clear gap is a fair test of the advice on a
			// noisy machine.
			clear := max(te, ti) > 2*min(te, ti)
			if clear {
				if faster != c.want {
					t.Errorf("measured faster %s, the table expects %s: the case is not clear-cut here", faster, c.want)
				}
				if wrong := adviseUntil(t, adv, gs, faster, &a); wrong != nil {
					t.Errorf("advice chose other than the measured faster %s in %d attempts:\n%s", faster, adviceAttempts, strings.Join(wrong, "\n"))
				}
			}
			// The advisor aims its probes at 5% of the faster
			// prediction, but its minimum probes, the Gram matrices of
			// 4 graphs by one method and as much of the other as
			// decides, cost about 2·4/100 of the faster run here, and
			// more on runs of milliseconds. The test allows a quarter
			// of the chosen method's measured time and a millisecond,
			// so that a loaded machine fails it only when the budget
			// is broken by far: the implicit probe of 8 graphs, run
			// first and whole, took 5.8 ms of probes for the 4 ms
			// explicit run of sp, now 0.5 ms.
			// The least of up to three advices, as a busy spell of
			// the machine stretches one (3.0 ms against 1.6 allowed
			// for sp, beside a busy loop).
			slack := time.Duration(0.25*float64(chosen)) + time.Millisecond
			probe := a.Probe
			for attempt := 1; probe > slack && attempt < 3; attempt++ {
				b, err := adv.Advise(ctx, gs, AdviseOptions{Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				probe = min(probe, b.Probe)
			}
			if probe > slack {
				t.Errorf("probes took %v at least in 3 advices, more than %v", probe, slack)
			}
			// Again on one thread, and on two, where the probes run
			// at once (probeAtOnce): the measured faster method in one
			// of adviceAttempts advices, unless the two are within
			// nearTie. Short of a clear gap, the advice errs now and
			// then: gi with 64 binning iterations (measured 59–83 ms
			// against 77–155 ms) chose implicit in 3 and 4 of 30
			// advices on one and two threads, its explicit probe on 2
			// graphs stretched threefold where its memory was fresh
			// (see adviseBySampling's second look). Held instead to
			// the most chosen of three advices, it failed in about one
			// run of the package in ten on CI, whenever the most went
			// the wrong way.
			if float64(max(te, ti)) < nearTie*float64(min(te, ti)) {
				return
			}
			for _, threads := range []int{1, 2} {
				var b *Advice
				if wrong := adviseUntil(t, withThreads(c.k, threads).(Advisor), gs, faster, &b); wrong != nil {
					t.Errorf("advice on %d threads chose other than the measured faster %s, in %d attempts:\n%s", threads, faster, adviceAttempts, strings.Join(wrong, "\n"))
				}
			}
		})
	}
}

// nearTie is the ratio of the measured times of both methods under which
// TestSamplingAdvisor takes either choice: the times of single runs vary
// by more on this machine (gi with 64 binning iterations, explicitly, 59
// to 83 ms on one thread).
const nearTie = 1.25

// adviceAttempts is how many times adviseUntil asks for the advice. A stop
// of a probe decides the advice by itself, and it scales the probe's time
// by the sample's factor, a pause of the machine too: gi with 64 binning
// iterations on the 100 graphs of TestSamplingAdvisor (explicit 59 ms,
// implicit 246 ms) once took 4.6 ms of probes where it takes 0.5, its
// explicit probe on 2 graphs stopped at twice the implicit prediction, and
// the advice on one thread chose the implicit method (1 of 10 runs of the
// package on the 2-core VM, none of 40 runs of the case alone). A wrong
// model errs every time; a pause, once in a while.
const adviceAttempts = 3

// adviseUntil asks adv for its advice on gs (seed 1), up to adviceAttempts
// times until it chooses want, and sets *a to the last advice. It returns
// the advice that chose otherwise, nil once one chose want.
func adviseUntil(t *testing.T, adv Advisor, gs []*graph.Graph, want Method, a **Advice) []string {
	t.Helper()
	var wrong []string
	for attempt := 0; ; attempt++ {
		if attempt > 0 || *a == nil {
			b, err := adv.Advise(context.Background(), gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			*a = b
		}
		if (*a).Choice == want {
			return nil
		}
		wrong = append(wrong, (*a).String())
		if attempt+1 == adviceAttempts {
			return wrong
		}
	}
}

// withThreads returns a copy of the sampling advisor's kernel k on threads
// goroutines.
func withThreads(k Kernel, threads int) Kernel {
	switch k := k.(type) {
	case *ShortestPath:
		c := *k
		c.Threads = threads
		return &c
	case *GraphInvariant:
		c := *k
		c.Threads = threads
		return &c
	case *GraphHopper:
		c := *k
		c.Threads = threads
		return &c
	}
	panic(fmt.Sprintf("withThreads: %T", k))
}

// The kernels that have both methods can choose: Supports reports auto.
func TestSamplingAdvisorSupportsAuto(t *testing.T) {
	for _, k := range []Kernel{&ShortestPath{}, &GraphInvariant{}, &GraphHopper{}} {
		if !Supports(k, Auto) {
			t.Errorf("%s does not support auto", k.Name())
		}
	}
}

// No graphs is an error, not a division by zero.
func TestSamplingAdvisorEmpty(t *testing.T) {
	if _, err := (&GraphHopper{}).Advise(context.Background(), nil, AdviseOptions{}); err == nil {
		t.Error("advice on no graphs: no error")
	}
}

// costKernel is a kernel of known costs: its explicit method spins
// perGraph for each graph, its implicit one perPair for each pair i ≤ j,
// both polling their context as the kernels do between graphs and pairs,
// and more often, as the implicit shortest-path kernel does inside a
// large pair (see spCheckWork). Its explicit graphs begin with noteGraph
// and its implicit pairs with notePairs, as the kernels' do, unless
// unnoted. It counts its work as it spins, not
// the clock's time, so that a probe's waits for its turns (see turns)
// leave its work whole; if spins is not nil, it notes there whether two
// Gram matrices ever spun at once.
type costKernel struct {
	perGraph, perPair time.Duration
	threads           int
	unnoted           bool
	spins             *spinLog
	floor             float64 // the implicit floor in seconds, 0 for none
	// pause, if paused is not nil, stretches the first Gram matrix by
	// method pauseIn by a sleep, as a collection of the heap stretches a
	// probe: before its first graph, or before its second pair.
	pause   time.Duration
	pauseIn Method
	paused  *atomic.Bool
}

// pauses reports whether the Gram matrix by m sleeps for c.pause, once.
func (c *costKernel) pauses(m Method) bool {
	return c.paused != nil && c.pauseIn == m && c.paused.CompareAndSwap(false, true)
}

// spinLog notes the costKernels spinning, and whether two ever were; and
// the work of each method's last Gram matrix, indexed by methodIndex: in
// all, where it stopped, and where it found its probe's limit set to the
// deciding prediction (see clockLimit.decide), -1 until then. Work is in
// nanoseconds of spinning, each spin counting its share of 5 µs at most,
// so that a pause of the machine during it does not count.
type spinLog struct {
	active        atomic.Int32
	overlap       atomic.Bool
	work          atomic.Int64
	stopWork      [2]atomic.Int64
	workAtDecided [2]atomic.Int64
	// reversed notes whether each method's probe took the sample's
	// graphs from the last (see probeOrder).
	reversed [2]atomic.Bool
}

func (c *costKernel) Name() string      { return "cost" }
func (c *costKernel) Methods() []Method { return []Method{Explicit, Implicit} }
func (c *costKernel) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	rep := &Report{Method: m}
	n := len(gs)
	start := time.Now()
	var work time.Duration
	i := methodIndex(m)
	if c.spins != nil {
		c.spins.workAtDecided[i].Store(-1)
		c.spins.stopWork[i].Store(-1)
		_, inOrder := probeOrder(ctx, 0, n)
		c.spins.reversed[i].Store(!inOrder)
	}
	spin := func(d time.Duration) error {
		for d > 0 {
			t := time.Now()
			if c.spins != nil && c.spins.active.Add(1) > 1 {
				c.spins.overlap.Store(true)
			}
			share := min(d, 5*time.Microsecond)
			for time.Since(t) < share {
			}
			work += share
			if c.spins != nil {
				c.spins.active.Add(-1)
				c.spins.work.Add(int64(share))
			}
			d -= time.Since(t)
			err := ctx.Err()
			// After Err, so that a prediction that stops the probe
			// is seen here.
			if lim := probeLimit(ctx); lim != nil && c.spins != nil && lim.target.Load() != 0 {
				c.spins.workAtDecided[i].CompareAndSwap(-1, int64(work))
			}
			if err != nil {
				if c.spins != nil {
					c.spins.stopWork[i].Store(int64(work))
				}
				return err
			}
		}
		return nil
	}
	if m == Explicit {
		if c.pauses(Explicit) {
			time.Sleep(c.pause)
		}
		for i := range n {
			if !c.unnoted {
				noteGraph(ctx, i)
			}
			if err := spin(c.perGraph); err != nil {
				return nil, rep, err
			}
		}
		rep.TPhi = time.Since(start)
	} else {
		if !c.unnoted {
			notePairs(ctx)
		}
		pause := c.pauses(Implicit)
		for p := range n * (n + 1) / 2 {
			if p == 1 && pause {
				time.Sleep(c.pause)
			}
			if err := spin(c.perPair); err != nil {
				return nil, rep, err
			}
		}
		rep.TWalks = time.Since(start)
	}
	return mat.NewSymDense(n, nil), rep, nil
}
func (c *costKernel) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	var floor estimate
	if c.floor > 0 {
		floor = newEstimate([]CostTerm{{Name: "floor", Count: 1, NS: c.floor * 1e9}}, because("at least, from counts"))
	}
	return adviseBySampling(ctx, c, gs, threadsOr(c.threads), sizeWeights{}, opt, floor, time.Now())
}

// TestSamplingAdvisorFloor checks the first sample against a floor of the
// implicit time, on a kernel of known costs and 100 graphs, whose first
// sample holds 2. An explicit method of 20 µs a graph predicts 2 ms from
// its probe's 40 µs (by 100/2): a floor of 1 s, 2 times above that and
// more, decides, and the implicit probe does not run on one thread, where
// the explicit probe runs alone until it leads the floor (see turns), and
// stops at its first check after the explicit one's 40 µs on two; a floor
// of 3 ms does not, and the implicit probe (2 ms a pair) runs until it
// decides, as without one. An explicit method of 5 ms a graph, against
// an implicit one of 5 µs a pair, leads a floor of 10 ms after 200 µs of
// its first graph (its share is 1/100) and passes the turn: the implicit
// probe finishes, and the implicit method is chosen. Work, not time, is
// counted (see spinLog): on two threads the explicit probe's apart from
// the implicit one's, which may run as long as the explicit one takes (a
// busy machine stretched it to 1.8 ms), and must stop within 50 µs of
// work after the advice, its check coming once in 5 µs. Bounded together
// by twice the explicit probe's work and 50 µs, the two failed now and
// then in a run of the whole suite.
func TestSamplingAdvisorFloor(t *testing.T) {
	gs := tinyPaths(100)
	cases := []struct {
		name              string
		perGraph, perPair time.Duration
		floor             float64
		want              Method
		floored           bool
	}{
		{"floor decides", 20 * time.Microsecond, 2 * time.Millisecond, 1, Explicit, true},
		{"floor too low", 20 * time.Microsecond, 2 * time.Millisecond, 3e-3, Explicit, false},
		{"explicit slow", 5 * time.Millisecond, 5 * time.Microsecond, 10e-3, Implicit, false},
	}
	for _, threads := range []int{1, 2} {
		for _, c := range cases {
			var log spinLog
			k := &costKernel{perGraph: c.perGraph, perPair: c.perPair, threads: threads, spins: &log, floor: c.floor}
			a, err := k.Advise(context.Background(), gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s, %d threads", c.name, threads)
			if a.Choice != c.want {
				t.Errorf("%s: %v, want %s", name, a, c.want)
			}
			floored := a.Implicit.Seconds == c.floor && strings.HasSuffix(a.Implicit.Why(), floorWhy)
			if floored != c.floored {
				t.Errorf("%s: %v; the floor decided: %v, want %v", name, a, floored, c.floored)
			}
			if !c.floored {
				continue
			}
			most := 2 * c.perGraph // the explicit probe's
			w := time.Duration(log.work.Load())
			if threads == 1 {
				if w > most {
					t.Errorf("%s: the probes' work %v, want %v at most", name, w, most)
				}
				continue
			}
			// On two threads the implicit probe runs beside the
			// explicit one until the advice, for as long as that takes
			// the explicit one, which a busy machine can stretch; it
			// must stop at its first check after the advice.
			stop := time.Duration(log.stopWork[1].Load())
			if rest := w - max(stop, 0); rest > most {
				t.Errorf("%s: the explicit probe's work %v (of %v; the implicit one stopped at %v), want %v at most", name, rest, w, stop, most)
			}
			if decided := time.Duration(log.workAtDecided[1].Load()); decided >= 0 && stop > decided+50*time.Microsecond {
				t.Errorf("%s: the implicit probe stopped after %v of work, the advice came at %v", name, stop, decided)
			}
		}
	}
}

// TestSamplingAdvisorStops checks that a probe of the far slower method
// is stopped where it decides, on a kernel of known costs and 100 graphs,
// whose first sample holds 2: an implicit method of 2 ms a pair (10 s in
// all) against an explicit one of 20 µs a graph (2 ms), where the implicit
// probe of 8 graphs, run first, took 72 ms; and an explicit method of 5 ms
// a graph (0.5 s) against an implicit one of 5 µs a pair (25 ms). In the
// first, the explicit probe's 40 µs finish first, and the implicit one
// stops at its first check, 5 µs into its first pair, which proves 8 ms
// against the explicit 2 ms: its pairs scale by 5050/3. In the second,
// the implicit probe's 3 pairs, 15 µs, finish first, and the explicit one
// is stopped in its first graph at that graph's share 1/100 of twice 25
// ms, 0.5 ms: so the lower bound it proves is 0.5 ms × 100 = 50 ms. So on
// one thread (taking turns, see prober.race) and on two (at once), or at
// its first check once the faster probe has finished, if that comes later.
//
// The test counts the probes' work, not their time, and allows each stop
// 50 µs of work beyond: their time counts the machine's pauses. With
// another process spinning on each of the 2 cores, the implicit probe on
// two threads finished 4 ms late in 21 runs of 40, and the explicit one,
// run on, proved 0.4 s; and now and then the slower probe finished whole
// before the faster one's advice came, as the advisor's goroutine was
// paused. Such a run does not test the stop, and the case runs again, up
// to 5 times. The probes' other work is the faster probe's, in a first
// sample that decides, and where the budget allows the second look (see
// adviseBySampling), the slower probe's again up to its stop: no more.
// Their wall time is held to 50 ms, to catch a wait in the advisor
// itself.
func TestSamplingAdvisorStops(t *testing.T) {
	gs := tinyPaths(100)
	implicitSlow := costKernel{perGraph: 20 * time.Microsecond, perPair: 2 * time.Millisecond}
	explicitSlow := costKernel{perGraph: 5 * time.Millisecond, perPair: 5 * time.Microsecond}
	// decides returns the work of the slower method's probe at which its
	// time proves the deciding prediction.
	implicitDecides := func(*Advice) time.Duration { return 5 * time.Microsecond }
	explicitDecides := func(a *Advice) time.Duration {
		return time.Duration(2 * a.Implicit.Seconds / 100 * 1e9)
	}
	for _, tc := range []struct {
		name     string
		k        costKernel
		threads  int
		want     Method // the faster method; the other is stopped
		decides  func(*Advice) time.Duration
		fastWork time.Duration // the faster probe's work
	}{
		{"implicit slow", implicitSlow, 1, Explicit, implicitDecides, 40 * time.Microsecond},
		{"explicit slow", explicitSlow, 1, Implicit, explicitDecides, 15 * time.Microsecond},
		{"implicit slow, at once", implicitSlow, 2, Explicit, implicitDecides, 40 * time.Microsecond},
		{"explicit slow, at once", explicitSlow, 2, Implicit, explicitDecides, 15 * time.Microsecond},
	} {
		slow := otherMethod(tc.want)
		i := methodIndex(slow)
		for attempt := 1; ; attempt++ {
			var log spinLog
			k := tc.k
			k.threads, k.spins = tc.threads, &log
			a, err := k.Advise(context.Background(), gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if a.Choice != tc.want || a.Probe > 50*time.Millisecond {
				t.Errorf("%s: %v; want %s, probes within 50 ms", tc.name, a, tc.want)
			}
			decided := time.Duration(log.workAtDecided[i].Load())
			if decided < 0 {
				if attempt < 5 {
					continue
				}
				t.Errorf("%s: the %s probe finished before the advice of the %s probe in 5 runs: %v", tc.name, slow, tc.want, a)
				break
			}
			lower := a.Explicit
			if slow == Implicit {
				lower = a.Implicit
			}
			stop := time.Duration(log.stopWork[i].Load())
			most := max(decided, tc.decides(a)) + 50*time.Microsecond
			if !strings.HasPrefix(lower.Why(), "at least") || stop < 0 || stop > most {
				// A busy spell of the machine between the advice
				// and the probe's check can carry it past the bound
				// (65 µs of work against 55, beside a busy loop).
				if attempt < 5 {
					continue
				}
				t.Errorf("%s: %v; the %s probe's work %v to its stop, %v where the advice came; want a lower bound, the stop within %v (in 5 runs)", tc.name, a, slow, stop, decided, most)
			}
			if rest := time.Duration(log.work.Load()) - stop; rest > tc.fastWork+most {
				t.Errorf("%s: the probes' work besides the %s probe's %v; want at most the %s probe's %v and one more stop's %v", tc.name, slow, rest, tc.want, tc.fastWork, most)
			}
			break
		}
	}
}

// TestSamplingAdvisorSecondLook checks that a pause in a probe of the
// first sample, which flips the ranking, is caught by the second look at
// the losing method (see adviseBySampling), on kernels of known costs
// whose first sample holds 2 graphs, on one thread:
//
//   - 100 graphs, an explicit method of 1 ms a graph (0.1 s) against an
//     implicit one of 0.2 ms a pair (1.01 s): a pause of 20 ms makes the
//     explicit probe's 2 ms 22, scaled by 50 to 1.1 s, above the implicit
//     prediction; the probes, 23 ms, leave room in the budget, 5% of
//     1.01 s, for the explicit probe's second run, which predicts 0.1 s.
//   - 119 graphs, an explicit method of 5 ms a graph (0.6 s) against an
//     implicit one of 10 µs a pair (71 ms): a pause of 0.5 ms before the
//     implicit probe's second pair (a sleep of 1–1.2 ms on the 2-core VM)
//     proves at least 1.2 s by the pairs' ratio, 7140/3, and stops it at
//     the explicit prediction; the probes, about 12 ms, leave room in the
//     budget, 5% of 0.6 s, for its second run, which predicts 71 ms.
//
// The sample's share of the graphs, 2 of 100 or 119, is most of the room
// that the budget's half leaves, a fortieth: the probes of the explicit
// method alone take it. The pauses are sleeps, so a busy spell of the
// machine can take the probes past the budget: the advice is asked up to
// 3 times.
func TestSamplingAdvisorSecondLook(t *testing.T) {
	if raceEnabled {
		// The second look needs room for twice the probes so far
		// within 5% of the faster prediction: under the detector the
		// explicit case's probes took 25 ms, not 23, and left none.
		t.Skip("the second look's budget leaves a few milliseconds, which the race detector's slowdown takes")
	}
	for _, tt := range []struct {
		name    string
		n       int
		k       costKernel
		want    Method
		seconds float64 // the most the chosen prediction may be
	}{
		{"explicit paused", 100, costKernel{perGraph: time.Millisecond, perPair: 200 * time.Microsecond, pause: 20 * time.Millisecond, pauseIn: Explicit}, Explicit, 0.3},
		{"implicit paused", 119, costKernel{perGraph: 5 * time.Millisecond, perPair: 10 * time.Microsecond, pause: 500 * time.Microsecond, pauseIn: Implicit}, Implicit, 0.15},
	} {
		gs := tinyPaths(tt.n)
		var wrong []string
		for range 3 {
			k := tt.k
			k.threads, k.paused = 1, new(atomic.Bool)
			a, err := k.Advise(context.Background(), gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			p := a.Explicit
			if tt.want == Implicit {
				p = a.Implicit
			}
			if a.Choice == tt.want && strings.Contains(p.Why(), fmt.Sprintf("%s probe the faster of two", tt.want)) && p.Seconds < tt.seconds {
				wrong = nil
				break
			}
			wrong = append(wrong, a.String())
		}
		if wrong != nil {
			t.Errorf("%s: want the %s method, predicted below %g s from its probe's second run, in 3 advices:\n%s", tt.name, tt.want, tt.seconds, strings.Join(wrong, "\n"))
		}
	}
}

// TestVecStatsDotTerms checks the dot products' price scaled from a
// sample against the price of the counts of all n vectors, where the
// scaling is exact: a sample of all of them; vectors that share a few
// features, which all of them hold, and hold many of their own (each
// shared feature's df_f(df_f−1)/2 scales by n(n−1)/(m(m−1)) exactly, and
// the others add nothing to it); and vectors that share none (the posting
// products are the non-zeros). Each case also takes the scheme that
// gramFromVecs takes for the n vectors: posting lists where they share
// little, gathered merge products otherwise.
func TestVecStatsDotTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	// shared returns n vectors that hold features 0 to common−1 and
	// own features of their own each.
	shared := func(n, common, own int) []Vec {
		vecs := make([]Vec, n)
		for i := range vecs {
			for id := range uint32(common) {
				vecs[i].IDs = append(vecs[i].IDs, id)
			}
			for j := range own {
				vecs[i].IDs = append(vecs[i].IDs, uint32(common+i*own+j))
			}
			vecs[i].Vals = make([]float64, len(vecs[i].IDs))
		}
		return vecs
	}
	tests := []struct {
		name string
		vecs []Vec
		m    int
	}{
		{"random, whole", randomVecs(r, 50, 400, 0.1), 50},
		{"random rare, whole", randomVecs(r, 200, 20000, 0.002), 200},
		{"all features shared", shared(300, 40, 0), 8},
		{"few features shared", shared(300, 2, 40), 8},
		{"no features shared", shared(300, 0, 40), 4},
	}
	model := newWalkModel(nil)
	for _, tt := range tests {
		n := len(tt.vecs)
		stats := func(vecs []Vec) *vecStats {
			var rep Report
			if _, err := gramFromVecs(context.Background(), vecs, nil, 1, &rep); err != nil {
				t.Fatal(err)
			}
			nnz, df := featureStats(vecs)
			return &vecStats{nnz: float64(nnz), products: float64(rep.FeatureProducts), features: float64(len(df))}
		}
		all := stats(tt.vecs)
		// The sample's terms against those of dotTerms on the counts of
		// all vectors: Σ_f df_f² = 2·products − nnz.
		want, _ := dotTerms(nil, model, float64(n), all.nnz, 2*all.products-all.nnz, all.features, func() (float64, float64) {
			t.Fatalf("%s: merge joins asked for", tt.name)
			return 0, 0
		})
		got := stats(tt.vecs[:tt.m]).dotTerms(model, tt.m, n)
		if len(got) != len(want) {
			t.Fatalf("%s: terms %v, want %v", tt.name, got, want)
		}
		for i := range want {
			if got[i].Name != want[i].Name || math.Abs(got[i].Count-want[i].Count) > 1e-9*want[i].Count {
				t.Errorf("%s: term %d is %s × %g, want %s × %g", tt.name, i, got[i].Name, got[i].Count, want[i].Name, want[i].Count)
			}
		}
	}
}

// TestSizeWeightsSums checks the weight sums against hand counts on
// graphs of 1, 2 and 4 vertices and an empty one, which weighs as one
// vertex: with exponents 2 and 1, the graphs weigh 1+4+16+1 = 22 and the
// pairs i ≤ j of weights 1, 2, 4, 1 sum to (8² + 22)/2 = 43; with zero
// exponents, 4 graphs and 10 pairs, the plain counts.
func TestSizeWeightsSums(t *testing.T) {
	gs := []*graph.Graph{plainPath(1), plainPath(2), plainPath(4), plainPath(0)}
	tests := []struct {
		w    sizeWeights
		want weightSums
	}{
		{sizeWeights{graph: 2, pair: 1}, weightSums{graphs: 22, pairs: 43}},
		{sizeWeights{}, weightSums{graphs: 4, pairs: 10}},
	}
	for _, tt := range tests {
		if got := tt.w.sums(gs); got != tt.want {
			t.Errorf("%+v: sums %+v, want %+v", tt.w, got, tt.want)
		}
	}
	// The first two graphs against all: graphs 22/5, pairs 43/(3²+5)/2 = 43/7.
	from := sizeWeights{graph: 2, pair: 1}.sums(gs[:2])
	if got, want := from.least(tests[0].want), 22.0/5; got != want {
		t.Errorf("least %g, want %g", got, want)
	}
}

// TestClockLimitProves checks the lower bound that a probe's time proves
// against hand counts, for a sample whose graphs' work scales by 15 and
// whose pairs' by 183 (60 graphs of a size from 4): before the pairs,
// its time scales by the least factor; once they began at 1 ms, that
// millisecond scales by 15 and the time since by 183.
func TestClockLimitProves(t *testing.T) {
	tests := []struct {
		pairsAt, el time.Duration
		want        float64 // seconds
	}{
		{0, 2 * time.Millisecond, 0.030},                    // 2 ms × 15
		{time.Millisecond, time.Millisecond, 0.015},         // 1 ms × 15
		{time.Millisecond, 2 * time.Millisecond, 0.198},     // 1 ms × 15 + 1 ms × 183
		{time.Millisecond, 1500 * time.Microsecond, 0.1065}, // 15 ms + 0.5 ms × 183
	}
	for _, tt := range tests {
		c := newClockLimit(context.Background(), probeScale{graphs: 15, pairs: 183, least: 15})
		c.pairsAt.Store(int64(tt.pairsAt))
		if got := c.proves(tt.el); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("pairs at %v, time %v: proves %g s, want %g", tt.pairsAt, tt.el, got, tt.want)
		}
	}
	// A sample of 2 of 60 graphs of one size, whose per-graph loop began
	// at 1 ms: in the first graph its time scales by 60, in the second by
	// 30, the time before by the least factor 30; the pairs, once they
	// begin, go by the pairs' factor (here 1830/3 = 610).
	scale := newProbeScale(weightSums{graphs: 2, pairs: 3}, weightSums{graphs: 60, pairs: 1830}, []float64{1, 2})
	for _, tt := range []struct {
		graph       int32
		pairsAt, el time.Duration
		want        float64
	}{
		{1, 0, 2 * time.Millisecond, 0.090},                  // 1 ms × 30 + 1 ms × 60
		{2, 0, 2 * time.Millisecond, 0.060},                  // 1 ms × 30 + 1 ms × 30
		{2, 3 * time.Millisecond, 4 * time.Millisecond, 0.7}, // 3 ms × 30 + 1 ms × 610
		{0, 0, 2 * time.Millisecond, 0.060},                  // no graph noted: 2 ms × 30
	} {
		c := newClockLimit(context.Background(), scale)
		c.loopAt.Store(int64(time.Millisecond))
		c.graph.Store(tt.graph)
		c.pairsAt.Store(int64(tt.pairsAt))
		if got := c.proves(tt.el); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("graph %d, pairs at %v, time %v: proves %g s, want %g", tt.graph, tt.pairsAt, tt.el, got, tt.want)
		}
	}
}

// TestProbeStopsEarly checks that a probe is stopped once its time proves
// the deciding prediction by the factors of what it has done, on 4 graphs
// of 100 and 1 s to prove. An implicit probe of 10 pairs of 5 ms: the
// pairs' factor 5050/10 proves it after 2 ms of pairs. An explicit probe
// of 4 graphs of 20 ms: the first graph's factor 100 proves it after 10
// ms. Where the kernel notes neither, the least factor 25 takes 40 ms.
func TestProbeStopsEarly(t *testing.T) {
	gs := tinyPaths(100)
	w := sizeWeights{}
	scale := newProbeScale(w.sums(gs[:4]), w.sums(gs), w.prefix(gs[:4]))
	for _, tt := range []struct {
		m           Method
		unnoted     bool
		least, most time.Duration
	}{
		{Implicit, false, time.Millisecond, 20 * time.Millisecond},
		{Implicit, true, 40 * time.Millisecond, time.Second},
		{Explicit, false, 10 * time.Millisecond, 30 * time.Millisecond},
		{Explicit, true, 40 * time.Millisecond, time.Second},
	} {
		k := &costKernel{perGraph: 20 * time.Millisecond, perPair: 5 * time.Millisecond, unnoted: tt.unnoted}
		p := &prober{ctx: context.Background(), k: k, sub: gs[:4], scale: scale}
		start := time.Now()
		st, err := p.decide(tt.m, 1, probeStage{})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if proved := st.stops[methodIndex(tt.m)]; proved < 1 || took < tt.least || took > tt.most {
			t.Errorf("%s, unnoted %v: stopped after %v proving %g s; want %v to %v, at least 1 s", tt.m, tt.unnoted, took, proved, tt.least, tt.most)
		}
	}
}

// TestRaceTakesTurns checks that the first probes on one thread never
// spin at once, that each one's cost is its own work, not the time it
// waited for its turns, and that they take turns by the bounds their
// times prove: an explicit probe of 4 graphs of 2 ms and an implicit one
// of 10 pairs of 0.2 ms, of 100 graphs. The explicit probe's time scales
// by 25, the graphs', to 0.2 s, and the implicit one's by 505, the pairs',
// to 1 s: so the explicit probe finishes first, with the lower prediction,
// after 8 ms of its own, though the implicit one's pairs take 2 ms. By
// then the implicit probe has run about 0.2 to 0.8 ms, whose bounds are
// half to twice the explicit one's 0.2 s at its last turn (see turnLead);
// the test allows 0.1 to 1.2 ms of its work. The implicit probe runs on a
// goroutine of its own, not on a Crew's helper, which would spin on after
// it beside the one-thread run.
func TestRaceTakesTurns(t *testing.T) {
	gs := tinyPaths(100)
	// The probes' costs are wall times, as in the advice, so a run that
	// another process preempted for milliseconds (go test runs packages
	// side by side) fails them: the timings must hold in one of three
	// tries. A try whose threads waited to run for more than a fifth of
	// its time (runQueueWait) does not count, up to ten tries: with go
	// test ./... beside a busy loop on the other core of two, the tries
	// that failed had waited 8.3 of 16.4 ms and 18.9 of 19.8 ms, and the
	// next passed; on an idle machine a try waits 0.04–0.8 ms of 11.
	// Waits of the probes' own, a sleep say, do not count as such.
	var errs []string
	tries, judged := 0, 0
	for ; judged < 3 && tries < 10; tries++ {
		wait0, ok0 := runQueueWait()
		start := time.Now()
		errs = raceTurns(gs)
		wall := time.Since(start)
		wait1, ok1 := runQueueWait()
		if len(errs) == 0 {
			return
		}
		var waited time.Duration
		if ok0 && ok1 {
			waited = wait1 - wait0
		}
		if waited <= wall/5 {
			judged++
		}
		t.Logf("retried (waited to run %v of %v): %s", waited, wall, strings.Join(errs, "; "))
	}
	if judged == 0 {
		t.Skipf("the process waited to run for more than a fifth of each of %d tries: the wall-time bounds cannot be judged", tries)
	}
	t.Error(strings.Join(errs, "; "))
}

// runQueueWait returns the time the process's threads have waited on a
// run queue, ready but not running (Linux's schedstat), and whether it is
// known.
func runQueueWait() (time.Duration, bool) {
	tasks, err := filepath.Glob("/proc/self/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var sum time.Duration
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that has exited
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			return 0, false
		}
		ns, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return 0, false
		}
		sum += time.Duration(ns)
	}
	return sum, true
}

// raceTurns runs TestRaceTakesTurns once and returns what failed.
func raceTurns(gs []*graph.Graph) []string {
	var (
		log   spinLog
		first []Method
		errs  []string
	)
	errorf := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	k := &costKernel{perGraph: 2 * time.Millisecond, perPair: 200 * time.Microsecond, spins: &log}
	crew := NewCrew(DefaultLinger)
	p := &prober{
		ctx: WithCrew(context.Background(), crew), k: k, sub: gs[:4],
		scale: newProbeScale(sizeWeights{}.sums(gs[:4]), sizeWeights{}.sums(gs), nil),
		deciding: func(done Method, _ sampleCost) float64 {
			first = append(first, done)
			return 100 // lets the explicit probe finish
		},
	}
	st, err := p.race()
	if err != nil {
		return []string{err.Error()}
	}
	if log.overlap.Load() {
		errorf("the probes spun at once")
	}
	crew.mu.Lock()
	if crew.started != 0 {
		errorf("the Crew started %d helpers", crew.started)
	}
	crew.mu.Unlock()
	if !slices.Equal(first, []Method{Explicit}) {
		errorf("finished first: %v, want the explicit probe alone", first)
	}
	if w := time.Duration(log.workAtDecided[1].Load()); w < 100*time.Microsecond || w > 1200*time.Microsecond {
		errorf("the implicit probe's work when the explicit one finished: %v, want 0.1 to 1.2 ms", w)
	}
	if st.stops != [2]float64{} {
		return append(errs, fmt.Sprintf("stopped: %v", st.stops))
	}
	if c := st.costs[1]; c.perPair < 2*time.Millisecond || c.perPair > 3500*time.Microsecond {
		errorf("implicit probe's pairs cost %v, want its own 2 ms", c.perPair)
	}
	if c := st.costs[0]; c.perGraph < 8*time.Millisecond || c.perGraph > 14*time.Millisecond {
		errorf("explicit probe's graphs cost %v, want its own 8 ms", c.perGraph)
	}
	return errs
}

// TestProbeSharedPrep checks the work shared between the probes of a
// sample (see probeShared), GraphHopper's hop matrices, sp's distances and
// gi's scaled and refined sample:
// the implicit probe that takes them from the explicit one computes the
// same matrix, and its per-graph cost, credited the explicit probe's time
// for them, is about what it is when it computes them itself. Without the
// credit it would be a fraction: the hop matrices are nearly all of gh's
// implicit per-graph work (0.6 µs of 4.1 ms was left), the distances
// most of sp's (0.12 of 1 ms), and gi's is its scaling and refinement.
// Medians of 7 on 4 Synthie graphs, taken by turns, within a factor of 4
// of each other: beside a busy loop, gh's probe that computed its own hop
// matrices took 6.5 ms, run after run, against 2.8–3.2 with them taken,
// where the two agree within 5% on an idle machine; without the credit,
// the one would be a thousandth of the other.
func TestProbeSharedPrep(t *testing.T) {
	gs := graphtest.Dataset(t, "Synthie").Graphs[:4]
	hat := AttrKernel{Kind: "hat", Delta: 1, Iterations: 1, Seed: 1}
	for _, k := range []Kernel{&GraphHopper{Attr: hat}, &ShortestPath{Attr: &hat}, &GraphInvariant{H: 3, Attr: hat}} {
		want, _, err := k.Gram(context.Background(), gs, Implicit)
		if err != nil {
			t.Fatal(err)
		}
		scale := newProbeScale(sizeWeights{}.sums(gs), sizeWeights{}.sums(gs), nil)
		perGraph := func(shared bool) time.Duration {
			p := &prober{ctx: context.Background(), k: k, sub: gs, scale: scale}
			if shared {
				p.shared = &probeShared{}
				if _, _, err := p.sampleGram(Explicit, p.newLimit()); err != nil {
					t.Fatal(err)
				}
			}
			lim := p.newLimit()
			got, _, err := k.Gram(lim, gs, Implicit)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(got, want) {
				t.Fatalf("%s, shared %v: the implicit matrix differs", k.Name(), shared)
			}
			if shared && lim.credit.Load() == 0 {
				t.Fatalf("%s: the implicit probe took nothing from the explicit one", k.Name())
			}
			c, _, err := p.sampleGram(Implicit, p.newLimit())
			if err != nil {
				t.Fatal(err)
			}
			return c.perGraph
		}
		// By turns, so that a busy spell of the machine falls on both.
		var owns, takens []time.Duration
		for range 7 {
			owns = append(owns, perGraph(false))
			takens = append(takens, perGraph(true))
		}
		slices.Sort(owns)
		slices.Sort(takens)
		own, taken := owns[len(owns)/2], takens[len(takens)/2]
		t.Logf("%s: %v %v", k.Name(), own, taken)
		if taken < own/4 || taken > 4*own {
			t.Errorf("%s: implicit per-graph cost %v with the work taken, %v computed", k.Name(), taken, own)
		}
	}
}

// TestProbeOrder checks the order of the probes' loops over the sample's
// graphs: from the first, noting each, except for the implicit probe run
// at once with the explicit one, which takes them from the last and notes
// none, so that the two start on different graphs (see probeOrder).
func TestProbeOrder(t *testing.T) {
	p := &prober{ctx: context.Background(), shared: &probeShared{}}
	plain := p.newLimit()
	reversed := p.newLimit()
	reversed.reverse = true
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want []int
		note bool
	}{
		{"not a probe", context.Background(), []int{0, 1, 2, 3}, true},
		{"a probe", plain, []int{0, 1, 2, 3}, true},
		{"the implicit probe at once", reversed, []int{3, 2, 1, 0}, false},
	} {
		for step, want := range tc.want {
			if got, note := probeOrder(tc.ctx, step, len(tc.want)); got != want || note != tc.note {
				t.Errorf("%s: step %d takes graph %d, noted %v; want %d, %v", tc.name, step, got, note, want, tc.note)
			}
		}
	}
	// The probes of a sample: at once, the implicit one is reversed;
	// taking turns, neither.
	gs := tinyPaths(100)
	for _, atOnce := range []bool{false, true} {
		var log spinLog
		k := &costKernel{perGraph: 20 * time.Microsecond, perPair: 20 * time.Microsecond, spins: &log}
		p := &prober{
			ctx: context.Background(), k: k, sub: gs[:4], shared: &probeShared{},
			scale:    newProbeScale(sizeWeights{}.sums(gs[:4]), sizeWeights{}.sums(gs), nil),
			deciding: func(Method, sampleCost) float64 { return 100 },
		}
		run := p.race
		if atOnce {
			run = p.atOnce
		}
		if _, err := run(); err != nil {
			t.Fatal(err)
		}
		if got := [2]bool{log.reversed[0].Load(), log.reversed[1].Load()}; got != [2]bool{false, atOnce} {
			t.Errorf("at once %v: explicit, implicit probes reversed %v", atOnce, got)
		}
	}
}
