package kernels

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gkbench/gkbench/graph"
)

// The pipelined map of the walk kernel's parallel explicit Gram matrix.
//
// The last round of a graph's map, which extends the walks one shorter
// than the kernel's into the graph vector, takes about half of the map
// (49–52% on MUTAG at lengths 7 and 9 and ENZYMES at 6), and it needs
// the other rounds only through their per-vertex vectors. So the mapper
// runs the rounds before the last, and hands each graph's per-vertex
// vectors over to a worker, which runs the last round with an interner of
// its own, for the sequences of full length, and publishes the vector.
// The two chains of rounds, each in graph order, run side by side, and
// the columns fill the workers' time around the last rounds. Unlike the
// parallel map (see walkMapper.mapShared), neither chain shares an
// interner: split in two, the map of MUTAG at length 9 costs 3–10% more
// CPU time than the sequential one, where the parallel map costs 30%.
//
// The vectors' ids are the last round's interner's, not the sequential
// map's, but in the same order: the last round's interner meets the
// sequences of full length graph by graph, in order, and within a graph
// in the order the sequential map's last round meets them, as neither
// round's order depends on the values of the ids (each vertex's prefixes
// are in the order first met, its pairs of labels sorted by labels). So
// the vectors, sorted by id, list their sequences in the same order as
// the sequential map's, and each dot product sums the same terms in the
// same order. The pipeline is taken only where the vectors hold sequences
// of full length alone, which have no weights (not Max), and the matrix is
// then the sequential one to the bit, whatever the walk counts. Its
// switches to the private map and to the parallel map, whose ids are in
// another order, are taken only where the walk counts are small enough
// that the dot products are exact in any order (see exactCount).

// pipeDepth is the number of graphs the mapper may hand over ahead of the
// last round, and pipeBytes the most their per-vertex vectors may take
// (but for one graph's): enough that neither chain waits for the other,
// little enough that the memory estimates can leave them out.
const (
	pipeDepth = 16
	pipeBytes = 8 << 20
)

// bytes returns the memory c's arrays take.
func (c *csrVecs) bytes() int { return 4*len(c.off) + 12*len(c.ids) }

// handoff is graph i with the per-vertex vectors of its walks one shorter
// than the kernel's.
type handoff struct {
	i   int
	cur csrVecs
}

// pipeable reports whether the graphs' map may be pipelined: a Dirac
// kernel of fixed length at least 1 (see the comment at the top of this
// file).
func (k *Walk) pipeable(b *walkMapper) bool {
	return b.dirac && !k.Max && k.Length > 0
}

// walksExact reports whether no graph of gs has more walks than
// exactCount, the sum of its feature vector's values, so that the dot
// products of the vectors are exact in any order, as the ids of a parallel
// map need. It counts the walks only of the graphs whose walkBound exceeds
// exactCount.
func (k *Walk) walksExact(gs []*graph.Graph) bool {
	for _, g := range gs {
		if k.Length > 0 && !k.Max && walkBound(g, k.Length) <= exactCount {
			continue
		}
		if w, _ := k.walks(g); w > exactCount {
			return false
		}
	}
	return true
}

// speculates implements speculator for the Dirac kernels of fixed length:
// the walk advice, its census of the labels and degrees and its probes of
// a few graphs, runs on one thread, beside the guarded explicit run on
// more (see gramSpeculating), where the vectors, at most a non-zero of 12
// bytes a walk (see walkBound), fit speculateMaxBytes.
func (k *Walk) speculates(gs []*graph.Graph) bool {
	if threadsOr(k.Threads) < 2 || len(gs) < 2 || k.Vertex != nil || k.Edge != nil || k.Max || k.Length < 1 {
		return false
	}
	var walks float64
	for _, g := range gs {
		walks += walkBound(g, k.Length)
	}
	return 12*walks <= speculateMaxBytes
}

// walkBound returns an upper bound of g's walks of length l ≥ 1: each of
// its arcs starts at most Δ^(l−1) of them, for the largest degree Δ, which
// graph.Build keeps, where counting the walks takes l passes over the arcs
// and two arrays: counted, the check of walksExact took 92 µs on MUTAG at
// length 3 and 0.66 ms on ENZYMES, 7–8% of the Gram matrix on two
// threads, when it ran before the first graph's map; with a pass over the
// vertices for Δ, 13–18 µs of 1 ms on 200 ENZYMES graphs.
func walkBound(g *graph.Graph, l int) float64 {
	return float64(len(g.Adj)) * math.Pow(float64(g.MaxDegree()), float64(l-1))
}

// switchesPrivate reports whether mapPiped switches to the private map
// before graph i, privateAt having placed the switch at graph at: where
// how asks for it, or where chooseAuto's preferPrivate prefers it, and the
// walk counts are exact (see walksExact).
func switchesPrivate(b *walkMapper, how overlapChoice, i, at int, exact func() bool) bool {
	return i == at && (how != chooseAuto || preferPrivate(b, i)) && exact()
}

// mapPiped maps the graphs in the pipeline, b running the rounds before
// the last and the workers the last. After the first graphs, where how or
// the prediction asks for it (see preferPrivate and preferSharedToPipe),
// and exact reports the walk counts exact in any order, it maps the rest
// by the private map or in parallel instead, after calling stop. It
// returns the sequences interned in all.
func (o *overlapGram) mapPiped(ctx context.Context, b *walkMapper, gs []*graph.Graph, threads int, how overlapChoice, stop func() int, exact func() bool) (int, error) {
	n := len(gs)
	pm := &walkMapper{k: b.k, dirac: true, nVL: b.nVL}
	pm.useBufs(&o.bufs.maps[1], &o.bufs.vecs)
	o.mu.Lock()
	o.pipe, o.gs = pm, gs
	o.mu.Unlock()
	check := overlapCheck(n)
	l := b.k.Length
	// firstTime is the mapper's time for the rounds of the first graphs
	// but the very first, whose time is mostly the mapper's tables
	// growing from nothing (see preferSharedToPipe). The choice waits
	// until check graphs are through the last round as well: the
	// scheme's estimate needs their vectors, and the last round lags the
	// mapper by up to pipeDepth graphs. Taken when the
	// mapper handed over the check-th graph of MUTAG at length 9, it saw
	// 8 of its vectors, not 11, and kept the merge joins, on which the
	// workers then spent 3 ms of 90.
	var firstTime time.Duration
	chosen := n <= check
	at := privateAt(how, b)
	for i := 0; i < n; i++ {
		if switchesPrivate(b, how, i, at, exact) {
			return o.switchPrivate(ctx, b, pm, gs, threads, stop)
		}
		if !chosen && i >= check && o.published() >= check {
			chosen = true
			share := o.schemeShare(n)
			if share < 1 {
				o.useBlocks(check)
			}
			if (how == choosePipeShared || how == chooseAuto &&
				o.preferSharedToPipe(n, threads, firstTime, i, b.size(), share)) && exact() {
				return o.switchShared(ctx, b, pm, gs, i, threads, stop)
			}
		}
		t := time.Now()
		b.start(gs[i])
		for r := 1; r < l; r++ {
			if err := b.round(ctx, gs[i], r); err != nil {
				o.fail(err)
				return 0, err
			}
		}
		if !chosen && i > 0 {
			firstTime += time.Since(t)
		}
		o.mu.Lock()
		h := b.cur
		o.queue = append(o.queue, handoff{i, h})
		o.queued += h.bytes()
		if k := len(o.free); k > 0 {
			b.cur = o.free[k-1]
			o.free = o.free[:k-1]
		} else {
			// Sized as the last, the new buffer seldom grows: grown by
			// append, the buffers of the graphs in the queue allocated
			// a fifth of the pipeline's bytes on MUTAG at length 9.
			b.cur = csrVecs{
				off:  make([]int32, 0, cap(h.off)),
				ids:  make([]uint32, 0, cap(h.ids)),
				vals: make([]float64, 0, cap(h.vals)),
			}
		}
		o.due.Store(o.lastReady())
		o.wake()
		o.mu.Unlock()
		// Where the last round lags, run it, or wait for it.
		if err := o.runLastUntil(ctx, func() bool { return len(o.queue) < pipeDepth && o.queued < pipeBytes }); err != nil {
			return 0, err
		}
	}
	// Help until the last graph is mapped.
	o.work(ctx, func() bool { return o.mapped == n })
	o.mu.Lock()
	err := o.err
	o.mu.Unlock()
	return b.size() + pm.size(), err
}

// published returns the number of graphs whose vectors are published.
func (o *overlapGram) published() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.mapped
}

// runLastUntil runs the last rounds that are due, or waits for the
// worker that runs them, until done reports true (it is called under
// o.mu). It takes no column: a block of columns can take much longer than
// the mapper may wait, and while it stalls, so does the workers' chain of
// last rounds (the columns of U251 at length 8 come in blocks of 234
// graphs).
func (o *overlapGram) runLastUntil(ctx context.Context, done func() bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for !done() && !o.stop && o.err == nil {
		if o.lastReady() {
			h := o.takeLast()
			o.mu.Unlock()
			o.lastRound(ctx, h)
			o.mu.Lock()
			continue
		}
		o.wait()
	}
	return o.err
}

// lastReady reports whether a last round waits and no worker runs one;
// due mirrors it for readers without the lock. The caller holds o.mu.
func (o *overlapGram) lastReady() bool { return len(o.queue) > 0 && !o.piping }

// takeLast takes the next graph handed over for its last round. The
// caller holds o.mu.
func (o *overlapGram) takeLast() handoff {
	h := o.queue[0]
	o.queue = append(o.queue[:0], o.queue[1:]...)
	o.queued -= h.cur.bytes()
	o.piping = true
	o.due.Store(false)
	return h
}

// runDue runs the last round that is due, if no other worker took it.
func (o *overlapGram) runDue(ctx context.Context) {
	o.mu.Lock()
	if !o.lastReady() {
		o.mu.Unlock()
		return
	}
	h := o.takeLast()
	o.mu.Unlock()
	o.lastRound(ctx, h)
}

// lastRound maps the last round of the graph handed over in h and
// publishes its vector.
func (o *overlapGram) lastRound(ctx context.Context, h handoff) {
	m := o.pipe
	t := time.Now()
	m.cur = h.cur
	err := m.round(ctx, o.gs[h.i], m.k.Length)
	var v Vec
	if err == nil {
		v = m.finish()
	}
	d := time.Since(t)
	o.mu.Lock()
	o.piping = false
	o.due.Store(o.lastReady())
	o.free = append(o.free, h.cur)
	if err != nil {
		if o.err == nil {
			o.err = err
		}
	} else {
		o.add(h.i, v)
		if h.i > 0 {
			o.lastTime += d
		}
		o.lastSeqs = m.size()
	}
	o.wake()
	o.mu.Unlock()
}

// switchShared maps the graphs from i on in parallel, after the pipeline
// mapped those before: once their last rounds are done and the workers
// stopped, a sharedInterner takes the mapper's ids, and the last round's
// after them, and the vectors so far move their ids up by as many as the
// mapper's. The sequences of full length are keyed by the mapper's ids of
// their prefixes in both, so the shared interner goes on with the keys of
// the sequential map.
func (o *overlapGram) switchShared(ctx context.Context, b, pm *walkMapper, gs []*graph.Graph, i, threads int, stop func() int) (int, error) {
	if err := o.runLastUntil(ctx, func() bool { return o.mapped == i }); err != nil {
		return 0, err
	}
	stop()
	shift := uint32(b.fast.len())
	for _, v := range o.vecs[:i] {
		for t := range v.IDs {
			v.IDs[t] += shift
		}
	}
	shared := sharedInternerOf(&b.fast, &pm.fast)
	if err := b.mapShared(ctx, gs[i:], o.vecs[i:], shared, threads); err != nil {
		// errInexact cannot be: walksExact checked every graph's walks.
		return 0, fmt.Errorf("parallel walk map after the pipeline: %w", err)
	}
	return shared.len(), nil
}

// sharedMapCost is the CPU time of the parallel map's look-ups in the
// shared interner over the sequential map's, besides sharedKeyCost a new
// sequence: on two threads the parallel map of MUTAG took 773, 2517,
// 11125 and 47706 µs at lengths 3, 5, 7 and 9, where the sequential one
// took 1213, 4154, 14992 and 63957 µs on one and interned 389 to 122568
// sequences, which this and sharedKeyCost predict within 8% but at l=5
// (12% over); ENZYMES's at 3, 5 and 7 they predict 6–9% over. Without
// it, 8% of the matrices of MUTAG at length 3 on two threads took the
// parallel map, 1.73–1.84 ms against the pipeline's 1.19–1.23 (medians
// of 800 matrices); with it, 4%.
const sharedMapCost = 1.2

// preferSharedToPipe reports whether mapping the rest of the n graphs in
// parallel is predicted faster than the pipeline, from the pipeline's
// first graphs, whose rounds before the last took the mapper firstTime for
// first graphs but the first and interned features sequences, from the
// last rounds and merge joins of the columns done so far, and from share,
// the cost of gramFromVecs's scheme over the merge joins'.
//
// Each chain's first graph is left out of its time: it carries the growth
// of the chain's interner and accumulator from nothing, a cost paid once,
// not per graph. Counted in, it made one chain look the longer in 15% of
// the matrices of MUTAG at length 3 on two threads, where the projection
// of the longer chain grows with it one for one and the parallel map's
// only by half, and the parallel map was taken: 1.74–1.79 ms against the
// pipeline's 1.21 (medians of 800 matrices).
//
// With the rounds before the last taking A, the last rounds L and the dot
// products D, the pipeline takes the longer of its two chains, A and L,
// or (A + L + D)/threads, whichever is more. The parallel map takes
// ((A + L)·sharedMapCost + F·sharedKeyCost + D)/threads for F sequences
// in all (see preferShared). On two threads the pipeline wins wherever
// the chains are about even, as they are on MUTAG and ENZYMES; with more
// threads, the parallel map, whose map scales, can.
func (o *overlapGram) preferSharedToPipe(n, threads int, firstTime time.Duration, first, features int, share float64) bool {
	o.mu.Lock()
	dots, dotTime, m, lastTime := o.dots, o.dotTime, o.mapped, o.lastTime
	features += o.lastSeqs
	o.mu.Unlock()
	nf, t := float64(n), float64(threads)
	a := firstTime.Seconds() * nf / float64(first-1)
	last := a // until a last round is done, as long as the rest
	if m > 1 {
		last = lastTime.Seconds() * nf / float64(m-1)
	}
	var d float64
	if dots > 0 {
		d = dotTime.Seconds() / float64(dots) * nf * (nf + 1) / 2 * share
	}
	p := a + last
	pipe := max(a, last, (p+d)/t)
	shared := (p*sharedMapCost + float64(features)*nf/float64(first)*sharedKeyCost + d) / t
	return shared < pipe
}

// fewPrefixes reports whether b's kernel has so few label sequences
// shorter than its walks, those the rounds before the last intern, that
// preferPrivate's count would take the private map after privateFirst
// graphs whatever they are: Σ nVL^(r+1)·nEL^r over the lengths r < l is below
// privateSeqs·privateFirst. The pipeline's first graphs then map nothing
// the private map would not: on 200 ENZYMES graphs at length 3 (3
// labels, no edge labels: 39 sequences at most), two threads took 1114,
// 1108 and 1089 µs where they took 1151, 1132 and 1115 (a test binary,
// both ways by turns, medians of 300).
func fewPrefixes(b *walkMapper) bool {
	var seqs, n uint64 = 0, b.nVL
	for r := 0; r < b.k.Length; r++ {
		seqs += n
		if seqs >= privateSeqs*privateFirst {
			return false
		}
		n *= b.nVL * b.nEL
	}
	return true
}
