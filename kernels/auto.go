package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gkbench/gkbench/graph"
)

// Prediction is a method's predicted time for a Gram matrix and what the
// prediction rests on.
type Prediction struct {
	Method  Method
	Seconds float64
	// Why names the probe and how it was scaled.
	Why string
}

// Advice compares the predicted times of both methods; Choice is the faster.
type Advice struct {
	Explicit, Implicit Prediction
	Choice             Method
	// Probe is the time the probes took.
	Probe time.Duration
}

// String formats the advice on one line.
func (a *Advice) String() string {
	return fmt.Sprintf("auto: %s (explicit %.3g s: %s; implicit %.3g s: %s; probes %.3g s)",
		a.Choice, a.Explicit.Seconds, a.Explicit.Why, a.Implicit.Seconds, a.Implicit.Why, a.Probe.Seconds())
}

// Advisor is implemented by kernels that can predict the time of both
// methods on the actual data from cheap probes, to choose the faster.
type Advisor interface {
	Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error)
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

// Advise implements Advisor for the walk kernel. The implicit method is
// probed on random pairs of graphs, whose product graphs cost what all
// pairs cost on average. The explicit method is probed on a random sample
// of graphs: its feature maps scale with the number of graphs, its dot
// products with the number of pairs, each at the sample's cost per graph
// and per pair (the non-zeros per graph do not depend on how many graphs
// there are). The probes are held to a twentieth of the faster method's
// predicted time: the explicit probe stops as soon as its maps alone,
// scaled to all graphs, exceed that budget times twenty, which already
// decides the choice, and the implicit probe grows only while the budget
// allows.
func (k *Walk) Advise(ctx context.Context, gs []*graph.Graph, opt AdviseOptions) (*Advice, error) {
	if err := k.validate(); err != nil {
		return nil, err
	}
	n := len(gs)
	if n == 0 {
		return nil, fmt.Errorf("walk kernel: advice on no graphs")
	}
	start := time.Now()
	r := rand.New(rand.NewPCG(opt.Seed, 0x6164766963650001)) // "advice"
	if k.WL > 0 {
		gs = graph.RefineGraphs(gs, k.WL, graph.FromLabels)
	}
	seq := *k
	seq.Threads = 1
	pairsAll := float64(n) * float64(n+1) / 2

	// Implicit: random pairs, 16 at first.
	pw := newPairWorkspace(&seq, gs, true)
	var rep Report
	probePairs := func(p int) {
		for q := 0; q < p; q++ {
			g, h := gs[r.IntN(n)], gs[r.IntN(n)]
			// Index the graphs first: the Gram computation indexes
			// each graph once, not once per pair, so that cost is
			// not the pairs'.
			pw.labelIndexOf(g)
			pw.labelIndexOf(h)
			pw.pair(g, h, &rep)
		}
	}
	implicitSeconds := func() float64 {
		return (rep.TWDPG + rep.TWalks).Seconds() / float64(rep.Pairs) * pairsAll
	}
	probePairs(int(min(pairsAll, 16)))
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Explicit: a sample of graphs, mapped one at a time within budget.
	s := min(n, max(8, n/20))
	perm := r.Perm(n)[:s]
	var b *walkMapper
	var err error
	if isDirac(seq.Vertex) && isDirac(seq.Edge) {
		b, err = newDiracWalkMapper(&seq, gs)
	} else {
		b, err = newGenericWalkMapper(&seq)
	}
	if err != nil {
		return nil, err
	}
	budget := implicitSeconds() / 20
	var vecs []Vec
	var tPhi time.Duration
	cut := false
	for _, j := range perm {
		t := time.Now()
		v, err := b.graphVector(ctx, gs[j])
		if err != nil {
			return nil, err
		}
		tPhi += time.Since(t)
		vecs = append(vecs, v)
		if tPhi.Seconds() > budget && len(vecs) < s {
			cut = true // the maps alone lose to implicit computation
			break
		}
	}
	m := len(vecs)
	var weights []float64
	if seq.Max && seq.Lambda != nil {
		weights = b.weights
	}
	t := time.Now()
	if _, err := gramMerge(ctx, vecs, weights, 1); err != nil {
		return nil, err
	}
	tDot := time.Since(t)
	pairsS := float64(m) * float64(m+1) / 2
	expl := tPhi.Seconds()*float64(n)/float64(m) + tDot.Seconds()*pairsAll/pairsS
	var nnz int
	for _, v := range vecs {
		nnz += v.Len()
	}

	// Refine the implicit estimate while the budget of the faster method
	// allows, up to 256 pairs.
	for rep.Pairs < int64(min(pairsAll, 256)) {
		spent := time.Since(start).Seconds()
		if spent > min(expl, implicitSeconds())/20 {
			break
		}
		probePairs(16)
	}
	impl := implicitSeconds()

	why := fmt.Sprintf("maps of %d sample graphs in %.3g s (%.0f non-zeros each), their %d dot products in %.3g s, scaled to %d graphs",
		m, tPhi.Seconds(), float64(nnz)/float64(m), int(pairsS), tDot.Seconds(), n)
	if cut {
		why += " (the probe stopped at its budget, which already decides)"
	}
	a := &Advice{
		Explicit: Prediction{Explicit, expl, why},
		Implicit: Prediction{Implicit, impl, fmt.Sprintf("%d random pairs at %.3g ms each (%.0f product edges), times %.0f pairs",
			rep.Pairs, 1000*impl/pairsAll, float64(rep.ProductEdges)/float64(rep.Pairs), pairsAll)},
		Probe: time.Since(start),
	}
	a.Choice = Explicit
	if impl < expl {
		a.Choice = Implicit
	}
	return a, nil
}
