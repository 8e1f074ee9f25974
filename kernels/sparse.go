package kernels

import (
	"cmp"
	"context"
	"iter"
	"math"
	"math/bits"
	"os"
	"slices"
	"unsafe"

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

// pairSlab holds a worker's vectors, or keys and values, in chunks of
// pairSlabChunk pairs that the worker allocates, and a graph of more than
// half a chunk's pairs in arrays of its own, so that every chunk it leaves
// is at least half full. Copied into two arrays of their own a graph, as
// slices.Clone does, the sums made GI's matrix (h = 3, Dirac) take 0.744
// ms on MUTAG on two threads where they take 0.688, 1.242 ms on 200
// ENZYMES graphs where they take 1.187, and on one thread 1.059 and 1.731
// ms where they take 1.006 and 1.635 (runexp, a spec of that cell alone,
// 20 matrices a run, both ways by turns, 30 runs on two threads and 15 on
// one; medians of the wall times). sp's vectors, two arrays a graph
// before, took its matrix on MUTAG 1.121 → 1.072 ms on two threads and
// 2.376 → 2.285 on one, on 200 ENZYMES graphs 3.455 → 3.401 and 6.843 →
// 6.862 (runexp as above, 40 runs on two threads and 25 on one).
type pairSlab[K uint32 | uint64] struct {
	keys []K
	vals []float64
}

// pairSlabChunk is the pairs of a chunk of a pairSlab: 64 KiB of keys and
// values of uint64 keys.
const pairSlabChunk = 1 << 12

// pairSlabMost is the most pairs of a graph that a pairSlab keeps in a
// chunk; a graph of more takes arrays of its own. The memory estimates
// split the graphs at it as take does (see slabPairs).
const pairSlabMost = pairSlabChunk / 2

// take returns n keys and values of s for the caller to fill, whose
// capacity is their length.
func (s *pairSlab[K]) take(n int) ([]K, []float64) {
	if n > pairSlabMost {
		return make([]K, n), make([]float64, n)
	}
	if cap(s.keys)-len(s.keys) < n {
		s.keys, s.vals = make([]K, 0, pairSlabChunk), make([]float64, 0, pairSlabChunk)
	}
	at := len(s.keys)
	s.keys, s.vals = s.keys[:at+n], s.vals[:at+n]
	return s.keys[at : at+n : at+n], s.vals[at : at+n : at+n]
}

// add copies ks and kv, of equal length, into s and returns the copies,
// whose capacity is their length.
func (s *pairSlab[K]) add(ks []K, kv []float64) ([]K, []float64) {
	k, v := s.take(len(ks))
	copy(k, ks)
	copy(v, kv)
	return k, v
}

// slabPairs bounds the pairs that the pairSlabs of workers allocate for
// graphs of at most half a chunk's pairs, small pairs in all and most the
// largest graph's, and larger graphs of big pairs in all. A larger graph
// takes arrays of its own, with up to an eighth more for rounding. A
// worker leaves a chunk for a new one only where the next graph, of at
// most most pairs, does not fit in what is left, so that each chunk it
// leaves holds more than pairSlabChunk − most pairs and lacks fewer than
// most; and each worker's last chunk may be all but empty.
func slabPairs(small, big, most float64, workers int) float64 {
	left := math.Floor(small / (pairSlabChunk - most))
	return big*9/8 + small + left*most + float64(workers)*pairSlabChunk
}

// slabSizes gathers graphs' pairs as slabPairs takes them: small, big and
// most.
type slabSizes struct{ small, big, most float64 }

// add counts a graph of n pairs.
func (s *slabSizes) add(n float64) {
	if n > pairSlabMost {
		s.big += n
		return
	}
	s.small += n
	s.most = max(s.most, n)
}

// pairs is slabPairs of the graphs added, for workers workers.
func (s *slabSizes) pairs(workers int) float64 {
	return slabPairs(s.small, s.big, s.most, workers)
}

// accumulator sums sparse contributions into a dense scratch array indexed by
// id and hands back the sorted non-zeros. It is the hot path of explicit
// feature maps: adding is one array update, and only the touched ids are
// sorted and cleared.
type accumulator struct {
	val     []float64
	seen    []bool
	touched []uint32
	// spare is sortIDs's buffer, kept between flushes.
	spare []uint32
}

func (a *accumulator) add(id uint32, x float64) {
	if int(id) >= len(a.val) {
		// Ids grow with the interner, so the arrays track the number of
		// features. Large arrays grow by a quarter, which keeps them
		// within 1.25× of it, where doubling could leave half of each
		// unused; small ones double, which leaves less garbage: growing
		// by quarters from 1024 allocates five times the final arrays,
		// 5.5 MB for each Gram matrix of MUTAG at walk length 9.
		grown := len(a.val) / 4
		if len(a.val) < accDouble {
			grown = len(a.val)
		}
		n := max(len(a.val)+grown, int(id)+1, 1024)
		a.val = append(a.val, make([]float64, n-len(a.val))...)
		a.seen = append(a.seen, make([]bool, n-len(a.seen))...)
	}
	if !a.seen[id] {
		a.seen[id] = true
		a.touched = append(a.touched, id)
	}
	a.val[id] += x
}

// accDouble is the number of ids below which an accumulator's arrays
// double: at most 9 MiB unused.
const accDouble = 1 << 20

// flush appends the accumulated non-zeros, sorted by id, to ids and vals,
// and resets the accumulator.
func (a *accumulator) flush(ids []uint32, vals []float64) ([]uint32, []float64) {
	a.touched, a.spare = sortIDs(a.touched, a.spare, len(a.val))
	return a.flushUnsorted(ids, vals)
}

// radixMin is the number of ids from which sortIDs sorts by radix.
const radixMin = 256

// sortIDs sorts ids, all below bound, and returns them with a buffer for
// the next call, either of which may be buf. Long lists are sorted by
// radix, least significant digit first, in as few passes of at most 11
// bits as bound allows: the sort of a graph vector's ids by comparison
// took a quarter of the walk map of MUTAG at length 9, and the graph
// vectors there hold 2800 ids below 2^17 on average, two passes of 9
// bits.
func sortIDs(ids, buf []uint32, bound int) ([]uint32, []uint32) {
	n := len(ids)
	if n < radixMin {
		slices.Sort(ids)
		return ids, buf
	}
	width := bits.Len(uint(max(bound-1, 1)))
	passes := (width + 10) / 11
	var counts [1 << 11]int32
	return radixSort(ids, buf, 0, width, (width+passes-1)/passes, counts[:])
}

// radixSort sorts keys stably by their bits from lo to lo+width, least
// significant digit first, in passes of digit bits, through buf, and
// returns them with a buffer for the next call, either of which may be
// buf. counts must hold 2^digit counts: the caller's array, of the size
// its digits need, which Go zeroes at every call.
func radixSort[K uint32 | uint64](keys, buf []K, lo, width, digit int, counts []int32) ([]K, []K) {
	mask := K(1)<<digit - 1
	buf = slices.Grow(buf[:0], len(keys))[:len(keys)]
	for shift := lo; shift < lo+width; shift += digit {
		c := counts[:1<<digit]
		clear(c)
		for _, k := range keys {
			c[k>>shift&mask]++
		}
		var sum int32
		for d, k := range c {
			c[d] = sum
			sum += k
		}
		for _, k := range keys {
			d := k >> shift & mask
			buf[c[d]] = k
			c[d]++
		}
		keys, buf = buf, keys
	}
	return keys, buf
}

// radixSortOn sorts keys by their bits from lo to lo+width, as radixSort
// does, in passes of at most 11 bits, on up to threads goroutines, and
// returns them, in keys's array or in one of its size. Each pass counts
// the digits of a part of the keys a thread, and each thread places its
// part's keys after those of the same digit in the parts before, so that
// the sort is stable, and the same for any number of threads.
func radixSortOn(ctx context.Context, keys []uint64, lo, width, threads int) ([]uint64, error) {
	passes := (width + 10) / 11
	if passes == 0 {
		return keys, nil
	}
	digit := (width + passes - 1) / passes
	parts := max(1, min(threads, len(keys)))
	if parts == 1 {
		var counts [1 << 11]int32
		keys, _ = radixSort(keys, nil, lo, width, digit, counts[:])
		return keys, nil
	}
	buf := make([]uint64, len(keys))
	counts := make([][]int32, parts)
	for c := range counts {
		counts[c] = make([]int32, 1<<digit)
	}
	cut := func(c int) int { return c * len(keys) / parts }
	mask := uint64(1)<<digit - 1
	for shift := lo; shift < lo+width; shift += digit {
		if err := forRows(ctx, parts, threads, func(_, c int) error {
			n := counts[c]
			clear(n)
			for _, k := range keys[cut(c):cut(c+1)] {
				n[k>>shift&mask]++
			}
			return nil
		}); err != nil {
			return nil, err
		}
		var sum int32
		for d := range 1 << digit {
			for c := range parts {
				n := counts[c][d]
				counts[c][d] = sum
				sum += n
			}
		}
		if err := forRows(ctx, parts, threads, func(_, c int) error {
			at := counts[c]
			for _, k := range keys[cut(c):cut(c+1)] {
				d := k >> shift & mask
				buf[at[d]] = k
				at[d]++
			}
			return nil
		}); err != nil {
			return nil, err
		}
		keys, buf = buf, keys
	}
	return keys, nil
}

// sortByHigh sorts keys, whose high halves are at most top and whose low
// halves ascend, and returns them with a buffer for the next call, either
// of which may be buf. Since the low halves ascend, a stable sort by the
// high halves sorts the keys: by radix, least significant digit first, in
// passes of at most highDigit bits, where the high halves take at most
// highPasses of them and there are highRadixMin keys or more. A graph's
// groups of weight features of GI on MUTAG (see wvScratch.sum), 72 keys
// below 2^14 on average, took 2.0 µs by slices.Sort and 0.8 µs in two
// passes of 7 bits: the sort by comparison was a quarter of GI's Gram
// matrix on one thread.
func sortByHigh(keys, buf []uint64, top uint64) ([]uint64, []uint64) {
	width := bits.Len64(top)
	passes := (width + highDigit - 1) / highDigit
	if len(keys) < highRadixMin || passes > highPasses {
		slices.Sort(keys)
		return keys, buf
	}
	if passes == 0 || slices.IsSorted(keys) {
		// Keys that come sorted cost pdqsort one pass, and radix all
		// of its passes: a vector whose features were numbered in the
		// order its own map met them comes so (see mapFirstMet).
		return keys, buf
	}
	var counts [1 << highDigit]int32
	return radixSort(keys, buf, 32, width, (width+passes-1)/passes, counts[:])
}

// highDigit, highPasses and highRadixMin bound sortByHigh's radix
// sort: a pass costs its 2^digit counts besides two steps a key.
const (
	highDigit    = 8
	highPasses   = 3
	highRadixMin = 16
)

// flushUnsorted is flush with the non-zeros in the order they were first
// added, for vectors that are only iterated over: the walk map's
// per-vertex vectors, whose sorting took about 8% of the map of MUTAG at
// length 7.
func (a *accumulator) flushUnsorted(ids []uint32, vals []float64) ([]uint32, []float64) {
	t := a.touched
	// Room for every touched id at once: a graph's vector, flushed into
	// nil slices, is then allocated at its size instead of by repeated
	// appends, which would leave up to a quarter (half, for short
	// vectors) of the feature matrix unused.
	ids, vals = growDoubling(ids, len(t)), growDoubling(vals, len(t))
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

// equalAt yields the indices i of x and j of y where x[i] == y[j], in
// increasing order, for x and y ascending without repeats: the merge of
// two sorted lists that the kernels run on their label groups, path
// lengths and keys.
func equalAt[T cmp.Ordered](x, y []T) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i, j := 0, 0; i < len(x) && j < len(y); {
			switch a, b := x[i], y[j]; {
			case a < b:
				i++
			case a > b:
				j++
			default:
				if !yield(i, j) {
					return
				}
				i++
				j++
			}
		}
	}
}

// growDoubling returns s with room for n more elements, at least
// doubling its capacity where it must grow. Flushed vertex by vertex, the
// walk map's per-vertex vectors grow their buffer in many steps, and
// slices.Grow, as append, grows a large slice by only a quarter: the
// copies took a quarter of the advice on 300 graphs of p_V 0.75 at
// length 9, whose probe maps one graph with fresh buffers. Into an empty
// slice it allocates n, as slices.Grow does.
func growDoubling[S ~[]E, E any](s S, n int) S {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, max(n, cap(s)))
}

// gramFromVecs fills the Gram matrix K_ij = ⟨φ_i, φ_j⟩ (under per-id
// weights, if given) and checks for cancellation between rows.
//
// It chooses between two exact schemes by their cost. Merge joins cost about
// n·Σ nnz(φ_i) steps, whatever the overlap, and copy nothing. The inverted
// scheme transposes the vectors into one posting list per feature and, for
// row i, adds x_if·x_jf into K_ij for the graphs j ≥ i listed under each
// feature f of φ_i: it costs Σ_f df_f²/2, far less when features are rare
// (long walks, refined labels, binned attributes). It is taken when it is
// at least four times cheaper, so that dense feature matrices, where the
// two cost about the same, are left to the merge joins. Its posting lists
// are built for a block of graphs at a time, within gramBlockBytes, so
// that it never copies the whole feature matrix either. Both schemes add
// each entry's products in increasing feature id, starting from zero, so
// they give the same matrix to the bit.
// A rep that is not nil gets the vectors' FeatureProducts.
func gramFromVecs(ctx context.Context, vecs []Vec, weights []float64, threads int, rep *Report) (*mat.SymDense, error) {
	return gramFromVecsInto(ctx, newGramAhead(ctx, len(vecs), 1).matrix(), vecs, weights, threads, rep, nil)
}

// gramFromVecsInto is gramFromVecs into K, a zero matrix of the size of
// vecs, such as a gramAhead gives, with the arrays of sc, if not nil, else
// those of ctx's Workspace, if any (see takePostings).
func gramFromVecsInto(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, threads int, rep *Report, sc *postingScratch) (*mat.SymDense, error) {
	if len(vecs) == 0 {
		return K, nil
	}
	var lent *postingScratch
	if sc == nil {
		sc = takePostings(ctx)
		lent = sc
	}
	products, err := gramFrom(ctx, K, vecs, weights, threads, 0, sc)
	if err != nil {
		return nil, err
	}
	givePostings(ctx, lent)
	if rep != nil {
		rep.FeatureProducts = products
	}
	return K, nil
}

// gramFromNumberedInto is gramFromVecsInto without the scratch for
// vectors of dim features, their ids below dim sorted where sorted is
// set, else in any order, which the dot products then take as they are
// (see gramFromStats), the features counted from dim: idBound, and so
// featureStats, read sorted vectors. The maps that number their features
// in any order where their counts are exact (see countsExact) give them
// so.
func gramFromNumberedInto(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, dim int, sorted bool, threads int, rep *Report) (*mat.SymDense, error) {
	if sorted {
		return gramFromVecsInto(ctx, K, vecs, weights, threads, rep, nil)
	}
	sc := takePostings(ctx)
	var buf []int32
	if sc != nil {
		buf = sc.pos
	}
	nnz, df := countFeaturesIn(vecs, buf, dim)
	products, err := gramFromStats(ctx, K, vecs, weights, nnz, df, threads, 0, false, sc)
	if err != nil {
		return nil, err
	}
	givePostings(ctx, sc)
	if rep != nil {
		rep.FeatureProducts = products
	}
	return K, nil
}

// gramAhead is a Gram matrix allocated, on more than one thread, by a
// goroutine of its own, or a Crew's helper (see goWith), while the caller
// computes the feature maps. The runtime zeroes a large allocation on the
// allocating goroutine alone: the 113 MB of U251's 3755 graphs took 7 ms of
// the graphlet kernel's 35 ms on two threads, while its maps, whose patterns
// are numbered in graph order, leave a core idle part of the time. The
// goroutine also writes a word of every page, so that the kernel maps the
// pages there rather than at the dot products' first writes: where the
// runtime had handed the pages of the last matrix back (MADV_DONTNEED), as
// it does between the Grams of a benchmark, the graphlet kernel on U251 took
// 31–35 ms on two threads, with both faulting the pages in, against 52 ms on
// one; with the pages faulted in ahead, 27–28 ms. On one thread the matrix
// is allocated when it is asked for, so that the paper's timings use one
// core.
type gramAhead struct {
	n     int
	ready chan *mat.SymDense
	crew  *Crew // whose helper allocates it, if any
}

// gramAheadMin is the fewest graphs whose matrix is allocated ahead on a
// goroutine started for it: 2 MB, whose zeroing costs about what starting
// a goroutine does. A Crew's helper, already awake, takes any matrix: that
// of MUTAG's 188 graphs took 35–48 µs to allocate, a fifth of the graphlet
// kernel's dot products on one thread, and allocated ahead it brought the
// kernel from 1.5× to 1.6× on two threads.
const gramAheadMin = 512

func newGramAhead(ctx context.Context, n, threads int) *gramAhead {
	if threads > 1 && (n >= gramAheadMin || crewFrom(ctx) != nil) {
		return startGramAhead(ctx, n)
	}
	return &gramAhead{n: n}
}

// startGramAhead allocates the matrix of n graphs on a goroutine of its
// own, or a helper of ctx's Crew, whatever n, for a caller about to run a
// sequential step that leaves the other cores idle.
func startGramAhead(ctx context.Context, n int) *gramAhead {
	if n == 0 {
		return &gramAhead{}
	}
	a := &gramAhead{n: n, ready: make(chan *mat.SymDense, 1), crew: crewFrom(ctx)}
	goBrief(ctx, func() { a.ready <- newFaultedSymDense(n) })
	return a
}

// newFaultedSymDense returns a zero n×n matrix whose pages have been
// touched, so that its first writes take no page faults.
func newFaultedSymDense(n int) *mat.SymDense {
	K := mat.NewSymDense(n, nil)
	d := K.RawSymmetric().Data
	for i := 0; i < len(d); i += os.Getpagesize() / 8 {
		d[i] = 0 // already zero: only the page fault counts
	}
	return K
}

// matrix returns the matrix, once allocated, to one caller.
func (a *gramAhead) matrix() *mat.SymDense {
	switch {
	case a.ready != nil:
		K, _ := awaitOn(a.crew, nil, a.ready)
		return K
	case a.n == 0:
		return &mat.SymDense{}
	}
	return mat.NewSymDense(a.n, nil)
}

// gramFrom fills the columns j ≥ from of the Gram matrix K of vecs, the
// entries K_ij with i ≤ j, which must be zero, by the scheme gramFromVecs
// chooses for all of vecs, and leaves the others as they are. It returns
// the products of all of vecs's posting lists, Σ_f df_f(df_f+1)/2, which
// chose the scheme. It works in the arrays of sc, if not nil, and leaves
// them there for the next caller.
func gramFrom(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, threads, from int, sc *postingScratch) (products int64, err error) {
	var buf []int32
	if sc != nil {
		buf = sc.pos
	}
	nnz, df := featureStatsInto(vecs, buf)
	return gramFromStats(ctx, K, vecs, weights, nnz, df, threads, from, true, sc)
}

// gramFromStats is gramFrom for vectors with nnz non-zeros in all and
// df[f] of them holding feature f, whose ids are sorted or, where sorted
// is false, in any order. Unsorted vectors are sorted first only for the
// merge joins: the gathers of gramMergeInto and the posting lists (see
// gramBlockedInto's dim) take them as they are, their sums then in
// another order, which leaves them as they are only where they are exact.
// The posting lists of a single block are laid out by df (see
// gramBlockedInto's counted), so df must be exact, not an estimate.
func gramFromStats(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, nnz int, df []int32, threads, from int, sorted bool, sc *postingScratch) (products int64, err error) {
	n := len(vecs)
	for _, d := range df {
		products += int64(d) * int64(d+1) / 2
	}
	merge := mergeCheaper(float64(n), float64(nnz), float64(products))
	if !sorted && merge && len(df) > scatterMaxDim {
		if err := sortVecs(ctx, vecs, threads); err != nil {
			return products, err
		}
	}
	if merge {
		return products, gramMergeInto(ctx, K, vecs, weights, len(df), threads, from)
	}
	if sc == nil {
		sc = new(postingScratch)
	}
	sc.pos = df
	// The posting lists take unsorted ids as they are, bounded by
	// len(df): sorting the private walk map's 160k ids of ENZYMES at
	// length 2 after one WL iteration took 0.52–0.59 ms of the dot
	// products' 2.1 on two threads, where the lists' build by one
	// thread, which needs no order, takes 0.25.
	dim := 0
	if !sorted {
		dim = len(df)
	}
	return products, gramBlockedInto(ctx, K, vecs, weights, sc, gramBlockBytes, threads, from, true, dim, nil)
}

// sortVecs sorts the ids of each vector with their values, on up to
// threads goroutines.
func sortVecs(ctx context.Context, vecs []Vec, threads int) error {
	rs := make([]struct {
		renumberer
		_ [64]byte
	}, max(1, min(threads, len(vecs))))
	return forRows(ctx, len(vecs), threads, func(w, i int) error {
		rs[w].renumber(vecs[i], nil)
		return nil
	})
}

// featureStats returns the non-zeros of vecs and the number of vectors
// holding each feature id.
func featureStats(vecs []Vec) (nnz int, df []int32) { return featureStatsInto(vecs, nil) }

// featureStatsInto is featureStats with df in buf's array where it fits.
func featureStatsInto(vecs []Vec, buf []int32) (nnz int, df []int32) {
	return countFeaturesIn(vecs, buf, idBound(vecs))
}

// countFeaturesIn is countFeatures into a df of length top, ids below it,
// in buf's array where it fits, else in a new one.
func countFeaturesIn(vecs []Vec, buf []int32, top int) (nnz int, df []int32) {
	if cap(buf) >= top {
		df = buf[:top]
		clear(df)
	} else {
		df = make([]int32, top)
	}
	return countFeatures(vecs, df), df
}

// countFeatures adds to df[f] the vectors of vecs holding feature f, ids
// in any order and below len(df), and returns their non-zeros.
func countFeatures(vecs []Vec, df []int32) (nnz int) {
	for _, v := range vecs {
		nnz += v.Len()
		for _, id := range v.IDs {
			df[id]++
		}
	}
	return nnz
}

// idBound returns one more than the largest id of vecs, 0 if they are
// empty: each vector's last id, as the ids are sorted.
func idBound(vecs []Vec) int {
	bound := 0
	for _, v := range vecs {
		if v.Len() > 0 {
			bound = max(bound, int(v.IDs[v.Len()-1])+1)
		}
	}
	return bound
}

// mergeCheaper is gramFromVecs's choice of scheme for n vectors with nnz
// non-zeros in all and products = Σ_f df_f(df_f+1)/2: merge joins cost
// about (n+1)·nnz steps, posting lists n²/2 + products, and the merge joins
// are taken unless the posting lists are four times cheaper. The cost
// models of the advisors price the scheme this rule picks.
func mergeCheaper(n, nnz, products float64) bool {
	return (n+1)*nnz <= 4*(n*n/2+products)
}

func gramMerge(ctx context.Context, vecs []Vec, weights []float64, threads int) (*mat.SymDense, error) {
	K := mat.NewSymDense(len(vecs), nil)
	if err := gramMergeInto(ctx, K, vecs, weights, idBound(vecs), threads, 0); err != nil {
		return nil, err
	}
	return K, nil
}

// gramMergeInto fills the columns j ≥ from of K by the products of merge
// joins, a row at a time. Where the ids are below scatterMaxDim, row i
// scatters φ_i, each value times its id's weight, into a dense array over
// the ids, and then gathers each φ_j's products from it (see gatherDot);
// otherwise it merges the pairs' sorted ids (see weightedDot). dim is
// idBound(vecs), which the caller has at hand.
func gramMergeInto(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, dim, threads, from int) error {
	n := len(vecs)
	raw := K.RawSymmetric()
	if dim > scatterMaxDim {
		return gramJoinInto(ctx, K, vecs, weights, threads, from)
	}
	dense := make([][]float64, max(1, min(threads, n)))
	return forRows(ctx, n, threads, func(w, i int) error {
		if dense[w] == nil {
			dense[w] = make([]float64, dim)
		}
		d, vi := dense[w], vecs[i]
		vals := vi.Vals[:len(vi.IDs)]
		if weights == nil {
			for t, id := range vi.IDs {
				d[id] = vals[t]
			}
		} else {
			for t, id := range vi.IDs {
				d[id] = weights[id] * vals[t]
			}
		}
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := max(i, from); j < n; j++ {
			row[j] = gatherDot(d, vecs[j])
		}
		for _, id := range vi.IDs {
			d[id] = 0
		}
		return nil
	})
}

// gramJoinInto fills the columns j ≥ from of K by weightedDot's merge
// joins of the pairs' sorted ids, a row at a time: gramMergeInto's scheme
// where the ids are too many to scatter.
func gramJoinInto(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, threads, from int) error {
	n := len(vecs)
	raw := K.RawSymmetric()
	return forRows(ctx, n, threads, func(_, i int) error {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := max(i, from); j < n; j++ {
			row[j] = weightedDot(vecs[i], vecs[j], weights)
		}
		return nil
	})
}

// scatterMaxDim is the most ids for which gramMergeInto scatters a row:
// its dense array takes 8 bytes an id per thread.
const scatterMaxDim = 1 << 20

// gatherDot returns Σ d[id]·b[id] over b's non-zeros, in increasing id:
// with d holding a's values times their weights, the products of
// weightedDot's merge join of a and b, (w·a)·b, in the same order, and a
// zero for each id of b not in a. No value of a vector is zero, so those
// zeros leave the sum as it is, and the two give the same result to the
// bit. The loop has no branch to mispredict and visits b's non-zeros
// alone, where a merge join turns on every comparison of both vectors'
// ids: on one thread, the dot products of GI on MUTAG (h = 3) took 0.54
// against 2.48 ms, of sp on ENZYMES 7.1 against 16.9 ms.
//
// The loop takes four non-zeros a turn, still adding them to s one after
// the other: on MUTAG's vectors at walk length 5 it took 17.5–18.5 µs a
// pass where one a turn took 24.9–26.6, and one a turn ran 15% slower
// still where a change elsewhere moved it across a 64-byte line.
func gatherDot(d []float64, b Vec) float64 {
	ids := b.IDs
	vals := b.Vals[:len(ids)]
	var s float64
	t := 0
	for ; t+4 <= len(ids); t += 4 {
		i, v := ids[t:t+4:t+4], vals[t:t+4:t+4]
		s += d[i[0]] * v[0]
		s += d[i[1]] * v[1]
		s += d[i[2]] * v[2]
		s += d[i[3]] * v[3]
	}
	for ; t < len(ids); t++ {
		s += d[ids[t]] * vals[t]
	}
	return s
}

// gramBlockBytes is the memory budget of the inverted scheme's posting
// lists. A budget of 64 MiB holds 4.2 million postings, so that all of
// U251 or NCI1 at walk length 10 (57 and 8 million non-zeros) takes at
// most 14 blocks, each of which costs one pass over the vectors of the
// rows above it.
const gramBlockBytes = 64 << 20

// postingBytes is the size of one posting: a graph index, a value, and
// the posting's position in its list, kept for the block's own rows.
const postingBytes = 4 + 8 + 4

// gramInverted computes the Gram matrix through posting lists built
// within gramBlockBytes. df has one element per feature id; it is
// overwritten, as the posting lists' index.
func gramInverted(ctx context.Context, vecs []Vec, weights []float64, df []int32, threads int) (*mat.SymDense, error) {
	return gramBlocked(ctx, vecs, weights, df, gramBlockBytes, threads)
}

// gramBlocked computes the Gram matrix block of columns by block of
// columns: for columns c0 ≤ j < c1, it transposes φ_c0, …, φ_c1−1 into
// posting lists, as many as fit in budget bytes (at least one graph's),
// and then, for each row i < c1, adds x_if·x_jf into K_ij for the graphs
// j ≥ max(i, c0) listed under each feature f of φ_i. An entry is filled
// by the one block that holds its column, in increasing feature id, so
// that the matrix is the same, to the bit, for any budget and any number
// of threads. pos, of one element per feature id, is overwritten.
//
// The memory beyond the matrix and the vectors is budget plus pos; the
// price of a small budget is one look-up of each of φ_i's features per
// block to the right of row i.
func gramBlocked(ctx context.Context, vecs []Vec, weights []float64, pos []int32, budget, threads int) (*mat.SymDense, error) {
	K := mat.NewSymDense(len(vecs), nil)
	if err := gramBlockedInto(ctx, K, vecs, weights, &postingScratch{pos: pos}, budget, threads, 0, false, 0, nil); err != nil {
		return nil, err
	}
	return K, nil
}

// postingScratch holds the arrays gramBlockedInto works in: pos, of one
// element per feature id, and the postings' graphs and values, which it
// grows as a block needs. A caller of many small blocks keeps them: made
// anew for each block, they were an eighth of the bytes allocated by the
// overlap's Gram matrix of MUTAG at length 9 (see overlapGram.work).
type postingScratch struct {
	pos    []int32
	graphs []int32
	vals   []float64
	// self[offs[j−c0]+t] is where the posting of graph j's t-th
	// feature was placed, for the graphs c0 ≤ j < c1 of the block.
	self []int32
	offs []int32
}

// parallelBuildMin is the number of postings from which build splits the
// counting sort over threads. MUTAG's 532k postings at walk length 9 took
// 1.73 ms on one thread and 1.29 ms on two, but its 126k at length 7 took
// 0.37 ms on one and 0.44 ms on two (medians of 100, interleaved), where
// the threads' passes over every vector's bounds cost more than they share.
const parallelBuildMin = 1 << 18

// parallelCountedMin is parallelBuildMin for a build that counts nothing,
// whose threads pass over the vectors' bounds once: GI's vectors of the
// first 50 graphs of ENZYMES, 14k postings, took 21 µs on two threads and
// 23 on one, those of the first 25, 7k, 15 and 13 µs (medians of 200).
// Such a build also needs parallelCountedPerVector postings a vector. In
// the machine's slow stretches (a round trip between the cores of 530 ns,
// against 110) SP's 133k postings of 600 ENZYMES graphs (hat kernel, P =
// 1), 222 a vector, took 0.49–0.51 ms on two threads against 0.21–0.22
// on one, and 0.16 against 0.21 outside them. Not, as first thought, the
// line of each vector's positions (self) where the features split, which
// both threads write: on GI's 12,445 postings of 200 ENZYMES graphs (62 a
// vector), forced to two parts on two threads with the cores far, the
// arrays' allocation and the build took 95–113 µs against 39–47 in one
// part, as long with the second part filling its graphs in descending
// order, so that the two never write a vector's line at once, and with
// a positions array of its own (a scratch test, medians of 300); the
// second part's fill, on the helper, took two to five times the
// first's. Synthie's 445k postings for GI, 1113 a vector, took 0.46 ms
// against 0.75.
const (
	parallelCountedMin       = 1 << 14
	parallelCountedPerVector = 1 << 10
)

// build transposes the vectors of graphs c0 ≤ j < c1, whose ids are
// sorted and below top, into posting lists by a counting sort by feature:
// the postings of feature f are then graphs[pos[f−1]:pos[f]] and
// vals[...], with 0 for pos[−1], sorted by graph. On threads > 1, each of
// as many ranges of the features, split at about equal postings, is
// counted and placed by a thread of its own, into a part of the arrays of
// its own. The lists are the same for any number of threads. Where
// counted is set, pos[:top] holds the number of the block's vectors that
// hold each feature, and build counts nothing and splits the features
// exactly (countedCuts): GI's 445k postings on Synthie (hat kernel, P =
// 4) then took 0.46 ms on two threads and 0.75–0.79 on one, against
// 0.73–0.78 and 0.93–1.01 counting them, whose parts, split by samples
// (featureCuts), held 58% and 42% of the postings.
//
// Split by graphs instead, each thread placing its graphs' postings of f
// after the earlier threads', the threads wrote the same cache lines
// wherever a list is short, and two threads took 2.5 ms for the 532k
// postings of MUTAG at walk length 9, where one took 1.9 ms.
// graphs, vals and self must hold the block's postings: gramBlockedInto
// sizes them for its longest block.
//
// Where claim is set, as for rows on more than one thread, each part
// first clears the range of the arrays it will write, in order, and so
// takes their lines from whichever core last held them at the cost of a
// sequential pass, before its writes land on them in the order of the
// features: the last matrix's rows read them on every core, and the new
// values so cost each line a round trip to the other core in a random
// order. On two threads, MUTAG's walk kernel at length 4 after one, two
// and three WL iterations took 3761–3891, 4919–5080 and 5294–5450 µs
// without the clears against 3520–3642, 4612–4734 and 4936–4998 with
// them, at length 2 after one and three 1095–1106 and 1313–1611 against
// 1047–1076 and 1229–1491 (a test binary, medians of 198 by turns, two
// runs, the cores far apart in a slow stretch).
func (sc *postingScratch) build(ctx context.Context, vecs []Vec, c0, c1, top, threads int, counted, claim bool) error {
	size := 0
	sc.offs = append(sc.offs[:0], 0)
	for _, v := range vecs[c0:c1] {
		size += v.Len()
		sc.offs = append(sc.offs, int32(size))
	}
	parts := 1
	if size >= parallelBuildMin || counted && size >= max(parallelCountedMin, parallelCountedPerVector*(c1-c0)) {
		parts = max(1, min(threads, top))
	}
	pos := sc.pos[:top]
	var cuts []int
	if counted {
		cuts = countedCuts(pos, parts, size)
	} else {
		cuts = featureCuts(vecs[c0:c1], top, parts, size)
	}
	// first returns the index of v's first id of part r.
	first := func(v Vec, r int) int {
		if r == 0 {
			return 0
		}
		t, _ := slices.BinarySearch(v.IDs, uint32(cuts[r]))
		return t
	}
	each := func(fn func(r int)) error {
		return forRows(ctx, parts, parts, func(_, r int) error {
			fn(r)
			return nil
		})
	}
	// Count each part's postings of each feature, unless counted, and
	// set pos[f] to where f's start within the part's.
	totals := make([]int32, parts+1)
	if err := each(func(r int) {
		lo, hi := cuts[r], cuts[r+1]
		if !counted {
			clear(pos[lo:hi])
			for _, v := range vecs[c0:c1] {
				for _, f := range v.IDs[first(v, r):] {
					if int(f) >= hi {
						break
					}
					pos[f]++
				}
			}
		}
		var sum int32
		for f := lo; f < hi; f++ {
			d := pos[f]
			pos[f] = sum
			sum += d
		}
		totals[r+1] = sum
	}); err != nil {
		return err
	}
	for r := range parts {
		totals[r+1] += totals[r]
	}
	// The fill advances pos[f] to the end of f's postings.
	return each(func(r int) {
		lo, hi := cuts[r], cuts[r+1]
		if base := totals[r]; base > 0 {
			for f := lo; f < hi; f++ {
				pos[f] += base
			}
		}
		graphs, vals := sc.graphs, sc.vals
		if claim {
			clear(graphs[totals[r]:totals[r+1]])
			clear(vals[totals[r]:totals[r+1]])
			if parts == 1 {
				clear(sc.self[:size])
			}
		}
		for j := c0; j < c1; j++ {
			v := vecs[j]
			self := sc.self[sc.offs[j-c0]:sc.offs[j-c0+1]]
			self = self[:len(v.IDs)]
			vv := v.Vals[:len(v.IDs)]
			for t := first(v, r); t < len(v.IDs); t++ {
				f := v.IDs[t]
				if int(f) >= hi {
					break
				}
				p := pos[f]
				graphs[p] = int32(j)
				vals[p] = vv[t]
				self[t] = p
				pos[f] = p + 1
			}
		}
	})
}

// countedCuts splits the features of counts, which add up to size, into
// parts ranges of about equal postings, as featureCuts does, but exactly:
// range r is cuts[r] ≤ f < cuts[r+1].
func countedCuts(counts []int32, parts, size int) []int {
	cuts := make([]int, parts+1)
	cuts[parts] = len(counts)
	sum, r := 0, 1
	for f := 0; r < parts && f < len(counts); f++ {
		sum += int(counts[f])
		for r < parts && sum*parts >= r*size {
			cuts[r] = f + 1
			r++
		}
	}
	for ; r < parts; r++ {
		cuts[r] = len(counts)
	}
	return cuts
}

// featureCuts splits the ids below top of vecs, which hold size non-zeros,
// into parts ranges of about equal non-zeros: range r is cuts[r] ≤ f <
// cuts[r+1]. It weighs the ids at eight evenly spaced places of each
// vector, rather than counting all.
func featureCuts(vecs []Vec, top, parts, size int) []int {
	cuts := make([]int, parts+1)
	cuts[parts] = top
	if parts == 1 {
		return cuts
	}
	type sample struct {
		id uint32
		w  float64
	}
	var samples []sample
	for _, v := range vecs {
		k := min(v.Len(), 8)
		for q := range k {
			samples = append(samples, sample{v.IDs[(2*q+1)*v.Len()/(2*k)], float64(v.Len()) / float64(k)})
		}
	}
	slices.SortFunc(samples, func(a, b sample) int { return cmp.Compare(a.id, b.id) })
	var sum float64
	r := 1
	for _, x := range samples {
		sum += x.w
		for r < parts && sum >= float64(r*size)/float64(parts) {
			cuts[r] = int(x.id) + 1
			r++
		}
	}
	for ; r < parts; r++ {
		cuts[r] = top
	}
	// Monotone, within [0, top].
	for r := 1; r < parts; r++ {
		cuts[r] = min(max(cuts[r], cuts[r-1]), top)
	}
	return cuts
}

// gramBlockedInto fills the columns j ≥ from of K, which must be zero, as
// gramBlocked does: its blocks of columns start at from. Where counted is
// set, sc.pos holds the number of vectors that hold each feature, which
// spares the build its count where one block holds every vector. Where dim
// is positive, it bounds the ids, as sc.pos's length does, and a vector's
// ids may be in any order: the lists are then built on one thread (build
// splits the features of sorted vectors), and the rows take each vector's
// features in its order, which leaves the sums as they are only where
// they are exact. between, if not nil, is called after each row, on
// threads = 1: a worker of the pipelined walk map runs the map's last
// round there when it is due.
func gramBlockedInto(ctx context.Context, K *mat.SymDense, vecs []Vec, weights []float64, sc *postingScratch, budget, threads, from int, counted bool, dim int, between func()) error {
	n := len(vecs)
	raw := K.RawSymmetric()
	// The blocks: as many graphs as fit the budget, at least one.
	limit := max(1, budget/postingBytes)
	cuts := []int{from}
	longest := 0
	for c0 := from; c0 < n; {
		c1, size := c0+1, vecs[c0].Len()
		for c1 < n && size+vecs[c1].Len() <= limit {
			size += vecs[c1].Len()
			c1++
		}
		cuts = append(cuts, c1)
		longest = max(longest, size)
		c0 = c1
	}
	if len(sc.graphs) < longest {
		sc.graphs, sc.vals = make([]int32, longest), make([]float64, longest)
		sc.self = make([]int32, longest)
	}
	for b := 1; b < len(cuts); b++ {
		c0, c1 := cuts[b-1], cuts[b]
		top, buildThreads := idBound(vecs[c0:c1]), threads
		if dim > 0 {
			// idBound reads the last id of each vector.
			top, buildThreads = dim, 1
		}
		if err := sc.build(ctx, vecs, c0, c1, top, buildThreads, counted && c0 == 0 && c1 == n, threads > 1); err != nil {
			return err
		}
		p := postings{pos: sc.pos, graphs: sc.graphs, vals: sc.vals, self: sc.self, offs: sc.offs, top: top, c0: c0}
		err := forRows(ctx, c1, threads, func(_, i int) error {
			p.addRow(raw.Data[i*raw.Stride:i*raw.Stride+n], vecs[i], weights, i)
			if between != nil {
				between()
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// postings is a block of posting lists as postingScratch.build leaves
// them, for the graphs c0 ≤ j < c1 and the ids below top.
type postings struct {
	pos, graphs []int32
	vals        []float64
	self, offs  []int32
	top, c0     int
}

// addRow adds the block's products with φ_i, v, with weights, if not nil,
// into row i of the matrix, row: x_if·x_jf into row[j] for the graphs
// j ≥ i listed under each feature f of v, in increasing f. It is a method,
// not part of gramBlockedInto's closure, so that the inner loop keeps its
// slices and counter in registers: inlined in the closure, it spilled and
// reloaded six of them on every posting, and MUTAG's rows at walk length
// 9 took 20 ms where they take 16.
func (p *postings) addRow(row []float64, v Vec, weights []float64, i int) {
	pos, graphs, vals := p.pos, p.graphs, p.vals
	if i >= p.c0 {
		// Graph i is in the block, and its postings of its own
		// features are where build placed them, the graphs j ≥ i
		// from there on. A binary search of each list for i took a
		// sixth of the rows' time on MUTAG at length 9, whose lists
		// are short (39 postings on average).
		k := i - p.c0
		self := p.self[p.offs[k]:p.offs[k+1]]
		self = self[:len(v.IDs)]
		for t, f := range v.IDs {
			x := v.Vals[t]
			if weights != nil {
				x = weights[f] * x
			}
			lo, hi := self[t], pos[f]
			addScaled(row, x, graphs[lo:hi], vals[lo:hi])
		}
		return
	}
	for t, f := range v.IDs {
		if int(f) >= p.top {
			break // ids ascend: no more of φ_i's are in the block
		}
		lo, hi := int32(0), pos[f]
		if f > 0 {
			lo = pos[f-1]
		}
		if lo == hi {
			continue
		}
		x := v.Vals[t]
		if weights != nil {
			x = weights[f] * x
		}
		addScaled(row, x, graphs[lo:hi], vals[lo:hi])
	}
}

// addScaled adds x·vals[k] into row[graphs[k]] for every k. It is not
// inlined, so that its loop has the registers to itself. The graphs of a
// posting list are distinct, so each element of row takes one addition
// whatever their order, and the loop takes four at a time: one at a time,
// GI's dot products (hat kernel, P = 16) on PROTEINS on one thread took
// 42.5 ms where the function began 32 bytes past a 64-byte line and 50–52
// where it began on one, as code before it in the binary moved it; four
// at a time, 40.4–41.6 ms where it began on one (ENZYMES with the Dirac
// kernel 1.27–1.30 → 1.13–1.15 ms, Synthie at P = 4 11.9–12.2 → 11.4–11.8).
//
//go:noinline
func addScaled(row []float64, x float64, graphs []int32, vals []float64) {
	vals = vals[:len(graphs)] // no bounds check on vals in the loop
	k := 0
	for ; k+4 <= len(graphs); k += 4 {
		g, v := graphs[k:k+4:k+4], vals[k:k+4:k+4]
		row[g[0]] += x * v[0]
		row[g[1]] += x * v[1]
		row[g[2]] += x * v[2]
		row[g[3]] += x * v[3]
	}
	for ; k < len(graphs); k++ {
		row[graphs[k]] += x * vals[k]
	}
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

// bytes returns the bytes of t's arrays, which a Workspace counts.
func (t *interner[K]) bytes() int64 {
	var k K
	return int64(cap(t.keys))*int64(unsafe.Sizeof(k)) + int64(cap(t.slots))*4
}

// reserve sizes t, which must be empty, for n keys, so that it does not
// grow until it holds more: a table grown from empty takes 1024 slots and
// room for 512 keys, whose zeroing took most of numberFirstMet's 9 µs for
// the 66 keys of the graphlet map of MUTAG on two threads.
func (t *interner[K]) reserve(n int) {
	size := 16
	for size < 2*(n+1) {
		size <<= 1
	}
	t.keys = make([]K, 0, size/2)
	t.slots = make([]uint32, size)
	t.shift = uint(64 - bits.Len(uint(size-1)))
}

// intern returns the id of key, assigning the next id to a new key.
func (t *interner[K]) intern(key K) (id uint32, added bool) {
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.grow()
	}
	i, s := t.probe(key)
	if s != 0 {
		return s - 1, false
	}
	id = uint32(len(t.keys))
	t.slots[i] = id + 1
	t.keys = append(t.keys, key)
	return id, true
}

// find returns the id of key, if t holds it. Unlike intern it writes
// nothing, so goroutines may look keys up in a table none of them changes.
func (t *interner[K]) find(key K) (id uint32, ok bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	_, s := t.probe(key)
	return s - 1, s != 0
}

// probe returns the slot of key in t's table, which must have one free,
// and its id+1 there, or 0 where the slot is free.
func (t *interner[K]) probe(key K) (i uint64, s uint32) {
	mask := uint64(len(t.slots) - 1)
	for i = key.hash() >> t.shift; ; i = (i + 1) & mask {
		if s = t.slots[i]; s == 0 || t.keys[s-1] == key {
			return i, s
		}
	}
}

// firstMet is one worker's interner in a parallel map whose ids must be
// those a sequential map gives, in the order it first meets the keys:
// the worker numbers its keys itself, and notes where it first met each,
// so that numberFirstMet can number the keys of all workers after the
// fact.
type firstMet[K internKey] struct {
	ids interner[K]
	// first[id] is where the worker first met key id: the item, such
	// as a graph, << 32 | the key's rank within the item, in the order
	// the sequential map meets keys. A worker takes its items in
	// increasing order.
	first []uint64
}

// intern returns the worker's id of key, met at rank within item.
func (f *firstMet[K]) intern(key K, item, rank int) uint32 {
	id, added := f.ids.intern(key)
	if added {
		f.first = append(f.first, uint64(item)<<32|uint64(rank))
	}
	return id
}

// numberWorkers numbers the keys that threads workers met as
// numberFirstMet does, met(w) giving worker w's keys and where it first
// met them.
func numberWorkers[K internKey](threads int, met func(w int) ([]K, []uint64)) (numbered []K, global [][]uint32) {
	keys, first := make([][]K, threads), make([][]uint64, threads)
	for w := range threads {
		keys[w], first[w] = met(w)
	}
	return numberFirstMet(keys, first)
}

// numberFirstMet numbers the distinct keys of the workers, keys[w] with
// their first meetings first[w] as firstMet notes them, in the order of
// their earliest meeting, which is the order a sequential map over all
// items meets them in. It returns the keys by their numbers, and each
// worker's map from its own ids to them. Only the distinct keys of each
// worker are looked at, so the sequential part of a parallel map shrinks
// to a few per worker where most keys recur. A lone worker, which took
// the items in order, numbered them so itself.
func numberFirstMet[K internKey](keys [][]K, first [][]uint64) (numbered []K, global [][]uint32) {
	if len(keys) == 1 {
		identity := make([]uint32, len(keys[0]))
		for id := range identity {
			identity[id] = uint32(id)
		}
		return keys[0], [][]uint32{identity}
	}
	var union interner[K]
	total := 0
	for _, ks := range keys {
		total += len(ks)
	}
	union.reserve(total)
	earliest := make([]uint64, 0, total) // by the id of union
	global = make([][]uint32, len(keys))
	for w, ks := range keys {
		global[w] = make([]uint32, len(ks))
		for id, key := range ks {
			u, added := union.intern(key)
			if added {
				earliest = append(earliest, first[w][id])
			}
			earliest[u] = min(earliest[u], first[w][id])
			global[w][id] = u
		}
	}
	// Where a key was first met is its own, so the order has no ties.
	order := make([]uint32, len(earliest))
	for u := range order {
		order[u] = uint32(u)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(earliest[a], earliest[b]) })
	numbered = make([]K, len(order))
	number := make([]uint32, len(order))
	for i, u := range order {
		numbered[i], number[u] = union.keys[u], uint32(i)
	}
	for _, g := range global {
		for id, u := range g {
			g[id] = number[u]
		}
	}
	return numbered, global
}

// mapFirstMet maps n items into vectors on up to threads workers that
// number their keys themselves, and gives them the ids a sequential map
// over the items in order gives them, in the order it first meets them:
// vector(w, i) returns item i's vector with worker w's own ids, in any
// order, and met(w) worker w's keys with where it first met them (see
// firstMet), once the items are mapped. numberFirstMet numbers the keys,
// and the workers renumber and sort the vectors. It returns the vectors,
// and each worker's map from its ids to the numbers, of which there are
// dim.
//
// Items are mapped with no wait for each other, and only the numbering
// of each worker's distinct keys is sequential. Interning every item's
// keys in one table in item order instead, by whichever worker completed
// the next item, held the graphlet map of MUTAG to 1.4× on two threads:
// that table's look-ups ran on both cores by turns.
func mapFirstMet[K internKey](ctx context.Context, n, threads int, vector func(w, i int) (Vec, error), met func(w int) ([]K, []uint64)) (vecs []Vec, global [][]uint32, dim int, err error) {
	threads = max(1, min(threads, n))
	vecs, mapped, err := mapWorkers(ctx, n, threads, vector)
	if err != nil {
		return nil, nil, 0, err
	}
	global, dim, _, err = numberMapped(ctx, vecs, mapped, met, nil)
	if err != nil {
		return nil, nil, 0, err
	}
	return vecs, global, dim, nil
}

// mapWorkers maps n items into vecs on threads workers, vector(w, i)
// giving item i's vector by worker w, and returns the items each worker
// mapped, in increasing order.
func mapWorkers(ctx context.Context, n, threads int, vector func(w, i int) (Vec, error)) (vecs []Vec, mapped [][]int32, err error) {
	vecs = make([]Vec, n)
	items := make([]struct {
		items []int32 // the items the worker mapped
		_     [64]byte
	}, threads)
	err = forRows(ctx, n, threads, func(w, i int) error {
		v, err := vector(w, i)
		vecs[i] = v
		items[w].items = append(items[w].items, int32(i))
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	mapped = make([][]int32, threads)
	for w := range items {
		mapped[w] = items[w].items
	}
	return vecs, mapped, nil
}

// numberMapped numbers the features of the vectors that the workers
// mapped, mapped[w] by worker w with its ids for its keys met(w) (see
// mapWorkers): as the sequential map does, the vectors sorted (see
// renumberFirstMet), or, where exact is not nil and holds of the vectors,
// in any order (see renumberAnyOrder), unsorted, which it reports by
// sorted = false. It returns each worker's map from its ids to the
// numbers, nil where they are its own, and their number.
func numberMapped[K internKey](ctx context.Context, vecs []Vec, mapped [][]int32, met func(w int) ([]K, []uint64), exact func([]Vec) bool) (global [][]uint32, dim int, sorted bool, err error) {
	if exact != nil && exact(vecs) {
		keys := make([][]K, len(mapped))
		for w := range keys {
			keys[w], _ = met(w)
		}
		numbered, global := renumberAnyOrder(vecs, mapped, keys)
		return global, len(numbered), false, nil
	}
	global, dim, err = renumberFirstMet(ctx, vecs, mapped, met)
	return global, dim, true, err
}

// renumberFirstMet gives the vectors that the workers mapped, mapped[w]
// by worker w with its own ids, the ids of the sequential map, sorted (see
// mapFirstMet), and returns each worker's map from its ids to them and
// their number.
func renumberFirstMet[K internKey](ctx context.Context, vecs []Vec, mapped [][]int32, met func(w int) ([]K, []uint64)) (global [][]uint32, dim int, err error) {
	threads := len(mapped)
	numbered, global := numberWorkers(threads, met)
	rs := make([]struct {
		renumberer
		_ [64]byte // the workers' buffers, side by side
	}, threads)
	// Each worker's vectors are renumbered as a row of their own, which
	// falls to the same goroutine as a rule (the caller takes the first
	// row of a stretch), and so to the core whose cache holds them:
	// taken graph by graph, by either worker, the renumbering of MUTAG's
	// graphlet vectors cost misses on the other core's, and the kernel
	// took 512–565 µs on two threads where this takes 486–534 (medians
	// of 600 matrices in two runs).
	err = forRows(ctx, threads, threads, func(w, r int) error {
		for _, i := range mapped[r] {
			rs[w].renumber(vecs[i], global[r])
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return global, len(numbered), nil
}

// renumberAnyOrder gives the vectors that the workers mapped, mapped[w]
// by worker w with its ids for keys[w], ids of one numbering of all the
// workers' keys, in no order the sequential map would give: worker 0's
// keys keep their ids, and each other worker's new keys follow. The
// vectors of worker 0 stay as they are, and the others' ids are
// translated in place, none sorted. It returns the numbering's keys and
// each worker's map from its ids to theirs, nil for worker 0's.
//
// It is for callers whose dot products are exact in any order, where the
// sequential map's ids buy nothing: on MUTAG's graphlets on two threads,
// numbering by first meeting took 3.1–4.8 µs and renumbering and sorting
// the vectors 5.3–8.8 µs after a map of 124–147 µs, and this numbering
// and translation 0.8–1.3 and 1.3–1.5 µs (a scratch test, medians of
// 400).
func renumberAnyOrder[K internKey](vecs []Vec, mapped [][]int32, keys [][]K) (numbered []K, global [][]uint32) {
	var union interner[K]
	total := 0
	for _, ks := range keys {
		total += len(ks)
	}
	union.reserve(total)
	for _, key := range keys[0] {
		union.intern(key)
	}
	global = make([][]uint32, len(keys))
	for w := 1; w < len(keys); w++ {
		g := make([]uint32, len(keys[w]))
		for id, key := range keys[w] {
			g[id], _ = union.intern(key)
		}
		global[w] = g
		for _, i := range mapped[w] {
			ids := vecs[i].IDs
			for t, id := range ids {
				ids[t] = g[id]
			}
		}
	}
	return union.keys, global
}

// countsExact reports whether every dot product of the count vectors vecs,
// each feature weighted by at most w or not, is exact in floating point in
// any order of its products: the counts are integers, so where the largest
// sum of a vector's counts, squared, times w, is below 2^53, every product
// and every partial sum is an integer below 2^53. The graphlet map weights
// a pattern by its automorphisms, at most 6 for three vertices.
func countsExact(vecs []Vec, w float64) bool {
	var top float64
	for _, v := range vecs {
		var s float64
		for _, x := range v.Vals[:len(v.IDs)] {
			s += x
		}
		top = max(top, s)
	}
	return w*top*top < 1<<53
}

// renumberer is a worker's scratch for renumbering vectors.
type renumberer struct {
	order, spare []uint64
	vals         []float64
}

// renumber replaces the ids of v by their numbers in global, and sorts
// them with their values. A nil global keeps the ids, and only sorts.
func (r *renumberer) renumber(v Vec, global []uint32) {
	r.order = r.order[:0]
	var top uint32
	for j, id := range v.IDs {
		if global != nil {
			id = global[id]
		}
		r.order = append(r.order, uint64(id)<<32|uint64(j))
		top = max(top, id)
	}
	r.order, r.spare = sortByHigh(r.order, r.spare, uint64(top))
	r.vals = append(r.vals[:0], v.Vals[:len(v.IDs)]...)
	for j, o := range r.order {
		v.IDs[j], v.Vals[j] = uint32(o>>32), r.vals[uint32(o)]
	}
}

// reset empties t and keeps its table for reuse. It clears the slots of
// few keys one by one rather than the whole table, 4 KiB at least:
// clearing it all took 5% of the parallel graphlet map of U251, whose
// graphs have 12 patterns on average.
func (t *interner[K]) reset() {
	if len(t.keys) < len(t.slots)/16 {
		mask := uint64(len(t.slots) - 1)
		for id, key := range t.keys {
			i := key.hash() >> t.shift
			for t.slots[i] != uint32(id)+1 {
				i = (i + 1) & mask
			}
			t.slots[i] = 0
		}
	} else {
		clear(t.slots)
	}
	t.keys = t.keys[:0]
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
