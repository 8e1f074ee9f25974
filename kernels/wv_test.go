package kernels

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortGroups checks sortGroups against slices.Sort on keys whose low
// halves ascend, as wvScratch.sum makes them, by radix with one to three
// passes and by comparison where the keys are too few or their high
// halves too wide.
func TestSortGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, groupRadixMin - 1, groupRadixMin, 72, 1000} {
		for _, top := range []uint64{0, 1, 255, 256, 1<<14 - 1, 1<<24 - 1, 1 << 24, 1<<32 - 1} {
			keys := make([]uint64, n)
			for e := range keys {
				wid := r.Uint64N(top + 1)
				if e == n/2 {
					wid = top // the largest, as sum passes it
				}
				keys[e] = wid<<32 | uint64(e)
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			got, _ := sortGroups(keys, nil, top)
			if !slices.Equal(got, want) {
				t.Errorf("n %d, top %d: keys not sorted", n, top)
			}
		}
	}
}

// BenchmarkSortGroups compares the sort of GI's groups on MUTAG's graphs
// (h = 3, 10–29 vertices: 4 keys a vertex, their high halves below 2^14)
// by sortGroups and by comparison.
func BenchmarkSortGroups(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	var sets [][]uint64
	for range 188 {
		var keys []uint64
		for u := range 10 + r.IntN(20) {
			for i := range uint64(4) {
				c := uint64(r.IntN(40))
				if i == 0 {
					c = 0
				}
				keys = append(keys, (i<<12|c)<<32|uint64(4*u)+i)
			}
		}
		sets = append(sets, keys)
	}
	x := make([]uint64, 0, 200)
	var buf []uint64
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			for _, s := range sets {
				x = append(x[:0], s...)
				x, buf = sortGroups(x, buf, 1<<14-1)
			}
		}
	})
	b.Run("pdqsort", func(b *testing.B) {
		for b.Loop() {
			for _, s := range sets {
				x = append(x[:0], s...)
				slices.Sort(x)
			}
		}
	})
}
