package kernels

import (
	"context"
	"errors"

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
func gramSpeculating(ctx context.Context, k Kernel, adv Advisor, gs []*graph.Graph, opt AdviseOptions) (*mat.SymDense, *Report, *Advice, error) {
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		a    *Advice
		aerr error
		done = make(chan struct{})
	)
	goBrief(ctx, func() {
		defer close(done)
		a, aerr = adv.Advise(ctx, gs, opt)
		if aerr != nil {
			stop(aerr)
		} else if a.First(k) != Explicit {
			stop(errAdvisedImplicit)
		}
	})
	K, rep, err := k.Gram(sctx, gs, Explicit)
	<-done
	if aerr != nil {
		return nil, nil, nil, aerr
	}
	if a.Run = a.First(k); a.Run == Explicit {
		return K, rep, a, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, a, err
	}
	K, rep, err = k.Gram(ctx, gs, a.Run)
	return K, rep, a, err
}
