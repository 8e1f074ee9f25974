package kernels

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/synth"
)

// TestCensus checks takeCensus against counts by hand: the label
// sequences of length i are L·(E·L)^i for L vertex labels and E edge
// labels over all graphs; the product vertices of all pairs i ≤ j are
// Σ over them of Σ_l c_i(l)·c_j(l); a label too large for the tables gives
// no census.
func TestCensus(t *testing.T) {
	labelled := graph.MustBuild([]int32{0, 2, 2}, []graph.Edge{{U: 0, V: 1, Label: 1}, {U: 1, V: 2}})
	for _, tt := range []struct {
		name     string
		gs       []*graph.Graph
		l        int
		walks    []float64
		degree   []int32
		vertices float64
	}{
		// One label, one edge label: one sequence of each length; the
		// one pair, the graph with itself, has 2·2 product vertices.
		{"one label", []*graph.Graph{graph.MustBuild([]int32{0, 0}, []graph.Edge{{U: 0, V: 1}})}, 3, []float64{1, 1, 1, 1}, []int32{1}, 4},
		// Labels 0 and 1 of tinyPath and tinyTriangle, edge label 0:
		// 2, 2·2, 2·4 sequences. Both have two vertices of label 0 and
		// one of label 1, so every one of the three pairs has 2·2 + 1·1
		// product vertices.
		{"two labels", []*graph.Graph{tinyPath, tinyTriangle}, 2, []float64{2, 4, 8}, []int32{2, 2}, 15},
		// Labels 0 and 2, edge labels 0 and 1: 2, 2·4, 8·4 sequences;
		// 1·1 + 2·2 product vertices.
		{"edge labels", []*graph.Graph{labelled}, 2, []float64{2, 8, 32}, []int32{2}, 5},
		// A star of one label: its 6 arcs over 4 vertices round up to
		// degree 2, whose powers are at least the one sequence of each
		// length, so the census keeps 2 where the centre has 3; the
		// pair has 4·4 product vertices.
		{"one label, star", []*graph.Graph{graph.MustBuild([]int32{0, 0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 0, V: 3}})}, 2, []float64{1, 1, 1}, []int32{2}, 16},
		// The star with two labels: 2·2 sequences of length 1 exceed
		// degree 2, so the census reads the maximum degree.
		{"two labels, star", []*graph.Graph{graph.MustBuild([]int32{0, 1, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 0, V: 2}, {U: 0, V: 3}})}, 2, []float64{2, 4, 8}, []int32{3}, 10},
		// A graph without edges has degree 0.
		{"no edges", []*graph.Graph{graph.MustBuild([]int32{0, 0}, nil)}, 1, []float64{1, 0}, []int32{0}, 4},
		{"vertex label too large", []*graph.Graph{graph.MustBuild([]int32{boundVertexLabels}, nil)}, 2, nil, nil, 0},
		{"edge label too large", []*graph.Graph{graph.MustBuild([]int32{0, 0}, []graph.Edge{{U: 0, V: 1, Label: boundEdgeLabels}})}, 2, nil, nil, 0},
	} {
		c, ok := takeCensus(tt.gs, tt.l)
		if ok != (tt.walks != nil) || !slices.Equal(c.walks, tt.walks) || !slices.Equal(c.degree, tt.degree) || c.vertices != tt.vertices {
			t.Errorf("%s: census %+v, %v; want walks %v, degrees %v, %v product vertices", tt.name, c, ok, tt.walks, tt.degree, tt.vertices)
		}
	}
}

// TestBoundWork checks that boundWork bounds the work the maps count, on
// data sets of the walk generator across label diversity, for the walk
// kernel and the Max-l-walk kernel: every count at least the map's. With
// one label (p_V 0) the graph vectors' non-zeros are exact, one for every
// graph with a walk of the length, and so are the vertex visits, which
// do not depend on the labels.
func TestBoundWork(t *testing.T) {
	ctx := context.Background()
	for _, pv := range []float64{0, 0.3, 1} {
		ds, err := synth.Walk(synth.WalkConfig{PV: pv}, 40, 3)
		if err != nil {
			t.Fatal(err)
		}
		gs := ds.Graphs
		c, ok := takeCensus(gs, 9)
		if !ok {
			t.Fatalf("p_V %v: no census", pv)
		}
		for _, max := range []bool{false, true} {
			for _, l := range []int{0, 1, 3, 6} {
				k := &Walk{Length: l, Max: max}
				b, err := newDiracWalkMapper(k, gs)
				if err != nil {
					t.Fatal(err)
				}
				var work mapWork
				b.work = &work
				var nnz float64
				for _, g := range gs {
					v, err := b.graphVector(ctx, g)
					if err != nil {
						t.Fatal(err)
					}
					nnz += float64(v.Len())
				}
				got := boundWork(k, gs, &c)
				counted := workBound{float64(work.extends), float64(work.nonzeros), float64(work.steps), nnz, float64(b.size())}
				if got.extends < counted.extends || got.nonzeros < counted.nonzeros || got.steps != counted.steps ||
					got.nnz < counted.nnz || got.features < counted.features || pv == 0 && !max && got.nnz != counted.nnz {
					t.Errorf("p_V %v, length %d, max %v: bound %+v; counted %+v", pv, l, max, got, counted)
				}
			}
		}
	}
}

// TestCensusDegrees checks that the census's degrees, the maximum degree
// only where the labels leave it to decide the bound (see degreeFloor),
// bound every graph's work as the maximum degrees do, on data sets of the
// walk generator across label diversity and on MUTAG, whose degrees vary
// within a graph, for lengths up to the census's: the degrees must be no
// more than the maxima, and boundWork's bound the same to the bit.
func TestCensusDegrees(t *testing.T) {
	sets := map[string][]*graph.Graph{"MUTAG": graphtest.Dataset(t, "MUTAG").Graphs}
	for _, pv := range []float64{0, 0.1, 0.5, 1} {
		ds, err := synth.Walk(synth.WalkConfig{PV: pv}, 60, 3)
		if err != nil {
			t.Fatal(err)
		}
		sets[fmt.Sprintf("p_V %v", pv)] = ds.Graphs
	}
	for name, gs := range sets {
		for _, l := range []int{0, 1, 3, 9} {
			c, ok := takeCensus(gs, l)
			if !ok {
				t.Fatalf("%s: no census", name)
			}
			exact := c
			exact.degree = make([]int32, len(gs))
			floored := 0
			for i, g := range gs {
				for v := range g.N() {
					exact.degree[i] = max(exact.degree[i], int32(g.Degree(v)))
				}
				if c.degree[i] > exact.degree[i] {
					t.Errorf("%s, length %d, graph %d: degree %d, above the maximum %d", name, l, i, c.degree[i], exact.degree[i])
				}
				if c.degree[i] < exact.degree[i] {
					floored++
				}
			}
			for _, max := range []bool{false, true} {
				for m := 0; m <= l; m++ {
					k := &Walk{Length: m, Max: max}
					if got, want := boundWork(k, gs, &c), boundWork(k, gs, &exact); got != want {
						t.Errorf("%s, census of length %d, length %d, max %v: bound %+v; with the maximum degrees %+v", name, l, m, max, got, want)
					}
				}
			}
			t.Logf("%s, length %d: %d of %d degrees below the maximum", name, l, floored, len(gs))
		}
	}
}

// TestAdviseBound checks that the advice decides by the bound, without a
// map, where it is decisive: with one label the explicit method is two
// orders of magnitude faster, below even the implicit method's pairs and
// product vertices, so that no pair is sampled either. It samples maps
// where the bound is not decisive (p_V 0.5 at length 9) or where the
// labels are too large for it.
func TestAdviseBound(t *testing.T) {
	relabel := func(gs []*graph.Graph) []*graph.Graph {
		out := make([]*graph.Graph, len(gs))
		for i, g := range gs {
			l := make([]int32, g.N())
			for v := range l {
				l[v] = g.Labels[v] + boundVertexLabels
			}
			out[i] = g.WithLabels(l)
		}
		return out
	}
	for _, tt := range []struct {
		pv             float64
		l              int
		big            bool
		bounded, least bool
	}{
		{0, 3, false, true, true},
		{0, 9, false, true, true},
		{0, 3, true, false, false},
		{0.5, 9, false, false, false},
	} {
		ds, err := synth.Walk(synth.WalkConfig{PV: tt.pv}, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		gs := ds.Graphs
		if tt.big {
			gs = relabel(gs)
		}
		a, err := (&Walk{Length: tt.l}).Advise(context.Background(), gs, AdviseOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		bounded := strings.HasPrefix(a.Explicit.Why(), "at most: bounded")
		least := strings.HasPrefix(a.Implicit.Why(), "at least: the pairs")
		if bounded != tt.bounded || least != tt.least || bounded && (a.Choice != Explicit || a.Hedge) {
			t.Errorf("p_V %v, length %d, labels from %d: bounded %v, least %v, want %v, %v\n%v",
				tt.pv, tt.l, boolInt(tt.big)*boundVertexLabels, bounded, least, tt.bounded, tt.least, a)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
