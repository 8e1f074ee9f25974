package kernels

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gkbench/gkbench/graph"
)

// The sampling advisor's first sample holds n/sampleProbeShare graphs, but
// at least sampleProbeMin and at most sampleProbeStart: a sample of m graphs
// costs about m/n of the explicit run, whose maps are per graph, so that 8
// graphs of MUTAG (188) took 4% of it before the implicit probe began. With
// the race of adviseBySampling, samples of 8 graphs of 100 from ENZYMES took
// 0.76–0.90 ms of probes for sp, against 0.37–0.46 ms from 4 (an explicit
// run of 4.3 ms). On 60 graphs, a sample of 4 is 6.7% of the explicit
// maps alone, and GraphHopper's implicit probe computes the same hop
// matrices: so data sets under 160 graphs start from 2, which halved the
// probes of the quick attributed grid and chose as well in its closest
// cells (ENZYMES gh at 64 binning iterations, 1.2× apart, and PROTEINS sp
// at 16, 1.6×: right in 14 and 13 of 15 seeds, against 13 and 14 from
// 4). A pause of the machine weighs more, though: on 100 graphs of known
// costs, a pause of about 80 µs in an implicit probe of 3 pairs of 5 µs
// made its prediction six times too high, in 1 run of 200 (see
// TestSamplingAdvisorStops). Where the
// ranking is close the sample grows. (Timed on
// 4 graphs and scaled by n(n+1)/20, the dot products carried a Gram
// matrix's fixed cost, and predicted gi on those 100 graphs at 13 ms for
// a run of 4 ms; they are counted now, see vecStats.) A sample must reach
// sampleDecideMin graphs before a decisive ranking stops the probes: the
// Gram matrices of 8 graphs have 36 pairs, few enough that one odd graph or
// a pause of the machine can swing a ranking, so a decisive one is confirmed
// on 136 pairs, where the budget allows.
const (
	sampleProbeMin   = 2
	sampleProbeStart = 8
	sampleProbeShare = 40
	sampleDecideMin  = 16
	// floorMargin is how far below a floor, a lower bound from counts,
	// the explicit prediction of a sample must be for the floor to
	// decide (see prober.both): the floor is priced by the cost
	// constants, which may be another machine's, and the defaults
	// price a 2-core AMD EPYC VM's work at 1.2–2 times its own
	// constants, most of them.
	floorMargin = 2
	// floorWhy ends the reason of an implicit prediction that a floor
	// decided, after floorMargin.
	floorWhy = " times the explicit prediction or more, which decides"
	// cutFactor is how much slower than the implicit prediction a
	// stopped explicit probe proves the explicit method.
	cutFactor = 2
	// probeFloor is the least time limit of any probe.
	probeFloor = 100 * time.Microsecond
)

// sampleCost is a method's time on a sample, split as its Report splits it
// into work per graph and work per pair. An explicit probe's pairs, its dot
// products, are counted instead (see vecStats).
type sampleCost struct {
	perGraph, perPair time.Duration
	// vecs, of an explicit probe, counts the sample's feature vectors.
	vecs *vecStats
}

// explicitSampleCost splits an explicit Report: the maps (and the
// preparation, e.g. refinement, scaling, GraphHopper's hop matrices, all
// of it per graph) against the dot products of all pairs, which its
// feature vectors' counts price.
func explicitSampleCost(r *Report) sampleCost {
	return sampleCost{
		perGraph: r.TPrep + r.TPhi + r.TWDPG,
		vecs:     &vecStats{nnz: float64(r.FeatureNNZ), products: float64(r.FeatureProducts), features: float64(r.Features)},
	}
}

// implicitSampleCost splits an implicit Report: TWDPG holds per-graph work
// wherever the kernels of this advisor fill it (the shortest-path kernel's
// distances and path groups, GraphHopper's hop matrices; the graph
// invariant kernel leaves it zero), and TWalks the pairwise evaluation.
func implicitSampleCost(r *Report) sampleCost {
	return sampleCost{perGraph: r.TPrep + r.TWDPG + r.TPhi, perPair: r.TWalks + r.TDot}
}

// scale predicts the time on a set of graphs (all n, or a larger sample)
// from c, measured on the sample of m: the per-graph work by the ratio of
// their weights to the sample's (see sizeWeights), the pairs' likewise,
// and for an explicit probe the dot products on n graphs as model prices
// them.
func (c sampleCost) scale(from, to weightSums, m, n int, model walkModel) float64 {
	t := c.perGraph.Seconds() * to.graphs / from.graphs
	if c.vecs != nil {
		return t + sumTerms(c.vecs.dotTerms(model, m, n))
	}
	return t + c.perPair.Seconds()*to.pairs/from.pairs
}

// terms shows a prediction as the sampled time per unit of weight of a
// graph and of a pair times the weights of the data set, or the dot
// products' terms. The sampled times' names are in parentheses: they are
// measurements, not constants of Costs.
func (c sampleCost) terms(w sizeWeights, from, to weightSums, m, n int, model walkModel) []CostTerm {
	ts := []CostTerm{{Name: "(sampled time per graph weight)", Count: to.graphs, Unit: fmt.Sprintf("graphs' N^%g", w.graph), NS: float64(c.perGraph.Nanoseconds()) / from.graphs}}
	if c.vecs != nil {
		return append(ts, c.vecs.dotTerms(model, m, n)...)
	}
	return append(ts, CostTerm{Name: "(sampled time per pair weight)", Count: to.pairs, Unit: fmt.Sprintf("pairs' (N_i·N_j)^%g", w.pair), NS: float64(c.perPair.Nanoseconds()) / from.pairs})
}

// sizeWeights are the exponents of a kernel's work in the vertices N of
// its graphs: its work on a graph, for either method, grows about as
// N^graph, and its implicit work on a pair as (N_i·N_j)^pair. The sampling
// advisor scales a sample's times by the weights of all graphs over the
// sample's, a ratio estimator, rather than by their numbers: where the
// sizes of graphs are heavy-tailed, as in PROTEINS (4 to 620 vertices), a
// few random graphs mostly miss the large ones, which carry the time.
// Over 2000 random samples of 4 PROTEINS graphs, the maps of the
// shortest-path kernel scaled by n/m came to 0.14–1.90 of their true
// total (10th to 90th percentile), by N² to 0.99–1.28; on ENZYMES
// 0.54–1.47 and 0.76–1.39. The exponents are the slopes of the log time
// of a graph's Gram matrix by each method against its log size (PROTEINS
// and ENZYMES, the hat kernel), rounded up to a half towards the counts
// of the work, which a call's fixed cost flattens on small graphs: sp 1.4
// explicit (N² paths), and 2.2–2.7 for a graph with itself implicitly
// (N² paths compared with N²), so 1.5 a graph of a pair; gi 0.7 (N
// vertices) and 1.6 (N·N vertex pairs); gh 1.8–2.0 (N² entries of the
// hop matrices) and 2.4–2.6. Zero exponents give the plain ratios n/m
// and n(n+1)/(m(m+1)).
type sizeWeights struct {
	graph, pair float64
}

// weightSums are the sums of sizeWeights over a set of graphs: of the
// graphs' weights, and of the products of the pairs' i ≤ j.
type weightSums struct {
	graphs, pairs float64
}

// sums returns the sums of w over gs. A graph without vertices weighs as
// one of one vertex, so that no sample weighs nothing.
func (w sizeWeights) sums(gs []*graph.Graph) weightSums {
	var g, p, p2 float64
	for _, h := range gs {
		nv := float64(max(h.N(), 1))
		g += sizePow(nv, w.graph)
		x := sizePow(nv, w.pair)
		p += x
		p2 += x * x
	}
	return weightSums{graphs: g, pairs: (p*p + p2) / 2}
}

// prefix returns the sums of w's graph weights over gs[0] to gs[k], for
// every k.
func (w sizeWeights) prefix(gs []*graph.Graph) []float64 {
	ps := make([]float64, len(gs))
	var sum float64
	for k, h := range gs {
		sum += sizePow(float64(max(h.N(), 1)), w.graph)
		ps[k] = sum
	}
	return ps
}

// sizePow returns nv^e, by products and a square root for the exponents
// the advisors use: math.Pow, by a logarithm and an exponential, took a
// third of the shortest-path advice on MUTAG on two threads (15 of
// 46 µs), which weighs all 188 graphs twice and the samples again.
func sizePow(nv, e float64) float64 {
	switch e {
	case 0:
		return 1
	case 1:
		return nv
	case 1.5:
		return nv * math.Sqrt(nv)
	case 2:
		return nv * nv
	}
	return math.Pow(nv, e)
}

// least is the least factor by which the work on to exceeds that on
// from, the sample: a probe stopped at a limit proves the method's time
// on to at least the limit times it.
func (from weightSums) least(to weightSums) float64 {
	return min(to.graphs/from.graphs, to.pairs/from.pairs)
}

// vecStats counts a sample's feature vectors: their non-zeros, their
// posting products Σ_f df_f(df_f+1)/2 and their features (Report's
// FeatureNNZ, FeatureProducts and Features).
//
// Their dot products are counted, not timed: those of a few graphs cost
// little beside a Gram matrix's fixed cost, which timed and scaled by
// n(n+1)/(m(m+1)) made the dot products of 188 MUTAG graphs 10 times
// too dear for GraphHopper (12 ms for 1.2 ms) and those of 600 ENZYMES
// graphs 4 to 6 times for it and for GI.
type vecStats struct {
	nnz, products, features float64
}

// dotTerms prices the dot products of n graphs' vectors, scaled from those
// of m sampled graphs, with the walk kernel's constants of gramFromVecs,
// which every kernel's explicit method shares (see dotTerms). The
// non-zeros and the features scale by n/m, the latter a bound (see
// docFreqs.growth). Σ_f df_f(df_f−1)/2 counts the pairs of distinct graphs
// that share a feature: if each graph held feature f by itself with
// probability p_f, its mean would be n(n−1)/2 · Σ_f p_f², of which the
// sample's count over m(m−1)/2 is an unbiased estimate. Where the
// features are too many to scatter, merge joins take at most |a|+|b|
// steps, and each is taken for a turn: a bound.
func (v *vecStats) dotTerms(model walkModel, m, n int) []CostTerm {
	fm, fn := float64(m), float64(n)
	nnz := v.nnz * fn / fm
	shared := v.products - v.nnz
	if m > 1 {
		shared *= fn * (fn - 1) / (fm * (fm - 1))
	}
	ts, _ := dotTerms(nil, model, fn, nnz, 2*shared+nnz, v.features*fn/fm, func() (float64, float64) {
		steps := (fn + 1) * nnz
		return steps, steps
	})
	return ts
}

// adviseBySampling implements Advisor for kernels whose methods' costs are
// hard to count but cheap to measure on a few graphs: it computes the Gram
// matrix of a random sample of m graphs by each method and scales the
// times of its Report to all n graphs, except the explicit dot products,
// which the walk kernel's constants in opt.Costs price from the sample's
// feature vectors (see sampleCost.scale and vecStats). The times of one
// sample are noisy and the work of graphs varies, so the sample doubles
// while the probes so far and the next one, as predicted from the last,
// stay within probeShare of the faster method's predicted time. It stops
// early once one method is predicted decisive times faster on at least
// sampleDecideMin graphs, or when the sample holds every graph. Samples
// are nested: each doubling adds graphs to the previous sample, drawn by
// opt.Seed.
//
// Either method can be far the slower, and a probe of the slower one
// alone can cost more than the faster run: on 200 ENZYMES graphs, the
// implicit shortest-path kernel took 8 ms on 8 graphs, whose explicit
// run takes 12 ms on all. So once one probe of a sample has finished, the
// other runs until its time proves at least the prediction that decides:
// the finished method's for an implicit probe, and cutFactor times it for
// an explicit one (see cutFactor and clockLimit). A stopped probe makes
// its prediction a lower bound, which decides. On one thread the first
// two probes take turns until one finishes (see prober.race), and later
// samples run the faster method first, without a limit (its cost is
// within the budget), and the other until it decides. On more, both
// probes of a sample run at once (see prober.atOnce).
//
// The probes compute the same as the methods on n graphs, one thread
// each, so the advice holds for one thread, as the kernels compute. The
// run spreads over threads goroutines and each probe does not, so the
// budget that grows the sample is probeShare/threads of the faster
// prediction.
//
// A floor, where the kernel counts one (its seconds above zero), bounds
// the implicit method's time from below without a sample (see
// GraphInvariant.screen). In the first sample's probes it stands for the
// implicit probe's bound until that proves more, and where the explicit
// probe finishes with a prediction floorMargin times below it, it
// decides, as an implicit probe stopped there would have (see
// prober.both). Where the budget allows, the losing method's probe of
// the last sample runs a second time, and the faster of the two counts
// (see the second look below). The advice's probe time counts from start,
// which precedes the counts.
func adviseBySampling(ctx context.Context, k Kernel, gs []*graph.Graph, threads int, w sizeWeights, opt AdviseOptions, floor estimate, start time.Time) (*Advice, error) {
	n := len(gs)
	if n == 0 {
		return nil, fmt.Errorf("%s kernel: advice on no graphs", k.Name())
	}
	mark := markRuntime()
	model := newWalkModel(opt.Costs)
	r := rand.New(rand.NewPCG(opt.Seed, 0x6164766963650002)) // "advice", second advisor
	sample := newGraphSample(r, n)
	all := w.sums(gs)
	// first returns the sample's first m graphs.
	first := func(m int) []*graph.Graph {
		sub := make([]*graph.Graph, m)
		for i := range sub {
			sub[i] = gs[sample.at(i)]
		}
		return sub
	}
	// The run spreads over the threads and the probes do not, so the
	// first sample shrinks with them, as the budget does: on two
	// threads, gh's probes on MUTAG went from 100–110 to 64–70 µs of a
	// 2.7 ms run, and sp's from 46–55 to 34–44 µs of 0.68 ms in three
	// rounds of four (medians of 30 runs), choosing as before.
	m := min(n, max(sampleProbeMin, min(sampleProbeStart, n/(sampleProbeShare*max(threads, 1)))))
	sub := first(m)
	smp := w.sums(sub)
	// deciding returns the prediction on all graphs that decides once
	// done's probe has cost c: done's prediction for an implicit probe,
	// and cutFactor times it for an explicit one.
	deciding := func(done Method, c sampleCost) float64 {
		f := c.scale(smp, all, m, n, model)
		if done == Implicit {
			f *= cutFactor
		}
		return f
	}
	// stoppedAt returns a cost on the sample that scales to bound, the
	// lower bound on all graphs that a stopped probe proved, per graph,
	// so that the advice's terms show the bound.
	stoppedAt := func(bound float64) (sampleCost, float64) {
		return sampleCost{perGraph: time.Duration(bound * smp.graphs / all.graphs * 1e9)}, bound
	}
	shared := &probeShared{}
	var (
		p                *prober
		sizes            []int
		expl, impl       sampleCost
		pe, pi           float64
		cutExpl, cutImpl bool // a probe was stopped: its prediction is a lower bound
		floored          bool // the floor decided the implicit prediction
	)
	for {
		sizes = append(sizes, m)
		var (
			st  probeStage
			err error
		)
		p = &prober{ctx: ctx, k: k, sub: sub, scale: newProbeScale(smp, all, w.prefix(sub)), deciding: deciding, shared: shared}
		if len(sizes) == 1 {
			p.floor = floor.seconds
		}
		switch {
		case threads > 1:
			st, err = p.atOnce()
		case len(sizes) == 1:
			st, err = p.race()
		case pe <= pi:
			st, err = p.inTurn(Explicit)
		default:
			st, err = p.inTurn(Implicit)
		}
		if err != nil {
			return nil, err
		}
		expl, impl = st.costs[0], st.costs[1]
		floored = st.floored
		if st.stops[1] > 0 {
			cutImpl = true
			impl, pi = stoppedAt(st.stops[1])
			pe = expl.scale(smp, all, m, n, model)
			break
		}
		if st.stops[0] > 0 {
			cutExpl = true
			expl, pe = stoppedAt(st.stops[0])
			pi = impl.scale(smp, all, m, n, model)
			break
		}
		pe, pi = expl.scale(smp, all, m, n, model), impl.scale(smp, all, m, n, model)
		fast, slow := min(pe, pi), max(pe, pi)
		if m == n || (slow >= decisive*fast && m >= sampleDecideMin) {
			break
		}
		next := min(2*m, n)
		nextSub := first(next)
		// The next probe's cost is both methods' times on the next
		// sample, predicted from this one like the times on n.
		to := w.sums(nextSub)
		cost := time.Since(start).Seconds() + expl.scale(smp, to, m, next, model) + impl.scale(smp, to, m, next, model)
		if cost > probeShare*fast/float64(threads) {
			break
		}
		m, sub, smp = next, nextSub, to
	}
	// A second look at the losing method, where the budget allows twice
	// what the probes took so far: a probe of a few graphs takes a
	// millisecond or less, and a collection of the heap or a pause of
	// the machine in it, which only ever adds, can multiply it. The
	// explicit probe of gi with 64 binning iterations on 2 of the 100
	// ENZYMES graphs of TestSamplingAdvisor took 0.35–0.65 ms in three
	// runs of four and 1.5–2.9 ms in the fourth, when the heap was
	// collected (all of them 2.7–3.6 ms with collection off, the memory
	// fresh), and predicted 0.05–0.52 s for a run of 64–80 ms: the
	// implicit method (160 ms) in 2 of 12 advices on one thread. A
	// stopped probe is no safer: on the 60 PROTEINS graphs of the quick
	// attributed grid, sp with 64 binning iterations (implicit 0.17–0.23
	// s, explicit 4.1–4.9 s), the probes of 5 advices in 100 took 17–46
	// ms where they take 6–14, the explicit one's maps allocating
	// hundreds of megabytes beside them, and the implicit probe, stopped
	// at an explicit prediction of 5.6–13.7 s, gave way to the explicit
	// method, 20 times slower. Run again, the loser's probe keeps the
	// smaller of its two predictions, and stops, as before, where it
	// proves the winner's deciding one: the explicit method in none of
	// 100 advices there. Where the implicit probe is stopped because the
	// explicit method wins by far, the commonest ending, its second run
	// costs little: the advice of sp and gh on MUTAG took as long with it
	// as without (BenchmarkSamplingAdvise, four rounds by turns).
	//
	// Where a collection of the heap ended during the probes, or pages
	// faulted in by the dozen (see runtimeMark.disturbed), the second look
	// runs whatever its budget, which the disturbance spent, and runs the
	// winner's probe again too, first, which may have taken it; after
	// faults, it collects the heap first, so that the probes run again in
	// the memory that the first ones left, not in pages as fresh. gi's
	// explicit probe of 2 ENZYMES graphs with 64 binning iterations, 0.7
	// ms undisturbed, took 2–3.6 ms over a collection, or 2.3–6.4 ms over
	// 107–394 faulted pages, and predicted 0.13–0.24 s for a run of 40–90
	// ms, past what allowed a second look: the implicit method (160–230
	// ms) in 9 of 240 advices after timing both methods, as
	// TestSamplingAdvisor does, and in 3 of 240 with memory handed back by
	// MADV_FREE (see ReexecMadvFree). Now in none of 800, nor of 200 with
	// MADV_DONTNEED; a second look at the loser alone left 2 of 800, and
	// one at both without the collection 5.
	var again []Method // the methods whose probes ran twice and took the second
	// take keeps probe stage st's cost of meth if it finished and
	// predicts less than meth's prediction, or meth's probe was stopped.
	take := func(meth Method, st probeStage) {
		i := methodIndex(meth)
		if st.stops[i] > 0 {
			return
		}
		c := st.costs[i]
		switch f := c.scale(smp, all, m, n, model); {
		case meth == Explicit && (cutExpl || f < pe):
			expl, pe, cutExpl = c, f, false
		case meth == Implicit && (cutImpl || f < pi):
			impl, pi, cutImpl = c, f, false
		default:
			return
		}
		again = append(again, meth)
	}
	budget := 2*time.Since(start).Seconds() <= probeShare*min(pe, pi)/float64(threads)
	disturbed, faulted := mark.disturbed()
	if loser := otherMethod(choice(cutExpl, cutImpl, pe, pi)); !floored && (budget || disturbed) {
		if faulted {
			runtime.GC()
		}
		if disturbed {
			// The winner's probe may have taken the disturbance
			// instead: it runs again first, whole (a winner's
			// probe is never stopped), so that the loser's
			// decides against a clean prediction.
			winner := otherMethod(loser)
			st, err := p.note(winner, p.newLimit(), probeStage{})
			if err != nil {
				return nil, err
			}
			take(winner, st)
		}
		var (
			st  probeStage
			err error
		)
		if loser == Explicit {
			st, err = p.decide(Explicit, deciding(Implicit, impl), st)
		} else {
			st, err = p.decide(Implicit, deciding(Explicit, expl), st)
		}
		if err != nil {
			return nil, err
		}
		take(loser, st)
	}
	joined := reason(func() string {
		s := make([]string, len(sizes))
		for i, m := range sizes {
			s[i] = strconv.Itoa(m)
		}
		return strings.Join(s, ", ")
	})
	how := because("Gram matrices of nested random samples of %s of %d graphs, the last scaled", joined, n)
	switch len(again) {
	case 1:
		how = because("%s, its %s probe the faster of two", how, again[0])
	case 2:
		// Each named as one alone is, which TestSamplingAdvisorSecondLook
		// looks for.
		how = because("%s, its %s probe the faster of two and its %s probe the faster of two", how, again[0], again[1])
	}
	whyExpl := because("%s: maps and preparation by the graphs' N^%g, dot products priced from the sample's non-zeros and shared features", how, w.graph)
	whyImpl := because("%s: per-graph preparation by the graphs' N^%g, pairs by their (N_i·N_j)^%g", how, w.graph, w.pair)
	if cutExpl {
		whyExpl = because("at least: the explicit probe on %d graphs was stopped once its time, scaled, passed twice the implicit prediction", m)
	}
	if cutImpl {
		whyImpl = because("at least: the implicit probe on %d graphs was stopped once its time, scaled, passed the explicit prediction", m)
	}
	implTerms := impl.terms(w, smp, all, m, n, model)
	if floored {
		pi, whyImpl, implTerms = floor.seconds, because("%s; %g%s", floor.why, float64(floorMargin), floorWhy), floor.terms
	}
	a := &Advice{
		Explicit: Prediction{Explicit, pe, whyExpl},
		Implicit: Prediction{Implicit, pi, whyImpl},
		// Prep stays zero: the probes prepare their samples as part of
		// their Gram matrices, and Probe counts it.
		Probe: time.Since(start),
		Terms: MethodTerms{Explicit: expl.terms(w, smp, all, m, n, model), Implicit: implTerms},
	}
	a.Choice = choice(cutExpl, cutImpl, pe, pi)
	return a, nil
}

// runtimeMark is how many collections of the heap had ended and how many
// pages the process had faulted in at a moment, which disturbed compares
// with later counts.
type runtimeMark struct {
	gcs    uint64
	faults int64
	ok     bool // the fault count is known
}

// disturbFaults is the number of page faults since a runtimeMark from
// which disturbed counts them as a disturbance: on this VM a page that the
// runtime had handed back to the system costs 12–15 µs to fault in again,
// and the advices of TestSamplingAdvisor's gi case took 0–13 faults where
// their probes ran undisturbed, 107–394 where they chose wrong.
const disturbFaults = 64

// gcCycles is the runtime/metrics name of the count of collections ended.
const gcCycles = "/gc/cycles/total:gc-cycles"

// markRuntime returns the counts of now.
func markRuntime() runtimeMark {
	s := [1]metrics.Sample{{Name: gcCycles}}
	metrics.Read(s[:])
	m := runtimeMark{}
	if s[0].Value.Kind() == metrics.KindUint64 {
		m.gcs = s[0].Value.Uint64()
	}
	m.faults, m.ok = minorFaults()
	return m
}

// disturbed reports whether a collection of the heap ended since m, or
// the process faulted in disturbFaults pages or more: what a probe timed
// then says more of the runtime and the system than of the method.
func (m runtimeMark) disturbed() (disturbed, faulted bool) {
	now := markRuntime()
	faulted = m.ok && now.ok && now.faults-m.faults >= disturbFaults
	return faulted || now.gcs > m.gcs, faulted
}

// choice returns the method that the sampling advisor's predictions pe and
// pi choose, cutExpl and cutImpl telling that a probe was stopped. A
// stopped explicit probe decides by itself: its lower bound is cutFactor
// times the implicit prediction. So does a stopped implicit one, whose
// lower bound is the explicit prediction.
func choice(cutExpl, cutImpl bool, pe, pi float64) Method {
	if !cutImpl && (pi < pe || cutExpl) {
		return Implicit
	}
	return Explicit
}

// probeStage is what the probes of one sample found, explicit first: a
// method's cost, or, if its probe was stopped, the lower bound on all
// graphs in seconds that the stop proved (zero if it was not stopped).
type probeStage struct {
	costs [2]sampleCost
	stops [2]float64
	// floored reports that the prober's floor decided: the implicit
	// probe was stopped, or never ran, and its stop is the floor.
	floored bool
}

// methodIndex is m's index in a probeStage, and methodSplit how its
// Report splits.
func methodIndex(m Method) int {
	if m == Explicit {
		return 0
	}
	return 1
}

func methodSplit(m Method) func(*Report) sampleCost {
	if m == Explicit {
		return explicitSampleCost
	}
	return implicitSampleCost
}

func otherMethod(m Method) Method {
	if m == Explicit {
		return Implicit
	}
	return Explicit
}

// A prober runs the probes of one sample, sub, of the sampling advisor.
// scale turns their times into lower bounds on all graphs, and deciding
// gives the prediction on all graphs that decides once one method's probe
// has finished at cost c (see adviseBySampling). shared, if not nil, holds
// what the probes of the advice's samples compute alike (see
// probeShared). floor, if above zero, bounds the implicit method's time on
// all graphs from below without a probe (see both).
type prober struct {
	ctx      context.Context
	k        Kernel
	sub      []*graph.Graph
	scale    probeScale
	deciding func(done Method, c sampleCost) float64
	shared   *probeShared
	floor    float64
}

// inTurn runs first's probe without a limit and then the other's until
// it decides.
func (p *prober) inTurn(first Method) (probeStage, error) {
	var st probeStage
	c, _, err := p.sampleGram(first, p.newLimit())
	if err != nil {
		return st, err
	}
	st.costs[methodIndex(first)] = c
	return p.decide(otherMethod(first), p.deciding(first, c), st)
}

// decide runs m's probe until its time proves the deciding prediction
// target (see clockLimit.decide), and notes it in st.
func (p *prober) decide(m Method, target float64, st probeStage) (probeStage, error) {
	lim := p.newLimit()
	lim.decide(target)
	return p.note(m, lim, st)
}

// note runs m's probe within lim and notes its cost, or the bound its stop
// proved, in st.
func (p *prober) note(m Method, lim *clockLimit, st probeStage) (probeStage, error) {
	c, stopped, err := p.sampleGram(m, lim)
	i := methodIndex(m)
	st.costs[i], st.stops[i] = c, 0
	if stopped {
		st.stops[i] = lim.proved()
	}
	return st, err
}

// race runs the first probes on one thread, taking turns (see turns)
// until one finishes: the other then runs on alone until it decides.
// Their costs are their own times, which the turns leave out (see own).
// Raced by restarts instead, each probe within a limit from 5 ms up by four
// times a round, the probes of sp with 16 binning iterations on 60 ENZYMES
// graphs stopped the explicit one twice before it was cut at 21 ms: 29.6 ms
// of probes for an implicit run of 0.28 s.
func (p *prober) race() (probeStage, error) { return p.both(newTurns()) }

// atOnce runs the probes by both methods at once, for kernels with the
// threads for it. So the probes take about the longer of the two, where
// one after the other took their sum: the explicit probe of the sample and
// the implicit one within its deciding limit, each about the sample's
// share of the explicit run, were 10–20% of the two-thread runs of sp and
// gi on MUTAG and on 200 ENZYMES graphs.
func (p *prober) atOnce() (probeStage, error) { return p.both(nil) }

// both runs the probes by both methods, the implicit one on a goroutine of
// its own, taking turns t if t is not nil, else at once on a helper of
// ctx's Crew if it has one (see goWith): the first to finish decides where
// the other stops, counted from the other's start, which stops it at its
// next check if its time proves that already.
//
// A floor is the implicit probe's bound in the turns until its time proves
// more, so that the explicit probe runs alone until it leads the floor
// (see turns.pass); and where the explicit probe finishes first with a
// prediction floorMargin times below the floor, the floor decides and the
// implicit probe stops, or does not start. Run alone first and stopped at
// 4 times the floor, to race again from the start, the explicit probes
// of sp with 16 binning iterations on 60 Synthie graphs (an explicit
// method 2 times slower than the implicit 1.4 s) took 56–64 ms of probes
// instead of 47; paused in its turns, it loses nothing.
func (p *prober) both(t *turns) (probeStage, error) {
	methods := [2]Method{Explicit, Implicit}
	lims := [2]*clockLimit{p.newLimit(), p.newLimit()}
	if t != nil {
		for i, l := range lims {
			l.turns, l.side = t, i
		}
		t.floor[1] = p.floor
	} else {
		lims[1].reverse = true
	}
	var (
		st      probeStage
		errs    [2]error
		first   atomic.Bool
		floored atomic.Bool
	)
	probe := func(i int) {
		lims[i].restart()
		c, stopped, err := p.sampleGram(methods[i], lims[i])
		switch {
		case err != nil:
			errs[i] = err
			lims[1-i].set(0)
		case stopped:
			st.stops[i] = lims[i].proved()
		default:
			st.costs[i] = c
			if first.CompareAndSwap(false, true) {
				target := p.deciding(methods[i], c)
				if i == 0 && p.floor > 0 && floorMargin*target <= p.floor {
					floored.Store(true)
					lims[1].set(0)
				} else {
					lims[1-i].decide(target)
				}
			}
		}
		if t != nil {
			t.finish(i)
		}
	}
	done := make(chan struct{})
	implicit := func() {
		defer close(done)
		if t != nil {
			<-t.wake[1]
		}
		if !floored.Load() {
			probe(1)
		}
	}
	if t != nil {
		// Not on a Crew's helper, which would spin beside the
		// one-thread run that follows the advice for its linger.
		go implicit()
	} else {
		goWith(p.ctx, implicit)
	}
	probe(0)
	await(p.ctx, done)
	if floored.Load() && errs[1] == nil {
		st.costs[1], st.stops[1], st.floored = sampleCost{}, p.floor, true
	}
	return st, cmp.Or(errs[0], errs[1])
}

// turns lets two probes share one thread, the first starting: each gives
// the other its turn at a check of its limit once it has run turnMin of
// its turn and the lower bound its time proves (see clockLimit.proves) is
// turnLead times the other's, and the other runs on alone once one
// finishes. The turns pass on unbuffered channels, so the one that takes
// its turn runs next on the same thread, and the two never run at once;
// the fields are the running probe's.
//
// Turns by bounds, not by time, let the probe with the lower prediction
// finish first, and the other spend only what proves the first one's
// prediction, which it spends after the first finishes anyway (see
// prober.both): an implicit probe's bound grows by the pairs' factor, an
// explicit one's by the graphs'. Taking turns by equal own time instead,
// sp's implicit probe on 60 ENZYMES graphs with the hat kernel ran its
// pairs for 0.22 ms, as long as the explicit probe's maps took, where a
// few microseconds of them proved the explicit prediction.
type turns struct {
	wake  [2]chan struct{}
	bound [2]float64
	// floor holds each probe's bound before its time proves more (see
	// prober.both).
	floor [2]float64
	since [2]time.Duration // own time at which the probe's turn began
	done  [2]bool
}

// turnMin is the least own time a probe runs a turn for, and turnLead how
// many times the other's bound its own must prove before it passes the
// turn: a turn costs a few microseconds, and leads of two keep the turns
// to a few per doubling of the bounds.
const (
	turnMin  = 20 * time.Microsecond
	turnLead = 2
)

func newTurns() *turns {
	return &turns{wake: [2]chan struct{}{make(chan struct{}), make(chan struct{})}}
}

// boundOf returns probe i's bound, at least its floor.
func (t *turns) boundOf(i int) float64 { return max(t.bound[i], t.floor[i]) }

// pass gives the other probe its turn if probe i, whose own time is own
// and whose time proves bound, leads it, and returns how long probe i
// waited for its next.
func (t *turns) pass(i int, own time.Duration, bound float64) time.Duration {
	t.bound[i] = bound
	j := 1 - i
	if t.done[j] || own-t.since[i] < turnMin || t.boundOf(i) < turnLead*t.boundOf(j) {
		return 0
	}
	w := time.Now()
	t.wake[j] <- struct{}{}
	<-t.wake[i]
	t.since[i] = own
	return time.Since(w)
}

// finish ends probe i's turns: the other, if it is not done, runs on.
func (t *turns) finish(i int) {
	t.done[i] = true
	if !t.done[1-i] {
		t.wake[1-i] <- struct{}{}
	}
}

// newLimit returns a limit, not set, on the probes' context.
func (p *prober) newLimit() *clockLimit {
	lim := newClockLimit(p.ctx, p.scale)
	lim.shared = p.shared
	return lim
}

// sampleGram computes the Gram matrix of the sample by method m within lim
// and splits its Report's times as m's probes do (see methodSplit). The
// kernels check lim between graphs and pairs; stopped reports that lim
// stopped the computation.
func (p *prober) sampleGram(m Method, lim *clockLimit) (c sampleCost, stopped bool, err error) {
	_, rep, err := p.k.Gram(lim, p.sub, m)
	if err != nil {
		if lim.Context.Err() == nil && lim.stopped() {
			return sampleCost{}, true, nil
		}
		return sampleCost{}, false, fmt.Errorf("%s kernel: %s probe on %d graphs: %w", p.k.Name(), m, len(p.sub), err)
	}
	c = methodSplit(m)(rep)
	// The Report's times leave out what the probe took from the other's
	// (see takeShared): per-graph work, which the limit credits it.
	c.perGraph += time.Duration(lim.credit.Load())
	if lim.turns != nil {
		// The Report's times hold the waits for the turns: the probe's
		// own time splits at the start of the pairs instead, all of it
		// the explicit map's (its sample's dot products take
		// microseconds).
		own := lim.own()
		pa := time.Duration(lim.pairsAt.Load())
		switch {
		case m == Explicit:
			c.perGraph = own
		case pa > 0:
			c.perGraph, c.perPair = pa, own-pa
		}
	}
	return c, false, nil
}

// probeScale holds the factors by which a sample's times scale to all
// graphs' (see weightSums): its per-graph work's, its pairs', and the
// least of the two, by which a time of either scales at least; and the
// factors of its first graphs' per-graph work, prefix[k] that of graphs 0
// to k, in the order the probes take them.
type probeScale struct {
	graphs, pairs, least float64
	prefix               []float64
}

// newProbeScale returns the scale of a sample of weights smp, whose
// graphs' weights sum to prefix[k] up to graph k, to all.
func newProbeScale(smp, all weightSums, prefix []float64) probeScale {
	ps := probeScale{graphs: all.graphs / smp.graphs, pairs: all.pairs / smp.pairs, least: smp.least(all)}
	for _, w := range prefix {
		ps.prefix = append(ps.prefix, all.graphs/w)
	}
	return ps
}

// clockLimit is the context of a probe that stops where its time so far
// proves its method's time on all graphs at least a prediction that
// decides the advice, or at a plain time limit; either may be set while
// the probe runs. Its Err reads the clock. A context's timer, which Done
// waits for, fired a millisecond late at the earliest on a 2-core VM (the
// resolution of its timers), four times the limit of the smallest probes.
// The kernels poll Err between graphs and pairs, and a probe runs on one
// goroutine, so Done stays the parent's.
//
// A time t proves at least t times the least factor of the scale, not
// knowing whether it went to graphs or to pairs. Once the pairs have begun
// (see notePairs), the time before scales by the graphs' factor and the
// time since by the pairs', n(n+1)/(m(m+1)) where the graphs weigh alike:
// so an implicit probe proves the explicit prediction after the sample's
// preparation and a few pairs. Before, in a loop over the sample's graphs
// (see noteGraph), the loop's time scales by the factor of the graphs so
// far, the one under way counted whole: an explicit probe that its first
// graph proves twice the implicit prediction stops there. sp's explicit
// probe of 2 of 60 SYNTHETICnew graphs with 64 binning iterations, cut at
// twice the implicit prediction, took 0.27 s of probes before this and
// 0.14 s with it, for a 3.9 s implicit run. gi's implicit probe of 4 of 60 SYNTHETICnew
// graphs (one binning iteration), whose pairs began at 0.09 ms, ran on to
// 0.98 ms, past the least factor's limit of 0.33 ms, as its pairs checked
// the limit every 64 only; it proved 0.16 s against the explicit 4.9 ms.
// With the pairs' factor and a check every wvCheckWork vertex pairs, it
// stops after its first pair (see TestProbeStopsAtPairs for the bound).
type clockLimit struct {
	context.Context
	start time.Time
	scale probeScale
	// max is the time limit in nanoseconds from start, math.MaxInt64
	// until set, and target the deciding prediction in seconds, as
	// math.Float64bits, 0 until set.
	max    atomic.Int64
	target atomic.Uint64
	// pairsAt is the time in nanoseconds from start at which the pairs
	// began, 0 before; bound the bound proved at the stop, as
	// math.Float64bits, and hit reports the stop.
	pairsAt atomic.Int64
	bound   atomic.Uint64
	hit     atomic.Bool
	// graph is the sample graph whose own work is under way, plus one,
	// 0 before any, and loopAt the time in nanoseconds from start at
	// which the loop over them began (see noteGraph).
	graph  atomic.Int32
	loopAt atomic.Int64
	// turns, if not nil, shares the thread with another probe (see
	// prober.race): side is this probe's, and paused the time it waited
	// for its turns, which its own time leaves out.
	turns  *turns
	side   int
	paused time.Duration
	// reverse, set on the implicit probe that runs at once with the
	// explicit one, makes its loops over the sample's graphs take them
	// from the last (see probeOrder).
	reverse bool
	// shared holds what the probes compute alike, and credit the time
	// in nanoseconds of what this probe took from it, which its own
	// time counts (see takeShared).
	shared *probeShared
	credit atomic.Int64
}

// newClockLimit returns a limit on ctx, starting now, that is not set.
func newClockLimit(ctx context.Context, scale probeScale) *clockLimit {
	c := &clockLimit{Context: ctx, start: time.Now(), scale: scale}
	c.max.Store(math.MaxInt64)
	return c
}

// restart starts the probe's time now.
func (c *clockLimit) restart() { c.start = time.Now() }

// own returns the probe's own time: since its start, less its waits for
// its turns, and with the time of what it took from the other probe's
// work (see takeShared).
func (c *clockLimit) own() time.Duration {
	return time.Since(c.start) - c.paused + time.Duration(c.credit.Load())
}

// set limits the probe to d from its start.
func (c *clockLimit) set(d time.Duration) { c.max.Store(int64(d)) }

// decide stops the probe once its time proves target seconds on all
// graphs, and at the latest at the time that proves it by the least
// factor, or probeFloor.
func (c *clockLimit) decide(target float64) {
	c.target.Store(math.Float64bits(target))
	c.set(max(time.Duration(target/c.scale.least*1e9), probeFloor))
}

// limit returns the time limit set.
func (c *clockLimit) limit() time.Duration { return time.Duration(c.max.Load()) }

// proves returns the lower bound on all graphs, in seconds, that the
// probe's time el proves.
func (c *clockLimit) proves(el time.Duration) float64 {
	if pa := c.pairsAt.Load(); pa > 0 && time.Duration(pa) <= el {
		before := time.Duration(pa).Seconds()
		return before*c.scale.graphs + (el.Seconds()-before)*c.scale.pairs
	}
	if g := int(c.graph.Load()); g > 0 && g <= len(c.scale.prefix) {
		if la := time.Duration(c.loopAt.Load()); la <= el {
			return la.Seconds()*c.scale.least + (el-la).Seconds()*c.scale.prefix[g-1]
		}
	}
	return el.Seconds() * c.scale.least
}

// stopped reports whether the limit stopped the probe, and proved the
// bound it proved then.
func (c *clockLimit) stopped() bool { return c.hit.Load() }
func (c *clockLimit) proved() float64 {
	return math.Float64frombits(c.bound.Load())
}

// Value implements context.Context: the limit is the value of probeKey,
// for notePairs and noteGraph.
func (c *clockLimit) Value(key any) any {
	if key == (probeKey{}) {
		return c
	}
	return c.Context.Value(key)
}

type probeKey struct{}

// probeLimit returns the limit of ctx's probe, or nil where ctx is not a
// probe's.
func probeLimit(ctx context.Context) *clockLimit {
	c, _ := ctx.Value(probeKey{}).(*clockLimit)
	return c
}

// sharingLimit returns the limit of ctx's probe where it shares its work
// with the other probe of its advice (see probeShared), else nil.
func sharingLimit(ctx context.Context) *clockLimit {
	if c := probeLimit(ctx); c != nil && c.shared != nil {
		return c
	}
	return nil
}

// notePairs notes in the probe's limit that ctx is, if ctx is a probe's,
// that its kernel's pairs begin now: the time before is the graphs' (see
// clockLimit). gramRows calls it, which every implicit method of the
// sampling advisor's kernels computes its pairs with.
func notePairs(ctx context.Context) {
	if c := probeLimit(ctx); c != nil {
		c.pairsAt.CompareAndSwap(0, max(1, int64(c.own())))
	}
}

// noteGraph notes in the probe's limit that ctx is, if ctx is a probe's,
// that its kernel begins the own work of the sample's graph i, in a loop
// over them in order from 0: the explicit map, or the implicit method's
// preparation. Until the pairs begin, the loop's time then scales by the
// factor of graphs 0 to i, the one under way counted whole, and the time
// before it by the least factor: a probe proves its case by its first
// graphs where they decide it, as a sample of fewer graphs would.
func noteGraph(ctx context.Context, i int) {
	if c := probeLimit(ctx); c != nil {
		if i == 0 {
			c.loopAt.Store(int64(c.own()))
		}
		c.graph.Store(int32(i + 1))
	}
}

// probeShared holds the per-graph work that both methods of a kernel do
// alike, such as GraphHopper's hop matrices, as the first of the advice's
// probes to do it for a sample graph leaves it, with the time it took:
// the other takes it, and its limit credits it that time, so that its
// cost and the bounds it proves are what they would have been. On 60
// graphs a sample of 2 is a thirtieth of the explicit maps, and both
// probes computed the hop matrices, which take about as long as the rest
// of GraphHopper's map on ENZYMES: its probes cost over 5% of the
// explicit run for that alone. Samples are nested, so a graph keeps its
// index from one sample to the next.
type probeShared struct {
	mu    sync.Mutex
	preps map[int]sharedPrep
}

// sharedPrep is one graph's shared work and the time it took.
type sharedPrep struct {
	v    any
	cost time.Duration
}

// takeShared returns the work that the other probe of ctx's advice left
// for sample graph i, if ctx is a probe's and it did, and credits its time
// to ctx's limit.
func takeShared(ctx context.Context, i int) (any, bool) {
	c := sharingLimit(ctx)
	if c == nil {
		return nil, false
	}
	c.shared.mu.Lock()
	p, ok := c.shared.preps[i]
	c.shared.mu.Unlock()
	if ok {
		c.credit.Add(int64(p.cost))
	}
	return p.v, ok
}

// putShared leaves v, the work on sample graph i that took cost, for the
// other probe of ctx's advice, if ctx is a probe's. v must not change
// after.
func putShared(ctx context.Context, i int, v any, cost time.Duration) {
	c := sharingLimit(ctx)
	if c == nil {
		return
	}
	c.shared.mu.Lock()
	if c.shared.preps == nil {
		c.shared.preps = make(map[int]sharedPrep)
	}
	if _, done := c.shared.preps[i]; !done {
		c.shared.preps[i] = sharedPrep{v, cost}
	}
	c.shared.mu.Unlock()
}

// probeOrder returns the sample graph that step i of a loop over the n
// graphs of ctx's probe takes, and whether the loop notes it (see
// noteGraph). Probes at once take the graphs from opposite ends, so that
// each does the work both need on half of them and takes the other's
// (see takeShared): started on the same graph, both computed it. The
// loop taken from the last does not note its graphs, as their prefixes
// are not those done, and its time scales by the least factor.
func probeOrder(ctx context.Context, i, n int) (int, bool) {
	if c := probeLimit(ctx); c != nil && c.reverse {
		return n - 1 - i, false
	}
	return i, true
}

// probeGraph returns the sample graph that step i of a loop over the n
// graphs of ctx's probe takes (see probeOrder), and notes it where the
// loop takes them in order.
func probeGraph(ctx context.Context, i, n int) int {
	g, note := probeOrder(ctx, i, n)
	if note {
		noteGraph(ctx, g)
	}
	return g
}

// probing reports whether ctx is a probe's that shares its work.
func probing(ctx context.Context) bool { return sharingLimit(ctx) != nil }

// probeCheck checks a sampling probe's limit within a pair of graphs, not
// only between pairs and groups of work, where ctx is a probe's: a probe
// needs a few microseconds of pairs to prove its bound, where a pair of
// graphs takes tens to hundreds (see clockLimit). Outside a probe it
// checks nothing, so the kernels' runs keep their checks as they are.
type probeCheck struct{ lim *clockLimit }

// newProbeCheck returns the probe check of ctx.
func newProbeCheck(ctx context.Context) probeCheck { return probeCheck{probeLimit(ctx)} }

// on reports whether ctx is a probe's.
func (p probeCheck) on() bool { return p.lim != nil }

// err returns the probe's error, if it is a probe's and its limit has
// passed.
func (p probeCheck) err() error {
	if p.lim == nil {
		return nil
	}
	return p.lim.Err()
}

// Deadline implements context.Context.
func (c *clockLimit) Deadline() (time.Time, bool) {
	d, ok := c.Context.Deadline()
	if m := c.max.Load(); m != math.MaxInt64 {
		if own := c.start.Add(time.Duration(m)); !ok || own.Before(d) {
			return own, true
		}
	}
	return d, ok
}

// Err implements context.Context.
func (c *clockLimit) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.passed() {
		return context.DeadlineExceeded
	}
	return nil
}

// passed reports whether the probe is over its limit, noting the bound
// its time proves at the first time it is.
func (c *clockLimit) passed() bool {
	if c.hit.Load() {
		return true
	}
	if c.turns != nil {
		own := c.own()
		c.paused += c.turns.pass(c.side, own, c.proves(own))
	}
	el := c.own()
	b := c.proves(el)
	t := math.Float64frombits(c.target.Load())
	if el < c.limit() && (t == 0 || b < t) {
		return false
	}
	if c.hit.CompareAndSwap(false, true) {
		c.bound.Store(math.Float64bits(b))
	}
	return true
}

// giScreenDecisive is how many times the implicit price of the counts
// must exceed the explicit one for GraphInvariant.Advise to decide
// without a sample: half of decisive, since the counts price the explicit
// method high, its dot products as if every key were in every graph. On
// 60 graphs of ENZYMES, PROTEINS and SYNTHETICnew with the hat kernel
// (h = 3, 1 to 64 binning iterations, the default constants, the AMD VM),
// they priced the explicit method at 2.5–14 times its run and the
// implicit one at 0.5–1.6 times its run, so that prices 2 times apart
// are runs at least 3 times apart. ENZYMES at 16 iterations, priced 2.4
// times apart (a 3.4 ms explicit run against a 44 ms implicit one), took
// a sample's probes of 0.3–0.7 ms.
const giScreenDecisive = 2

// Advise implements Advisor for the graph invariant kernel by sampling
// (see adviseBySampling): the explicit cost grows with the random binning
// iterations and the implicit one with the vertex pairs, which a sample
// measures. Where counts alone price the explicit method decisive times
// below the implicit one (see screen), no sample is needed: with one
// binning iteration, explicit runs of 0.5–4 ms against implicit ones 60
// to 170 times as long, the samples' probes took 6–18% of the explicit
// runs of the attributed grid, and with labels on MUTAG, on two threads,
// 65 µs of a 0.74 ms run. Where they do not decide, their implicit price
// is the samples' floor.
func (k *GraphInvariant) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	start := time.Now()
	expl, impl, ok := k.screen(gs, opt.Costs)
	if ok && giScreenDecisive*expl.seconds <= impl.seconds {
		a := adviceOf(expl, impl, start)
		a.Choice = Explicit
		return a, nil
	}
	// Else their implicit price, a lower bound, is a floor the first
	// sample's explicit probe may decide on alone (see
	// adviseBySampling); it is zero, no floor, where they cannot price.
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, threadsOr(k.Threads), sizeWeights{graph: 1, pair: 1}, opt, impl, start)
}

// Advise implements Advisor for the GraphHopper kernel by sampling (see
// adviseBySampling): both methods compute the same hop matrices, per
// graph, and differ in their pairs, which a sample measures.
func (k *GraphHopper) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, threadsOr(k.Threads), sizeWeights{graph: 2, pair: 1.5}, opt, estimate{}, time.Now())
}
