package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gkbench/gkbench/graph"
)

// resolveShape validates the Poisson mean and the edge probability of a
// generator and fills in its defaults for zero values.
func resolveShape(mean, edgeProb, defMean, defEdgeProb float64) (float64, float64, error) {
	if math.IsNaN(mean) || math.IsInf(mean, 0) || mean < 0 {
		return mean, edgeProb, fmt.Errorf("MeanVertices = %v, want a finite mean ≥ 0 (0 for the paper's %v)", mean, defMean)
	}
	if math.IsNaN(edgeProb) || edgeProb < 0 || edgeProb > 1 {
		return mean, edgeProb, fmt.Errorf("EdgeProb = %v, want a probability in [0,1] (0 for the paper's %v)", edgeProb, defEdgeProb)
	}
	if mean == 0 {
		mean = defMean
	}
	if edgeProb == 0 {
		edgeProb = defEdgeProb
	}
	return mean, edgeProb, nil
}

// poissonGraphs describes the random graphs both of the paper's generators
// draw: a Poisson number of vertices, each with a label, and independent
// edges.
type poissonGraphs struct {
	d        int
	seed     uint64
	stream   uint64
	mean     float64
	edgeProb float64
	// vertexLabel draws a vertex's label; edgeLabel an edge's, or nil for
	// the uniform label 0 without a draw.
	vertexLabel func(*rand.Rand) int32
	edgeLabel   func(*rand.Rand) int32
}

// randomGraphs fills ds.Graphs and ds.Classes (all 0) with p.d graphs drawn
// from the single PCG stream rand.NewPCG(p.seed, p.stream), graph by graph:
// the number of vertices n from distuv.Poisson; one vertexLabel draw per
// vertex; one uniform variate per vertex pair u < v in lexicographic order,
// and for each pair that becomes an edge one edgeLabel draw. Because graph i
// consumes the stream only after graphs 0..i−1, the data sets for growing d
// are nested.
func randomGraphs(ds *graph.Dataset, p poissonGraphs) error {
	if p.d < 0 {
		return fmt.Errorf("d = %d, want a number of graphs ≥ 0", p.d)
	}
	src := rand.NewPCG(p.seed, p.stream)
	rng := rand.New(src) // shares src's state: one stream for everything
	pois := distuv.Poisson{Lambda: p.mean, Src: src}
	ds.Graphs = make([]*graph.Graph, p.d)
	ds.Classes = make([]int64, p.d)
	var edges []graph.Edge
	for i := range ds.Graphs {
		nf := pois.Rand()
		if nf > math.MaxInt32 {
			return fmt.Errorf("graph %d: %v vertices exceed the int32 vertex ids", i, nf)
		}
		n := int(nf)
		labels := make([]int32, n)
		for v := range labels {
			labels[v] = p.vertexLabel(rng)
		}
		edges = edges[:0]
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < p.edgeProb {
					e := graph.Edge{U: int32(u), V: int32(v)}
					if p.edgeLabel != nil {
						e.Label = p.edgeLabel(rng)
					}
					edges = append(edges, e)
				}
			}
		}
		g, err := graph.Build(labels, edges, nil, 0)
		if err != nil {
			return fmt.Errorf("graph %d: %w", i, err)
		}
		ds.Graphs[i] = g
	}
	return nil
}
