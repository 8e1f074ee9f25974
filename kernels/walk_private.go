package kernels

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/gkbench/gkbench/graph"
)

// The private map of the walk kernel's parallel explicit Gram matrix.
//
// Each worker maps graphs with a mapper of its own, whose interner numbers
// the sequences of every length it meets, and claims the graphs from one
// counter, as forRows's workers claim rows. The first worker's interner is
// the union, whose ids the vectors take: once the graphs are claimed and
// the first worker is done, each other worker numbers its new sequences
// in it, under a lock, and renumbers its vectors. A worker's sequence is
// keyed by the worker's id of its prefix and a pair of labels, and looked
// up in the union by the union's id of that prefix, which the worker
// numbered before, as a prefix is interned before its extensions. So the
// map does the sequential map's work on every thread, with no interner
// shared while it runs, and adds a look-up in the union for each sequence
// the other workers met, however often.
//
// The pipeline's map runs on two chains, and short walks leave both short
// beside the handovers between them. Long walks meet many sequences, which
// the other workers number again, and their vectors are sparse, so that
// the dot products take posting lists, whose vectors must be sorted, and
// which the pipeline's column workers overlap with the map. So the
// pipeline maps the first graphs, and preferPrivate decides from the
// sequences they met whether the private map maps the rest (see
// privateSeqs for the times), with the mapper's interner as the union
// (see switchPrivate).
//
// Deciding by the private map's first graphs instead, its first worker
// mapping them alone, cost the long walks more than it saved the short:
// where the pipeline then mapped the rest, starting from the union, MUTAG
// at length 7 took 11.5–12.0 ms against the pipeline's 10.5–11.0 (with 4
// first graphs, and a collection before every matrix, as the runner
// does).
//
// The vectors' ids are the union's, not the sequential map's, and in no
// order, so it is taken only where the pipeline is, and where the dot
// products are exact in any order (see walksExact).
type privateMap struct {
	ws []privateWorker
	// nnz is the non-zeros of the graphs mapped, and df[f] the graphs
	// holding feature f of the union.
	nnz int
	df  []int32
}

// privateWorker is a worker of the private map.
type privateWorker struct {
	m walkMapper
	// items are the graphs the worker mapped, nnz their non-zeros and df
	// their features.
	items []int32
	nnz   int
	df    []int32
	_     [64]byte // the workers write their fields side by side
}

// newPrivateMap returns the private map of b's kernel on threads workers.
func newPrivateMap(b *walkMapper, threads int) *privateMap {
	p := &privateMap{ws: make([]privateWorker, threads)}
	for w := range p.ws {
		p.ws[w].m = walkMapper{k: b.k, dirac: true, nVL: b.nVL, budget: b.budget, worker: w, workers: threads}
	}
	return p
}

// mapGraphs maps graphs lo ≤ i < hi into vecs, and leaves them with the
// union's ids, unsorted.
func (p *privateMap) mapGraphs(ctx context.Context, gs []*graph.Graph, vecs []Vec, lo, hi int) error {
	threads := len(p.ws)
	var (
		next   atomic.Int64
		failed atomic.Bool
		// zero is set once the first worker, whose interner the
		// others number their sequences in, is done with it.
		zero atomic.Bool
		mu   sync.Mutex // held to number in the union
	)
	next.Store(int64(lo))
	err := forRows(ctx, threads, threads, func(_, w int) error {
		pw := &p.ws[w]
		for !failed.Load() {
			k := claimRows(int64(hi)-next.Load(), threads)
			i0 := next.Add(k) - k
			if i0 >= int64(hi) {
				break
			}
			for i := i0; i < min(i0+k, int64(hi)); i++ {
				v, err := pw.m.graphVector(ctx, gs[i])
				if err != nil {
					failed.Store(true)
					return err
				}
				vecs[i] = v
				pw.items = append(pw.items, int32(i))
			}
		}
		if w == 0 {
			// The first worker's ids are the union's.
			dim := p.dim()
			zero.Store(true)
			pw.nnz, pw.df = renumberAll(vecs, pw.items, nil, dim)
			return nil
		}
		for spins := 0; !zero.Load() && !failed.Load(); spins++ {
			if spins%64 == 63 {
				relax()
			}
		}
		if failed.Load() {
			return nil // the failed worker returns the error
		}
		union := &p.ws[0].m.fast
		global := make([]uint32, pw.m.fast.len())
		mu.Lock()
		for id, key := range pw.m.fast.keys {
			prefix := uint64(key) >> 32
			if prefix != noPrev {
				prefix = uint64(global[prefix])
			}
			global[id], _ = union.intern(key64(prefix<<32 | uint64(key)&(1<<32-1)))
		}
		dim := union.len()
		mu.Unlock()
		pw.nnz, pw.df = renumberAll(vecs, pw.items, global, dim)
		return nil
	})
	if err != nil {
		return err
	}
	p.df = append(p.df, make([]int32, p.dim()-len(p.df))...)
	for w := range p.ws {
		p.nnz += p.ws[w].nnz
		for f, d := range p.ws[w].df {
			p.df[f] += d
		}
	}
	return nil
}

// dim returns the number of sequences in the union.
func (p *privateMap) dim() int { return p.ws[0].m.fast.len() }

// renumberAll replaces the ids of the vectors of items by their numbers
// in global, all below dim, and returns their non-zeros and the vectors
// holding each number.
func renumberAll(vecs []Vec, items []int32, global []uint32, dim int) (nnz int, df []int32) {
	df = make([]int32, dim)
	for _, i := range items {
		ids := vecs[i].IDs
		nnz += len(ids)
		for t, id := range ids {
			u := id
			if global != nil {
				u = global[id]
				ids[t] = u
			}
			df[u]++
		}
	}
	return nnz, df
}

// privateAt returns the graph before which the pipeline switches to the
// private map, for how: the first, for choosePrivate, or else the
// privateFirst-th, where chooseAuto asks preferPrivate and
// choosePipePrivate switches anyway; -1 for any other choice.
func privateAt(how overlapChoice) int {
	switch how {
	case choosePrivate:
		return 0
	case chooseAuto, choosePipePrivate:
		return privateFirst
	}
	return -1
}

// privateFirst is the number of graphs that the pipeline maps before
// preferPrivate decides whether the private map maps the rest.
const privateFirst = 8

// privateSeqs is the most sequences shorter than the walks a graph of the
// pipeline's first may bring, on average, for preferPrivate to take the
// private map. In the first 8 graphs of MUTAG, at lengths 3, 5, 7 and 9
// the mapper met 7, 37, 168 and 714 a graph, and on two threads the
// pipeline switching to the private map after them took 0.86–0.95, 2.9,
// 12.6 and (all private) 65–67 ms against the pipeline's 1.0, 3.2–3.4,
// 12.0–12.2 and 48–50; of ENZYMES, at lengths 3 and 6, 2 and 16 a graph,
// and 4.9 and 33.5 ms against 6.1–6.4 and 36.6–37.0 (medians of 100
// matrices, 10 at length 9).
const privateSeqs = 100

// preferPrivate reports whether the private map should map the rest of
// the graphs after the first i, whose rounds before the last interned
// b's sequences: where they are few, so that the sequences of full length
// are likely few too, which the other workers number again. Long walks
// meet many, and their vectors are sparse, so that the dot products take
// posting lists, whose vectors must be sorted, and which the pipeline's
// column workers overlap with the map.
func preferPrivate(b *walkMapper, i int) bool {
	return b.size() < privateSeqs*i
}

// switchPrivate maps the graphs by the private map from the first whose
// vector the pipeline has not published: once the column workers are
// stopped, the mapper's interner becomes the union, the last round's
// sequences are numbered in it, and the vectors so far take its ids. The
// graphs handed over for their last rounds are mapped again, whose rounds
// before the last interned their sequences in the union already: waiting
// for their last rounds cost 40 µs on MUTAG at length 3, where the column
// worker, which allocates the matrix first, had run none of the 8. It
// returns the sequences interned in all, and leaves the private map in
// o.private.
func (o *overlapGram) switchPrivate(ctx context.Context, b, pm *walkMapper, gs []*graph.Graph, threads int, stop func() int) (int, error) {
	stop()
	i := o.published()
	p := newPrivateMap(b, min(threads, len(gs)-i))
	// The mapper's ids, which the last round's keys hold for their
	// prefixes, are the union's.
	union := &p.ws[0].m.fast
	*union, b.fast = b.fast, interner[key64]{}
	last := make([]uint32, pm.fast.len())
	for id, key := range pm.fast.keys {
		last[id], _ = union.intern(key)
	}
	items := make([]int32, i)
	for j := range items {
		items[j] = int32(j)
	}
	p.nnz, p.df = renumberAll(o.vecs, items, last, union.len())
	if err := p.mapGraphs(ctx, gs, o.vecs, i, len(gs)); err != nil {
		return 0, err
	}
	o.mu.Lock()
	o.private = p
	o.mu.Unlock()
	return p.dim(), nil
}
