package kernels

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
)

// The names of the graph invariant kernel's cost constants, in
// nanoseconds per unit of counted work, which price both of its methods
// from counts alone, before any sample (see GraphInvariant.screen).
//
// The implicit method evaluates every vertex pair of every pair of
// graphs: its weight, h+1 comparisons of colours, and the vertex kernel,
// a comparison of labels (Dirac) or the hat kernel on the attributes. The
// constants price the hat kernel on one attribute; it returns at the
// first attribute out of reach, so more attributes cost more only where
// they are close, and the price is one from below. The explicit method
// refines the colours, a round over every vertex and arc; bins every
// attribute of every vertex in each binning iteration (the hat kernel's
// map; labels are their own features); and sums a key, a weight feature
// and a vertex feature, for every colour of a vertex and every iteration.
// Its dot products are priced with the walk kernel's constants of the Gram
// routine they share (see dotTerms).
const (
	costGIVertexPair = "gi.implicit.ns_per_vertex_pair"
	costGIColourPair = "gi.implicit.ns_per_colour_pair"
	costGIAttribute  = "gi.implicit.ns_per_attribute_pair"
	costGIRefine     = "gi.explicit.ns_per_refine_step"
	costGIBin        = "gi.explicit.ns_per_bin_attribute"
	costGIKey        = "gi.explicit.ns_per_key"
)

// GICostDefaults returns the graph invariant kernel's cost constants as
// measured by GraphInvariant.Calibrate (runexp calibrate, full design) on
// the 2-core Intel Xeon virtual machine of the attributed grids' runs, the
// middle of three calibrations. With h = 3 they price a vertex pair of the
// implicit method at 10.1 ns with labels, where MUTAG takes 11.4 (65 ms
// for 5.7 million), and at 13.2 ns with the hat kernel, where PROTEINS, of
// one attribute, takes 13.9 (31 ms for 2.25 million on 60 graphs) and
// ENZYMES, of 18, 2.8 times that.
func GICostDefaults() Costs {
	return Costs{
		costGIVertexPair: 4.21,
		costGIColourPair: 1.47,
		costGIAttribute:  3.12,
		costGIRefine:     19.6,
		costGIBin:        7.22,
		costGIKey:        21.8,
	}
}

// giCounts is what one pass over the sizes of a data set tells of the
// graph invariant kernel's work by either method.
type giCounts struct {
	n, dim int
	// vertices is Σ N_i, vertexPairs Σ_{i≤j} N_i·N_j, and steps the
	// vertices and arcs of all graphs, Σ (N_i + |A_i|).
	vertices, vertexPairs, steps float64
}

// countGI counts gs; it reports false where their attributes' dimensions
// differ, which the Gram computation rejects.
func countGI(gs []*graph.Graph) (giCounts, bool) {
	dim, err := attrDim(gs)
	if err != nil {
		return giCounts{}, false
	}
	c := giCounts{n: len(gs), dim: dim}
	var sq float64
	for _, g := range gs {
		nv := float64(g.N())
		c.vertices += nv
		sq += nv * nv
		c.steps += nv + float64(len(g.Adj))
	}
	c.vertexPairs = (c.vertices*c.vertices + sq) / 2
	return c, true
}

// implicitTerms prices the implicit method on the counted graphs with h
// refinement rounds: every vertex pair and its h+1 colour pairs, and with
// attributes (the hat kernel) one attribute pair each, from below (see
// costGIVertexPair).
func (c giCounts) implicitTerms(m costModel, h int, attributes bool) []CostTerm {
	ts := []CostTerm{
		m.term(costGIVertexPair, c.vertexPairs, "vertex pairs"),
		m.term(costGIColourPair, c.vertexPairs*float64(h+1), "vertex pairs × (h+1)"),
	}
	if attributes {
		ts = append(ts, m.term(costGIAttribute, c.vertexPairs, "vertex pairs × one attribute"))
	}
	return ts
}

// explicitTerms prices the explicit method on the counted graphs with h
// refinement rounds and, for attributes, p binning iterations (p = 0 for
// labels): the refinement, the bins and the keys as counted, and the dot
// products from above, every key taken for a non-zero of its own, none
// merged, and every feature for one in every graph (dm prices them).
func (c giCounts) explicitTerms(m costModel, dm walkModel, h, p int) []CostTerm {
	keys := c.keys(h, p)
	n := float64(c.n)
	ts := []CostTerm{
		m.term(costGIRefine, float64(h)*c.steps, "vertices and arcs × h"),
		m.term(costGIBin, c.vertices*float64(p*max(c.dim, 1)), "vertices × iterations × attributes"),
		m.term(costGIKey, keys, "keys"),
	}
	ts, _ = dotTerms(ts, dm, n, keys, n*keys, keys, func() (float64, float64) {
		steps := (n + 1) * keys
		return steps, steps
	})
	return ts
}

// keys returns the keys of the explicit maps with h refinement rounds and
// p binning iterations, one vertex feature a vertex for labels (p = 0).
func (c giCounts) keys(h, p int) float64 { return c.vertices * float64((h+1)*max(p, 1)) }

// screen prices both methods of k on gs from counts (see giCounts),
// before any sample: the explicit one's dot products from above, and the
// implicit method from below. It reports false where it cannot: the RBF
// kernel has no explicit map, and the hat kernel's needs binning
// iterations. Pricing 60 graphs takes a few microseconds, where the
// samples' probes took 60–240 µs (see GraphInvariant.Advise). On the
// attributed grid's 60-graph data sets with h = 3 (medians of 5 runs), it
// priced ENZYMES at 1.16 ms explicit for 0.61 ms measured with one
// binning iteration, at 2.98 ms for 1.76 ms with four and at 9.9 ms for
// 6.7 ms with 16, and at 26 ms implicit for 71 ms.
func (k *GraphInvariant) screen(gs []*graph.Graph, costs Costs) (expl, impl estimate, ok bool) {
	p, hat := 0, k.Attr.Kind == "hat"
	switch {
	case len(gs) == 0 || k.H < 0:
		return estimate{}, estimate{}, false
	case hat && k.Attr.Iterations >= 1:
		p = k.Attr.Iterations
	case k.Attr.Kind != "dirac":
		return estimate{}, estimate{}, false
	}
	c, ok := countGI(gs)
	if !ok {
		return estimate{}, estimate{}, false
	}
	m := costModel{costs, giDefaults}
	expl = newEstimate(c.explicitTerms(m, newWalkModel(costs), k.H, p),
		because("from counts without a sample: %.0f keys, the dot products as if each were a non-zero in every graph", c.keys(k.H, p)))
	attr := ""
	if hat {
		attr = ", the attribute kernel priced on one attribute"
	}
	impl = newEstimate(c.implicitTerms(m, k.H, hat), because("at least, from counts without a sample: %.0f vertex pairs%s", c.vertexPairs, attr))
	return expl, impl, true
}

// giDesign is a calibration design of the graph invariant kernel:
// graphs of the walk generator with their labels and with uniform random
// attributes, timed at several refinement rounds, binning iterations and
// attribute dimensions.
type giDesign struct {
	graphs     []synth.WalkConfig
	d          int
	h, p, dims []int
	reps       int
}

func fullGIDesign() giDesign {
	return giDesign{
		graphs: []synth.WalkConfig{{PV: 0}, {PV: 0, MeanVertices: 60, EdgeProb: 0.05}},
		d:      60,
		h:      []int{0, 2, 5},
		p:      []int{1, 8, 32},
		dims:   []int{1, 8},
		reps:   3,
	}
}

func quickGIDesign() giDesign {
	return giDesign{
		graphs: []synth.WalkConfig{{PV: 0}},
		d:      40,
		h:      []int{0, 4},
		p:      []int{1, 16},
		dims:   []int{1, 6},
		reps:   2,
	}
}

// Calibrate implements Calibrator: it measures the constants of the
// graph invariant kernel's counts (see costGIVertexPair) on synthetic
// graphs, with their labels and with random attributes, fitting each
// method's times by least squares of relative errors, the fastest of
// three runs each. It takes about 2.5 s. Uniform random attributes of
// eight dimensions fall mostly in bins that no other vertex of their
// graph shares (85–89% of the keys are non-zeros of their own, against
// 39% with one attribute), so the keys are priced where few merge, as the
// explicit price takes them (see explicitTerms).
func (k *GraphInvariant) Calibrate(ctx context.Context) (Costs, error) {
	return calibrateGI(ctx, fullGIDesign())
}

// CalibrateQuick implements QuickCalibrator on a smaller design, the
// faster of two runs each: about 50 ms.
func (k *GraphInvariant) CalibrateQuick(ctx context.Context) (Costs, error) {
	return calibrateGI(ctx, quickGIDesign())
}

func calibrateGI(ctx context.Context, d giDesign) (Costs, error) {
	var impl, expl fitRows
	r := rand.New(rand.NewPCG(1, 0x6769)) // "gi"
	m := costModel{Costs{}, giDefaults}
	// implicit and explicit time k on gs and add a row of the counts c.
	implicit := func(k *GraphInvariant, gs []*graph.Graph, c giCounts) error {
		t, err := timePhases(ctx, k, gs, Implicit, d.reps)
		if err != nil {
			return err
		}
		hat := k.Attr.Kind == "hat"
		x := make([]float64, 3)
		for i, term := range c.implicitTerms(m, k.H, hat) {
			x[i] = term.Count
		}
		impl.add(t, t, x...)
		return nil
	}
	explicit := func(k *GraphInvariant, gs []*graph.Graph, c giCounts) error {
		t, err := timePhases(ctx, k, gs, Explicit, d.reps)
		if err != nil {
			return err
		}
		ts := c.explicitTerms(m, newWalkModel(nil), k.H, k.Attr.Iterations)
		expl.add(t, t, ts[0].Count, ts[1].Count, ts[2].Count)
		return nil
	}
	for _, cfg := range d.graphs {
		ds, err := synth.Walk(cfg, d.d, 1)
		if err != nil {
			return nil, err
		}
		for j, dim := range d.dims {
			gs := withAttributes(ds.Graphs, dim, r)
			c, _ := countGI(gs)
			for _, h := range d.h {
				if j == 0 {
					// The labels, once a data set.
					k := &GraphInvariant{H: h, Attr: AttrKernel{Kind: "dirac"}}
					if err := implicit(k, gs, c); err != nil {
						return nil, err
					}
					if err := explicit(k, gs, c); err != nil {
						return nil, err
					}
				}
				if dim == 1 {
					// One attribute, at which the implicit constants
					// price every vertex pair (see costGIVertexPair).
					if err := implicit(&GraphInvariant{H: h, Attr: AttrKernel{Kind: "hat", Delta: 1}}, gs, c); err != nil {
						return nil, err
					}
				}
				for _, p := range d.p {
					k := &GraphInvariant{H: h, Attr: AttrKernel{Kind: "hat", Delta: 1, Iterations: p, Seed: 1}}
					if err := explicit(k, gs, c); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	c := Costs{}
	if err := impl.fitInto(c, "implicit computation", costGIVertexPair, costGIColourPair, costGIAttribute); err != nil {
		return nil, err
	}
	if err := expl.fitInto(c, "explicit maps", costGIRefine, costGIBin, costGIKey); err != nil {
		return nil, err
	}
	return c, nil
}

// timePhases returns the fastest of reps Gram matrices of gs by k and
// method m, in nanoseconds, counting the phases that the calibrations of
// gi and sp price: the pairs for the implicit method, the preparation and
// the maps for the explicit one (the explicit dot products are the walk
// kernel's).
func timePhases(ctx context.Context, k Kernel, gs []*graph.Graph, m Method, reps int) (float64, error) {
	best := time.Duration(-1)
	for range max(reps, 1) {
		_, rep, err := k.Gram(ctx, gs, m)
		if err != nil {
			return 0, err
		}
		t := rep.TWalks
		if m == Explicit {
			t = rep.TPrep + rep.TPhi
		}
		if best < 0 || t < best {
			best = t
		}
	}
	return ns(max(best, time.Microsecond)), nil
}

// withAttributes returns copies of gs with dim uniform random attributes
// in [0, 1) a vertex.
func withAttributes(gs []*graph.Graph, dim int, r *rand.Rand) []*graph.Graph {
	out := make([]*graph.Graph, len(gs))
	for i, g := range gs {
		a := *g
		a.AttrDim = dim
		a.Attrs = make([]float64, g.N()*dim)
		for j := range a.Attrs {
			a.Attrs[j] = r.Float64()
		}
		out[i] = &a
	}
	return out
}
