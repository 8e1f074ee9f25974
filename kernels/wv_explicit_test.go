package kernels

import (
	"cmp"
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestRankPairs checks rankPairs's ids against the ranks of the keys among
// all distinct keys, sorted and searched (the definition), on one to three
// threads: where a bitmap over the pair space ranks them, where they are
// sorted with their places by radix (few and many pairs, few of them
// shared, and a pair space of one weight feature or one vertex feature), and where the packed keys
// and places pass 64 bits and are sorted by comparison. A rewrite that
// doubles the weight features shows that the ranks are taken after it.
func TestRankPairs(t *testing.T) {
	tests := []struct {
		name           string
		graphs, perG   int
		dimW, dimV     uint64
		rewriteDoubles bool
		pool           int // keys drawn from; 4·perG if 0
	}{
		// 32 bits a pair or fewer: the bitmap.
		{name: "bitmap", graphs: 50, perG: 40, dimW: 40, dimV: 30},
		{name: "bitmap rewritten", graphs: 50, perG: 40, dimW: 20, dimV: 30, rewriteDoubles: true},
		// More: sorted, by radix.
		{name: "sorted few", graphs: 20, perG: 10, dimW: 5000, dimV: 300},
		{name: "sorted many", graphs: 300, perG: 200, dimW: 30000, dimV: 900},
		{name: "sorted rewritten", graphs: 300, perG: 200, dimW: 15000, dimV: 900, rewriteDoubles: true},
		// Few keys shared, so that most neighbours in the sorted keys
		// differ, where the threads' parts and pieces meet too.
		{name: "sorted, few shared", graphs: 200, perG: 300, dimW: 1 << 20, dimV: 1 << 10, pool: 1 << 20},
		{name: "one weight feature", graphs: 100, perG: 50, dimW: 1, dimV: 1 << 20},
		{name: "one vertex feature", graphs: 100, perG: 50, dimW: 1 << 20, dimV: 1},
		// 31 + 31 bits of pair and 16 of place: by comparison.
		{name: "past 64 bits", graphs: 100, perG: 500, dimW: 1 << 31, dimV: 1 << 31},
	}
	for _, tt := range tests {
		rng := rand.New(rand.NewPCG(5, uint64(len(tt.name))))
		dimW := tt.dimW
		if tt.rewriteDoubles {
			dimW *= 2
		}
		// Keys drawn from a small set, so that graphs share pairs.
		pool := make([]uint64, cmp.Or(tt.pool, 4*tt.perG))
		for p := range pool {
			pool[p] = rng.Uint64N(tt.dimW)<<32 | rng.Uint64N(tt.dimV)
		}
		base := make([][]uint64, tt.graphs)
		nnz := 0
		for i := range base {
			ks := make([]uint64, 0, tt.perG)
			for range tt.perG {
				ks = append(ks, pool[rng.IntN(len(pool))])
			}
			slices.Sort(ks)
			base[i] = slices.Compact(ks)
			nnz += len(base[i])
		}
		var rewrite func([]uint64)
		if tt.rewriteDoubles {
			rewrite = func(ks []uint64) {
				for t, k := range ks {
					ks[t] = (k>>32)*2<<32 | k&(1<<32-1)
				}
			}
		}
		// The definition: ranks among the sorted distinct keys, after
		// the rewrite.
		var all []uint64
		for _, ks := range base {
			for _, k := range ks {
				if tt.rewriteDoubles {
					k = (k>>32)*2<<32 | k&(1<<32-1)
				}
				all = append(all, k)
			}
		}
		slices.Sort(all)
		all = slices.Compact(all)
		for threads := 1; threads <= 3; threads++ {
			keys := make([][]uint64, len(base))
			for i := range base {
				keys[i] = slices.Clone(base[i])
			}
			vecs := make([]Vec, len(keys))
			dim, err := rankPairs(context.Background(), keys, vecs, dimW, tt.dimV, rewrite, nnz, threads)
			if err != nil {
				t.Fatalf("%s, %d threads: %v", tt.name, threads, err)
			}
			if dim != len(all) {
				t.Errorf("%s, %d threads: %d distinct pairs, want %d", tt.name, threads, dim, len(all))
			}
			for i, ks := range base {
				for t2, k := range ks {
					if tt.rewriteDoubles {
						k = (k>>32)*2<<32 | k&(1<<32-1)
					}
					want, _ := slices.BinarySearch(all, k)
					if got := vecs[i].IDs[t2]; int(got) != want {
						t.Fatalf("%s, %d threads: graph %d pair %d (%#x): id %d, want %d", tt.name, threads, i, t2, k, got, want)
					}
				}
				if keys[i] != nil {
					t.Fatalf("%s, %d threads: graph %d's keys not released", tt.name, threads, i)
				}
			}
		}
	}
}

// TestPairSlab adds graphs' sums of the given sizes to a pairSlab and
// checks that each copy holds what was added, with no room to grow into the
// next, that no later add changes it, and that what the slab allocated is
// within pairSlabBytes's bound for those sizes on one worker. The sizes
// straddle half a chunk (pairSlabChunk/2 = 2048), where a graph takes
// arrays of its own, and leave chunks as empty as the rule allows: 2047
// after 2050 leaves 2049 unused.
func TestPairSlab(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
	}{
		{"small", []int{1, 5, 17, 300, 0, 64}},
		{"fill", slices.Repeat([]int{1000}, 20)},
		{"halves", slices.Repeat([]int{2047, 2050}, 10)},
		{"big", []int{2049, 5000, 3, 2048, 2049}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(len(tc.sizes))))
			var s pairSlab
			var gotK [][]uint64
			var gotV [][]float64
			var wantK [][]uint64
			var wantV [][]float64
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for _, n := range tc.sizes {
				ks, kv := make([]uint64, n), make([]float64, n)
				for i := range ks {
					ks[i], kv[i] = rng.Uint64(), rng.Float64()
				}
				wantK, wantV = append(wantK, ks), append(wantV, kv)
				k, v := s.add(ks, kv)
				if cap(k) != n || cap(v) != n {
					t.Fatalf("add of %d pairs: capacities %d and %d", n, cap(k), cap(v))
				}
				gotK, gotV = append(gotK, k), append(gotV, v)
			}
			runtime.ReadMemStats(&after)
			for i := range wantK {
				if !slices.Equal(gotK[i], wantK[i]) || !slices.Equal(gotV[i], wantV[i]) {
					t.Errorf("graph %d (%d pairs): copy differs from what was added", i, tc.sizes[i])
				}
			}
			// What the inputs allocated, counted apart from the slab's.
			var inputs uint64
			nnz := make([]int64, len(tc.sizes))
			for i, n := range tc.sizes {
				inputs += uint64(16 * n)
				nnz[i] = int64(n)
			}
			slab := int64(after.TotalAlloc-before.TotalAlloc) - int64(inputs)
			if bound := pairSlabBytes(nnz, 1, 1); slab > bound {
				t.Errorf("allocated about %d bytes, bound %d", slab, bound)
			}
		})
	}
}
