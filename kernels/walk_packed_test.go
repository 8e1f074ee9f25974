package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
)

// TestPackedVector checks packed walk vectors against hand-derived keys on
// the path a–b–a, labels 1, 2, 1 (2 bits a label): the key of a sequence
// holds its first label in the highest bits, then each edge label and the
// next vertex label.
func TestPackedVector(t *testing.T) {
	labels := []int32{1, 2, 1}
	plain := graph.MustBuild(labels, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	// Edge labels 0 and 1, one bit each.
	labelled := graph.MustBuild(labels, []graph.Edge{{U: 0, V: 1, Label: 0}, {U: 1, V: 2, Label: 1}})
	tests := []struct {
		name string
		g    *graph.Graph
		l    int
		keys []uint64
		vals []float64
	}{
		// Length 1: 1→2 and 2→1, twice each; (1,2) = 1<<2 | 2 = 6, (2,1)
		// = 2<<2 | 1 = 9.
		{"plain l1", plain, 1, []uint64{6, 9}, []float64{2, 2}},
		// Length 2: (1,2,1) four times (from either end, back or on),
		// 1<<4 | 2<<2 | 1 = 25; (2,1,2) twice, 2<<4 | 1<<2 | 2 = 38.
		{"plain l2", plain, 2, []uint64{25, 38}, []float64{4, 2}},
		// Length 1 with edge labels: (x, e, y) = (x<<1 | e)<<2 | y:
		// (1,0,2) = 10, (1,1,2) = 14, (2,0,1) = 17, (2,1,1) = 21.
		{"labelled l1", labelled, 1, []uint64{10, 14, 17, 21}, []float64{1, 1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vb, eb, ok := packedBits([]*graph.Graph{tt.g}, tt.l)
			if !ok {
				t.Fatal("labels do not pack")
			}
			var sc packedScratch
			keys, vals, err := packedVector(context.Background(), tt.g, tt.l, vb, eb, &sc)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys, tt.keys) || !slices.Equal(vals, tt.vals) {
				t.Errorf("keys %v, counts %v; want %v, %v", keys, vals, tt.keys, tt.vals)
			}
		})
	}
	// 33 labels take 6 bits: 11 vertex labels of a walk of length 10 take
	// 66, too many.
	many := make([]int32, 33)
	for i := range many {
		many[i] = int32(i)
	}
	g := graph.MustBuild(many, nil)
	if _, _, ok := packedBits([]*graph.Graph{g}, 10); ok {
		t.Error("66 bits pack")
	}
	if vb, _, ok := packedBits([]*graph.Graph{g}, 9); !ok || vb != 6 {
		t.Errorf("60 bits: %d bits a label, packed %v", vb, ok)
	}
}

// TestRankPacked checks the ranks of keys among all graphs', and the
// graphs holding each, against a sort of all of them, at widths from 0 (every key 0) to 64 bits, with
// few and many keys, on 1 to 3 threads: the buckets and the radix passes
// must not change them.
func TestRankPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, width := range []uint{0, 3, 12, 27, 40, 64} {
		for _, graphs := range []int{1, 7, 300} {
			for _, perGraph := range []int{1, 40, 2000} {
				keys := make([][]uint64, graphs)
				nnz := 0
				var all []uint64
				for i := range keys {
					// Keys from a pool of a few per graph, so that
					// graphs share many of them.
					for range perGraph {
						x := rng.Uint64N(uint64(4 * perGraph))
						x = x * 0x9e3779b97f4a7c15
						if width < 64 {
							x &= 1<<width - 1
						}
						keys[i] = append(keys[i], x)
					}
					slices.Sort(keys[i])
					keys[i] = slices.Compact(keys[i])
					nnz += len(keys[i])
					all = append(all, keys[i]...)
				}
				slices.Sort(all)
				all = slices.Compact(all)
				want := make([][]uint32, graphs)
				for i, ks := range keys {
					for _, x := range ks {
						r, _ := slices.BinarySearch(all, x)
						want[i] = append(want[i], uint32(r))
					}
				}
				for threads := 1; threads <= 3; threads++ {
					in := make([][]uint64, graphs)
					for i := range keys {
						in[i] = slices.Clone(keys[i])
					}
					vecs := make([]Vec, graphs)
					df, err := rankPacked(context.Background(), in, vecs, width, nnz, threads)
					what := fmt.Sprintf("width %d, %d graphs of %d keys, %d threads", width, graphs, perGraph, threads)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if len(df) != len(all) {
						t.Errorf("%s: %d distinct keys, want %d", what, len(df), len(all))
					}
					wantDF := make([]int32, len(all))
					for _, ks := range keys {
						for _, x := range ks {
							r, _ := slices.BinarySearch(all, x)
							wantDF[r]++
						}
					}
					if !slices.Equal(df, wantDF) {
						t.Errorf("%s: graphs holding each key %v, want %v", what, df, wantDF)
					}
					for i := range vecs {
						if !slices.Equal(vecs[i].IDs, want[i]) {
							t.Fatalf("%s: graph %d ranks %v, want %v", what, i, vecs[i].IDs, want[i])
						}
					}
				}
			}
		}
	}
}

// walkDimension returns the distinct ids of vecs: the dimension in use,
// which the packed map reports as its features.
func walkDimension(vecs []Vec) int64 {
	seen := map[uint32]bool{}
	for _, v := range vecs {
		for _, id := range v.IDs {
			seen[id] = true
		}
	}
	return int64(len(seen))
}

// wantWalkFeatures returns the features that k's explicit Gram matrix of
// gs, refined already, reports on threads by way how: seq, the sequential
// map's, unless the packed map runs, which reports the dimension of the
// vectors.
func wantWalkFeatures(t *testing.T, k Walk, gs []*graph.Graph, threads int, how overlapChoice, seq int64) int64 {
	t.Helper()
	k.WL = 0
	b, err := k.newMapper(gs)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := k.packs(b, gs, threads, how, func() bool { return k.walksExact(gs) }); !ok {
		return seq
	}
	vecs, _, err := k.FeatureVectors(context.Background(), gs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return walkDimension(vecs)
}
