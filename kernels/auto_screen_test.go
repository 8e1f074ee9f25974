package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
)

// mustBuild builds a graph of n vertices with dim attributes a vertex,
// all 0.5, or fails the test.
func mustBuild(t *testing.T, n int, edges []graph.Edge, dim int) *graph.Graph {
	t.Helper()
	attrs := make([]float64, n*dim)
	for i := range attrs {
		attrs[i] = 0.5
	}
	g, err := graph.Build(make([]int32, n), edges, attrs, dim)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// countGI counts what the implicit and explicit methods do, on graphs
// small enough to count by hand.
func TestCountGI(t *testing.T) {
	path := mustBuild(t, 3, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}}, 2)
	triangle := mustBuild(t, 3, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}}, 2)
	single := mustBuild(t, 1, nil, 2)
	other := mustBuild(t, 1, nil, 3)
	cases := []struct {
		name string
		gs   []*graph.Graph
		ok   bool
		want giCounts
	}{
		// Vertex pairs of i ≤ j: path·path, path·triangle and
		// triangle·triangle, 9 each. Steps: 3 vertices and 4 arcs, 3
		// and 6.
		{"path and triangle", []*graph.Graph{path, triangle}, true, giCounts{n: 2, dim: 2, vertices: 6, vertexPairs: 27, steps: 16}},
		// 3·3 + 3·1 + 1·1 vertex pairs; 7 and 1 steps.
		{"path and single", []*graph.Graph{path, single}, true, giCounts{n: 2, dim: 2, vertices: 4, vertexPairs: 13, steps: 8}},
		// The Gram computation rejects attributes of two dimensions.
		{"two dimensions", []*graph.Graph{single, other}, false, giCounts{}},
	}
	for _, c := range cases {
		got, ok := countGI(c.gs)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: countGI = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// attributedWalkGraphs returns d graphs of the walk generator with dim
// random attributes a vertex.
func attributedWalkGraphs(t *testing.T, cfg synth.WalkConfig, d, dim int) []*graph.Graph {
	t.Helper()
	ds, err := synth.Walk(cfg, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	return withAttributes(ds.Graphs, dim, rand.New(rand.NewPCG(3, 4)))
}

// The screen decides the graph invariant kernel's advice from counts
// where they leave no doubt, and leaves the rest to the samples. The
// cases' times, on 60 graphs of the walk generator (about 20 vertices)
// with one attribute and h = 3, on a 2-core VM: one binning iteration
// 0.7–0.8 ms explicit and 10 ms implicit (priced at 0.42 ms and 9.1 ms);
// 64 iterations 12–15 ms and 10 ms (priced at 14 ms and 9.1 ms). With
// the labels instead, 0.6 ms and 7.6 ms (priced at 0.41 and 7.0 ms).
func TestGIScreen(t *testing.T) {
	gs := attributedWalkGraphs(t, synth.WalkConfig{PV: 0}, 60, 1)
	hat := func(p int) AttrKernel { return AttrKernel{Kind: "hat", Delta: 1, Iterations: p, Seed: 1} }
	cases := []struct {
		name     string
		k        *GraphInvariant
		gs       []*graph.Graph
		screened bool // the screen decides, for explicit
		priced   bool // the screen prices the methods
	}{
		{"one iteration", &GraphInvariant{H: 3, Attr: hat(1)}, gs, true, true},
		{"labels", &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "dirac"}}, gs, true, true},
		{"64 iterations", &GraphInvariant{H: 3, Attr: hat(64)}, gs, false, true},
		// The RBF kernel has no explicit map, and the screen no counts
		// for it.
		{"rbf", &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "rbf", Sigma: 1}}, gs, false, false},
		{"no graphs", &GraphInvariant{H: 3, Attr: hat(1)}, nil, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			expl, impl, ok := c.k.screen(c.gs, nil)
			if ok != c.priced {
				t.Fatalf("screen priced: %v, want %v", ok, c.priced)
			}
			if !ok {
				return
			}
			if got := ok && decisive*expl.seconds <= impl.seconds; got != c.screened {
				t.Errorf("screened: %v (explicit %.3g s, implicit %.3g s), want %v", got, expl.seconds, impl.seconds, c.screened)
			}
			// The predictions are the sums of their terms.
			if math.Abs(sumTerms(expl.terms)-expl.seconds) > 1e-12 || math.Abs(sumTerms(impl.terms)-impl.seconds) > 1e-12 {
				t.Errorf("predictions %v and %v are not their terms' sums", expl.seconds, impl.seconds)
			}
			a, err := c.k.Advise(context.Background(), c.gs, AdviseOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			fromCounts := strings.Contains(a.Explicit.Why(), "from counts")
			if fromCounts != c.screened {
				t.Errorf("advice from counts: %v, want %v: %s", fromCounts, c.screened, a)
			}
			if c.screened && a.Choice != Explicit {
				t.Errorf("screened advice chose %s", a.Choice)
			}
			if !c.screened {
				return
			}
			// What the screen decides must be right, by far: the
			// explicit run measured faster, at least twice (its margin is
			// decisive times, 4).
			te, ti := gramTime(t, c.k, c.gs, Explicit), gramTime(t, c.k, c.gs, Implicit)
			t.Logf("%s; measured explicit %v, implicit %v", a, te, ti)
			if 2*te > ti {
				t.Errorf("screened for explicit, measured explicit %v against implicit %v", te, ti)
			}
		})
	}
}

// The screen's counts cost microseconds: far less than the samples of
// the same advice, of tens of microseconds (see GraphInvariant.Advise).
func BenchmarkGIScreen(b *testing.B) {
	ds, err := synth.Walk(synth.WalkConfig{PV: 0}, 60, 1)
	if err != nil {
		b.Fatal(err)
	}
	gs := withAttributes(ds.Graphs, 4, rand.New(rand.NewPCG(3, 4)))
	k := &GraphInvariant{H: 3, Attr: AttrKernel{Kind: "hat", Delta: 1, Iterations: 1}}
	for b.Loop() {
		if _, err := k.Advise(context.Background(), gs, AdviseOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
