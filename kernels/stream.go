package kernels

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gkbench/gkbench/graph"
)

// stagedStream runs the iterations of a graph.Stream as the stages of a
// pipeline on several workers. Each stage refines the graphs in order, a
// graph once the stage before has refined it, so that the colours are
// Refine's. A worker runs the latest stage that has a graph to refine and
// no worker, a few graphs at a time (see advance): the stages run side by
// side, on as many workers as look for work, and any one worker can run
// them all, so that none waits for a stage that no one runs. Each worker
// runs the stages it prefers first (see stageOwner).
//
// Where sole is set and two workers share the stream, the stages are not
// shared: the first worker that needs a graph runs every stage over every
// graph, and the other waits for the graphs it needs (see refineAll).
type stagedStream struct {
	st     *graph.Stream
	stages []streamStage // stages[i-1] refines iteration i
	sole   bool
}

// streamStage is a stage of a stagedStream.
type streamStage struct {
	running sync.Mutex   // held by the worker that runs the stage
	done    atomic.Int64 // the graphs through the stage
	// The workers read every stage's count, and write the one they run.
	_ [64]byte
}

// streamBatch is the most graphs a worker refines in a stage before it
// looks again for the latest stage to run.
const streamBatch = 8

// newStagedStream returns the stages of h iterations of refinement of gs
// from start, a Stream that takes over the signature tables of ctx's
// Workspace, if it has them, rather than allocate its own (see giveBack).
func newStagedStream(ctx context.Context, gs []*graph.Graph, h int, start graph.Start) stagedStream {
	st := graph.NewStreamWith(takeStreamTables(ctx), gs, h, start)
	return stagedStream{st: st, stages: make([]streamStage, h)}
}

// giveBack hands the stream's signature tables to ctx's Workspace, if it
// has one, for the next stream; s must not be used after.
func (s *stagedStream) giveBack(ctx context.Context) {
	giveStreamTables(ctx, s.st.Tables())
}

// stageOwner returns the worker of workers that prefers stage i of h:
// the stages are dealt out in order, in runs of about h/workers, so that
// each stage's signature table, and the colours it writes for the next,
// stay in one core's cache where they can. Stages taken by whichever
// worker needed a graph moved between the cores: on ENZYMES, GI's matrix
// on two threads took 5–8% less with each worker preferring its own (the
// second stage the first worker's, the third the second's, the first,
// which numbers degrees, the first's), and as long as before on MUTAG,
// PROTEINS and NCI1 (medians of 6–12 rounds of 5–100 matrices, by
// turns in one process).
func stageOwner(i, h, workers int) int {
	return (i - 1) * max(1, workers) / h
}

// refined reports whether graph g is through every stage.
func (s *stagedStream) refined(g int) bool {
	return len(s.stages) == 0 || s.stages[len(s.stages)-1].done.Load() > int64(g)
}

// waitRefined runs stages as worker of workers until graph g is through
// every stage, and returns ctx's error if it is done first. Of a sole
// stream on two workers, it runs every stage over every graph if it is
// the first to take them (see refineAll), and else only waits.
func (s *stagedStream) waitRefined(ctx context.Context, g, worker, workers int) error {
	if s.sole && workers == 2 && len(s.stages) > 0 {
		for !s.refined(g) {
			if s.stages[0].running.TryLock() {
				return s.refineAll(ctx)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			relax()
		}
		return nil
	}
	for !s.refined(g) {
		ran, err := s.advance(ctx, worker, workers)
		if err != nil {
			return err
		}
		if !ran {
			if err := ctx.Err(); err != nil {
				return err
			}
			relax()
		}
	}
	return nil
}

// advance runs up to streamBatch graphs through the latest stage that has
// graphs to refine and no worker, of those that worker of workers prefers
// (see stageOwner) if one of them has, and reports whether it found one.
// It checks ctx before it refines.
func (s *stagedStream) advance(ctx context.Context, worker, workers int) (bool, error) {
	n := int64(len(s.st.Colours()[0]))
	h := len(s.stages)
	// Two sweeps from the latest stage: the first over the worker's own
	// stages, the second over all.
	for t := 0; t < 2*h; t++ {
		i := h - t%h
		if t < h && stageOwner(i, h, workers) != worker {
			continue
		}
		st := &s.stages[i-1]
		ready := func() int64 {
			if i == 1 {
				return n
			}
			return s.stages[i-2].done.Load()
		}
		if st.done.Load() >= ready() || !st.running.TryLock() {
			continue
		}
		if err := ctx.Err(); err != nil {
			st.running.Unlock()
			return false, err
		}
		from := st.done.Load()
		for g := from; g < min(ready(), from+streamBatch); g++ {
			s.st.Step(i, int(g))
			st.done.Store(g + 1)
		}
		st.running.Unlock()
		return true, nil
	}
	return false, nil
}

// refineAll runs every stage over the graphs not yet refined, a batch of
// streamBatch graphs at a time, stage by stage within a batch, with the
// first stage's lock held by the caller and given up on return.
//
// Shared by two workers far apart, the stages handed each graph's
// colours from core to core at every iteration, and each stage's table
// moved to whichever worker ran it; with every stage on one worker, the
// other reads each graph's colours once, to sum or map it. So GI's
// explicit matrix on two threads, far (a test binary, medians of 41 and
// 21 by turns), took 3.37 ms against 4.07 on ENZYMES (600 graphs, one
// thread 5.61) and 7.84 against 9.35 on PROTEINS (one thread 13.75).
func (s *stagedStream) refineAll(ctx context.Context) error {
	h := len(s.stages)
	for i := 1; i < h; i++ {
		s.stages[i].running.Lock()
	}
	defer func() {
		for i := range s.stages {
			s.stages[i].running.Unlock()
		}
	}()
	n := int64(len(s.st.Colours()[0]))
	for from := s.stages[h-1].done.Load(); from < n; from += streamBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		to := min(n, from+streamBatch)
		for i := 1; i <= h; i++ {
			st := &s.stages[i-1]
			for g := max(from, st.done.Load()); g < to; g++ {
				s.st.Step(i, int(g))
			}
			st.done.Store(to)
		}
	}
	return nil
}
