package kernels

import (
	"context"
	"fmt"
	"testing"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// BenchmarkSPThreads times the shortest-path Gram matrix on one and two
// threads, for the speed-up of Issue 9: on labels (MUTAG, ENZYMES) and on
// attributes with the hat kernel (ENZYMES, binning with P = 4 for the
// explicit map). The implicit method takes 150 of the 600 graphs of
// ENZYMES, 11,325 pairs, about a second a run, where all of them take 16 s
// on labels.
func BenchmarkSPThreads(b *testing.B) {
	hat := &AttrKernel{Kind: "hat", Delta: 1, Iterations: 4, Seed: 1}
	cells := []struct {
		name, data string
		n          int // 0 for all graphs
		attr       *AttrKernel
		m          Method
	}{
		{"labels", "MUTAG", 0, nil, Explicit},
		{"labels", "MUTAG", 0, nil, Implicit},
		{"labels", "ENZYMES", 0, nil, Explicit},
		{"labels", "ENZYMES", 150, nil, Implicit},
		{"hat", "ENZYMES", 0, hat, Explicit},
		{"hat", "ENZYMES", 150, hat, Implicit},
	}
	for _, c := range cells {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%s-%d/%s/threads=%d", c.name, c.data, c.n, c.m, threads), func(b *testing.B) {
				ds := graphtest.Dataset(b, c.data)
				if c.n > 0 {
					var err error
					if ds, err = ds.RandomSubset(c.n, 1); err != nil {
						b.Fatal(err)
					}
				}
				k := &ShortestPath{Attr: c.attr, Threads: threads}
				// With a Crew, as under runexp, the second core stays awake
				// from one Gram matrix to the next.
				ctx := WithCrew(context.Background(), NewCrew(DefaultLinger))
				for b.Loop() {
					if _, _, err := k.Gram(ctx, ds.Graphs, c.m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
