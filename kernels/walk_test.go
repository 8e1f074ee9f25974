package kernels

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/synth"
	"gonum.org/v1/gonum/mat"
)

// Tiny graphs of the hand-computed tests. Vertex labels are given per vertex,
// edge labels are 0 unless stated.
var (
	// path: 0 - 1 - 0 (vertex labels a b a).
	tinyPath = graph.MustBuild([]int32{0, 1, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	// triangle on vertices labelled 0, 0, 1.
	tinyTriangle = graph.MustBuild([]int32{0, 0, 1}, []graph.Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 1, V: 2}})
	// star: centre labelled 1, three leaves labelled 0.
	tinyStar = graph.MustBuild([]int32{1, 0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 0, V: 3}})
	// path with edge labels: 0 -5- 1 -7- 0.
	tinyPathE = graph.MustBuild([]int32{0, 1, 0}, []graph.Edge{{U: 0, V: 1, Label: 5}, {U: 1, V: 2, Label: 7}})
)

// tinyPaths returns n graphs, each tinyPath, for the cost kernels, whose
// costs do not depend on the graphs.
func tinyPaths(n int) []*graph.Graph {
	gs := make([]*graph.Graph, n)
	for i := range gs {
		gs[i] = tinyPath
	}
	return gs
}

// plainPath returns the path on n vertices, all labelled 0.
func plainPath(n int) *graph.Graph {
	var edges []graph.Edge
	for i := 1; i < n; i++ {
		edges = append(edges, graph.Edge{U: int32(i - 1), V: int32(i)})
	}
	return graph.MustBuild(make([]int32, n), edges)
}

// The label-sequence count vectors behind the expected values below, written
// as (vertex label, [edge label,] vertex label, ...) → count:
//
//	path     l=0: 0:2 1:1            l=1: (0,1):2 (1,0):2
//	         l=2: (0,1,0):4 (1,0,1):2 (walks 0-1-0, 0-1-2, 2-1-0, 2-1-2; 1-0-1, 1-2-1)
//	triangle l=0: 0:2 1:1            l=1: (0,0):2 (0,1):2 (1,0):2
//	         l=2: (0,0,0):2 (0,0,1):2 (0,1,0):4 (1,0,0):2 (1,0,1):2
//	         (12 walks: every vertex has degree 2, so 6 arcs × 2 continuations)
//	star     l=0: 0:3 1:1            l=1: (1,0):3 (0,1):3
//	         l=2: (0,1,0):9 (leaf-centre-leaf, 3×3) (1,0,1):3
//	pathE    l=1: (0,5,1) (1,5,0) (1,7,0) (0,7,1), one each
//	         l=2: six distinct sequences, one each
//
// Each kernel value is the dot product of two such vectors.
func TestWalkHandComputed(t *testing.T) {
	tests := []struct {
		name string
		g, h *graph.Graph
		want [3]float64 // K=_0, K=_1, K=_2
	}{
		// l=0: 2·2+1·1; l=1: 2·2+2·2; l=2: 4·4+2·2.
		{"path-triangle", tinyPath, tinyTriangle, [3]float64{5, 8, 20}},
		// l=0: 2·3+1·1; l=1: 2·3+2·3; l=2: 4·9+2·3.
		{"path-star", tinyPath, tinyStar, [3]float64{7, 12, 42}},
		// l=0: 2·3+1·1; l=1: 2·3+2·3; l=2: 4·9+2·3.
		{"triangle-star", tinyTriangle, tinyStar, [3]float64{7, 12, 42}},
		// l=0: 4+1; l=1: 4+4; l=2: 16+4.
		{"path-path", tinyPath, tinyPath, [3]float64{5, 8, 20}},
		// l=0: 4+1; l=1: 4+4+4; l=2: 4+4+16+4+4.
		{"triangle-triangle", tinyTriangle, tinyTriangle, [3]float64{5, 12, 32}},
		// l=0: 9+1; l=1: 9+9; l=2: 81+9.
		{"star-star", tinyStar, tinyStar, [3]float64{10, 18, 90}},
		// Edge labels 5 and 7 never match label 0, so only vertices count.
		{"pathE-path", tinyPathE, tinyPath, [3]float64{5, 0, 0}},
		// Four and six distinct sequences with count 1 each.
		{"pathE-pathE", tinyPathE, tinyPathE, [3]float64{5, 4, 6}},
	}
	for _, tc := range tests {
		for l := 0; l <= 2; l++ {
			for _, m := range []Method{Explicit, Implicit} {
				got := pairValue(t, &Walk{Length: l}, tc.g, tc.h, m)
				if got != tc.want[l] {
					t.Errorf("%s l=%d %s: K = %v, want %v", tc.name, l, m, got, tc.want[l])
				}
			}
		}
	}
}

// TestMaxWalkHandComputed checks K≤_2 = Σ λ_i K=_i on the path and triangle,
// whose K=_i are 5, 8, 20 (see TestWalkHandComputed).
func TestMaxWalkHandComputed(t *testing.T) {
	tests := []struct {
		lambda []float64
		want   float64
	}{
		{nil, 5 + 8 + 20},
		{[]float64{1, 0.5, 0.25}, 5 + 4 + 5},
		{[]float64{0, 0, 1}, 20},
	}
	for _, tc := range tests {
		for _, m := range []Method{Explicit, Implicit} {
			got := pairValue(t, &Walk{Length: 2, Max: true, Lambda: tc.lambda}, tinyPath, tinyTriangle, m)
			if got != tc.want {
				t.Errorf("λ=%v %s: K≤_2 = %v, want %v", tc.lambda, m, got, tc.want)
			}
		}
	}
}

// pairValue returns the off-diagonal entry of the 2×2 Gram matrix of g, h.
func pairValue(t *testing.T, k Kernel, g, h *graph.Graph, m Method) float64 {
	t.Helper()
	K, _, err := k.Gram(context.Background(), []*graph.Graph{g, h}, m)
	if err != nil {
		t.Fatal(err)
	}
	return K.At(0, 1)
}

// bruteWalks counts the label sequences of all walks of length l in g by
// enumerating the walks one by one, independently of both methods.
func bruteWalks(g *graph.Graph, l int) map[string]float64 {
	counts := make(map[string]float64)
	var rec func(v int, seq string, left int)
	rec = func(v int, seq string, left int) {
		if left == 0 {
			counts[seq]++
			return
		}
		for a := g.Offsets[v]; a < g.Offsets[v+1]; a++ {
			w := int(g.Adj[a])
			rec(w, fmt.Sprintf("%s,%d,%d", seq, g.EdgeLabels[a], g.Labels[w]), left-1)
		}
	}
	for v := 0; v < g.N(); v++ {
		rec(v, fmt.Sprint(g.Labels[v]), l)
	}
	return counts
}

func bruteKernel(g, h *graph.Graph, l int) float64 {
	a, b := bruteWalks(g, l), bruteWalks(h, l)
	var s float64
	for k, x := range a {
		s += x * b[k]
	}
	return s
}

// slowDirac is the Dirac kernel hidden behind another type, so that kernels
// take their generic paths instead of the integer fast paths.
type slowDirac struct{ Dirac }

// TestWalkAgainstBruteForce compares both methods, on both the fast and the
// generic paths, with walk enumeration on random small graphs.
func TestWalkAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var gs []*graph.Graph
	for i := 0; i < 12; i++ {
		gs = append(gs, graphtest.Random(r, 1+r.IntN(7), 0.2+0.5*r.Float64(), 1+r.IntN(3), 1+r.IntN(2)))
	}
	gs = append(gs, graph.MustBuild(nil, nil)) // the empty graph
	// A star whose centre has more arcs than pairGroupsSort, with six
	// pairs of edge and leaf labels among them.
	gs = append(gs, bigStar(40))
	for l := 0; l <= 4; l++ {
		kernels := map[string]*Walk{
			"fast":    {Length: l},
			"generic": {Length: l, Vertex: slowDirac{}, Edge: slowDirac{}},
		}
		for kname, k := range kernels {
			for _, m := range []Method{Explicit, Implicit} {
				K, _, err := k.Gram(context.Background(), gs, m)
				if err != nil {
					t.Fatal(err)
				}
				for i := range gs {
					for j := range gs {
						if got, want := K.At(i, j), bruteKernel(gs[i], gs[j], l); got != want {
							t.Errorf("l=%d %s %s K[%d,%d] = %v, brute force %v", l, kname, m, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// bigStar returns the star with leaves leaves: the centre has label 0,
// leaf i label i mod 3 and its edge label i mod 2.
func bigStar(leaves int) *graph.Graph {
	labels := make([]int32, leaves+1)
	var edges []graph.Edge
	for i := 1; i <= leaves; i++ {
		labels[i] = int32(i % 3)
		edges = append(edges, graph.Edge{U: 0, V: int32(i), Label: int32(i % 2)})
	}
	return graph.MustBuild(labels, edges)
}

// TestPairGroups checks the pairs of edge and neighbour label around a
// vertex, counted by hand, by search below pairGroupsSort arcs and by sort
// from it.
func TestPairGroups(t *testing.T) {
	tests := []struct {
		name string
		g    *graph.Graph
		v    int
		want map[uint64]int32 // pair el·nVL+label → arcs
	}{
		// The centre of tinyStar (label 1) has three leaves of label 0,
		// edge label 0: one pair, three arcs.
		{"star-centre", tinyStar, 0, map[uint64]int32{0: 3}},
		{"star-leaf", tinyStar, 1, map[uint64]int32{1: 1}},
		// The middle of tinyPathE: edge 5 to a 0, edge 7 to a 0.
		{"path-edges", tinyPathE, 1, map[uint64]int32{5*3 + 0: 1, 7*3 + 0: 1}},
		// bigStar(40)'s centre: leaf i has label i%3 and edge label
		// i%2, so pair (i%2)·3 + i%3 = i%6 for leaves 1..40 is 0 for 6
		// of them, 1..4 for 7 each, 5 for 7: 6+7+7+7+7+6 = 40.
		{"big-star", bigStar(40), 0, map[uint64]int32{0: 6, 1: 7, 2: 7, 3: 7, 4: 7, 5: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// nVL 3 for every graph: labels below 3 pack uniquely.
			seed := []pairGroup{{99, 1}} // groups of an earlier vertex
			got := pairGroups(seed, tt.g, tt.v, 3)
			if got[0] != (pairGroup{99, 1}) {
				t.Fatalf("earlier group changed to %v", got[0])
			}
			m := map[uint64]int32{}
			for _, pg := range got[1:] {
				if _, dup := m[pg.pair]; dup {
					t.Errorf("pair %d listed twice", pg.pair)
				}
				m[pg.pair] = pg.n
			}
			if !maps.Equal(m, tt.want) {
				t.Errorf("groups %v, want %v", m, tt.want)
			}
		})
	}
}

// requireEqual fails unless the two matrices are exactly equal.
func requireEqual(t *testing.T, what string, a, b *mat.SymDense) {
	t.Helper()
	if n, m := a.SymmetricDim(), b.SymmetricDim(); n != m {
		t.Fatalf("%s: sizes %d and %d", what, n, m)
	}
	if i, j, ok := sameBits(a, b); !ok {
		t.Fatalf("%s: K[%d,%d] explicit %v, implicit %v", what, i, j, a.At(i, j), b.At(i, j))
	}
}

func explicitImplicit(t *testing.T, what string, k *Walk, gs []*graph.Graph) (*Report, *Report) {
	t.Helper()
	ctx := context.Background()
	ke, re, err := k.Gram(ctx, gs, Explicit)
	if err != nil {
		t.Fatalf("%s explicit: %v", what, err)
	}
	ki, ri, err := k.Gram(ctx, gs, Implicit)
	if err != nil {
		t.Fatalf("%s implicit: %v", what, err)
	}
	requireEqual(t, what, ke, ki)
	return re, ri
}

// TestWalkExplicitEqualsImplicitMUTAG is the exactness requirement of the
// paper's Dirac setting: both methods compute the same integer counts.
func TestWalkExplicitEqualsImplicitMUTAG(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	for l := 0; l <= 6; l++ {
		re, ri := explicitImplicit(t, fmt.Sprintf("MUTAG l=%d", l), &Walk{Length: l}, ds.Graphs)
		if re.FeatureNNZ == 0 || ri.ProductVertices == 0 || ri.Pairs != 188*189/2 {
			t.Errorf("l=%d: implausible cost figures: %v / %v", l, re, ri)
		}
	}
	explicitImplicit(t, "MUTAG max l=4", &Walk{Length: 4, Max: true}, ds.Graphs)
}

func TestWalkExplicitEqualsImplicitSynthetic(t *testing.T) {
	for _, pv := range []float64{0, 0.5, 1} {
		ds, err := synth.Walk(synth.WalkConfig{PV: pv}, 40, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, wl := range []int{0, 1, 2} {
			for _, l := range []int{0, 3, 6} {
				explicitImplicit(t, fmt.Sprintf("pV=%v wl=%d l=%d", pv, wl, l), &Walk{Length: l, WL: wl}, ds.Graphs)
			}
		}
	}
}

// TestWalkCostFigures checks the reported sizes on the tiny graphs, where
// they can be counted by hand.
func TestWalkCostFigures(t *testing.T) {
	gs := []*graph.Graph{tinyPath, tinyTriangle}
	_, ri, err := (&Walk{Length: 1}).Gram(context.Background(), gs, Implicit)
	if err != nil {
		t.Fatal(err)
	}
	// Product vertices: path×path 2·2+1·1 = 5, path×triangle 5,
	// triangle×triangle 5. Product edges: a product edge joins (u,v)-(u',v')
	// for edges uu', vv' with equal endpoint labels; it is half the number of
	// matching pairs of directed edges, i.e. K=_1/2: 8/2, 8/2, 12/2.
	if ri.ProductVertices != 15 || ri.ProductEdges != 14 || ri.Pairs != 3 {
		t.Errorf("implicit cost: %d vertices, %d edges, %d pairs; want 15, 14, 3", ri.ProductVertices, ri.ProductEdges, ri.Pairs)
	}
	_, re, err := (&Walk{Length: 2}).Gram(context.Background(), gs, Explicit)
	if err != nil {
		t.Fatal(err)
	}
	// φ_2(path) has 2 non-zeros, φ_2(triangle) 5 (see the vectors above).
	if re.FeatureNNZ != 7 || re.MaxFeatureNNZ != 5 {
		t.Errorf("explicit cost: nnz %d max %d, want 7 and 5", re.FeatureNNZ, re.MaxFeatureNNZ)
	}
}

func TestWalkCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gs := []*graph.Graph{tinyPath, tinyStar}
	for _, m := range []Method{Explicit, Implicit} {
		if _, _, err := (&Walk{Length: 2}).Gram(ctx, gs, m); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", m, err)
		}
	}
}

func TestWalkParams(t *testing.T) {
	tests := []struct {
		p       Params
		wantErr string // "" for success
		want    Walk
	}{
		{Params{"length": "3"}, "", Walk{Length: 3}},
		{Params{"length": "2", "max": "true", "lambda": "0.5"}, "", Walk{Length: 2, Max: true, Lambda: []float64{1, 0.5, 0.25}}},
		{Params{"length": "2", "wl": "1"}, "", Walk{Length: 2, WL: 1}},
		{Params{}, `parameter "length": required`, Walk{}},
		{Params{"length": "-1"}, "out of range", Walk{}},
		{Params{"length": "x"}, "not an integer", Walk{}},
		{Params{"length": "1", "foo": "1"}, "unknown parameter", Walk{}},
		{Params{"length": "1", "lambda": "0.5"}, "only applies with max=true", Walk{}},
		{Params{"length": "1", "max": "true", "lambda": "NaN"}, "not a finite number", Walk{}},
		{Params{"length": "1", "max": "yes"}, "not a boolean", Walk{}},
	}
	for _, tc := range tests {
		k, err := New("walk", tc.p)
		if tc.wantErr != "" {
			var pe *ParamError
			if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err = %v, want a ParamError with %q", tc.p, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.p, err)
			continue
		}
		w := k.(*Walk)
		if w.Length != tc.want.Length || w.Max != tc.want.Max || w.WL != tc.want.WL || fmt.Sprint(w.Lambda) != fmt.Sprint(tc.want.Lambda) {
			t.Errorf("%v: got %+v, want %+v", tc.p, *w, tc.want)
		}
	}
	if _, err := New("nope", nil); err == nil || !strings.Contains(err.Error(), "unknown kernel") {
		t.Errorf("unknown kernel: err = %v", err)
	}
}

// TestWalkThreads checks that the walk kernel's matrix is the same to the
// bit for every number of threads, on both methods, with non-integer
// weights that would show a different order of summation.
func TestWalkThreads(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	gs := ds.Graphs[:90]
	for _, m := range []Method{Explicit, Implicit} {
		base := &Walk{Length: 4, Max: true, Lambda: []float64{1, 0.3, 0.09, 0.027, 0.0081}}
		want, _, err := base.Gram(context.Background(), gs, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range []int{2, 3, 7} {
			k := *base
			k.Threads = th
			got, rep, err := k.Gram(threadsContext(th), gs, m)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, fmt.Sprintf("%s threads=%d", m, th), want, got)
			if m == Implicit && rep.Pairs != 90*91/2 {
				t.Errorf("threads=%d: %d pairs reported, want %d", th, rep.Pairs, 90*91/2)
			}
		}
	}
}

// TestWalkThreadsFeatureMaps checks that the feature maps computed in
// parallel chunks give the same matrix as one sequential interner, also
// after WL refinement, where features are many.
func TestWalkThreadsFeatureMaps(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	gs := ds.Graphs[:100]
	// WL: 3 refines as a pipeline on more than one thread (see
	// refineStreamed).
	// WL: 1 to 3 at lengths 2 to 4 stream the packed map too, and WL: 2
	// at length 6 takes 89 bits, too many for it (see streamPacks).
	for _, base := range []Walk{{Length: 5}, {Length: 4, WL: 1}, {Length: 3, WL: 3}, {Length: 2, WL: 2}, {Length: 6, WL: 2}, {Length: 3, Max: true}} {
		want, wrep, err := base.Gram(context.Background(), gs, Explicit)
		if err != nil {
			t.Fatal(err)
		}
		in := gs
		if base.WL > 0 {
			in = graph.RefineGraphs(gs, base.WL, graph.FromLabels)
		}
		for _, th := range []int{2, 3} {
			k := base
			k.Threads = th
			got, rep, err := k.Gram(context.Background(), gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, fmt.Sprintf("%+v threads=%d", base, th), want, got)
			// The merged interner holds every sequence once, as the
			// sequential one does; the packed map counts those of
			// full length.
			features := wantWalkFeatures(t, base, in, th, chooseAuto, wrep.Features)
			if _, _, ok := k.streamPacks(gs, th); ok {
				features = wantWalkFeatures(t, base, in, th, choosePacked, wrep.Features)
				if rep.TPrep != 0 {
					t.Errorf("%+v threads=%d: the streamed map timed its refinement apart, %v", base, th, rep.TPrep)
				}
			}
			if rep.Features != features || rep.FeatureNNZ != wrep.FeatureNNZ {
				t.Errorf("%+v threads=%d: %d features, %d nnz; want %d, %d", base, th, rep.Features, rep.FeatureNNZ, features, wrep.FeatureNNZ)
			}
		}
	}
}

// TestWalkThreadsLargeCounts checks that a parallel map whose walk counts
// are too large for exact dot products in any order falls back to the
// sequential map: the complete graph on 16 vertices has 16·15^7 ≈ 2.7·10^9
// walks of length 7, above exactCount = 2^26, and a sparse random graph
// far fewer.
func TestWalkThreadsLargeCounts(t *testing.T) {
	var edges []graph.Edge
	for u := range 16 {
		for v := u + 1; v < 16; v++ {
			edges = append(edges, graph.Edge{U: int32(u), V: int32(v)})
		}
	}
	labels := make([]int32, 16)
	for i := range labels {
		labels[i] = int32(i % 3)
	}
	complete := graph.MustBuild(labels, edges)
	sparse := graphtest.Random(rand.New(rand.NewPCG(1, 2)), 16, 0.15, 3, 1)
	k := &Walk{Length: 7}
	tests := []struct {
		name    string
		gs      []*graph.Graph
		inexact bool
	}{
		{"complete", []*graph.Graph{sparse, complete, sparse}, true},
		{"sparse", []*graph.Graph{sparse, sparse, sparse}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := newDiracWalkMapper(k, tt.gs)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = b.parallelVectors(context.Background(), tt.gs, 2)
			if got := errors.Is(err, errInexact); got != tt.inexact {
				t.Fatalf("parallel map: err = %v, want errInexact %v", err, tt.inexact)
			}
			want, _, err := k.Gram(context.Background(), tt.gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			kk := *k
			kk.Threads = 2
			got, _, err := kk.Gram(context.Background(), tt.gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, tt.name, want, got)
		})
	}
}

// TestWalkThreadsInexactOrder checks that every way of mapping on more
// threads gives the sequential matrix to the bit where the walk counts are
// so large that the dot products round, and their sums depend on the
// order of their terms: the pipeline numbers the sequences in the
// sequential map's order, and the parallel and private maps, whose ids are
// in another, are not taken even when asked for. Nearly complete graphs
// of 16–21 vertices have up to 21·20^9 ≈ 10^13 walks of length 9, and
// the test checks that some entry changes when its terms are summed in
// reverse.
func TestWalkThreadsInexactOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var gs []*graph.Graph
	for i := range 12 {
		n := 16 + i%6
		labels := make([]int32, n)
		for v := range labels {
			labels[v] = int32(r.IntN(2))
		}
		var edges []graph.Edge
		for u := range n {
			for v := u + 1; v < n; v++ {
				if r.Float64() < 0.9 {
					edges = append(edges, graph.Edge{U: int32(u), V: int32(v)})
				}
			}
		}
		gs = append(gs, graph.MustBuild(labels, edges))
	}
	k := &Walk{Length: 9}
	if k.walksExact(gs) {
		t.Fatal("walk counts exact in any order")
	}
	ctx := context.Background()
	want, err := k.explicitGramBy(ctx, gs, 1, &Report{}, chooseAuto)
	if err != nil {
		t.Fatal(err)
	}
	vecs, _, err := k.FeatureVectors(ctx, gs, nil)
	if err != nil {
		t.Fatal(err)
	}
	reordered := 0
	for i := range gs {
		for j := i; j < len(gs); j++ {
			x, y := vecs[i], vecs[j]
			var sum float64
			for a, b := len(x.IDs)-1, len(y.IDs)-1; a >= 0 && b >= 0; {
				switch {
				case x.IDs[a] > y.IDs[b]:
					a--
				case x.IDs[a] < y.IDs[b]:
					b--
				default:
					sum += x.Vals[a] * y.Vals[b]
					a, b = a-1, b-1
				}
			}
			if sum != want.At(i, j) {
				reordered++
			}
		}
	}
	if reordered == 0 {
		t.Fatal("no entry depends on the order of its terms")
	}
	ways := []overlapChoice{chooseAuto, chooseOverlap, chooseShared, choosePipe, choosePipeShared, choosePrivate, choosePipePrivate, choosePacked}
	for _, how := range ways {
		for _, th := range []int{2, 3} {
			got, err := k.explicitGramBy(WithCrew(ctx, NewCrew(DefaultLinger)), gs, th, &Report{}, how)
			if err != nil {
				t.Fatal(err)
			}
			requireEqual(t, fmt.Sprintf("way %d, threads=%d", how, th), want, got)
		}
	}
}

// TestSharedInterner checks that goroutines interning overlapping keys at
// once get one id per key, distinct ids for distinct keys, dense up to a
// block of ids per goroutine, and a count of the keys; and that one
// seeded from a sequential interner keeps its ids.
func TestSharedInterner(t *testing.T) {
	tests := []struct {
		keys, goroutines int
		// seeded keys are first interned in sequence and copied by
		// sharedInternerOf.
		seeded int
	}{
		{0, 2, 0},
		{1, 3, 0},
		// Prime numbers of keys, so that every goroutine's order below
		// is a permutation.
		{1009, 2, 0},
		// Enough keys that every shard's table grows several times.
		{200003, 4, 0},
		// Seeded up to just below a page of keys, and not a multiple of
		// idBlock, so that the first blocks claimed cross into the
		// next page.
		{1<<keyPageBits + 1009, 2, 1<<keyPageBits - 100},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d-keys-%d-goroutines-%d-seeded", tt.keys, tt.goroutines, tt.seeded), func(t *testing.T) {
			key := func(j int) uint64 {
				if j%5 == 0 {
					return noPrev<<32 | uint64(j)
				}
				return uint64(j)<<32 | uint64(j%7)
			}
			var seq interner[key64]
			for j := range tt.seeded {
				seq.intern(key64(key(j)))
			}
			s := sharedInternerOf(&seq)
			ids := make([][]uint32, tt.goroutines)
			done := make(chan struct{})
			for g := range tt.goroutines {
				go func() {
					defer func() { done <- struct{}{} }()
					var r idRange
					ids[g] = make([]uint32, tt.keys)
					// Each goroutine takes the keys in its own order,
					// some twice.
					for i := range 2 * tt.keys {
						j := (i*(2*g+1) + g) % tt.keys
						ids[g][j] = s.intern(key(j), &r)
					}
				}()
			}
			for range tt.goroutines {
				<-done
			}
			if s.len() != tt.keys {
				t.Errorf("len = %d, want %d", s.len(), tt.keys)
			}
			seen := make(map[uint32]int)
			for j := range tt.keys {
				for g := 1; g < tt.goroutines; g++ {
					if ids[g][j] != ids[0][j] {
						t.Fatalf("key %d: id %d in goroutine 0, %d in %d", j, ids[0][j], ids[g][j], g)
					}
				}
				if k, ok := seen[ids[0][j]]; ok {
					t.Fatalf("keys %d and %d share id %d", k, j, ids[0][j])
				}
				seen[ids[0][j]] = j
				if j < tt.seeded && ids[0][j] != uint32(j) {
					t.Fatalf("seeded key %d: id %d", j, ids[0][j])
				}
				if limit := uint32(tt.keys + tt.goroutines*idBlock); ids[0][j] >= limit {
					t.Fatalf("key %d: id %d, want below %d", j, ids[0][j], limit)
				}
			}
		})
	}
}

// TestWalkExplicitGramOverlap checks that every way of the parallel
// explicit Gram matrix, the sequential map overlapped with the dot
// products, the pipeline, and either followed by the parallel map of all
// but the first graphs, gives the sequential matrix to the bit, with the
// same feature counts, also with non-integer weights (which only the
// overlap takes) and after WL refinement, where the dot products take
// posting lists. On one thread the mapper runs the pipeline's last rounds
// itself, when its queue is full, and the columns.
func TestWalkExplicitGramOverlap(t *testing.T) {
	gs := graphtest.Dataset(t, "MUTAG").Graphs[:120]
	tests := []struct {
		name string
		k    Walk
	}{
		{"l5", Walk{Length: 5}},
		{"l3-max", Walk{Length: 3, Max: true}},
		{"l4-weights", Walk{Length: 4, Max: true, Lambda: []float64{1, 0.3, 0.09, 0.027, 0.0081}}},
		{"l4-wl1", Walk{Length: 4, WL: 1}},
		// 8 labels of 10 bits and 7 edge labels of 2: 94 bits, which
		// the packed map takes in two words.
		{"l7-wl3", Walk{Length: 7, WL: 3}},
		{"l2-generic", Walk{Length: 2, Vertex: genericDirac{}, Edge: genericDirac{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wrep, err := tt.k.Gram(context.Background(), gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			in := gs
			if tt.k.WL > 0 {
				in = graph.RefineGraphs(gs, tt.k.WL, graph.FromLabels)
			}
			for _, how := range []overlapChoice{chooseOverlap, chooseShared, choosePipe, choosePipeShared, choosePrivate, choosePipePrivate, choosePacked, chooseAuto} {
				for _, threads := range []int{1, 2, 3} {
					rep := &Report{}
					got, err := tt.k.explicitGramBy(context.Background(), in, threads, rep, how)
					if err != nil {
						t.Fatal(err)
					}
					what := fmt.Sprintf("choice %d threads %d", how, threads)
					requireEqual(t, what, want, got)
					features := wantWalkFeatures(t, tt.k, in, threads, how, wrep.Features)
					if rep.Features != features || rep.FeatureNNZ != wrep.FeatureNNZ {
						t.Errorf("%s: %d features, %d nnz; want %d, %d", what, rep.Features, rep.FeatureNNZ, features, wrep.FeatureNNZ)
					}
				}
			}
		})
	}
}

// TestWalkPipeable checks which kernels the pipelined map takes: those
// whose vectors hold only sequences of full length, without weights,
// whatever their walk counts; and which graphs' walk counts keep the dot
// products exact in any order, as the parallel and private maps need.
func TestWalkPipeable(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs
	// The complete graph on 16 vertices has 16·15^7 ≈ 2.7·10^9 walks of
	// length 7, above exactCount = 2^26 (see TestWalkThreadsLargeCounts).
	var edges []graph.Edge
	for u := range 16 {
		for v := u + 1; v < 16; v++ {
			edges = append(edges, graph.Edge{U: int32(u), V: int32(v)})
		}
	}
	complete := graph.MustBuild(make([]int32, 16), edges)
	// A star of k = 200 leaves has k^⌈l/2⌉ walks of length l from the
	// centre and k^⌊l/2⌋ from each leaf: at length 4, 200^2 + 200^3 ≈
	// 8.0·10^6, below exactCount, where walkBound gives 400·200^3 =
	// 3.2·10^9, so its walks are counted; at length 6, 200^3 + 200^4 ≈
	// 1.6·10^9, above.
	edges = edges[:0]
	for v := 1; v <= 200; v++ {
		edges = append(edges, graph.Edge{U: 0, V: int32(v)})
	}
	star := graph.MustBuild(make([]int32, 201), edges)
	tests := []struct {
		name     string
		k        Walk
		gs       []*graph.Graph
		pipeable bool
		exact    bool
	}{
		{"l5", Walk{Length: 5}, mutag, true, true},
		{"l1", Walk{Length: 1}, mutag, true, true},
		// Length 0 and Max count their walks without walkBound: at
		// most 28 and 713 (up to length 3) in a graph of MUTAG,
		// counted by Walk.walks.
		{"l0", Walk{Length: 0}, mutag, false, true},
		{"max", Walk{Length: 3, Max: true}, mutag, false, true},
		{"generic", Walk{Length: 2, Vertex: genericDirac{}, Edge: genericDirac{}}, mutag, false, true},
		{"large-counts", Walk{Length: 7}, append(mutag[:3:3], complete), true, false},
		{"large-counts-max", Walk{Length: 7, Max: true}, []*graph.Graph{complete}, false, false},
		{"small-counts", Walk{Length: 7}, mutag[:3], true, true},
		{"counted", Walk{Length: 4}, []*graph.Graph{star}, true, true},
		{"counted-large", Walk{Length: 6}, []*graph.Graph{star}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.k.newMapper(tt.gs)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.k.pipeable(b); got != tt.pipeable {
				t.Errorf("pipeable = %v, want %v", got, tt.pipeable)
			}
			if got := tt.k.walksExact(tt.gs); got != tt.exact {
				t.Errorf("walksExact = %v, want %v", got, tt.exact)
			}
		})
	}
}

// TestWalkExplicitGramCancel checks that a parallel explicit Gram matrix
// cancelled before it starts, or while it maps or multiplies (as the
// runner's time and memory limits do), returns the context's error in
// both ways, and returns at all: a column worker left waiting for a graph
// would hang it.
func TestWalkExplicitGramCancel(t *testing.T) {
	gs := graphtest.Dataset(t, "ENZYMES").Graphs
	// ENZYMES at length 8 takes about 0.3 s on one thread, 0.2 s on two:
	// the limits fall before, in and just after the first graphs' map.
	for _, after := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 15 * time.Millisecond} {
		for _, how := range []overlapChoice{chooseOverlap, chooseShared, choosePipe, choosePipeShared, choosePrivate, choosePipePrivate, choosePacked} {
			ctx, cancel := context.WithTimeout(context.Background(), after)
			_, err := (&Walk{Length: 8}).explicitGramBy(ctx, gs, 2, &Report{}, how)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("cancelled after %v, choice %d: err = %v, want context.DeadlineExceeded", after, how, err)
			}
		}
	}
}

// TestWalkPrivatePrefer checks whether the pipeline switches to the
// private map after its first graphs, on the data sets whose times set
// privateSeqs. The sequences shorter than the walks in the first 8
// graphs, which the sequential map of the shorter walks interns too; the
// threshold is 8·privateSeqs = 800. After one WL iteration, ENZYMES at
// length 1 took 4.9–5.0 ms by the private map against 6.2–6.3 by the
// pipeline, and at length 3, 80 ms against 63.
func TestWalkPrivatePrefer(t *testing.T) {
	tests := []struct {
		data string
		k    Walk
		seqs int
		want bool
	}{
		{"MUTAG", Walk{Length: 3}, 58, true},
		{"MUTAG", Walk{Length: 5}, 298, true},
		{"MUTAG", Walk{Length: 7}, 1345, false},
		{"MUTAG", Walk{Length: 9}, 5714, false},
		{"ENZYMES", Walk{Length: 3}, 14, true},
		{"ENZYMES", Walk{Length: 6}, 126, true},
		{"U251", Walk{Length: 8}, 20367, false},
		{"ENZYMES", Walk{Length: 1, WL: 1}, 40, true},
		{"ENZYMES", Walk{Length: 3, WL: 1}, 2092, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/l=%d/wl=%d", tt.data, tt.k.Length, tt.k.WL), func(t *testing.T) {
			gs := graphtest.Dataset(t, tt.data).Graphs
			if tt.k.WL > 0 {
				gs = graph.RefineGraphs(gs, tt.k.WL, graph.FromLabels)
			}
			b, err := tt.k.newMapper(gs)
			if err != nil {
				t.Fatal(err)
			}
			short := tt.k
			short.Length--
			seq, err := short.newMapper(gs)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range gs[:privateFirst] {
				b.start(g)
				for r := 1; r < tt.k.Length; r++ {
					if err := b.round(context.Background(), g, r); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := seq.graphVector(context.Background(), g); err != nil {
					t.Fatal(err)
				}
			}
			if b.size() != seq.size() || b.size() != tt.seqs {
				t.Errorf("first graphs: %d sequences, sequential map %d, want %d", b.size(), seq.size(), tt.seqs)
			}
			if got := preferPrivate(b, privateFirst); got != tt.want {
				t.Errorf("preferPrivate = %v (%d sequences), want %v", got, b.size(), tt.want)
			}
			// fewPrefixes decides before the first graph only what
			// preferPrivate would decide after them.
			if fewPrefixes(b) && !tt.want {
				t.Errorf("fewPrefixes holds where preferPrivate does not")
			}
		})
	}
}

// TestFewPrefixes checks the bound under which the walk kernel's explicit
// map takes the private map before the pipeline's first graphs: the label
// sequences of lengths 0 to l−1, Σ nVL^(r+1)·nEL^r, below privateSeqs ·
// privateFirst = 800. With 3 vertex labels and none on edges (ENZYMES),
// 3, 12, 39, 120, 363 at lengths 1 to 5, and 1092 at 6; with 7 and 4
// (MUTAG), 7 and 203 at lengths 1 and 2, and 5691 at 3.
func TestFewPrefixes(t *testing.T) {
	for _, tt := range []struct {
		nVL, nEL uint64
		length   int
		want     bool
	}{
		{3, 1, 1, true},
		{3, 1, 5, true},
		{3, 1, 6, false},
		{7, 4, 2, true},
		{7, 4, 3, false},
		{1000, 1, 1, false},
		{1 << 31, 1 << 31, 4, false},
	} {
		b := &walkMapper{k: &Walk{Length: tt.length}, nVL: tt.nVL, nEL: tt.nEL}
		if got := fewPrefixes(b); got != tt.want {
			t.Errorf("nVL %d, nEL %d, length %d: %v, want %v", tt.nVL, tt.nEL, tt.length, got, tt.want)
		}
	}
}
