package kernels

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gkbench/gkbench/graph"
)

// sampleProbeStart is the first probe's sample size, and sampleDecideMin
// the size a sample must reach before a decisive ranking stops the probes:
// the Gram matrices of 8 graphs have 36 pairs, few enough that one odd
// graph or a pause of the machine can swing a ranking, so a decisive one
// is confirmed on 136 pairs.
const (
	sampleProbeStart = 8
	sampleDecideMin  = 16
	// cutFactor is how much slower than the implicit prediction a
	// stopped explicit probe proves the explicit method.
	cutFactor = 2
)

// sampleCost is a method's time on a sample, split as its Report splits it
// into work per graph and work per pair.
type sampleCost struct {
	perGraph, perPair time.Duration
}

// explicitSampleCost splits an explicit Report: the maps (and the
// preparation, e.g. refinement, scaling, GraphHopper's hop matrices, all
// of it per graph) against the dot products of all pairs.
func explicitSampleCost(r *Report) sampleCost {
	return sampleCost{perGraph: r.TPrep + r.TPhi + r.TWDPG, perPair: r.TDot + r.TWalks}
}

// implicitSampleCost splits an implicit Report: TWDPG holds per-graph work
// wherever the kernels of this advisor fill it (the shortest-path kernel's
// distances and path groups, GraphHopper's hop matrices; the graph
// invariant kernel leaves it zero), and TWalks the pairwise evaluation.
func implicitSampleCost(r *Report) sampleCost {
	return sampleCost{perGraph: r.TPrep + r.TWDPG + r.TPhi, perPair: r.TWalks + r.TDot}
}

// scale predicts the time on n graphs from c, measured on m of them: the
// per-graph work by n/m, the pairs i ≤ j by n(n+1)/(m(m+1)).
func (c sampleCost) scale(m, n int) float64 {
	fm, fn := float64(m), float64(n)
	return c.perGraph.Seconds()*fn/fm + c.perPair.Seconds()*fn*(fn+1)/(fm*(fm+1))
}

// terms shows a prediction as the sampled time per graph and per pair
// times the graphs and pairs of the data set. The names are in
// parentheses: they are measurements, not constants of Costs.
func (c sampleCost) terms(m, n int) []CostTerm {
	fm, fn := float64(m), float64(n)
	return []CostTerm{
		{Name: "(sampled time per graph)", Count: fn, Unit: "graphs", NS: float64(c.perGraph.Nanoseconds()) / fm},
		{Name: "(sampled time per pair)", Count: fn * (fn + 1) / 2, Unit: "pairs", NS: float64(c.perPair.Nanoseconds()) / (fm * (fm + 1) / 2)},
	}
}

// adviseBySampling implements Advisor for kernels whose methods' costs are
// hard to count but cheap to measure on a few graphs: it computes the Gram
// matrix of a random sample of m graphs by each method and scales the
// times of its Report to all n graphs (see sampleCost.scale). The times
// of one sample are noisy and the work of graphs varies, so the sample
// starts at 8 graphs and doubles while the probes so far and the next one,
// as predicted from the last, stay within probeShare of the faster
// method's predicted time. It stops early once one method is predicted
// decisive times faster on at least sampleDecideMin graphs, or when the
// sample holds every graph. Samples are nested: each doubling adds graphs
// to the previous sample, drawn by opt.Seed.
//
// The probes compute the same as the methods on n graphs, one thread
// each, so the advice holds for one thread, as the kernels compute; no
// cost constants are involved and opt.Costs is not read.
func adviseBySampling(ctx context.Context, k Kernel, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	n := len(gs)
	if n == 0 {
		return nil, fmt.Errorf("%s kernel: advice on no graphs", k.Name())
	}
	start := time.Now()
	r := rand.New(rand.NewPCG(opt.Seed, 0x6164766963650002)) // "advice", second advisor
	sample := newGraphSample(r, n)
	var (
		sub        []*graph.Graph
		expl, impl sampleCost
		sizes      []string
		pe, pi     float64
	)
	cut := false // the explicit probe was stopped: pe is a lower bound
	for m := min(n, sampleProbeStart); ; {
		for len(sub) < m {
			sub = append(sub, gs[sample.at(len(sub))])
		}
		var err error
		if impl, err = sampleGram(ctx, k, sub, Implicit, implicitSampleCost, 0); err != nil {
			return nil, err
		}
		pi = impl.scale(m, n)
		// The explicit probe may take twice the sample's share m/n of
		// the implicit prediction: a probe stopped there scales to at
		// least twice the implicit time, which decides with a margin
		// for the noise of a small sample's times. Its maps cost the
		// share m/n of the explicit time, against the implicit probe's
		// share of about (m/n)² of the pairs, hence the order.
		limit := max(time.Duration(cutFactor*pi*float64(m)/float64(n)*1e9), time.Millisecond)
		expl, err = sampleGram(ctx, k, sub, Explicit, explicitSampleCost, limit)
		sizes = append(sizes, fmt.Sprint(m))
		if errors.Is(err, errProbeLimit) {
			cut, pe = true, limit.Seconds()*float64(n)/float64(m)
			expl = sampleCost{perGraph: limit}
			break
		}
		if err != nil {
			return nil, err
		}
		pe = expl.scale(m, n)
		fast, slow := min(pe, pi), max(pe, pi)
		if m == n || (slow >= decisive*fast && m >= sampleDecideMin) {
			break
		}
		next := min(2*m, n)
		// The next probe's cost is both methods' times on next graphs,
		// predicted from this sample like the times on n.
		cost := time.Since(start).Seconds() + expl.scale(m, next) + impl.scale(m, next)
		if cost > probeShare*fast {
			break
		}
		m = next
	}
	m := len(sub)
	how := fmt.Sprintf("Gram matrices of nested random samples of %s of %d graphs, the last scaled", strings.Join(sizes, ", "), n)
	whyExpl := how + ": maps and preparation ×n/m, dot products ×n(n+1)/(m(m+1))"
	if cut {
		whyExpl = fmt.Sprintf("at least: the explicit probe on %d graphs was stopped at twice the sample's share of the implicit prediction, ×n/m", m)
	}
	a := &Advice{
		Explicit: Prediction{Explicit, pe, whyExpl},
		Implicit: Prediction{Implicit, pi, how + ": per-graph preparation ×n/m, pairs ×n(n+1)/(m(m+1))"},
		// Prep stays zero: the probes prepare their samples as part of
		// their Gram matrices, and Probe counts it.
		Probe: time.Since(start),
		Terms: map[Method][]CostTerm{Explicit: expl.terms(m, n), Implicit: impl.terms(m, n)},
	}
	a.Choice = Explicit
	// A stopped explicit probe decides by itself: its lower bound is
	// cutFactor times the implicit prediction.
	if pi < pe || cut {
		a.Choice = Implicit
	}
	return a, nil
}

// errProbeLimit is the cause of a probe stopped at its time limit.
var errProbeLimit = errors.New("probe time limit")

// sampleGram computes the Gram matrix of a sample by method m and splits
// its Report's times by split. A limit > 0 stops the computation after
// that long (kernels check between graphs and pairs) with errProbeLimit.
func sampleGram(ctx context.Context, k Kernel, sub []*graph.Graph, m Method, split func(*Report) sampleCost, limit time.Duration) (sampleCost, error) {
	pctx := ctx
	if limit > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeoutCause(ctx, limit, errProbeLimit)
		defer cancel()
	}
	_, rep, err := k.Gram(pctx, sub, m)
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(pctx), errProbeLimit) {
			return sampleCost{}, errProbeLimit
		}
		return sampleCost{}, fmt.Errorf("%s kernel: %s probe on %d graphs: %w", k.Name(), m, len(sub), err)
	}
	return split(rep), nil
}

// Advise implements Advisor for the shortest-path kernel by sampling (see
// adviseBySampling): the implicit method's cost depends on how many paths
// share their endpoint labels and lengths, which a sample measures. The
// probes run on one thread, as the walk kernel's do: both methods spread
// over threads alike, so the ranking holds for any number.
func (k *ShortestPath) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, opt)
}

// Advise implements Advisor for the graph invariant kernel by sampling
// (see adviseBySampling): the explicit cost grows with the random binning
// iterations and the implicit one with the vertex pairs, which a sample
// measures.
func (k *GraphInvariant) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, opt)
}

// Advise implements Advisor for the GraphHopper kernel by sampling (see
// adviseBySampling): both methods compute the same hop matrices, per
// graph, and differ in their pairs, which a sample measures.
func (k *GraphHopper) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	seq := *k
	seq.Threads = 1
	return adviseBySampling(ctx, &seq, gs, opt)
}
