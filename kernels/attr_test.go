package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"gonum.org/v1/gonum/mat"
)

// attrGraph builds a graph with the given labels, edges and attributes of
// dimension dim.
func attrGraph(t *testing.T, labels []int32, edges []graph.Edge, attrs []float64, dim int) *graph.Graph {
	t.Helper()
	g, err := graph.Build(labels, edges, attrs, dim)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBinningConvergence checks that random binning is unbiased for the hat
// kernel and that its error falls like 1/√P: one iteration is a Bernoulli
// variable with mean k, so the average of P has standard deviation
// √(k(1−k)/P).
func TestBinningConvergence(t *testing.T) {
	// k_Δ((0.2,0.5),(0.5,0.6)) with δ = 1 is (1−0.3)(1−0.1) = 0.63.
	g := attrGraph(t, []int32{0, 0}, nil, []float64{0.2, 0.5, 0.5, 0.6}, 2)
	const want = 0.63
	if got := (Hat{Delta: 1}).Vertex(g, 0, g, 1); math.Abs(got-want) > 1e-15 {
		t.Fatalf("hat kernel = %v, want %v", got, want)
	}
	const seeds = 3000
	rms := map[int]float64{}
	for _, p := range []int{1, 16} {
		var sum, sq float64
		for s := uint64(0); s < seeds; s++ {
			b, err := NewBinning(1, p, 2, s)
			if err != nil {
				t.Fatal(err)
			}
			fx := b.VertexFeatures(nil, g, 0)
			fy := b.VertexFeatures(nil, g, 1)
			var dot float64
			for i := range fx {
				if fx[i].ID == fy[i].ID { // iteration i: same bin
					dot += fx[i].Val * fy[i].Val
				}
			}
			if v := b.Vertex(g, 0, g, 1); math.Abs(v-dot) > 1e-12 {
				t.Fatalf("Binning.Vertex = %v, feature dot = %v", v, dot)
			}
			sum += dot
			sq += (dot - want) * (dot - want)
		}
		mean := sum / seeds
		sd := math.Sqrt(want * (1 - want) / float64(p))
		if math.Abs(mean-want) > 4*sd/math.Sqrt(seeds) {
			t.Errorf("P=%d: mean %v over %d seeds, want %v ± %v", p, mean, seeds, want, 4*sd/math.Sqrt(seeds))
		}
		rms[p] = math.Sqrt(sq / seeds)
		if math.Abs(rms[p]-sd) > 0.1*sd {
			t.Errorf("P=%d: RMS error %v, theory √(k(1−k)/P) = %v", p, rms[p], sd)
		}
	}
	// 1/√P: sixteen times the iterations, a quarter of the error.
	if r := rms[1] / rms[16]; r < 3.5 || r > 4.5 {
		t.Errorf("RMS error ratio P=1/P=16 is %v, want about 4", r)
	}
	// Equal seeds give equal features.
	a, _ := NewBinning(0.5, 8, 2, 42)
	b, _ := NewBinning(0.5, 8, 2, 42)
	if !slices.Equal(a.VertexFeatures(nil, g, 0), b.VertexFeatures(nil, g, 0)) {
		t.Error("equal seeds, different features")
	}
}

// TestBinningIDs checks that bins get one dense id each whether their
// tuple packs into a key or is interned as a tuple: the ids must be in
// one-to-one correspondence with the exact tuples (iteration, ⌊(x_i −
// o_i)/δ⌋ for every i), computed here directly. Attributes in [−0.5, 1.5]
// and a NaN put some tuples outside the packed range [−1, ⌊1/δ⌋] of every
// layout, δ = 10⁻¹² leaves no layout at all, and δ = 1 and 0.3 pack most
// tuples.
func TestBinningIDs(t *testing.T) {
	const dim, n, p = 3, 200, 8
	r := rand.New(rand.NewPCG(5, 6))
	attrs := make([]float64, n*dim)
	for i := range attrs {
		attrs[i] = float64(r.IntN(9))/4 - 0.5
	}
	attrs[7] = math.NaN()
	g := attrGraph(t, make([]int32, n), nil, attrs, dim)
	for _, delta := range []float64{1, 0.3, 1e-12} {
		b, err := NewBinning(delta, p, dim, 1)
		if err != nil {
			t.Fatal(err)
		}
		idOf := map[[dim + 1]int64]uint64{}
		tupleOf := map[uint64][dim + 1]int64{}
		for v := 0; v < n; v++ {
			for it, f := range b.VertexFeatures(nil, g, v) {
				tuple := [dim + 1]int64{int64(it)}
				for i, x := range g.Attr(v) {
					tuple[i+1] = int64(math.Floor((x - b.offsets[it*dim+i]) / delta))
				}
				if id, ok := idOf[tuple]; ok && id != f.ID {
					t.Fatalf("δ=%g: tuple %v has ids %d and %d", delta, tuple, id, f.ID)
				}
				if u, ok := tupleOf[f.ID]; ok && u != tuple {
					t.Fatalf("δ=%g: id %d has tuples %v and %v", delta, f.ID, u, tuple)
				}
				idOf[tuple], tupleOf[f.ID] = f.ID, tuple
				if f.ID >= uint64(len(idOf)) {
					t.Fatalf("δ=%g: id %d after %d bins, want dense ids", delta, f.ID, len(idOf))
				}
			}
		}
		if b.Bins() != len(idOf) {
			t.Errorf("δ=%g: Bins() = %d, want %d", delta, b.Bins(), len(idOf))
		}
	}
}

// TestHopperMatrices compares M(v) with the shortest paths counted by hand.
// Path 0–1–2 (d = 3): length 0 gives M_00 = 1 everywhere; the arcs give an
// end vertex one path from it (M_01) and one into it (M_11), the middle two
// of each; the two paths of length 2 give the ends M_02 = M_22 = 1 and the
// middle M_12 = 2. On the 4-cycle (d = 3) every vertex starts 2 arcs and
// ends 2, starts the 2 shortest paths to its opposite vertex, ends 2, and is
// the middle of the 2 paths between its neighbours.
func TestHopperMatrices(t *testing.T) {
	path := graph.MustBuild([]int32{0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	end := []float64{1, 1, 1, 0, 1, 0, 0, 0, 1}
	mid := []float64{1, 2, 0, 0, 2, 2, 0, 0, 0}
	cyc := []float64{1, 2, 2, 0, 2, 2, 0, 0, 2}
	tests := []struct {
		name string
		g    *graph.Graph
		d    int
		want [][]float64
	}{
		{"path", path, 3, [][]float64{end, mid, end}},
		{"cycle", tinyC4, 3, [][]float64{cyc, cyc, cyc, cyc}},
		{"isolated", graph.MustBuild([]int32{0}, nil), 1, [][]float64{{1}}},
	}
	for _, tc := range tests {
		M, d := HopperMatrices(tc.g)
		if d != tc.d {
			t.Errorf("%s: d = %d, want %d", tc.name, d, tc.d)
			continue
		}
		for v, want := range tc.want {
			if got := M[v*d*d : (v+1)*d*d]; !slices.Equal(got, want) {
				t.Errorf("%s: M(%d) = %v, want %v", tc.name, v, got, want)
			}
		}
	}
}

// bruteHopper enumerates every shortest path of g explicitly and counts the
// positions of each vertex, independently of HopperMatrices' path counting.
func bruteHopper(g *graph.Graph, d int) []float64 {
	n := g.N()
	dist := graph.Distances(g)
	M := make([]float64, n*d*d)
	var path []int
	var walk func(t int)
	walk = func(t int) {
		v := path[len(path)-1]
		if v == t {
			j := len(path) - 1
			for i, x := range path {
				M[x*d*d+i*d+j]++
			}
			return
		}
		for _, w := range g.Neighbors(v) {
			if dist[int(w)*n+t] == dist[v*n+t]-1 {
				path = append(path, int(w))
				walk(t)
				path = path[:len(path)-1]
			}
		}
	}
	for s := 0; s < n; s++ {
		for t := 0; t < n; t++ {
			if dist[s*n+t] >= 0 {
				path = append(path[:0], s)
				walk(t)
			}
		}
	}
	return M
}

// The sparser graphs, of up to 16 vertices, are paths and trees in parts,
// whose vertices' eccentricities differ, which bound the counts hopperPacked
// propagates from each source.
func TestGraphHopperAgainstPathEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var gs []*graph.Graph
	for i := 0; i < 20; i++ {
		g := graphtest.Random(r, 1+r.IntN(9), 0.35, 2, 1)
		if i >= 12 {
			g = graphtest.Random(r, 8+r.IntN(9), 0.15, 2, 1)
		}
		M, d := HopperMatrices(g)
		if want := bruteHopper(g, d); !slices.Equal(M, want) {
			t.Fatalf("graph %d: M = %v, enumeration %v", i, M, want)
		}
		gs = append(gs, g)
	}
	// The kernel with Dirac labels against Σ_u Σ_v ⟨M(u),M(v)⟩·δ(labels).
	K, _, err := (&GraphHopper{Attr: AttrKernel{Kind: "dirac"}}).Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gs {
		Mg, dg := HopperMatrices(g)
		for j := i; j < len(gs); j++ {
			h := gs[j]
			Mh, dh := HopperMatrices(h)
			var want float64
			for u := 0; u < g.N(); u++ {
				for v := 0; v < h.N(); v++ {
					if g.Labels[u] != h.Labels[v] {
						continue
					}
					for a := 0; a < min(dg, dh); a++ {
						for b := 0; b < min(dg, dh); b++ {
							want += Mg[u*dg*dg+a*dg+b] * Mh[v*dh*dh+a*dh+b]
						}
					}
				}
			}
			if got := K.At(i, j); got != want {
				t.Errorf("K[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// attrSet returns random graphs whose attributes lie on the grid {0, 0.25,
// 0.5, 0.75, 1}, which scaling leaves unchanged (0 and 1 occur).
func attrSet(t *testing.T, r *rand.Rand, n int) []*graph.Graph {
	var gs []*graph.Graph
	for i := 0; i < n; i++ {
		g := graphtest.Random(r, 1+r.IntN(7), 0.4, 1, 1)
		attrs := make([]float64, 2*g.N())
		for j := range attrs {
			attrs[j] = float64(r.IntN(5)) / 4
		}
		attrs[0], attrs[1] = 0, 1
		var edges []graph.Edge
		for u := 0; u < g.N(); u++ {
			for _, v := range g.Neighbors(u) {
				edges = append(edges, graph.Edge{U: int32(u), V: v})
			}
		}
		gs = append(gs, attrGraph(t, g.Labels, edges, attrs, 2))
	}
	return gs
}

// TestAttributedDiracLimit: with δ below the smallest attribute difference
// (0.25) the hat kernel is Dirac on the attributes, and binning puts equal
// points in one bin and different ones apart; with P = 4 the values 1/√P =
// 1/2 are exact in binary, so explicit equals implicit exactly. So do GI
// and GraphHopper with the Dirac kernel on labels, whose sums are integers.
func TestAttributedDiracLimit(t *testing.T) {
	gs := attrSet(t, rand.New(rand.NewPCG(11, 12)), 14)
	a := AttrKernel{Kind: "hat", Delta: 0.2, Iterations: 4, Seed: 3}
	dirac := AttrKernel{Kind: "dirac"}
	for _, k := range []Kernel{
		&GraphInvariant{H: 2, Attr: a}, &GraphHopper{Attr: a}, &ShortestPath{Attr: &a},
		&GraphInvariant{H: 2, Attr: dirac}, &GraphHopper{Attr: dirac},
	} {
		ke, _, err := k.Gram(context.Background(), gs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		ki, _, err := k.Gram(context.Background(), gs, Implicit)
		if err != nil {
			t.Fatal(err)
		}
		requireEqual(t, k.Name(), ke, ki)
	}
}

// TestWVVectors compares the explicit maps of GI and GraphHopper with the
// definition φ^WV(G) = Σ_v φ^W(v) ⊗ φ^V(v) (Proposition 4.2), summed in a
// map over the pairs of feature ids: each graph must have as many
// non-zeros, sorted ids, the data set as many features, and the dot
// products must agree up to the order of summation. Binning with equal
// seeds gives equal bin ids, so the maps use a Binning of their own.
func TestWVVectors(t *testing.T) {
	ds := graphtest.Dataset(t, "ENZYMES")
	sub, err := ds.RandomSubset(30, 3)
	if err != nil {
		t.Fatal(err)
	}
	gs := graph.ScaleAttributes(sub.Graphs)
	hopper := &ghWeights{m: make([][]float64, len(gs)), d: make([]int, len(gs))}
	for i, g := range gs {
		hopper.m[i], hopper.d[i] = HopperMatrices(g)
		hopper.delta = max(hopper.delta, hopper.d[i])
	}
	tests := []struct {
		name string
		w    vertexWeights
		a    AttrKernel
	}{
		{"gi/hat", newGIWeights(graph.Refine(gs, 3, graph.Uniform)), AttrKernel{Kind: "hat", Delta: 1, Iterations: 8, Seed: 4}},
		{"gi/dirac", newGIWeights(graph.Refine(gs, 2, graph.Uniform)), AttrKernel{Kind: "dirac"}},
		{"gh/hat", hopper, AttrKernel{Kind: "hat", Delta: 0.5, Iterations: 8, Seed: 4}},
	}
	for _, tc := range tests {
		vm, err := tc.a.featureMap(18)
		if err != nil {
			t.Fatal(err)
		}
		vecs, features, err := wvVectors(context.Background(), gs, tc.w, vm)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := tc.a.featureMap(18)
		maps := make([]map[[2]uint64]float64, len(gs))
		all := map[[2]uint64]bool{}
		for i, g := range gs {
			maps[i] = map[[2]uint64]float64{}
			for u := 0; u < g.N(); u++ {
				for _, x := range tc.w.features(nil, i, u) {
					for _, y := range ref.VertexFeatures(nil, g, u) {
						maps[i][[2]uint64{x.ID, y.ID}] += x.Val * y.Val
						all[[2]uint64{x.ID, y.ID}] = true
					}
				}
			}
			if vecs[i].Len() != len(maps[i]) || !slices.IsSorted(vecs[i].IDs) {
				t.Fatalf("%s: graph %d has %d non-zeros (sorted %v), want %d", tc.name, i, vecs[i].Len(), slices.IsSorted(vecs[i].IDs), len(maps[i]))
			}
		}
		if features != len(all) {
			t.Errorf("%s: %d features, want %d", tc.name, features, len(all))
		}
		for i := range gs {
			for j := i; j < len(gs); j++ {
				var want float64
				for k, x := range maps[i] {
					want += x * maps[j][k]
				}
				if got := Dot(vecs[i], vecs[j]); math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Fatalf("%s: ⟨φ_%d, φ_%d⟩ = %v, want %v", tc.name, i, j, got, want)
				}
			}
		}
	}
}

// TestWVDeterministic checks that explicit GI and GraphHopper give the same
// matrix, to the bit, when computed twice with the same seed.
func TestWVDeterministic(t *testing.T) {
	ds := graphtest.Dataset(t, "ENZYMES")
	sub, err := ds.RandomSubset(40, 5)
	if err != nil {
		t.Fatal(err)
	}
	a := AttrKernel{Kind: "hat", Delta: 1, Iterations: 16, Seed: 9}
	for _, k := range []Kernel{&GraphInvariant{H: 3, Attr: a}, &GraphHopper{Attr: a}} {
		k1, _, err := k.Gram(context.Background(), sub.Graphs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		k2, _, err := k.Gram(context.Background(), sub.Graphs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		requireEqual(t, k.Name(), k1, k2)
	}
}

// relErr returns ‖A−B‖_F/‖B‖_F.
func relErr(a, b *mat.SymDense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / mat.Norm(b, 2)
}

// TestAttributedConvergence checks that explicit GI and GH approach their
// exact implicit values as the binning iterations grow, on an ENZYMES
// subset: the error should fall about √64/√1 = 8-fold from P = 1 to 64.
func TestAttributedConvergence(t *testing.T) {
	ds := graphtest.Dataset(t, "ENZYMES")
	sub, err := ds.RandomSubset(40, 1)
	if err != nil {
		t.Fatal(err)
	}
	gs := sub.Graphs
	for _, mk := range []func(AttrKernel) Kernel{
		func(a AttrKernel) Kernel { return &GraphInvariant{H: 3, Attr: a} },
		func(a AttrKernel) Kernel { return &GraphHopper{Attr: a} },
	} {
		exact, _, err := mk(AttrKernel{Kind: "hat", Delta: 1}).Gram(context.Background(), gs, Implicit)
		if err != nil {
			t.Fatal(err)
		}
		errs := map[int]float64{}
		for _, p := range []int{1, 64} {
			// Average over seeds so that the test does not hang on one
			// lucky or unlucky draw.
			for seed := uint64(1); seed <= 3; seed++ {
				k := mk(AttrKernel{Kind: "hat", Delta: 1, Iterations: p, Seed: seed})
				ke, _, err := k.Gram(context.Background(), gs, Explicit)
				if err != nil {
					t.Fatal(err)
				}
				errs[p] += relErr(ke, exact) / 3
			}
		}
		name := mk(AttrKernel{}).Name()
		if errs[64] > 0.1 || errs[1]/errs[64] < 4 {
			t.Errorf("%s: relative error %.4f at P=1, %.4f at P=64; want a drop of about 8, to below 0.1", name, errs[1], errs[64])
		}
		t.Logf("%s: relative Frobenius error %.4f at P=1, %.4f at P=64", name, errs[1], errs[64])
	}
}

func TestAttributedParams(t *testing.T) {
	tests := []struct {
		kernel string
		p      Params
		ok     bool
	}{
		{"gi", Params{"h": "3", "delta": "0.5", "iterations": "16"}, true},
		{"gi", Params{"h": "-1"}, false},
		{"gh", Params{"vertex": "rbf", "sigma": "2"}, true},
		{"gh", Params{"vertex": "cosine"}, false},
		{"gh", Params{"delta": "0"}, false},
		{"sp", Params{"vertex": "hat", "iterations": "4"}, true},
		{"sp", Params{"iterations": "0"}, false},
	}
	for _, tc := range tests {
		if _, err := New(tc.kernel, tc.p); (err == nil) != tc.ok {
			t.Errorf("%s %v: err = %v, want ok %v", tc.kernel, tc.p, err, tc.ok)
		}
	}
}

// TestMemoryEstimates checks that the explicit maps' estimates bound the
// non-zeros they produce (52 bytes a non-zero) without being absurd: on an
// ENZYMES subset the bound holds, and stays within 100× of the truth.
func TestMemoryEstimates(t *testing.T) {
	ds := graphtest.Dataset(t, "ENZYMES")
	sub, err := ds.RandomSubset(30, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}
	for _, k := range []interface {
		Kernel
		MemoryEstimator
	}{&GraphInvariant{H: 3, Attr: a}, &GraphHopper{Attr: a}, &ShortestPath{Attr: &a}} {
		_, rep, err := k.Gram(context.Background(), sub.Graphs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		est, got := k.EstimateBytes(sub.Graphs, Explicit, 0), 52*rep.FeatureNNZ
		if est < got || est > 100*got {
			t.Errorf("%s: estimate %d bytes for %d non-zeros (%d bytes)", k.Name(), est, rep.FeatureNNZ, got)
		}
	}
}
