package kernels

import (
	"context"
	"fmt"
	"testing"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// BenchmarkSubgraphGramThreads measures the speed-up of the graphlet and
// subgraph matching kernels' Gram matrices with two threads on the 2-core
// machine of the issue. The implicit method on ENZYMES runs on its first
// 100 graphs (about half a second), all of them taking about ten minutes.
// The explicit method runs with a Workspace too (ws=true), as runexp's
// benchmark specs run it, whose workers keep their buffers (see glBufs).
func BenchmarkSubgraphGramThreads(b *testing.B) {
	cells := []struct {
		data string
		n    int // the first n graphs, 0 for all
		csm  bool
		m    Method
	}{
		{"MUTAG", 0, false, Explicit},
		{"ENZYMES", 0, false, Explicit},
		{"U251", 0, false, Explicit},
		{"ENZYMES", 0, true, Explicit},
		{"MUTAG", 0, true, Implicit},
		{"ENZYMES", 100, true, Implicit},
	}
	for _, c := range cells {
		for _, ws := range []bool{false, true} {
			if ws && c.m != Explicit {
				continue
			}
			for _, th := range []int{1, 2} {
				var k Kernel = &Graphlet{Threads: th}
				if c.csm {
					k = &SubgraphMatching{Threads: th}
				}
				b.Run(fmt.Sprintf("%s/%d/%s/%s/ws=%v/threads=%d", c.data, c.n, k.Name(), c.m, ws, th), func(b *testing.B) {
					gs := graphtest.Dataset(b, c.data).Graphs
					if c.n > 0 {
						gs = gs[:c.n]
					}
					// With a Crew, as under runexp, the second core stays
					// awake from one Gram matrix to the next.
					ctx := WithCrew(context.Background(), NewCrew(DefaultLinger))
					if ws {
						ctx = WithWorkspace(ctx, NewWorkspace())
					}
					for b.Loop() {
						if _, _, err := k.Gram(ctx, gs, c.m); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
