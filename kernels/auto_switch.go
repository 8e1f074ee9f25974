package kernels

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// The explicit method chosen by an advice is watched while it maps the
// graphs, since its prediction is the less certain of the two: the
// implicit probe counts the product graphs of many pairs, where the
// explicit probe maps a few graphs within its budget, and the map of one
// graph varies by orders of magnitude with its degrees and labels. On 100
// random graphs of p_V 0.3 at length 9 (a median map of 0.2 ms, the
// largest 7 ms), samples of one or two graphs predicted 25 ms to 72 ms for
// an explicit run of 70 ms against the implicit 23 ms, so that auto took
// the explicit method in some runs and was three times slower than the
// implicit one. Once switchCheck(n) graphs are mapped, their wall time
// projects the rest of the maps, in the data set's order; where those and
// the predicted dot products would take more than switchFactor times the
// implicit prediction, the explicit run is stopped and the implicit
// method computes the matrix instead. The time spent is then lost, but it
// is about a tenth of the maps, where staying would have cost all of them.
// The factor leaves room for the projection's error; at 1.5, 100 graphs
// of p_V 0.8 at length 7 stayed with an explicit run of 22 ms against the
// implicit 13 ms.
const switchFactor = 1.2

// switchCheck returns the number of graphs mapped before the projection is
// trusted: enough that a few heavy graphs among the first do not decide
// alone, and early enough that little is lost.
func switchCheck(n int) int { return min(n, max(8, n/10)) }

// errSwitch is the cause of the cancelled explicit run that a switchGuard
// stopped.
var errSwitch = errors.New("explicit maps projected slower than the implicit method")

// switchGuard watches an explicit computation's maps: done counts the
// graphs mapped, from any goroutine, and cancels the computation's
// context with errSwitch when the projection of the rest exceeds limit.
type switchGuard struct {
	n      int
	check  int
	limit  time.Duration
	start  time.Time
	cancel context.CancelCauseFunc
	mapped atomic.Int64
	// at and projected record, for the note of a switch, the graphs
	// mapped and the projected time of the rest when it tripped.
	at        atomic.Int64
	projected atomic.Int64
}

// newSwitchGuard returns a guard of the maps of n graphs and the context
// it cancels: the rest of the maps may take up to limit.
func newSwitchGuard(ctx context.Context, n int, limit time.Duration) (*switchGuard, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	return &switchGuard{n: n, check: switchCheck(n), limit: limit, start: time.Now(), cancel: cancel}, ctx
}

// done counts one more graph mapped; a nil guard does nothing.
func (g *switchGuard) done() {
	if g == nil {
		return
	}
	i := g.mapped.Add(1)
	if i < int64(g.check) || i >= int64(g.n) {
		return
	}
	el := time.Since(g.start)
	rest := time.Duration(float64(el) * float64(int64(g.n)-i) / float64(i))
	if rest > g.limit && g.at.CompareAndSwap(0, i) {
		g.projected.Store(int64(rest))
		g.cancel(errSwitch)
	}
}

// release frees the guard's context.
func (g *switchGuard) release() { g.cancel(nil) }

// Switch tells of an explicit run that a switchGuard stopped.
type Switch struct {
	// Mapped graphs of all N were mapped in Took before the rest were
	// projected to take Projected, more than the guard allowed.
	Mapped, N       int
	Took, Projected time.Duration
}

// String formats the switch on one line.
func (s *Switch) String() string {
	return fmt.Sprintf("switched to implicit after %.3gs: the maps of %d of %d graphs projected %.3gs for the rest",
		s.Took.Seconds(), s.Mapped, s.N, s.Projected.Seconds())
}

// hedge is how much faster the implicit method must be predicted for
// GramAuto to run it where the explicit one can switch and the explicit
// prediction rests on few maps (Advice.Hedge): below it the explicit
// method runs first. The two errors cost differently. An explicit
// run predicted too fast is stopped by its switchGuard after a tenth of
// its maps; an implicit run, chosen because the explicit one was predicted
// too slow, runs to the end. On 200 random graphs of p_V 0.4 at length 7,
// samples of four graphs predicted 84 ms for a 38 ms explicit run, against
// the implicit 68 ms it then ran.
const hedge = 1.5

// First returns the method GramAuto runs first on kernel k with the
// advice a: the predicted faster, or the explicit method where k can
// switch (CanSwitch), the advice hedges and the implicit method is
// predicted less than hedge times faster.
func (a *Advice) First(k Kernel) Method {
	if CanSwitch(k) && a.Hedge && a.Explicit.Seconds <= hedge*a.Implicit.Seconds {
		return Explicit
	}
	return a.Choice
}

// CanSwitch reports whether GramAuto's explicit computation on kernel k
// gives way to the implicit one when its maps are projected too slow.
func CanSwitch(k Kernel) bool {
	_, ok := k.(switcher)
	return ok
}

// switcher is implemented by kernels whose explicit computation can give
// way to the implicit one: gramSwitching computes the explicit Gram matrix
// with a switchGuard on its maps, or the implicit one where the guard
// stops it, given the advice's predictions.
type switcher interface {
	gramSwitching(ctx context.Context, gs []*graph.Graph, a *Advice) (*mat.SymDense, *Report, *Switch, error)
}

// gramSwitching implements switcher. The rest of the maps may take
// switchFactor times the implicit prediction, less the predicted dot
// products, but no less than half the implicit prediction.
func (k *Walk) gramSwitching(ctx context.Context, gs []*graph.Graph, a *Advice) (*mat.SymDense, *Report, *Switch, error) {
	if len(gs) < 2 {
		K, rep, err := k.Gram(ctx, gs, Explicit)
		return K, rep, nil, err
	}
	// The predictions are for one thread; the implicit method spreads
	// its pairs evenly over the threads.
	rest := max(switchFactor*a.Implicit.Seconds-walkDotSeconds(a.Terms[Explicit]), a.Implicit.Seconds/2)
	limit := time.Duration(rest / float64(threadsOr(k.Threads)) * 1e9)
	g, gctx := newSwitchGuard(ctx, len(gs), limit)
	defer g.release()
	kk := *k
	kk.guard = g
	K, rep, err := kk.Gram(gctx, gs, Explicit)
	if err == nil || ctx.Err() != nil || !errors.Is(context.Cause(gctx), errSwitch) {
		return K, rep, nil, err
	}
	sw := &Switch{Mapped: int(g.at.Load()), N: len(gs), Took: time.Since(g.start), Projected: time.Duration(g.projected.Load())}
	K, rep, err = k.Gram(ctx, gs, Implicit)
	return K, rep, sw, err
}

// walkDotSeconds sums the dot products' terms of an explicit prediction of
// the walk kernel.
func walkDotSeconds(ts []CostTerm) float64 {
	var s float64
	for _, t := range ts {
		switch t.Name {
		case costExplicitMergeStep, costExplicitMergeTurn, costExplicitMergePair,
			costExplicitProduct, costExplicitPosting, costExplicitPostingPair:
			s += t.Seconds()
		}
	}
	return s
}
