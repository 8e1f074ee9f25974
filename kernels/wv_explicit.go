package kernels

import (
	"context"
	"math/bits"
	"slices"

	"github.com/gkbench/gkbench/graph"
)

// wvVectors returns the explicit feature vectors φ^WV(G) = Σ_v φ^W(v) ⊗ φ^V(v)
// of a weighted vertex kernel (Proposition 4.2) and the number of distinct
// features among them.
//
// A feature is a pair (weight feature, vertex feature). Interning every pair
// of every vertex in one global hash table costs a cache miss a pair, and
// there are Σ_v nnz(φ^W(v))·nnz(φ^V(v)) of them (5M for GI with h = 3 and
// P = 64 on ENZYMES), about twice the distinct pairs of the graphs. So each
// graph's pairs are first summed locally: its vertices are grouped by weight
// feature, and each group's vertex features are summed in a dense array over
// the (few) vertex feature ids, which hands back the graph's distinct pairs
// in sorted order. Only these are given global ids, by their rank among all
// distinct pairs, so that a graph's ids stay sorted. The sums add each
// pair's products in vertex order, as one global accumulator would.
func wvVectors(ctx context.Context, gs []*graph.Graph, w vertexWeights, vm VertexMap) ([]Vec, int, error) {
	// Bin ids are dense already; other vertex features, such as labels,
	// are made dense, as the sums are kept in an array indexed by them.
	bins, dense := vm.(*Binning)
	var (
		vIDs   interner[key64]
		fw, fv []Feature
		// The current graph's vertex features with dense ids: those of
		// vertex u are vf[vs[u]:vs[u+1]] with values vv.
		vf []uint32
		vv []float64
		vs []int32
		// The current graph's weight features: wid<<32 | e, with the
		// vertex and the value of entry e in eu[e] and ew[e].
		groups []uint64
		eu     []int32
		ew     []float64
		acc    denseAcc
		ks     []uint64 // wid<<32 | vertex feature id
		kv     []float64
	)
	keys := make([][]uint64, len(gs))
	vecs := make([]Vec, len(gs))
	var nnz int
	for i, g := range gs {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		vf, vv, vs = vf[:0], vv[:0], append(vs[:0], 0)
		groups, eu, ew = groups[:0], eu[:0], ew[:0]
		for u := 0; u < g.N(); u++ {
			fv = vm.VertexFeatures(fv[:0], g, u)
			for _, y := range fv {
				id := uint32(y.ID)
				if !dense {
					id, _ = vIDs.intern(key64(y.ID))
				}
				vf = append(vf, id)
				vv = append(vv, y.Val)
			}
			vs = append(vs, int32(len(vf)))
			fw = w.features(fw[:0], i, u)
			for _, x := range fw {
				groups = append(groups, x.ID<<32|uint64(len(eu)))
				eu = append(eu, int32(u))
				ew = append(ew, x.Val)
			}
		}
		// Entries are numbered in vertex order, so sorting by wid<<32|e
		// keeps each group in vertex order.
		slices.Sort(groups)
		ks, kv = ks[:0], kv[:0]
		for a := 0; a < len(groups); {
			wid := groups[a] >> 32
			for ; a < len(groups) && groups[a]>>32 == wid; a++ {
				e := uint32(groups[a])
				u, x := eu[e], ew[e]
				for t := vs[u]; t < vs[u+1]; t++ {
					acc.add(vf[t], x*vv[t])
				}
			}
			ks, kv = acc.flush(ks, kv, wid<<32)
		}
		keys[i] = slices.Clone(ks)
		vecs[i].Vals = slices.Clone(kv)
		nnz += len(ks)
	}
	dimV := vIDs.len()
	if dense {
		dimV = bins.Bins()
	}
	dim := rankPairs(keys, vecs, uint64(w.dim()), uint64(dimV), nnz)
	return vecs, dim, nil
}

// rankPairs sets vecs[i].IDs to the ranks of keys[i] among the distinct keys
// of all graphs, which are pairs wid<<32 | vid with wid < dimW and vid <
// dimV, and returns the number of distinct keys. Ranks keep each graph's
// sorted keys sorted. keys[i] is released.
//
// When the pair space dimW·dimV is at most 32 pairs a non-zero, a bitmap
// over it with a prefix count a word ranks a key in constant time, for at
// most 6 bytes a non-zero (a bit and a 64th of a uint32 per pair of the
// space); otherwise the distinct keys are sorted, for 8 bytes a non-zero,
// and searched.
func rankPairs(keys [][]uint64, vecs []Vec, dimW, dimV uint64, nnz int) int {
	if space := dimW * dimV; space <= 32*uint64(nnz)+1<<16 {
		words := make([]uint64, (space+63)/64)
		for _, ks := range keys {
			for _, k := range ks {
				p := (k>>32)*dimV + k&(1<<32-1)
				words[p/64] |= 1 << (p % 64)
			}
		}
		rank := make([]uint32, len(words))
		var r uint32
		for j, x := range words {
			rank[j] = r
			r += uint32(bits.OnesCount64(x))
		}
		for i, ks := range keys {
			ids := make([]uint32, len(ks))
			for t, k := range ks {
				p := (k>>32)*dimV + k&(1<<32-1)
				ids[t] = rank[p/64] + uint32(bits.OnesCount64(words[p/64]&(1<<(p%64)-1)))
			}
			vecs[i].IDs = ids
			keys[i] = nil
		}
		return int(r)
	}
	all := make([]uint64, 0, nnz)
	for _, ks := range keys {
		all = append(all, ks...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	for i, ks := range keys {
		ids := make([]uint32, len(ks))
		lo := 0
		for t, k := range ks {
			// The keys ascend, so each search starts where the last
			// one ended.
			j, _ := slices.BinarySearch(all[lo:], k)
			lo += j
			ids[t] = uint32(lo)
		}
		vecs[i].IDs = ids
		keys[i] = nil
	}
	return len(all)
}

// denseAcc sums values by small dense ids in an array, marking the touched
// ids in a bitmap, and hands back the sums in id order: by scanning the
// bitmap between the smallest and largest touched id when they are close,
// else by sorting the touched ids.
type denseAcc struct {
	val     []float64
	bits    []uint64
	touched []uint32
	lo, hi  uint32 // smallest and largest touched id
}

func (a *denseAcc) add(id uint32, x float64) {
	if int(id) >= len(a.val) {
		// At least doubling, and to exactly the size asked, so that
		// wvBytes can bound what growth allocates.
		n := max(2*len(a.val), int(id)+1, 1024)
		val, marks := make([]float64, n), make([]uint64, (n+63)/64)
		copy(val, a.val)
		copy(marks, a.bits)
		a.val, a.bits = val, marks
	}
	if w, b := id/64, uint64(1)<<(id%64); a.bits[w]&b == 0 {
		a.bits[w] |= b
		if len(a.touched) == 0 {
			a.lo, a.hi = id, id
		}
		a.lo, a.hi = min(a.lo, id), max(a.hi, id)
		a.touched = append(a.touched, id)
	}
	a.val[id] += x
}

// flush appends prefix|id and the sum of every touched id with a non-zero
// sum to keys and vals, in increasing id, and resets the accumulator.
func (a *denseAcc) flush(keys []uint64, vals []float64, prefix uint64) ([]uint64, []float64) {
	t := len(a.touched)
	if t == 0 {
		return keys, vals
	}
	emit := func(id uint32) {
		if v := a.val[id]; v != 0 {
			keys = append(keys, prefix|uint64(id))
			vals = append(vals, v)
		}
		a.val[id] = 0
	}
	// Scanning costs a word a 64 ids of the span, sorting t·log t.
	if lo, span := a.lo/64, int(a.hi/64-a.lo/64)+1; span <= t*bits.Len(uint(t)) {
		for w, x := range a.bits[lo : int(lo)+span] {
			for x != 0 {
				emit((lo+uint32(w))*64 + uint32(bits.TrailingZeros64(x)))
				x &= x - 1
			}
		}
		clear(a.bits[lo : int(lo)+span])
	} else {
		slices.Sort(a.touched)
		for _, id := range a.touched {
			emit(id)
			a.bits[id/64] = 0
		}
	}
	a.touched = a.touched[:0]
	return keys, vals
}
