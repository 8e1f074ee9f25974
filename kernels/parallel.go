package kernels

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// forRows calls fn(worker, i) for every row i in [0, n) of a Gram matrix on
// up to threads goroutines. Rows are handed out in increasing order from
// the first, whose row of pairs i ≤ j is the longest, in claims that
// shrink with the rows left (see stretch.work), so the work balances
// without knowing its cost. Each entry is computed by exactly one call, so
// the matrix does not depend on the number of threads. It checks ctx
// between rows and returns its error. Where ctx carries a Crew, the
// caller's goroutine and the crew's helpers are the workers; else it
// spawns them.
func forRows(ctx context.Context, n, threads int, fn func(worker, i int) error) error {
	threads = max(1, min(threads, n))
	if threads == 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(0, i); err != nil {
				return err
			}
		}
		return nil
	}
	if c := crewFrom(ctx); c != nil {
		return c.run(ctx, n, threads, fn)
	}
	s := newStretch(ctx, n, threads, fn)
	var wg sync.WaitGroup
	for range threads {
		wg.Go(s.work)
	}
	wg.Wait()
	return s.err()
}

// graphParallel returns a graph.Parallel that runs the graph package's
// loops, such as WL refinement's, by forRows on up to threads goroutines:
// on ctx's Crew if it has one.
func graphParallel(ctx context.Context, threads int) graph.Parallel {
	return graph.Parallel{Workers: threads, Run: func(n int, body func(w, i int)) error {
		return forRows(ctx, n, threads, func(w, i int) error {
			body(w, i)
			return nil
		})
	}}
}

// threadsOr returns t, or 1 when t is 0; negative means every core.
func threadsOr(t int) int {
	switch {
	case t == 0:
		return 1
	case t < 0:
		return runtime.GOMAXPROCS(0)
	}
	return t
}

// add adds the phase times and cost figures of o to r: with several
// threads the phase times are summed over the threads, so they are CPU
// time, while the harness measures the wall time of the whole call.
func (r *Report) add(o *Report) {
	r.TPhi += o.TPhi
	r.TDot += o.TDot
	r.TWDPG += o.TWDPG
	r.TWalks += o.TWalks
	r.ProductVertices += o.ProductVertices
	r.ProductEdges += o.ProductEdges
	r.Pairs += o.Pairs
	r.Comparisons += o.Comparisons
}

// forRowsTimed is forRows that also returns the time the workers spent in
// fn, summed over them: CPU time, as the Report's phase times are on
// several threads (see Report.add).
func forRowsTimed(ctx context.Context, n, threads int, fn func(worker, i int) error) (time.Duration, error) {
	busy := make([]time.Duration, max(1, min(threads, n)))
	err := forRows(ctx, n, threads, func(w, i int) error {
		t := time.Now()
		err := fn(w, i)
		busy[w] += time.Since(t)
		return err
	})
	var sum time.Duration
	for _, b := range busy {
		sum += b
	}
	return sum, err
}

// gramRows computes the Gram matrix of n graphs pair by pair, a row at a
// time on up to threads goroutines (see forRows): row(w, i, out, r) sets
// out[j−i] = K_ij for every j ≥ i. w names the worker, so that it can keep
// scratch of its own, and r is its own Report, so that the counters need no
// locks; the workers' Reports are added to rep when all are done, also
// when a row fails. A row checks ctx itself, as often as its pairs need.
// The pairs' start is noted in a sampling probe's limit, if ctx is one
// (see notePairs).
func gramRows(ctx context.Context, n, threads int, rep *Report, row func(w, i int, out []float64, r *Report) error) (*mat.SymDense, error) {
	if n == 0 {
		return &mat.SymDense{}, nil
	}
	K := mat.NewSymDense(n, nil)
	raw := K.RawSymmetric()
	// Padded, as each worker writes its counters at every pair.
	reps := make([]struct {
		Report
		_ [64]byte
	}, max(1, min(threads, n)))
	notePairs(ctx)
	err := forRows(ctx, n, threads, func(w, i int) error {
		return row(w, i, raw.Data[i*raw.Stride+i:i*raw.Stride+n], &reps[w].Report)
	})
	for i := range reps {
		rep.add(&reps[i].Report)
	}
	if err != nil {
		return nil, err
	}
	return K, nil
}
