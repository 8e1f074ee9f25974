package kernels

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
)

// The names of the shortest-path kernel's cost constants, in nanoseconds
// per unit of counted work, which bound its implicit method's time from
// below with the hat kernel on attributes (see spFloor).
//
// For every pair of graphs the implicit method fills the matrix of the
// vertex kernel on their vertex pairs, and then, for every length d,
// compares each path of length d in one graph with each in the other, or
// where that is dearer, sums the matrix's rows (see spPairGeneric): the
// cheaper of pg·ph comparisons and 2·pg·nh + 2·ng·ph row steps for pg and
// ph paths and ng and nh vertices. The constants price a vertex pair with
// one attribute, a comparison and a row step.
const (
	costSPVertexPair = "sp.implicit.ns_per_vertex_pair"
	costSPComparison = "sp.implicit.ns_per_comparison"
	costSPRowStep    = "sp.implicit.ns_per_row_step"
)

// SPCostDefaults returns the shortest-path kernel's cost constants as
// measured by ShortestPath.Calibrate (runexp calibrate, full design) on
// the 2-core AMD EPYC virtual machine of its first measurements, the
// middle of three calibrations (0.9 s each). Priced by them, the exact
// counts of the implicit pairs of the attributed grid's 60-graph sets
// came to 0.69 (ENZYMES), 0.96, 1.08 and 0.95 (Synthie) times the pairs'
// time there, and the floor to 0.18, 0.20, 0.11 and 0.11 times.
func SPCostDefaults() Costs {
	return Costs{
		costSPVertexPair: 6.04,
		costSPComparison: 0.969,
		costSPRowStep:    0.413,
	}
}

// spSizes are the sizes of a data set's graphs that bound the implicit
// method's work from below: each graph's vertices, and its edges, which
// are its paths of length 1.
type spSizes struct {
	vertices, edges []float64
}

// spSizesOf returns the sizes of gs.
func spSizesOf(gs []*graph.Graph) spSizes {
	s := spSizes{vertices: make([]float64, len(gs)), edges: make([]float64, len(gs))}
	for i, g := range gs {
		s.vertices[i] = float64(g.N())
		s.edges[i] = float64(len(g.Adj) / 2)
	}
	return s
}

// spFloorMax bounds the graphs whose pairs floorTerms visits one by one:
// 1000 graphs are half a million pairs, 0.59 ms (BenchmarkSPFloor), and
// ENZYMES' 600 took 0.21 ms, where its explicit run takes 35 ms.
const spFloorMax = 1000

// floorTerms prices the implicit method on the graphs from below, with
// the constants of m: every pair's vertex pairs, each with one attribute,
// and, for the paths of length 1 alone, the cheaper of their comparisons
// and their row steps. Longer paths, which the sizes do not count, are
// left out, and so is each graph's preparation. Beyond spFloorMax graphs
// the paths are left out too, as their sum needs every pair.
func (s spSizes) floorTerms(m costModel) []CostTerm {
	var vs, sq float64
	for _, nv := range s.vertices {
		vs += nv
		sq += nv * nv
	}
	ts := []CostTerm{m.term(costSPVertexPair, (vs*vs+sq)/2, "vertex pairs × one attribute")}
	n := len(s.vertices)
	if n > spFloorMax {
		return ts
	}
	cmp, row := m.ns(costSPComparison), m.ns(costSPRowStep)
	var comparisons, steps float64
	for i := range n {
		ei, ni := s.edges[i], s.vertices[i]
		for j := i; j < n; j++ {
			ej, nj := s.edges[j], s.vertices[j]
			c, r := ei*ej, 2*ei*nj+2*ni*ej
			if c*cmp <= r*row {
				comparisons += c
			} else {
				steps += r
			}
		}
	}
	return append(ts,
		m.term(costSPComparison, comparisons, "comparisons of edges (paths of length 1)"),
		m.term(costSPRowStep, steps, "row steps of edges, where cheaper"))
}

// floor returns the implicit method's floor on gs for k, and false where
// there is none: the floor prices the hat kernel on attributes.
func (k *ShortestPath) floor(gs []*graph.Graph, costs Costs) (estimate, bool) {
	if k.Attr == nil || k.Attr.Kind != "hat" || len(gs) == 0 {
		return estimate{}, false
	}
	if _, err := attrDim(gs); err != nil {
		return estimate{}, false
	}
	m := costModel{costs, spDefaults}
	return newEstimate(spSizesOf(gs).floorTerms(m), because("at least, from counts without a sample: the vertex pairs with one attribute and the edges' comparisons")), true
}

// Advise implements Advisor for the shortest-path kernel by sampling (see
// adviseBySampling): the implicit method's cost depends on how many paths
// share their endpoint labels and lengths, which a sample measures. The
// probes run on one thread, as the walk kernel's do: both methods spread
// over threads alike, so the ranking holds for any number. With the hat
// kernel on attributes, counts bound the implicit time from below (see
// floor), the samples' floor.
func (k *ShortestPath) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	start := time.Now()
	floor, _ := k.floor(gs, opt.Costs)
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, threadsOr(k.Threads), sizeWeights{graph: 1.5, pair: 1.5}, opt, floor, start)
}

// spDesign is a calibration design of the shortest-path kernel's floor:
// graphs of the walk generator with one uniform random attribute.
type spDesign struct {
	graphs []synth.WalkConfig
	d      int
	reps   int
}

func fullSPDesign() spDesign {
	return spDesign{
		graphs: []synth.WalkConfig{
			{PV: 0},
			{PV: 0, EdgeProb: 0.3},
			{PV: 0, MeanVertices: 10, EdgeProb: 0.3},
			{PV: 0, MeanVertices: 30, EdgeProb: 0.5},
			{PV: 0, MeanVertices: 40, EdgeProb: 0.05},
			{PV: 0, MeanVertices: 40, EdgeProb: 0.2},
			{PV: 0, MeanVertices: 60, EdgeProb: 0.04},
		},
		d:    40,
		reps: 3,
	}
}

func quickSPDesign() spDesign {
	return spDesign{
		// Five sets for three constants: with three, fitted
		// exactly, a set timed in a pause of the machine zeroed a
		// constant now and then (the vertex pairs' 6 ns in a run of
		// the whole suite), and over 60 runs the vertex pairs
		// ranged over 5.6–9.5 ns and the comparisons 0.45–1.05;
		// with five, the fastest of three runs each, 5.7–6.5 and
		// 1.00–1.06, in 65 ms where three took 25.
		graphs: []synth.WalkConfig{
			{PV: 0},
			{PV: 0, EdgeProb: 0.3},
			{PV: 0, MeanVertices: 30, EdgeProb: 0.1},
			{PV: 0, MeanVertices: 10, EdgeProb: 0.3},
			{PV: 0, MeanVertices: 40, EdgeProb: 0.05},
		},
		d:    20,
		reps: 3,
	}
}

// Calibrate implements Calibrator: it measures the constants of the
// shortest-path kernel's floor (see costSPVertexPair) on synthetic graphs
// with one random attribute, timing the implicit method's pairs, the
// fastest of three runs each, against their exact counts: the vertex
// pairs, and the comparisons and row steps of the paths of every length.
func (k *ShortestPath) Calibrate(ctx context.Context) (Costs, error) {
	return calibrateSP(ctx, fullSPDesign())
}

// CalibrateQuick implements QuickCalibrator on a smaller design, the
// fastest of three runs each.
func (k *ShortestPath) CalibrateQuick(ctx context.Context) (Costs, error) {
	return calibrateSP(ctx, quickSPDesign())
}

func calibrateSP(ctx context.Context, d spDesign) (Costs, error) {
	var rows fitRows
	r := rand.New(rand.NewPCG(1, 0x7370)) // "sp"
	k := &ShortestPath{Attr: &AttrKernel{Kind: "hat", Delta: 1}}
	for _, cfg := range d.graphs {
		ds, err := synth.Walk(cfg, d.d, 1)
		if err != nil {
			return nil, err
		}
		gs := withAttributes(ds.Graphs, 1, r)
		t, err := timePhases(ctx, k, gs, Implicit, d.reps)
		if err != nil {
			return nil, err
		}
		vp, cmp, steps := spImplicitWork(gs)
		rows.add(t, t, vp, cmp, steps)
	}
	c := Costs{}
	if err := rows.fitInto(c, "implicit computation", costSPVertexPair, costSPComparison, costSPRowStep); err != nil {
		return nil, err
	}
	return c, nil
}

// spImplicitWork counts the implicit method's work on gs with a vertex
// kernel on attributes, exactly: the vertex pairs of all pairs i ≤ j, and
// the comparisons and row steps of their paths' length groups, as
// spPairGeneric chooses between them.
func spImplicitWork(gs []*graph.Graph) (vertexPairs, comparisons, steps float64) {
	paths := make([]spPaths, len(gs))
	for i, g := range gs {
		paths[i] = newSPPathsGeneric(g, graph.Distances(g))
	}
	for i := range gs {
		for j := i; j < len(gs); j++ {
			g, h := &paths[i], &paths[j]
			ng, nh := int64(gs[i].N()), int64(gs[j].N())
			vertexPairs += float64(ng * nh)
			for a, b := range equalAt(g.lens, h.lens) {
				pg := int64(g.start[a+1] - g.start[a])
				ph := int64(h.start[b+1] - h.start[b])
				if spCompares(pg, ph, ng, nh) {
					comparisons += float64(pg * ph)
				} else {
					steps += float64(2*pg*nh + 2*ng*ph)
				}
			}
		}
	}
	return vertexPairs, comparisons, steps
}
