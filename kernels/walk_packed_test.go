package kernels

import (
	"cmp"
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
// next vertex label. packedVector sorts them; enumPacked, which follows
// the walks from a, then b, then the other a, gives them in the order
// first met (met).
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
		met  []int // the keys' indices in the order first met
	}{
		// Length 1: 1→2 and 2→1, twice each; (1,2) = 1<<2 | 2 = 6, (2,1)
		// = 2<<2 | 1 = 9.
		{"plain l1", plain, 1, []uint64{6, 9}, []float64{2, 2}, []int{0, 1}},
		// Length 2: (1,2,1) four times (from either end, back or on),
		// 1<<4 | 2<<2 | 1 = 25; (2,1,2) twice, 2<<4 | 1<<2 | 2 = 38.
		{"plain l2", plain, 2, []uint64{25, 38}, []float64{4, 2}, []int{0, 1}},
		// Length 1 with edge labels: (x, e, y) = (x<<1 | e)<<2 | y:
		// (1,0,2) = 10, (1,1,2) = 14, (2,0,1) = 17, (2,1,1) = 21; met
		// from a (1,0,2), from b (2,0,1) and (2,1,1), then (1,1,2).
		{"labelled l1", labelled, 1, []uint64{10, 14, 17, 21}, []float64{1, 1, 1, 1}, []int{0, 2, 3, 1}},
		// Length 3: (1,2,1,2) = 1<<6 | 2<<4 | 1<<2 | 2 = 102 twice from
		// either a, (2,1,2,1) = 153 four times from b.
		{"plain l3", plain, 3, []uint64{102, 153}, []float64{4, 4}, []int{0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vb, eb, _, ok := packedBits([]*graph.Graph{tt.g}, tt.l)
			if !ok {
				t.Fatal("labels do not pack")
			}
			var sc packedScratch[uint64]
			keys, vals, err := packedVector(context.Background(), tt.g, tt.l, vb, eb, &sc, narrowOps())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys, tt.keys) || !slices.Equal(vals, tt.vals) {
				t.Errorf("keys %v, counts %v; want %v, %v", keys, vals, tt.keys, tt.vals)
			}
			// Enumerated twice, the second in the table the first
			// left.
			var met []uint64
			var metVals []float64
			for _, i := range tt.met {
				met, metVals = append(met, tt.keys[i]), append(metVals, tt.vals[i])
			}
			var esc enumScratch
			for range 2 {
				keys, vals, err := enumPacked(context.Background(), tt.g, tt.l, vb, eb, walkBound(tt.g, tt.l), &esc)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(keys, met) || !slices.Equal(vals, metVals) {
					t.Errorf("enumerated: keys %v, counts %v; want %v, %v", keys, vals, met, metVals)
				}
			}
			// Two words give the same keys, in the low word.
			var wsc packedScratch[wideKey]
			wkeys, wvals, err := packedVector(context.Background(), tt.g, tt.l, vb, eb, &wsc, wideOps())
			if err != nil {
				t.Fatal(err)
			}
			want := make([]wideKey, len(tt.keys))
			for i, k := range tt.keys {
				want[i] = wideKey{lo: k}
			}
			if !slices.Equal(wkeys, want) || !slices.Equal(wvals, tt.vals) {
				t.Errorf("two words: keys %v, counts %v; want %v, %v", wkeys, wvals, want, tt.vals)
			}
		})
	}
	// Labels 2^20 and 1 take 21 bits; the path a–b–a of labels A = 2^20,
	// B = 1 has 4 walks of length 3 labelled A,B,A,B and 4 labelled
	// B,A,B,A, of 84 bits: A<<63 | B<<42 | A<<21 | B has 2^19 in the
	// high word and 2^42 + 2^41 + 1 in the low, B<<63 | A<<42 | B<<21 | A
	// 0 and 2^63 + 2^62 + 2^21 + 2^20.
	wide := graph.MustBuild([]int32{1 << 20, 1, 1 << 20}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}})
	vb, eb, _, ok := packedBits([]*graph.Graph{wide}, 3)
	if !ok || packedWidth(3, vb, eb) != 84 {
		t.Fatalf("%d bits, packed %v; want 84 bits", packedWidth(3, vb, eb), ok)
	}
	var wsc packedScratch[wideKey]
	keys, vals, err := packedVector(context.Background(), wide, 3, vb, eb, &wsc, wideOps())
	if err != nil {
		t.Fatal(err)
	}
	want := []wideKey{{0, 1<<63 + 1<<62 + 1<<21 + 1<<20}, {1 << 19, 1<<42 + 1<<41 + 1}}
	if !slices.Equal(keys, want) || !slices.Equal(vals, []float64{4, 4}) {
		t.Errorf("84 bits: keys %v, counts %v; want %v, [4 4]", keys, vals, want)
	}
	// 33 labels take 6 bits: 17 vertex labels of a walk of length 16
	// take 102, too many; 16 of length 15 take 96.
	many := make([]int32, 33)
	for i := range many {
		many[i] = int32(i)
	}
	g := graph.MustBuild(many, nil)
	if _, _, _, ok := packedBits([]*graph.Graph{g}, 16); ok {
		t.Error("102 bits pack")
	}
	if vb, _, _, ok := packedBits([]*graph.Graph{g}, 15); !ok || vb != 6 {
		t.Errorf("96 bits: %d bits a label, packed %v", vb, ok)
	}
}

// TestRankWide checks the numbers of two-word keys against a sort of all
// of them (see checkNumbering), at 65 to 96 bits: in one pass, with the
// buckets' bits as many as the keys' beyond 64 (76 bits) or more (65), and
// in two (80 and 96 bits, whose buckets would be too many for the keys).
func TestRankWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	less := func(a, b wideKey) int {
		switch {
		case a.hi != b.hi:
			return cmp.Compare(a.hi, b.hi)
		default:
			return cmp.Compare(a.lo, b.lo)
		}
	}
	for _, width := range []uint{65, 76, 80, 96} {
		for _, graphs := range []int{1, 50} {
			keys := make([][]wideKey, graphs)
			var all []wideKey
			nnz := 0
			for i := range keys {
				for range 300 {
					// A pool of few top parts, so that keys share them,
					// and differ in their lowest bits.
					x := wideKey{hi: rng.Uint64N(8) & (1<<(width-64) - 1), lo: rng.Uint64N(4)<<40 | rng.Uint64N(64)}
					keys[i] = append(keys[i], x)
				}
				slices.SortFunc(keys[i], less)
				keys[i] = slices.Compact(keys[i])
				nnz += len(keys[i])
				all = append(all, keys[i]...)
			}
			slices.SortFunc(all, less)
			all = slices.Compact(all)
			var first []Vec
			for threads := 1; threads <= 3; threads++ {
				in := make([][]wideKey, graphs)
				for i := range keys {
					in[i] = slices.Clone(keys[i])
				}
				vecs := make([]Vec, graphs)
				df, ordered, err := rankWide(context.Background(), in, vecs, width, nnz, threads)
				what := fmt.Sprintf("width %d, %d graphs, %d threads", width, graphs, threads)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				rankOf := func(x wideKey) int {
					r, _ := slices.BinarySearchFunc(all, x, less)
					return r
				}
				checkNumbering(t, what, keys, len(all), rankOf, vecs, df, ordered)
				if first == nil {
					first = vecs
				} else if !sameIDs(first, vecs) {
					t.Errorf("%s: numbers differ from one thread's", what)
				}
			}
		}
	}
}

// TestRankPacked checks the numbers of keys among all graphs', and the
// graphs holding each, against a sort of all of them (see
// checkNumbering), at widths from 0 (every key 0) to 64 bits, with few
// and many keys, on 1 to 3 threads, whose numbers must be the same: the
// buckets and their tables must not change them.
// Skewed keys have one of two top bytes, as label sequences after WL
// refinement mostly start alike, which leaves most keys in a few large
// buckets, with many repeats.
func TestRankPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, width := range []uint{0, 3, 12, 27, 40, 64} {
		for _, graphs := range []int{1, 7, 300} {
			for _, perGraph := range []int{1, 40, 2000} {
				for _, skew := range []bool{false, true} {
					keys := make([][]uint64, graphs)
					nnz := 0
					var all []uint64
					for i := range keys {
						// Keys from a pool of a few per graph, so that
						// graphs share many of them.
						for range perGraph {
							x := rng.Uint64N(uint64(4 * perGraph))
							x = x * 0x9e3779b97f4a7c15
							if skew && width > 8 {
								x = x&(1<<(width-8)-1) | rng.Uint64N(2)<<(width-8)
							}
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
					rankOf := func(x uint64) int {
						r, _ := slices.BinarySearch(all, x)
						return r
					}
					var first []Vec
					for threads := 1; threads <= 3; threads++ {
						in := make([][]uint64, graphs)
						for i := range keys {
							in[i] = slices.Clone(keys[i])
						}
						vecs := make([]Vec, graphs)
						df, ordered, err := rankPacked(context.Background(), in, vecs, width, nnz, threads)
						what := fmt.Sprintf("width %d, %d graphs of %d keys, skewed %t, %d threads", width, graphs, perGraph, skew, threads)
						if err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						checkNumbering(t, what, keys, len(all), rankOf, vecs, df, ordered)
						// At most 64 keys fill no bucket beyond 64,
						// which are numbered by rank.
						if nnz <= 64 && !ordered {
							t.Errorf("%s: %d keys not numbered by rank", what, nnz)
						}
						if first == nil {
							first = vecs
						} else if !sameIDs(first, vecs) {
							t.Errorf("%s: numbers differ from one thread's", what)
						}
					}
				}
			}
		}
	}
}

// checkNumbering checks the numbers that a ranking gave the keys of the
// graphs, key j of graph i numbered vecs[i].IDs[j], against the distinct
// keys, distinct of them, whose ranks rankOf gives: the same key takes the
// same number in every graph and distinct keys distinct numbers, below
// distinct; df counts the graphs holding each; and where ordered, the
// numbers are the keys' ranks.
func checkNumbering[K comparable](t *testing.T, what string, keys [][]K, distinct int, rankOf func(K) int, vecs []Vec, df []int32, ordered bool) {
	t.Helper()
	if len(df) != distinct {
		t.Errorf("%s: %d numbers, want %d distinct keys", what, len(df), distinct)
		return
	}
	idOf := map[K]uint32{}
	keyOf := map[uint32]K{}
	wantDF := make([]int32, distinct)
	for i, ks := range keys {
		for j, x := range ks {
			id := vecs[i].IDs[j]
			if int(id) >= distinct {
				t.Fatalf("%s: graph %d key %d numbered %d, beyond %d", what, i, j, id, distinct)
			}
			if prev, ok := idOf[x]; ok && prev != id {
				t.Fatalf("%s: a key numbered %d and %d", what, prev, id)
			}
			if y, ok := keyOf[id]; ok && y != x {
				t.Fatalf("%s: two keys numbered %d", what, id)
			}
			idOf[x], keyOf[id] = id, x
			wantDF[id]++
			if ordered && int(id) != rankOf(x) {
				t.Fatalf("%s: numbered by rank, graph %d key %d numbered %d, ranked %d", what, i, j, id, rankOf(x))
			}
		}
	}
	if !slices.Equal(df, wantDF) {
		t.Errorf("%s: graphs holding each key %v, want %v", what, df, wantDF)
	}
}

// sameIDs reports whether a and b hold the same ids.
func sameIDs(a, b []Vec) bool {
	return slices.EqualFunc(a, b, func(x, y Vec) bool { return slices.Equal(x.IDs, y.IDs) })
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

// TestPackedVectorWide checks two-word keys against the walks enumerated
// one by one, each key built by shifting in its labels, on random graphs
// whose labels take 17 bits and edge labels 2, at lengths 3 to 4 (72 and
// 93 bits): the prefixes land below, across and above the words' border.
func TestPackedVectorWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	shl := func(k wideKey, s uint, x uint64) wideKey {
		return wideKey{hi: k.hi<<s | k.lo>>(64-s), lo: k.lo<<s | x}
	}
	for trial := range 20 {
		n := 3 + rng.IntN(6)
		labels := make([]int32, n)
		for v := range labels {
			labels[v] = int32(rng.IntN(3)) << 14 // 0, 2^14 or 2^15
		}
		labels[0] = 1 << 16 // so that labels take 17 bits
		var edges []graph.Edge
		for u := range n {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < 0.5 {
					edges = append(edges, graph.Edge{U: int32(u), V: int32(v), Label: int32(rng.IntN(4))})
				}
			}
		}
		g := graph.MustBuild(labels, edges)
		for _, l := range []int{3, 4} {
			vb, eb, _, ok := packedBits([]*graph.Graph{g}, l)
			if !ok || vb != 17 || packedWidth(l, vb, eb) <= 64 {
				continue // no edge label 3 drawn, or no edges
			}
			want := map[wideKey]float64{}
			var walk func(v, left int, k wideKey)
			walk = func(v, left int, k wideKey) {
				if left == 0 {
					want[k]++
					return
				}
				for a := g.Offsets[v]; a < g.Offsets[v+1]; a++ {
					u := int(g.Adj[a])
					walk(u, left-1, shl(shl(k, eb, uint64(g.EdgeLabels[a])), vb, uint64(g.Labels[u])))
				}
			}
			for v := range n {
				walk(v, l, wideKey{lo: uint64(g.Labels[v])})
			}
			var sc packedScratch[wideKey]
			keys, vals, err := packedVector(context.Background(), g, l, vb, eb, &sc, wideOps())
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != len(want) {
				t.Fatalf("trial %d, length %d: %d keys, want %d", trial, l, len(keys), len(want))
			}
			for i, k := range keys {
				if i > 0 && (keys[i-1].hi > k.hi || keys[i-1].hi == k.hi && keys[i-1].lo >= k.lo) {
					t.Fatalf("trial %d, length %d: keys out of order at %d", trial, l, i)
				}
				if want[k] != vals[i] {
					t.Fatalf("trial %d, length %d: key %v counted %v, want %v", trial, l, k, vals[i], want[k])
				}
			}
		}
	}
}

// TestPacksFewSequences checks walkEstimate on triangles, whose 3
// vertices start 2^l walks of length l each, and that on two threads the
// packed map is taken where a sequence takes enough bits, unless the
// sequences are few: fewer walks than packedMinWalks and fewer labels
// than an eighth of the vertices. Labels of 10 bits make 30 bits a
// sequence at length 2 and 80 at length 7; choosePacked takes it
// wherever the labels pack.
func TestPacksFewSequences(t *testing.T) {
	// triangles returns n triangles whose labels run through 0 to top.
	triangles := func(n int, top int32) []*graph.Graph {
		gs := make([]*graph.Graph, n)
		for i := range gs {
			l := int32(i) % (top + 1)
			gs[i] = graph.MustBuild([]int32{l, top - l, top}, []graph.Edge{{U: 0, V: 1}, {U: 1, V: 2}, {U: 0, V: 2}})
		}
		return gs
	}
	for _, tt := range []struct {
		name   string
		gs     []*graph.Graph
		l      int
		walks  float64
		packed bool // by chooseAuto
	}{
		// 1024 labels for 15000 vertices, 60k walks: few.
		{"labels repeat", triangles(5000, 1023), 2, 60000, false},
		// 144k walks: more than packedMinWalks.
		{"more walks, labels repeat", triangles(6000, 1023), 3, 144000, true},
		// 1024 labels for 3000 vertices: an eighth or more.
		{"labels of their own", triangles(1000, 1023), 2, 12000, true},
		// 384k walks.
		{"many walks", triangles(1000, 1023), 7, 384000, true},
		{"many walks, labels repeat", triangles(6000, 1023), 6, 1152000, true},
	} {
		if got, _ := walkEstimate(tt.gs, tt.l); got != tt.walks {
			t.Errorf("%s: walkEstimate = %v, want %v", tt.name, got, tt.walks)
		}
		k := &Walk{Length: tt.l, Threads: 2}
		b, err := k.newMapper(tt.gs)
		if err != nil {
			t.Fatal(err)
		}
		exact := func() bool { return k.walksExact(tt.gs) }
		if _, _, ok := k.packs(b, tt.gs, 2, chooseAuto, exact); ok != tt.packed {
			t.Errorf("%s: packed by chooseAuto %t, want %t", tt.name, ok, tt.packed)
		}
		if _, _, ok := k.packs(b, tt.gs, 2, choosePacked, exact); !ok {
			t.Errorf("%s: not packed by choosePacked", tt.name)
		}
	}
}

// packedBits is packedBitsOf for the labels of gs, and not ok where a
// label is negative, which a packed sequence cannot hold: the packed map's
// choice takes the ranges from its mapper, the tests from the graphs.
func packedBits(gs []*graph.Graph, l int) (vb, eb uint, labels int, ok bool) {
	nVL, nEL, err := labelRanges(gs)
	if err != nil {
		return 0, 0, 0, false
	}
	return packedBitsOf(uint64(nVL), uint64(nEL), l)
}
