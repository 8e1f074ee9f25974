package kernels

import (
	"context"
	"fmt"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/synth"
)

// BenchmarkComputeProxies times the walk-count proxies of every graph of
// a walk-generator data set, which the explicit probe computes once its
// sample alone cannot be trusted, and reports the time per vertex, arc
// and round, the unit proxyStepNS prices them by.
func BenchmarkComputeProxies(b *testing.B) {
	for _, tc := range []struct {
		pv     float64
		d, len int
	}{{0.6, 100, 5}, {0.2, 300, 5}, {0.1, 100, 9}} {
		b.Run(fmt.Sprintf("pv=%v/d=%d/l=%d", tc.pv, tc.d, tc.len), func(b *testing.B) {
			ds, err := synth.Walk(synth.WalkConfig{PV: tc.pv}, tc.d, 1)
			if err != nil {
				b.Fatal(err)
			}
			k := &Walk{Length: tc.len}
			r := newTestRand()
			s := newGraphSample(r, len(ds.Graphs))
			ip := newImplicitProbe(k, ds.Graphs, s, r, false)
			if err := ip.grow(context.Background(), minProbeGraphs); err != nil {
				b.Fatal(err)
			}
			walks := ip.labelWalks(k.Length)
			ep, err := newExplicitProbe(k, ds.Graphs, s, newWalkModel(nil))
			if err != nil {
				b.Fatal(err)
			}
			steps := ep.allSteps
			for b.Loop() {
				if err := ep.computeProxies(context.Background(), walks); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps), "ns/step")
		})
	}
}

// TestComputeProxies checks the proxies against a direct reading of
// their definition (proxiesByDefinition), which loops over each vertex's
// arcs and groups its label pairs with pairGroups: the counts must be
// equal to the bit, since both sum in the same order. The cases cover
// lengths 0 to 9, the Max kernel, MUTAG's edge labels, and labels too
// many for the bit sets of labelPairSets (random graphs of 40 vertex
// labels), where the proxies fall back on pairGroups.
func TestComputeProxies(t *testing.T) {
	r := newTestRand()
	var many []*graph.Graph
	for range 30 {
		many = append(many, graphtest.Random(r, 25, 0.15, 40, 3))
	}
	walk, err := synth.Walk(synth.WalkConfig{PV: 0.4}, 60, 2)
	if err != nil {
		t.Fatal(err)
	}
	mutag := graphtest.Dataset(t, "MUTAG").Graphs
	for _, tc := range []struct {
		name string
		gs   []*graph.Graph
		k    Walk
	}{
		{"walk l=0", walk.Graphs, Walk{Length: 0}},
		{"walk l=1", walk.Graphs, Walk{Length: 1}},
		{"walk l=5", walk.Graphs, Walk{Length: 5}},
		{"walk l=9 max", walk.Graphs, Walk{Length: 9, Max: true}},
		{"mutag l=4", mutag, Walk{Length: 4}},
		{"many labels l=3", many, Walk{Length: 3}},
		{"many labels l=6 max", many, Walk{Length: 6, Max: true}},
	} {
		k := tc.k
		s := newGraphSample(newTestRand(), len(tc.gs))
		ip := newImplicitProbe(&k, tc.gs, s, newTestRand(), false)
		if err := ip.grow(context.Background(), minProbeGraphs); err != nil {
			t.Fatal(err)
		}
		walks := ip.labelWalks(k.Length)
		ep, err := newExplicitProbe(&k, tc.gs, s, newWalkModel(nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := ep.computeProxies(context.Background(), walks); err != nil {
			t.Fatal(err)
		}
		for i, g := range tc.gs {
			if got, want := ep.proxies[i], proxiesByDefinition(g, k.Length, k.Max, ep.b.dirac, ep.b.nVL, walks); got != want {
				t.Errorf("%s: graph %d: proxy %+v, want %+v", tc.name, i, got, want)
				break
			}
		}
	}
}

// proxiesByDefinition computes g's proxy as graphProxy's comment defines
// it, vertex by vertex.
func proxiesByDefinition(g *graph.Graph, l int, max, dirac bool, nVL uint64, labelWalks []float64) graphProxy {
	nv := g.N()
	w, x, fan := make([]float64, nv), make([]float64, nv), make([]float64, nv)
	for v := range w {
		w[v] = 1
		fan[v] = float64(g.Offsets[v+1] - g.Offsets[v])
	}
	var pr graphProxy
	for i := 0; ; i++ {
		if i == l-1 && dirac {
			for v := range fan {
				fan[v] = float64(len(pairGroups(nil, g, v, nVL)))
			}
		}
		var total float64
		for v := range w {
			c := min(w[v], labelWalks[i])
			total += c
			if i < l {
				pr.extends += fan[v] * c
				pr.nonzeros += c
			}
		}
		if max || i == l {
			pr.nnz += min(total, labelWalks[i])
		}
		if i == l {
			return pr
		}
		for v := range x {
			var s float64
			for a := g.Offsets[v]; a < g.Offsets[v+1]; a++ {
				s += w[g.Adj[a]]
			}
			x[v] = s
		}
		w, x = x, w
	}
}
