package kernels

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// Parallel explicit Gram matrices of the walk kernel.
//
// The map of graph i and the dot products of the column j = i, ⟨φ_h, φ_i⟩
// for h ≤ i, can overlap: the graphs are mapped in order, and workers
// compute the columns of the graphs mapped so far. There are four ways to
// map them:
//   - The pipeline (see walk_pipe.go): the mapper runs the rounds before
//     the last, and a worker the last round of each graph, with an
//     interner of its own. It is taken wherever it applies: the fixed
//     length kernel with Dirac base kernels. On two threads it was
//     the fastest of the first three on MUTAG at lengths 7 and 9, ENZYMES
//     at 6 and U251 at 8, or within the noise of the fastest.
//   - The overlap: one goroutine maps the graphs in order, as the
//     sequential map does, and the others compute the columns. That hides
//     the dot products behind the map without the cost of a shared
//     interner, whose cross-core traffic and extra work made the parallel
//     map of MUTAG at length 7 only 1.3× faster on two cores.
//   - The parallel map (see walkMapper.mapShared), of all graphs after
//     the first by all threads with one shared interner.
//   - The private map (see walk_private.go), of all graphs after the
//     pipeline's first by all threads, each with an interner of its own,
//     whose sequences are numbered in one when their graphs are mapped.
//     Its dot products wait for the map. It is taken after the
//     pipeline's first graphs where they met few sequences: short walks.
//   - The packed map (see walk_packed.go), of all graphs by all threads
//     with no interner: a sequence's labels are its key. It is taken,
//     before the others, where the pipeline would be and a sequence's
//     labels take 28 to 96 bits, as after WL refinement or for long walks:
//     there the interners, large and out of cache, were most of the map;
//     and at lengths 1 and 2 where they take at most packedDirectBits,
//     whose keys a table of every key ranks (see directPacked). Its dot
//     products wait for the map.
// After the first graphs the mapper compares the ways, as measured so
// far, and maps the rest in parallel where that is predicted faster: the
// parallel map's CPU time is about 30% above the others', but its map
// scales with the threads, and the other two map on one or two. Where
// gramFromVecs would take posting lists, the column workers go on by
// posting lists too, a block of columns at a time (see useBlocks): by
// merge joins, four times the work, they would get through about a
// quarter of MUTAG's dot products at length 9 while its map runs, and by
// blocks they leave 4–12 ms of its 45 ms. The columns not done while
// mapping are computed at the end, by the scheme gramFromVecs would
// choose.

// sharedKeyCost is the extra time, in seconds, that a new sequence costs
// the parallel map over the sequential one: the other threads' caches
// miss the slot it was written to, and the lock. On this machine the
// parallel map of MUTAG at length 7 spent 3.4 ms more CPU than the
// sequential one on its 20k sequences.
const sharedKeyCost = 150e-9

// overlapCheck returns the number of graphs mapped before the choice: a
// sixteenth of them, at least 8.
func overlapCheck(n int) int { return min(n, max(8, n/16)) }

// overlapGram holds the state the mapper shares with the column workers.
type overlapGram struct {
	vecs []Vec
	// tops[i] is idBound(vecs[:i+1]), kept as the vectors are published
	// rather than counted again for every column.
	tops []int
	// K is the matrix, which matrix allocates once.
	K     *mat.SymDense
	alloc sync.Once

	mu   sync.Mutex
	cond *sync.Cond
	// changes counts the changes of the state below that wake, which
	// wait spins on before it sleeps.
	changes atomic.Uint64
	// mapped graphs are in vecs, whose ids have weights (nil without
	// lengthWeights); columns up to next are taken; stop ends the column
	// workers.
	mapped, next int
	weights      []float64
	stop         bool
	err          error
	// block, once positive, is the number of columns a worker takes at
	// a time, by posting lists (see useBlocks); until then a worker
	// takes one column, by merge joins.
	block int
	// dots and dotTime are the dot products computed so far and their
	// time.
	dots    int64
	dotTime time.Duration

	// pipe, once not nil, maps the last round of the graphs handed over
	// in queue, in order, one at a time (see mapPiped); piping is set
	// while a worker runs it. queued is the bytes of the per-vertex
	// vectors in queue, and free holds those the last round is done
	// with, for the mapper to reuse.
	pipe   *walkMapper // the last round's mapper, with its own interner
	gs     []*graph.Graph
	queue  []handoff
	queued int
	piping bool
	free   []csrVecs
	// due is whether a last round waits for a worker: len(queue) > 0
	// and not piping. A worker in a column reads it after each row.
	due atomic.Bool
	// lastTime is the time of the last rounds done so far, of the
	// graphs up to mapped, and lastSeqs the sequences they interned.
	lastTime time.Duration
	lastSeqs int

	// private, once not nil, is the private map that mapped the graphs
	// after the pipeline's first (see switchPrivate).
	private *privateMap

	// bufs are the buffers lent by the context's Workspace, if any.
	bufs *walkBufs
}

// work runs the tasks of a worker until stopped, until done, if not nil,
// reports true (it is called under o.mu), or until no task is left: the
// last round of the next graph handed over, if no other worker runs it,
// since the columns wait for it, or else a column of graphs already
// mapped. A column is taken only once its graph is mapped, and a block
// once all of its graphs are, so a stop waits for no map.
func (o *overlapGram) work(ctx context.Context, done func() bool) {
	o.matrix()
	// c.sc is the arrays of gramBlockedInto, its index of one element
	// per feature id of the blocks so far, and c.dense the array of a
	// column's values (see column).
	c := o.bufs.takeCol()
	defer func() { o.bufs.putCol(c) }()
	sc := &c.sc
	// between runs a last round that is due in the midst of a column:
	// the columns of the graphs after it wait for it, and the chain of
	// last rounds is, with the mapper's, the pipeline's critical path.
	// aside is the time it took, which the column's time leaves out.
	var aside time.Duration
	between := func() {
		if o.due.Load() {
			t := time.Now()
			o.runDue(ctx)
			aside += time.Since(t)
		}
	}
	for {
		o.mu.Lock()
		for {
			if o.stop || o.err != nil || o.next >= len(o.vecs) || (done != nil && done()) {
				o.mu.Unlock()
				return
			}
			if o.lastReady() || o.mapped >= o.next+max(1, o.block) {
				break
			}
			o.wait()
		}
		if o.lastReady() {
			h := o.takeLast()
			o.mu.Unlock()
			o.lastRound(ctx, h)
			continue
		}
		c0, c1, w := o.next, o.next+max(1, o.block), o.weights
		blocked := o.block > 0
		o.next = c1
		o.mu.Unlock()
		if err := ctx.Err(); err != nil {
			o.fail(err)
			return
		}
		t := time.Now()
		aside = 0
		if blocked {
			if top := idBound(o.vecs[c0:c1]); len(sc.pos) < top {
				sc.pos = make([]int32, top+top/4)
			}
			if err := gramBlockedInto(ctx, o.K, o.vecs[:c1], w, sc, gramBlockBytes, 1, c0, false, 0, between); err != nil {
				o.fail(err)
				return
			}
		} else {
			c.dense = o.column(c0, w, c.dense, between)
		}
		d := time.Since(t) - aside
		o.mu.Lock()
		o.dots += int64(c1*(c1+1)/2 - c0*(c0+1)/2)
		o.dotTime += d
		o.mu.Unlock()
	}
}

// column computes column j of the Gram matrix, the graphs mapped so far
// against graph j, with weights w, calling between every 16 rows. Where
// the ids are below scatterMaxDim, it scatters φ_j into dense, grown as
// needed and returned, and gathers each row's products from it: the
// products (w·a)·b of the merge joins, in the same order, as gramMergeInto
// gathers them (see gatherDot), with the row's values and weights on the
// left. Else it merges the sorted ids.
func (o *overlapGram) column(j int, w []float64, dense []float64, between func()) []float64 {
	raw := o.K.RawSymmetric()
	vj := o.vecs[j]
	top := o.tops[j]
	if top > scatterMaxDim {
		for i := 0; i <= j; i++ {
			raw.Data[i*raw.Stride+j] = weightedDot(o.vecs[i], vj, w)
			if i%16 == 15 {
				between()
			}
		}
		return dense
	}
	if len(dense) < top {
		dense = make([]float64, top+top/4)
	}
	for t, id := range vj.IDs {
		dense[id] = vj.Vals[t]
	}
	for i := 0; i <= j; i++ {
		vi := o.vecs[i]
		vals := vi.Vals[:len(vi.IDs)]
		var s float64
		if w == nil {
			for t, id := range vi.IDs {
				s += vals[t] * dense[id]
			}
		} else {
			for t, id := range vi.IDs {
				s += w[id] * vals[t] * dense[id]
			}
		}
		raw.Data[i*raw.Stride+j] = s
		if i%16 == 15 {
			between()
		}
	}
	for _, id := range vj.IDs {
		dense[id] = 0
	}
	return dense
}

// matrix returns the Gram matrix, which the first caller allocates: a
// column worker, as a rule, which has nothing to do until the first graph
// is mapped, so that the mapper does not. MUTAG's takes 35–48 µs (see
// gramAheadMin), and on two threads at length 3 the mapper's chain of
// rounds is the critical path of the map.
func (o *overlapGram) matrix() *mat.SymDense {
	o.alloc.Do(func() { o.K = newFaultedSymDense(len(o.vecs)) })
	return o.K
}

// wake tells the goroutines in wait that the state changed. The caller
// holds o.mu.
func (o *overlapGram) wake() {
	o.changes.Add(1)
	o.cond.Broadcast()
}

// overlapSpin is how long wait spins before it sleeps.
const overlapSpin = 300 * time.Microsecond

// wait waits for a change of the state, as o.cond.Wait does, but spins
// for overlapSpin first, yielding to the scheduler as it goes. The caller
// holds o.mu. A goroutine that sleeps leaves its core to halt, and on a
// virtual machine the host takes 60–130 µs and more to wake it again
// (see Crew): the column worker that waited for the pipeline's first
// graph slept, and took 240–290 µs to wake on MUTAG at length 5.
func (o *overlapGram) wait() {
	seen := o.changes.Load()
	o.mu.Unlock()
	deadline := time.Now().Add(overlapSpin)
	for spins := 0; o.changes.Load() == seen; spins++ {
		if spins%64 == 63 {
			if time.Now().After(deadline) {
				break
			}
			relax()
		}
	}
	o.mu.Lock()
	if o.changes.Load() == seen {
		o.cond.Wait()
	}
}

// useBlocks makes the column workers take the columns of size graphs at
// a time, by posting lists. Merge joins cost about four times the steps
// of posting lists where gramFromVecs takes these (see mergeCheaper), and
// a column's posting lists would have to be built for the column alone,
// and looked up by every row above it. With a sixteenth of the graphs a
// block, the rows' look-ups cost about 8/n of the merge joins.
func (o *overlapGram) useBlocks(size int) {
	o.mu.Lock()
	o.block = size
	o.wake()
	o.mu.Unlock()
}

func (o *overlapGram) fail(err error) {
	o.mu.Lock()
	if o.err == nil {
		o.err = err
	}
	o.wake()
	o.mu.Unlock()
}

// publish makes graph i's vector, and the weights of its ids, visible to
// the column workers.
func (o *overlapGram) publish(i int, v Vec, weights []float64) {
	o.mu.Lock()
	o.add(i, v)
	o.weights = weights
	o.wake()
	o.mu.Unlock()
}

// add sets graph i's vector, the next in order, under o.mu.
func (o *overlapGram) add(i int, v Vec) {
	o.vecs[i] = v
	o.tops[i] = idBound(o.vecs[i : i+1])
	if i > 0 {
		o.tops[i] = max(o.tops[i], o.tops[i-1])
	}
	o.mapped = i + 1
}

// halt stops the column workers after their current column and returns
// the number of columns taken.
func (o *overlapGram) halt() int {
	o.mu.Lock()
	o.stop = true
	o.wake()
	o.mu.Unlock()
	return o.next
}

// explicitGram computes the explicit Gram matrix on threads > 1
// goroutines (see the comment at the top of this file). The matrix is the
// sequential one to the bit: the overlapped map is the sequential map, the
// pipeline numbers the sequences in the sequential map's order (see
// walk_pipe.go), and the parallel and private maps are taken only for
// integer counts small enough that the dot products do not depend on the
// ids' order. Its Report's TPhi is the wall time until the last vector,
// with the dot products done meanwhile, and TDot the rest.
func (k *Walk) explicitGram(ctx context.Context, gs []*graph.Graph, threads int, rep *Report) (*mat.SymDense, error) {
	return k.explicitGramBy(ctx, gs, threads, rep, chooseAuto)
}

// overlapChoice is how explicitGramBy maps the graphs: the way predicted
// fastest, or always one where it applies (for tests).
type overlapChoice int

const (
	chooseAuto overlapChoice = iota
	// chooseOverlap overlaps the sequential map with the columns.
	chooseOverlap
	// chooseShared overlaps the map of the first graphs, and maps the
	// rest in parallel.
	chooseShared
	// choosePipe pipes the map of every graph.
	choosePipe
	// choosePipeShared pipes the map of the first graphs, and maps the
	// rest in parallel.
	choosePipeShared
	// choosePrivate maps every graph by the private map.
	choosePrivate
	// choosePipePrivate pipes the map of the first graphs, and maps the
	// rest by the private map.
	choosePipePrivate
	// choosePacked maps the graphs by packed label sequences where they
	// fit (see packedGram), and as chooseAuto would elsewhere.
	choosePacked
)

// pipes reports whether explicitGramBy maps the graphs in the pipeline
// (mapPiped) for how.
func (k *Walk) pipes(b *walkMapper, how overlapChoice) bool {
	return how != chooseOverlap && how != chooseShared && k.pipeable(b)
}

// explicitGramBy is explicitGram with the choice of how.
func (k *Walk) explicitGramBy(ctx context.Context, gs []*graph.Graph, threads int, rep *Report, how overlapChoice) (*mat.SymDense, error) {
	n := len(gs)
	b, err := k.newMapper(gs)
	if err != nil {
		return nil, err
	}
	// Whether the walk counts allow ids in any order, counted only where
	// a parallel map is considered.
	exact := sync.OnceValue(func() bool { return k.walksExact(gs) })
	if vb, eb, ok := k.packs(b, gs, threads, how, exact); ok {
		return k.packedGram(ctx, gs, vb, eb, threads, rep)
	}
	wb := takeWalk(ctx)
	wb.lendMapper(b)
	o := &overlapGram{vecs: make([]Vec, n), tops: make([]int, n), bufs: wb, free: wb.free}
	o.cond = sync.NewCond(&o.mu)
	var working atomic.Int32
	// begun[w] is set by column worker w as it begins, or by stop where
	// it has not begun, which then never begins.
	var begun []atomic.Bool
	if k.pipes(b, how) && switchesPrivate(b, how, 0, privateAt(how, b), exact) {
		// No column would be left to a column worker: the helper
		// allocates the matrix, which the column worker did first,
		// and joins the private map. Started as a column worker, it
		// was stopped before it could map a graph, and the private map
		// waited for it to allocate the matrix and stop, 34–40 µs
		// after the Gram matrix began on 200 ENZYMES graphs at length
		// 3, where it now begins after 18–60 (a test binary); under
		// runexp, that matrix and Build's largest degrees (see
		// walkBound) took 1.135 ms to 1.092 on two threads.
		goBrief(ctx, func() { o.matrix() })
	} else {
		begun = make([]atomic.Bool, max(0, threads-1))
		for w := range begun {
			working.Add(1)
			goWith(ctx, func() {
				if !begun[w].CompareAndSwap(false, true) {
					return
				}
				defer working.Add(-1)
				o.work(ctx, nil)
			})
		}
	}
	// stop stops the workers and returns the number of columns they
	// took. It waits for them spinning, as Crew.run does for its
	// helpers: parked in a WaitGroup, the mapper was woken on the
	// worker's core, whose goroutine then waited for the other core to
	// wake, and the private map's second worker started 59 µs late in
	// the median on MUTAG at length 3 (p90 0.6 ms). A worker whose
	// helper is still busy, as with the advice that auto runs beside
	// the map (see gramSpeculating), is not waited for: it will not
	// begin.
	stop := func() int {
		from := o.halt()
		for w := range begun {
			if begun[w].CompareAndSwap(false, true) {
				working.Add(-1)
			}
		}
		for working.Load() > 0 {
			relax()
		}
		return from
	}
	start := time.Now()
	var features int
	if k.pipes(b, how) {
		features, err = o.mapPiped(ctx, b, gs, threads, how, stop, exact)
	} else {
		features, err = o.mapOverlapped(ctx, b, gs, threads, how, stop, exact)
	}
	// The columns from on are left to gramFrom. It starts while a worker
	// may still be in a block of columns before from, which it then
	// finishes beside gramFrom's threads: waiting for it left the other
	// core idle for up to the block's time, 1–2 ms of MUTAG's 45 at
	// length 9, and gramFrom begins with a sequential pass.
	from := o.halt()
	if err == nil {
		o.mu.Lock()
		err = o.err
		o.mu.Unlock()
	}
	if err != nil {
		stop()
		return nil, err
	}
	rep.TPhi = time.Since(start)
	noteVecs(rep, o.vecs)
	rep.Features = int64(features)
	t := time.Now()
	K := o.matrix()
	if p := o.private; p != nil {
		// The private map's ids are unsorted.
		rep.FeatureProducts, err = gramFromStats(ctx, K, o.vecs, b.weights, p.nnz, p.df, threads, from, false, &wb.gram)
	} else {
		rep.FeatureProducts, err = gramFrom(ctx, K, o.vecs, b.weights, threads, from, &wb.gram)
	}
	stop()
	if err == nil {
		err = o.err
	}
	if err != nil {
		return nil, err
	}
	rep.TDot = time.Since(t)
	wb.maps[0] = b.mapBufs
	if p := o.private; p != nil {
		wb.keepPrivate(p)
	}
	if pm := o.pipe; pm != nil {
		wb.maps[1] = pm.mapBufs
		// The last round's per-vertex vectors are the queue's, now
		// in free.
		wb.maps[1].cur = csrVecs{}
	}
	wb.free = o.free
	wb.giveBack()
	return K, nil
}

// packs reports whether explicitGramBy maps gs with b's kernel by packed
// label sequences (see packedGram), and the bits of a vertex and an edge
// label: on threads > 1, where the pipeline would map them, a sequence
// takes packedMinBits to packedMaxBits, its sequences are not so few that
// the interner stays in cache (see fewSequences), and exact reports the
// walk counts exact in any order; where how asks for it, on any threads,
// wherever the labels pack and the counts are exact. At lengths 1 and 2
// a sequence of at most packedDirectBits is packed too, its walks counted
// one by one and its keys ranked by a table (see directPacked): under
// runexp, two threads against one (rounds by turns), MUTAG's matrix
// without refinement at length 1 went from 1.46× to 1.92× and at length
// 2 from 1.62× to 2.13× (39 rounds, near placement), ENZYMES's from 1.29×
// and 1.39× to 1.89× and 1.92×, NCI1's from 1.57× and 1.74× to 1.75× and
// 1.96× (4–5 rounds, far), against the private map and the pipeline.
func (k *Walk) packs(b *walkMapper, gs []*graph.Graph, threads int, how overlapChoice, exact func() bool) (vb, eb uint, ok bool) {
	if how != chooseAuto && how != choosePacked || !k.pipeable(b) || threads < 2 && how != choosePacked {
		return 0, 0, false
	}
	// The mapper's label ranges: a second pass over the labels took
	// 35 µs of ENZYMES's matrix at length 3 on two threads (1.45 ms).
	vb, eb, labels, ok := packedBitsOf(b.nVL, b.nEL, k.Length)
	width := packedWidth(k.Length, vb, eb)
	direct := width <= packedDirectBits && k.Length <= 2
	if !ok || how != choosePacked && !direct && (width < packedMinBits || fewSequences(gs, k.Length, labels)) || !exact() {
		return 0, 0, false
	}
	return vb, eb, true
}

// fewSequences reports whether the label sequences of length l of gs,
// whose vertex labels range over labels (the largest + 1: WL's colours
// and a data set's labels are dense), are so few that the sequential
// map's interner stays in cache, as where they take fewer than
// packedMinBits: where the graphs have fewer than packedMinWalks walks
// (see walkEstimate) and fewer labels than an eighth of their vertices,
// so that their sequences repeat. On MUTAG after one and two WL
// iterations, 64 and 277 labels for 3371 vertices (a test binary, medians
// of 20, two threads), the private map took 0.37 ms at length 2 after one
// where the packed map took 0.53, 0.54 against 0.65 after two, 0.80
// against 1.05 at length 3 after one (36k walks), and 1.09 against 1.02
// after two; after three iterations, 796 labels, the packed map was as
// fast or faster from length 2 on.
func fewSequences(gs []*graph.Graph, l, labels int) bool {
	walks, vertices := walkEstimate(gs, l)
	return walks < packedMinWalks && 8*float64(labels) < vertices
}

// packedMinWalks is the fewest walks (see walkEstimate) for which the
// interner outgrows the cache whatever the labels: on MUTAG at length 4
// (79k walks) the packed map took 1.76 ms after one WL iteration against
// the private map's 1.77 and the pipeline's 2.21, and 2.07 after two
// against 2.46 and 2.61; at length 5 (175k walks) 3.51 and 4.59 against
// the private map's 3.89 and 6.00 and the pipeline's 3.95 and 5.86 (a
// test binary, medians of 20, two threads, with rankScratch.rank's
// table).
const packedMinWalks = 1 << 16

// walkEstimate estimates the walks of length l in gs from their arcs and
// mean degree, arcs · (arcs/vertices)^(l−1), an arc being a walk of length
// 1, and returns it with the vertices.
func walkEstimate(gs []*graph.Graph, l int) (walks, vertices float64) {
	var arcs float64
	for _, g := range gs {
		arcs += float64(len(g.Adj))
		vertices += float64(g.N())
	}
	if vertices == 0 {
		return 0, 0
	}
	return arcs * math.Pow(arcs/vertices, float64(max(0, l-1))), vertices
}

// mapOverlapped maps the graphs in order with b, publishing each vector
// for the column workers, or, after the first graphs, where how or the
// prediction asks for it and exact reports the walk counts exact in any
// order, maps the rest in parallel after calling stop. It returns the
// sequences interned in all.
//
// Without exact counts the parallel map would stop at the first graph
// with too many walks, and the rest would be mapped in sequence with the
// column workers stopped: ENZYMES at length 9 on two threads took 382 ms
// so against the overlap's 295 ms, and one thread's 495 ms.
func (o *overlapGram) mapOverlapped(ctx context.Context, b *walkMapper, gs []*graph.Graph, threads int, how overlapChoice, stop func() int, exact func() bool) (int, error) {
	n := len(gs)
	start := time.Now()
	check := overlapCheck(n)
	for i := 0; i < n; i++ {
		if i == check {
			share := o.schemeShare(n)
			if share < 1 {
				o.useBlocks(check)
			}
			if b.dirac && !b.k.lengthWeights() && how != chooseOverlap &&
				(how == chooseShared || o.preferShared(n, threads, time.Since(start), b.size(), share) && exact()) {
				shared := sharedInternerOf(&b.fast)
				stop()
				err := b.mapShared(ctx, gs[i:], o.vecs[i:], shared, threads)
				if err == nil {
					return shared.len(), nil
				}
				if !errors.Is(err, errInexact) {
					return 0, err
				}
				// Counts too large for any order of the sums: the
				// rest is mapped in sequence after all.
			}
		}
		v, err := b.graphVector(ctx, gs[i])
		if err != nil {
			o.fail(err)
			return 0, err
		}
		o.publish(i, v, b.weights)
	}
	return b.size(), nil
}

// preferShared reports whether mapping the rest of the n graphs in
// parallel is predicted faster than overlapping the sequential map with
// the dot products, from the map of the first graphs, which took mapTime
// and interned features sequences, the merge joins of their columns, and
// share, the cost of gramFromVecs's scheme over the merge joins'.
//
// With the map taking P and the dot products D by the scheme gramFromVecs
// will take, the overlap takes P + (1−f)·D/threads, where f is the share
// of the columns the column workers get through while the map runs. They
// cost the workers M: the merge joins, or where gramFromVecs takes
// posting lists, D and the look-ups of the blocks' rows (see useBlocks).
// Column j becomes available at time P·j/n and costs dot products with j
// graphs, so the available work grows as M·(t/P)²: the workers keep up
// with it until t* = P²/(2(threads−1)M) and are busy after, which gives
// f = min(1, ((threads−1)·P − P²/(4M))/M) for t* ≤ P.
// The parallel map takes (P + F·sharedKeyCost + D)/threads for F
// sequences in all, extrapolated linearly from the first graphs (an
// upper bound: later graphs share more of theirs). On MUTAG at length 7
// and 9 this picks the overlap, on ENZYMES at 6 and U251 at 8 the
// parallel map, the faster of the two in each, measured.
func (o *overlapGram) preferShared(n, threads int, mapTime time.Duration, features int, share float64) bool {
	o.mu.Lock()
	dots, dotTime, m := o.dots, o.dotTime, o.mapped
	o.mu.Unlock()
	if m == 0 {
		return false
	}
	nf, t := float64(n), float64(threads)
	p := mapTime.Seconds() * nf / float64(m)
	if dots == 0 {
		// Not one column done while the first graphs were mapped:
		// the map dominates.
		return true
	}
	merge := dotTime.Seconds() / float64(dots) * nf * (nf + 1) / 2
	d := merge * share
	cols := merge
	if share < 1 {
		cols = d + merge*8/(nf+1)
	}
	w := t - 1 // column workers
	f := 1.0
	if p*p/(2*w*cols) <= p {
		f = min(1, (w*p-p*p/(4*cols))/cols)
	}
	overlap := p + (1-f)*d/t
	shared := (p + float64(features)*nf/float64(m)*sharedKeyCost + d) / t
	return shared < overlap
}

// schemeShare returns the cost of gramFromVecs's scheme for n graphs
// like the ones mapped so far relative to merge joins, as mergeCheaper
// weighs them: 1 where it takes merge joins, else the posting lists'
// cost over the merge joins'. Σ_f df_f² is estimated from the sample's
// document frequencies without bias (see explicitProbe.predict).
func (o *overlapGram) schemeShare(n int) float64 {
	o.mu.Lock()
	vecs := o.vecs[:o.mapped]
	o.mu.Unlock()
	m := float64(len(vecs))
	if m < 2 {
		return 1
	}
	nnz, df := featureStats(vecs)
	var pp float64
	for _, d := range df {
		pp += float64(d) * float64(d-1)
	}
	nf := float64(n)
	total := float64(nnz) * nf / m
	products := (2*total + nf*(nf-1)*pp/(m*(m-1))) / 2
	if total == 0 {
		return 1
	}
	// mergeCheaper weighs a posting-list step as four merge steps.
	return min(1, 4*(nf*nf/2+products)/((nf+1)*total))
}
