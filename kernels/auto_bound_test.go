package kernels

import (
	"context"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
)

// TestLabelBound checks labelBound against walks counted by hand: the
// label sequences of length i are L·(E·L)^i for L vertex labels and E
// edge labels over all graphs, and a label too large for the tables
// gives no bound.
func TestLabelBound(t *testing.T) {
	labelled := graph.MustBuild([]int32{0, 2, 2}, []graph.Edge{{U: 0, V: 1, Label: 1}, {U: 1, V: 2}})
	for _, tt := range []struct {
		name string
		gs   []*graph.Graph
		l    int
		want []float64
	}{
		// One label, one edge label: one sequence of each length.
		{"one label", []*graph.Graph{graph.MustBuild([]int32{0, 0}, []graph.Edge{{U: 0, V: 1}})}, 3, []float64{1, 1, 1, 1}},
		// Labels 0 and 1 of tinyPath and tinyTriangle, edge label 0:
		// 2, 2·2, 2·4.
		{"two labels", []*graph.Graph{tinyPath, tinyTriangle}, 2, []float64{2, 4, 8}},
		// Labels 0 and 2, edge labels 0 and 1: 2, 2·4, 8·4.
		{"edge labels", []*graph.Graph{labelled}, 2, []float64{2, 8, 32}},
		{"vertex label too large", []*graph.Graph{graph.MustBuild([]int32{boundVertexLabels}, nil)}, 2, nil},
		{"edge label too large", []*graph.Graph{graph.MustBuild([]int32{0, 0}, []graph.Edge{{U: 0, V: 1, Label: boundEdgeLabels}})}, 2, nil},
	} {
		got, ok := labelBound(tt.gs, tt.l)
		if ok != (tt.want != nil) || !slicesEqual(got, tt.want) {
			t.Errorf("%s: labelBound = %v, %v; want %v", tt.name, got, ok, tt.want)
		}
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
		walks, ok := labelBound(gs, 9)
		if !ok {
			t.Fatalf("p_V %v: no label bound", pv)
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
				got := boundWork(k, gs, walks[:l+1])
				counted := workBound{float64(work.extends), float64(work.nonzeros), float64(work.steps), nnz, float64(b.size())}
				if got.extends < counted.extends || got.nonzeros < counted.nonzeros || got.steps != counted.steps ||
					got.nnz < counted.nnz || got.features < counted.features || pv == 0 && !max && got.nnz != counted.nnz {
					t.Errorf("p_V %v, length %d, max %v: bound %+v; counted %+v", pv, l, max, got, counted)
				}
			}
		}
	}
}

// TestAdviseBound checks that the advice decides by the bound, without a
// map, where it is decisive (one label: the explicit method is two orders
// of magnitude faster), and samples maps where it is not (p_V 0.5 at
// length 9) or where the labels are too large for it.
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
		pv      float64
		l       int
		big     bool
		bounded bool
	}{
		{0, 3, false, true},
		{0, 9, false, true},
		{0, 3, true, false},
		{0.5, 9, false, false},
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
		bounded := strings.HasPrefix(a.Explicit.Why, "at most: bounded")
		if bounded != tt.bounded || bounded && (a.Choice != Explicit || a.Hedge) {
			t.Errorf("p_V %v, length %d, labels from %d: bounded %v, want %v\n%v", tt.pv, tt.l, boolInt(tt.big)*boundVertexLabels, bounded, tt.bounded, a)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
