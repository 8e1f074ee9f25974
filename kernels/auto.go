package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// Prediction is a method's predicted time for a Gram matrix and what the
// prediction rests on.
type Prediction struct {
	Method  Method
	Seconds float64
	why     reason
}

// Why names the probe the prediction rests on and how it was scaled.
func (p Prediction) Why() string { return p.why.String() }

// CostTerm is one term of a predicted time: work counted by a probe and
// scaled to the data set, times the per-machine constant that prices it.
type CostTerm struct {
	// Name is the constant's name in Costs.
	Name string
	// Count is the work, in Unit, scaled to the data set.
	Count float64
	Unit  string
	// NS is the constant: nanoseconds per unit of work.
	NS float64
}

// Seconds returns the term's time.
func (t CostTerm) Seconds() float64 { return t.Count * t.NS * 1e-9 }

// Advice compares the predicted times of both methods; Choice is the faster.
type Advice struct {
	Explicit, Implicit Prediction
	Choice             Method
	// Probe is the time the probes took, and Prep the time spent
	// preparing the graphs for them (Weisfeiler-Lehman refinement),
	// which the Gram computation repeats and reports as TPrep.
	Probe, Prep time.Duration
	// Terms holds, by method, the counts and constants whose products
	// sum to the predictions of advisors with a cost model.
	Terms MethodTerms
	// Run, set by GramAuto, is the method it ran: Choice, or the
	// explicit method where it can switch and the advice hedges. Switch
	// tells that the explicit computation gave way to the implicit one
	// (see switchGuard).
	Run    Method
	Switch *Switch
	// Hedge is set by advisors whose explicit prediction rests on too
	// few samples to rank methods predicted within hedge times of each
	// other; GramAuto then runs the explicit method where it can switch.
	Hedge bool
}

// MethodTerms holds the cost terms of both methods' predictions. It is a
// struct, not a map by method, since the advice of a walk kernel's
// smallest cells, tens of microseconds, allocates right after the
// runner's collection, where a map's two objects cost refills of the
// allocator's cache.
type MethodTerms struct {
	Explicit, Implicit []CostTerm
}

// Of returns the terms of method m, nil for a method other than Explicit
// and Implicit.
func (t MethodTerms) Of(m Method) []CostTerm {
	switch m {
	case Explicit:
		return t.Explicit
	case Implicit:
		return t.Implicit
	}
	return nil
}

// String formats the advice on one line.
func (a *Advice) String() string {
	s := fmt.Sprintf("auto: %s (explicit %.3g s: %s; implicit %.3g s: %s; probes %.3g s)",
		a.Choice, a.Explicit.Seconds, a.Explicit.Why(), a.Implicit.Seconds, a.Implicit.Why(), a.Probe.Seconds())
	if a.Run != "" && a.Run != a.Choice {
		s += fmt.Sprintf("; ran %s, which can switch to %s", a.Run, a.Choice)
	}
	if a.Switch != nil {
		s += "; " + a.Switch.String()
	}
	return s
}

// Advisor is implemented by kernels that can predict the time of both
// methods on the actual data from cheap probes, to choose the faster.
type Advisor interface {
	Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error)
}

// GramAuto computes the Gram matrix of gs by the method k's advice
// chooses, and returns the advice with it; the probes' time is part of
// the automatic method's. Where k can switch from the explicit method to
// the implicit one (see switchGuard), it runs the explicit method where
// that is predicted faster, or where the advice hedges and the implicit
// one is predicted less than hedge times faster, and switches where the
// explicit maps are projected too slow; the advice's Run and Switch tell
// what ran. Where the advice prepares the graphs as the
// Gram computation would (see preparer), the preparation is done once,
// and the Report's TPrep holds it. On more than one thread, some kernels
// start the explicit method beside the advice (see gramSpeculating).
func GramAuto(ctx context.Context, k Kernel, gs []*graph.Graph, opt AdviseOptions) (*mat.SymDense, *Report, *Advice, error) {
	adv, ok := k.(Advisor)
	if !ok {
		return nil, nil, nil, fmt.Errorf("kernel %s cannot choose its method", k.Name())
	}
	if p, ok := k.(preparer); ok {
		t := time.Now()
		pgs, pk, err := p.prepare(ctx, gs)
		if err != nil {
			return nil, nil, nil, err
		}
		if pk != k {
			prep := time.Since(t)
			K, rep, a, err := GramAuto(ctx, pk, pgs, opt)
			if a != nil {
				a.Prep = prep
			}
			if rep != nil {
				rep.TPrep = prep
			}
			return K, rep, a, err
		}
	}
	if s, ok := k.(speculator); ok && s.speculates(gs) {
		return gramSpeculating(ctx, k, adv, gs, opt)
	}
	a, err := adv.Advise(ctx, gs, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	a.Run = a.First(k)
	if s, ok := k.(switcher); ok && a.Run == Explicit {
		K, rep, sw, err := s.gramSwitching(ctx, gs, a, opt.Costs)
		a.Switch = sw
		return K, rep, a, err
	}
	K, rep, err := k.Gram(ctx, gs, a.Run)
	return K, rep, a, err
}

// preparer is implemented by kernels whose advice and Gram computation
// both begin by transforming the graphs, as the walk kernel refines their
// labels: prepare does that once, and returns the graphs and a kernel that
// computes the same matrix on them without doing it again, or k itself
// where there is nothing to do.
type preparer interface {
	prepare(ctx context.Context, gs []*graph.Graph) ([]*graph.Graph, Kernel, error)
}

// Calibrator is implemented by advisors whose cost models have per-machine
// constants: Calibrate measures them on this machine, under the names the
// advisor looks up in Costs.
type Calibrator interface {
	Calibrate(ctx context.Context) (Costs, error)
}

// AdviseOptions are the inputs of an advice besides the graphs.
type AdviseOptions struct {
	// Seed seeds the probes' random samples.
	Seed uint64
	// Costs are the machine's cost constants, as measured by runexp
	// calibrate; nil means the defaults.
	Costs Costs
}

// Costs maps the names of cost constants of the advisors' models, such as
// "walk.implicit.ns_per_edge_step", to their values on one machine. A
// kernel's advisor names its own constants and supplies their defaults, so
// that an uncalibrated machine, or a file from an older version, still gets
// sensible advice.
type Costs map[string]float64

// Get returns the constant name, or def when c does not have it.
func (c Costs) Get(name string, def float64) float64 {
	if v, ok := c[name]; ok {
		return v
	}
	return def
}

// The names of the walk kernel's cost constants, all in nanoseconds per
// unit of counted work. The implicit method is priced per pair, per
// product vertex and edge built, and per product vertex and edge in each
// of the l steps of walk counting; with base kernels other than Dirac it
// evaluates every candidate vertex and edge pair and steps over weighted
// arcs instead. The explicit maps are priced per sequence extension (an
// interning and an accumulation), per distinct sequence (a new entry of
// the interner) and per non-zero flushed into a per-vertex or graph
// vector, each times log2 of the number F of distinct sequences: they
// access the interner and the accumulator, whose F entries outgrow one
// level of the cache hierarchy after another (on the calibration data the
// log-factor model is within 1.5× where a linear one is off by 2×). To
// these come the vertices and arcs visited in each round. The dot
// products per gathered product and per pair where gramMergeInto gathers
// them from a scattered row, per merge step, turn and pair where it merges
// the ids of more than scatterMaxDim features, and per product and per
// posting for posting lists.
const (
	costImplicitPair          = "walk.implicit.ns_per_pair"
	costImplicitVertex        = "walk.implicit.ns_per_product_vertex"
	costImplicitEdge          = "walk.implicit.ns_per_product_edge"
	costImplicitVertexStep    = "walk.implicit.ns_per_vertex_step"
	costImplicitEdgeStep      = "walk.implicit.ns_per_edge_step"
	costImplicitCandidate     = "walk.implicit.generic.ns_per_candidate"
	costImplicitArcStep       = "walk.implicit.generic.ns_per_arc_step"
	costExplicitExtend        = "walk.explicit.ns_per_extend_log"
	costExplicitGenericExtend = "walk.explicit.generic.ns_per_extend_log"
	costExplicitFeature       = "walk.explicit.ns_per_feature_log"
	costExplicitNonzero       = "walk.explicit.ns_per_nonzero_log"
	costExplicitStep          = "walk.explicit.ns_per_vertex_step"
	costExplicitGather        = "walk.explicit.ns_per_gather"
	costExplicitGatherPair    = "walk.explicit.ns_per_gather_pair"
	costExplicitMergeStep     = "walk.explicit.ns_per_merge_step"
	costExplicitMergeTurn     = "walk.explicit.ns_per_merge_turn"
	costExplicitMergePair     = "walk.explicit.ns_per_merge_pair"
	costExplicitProduct       = "walk.explicit.ns_per_posting_product"
	costExplicitPosting       = "walk.explicit.ns_per_posting"
	costExplicitPostingPair   = "walk.explicit.ns_per_posting_pair"
)

// WalkCostDefaults returns the walk kernel's cost constants as measured by
// Walk.Calibrate (runexp calibrate, full design) on the 2-core AMD EPYC
// virtual machine the defaults were set on, while other processes shared
// its cores (calibration counts the shorter of wall and CPU time, so they
// are about an idle machine's). A machine of similar speed gets the same
// choices, and a faster or slower one mostly too, since both methods'
// constants scale alike. They were measured again when the explicit map
// got faster (graph vectors sorted by radix): the older ones priced its
// flushed non-zeros three times too high, and auto took the implicit
// method in cells of the walk grid where the explicit one was three times
// faster. The dot products' constants, of gathered products and of merge
// joins, come from the middle of three calibrations after gramMergeInto
// began to gather. Those of the posting lists were scaled by the middle of
// three calibrations of 230d5f2 over three of e5868a0, interleaved, when
// the lists' row loop lost its spills and searches and their build split
// the features: per product 1.54 → 0.663 ns, per posting 7.70 → 6.06,
// per pair 2.21 → 0.721 (0.58–3.06 in the three).
func WalkCostDefaults() Costs {
	return Costs{
		costImplicitPair:          391,
		costImplicitVertex:        4.49,
		costImplicitEdge:          3.51,
		costImplicitVertexStep:    0.235,
		costImplicitEdgeStep:      1.29,
		costImplicitCandidate:     10.6,
		costImplicitArcStep:       2.32,
		costExplicitExtend:        0.704,
		costExplicitGenericExtend: 4.18,
		costExplicitFeature:       1.18,
		costExplicitNonzero:       1.53,
		costExplicitStep:          12,
		costExplicitGather:        0.738,
		costExplicitGatherPair:    4.26,
		costExplicitMergeStep:     1.56,
		costExplicitMergeTurn:     2.86,
		costExplicitMergePair:     8.88,
		costExplicitProduct:       1.15,
		costExplicitPosting:       10.5,
		costExplicitPostingPair:   0.721,
	}
}

// costModel prices counted work with the constants of Costs, falling back
// to an advisor's defaults for every name Costs does not have.
type costModel struct {
	costs    Costs
	defaults defaultCosts
}

// defaultCosts is an advisor's default constants, which can only be read:
// the package builds each advisor's once, and every advice shares them.
type defaultCosts struct{ c Costs }

// get returns the constant name, 0 where there is none.
func (d defaultCosts) get(name string) float64 { return d.c[name] }

// term returns count units of work priced by the constant name.
func (m costModel) term(name string, count float64, unit string) CostTerm {
	return CostTerm{Name: name, Count: count, Unit: unit, NS: m.ns(name)}
}

// ns returns the constant name.
func (m costModel) ns(name string) float64 { return m.costs.Get(name, m.defaults.get(name)) }

// walkModel is the walk kernel's cost model.
type walkModel struct{ costModel }

func newWalkModel(c Costs) walkModel { return walkModel{costModel{c, walkDefaults}} }

// walkDefaults, giDefaults, spDefaults and csmDefaults are the advisors'
// default constants, built once for their models, which only read them.
// Built for every advice, the walk kernel's map took 2.7 µs of the 38 µs
// of advice on 200 graphs of p_V 0 at length 3 with cold caches (medians
// of 300, each after a pass through 64 MiB), whose explicit run takes
// 0.5 ms.
var (
	walkDefaults = defaultCosts{WalkCostDefaults()}
	giDefaults   = defaultCosts{GICostDefaults()}
	spDefaults   = defaultCosts{SPCostDefaults()}
	csmDefaults  = defaultCosts{CSMCostDefaults()}
)

// estimate is a method's predicted time by the cost model.
type estimate struct {
	seconds float64
	why     reason
	terms   []CostTerm
	// lowerBound marks an estimate that is only a lower bound: the probe
	// was stopped because it alone exceeded its budget, which decides.
	lowerBound bool
}

func newEstimate(ts []CostTerm, why reason) estimate {
	return estimate{seconds: sumTerms(ts), why: why, terms: ts}
}

// reason is the reason for a prediction, formatted only when it is asked
// for. The advice is part of the automatic method's timed run, and the
// runner never prints the reasons: formatted as the probes went, they
// took 18–20 µs of the 47–50 µs advice on 200 graphs of p_V 0 at length 3
// after a pass through 32 MiB (as the implicit run before leaves the
// caches), a run of 0.6 ms whose probes may take 5% of it.
type reason func() string

// String formats the reason; a reason among the arguments of because is
// formatted with it.
func (r reason) String() string {
	if r == nil {
		return ""
	}
	return r()
}

// because returns the reason that fmt.Sprintf(format, args...) formats.
func because(format string, args ...any) reason {
	return func() string { return fmt.Sprintf(format, args...) }
}

// adviceOf returns the advice of the predictions expl and impl, whose
// probes began at start, without a choice.
func adviceOf(expl, impl estimate, start time.Time) *Advice {
	return &Advice{
		Explicit: Prediction{Explicit, expl.seconds, expl.why},
		Implicit: Prediction{Implicit, impl.seconds, impl.why},
		Probe:    time.Since(start),
		Terms:    MethodTerms{Explicit: expl.terms, Implicit: impl.terms},
	}
}

func sumTerms(ts []CostTerm) float64 {
	var s float64
	for _, t := range ts {
		s += t.Seconds()
	}
	return s
}

// The probes' policy. Minimum probes come first: the label counts of
// minProbeGraphs graphs for the implicit method and the map of one graph
// for the explicit one. They cost tens of microseconds, which keeps the
// advice cheap on runs of a millisecond. The probes grow, the samples by
// doubling, only while their time stays within probeShare of the faster
// method's prediction, and not at all when one method is predicted
// decisive times faster than the other: sampling errors of a few ten
// percent cannot turn such a ranking. The one exception is an explicit
// prediction from fewer than decideMaps graphs that does not decide: its
// maps and proxies may take probeShare of the geometric mean of both
// predictions, more than the faster one's where that is the explicit
// one, since a light sample of heavy-tailed graphs predicts too little
// and would shrink its own budget (see Advise). The maps of one or two
// graphs can err by more, where a few graphs carry most of the walks
// (random graphs of 20 vertices: a median map of 60 µs, the largest
// 1 ms), so a decisive ranking stops the explicit probe only once it has
// mapped decideMaps graphs, where the budget allows; but with fewer maps
// the advice hedges, and the explicit method is run (see GramAuto), so a
// sample whose explicit prediction is fewMapsErr·hedge times below the
// implicit one maps no more.
const (
	probeShare       = 0.05
	decisive         = 4
	decideMaps       = 8
	minProbeGraphs   = 16
	minGenericPairs  = 16
	maxGenericPairs  = 256
	maxMapGraphShare = 4 // the explicit probe maps at most n/maxMapGraphShare graphs
	fewMapsErr       = 2 // how far predictions from fewer than decideMaps maps err, either way
)

// Advise implements Advisor for the walk kernel by a cost model: each
// method's time is counted work times per-machine constants (Costs, with
// the defaults of WalkCostDefaults). Both are predicted for one thread.
//
// The implicit method's work is the product graphs' sizes, which the
// probe counts on the pairs of a random sample of graphs without building
// them (see implicitProbe), and scales to all n(n+1)/2 pairs. With base
// kernels other than Dirac it builds the product graphs of random pairs,
// counting the base kernel evaluations too.
//
// The explicit method's work is counted while mapping a random sample of
// m graphs: sequence extensions, flushed non-zeros and vertex visits. They
// are scaled to all graphs by n/m or, once the budget allows a pass over
// all graphs, by the ratio of the sample's work to its walk-count proxies
// (graphProxy), since the work of one graph varies by orders of
// magnitude. The distinct sequences F of all maps do not scale with the
// graphs: they are extrapolated from the sample (explicitProbe.features)
// and bounded by the walks of the label graph (implicitProbe.labelWalks).
// The dot products are priced for the scheme gramFromVecs will choose:
// posting lists from the total non-zeros and the sum of squared document
// frequencies, estimated without bias from the sample's (Σ df² = n·Σp +
// n(n−1)·Σp², Σp² from Σ d(d−1)/(m(m−1))), gathered merge products from
// the non-zeros (see dotTerms), and merge joins, which it takes beyond
// scatterMaxDim ids, from the steps and branch turns of the sample's
// pairs.
//
// Where the labels are few and small, the explicit work is first bounded
// from above by the label sequences they allow and the graphs' degrees
// (see boundWork), which reads the labels and degrees of all graphs but
// maps none; if that bound is decisive times below the implicit
// prediction, the advice takes the explicit method with the bound as its
// prediction. Otherwise the explicit probe maps graphs, as follows.
//
// The probes start at their minimum and grow while they cost less than a
// twentieth of the faster prediction (see probeShare). Mapping is the one
// probe whose cost cannot be known before it is done: the first map may
// take one graph's share of the implicit prediction (or the budget, if
// that is more), counted as it goes, and a map stopped there makes the
// explicit prediction a lower bound. It decides where it is decisive
// times the implicit prediction; otherwise the stopped graph is set
// aside, counted once, and the others sampled (explicitProbe.setAside).
func (k *Walk) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	if err := k.validate(); err != nil {
		return nil, err
	}
	n := len(gs)
	if n == 0 {
		return nil, fmt.Errorf("walk kernel: advice on no graphs")
	}
	var prep time.Duration
	if k.WL > 0 {
		t := time.Now()
		var err error
		if gs, err = k.refineLabels(ctx, gs); err != nil {
			return nil, err
		}
		prep = time.Since(t)
	}
	start := time.Now()
	seq := *k
	seq.Threads = 1
	model := newWalkModel(opt.Costs)

	// Where the labels bound the explicit method settled below the
	// implicit one, no map is needed to decide, and where they bound it
	// below the pairs and product vertices alone, no sample either. On
	// 100 graphs of p_V 0 at length 3, an explicit run of 0.3–0.4 ms,
	// the probes took 67–73 µs after a collection with the maps and the
	// sample, 28–38 µs with the sample alone. Settled is as for a hedged
	// prediction from a few maps (see settledBelow): the bound is one
	// from above, and the explicit run, if the model's constants err by
	// more, is the choice the switch guard undoes.
	var census labelCensus
	bound, bounded, counted := estimate{}, false, false
	if isDirac(k.Vertex) && isDirac(k.Edge) {
		if census, counted = takeCensus(gs, k.Length); counted {
			bound, bounded = explicitBound(&seq, gs, model, &census)
		}
	}
	advice := func(expl, impl estimate, hedged bool) *Advice {
		a := adviceOf(expl, impl, start)
		a.Prep = prep
		a.Choice, a.Hedge = rankWalk(expl, impl, hedged)
		return a
	}
	if bounded {
		if least := census.implicitBound(model, n, k.Length); settledBelow(bound, least) {
			return advice(bound, least, false), nil
		}
	}
	// The sample's permutation of all graphs is drawn only where the
	// labels did not decide: it took 1.9 µs of the 38 µs that the advice
	// on 200 graphs of p_V 0 at length 3 took with cold caches.
	r := rand.New(rand.NewPCG(opt.Seed, 0x6164766963650001)) // "advice"
	sample := newGraphSample(r, n)
	ip := newImplicitProbe(&seq, gs, sample, r, counted)
	if err := ip.grow(ctx, minProbeGraphs); err != nil {
		return nil, err
	}
	impl := ip.predict(model)
	if bounded && settledBelow(bound, impl) {
		return advice(bound, impl, false), nil
	}
	ep, err := newExplicitProbe(&seq, gs, sample, model)
	if err != nil {
		return nil, err
	}
	// left returns what is left of the probes' budget, probeShare of the
	// prediction pred seconds, after the time the probes took. That is
	// the sum of their own times, not the wall time since the start: a
	// pause of the process between them, as a busy machine gives one now
	// and then, would otherwise eat the budget. After a pause of 7 ms,
	// 300 graphs of p_V 0.9 at length 7 kept the sample's first map, one
	// of the heaviest graphs, and predicted 1.7 s for a 70 ms explicit
	// run against the implicit 0.14 s; without, they map eight graphs and
	// predict 0.1 s.
	var asideTook time.Duration // the maps of a probe set aside
	// share is the probes' share of a one-thread prediction: the run
	// spreads over the kernel's threads and the probes do not, so their
	// share of it would grow with the threads.
	share := probeShare / float64(threadsOr(k.Threads))
	// priced converts this machine's time to the model's (see speed).
	priced := func(d time.Duration) time.Duration {
		return time.Duration(float64(d) / ep.speed())
	}
	left := func(pred float64) time.Duration {
		return time.Duration(share*pred*1e9) - priced(ip.took+ep.took+asideTook)
	}
	// firstBudget is the budget of a first map, of the sample or of the
	// graphs left once a cut one is set aside: a graph's share of the
	// implicit time, even where that is more than is left of the
	// probes' budget, since a map that exceeds it proves the explicit
	// method slower.
	firstBudget := func() float64 { return max(left(impl.seconds).Seconds(), impl.seconds/float64(n)) }
	if err := ep.grow(ctx, 1, firstBudget()); err != nil {
		return nil, err
	}
	// A cut map is scaled to all graphs by the walk-count proxies where
	// they are affordable: the first sample graph may be one of the
	// heaviest. Counted n times, one made a 10 ms explicit run look like
	// 0.46 s; scaled by the proxies, like 0.14 s, still over the implicit
	// 0.05 s. Setting such a map aside and mapping the next graph instead
	// fixed that cell but broke one where the heavy graphs carry the
	// explicit time (100 graphs, p_V 0.9, length 9: a median map of
	// 0.24 ms, the largest 7 ms), on the grid of auto-vs-oracle 121 of 132
	// cells right against 125. So is a lone map that predicts the
	// explicit method slower: it may be one of the heaviest graphs too,
	// and have taken most of the budget, so the proxies may take half the
	// budget again (100 graphs of p_V 0.1 at length 9: a map of 7241
	// non-zeros predicted 0.17 s for a 10 ms explicit run against the
	// implicit 52 ms, and scaled by the proxies 73 ms, where auto hedges).
	lone := ep.m == 1 && ep.predict(model, ip.labelWalks(k.Length)).seconds > impl.seconds
	if (ep.cut || lone) && 2*ep.proxyCost() < max(left(impl.seconds), time.Duration(share*impl.seconds/2*1e9)) {
		if err := ep.computeProxies(ctx, ip.labelWalks(k.Length)); err != nil {
			return nil, err
		}
	}
	// aside prices the first sample graph, if its cut map is set aside.
	var aside []CostTerm
	predictExplicit := func() estimate {
		e := ep.predict(model, ip.labelWalks(k.Length))
		if aside != nil {
			e = newEstimate(append(slices.Clip(e.terms), aside...), because("%s; and the first sample graph, whose map was stopped, at the lower bound of its own time", e.why))
		}
		return e
	}
	expl := predictExplicit()
	if expl.lowerBound && expl.seconds < decisive*impl.seconds {
		// A cut map that does not decide may be one of a few heavy
		// graphs, counted for many: 100 graphs of p_V 0.1 at length 9,
		// where one graph carries a seventh of a 9 ms explicit run,
		// were predicted at 84 ms against the implicit 52 ms. Set
		// aside, it counts once, at its lower bound, and the rest of
		// the graphs are sampled anew. Where it decides, it is left to
		// decide: there the heavy graphs carry the time (p_V 0.9, a
		// 0.1 s explicit run against the implicit 0.02 s). The next
		// graph's map has a first map's budget, even where the cut map
		// left less of the probes': a second cut map shows the heavy
		// graphs to be no exception. On two threads, whose budget is
		// half, the cut map of that p_V 0.1 cell left none, its bound
		// scaled to 51 ms, and auto ran the implicit method at 2.7–3.3
		// times the oracle.
		rest, first, err := ep.setAside(ctx, firstBudget())
		if err != nil {
			return nil, err
		}
		if rest != nil {
			asideTook += ep.took
			ep, aside = rest, first
			expl = predictExplicit()
		}
	}
	for !expl.lowerBound {
		fast, slow := min(expl.seconds, impl.seconds), max(expl.seconds, impl.seconds)
		// With one graph mapped, the dot products are a guess between
		// bounds (see predict), which decides only where explicit wins
		// anyway; else a second graph is mapped if the budget allows.
		pessimistic := ep.m < 2 && expl.seconds > impl.seconds
		if slow >= decisive*fast && !pessimistic && ep.m >= min(decideMaps, n) {
			break
		}
		// With fewer than decideMaps maps the advice hedges; where
		// that settles what runs, more maps would not turn it (see
		// settledBelow).
		if ep.m < min(decideMaps, n) && settledBelow(expl, impl) {
			break
		}
		// An explicit prediction from fewer than decideMaps graphs may
		// be far too low, where a few heavy graphs carry the maps (100
		// graphs of p_V 0.4 at length 9: a light first graph predicted
		// 7 ms, the maps took 0.2 s): the budget then grows towards
		// the implicit prediction, which counts many pairs, so that a
		// low guess does not also starve the probe that would correct
		// it. It is the geometric mean of the two predictions: with
		// the faster one's alone, the advice ranked that data set
		// wrong (TestAdviseRanking); with the implicit one's, probes
		// took 0.5 ms of explicit runs of 4–5 ms (100 graphs of p_V
		// 0.6–0.8 at length 5), 0.4 ms with the mean. This budget is
		// the explicit probe's: its maps and proxies. Where the
		// explicit prediction is already decisively the faster, a few
		// graphs more cannot turn it, and the budget stays the faster
		// prediction's.
		base := fast
		if ep.m < min(decideMaps, n) && slow < decisive*fast {
			base = math.Sqrt(fast * impl.seconds)
		}
		grew := false
		// Growth costs are estimated from the probes so far, which may
		// have been the cheap ones: half the budget left must cover
		// them. The explicit probe first: its sample is the smaller
		// and the less certain.
		if ep.proxies == nil && 2*ep.proxyCost() < left(base) {
			if err := ep.computeProxies(ctx, ip.labelWalks(k.Length)); err != nil {
				return nil, err
			}
			grew = true
		}
		if next := ep.nextCost(); next > 0 && 2*next < left(base) {
			if err := ep.grow(ctx, 2*ep.m, left(base).Seconds()); err != nil {
				return nil, err
			}
			grew = true
		}
		// The implicit probe grows within the faster prediction's
		// budget alone: its sample is the larger and the more certain.
		if next := ip.nextCost(); next > 0 && 2*priced(next) < left(fast) {
			if err := ip.grow(ctx, 2*ip.size()); err != nil {
				return nil, err
			}
			grew = true
		}
		if !grew {
			break
		}
		impl, expl = ip.predict(model), predictExplicit()
	}
	// Fewer maps than decideMaps err by 2–3 times either way (see hedge).
	return advice(expl, impl, ep.cut || ep.m < min(decideMaps, n)), nil
}

// settledBelow reports whether an explicit prediction expl, from the
// labels' bound or from fewer than decideMaps maps, is far enough below
// the implicit prediction impl to settle what auto runs: fewMapsErr·hedge
// times. With so few maps the advice hedges, and GramAuto runs the
// explicit method unless the implicit one is predicted hedge times
// faster; predictions that err by fewMapsErr either way would not turn
// that, and one too low for heavy graphs left out of the sample costs the
// switch guard's tenth of the maps (see switchGuard).
func settledBelow(expl, impl estimate) bool { return fewMapsErr*hedge*expl.seconds <= impl.seconds }

// rankWalk returns the walk kernel's choice from its predictions, and
// whether the advice hedges (see Advice.Hedge), given hedged, whether its
// explicit prediction rests on few maps. The faster prediction is chosen,
// but an explicit lower bound (a cut map) within hedge times of the
// implicit prediction does not rank the explicit method faster, and is no
// reason to run it first: the implicit method, run, costs at most hedge
// times the least explicit time, and an explicit run that switches costs
// its cut maps on top of the implicit run. On two threads the probes'
// budget halves (see share), and 100 graphs of p_V 0.4 at length 9 cut the
// first map at a bound of 20 ms against the implicit 21.5 ms: the explicit
// run switched after 14 ms, and auto took 20–30 ms against the implicit
// 10 ms.
func rankWalk(expl, impl estimate, hedged bool) (Method, bool) {
	if expl.lowerBound && impl.seconds <= hedge*expl.seconds {
		return Implicit, false
	}
	if impl.seconds < expl.seconds {
		return Implicit, hedged
	}
	return Explicit, hedged
}

// graphSample draws graphs without replacement, on demand: its first m
// draws are a uniform random sample of m graphs, for every m.
type graphSample struct {
	r     *rand.Rand
	perm  []int32
	drawn int
}

func newGraphSample(r *rand.Rand, n int) *graphSample {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	return &graphSample{r: r, perm: p}
}

// at returns the i-th draw, drawing as needed (a lazy Fisher-Yates
// shuffle); i must be less than the number of graphs.
func (s *graphSample) at(i int) int {
	for ; s.drawn <= i; s.drawn++ {
		j := s.drawn + s.r.IntN(len(s.perm)-s.drawn)
		s.perm[s.drawn], s.perm[j] = s.perm[j], s.perm[s.drawn]
	}
	return int(s.perm[i])
}

// pairSums accumulates Σ_k x_i(k)·x_j(k) over the pairs i ≤ j of a growing
// set of graphs, each given by its counts x_i(k) of keys k, in time linear
// in the graphs: with S_k = Σ_i x_i(k) and Q = Σ_k Σ_i x_i(k)², the pairs
// i < j sum to (Σ_k S_k² − Q)/2 and the pairs i = j to Q.
//
// The keys are numbered by an interner and S_k kept in a slice: with a
// Go map, its look-ups took a tenth of the walk advice on MUTAG at
// length 3.
type pairSums struct {
	ids      interner[key64]
	s        []int64 // S_k by the key's id
	s2, q    int64   // Σ_k S_k², Σ_k Σ_i x_i(k)²
	distinct int     // keys seen
}

func (p *pairSums) add(key uint64, x int64) {
	id, added := p.ids.intern(key64(key))
	if added {
		p.distinct++
		p.s = append(p.s, 0)
	}
	sk := p.s[id]
	p.s[id] = sk + x
	p.s2 += 2*sk*x + x*x
	p.q += x * x
}

// offDiagonal returns the sum over the pairs i < j, and diagonal over the
// pairs i = j.
func (p *pairSums) offDiagonal() int64 { return (p.s2 - p.q) / 2 }
func (p *pairSums) diagonal() int64    { return p.q }

// addRuns sorts keys and adds each distinct key with its count.
func (p *pairSums) addRuns(keys []uint64) {
	slices.Sort(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		p.add(keys[i], int64(j-i))
		i = j
	}
}

// implicitProbe counts the product graphs of the pairs of a random sample
// of graphs. Under Dirac kernels it does not build them: two graphs'
// product has Σ_l c_G(l)·c_H(l) vertices over the vertex labels l, and
// ½·Σ_t a_G(t)·a_H(t) undirected edges over the label triples t of their
// arcs, since every product edge is a pair of arcs with equal triples, in
// both directions. Both are sums that pairSums takes over all pairs of the
// sample at once, so the sample can grow to every graph, where the counts
// are exact, at the cost of reading each graph once.
type implicitProbe struct {
	k      *Walk
	gs     []*graph.Graph
	sample *graphSample
	r      *rand.Rand
	dirac  bool

	// Dirac path: the first s sampled graphs' vertex labels and arc
	// label triples.
	s               int
	labels, triples pairSums
	buf             []uint64
	// Generic path: random pairs, whose product graphs are built.
	pw                         *pairWorkspace
	pairs                      int64
	vertices, arcs, candidates int64
	took                       time.Duration
}

// newImplicitProbe returns an empty probe of gs. Where fit reports that a
// census (see takeCensus) found every label within its tables, and so
// within the Dirac path's packed keys, the labels are not read again:
// that pass took 3.5 of the 22 µs of the advice on MUTAG at length 3.
func newImplicitProbe(k *Walk, gs []*graph.Graph, s *graphSample, r *rand.Rand, fit bool) *implicitProbe {
	p := &implicitProbe{k: k, gs: gs, sample: s, r: r}
	p.dirac = isDirac(k.Vertex) && isDirac(k.Edge)
	if p.dirac && !fit {
		p.dirac = !slices.ContainsFunc(gs, func(g *graph.Graph) bool { return !fitsTripleKey(g) })
	}
	return p
}

// size returns the probe's size: sampled graphs (Dirac) or pairs.
func (p *implicitProbe) size() int {
	if p.dirac {
		return p.s
	}
	return int(p.pairs)
}

// nextCost estimates the time of doubling the probe from its time so far;
// 0 means it cannot grow.
func (p *implicitProbe) nextCost() time.Duration {
	if p.dirac && p.s >= len(p.gs) || !p.dirac && p.pairs >= maxGenericPairs {
		return 0
	}
	return p.took
}

// grow extends the probe to size graphs (Dirac kernels) or pairs.
func (p *implicitProbe) grow(ctx context.Context, size int) error {
	t := time.Now()
	defer func() { p.took += time.Since(t) }()
	if !p.dirac {
		return p.growGeneric(ctx, max(size, minGenericPairs))
	}
	for ; p.s < min(size, len(p.gs)); p.s++ {
		g := p.gs[p.sample.at(p.s)]
		keys := p.buf[:0]
		for _, l := range g.Labels {
			keys = append(keys, uint64(l))
		}
		p.labels.addRuns(keys)
		keys = keys[:0]
		for u := 0; u < g.N(); u++ {
			lu := g.Labels[u]
			for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
				keys = append(keys, tripleKey(lu, g.EdgeLabels[a], g.Labels[g.Adj[a]]))
			}
		}
		p.triples.addRuns(keys)
		p.buf = keys
	}
	return ctx.Err()
}

func (p *implicitProbe) growGeneric(ctx context.Context, pairs int) error {
	if p.pw == nil {
		p.pw = newPairWorkspace(p.k, p.gs, true)
	}
	n := len(p.gs)
	for ; p.pairs < int64(min(pairs, maxGenericPairs)); p.pairs++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, arcs, cand := p.pw.genericCounts(p.gs[p.r.IntN(n)], p.gs[p.r.IntN(n)])
		p.vertices += v
		p.arcs += arcs
		p.candidates += cand
	}
	return nil
}

// genericCounts builds the product graph of g and h on the generic path and
// returns its vertices and arcs and the number of base kernel evaluations
// it took: the vertex kernel on every vertex pair and the edge kernel on
// every pair of arcs leaving a product vertex.
func (pw *pairWorkspace) genericCounts(g, h *graph.Graph) (vertices, arcs, candidates int64) {
	pw.productGeneric(g, h)
	vertices, arcs, candidates = int64(len(pw.pu)), int64(len(pw.adj)), pw.candidates(g, h)
	pw.clearIndex(h)
	return vertices, arcs, candidates
}

// candidates returns the base kernel evaluations that building the
// product graph of g and h on the generic path took, the graph that pw
// holds now.
func (pw *pairWorkspace) candidates(g, h *graph.Graph) int64 {
	c := int64(g.N()) * int64(h.N())
	for q, u := range pw.pu {
		v := pw.pv[q]
		c += int64(g.Offsets[u+1]-g.Offsets[u]) * int64(h.Offsets[v+1]-h.Offsets[v])
	}
	return c
}

// totals returns the product vertices and edges summed over all pairs
// i ≤ j of the data set, estimated from the sample's pairs: the sums over
// its pairs i < j and i = j, each scaled to all such pairs, which is
// unbiased and exact once the sample holds every graph.
func (p *implicitProbe) totals() (vertices, edges float64) {
	n, s := float64(len(p.gs)), float64(p.s)
	scale := func(ps *pairSums) float64 {
		t := float64(ps.diagonal()) * n / s
		if p.s > 1 {
			t += float64(ps.offDiagonal()) * n * (n - 1) / (s * (s - 1))
		} else {
			t += float64(ps.diagonal()) * (n - 1) / 2 // one graph stands for all
		}
		return t
	}
	// Each product edge is two pairs of arcs.
	return scale(&p.labels), scale(&p.triples) / 2
}

// labelWalks bounds the distinct label sequences of walks of each length
// 0 to l by the walks of the label graph of the sampled graphs: its
// vertices are their vertex labels, and an arc leads from one label to
// another for every edge label of an edge between vertices with them.
// With few labels every graph soon has most of the sequences the label
// graph allows, however many graphs there are. The bounds are +Inf when
// the probe does not see labels (base kernels other than Dirac).
func (p *implicitProbe) labelWalks(l int) []float64 {
	w := make([]float64, l+1)
	if !p.dirac || p.labels.distinct == 0 {
		for i := range w {
			w[i] = math.Inf(1)
		}
		return w
	}
	// A vertex label's index is its id in p.labels; every label of an
	// arc's triple is a vertex label of the same graph.
	index := func(label uint64) uint32 {
		id, _ := p.labels.ids.find(key64(label))
		return id
	}
	type arc struct{ from, to uint32 }
	arcs := make([]arc, 0, p.triples.distinct)
	const mask = 1<<labelBits - 1
	for _, key := range p.triples.ids.keys {
		arcs = append(arcs, arc{index(uint64(key) >> (2 * labelBits)), index(uint64(key) & mask)})
	}
	x := make([]float64, p.labels.distinct)
	y := make([]float64, p.labels.distinct)
	for i := range x {
		x[i] = 1
	}
	w[0] = float64(len(x))
	for i := 1; i <= l; i++ {
		clear(y)
		for _, a := range arcs {
			y[a.from] += x[a.to]
		}
		w[i] = sum(y)
		x, y = y, x
	}
	return w
}

// sequenceBound bounds the distinct label sequences of walks of lengths 0
// to l, the sum of labelWalks.
func (p *implicitProbe) sequenceBound(l int) float64 { return sum(p.labelWalks(l)) }

// predict scales the probe's counts to all pairs.
func (p *implicitProbe) predict(m walkModel) estimate {
	n := float64(len(p.gs))
	all := n * (n + 1) / 2
	l := float64(p.k.Length)
	if p.dirac {
		v, e := p.totals()
		ts := m.implicitDiracTerms(all, v, e, l)
		what := because("the pairs of %d sample graphs", p.s)
		if p.s == len(p.gs) {
			what = because("all pairs")
		}
		return newEstimate(ts, because("product sizes counted on %s (%.0f vertices, %.0f edges each), times %.0f pairs, %d steps",
			what, v/all, e/all, all, p.k.Length))
	}
	per := all / float64(p.pairs)
	v, arcs, cand := float64(p.vertices)*per, float64(p.arcs)*per, float64(p.candidates)*per
	ts := m.implicitGenericTerms(all, cand, v, arcs, l)
	return newEstimate(ts, because("product graphs of %d random pairs built (%.0f vertices, %.0f arcs, %.0f base kernel evaluations each), times %.0f pairs, %d steps",
		p.pairs, v/all, arcs/all, cand/all, all, p.k.Length))
}

// implicitDiracTerms prices the implicit method's work with Dirac base
// kernels: pairs, and their product graphs' v vertices and e edges, built
// and then stepped over in each of l steps.
func (m walkModel) implicitDiracTerms(pairs, v, e, l float64) []CostTerm {
	return []CostTerm{
		m.term(costImplicitPair, pairs, "pairs"),
		m.term(costImplicitVertex, v, "product vertices"),
		m.term(costImplicitEdge, e, "product edges"),
		m.term(costImplicitVertexStep, l*v, "product vertices × steps"),
		m.term(costImplicitEdgeStep, l*e, "product edges × steps"),
	}
}

// implicitGenericTerms prices the implicit method's work with other base
// kernels: pairs, cand base kernel evaluations that build their product
// graphs, and the graphs' v vertices and arcs in each of l steps.
func (m walkModel) implicitGenericTerms(pairs, cand, v, arcs, l float64) []CostTerm {
	return []CostTerm{
		m.term(costImplicitPair, pairs, "pairs"),
		m.term(costImplicitCandidate, cand, "base kernel evaluations"),
		m.term(costImplicitVertexStep, l*v, "product vertices × steps"),
		m.term(costImplicitArcStep, l*arcs, "product arcs × steps"),
	}
}

// mapWork counts the work of explicit feature maps, what the explicit
// cost model prices. Its methods do nothing on a nil receiver, so that
// the mapper counts only when asked to.
type mapWork struct {
	graphs int64
	// extends counts sequence extensions, Σ_rounds Σ_v deg(v)·nnz(Φ(v)):
	// each is an interning and an accumulation. With base kernels of
	// several features per vertex or edge it is a lower bound.
	extends int64
	// nonzeros counts the non-zeros flushed into per-vertex and graph
	// vectors, each sorted and copied once.
	nonzeros int64
	// steps counts the vertices and arcs visited, per round.
	steps int64
}

// start counts a graph's length-0 vectors in c.
func (w *mapWork) start(g *graph.Graph, c *csrVecs) {
	if w == nil {
		return
	}
	w.graphs++
	w.nonzeros += int64(len(c.ids))
}

// round counts one round of extensions of the per-vertex vectors c.
func (w *mapWork) round(g *graph.Graph, c *csrVecs) {
	if w == nil {
		return
	}
	for v := 0; v < g.N(); v++ {
		w.extends += int64(g.Offsets[v+1]-g.Offsets[v]) * int64(c.off[v+1]-c.off[v])
	}
	w.steps += int64(g.N() + len(g.Adj))
}

// pushed counts the last round of a Dirac map, which made extends
// extensions (see walkMapper.pushLast).
func (w *mapWork) pushed(g *graph.Graph, extends int64) {
	if w == nil {
		return
	}
	w.extends += extends
	w.steps += int64(g.N() + len(g.Adj))
}

// flushed counts n non-zeros flushed into a vector.
func (w *mapWork) flushed(n int) {
	if w != nil {
		w.nonzeros += int64(n)
	}
}

// explicitProbe maps a random sample of graphs, counting the work.
type explicitProbe struct {
	k      *Walk
	gs     []*graph.Graph
	sample *graphSample
	model  walkModel
	b      *walkMapper
	work   mapWork
	// m graphs are mapped, with nnz non-zeros in all; df counts the
	// mapped graphs with each feature.
	m    int
	nnz  int64
	df   docFreqs
	vecs []Vec
	// took is the time of the maps and of computeProxies; laterTook and
	// laterWork are the time and the priced work of the maps after the
	// first (see speed).
	took      time.Duration
	laterTook time.Duration
	laterWork float64
	// merged caches the merge joins' counts over the sample's pairs for
	// m graphs.
	merged struct {
		m            int
		steps, turns int64
	}
	// proxies are the graphs' walk-count proxies of their work, and
	// allProxy their sum, once computeProxies has run; allSteps are the
	// vertices and arcs of all graphs times the rounds.
	proxies  []graphProxy
	allProxy graphProxy
	allPow   graphProxy // Σ of the proxies' pow
	allSteps int64
	// cut is set when the first map was stopped at its budget; then work
	// is that of the part of the graph that was mapped, and projected the
	// priced work of its next round.
	cut                  bool
	projected, cutBudget float64
	// lastWalks bounds the distinct features of the graph vectors.
	lastWalks float64
}

func newExplicitProbe(k *Walk, gs []*graph.Graph, s *graphSample, model walkModel) (*explicitProbe, error) {
	b, err := k.newMapper(gs)
	if err != nil {
		return nil, err
	}
	p := &explicitProbe{k: k, gs: gs, sample: s, b: b, model: model}
	for _, g := range gs {
		p.allSteps += int64(k.Length) * int64(g.N()+len(g.Adj))
	}
	b.work = &p.work
	return p, nil
}

// nextCost estimates the time of doubling the sample from the work of the
// maps so far, priced by the model; 0 means it cannot grow. Their wall
// time would overstate it: the first maps intern most of the sample's
// sequences, and a graph mapped first took 2–3 times as long as the same
// graph mapped again (random graphs of p_V 0.3, length 9), so that the
// sample of 200 graphs of p_V 0.4 at length 7 stopped at two maps where
// its budget allowed four or more, and predicted 0.1–0.3 s for a 38 ms
// explicit run.
func (p *explicitProbe) nextCost() time.Duration {
	if p.cut || p.m == 0 || p.m >= max(2, len(p.gs)/maxMapGraphShare) {
		return 0
	}
	took := time.Duration(p.workSeconds(p.extend()) * 1e9)
	if p.proxies == nil {
		return took
	}
	// The maps so far, scaled by the walk-count proxies of the next ones:
	// the sample's first graph may have been one of the heavy ones.
	var done, next float64
	for i := 0; i < 2*p.m && i < len(p.gs); i++ {
		e := p.proxies[p.sample.at(i)].extends
		if i < p.m {
			done += e
		} else {
			next += e
		}
	}
	if done == 0 {
		return took
	}
	return time.Duration(float64(took) * next / done)
}

// errWorkBudget ends a map whose counted work exceeds its budget.
var errWorkBudget = errors.New("walk kernel: probe over its budget")

// workLimit is the context of the probe's maps: it ends when their counted
// work, priced by the model, would exceed a budget. The mapper checks its
// context at the start of every round (every 256 vertices in large
// graphs), and the rounds of a map grow geometrically, the last often as
// much as all before it: so the limit ends a map before a round whose
// projected work, the last round's times its growth over the one before,
// would exceed the budget. Unlike a deadline, the limit does not end a
// map because the process was waiting for a core.
type workLimit struct {
	context.Context
	p      *explicitProbe
	limit  float64 // seconds
	extend string
	// last and delta are the priced work at the previous check and its
	// growth since the check before.
	last, delta float64
}

// Err implements context.Context.
func (c *workLimit) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	w := c.p.workSeconds(c.extend)
	d := w - c.last
	next := d
	if c.delta > 0 {
		next = d * d / c.delta
	}
	c.last, c.delta = w, d
	if w+next > c.limit {
		c.p.projected = next
		return errWorkBudget
	}
	return nil
}

// workSeconds prices the work of the probe's maps so far.
func (p *explicitProbe) workSeconds(extend string) float64 {
	return sumTerms(workTerms(p.model, extend, p.work, 1, float64(p.b.size())))
}

// grow maps sampled graphs until m of them are mapped, or until their work
// exceeds budget seconds (as priced by the model). If no graph was mapped
// by then, the probe is cut and keeps the partial work as a lower bound;
// otherwise the partial map is dropped.
func (p *explicitProbe) grow(ctx context.Context, m int, budget float64) error {
	m = min(m, len(p.gs))
	if p.m >= m {
		return nil
	}
	lim := &workLimit{Context: ctx, p: p, extend: p.extend()}
	lim.last = p.workSeconds(lim.extend)
	lim.limit = lim.last + max(budget, 0)
	t := time.Now()
	defer func() { p.took += time.Since(t) }()
	for ; p.m < m; p.m++ {
		before, began, priced := p.work, time.Now(), lim.last
		v, err := p.b.graphVector(lim, p.gs[p.sample.at(p.m)])
		if err != nil {
			if !errors.Is(err, errWorkBudget) {
				return err
			}
			if p.m == 0 {
				p.cut, p.cutBudget = true, budget
			} else {
				p.work = before
			}
			return nil
		}
		p.nnz += int64(v.Len())
		p.vecs = append(p.vecs, v)
		lim.last, lim.delta = p.workSeconds(lim.extend), 0 // the next graph starts small
		if p.m > 0 {
			p.laterTook += time.Since(began)
			p.laterWork += lim.last - priced
		}
		for _, id := range v.IDs {
			p.df.add(int(id))
		}
	}
	return nil
}

// speed returns the seconds this machine takes for a second of work as
// the model prices it, measured on the maps after the first, which pays
// the mapper's start-up (see nextCost): 1 until they priced minSpeedWork,
// and within [1/maxSpeed, maxSpeed]. The probes' budget is a share of
// predictions in the model's seconds, while their time is this machine's;
// without calibration, a machine slower than the defaults' spent its
// budget on fewer maps than were due. On a 2-core VM the maps after the
// first measured 1.9–2.3 here, and 3.6 on the set-aside probes of 100
// graphs of p_V 0.1 at length 9. A lone first map cannot tell: where the
// budget affords no second one, it stays 1.
func (p *explicitProbe) speed() float64 { return machineSpeed(p.laterTook, p.laterWork) }

// machineSpeed returns took seconds of work that the model priced at
// priced seconds as this machine's seconds for one of the model's: 1
// where they priced less than minSpeedWork, and within [1/maxSpeed,
// maxSpeed].
func machineSpeed(took time.Duration, priced float64) float64 {
	if priced < minSpeedWork {
		return 1
	}
	return min(max(took.Seconds()/priced, 1/maxSpeed), maxSpeed)
}

const (
	minSpeedWork = 50e-6 // seconds, as priced
	maxSpeed     = 4.0
)

// setAside returns a probe of the graphs other than the first sample
// graph, whose map was cut, with its first graph mapped within budget
// seconds, and the cut graph's time at its lower bound, the priced work
// of its partial map and its projected next round. It returns a nil
// probe if the other probe's first map is cut too: heavy graphs are then
// not the exception.
func (p *explicitProbe) setAside(ctx context.Context, budget float64) (*explicitProbe, []CostTerm, error) {
	cut := p.sample.at(0)
	gs := make([]*graph.Graph, 0, len(p.gs)-1)
	gs = append(append(gs, p.gs[:cut]...), p.gs[cut+1:]...)
	if len(gs) == 0 {
		return nil, nil, nil
	}
	rest, err := newExplicitProbe(p.k, gs, newGraphSample(p.sample.r, len(gs)), p.model)
	if err != nil {
		return nil, nil, err
	}
	if p.proxies != nil {
		rest.proxies = append(append(make([]graphProxy, 0, len(gs)), p.proxies[:cut]...), p.proxies[cut+1:]...)
		for _, pr := range rest.proxies {
			rest.allProxy.add(pr)
			rest.allPow.add(pr.pow())
		}
	}
	if err := rest.grow(ctx, 1, budget); err != nil {
		return nil, nil, err
	}
	if rest.cut {
		return nil, nil, nil
	}
	ts := p.cutTerms(1, float64(p.b.size()))
	for i := range ts {
		ts[i].Name = "first sample graph: " + ts[i].Name
	}
	return rest, ts, nil
}

// cutTerms prices the cut first map's partial work and its projected
// next round for graphs graphs, as if the maps interned f sequences.
func (p *explicitProbe) cutTerms(graphs, f float64) []CostTerm {
	ts := workTerms(p.model, p.extend(), p.work, graphs, f)
	return append(ts, CostTerm{Name: "(projected next round)", Count: graphs, Unit: "graphs", NS: p.projected * 1e9})
}

// graphProxy predicts a graph's map work by walk counts: a vertex v has at
// most min(w_i(v), W_i) sequences of length i, where w_i(v) counts the
// walks of length i from v and W_i those of the label graph. Map work
// varies by orders of magnitude between graphs, with their degrees and
// label diversity, so a few sample graphs alone predict it poorly; the
// ratio of their counted work to their proxies varies far less.
type graphProxy struct {
	// extends bounds the sequence extensions, Σ_i Σ_v deg(v)·nnz_{i−1}(v),
	// with v's distinct pairs of labels for deg(v) in the Dirac map's last
	// round;
	// nonzeros the per-vertex non-zeros, Σ_{i<l} Σ_v nnz_i(v); nnz the
	// graph vector's non-zeros.
	extends, nonzeros, nnz float64
}

func (g *graphProxy) add(o graphProxy) {
	g.extends += o.extends
	g.nonzeros += o.nonzeros
	g.nnz += o.nnz
}

// proxyExponent is the exponent b of the power law work ≈ c·proxy^b by
// which the explicit prediction scales the sample's work to all graphs.
// The proxies bound the sequences from above, and the more walks a graph
// has, the more of them repeat a sequence: fitted on the maps of every
// graph of random data sets of the walk generator (p_V 0.1 to 0.9, 100 to
// 300 graphs, lengths 7 and 9), b was 0.49 to 0.76. A ratio estimate
// (b = 1) from a few light graphs predicted four to six times the explicit
// time where heavy graphs carry the walk counts (200 and 300 graphs of
// p_V 0.2 at length 9), and auto took the implicit method, twice as slow.
// With b = 0.7 the upper tenth of the estimates from two graphs fell from
// 2.1–4.6 times the work to 1.3–2.8, and the median from 0.9–1.2 to
// 0.6–1.0: a prediction too low costs less, since the explicit run
// switches to the implicit one when its maps are slower than predicted
// (see switchGuard).
const proxyExponent = 0.7

// pow returns the proxy with every count to the power proxyExponent.
func (g graphProxy) pow() graphProxy {
	return graphProxy{math.Pow(g.extends, proxyExponent), math.Pow(g.nonzeros, proxyExponent), math.Pow(g.nnz, proxyExponent)}
}

// proxyCost returns the estimated cost of computeProxies, which visits
// every vertex and arc of every graph once a round.
func (p *explicitProbe) proxyCost() time.Duration {
	return time.Duration(float64(p.allSteps) * proxyStepNS)
}

// proxyStepNS is the price of computeProxies per vertex and arc and
// round, in nanoseconds. It is below their cost: BenchmarkComputeProxies
// measures 4.5–6 ns on the walk generator's graphs of 20 vertices, where
// each graph's powers and last round add to the steps, on a VM whose runs
// took 1.28 times the default constants' predictions. At 14 ns (a map's
// vertex visit, costExplicitStep) the proxies were kept from the samples
// that needed them. Priced at 3 ns a step and 0.5 µs a graph, the full
// auto-vs-oracle grid spent 7% more on its probes, not less, since maps
// then took the proxies' place, and ran the faster method in 126 of 132
// cells against 129–130 at 2 ns: one run each, whose misses were all
// cells where the methods were within 1.3 times, so no gain either way.
const proxyStepNS = 2

// computeProxies computes every graph's proxy, given the label graph's
// walks W_0..W_l.
func (p *explicitProbe) computeProxies(ctx context.Context, labelWalks []float64) error {
	t := time.Now()
	defer func() { p.took += time.Since(t) }()
	l := p.k.Length
	p.proxies = make([]graphProxy, len(p.gs))
	var w, x []float64
	// fan[v] is the number of extensions of each of v's sequences in a
	// round: its degree, or in the last round of the Dirac map its
	// distinct pairs of labels (see walkMapper.pushLast).
	var fan []float64
	var groups []pairGroup
	// src[a] is the vertex that arc a leaves. With it, a round runs over
	// all arcs in one loop: a loop over each vertex's arcs mispredicted
	// its end once a vertex, which took half of the proxies' time on the
	// walk generator's graphs, of average degree 2.
	var src []int32
	var pairs []uint64 // bit sets of a vertex's pairs of labels
	for j, g := range p.gs {
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		nv := g.N()
		off, adj := g.Offsets[:nv+1], g.Adj
		w, x, fan = grow(w, nv), grow(x, nv), grow(fan, nv)
		for v := range w {
			w[v] = 1
			fan[v] = float64(off[v+1] - off[v])
		}
		src = arcSources(src, off)
		var pr graphProxy
		for i := 0; ; i++ {
			lw := labelWalks[i]
			if i == l {
				var total float64
				for _, c := range w {
					total += min(c, lw)
				}
				pr.nnz += min(total, lw)
				break
			}
			if i == l-1 && p.b.dirac {
				var ok bool
				if pairs, ok = labelPairSets(pairs, g, src, p.b.nVL); ok {
					for v, set := range pairs {
						fan[v] = float64(bits.OnesCount64(set))
					}
				} else {
					for v := range fan {
						groups = pairGroups(groups[:0], g, v, p.b.nVL)
						fan[v] = float64(len(groups))
					}
				}
			}
			// The sums run in locals: kept in pr's fields, they were
			// stored and loaded again for every vertex.
			var total float64
			extends, nonzeros := pr.extends, pr.nonzeros
			for v, c := range w {
				c = min(c, lw)
				total += c
				extends += fan[v] * c
				nonzeros += c
			}
			pr.extends, pr.nonzeros = extends, nonzeros
			if p.k.Max {
				pr.nnz += min(total, lw)
			}
			// Each x[v] sums its arcs in their order from 0, as a loop
			// over v's arcs would.
			clear(x)
			for a, u := range adj {
				x[src[a]] += w[u]
			}
			w, x = x, w
		}
		p.proxies[j] = pr
		p.allProxy.add(pr)
		p.allPow.add(pr.pow())
	}
	return nil
}

// arcSources returns, in buf, the vertex that each arc of the graph with
// offsets off leaves. It counts the vertices after the first where their
// arcs start and sums the counts, so that no loop runs over the arcs of
// one vertex.
func arcSources(buf []int32, off []int32) []int32 {
	na := int(off[len(off)-1])
	buf = growCap(buf, na)
	clear(buf)
	for _, o := range off[1 : len(off)-1] {
		if int(o) < na {
			buf[o]++
		}
	}
	var v int32
	for a, c := range buf {
		v += c
		buf[a] = v
	}
	return buf
}

// labelPairSets returns, in buf, every vertex's distinct pairs of edge
// and neighbour label as a bit set, given the sources of g's arcs, and
// false where a pair, packed as in pairGroups, does not fit in 64 bits.
func labelPairSets(buf []uint64, g *graph.Graph, src []int32, nVL uint64) ([]uint64, bool) {
	buf = growCap(buf, g.N())
	clear(buf)
	var over uint64
	for a, u := range g.Adj {
		pair := uint64(g.EdgeLabels[a])*nVL + uint64(g.Labels[u])
		over |= pair &^ 63
		buf[src[a]] |= 1 << (pair & 63)
	}
	return buf, over == 0
}

// extend returns the name of the constant of a sequence extension, which
// the generic path pays more for.
func (p *explicitProbe) extend() string {
	if p.b.dirac {
		return costExplicitExtend
	}
	return costExplicitGenericExtend
}

// predict scales the sample's counted work to all graphs and prices the
// dot products of the scheme gramFromVecs will choose; labelWalks bound
// the distinct sequences of each length (see implicitProbe.labelWalks).
func (p *explicitProbe) predict(m walkModel, labelWalks []float64) estimate {
	n := float64(len(p.gs))
	bound := sum(labelWalks)
	p.lastWalks = labelWalks[len(labelWalks)-1]
	if p.k.Max {
		p.lastWalks = bound
	}
	extend := p.extend()
	if p.cut {
		// One graph's partial map stands for every graph: for as many
		// graphs as all weigh by their walk-count proxies, if known,
		// else for n.
		graphs := n
		how := because("and every graph costs about as much")
		if p.proxies != nil {
			if e := p.proxies[p.sample.at(0)].extends; e > 0 {
				graphs = p.allProxy.extends / e
				how = because("scaled by the walk counts of all graphs (%.3g times its own)", graphs)
			}
		}
		ts := p.cutTerms(graphs, min(float64(p.b.size())*graphs, max(bound, float64(p.b.size()))))
		e := newEstimate(ts, because("at least: the map of the first sample graph was stopped before its next round would exceed the budget, %s", how))
		// The map of one graph would have cost more than the budget.
		e.seconds = max(e.seconds, graphs*p.cutBudget)
		e.lowerBound = true
		return e
	}
	mm := float64(p.m)
	f := min(p.features(), max(bound, float64(p.b.size())))
	scale := n / mm
	ts := workTerms(m, extend, p.work, scale, f)
	nnz := float64(p.nnz) * scale
	how := because("scaled to %.0f graphs", n)
	if p.proxies != nil {
		// Ratio estimates: the sample's work per unit of its walk-count
		// proxies, to the power proxyExponent, times those of all graphs.
		var s graphProxy
		for i := 0; i < p.m; i++ {
			s.add(p.proxies[p.sample.at(i)].pow())
		}
		ratio := func(x int64, sample, all float64) float64 {
			if sample == 0 {
				return float64(x) * scale
			}
			return float64(x) * all / sample
		}
		ts = mapTerms(m, extend, ratio(p.work.extends, s.extends, p.allPow.extends),
			ratio(p.work.nonzeros, s.nonzeros, p.allPow.nonzeros), float64(p.allSteps), f)
		nnz = ratio(p.nnz, s.nnz, p.allPow.nnz)
		how = because("scaled to %.0f graphs by their walk counts", n)
	}
	// Σ_f df_f², unbiased from the sample: Σ_f dfs(dfs−1), towards
	// Σ_f p_f².
	pp := p.df.pairs
	// With one graph, Σp² is known only to lie between (Σp)²/W_l, all
	// sequences the label graph allows equally frequent (Cauchy-Schwarz),
	// and Σp, every graph with all of the sample's features: the
	// geometric mean of the two stands for it.
	perGraph := nnz / n
	sumP2 := math.Sqrt(perGraph * min(perGraph, perGraph*perGraph/p.lastWalks))
	if math.IsInf(p.lastWalks, 1) {
		sumP2 = perGraph // no labels to bound it: the worst case
	}
	if p.m > 1 {
		sumP2 = pp / (mm * (mm - 1))
	}
	ts, scheme := dotTerms(ts, m, n, nnz, nnz+n*(n-1)*sumP2, f, p.mergeWork)
	why := because("work counted on the maps of %d sample graphs (%.0f non-zeros each), %s; dot products by %s",
		p.m, float64(p.nnz)/mm, how, scheme)
	return newEstimate(ts, why)
}

// mergeWork estimates the steps and turns of the merge joins of all pairs
// from those of the sample's pairs: a merge join stops at the end of the
// shorter list and mispredicts its branches where the lists interleave,
// so its cost is not the non-zeros alone.
func (p *explicitProbe) mergeWork() (steps, turns float64) {
	if p.merged.m != p.m {
		s, t := pairMerges(p.vecs)
		p.merged.m, p.merged.steps, p.merged.turns = p.m, s, t
	}
	n, m := float64(len(p.gs)), float64(p.m)
	// A diagonal entry takes a step per non-zero, all of them matches,
	// without a turn.
	diag := n * float64(p.nnz) / m
	if p.m < 2 {
		// Without a pair: every step of two lists, a turn at every
		// other.
		return n*(n-1)*diag/n + diag, n * (n - 1) * diag / n / 2
	}
	return scaleMerges(n, m, p.merged.steps, p.merged.turns, diag)
}

// pairMerges sums the steps and turns of mergeCounts over the pairs of
// vecs.
func pairMerges(vecs []Vec) (steps, turns int64) {
	for i, a := range vecs {
		for _, b := range vecs[:i] {
			ds, dt := mergeCounts(a, b)
			steps, turns = steps+ds, turns+dt
		}
	}
	return steps, turns
}

// scaleMerges scales the steps and turns of the merge joins of the pairs
// of a sample of m of n vectors to all pairs i < j, and adds the diag
// steps of the pairs i = j.
func scaleMerges(n, m float64, steps, turns int64, diag float64) (float64, float64) {
	off := n * (n - 1) / (m * (m - 1)) // sample pairs i < j to all pairs i < j
	return off*float64(steps) + diag, off * float64(turns)
}

// dotTerms appends to ts the price of the dot products of n vectors with
// nnz non-zeros in all, Σ_f df_f² = df2 and ids below dim by the scheme
// gramFromVecs will take, which it returns too; merges gives the merge joins' steps and turns, and
// is called only where that scheme merges ids.
//
// Row i of the gathered scheme gathers the non-zeros of φ_j for every
// j ≥ i, (n+1)/2 times the non-zeros in all for rows in random order. A
// gather costs a load from the scattered row and a multiply-add without a
// branch, so its price does not depend on how the lists interleave, which
// a merge join's turns do. On 97 synthetic walk-kernel data sets of 80 to
// 400 graphs (p_V 0 to 1, lengths 1 to 9, some WL-refined), the merge
// joins' steps and turns at their constants priced the gathered products
// at 2.0× their time in the median, 0.76–3.1× for 80% of the sets;
// gathers and pairs price them at 0.83×, 0.58–1.23×.
func dotTerms(ts []CostTerm, m walkModel, n, nnz, df2, dim float64, merges func() (steps, turns float64)) ([]CostTerm, string) {
	products := (df2 + nnz) / 2
	pairs := n * (n + 1) / 2
	// The rule of gramFromVecs.
	if mergeCheaper(n, nnz, products) {
		if dim <= scatterMaxDim {
			return append(ts,
				m.term(costExplicitGather, (n+1)/2*nnz, "gathered products"),
				m.term(costExplicitGatherPair, pairs, "pairs"),
			), "gathered merge products"
		}
		steps, turns := merges()
		return append(ts,
			m.term(costExplicitMergeStep, steps, "merge steps"),
			m.term(costExplicitMergeTurn, turns, "turns of merge steps"),
			m.term(costExplicitMergePair, pairs, "pairs"),
		), "merge joins"
	}
	return append(ts,
		m.term(costExplicitProduct, products, "posting products"),
		m.term(costExplicitPosting, nnz, "postings"),
		m.term(costExplicitPostingPair, pairs, "pairs"),
	), "posting lists"
}

// mergeCounts returns the steps of weightedDot's merge join of a and b and
// the turns among them, the steps whose branch differs from the previous
// step's: the branch predictor learns runs and misses turns, which cost
// more than the steps themselves.
func mergeCounts(a, b Vec) (steps, turns int64) {
	ai, bi := a.IDs, b.IDs
	i, j := 0, 0
	last := 0
	for i < len(ai) && j < len(bi) {
		steps++
		branch := 0
		switch x, y := ai[i], bi[j]; {
		case x < y:
			i++
			branch = 1
		case x > y:
			j++
			branch = 2
		default:
			i++
			j++
		}
		if branch != last {
			turns++
			last = branch
		}
	}
	return steps, turns
}

// mapTerms prices the work of feature maps: sequence extensions, flushed
// non-zeros and vertex visits, when the maps intern f distinct sequences
// in all.
func mapTerms(m walkModel, extend string, extends, nonzeros, steps, f float64) []CostTerm {
	return appendMapTerms(nil, m, extend, extends, nonzeros, steps, f)
}

// appendMapTerms appends mapTerms's terms to ts.
func appendMapTerms(ts []CostTerm, m walkModel, extend string, extends, nonzeros, steps, f float64) []CostTerm {
	lf := log2Features(f)
	return append(ts,
		m.term(extend, extends*lf, "extensions × log2 F"),
		m.term(costExplicitFeature, f*lf, "sequences F × log2 F"),
		m.term(costExplicitNonzero, nonzeros*lf, "flushed non-zeros × log2 F"),
		m.term(costExplicitStep, steps, "vertices and arcs × rounds"),
	)
}

// workTerms prices the work w, scaled by scale.
func workTerms(m walkModel, extend string, w mapWork, scale, f float64) []CostTerm {
	return mapTerms(m, extend, scale*float64(w.extends), scale*float64(w.nonzeros), scale*float64(w.steps), f)
}

// log2Features is the factor by which the number f of distinct sequences
// slows each access to the interner and the accumulator; it is 1 for the
// smallest interners.
func log2Features(f float64) float64 { return math.Log2(f + 2) }

// features estimates the distinct label sequences the maps of all graphs
// intern. They do not scale with the graphs: once the sequences a label
// alphabet allows are all seen, new graphs add none, while after label
// refinement nearly every sequence is new. The sample's sequences are
// extrapolated by docFreqs.growth.
func (p *explicitProbe) features() float64 {
	return float64(p.b.size()) * p.df.growth(float64(p.m), float64(len(p.gs)))
}

// docFreqs counts the sampled graphs whose vectors hold each feature id,
// and keeps the sums that the predictions read as it counts: summed over
// every id at each prediction, they took 13% of the advice on 200 graphs
// of p_V 0.5 at length 9, whose sample graph's map interned 10^5
// sequences, and the advice predicts several times.
type docFreqs struct {
	df []int32
	// pairs is Σ_f df_f(df_f − 1); seen, once and twice count the
	// features of at least one, exactly one and exactly two graphs.
	pairs             float64
	seen, once, twice float64
	// bound is the largest id counted, plus one.
	bound int
}

// add counts one more graph with feature f.
func (c *docFreqs) add(f int) {
	if f >= len(c.df) {
		c.df = append(c.df, make([]int32, f+1-len(c.df)+len(c.df)/2)...)
	}
	d := c.df[f]
	c.df[f] = d + 1
	c.pairs += 2 * float64(d) // (d+1)d − d(d−1)
	switch d {
	case 0:
		c.seen++
		c.once++
	case 1:
		c.once--
		c.twice++
	case 2:
		c.twice--
	}
	c.bound = max(c.bound, f+1)
}

// growth returns the factor by which the distinct features of n graphs
// outnumber those of the sample of m of them counted in c: the
// incidence-based estimator of Chao et al. (2014, Ecological Monographs
// 84(1), with Chao2's unseen count),
//
//	F(n) = F(m) + f0·(1 − (1 − Q1/(m·f0 + Q1))^(n−m)), f0 = (m−1)/m · Q1²/(2·Q2),
//
// over F(m), with Q1 and Q2 the features of exactly one and two sample
// graphs. A sample of one graph grows by n/m.
func (c *docFreqs) growth(m, n float64) float64 {
	if m < 2 {
		return n / m
	}
	seen, q1, q2 := c.seen, c.once, c.twice
	if seen == 0 || q1 == 0 {
		return 1
	}
	f0 := (m - 1) / m * q1 * (q1 - 1) / 2
	if q2 > 0 {
		f0 = (m - 1) / m * q1 * q1 / (2 * q2)
	}
	grown := seen + f0*(1-math.Pow(1-q1/(m*f0+q1), n-m))
	return grown / seen
}

// FormatTerms formats a prediction's terms, one per line with the given
// indent: the constant's name and value, the count it prices, and their
// product.
func FormatTerms(ts []CostTerm, indent string) string {
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "%s%-42s %8.3g ns × %10.4g %-26s = %.3g s\n", indent, t.Name, t.NS, t.Count, t.Unit, t.Seconds())
	}
	return b.String()
}
