package kernels

import (
	"context"
	"errors"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// speculator is implemented by kernels whose advice runs on one thread,
// and whose explicit method GramAuto may start beside it on more (see
// gramSpeculating): speculates reports whether it may on gs.
type speculator interface {
	speculates(gs []*graph.Graph) bool
}

// speculateMaxBytes bounds what the explicit method of a speculator may
// allocate, besides the Gram matrix, for GramAuto to start it before the
// advice is in: an explicit run that the advice then stops has allocated
// up to that for nothing.
const speculateMaxBytes = 64 << 20

// guardedSwitcher is a switcher whose guarded explicit run can begin
// before its advice is in: guarded returns a guard of the explicit maps
// of gs without a limit, the context it cancels and the kernel it
// watches, and switchLimit the limit the advice sets.
type guardedSwitcher interface {
	switcher
	guarded(ctx context.Context, gs []*graph.Graph, c Costs) (*switchGuard, context.Context, Kernel)
	switchLimit(a *Advice) time.Duration
}

// errAdvisedImplicit stops the explicit computation that gramSpeculating
// started where the advice chose the implicit method.
var errAdvisedImplicit = errors.New("the advice chose the implicit method")

// gramSpeculating is GramAuto for a speculator: it asks k's advice on a
// helper of ctx's Crew while the caller starts the explicit method, which
// the helper joins once the advice is in, as a Crew's helper joins a
// stretch after a brief task (see goBrief), and which it stops where the
// advice chooses the implicit method; that method then runs, as GramAuto
// would have run it. The matrix, the advice and the method run are
// GramAuto's; only the advice no longer holds up the explicit method's
// start. Under runexp (200 graphs, two series of 30 runs of 20 matrices
// by turns, two threads), csm's automatic method took 0.419 and 0.462 ms
// on MUTAG where it took 0.442 and 0.484, and 1.606 and 1.851 ms on
// ENZYMES where it took 1.656 and 1.897, its advice 49–51 and 128–129 µs
// of that, and the explicit method alone 0.375–0.412 and 1.53–1.77 ms.
//
// A kernel that can switch (guardedSwitcher) starts its guarded explicit
// run without a limit, which the advice then sets: the guard projects the
// rest at once, and at every graph after, as it does from the first graphs
// counted where the advice came first, and the run gives way to the
// implicit method where the rest would take too long (see switchGuard).
// The walk kernel's automatic method at length 3 on two threads (runexp,
// 200 graphs, 20 runs of 20 matrices by turns) took 0.774 ms on MUTAG
// where it took 0.803, and 1.200 ms on ENZYMES where it took 1.227, its
// explicit method alone 0.69–0.70 and 1.14–1.15: the advice's time, about
// 95 µs on MUTAG, still takes a core from the maps.
func gramSpeculating(ctx context.Context, k Kernel, adv Advisor, gs []*graph.Graph, opt AdviseOptions) (*mat.SymDense, *Report, *Advice, error) {
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	explicit := k
	var g *switchGuard
	gsw, switches := k.(guardedSwitcher)
	if switches {
		g, sctx, explicit = gsw.guarded(sctx, gs, opt.Costs)
		defer g.release()
	}
	var (
		a    *Advice
		aerr error
		done = make(chan struct{})
	)
	goBrief(ctx, func() {
		defer close(done)
		a, aerr = adv.Advise(ctx, gs, opt)
		switch {
		case aerr != nil:
			stop(aerr)
		case a.First(k) != Explicit:
			stop(errAdvisedImplicit)
		case g != nil:
			g.setLimit(gsw.switchLimit(a))
		}
	})
	K, rep, err := explicit.Gram(sctx, gs, Explicit)
	await(ctx, done)
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	a.Run = a.First(k)
	if a.Run == Explicit {
		if g == nil || err == nil || ctx.Err() != nil {
			return K, rep, a, err
		}
		if a.Switch = g.switched(); a.Switch == nil {
			return K, rep, a, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, a, err
	}
	K, rep, err = k.Gram(ctx, gs, Implicit)
	return K, rep, a, err
}
