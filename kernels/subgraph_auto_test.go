package kernels

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/synth"
)

func synthSubgraph(t *testing.T, labels int, mean float64, d int) []*graph.Graph {
	t.Helper()
	ds, err := synth.Subgraph(synth.SubgraphConfig{Labels: labels, MeanVertices: mean}, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ds.Graphs
}

// The association-graph probe counts, from neighbour labels alone, what
// the implicit method builds; below assocSample vertices it is exact.
func TestAssocCountExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for i := 0; i < 60; i++ {
		g := graphtest.Random(r, 1+r.IntN(5), r.Float64(), 1+r.IntN(2), 1+r.IntN(2))
		h := graphtest.Random(r, 1+r.IntN(5), r.Float64(), 1+r.IntN(2), 1+r.IntN(2))
		report := func(gs ...*graph.Graph) *Report {
			_, rep, err := (&SubgraphMatching{}).Gram(ctx, gs, Implicit)
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		rg, rh, rgh := report(g), report(h), report(g, h)
		want := assocCounts{
			vertices:    float64(rgh.ProductVertices - rg.ProductVertices - rh.ProductVertices),
			edges:       float64(rgh.ProductEdges - rg.ProductEdges - rh.ProductEdges),
			comparisons: float64(rgh.Comparisons - rg.Comparisons - rh.Comparisons),
		}
		ag, ah := newAssocGraph(g), newAssocGraph(h)
		if got := assocCount(&ag, &ah, r); got != want {
			t.Errorf("pair %d: assocCount %+v, implicit method %+v", i, got, want)
		}
		if got, want := assocCount(&ag, &ag, r), (assocCounts{float64(rg.ProductVertices), float64(rg.ProductEdges), float64(rg.Comparisons)}); got != want {
			t.Errorf("pair %d: assocCount of g with itself %+v, implicit method %+v", i, got, want)
		}
	}
}

// scanCSM's counts on graphs small enough to count by hand.
func TestScanCSM(t *testing.T) {
	build := func(labels []int32, edges ...graph.Edge) *graph.Graph {
		g, err := graph.Build(labels, edges, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// A path a–b–a: degrees 1, 2, 1, one wedge, 4 arcs; labels 0, 1, 0.
	path := build([]int32{0, 1, 0}, graph.Edge{U: 0, V: 1}, graph.Edge{U: 1, V: 2})
	// A triangle with labels 5000, 0, 0: its range, wide beside its
	// three vertices, is read label by label. Three wedges, 6 arcs.
	wide := build([]int32{5000, 0, 0}, graph.Edge{U: 0, V: 1}, graph.Edge{U: 1, V: 2}, graph.Edge{U: 0, V: 2})
	tests := []struct {
		name        string
		gs          []*graph.Graph
		fit         bool
		wedges      []float64
		index       float64
		self, cross float64
	}{
		// Σ_l n(l)² = 2² + 1² = 5; no pair of distinct graphs.
		{"path", []*graph.Graph{path}, true, []float64{1}, 4 * 2, 5, 0},
		// Σ_G Σ_l n_G(l)² = 5 + (1 + 2²) = 10, so self = 10/2; the
		// pair shares label 0 alone, 2·2 = 4 association vertices,
		// as (Σ_l S_l² − 10)/2 = (4² + 1² + 1² − 10)/2 has it.
		{"path and wide", []*graph.Graph{path, wide}, true, []float64{1, 3}, 4*2 + 6*math.Log2(6), 5, 4},
		{"label at 2^18", []*graph.Graph{path, build([]int32{1 << glLabelBits})}, false, nil, 0, 0, 0},
		{"negative label", []*graph.Graph{build([]int32{-1}), path}, false, nil, 0, 0, 0},
		{"negative edge label", []*graph.Graph{build([]int32{0, 0}, graph.Edge{U: 0, V: 1, Label: -2})}, false, nil, 0, 0, 0},
	}
	for _, tc := range tests {
		sc := scanCSM(tc.gs)
		if sc.fit != tc.fit {
			t.Errorf("%s: fit %v, want %v", tc.name, sc.fit, tc.fit)
			continue
		}
		if !tc.fit {
			continue
		}
		var sum float64
		for _, w := range tc.wedges {
			sum += w
		}
		if !slices.Equal(sc.wedges, tc.wedges) || sc.wedgeSum != sum {
			t.Errorf("%s: wedges %v (sum %v), want %v (sum %v)", tc.name, sc.wedges, sc.wedgeSum, tc.wedges, sum)
		}
		if sc.index != tc.index || sc.self != tc.self || sc.cross != tc.cross {
			t.Errorf("%s: index %v, self %v, cross %v; want %v, %v, %v", tc.name, sc.index, sc.self, sc.cross, tc.index, tc.self, tc.cross)
		}
	}
}

// The label histograms count the vertices of all association graphs.
func TestAssocVertices(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 7} {
		var gs []*graph.Graph
		for i := 0; i < n; i++ {
			gs = append(gs, graphtest.Random(r, r.IntN(9), 0.3, 1+r.IntN(4), 1))
		}
		_, rep, err := (&SubgraphMatching{}).Gram(context.Background(), gs, Implicit)
		if err != nil {
			t.Fatal(err)
		}
		sc := scanCSM(gs)
		self, cross := sc.self, sc.cross
		m := float64(n)
		if got := m*self + m*(m-1)/2*cross; got != float64(rep.ProductVertices) {
			t.Errorf("%d graphs: %v association-graph vertices, implicit method %d", n, got, rep.ProductVertices)
		}
	}
}

// The triple probe's estimates of the non-zeros and of the features two
// graphs share, against the feature vectors.
func TestSampleTriples(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		gs   []*graph.Graph
		// overlap is checked only when it is large enough to estimate.
		checkOverlap bool
	}{
		{"L=1", synthSubgraph(t, 1, 0, 30), true},
		{"L=5", synthSubgraph(t, 5, 0, 30), true},
		{"L=10", synthSubgraph(t, 10, 0, 30), true},
		{"L=30", synthSubgraph(t, 30, 0, 30), false},
		{"L=65", synthSubgraph(t, 65, 0, 30), false},
	}
	if ds, ok := tryDataset(t, "MUTAG"); ok {
		tests = append(tests, struct {
			name         string
			gs           []*graph.Graph
			checkOverlap bool
		}{"MUTAG", ds, false})
	}
	for _, tc := range tests {
		vecs, _, err := (&Graphlet{}).FeatureVectors(ctx, tc.gs)
		if err != nil {
			t.Fatal(err)
		}
		var nnz, shared float64
		for i := range vecs {
			nnz += float64(vecs[i].Len())
			for j := i + 1; j < len(vecs); j++ {
				shared += Dot(support(vecs[i]), support(vecs[j]))
			}
		}
		n := float64(len(vecs))
		overlap := shared / (n * (n - 1) / 2)
		wedges := make([]float64, len(tc.gs))
		for i, g := range tc.gs {
			wedges[i] = graphWedges(g)
		}
		s, err := sampleTriples(ctx, tc.gs, wedges, 1e-3, 64, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if r := s.nnz / nnz; r < 0.7 || r > 1.4 {
			t.Errorf("%s: non-zeros estimated %.4g, are %.4g", tc.name, s.nnz, nnz)
		}
		if r := s.overlap / overlap; tc.checkOverlap && (r < 0.5 || r > 2) {
			t.Errorf("%s: shared features estimated %.4g, are %.4g", tc.name, s.overlap, overlap)
		}
	}
}

func tryDataset(t *testing.T, name string) ([]*graph.Graph, bool) {
	if graphtest.DataDir() == "" {
		return nil, false
	}
	var gs []*graph.Graph
	ok := t.Run("load "+name, func(t *testing.T) { gs = graphtest.Dataset(t, name).Graphs })
	return gs, ok && gs != nil
}

// support returns v with all values 1.
func support(v Vec) Vec {
	ones := make([]float64, v.Len())
	for i := range ones {
		ones[i] = 1
	}
	return Vec{IDs: v.IDs, Vals: ones}
}

// The advice must rank the methods as they measure wherever they differ
// by more than a factor of two, on both sides of the label-alphabet phase
// transition of Figure 9. The cells are small versions of the paper's
// data, small enough for the implicit method with few labels.
func TestCSMAdviseRanking(t *testing.T) {
	if testing.Short() {
		t.Skip("times both methods")
	}
	ctx := context.Background()
	k := &SubgraphMatching{}
	tests := []struct {
		labels int
		mean   float64
		d      int
		want   Method // the paper's expectation, for the log
	}{
		{labels: 2, mean: 20, d: 16, want: Explicit},
		{labels: 5, mean: 40, d: 16, want: Explicit},
		{labels: 15, d: 30, want: Implicit},
		{labels: 30, d: 30, want: Implicit},
		{labels: 65, d: 40, want: Implicit},
	}
	for _, tc := range tests {
		gs := synthSubgraph(t, tc.labels, tc.mean, tc.d)
		a, err := k.Advise(ctx, gs, AdviseOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		measure := func(m Method) float64 {
			took, err := fastest(2, func() error {
				_, _, err := k.Gram(ctx, gs, m)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return took.Seconds()
		}
		e, i := measure(Explicit), measure(Implicit)
		faster := Explicit
		if i < e {
			faster = Implicit
		}
		t.Logf("labels %d, mean %v, d %d: explicit %.3g s (predicted %.3g), implicit %.3g s (predicted %.3g), probes %v: %s",
			tc.labels, tc.mean, tc.d, e, a.Explicit.Seconds, i, a.Implicit.Seconds, a.Probe, a.Choice)
		if faster != tc.want {
			t.Logf("labels %d: %s measured faster, the paper expects %s", tc.labels, faster, tc.want)
		}
		if max(e, i) > 2*min(e, i) && a.Choice != faster {
			t.Errorf("labels %d, d %d: advice %s, but %s is %.1f× faster", tc.labels, tc.d, a.Choice, faster, max(e, i)/min(e, i))
		}
	}
}

func TestCSMAdvise(t *testing.T) {
	ctx := context.Background()
	k := &SubgraphMatching{}
	if _, err := k.Advise(ctx, nil, AdviseOptions{}); err == nil {
		t.Error("advice on no graphs: no error")
	}
	// Graphs without a connected triple: nothing to sample.
	edge := graph.MustBuild([]int32{0, 0}, []graph.Edge{{U: 0, V: 1}})
	a, err := k.Advise(ctx, []*graph.Graph{edge, edge, graph.MustBuild(nil, nil)}, AdviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Explicit.Seconds < 0 || a.Implicit.Seconds <= 0 {
		t.Errorf("advice without triples %v", a)
	}

	// Labels too large for the graphlet keys leave the implicit method.
	big := graph.MustBuild([]int32{1 << 19, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	if a, err := k.Advise(ctx, []*graph.Graph{big, tinyPath}, AdviseOptions{}); err != nil || a.Choice != Implicit {
		t.Errorf("labels beyond the explicit keys: advice %v, %v", a, err)
	}

	// The predictions are the sums of their terms, priced by Costs.
	gs := synthSubgraph(t, 2, 30, 12)
	a, err = k.Advise(ctx, gs, AdviseOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Choice != Explicit {
		t.Errorf("two labels: advice %v", a)
	}
	defaults := CSMCostDefaults()
	for _, m := range []Method{Explicit, Implicit} {
		p := a.Explicit
		if m == Implicit {
			p = a.Implicit
		}
		if got := sumTerms(a.Terms.Of(m)); math.Abs(got-p.Seconds) > 1e-9*p.Seconds {
			t.Errorf("%s: terms sum to %v, prediction %v", m, got, p.Seconds)
		}
		for _, term := range a.Terms.Of(m) {
			if _, ok := defaults[term.Name]; !ok {
				t.Errorf("%s: term %q has no default", m, term.Name)
			}
		}
	}
	free := Costs{}
	for name := range defaults {
		if name[:len("csm.implicit")] == "csm.implicit" {
			free[name] = 0
		}
	}
	a, err = k.Advise(ctx, gs, AdviseOptions{Seed: 1, Costs: free})
	if err != nil {
		t.Fatal(err)
	}
	if a.Choice != Implicit || a.Implicit.Seconds != 0 {
		t.Errorf("free implicit method: advice %v", a)
	}
}

// TestCSMAdviseLabels checks the advice where labels leave a method's
// packed keys: the graphlet map's hold 2^glLabelBits labels, the implicit
// method's triples 2^labelBits, and neither negative labels.
func TestCSMAdviseLabels(t *testing.T) {
	triangle := func(lv, le int32) *graph.Graph {
		return graph.MustBuild([]int32{0, lv, 1}, []graph.Edge{{U: 0, V: 1, Label: le}, {U: 1, V: 2}, {U: 0, V: 2}})
	}
	cases := []struct {
		name   string
		lv, le int32
		want   Method // the method advised; "" for an error
		only   bool   // the other method cannot take the labels
	}{
		{"small", 3, 2, Explicit, false}, // a few triangles: explicit, by far
		{"largest both take", 1<<glLabelBits - 1, 1<<glLabelBits - 1, Explicit, false},
		{"vertex label beyond the graphlets'", 1 << glLabelBits, 0, Implicit, true},
		{"edge label beyond the graphlets'", 0, 1<<labelBits - 1, Implicit, true},
		{"beyond both", 1 << labelBits, 0, "", false},
		{"negative", -1, 0, "", false},
	}
	for _, c := range cases {
		gs := []*graph.Graph{triangle(c.lv, c.le), tinyPath, triangle(2, 0)}
		a, err := (&SubgraphMatching{}).Advise(context.Background(), gs, AdviseOptions{Seed: 1})
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: advised %v, want an error", c.name, a)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		other := a.Explicit
		if c.want == Explicit {
			other = a.Implicit
		}
		if a.Choice != c.want || math.IsInf(other.Seconds, 1) != c.only {
			t.Errorf("%s: %v; want %s, the other method impossible: %v", c.name, a, c.want, c.only)
		}
	}
}
