package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// TestSPImplicitWork checks the exact counts of the implicit method's work
// by hand on a path of 3 vertices and a triangle. The path has two paths
// of length 1 and one of length 2, the triangle three of length 1. Every
// length group is cheaper compared than summed by rows here: the pairs
// (path, path) compare 2·2 + 1·1, (path, triangle) 2·3, (triangle,
// triangle) 3·3, 20 in all; each pair has 3·3 vertex pairs, 27.
func TestSPImplicitWork(t *testing.T) {
	path := graph.MustBuild([]int32{0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	triangle := graph.MustBuild([]int32{0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}})
	vp, cmp, steps := spImplicitWork([]*graph.Graph{path, triangle})
	if vp != 27 || cmp != 20 || steps != 0 {
		t.Errorf("vertex pairs %v, comparisons %v, row steps %v; want 27, 20, 0", vp, cmp, steps)
	}
}

// TestSPFloor checks the floor's counts by hand and that it prices the
// exact work of the implicit method from below, whatever the constants.
// On the path and triangle of TestSPImplicitWork it counts the 27 vertex
// pairs and the edges' 2·2 + 2·3 + 3·3 = 19 comparisons, without the
// path's one of length 2. With comparisons dear, the rows are cheaper:
// 2·E_i·N_j + 2·N_i·E_j row steps, 24 + 30 + 36 = 90.
func TestSPFloor(t *testing.T) {
	path := graph.MustBuild([]int32{0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	triangle := graph.MustBuild([]int32{0, 0, 0}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}})
	cases := []struct {
		name              string
		costs             Costs
		vp, cmp, rowSteps float64
	}{
		{"comparisons", Costs{costSPVertexPair: 5, costSPComparison: 1, costSPRowStep: 0.5}, 27, 19, 0},
		{"rows", Costs{costSPVertexPair: 5, costSPComparison: 100, costSPRowStep: 0.5}, 27, 0, 90},
	}
	for _, c := range cases {
		ts := spSizesOf([]*graph.Graph{path, triangle}).floorTerms(costModel{c.costs, defaultCosts{SPCostDefaults()}})
		got := map[string]float64{}
		for _, term := range ts {
			got[term.Name] = term.Count
		}
		if got[costSPVertexPair] != c.vp || got[costSPComparison] != c.cmp || got[costSPRowStep] != c.rowSteps {
			t.Errorf("%s: counted %v; want %v vertex pairs, %v comparisons, %v row steps", c.name, got, c.vp, c.cmp, c.rowSteps)
		}
	}

	// Random graphs, some disconnected, and ENZYMES: the floor against
	// the exact counts, priced alike.
	r := rand.New(rand.NewPCG(7, 8))
	var gs []*graph.Graph
	for range 30 {
		gs = append(gs, graphtest.Random(r, 1+r.IntN(25), 0.05+0.4*r.Float64(), 1, 1))
	}
	sets := [][]*graph.Graph{gs, graphtest.Dataset(t, "ENZYMES").Graphs[:40]}
	for i, gs := range sets {
		for _, costs := range []Costs{SPCostDefaults(), {costSPVertexPair: 1, costSPComparison: 3, costSPRowStep: 0.1}} {
			m := costModel{costs, defaultCosts{SPCostDefaults()}}
			floor := sumTerms(spSizesOf(gs).floorTerms(m))
			vp, cmp, steps := spImplicitWork(gs)
			exact := (vp*m.ns(costSPVertexPair) + cmp*m.ns(costSPComparison) + steps*m.ns(costSPRowStep)) * 1e-9
			if !(floor > 0 && floor <= exact) {
				t.Errorf("set %d, %v: floor %v s, exact work %v s", i, costs, floor, exact)
			}
		}
	}
}

// BenchmarkSPFloor times the floor's counts on ENZYMES, 600 graphs and
// 180300 pairs, and on 1000 graphs, spFloorMax, whose pairs it visits.
func BenchmarkSPFloor(b *testing.B) {
	enzymes := graphtest.Dataset(b, "ENZYMES").Graphs
	var thousand []*graph.Graph
	for len(thousand) < spFloorMax {
		thousand = append(thousand, enzymes...)
	}
	k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1}}
	for _, gs := range [][]*graph.Graph{enzymes, thousand[:spFloorMax]} {
		b.Run(fmt.Sprint(len(gs)), func(b *testing.B) {
			for b.Loop() {
				if _, ok := k.floor(gs, nil); !ok {
					b.Fatal("no floor")
				}
			}
		})
	}
}
