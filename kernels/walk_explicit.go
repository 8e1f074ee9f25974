package kernels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

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
	// noPrev<<32 | vertexLabel.
	nVL  uint64
	fast interner[key64]

	// Generic path: keyed by (vertex feature, edge feature, prev id), and a
	// length-0 sequence by (vertex feature, noPrev, noPrev).
	slow map[[3]uint64]uint32

	// weights[id] is λ of the length of sequence id; kept only for Max.
	weights []float64

	vacc, gacc accumulator
	cur, nxt   csrVecs
	vf, ef     []Feature

	// work, if not nil, counts the work of graphVector, which the cost
	// model of Advise prices.
	work *mapWork

	// budget, if positive, is the number of interned sequences beyond
	// which graphVector stops with errBudget.
	budget int
}

// errBudget stops a walk map that has interned more sequences than its
// budget.
var errBudget = errors.New("walk kernel: sequence budget exceeded")

// csrVecs stores one sparse vector per vertex in CSR form.
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

func newDiracWalkMapper(k *Walk, gs []*graph.Graph) (*walkMapper, error) {
	var nVL, nEL int32
	for _, g := range gs {
		for _, l := range g.Labels {
			if l < 0 {
				return nil, fmt.Errorf("walk kernel: negative vertex label %d", l)
			}
			nVL = max(nVL, l+1)
		}
		for _, l := range g.EdgeLabels {
			if l < 0 {
				return nil, fmt.Errorf("walk kernel: negative edge label %d", l)
			}
			nEL = max(nEL, l+1)
		}
	}
	if uint64(max(nVL, 1))*uint64(max(nEL, 1)) >= noPrev {
		// Too many labels to pack a key into 64 bits: the generic path
		// handles Dirac kernels too, only more slowly.
		return newGenericWalkMapper(k)
	}
	return &walkMapper{k: k, dirac: true, nVL: uint64(max(nVL, 1))}, nil
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

// size returns the number of interned label sequences of all lengths.
func (b *walkMapper) size() int {
	if b.dirac {
		return b.fast.len()
	}
	return len(b.slow)
}

func (b *walkMapper) newID(length int) uint32 {
	id := uint32(b.size())
	if b.k.Max && b.k.Lambda != nil {
		b.weights = append(b.weights, b.k.Lambda[length])
	}
	return id
}

func (b *walkMapper) internFast(key uint64, length int) uint32 {
	id, added := b.fast.intern(key64(key))
	if added && b.k.Max && b.k.Lambda != nil {
		b.weights = append(b.weights, b.k.Lambda[length])
	}
	return id
}

// fork returns an empty mapper with the same label packing, for one chunk
// of graphs of a parallel computation; its interner keeps the keys in id
// order, so that the ids of several mappers can be merged.
func (b *walkMapper) fork() *walkMapper {
	return &walkMapper{k: b.k, dirac: true, nVL: b.nVL}
}

// walkChunk is the number of graphs one goroutine maps with one interner.
// It is fixed, not derived from the number of threads, so that the ids,
// and with them the order of every sum, are the same for any number.
const walkChunk = 16

// parallelVectors maps the graphs in chunks of walkChunk on up to threads
// goroutines, each chunk with its own interner, and then merges the
// chunks' ids in chunk order into one id space: a length-i sequence's key
// names its length-(i−1) prefix by id, so the chunk's ids are translated in
// creation order, prefixes first. It is used for integer counts only (no
// weights), where the result does not depend on how ids are numbered.
func (b *walkMapper) parallelVectors(ctx context.Context, gs []*graph.Graph, threads int) ([]Vec, int, error) {
	n := len(gs)
	chunks := (n + walkChunk - 1) / walkChunk
	vecs := make([]Vec, n)
	keys := make([][]key64, chunks)
	err := forRows(ctx, chunks, threads, func(_, c int) error {
		m := b.fork()
		for i := c * walkChunk; i < min(n, (c+1)*walkChunk); i++ {
			var err error
			if vecs[i], err = m.graphVector(ctx, gs[i]); err != nil {
				return err
			}
		}
		keys[c] = m.fast.keys
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	// The chunks' keys are interned in chunk order, serially, so that the
	// ids do not depend on the threads; translating and re-sorting the
	// vectors, most of the merge's work, is each chunk's own.
	var global interner[key64]
	locals := make([][]uint32, chunks)
	for c, ks := range keys {
		local := make([]uint32, len(ks))
		for id, k := range ks {
			key := uint64(k)
			if prev := key >> 32; prev != noPrev {
				key = uint64(local[prev])<<32 | key&(1<<32-1)
			}
			local[id], _ = global.intern(key64(key))
		}
		locals[c] = local
	}
	type entry struct {
		id  uint32
		val float64
	}
	bufs := make([][]entry, threads)
	err = forRows(ctx, chunks, threads, func(w, c int) error {
		local, buf := locals[c], bufs[w]
		for i := c * walkChunk; i < min(n, (c+1)*walkChunk); i++ {
			v := &vecs[i]
			buf = buf[:0]
			for t, id := range v.IDs {
				buf = append(buf, entry{local[id], v.Vals[t]})
			}
			slices.SortFunc(buf, func(a, b entry) int { return cmp.Compare(a.id, b.id) })
			for t, e := range buf {
				v.IDs[t], v.Vals[t] = e.id, e.val
			}
		}
		bufs[w] = buf
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return vecs, global.len(), nil
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
	n := g.N()
	l := b.k.Length
	// Φ_0(v) = φ^V(v).
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
			b.cur.ids, b.cur.vals = b.vacc.flush(b.cur.ids, b.cur.vals)
		}
		b.cur.endRow()
	}
	b.work.start(g, &b.cur)
	if b.k.Max || l == 0 {
		b.addAll(&b.cur)
	}
	for i := 1; i <= l; i++ {
		b.work.round(g, &b.cur)
		// In the last round the per-vertex vectors are not needed, only
		// their sum, so contributions go straight to the graph vector.
		last := i == l
		acc := &b.vacc
		if last {
			acc = &b.gacc
		}
		b.nxt.reset()
		for u := 0; u < n; u++ {
			if u%256 == 0 {
				err := ctx.Err()
				if err == nil && b.budget > 0 && b.size() > b.budget {
					err = errBudget
				}
				if err != nil {
					b.vacc.flush(nil, nil)
					b.gacc.flush(nil, nil)
					return Vec{}, err
				}
			}
			if b.dirac {
				b.extendDirac(acc, g, u, i)
			} else {
				b.extendGeneric(acc, g, u, i)
			}
			if !last {
				b.nxt.ids, b.nxt.vals = b.vacc.flush(b.nxt.ids, b.nxt.vals)
				b.nxt.endRow()
			}
		}
		b.cur, b.nxt = b.nxt, b.cur
		if !last {
			b.work.flushed(len(b.cur.ids))
		}
		if b.k.Max && !last {
			b.addAll(&b.cur)
		}
	}
	var vec Vec
	vec.IDs, vec.Vals = b.gacc.flush(nil, nil)
	b.work.flushed(vec.Len())
	return vec, nil
}

// extendDirac adds Φ_i(u) = Σ_{v ∈ N(u)} (label(u), label(uv)) · Φ_{i−1}(v)
// to acc.
func (b *walkMapper) extendDirac(acc *accumulator, g *graph.Graph, u, length int) {
	lu := uint64(g.Labels[u])
	lo, hi := g.Offsets[u], g.Offsets[u+1]
	for a := lo; a < hi; a++ {
		v := g.Adj[a]
		pair := uint64(g.EdgeLabels[a])*b.nVL + lu
		s, e := b.cur.off[v], b.cur.off[v+1]
		for t := s; t < e; t++ {
			id := b.internFast(uint64(b.cur.ids[t])<<32|pair, length)
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
	for t, id := range c.ids {
		b.gacc.add(id, c.vals[t])
	}
}
