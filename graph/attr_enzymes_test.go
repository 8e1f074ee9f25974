package graph_test

import (
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// BenchmarkScaleAttributes scales the 19580 vertices of ENZYMES, 18
// attributes each, as every Gram matrix of an attributed kernel does.
func BenchmarkScaleAttributes(b *testing.B) {
	gs := graphtest.Dataset(b, "ENZYMES").Graphs
	for b.Loop() {
		graph.ScaleAttributes(gs)
	}
}

// TestScaleAttributesDefinition checks ScaleAttributes against min-max
// scaling computed as the paper defines it, element by element, to the bit:
// on ENZYMES (18 attributes), and on graphs of different attribute
// dimensions, one without, whose minima and maxima come from different
// graphs.
func TestScaleAttributesDefinition(t *testing.T) {
	g1, _ := graph.Build([]int32{0, 0}, nil, []float64{3, -2, 7, 0.5, 9, -1}, 3)
	g2, _ := graph.Build([]int32{0}, nil, nil, 0)
	g3, _ := graph.Build([]int32{0, 0, 0}, nil, []float64{-4, 1, 2.25, 8, 0.1, 0.3}, 2)
	tests := []struct {
		name string
		gs   []*graph.Graph
	}{
		{"ENZYMES", graphtest.Dataset(t, "ENZYMES").Graphs},
		{"mixed", []*graph.Graph{g1, g2, g3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The definition: per dimension, the least and largest
			// value over every vertex of every graph that has it.
			lo, hi := map[int]float64{}, map[int]float64{}
			for _, g := range tt.gs {
				for v := range g.N() {
					for i, x := range g.Attr(v) {
						if l, ok := lo[i]; !ok || x < l {
							lo[i] = x
						}
						if h, ok := hi[i]; !ok || x > h {
							hi[i] = x
						}
					}
				}
			}
			got := graph.ScaleAttributes(tt.gs)
			for k, g := range tt.gs {
				if len(got[k].Attrs) != len(g.Attrs) {
					t.Fatalf("graph %d: %d attributes, want %d", k, len(got[k].Attrs), len(g.Attrs))
				}
				for v := range g.N() {
					for i, x := range g.Attr(v) {
						want := 0.0
						if w := hi[i] - lo[i]; w > 0 {
							want = (x - lo[i]) / w
						}
						if y := got[k].Attr(v)[i]; y != want {
							t.Fatalf("graph %d, vertex %d, dimension %d: %v, want %v", k, v, i, y, want)
						}
					}
				}
			}
		})
	}
}
