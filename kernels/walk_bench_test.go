package kernels

import (
	"context"
	"fmt"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/synth"
)

// BenchmarkWalkGram times the full Gram matrix of the walk kernel on the
// cells named in the walk-kernel issue. The paper's Table 3 figures for the
// same cells (Java, i7-3770) are the reference: e.g. MUTAG l=3 explicit
// 0.035 s, implicit 0.617 s.
func BenchmarkWalkGram(b *testing.B) {
	type cell struct {
		data    string
		lengths []int
	}
	cells := []cell{
		{"MUTAG", []int{0, 3, 6, 9}},
		{"ENZYMES", []int{3, 6}},
		{"synth-d300-pv0.3", []int{7}},
	}
	for _, c := range cells {
		var gs []*graph.Graph
		if c.data == "synth-d300-pv0.3" {
			ds, err := synth.Walk(synth.WalkConfig{PV: 0.3}, 300, 1)
			if err != nil {
				b.Fatal(err)
			}
			gs = ds.Graphs
		}
		for _, l := range c.lengths {
			for _, m := range []Method{Explicit, Implicit} {
				b.Run(fmt.Sprintf("%s/l=%d/%s", c.data, l, m), func(b *testing.B) {
					if gs == nil {
						gs = graphtest.Dataset(b, c.data).Graphs
					}
					k := &Walk{Length: l}
					for b.Loop() {
						if _, _, err := k.Gram(context.Background(), gs, m); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkSPGram times the shortest-path kernel's Gram matrix. The paper's
// Table 3 (Java, i7-3770): MUTAG explicit 0.120 s, implicit 5.272 s;
// ENZYMES explicit 0.907 s, implicit 9 min 8 s.
func BenchmarkSPGram(b *testing.B) {
	for _, data := range []string{"MUTAG", "ENZYMES"} {
		for _, m := range []Method{Explicit, Implicit} {
			b.Run(data+"/"+string(m), func(b *testing.B) {
				gs := graphtest.Dataset(b, data).Graphs
				for b.Loop() {
					if _, _, err := (&ShortestPath{}).Gram(context.Background(), gs, m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSubgraphGram times the graphlet (explicit) and connected subgraph
// matching (implicit) kernels. The paper's Table 3: GL MUTAG 0.011 s,
// ENZYMES 0.205 s; CSM MUTAG 15.45 s, ENZYMES 34 min 15 s.
func BenchmarkSubgraphGram(b *testing.B) {
	cells := []struct {
		data string
		k    Kernel
		m    Method
	}{
		{"MUTAG", &Graphlet{}, Explicit},
		{"ENZYMES", &Graphlet{}, Explicit},
		{"MUTAG", &SubgraphMatching{}, Implicit},
	}
	for _, c := range cells {
		b.Run(c.data+"/"+c.k.Name(), func(b *testing.B) {
			gs := graphtest.Dataset(b, c.data).Graphs
			for b.Loop() {
				if _, _, err := c.k.Gram(context.Background(), gs, c.m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWalkGramThreads measures the speed-up of the walk kernel's
// Gram matrix with two threads on the 2-core machine of the issue.
func BenchmarkWalkGramThreads(b *testing.B) {
	cells := []struct {
		data string
		l    int
		m    Method
	}{
		{"MUTAG", 3, Implicit}, {"MUTAG", 3, Explicit}, {"MUTAG", 5, Explicit},
		{"MUTAG", 7, Explicit}, {"MUTAG", 9, Explicit},
		{"ENZYMES", 3, Implicit}, {"ENZYMES", 3, Explicit}, {"ENZYMES", 6, Explicit},
		{"U251", 8, Explicit},
	}
	for _, c := range cells {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/l=%d/%s/threads=%d", c.data, c.l, c.m, th), func(b *testing.B) {
				gs := graphtest.Dataset(b, c.data).Graphs
				k := &Walk{Length: c.l, Threads: th}
				// With a Crew, as under runexp, the second core stays awake
				// from one Gram matrix to the next, and with a Workspace,
				// as runexp keeps for a cell, the buffers are kept too.
				ctx := WithCrew(context.Background(), NewCrew(DefaultLinger))
				ctx = WithWorkspace(ctx, NewWorkspace())
				for b.Loop() {
					if _, _, err := k.Gram(ctx, gs, c.m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkPackedVector times the packed map of every graph of MUTAG on
// one goroutine (see packedVector), after h WL iterations at length l, in
// one scratch: the share of the packed Gram matrix that merges the walks'
// runs, which only the map on more than one thread takes.
func BenchmarkPackedVector(b *testing.B) {
	gs0 := graphtest.Dataset(b, "MUTAG").Graphs
	for _, c := range []struct{ l, h int }{{4, 1}, {4, 2}, {4, 3}, {6, 0}} {
		b.Run(fmt.Sprintf("l=%d/wl=%d", c.l, c.h), func(b *testing.B) {
			gs := gs0
			if c.h > 0 {
				gs = graph.RefineGraphs(gs0, c.h, graph.FromLabels)
			}
			vb, eb, _, ok := packedBits(gs, c.l)
			if !ok {
				b.Fatal("labels do not pack")
			}
			var sc packedScratch[uint64]
			for b.Loop() {
				for _, g := range gs {
					if _, _, err := packedVector(context.Background(), g, c.l, vb, eb, &sc, narrowOps()); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
