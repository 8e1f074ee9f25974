package kernels

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// randomVecs returns n sparse vectors over dim ids, each id present with
// probability p, with non-integer values, where a different order of
// summation would show. Every fifth vector is empty, and the ids of the
// others grow with their index, as an interner's do, so that blocks of
// columns miss the last ids of later rows.
func randomVecs(r *rand.Rand, n, dim int, p float64) []Vec {
	vecs := make([]Vec, n)
	for i := range vecs {
		if i%5 == 4 {
			continue
		}
		top := uint32(dim * (i + 1) / n)
		for id := uint32(0); id < top; id++ {
			if r.Float64() < p {
				vecs[i].IDs = append(vecs[i].IDs, id)
				vecs[i].Vals = append(vecs[i].Vals, r.NormFloat64())
			}
		}
	}
	return vecs
}

// TestGramSchemesAgree checks that the merge joins and the blocked posting
// lists give the same matrix to the bit, with and without weights, for any
// number of threads and any budget: down to one posting, which puts every
// graph in a block of its own, and up to all vectors in one block. The
// large vectors hold more postings than parallelBuildMin, so that their
// larger blocks are built in parallel on more than one thread. Each budget
// runs with and without the features counted ahead.
func TestGramSchemesAgree(t *testing.T) {
	for _, tt := range []struct {
		name   string
		n, dim int
		p      float64
	}{
		{"small", 40, 300, 0.1},
		{"large", 60, 100000, 0.35},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, 14))
			vecs := randomVecs(r, tt.n, tt.dim, tt.p)
			weights := make([]float64, tt.dim)
			for i := range weights {
				weights[i] = r.Float64()
			}
			var nnz int
			for _, v := range vecs {
				nnz += v.Len()
			}
			if tt.name == "large" && nnz < 3*parallelBuildMin {
				t.Fatalf("%d postings, want at least %d", nnz, 3*parallelBuildMin)
			}
			budgets := []int{
				postingBytes,           // one graph per block
				50 * postingBytes,      // a few graphs per block
				nnz / 3 * postingBytes, // three blocks
				nnz * postingBytes,     // one block
				gramBlockBytes,         // the default: one block
			}
			ctx := context.Background()
			for _, w := range [][]float64{nil, weights} {
				want, err := gramMerge(ctx, vecs, w, 1)
				if err != nil {
					t.Fatal(err)
				}
				// The merge joins themselves, pair by pair: gramMerge
				// gathers their products from a dense row.
				joins := mat.NewSymDense(len(vecs), nil)
				for i := range vecs {
					for j := i; j < len(vecs); j++ {
						joins.SetSym(i, j, weightedDot(vecs[i], vecs[j], w))
					}
				}
				requireEqual(t, fmt.Sprintf("merge joins, weights %t", w != nil), joins, want)
				for _, threads := range []int{1, 2, 3} {
					got, err := gramMerge(ctx, vecs, w, threads)
					if err != nil {
						t.Fatal(err)
					}
					requireEqual(t, fmt.Sprintf("merge, weights %t, threads %d", w != nil, threads), want, got)
					for _, budget := range budgets {
						got, err := gramBlocked(ctx, vecs, w, make([]int32, tt.dim), budget, threads)
						if err != nil {
							t.Fatal(err)
						}
						requireEqual(t, fmt.Sprintf("budget %d, weights %t, threads %d", budget, w != nil, threads), want, got)
						// With the features counted ahead, as
						// gramFromStats hands them over, which
						// only a single block may use.
						_, df := featureStats(vecs)
						got = mat.NewSymDense(len(vecs), nil)
						sc := &postingScratch{pos: df}
						if err := gramBlockedInto(ctx, got, vecs, w, sc, budget, threads, 0, true, 0, nil); err != nil {
							t.Fatal(err)
						}
						requireEqual(t, fmt.Sprintf("counted, budget %d, weights %t, threads %d", budget, w != nil, threads), want, got)
					}
				}
			}
		})
	}
}

// TestGramUnsorted checks that posting lists of vectors whose ids are in
// any order, bounded by dim, give the matrix of the sorted vectors to the
// bit where the sums are exact (small integer counts and weights, as the
// private walk map and the parallel graphlet map leave them), for every
// budget, thread count and first column, and that gramFromStats leaves
// such vectors unsorted.
func TestGramUnsorted(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const n, dim = 50, 400
	sorted := randomVecs(r, n, dim, 0.2)
	weights := make([]float64, dim)
	for i := range weights {
		weights[i] = float64(1 + r.IntN(3))
	}
	var nnz int
	shuffled := make([]Vec, n)
	for i, v := range sorted {
		for t := range v.Vals {
			v.Vals[t] = float64(1 + r.IntN(4))
		}
		nnz += v.Len()
		perm := r.Perm(v.Len())
		shuffled[i] = Vec{IDs: make([]uint32, v.Len()), Vals: make([]float64, v.Len())}
		for t, q := range perm {
			shuffled[i].IDs[t], shuffled[i].Vals[t] = v.IDs[q], v.Vals[q]
		}
	}
	ctx := context.Background()
	for _, w := range [][]float64{nil, weights} {
		want, err := gramMerge(ctx, sorted, w, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []int{0, 7} {
			// Columns before from are left as they were: zero.
			exp := mat.NewSymDense(n, nil)
			for i := range n {
				for j := max(i, from); j < n; j++ {
					exp.SetSym(i, j, want.At(i, j))
				}
			}
			for _, budget := range []int{postingBytes, 50 * postingBytes, nnz * postingBytes} {
				for _, threads := range []int{1, 2, 3} {
					_, df := featureStats(sorted)
					got := mat.NewSymDense(n, nil)
					sc := &postingScratch{pos: df}
					if err := gramBlockedInto(ctx, got, shuffled, w, sc, budget, threads, from, true, len(df), nil); err != nil {
						t.Fatal(err)
					}
					requireEqual(t, fmt.Sprintf("budget %d, weights %t, threads %d, from %d", budget, w != nil, threads, from), exp, got)
				}
			}
		}
		// gramFromStats, as the private walk map calls it, with
		// posting lists (three vectors of one feature each cost more
		// by merge joins).
		vecs := make([]Vec, n)
		for i, v := range shuffled {
			vecs[i] = Vec{IDs: slices.Clone(v.IDs), Vals: slices.Clone(v.Vals)}
		}
		_, df := featureStats(sorted)
		got := mat.NewSymDense(n, nil)
		if _, err := gramFromStats(ctx, got, vecs, w, nnz, df, 2, 0, false, nil); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, fmt.Sprintf("gramFromStats, weights %t", w != nil), want, got)
		for i := range vecs {
			if !slices.Equal(vecs[i].IDs, shuffled[i].IDs) {
				t.Fatalf("vector %d sorted by gramFromStats", i)
			}
		}
	}
}

// TestGatherDot checks gatherDot against weightedDot's merge join on
// vectors whose products cancel, with weights of zero, and with no common
// id, where the gathered zeros must leave the sum as it is.
func TestGatherDot(t *testing.T) {
	vec := func(ids []uint32, vals []float64) Vec { return Vec{IDs: ids, Vals: vals} }
	for _, tt := range []struct {
		name string
		a, b Vec
		w    []float64
		want float64 // by hand
	}{
		{"common ids", vec([]uint32{0, 2, 5}, []float64{1, 2, 3}), vec([]uint32{2, 3, 5}, []float64{4, 5, 6}), nil, 2*4 + 3*6},
		{"cancelling", vec([]uint32{1, 4}, []float64{1, 1}), vec([]uint32{1, 4, 6}, []float64{0.5, -0.5, 7}), nil, 0},
		{"no common id", vec([]uint32{0, 1}, []float64{1, 2}), vec([]uint32{2, 3}, []float64{-3, 4}), nil, 0},
		{"weights", vec([]uint32{0, 1, 2}, []float64{1, 2, 3}), vec([]uint32{0, 1, 2}, []float64{4, 5, 6}), []float64{0.5, 0, 2}, 0.5*1*4 + 2*3*6},
		{"empty", vec(nil, nil), vec([]uint32{0}, []float64{1}), nil, 0},
	} {
		d := make([]float64, 8)
		for t, id := range tt.a.IDs {
			d[id] = tt.a.Vals[t]
			if tt.w != nil {
				d[id] = tt.w[id] * tt.a.Vals[t]
			}
		}
		got, merge := gatherDot(d, tt.b), weightedDot(tt.a, tt.b, tt.w)
		if got != tt.want || merge != tt.want || math.Signbit(got) != math.Signbit(merge) {
			t.Errorf("%s: gathered %v, merged %v, want %v", tt.name, got, merge, tt.want)
		}
	}
}

// schemeCases are random vectors for which gramFromVecs takes the merge
// joins (dense vectors) and the posting lists (rare features).
var schemeCases = []struct {
	name   string
	n, dim int
	p      float64
}{
	{"dense", 30, 50, 0.8},
	{"rare", 200, 20000, 0.002},
}

// TestGramFromVecsSchemes checks that gramFromVecs gives the merge joins'
// matrix both where it takes the merge joins (dense vectors) and where it
// takes the posting lists (rare features).
func TestGramFromVecsSchemes(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	tests := schemeCases
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vecs := randomVecs(r, tt.n, tt.dim, tt.p)
			want, err := gramMerge(ctx, vecs, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, threads := range []int{1, 2} {
				got, err := gramFromVecs(ctx, vecs, nil, threads, nil)
				if err != nil {
					t.Fatal(err)
				}
				requireEqual(t, fmt.Sprintf("threads %d", threads), want, got)
			}
		})
	}
}

// TestGramFromVecsProducts checks the posting products that gramFromVecs
// reports, Σ_f df_f(df_f+1)/2, counted by hand.
func TestGramFromVecsProducts(t *testing.T) {
	vec := func(ids ...uint32) Vec {
		return Vec{IDs: ids, Vals: make([]float64, len(ids))}
	}
	tests := []struct {
		name string
		vecs []Vec
		want int64
	}{
		// Feature 1 in one vector (1), feature 2 in two (3).
		{"shared", []Vec{vec(1, 2), vec(2), vec()}, 4},
		// Three features, each in one vector.
		{"disjoint", []Vec{vec(0), vec(1), vec(5)}, 3},
		// Feature 3 in all four vectors: 4·5/2.
		{"common", []Vec{vec(3), vec(3), vec(3), vec(3)}, 10},
	}
	for _, tt := range tests {
		var rep Report
		if _, err := gramFromVecs(context.Background(), tt.vecs, nil, 1, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.FeatureProducts != tt.want {
			t.Errorf("%s: products %d, want %d", tt.name, rep.FeatureProducts, tt.want)
		}
	}
}

// TestGramFromColumn checks that gramFrom fills exactly the columns from
// a given one on, zero before, with the merge joins' values, by either
// scheme, and leaves the entries left of it as they were: the parallel
// walk map computes those while it maps.
func TestGramFromColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const sentinel = -7.5
	tests := schemeCases
	ctx := context.Background()
	for _, tt := range tests {
		vecs := randomVecs(r, tt.n, tt.dim, tt.p)
		want, err := gramMerge(ctx, vecs, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []int{0, 1, tt.n / 3, tt.n - 1, tt.n} {
			for _, threads := range []int{1, 2} {
				K := mat.NewSymDense(tt.n, nil)
				raw := K.RawSymmetric()
				for i := range tt.n {
					for j := i; j < from; j++ {
						raw.Data[i*raw.Stride+j] = sentinel
					}
				}
				if _, err := gramFrom(ctx, K, vecs, nil, threads, from, nil); err != nil {
					t.Fatal(err)
				}
				for i := range tt.n {
					for j := i; j < tt.n; j++ {
						w := want.At(i, j)
						if j < from {
							w = sentinel
						}
						if got := K.At(i, j); got != w {
							t.Fatalf("%s from %d threads %d: K[%d][%d] = %v, want %v", tt.name, from, threads, i, j, got, w)
						}
					}
				}
			}
		}
	}
}

// TestAccumulatorFlushAllocates checks that a vector flushed into nil
// slices is allocated at its length, not with append's spare capacity,
// which would grow the feature matrix by up to a half.
func TestAccumulatorFlushAllocates(t *testing.T) {
	for _, n := range []int{1, 7, 300, 5000} {
		var a accumulator
		for id := range n {
			a.add(uint32(3*id), 1)
		}
		ids, vals := a.flush(nil, nil)
		if len(ids) != n || len(vals) != n {
			t.Fatalf("%d ids: flushed %d ids, %d values", n, len(ids), len(vals))
		}
		// Allocations are rounded up to a size class: at most an eighth
		// more for these sizes.
		if cap(ids) > n+max(n/8, 8) || cap(vals) > n+max(n/8, 8) {
			t.Errorf("%d ids: capacities %d and %d", n, cap(ids), cap(vals))
		}
	}
}

// TestGrowDoubling checks that a slice grown for the rows of a flush at
// least doubles, so that flushing vertex by vertex copies each element
// about once, and that an empty slice gets the room asked for and no
// more than its size class.
func TestGrowDoubling(t *testing.T) {
	cases := []struct {
		len, cap, n int
		minCap      int // the least capacity allowed after growing
		same        bool
	}{
		{0, 0, 100, 100, false},       // nil: room for n
		{10, 64, 54, 64, true},        // fits: unchanged
		{64, 64, 1, 128, false},       // full: doubles, where append grows by 2x only below 256
		{4096, 4096, 10, 8192, false}, // large and full: doubles, where append grows by 1.25x
		{100, 128, 1000, 1100, false}, // more than the capacity asked: the room asked
	}
	for _, c := range cases {
		var s []float64 // nil where the capacity is 0
		if c.cap > 0 {
			s = make([]float64, c.len, c.cap)
			s[:1][0] = 1 // a mark that a copy must keep
		}
		g := growDoubling(s, c.n)
		if cap(g)-len(g) < c.n || len(g) != c.len {
			t.Errorf("len %d cap %d, %d more: got len %d cap %d", c.len, c.cap, c.n, len(g), cap(g))
		}
		if cap(g) < c.minCap {
			t.Errorf("len %d cap %d, %d more: cap %d, want at least %d", c.len, c.cap, c.n, cap(g), c.minCap)
		}
		if c.len == 0 && c.cap == 0 && cap(g) > c.n+max(c.n/8, 8) {
			t.Errorf("nil, %d more: cap %d, want about %d", c.n, cap(g), c.n)
		}
		if same := c.cap > 0 && &g[:1][0] == &s[:1][0]; same != c.same {
			t.Errorf("len %d cap %d, %d more: reused the array %v, want %v", c.len, c.cap, c.n, same, c.same)
		}
		if c.len > 0 && g[0] != 1 {
			t.Errorf("len %d cap %d: the elements were not kept", c.len, c.cap)
		}
	}
}

// TestSortIDs checks the radix sort of ids against the comparison sort,
// at lengths below and above radixMin, with bounds that take one, two and
// three passes, and with repeated ids, which an accumulator never has
// but a sort must keep.
func TestSortIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, radixMin - 1, radixMin, 2833, 70000} {
		for _, bound := range []int{1, 2, 300, 1 << 11, 1<<11 + 1, 122568, 1 << 22, 1<<22 + 1, 1 << 32} {
			ids := make([]uint32, n)
			for i := range ids {
				ids[i] = uint32(r.Int64N(int64(bound)))
			}
			want := slices.Clone(ids)
			slices.Sort(want)
			got, spare := sortIDs(ids, nil, bound)
			if !slices.Equal(got, want) {
				t.Fatalf("n %d, bound %d: ids not sorted", n, bound)
			}
			if n >= radixMin && len(spare) != n {
				t.Errorf("n %d, bound %d: spare of %d ids", n, bound, len(spare))
			}
		}
	}
}

// TestSortByHigh checks sortByHigh against slices.Sort on keys whose low
// halves ascend, as wvScratch.sum and renumberer.renumber make them: by
// radix in one to three passes, by comparison where the keys are too few
// or their high halves too wide, and keys that come sorted.
func TestSortByHigh(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, highRadixMin - 1, highRadixMin, 72, 1000} {
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
			got, _ := sortByHigh(keys, nil, top)
			if !slices.Equal(got, want) {
				t.Errorf("n %d, top %d: keys not sorted", n, top)
			}
			// Keys that come sorted stay so.
			if got, _ := sortByHigh(slices.Clone(want), nil, top); !slices.Equal(got, want) {
				t.Errorf("n %d, top %d: sorted keys changed", n, top)
			}
		}
	}
}

// TestRadixSortOn checks radixSortOn against a stable sort by comparison
// of the same bits, on one to three threads: keys whose bits outside the
// sorted ones are their places, so that a sort that is not stable, or
// sorts other bits, fails; widths of one to four passes, at several
// offsets, and a width of 0, which leaves the keys as they are.
func TestRadixSortOn(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 2, 1000, 40000} {
		for _, tt := range []struct{ lo, width int }{{0, 0}, {20, 1}, {20, 11}, {20, 26}, {16, 40}, {0, 44}} {
			keys := make([]uint64, n)
			for e := range keys {
				// Few distinct values of the sorted bits, so that
				// many keys tie.
				v := r.Uint64N(max(1, min(uint64(n/4), 1<<tt.width)))
				if tt.width < 64 {
					v &= 1<<tt.width - 1
				}
				keys[e] = v<<tt.lo | uint64(e)&(1<<tt.lo-1)
				if tt.lo == 0 {
					keys[e] = v
				}
			}
			bitsOf := func(k uint64) uint64 { return k >> tt.lo & (1<<tt.width - 1) }
			want := slices.Clone(keys)
			slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(bitsOf(a), bitsOf(b)) })
			for threads := 1; threads <= 3; threads++ {
				got, err := radixSortOn(context.Background(), slices.Clone(keys), tt.lo, tt.width, threads)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("n %d, bits %d to %d, %d threads: not sorted stably", n, tt.lo, tt.lo+tt.width, threads)
				}
			}
		}
	}
}

// BenchmarkSortByHigh compares the sort of GI's groups on MUTAG's graphs
// (h = 3, 10–29 vertices: 4 keys a vertex, their high halves below 2^14)
// by sortByHigh and by comparison.
func BenchmarkSortByHigh(b *testing.B) {
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
				x, buf = sortByHigh(x, buf, 1<<14-1)
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

// BenchmarkSortIDs compares the sort of a graph vector's ids of MUTAG at
// walk length 9 (2800 ids below 2^17 on average) by radix and by
// comparison.
func BenchmarkSortIDs(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	ids := make([]uint32, 2800)
	for i := range ids {
		ids[i] = uint32(r.IntN(122568))
	}
	x := make([]uint32, len(ids))
	var buf []uint32
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(x, ids)
			x, buf = sortIDs(x, buf, 122568)
		}
	})
	b.Run("pdqsort", func(b *testing.B) {
		for b.Loop() {
			copy(x, ids)
			slices.Sort(x)
		}
	})
}

// TestInternerReset checks that a reset interner numbers keys from 0
// again, as a new one does, both where reset clears the slots of its few
// keys one by one and where it clears the whole table: 10 keys in the
// 1024 slots of the first table, and 400.
func TestInternerReset(t *testing.T) {
	for _, n := range []int{10, 400} {
		var in interner[key64]
		for k := range n {
			in.intern(key64(1000 + k))
		}
		in.reset()
		if in.len() != 0 {
			t.Fatalf("%d keys: %d left after reset", n, in.len())
		}
		// New keys in another order, with some of the old among them:
		// each gets the next id, as in a new interner.
		for k := range n {
			key := key64(1000 + 2*n - 1 - 2*k)
			if id, added := in.intern(key); id != uint32(k) || !added {
				t.Fatalf("%d keys: key %d got id %d, added %t; want %d, true", n, key, id, added, k)
			}
		}
		for k := range n {
			key := key64(1000 + 2*n - 1 - 2*k)
			if id, added := in.intern(key); id != uint32(k) || added {
				t.Fatalf("%d keys: key %d again got id %d, added %t; want %d, false", n, key, id, added, k)
			}
		}
	}
}

// TestGramAhead checks that a gramAhead gives a zero n×n matrix, the empty
// one for n = 0, and allocates ahead only on several threads: from
// gramAheadMin graphs on, or with a Crew for any number.
func TestGramAhead(t *testing.T) {
	tests := []struct {
		n, threads int
		crew       bool
		ahead      bool
	}{
		{0, 1, false, false},
		{0, 2, true, false},
		{5, 2, false, false},
		{5, 2, true, true},
		{5, 1, true, false},
		{gramAheadMin, 1, false, false},
		{gramAheadMin, 2, false, true},
		{gramAheadMin + 1, 3, false, true},
	}
	for _, tc := range tests {
		ctx := context.Background()
		if tc.crew {
			ctx = WithCrew(ctx, NewCrew(DefaultLinger))
		}
		a := newGramAhead(ctx, tc.n, tc.threads)
		if got := a.ready != nil; got != tc.ahead {
			t.Errorf("n = %d, %d threads, crew %v: ahead %v, want %v", tc.n, tc.threads, tc.crew, got, tc.ahead)
		}
		K := a.matrix()
		if r, c := K.Dims(); r != tc.n || c != tc.n {
			t.Errorf("n = %d, %d threads: %d×%d matrix", tc.n, tc.threads, r, c)
			continue
		}
		for i := 0; i < tc.n; i++ {
			for j := i; j < tc.n; j++ {
				if K.At(i, j) != 0 {
					t.Fatalf("n = %d: K[%d,%d] = %v, want 0", tc.n, i, j, K.At(i, j))
				}
			}
		}
	}
}

// TestNumberFirstMet checks the numbering of keys met by several workers
// against a hand count: worker 0 met b in item 1 at rank 0, then a at
// rank 1; worker 1 met a in item 0 at rank 2, then c in item 2. A
// sequential map meets a first (item 0), then b (item 1), then c, so
// they are 0, 1 and 2, whatever order the workers list them in. A lone
// worker's keys keep its numbers.
func TestNumberFirstMet(t *testing.T) {
	at := func(item, rank int) uint64 { return uint64(item)<<32 | uint64(rank) }
	tests := []struct {
		keys   [][]key64
		first  [][]uint64
		want   []key64
		global [][]uint32
	}{
		{
			[][]key64{{'b', 'a'}, {'a', 'c'}},
			[][]uint64{{at(1, 0), at(1, 1)}, {at(0, 2), at(2, 0)}},
			[]key64{'a', 'b', 'c'},
			[][]uint32{{1, 0}, {0, 2}},
		},
		{
			[][]key64{{'b', 'a', 'c'}},
			[][]uint64{{at(0, 0), at(0, 1), at(3, 0)}},
			[]key64{'b', 'a', 'c'},
			[][]uint32{{0, 1, 2}},
		},
	}
	for _, tc := range tests {
		numbered, global := numberFirstMet(tc.keys, tc.first)
		if !slices.Equal(numbered, tc.want) {
			t.Errorf("%v: numbered keys %v, want %v", tc.keys, numbered, tc.want)
		}
		if !slices.EqualFunc(global, tc.global, slices.Equal) {
			t.Errorf("%v: maps %v, want %v", tc.keys, global, tc.global)
		}
	}
}

// TestInternerFind checks that find gives the ids intern gave, and finds
// no key that was not interned, in an empty table too.
func TestInternerFind(t *testing.T) {
	var in interner[key64]
	if _, ok := in.find(7); ok {
		t.Error("find found a key in an empty table")
	}
	for k := range 2000 {
		in.intern(key64(3 * k))
	}
	for k := range 2000 {
		if id, ok := in.find(key64(3 * k)); !ok || id != uint32(k) {
			t.Fatalf("find(%d) = %d, %v; want %d, true", 3*k, id, ok, k)
		}
		if _, ok := in.find(key64(3*k + 1)); ok {
			t.Fatalf("find(%d) found a key never interned", 3*k+1)
		}
	}
}

// TestMapFirstMet checks that mapFirstMet numbers the keys of many items as
// a sequential map does, by first meeting, and sorts each vector, short and
// long, on 1 to 3 threads and with a Crew: the items are random keys with
// values, the same key repeated within an item summed, and the expected
// vectors come from one interner over the items in order, sorted by id on
// their own rather than by the renumbering under test.
func TestMapFirstMet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	items := make([][]key64, 500)
	for i := range items {
		// Early items draw from few keys, later ones from more, so
		// that new keys keep coming; every 50th is long.
		size, keys := 1+rng.IntN(20), 10+i
		if i%50 == 49 {
			size, keys = 300+rng.IntN(400), 5000
		}
		for range size {
			items[i] = append(items[i], key64(rng.IntN(keys)))
		}
	}
	// item i's vector: its distinct keys in the order met, each with
	// the sum of its values, 1 + its position in the item.
	local := func(in *interner[key64], item []key64) Vec {
		var v Vec
		pos := map[uint32]int{}
		for p, key := range item {
			id, _ := in.intern(key)
			j, ok := pos[id]
			if !ok {
				j = len(v.IDs)
				pos[id] = j
				v.IDs = append(v.IDs, id)
				v.Vals = append(v.Vals, 0)
			}
			v.Vals[j] += float64(1 + p)
		}
		return v
	}
	var seq interner[key64]
	want := make([]Vec, len(items))
	for i, item := range items {
		v := local(&seq, item)
		order := make([]int, v.Len())
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(v.IDs[a], v.IDs[b]) })
		for _, j := range order {
			want[i].IDs = append(want[i].IDs, v.IDs[j])
			want[i].Vals = append(want[i].Vals, v.Vals[j])
		}
	}
	for _, threads := range []int{1, 2, 3} {
		for _, ctx := range []context.Context{context.Background(), WithCrew(context.Background(), NewCrew(DefaultLinger))} {
			ws := make([]struct {
				in    interner[key64]
				first []uint64
			}, threads)
			got, _, dim, err := mapFirstMet(ctx, len(items), threads, func(w, i int) (Vec, error) {
				m := &ws[w]
				known := m.in.len()
				v := local(&m.in, items[i])
				for r, id := range v.IDs {
					if int(id) >= known {
						m.first = append(m.first, uint64(i)<<32|uint64(r))
					}
				}
				return v, nil
			}, func(w int) ([]key64, []uint64) { return ws[w].in.keys, ws[w].first })
			if err != nil {
				t.Fatal(err)
			}
			if dim != seq.len() {
				t.Errorf("threads=%d: %d keys, want %d", threads, dim, seq.len())
			}
			for i := range want {
				if !sameVec(got[i], want[i]) {
					t.Fatalf("threads=%d: item %d: %v, want %v", threads, i, got[i], want[i])
				}
			}
		}
	}
}

// TestEqualAt checks the merge of two sorted lists against hand-found
// matches, and that it stops where its consumer does.
func TestEqualAt(t *testing.T) {
	cases := []struct {
		x, y []int32
		want [][2]int // the index pairs of equal values
	}{
		{[]int32{1, 3, 5, 7}, []int32{0, 3, 4, 7, 9}, [][2]int{{1, 1}, {3, 3}}},
		{[]int32{2}, []int32{2}, [][2]int{{0, 0}}},
		{[]int32{1, 2}, []int32{3, 4}, nil},
		{nil, []int32{1}, nil},
	}
	for _, c := range cases {
		var got [][2]int
		for i, j := range equalAt(c.x, c.y) {
			got = append(got, [2]int{i, j})
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("equalAt(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	n := 0
	for range equalAt([]int32{1, 2, 3}, []int32{1, 2, 3}) {
		n++
		break
	}
	if n != 1 {
		t.Errorf("went on after a break: %d matches", n)
	}
}

// sameVec reports whether a and b hold the same ids and values, in the
// same order, to the bit: the parallel maps' vectors against the
// sequential map's.
func sameVec(a, b Vec) bool {
	return slices.Equal(a.IDs, b.IDs) && slices.Equal(a.Vals, b.Vals)
}

// TestPairSlab adds graphs' pairs of the given sizes to pairSlabs of
// uint64 keys (GI's and GraphHopper's sums) and of uint32 ids (sp's
// vectors), and checks that each copy holds what was added, with no room
// to grow into the next, that no later add changes it, and that what the
// slab allocated is within slabPairs's bound for those sizes on one
// worker, at 16 and 12 bytes a pair. The sizes straddle half a chunk
// (pairSlabMost = 2048), where a graph takes arrays of its own, and
// leave chunks as empty as the rule allows: 2047 after 2050 leaves 2049
// unused.
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
		t.Run(tc.name+"/uint64", func(t *testing.T) {
			testPairSlab(t, tc.sizes, func(r *rand.Rand) uint64 { return r.Uint64() })
		})
		t.Run(tc.name+"/uint32", func(t *testing.T) {
			testPairSlab(t, tc.sizes, func(r *rand.Rand) uint32 { return r.Uint32() })
		})
	}
}

func testPairSlab[K uint32 | uint64](t *testing.T, sizes []int, key func(*rand.Rand) K) {
	rng := rand.New(rand.NewPCG(3, uint64(len(sizes))))
	keyBytes := int(unsafe.Sizeof(K(0)))
	var s pairSlab[K]
	var gotK, wantK [][]K
	var gotV, wantV [][]float64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, n := range sizes {
		ks, kv := make([]K, n), make([]float64, n)
		for i := range ks {
			ks[i], kv[i] = key(rng), rng.Float64()
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
			t.Errorf("graph %d (%d pairs): copy differs from what was added", i, sizes[i])
		}
	}
	// What the inputs allocated, counted apart from the slab's.
	var inputs uint64
	var bySize slabSizes
	for _, n := range sizes {
		inputs += uint64((keyBytes + 8) * n)
		bySize.add(float64(n))
	}
	slab := int64(after.TotalAlloc-before.TotalAlloc) - int64(inputs)
	if bound := int64(float64(keyBytes+8) * bySize.pairs(1)); slab > bound {
		t.Errorf("allocated about %d bytes, bound %d", slab, bound)
	}
}
