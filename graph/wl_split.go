package graph

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// splitRefiner refines the graphs on several workers in parts of
// consecutive graphs, each worker numbering its part's signatures through
// every iteration in tables of its own, as if its graphs were all there
// were. The first part's tables are the refinement's: one worker, the
// merger, numbers every other part's distinct signatures of each
// iteration in them, in the part's order, after translating their colours
// to the first part's numbers of the iteration before; so the colours are
// numbered by first appearance over all graphs in order, as Refine's are.
// Each part's worker then rewrites its colours through that translation.
//
// The workers share only what the merger reads: each other part's
// distinct signatures, once an iteration, in one pass over a list that
// the part fills, in batches as it lists them (see splitListBatch); where
// the shared table (sharedSigs) fetches an entry or a slot from the other
// core at most look-ups, and a pipeline of stages (see Stream) hands
// every graph's colours from core to core at every iteration. The
// merger's part is smaller than the others', by what its merges took the
// last time (see balance).
type splitRefiner struct {
	gs    []*Graph
	h     int
	parts []splitPart
	// all says that every iteration's colours are wanted (RefineOn),
	// else only the last (RefineGraphsOn).
	all bool
	// cols[i] holds the colours after iteration i, cols[0] the start.
	cols [][][]int32

	tables *StreamTables
	// total and words are every graph's vertices and signature words,
	// for which the first part's tables are sized, as they take the
	// others' signatures too.
	total, words int
	start        Start
	byDegree     bool
	// merging is the merger's time in merges, not waiting for them.
	merging time.Duration
	merger  atomic.Bool  // a worker has taken the merges
	merged  atomic.Int32 // iterations merged for every part
}

// splitPart is a run of consecutive graphs that one worker refines.
type splitPart struct {
	g0, g1          int
	vertices, words int // of the part's graphs
	claimed         atomic.Bool
	refined         atomic.Int32  // iterations numbered
	took            time.Duration // refining the part
	// listed[i-1] counts the signatures of iteration i that the merger
	// may read, in views[i-1], once it has seen the count.
	listed [splitMaxH]atomic.Int32
	views  [splitMaxH]sigList
	// iters[i-1] numbers iteration i's signatures: for the first part
	// the refinement's colours, sized for every vertex, for the others
	// the part's own, which global[i-1] translates.
	iters  []wlWorker
	sigs   []sigList
	global [][]int32
	// With byDegree, the part's numbers of its degrees, its first
	// iteration's signatures.
	degs degreeNumbers
	_    [64]byte
}

// splitMinVertices is the fewest vertices per worker below which a
// refinement stays on one worker. splitMaxVertices and splitMaxH bound
// the refinements that are split, which keep a table sized for every
// vertex for each iteration, and one for each other worker's part, about
// 40 bytes a vertex each, where the shared table keeps one: larger ones
// are refined in the shared table (see sharedSigs).
const (
	splitMinVertices = 256
	splitMaxVertices = 1 << 16
	splitMaxH        = 4
)

// Splits reports whether RefineOn and RefineGraphsOn refine gs by h
// iterations on workers workers in parts, each in tables of its own (see
// splitRefiner), rather than in one table the workers share.
func Splits(gs []*Graph, h, workers int) bool {
	total := 0
	for _, g := range gs {
		total += g.N()
	}
	return h >= 1 && h <= splitMaxH && total <= splitMaxVertices && splitWorkers(total, len(gs), workers) >= 2
}

// splitWorkers returns the parts that a split refinement of graphs graphs
// of total vertices on up to workers workers has: at least
// splitMinVertices vertices and one graph each, where there can be.
func splitWorkers(total, graphs, workers int) int {
	return max(1, min(workers, total/splitMinVertices, graphs))
}

// newSplitRefiner returns a splitRefiner for h ≥ 1 iterations over gs from
// start on up to workers workers, in the tables of t: all of every
// iteration's colours if all is set, else only the last's. It splits the
// graphs into parts of at least splitMinVertices vertices where it can,
// and has one part where it cannot.
func newSplitRefiner(t *StreamTables, gs []*Graph, h int, start Start, workers int, all bool) *splitRefiner {
	total, words := 0, 0
	for _, g := range gs {
		total += g.N()
		words += g.N() + len(g.Adj)
	}
	workers = splitWorkers(total, len(gs), workers)
	t.grow(workers * h)
	s := &splitRefiner{gs: gs, h: h, all: all, byDegree: degreeColours(gs, start), tables: t, total: total, words: words, start: start}
	// The merger's part is smaller, as it merges the others' after it:
	// share to another's 1. Part p ends where the vertices reach its
	// fraction of them.
	share := t.share
	if share == 0 {
		share = splitMergerShare
	}
	sum := share + float64(workers-1)
	s.parts = make([]splitPart, workers)
	p, n, target := 0, 0, float64(total)*share/sum
	for i, g := range gs {
		n += g.N()
		if (float64(n) >= target && p < workers-1) || i == len(gs)-1 {
			s.parts[p].g1 = i + 1
			if p+1 < workers {
				s.parts[p+1].g0 = i + 1
			}
			p++
			target += float64(total) / sum
		}
	}
	s.parts = s.parts[:max(p, 1)]
	for q := range s.parts {
		pt := &s.parts[q]
		for _, g := range gs[pt.g0:pt.g1] {
			pt.vertices += g.N()
			pt.words += g.N() + len(g.Adj)
		}
		pt.iters = t.iters[q*h : (q+1)*h]
		pt.sigs = t.sigs[q*h : (q+1)*h]
		pt.global = make([][]int32, h)
	}
	s.cols = make([][][]int32, h+1)
	for i := range s.cols {
		s.cols[i] = make([][]int32, len(gs))
	}
	return s
}

// splitListBatch is the fewest new signatures a part lists for the
// merger at a time, but at its last graph: the merger then reads lines
// the part has finished writing, and their counter moves between the
// cores once a batch.
const splitListBatch = 256

// splitMergerShare is the merger's part against another worker's 1 in a
// refinement in tables that no split refinement has used yet (see
// splitRefiner.balance).
const splitMergerShare = 0.8

// run refines the graphs on par's workers and returns the colours of
// every iteration, or only the last one's correct (see all).
func (s *splitRefiner) run(par Parallel) ([][][]int32, error) {
	if err := par.run(len(s.parts), s.part); err != nil {
		return nil, err
	}
	s.balance()
	return s.cols, nil
}

// balance sets the merger's share of the next split refinement in s's
// tables to what would have let it finish its part and the merges as the
// others finish theirs, from the times s took: the merges cost from
// little (a first iteration, few distinct signatures) to about what the
// merger's part does (on ENZYMES from the labels, most signatures of the
// second and third iterations are new). A caller that refines like
// graphs again and again, as the kernels do in a Workspace's tables,
// gets a balance fitted to them.
func (s *splitRefiner) balance() {
	w := float64(len(s.parts))
	if w < 2 {
		return
	}
	var work float64 // the parts' refinement, T
	for i := range s.parts {
		work += float64(s.parts[i].took)
	}
	if work <= 0 {
		return
	}
	// The merger's fraction x of the vertices balances x·T + M against
	// (1−x)·T/(w−1), the other parts' each.
	x := (work - (w-1)*float64(s.merging)) / (w * work)
	x = max(x, 0.25/w)
	s.tables.share = x * (w - 1) / (1 - x)
}

// part is the work of part p: refine it unless the merger has, then take
// the merges if no one will, then rewrite the part's colours.
func (s *splitRefiner) part(_, p int) {
	if s.parts[p].claimed.CompareAndSwap(false, true) {
		s.refine(p)
	}
	// The first part's worker takes the merges, or any other if the
	// first part has not started, as Run need not start it first.
	if (p == 0 || !s.parts[0].claimed.Load()) && s.merger.CompareAndSwap(false, true) {
		s.merge()
	}
	if p == 0 {
		return // its colours are the refinement's
	}
	from := 1
	if !s.all {
		from = s.h
	}
	for spins := 0; s.parts[p].refined.Load() < int32(s.h); spins++ {
		spin(spins) // the merger refines the part
	}
	for i := from; i <= s.h; i++ {
		for spins := 0; s.merged.Load() < int32(i); spins++ {
			spin(spins)
		}
		pt := &s.parts[p]
		glob := pt.global[i-1]
		for _, c := range s.cols[i][pt.g0:pt.g1] {
			for v, x := range c {
				c[v] = glob[x]
			}
		}
	}
}

// refine numbers part p's signatures through every iteration, each in a
// table of the part's own, and publishes each iteration as it is done.
func (s *splitRefiner) refine(p int) {
	pt := &s.parts[p]
	start := time.Now()
	defer func() { pt.took = time.Since(start) }()
	s.colours(pt)
	for i := 1; i <= s.h; i++ {
		prev, next := s.cols[i-1], s.cols[i]
		if i == 1 && s.byDegree {
			for g := pt.g0; g < pt.g1; g++ {
				pt.degs.number(s.gs[g], next[g])
			}
		} else {
			wk, l := &pt.iters[i-1], &pt.sigs[i-1]
			if p == 0 {
				wk.prepare(l, s.total, s.words, 0)
			} else {
				wk.prepare(l, pt.vertices, pt.words, 0)
			}
			// The list has room for every signature, so the
			// merger can read the arrays while they fill.
			pt.views[i-1] = sigList{bounds: l.bounds[:cap(l.bounds)], keys: l.keys[:cap(l.keys)]}
			published := 0
			for g := pt.g0; g < pt.g1; g++ {
				wk.number(l, s.gs[g], prev[g], next[g])
				if n := l.len(); n-published >= splitListBatch || g == pt.g1-1 {
					pt.listed[i-1].Store(int32(n))
					published = n
				}
			}
		}
		pt.refined.Store(int32(i))
	}
}

// colours allocates the colours of part pt's graphs, on the worker that
// refines it, so that its core does not write lines that the core that
// allocated them holds: the start colours, which are the labels
// themselves where they are not all returned, and those of every
// iteration, or of two in turn.
func (s *splitRefiner) colours(pt *splitPart) {
	gens := s.h
	if !s.all {
		gens = min(s.h, 2)
	}
	first := 1
	if s.start == FromLabels && !s.all {
		for g := pt.g0; g < pt.g1; g++ {
			s.cols[0][g] = s.gs[g].Labels
		}
	} else {
		first = 0
	}
	for i := first; i <= gens; i++ {
		flat := make([]int32, pt.vertices)
		for g := pt.g0; g < pt.g1; g++ {
			n := s.gs[g].N()
			s.cols[i][g], flat = flat[:n:n], flat[n:]
			if i == 0 && s.start == FromLabels {
				copy(s.cols[i][g], s.gs[g].Labels)
			}
		}
	}
	for i := gens + 1; i <= s.h; i++ {
		copy(s.cols[i][pt.g0:pt.g1], s.cols[i-2][pt.g0:pt.g1])
	}
}

// merge numbers every other part's signatures of each iteration in the
// first part's tables, refining a part first where no worker has claimed
// it, and publishes each iteration once every part's is merged.
func (s *splitRefiner) merge() {
	first := &s.parts[0]
	for i := 1; i <= s.h; i++ {
		for q := 0; q < len(s.parts); q++ {
			pt := &s.parts[q]
			if pt.claimed.CompareAndSwap(false, true) {
				s.refine(q)
			}
			if q == 0 || (i == 1 && s.byDegree) {
				for spins := 0; pt.refined.Load() < int32(i); spins++ {
					spin(spins)
				}
			}
			if q == 0 {
				continue
			}
			if i == 1 && s.byDegree {
				pt.global[0] = s.mergeDegrees(pt.global[0], &pt.degs)
				continue
			}
			var prev []int32 // the part's colours of iteration i−1 in the first's
			if i > 1 {
				prev = pt.global[i-2]
			}
			wk, fl := &first.iters[i-1], &first.sigs[i-1]
			glob := pt.global[i-1][:0]
			// Merge the part's signatures as it lists them, so that
			// only the last graph's are left once it is done.
			for spins := 0; ; spins++ {
				done := pt.refined.Load() >= int32(i)
				n := int(pt.listed[i-1].Load())
				if n > len(glob) {
					t := time.Now()
					glob = s.mergeSigs(glob, pt.views[i-1], n, prev, wk, fl)
					s.merging += time.Since(t)
				}
				if done && len(glob) == int(pt.listed[i-1].Load()) {
					break
				}
				spin(spins)
			}
			pt.global[i-1] = glob
		}
		s.merged.Store(int32(i))
	}
}

// mergeSigs numbers the signatures of view from len(glob) to n in the
// first part's table of their iteration, wk's index over fl, after
// translating their colours by prev, if not nil (the colours of the
// iteration before in the first part's numbers), and appends their
// numbers to glob.
func (s *splitRefiner) mergeSigs(glob []int32, view sigList, n int, prev []int32, wk *wlWorker, fl *sigList) []int32 {
	sig := wk.sig
	for e := len(glob); e < n; e++ {
		sig = append(sig[:0], view.at(e)...)
		if prev != nil {
			sig[0] = uint64(uint32(prev[sig[0]]))
			tail := sig[1:]
			for k, x := range tail {
				tail[k] = x&^(1<<32-1) | uint64(uint32(prev[uint32(x)]))
			}
			sortUint64s(tail)
		}
		glob = append(glob, wk.index.intern(fl, sig, hashUint64s(sig)))
	}
	wk.sig = sig
	return glob
}

// mergeDegrees numbers the degrees of a part, numbered by degs in order
// of first appearance, in the first part's numbers, and returns their
// colours in glob, by the part's.
func (s *splitRefiner) mergeDegrees(glob []int32, degs *degreeNumbers) []int32 {
	glob = slices.Grow(glob[:0], degs.count)[:degs.count]
	byColour := make([]int, degs.count) // the degree of each of the part's colours
	for deg, c := range degs.ids {
		if c > 0 {
			byColour[c-1] = deg
		}
	}
	for c, deg := range byColour {
		glob[c] = s.parts[0].degs.colour(deg)
	}
	return glob
}

// spin waits a moment, the spins-th time in a row: it yields the processor
// only now and then, since a yielding goroutine can be taken up by the
// other, idle worker's processor, and run on with its caches on the other
// core.
func spin(spins int) {
	if spins%1024 == 1023 {
		runtime.Gosched()
	}
}
