package kernels

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// enzymesSubset returns a fixed random subset of n ENZYMES graphs.
func enzymesSubset(t *testing.T, n int) []*graph.Graph {
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
// gh 27 ms against 460 ms; sp with the hat kernel and 16 binning
// iterations 4.6 s explicit against 430 ms implicit, the one case where
// implicit wins. gi with 64 binning iterations runs on all 600 graphs
// (0.6-0.8 s explicit against 7 s implicit): on 100 graphs (50 ms against
// 200 ms) the dot products of 8 sample graphs, whose cost is partly per
// feature rather than per pair, scale to about the implicit time and the
// advice is a coin toss.
func TestSamplingAdvisor(t *testing.T) {
	if testing.Short() {
		t.Skip("times both methods on ENZYMES")
	}
	sub, all := enzymesSubset(t, 100), graphtest.Dataset(t, "ENZYMES").Graphs
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
		{"gi iterations=64 all", &GraphInvariant{H: 3, Attr: hat(64)}, all, Explicit},
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
			if max(te, ti) > 2*min(te, ti) {
				if faster != c.want {
					t.Errorf("measured faster %s, the table expects %s: the case is not clear-cut here", faster, c.want)
				}
				if a.Choice != faster {
					t.Errorf("advice chose %s, measured faster %s", a.Choice, faster)
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
			if slack := time.Duration(0.25*float64(chosen)) + time.Millisecond; a.Probe > slack {
				t.Errorf("probes took %v, more than %v", a.Probe, slack)
			}
			for i := 0; i < 2; i++ {
				b, err := adv.Advise(ctx, gs, AdviseOptions{Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				if b.Choice != a.Choice {
					t.Errorf("advice %d chose %s, the first %s: %s", i+2, b.Choice, a.Choice, b)
				}
			}
		})
	}
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
// large pair (see spCheckWork).
type costKernel struct {
	perGraph, perPair time.Duration
}

func (c *costKernel) Name() string      { return "cost" }
func (c *costKernel) Methods() []Method { return []Method{Explicit, Implicit} }
func (c *costKernel) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	rep := &Report{Method: m}
	n := len(gs)
	start := time.Now()
	spin := func(d time.Duration) error {
		for end := time.Now().Add(d); time.Now().Before(end); {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	if m == Explicit {
		for range n {
			if err := spin(c.perGraph); err != nil {
				return nil, rep, err
			}
		}
		rep.TPhi = time.Since(start)
	} else {
		for range n * (n + 1) / 2 {
			if err := spin(c.perPair); err != nil {
				return nil, rep, err
			}
		}
		rep.TWalks = time.Since(start)
	}
	return mat.NewSymDense(n, nil), rep, nil
}
func (c *costKernel) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	return adviseBySampling(ctx, c, gs, 1, opt)
}

// TestSamplingAdvisorStops checks that a probe of the far slower method
// is stopped at the limit that decides, on a kernel of known costs and
// 100 graphs: an implicit method of 2 ms a pair (10 s in all) against an
// explicit one of 20 µs a graph (2 ms), where the implicit probe of 8
// graphs, run first, took 72 ms; and an explicit method of 5 ms a graph
// (0.5 s) against an implicit one of 5 µs a pair (25 ms), where the
// explicit probe of 4 graphs, 20 ms, is stopped by the race at 5 ms
// (raceStart), which decides. The probes' bounds leave room for a busy
// machine: the expected probes take 0.2 and 5.1 ms.
func TestSamplingAdvisorStops(t *testing.T) {
	gs := make([]*graph.Graph, 100)
	for i := range gs {
		gs[i] = tinyPath
	}
	for _, tc := range []struct {
		name      string
		k         *costKernel
		want      Method
		lower     Method // the method predicted at least
		probeMost time.Duration
	}{
		{"implicit slow", &costKernel{perGraph: 20 * time.Microsecond, perPair: 2 * time.Millisecond}, Explicit, Implicit, 5 * time.Millisecond},
		{"explicit slow", &costKernel{perGraph: 5 * time.Millisecond, perPair: 5 * time.Microsecond}, Implicit, Explicit, 10 * time.Millisecond},
	} {
		a, err := tc.k.Advise(context.Background(), gs, AdviseOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		lower := a.Explicit
		if tc.lower == Implicit {
			lower = a.Implicit
		}
		if a.Choice != tc.want || !strings.HasPrefix(lower.Why, "at least") || a.Probe > tc.probeMost {
			t.Errorf("%s: %v; want %s, the %s prediction a lower bound, probes within %v", tc.name, a, tc.want, tc.lower, tc.probeMost)
		}
	}
}
