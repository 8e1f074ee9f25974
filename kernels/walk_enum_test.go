package kernels

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/graph/graphtest"
)

// sortedKeys returns keys and vals sorted by key.
func sortedKeys(keys []uint64, vals []float64) ([]uint64, []float64) {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	k, v := make([]uint64, len(keys)), make([]float64, len(vals))
	for t, i := range idx {
		k[t], v[t] = keys[i], vals[i]
	}
	return k, v
}

// TestEnumPackedMerged checks enumPacked against packedVector's merges on
// MUTAG after 0 to 3 WL iterations, at lengths 1 to 4, with one scratch
// for all graphs, as a worker has: the same keys and counts, once
// sorted.
func TestEnumPackedMerged(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs[:60]
	for h := range 4 {
		gs := mutag
		if h > 0 {
			gs = graph.RefineGraphs(mutag, h, graph.FromLabels)
		}
		for l := 1; l <= 4; l++ {
			vb, eb, _, ok := packedBits(gs, l)
			if !ok || packedWidth(l, vb, eb) > 64 {
				continue
			}
			var sc enumScratch
			var msc packedScratch[uint64]
			for i, g := range gs {
				keys, vals, err := enumPacked(context.Background(), g, l, vb, eb, walkBound(g, l), &sc)
				if err != nil {
					t.Fatal(err)
				}
				wk, wv, err := packedVector(context.Background(), g, l, vb, eb, &msc, narrowOps())
				if err != nil {
					t.Fatal(err)
				}
				if keys, vals = sortedKeys(keys, vals); !slices.Equal(keys, wk) || !slices.Equal(vals, wv) {
					t.Fatalf("h=%d l=%d graph %d: %d keys enumerated, %d merged", h, l, i, len(keys), len(wk))
				}
			}
		}
	}
}

// labelledComplete returns the complete graph on n vertices, vertex v
// labelled v mod 5 and edge uv (u + v) mod 3.
func labelledComplete(n int) *graph.Graph {
	var edges []graph.Edge
	for u := range n {
		for v := u + 1; v < n; v++ {
			edges = append(edges, graph.Edge{U: int32(u), V: int32(v), Label: int32((u + v) % 3)})
		}
	}
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = int32(i % 5)
	}
	return graph.MustBuild(labels, edges)
}

// TestWalkStreamedPacked checks that the streamed packed map gives the
// sequential matrix to the bit, with the features of full length, where
// streamPacks takes it: on MUTAG, and on MUTAG with the complete graph on
// 20 vertices, whose 7,220 walks of length 2 are beyond enumMaxWalks and
// merged (see mapPacked) beside the others enumerated; and which kernels
// it does not take.
func TestWalkStreamedPacked(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs[:80]
	complete := labelledComplete(20)
	if b := walkBound(complete, 2); enumerates(2, b) {
		t.Fatalf("the complete graph's bound %v is within enumMaxWalks", b)
	}
	mixed := append(slices.Clone(mutag[:40]), complete)
	mixed = append(mixed, mutag[40:]...)
	tests := []struct {
		name string
		gs   []*graph.Graph
		k    Walk
	}{
		{"l1-wl1", mutag, Walk{Length: 1, WL: 1}},
		{"l2-wl2", mutag, Walk{Length: 2, WL: 2}},
		{"l4-wl3", mutag, Walk{Length: 4, WL: 3}},
		{"l3-wl4", mutag, Walk{Length: 3, WL: 4}},
		{"mixed l2-wl1", mixed, Walk{Length: 2, WL: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, wrep, err := tt.k.Gram(context.Background(), tt.gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			in := graph.RefineGraphs(tt.gs, tt.k.WL, graph.FromLabels)
			vecs, _, err := (&Walk{Length: tt.k.Length}).FeatureVectors(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			features := walkDimension(vecs)
			for _, threads := range []int{2, 3} {
				k := tt.k
				k.Threads = threads
				if _, _, ok := k.streamPacks(tt.gs, threads); !ok {
					t.Fatalf("threads %d: not streamed", threads)
				}
				got, rep, err := k.Gram(context.Background(), tt.gs, Explicit)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("threads %d", threads)
				requireEqual(t, what, want, got)
				if rep.Features != features || rep.FeatureNNZ != wrep.FeatureNNZ || rep.TPrep != 0 {
					t.Errorf("%s: %d features, %d nnz, refinement apart %v; want %d, %d, 0", what, rep.Features, rep.FeatureNNZ, rep.TPrep, features, wrep.FeatureNNZ)
				}
			}
		})
	}
	// Not streamed: one thread, no refinement, five iterations, the
	// Max-l-walk kernel, generic base kernels, 89 bits (80 graphs of
	// MUTAG, of more than 1024 vertices, take 11 bits a label, their
	// edge labels 2), and one iteration at length 3 on fewer than
	// packedMinWalks walks.
	for _, c := range []struct {
		k       Walk
		threads int
	}{
		{Walk{Length: 2, WL: 2}, 1},
		{Walk{Length: 2}, 2},
		{Walk{Length: 2, WL: 5}, 2},
		{Walk{Length: 2, WL: 2, Max: true}, 2},
		{Walk{Length: 2, WL: 2, Vertex: genericDirac{}}, 2},
		{Walk{Length: 6, WL: 2}, 2},
		{Walk{Length: 3, WL: 1}, 2},
	} {
		if _, _, ok := c.k.streamPacks(mutag, c.threads); ok {
			t.Errorf("%+v on %d threads: streamed", c.k, c.threads)
		}
	}
}

// TestWalkDirectPacked checks that the packed map whose keys are ranked by
// a table of every key (directPacked) gives the sequential matrix to the
// bit, with the features of full length, where explicitGram takes it: on
// MUTAG at lengths 1 and 2 without refinement (8 and 13 bits: 7 labels of
// 3 bits, 4 edge labels of 2), and with the complete graph of 20 vertices
// and 5 labels, whose walks are merged (see mapPacked); at length 3 (18
// bits) it does not.
func TestWalkDirectPacked(t *testing.T) {
	mutag := graphtest.Dataset(t, "MUTAG").Graphs[:80]
	mixed := append(slices.Clone(mutag[:40]), labelledComplete(20))
	mixed = append(mixed, mutag[40:]...)
	for _, tt := range []struct {
		name  string
		gs    []*graph.Graph
		l     int
		width uint
	}{
		{"l1", mutag, 1, 8},
		{"l2", mutag, 2, 13},
		{"mixed l2", mixed, 2, 13},
	} {
		t.Run(tt.name, func(t *testing.T) {
			k := Walk{Length: tt.l}
			want, wrep, err := k.Gram(context.Background(), tt.gs, Explicit)
			if err != nil {
				t.Fatal(err)
			}
			features := walkDimension(mustVectors(t, &k, tt.gs))
			for _, threads := range []int{2, 3} {
				k.Threads = threads
				b, err := k.newMapper(tt.gs)
				if err != nil {
					t.Fatal(err)
				}
				vb, eb, ok := k.packs(b, tt.gs, threads, chooseAuto, func() bool { return k.walksExact(tt.gs) })
				if !ok || packedWidth(tt.l, vb, eb) != tt.width {
					t.Fatalf("threads %d: packed %v in %d bits; want %d", threads, ok, packedWidth(tt.l, vb, eb), tt.width)
				}
				got, rep, err := k.Gram(context.Background(), tt.gs, Explicit)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("threads %d", threads)
				requireEqual(t, what, want, got)
				if rep.Features != features || rep.FeatureNNZ != wrep.FeatureNNZ {
					t.Errorf("%s: %d features, %d nnz; want %d, %d", what, rep.Features, rep.FeatureNNZ, features, wrep.FeatureNNZ)
				}
			}
		})
	}
	k := Walk{Length: 3, Threads: 2}
	b, err := k.newMapper(mutag)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := k.packs(b, mutag, 2, chooseAuto, func() bool { return true }); ok {
		t.Error("length 3 without refinement, 18 bits: packed")
	}
}

// mustVectors returns k's feature vectors of gs by the sequential map.
func mustVectors(t *testing.T, k *Walk, gs []*graph.Graph) []Vec {
	t.Helper()
	vecs, _, err := k.FeatureVectors(context.Background(), gs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return vecs
}
