package synth

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/gkbench/gkbench/graph"
)

// subgraphStream is the PCG stream selector of Subgraph (the ASCII bytes of
// "subg5.41"), distinct from walkStream so that equal seeds of the two
// generators do not give correlated draws.
const subgraphStream = 0x73756267352e3431

// The paper's parameters of Section 5.4.1.
const (
	defaultSubgraphMean     = 60
	defaultSubgraphEdgeProb = 0.5
	// MaxAlphabet is the largest label alphabet the paper uses.
	MaxAlphabet = 65
)

// SubgraphConfig parameterises the generator of Section 5.4.1 of the paper,
// used for the subgraph kernels' phase transition.
type SubgraphConfig struct {
	// Labels is the size |L| of the alphabet shared by vertex and edge
	// labels, from 1 (uniform labels) up.
	Labels int
	// MeanVertices is the mean of the Poisson number of vertices; 0 means
	// the paper's 60.
	MeanVertices float64
	// EdgeProb is the probability that a vertex pair is an edge; 0 means
	// the paper's 0.5.
	EdgeProb float64
}

func (c SubgraphConfig) resolve() (SubgraphConfig, error) {
	if c.Labels < 1 || c.Labels > 1<<16 {
		return c, fmt.Errorf("Labels = %d, want an alphabet size in [1, %d]", c.Labels, 1<<16)
	}
	var err error
	c.MeanVertices, c.EdgeProb, err = resolveShape(c.MeanVertices, c.EdgeProb, defaultSubgraphMean, defaultSubgraphEdgeProb)
	return c, err
}

// Subgraph generates d graphs from seed with the procedure of Section 5.4.1:
// |V| ~ Poisson(60), every vertex pair an edge with probability 0.5, and
// vertex and edge labels drawn uniformly from an alphabet of cfg.Labels
// labels. As with Walk, the first k graphs are the same for every d ≥ k, so
// data sets of growing size are nested ("adding 50 randomly generated graphs
// in each step").
//
// The stream rand.NewPCG(seed, subgraphStream) is consumed graph by graph:
// the number of vertices n; one uniform variate per vertex for its label
// (label ⌊x·|L|⌋); then one variate per vertex pair u < v in lexicographic
// order, and for each pair that becomes an edge one more for its label.
// Unlike Walk, the structure depends on the alphabet, because edge labels
// are drawn only for edges.
//
// The data set is named "subgraph-L<labels>-d<d>-seed<seed>" (with "-n" and
// "-ep" suffixes for non-default parameters). NodeLabels and EdgeLabels are
// 0..|L|−1, and every graph is in class 0: the paper uses these sets for
// timing only.
func Subgraph(cfg SubgraphConfig, d int, seed uint64) (*graph.Dataset, error) {
	c, err := cfg.resolve()
	if err != nil {
		return nil, fmt.Errorf("synth.Subgraph: config: %w", err)
	}
	dict := make([]int64, c.Labels)
	for i := range dict {
		dict[i] = int64(i)
	}
	L := float64(c.Labels)
	label := func(rng *rand.Rand) int32 { return int32(min(rng.Float64()*L, L-1)) }
	ds := &graph.Dataset{
		Name:       subgraphName(c, d, seed),
		NodeLabels: dict,
		EdgeLabels: dict,
	}
	err = randomGraphs(ds, poissonGraphs{
		d: d, seed: seed, stream: subgraphStream, mean: c.MeanVertices, edgeProb: c.EdgeProb,
		vertexLabel: label, edgeLabel: label,
	})
	if err != nil {
		return nil, fmt.Errorf("synth.Subgraph: %w", err)
	}
	return ds, nil
}

func subgraphName(c SubgraphConfig, d int, seed uint64) string {
	name := "subgraph-L" + strconv.Itoa(c.Labels) + "-d" + strconv.Itoa(d) + "-seed" + strconv.FormatUint(seed, 10)
	if c.MeanVertices != defaultSubgraphMean {
		name += "-n" + fmtFloat(c.MeanVertices)
	}
	if c.EdgeProb != defaultSubgraphEdgeProb {
		name += "-ep" + fmtFloat(c.EdgeProb)
	}
	return name
}
