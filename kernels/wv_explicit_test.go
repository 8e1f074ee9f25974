package kernels

import (
	"cmp"
	"context"
	"math/rand/v2"
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
