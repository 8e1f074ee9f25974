package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/gkbench/gkbench/graph"
)

// The paper's parameters of Section 5.3.1, used when a WalkConfig leaves the
// corresponding field 0.
const (
	defaultMeanVertices = 20
	defaultEdgeProb     = 0.1
)

// walkStream is the PCG stream selector of Walk (the ASCII bytes of
// "walk5.31"). It is fixed so that a seed alone names a data set; a different
// generator in this package uses a different constant, so the same seed does
// not give it correlated draws.
const walkStream = 0x77616c6b352e3331

// WalkConfig parameterises the generator of Section 5.3.1 of the paper.
type WalkConfig struct {
	PV           float64 // probability that a vertex gets a non-zero label (the paper's p_V), in [0,1]
	MeanVertices float64 // mean of the Poisson number of vertices; 0 means the paper's 20
	EdgeProb     float64 // probability that a vertex pair is an edge; 0 means the paper's 0.1
}

// resolve validates c and returns it with the paper's defaults filled in.
func (c WalkConfig) resolve() (WalkConfig, error) {
	if math.IsNaN(c.PV) || c.PV < 0 || c.PV > 1 {
		return c, fmt.Errorf("PV = %v, want a probability in [0,1]", c.PV)
	}
	var err error
	c.MeanVertices, c.EdgeProb, err = resolveShape(c.MeanVertices, c.EdgeProb, defaultMeanVertices, defaultEdgeProb)
	return c, err
}

// Walk generates d graphs from seed. The first k graphs are the same for
// every d ≥ k with the same seed and config, so data sets of growing size d
// are nested, as in the paper ("adding 20 randomly generated graphs in each
// step").
//
// All randomness comes from one PCG stream, rand.NewPCG(seed, walkStream),
// consumed graph by graph in this order:
//
//  1. the number of vertices n, from distuv.Poisson{Lambda: MeanVertices};
//  2. one uniform variate x per vertex v = 0..n-1 for its label: 1 if
//     x < PV/2, 2 if PV/2 ≤ x < PV, else 0, i.e. label 0 with probability
//     1-PV and otherwise 1 or 2 with equal probability;
//  3. one uniform variate per vertex pair u < v in lexicographic order; the
//     pair is an edge, with label 0, if the variate is below EdgeProb.
//
// Since every vertex consumes exactly one variate for its label whatever PV
// is, the graph structure depends on the seed but not on PV: data sets for
// several p_V share their graphs and differ only in labels, so timings
// across p_V compare label diversity and nothing else. The coupling is also
// monotone: a vertex with a non-zero label keeps one for every larger PV.
//
// The data set is named "walk-pv<PV>-d<d>-seed<seed>", with "-n<mean>" and
// "-ep<EdgeProb>" appended when these differ from the paper's 20 and 0.1,
// numbers in Go's shortest 'g' format (e.g. "walk-pv0.3-d100-seed1"), so
// that different data sets never share a name. NodeLabels is always
// {0, 1, 2}, so a label id means the same for every PV even when a label
// does not occur; EdgeLabels is {0}. The paper uses these sets for timing
// only, so they carry no classes: every graph is in class 0.
//
// A graph without vertices occurs with probability e^-MeanVertices
// (2·10⁻⁹ for the paper's mean); it is kept, because dropping it would
// change the stream and the distribution. graph.WriteTU cannot store such a
// graph.
func Walk(cfg WalkConfig, d int, seed uint64) (*graph.Dataset, error) {
	c, err := cfg.resolve()
	if err != nil {
		return nil, fmt.Errorf("synth.Walk: config: %w", err)
	}
	half := c.PV / 2
	vertexLabel := func(rng *rand.Rand) int32 {
		switch x := rng.Float64(); {
		case x < half:
			return 1
		case x < c.PV:
			return 2
		}
		return 0
	}
	ds := &graph.Dataset{
		Name:       walkName(c, d, seed),
		NodeLabels: []int64{0, 1, 2},
		EdgeLabels: []int64{0},
	}
	err = randomGraphs(ds, poissonGraphs{
		d: d, seed: seed, stream: walkStream, mean: c.MeanVertices, edgeProb: c.EdgeProb,
		vertexLabel: vertexLabel,
	})
	if err != nil {
		return nil, fmt.Errorf("synth.Walk: %w", err)
	}
	return ds, nil
}

// walkName spells out every parameter that changes the data, so that a name
// identifies a data set.
func walkName(c WalkConfig, d int, seed uint64) string {
	name := "walk-pv" + fmtFloat(c.PV) + "-d" + strconv.Itoa(d) + "-seed" + strconv.FormatUint(seed, 10)
	if c.MeanVertices != defaultMeanVertices {
		name += "-n" + fmtFloat(c.MeanVertices)
	}
	if c.EdgeProb != defaultEdgeProb {
		name += "-ep" + fmtFloat(c.EdgeProb)
	}
	return name
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
