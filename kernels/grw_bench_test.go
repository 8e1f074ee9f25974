package kernels

import (
	"context"
	"fmt"
	"testing"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// BenchmarkGRWGramThreads times the geometric random walk kernel on 1 and
// 2 threads (issue 9 asks for 1.8× on 2), with γ = 0.01, whose series on
// MUTAG converge, on MUTAG and on the first 200 ENZYMES graphs.
func BenchmarkGRWGramThreads(b *testing.B) {
	cells := []struct {
		data string
		n    int
	}{{"MUTAG", 0}, {"ENZYMES", 200}}
	for _, c := range cells {
		for _, th := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", c.data, th), func(b *testing.B) {
				gs := graphtest.Dataset(b, c.data).Graphs
				if c.n > 0 {
					gs = gs[:c.n]
				}
				k := &GeometricWalk{Gamma: 0.01, Threads: th}
				// With a Crew, as under runexp (see BenchmarkWalkGramThreads).
				ctx := WithCrew(context.Background(), NewCrew(DefaultLinger))
				for b.Loop() {
					if _, _, err := k.Gram(ctx, gs, Implicit); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
