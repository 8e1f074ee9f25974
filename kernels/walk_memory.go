package kernels

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"

	"github.com/gkbench/gkbench/graph"
)

// estimateSample is the number of graphs whose feature vectors the memory
// estimates of explicit maps compute, about 2% of U251 or NCI1; of them
// estimateTop are the largest graphs, by walks or pairs of vertices,
// taken whatever their number, since a few large graphs can hold much of
// the non-zeros, and a sample spread evenly over all graphs misses them:
// on U251 at walk length 8 it finds 75–82% of the non-zeros, and with the
// largest graphs taken 90–110%.
const (
	estimateSample = 64
	estimateTop    = 16
)

// Bytes of the data that explicit maps hold per interned feature or per
// non-zero, as FeatureVectors and gramFromVecs allocate them.
const (
	// A Go map stores a control byte and a slot per entry, at a load
	// between 7/16 (just grown) and 7/8: a slot is 16 bytes for a
	// uint64 key and a uint32 value, 32 bytes for a [3]uint64 key.
	mapBytes64  = 17 * 16.0 / 7
	mapBytes192 = 33 * 16.0 / 7
	// An accumulator holds 9 bytes per id, in arrays at most 1.25 times
	// the number of ids; below accDouble ids, twice, at most 9 MiB more,
	// which the estimates leave out.
	accBytes = 9 * 1.25
	// The weights of the Max-l-walk kernel, a float64 per id, grown by
	// append.
	weightBytes = 8 * 1.25
	// The sequential map's interner, which the parallel one copies,
	// and the pipeline's two together hold a uint64 key, reserved up to
	// twice, and two to four uint32 slots per id; the shared interner a
	// key, in pages, and two to four slots. The column workers of the
	// overlap index posting lists by id, an int32 in arrays up to 1.25
	// times the ids.
	internBytes       = 8*2 + 4*4
	sharedBytes       = 8 + 4*4
	postingIndexBytes = 4 * 1.25
	// A non-zero of the feature vectors, allocated at its size by
	// accumulator.flush, and a vector's header.
	nonzeroBytes = 4 + 8
	vecBytes     = 48
	// A graph.Graph, 200 bytes in an allocation of 208, and its
	// pointer.
	graphBytes = 216
	// The packed map (see packedGram) holds a non-zero's key, of one or
	// two words, and value, and, while it ranks them, the key's first
	// word and its rank as one word, and again in its bucket, and its
	// id.
	packedNonzeroBytes = 16 + 8 + 8 + 8 + 8 + 4
	// gcHeadroom is the ratio of the heap to the live data that the
	// garbage collector allows at the default GOGC=100: the heap that a
	// run is measured and limited by holds up to that much garbage.
	gcHeadroom = 2
)

// estimationSample is a sample of graphs for a memory estimate: the top
// graphs, the largest, and rest, spread evenly over the others, as
// indices into the graphs.
type estimationSample struct {
	top, rest []int
}

// drawSample returns a sample of at most size graphs, of which top are
// those of largest sizes, or all graphs if there are at most size.
func drawSample(sizes []float64, size, top int) estimationSample {
	n := len(sizes)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if n <= size {
		return estimationSample{top: order}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	taken := make([]bool, n)
	for _, i := range order[:top] {
		taken[i] = true
	}
	s := estimationSample{top: slices.Clone(order[:top])}
	others := order[:0]
	for i := range n {
		if !taken[i] {
			others = append(others, i)
		}
	}
	m := size - top
	for j := range m {
		s.rest = append(s.rest, others[j*len(others)/m])
	}
	return s
}

// graphs returns the sample's graphs, the top ones first.
func (s estimationSample) graphs(gs []*graph.Graph) []*graph.Graph {
	out := make([]*graph.Graph, 0, len(s.top)+len(s.rest))
	for _, i := range s.top {
		out = append(out, gs[i])
	}
	for _, i := range s.rest {
		out = append(out, gs[i])
	}
	return out
}

// total estimates Σ_i x_i over all graphs from x, the values of the
// sample's graphs in the order of graphs, and the sizes of all graphs,
// which x follows: the top graphs' values, and the rest's scaled by size
// to all graphs but the top ones.
func (s estimationSample) total(x, sizes []float64) float64 {
	var t, restX, restSize, others float64
	for k, i := range s.top {
		t += x[k]
		others -= sizes[i]
	}
	for k, i := range s.rest {
		restX += x[len(s.top)+k]
		restSize += sizes[i]
	}
	for _, w := range sizes {
		others += w
	}
	return t + scaled(restX, restSize, others)
}

// features estimates the number of distinct features of all graphs from
// the vectors of the sample's graphs, in the order of graphs, and the
// sizes of all graphs: those of all graphs but the top ones, extrapolated
// from the rest, and the top graphs' features that the rest do not have.
//
// By Good and Turing, the number of the rest's features that only one of
// its graphs has, per unit of size, is the rate at which its last graphs
// brought new features. The expected number of distinct features is
// concave in the number of graphs, so the rate only falls as graphs are
// added, and extrapolating it linearly over-estimates: by 3.6–7.4× on
// U251 and NCI1 at walk lengths 6 to 10, extrapolated 80 to 100 times.
// Fitting a growth law instead (Heaps' D ∝ W^β, or a power law of the
// rate) is closer on average but under-estimates by up to 2× on the same
// data: how fast the rate falls changes with the number of graphs, either
// way.
func (s estimationSample) features(vecs []Vec, sizes []float64) float64 {
	top, rest := vecs[:len(s.top)], vecs[len(s.top):]
	distinct, once := sampleFeatures(rest)
	var restSize, others float64
	for _, i := range s.rest {
		restSize += sizes[i]
	}
	for _, w := range sizes {
		others += w
	}
	for _, i := range s.top {
		others -= sizes[i]
	}
	seen := make(map[uint32]bool)
	for _, v := range rest {
		for _, id := range v.IDs {
			seen[id] = true
		}
	}
	var topOnly float64
	for _, v := range top {
		for _, id := range v.IDs {
			if !seen[id] {
				seen[id] = true
				topOnly++
			}
		}
	}
	return topOnly + distinct + scaled(once, restSize, max(others-restSize, 0))
}

// scaled returns x, measured on a sample of size ws, scaled to size w,
// where size is a measure that x follows (walks, pairs of vertices).
func scaled(x, ws, w float64) float64 {
	if ws <= 0 {
		return x
	}
	return x * w / ws
}

// sampleFeatures returns the number of distinct features in vecs and the
// number of them in only one vector.
func sampleFeatures(vecs []Vec) (distinct, once float64) {
	df := make(map[uint32]int32)
	for _, v := range vecs {
		for _, id := range v.IDs {
			df[id]++
		}
	}
	for _, d := range df {
		if d == 1 {
			once++
		}
	}
	return float64(len(df)), once
}

// dotBytes returns the data live while gramFromVecs multiplies nnz
// non-zeros with dim ids on threads: the vectors, the document
// frequencies (reused as the posting lists' index) and the posting lists
// of one block; or, for merge joins, a dense array of 8 bytes an id per
// thread (see gramMergeInto).
func dotBytes(vecs, nnz, dim float64, threads int) float64 {
	return vecs + 8*dim*float64(max(threads, 1)) + min(gramBlockBytes, postingBytes*nnz)
}

// EstimateBytes implements MemoryEstimator for the explicit method; the
// implicit one holds a product graph of two graphs at a time, which is
// small. It maps a sample of the graphs (see estimateSample) and scales
// what it produces to all graphs by their numbers of walks, which are
// counted in O(l·|E|) per graph: the non-zeros by walks of length l (of
// every length up to l, for Max), the label sequences, interned for every
// length up to l, by walks of every length up to l. Scaling by walks
// rather than by graphs follows the graphs' sizes.
//
// The estimate is gcHeadroom times the larger of the data live while the
// vectors are computed (the vectors, the interner, the accumulators and,
// for Max, the weights; with threads, also the shared interner of the
// parallel map and every thread's accumulators) and while they are
// multiplied (see dotBytes), to which WL refinement adds the refined
// labels and the signature tables that a Workspace keeps, unless the
// refinement itself holds more (see refineBytes). It costs about
// estimateSample/len(gs) of the feature map, or more, since the sample
// holds the largest graphs.
//
// Every sequence and non-zero is a walk, so the same formula with every
// walk distinct bounds the estimate; when that bound is within limit the
// sample is not mapped. Otherwise the sample's map stops once it has
// interned so many sequences that they alone exceed limit: after WL
// refinement nearly every long walk is distinct, and mapping 64 graphs
// of a 100-graph subset cost as much as the run that the estimate
// refuses (28 s a cell on ENZYMES at wl 2, length 7).
func (k *Walk) EstimateBytes(gs []*graph.Graph, m Method, limit int64) int64 {
	if m != Explicit || len(gs) == 0 || k.validate() != nil {
		return 0
	}
	n := len(gs)
	// total adds the refinement's bytes to an estimate of the map's and
	// the dot products'.
	threads := threadsOr(k.Threads)
	_, _, streamed := k.streamPacks(gs, threads)
	peak, kept := refineBytes(gs, k.WL, threads, streamed)
	total := func(x float64) float64 { return max(gcHeadroom*peak, x+gcHeadroom*kept) }
	walks, all := make([]float64, n), make([]float64, n)
	var sumWalks, sumAll float64
	for i, g := range gs {
		walks[i], all[i] = k.walks(g)
		sumWalks += walks[i]
		sumAll += all[i]
	}
	// A Dirac kernel's mapper takes the generic path when the labels are
	// too many to pack, so the bound takes the larger of the two.
	dirac := isDirac(k.Vertex) && isDirac(k.Edge)
	bound := total(max(k.mapBytes(n, dirac, sumWalks, sumAll), k.mapBytes(n, false, sumWalks, sumAll)))
	if limit > 0 && bound <= float64(limit) {
		return int64(bound)
	}
	smp := drawSample(all, estimateSample, estimateTop)
	sample := smp.graphs(gs)
	// WL colours are equal exactly when the unfolding trees are, so the
	// sample, refined alone, has the label sequences it has in gs.
	if k.WL > 0 {
		sample = graph.RefineGraphs(sample, k.WL, graph.FromLabels)
	}
	// The sample is mapped as by a Max-l-walk kernel whose weights are
	// the lengths: its vectors then hold every sequence the interner
	// holds, with its length.
	lk := *k
	lk.Max, lk.Lambda = true, make([]float64, k.Length+1)
	for i := range lk.Lambda {
		lk.Lambda[i] = float64(i)
	}
	b, err := lk.newMapper(sample)
	if err != nil {
		return 0
	}
	dirac = b.dirac
	if limit > 0 {
		// The sequences of the sample are sequences of gs: at more than
		// budget of them the estimate, even with no non-zeros, is above
		// limit.
		perSeq := k.mapBytes(n, dirac, 0, 1) - k.mapBytes(n, dirac, 0, 0)
		b.budget = int(min(float64(limit)/perSeq+1, math.MaxInt32))
	}
	vecs := make([]Vec, len(sample))
	nnzs := make([]float64, len(sample))
	for i, g := range sample {
		if vecs[i], err = b.graphVector(context.Background(), g); err != nil {
			if errors.Is(err, errBudget) {
				s := float64(b.size())
				return int64(max(total(k.mapBytes(n, dirac, 0, s)), float64(limit)+1))
			}
			return 0
		}
		if k.Max {
			nnzs[i] = float64(vecs[i].Len())
			continue
		}
		for _, id := range vecs[i].IDs {
			if b.weights[id] == float64(k.Length) {
				nnzs[i]++
			}
		}
	}
	nnz := smp.total(nnzs, walks)
	seqs := smp.features(vecs, all)
	return int64(min(bound, total(k.mapBytes(n, dirac, nnz, seqs))))
}

// refineBytes returns the bytes that refineLabels holds at its peak as it
// refines gs by h iterations on threads, and those it holds after, while
// the map and the dot products run: the refined labels, and the signature
// tables, which it leaves in the Workspace where there is one. A table
// holds up to refineSlotBytes a vertex in slots and bounds and 8 bytes a
// word of signature, a vertex's and its neighbours' colours; a labelling
// 4 bytes a vertex. The split refinement (graph.Splits) keeps a table for
// all vertices and one for each other part's vertices, an iteration; the
// pipeline (streamRefines) one an iteration and every iteration's
// colours; the shared table one, and 8 bytes a vertex to renumber, and
// keeps no table after; one thread one. Measured on NCI1 (Bytes of the
// Workspace's tables, and the peak of the heap without a Workspace, by
// vertex): one thread 50 and 65; the pipeline 50 and 58 an iteration; the
// shared table 32–54 at its peak; split, on MUTAG at h = 1, 81 and 77.
// The formulas take 65 to 66 bytes a table there. Where the packed map is
// streamed (streamed, see streamedPackedGram), the pipeline's tables and
// every iteration's colours are held all through the map, from h = 1.
func refineBytes(gs []*graph.Graph, h, threads int, streamed bool) (peak, kept float64) {
	if h == 0 || len(gs) == 0 {
		return 0, 0
	}
	var v, words float64
	for _, g := range gs {
		v += float64(g.N())
		words += float64(g.N() + len(g.Adj))
	}
	table := refineSlotBytes*v + 8*words
	// The refined labels, and the relabelled graphs that hold them
	// (graph.Relabelled), counted with the last iteration's labels.
	labels := 4 * v
	last := labels + graphBytes*float64(len(gs))
	fh := float64(h)
	switch {
	case streamed:
		kept = fh*table + fh*labels + last
		return kept, kept
	case threads > 1 && streamRefines(gs, h, threads):
		kept = fh * table
		return kept + fh*labels + last, kept + last
	case threads > 1 && graph.Splits(gs, h, threads):
		kept = 2 * fh * table
		return kept + labels + last, kept + last
	case threads > 1:
		return table + 8*v + labels + last, last
	}
	return table + labels + last, table + last
}

// refineSlotBytes is the bytes a vertex of a signature table's slots and
// bounds: 32 in slots, at the lowest load, and 8 in bounds.
const refineSlotBytes = 40

// mapBytes is the estimate of EstimateBytes, gcHeadroom times the live
// data, for n graphs whose vectors hold nnz non-zeros, of seqs distinct
// label sequences interned over all lengths. It is linear in nnz and seqs.
func (k *Walk) mapBytes(n int, dirac bool, nnz, seqs float64) float64 {
	vb := nonzeroBytes*nnz + vecBytes*float64(n)
	// One accumulator a mapper, two for Max (see graphAcc).
	accs := 1.0
	if k.Max {
		accs = 2
	}
	perSeq := mapBytes64 + accs*accBytes
	if !dirac {
		perSeq = mapBytes192 + accs*accBytes
	}
	if k.lengthWeights() {
		perSeq += weightBytes
	}
	packed := false // whether the packed map may run (see Walk.packs)
	if threadsOr(k.Threads) > 1 && dirac && !k.lengthWeights() {
		// explicitGram: the mapper's interner, or the pipeline's two,
		// which hold each sequence once, the shared interner that
		// copies them, every thread's accumulators and the last
		// round's, and the column workers' posting-list index, each up
		// to every sequence. The pipeline's queue of per-vertex
		// vectors, at most pipeBytes, is left out.
		threads := float64(min(threadsOr(k.Threads), n))
		perSeq = internBytes + sharedBytes + (threads+1)*accs*accBytes + (threads-1)*postingIndexBytes
		// The private map: an interner and an accumulator a worker,
		// and each other worker's numbers of its sequences (see
		// privateMap), each up to every sequence.
		perSeq = max(perSeq, threads*(internBytes+accs*accBytes)+(threads-1)*4)
		packed = !k.Max && k.Length > 0
	}
	phi := vb + perSeq*seqs
	if packed {
		// The packed map, where the labels pack (see packedGram), holds
		// no interner but more bytes a non-zero. Its workers' scratch,
		// a graph's per-vertex vectors each and a table of its largest
		// bucket (see rankScratch), and its buckets' counts, at most
		// 1 MiB, are left out, as the pipeline's queue is.
		phi = max(phi, packedNonzeroBytes*nnz+vecBytes*float64(n))
	}
	return gcHeadroom * max(phi, dotBytes(vb, nnz, seqs, min(threadsOr(k.Threads), n)))
}

// walks returns the number of walks in g of length l, or of every length
// up to l for Max, whose vectors count them all, and of every length up to
// l.
func (k *Walk) walks(g *graph.Graph) (l, all float64) {
	n := g.N()
	cur, nxt := make([]float64, n), make([]float64, n)
	for v := range cur {
		cur[v] = 1
	}
	all = float64(n)
	for i := 1; i <= k.Length; i++ {
		for u := range nxt {
			var s float64
			for _, v := range g.Adj[g.Offsets[u]:g.Offsets[u+1]] {
				s += cur[v]
			}
			nxt[u] = s
		}
		cur, nxt = nxt, cur
		for _, w := range cur {
			all += w
		}
	}
	if k.Max {
		return all, all
	}
	for _, w := range cur {
		l += w
	}
	return l, all
}
