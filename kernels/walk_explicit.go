package kernels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gkbench/gkbench/graph"
)

// noPrev marks the "previous sequence" slot of a length-0 walk's key.
const noPrev = math.MaxUint32

// walkMapper computes the explicit feature vectors of the walk kernel for one
// Gram computation. It owns the interner that gives label sequences their
// ids, so vectors from one mapper are comparable and vectors from different
// mappers are not.
type walkMapper struct {
	k     *Walk
	dirac bool

	// Dirac fast path: a length-i sequence is keyed by
	// prev<<32 | (edgeLabel·nVL + vertexLabel), and a length-0 sequence by
	// noPrev<<32 | vertexLabel. nEL is the edge labels' range, which
	// the packed map's choice reads (see Walk.packs).
	nVL, nEL uint64
	// mapBufs holds the interner of the fast path, fast, and the
	// buffers below that a Workspace keeps from one map to the next.
	mapBufs

	// Generic path: keyed by (vertex feature, edge feature, prev id), and a
	// length-0 sequence by (vertex feature, noPrev, noPrev).
	slow map[[3]uint64]uint32

	// weights[id] is λ of the length of sequence id, kept only where the
	// kernel has lengthWeights; nil otherwise.
	weights []float64

	// vf and ef hold the generic path's features of a vertex and an
	// edge.
	vf, ef []Feature

	// out, if not nil, stores the graph vectors, which are otherwise
	// allocated one by one.
	out *vecSlab

	// work, if not nil, counts the work of graphVector, which the cost
	// model of Advise prices.
	work *mapWork

	// shared, if not nil, is the interner of a parallel map, which
	// gives the ids in place of fast, from ids.
	shared *sharedInterner
	ids    idRange

	// budget, if positive, is the number of interned sequences beyond
	// which graphVector stops with errBudget.
	budget int

	// worker of workers > 1 marks a mapper of the private map (see
	// privateMap), whose graph vectors keep their ids in the order met:
	// they are renumbered anyway, and the dot products gather them in
	// any order.
	worker, workers int
}

// errBudget stops a walk map that has interned more sequences than its
// budget.
var errBudget = errors.New("walk kernel: sequence budget exceeded")

// csrVecs stores one sparse vector per vertex in CSR form, its ids in
// no particular order.
type csrVecs struct {
	off  []int32
	ids  []uint32
	vals []float64
}

func (c *csrVecs) reset() {
	c.off = append(c.off[:0], 0)
	c.ids = c.ids[:0]
	c.vals = c.vals[:0]
}

func (c *csrVecs) endRow() { c.off = append(c.off, int32(len(c.ids))) }

// newMapper returns the mapper of k for gs: the Dirac fast path where
// both base kernels are Dirac's, else the generic one.
func (k *Walk) newMapper(gs []*graph.Graph) (*walkMapper, error) {
	if isDirac(k.Vertex) && isDirac(k.Edge) {
		return newDiracWalkMapper(k, gs)
	}
	return newGenericWalkMapper(k)
}

func newDiracWalkMapper(k *Walk, gs []*graph.Graph) (*walkMapper, error) {
	nVL, nEL, err := labelRanges(gs)
	if err != nil {
		return nil, err
	}
	if uint64(nVL)*uint64(nEL) >= noPrev {
		// Too many labels to pack a key into 64 bits: the generic path
		// handles Dirac kernels too, only more slowly.
		return newGenericWalkMapper(k)
	}
	return &walkMapper{k: k, dirac: true, nVL: uint64(nVL), nEL: uint64(nEL)}, nil
}

// labelRanges returns the ranges of the vertex and the edge labels of gs,
// the largest + 1 and at least 1, or an error if a label is negative. It
// reads each graph's ranges, which graph.Build keeps.
func labelRanges(gs []*graph.Graph) (nVL, nEL int32, err error) {
	nVL, nEL = 1, 1
	for _, g := range gs {
		if lo, hi := g.VertexLabelRange(); lo <= hi {
			if lo < 0 {
				return 0, 0, fmt.Errorf("walk kernel: negative vertex label %d", lo)
			}
			nVL = max(nVL, hi+1)
		}
		if lo, hi := g.EdgeLabelRange(); lo <= hi {
			if lo < 0 {
				return 0, 0, fmt.Errorf("walk kernel: negative edge label %d", lo)
			}
			nEL = max(nEL, hi+1)
		}
	}
	return nVL, nEL, nil
}

func newGenericWalkMapper(k *Walk) (*walkMapper, error) {
	vk, ek := k.Vertex, k.Edge
	if vk == nil {
		vk = Dirac{}
	}
	if ek == nil {
		ek = Dirac{}
	}
	vm, ok := vk.(VertexMap)
	if !ok {
		return nil, fmt.Errorf("walk kernel: vertex kernel %T has no explicit feature map", vk)
	}
	em, ok := ek.(EdgeMap)
	if !ok {
		return nil, fmt.Errorf("walk kernel: edge kernel %T has no explicit feature map", ek)
	}
	kk := *k
	kk.Vertex, kk.Edge = vm, em
	return &walkMapper{k: &kk, slow: make(map[[3]uint64]uint32)}, nil
}

// useBufs makes b map in the buffers of m, emptied, and store its graph
// vectors in out, if not nil. b must not have mapped a graph.
func (b *walkMapper) useBufs(m *mapBufs, out *vecSlab) {
	b.mapBufs = *m
	b.reuse()
	b.out = out
}

// size returns the number of interned label sequences of all lengths.
func (b *walkMapper) size() int {
	if b.dirac {
		return b.fast.len()
	}
	return len(b.slow)
}

func (b *walkMapper) newID(length int) uint32 {
	id := uint32(b.size())
	if b.k.lengthWeights() {
		b.weights = append(b.weights, b.k.Lambda[length])
	}
	return id
}

func (b *walkMapper) internFast(key uint64, length int) uint32 {
	if b.shared != nil {
		return b.shared.intern(key, &b.ids)
	}
	id, added := b.fast.intern(key64(key))
	if added && b.k.lengthWeights() {
		b.weights = append(b.weights, b.k.Lambda[length])
	}
	return id
}

// parallelVectors maps the graphs on up to threads goroutines, a graph at
// a time, all with one sharedInterner. The ids then depend on the order in
// which the goroutines first meet the sequences, so it is used for integer
// counts only (no weights), and only where they are small enough that
// every sum of the dot products is exact (see exactCount), so that the
// matrix does not depend on how ids are numbered: if a graph has more
// walks, it returns errInexact. Callers check first (see walksExact), or
// map the graphs again, in sequence.
//
// A chunked map with deterministic ids, each chunk's interner merged into
// one after the fact, did about twice the work of the sequential map: the
// merge interned every sequence once per chunk, and every vector was
// translated and sorted again; with two threads it gained 1.0× on the
// maps of MUTAG at length 7, where this one gains 1.3×.
func (b *walkMapper) parallelVectors(ctx context.Context, gs []*graph.Graph, threads int) ([]Vec, int, error) {
	shared := newSharedInterner()
	vecs := make([]Vec, len(gs))
	if err := b.mapShared(ctx, gs, vecs, shared, threads); err != nil {
		return nil, 0, err
	}
	return vecs, shared.len(), nil
}

// mapShared maps the graphs into vecs as parallelVectors does, with the
// ids of shared.
func (b *walkMapper) mapShared(ctx context.Context, gs []*graph.Graph, vecs []Vec, shared *sharedInterner, threads int) error {
	ms := make([]*walkMapper, threads)
	for w := range ms {
		ms[w] = &walkMapper{k: b.k, dirac: true, nVL: b.nVL, shared: shared}
	}
	return forRows(ctx, len(gs), threads, func(w, i int) error {
		v, err := ms[w].graphVector(ctx, gs[i])
		if err != nil {
			return err
		}
		// The values are the counts of the walks by label sequence.
		var walks float64
		for _, x := range v.Vals {
			walks += x
		}
		if walks > exactCount {
			return errInexact
		}
		vecs[i] = v
		return nil
	})
}

// exactCount bounds the walk counts of a graph for which the dot products
// of its feature vectors are exact in float64 in any order: a vector's
// values sum to its walks W, so every product and partial sum of ⟨φ_i, φ_j⟩
// is at most W_i·W_j ≤ 2^52.
const exactCount = 1 << 26

// errInexact stops a parallel walk map whose dot products would depend on
// the order of their terms.
var errInexact = errors.New("walk kernel: walk counts too large for a parallel map")

// sharedShards is the number of locks of a sharedInterner: enough that two
// goroutines rarely wait for each other's.
const sharedShards = 1 << 6

// sharedInterner gives label sequences ids for several goroutines at
// once. Its keys are spread over shards by hash, each a table that is
// read without a lock and written under the shard's: a goroutine finds
// the sequences it meets again, nearly all of them, at the cost of the
// sequential interner, and takes a lock only to add one. New ids come
// from blocks of idBlock that each goroutine claims from one counter, so
// that the ids stay dense (up to a block a goroutine) and each
// goroutine's run of new sequences gets consecutive ids, as in the
// sequential map; ids scattered over the shards cost a fifth more time in
// the accumulators and dot products, whose arrays they index.
//
// Its layout is the sequential interner's: the tables' slots hold only
// ids, four bytes, and the keys are kept by id, in pages that never move.
// Slots of key and id side by side, 16 bytes, made the tables four times
// as large, too large for the cache, and the parallel map on one
// goroutine 1.5 times slower than the sequential map of MUTAG at length
// 9, nearly all of it waiting for the slots.
//
// Each goroutine keeping its own cache of a locked table instead cost
// every goroutine a miss for every sequence: with two, 40% more work than
// the sequential map of MUTAG at length 7.
//
// What the goroutines only read on a look-up, the tables, the pages and
// the pointers to them, shares no cache line with what they write: a
// lock, a count or the id counter written beside a table's pointer cost
// the other goroutine a cache miss on its next look-up in that shard,
// which made the parallel map of MUTAG slower than the sequential one.
type sharedInterner struct {
	tabs  [sharedShards]atomic.Pointer[sharedTable]
	pages atomic.Pointer[[]*keyPage]
	_     [64]byte
	locks [sharedShards]struct {
		mu sync.Mutex
		n  int      // keys in the shard's table
		_  [48]byte // a lock per cache line
	}
	next    atomic.Uint32
	pagesMu sync.Mutex // held to add a page
}

// keyPageBits is the log2 of the keys a page holds: pages of 512 KiB.
const keyPageBits = 16

// keyPage holds the keys of 2^keyPageBits consecutive ids.
type keyPage [1 << keyPageBits]uint64

// newSharedInterner returns an empty sharedInterner.
func newSharedInterner() *sharedInterner {
	s := new(sharedInterner)
	for i := range s.tabs {
		s.tabs[i].Store(newSharedTable(256))
	}
	s.pages.Store(new([]*keyPage))
	return s
}

// sharedInternerOf returns a sharedInterner that holds the keys of ts,
// with their ids, those of each after those of the ones before it: a
// parallel map can go on from where a sequential one, or a pipelined one,
// stopped.
func sharedInternerOf(ts ...*interner[key64]) *sharedInterner {
	s := newSharedInterner()
	var next uint32
	for _, t := range ts {
		if len(t.keys) > 0 {
			s.reserve(next + uint32(len(t.keys)-1))
		}
		for id, key := range t.keys {
			k := uint64(key)
			s.setKey(next+uint32(id), k)
			i := shardOf(k)
			tab := s.tabs[i].Load()
			_, slot, _ := s.find(tab, k)
			s.add(i, tab, k, next+uint32(id), slot)
		}
		next += uint32(len(t.keys))
	}
	s.next.Store(next)
	return s
}

// reserve makes sure that the page of id exists.
func (s *sharedInterner) reserve(id uint32) {
	p := int(id >> keyPageBits)
	if p < len(*s.pages.Load()) {
		return
	}
	s.pagesMu.Lock()
	defer s.pagesMu.Unlock()
	old := *s.pages.Load()
	if p < len(old) {
		return
	}
	pages := make([]*keyPage, p+1)
	copy(pages, old)
	for q := len(old); q <= p; q++ {
		pages[q] = new(keyPage)
	}
	s.pages.Store(&pages)
}

// key returns the key of id, which must have been published.
func (s *sharedInterner) key(id uint32) uint64 {
	return (*s.pages.Load())[id>>keyPageBits][id&(1<<keyPageBits-1)]
}

// setKey stores the key of a new id, before a slot publishes it.
func (s *sharedInterner) setKey(id uint32, key uint64) {
	(*s.pages.Load())[id>>keyPageBits][id&(1<<keyPageBits-1)] = key
}

// sharedTable is one shard's open-addressing table of ids. An id is
// published by the atomic store of its slot, after its key is stored, so
// a reader that sees the slot sees the key. A table is replaced by a
// larger one, never changed in place beyond adding ids, so a reader still
// on the old one at worst misses a key and looks again under the lock.
type sharedTable struct {
	slots []atomic.Uint32 // id+1, or 0 when empty
	shift uint
}

func newSharedTable(size int) *sharedTable {
	return &sharedTable{slots: make([]atomic.Uint32, size), shift: uint(64 - bits.Len(uint(size-1)))}
}

// start returns the slot of t where the search for key starts.
func (t *sharedTable) start(key uint64) uint64 { return key64(key).hash() >> t.shift }

// find returns the id of key, if t holds it, or else the empty slot where
// it would go.
func (s *sharedInterner) find(t *sharedTable, key uint64) (id uint32, slot uint64, ok bool) {
	return s.findFrom(t, key, t.start(key))
}

// findFrom is find, searching from slot i on.
func (s *sharedInterner) findFrom(t *sharedTable, key uint64, i uint64) (id uint32, slot uint64, ok bool) {
	mask := uint64(len(t.slots) - 1)
	pages := *s.pages.Load()
	for ; ; i = (i + 1) & mask {
		v := t.slots[i].Load()
		if v == 0 {
			return 0, i, false
		}
		p := int((v - 1) >> keyPageBits)
		if p >= len(pages) {
			// Published after the pages were loaded, by a
			// goroutine that added a page first.
			pages = *s.pages.Load()
		}
		if pages[p][(v-1)&(1<<keyPageBits-1)] == key {
			return v - 1, i, true
		}
	}
}

// idBlock is the number of ids a goroutine claims at a time.
const idBlock = 256

// idRange is a goroutine's claimed block of ids, [next, end).
type idRange struct{ next, end uint32 }

// shardOf returns the shard of key. It is a second hash: the top bits of
// the first index the shard's table, and would then be the same for all
// its keys, and its low bits follow only the low bits of the key, the
// labels, not the prefix.
func shardOf(key uint64) uint64 { return ((key ^ key>>32) * 0xbf58476d1ce4e5b9) >> (64 - 6) }

// intern returns the id of key, assigning a new key an id from r.
func (s *sharedInterner) intern(key uint64, r *idRange) uint32 {
	i := shardOf(key)
	t := s.tabs[i].Load()
	id, slot, ok := s.find(t, key)
	if ok {
		return id
	}
	l := &s.locks[i]
	l.mu.Lock()
	if u := s.tabs[i].Load(); u != t {
		t = u
		slot = t.start(key)
	}
	// Keys are only added, so key, if another goroutine added it
	// meanwhile, is at or after the empty slot the look-up stopped at.
	if id, slot, ok = s.findFrom(t, key, slot); ok {
		l.mu.Unlock()
		return id
	}
	if r.next == r.end {
		r.end = s.next.Add(idBlock)
		r.next = r.end - idBlock
		// A block lies in two pages where sharedInternerOf left the
		// counter between multiples of idBlock.
		s.reserve(r.end - 1)
	}
	id = r.next
	r.next++
	s.setKey(id, key)
	s.add(i, t, key, id, slot)
	l.mu.Unlock()
	return id
}

// add puts id, whose key is stored, in shard i's table t at slot, the
// empty slot a look-up of key in t stopped at, first replacing t by a
// larger table if it is half full. The caller holds the shard's lock, or
// is the only goroutine.
func (s *sharedInterner) add(i uint64, t *sharedTable, key uint64, id uint32, slot uint64) {
	l := &s.locks[i]
	if 2*(l.n+1) > len(t.slots) {
		t = s.grown(t)
		s.tabs[i].Store(t)
		_, slot, _ = s.find(t, key)
	}
	t.slots[slot].Store(id + 1)
	l.n++
}

// grown returns a copy of t with twice the slots.
func (s *sharedInterner) grown(t *sharedTable) *sharedTable {
	g := newSharedTable(2 * len(t.slots))
	mask := uint64(len(g.slots) - 1)
	for i := range t.slots {
		if v := t.slots[i].Load(); v != 0 {
			j := g.start(s.key(v - 1))
			for g.slots[j].Load() != 0 {
				j = (j + 1) & mask
			}
			g.slots[j].Store(v)
		}
	}
	return g
}

// len returns the number of keys interned.
func (s *sharedInterner) len() int {
	n := 0
	for i := range s.locks {
		n += s.locks[i].n
	}
	return n
}

func (b *walkMapper) internSlow(key [3]uint64, length int) uint32 {
	id, ok := b.slow[key]
	if !ok {
		id = b.newID(length)
		b.slow[key] = id
	}
	return id
}

// graphVector returns φ(g): Σ_v Φ_l(v), or Σ_v Σ_i Φ_i(v) for Max. It
// checks ctx every few hundred vertices, since one graph's long walks can
// take seconds after label refinement.
func (b *walkMapper) graphVector(ctx context.Context, g *graph.Graph) (Vec, error) {
	b.start(g)
	for i := 1; i <= b.k.Length; i++ {
		if err := b.round(ctx, g, i); err != nil {
			return Vec{}, err
		}
	}
	return b.finish(), nil
}

// start puts Φ_0(v) = φ^V(v) of every vertex of g into b.cur.
func (b *walkMapper) start(g *graph.Graph) {
	n := g.N()
	b.cur.reset()
	for v := 0; v < n; v++ {
		if b.dirac {
			id := b.internFast(noPrev<<32|uint64(g.Labels[v]), 0)
			b.cur.ids = append(b.cur.ids, id)
			b.cur.vals = append(b.cur.vals, 1)
		} else {
			b.vf = b.k.Vertex.(VertexMap).VertexFeatures(b.vf[:0], g, v)
			for _, f := range b.vf {
				b.vacc.add(b.internSlow([3]uint64{f.ID, noPrev, noPrev}, 0), f.Val)
			}
			b.cur.ids, b.cur.vals = b.vacc.flushUnsorted(b.cur.ids, b.cur.vals)
		}
		b.cur.endRow()
	}
	b.work.start(g, &b.cur)
	if b.k.Max || b.k.Length == 0 {
		b.addAll(&b.cur)
	}
}

// round computes Φ_i(v) of every vertex of g from Φ_{i−1}(v) in b.cur,
// into b.cur, or in the last round, i = l, into the graph accumulator
// alone: there the per-vertex vectors are not needed, only their sum.
func (b *walkMapper) round(ctx context.Context, g *graph.Graph, i int) error {
	n := g.N()
	last := i == b.k.Length
	if last && b.dirac {
		return b.pushLast(ctx, g, i)
	}
	b.work.round(g, &b.cur)
	acc := &b.vacc
	if last {
		acc = b.graphAcc()
	} else {
		b.nxt.reset()
	}
	for u := 0; u < n; u++ {
		if u%256 == 0 {
			if err := b.check(ctx); err != nil {
				return err
			}
		}
		if b.dirac {
			b.extendDirac(acc, g, u, i)
		} else {
			b.extendGeneric(acc, g, u, i)
		}
		if !last {
			b.nxt.ids, b.nxt.vals = b.vacc.flushUnsorted(b.nxt.ids, b.nxt.vals)
			b.nxt.endRow()
		}
	}
	if last {
		return nil
	}
	b.cur, b.nxt = b.nxt, b.cur
	b.work.flushed(len(b.cur.ids))
	if b.k.Max {
		b.addAll(&b.cur)
	}
	return nil
}

// pushLast adds the last round to the graph accumulator, for the Dirac
// kernels. The graph vector needs only the sum of the per-vertex vectors
// Φ_l(u) = Σ_{v ∈ N(u)} (label(u), label(uv)) · Φ_{l−1}(v), which is
// Σ_v Σ_p m(v,p) · (p · Φ_{l−1}(v)) over the distinct pairs p of edge and
// neighbour label around v, m(v,p) of them: each sequence of v is
// extended once a pair, not once a neighbour. The counts are integers,
// so the sums do not depend on the order. Around a carbon of MUTAG, whose
// neighbours are mostly carbons bound alike, that saves most of the look-
// ups of the last round, about half of the map.
func (b *walkMapper) pushLast(ctx context.Context, g *graph.Graph, length int) error {
	acc := b.graphAcc()
	// The groups of every vertex first, so that the work is counted
	// before it is done, as round counts it: a probe's work limit
	// then stops the map before the round that would exceed it.
	n := g.N()
	b.groups = b.groups[:0]
	b.groupOff = append(b.groupOff[:0], 0)
	var extends int64
	for v := 0; v < n; v++ {
		if s, e := b.cur.off[v], b.cur.off[v+1]; s < e {
			b.groups = pairGroups(b.groups, g, v, b.nVL)
			extends += int64(len(b.groups)-int(b.groupOff[v])) * int64(e-s)
		}
		b.groupOff = append(b.groupOff, int32(len(b.groups)))
	}
	b.work.pushed(g, extends)
	// Where the ids are b's own and carry no weights, the look-up is
	// b.fast.intern, inlined here, rather than a call of internFast, which
	// is too large to be inlined: a call an extension took 3–5% of the
	// walk kernel's Gram matrices on MUTAG at lengths 7 and 9 and on
	// ENZYMES at 6, on one thread.
	plain := b.shared == nil && !b.k.lengthWeights()
	for v := 0; v < n; v++ {
		if v%256 == 0 {
			if err := b.check(ctx); err != nil {
				return err
			}
		}
		s, e := b.cur.off[v], b.cur.off[v+1]
		for _, pg := range b.groups[b.groupOff[v]:b.groupOff[v+1]] {
			m := float64(pg.n)
			for t := s; t < e; t++ {
				key := uint64(b.cur.ids[t])<<32 | pg.pair
				var id uint32
				if plain {
					id, _ = b.fast.intern(key64(key))
				} else {
					id = b.internFast(key, length)
				}
				acc.add(id, m*b.cur.vals[t])
			}
		}
	}
	return nil
}

// check returns ctx's error, or errBudget where the interner has outgrown
// the mapper's budget, and then drops the round's partial sums, so that
// the mapper can go on with another graph.
func (b *walkMapper) check(ctx context.Context) error {
	err := ctx.Err()
	if err == nil && b.budget > 0 && b.size() > b.budget {
		err = errBudget
	}
	if err != nil {
		b.vacc.flushUnsorted(nil, nil)
		b.gacc.flushUnsorted(nil, nil)
	}
	return err
}

// pairGroup is a pair of edge and neighbour label, packed as in the
// keys of extendDirac, and the number of a vertex's arcs that have it.
type pairGroup struct {
	pair uint64
	n    int32
}

// pairGroupsSort is the degree from which pairGroups sorts the pairs
// instead of searching the groups found so far, which takes time
// quadratic in the degree where the labels are many, as after WL
// refinement.
const pairGroupsSort = 32

// pairGroups appends to buf the distinct pairs of edge and neighbour
// label around v, with their counts, in a fixed order.
func pairGroups(buf []pairGroup, g *graph.Graph, v int, nVL uint64) []pairGroup {
	lo, hi := g.Offsets[v], g.Offsets[v+1]
	pair := func(a int32) uint64 { return uint64(g.EdgeLabels[a])*nVL + uint64(g.Labels[g.Adj[a]]) }
	start := len(buf)
	if hi-lo < pairGroupsSort {
	arcs:
		for a := lo; a < hi; a++ {
			p := pair(a)
			for k := start; k < len(buf); k++ {
				if buf[k].pair == p {
					buf[k].n++
					continue arcs
				}
			}
			buf = append(buf, pairGroup{p, 1})
		}
		return buf
	}
	for a := lo; a < hi; a++ {
		buf = append(buf, pairGroup{pair(a), 1})
	}
	slices.SortFunc(buf[start:], func(x, y pairGroup) int { return cmp.Compare(x.pair, y.pair) })
	out := start
	for k := start; k < len(buf); k++ {
		if out > start && buf[out-1].pair == buf[k].pair {
			buf[out-1].n++
			continue
		}
		buf[out] = buf[k]
		out++
	}
	return buf[:out]
}

// finish returns the graph vector accumulated by start and round.
func (b *walkMapper) finish() Vec {
	var vec Vec
	switch {
	case b.out != nil:
		vec = b.out.flush(b.graphAcc(), b.workers <= 1)
	case b.workers > 1:
		vec.IDs, vec.Vals = b.graphAcc().flushUnsorted(nil, nil)
	default:
		vec.IDs, vec.Vals = b.graphAcc().flush(nil, nil)
	}
	b.work.flushed(vec.Len())
	b.k.guard.doneBy(vec, b.worker, max(1, b.workers))
	return vec
}

// extendDirac adds Φ_i(u) = Σ_{v ∈ N(u)} (label(u), label(uv)) · Φ_{i−1}(v)
// to acc.
func (b *walkMapper) extendDirac(acc *accumulator, g *graph.Graph, u, length int) {
	lu := uint64(g.Labels[u])
	lo, hi := g.Offsets[u], g.Offsets[u+1]
	plain := b.shared == nil && !b.k.lengthWeights() // see pushLast
	for a := lo; a < hi; a++ {
		v := g.Adj[a]
		pair := uint64(g.EdgeLabels[a])*b.nVL + lu
		s, e := b.cur.off[v], b.cur.off[v+1]
		for t := s; t < e; t++ {
			key := uint64(b.cur.ids[t])<<32 | pair
			var id uint32
			if plain {
				id, _ = b.fast.intern(key64(key))
			} else {
				id = b.internFast(key, length)
			}
			acc.add(id, b.cur.vals[t])
		}
	}
}

// extendGeneric adds Φ_i(u) = Σ_{v ∈ N(u)} φ^V(u) ⊗ φ^E(uv) ⊗ Φ_{i−1}(v) to acc.
func (b *walkMapper) extendGeneric(acc *accumulator, g *graph.Graph, u, i int) {
	b.vf = b.k.Vertex.(VertexMap).VertexFeatures(b.vf[:0], g, u)
	em := b.k.Edge.(EdgeMap)
	for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
		v := g.Adj[a]
		b.ef = em.EdgeFeatures(b.ef[:0], g, int(a))
		s, e := b.cur.off[v], b.cur.off[v+1]
		for _, fv := range b.vf {
			for _, fe := range b.ef {
				w := fv.Val * fe.Val
				for t := s; t < e; t++ {
					id := b.internSlow([3]uint64{fv.ID, fe.ID, uint64(b.cur.ids[t])}, i)
					acc.add(id, w*b.cur.vals[t])
				}
			}
		}
	}
}

// addAll adds every per-vertex vector of c to the graph accumulator.
func (b *walkMapper) addAll(c *csrVecs) {
	b.work.flushed(len(c.ids))
	acc := b.graphAcc()
	for t, id := range c.ids {
		acc.add(id, c.vals[t])
	}
}

// graphAcc returns the accumulator of the graph vector. Only Max sums it
// over the rounds while the per-vertex vectors are accumulated; otherwise
// it is summed in the last round alone, where the per-vertex accumulator
// is idle, and shares it: a second one cost 9 bytes per sequence, about
// 300 MiB on U251 at length 10.
func (b *walkMapper) graphAcc() *accumulator {
	if b.k.Max {
		return &b.gacc
	}
	return &b.vacc
}
