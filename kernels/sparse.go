package kernels

import (
	"context"
	"math/bits"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Vec is a sparse vector with ids sorted ascending and no zero values. The
// ids are those of one interner, so only vectors of one computation can be
// compared.
type Vec struct {
	IDs  []uint32
	Vals []float64
}

// Len returns the number of non-zeros.
func (v Vec) Len() int { return len(v.IDs) }

// Dot returns ⟨a, b⟩ by a merge join over the sorted ids.
func Dot(a, b Vec) float64 { return weightedDot(a, b, nil) }

// weightedDot returns Σ w[id]·a[id]·b[id], the dot product under per-feature
// weights, which the Max-l-walk kernel uses to weight walks by their length.
// Nil weights are all 1; the test on w is perfectly predicted, so Dot pays
// nothing for sharing this loop.
func weightedDot(a, b Vec, w []float64) float64 {
	ai, bi := a.IDs, b.IDs
	av, bv := a.Vals[:len(ai)], b.Vals[:len(bi)]
	var s float64
	i, j := 0, 0
	for i < len(ai) && j < len(bi) {
		x, y := ai[i], bi[j]
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			if w == nil {
				s += av[i] * bv[j]
			} else {
				s += w[x] * av[i] * bv[j]
			}
			i++
			j++
		}
	}
	return s
}

// accumulator sums sparse contributions into a dense scratch array indexed by
// id and hands back the sorted non-zeros. It is the hot path of explicit
// feature maps: adding is one array update, and only the touched ids are
// sorted and cleared.
type accumulator struct {
	val     []float64
	seen    []bool
	touched []uint32
}

func (a *accumulator) add(id uint32, x float64) {
	if int(id) >= len(a.val) {
		n := max(2*len(a.val), int(id)+1, 1024)
		a.val = append(a.val, make([]float64, n-len(a.val))...)
		a.seen = append(a.seen, make([]bool, n-len(a.seen))...)
	}
	if !a.seen[id] {
		a.seen[id] = true
		a.touched = append(a.touched, id)
	}
	a.val[id] += x
}

// flush appends the accumulated non-zeros, sorted by id, to ids and vals,
// and resets the accumulator.
func (a *accumulator) flush(ids []uint32, vals []float64) ([]uint32, []float64) {
	t := a.touched
	slices.Sort(t)
	for _, id := range t {
		if v := a.val[id]; v != 0 {
			ids = append(ids, id)
			vals = append(vals, v)
		}
		a.val[id] = 0
		a.seen[id] = false
	}
	a.touched = t[:0]
	return ids, vals
}

// gramFromVecs fills the Gram matrix K_ij = ⟨φ_i, φ_j⟩ (under per-id
// weights, if given) and checks for cancellation between rows.
//
// It chooses between two exact schemes by their cost. Merge joins cost about
// n·Σ nnz(φ_i) steps, whatever the overlap. The inverted scheme transposes
// the vectors into one posting list per feature and, for row i, adds
// x_if·x_jf into K_ij for the graphs j ≥ i listed under each feature f of
// φ_i: it costs Σ_f df_f²/2, far less when features are rare (long walks,
// refined labels, binned attributes), at the price of a transposed copy of
// the vectors; it is taken when it is at least four times cheaper, so that
// dense feature matrices are never copied. Both add each entry's products
// in increasing feature id, starting from zero, so they give the same
// matrix to the bit.
func gramFromVecs(ctx context.Context, vecs []Vec, weights []float64, threads int) (*mat.SymDense, error) {
	n := len(vecs)
	if n == 0 {
		return &mat.SymDense{}, nil
	}
	var nnz, dim int
	for _, v := range vecs {
		nnz += v.Len()
		if v.Len() > 0 {
			dim = max(dim, int(v.IDs[v.Len()-1])+1)
		}
	}
	df := make([]int32, dim)
	for _, v := range vecs {
		for _, id := range v.IDs {
			df[id]++
		}
	}
	inverted := int64(n) * int64(n) / 2
	for _, d := range df {
		inverted += int64(d) * int64(d+1) / 2
	}
	// The posting lists copy the feature matrix, so they must pay for
	// it: dense features (every graph has most of them) cost the two
	// schemes about the same, and then the merge joins, which copy
	// nothing, are taken.
	if merge := int64(n+1) * int64(nnz); merge <= 4*inverted {
		return gramMerge(ctx, vecs, weights, threads)
	}
	return gramInverted(ctx, vecs, weights, df, threads)
}

func gramMerge(ctx context.Context, vecs []Vec, weights []float64, threads int) (*mat.SymDense, error) {
	n := len(vecs)
	K := mat.NewSymDense(n, nil)
	raw := K.RawSymmetric()
	err := forRows(ctx, n, threads, func(_, i int) error {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			row[j] = weightedDot(vecs[i], vecs[j], weights)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return K, nil
}

// gramInverted computes the Gram matrix through posting lists; df[f] is the
// number of vectors with feature f.
func gramInverted(ctx context.Context, vecs []Vec, weights []float64, df []int32, threads int) (*mat.SymDense, error) {
	n := len(vecs)
	// Postings of feature f: graphs[start[f]:start[f+1]], ascending, with
	// their values.
	start := make([]int32, len(df)+1)
	for f, d := range df {
		start[f+1] = start[f] + d
	}
	graphs := make([]int32, start[len(df)])
	vals := make([]float64, len(graphs))
	fill := slices.Clone(start[:len(df)])
	for j, v := range vecs {
		for t, f := range v.IDs {
			graphs[fill[f]] = int32(j)
			vals[fill[f]] = v.Vals[t]
			fill[f]++
		}
	}
	K := mat.NewSymDense(n, nil)
	raw := K.RawSymmetric()
	err := forRows(ctx, n, threads, func(_, i int) error {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		v := vecs[i]
		for t, f := range v.IDs {
			// Graph i is among the postings of its own features, so the
			// search finds where the graphs j ≥ i start.
			lo, hi := int(start[f]), int(start[f+1])
			c, _ := slices.BinarySearch(graphs[lo:hi], int32(i))
			x := v.Vals[t]
			if weights != nil {
				x = weights[f] * x
			}
			for p := lo + c; p < hi; p++ {
				row[graphs[p]] += x * vals[p]
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return K, nil
}

// internKey is a key an interner can hash: a uint64 or a 128-bit key such
// as a graphlet's packed canonical string.
type internKey interface {
	comparable
	hash() uint64
}

// key64 and key128 are the interner's key types.
type (
	key64  uint64
	key128 [2]uint64
)

// hash is Fibonacci hashing: key·2^64/φ, whose top bits index the table.
func (k key64) hash() uint64 { return uint64(k) * 0x9e3779b97f4a7c15 }

func (k key128) hash() uint64 { return (k[0]*0x9e3779b97f4a7c15 ^ k[1]) * 0xbf58476d1ce4e5b9 }

// interner gives keys dense uint32 ids through an open-addressing hash
// table. It replaces a Go map on the hottest interning paths, where the
// runtime map's generic hashing and probing cost several times more.
type interner[K internKey] struct {
	keys  []K      // keys[id]
	slots []uint32 // id+1, or 0 for an empty slot
	shift uint
}

func (t *interner[K]) len() int { return len(t.keys) }

// intern returns the id of key, assigning the next id to a new key.
func (t *interner[K]) intern(key K) (id uint32, added bool) {
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := key.hash() >> t.shift; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id = uint32(len(t.keys))
			t.slots[i] = id + 1
			t.keys = append(t.keys, key)
			return id, true
		}
		if t.keys[s-1] == key {
			return s - 1, false
		}
	}
}

func (t *interner[K]) grow() {
	n := max(2*len(t.slots), 1024)
	// Reserve the keys the new table can hold, so that append does not
	// copy them again in small steps (large slices grow by only 1.25×).
	t.keys = slices.Grow(t.keys, n/2-len(t.keys))
	t.slots = make([]uint32, n)
	t.shift = uint(64 - bits.Len(uint(n-1)))
	mask := uint64(n - 1)
	for id, key := range t.keys {
		i := key.hash() >> t.shift
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(id) + 1
	}
}
