package kernels

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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
// run of 4.3 ms). Where the ranking is close the sample grows. (Timed on
// 4 graphs and scaled by n(n+1)/20, the dot products carried a Gram
// matrix's fixed cost, and predicted gi on those 100 graphs at 13 ms for
// a run of 4 ms; they are counted now, see vecStats.) A sample must reach
// sampleDecideMin graphs before a decisive ranking stops the probes: the
// Gram matrices of 8 graphs have 36 pairs, few enough that one odd graph or
// a pause of the machine can swing a ranking, so a decisive one is confirmed
// on 136 pairs, where the budget allows.
const (
	sampleProbeMin   = 4
	sampleProbeStart = 8
	sampleProbeShare = 40
	sampleDecideMin  = 16
	// cutFactor is how much slower than the implicit prediction a
	// stopped explicit probe proves the explicit method.
	cutFactor = 2
	// raceStart is the first limit of the first probes on one thread (see
	// raceInTurn), and probeFloor the least limit of any probe.
	// Started at 0.25 ms, the race of 100 ENZYMES graphs for
	// GraphHopper stopped both probes twice before the explicit one, of
	// 1.5 ms, could finish: its probes took 7.8 ms, 4.6 ms from 2 ms. On
	// 200 of them, from 2 ms, the explicit probe took 2.08 ms: 9.7 ms of
	// probes for a run of 70 ms. A first explicit probe of 5 ms is the
	// sample's share of a run of 200 ms and more.
	raceStart  = 5 * time.Millisecond
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
		g += math.Pow(nv, w.graph)
		x := math.Pow(nv, w.pair)
		p += x
		p2 += x * x
	}
	return weightSums{graphs: g, pairs: (p*p + p2) / 2}
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
// featureGrowth). Σ_f df_f(df_f−1)/2 counts the pairs of distinct graphs
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
	ts, _ := dotTerms(model, fn, nnz, 2*shared+nnz, v.features*fn/fm, func() (float64, float64) {
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
// other runs within the limit that decides if it is reached: the finished
// method's prediction over the least factor by which the other's time
// scales from the sample to all graphs (weightSums.least; n/m where the
// graphs weigh alike) for an implicit probe, and cutFactor times that for
// an explicit one (see cutFactor). A stopped probe makes its prediction a
// lower bound, which decides. On one thread the first
// two probes race (see raceInTurn), and later samples run the faster
// method first, without a limit (its cost is within the budget), and the
// other within its deciding limit. On more, both probes of a sample run
// at once (see probeAtOnce).
//
// The probes compute the same as the methods on n graphs, one thread
// each, so the advice holds for one thread, as the kernels compute. The
// run spreads over threads goroutines and each probe does not, so the
// budget that grows the sample is probeShare/threads of the faster
// prediction.
func adviseBySampling(ctx context.Context, k Kernel, gs []*graph.Graph, threads int, w sizeWeights, opt AdviseOptions) (*Advice, error) {
	n := len(gs)
	if n == 0 {
		return nil, fmt.Errorf("%s kernel: advice on no graphs", k.Name())
	}
	start := time.Now()
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
	m := min(n, max(sampleProbeMin, min(sampleProbeStart, n/sampleProbeShare)))
	sub := first(m)
	smp := w.sums(sub)
	// decidingLimit is the limit of the other method's probe once that
	// of done has cost c: a stop there proves the other method's time
	// on all graphs at least done's prediction, and cutFactor times it
	// for an explicit probe.
	decidingLimit := func(done Method, c sampleCost) time.Duration {
		f := c.scale(smp, all, m, n, model) / smp.least(all)
		if done == Implicit {
			f *= cutFactor
		}
		return max(time.Duration(f*1e9), probeFloor)
	}
	// stoppedAt returns the lower bound on all graphs that a probe
	// stopped at limit proves, and a cost on the sample that scales to
	// it per graph, so that the advice's terms show the bound.
	stoppedAt := func(limit time.Duration) (sampleCost, float64) {
		bound := limit.Seconds() * smp.least(all)
		return sampleCost{perGraph: time.Duration(bound * smp.graphs / all.graphs * 1e9)}, bound
	}
	var (
		sizes            []string
		expl, impl       sampleCost
		pe, pi           float64
		cutExpl, cutImpl bool // a probe was stopped: its prediction is a lower bound
	)
	for {
		sizes = append(sizes, fmt.Sprint(m))
		var (
			st  probeStage
			err error
		)
		switch {
		case threads > 1:
			st, err = probeAtOnce(ctx, k, sub, decidingLimit)
		case len(sizes) == 1:
			st, err = raceInTurn(ctx, k, sub, decidingLimit)
		case pe <= pi:
			st, err = probeInTurn(ctx, k, sub, Explicit, decidingLimit)
		default:
			st, err = probeInTurn(ctx, k, sub, Implicit, decidingLimit)
		}
		if err != nil {
			return nil, err
		}
		expl, impl = st.costs[0], st.costs[1]
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
	how := fmt.Sprintf("Gram matrices of nested random samples of %s of %d graphs, the last scaled", strings.Join(sizes, ", "), n)
	whyExpl := how + fmt.Sprintf(": maps and preparation by the graphs' N^%g, dot products priced from the sample's non-zeros and shared features", w.graph)
	whyImpl := how + fmt.Sprintf(": per-graph preparation by the graphs' N^%g, pairs by their (N_i·N_j)^%g", w.graph, w.pair)
	if cutExpl {
		whyExpl = fmt.Sprintf("at least: the explicit probe on %d graphs was stopped where its scaled time was twice the implicit prediction", m)
	}
	if cutImpl {
		whyImpl = fmt.Sprintf("at least: the implicit probe on %d graphs was stopped where its scaled time was the explicit prediction", m)
	}
	a := &Advice{
		Explicit: Prediction{Explicit, pe, whyExpl},
		Implicit: Prediction{Implicit, pi, whyImpl},
		// Prep stays zero: the probes prepare their samples as part of
		// their Gram matrices, and Probe counts it.
		Probe: time.Since(start),
		Terms: map[Method][]CostTerm{Explicit: expl.terms(w, smp, all, m, n, model), Implicit: impl.terms(w, smp, all, m, n, model)},
	}
	a.Choice = Explicit
	// A stopped explicit probe decides by itself: its lower bound is
	// cutFactor times the implicit prediction. So does a stopped
	// implicit one, whose lower bound is the explicit prediction.
	if !cutImpl && (pi < pe || cutExpl) {
		a.Choice = Implicit
	}
	return a, nil
}

// probeStage is what the probes of one sample found, explicit first: a
// method's cost, or the limit at which its probe was stopped (zero if it
// was not).
type probeStage struct {
	costs [2]sampleCost
	stops [2]time.Duration
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

// probeInTurn runs first's probe of sub without a limit and then the
// other's within decidingLimit.
func probeInTurn(ctx context.Context, k Kernel, sub []*graph.Graph, first Method, decidingLimit func(Method, sampleCost) time.Duration) (probeStage, error) {
	var st probeStage
	c, _, err := sampleGram(k, sub, first, newClockLimit(ctx))
	if err != nil {
		return st, err
	}
	st.costs[methodIndex(first)] = c
	return probeWithin(ctx, k, sub, otherMethod(first), decidingLimit(first, c), st)
}

// probeWithin runs m's probe of sub within limit and notes it in st.
func probeWithin(ctx context.Context, k Kernel, sub []*graph.Graph, m Method, limit time.Duration, st probeStage) (probeStage, error) {
	lim := newClockLimit(ctx)
	lim.set(limit)
	c, stopped, err := sampleGram(k, sub, m, lim)
	st.costs[methodIndex(m)] = c
	if stopped {
		st.stops[methodIndex(m)] = limit
	}
	return st, err
}

// raceInTurn runs the first probes of sub on one thread: each runs within
// a limit, the explicit one first, from raceStart up by four times a
// round, until one finishes. The other then runs within decidingLimit,
// unless the race stopped the explicit one beyond that already.
func raceInTurn(ctx context.Context, k Kernel, sub []*graph.Graph, decidingLimit func(Method, sampleCost) time.Duration) (probeStage, error) {
	var st probeStage
	for limit := raceStart; ; limit *= 4 {
		race, err := probeWithin(ctx, k, sub, Explicit, limit, st)
		if err != nil {
			return st, err
		}
		if race.stops[0] == 0 {
			return probeWithin(ctx, k, sub, Implicit, decidingLimit(Explicit, race.costs[0]), race)
		}
		if race, err = probeWithin(ctx, k, sub, Implicit, limit, race); err != nil {
			return st, err
		}
		if race.stops[1] == 0 {
			if explLimit := decidingLimit(Implicit, race.costs[1]); limit < explLimit {
				race.stops[0] = 0
				return probeWithin(ctx, k, sub, Explicit, explLimit, race)
			}
			return race, nil // the race stopped the explicit probe beyond its limit already
		}
	}
}

// probeAtOnce runs the probes of sub by both methods at once, the
// implicit one on a helper of ctx's Crew or a goroutine of its own (see
// goWith), for kernels with the threads for it: the first to finish sets
// the other's deciding limit, counted from the other's start, which stops
// it at its next check if it has run longer already. So the probes take
// about the longer of the two, where one after the other took their sum:
// the explicit probe of the sample and the implicit one within its
// deciding limit, each about the sample's share of the explicit run, were
// 10–20% of the two-thread runs of sp and gi on MUTAG and on 200 ENZYMES
// graphs.
func probeAtOnce(ctx context.Context, k Kernel, sub []*graph.Graph, decidingLimit func(Method, sampleCost) time.Duration) (probeStage, error) {
	methods := [2]Method{Explicit, Implicit}
	lims := [2]*clockLimit{newClockLimit(ctx), newClockLimit(ctx)}
	var (
		st    probeStage
		errs  [2]error
		first atomic.Bool
	)
	probe := func(i int) {
		c, stopped, err := sampleGram(k, sub, methods[i], lims[i])
		switch {
		case err != nil:
			errs[i] = err
			lims[1-i].set(0)
		case stopped:
			st.stops[i] = lims[i].limit()
		default:
			st.costs[i] = c
			if first.CompareAndSwap(false, true) {
				lims[1-i].set(decidingLimit(methods[i], c))
			}
		}
	}
	done := make(chan struct{})
	goWith(ctx, func() {
		defer close(done)
		probe(1)
	})
	probe(0)
	<-done
	return st, cmp.Or(errs[0], errs[1])
}

// clockLimit is the context of a probe with a time limit, which may be
// set while the probe runs: its Err reads the clock. A context's timer,
// which Done waits for, fired a millisecond late at the earliest on a
// 2-core VM (the resolution of its timers), four times the limit of the
// smallest probes. The kernels poll Err between graphs and pairs, and a
// probe runs on one goroutine, so Done stays the parent's.
type clockLimit struct {
	context.Context
	start time.Time
	// max is the limit in nanoseconds from start, math.MaxInt64 until
	// set.
	max atomic.Int64
}

// newClockLimit returns a limit on ctx, starting now, that is not set.
func newClockLimit(ctx context.Context) *clockLimit {
	c := &clockLimit{Context: ctx, start: time.Now()}
	c.max.Store(math.MaxInt64)
	return c
}

// set limits the probe to d from its start.
func (c *clockLimit) set(d time.Duration) { c.max.Store(int64(d)) }

// limit returns the limit set.
func (c *clockLimit) limit() time.Duration { return time.Duration(c.max.Load()) }

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

func (c *clockLimit) passed() bool { return time.Since(c.start) >= c.limit() }

// sampleGram computes the Gram matrix of a sample by method m within lim
// and splits its Report's times as m's probes do (see methodSplit). The
// kernels check lim between graphs and pairs; stopped reports that its
// limit stopped the computation.
func sampleGram(k Kernel, sub []*graph.Graph, m Method, lim *clockLimit) (c sampleCost, stopped bool, err error) {
	_, rep, err := k.Gram(lim, sub, m)
	if err != nil {
		if lim.Context.Err() == nil && lim.passed() {
			return sampleCost{}, true, nil
		}
		return sampleCost{}, false, fmt.Errorf("%s kernel: %s probe on %d graphs: %w", k.Name(), m, len(sub), err)
	}
	return methodSplit(m)(rep), false, nil
}

// Advise implements Advisor for the shortest-path kernel by sampling (see
// adviseBySampling): the implicit method's cost depends on how many paths
// share their endpoint labels and lengths, which a sample measures. The
// probes run on one thread, as the walk kernel's do: both methods spread
// over threads alike, so the ranking holds for any number.
func (k *ShortestPath) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, threadsOr(k.Threads), sizeWeights{graph: 1.5, pair: 1.5}, opt)
}

// Advise implements Advisor for the graph invariant kernel by sampling
// (see adviseBySampling): the explicit cost grows with the random binning
// iterations and the implicit one with the vertex pairs, which a sample
// measures.
func (k *GraphInvariant) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, threadsOr(k.Threads), sizeWeights{graph: 1, pair: 1}, opt)
}

// Advise implements Advisor for the GraphHopper kernel by sampling (see
// adviseBySampling): both methods compute the same hop matrices, per
// graph, and differ in their pairs, which a sample measures.
func (k *GraphHopper) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, threadsOr(k.Threads), sizeWeights{graph: 2, pair: 1.5}, opt)
}
