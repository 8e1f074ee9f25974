package kernels

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
)

// The names of the subgraph matching kernel's cost constants, all in
// nanoseconds per unit of counted work. The explicit maps are priced per
// wedge (a pair of neighbours of a centre: the adjacency test, the
// canonical string and the look-up of a pattern) and per non-zero (a
// pattern new to the graph, usually new to the data set too, interned in
// tables that outgrow the caches); the dot products, as gramFromVecs
// chooses, per merge step, n+1 for each non-zero of n graphs, twice the
// products gramMergeInto gathers (the constant keeps the name it had before
// gramMergeInto gathered), or per posting and per non-zero of the posting
// lists.
// The implicit method is priced per step of preparing each graph (sorting
// its a arcs by label triple, a·log₂a steps), per pair, per
// association-graph vertex and c-edge, and per pair of c-neighbours the
// clique enumeration examines.
const (
	costCSMWedge      = "csm.explicit.ns_per_wedge"
	costCSMNonzero    = "csm.explicit.ns_per_nonzero"
	costCSMMergeStep  = "csm.explicit.ns_per_merge_step"
	costCSMPosting    = "csm.explicit.ns_per_posting"
	costCSMPostingNNZ = "csm.explicit.ns_per_posting_nonzero"
	costCSMIndex      = "csm.implicit.ns_per_index_step"
	costCSMPair       = "csm.implicit.ns_per_pair"
	costCSMVertex     = "csm.implicit.ns_per_product_vertex"
	costCSMEdge       = "csm.implicit.ns_per_product_edge"
	costCSMComparison = "csm.implicit.ns_per_comparison"
)

// CSMCostDefaults returns the subgraph matching kernel's cost constants as
// measured by SubgraphMatching.Calibrate (runexp calibrate, full design,
// the fastest of three runs; the middle of repeated calibrations) on the
// shared 2-core AMD EPYC machine the defaults were set on. The merge step
// was measured again, 0.47–0.48 ns in three calibrations against 1.4
// before, when gramMergeInto began to gather its products. The posting
// was scaled by 1.96/4.40, the middle of three calibrations of 230d5f2
// over three of e5868a0, when the posting lists got cheaper.
func CSMCostDefaults() Costs {
	return Costs{
		costCSMWedge:      62,
		costCSMNonzero:    260,
		costCSMMergeStep:  0.47,
		costCSMPosting:    3.6,
		costCSMPostingNNZ: 6.5,
		costCSMIndex:      22,
		costCSMPair:       330,
		costCSMVertex:     7.5,
		costCSMEdge:       72,
		costCSMComparison: 5.4,
	}
}

// csmModel is the connected subgraph matching kernel's cost model.
type csmModel struct{ costModel }

func newCSMModel(c Costs) csmModel { return csmModel{costModel{c, csmDefaults}} }

// glWork is what the explicit method's time depends on, for n graphs.
type glWork struct {
	n int
	// wedges is Σ C(deg(v), 2) over all vertices of all graphs: the
	// pairs of neighbours the map enumerates.
	wedges float64
	// nnz is the number of non-zeros of all feature vectors.
	nnz float64
	// overlap is the mean number of features two distinct graphs share.
	overlap float64
}

// explicitTerms prices the explicit method: the maps, and the dot products
// by the scheme gramFromVecs will choose, by the same rule on the same
// counts (its posting-list cost Σ_f df_f(df_f+1)/2 + n²/2 is the non-zeros
// plus, for each pair of graphs, the features they share).
func (m csmModel) explicitTerms(w glWork) []CostTerm {
	n := float64(w.n)
	ts := []CostTerm{
		m.term(costCSMWedge, w.wedges, "wedges"),
		m.term(costCSMNonzero, w.nnz, "non-zeros"),
	}
	merge := (n + 1) * w.nnz
	postings := n*n/2 + w.nnz + n*(n-1)/2*w.overlap
	if mergeCheaper(n, w.nnz, postings-n*n/2) {
		return append(ts, m.term(costCSMMergeStep, merge, "merge steps, (n+1)·non-zeros"))
	}
	return append(ts, m.term(costCSMPosting, postings, "postings"), m.term(costCSMPostingNNZ, w.nnz, "posting-list non-zeros"))
}

// assocCounts are the sizes of one association graph: its vertices, its
// c-edges (the product graph's edges) and the pairs of c-neighbours the
// clique enumeration examines, Σ_p C(deg(p), 2).
type assocCounts struct {
	vertices, edges, comparisons float64
}

func (a *assocCounts) add(b assocCounts, w float64) {
	a.vertices += w * b.vertices
	a.edges += w * b.edges
	a.comparisons += w * b.comparisons
}

// assocWork is what the implicit method's time depends on, for n graphs.
type assocWork struct {
	n int
	// index is the work of preparing the graphs, Σ a·log₂a over their
	// numbers of arcs a.
	index float64
	// self and cross are the mean association graphs of a graph with
	// itself and of two distinct graphs: there are n of the first and
	// n(n−1)/2 of the second, and the first are much larger.
	self, cross assocCounts
}

// implicitTerms prices the implicit method: the graphs' preparation, the
// pairs, the association-graph vertices, c-edges and c-neighbour pairs.
func (m csmModel) implicitTerms(w assocWork) []CostTerm {
	n := float64(w.n)
	var all assocCounts
	all.add(w.self, n)
	all.add(w.cross, n*(n-1)/2)
	return []CostTerm{
		m.term(costCSMIndex, w.index, "arc-sorting steps"),
		m.term(costCSMPair, n*(n+1)/2, "pairs"),
		m.term(costCSMVertex, all.vertices, "association-graph vertices"),
		m.term(costCSMEdge, all.edges, "c-edges"),
		m.term(costCSMComparison, all.comparisons, "c-neighbour pairs"),
	}
}

// Advise implements Advisor for the subgraph matching kernel. Both
// predictions are work counted by cheap probes times the constants of
// Costs (see CSMCostDefaults).
//
// The explicit maps enumerate Σ C(deg, 2) wedges over all vertices, which
// is counted exactly; their non-zeros and the features graphs share, which
// decide the rest, are estimated from connected triples drawn uniformly
// from a few sample graphs (see sampleTriples). The implicit method's
// association graphs are measured on the pairs of a few sample graphs,
// self-pairs apart, from the vertices' neighbour labels without building
// them, on a sample of their vertices when they are large (see
// assocCount).
//
// The probes are held to a twentieth of the faster method's predicted
// time. The association-graph probe is cheap next to any pair it
// measures; it runs first. The wedges bound the explicit time from below
// (no non-zeros) and from above (a non-zero per wedge, all shared by all
// graphs); when the implicit prediction is outside these bounds they
// decide without the triple probe, and otherwise the faster method takes
// at least the lower bound, which bounds the triple probe's budget.
//
// The probes run on one thread whatever k.Threads is, and nothing they
// share with Gram reads it: the constants are single-thread costs, and
// since both methods spread over threads alike, the ranking holds for any
// number. The run does spread, so the triple probe's budget is divided
// by the threads, as the walk kernel's is.
func (k *SubgraphMatching) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	n := len(gs)
	if n == 0 {
		return nil, fmt.Errorf("csm kernel: advice on no graphs")
	}
	start := time.Now()
	sc := scanCSM(gs)
	if !sc.fit {
		// Labels that a method's packed keys cannot hold leave the other.
		explErr := checkGLLabels(gs)
		var implErr error
		if slices.ContainsFunc(gs, func(g *graph.Graph) bool { return !fitsTripleKey(g) }) {
			implErr = fmt.Errorf("labels outside [0, %d)", 1<<labelBits)
		}
		if explErr != nil && implErr != nil {
			return nil, fmt.Errorf("csm kernel: neither method takes these labels: %v", explErr)
		}
		a := &Advice{Choice: Explicit}
		a.Explicit, a.Implicit = Prediction{Explicit, 0, because("the only method")}, Prediction{Implicit, math.Inf(1), because("%v", implErr)}
		if explErr != nil {
			a.Choice = Implicit
			a.Explicit, a.Implicit = Prediction{Explicit, math.Inf(1), because("%v", explErr)}, Prediction{Implicit, 0, because("the only method")}
		}
		return a, nil
	}
	model := newCSMModel(opt.Costs)
	r := rand.New(rand.NewPCG(opt.Seed, 0x63736d6164766963)) // "csmadvic"

	wedgesOf := sc.wedges
	ew := glWork{n: n, wedges: sc.wedgeSum}
	iw := assocWork{n: n, index: sc.index}
	selfV, crossV := sc.self, sc.cross
	upper := model.explicitTerms(glWork{n: n, wedges: ew.wedges, nnz: ew.wedges, overlap: ew.wedges / float64(n)})

	// Implicit: the association graphs' vertices are counted exactly
	// from the label histograms, which with the pairs and the graphs'
	// preparation bound the time from below; the rest comes from the
	// pairs of a pool of graphs, an eighth of them between 4 and 8, so
	// that the probe's pairs stay a small share of all pairs.
	iw.self.vertices, iw.cross.vertices = selfV, crossV
	impl := model.implicitTerms(iw)[:3] // the preparation, the pairs and the vertices
	implWhy := because("at least its %d pairs of %.3g association-graph vertices on average, which already decide",
		n*(n+1)/2, (float64(n)*selfV+float64(n)*float64(n-1)/2*crossV)/(float64(n)*float64(n+1)/2))
	if sumTerms(impl) <= sumTerms(upper) {
		pool := r.Perm(n)[:min(n, max(4, n/8), 8)]
		ag := make([]assocGraph, len(pool))
		for i, j := range pool {
			ag[i] = newAssocGraph(gs[j])
		}
		var self, cross assocCounts
		var pairs int
		for a := range ag {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			self.add(assocCount(&ag[a], &ag[a], r), 1/float64(len(ag)))
			for b := a + 1; b < len(ag); b++ {
				cross.add(assocCount(&ag[a], &ag[b], r), 1)
				pairs++
			}
		}
		iw.self.edges, iw.self.comparisons = self.edges, self.comparisons
		if pairs > 0 {
			iw.cross.edges, iw.cross.comparisons = cross.edges/float64(pairs), cross.comparisons/float64(pairs)
		}
		impl = model.implicitTerms(iw)
		implWhy = because("%d pairs of %.3g association-graph vertices on average; c-edges and c-neighbour pairs from the %d pairs of %d sample graphs (%.3g and %.3g a pair, %.3g and %.3g a self-pair)",
			n*(n+1)/2, crossV, pairs+len(ag), len(ag), iw.cross.edges, iw.cross.comparisons, iw.self.edges, iw.self.comparisons)
	}

	// Explicit: the wedges alone are a lower bound, and as many
	// non-zeros as wedges, each shared by every pair, an upper bound.
	// Either may decide without the triple probe.
	lower := []CostTerm{model.term(costCSMWedge, ew.wedges, "wedges")}
	var expl []CostTerm
	var explWhy reason
	switch {
	case sumTerms(lower) >= sumTerms(impl):
		expl, explWhy = lower, because("at least its %.3g wedges, which already decide", ew.wedges)
	case sumTerms(upper) < sumTerms(impl):
		expl, explWhy = upper, because("at most: %.3g wedges, as many non-zeros, all shared, which already decide", ew.wedges)
	default:
		// Three fifths of the probes' twentieth, the draws' cost being
		// predicted less surely than the pairs'.
		budget := 0.03*sumTerms(lower)/float64(threadsOr(k.Threads)) - time.Since(start).Seconds()
		s, err := sampleTriples(ctx, gs, wedgesOf, budget, model.ns(costCSMWedge), r)
		if err != nil {
			return nil, err
		}
		ew.nnz, ew.overlap = s.nnz, s.overlap
		expl = model.explicitTerms(ew)
		explWhy = because("%.3g wedges; %.3g non-zeros and %.3g features shared by two graphs, from %d triples drawn from %d graphs",
			ew.wedges, ew.nnz, ew.overlap, s.draws, s.graphs)
	}

	a := adviceOf(newEstimate(expl, explWhy), newEstimate(impl, implWhy), start)
	a.Choice = Explicit
	if a.Implicit.Seconds < a.Explicit.Seconds {
		a.Choice = Implicit
	}
	return a, nil
}

// speculates implements speculator: its advice, a scan of every graph's
// labels and degrees and, where that does not decide, a probe of a few
// graphs, runs on one thread, beside the explicit method on more, where
// the graphlet vectors fit speculateMaxBytes: at most a non-zero of 12
// bytes a wedge, and a graph has at most arcs·(Δ−1)/2 wedges.
func (k *SubgraphMatching) speculates(gs []*graph.Graph) bool {
	if threadsOr(k.Threads) < 2 || len(gs) < 2 {
		return false
	}
	var wedges float64
	for _, g := range gs {
		wedges += float64(len(g.Adj)) * float64(max(0, g.MaxDegree()-1)) / 2
	}
	return 12*wedges <= speculateMaxBytes
}

// csmScan is what one pass over the graphs' labels and degrees tells the
// csm advice. Five passes, one each for the two methods' label checks, the
// wedges, the index work and the association graphs' vertices, took 13.6
// µs of the 22 of the advice on MUTAG (a profile of 20000 calls); in one
// pass, the whole call takes 16.5 µs.
type csmScan struct {
	// fit reports whether every vertex and edge label is in
	// [0, 2^glLabelBits), which both methods' packed keys hold; where
	// not, the rest is not counted.
	fit bool
	// wedges holds each graph's wedges (see graphWedges), wedgeSum
	// their sum, and index the sum of indexWork.
	wedges          []float64
	wedgeSum, index float64
	// self and cross are the mean number of vertices of the association
	// graph of a graph with itself and of two distinct graphs, counted
	// exactly from the label histograms: a pair has Σ_l n_G(l)·n_H(l), so
	// all pairs of distinct graphs have (Σ_l S_l² − Σ_G Σ_l n_G(l)²)/2,
	// where S_l counts label l in all graphs.
	self, cross float64
}

// scanCSM returns the csmScan of gs.
func scanCSM(gs []*graph.Graph) csmScan {
	const bound = 1 << glLabelBits
	sc := csmScan{fit: true, wedges: make([]float64, len(gs))}
	// The counts are integers, summed in integers: in floating point,
	// each vertex's addition waited for the last (four cycles a step),
	// and the scan took 45 µs of MUTAG, all of csm's advice there.
	var total []int64 // S_l
	var count []int32 // n_G(l) of the current graph
	var squares int64 // Σ_G Σ_l n_G(l)²
	var logs arcLogs
	for i, g := range gs {
		lo, hi := g.VertexLabelRange()
		if !labelsWithin(lo, hi, bound) {
			return csmScan{}
		}
		if int(hi) >= len(count) {
			grown := int(hi) + 1 + len(count)/2
			total = append(total, make([]int64, grown-len(total))...)
			count = append(count, make([]int32, grown-len(count))...)
		}
		for _, l := range g.Labels {
			count[l]++
		}
		// Each label once: over the range, unless it is wide beside the
		// vertices. Label by label alone, whose counts are zero from a
		// label's second vertex on, the scan took 24 µs of MUTAG against
		// 17, and 130 of ENZYMES against 86 (in a loop).
		flush := func(l int32) {
			if c := count[l]; c != 0 {
				squares += int64(c) * int64(c)
				total[l] += int64(c)
				count[l] = 0
			}
		}
		if lo <= hi && int(hi-lo) < 2*g.N() {
			for l := lo; l <= hi; l++ {
				flush(l)
			}
		} else {
			for _, l := range g.Labels {
				flush(l)
			}
		}
		// The edge labels' range, which graph.Build keeps: with a scan
		// of the labels, csm's advice on 200 ENZYMES graphs took
		// 138–181 µs under runexp, with the range 79–105 (medians
		// of three series of 200 and 300 advices by turns).
		if lo, hi := g.EdgeLabelRange(); !labelsWithin(lo, hi, bound) {
			return csmScan{}
		}
		sc.wedges[i] = graphWedges(g)
		sc.wedgeSum += sc.wedges[i]
		sc.index += logs.work(g)
	}
	var all float64
	for _, s := range total {
		all += float64(s) * float64(s)
	}
	n := float64(len(gs))
	sc.self = float64(squares) / n
	if n > 1 {
		sc.cross = (all - float64(squares)) / 2 / (n * (n - 1) / 2)
	}
	return sc
}

// arcLogs holds indexWork by number of arcs, up to arcLogsMax, as
// computed: the graphs of a data set share a few hundred numbers, and
// math.Log2 for each graph took a third of csm's advice on MUTAG.
type arcLogs []float64

const arcLogsMax = 1 << 12

// work returns indexWork(g).
func (t *arcLogs) work(g *graph.Graph) float64 {
	a := len(g.Adj)
	if a < 2 || a >= arcLogsMax {
		return indexWork(g)
	}
	if a >= len(*t) {
		*t = append(*t, make([]float64, a+1-len(*t))...)
	}
	if (*t)[a] == 0 {
		(*t)[a] = indexWork(g)
	}
	return (*t)[a]
}

// indexWork returns a·log₂a for the a arcs of g, the work of sorting them
// into its label index.
func indexWork(g *graph.Graph) float64 {
	a := float64(len(g.Adj))
	if a < 2 {
		return a
	}
	return a * math.Log2(a)
}

// graphWedges returns Σ C(deg(v), 2) over the vertices of g.
func graphWedges(g *graph.Graph) float64 {
	var w int64
	off := g.Offsets
	for v := 1; v < len(off); v++ {
		d := int64(off[v] - off[v-1])
		w += d * (d - 1) / 2
	}
	return float64(w)
}

// assocGraph is a graph prepared for the association-graph probe: its
// vertices grouped by label, and each vertex's neighbours as sorted keys
// (edge label, neighbour label). Under Dirac kernels the degree of the
// association-graph vertex (u,v) is Σ_k a_u(k)·a_v(k), where a_u(k) counts
// the neighbours of u with key k, so the association graph's sizes come
// from merging these lists, without building it.
type assocGraph struct {
	labels []int32 // distinct vertex labels, ascending
	start  []int32 // verts[start[i]:start[i+1]] have labels[i]
	verts  []int32
	off    []int32
	keys   []uint64 // keys[off[u]:off[u+1]], sorted, are u's neighbours
}

func newAssocGraph(g *graph.Graph) assocGraph {
	n := g.N()
	a := assocGraph{off: g.Offsets, keys: make([]uint64, len(g.Adj))}
	for u := 0; u < n; u++ {
		lo, hi := g.Offsets[u], g.Offsets[u+1]
		for x := lo; x < hi; x++ {
			a.keys[x] = uint64(uint32(g.EdgeLabels[x]))<<32 | uint64(uint32(g.Labels[g.Adj[x]]))
		}
		slices.Sort(a.keys[lo:hi])
	}
	a.verts = make([]int32, n)
	for v := range a.verts {
		a.verts[v] = int32(v)
	}
	slices.SortStableFunc(a.verts, func(x, y int32) int { return cmp.Compare(g.Labels[x], g.Labels[y]) })
	for i, v := range a.verts {
		if i == 0 || g.Labels[v] != g.Labels[a.verts[i-1]] {
			a.labels = append(a.labels, g.Labels[v])
			a.start = append(a.start, int32(i))
		}
	}
	a.start = append(a.start, int32(n))
	return a
}

// assocDegree returns the degree of the association-graph vertex (u,v).
func assocDegree(g, h *assocGraph, u, v int32) float64 {
	x, y := g.keys[g.off[u]:g.off[u+1]], h.keys[h.off[v]:h.off[v+1]]
	var d int
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] < y[j]:
			i++
		case x[i] > y[j]:
			j++
		default:
			k := x[i]
			a, b := i, j
			for i < len(x) && x[i] == k {
				i++
			}
			for j < len(y) && y[j] == k {
				j++
			}
			d += (i - a) * (j - b)
		}
	}
	return float64(d)
}

// assocSample is how many association-graph vertices assocCount examines
// at most; larger association graphs are estimated from a uniform sample.
// Examining a vertex merges two neighbour lists, which costs about as much
// as building a few c-edges, so with many labels, where a pair's
// association graph has a few hundred vertices and fewer c-edges, the
// probe of a pair would cost a good part of the pair.
const assocSample = 32

// assocCount returns the sizes of the association graph of g and h.
func assocCount(g, h *assocGraph, r *rand.Rand) assocCounts {
	// The label groups both graphs have, and the vertex pairs of each.
	type group struct{ a, b int }
	var groups []group
	var cum []float64
	var nv float64
	for a, b := range equalAt(g.labels, h.labels) {
		groups = append(groups, group{a, b})
		nv += float64(g.start[a+1]-g.start[a]) * float64(h.start[b+1]-h.start[b])
		cum = append(cum, nv)
	}
	var sum, pairs float64
	visit := func(u, v int32) {
		d := assocDegree(g, h, u, v)
		sum += d
		pairs += d * (d - 1) / 2
	}
	if nv <= assocSample {
		for _, gr := range groups {
			for _, u := range g.verts[g.start[gr.a]:g.start[gr.a+1]] {
				for _, v := range h.verts[h.start[gr.b]:h.start[gr.b+1]] {
					visit(u, v)
				}
			}
		}
		return assocCounts{vertices: nv, edges: sum / 2, comparisons: pairs}
	}
	for s := 0; s < assocSample; s++ {
		i, _ := slices.BinarySearch(cum, r.Float64()*nv)
		i = min(i, len(groups)-1)
		gr := groups[i]
		us := g.verts[g.start[gr.a]:g.start[gr.a+1]]
		vs := h.verts[h.start[gr.b]:h.start[gr.b+1]]
		visit(us[r.IntN(len(us))], vs[r.IntN(len(vs))])
	}
	scale := nv / assocSample
	return assocCounts{vertices: nv, edges: scale * sum / 2, comparisons: scale * pairs}
}

// tripleSample is the result of sampleTriples.
type tripleSample struct {
	nnz, overlap  float64
	draws, graphs int
}

// The strata of sampleTriples: paths and triangles have patterns of very
// different frequencies, so each is estimated on its own.
const (
	stratumPath = iota
	stratumTriangle
	strata
)

// stratumSample is what the draws of one stratum of one graph tell.
type stratumSample struct {
	vec Vec // the patterns drawn, with their counts
	// draws is their number, triples the estimated number of the
	// graph's triples of the stratum, lambda the estimated mean count of
	// a pattern of the stratum's universe, and patterns the estimated
	// number of distinct patterns.
	draws, triples, lambda, patterns float64
}

// poissonPresent returns (1 − e^−λ)/λ, the fraction of a Poisson(λ) count
// that is the first occurrence of a pattern: 1 at λ = 0.
func poissonPresent(lambda float64) float64 {
	if lambda < 1e-9 {
		return 1
	}
	return -math.Expm1(-lambda) / lambda
}

// sampleTriples estimates the non-zeros of all graphs' feature vectors and
// the mean number of features two distinct graphs share, from connected
// triples drawn uniformly, with replacement, from up to 8 sample graphs,
// as many as budget seconds allow at the predicted cost of a draw (between
// 32 and 2048 a graph).
//
// A wedge is drawn with probability proportional to C(deg(centre), 2); a
// closed one (a triangle) is kept only from its smallest vertex, as the
// map counts it, so the kept draws are uniform over the connected triples.
// Each stratum (paths, triangles) of a graph is modelled as Poisson
// counts with mean λ over a universe of U equally likely patterns: T = Uλ
// triples, of which U(1 − e^−λ) distinct. Two draws of the stratum's
// triples hit the same pattern with probability q = Σ_P c_P²/T² =
// (λ + 1)/T, so λ comes from the pairs of equal draws, which are plenty
// after about √T draws (the birthday paradox). Two graphs share
// U(1 − e^−λa)(1 − e^−λb) patterns, and Σ_P c_a(P)c_b(P) = Uλaλb, which
// the pairs of equal draws across them estimate. With uniform labels this
// is what random graphs do; with skewed ones it counts too few patterns,
// which errs towards the explicit method, the faster one on such data.
// The non-zeros of all graphs are scaled from the sample by their wedges.
func sampleTriples(ctx context.Context, gs []*graph.Graph, wedgesOf []float64, budget, nsPerWedge float64, r *rand.Rand) (tripleSample, error) {
	n := len(gs)
	var sample []int
	for _, j := range r.Perm(n) {
		if wedgesOf[j] > 0 {
			sample = append(sample, j)
			if len(sample) == 8 {
				break
			}
		}
	}
	if len(sample) == 0 {
		return tripleSample{}, nil // no graph has a connected triple
	}
	// A draw costs a binary search more than a wedge of the map and
	// interns into a small table: about three wedges.
	draws := int(budget / (3 * nsPerWedge * 1e-9) / float64(len(sample)))
	draws = min(max(draws, 32), 2048)

	var ctr [strata]glCounter
	ss := make([][strata]stratumSample, len(sample))
	var cum []float64
	var sampleWedges, sampleNNZ float64
	for i, j := range sample {
		if err := ctx.Err(); err != nil {
			return tripleSample{}, err
		}
		g := gs[j]
		cum = cum[:0]
		var w float64
		for v := 0; v < g.N(); v++ {
			d := float64(g.Degree(v))
			w += d * (d - 1) / 2
			cum = append(cum, w)
		}
		kept, drawn := 0, 0
		// Triangles are kept one time in three, so the draws that
		// count are bounded by the kept ones, the drawn ones by a
		// generous multiple, for graphs made of triangles.
		for kept < draws && drawn < 4*draws {
			drawn++
			// The first vertex whose cumulative count exceeds at:
			// its own count is positive.
			at := r.Float64() * w
			c, _ := slices.BinarySearch(cum, at)
			for cum[c] <= at {
				c++
			}
			lo := g.Offsets[c]
			deg := int(g.Offsets[c+1] - lo)
			p := r.IntN(deg)
			q := r.IntN(deg - 1)
			if q >= p {
				q++
			}
			p, q = min(p, q), max(p, q)
			ia, ib := lo+int32(p), lo+int32(q)
			x, y := g.Adj[ia], g.Adj[ib]
			lc := g.Labels[c]
			exy, adjacent := edgeLabel(g, x, y)
			switch {
			case !adjacent:
				ctr[stratumPath].add(glPathKey(g.Labels[x], g.EdgeLabels[ia], lc, g.EdgeLabels[ib], g.Labels[y]))
			case int32(c) < x:
				ctr[stratumTriangle].add(glTriangleKey([3]int32{lc, g.Labels[x], g.Labels[y]},
					[3]int32{g.EdgeLabels[ia], exy, g.EdgeLabels[ib]}))
			default:
				continue
			}
			kept++
		}
		for st := range ctr {
			var v Vec
			v.IDs, v.Vals = ctr[st].acc.flush(nil, nil)
			x := &ss[i][st]
			x.vec = v
			x.draws = sum(v.Vals)
			x.triples = w * x.draws / float64(drawn)
			if x.draws >= 2 {
				var equal float64
				for _, k := range v.Vals {
					equal += k * (k - 1)
				}
				x.lambda = max(equal/(x.draws*(x.draws-1))*x.triples-1, 0)
			}
			x.patterns = max(x.triples*poissonPresent(x.lambda), float64(v.Len()))
			sampleNNZ += x.patterns
		}
		sampleWedges += w
	}
	var shared float64
	var pairs int
	for a := range ss {
		for b := a + 1; b < len(ss); b++ {
			for st := range strata {
				x, y := &ss[a][st], &ss[b][st]
				if x.draws == 0 || y.draws == 0 {
					continue
				}
				cc := Dot(x.vec, y.vec) * (x.triples / x.draws) * (y.triples / y.draws)
				shared += min(cc*poissonPresent(x.lambda)*poissonPresent(y.lambda), x.patterns, y.patterns)
			}
			pairs++
		}
	}
	s := tripleSample{graphs: len(sample), draws: len(sample) * draws}
	var wedges float64
	for _, w := range wedgesOf {
		wedges += w
	}
	s.nnz = sampleNNZ * wedges / sampleWedges
	if pairs > 0 {
		s.overlap = shared / float64(pairs)
	}
	return s, nil
}

// csmSet is one synthetic data set of a calibration design: the
// generator of Section 5.4.1 with the given alphabet, mean size and edge
// probability (0 for the paper's 60 and 0.5), d graphs.
type csmSet struct {
	labels int
	mean   float64
	p      float64
	d      int
}

func (s csmSet) graphs() ([]*graph.Graph, error) {
	ds, err := synth.Subgraph(synth.SubgraphConfig{Labels: s.labels, MeanVertices: s.mean, EdgeProb: s.p}, s.d, 1)
	if err != nil {
		return nil, err
	}
	return ds.Graphs, nil
}

// csmDesign is a calibration design: the data sets each phase is timed
// on, chosen so that each constant dominates somewhere, and the runs of
// each measurement, of which the fastest counts.
type csmDesign struct {
	maps, merge, inverted, pairs []csmSet
	reps                         int
}

// fullCSMDesign spans the label alphabets of Figure 9 and adds shapes
// that isolate the implicit constants: tiny graphs (the per-pair
// overhead), graphs without edges (association-graph vertices), few labels
// (many c-neighbour pairs per c-edge) and many (few), and large graphs (the
// per-graph preparation). All are as dense as the paper's: on sparse
// graphs the clique enumeration's branches are predictable and its
// comparisons faster, which would only blur the constants.
func fullCSMDesign() csmDesign {
	return csmDesign{
		maps: []csmSet{
			{labels: 1, d: 12}, {labels: 3, d: 12}, {labels: 10, d: 40},
			{labels: 15, d: 60}, {labels: 65, d: 120},
		},
		merge:    []csmSet{{labels: 4, d: 40}, {labels: 5, d: 60}, {labels: 10, d: 30}},
		inverted: []csmSet{{labels: 10, d: 60}, {labels: 20, d: 60}, {labels: 65, d: 60}},
		pairs: []csmSet{
			{labels: 65, mean: 10, d: 40},
			{labels: 1, mean: 40, p: 1e-6, d: 10},
			{labels: 3, mean: 40, d: 4},
			{labels: 2, mean: 30, d: 6},
			{labels: 10, d: 40},
			{labels: 20, d: 60},
			{labels: 65, d: 60},
			{labels: 65, mean: 100, d: 6},
		},
		reps: 3,
	}
}

// quickCSMDesign is a smaller design of the same kinds, timed once.
func quickCSMDesign() csmDesign {
	return csmDesign{
		maps:     []csmSet{{labels: 1, d: 8}, {labels: 10, d: 20}, {labels: 65, d: 40}},
		merge:    []csmSet{{labels: 5, d: 40}},
		inverted: []csmSet{{labels: 10, d: 40}, {labels: 65, d: 40}},
		pairs: []csmSet{
			{labels: 65, mean: 10, d: 30},
			{labels: 1, mean: 40, p: 1e-6, d: 8},
			{labels: 3, mean: 40, d: 3},
			{labels: 10, d: 30},
			{labels: 65, mean: 100, d: 4},
		},
		reps: 1,
	}
}

// Calibrate implements Calibrator: it measures the constants of the cost
// model (see CSMCostDefaults) on synthetic data sets across the label
// alphabets of Figure 9 and beyond (see fullCSMDesign), fitting each
// phase's constants to its times by least squares of relative errors, the
// fastest of three runs each. It takes about ten seconds on 2 cores, twice
// that when they are busy.
func (k *SubgraphMatching) Calibrate(ctx context.Context) (Costs, error) {
	return calibrateCSM(ctx, fullCSMDesign())
}

// CalibrateQuick implements QuickCalibrator on a smaller design, timed
// once: a few seconds.
func (k *SubgraphMatching) CalibrateQuick(ctx context.Context) (Costs, error) {
	return calibrateCSM(ctx, quickCSMDesign())
}

func calibrateCSM(ctx context.Context, d csmDesign) (Costs, error) {
	c := Costs{}

	// The maps: wedges and non-zeros.
	var maps fitRows
	for _, set := range d.maps {
		gs, err := set.graphs()
		if err != nil {
			return nil, err
		}
		var nnz float64
		took, err := fastest(d.reps, func() error {
			// A Graphlet without Threads maps on one thread.
			vecs, _, err := (&Graphlet{}).FeatureVectors(ctx, gs)
			nnz = 0
			for _, v := range vecs {
				nnz += float64(v.Len())
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		var wedges float64
		for _, g := range gs {
			wedges += graphWedges(g)
		}
		t := float64(took.Nanoseconds())
		maps.add(t, t, wedges, nnz)
	}
	if err := maps.fitInto(c, "feature maps", costCSMWedge, costCSMNonzero); err != nil {
		return nil, err
	}

	// The dot products of each scheme on the data it is chosen for,
	// weighted by the automorphisms as the kernel's are.
	var merge, inverted fitRows
	for _, set := range append(slices.Clip(d.merge), d.inverted...) {
		gs, err := set.graphs()
		if err != nil {
			return nil, err
		}
		vecs, aut, err := (&Graphlet{}).FeatureVectors(ctx, gs)
		if err != nil {
			return nil, err
		}
		w := make([]float64, len(aut))
		for id, a := range aut {
			w[id] = float64(a)
		}
		var nnz float64
		for _, v := range vecs {
			nnz += float64(v.Len())
		}
		n := float64(len(vecs))
		if slices.Contains(d.merge, set) {
			took, err := fastest(d.reps, func() error {
				_, err := gramMerge(ctx, vecs, w, 1)
				return err
			})
			if err != nil {
				return nil, err
			}
			t := float64(took.Nanoseconds())
			merge.add(t, t, (n+1)*nnz)
			continue
		}
		df := make([]int32, len(aut))
		for _, v := range vecs {
			for _, id := range v.IDs {
				df[id]++
			}
		}
		postings := n*n/2 + nnz
		for _, x := range df {
			postings += float64(x) * float64(x-1) / 2
		}
		took, err := fastest(d.reps, func() error {
			// The document frequencies are counted as gramFromVecs
			// does; gramInverted overwrites them.
			clear(df)
			for _, v := range vecs {
				for _, id := range v.IDs {
					df[id]++
				}
			}
			_, err := gramInverted(ctx, vecs, w, df, 1)
			return err
		})
		if err != nil {
			return nil, err
		}
		t := float64(took.Nanoseconds())
		inverted.add(t, t, postings, nnz)
	}
	if err := merge.fitInto(c, "merge joins", costCSMMergeStep); err != nil {
		return nil, err
	}
	if err := inverted.fitInto(c, "posting lists", costCSMPosting, costCSMPostingNNZ); err != nil {
		return nil, err
	}

	// The implicit method, whose report counts the association graphs.
	var pairs fitRows
	for _, set := range d.pairs {
		gs, err := set.graphs()
		if err != nil {
			return nil, err
		}
		var rep *Report
		took, err := fastest(d.reps, func() error {
			var err error
			// One thread: the constants are single-thread costs.
			_, rep, err = (&SubgraphMatching{}).implicit(ctx, gs, 1)
			return err
		})
		if err != nil {
			return nil, err
		}
		var index float64
		for _, g := range gs {
			index += indexWork(g)
		}
		t := float64(took.Nanoseconds())
		pairs.add(t, t, index, float64(rep.Pairs), float64(rep.ProductVertices), float64(rep.ProductEdges), float64(rep.Comparisons))
	}
	if err := pairs.fitInto(c, "association graphs", costCSMIndex, costCSMPair, costCSMVertex, costCSMEdge, costCSMComparison); err != nil {
		return nil, err
	}
	return c, nil
}
