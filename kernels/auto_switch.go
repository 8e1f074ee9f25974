package kernels

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
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
// implicit one. Once switchCheck(n) graphs are mapped, the wall time of
// those after the first projects the rest of the maps, in the data set's
// order, and their vectors the dot products; where those would take more
// than switchFactor times the implicit prediction, in this machine's time
// (see switchGuard.measure), the explicit run is stopped and the implicit
// method computes the matrix instead. The time spent is then lost, but it
// is about a tenth of the maps, where staying would have cost all of
// them. The factor leaves room for the projection's
// error; at 1.5, 100 graphs of p_V 0.8 at length 7 stayed with an
// explicit run of 22 ms against the implicit 13 ms.
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
// The rest is the rest of the maps and the dot products, which the
// advice's sample of a few graphs predicts worst of all where a few heavy
// vectors carry them: 300 graphs of p_V 0.4 at length 9, predicted 0.13 s
// in all, took 0.2 s to map and 0.25 s for the dot products, against the
// implicit 0.16 s. So the guard estimates them anew from the vectors of
// the first check graphs mapped, as the advice does from its sample.
//
// The workers count their graphs without a lock: each of the first check
// leaves its vector in a slot of its own, and the worker that leaves the
// last counts them all, in the order the graphs were counted, while the
// others map on. Under a lock taken for every graph, with the packed
// map's keys of the first check numbered under it, MUTAG's maps at walk
// length 6 on two threads took 3.22–3.58 ms against 2.82–3.08 unguarded
// (medians of 100, by turns, far placement): the workers waited for each
// other's numbering. Without it they take 2.90–3.43 against 2.79–3.32.
type switchGuard struct {
	n, check int
	// limit is the time the rest may take, in nanoseconds as the model
	// prices them (see measure); unlimited until setLimit where the
	// explicit run began before the advice (see gramSpeculating).
	limit  atomic.Int64
	start  time.Time
	cancel context.CancelCauseFunc
	// dots prices the dot products of the n graphs, in the model's
	// wall time (spread over the threads).
	dots func(dotCounts) time.Duration

	// mapped counts the graphs mapped; the first check leave their
	// vectors in sample, and left counts those left. sampleMu is held
	// while the sample is counted, and while the private map rewrites
	// the ids of vectors that may be in it (see rewrite).
	mapped   atomic.Int64
	sample   []guardSample
	left     atomic.Int64
	sampleMu sync.Mutex
	// first is the time from start to the first graph's vector, in
	// nanoseconds; written by the first graph's worker, read once the
	// sample is counted.
	first atomic.Int64
	// counted is set once the sample is counted, which sets dot, the dot
	// products' estimate; the fields below are the counting worker's
	// until then.
	counted atomic.Bool
	dot     time.Duration
	// df counts the graphs with each feature among the first check
	// mapped, and nnz their non-zeros; vecs holds the first mergeSample
	// of their vectors.
	df   docFreqs
	nnz  int64
	vecs []Vec
	// keys numbers the features of the packed map's vectors (see
	// doneKeys).
	keys interner[key64]

	// measure, if not nil, times the implicit method on a few pairs
	// within about budget and returns this machine's seconds for a
	// second of their price in the model's constants, and the time it
	// took (see Walk.implicitSpeed). The guard calls it once, on the
	// worker that first projects the rest past measureAt times the
	// limit; the other workers then map on without projecting until it
	// is done. From then on the limit and the dot products' estimate,
	// which are the model's, count at that speed. threads is the number
	// of the maps' workers, by which the measurement's time is left out
	// of the maps' (see pause).
	measure func(budget time.Duration) (float64, time.Duration)
	threads int
	// speedState is unmeasured, measuring or measured; speed is set
	// before it turns measured, and pause, the measurement's time over
	// the workers, in nanoseconds.
	speedState atomic.Int32
	speed      float64
	pause      atomic.Int64

	// tripped is set by the one worker that stops the maps, which first
	// records, under mu, for the note of a switch, the graphs mapped,
	// the projected time of the rest and the limit it exceeded.
	tripped   atomic.Bool
	mu        sync.Mutex
	at        int
	projected time.Duration
	exceeded  time.Duration
}

// The states of a switchGuard's measurement of this machine's speed.
const (
	speedUnmeasured = iota
	speedMeasuring
	speedMeasured
)

// measureAt is the share of its limit past which the projection of the
// rest has the guard measure the implicit method's speed on this
// machine, below which it would not trip on a machine up to twice as
// fast as the model's constants; measureShare is the share of the limit
// the measurement may take.
const (
	measureAt    = 0.5
	measureShare = 0.01
)

// guardSample is one of the first graphs' vectors, left for the count:
// a vector of worker w of workers, whose ids are sorted or not, or the
// packed map's keys and counts.
type guardSample struct {
	v          Vec
	w, workers int
	sorted     bool
	keys       []uint64
}

// newSwitchGuard returns a guard of the maps of n graphs, whose dot
// products dots prices, and the context it cancels: the rest of the maps
// and the dot products may take up to limit.
func newSwitchGuard(ctx context.Context, n int, limit time.Duration, dots func(dotCounts) time.Duration) (*switchGuard, context.Context) {
	ctx, cancel := context.WithCancelCause(ctx)
	check := switchCheck(n)
	g := &switchGuard{n: n, check: check, start: time.Now(), cancel: cancel, dots: dots, sample: make([]guardSample, check)}
	g.limit.Store(int64(limit))
	return g, ctx
}

// noLimit is a switchGuard's limit before setLimit: none.
const noLimit = time.Duration(1<<63 - 1)

// setLimit sets the time the rest may take, and projects the rest at once
// where the first graphs are counted, as the next graph would: the rest
// of the maps, or, with every graph mapped, the dot products alone.
func (g *switchGuard) setLimit(limit time.Duration) {
	g.limit.Store(int64(limit))
	if g.counted.Load() {
		g.project(min(int(g.mapped.Load()), g.n))
	}
}

// done counts one more graph mapped, with graph vector v; a nil guard
// does nothing.
func (g *switchGuard) done(v Vec) { g.doneBy(v, 0, 1) }

// doneBy is done for a vector of worker w of the private map's workers
// (see privateMap), whose ids are the worker's own until the map is done,
// and unsorted: the guard counts them as other features than every other
// worker's, as id·workers + w, and keeps none of them for the merge
// joins: a sorted copy of each cost 1 ms of MUTAG's 5 ms at walk length 6
// on two threads. The guard reads v when it counts the first check
// graphs, so the map may renumber v's ids before (the pipeline's switch
// to the private map does), but not reuse them.
func (g *switchGuard) doneBy(v Vec, w, workers int) {
	if g == nil {
		return
	}
	g.add(guardSample{v: v, w: w, workers: workers, sorted: workers == 1})
}

// rewrite runs fn, which rewrites the ids of vectors given to doneBy, as
// the private map's workers renumber theirs into the union once their
// graphs are mapped, apart from the count of the sample, which another
// worker may run then, the check-th graph being its: the race detector
// caught a count reading ids that a third worker rewrote. Whether the
// count sees a vector's ids before or after doesn't matter (see doneBy);
// a nil guard just runs fn.
func (g *switchGuard) rewrite(fn func()) {
	if g == nil {
		fn()
		return
	}
	g.sampleMu.Lock()
	defer g.sampleMu.Unlock()
	fn()
}

// doneKeys is done for a vector of the packed map (see packedGram), whose
// features are sorted packed label sequences, and which the guard, while
// it counts features, numbers in an interner of its own, in the order it
// meets them: the ids are then unsorted, and none is kept for the merge
// joins, as none of the private map's is. keys and vals must not change
// until the map is done.
func (g *switchGuard) doneKeys(keys []uint64, vals []float64) {
	if g == nil {
		return
	}
	g.add(guardSample{v: Vec{Vals: vals}, workers: 1, keys: keys})
}

// add counts the graph of s, and projects the rest once the sample is
// counted.
func (g *switchGuard) add(s guardSample) {
	i := int(g.mapped.Add(1))
	if i == 1 {
		g.first.Store(int64(time.Since(g.start)))
	}
	if i <= g.check {
		g.sample[i-1] = s
		if int(g.left.Add(1)) == g.check {
			g.count()
			g.counted.Store(true)
			i = max(i, int(g.mapped.Load()))
		} else {
			return
		}
	}
	if i >= g.n || !g.counted.Load() {
		return
	}
	g.project(i)
}

// project stops the maps where the rest, after i graphs mapped, would take
// more than the limit.
func (g *switchGuard) project(i int) {
	if g.tripped.Load() || i < 2 {
		return
	}
	// The first map pays the start-up: the mapper's scan of the labels,
	// the first allocations of its tables and the first sequences. On
	// the walk generator's graphs (p_V 0.1 to 1, 100 and 300 graphs,
	// lengths 5 to 9, three seeds), the wall time of the first tenth
	// projected the maps at 1.12 times their time in the median (p90
	// 1.65; 1.53 for 100 graphs at length 5), and that of the graphs
	// after the first at 0.99 (p90 1.43; 1.15).
	speed := 1.0
	switch g.speedState.Load() {
	case speedMeasuring:
		return // the measuring worker projects when it is done
	case speedMeasured:
		speed = g.speed
	}
	el := time.Since(g.start) - time.Duration(g.pause.Load())
	first := time.Duration(g.first.Load())
	rest := float64(el-first)*float64(g.n-i)/float64(i-1) + speed*float64(g.dot)
	limit := speed * float64(g.limit.Load())
	if g.measure != nil && rest > measureAt*limit && g.speedState.Load() == speedUnmeasured {
		if g.speedState.CompareAndSwap(speedUnmeasured, speedMeasuring) {
			s, took := g.measure(time.Duration(measureShare * limit))
			g.speed = s
			g.pause.Add(int64(took) / int64(max(1, g.threads)))
			g.speedState.Store(speedMeasured)
			g.project(i)
		}
		return
	}
	if rest > limit && g.tripped.CompareAndSwap(false, true) {
		g.mu.Lock()
		g.at, g.projected, g.exceeded = i, time.Duration(rest), time.Duration(limit)
		g.mu.Unlock()
		g.cancel(errSwitch)
	}
}

// count counts the sample's vectors, in the order the graphs were
// counted, numbering the packed map's keys, and estimates the dot
// products from them.
func (g *switchGuard) count() {
	g.sampleMu.Lock()
	defer g.sampleMu.Unlock()
	for _, s := range g.sample {
		if s.keys != nil {
			s.v.IDs = make([]uint32, len(s.keys))
			for t, x := range s.keys {
				s.v.IDs[t], _ = g.keys.intern(key64(x))
			}
		}
		if s.sorted && len(g.vecs) < mergeSample {
			g.vecs = append(g.vecs, s.v)
		}
		g.nnz += int64(s.v.Len())
		for _, id := range s.v.IDs {
			g.df.add(int(id)*s.workers + s.w)
		}
	}
	g.sample = nil
	g.dot = g.estimateDots()
}

// mergeSample is the number of first vectors whose pairs' merge joins
// the guard counts: 496 pairs.
const mergeSample = 32

// dotCounts are the counts that price the dot products of all graphs:
// their non-zeros, Σ_f df_f², the bound of their ids, and the steps and
// turns of the merge joins of all pairs i ≤ j where the ids are too many
// to scatter (see dotTerms).
type dotCounts struct {
	nnz, df2, dim, steps, turns float64
}

// estimateDots estimates the dot products of all n graphs from the first
// check graphs' vectors: their non-zeros scaled to n, Σ_f df_f² without
// bias (see explicitProbe.predict), the bound of the ids grown as the
// features (see docFreqs.growth), and, where that exceeds scatterMaxDim,
// the merge joins from those of the pairs of the first mergeSample (see
// explicitProbe.mergeWork). The ids of graphs mapped before a switch
// from the pipeline to the parallel map are not those after, and the
// estimate then counts them as other features.
func (g *switchGuard) estimateDots() time.Duration {
	if g.dots == nil || g.check < 2 {
		return 0
	}
	n, m := float64(g.n), float64(g.check)
	c := dotCounts{nnz: float64(g.nnz) * n / m}
	c.df2 = c.nnz + n*(n-1)*g.df.pairs/(m*(m-1))
	c.dim = float64(g.df.bound) * g.df.growth(m, n)
	// Else no merge joins to count, or no vectors kept to count them on
	// (see doneBy).
	if mergeCheaper(n, c.nnz, (c.df2+c.nnz)/2) && c.dim > scatterMaxDim && len(g.vecs) > 1 {
		steps, turns := pairMerges(g.vecs)
		// A diagonal entry takes a step per non-zero.
		c.steps, c.turns = scaleMerges(n, float64(len(g.vecs)), steps, turns, c.nnz)
	}
	return g.dots(c)
}

// release frees the guard's context.
func (g *switchGuard) release() { g.cancel(nil) }

// switched returns the switch, if the guard stopped the maps.
func (g *switchGuard) switched() *Switch {
	if !g.tripped.Load() {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	sw := &Switch{Mapped: g.at, N: g.n, Took: time.Since(g.start), Projected: g.projected, Limit: g.exceeded}
	if g.speedState.Load() == speedMeasured {
		sw.Speed = g.speed
	}
	return sw
}

// Switch tells of an explicit run that a switchGuard stopped.
type Switch struct {
	// Mapped graphs of all N were mapped in Took before the rest of the
	// maps and the dot products were projected to take Projected, more
	// than the Limit the guard allowed.
	Mapped, N              int
	Took, Projected, Limit time.Duration
	// Speed is this machine's time for the model's on the implicit
	// method's pairs, by which the limit was scaled; 0 where the guard
	// did not measure it.
	Speed float64
}

// String formats the switch on one line.
func (s *Switch) String() string {
	at := ""
	if s.Speed > 0 {
		at = fmt.Sprintf(", the implicit method's pairs timed at %.3g times the model's constants", s.Speed)
	}
	return fmt.Sprintf("switched to implicit after %.3gs: the maps of %d of %d graphs projected %.3gs for the rest and the dot products, over the limit of %.3gs%s",
		s.Took.Seconds(), s.Mapped, s.N, s.Projected.Seconds(), s.Limit.Seconds(), at)
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
// stops it, given the advice's predictions and the cost constants.
type switcher interface {
	gramSwitching(ctx context.Context, gs []*graph.Graph, a *Advice, c Costs) (*mat.SymDense, *Report, *Switch, error)
}

// gramSwitching implements switcher. The rest of the maps and the dot
// products may take switchFactor times the implicit prediction.
func (k *Walk) gramSwitching(ctx context.Context, gs []*graph.Graph, a *Advice, c Costs) (*mat.SymDense, *Report, *Switch, error) {
	if len(gs) < 2 {
		K, rep, err := k.Gram(ctx, gs, Explicit)
		return K, rep, nil, err
	}
	g, gctx, kk := k.guarded(ctx, gs, c)
	defer g.release()
	g.setLimit(k.switchLimit(a))
	K, rep, err := kk.Gram(gctx, gs, Explicit)
	sw := g.switched()
	if err == nil || ctx.Err() != nil || sw == nil {
		return K, rep, nil, err
	}
	K, rep, err = k.Gram(ctx, gs, Implicit)
	return K, rep, sw, err
}

// guarded returns a switchGuard of the explicit maps of gs, without a
// limit, the context it cancels, and k watched by it. Its dot products
// are priced by the cost constants c.
func (k *Walk) guarded(ctx context.Context, gs []*graph.Graph, c Costs) (*switchGuard, context.Context, Kernel) {
	// The predictions are for one thread; both methods spread their
	// pairs evenly over the threads.
	threads := float64(threadsOr(k.Threads))
	model := newWalkModel(c)
	n := float64(len(gs))
	dots := func(c dotCounts) time.Duration {
		return time.Duration(model.dotSeconds(n, c) / threads * 1e9)
	}
	g, gctx := newSwitchGuard(ctx, len(gs), noLimit, dots)
	g.threads = threadsOr(k.Threads)
	g.measure = func(budget time.Duration) (float64, time.Duration) {
		return k.implicitSpeed(gctx, gs, model, budget)
	}
	kk := *k
	kk.guard = g
	return g, gctx, &kk
}

// implicitSpeed returns this machine's seconds for a second of the
// implicit method's work as the model m prices it, timed on random pairs
// of gs, and the time it took. The limit of a switchGuard is the model's
// implicit prediction, while its projection of the maps is this
// machine's time: on a 2-core EPYC VM whose implicit runs took 1.7–2.4
// times their predictions by the default constants, the guard stopped
// explicit runs that would have been faster than the implicit ones it ran
// instead, in 3 of the 30 cells of the walk grid of auto-vs-oracle
// (200 graphs of p_V 0.25 at length 9, explicit 0.196 s, implicit 0.253,
// auto 0.266 after its switch). The pairs after the first, which pays the
// workspace's first allocations, are timed until they took budget, at
// least minSpeedPairs and at most maxSpeedPairs of them; their speed is
// bounded as the explicit probe's is (see machineSpeed).
func (k *Walk) implicitSpeed(ctx context.Context, gs []*graph.Graph, m walkModel, budget time.Duration) (float64, time.Duration) {
	start := time.Now()
	if len(gs) == 0 {
		return 1, 0
	}
	pw := newPairWorkspace(k, gs, true)
	r := rand.New(rand.NewPCG(uint64(len(gs)), 0x7370656564)) // "speed"
	budget = max(budget, minSpeedBudget)
	l := float64(k.Length)
	var (
		took   time.Duration
		priced float64
	)
	for t := 0; t <= maxSpeedPairs && ctx.Err() == nil; t++ {
		g, h := gs[r.IntN(len(gs))], gs[r.IntN(len(gs))]
		if pw.dirac {
			// The implicit method indexes each graph's labels once
			// for all its pairs; timed with the pair, a new graph's
			// index took most of a small pair's time, and put a
			// machine about twice as slow as the model's constants
			// at four times on 100 graphs of p_V 0.3 at length 9.
			pw.labelIndexOf(g)
			pw.labelIndexOf(h)
		}
		var rep Report
		t0 := time.Now()
		pw.pair(g, h, &rep)
		d := time.Since(t0)
		if t == 0 {
			continue
		}
		took += d
		priced += m.implicitPairSeconds(pw, g, h, &rep, l)
		if t >= minSpeedPairs && took >= budget {
			break
		}
	}
	return machineSpeed(took, priced), time.Since(start)
}

// minSpeedPairs and maxSpeedPairs bound the pairs implicitSpeed times,
// and minSpeedBudget its budget from below: pairs of a few hundred
// product vertices take a microsecond or two, and a budget of a
// hundredth of a limit of 28 ms priced too little to tell.
const (
	minSpeedPairs  = 4
	maxSpeedPairs  = 4096
	minSpeedBudget = 100 * time.Microsecond
)

// implicitPairSeconds prices the pair of g and h that pw evaluated last,
// whose counts rep holds, as implicitProbe.predict prices the pairs of a
// data set.
func (m walkModel) implicitPairSeconds(pw *pairWorkspace, g, h *graph.Graph, rep *Report, l float64) float64 {
	v := float64(rep.ProductVertices)
	if pw.dirac {
		return sumTerms(m.implicitDiracTerms(1, v, float64(rep.ProductEdges), l))
	}
	return sumTerms(m.implicitGenericTerms(1, float64(pw.candidates(g, h)), v, float64(len(pw.adj)), l))
}

// switchLimit returns the time that the rest of the explicit maps and the
// dot products may take under the advice a: switchFactor times the
// implicit prediction, which is for one thread.
func (k *Walk) switchLimit(a *Advice) time.Duration {
	return time.Duration(switchFactor * a.Implicit.Seconds / float64(threadsOr(k.Threads)) * 1e9)
}

// dotSeconds prices the dot products of n graph vectors with counts c by
// the scheme gramFromVecs takes, on one thread.
func (m walkModel) dotSeconds(n float64, c dotCounts) float64 {
	ts, _ := dotTerms(nil, m, n, c.nnz, c.df2, c.dim, func() (float64, float64) { return c.steps, c.turns })
	return sumTerms(ts)
}
