package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// The shortest-path feature vectors of the tiny graphs of walk_test.go, as
// (label(u), label(v), d_uv) → count over ordered pairs u ≠ v:
//
//	path     (0,1,1):2 (1,0,1):2 (0,0,2):2          (ends at distance 2)
//	triangle (0,0,1):2 (0,1,1):2 (1,0,1):2          (all pairs adjacent)
//	star     (1,0,1):3 (0,1,1):3 (0,0,2):6          (3·2 ordered leaf pairs)
//	path+isolated vertex: as path; the isolated vertex has no paths.
func TestSPHandComputed(t *testing.T) {
	withIsolated := graph.MustBuild([]int32{0, 1, 0, 1}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	tests := []struct {
		name string
		g, h *graph.Graph
		want float64
	}{
		{"path-triangle", tinyPath, tinyTriangle, 2*2 + 2*2},
		{"path-star", tinyPath, tinyStar, 2*3 + 2*3 + 2*6},
		{"triangle-star", tinyTriangle, tinyStar, 2*3 + 2*3},
		{"path-path", tinyPath, tinyPath, 4 + 4 + 4},
		{"triangle-triangle", tinyTriangle, tinyTriangle, 4 + 4 + 4},
		{"star-star", tinyStar, tinyStar, 9 + 9 + 36},
		{"isolated-path", withIsolated, tinyPath, 4 + 4 + 4},
	}
	kernels := map[string]*ShortestPath{"fast": {}, "generic": {Vertex: slowDirac{}}}
	for _, tc := range tests {
		for kname, k := range kernels {
			for _, m := range []Method{Explicit, Implicit} {
				if got := pairValue(t, k, tc.g, tc.h, m); got != tc.want {
					t.Errorf("%s %s %s: K = %v, want %v", tc.name, kname, m, got, tc.want)
				}
			}
		}
	}
}

// TestSPExplicitEqualsImplicit checks exact agreement of the two methods,
// on the fast and the generic paths, on random graphs and on MUTAG and
// ENZYMES.
func TestSPExplicitEqualsImplicit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var rnd []*graph.Graph
	for i := 0; i < 15; i++ {
		rnd = append(rnd, graphtest.Random(r, 1+r.IntN(9), 0.3, 1+r.IntN(3), 1))
	}
	sets := map[string][]*graph.Graph{"random": rnd}
	for _, name := range []string{"MUTAG", "ENZYMES"} {
		if testing.Short() && name == "ENZYMES" {
			continue
		}
		sets[name] = graphtest.Dataset(t, name).Graphs
	}
	for name, gs := range sets {
		k := &ShortestPath{}
		explicitImplicitSame(t, name, k, gs)
		if name == "random" {
			ke, _, err := (&ShortestPath{Vertex: slowDirac{}}).Gram(context.Background(), gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			kf, _, _ := k.Gram(context.Background(), gs, Explicit)
			requireEqual(t, "generic vs fast", ke, kf)
			explicitImplicitSame(t, name+" generic", &ShortestPath{Vertex: slowDirac{}}, gs)
		}
	}
}

func explicitImplicitSame(t *testing.T, what string, k Kernel, gs []*graph.Graph) {
	t.Helper()
	ke, _, err := k.Gram(context.Background(), gs, Explicit)
	if err != nil {
		t.Fatal(err)
	}
	ki, _, err := k.Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, what, ke, ki)
}

// TestSPImplicitAgainstBruteForce checks the implicit shortest-path kernel
// with a real-valued vertex kernel against Equation (sp) summed term by term
// over ordered pairs of vertex pairs. The graphs are large and dense enough
// that some length groups take the row-by-row scheme of spPairGeneric and
// others the pairwise comparison; the sums differ only in their order, so
// they agree to rounding.
func TestSPImplicitAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var gs []*graph.Graph
	for _, tc := range []struct {
		n int
		p float64
	}{{3, 1}, {12, 0.3}, {30, 0.08}, {40, 0.05}, {25, 0.5}} {
		g := graphtest.Random(r, tc.n, tc.p, 1, 1)
		attrs := make([]float64, 3*g.N())
		for i := range attrs {
			attrs[i] = r.Float64()
		}
		var edges []graph.Edge
		for u := 0; u < g.N(); u++ {
			for _, v := range g.Neighbors(u) {
				edges = append(edges, graph.Edge{U: int32(u), V: v})
			}
		}
		gs = append(gs, attrGraph(t, g.Labels, edges, attrs, 3))
	}
	k := &ShortestPath{Attr: &AttrKernel{Kind: "rbf", Sigma: 0.7}}
	K, _, err := k.Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	// The kernel scales the attributes to [0, 1] over the data set first.
	gs = graph.ScaleAttributes(gs)
	vk := RBF{Sigma: 0.7}
	for i, g := range gs {
		for j := i; j < len(gs); j++ {
			h := gs[j]
			dg, dh := graph.Distances(g), graph.Distances(h)
			var want float64
			for u := 0; u < g.N(); u++ {
				for v := 0; v < g.N(); v++ {
					d := dg[u*g.N()+v]
					if u == v || d <= 0 {
						continue
					}
					for w := 0; w < h.N(); w++ {
						for z := 0; z < h.N(); z++ {
							if w != z && dh[w*h.N()+z] == d {
								want += vk.Vertex(g, u, h, w) * vk.Vertex(g, v, h, z)
							}
						}
					}
				}
			}
			if got := K.At(i, j); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("K(%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestSPPathsGenericOrder checks the generic implicit method's grouping
// against its definition, a stable sort by length of the pairs u < v in
// order (which the method's sums follow, so the matrix depends on it):
// on random graphs, some disconnected, and on ENZYMES.
func TestSPPathsGenericOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	isolated := graph.MustBuild([]int32{0, 1, 0, 1}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	gs := []*graph.Graph{isolated, tinyPath, tinyStar}
	for range 50 {
		gs = append(gs, graphtest.Random(r, 1+r.IntN(30), 0.1+0.3*r.Float64(), 1, 1))
	}
	gs = append(gs, graphtest.Dataset(t, "ENZYMES").Graphs[:50]...)
	for i, g := range gs {
		n := g.N()
		d := graph.Distances(g)
		type path struct {
			u, v int32
			d    uint16
		}
		var ps []path
		for u := range n {
			for v := u + 1; v < n; v++ {
				if d[u*n+v] > 0 {
					ps = append(ps, path{int32(u), int32(v), uint16(d[u*n+v])})
				}
			}
		}
		slices.SortStableFunc(ps, func(x, y path) int { return int(x.d) - int(y.d) })
		var want spPaths
		for j, p := range ps {
			if j == 0 || p.d != ps[j-1].d {
				want.lens = append(want.lens, p.d)
				want.start = append(want.start, int32(j))
			}
			want.u, want.v = append(want.u, p.u), append(want.v, p.v)
		}
		want.start = append(want.start, int32(len(ps)))
		got := newSPPathsGeneric(g, d)
		if !slices.Equal(got.lens, want.lens) || !slices.Equal(got.start, want.start) ||
			!slices.Equal(got.u, want.u) || !slices.Equal(got.v, want.v) {
			t.Errorf("graph %d (%d vertices): got lengths %v from %v, want %v from %v", i, n, got.lens, got.start, want.lens, want.start)
		}
	}
}

// TestSPPathsDirac checks the Dirac implicit method's grouping by
// endpoint labels, in both of its sorts: packed, for labels below
// 2^spPackBits, and by comparison, for larger ones. The expected groups
// are worked by hand: the path 0–1–2 labelled a, b, a, with b < a, has
// two paths of length 1 between b and a, {0,1} and {1,2}, and one of
// length 2 between a and a, {0,2}.
func TestSPPathsDirac(t *testing.T) {
	const big = 1 << spPackBits
	path := func(a, b int32) *graph.Graph {
		return graph.MustBuild([]int32{a, b, a}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	}
	key := func(a, b int32) uint64 { return uint64(a)<<32 | uint64(b) }
	cases := []struct {
		name string
		g    *graph.Graph
		want spPaths
	}{
		{"packed", path(5, 3), spPaths{keys: []uint64{key(3, 5), key(5, 5)}, start: []int32{0, 2, 3}, dist: []uint16{1, 1, 2}}},
		{"by comparison", path(big+5, big+3), spPaths{keys: []uint64{key(big+3, big+5), key(big+5, big+5)}, start: []int32{0, 2, 3}, dist: []uint16{1, 1, 2}}},
		// One label at the bound takes the comparison sort for all.
		{"mixed", path(big, 2), spPaths{keys: []uint64{key(2, big), key(big, big)}, start: []int32{0, 2, 3}, dist: []uint16{1, 1, 2}}},
		{"largest packed", path(big-1, 0), spPaths{keys: []uint64{key(0, big-1), key(big-1, big-1)}, start: []int32{0, 2, 3}, dist: []uint16{1, 1, 2}}},
		// The vertices {0,1} joined, 2 alone: one path, none to 2.
		{"disconnected", graph.MustBuild([]int32{1, 0, 0}, []graph.Edge{{U: 0, V: 1}}), spPaths{keys: []uint64{key(0, 1)}, start: []int32{0, 1}, dist: []uint16{1}}},
		{"one vertex", graph.MustBuild([]int32{4}, nil), spPaths{start: []int32{0}, dist: []uint16{}}},
	}
	for _, c := range cases {
		got := newSPPathsDirac(c.g, graph.Distances(c.g))
		if !slices.Equal(got.keys, c.want.keys) || !slices.Equal(got.start, c.want.start) || !slices.Equal(got.dist, c.want.dist) {
			t.Errorf("%s: got keys %x, start %v, lengths %v; want %x, %v, %v", c.name, got.keys, got.start, got.dist, c.want.keys, c.want.start, c.want.dist)
		}
	}
}
