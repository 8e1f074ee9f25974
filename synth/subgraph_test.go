package synth

import (
	"math"
	"reflect"
	"testing"
)

// TestSubgraphStatistics checks the generator against the distributions it
// draws from: the mean |V| of Poisson(60) has standard error √(60/d), the
// edge density 0.5 a binomial standard error, and each of the |L| labels has
// frequency 1/|L|.
func TestSubgraphStatistics(t *testing.T) {
	const d = 300
	for _, L := range []int{1, 5, 65} {
		ds, err := Subgraph(SubgraphConfig{Labels: L}, d, 11)
		if err != nil {
			t.Fatal(err)
		}
		var nv, pairs, edges float64
		vl := make([]float64, L)
		el := make([]float64, L)
		for _, g := range ds.Graphs {
			n := float64(g.N())
			nv += n
			pairs += n * (n - 1) / 2
			edges += float64(g.M())
			for _, l := range g.Labels {
				vl[l]++
			}
			for _, l := range g.EdgeLabels {
				el[l]++
			}
		}
		if mean, se := nv/d, math.Sqrt(60.0/d); math.Abs(mean-60) > 4*se {
			t.Errorf("L=%d: mean |V| = %.2f, want 60 ± %.2f", L, mean, 4*se)
		}
		if dens, se := edges/pairs, math.Sqrt(0.25/pairs); math.Abs(dens-0.5) > 4*se {
			t.Errorf("L=%d: edge density %.4f, want 0.5 ± %.4f", L, dens, 4*se)
		}
		for l := 0; l < L; l++ {
			p := 1 / float64(L)
			if f, se := vl[l]/nv, math.Sqrt(p*(1-p)/nv); math.Abs(f-p) > 5*se {
				t.Errorf("L=%d: vertex label %d frequency %.4f, want %.4f", L, l, f, p)
			}
			// Edge labels are counted in both directions, so the
			// effective sample is half the count.
			if f, se := el[l]/(2*edges), math.Sqrt(p*(1-p)/edges); math.Abs(f-p) > 5*se {
				t.Errorf("L=%d: edge label %d frequency %.4f, want %.4f", L, l, f, p)
			}
		}
	}
}

func TestSubgraphNestedAndDeterministic(t *testing.T) {
	a, err := Subgraph(SubgraphConfig{Labels: 7}, 20, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Subgraph(SubgraphConfig{Labels: 7}, 35, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Graphs, b.Graphs[:20]) {
		t.Error("the 20-graph set is not a prefix of the 35-graph set")
	}
	if a.Name != "subgraph-L7-d20-seed3" {
		t.Errorf("name %q", a.Name)
	}
	for _, bad := range []SubgraphConfig{{Labels: 0}, {Labels: 3, EdgeProb: 2}, {Labels: 3, MeanVertices: math.NaN()}} {
		if _, err := Subgraph(bad, 5, 1); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := Subgraph(SubgraphConfig{Labels: 2}, -1, 1); err == nil {
		t.Error("d = -1: no error")
	}
}
