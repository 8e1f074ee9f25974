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
	// extra is the sequences numbered after the union's own (see
	// pairMerge).
	extra int
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

// newPrivateMap returns the private map of b's kernel on threads workers,
// which map in wb's buffers (see walkBufs.lendPrivate).
func newPrivateMap(b *walkMapper, threads int, wb *walkBufs) *privateMap {
	p := &privateMap{ws: make([]privateWorker, threads)}
	for w := range p.ws {
		p.ws[w].m = walkMapper{k: b.k, dirac: true, nVL: b.nVL, budget: b.budget, worker: w, workers: threads}
	}
	wb.lendPrivate(p)
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
	var pair *pairMerge
	if threads == 2 {
		pair = &pairMerge{failed: &failed}
	}
	err := forRows(ctx, threads, threads, func(_, w int) error {
		pw := &p.ws[w]
		if pair != nil && w == 1 {
			pair.started.Store(true)
		}
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
		if pair != nil {
			return pair.merge(p, w, vecs)
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
		p.renumber(w, vecs, global, dim)
		return nil
	})
	if err != nil {
		return err
	}
	if pair != nil {
		p.extra = pair.misses[0] + pair.misses[1]
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
func (p *privateMap) dim() int { return p.ws[0].m.fast.len() + p.extra }

// renumber rewrites the ids of worker w's vectors by global, into a union
// of dim sequences, and counts their non-zeros and features, apart from
// the switch guard's count of its sample, which may hold them (see
// switchGuard.rewrite).
func (p *privateMap) renumber(w int, vecs []Vec, global []uint32, dim int) {
	pw := &p.ws[w]
	pw.m.k.guard.rewrite(func() { pw.nnz, pw.df = renumberAll(vecs, pw.items, global, dim) })
}

// pairMerge numbers the second worker's sequences of a private map on two
// workers on both, where more workers number theirs in turn, under a
// lock, in the union, which the first worker waits for (see mapGraphs).
// The second worker's sequences are looked up in the first worker's
// interner, which no one changes any more, the first half of them (in
// the order of their ids) by the second worker and the rest by the first,
// and those it lacks are numbered after its own, in the same order: one
// other worker's sequences are distinct, so they need no interner. A
// sequence's prefix, numbered before it, is looked up first, and a
// sequence whose prefix the union lacks is new too. Numbered in the union
// under the lock, by the second worker alone, the sequences of MUTAG's
// vectors after two WL iterations took 517 µs of the 2.66 ms of the
// private map's matrix at walk length 4 (28k sequences, half of them new)
// and 1.06 ms of 6.7 at length 5 (76k), while the first worker waited.
// Numbered so, the private map's matrices took 2.49–2.56 ms against
// 2.66–2.68 at length 4 and 6.27–6.40 against 6.57–6.61 at length 5, and
// after three WL iterations 2.96–3.01 against 3.42–3.51 and 8.05–8.07
// against 8.96–9.06 (medians of 30, two rounds by turns).
type pairMerge struct {
	failed *atomic.Bool // a worker failed: the other stops waiting
	// started is set once the second worker claims graphs; the first,
	// done mapping, helps it where it has (help is 1, else 2), and
	// publishes the union's size in dim0 with help.
	started atomic.Bool
	help    atomic.Int32
	dim0    int
	// mapped is set once the second worker is done mapping, with
	// global, one number for each of its sequences, and cut, the first
	// it leaves to the first worker.
	mapped atomic.Bool
	global []uint32
	cut    int
	// done1 counts the sequences before cut that the second worker has
	// looked up, and looked1 is set once they all are; looked0 and
	// numbered0 are set once the first worker has looked up and numbered
	// its part. misses[w] is the new sequences of worker w's part.
	done1     atomic.Int64
	looked1   atomic.Bool
	looked0   atomic.Bool
	numbered0 atomic.Bool
	misses    [2]int
}

// missing marks the number of a sequence the union lacks until it is
// numbered.
const missing = 1 << 31

// merge is worker w's part of the numbering, once it is done mapping.
func (m *pairMerge) merge(p *privateMap, w int, vecs []Vec) error {
	union := &p.ws[0].m.fast
	if w == 0 {
		m.dim0 = union.len()
		helps := m.started.Load() // else the second worker has no graphs
		if helps {
			m.help.Store(1)
		} else {
			m.help.Store(2)
		}
		pw := &p.ws[0]
		pw.nnz, pw.df = renumberAll(vecs, pw.items, nil, m.dim0)
		if !helps || !m.wait(m.mapped.Load) {
			return nil
		}
		keys := p.ws[1].m.fast.keys
		if m.cut == len(keys) {
			// The second worker met no sequence, so none is left
			// to this one, and it reads misses[0] without waiting
			// for this worker's part, which must then write
			// nothing: the race detector caught the write of the
			// zero that an empty look-up found.
			return nil
		}
		var ok bool
		if m.misses[0], ok = m.lookUp(union, keys, m.cut, len(keys), func(prefix uint64) bool {
			return m.wait(func() bool { return uint64(m.done1.Load()) > prefix })
		}); !ok {
			return nil
		}
		m.looked0.Store(true)
		if !m.wait(m.looked1.Load) {
			return nil
		}
		numberMissing(m.global[m.cut:], uint32(m.dim0+m.misses[1]))
		m.numbered0.Store(true)
		return nil
	}
	pw := &p.ws[1]
	keys := pw.m.fast.keys
	m.global = make([]uint32, len(keys))
	m.cut = len(keys) / 2
	m.mapped.Store(true)
	if !m.wait(func() bool { return m.help.Load() != 0 }) {
		return nil
	}
	if m.help.Load() != 1 {
		m.cut = len(keys)
	}
	m.misses[1], _ = m.lookUp(union, keys, 0, m.cut, nil)
	m.done1.Store(int64(m.cut))
	m.looked1.Store(true)
	if m.cut < len(keys) && !m.wait(m.looked0.Load) {
		return nil
	}
	numberMissing(m.global[:m.cut], uint32(m.dim0))
	if m.cut < len(keys) && !m.wait(m.numbered0.Load) {
		return nil
	}
	p.renumber(1, vecs, m.global, m.dim0+m.misses[0]+m.misses[1])
	return nil
}

// lookUp sets the numbers of the second worker's sequences keys[lo:hi]
// in the union, or missing, and returns how many are missing. A prefix
// before lo is looked up once before(prefix) reports it done; false from
// before stops the look-ups, and lookUp reports false. The second
// worker, looking up from 0, publishes its progress in done1.
func (m *pairMerge) lookUp(union *interner[key64], keys []key64, lo, hi int, before func(uint64) bool) (int, bool) {
	misses := 0
	for id := lo; id < hi; id++ {
		key := uint64(keys[id])
		prefix := key >> 32
		if prefix != noPrev {
			if prefix < uint64(lo) && !before(prefix) {
				return misses, false
			}
			g := m.global[prefix]
			if g&missing != 0 {
				m.global[id] = missing
				misses++
				continue
			}
			prefix = uint64(g)
		}
		if g, ok := union.find(key64(prefix<<32 | key&(1<<32-1))); ok {
			m.global[id] = g
		} else {
			m.global[id] = missing
			misses++
		}
		if lo == 0 && id%256 == 255 {
			m.done1.Store(int64(id + 1))
		}
	}
	return misses, true
}

// wait spins until cond holds, and reports false if a worker failed
// first.
func (m *pairMerge) wait(cond func() bool) bool {
	for spins := 0; !cond(); spins++ {
		if m.failed.Load() {
			return false
		}
		if spins%64 == 63 {
			relax()
		}
	}
	return true
}

// numberMissing numbers the missing sequences of global from next on, in
// order.
func numberMissing(global []uint32, next uint32) {
	for id, g := range global {
		if g&missing != 0 {
			global[id] = next
			next++
		}
	}
}

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
// private map of b, for how: the first, for choosePrivate, and for
// chooseAuto where fewPrefixes says that preferPrivate will hold, or else
// the privateFirst-th, where chooseAuto asks preferPrivate and
// choosePipePrivate switches anyway; -1 for any other choice.
func privateAt(how overlapChoice, b *walkMapper) int {
	switch {
	case how == choosePrivate, how == chooseAuto && fewPrefixes(b):
		return 0
	case how == chooseAuto, how == choosePipePrivate:
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
// column workers overlap with the map. Where fewPrefixes holds, it holds
// before any graph.
func preferPrivate(b *walkMapper, i int) bool {
	return fewPrefixes(b) || b.size() < privateSeqs*i
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
	p := newPrivateMap(b, min(threads, len(gs)-i), o.bufs)
	// The mapper's ids, which the last round's keys hold for their
	// prefixes, are the union's. The mapper holds the first worker's
	// table, emptied, until the matrix is done (see keepPrivate).
	union := &p.ws[0].m.fast
	*union, b.fast = b.fast, *union
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
