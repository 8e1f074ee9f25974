package kernels

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// packedGram is the walk kernel's explicit Gram matrix on threads > 1 by
// packed label sequences: each graph's walks of length l are mapped to
// sorted keys of one or two words that hold their labels (see
// packedVector), on all threads, graph by graph, with no dictionary
// shared; the keys are then numbered among all graphs' (see rankPacked
// and rankWide), and the dot products taken by gramFromStats, with the
// features' counts of the numbering. The ids are those numbers, not the
// sequential map's first-met numbers, and where a bucket of the numbering
// holds more than 64 keys they do not follow the keys' order, so the
// vectors' ids are in any order: it is taken only where the walk counts
// are exact in any order (see walksExact). vb and eb are the bits
// of a vertex and an edge label (see packedBitsOf). Its Report's Features
// counts the sequences of length l, the vectors' dimension, where the
// interners count the shorter ones they numbered on the way too.
//
// After WL refinement nearly every sequence is new, and the interners,
// out of cache, took most of the map: on ENZYMES at length 4 after one
// iteration, 2.6 million non-zeros of 1.4 million sequences, the
// sequential map took 344–451 ms, and the packed one 59–68 ms on one
// thread. Under runexp, against one thread's sequential map, two threads
// took ENZYMES there from 0.94–1.61× to 3.30–3.59×, and at length 2 after
// three iterations from 1.15–1.47× to 2.07–2.16×; MUTAG at lengths 2 and
// 4 after three from 0.85–1.11× and 1.22–1.46× to 1.69–1.99× and
// 1.60–1.76×. Where a sequence takes fewer than packedMinBits the
// interner is small and the pipeline, which overlaps the dot products
// with the map, was faster: MUTAG at length 2 after one iteration took
// 0.63–0.66 ms packed against the pipeline's 0.48–0.50. In two words,
// two threads took ENZYMES at length 4 after two and three iterations
// (65 and 70 bits) from 1.53–1.57× and 1.50–1.53× to 3.92–4.18× and
// 4.09–4.46×, MUTAG at length 7 after two and three (86 and 94 bits) from
// 1.26–1.77× and 1.41–1.66× to 2.06–3.02× and 3.50–3.70×.
func (k *Walk) packedGram(ctx context.Context, gs []*graph.Graph, vb, eb uint, threads int, rep *Report) (*mat.SymDense, error) {
	start := time.Now()
	n := len(gs)
	ahead := newGramAhead(ctx, n, threads)
	vecs := make([]Vec, n)
	var (
		df     []int32
		nnz    int
		sorted bool
		err    error
	)
	if width := packedWidth(k.Length, vb, eb); width <= packedDirectBits {
		df, nnz, sorted, err = directPacked(ctx, k, gs, vb, eb, width, threads, vecs)
	} else {
		df, nnz, sorted, err = rankedPacked(ctx, k, gs, vb, eb, threads, vecs, nil, nil)
	}
	if err != nil {
		return nil, err
	}
	rep.TPhi = time.Since(start)
	return k.packedDots(ctx, ahead, vecs, df, nnz, sorted, threads, rep)
}

// packedDirectBits is the most bits of a packed sequence for which
// packedGram ranks the keys by a table of every key (see directPacked).
const packedDirectBits = 16

// directPacked is rankedPacked for keys of at most packedDirectBits, width
// in all: the ranks are counted in a table of every key, in one pass over
// the keys, where rankPacked buckets them and ranks each bucket.
func directPacked(ctx context.Context, k *Walk, gs []*graph.Graph, vb, eb, width uint, threads int, vecs []Vec) (df []int32, nnz int, sorted bool, err error) {
	keys, nnz, sorted, err := mapPacked(ctx, k, gs, vb, eb, threads, vecs, narrowOps(), nil)
	if err != nil {
		return nil, 0, false, err
	}
	// rank[x] counts the graphs holding key x, then holds its rank.
	rank := make([]uint32, 1<<width)
	for _, ks := range keys {
		for _, x := range ks {
			rank[x]++
		}
	}
	for x, d := range rank {
		if d > 0 {
			rank[x] = uint32(len(df))
			df = append(df, int32(d))
		}
	}
	ids := make([]uint32, nnz)
	for i, ks := range keys {
		v := ids[:len(ks):len(ks)]
		ids = ids[len(ks):]
		for t, x := range ks {
			v[t] = rank[x]
		}
		vecs[i].IDs = v
	}
	return df, nnz, sorted, nil
}

// rankedPacked maps gs by packed label sequences of vb-bit vertex and
// eb-bit edge labels (see mapPacked) and ranks them (see rankPacked and
// rankWide), setting vecs, and returns the graphs holding each feature,
// the non-zeros, and whether each vector's ids are sorted. graphOf, if not
// nil, returns graph i to map once it can be mapped, and top, if not nil,
// the bits the vertex labels took, at most vb, once every graph is
// mapped: the keys' top bits beyond them are 0, and the ranking buckets
// the keys by those below.
func rankedPacked(ctx context.Context, k *Walk, gs []*graph.Graph, vb, eb uint, threads int, vecs []Vec, graphOf func(w, i int) (*graph.Graph, error), top func() uint) (df []int32, nnz int, sorted bool, err error) {
	width := packedWidth(k.Length, vb, eb)
	if width <= 64 {
		var keys [][]uint64
		if keys, nnz, sorted, err = mapPacked(ctx, k, gs, vb, eb, threads, vecs, narrowOps(), graphOf); err == nil {
			if top != nil {
				width -= vb - min(vb, top())
			}
			var ordered bool
			df, ordered, err = rankPacked(ctx, keys, vecs, width, nnz, threads)
			sorted = sorted && ordered
		}
		return df, nnz, sorted, err
	}
	var keys [][]wideKey
	if keys, nnz, sorted, err = mapPacked(ctx, k, gs, vb, eb, threads, vecs, wideOps(), graphOf); err == nil {
		var ordered bool
		df, ordered, err = rankWide(ctx, keys, vecs, width, nnz, threads)
		sorted = sorted && ordered
	}
	return df, nnz, sorted, err
}

// packedDots notes the vectors in rep and takes their dot products into
// ahead's matrix, timed as rep.TDot: ids sorted or, where sorted is
// false, not.
func (k *Walk) packedDots(ctx context.Context, ahead *gramAhead, vecs []Vec, df []int32, nnz int, sorted bool, threads int, rep *Report) (*mat.SymDense, error) {
	noteVecs(rep, vecs)
	rep.Features = int64(len(df))
	t := time.Now()
	wb := takeWalk(ctx)
	K := ahead.matrix()
	var err error
	rep.FeatureProducts, err = gramFromStats(ctx, K, vecs, nil, nnz, df, threads, 0, sorted, &wb.gram)
	if err != nil {
		return nil, err
	}
	wb.giveBack()
	rep.TDot = time.Since(t)
	return K, nil
}

// mapPacked returns the packed keys of every graph of gs, sets vecs[i].Vals
// to their counts, and returns their number and whether each graph's keys
// are sorted, mapping the graphs on up to threads goroutines with ops:
// one word a key by enumPacked where a graph has at most enumMaxWalks
// walks (see walkBound), else by packedVector. graphOf, if not nil,
// returns graph i to map once it can be mapped, gs[i] otherwise. It tells
// k's guard, if any, of every graph mapped (see switchGuard.doneKeys).
func mapPacked[K packedKey](ctx context.Context, k *Walk, gs []*graph.Graph, vb, eb uint, threads int, vecs []Vec, ops keyOps[K], graphOf func(w, i int) (*graph.Graph, error)) ([][]K, int, bool, error) {
	keys := make([][]K, len(gs))
	scs := make([]packedScratch[K], threads)
	var (
		nnz      atomic.Int64
		unsorted atomic.Bool
	)
	err := forRows(ctx, len(gs), threads, func(w, i int) error {
		g := gs[i]
		if graphOf != nil {
			var err error
			if g, err = graphOf(w, i); err != nil {
				return err
			}
		}
		var err error
		if b := walkBound(g, k.Length); ops.enum && enumerates(k.Length, b) {
			var ks []uint64
			ks, vecs[i].Vals, err = enumPacked(ctx, g, k.Length, vb, eb, b, &scs[w].enum)
			keys[i] = any(ks).([]K)
			if len(ks) > 1 && !unsorted.Load() {
				unsorted.Store(true)
			}
		} else {
			keys[i], vecs[i].Vals, err = packedVector(ctx, g, k.Length, vb, eb, &scs[w], ops)
		}
		if err != nil {
			return err
		}
		nnz.Add(int64(len(keys[i])))
		if k.guard != nil {
			k.guard.doneKeys(guardKeys(keys[i]), vecs[i].Vals)
		}
		return nil
	})
	return keys, int(nnz.Load()), !unsorted.Load(), err
}

// guardKeys returns keys as one word each for the switch guard: as they
// are, or two words mixed into one, whose rare collisions only blur the
// guard's estimate of the dot products.
func guardKeys[K packedKey](keys []K) []uint64 {
	switch ks := any(keys).(type) {
	case []uint64:
		return ks
	case []wideKey:
		out := make([]uint64, len(ks))
		for t, x := range ks {
			out[t] = x.hi*0x9e3779b97f4a7c15 ^ x.lo
		}
		return out
	}
	return nil
}

// rankWide is rankPacked for two-word keys of 65 to packedMaxBits bits.
// Where the buckets' bits cover the keys' bits beyond 64, as they can up
// to 80 bits, each key's low word tells it from the others of its bucket
// (the buckets are at most four times the keys), and one pass numbers
// the keys by their top 64 bits' buckets and their low words (see
// rankSplit). Else it takes rankPacked twice: the keys' top 64 bits are
// numbered first, and then each key as one word, its top's number
// followed by its other bits, at most 32, which tells it from every other
// key, and sorts as the key does where the tops' numbers are their ranks.
// It reports whether the numbers are the keys' ranks.
// On MUTAG at length 5 after three WL iterations (70 bits), the packed
// Gram matrix took 14.1–14.4 ms on one thread and 7.5–7.7 on two with two
// passes, 11.7–11.8 and 6.2–6.5 with one (a test binary, medians of 40).
func rankWide(ctx context.Context, keys [][]wideKey, vecs []Vec, width uint, nnz, threads int) ([]int32, bool, error) {
	low := width - 64
	top := func(x wideKey) uint64 { return x.hi<<(64-low) | x.lo>>low }
	n := len(keys)
	if d := max(rankBits(64, nnz, threads), low); low <= 16 && (4*threads)<<d <= 1<<20 && 1<<d <= 4*nnz {
		return rankSplit(ctx, nil, keys, vecs, 64, d, low, nnz, threads)
	}
	tops := make([][]uint64, n)
	var ntops atomic.Int64
	err := forRows(ctx, n, threads, func(_, i int) error {
		var t []uint64
		for _, x := range keys[i] {
			if y := top(x); len(t) == 0 || t[len(t)-1] != y {
				t = append(t, y)
			}
		}
		tops[i] = t
		ntops.Add(int64(len(t)))
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	vt := make([]Vec, n)
	dft, topsOrdered, err := rankPacked(ctx, tops, vt, 64, int(ntops.Load()), threads)
	if err != nil {
		return nil, false, err
	}
	words := make([][]uint64, n)
	err = forRows(ctx, n, threads, func(_, i int) error {
		w := make([]uint64, len(keys[i]))
		j := -1
		for t, x := range keys[i] {
			if t == 0 || top(x) != top(keys[i][t-1]) {
				j++
			}
			w[t] = uint64(vt[i].IDs[j])<<low | x.lo&(1<<low-1)
		}
		words[i], keys[i] = w, nil
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	df, ordered, err := rankPacked(ctx, words, vecs, uint(bits.Len(uint(len(dft))))+low, nnz, threads)
	return df, topsOrdered && ordered, err
}

// rankPacked sets vecs[i].IDs to the numbers of keys[i], keys of at most
// width bits, among the distinct keys of all graphs, and returns the
// number of graphs holding each, df[id], which the dot products' scheme
// needs, counted here, bucket by bucket, rather than in a pass over all
// vectors on one thread, and whether the numbers are the keys' ranks.
// keys[i] is released. Every key is bucketed by its top bits, and the
// buckets numbered in order, each on its own (see rankScratch.rank): a
// bucket of at most 64 keys by their ranks, a larger one in the order of
// the keys' places, graph by graph, whatever the threads. The numbers are
// then fetched from the buckets to the keys' places in the graphs' order.
// Numbered by rank in every bucket, the ranking took 0.55 of 4.07 s of
// CPU time in 600 matrices of MUTAG's walk kernel at length 4 after two
// WL iterations on two threads, its radix sorts 0.21; numbered as first
// met, the matrix took 2.90 ms against 3.15 (a test binary, medians of 98
// by turns, far), after three 3.09 against 3.43, at length 5 after two
// 5.46 against 6.29, ENZYMES at length 4 after one 96.8 against 99.8 ms.
// One sort of all the keys took 133 ms of ENZYMES's 2.6 million at length
// 4 after one WL iteration, more than their map, and looking each graph's
// keys up in the sorted buckets took as long again where the buckets were
// large, and was no faster where they were small, as the graphs' keys are
// spread over all of them.
func rankPacked(ctx context.Context, keys [][]uint64, vecs []Vec, width uint, nnz, threads int) ([]int32, bool, error) {
	return rankSplit(ctx, keys, nil, vecs, width, rankBits(width, nnz, threads), 0, nnz, threads)
}

// rankBits returns the bits of rankPacked's buckets for nnz keys of width
// bits: about 32 keys a bucket, ranked by insertion where they are few, at
// most 16384 buckets, and at most 2^20 counts over all chunks. With about
// 1024 keys a bucket, sorted by radix, ENZYMES's Gram matrix at length 2
// after three WL iterations took 10.1–10.2 ms against 8.8–9.2, MUTAG's at
// length 7 without WL 7.1–7.8 against 7.0, on two threads (medians of 21,
// two rounds by turns).
func rankBits(width uint, nnz, threads int) uint {
	d := min(width, uint(max(0, min(14, bits.Len(uint(nnz>>5))))))
	for d > 0 && (4*threads)<<d > 1<<20 {
		d--
	}
	return d
}

// rankSplit is rankPacked with buckets of d bits, for keys of width bits,
// or, where keys is nil, for wide, of 64 + low bits: those are bucketed by
// their top 64 bits, and the bits above their low words, low of them,
// must be among the buckets' d, so that the low words, which it numbers,
// tell apart the keys of a bucket. wide[i] is released too.
//
// The graphs are split into one chunk a thread, and the thread that
// buckets a chunk's keys notes at each key's place the slot it took in
// its bucket, and at the end fetches its number from there: the writes to
// the ids, in the graphs' order, stay with one thread, which on two
// threads mostly is the one that bucketed them. Where the buckets held
// the keys' places beside them, and the ranks were written to those
// places from the buckets, every line of the ids took the writes of both
// threads in a random order; MUTAG's walk kernel on two threads at length
// 4 after one, two and three WL iterations took 2874–2919, 3712–3748 and
// 3961–4116 µs so against 2757–2804, 3555–3571 and 3821–3940 (a test
// binary, medians of 198 by turns, two runs, the cores far apart),
// ENZYMES's at length 4 after one 145.1 against 141.7 ms, at length 5
// after two MUTAG's 9.21 against 8.80 ms; at length 2 after three, as
// much either way (1.19 and 1.24 ms against 1.19 and 1.26).
func rankSplit(ctx context.Context, keys [][]uint64, wide [][]wideKey, vecs []Vec, width, d, low uint, nnz, threads int) ([]int32, bool, error) {
	n := len(keys)
	lenOf := func(i int) int { return len(keys[i]) }
	shift := width - d
	// The bucket of a wide key, by its top 64 bits.
	wshift := low + shift
	bucket := func(x wideKey) uint64 { return x.hi<<(64-low)>>shift | x.lo>>wshift }
	if keys == nil {
		n = len(wide)
		lenOf = func(i int) int { return len(wide[i]) }
	}
	buckets := 1 << d
	// Chunks of consecutive graphs of about equal non-zeros, one a
	// thread; first[i] is graph i's first place.
	first := make([]int, n+1)
	for i := range n {
		first[i+1] = first[i] + lenOf(i)
	}
	chunks := []int{0}
	for c, i := 1, 0; c < threads && i < n; c++ {
		for i < n && first[i] < c*nnz/threads {
			i++
		}
		if i > chunks[len(chunks)-1] && i < n {
			chunks = append(chunks, i)
		}
	}
	chunks = append(chunks, n)
	nc := len(chunks) - 1
	counts := make([]uint32, nc*buckets) // places fit in 32 bits, as ids do
	err := forRows(ctx, nc, threads, func(_, c int) error {
		cnt := counts[c*buckets : (c+1)*buckets]
		if keys == nil {
			for _, ks := range wide[chunks[c]:chunks[c+1]] {
				for _, x := range ks {
					cnt[bucket(x)]++
				}
			}
			return nil
		}
		for _, ks := range keys[chunks[c]:chunks[c+1]] {
			for _, x := range ks {
				cnt[x>>shift]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	bounds := make([]int, buckets+1)
	off := 0
	for b := range buckets {
		bounds[b] = off
		for c := range nc {
			k := counts[c*buckets+b]
			counts[c*buckets+b] = uint32(off)
			off += int(k)
		}
	}
	bounds[buckets] = off
	all := make([]uint64, nnz)
	// ids[p] holds the slot in all of the key at place p until the
	// ranks replace it.
	ids := make([]uint32, nnz)
	err = forRows(ctx, nc, threads, func(_, c int) error {
		cnt := counts[c*buckets : (c+1)*buckets]
		for i := chunks[c]; i < chunks[c+1]; i++ {
			slots := ids[first[i]:first[i+1]]
			if keys == nil {
				for t, x := range wide[i] {
					b := bucket(x)
					all[cnt[b]], slots[t] = x.lo, cnt[b]
					cnt[b]++
				}
				wide[i] = nil
				continue
			}
			for t, x := range keys[i] {
				b := x >> shift
				all[cnt[b]], slots[t] = x, cnt[b]
				cnt[b]++
			}
			keys[i] = nil
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	// Each bucket's distinct keys numbered, the numbers left in all.
	distinct := make([]int, buckets)
	scs := make([]rankScratch, threads)
	groups := bucketGroups(bounds, threads)
	var unordered atomic.Bool
	err = forRows(ctx, len(groups)-1, threads, func(w, g int) error {
		for b := groups[g]; b < groups[g+1]; b++ {
			if bounds[b] < bounds[b+1] {
				var ordered bool
				distinct[b], ordered = scs[w].rank(all[bounds[b]:bounds[b+1]])
				if !ordered && !unordered.Load() {
					unordered.Store(true)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	base := make([]uint32, buckets+1)
	for b := range buckets {
		base[b+1] = base[b] + uint32(distinct[b])
	}
	df := make([]int32, base[buckets])
	err = forRows(ctx, len(groups)-1, threads, func(_, g int) error {
		for b := groups[g]; b < groups[g+1]; b++ {
			for q := bounds[b]; q < bounds[b+1]; q++ {
				r := base[b] + uint32(all[q])
				all[q] = uint64(r)
				df[r]++ // a graph's keys are distinct
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	err = forRows(ctx, nc, threads, func(_, c int) error {
		for p := first[chunks[c]]; p < first[chunks[c+1]]; p++ {
			ids[p] = uint32(all[ids[p]])
		}
		return nil
	})
	for i := range vecs {
		vecs[i].IDs = ids[first[i]:first[i+1]:first[i+1]]
	}
	return df, !unordered.Load(), err
}

// bucketGroups returns the bounds of runs of consecutive buckets, whose
// keys start at bounds[b], of about equal keys, 16 a thread, for the
// loops over the buckets: a label sequence's top bits are its first
// labels, whose frequencies are skewed, so that the buckets are too.
func bucketGroups(bounds []int, threads int) []int {
	buckets := len(bounds) - 1
	per := max(1, bounds[buckets]/(16*threads))
	groups := []int{0}
	for b := 1; b < buckets; b++ {
		if bounds[b]-bounds[groups[len(groups)-1]] >= per {
			groups = append(groups, b)
		}
	}
	return append(groups, buckets)
}

// rankScratch holds the buffers of rankScratch.rank.
type rankScratch struct {
	slots []uint32
	uniq  []uint64
	perm  []uint32
}

// rank numbers the distinct keys of ks from 0, replaces each key by its
// number, in place, and returns their number and whether the numbers
// follow the keys' order. At most 64 keys it sorts, in a copy, by
// insertion, and numbers by their rank. More it looks up in a table, in
// their order, and numbers in the order it first meets them: after WL
// refinement label sequences repeat across graphs, 2.4 times on MUTAG at
// length 5 after two iterations, and sorting buckets of thousands of
// keys, which the skewed frequencies of the first labels leave, took 7
// passes of 8 bits over every key; sorting only the distinct ones, by
// radix, to number them by rank, took about 40% of the ranking, and the
// dot products take the vectors' ids in any order (see rankSplit). The
// table is its own, sized for the bucket, not an interner[key64], whose
// ids are the same: with one, reset or sized for each bucket, the ranking
// took 12–20% more (MUTAG at lengths 4 and 5 after two and three WL
// iterations, one and two threads, medians of 30, two rounds by turns).
func (sc *rankScratch) rank(ks []uint64) (int, bool) {
	if len(ks) <= 64 {
		// Sorted apart from their places, which keep their order.
		sorted := append(sc.uniq[:0], ks...)
		perm := slices.Grow(sc.perm[:0], len(ks))[:len(ks)]
		for t := range perm {
			perm[t] = uint32(t)
		}
		for i := 1; i < len(sorted); i++ {
			x, p := sorted[i], perm[i]
			j := i
			for j > 0 && sorted[j-1] > x {
				sorted[j], perm[j] = sorted[j-1], perm[j-1]
				j--
			}
			sorted[j], perm[j] = x, p
		}
		r := uint64(0)
		for t, x := range sorted {
			if t > 0 && x != sorted[t-1] {
				r++
			}
			ks[perm[t]] = r
		}
		sc.uniq, sc.perm = sorted, perm
		return int(r) + 1, true
	}
	tb := uint(bits.Len(uint(2*len(ks) - 1)))
	mask := uint64(1)<<tb - 1
	sc.slots = slices.Grow(sc.slots[:0], 1<<tb)[:1<<tb]
	for i := range sc.slots {
		sc.slots[i] = math.MaxUint32
	}
	sc.uniq = sc.uniq[:0]
	for t, x := range ks {
		h := key64(x).hash() >> (64 - tb)
		for {
			s := sc.slots[h]
			if s == math.MaxUint32 {
				s = uint32(len(sc.uniq))
				sc.slots[h] = s
				sc.uniq = append(sc.uniq, x)
			} else if sc.uniq[s] != x {
				h = (h + 1) & mask
				continue
			}
			ks[t] = uint64(s)
			break
		}
	}
	return len(sc.uniq), false
}

// packedMinBits is the fewest bits of a packed sequence for which the
// parallel map packs them: with fewer the label sequences are so few that
// the sequential map's interner stays in cache.
const packedMinBits = 28

// packedWidth returns the bits of a packed sequence of length l.
func packedWidth(l int, vb, eb uint) uint { return uint(l+1)*vb + uint(l)*eb }

// packedBitsOf returns the bits of a vertex label and of an edge label in
// a packed label sequence whose vertex and edge labels range over nVL and
// nEL, at least 1, as a Dirac walk mapper holds them (see labelRanges), the
// vertex labels' range, and whether sequences of length l fit in
// packedMaxBits.
func packedBitsOf(nVL, nEL uint64, l int) (vb, eb uint, labels int, ok bool) {
	vb, eb = uint(bits.Len64(nVL-1)), uint(bits.Len64(nEL-1))
	return vb, eb, int(nVL), packedWidth(l, vb, eb) <= packedMaxBits
}

// edgeBits returns the bits of the largest edge label of gs, and false if
// a label is negative, which a packed sequence cannot hold.
func edgeBits(gs []*graph.Graph) (uint, bool) {
	var emax int32
	for _, g := range gs {
		if lo, hi := g.EdgeLabelRange(); lo <= hi {
			if lo < 0 {
				return 0, false
			}
			emax = max(emax, hi)
		}
	}
	return uint(bits.Len32(uint32(emax))), true
}

// packedMaxBits is the most bits of a packed sequence: two words, of which
// rankWide ranks the first 64 bits and then each key as one word, the
// rank of its first 64 bits, up to 32 bits, and its up to 32 others.
const packedMaxBits = 96

// wideKey is a packed label sequence of 65 to 128 bits: hi holds the bits
// from 64 up.
type wideKey struct{ hi, lo uint64 }

// packedKey is the type of a packed label sequence: one word, or two.
type packedKey interface{ uint64 | wideKey }

// keyOps are the operations of packedVector on keys of type K, called a
// vertex or a run at a time, so that the loops over the keys are each
// type's own.
type keyOps[K packedKey] struct {
	// shifted returns pre << by, of up to 32 bits shifted by up to 96.
	shifted func(pre uint64, by uint) K
	// merge is mergeAdd.
	merge func(dk []K, dv []float64, ak []K, av []float64, bk []K, bv []float64, pre K) ([]K, []float64)
	// enum is whether a key is one word, which enumPacked counts.
	enum bool
}

// narrowOps and wideOps return the operations on one and two words.
func narrowOps() keyOps[uint64] {
	return keyOps[uint64]{shifted: func(pre uint64, by uint) uint64 { return pre << by }, merge: mergeAdd, enum: true}
}

func wideOps() keyOps[wideKey] {
	return keyOps[wideKey]{
		shifted: func(pre uint64, by uint) wideKey {
			// Go's shifts by 64 or more give 0.
			if by >= 64 {
				return wideKey{hi: pre << (by - 64)}
			}
			return wideKey{hi: pre >> (64 - by), lo: pre << by}
		},
		merge: mergeAddWide,
	}
}

// pkCSR holds a sorted sparse vector of packed sequences per vertex.
type pkCSR[K packedKey] struct {
	off  []int32
	keys []K
	vals []float64
}

func (c *pkCSR[K]) reset() {
	c.off = append(c.off[:0], 0)
	c.keys, c.vals = c.keys[:0], c.vals[:0]
}

// packedScratch is a worker's storage for packedVector.
type packedScratch[K packedKey] struct {
	cur, nxt pkCSR[K]
	ak, bk   []K
	av, bv   []float64
	lists    [][2]int32 // the sorted runs of a level of the last merge
	enum     enumScratch
}

// packedVector returns the sorted packed label sequences of g's walks of
// length l ≥ 1 and their counts. It checks ctx every few hundred vertices.
//
// Φ_i(v), the sequences of the walks of length i from v, is the merge of
// Φ_{i−1}(u) over v's neighbours u, each key prefixed by v's label and the
// edge's: the prefix keeps each neighbour's run sorted, so the runs are
// merged, not sorted. The buffers are local variables, not sc's fields,
// while it runs: a slice header written to the heap at every merge took a
// write barrier whenever the collector ran, 17% of the map of ENZYMES at
// length 2 after one WL iteration.
func packedVector[K packedKey](ctx context.Context, g *graph.Graph, l int, vb, eb uint, sc *packedScratch[K], ops keyOps[K]) ([]K, []float64, error) {
	n := g.N()
	cur, nxt := sc.cur, sc.nxt
	ak, av, bk, bv := sc.ak[:0], sc.av[:0], sc.bk[:0], sc.bv[:0]
	defer func() {
		sc.cur, sc.nxt = cur, nxt
		sc.ak, sc.av, sc.bk, sc.bv = ak, av, bk, bv
	}()
	cur.reset()
	for v := range n {
		cur.keys = append(cur.keys, ops.shifted(uint64(g.Labels[v]), 0))
		cur.vals = append(cur.vals, 1)
		cur.off = append(cur.off, int32(len(cur.keys)))
	}
	labelled := len(g.EdgeLabels) > 0
	for i := 1; i <= l; i++ {
		// A walk of length i−1 from u takes i·vb + (i−1)·eb bits; the
		// walk of length i from v prepends v's label and the edge's.
		shift := uint(i)*vb + uint(i-1)*eb
		nxt.reset()
		for v := range n {
			if v%256 == 255 {
				if err := ctx.Err(); err != nil {
					return nil, nil, err
				}
			}
			lv := uint64(g.Labels[v]) << eb
			lo, hi := g.Offsets[v], g.Offsets[v+1]
			if lo == hi {
				nxt.off = append(nxt.off, int32(len(nxt.keys)))
				continue
			}
			// The first neighbour's run straight into nxt, the others
			// merged with it in turn.
			start := len(nxt.keys)
			ak, av = ak[:0], av[:0]
			for a := lo; a < hi; a++ {
				u := g.Adj[a]
				p := lv
				if labelled {
					p |= uint64(g.EdgeLabels[a])
				}
				pre := ops.shifted(p, shift)
				s, e := cur.off[u], cur.off[u+1]
				// The first run merged with none.
				bk, bv = ops.merge(bk[:0], bv[:0], ak, av, cur.keys[s:e], cur.vals[s:e], pre)
				ak, bk, av, bv = bk, ak, bv, av
			}
			nxt.keys = append(nxt.keys[:start], ak...)
			nxt.vals = append(nxt.vals[:start], av...)
			nxt.off = append(nxt.off, int32(len(nxt.keys)))
		}
		cur, nxt = nxt, cur
	}
	// The graph's vector is the sum of its vertices': their runs merged
	// in pairs, level by level.
	ak = append(ak[:0], cur.keys...)
	av = append(av[:0], cur.vals...)
	lists := sc.lists[:0]
	for v := range n {
		if cur.off[v] < cur.off[v+1] {
			lists = append(lists, [2]int32{cur.off[v], cur.off[v+1]})
		}
	}
	for len(lists) > 1 {
		bk, bv = bk[:0], bv[:0]
		out := lists[:0]
		for r := 0; r < len(lists); r += 2 {
			start := int32(len(bk))
			x := lists[r]
			if r+1 == len(lists) {
				bk = append(bk, ak[x[0]:x[1]]...)
				bv = append(bv, av[x[0]:x[1]]...)
			} else {
				y := lists[r+1]
				var none K
				bk, bv = ops.merge(bk, bv, ak[x[0]:x[1]], av[x[0]:x[1]], ak[y[0]:y[1]], av[y[0]:y[1]], none)
			}
			out = append(out, [2]int32{start, int32(len(bk))})
		}
		lists = out
		ak, bk, av, bv = bk, ak, bv, av
	}
	sc.lists = lists
	return slices.Clone(ak), slices.Clone(av), nil
}

// mergeAdd appends to dk, dv the merge of the sorted runs a and b, b's keys
// or'ed with pre, adding the values of equal keys. It writes into room
// grown once, and copies runs that do not overlap whole, as a vertex's
// neighbours of different labels and edge labels give them. The map of
// MUTAG by packedVector on one goroutine (BenchmarkPackedVector, medians
// of 6) at length 4 after one, two and three WL iterations and at length
// 6 took 2.73, 3.01, 3.24 and 4.09 ms appending key by key, 2.22, 2.55,
// 2.77 and 3.45 written into the room, and 1.89, 2.25, 2.35 and 3.10 with
// the runs copied whole. Taking each key without a branch, by masks, took
// 2.62, 3.16, 3.48 and 3.81 ms: the branches are mostly predicted, and the
// masks chain each step to the one before.
func mergeAdd(dk []uint64, dv []float64, ak []uint64, av []float64, bk []uint64, bv []float64, pre uint64) ([]uint64, []float64) {
	o := len(dk)
	dk = slices.Grow(dk, len(ak)+len(bk))[:o+len(ak)+len(bk)]
	dv = slices.Grow(dv, len(ak)+len(bk))[:len(dk)]
	av, bv = av[:len(ak)], bv[:len(bk)]
	if aFirst := len(ak) == 0 || len(bk) == 0 || ak[len(ak)-1] < pre|bk[0]; aFirst || pre|bk[len(bk)-1] < ak[0] {
		a, b := o, o+len(ak)
		if !aFirst {
			a, b = o+len(bk), o
		}
		copy(dk[a:], ak)
		copy(dv[a:], av)
		for j, y := range bk {
			dk[b+j] = pre | y
		}
		copy(dv[b:], bv)
		return dk, dv
	}
	i, j := 0, 0
	for i < len(ak) && j < len(bk) {
		x, y := ak[i], pre|bk[j]
		switch {
		case x < y:
			dk[o], dv[o] = x, av[i]
			i++
		case x > y:
			dk[o], dv[o] = y, bv[j]
			j++
		default:
			dk[o], dv[o] = x, av[i]+bv[j]
			i++
			j++
		}
		o++
	}
	copy(dv[o:], av[i:])
	o += copy(dk[o:], ak[i:])
	for ; j < len(bk); j++ {
		dk[o], dv[o] = pre|bk[j], bv[j]
		o++
	}
	return dk[:o], dv[:o]
}

// mergeAddWide is mergeAdd on two-word keys.
func mergeAddWide(dk []wideKey, dv []float64, ak []wideKey, av []float64, bk []wideKey, bv []float64, pre wideKey) ([]wideKey, []float64) {
	o := len(dk)
	dk = slices.Grow(dk, len(ak)+len(bk))[:o+len(ak)+len(bk)]
	dv = slices.Grow(dv, len(ak)+len(bk))[:len(dk)]
	av, bv = av[:len(ak)], bv[:len(bk)]
	or := func(y wideKey) wideKey { return wideKey{pre.hi | y.hi, pre.lo | y.lo} }
	less := func(x, y wideKey) bool { return x.hi < y.hi || x.hi == y.hi && x.lo < y.lo }
	if aFirst := len(ak) == 0 || len(bk) == 0 || less(ak[len(ak)-1], or(bk[0])); aFirst || less(or(bk[len(bk)-1]), ak[0]) {
		a, b := o, o+len(ak)
		if !aFirst {
			a, b = o+len(bk), o
		}
		copy(dk[a:], ak)
		copy(dv[a:], av)
		for j, y := range bk {
			dk[b+j] = or(y)
		}
		copy(dv[b:], bv)
		return dk, dv
	}
	i, j := 0, 0
	for i < len(ak) && j < len(bk) {
		x, y := ak[i], or(bk[j])
		switch {
		case less(x, y):
			dk[o], dv[o] = x, av[i]
			i++
		case x != y:
			dk[o], dv[o] = y, bv[j]
			j++
		default:
			dk[o], dv[o] = x, av[i]+bv[j]
			i++
			j++
		}
		o++
	}
	copy(dv[o:], av[i:])
	o += copy(dk[o:], ak[i:])
	for ; j < len(bk); j++ {
		dk[o], dv[o] = or(bk[j]), bv[j]
		o++
	}
	return dk[:o], dv[:o]
}

// streamedPackedGram is packedGram for graphs whose labels k.WL iterations
// of WL refinement replace: the refinement runs as a stream (see
// stagedStream) whose workers map each graph as soon as it is refined,
// as GI's explicit map does (see giStream), so that neither waits for
// the other's last graph. The stream is sole, one worker refining every
// graph where two share it: its stages taken by both, MUTAG's matrix at
// length 2 after one, two and three iterations took 788, 884 and 1314
// µs, sole 732, 807 and 1185, and ENZYMES's (600 graphs) at length 3
// after three 48.6 ms against 43.1 (a test binary, medians of 101 and 31
// by turns, far). The colours of the last iteration are counted
// only once every graph is refined, so a vertex label takes vb bits, as
// many as the vertices' number needs (see streamPacks): the keys then
// sort, and rank, as they would with fewer, and the ranking buckets them
// by the bits their first labels take. Bucketed by the top bits of vb,
// mostly 0, ENZYMES's keys at length 3 after three iterations (60 bits,
// 15 a label where the colours took 13) fell into a quarter of the
// buckets, and its matrix took 2.28 times one thread's where the packed
// map after the refinement took 2.90. Its Report counts the refinement in
// TPhi, not TPrep.
func (k *Walk) streamedPackedGram(ctx context.Context, gs []*graph.Graph, vb, eb uint, threads int, rep *Report) (*mat.SymDense, error) {
	start := time.Now()
	n := len(gs)
	ahead := newGramAhead(ctx, n, threads)
	s := newStagedStream(ctx, gs, k.WL, graph.FromLabels)
	s.sole = true
	colours := s.st.Colours()[k.WL]
	vecs := make([]Vec, n)
	df, nnz, sorted, err := rankedPacked(ctx, k, gs, vb, eb, threads, vecs, func(w, i int) (*graph.Graph, error) {
		if err := s.waitRefined(ctx, i, w, threads); err != nil {
			return nil, err
		}
		return gs[i].WithLabels(colours[i]), nil
	}, func() uint { return uint(bits.Len(uint(max(1, s.st.Count(k.WL)) - 1))) })
	if err != nil {
		return nil, err
	}
	s.giveBack(ctx)
	rep.TPhi = time.Since(start)
	return k.packedDots(ctx, ahead, vecs, df, nnz, sorted, threads, rep)
}

// streamPacks reports whether k's explicit Gram matrix of gs on threads > 1
// maps the graphs as streamedPackedGram does, and the bits it gives a
// vertex and an edge label: where the kernel is the fixed-length walk
// kernel with Dirac base kernels, the refinement would run as a pipeline
// (see streamRefines), the walk counts are exact in any order, as the
// ranks' ids need (see walksExact), and a sequence fits in one word, its
// vertex labels of bits.Len(N − 1) bits for N vertices in all: WL's
// colours number the distinct ones from 0, at most one a vertex. From
// length 3 on, after one iteration, whose colours are few, it is not
// taken where the walks are fewer than packedMinWalks (see fewSequences):
// the private map, which explicitGram takes there, was faster on MUTAG at
// length 3 (1.52 against 1.42 times one thread's time, runexp, medians of
// 25 rounds by turns, far placement). At lengths 1 and 2 the walks are
// counted one by one (see enumerates), and MUTAG after one iteration took
// 1.28–1.46 times one thread's against 1.26–1.33 (far) and 1.80–2.02
// against 1.62–1.63 (near); after two and three iterations 1.36–1.43 and
// 1.27–1.34 against 1.10–1.14 and 0.97–1.00 (far), 1.98–2.22 against
// 1.44–1.90 (near).
func (k *Walk) streamPacks(gs []*graph.Graph, threads int) (vb, eb uint, ok bool) {
	if k.Vertex != nil || k.Edge != nil || k.Max || k.Length == 0 || !streamBounded(k.WL, threads, len(gs), 0) {
		return 0, 0, false
	}
	walks, vertices := walkEstimate(gs, k.Length)
	if k.Length >= 3 && k.WL == 1 && walks < packedMinWalks || !streamBounded(k.WL, threads, len(gs), int(vertices)) {
		return 0, 0, false
	}
	eb, ok = edgeBits(gs)
	vb = uint(bits.Len(uint(vertices) - 1))
	if !ok || packedWidth(k.Length, vb, eb) > 64 || !k.walksExact(gs) {
		return 0, 0, false
	}
	return vb, eb, true
}
