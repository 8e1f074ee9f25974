package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/kernels"
)

// heapMetric counts the bytes of heap objects, live or not yet swept: what
// the process holds, without waiting for the kernel to return.
const heapMetric = "/memory/classes/heap/objects:bytes"

// defaultSampleEvery is how often a run's heap is sampled.
const defaultSampleEvery = 2 * time.Millisecond

// The causes with which a run's context is cancelled when it hits a limit.
var (
	errTimeout = errors.New("time limit exceeded")
	errOOM     = errors.New("memory limit exceeded")
)

// heapSampling says how a run's heap is read: every period (0 means
// defaultSampleEvery), less the runner's ballast (see Runner.GCFloor),
// which holds no data of the run.
type heapSampling struct {
	every   time.Duration
	ballast uint64
}

// bytes returns the heap without the ballast.
func (h heapSampling) bytes() uint64 {
	v := heapBytes()
	return v - min(v, h.ballast)
}

// heapBytes returns the current value of heapMetric.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// heapWatch samples the heap while a run is in flight and cancels the run
// once the heap is over the limit: the run is stopped at the first check
// of its context instead of taking the machine down.
type heapWatch struct {
	done chan struct{}
	wg   sync.WaitGroup
	hs   heapSampling
	mu   sync.Mutex
	peak uint64
	// cancelled is when the watch cancelled the run; it is written by the
	// sampling goroutine and read after stop.
	cancelled time.Time
}

// watchHeap takes the heap's first sample, cancelling the run if the heap
// is over limit already, and starts the sampling goroutine, which samples
// every hs.every from then on until stop. It returns once the goroutine
// waits for its first tick, so that a run timed after it shares its cores
// with neither the goroutine's start nor a sample of runtime/metrics.
// Both in the run, as they were, the wall time of MUTAG's csm kernel
// under runexp (20 matrices a run, 30 runs by turns) was 0.567 ms on one
// thread against 0.538, and 0.389 ms on two against 0.369; what runOnce
// timed beyond the kernel's phases, 6–13 µs, is 3 µs.
func watchHeap(cancel context.CancelCauseFunc, limit int64, hs heapSampling) *heapWatch {
	w := &heapWatch{done: make(chan struct{}), hs: hs}
	every := hs.every
	if every <= 0 {
		every = defaultSampleEvery
	}
	check := func() {
		if v := w.sample(); limit > 0 && v > uint64(limit) && w.cancelled.IsZero() {
			w.cancelled = time.Now()
			cancel(errOOM)
		}
	}
	check()
	ready := make(chan struct{})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		close(ready)
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
			}
			check()
		}
	}()
	<-ready
	return w
}

func (w *heapWatch) sample() uint64 {
	v := w.hs.bytes()
	w.mu.Lock()
	w.peak = max(w.peak, v)
	w.mu.Unlock()
	return v
}

// stop ends the sampling and returns the peak, including a last sample.
func (w *heapWatch) stop() uint64 {
	close(w.done)
	w.wg.Wait()
	w.sample()
	return w.peak
}

// outcome is what one Gram run produced.
type outcome struct {
	status      string // StatusOK, StatusTimeout, StatusOOM or "error: ..."
	interrupted bool   // the parent context was cancelled: not a result
	report      *kernels.Report
	wall        time.Duration
	heapBase    uint64
	peak        uint64
	// note says what the automatic method chose.
	note string
	// ran is the method that computed the matrix, or was computing it
	// when the run ended; switched says the automatic method switched
	// to it from the explicit one.
	ran      kernels.Method
	switched bool
	// probe is the time of the automatic method's probes.
	probe time.Duration
	// cpu is the CPU time of the whole process during the run, 0 where
	// it is not known (see kernels.ProcessCPU).
	cpu time.Duration
	// c2c is the round trip of a cache line between two threads just
	// before a run on more than one, 0 for one thread or where it is not
	// known (see kernels.CoreLatency).
	c2c time.Duration
	// estimate is the kernel's memory estimate when it was refused
	// before running because the estimate exceeded the limit.
	estimate int64
	// lag is how long the kernel took to return after its run was
	// cancelled: kernels check their context only between graphs or
	// pairs, so a limit is overshot by up to one graph's work.
	lag time.Duration
}

// runBufs are the Workspaces of a cell's methods (see cellRun.methods):
// own, the run's, whose buffers the kernel reuses, and others, the other
// methods', which the run leaves alone.
type runBufs struct {
	own    *kernels.Workspace
	others []*kernels.Workspace
}

// kept returns the bytes the other methods' Workspaces hold.
func (b runBufs) kept() int64 {
	var n int64
	for _, w := range b.others {
		n += w.Bytes()
	}
	return n
}

// release drops the other methods' buffers.
func (b runBufs) release() {
	for _, w := range b.others {
		w.Release()
	}
}

// keptShare is the share of the memory limit, one in keptShare, up to
// which the buffers of a cell's other methods are kept beside a run: a
// few MiB on MUTAG and ENZYMES, against limits of GiBs, whose runs reuse
// them in the next round; where they are larger, so are the runs, and
// the collections they save matter less.
const keptShare = 16

// runOnce computes one Gram matrix under the limits and classifies how it
// ended; costs are the cost constants of the automatic method's advice
// (nil: the kernels' defaults), and bufs the Workspaces it runs with.
// Only the Gram call is timed; garbage from earlier runs is collected
// first so that it counts neither against the limit nor in the peak. Nor
// do the buffers that the other methods' Workspaces keep: the run's heap
// base and peak leave them out, and where the limit could not hold them
// beside the run, they are dropped first.
func runOnce(ctx context.Context, k kernels.Kernel, gs []*graph.Graph, m kernels.Method, lim Limits, threads int, hs heapSampling, costs kernels.Costs, bufs runBufs) outcome {
	if bufs.own != nil {
		ctx = kernels.WithWorkspace(ctx, bufs.own)
	}
	runtime.GC()
	kept := bufs.kept()
	base := int64(hs.bytes())
	// A kernel that can predict its memory is refused before it starts
	// when the prediction exceeds the limit: the sampler would stop it
	// only after it had allocated that much. The sampler sees the whole
	// heap, so the heap already in use and the Gram matrix itself, which
	// the estimate leaves out, count too. The buffers of the run's own
	// Workspace do not, as the estimate counts them, and nor do the other
	// methods', which the limit leaves out as the peak does. They are
	// kept only while they are small beside the limit (keptShare), and
	// the room is not short of them where the kernel can tell.
	var estimate int64
	if lim.Memory > 0 {
		n := int64(len(gs))
		room := lim.Memory - 8*n*n - (base - bufs.own.Bytes() - kept)
		est, ok := k.(kernels.MemoryEstimator)
		if ok {
			estimate = est.EstimateBytes(gs, m, max(room, 1))
			if estimate > room {
				return outcome{status: StatusOOM, estimate: estimate, heapBase: uint64(base - kept)}
			}
		}
		if kept > 0 && (kept > lim.Memory/keptShare || estimate > room-kept) {
			bufs.release()
		}
		if ok || kept > 0 {
			// The estimate's garbage, and the buffers released, are
			// collected before the run, so that they count neither in
			// its peak nor against its limit: the walk kernel's
			// estimate on 750 graphs of U251 at length 9 maps a sample,
			// 82 MiB, which had stayed in the peak of a run whose
			// Workspace spared it the collections.
			runtime.GC()
			kept, base = bufs.kept(), int64(hs.bytes())
		}
	}
	out := outcome{heapBase: uint64(base - kept)}
	if runtime.GOMAXPROCS(0) > 1 {
		// Before the helpers are woken, which would take the second
		// core from the probe. Runs on one thread record it too, so
		// that runexp speedup can pair runs on one thread and on more
		// whose cores were placed alike; with one core the probe would
		// only wait for a thread that cannot run.
		out.c2c, _ = kernels.CoreLatency()
	}
	// The helpers of a run on more threads are woken before the clock
	// starts, not by the run's first parallel loop (see kernels.Warm).
	if err := kernels.Warm(ctx, threads); err != nil {
		out.interrupted = true
		return out
	}
	// Nor do they retire at the run's sequential steps (see kernels.Hold).
	defer kernels.Hold(ctx)()
	runCtx, cancelMem := context.WithCancelCause(ctx)
	defer cancelMem(nil)
	limit := lim.Memory
	if limit > 0 {
		limit += kept
	}
	w := watchHeap(cancelMem, limit, hs)
	// The clock starts before the deadline is set, so that a run stopped
	// by its time limit never records a wall time below the limit.
	cpu0, cpuKnown := kernels.ProcessCPU()
	start := time.Now()
	if lim.Time > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeoutCause(runCtx, lim.Time, errTimeout)
		defer cancel()
	}

	rep, a, err := safeGram(runCtx, k, gs, m, costs)
	out.ran = m
	if m == kernels.Auto {
		out.ran = ""
		if a != nil {
			out.note, out.probe = autoNote(a), a.Probe
			out.ran, out.switched = a.Run, a.Switch != nil
			if out.switched {
				out.ran = kernels.Implicit
			}
		}
	}
	end := time.Now()
	out.wall = end.Sub(start)
	if cpu1, ok := kernels.ProcessCPU(); ok && cpuKnown {
		out.cpu = cpu1 - cpu0
	}
	cause := context.Cause(runCtx)
	out.peak = w.stop() - uint64(kept)
	out.report = rep
	if !w.cancelled.IsZero() {
		out.lag = end.Sub(w.cancelled)
	} else if lim.Time > 0 && out.wall > lim.Time {
		out.lag = out.wall - lim.Time
	}

	switch {
	case err == nil:
		out.status = StatusOK
	case ctx.Err() != nil:
		out.interrupted = true
	case errors.Is(cause, errOOM):
		out.status = StatusOOM
	case errors.Is(cause, errTimeout):
		out.status = StatusTimeout
	default:
		out.status = statusError + oneLine(err.Error())
	}
	return out
}

// safeGram calls k.Gram and turns a panic into an error, so that one
// broken cell is an error row instead of the end of a long run. The
// automatic method asks the kernel's advice with costs first, and returns
// it, if it got that far.
func safeGram(ctx context.Context, k kernels.Kernel, gs []*graph.Graph, m kernels.Method, costs kernels.Costs) (rep *kernels.Report, a *kernels.Advice, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("kernel %s panicked: %v", k.Name(), v)
		}
	}()
	if m == kernels.Auto {
		// The probes are part of the automatic method's time.
		_, rep, a, err = kernels.GramAuto(ctx, k, gs, kernels.AdviseOptions{Seed: 1, Costs: costs})
		return rep, a, err
	}
	_, rep, err = k.Gram(ctx, gs, m)
	return rep, nil, err
}

// autoNote says what the automatic method ran, which may be the explicit
// one where the implicit is predicted a little faster, and why.
func autoNote(a *kernels.Advice) string {
	note := fmt.Sprintf("auto chose %s (predicted explicit %.3gs, implicit %.3gs; probes %.3gs)",
		a.Run, a.Explicit.Seconds, a.Implicit.Seconds, a.Probe.Seconds())
	if a.Switch != nil {
		note += ", then " + a.Switch.String()
	}
	return note
}

// oneLine keeps a message on one line, for logs and CSV cells.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
