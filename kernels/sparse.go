package kernels

import "slices"

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
