package kernels

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// vertexWeights is the structural weight kernel k_W of a weighted vertex
// kernel (Eq. wv), prepared for the graphs of one computation: graphs are
// named by their index, vertices by their number.
type vertexWeights interface {
	// weight returns k_W(u, v) for vertex u of graph g and v of graph h.
	weight(g, u, h, v int) float64
	explicitWeights
	weightFeatures
}

// weightFeatures gives the explicit feature map φ^W of vertices.
type weightFeatures interface {
	// features appends φ^W(u) of vertex u of graph g to dst, with
	// distinct ids.
	features(dst []Feature, g, u int) []Feature
}

// columnFeatures is weightFeatures whose every vertex has one feature in
// each of a few columns, of value 1: GI's colour in each WL iteration. The
// explicit map sums such weights a column at a time (see
// wvScratch.sumColumns).
type columnFeatures interface {
	weightFeatures
	// columns returns the number of columns.
	columns() int
	// column returns the features of graph g's vertices in column c,
	// base + ids[u] for vertex u. The features of column c are below
	// those of column c+1.
	column(g, c int) (ids []int32, base uint64)
}

// packedFeatures is weightFeatures held as GraphHopper's matrices: the
// weight of feature i·stride + j at vertex u of graph g is entry (i, j)
// of u's block of m, the upper triangles of d×d matrices packed row by
// row (see hopperPacked). The explicit map sums them a packed position at
// a time, in the order of their ids (see wvScratch.sumPacked).
type packedFeatures interface {
	weightFeatures
	// packed returns graph g's blocks, their d and the stride of the
	// features' ids.
	packed(g int) (m []float64, d, stride int)
}

// explicitWeights is what the explicit map of a weighted vertex kernel
// needs of k_W: the weights of one graph at a time.
type explicitWeights interface {
	// load returns the weight features of graph g, computed in sc, the
	// calling worker's own, where they are not kept for every graph. It
	// fails only if it has to wait for them and ctx is done.
	load(ctx context.Context, g int, sc *weightScratch) (weightFeatures, error)
	// dense is called once every graph's pairs are summed, as keys
	// wid<<32 | vertex feature id. It returns the dimension of φ^W and,
	// unless the weight features are dense ids already, a function that
	// makes them so in one graph's keys, keeping them sorted, which is
	// called on the graphs in parallel: dense ids let a graph's pairs
	// of a weight and a vertex feature be ranked in a bitmap over all
	// pairs (see rankPairs).
	dense() (dim int, rewrite func(ks []uint64))
}

// weightScratch is a worker's storage for the weights that the explicit
// map computes graph by graph (see ghStream), and which of the map's
// workers it is (see stageOwner).
type weightScratch struct {
	hop             hopperScratch
	gh              ghGraph
	worker, workers int
}

// wvCheckWork is the number of vertex pairs from which gramWV's implicit
// method checks its context before a pair of graphs, not only every row:
// about 30 µs of the hat kernel. A pair of two 100-vertex graphs takes
// about 0.2 ms, of two 32-vertex ones 35 µs; checked every 64 pairs, the
// sampling advisor's probe of 4 ENZYMES graphs for gi ran on for a row of
// 4 pairs, 0.14 ms, past the time that decided it (see clockLimit).
const wvCheckWork = 1 << 10

// gramWV computes K(G,H) = Σ_v Σ_v' k_W(v,v')·k_V(v,v') for the weights w
// and the attribute kernel a on graphs whose attributes are already scaled,
// on up to threads goroutines. Implicit is exact; explicit uses φ^WV(G) =
// Σ_v φ^W(v) ⊗ φ^V(v) (Proposition 4.2), approximate when φ^V is (random
// binning). The matrix does not depend on threads.
func gramWV(ctx context.Context, name string, gs []*graph.Graph, m Method, w vertexWeights, a *AttrKernel, threads int, ahead *gramAhead, rep *Report) (*mat.SymDense, error) {
	n := len(gs)
	if n == 0 {
		return &mat.SymDense{}, nil
	}
	switch m {
	case Implicit:
		if gw, ok := w.(*giWeights); ok {
			gw.sideBySide()
		}
		vk := a.exact()
		pc := newProbeCheck(ctx)
		return gramRows(ctx, n, threads, rep, func(_, i int, out []float64, r *Report) error {
			t := time.Now()
			g := gs[i]
			check := workCheck{every: wvCheckWork}
			for j := i; j < n; j++ {
				h := gs[j]
				if err := check.add(ctx, g.N()*h.N()); err != nil {
					return err
				}
				var s float64
				for u := 0; u < g.N(); u++ {
					if err := pc.err(); err != nil {
						return err
					}
					for v := 0; v < h.N(); v++ {
						if kw := w.weight(i, u, j, v); kw != 0 {
							s += kw * vk.Vertex(g, u, h, v)
						}
					}
				}
				r.Comparisons += int64(g.N()) * int64(h.N())
				r.Pairs++
				out[j-i] = s
			}
			r.TWalks += time.Since(t)
			return nil
		})
	case Explicit:
		return gramWVExplicit(ctx, name, gs, w, a, threads, ahead, rep)
	}
	return nil, fmt.Errorf("%s kernel: unsupported method %q", name, m)
}

// gramWVExplicit is gramWV's explicit method, with the weights w, into
// ahead's matrix if ahead is not nil.
func gramWVExplicit(ctx context.Context, name string, gs []*graph.Graph, w explicitWeights, a *AttrKernel, threads int, ahead *gramAhead, rep *Report) (*mat.SymDense, error) {
	if len(gs) == 0 {
		return &mat.SymDense{}, nil
	}
	dim, err := attrDim(gs)
	if err != nil {
		return nil, fmt.Errorf("%s kernel: %w", name, err)
	}
	vm, err := a.featureMap(dim)
	if err != nil {
		return nil, fmt.Errorf("%s kernel: %w", name, err)
	}
	t := time.Now()
	if ahead == nil {
		ahead = newGramAhead(ctx, len(gs), threads)
	}
	vecs, nf, err := wvVectorsOn(ctx, gs, w, vm, threads)
	if err != nil {
		return nil, err
	}
	rep.TPhi += time.Since(t)
	noteVecs(rep, vecs)
	rep.Features = int64(nf)
	t = time.Now()
	K, err := gramFromVecsInto(ctx, ahead.matrix(), vecs, nil, threads, rep, nil)
	rep.TDot += time.Since(t)
	return K, err
}

// wvBytes bounds the bytes that the explicit map of a weighted vertex
// kernel with attribute kernel a allocates, from scaling the attributes to
// the Gram matrix (without it), given nnzW[g], the number of non-zeros of
// φ^W over the vertices of graph g, and prep, what preparing the weights
// allocates. It takes every pair of a weight and a vertex feature of a
// vertex for a distinct non-zero of its graph's vector and a feature of its
// own, and every bin of every vertex for a new bin, the most there can be;
// when binning or the weights merge pairs (vertices of one graph that share
// a weight feature and a bin), the truth is lower, by the factor that they
// merge. It assumes finite attributes, so that scaled ones lie in [0, 1].
// On threads > 1 it adds what the parallel map and dot products keep
// besides. byPosition says that the map sums the weights by position
// (see wvScratch.sumPacked), without listing them.
func wvBytes(gs []*graph.Graph, a *AttrKernel, nnzW []int64, prep int64, threads int, byPosition bool) int64 {
	const (
		// A pair's id (4 bytes), with a quarter more for the rounding
		// of allocation sizes; its rank (16, a key and its place
		// sorted through a buffer, see rankBySort); and gramFromVecs's
		// posting lists, 12 bytes a non-zero, and their index, 4 bytes
		// a feature. Its key and value are priced below (see
		// slabPairs).
		perPair = 5 + 16 + 16
		// A bin's key and slot in the interner and its sum in the dense
		// accumulator. The three grow by doubling, to at most 4, 4 and 2
		// entries a bin, so that what they allocate in all is at most
		// twice that, with up to an eighth more for rounding and, for
		// the keys, up to a quarter more for append's growth: 90, 36 and
		// 37 bytes. An interned label costs less.
		perBin = 90 + 36 + 37
	)
	dim, _ := attrDim(gs)
	p := int64(1)
	if a.Kind == "hat" {
		p = int64(max(a.Iterations, 1))
	}
	var v, pairs, scratch int64
	var slab slabSizes
	for i, g := range gs {
		n := int64(g.N())
		pg := nnzW[i] * p
		v += n
		pairs += pg
		slab.add(float64(pg))
		// The scratch of one graph: its pairs' keys and values, its
		// vertex features with their values, the accumulator's list of
		// touched ids, and, unless it sums them by position (see
		// wvScratch.sumPacked), its weight features with their
		// vertices and the buffer that sorts them.
		listed := 44 * nnzW[i]
		if byPosition {
			listed = 0
		}
		scratch = max(scratch, 16*pg+16*n*p+listed+4*n+16*p)
	}
	bytes := prep + perPair*pairs + perBin*v*p
	bytes += 16 * int64(slab.pairs(max(1, min(threads, len(gs)))))
	// Whether the bins pack into keys (see Binning.bin) decides how they
	// are interned, and on more threads who bins them.
	packed := a.Kind == "hat" && newBinLayout(a.Delta, int(p), dim).w > 0
	if a.Kind == "hat" && !packed {
		// Every bin is also a tuple of dim+1 words in a tupleInterner,
		// whose slots and arena grow by doubling from 1024 slots to at
		// most 4 slots and 2 tuples a tuple.
		words := int64(dim + 1)
		bytes += (32+32*words)*v*p + 4096*words
	}
	// The scratch is reused from graph to graph; growing it by append
	// allocates up to 5 times its final capacity, which can be a quarter
	// more than its length, and rounding can add an eighth.
	bytes += 7 * scratch
	// The scaled attributes, graphs and vectors, and the binning's
	// offsets.
	g := int64(len(gs))
	bytes += 8*int64(dim)*v + graphBytes*g + 72*g + 8*p*int64(dim)
	if t := int64(max(1, min(threads, len(gs)))); t > 1 {
		if packed {
			// Every vertex's bins, binned ahead by all workers (see
			// numberBins), 4 bytes a bin of a vertex with an eighth
			// more for rounding, and a slice header a graph; each
			// worker's table of the bins it met, with where, and
			// their numbering: a key and slot in an interner as above
			// and up to 45 bytes a bin for where it was met, a
			// worker, and the union's table, the order and the
			// numbers, up to 180 bytes a bin, for at most v·p bins.
			bytes += 4*v*p*9/8 + 24*g + ((90+36+45+4)*t+180)*v*p
		}
		// Every graph's vertex features, kept from the sequential
		// binning until the workers have summed them, 12 bytes a
		// feature and 4 a vertex, in exactly sized copies with an
		// eighth more for rounding, and their slice headers; the
		// scratch of every other worker; and the cursors of the other
		// threads' parts of a parallel build of the posting lists, 4
		// bytes a feature.
		bytes += (12*v*p+4*(v+g))*9/8 + 72*g + (t-1)*(7*scratch+4*pairs)
		// Every other thread's bitmap in rankPairs: up to 32 bits a
		// non-zero and 2^16 more.
		bytes += (t - 1) * (4*pairs + 8<<10)
	}
	// The tables' minimum sizes (1024 entries) and the bitmap of
	// rankPairs beyond 6 bytes a non-zero.
	return bytes + 96<<10
}

// GraphInvariant is the graph invariant kernel of Orsini et al. (2015) in
// the form of Section 4.1.1: a weighted vertex kernel with
// k_W(v,v') = Σ_{i=0..h} δ(τ_i(v), τ_i(v')), where τ_i is the colour after i
// iterations of Weisfeiler-Lehman refinement of the unlabelled structure,
// and an attribute kernel k_V. φ^W(v) has one non-zero per iteration.
type GraphInvariant struct {
	// H is the number of WL iterations h ≥ 0.
	H int
	// Attr is the vertex kernel on attributes.
	Attr AttrKernel
	// Threads is the number of goroutines of the explicit maps and dot
	// products and of the implicit pairs: 0 or 1 is one, a negative
	// number every core. The matrix is the same for any number.
	Threads int
}

// Name implements Kernel.
func (k *GraphInvariant) Name() string { return "gi" }

// Methods implements Kernel.
func (k *GraphInvariant) Methods() []Method { return []Method{Explicit, Implicit} }

// giWeights holds the WL colours of every vertex, colours[i][g][v] for
// iteration i. The colours of iteration i are dense ids below k_i, so the
// weight feature of iteration i and colour c is offset[i] + c.
type giWeights struct {
	colours [][][]int32
	offset  []int // offset[i] = k_0 + … + k_{i−1}, for i = 0..h+1
	// byVertex[g] holds the colours of graph g's vertices, those of all
	// iterations of a vertex side by side, for weight (see sideBySide).
	byVertex [][]int32
}

func newGIWeights(colours [][][]int32) *giWeights {
	w := &giWeights{colours: colours, offset: make([]int, len(colours)+1)}
	for i, c := range colours {
		k := 0
		for _, cg := range c {
			for _, x := range cg {
				k = max(k, int(x)+1)
			}
		}
		w.offset[i+1] = w.offset[i] + k
	}
	return w
}

// sideBySide lays the colours out for weight, which the implicit method
// (gramWV) calls for every pair of vertices: read through colours[i][g],
// each pair loaded two slice headers an iteration, and GI's implicit
// matrix of MUTAG took 40 ms on one thread, against 34 ms side by side.
// The explicit maps read the colours a vertex at a time, and do without.
func (w *giWeights) sideBySide() {
	it := len(w.colours)
	w.byVertex = make([][]int32, len(w.colours[0]))
	for g := range w.byVertex {
		b := make([]int32, len(w.colours[0][g])*it)
		for i, c := range w.colours {
			for u, x := range c[g] {
				b[u*it+i] = x
			}
		}
		w.byVertex[g] = b
	}
}

// weight counts the iterations in which u and v have one colour, once
// sideBySide has laid them out.
func (w *giWeights) weight(g, u, h, v int) float64 {
	it := len(w.colours)
	a := w.byVertex[g][u*it : (u+1)*it]
	b := w.byVertex[h][v*it : (v+1)*it]
	b = b[:len(a)]
	s := 0
	for i, x := range a {
		if x == b[i] {
			s++
		}
	}
	return float64(s)
}

func (w *giWeights) features(dst []Feature, g, u int) []Feature {
	for i, c := range w.colours {
		dst = append(dst, Feature{uint64(w.offset[i] + int(c[g][u])), 1})
	}
	return dst
}

func (w *giWeights) columns() int { return len(w.colours) }

func (w *giWeights) column(g, c int) ([]int32, uint64) {
	return w.colours[c][g], uint64(w.offset[c])
}

func (w *giWeights) load(context.Context, int, *weightScratch) (weightFeatures, error) {
	return w, nil
}

func (w *giWeights) dense() (int, func([]uint64)) {
	return w.offset[len(w.colours)], nil
}

// Gram implements Kernel.
func (k *GraphInvariant) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if k.H < 0 {
		return nil, nil, fmt.Errorf("gi kernel: negative h %d", k.H)
	}
	if err := k.Attr.validate(); err != nil {
		return nil, nil, fmt.Errorf("gi kernel: %w", err)
	}
	rep := &Report{Method: m}
	threads := threadsOr(k.Threads)
	t := time.Now()
	var (
		ahead *gramAhead
		later *giLater
	)
	if m == Explicit && threads > 1 && len(gs) > 1 {
		if sharingLimit(ctx) == nil && giRefineAhead(gs, &k.Attr, k.H) {
			// First, as the helper that refines allocates the
			// matrix after it.
			later = refineAhead(ctx, gs, k.H)
		}
		// The matrix is allocated beside the stream's colours, which
		// took 40 µs of GI's 1.5 ms on MUTAG on two threads, and the
		// first graphs' refinement, which only one worker can do.
		ahead = startGramAhead(ctx, len(gs))
	}
	gs, w, err := k.weights(ctx, gs, threads, ahead != nil, t, later)
	if err != nil {
		return nil, nil, err
	}
	rep.TPrep = time.Since(t)
	K, err := gramWV(ctx, "gi", gs, m, w, &k.Attr, threads, ahead, rep)
	if s, ok := w.(*giStream); ok && err == nil {
		s.giveBack(ctx)
	}
	return K, rep, err
}

// weights scales the attributes of gs and refines their colours, streamed
// where stream is set and the graphs allow it (see giStream), else in the
// signature tables of ctx's Workspace, if it has them, unless later, if
// not nil, refines them, and returns the scaled graphs with
// their vertex weights. The probes of a sample share its scaling and
// refinement (see probeShared), keyed apart from its graphs' indices, as
// a whole, with their time since start.
func (k *GraphInvariant) weights(ctx context.Context, gs []*graph.Graph, threads int, stream bool, start time.Time, later *giLater) ([]*graph.Graph, vertexWeights, error) {
	sampleKey := -len(gs)
	if v, ok := takeShared(ctx, sampleKey); ok {
		prep := v.(*giPrep)
		return prep.gs, newGIWeights(prep.cols), nil
	}
	gs, err := k.Attr.scale(ctx, gs, threads)
	if err != nil {
		return nil, nil, err
	}
	if later != nil {
		return gs, later, nil
	}
	if stream {
		if w, ok := newGIStream(ctx, gs, k.H); ok {
			return gs, w, nil
		}
	}
	t := takeStreamTables(ctx)
	cols, err := graph.RefineOnWith(t, gs, k.H, graph.Uniform, graphParallel(ctx, threads))
	giveStreamTables(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	putShared(ctx, sampleKey, &giPrep{gs, cols}, time.Since(start))
	return gs, newGIWeights(cols), nil
}

// giLater is giWeights whose colours a helper refines (graph.Refine) while
// the caller scales and bins the attributes, which the colours do not
// depend on: GI's explicit map with the hat kernel on two threads,
// where the streamed refinement (giStream) runs beside the sums, after the
// binning. Refined ahead, GI's matrix took 17.2–17.5 ms on Synthie at P =
// 4 against 18.5–18.7, 6.3 against 6.8 at P = 1, and 3.1 against 3.5 ms
// on ENZYMES at P = 1, 12.7 against 13.5 on PROTEINS at P = 4 (medians of
// 100, by turns), where one thread took 32.4, 11.5, 6.2 and 24.4 ms. Where
// the refinement outlasts the scaling and binning, the caller waits for it
// instead (see giRefineAhead).
type giLater struct {
	giWeights
	ready chan struct{}
}

// refineAhead starts the refinement of h iterations of gs's colours on a
// helper of ctx's Crew, or a goroutine of its own.
func refineAhead(ctx context.Context, gs []*graph.Graph, h int) *giLater {
	w := &giLater{ready: make(chan struct{})}
	goBrief(ctx, func() {
		w.giWeights = *newGIWeights(graph.Refine(gs, h, graph.Uniform))
		close(w.ready)
	})
	return w
}

// waitRefined waits for the colours of w if it is a giLater, or for ctx
// to be done; the explicit map calls it once the binning is done.
func waitRefined(ctx context.Context, w explicitWeights) error {
	l, ok := w.(*giLater)
	if !ok {
		return nil
	}
	_, err := awaitCtx(ctx, l.ready)
	return err
}

// giRefineAhead reports whether GI's explicit map of gs, with attribute
// kernel a and h iterations, on more than one thread, refines the colours
// ahead (see giLater): where binning the attributes, with scaling them,
// costs at least what refining the colours does on one thread, so that
// the caller does not wait. The costs are fitted to ENZYMES (18
// attributes), PROTEINS (1) and Synthie (15) on two threads: scaling 10
// ns a vertex and 2.3 an attribute, binning 25.6 ns a vertex and 1.13 an
// attribute in each of the P iterations, and the refinement 4.5 ns a
// vertex or adjacency in each WL iteration. On PROTEINS at P = 1, whose
// refinement by these costs takes 1.6 times the binning, refined ahead
// the matrix took 6.7 ms against 6.0 streamed.
func giRefineAhead(gs []*graph.Graph, a *AttrKernel, h int) bool {
	if a.Kind != "hat" || a.Iterations < 1 || h < 1 {
		return false
	}
	var bin, refine float64
	for _, g := range gs {
		n, d := float64(g.N()), float64(g.AttrDim)
		bin += n * (10 + 2.3*d + float64(a.Iterations)*(25.6+1.13*d))
		refine += 4.5 * float64(h) * (n + float64(len(g.Adj)))
	}
	return bin >= refine
}

// giPrep is a sample's scaled graphs and colours, which the probes of the
// sampling advisor share.
type giPrep struct {
	gs   []*graph.Graph
	cols [][][]int32
}

// giStream is giWeights over colours that a graph.Stream refines while the
// explicit map's workers sum the graphs refined. On two workers the stream
// is sole (see stagedStream): the first worker to need a graph runs every
// iteration over every graph, and both sum the graphs as they are refined;
// on more, its iterations run as the stages of a pipeline, a worker that
// needs a graph not yet refined running stages until its graph is through
// the last. With the stages shared by two workers, far apart, the
// refinement and the sums on two threads took 0.60 ms on MUTAG, 2.95 on
// ENZYMES and 7.44 on PROTEINS, sole 0.44, 2.22 and 5.91 (runexp, three
// rounds of ten by turns; on one thread 0.66, 4.1 and 9.7, the
// refinement 0.27, 1.96 and 5.17 of them). Refined beforehand on both
// threads (graph.RefineOn), the refinement took 0.41 of GI's 1.5 ms on
// MUTAG, no faster than on one thread, and 2.04 of 3.78 ms on ENZYMES,
// against 2.17 on one, as its workers share one table.
//
// Until every graph is refined the number of colours of an iteration is
// unknown, so weight feature i·2^shift + c stands for colour c of
// iteration i, which keeps a graph's keys in the order of the dense ids
// that dense gives them.
type giStream struct {
	giWeights
	stagedStream
	shift int
}

// newGIStream returns the streamed weights of h iterations over gs, or
// false if their ids would not fit in 32 bits, the stream's tables those
// of ctx's Workspace, if it has them (see newStagedStream).
func newGIStream(ctx context.Context, gs []*graph.Graph, h int) (*giStream, bool) {
	n := 0
	for _, g := range gs {
		n += g.N()
	}
	shift := bits.Len(uint(n))
	if shift+bits.Len(uint(h)) > 32 {
		return nil, false
	}
	ss := newStagedStream(ctx, gs, h, graph.Uniform)
	ss.sole = true
	w := &giStream{giWeights: giWeights{colours: ss.st.Colours(), offset: make([]int, h+2)}, stagedStream: ss, shift: shift}
	for i := range w.offset {
		w.offset[i] = i << shift
	}
	return w, true
}

func (w *giStream) load(ctx context.Context, g int, sc *weightScratch) (weightFeatures, error) {
	worker, workers := 0, 1
	if sc != nil {
		worker, workers = sc.worker, sc.workers
	}
	if err := w.waitRefined(ctx, g, worker, workers); err != nil {
		return nil, err
	}
	return w, nil
}

// keyBound returns the bound of the weight feature ids i·2^shift + c of
// the h+1 iterations.
func (w *giStream) keyBound() uint64 { return uint64(len(w.colours)) << w.shift }

// dense rewrites the weight feature of every key from i·2^shift + c to
// k_0 + … + k_{i−1} + c, as giWeights numbers it, and returns the number of
// colours of all iterations.
func (w *giStream) dense() (int, func([]uint64)) {
	dense := make([]uint64, len(w.colours)+1)
	if w.shift > 0 {
		dense[1] = 1 // every vertex starts with colour 0 (graph.Uniform)
	}
	for i := 1; i < len(w.colours); i++ {
		dense[i+1] = dense[i] + uint64(w.st.Count(i))
	}
	shift, mask := w.shift, uint64(1)<<w.shift-1
	return int(dense[len(w.colours)]), func(ks []uint64) {
		for t, k := range ks {
			wid := k >> 32
			ks[t] = (dense[wid>>shift]+wid&mask)<<32 | k&(1<<32-1)
		}
	}
}

// EstimateBytes implements MemoryEstimator with an upper bound for the
// explicit method (see wvBytes).
func (k *GraphInvariant) EstimateBytes(gs []*graph.Graph, m Method, _ int64) int64 {
	if m != Explicit {
		return 0
	}
	h := int64(k.H)
	nnzW := make([]int64, len(gs))
	var v, adj, deg int64
	for i, g := range gs {
		nnzW[i] = (h + 1) * int64(g.N())
		v += int64(g.N())
		adj += int64(len(g.Adj))
		deg = max(deg, int64(g.MaxDegree()))
	}
	// graph.RefineOn allocates a labelling of 4 bytes a vertex and a
	// slice header a graph per iteration and, for h > 0, a signature
	// table of up to 32 bytes a vertex in slots, 8 in bounds and 8 a word
	// of signature (a vertex and its neighbours), and a scratch signature
	// grown by append. On threads > 1 the refinement is streamed instead
	// (see giStream): it keeps such a table for every iteration. A table
	// of 8 bytes a vertex more bounds RefineOn spread over threads, for
	// graphs too many to stream: one shared table of the same slots, the
	// signatures in blocks of the workers' own, a word more each, and 8
	// bytes a vertex to renumber them.
	threads := threadsOr(k.Threads)
	prep := (h+1)*(4*v+24*int64(len(gs))) + 8*(h+2)
	switch {
	case h > 0 && threads > 1 && len(gs) > 1:
		prep += h * (56*v + 8*adj + 64*(deg+1) + 1024)
		// The streamed sums' marks (see sumMarks): a bitmap a worker
		// over the streamed ids and the labels, where they are marked.
		if k.Attr.Kind == "dirac" {
			workers := min(threads, len(gs))
			labels := newWVVertexMapper(Dirac{}, gs).labels
			if sm := newSumMarks(uint64(h+1)<<bits.Len(uint(v)), uint64(labels), workers); sm != nil {
				prep += int64(workers) * 8 * int64(sm.words())
			}
		}
	case h > 0:
		prep += 48*v + 8*adj + 64*(deg+1) + 1024
	}
	return wvBytes(gs, &k.Attr, nnzW, prep, threads, false)
}

// GraphHopper is the GraphHopper kernel of Feragen et al. (2013) as a
// weighted vertex kernel (Section 4.1.1): k_W(v,v') = ⟨M(v), M(v')⟩_F,
// where M(v) is a δ×δ matrix with δ the largest number of vertices on a
// shortest path in the data set (the diameter plus one).
//
// Convention, following Feragen et al. (2013, Section 3) and the reference
// implementation of the paper's authors (BrandesEdgeLengthHopper, N.
// Kriege): M(v)_ij, for 0 ≤ i ≤ j < δ and counting from 0, is the number of
// shortest paths (s = π_0, …, π_j = t) with j edges, over all ordered pairs
// (s, t) of vertices in one component and including s = t (j = 0), on which
// v = π_i. So every vertex has M(v)_00 = 1, its own path of length 0, and
// both directions of a path count. M is computed by one breadth-first
// search per source with path counting and back-propagation, as in
// Brandes's betweenness algorithm, never by enumerating paths:
// M(v)_{d(s,v), d(s,v)+k} += σ_s(v)·β_s(v,k), where σ_s(v) counts the
// shortest s–v paths and β_s(v,k) the shortest-path continuations of k
// edges from v away from s.
type GraphHopper struct {
	// Attr is the vertex kernel on attributes.
	Attr AttrKernel
	// Threads is the number of goroutines of the explicit maps and dot
	// products and of the implicit pairs: 0 or 1 is one, a negative
	// number every core. The matrix is the same for any number.
	Threads int
}

// Name implements Kernel.
func (k *GraphHopper) Name() string { return "gh" }

// Methods implements Kernel.
func (k *GraphHopper) Methods() []Method { return []Method{Explicit, Implicit} }

// ghWeights holds M(v) for every vertex: graph g's matrices are m[g], one
// block per vertex of the upper triangle of a d[g]×d[g] matrix packed row
// by row (see hopperPacked), with d[g] its own diameter plus one, so that
// small graphs store small blocks. Entries beyond a graph's block are 0.
type ghWeights struct {
	m     [][]float64
	d     []int
	delta int // over the data set
}

// newGHWeights computes M(v) of every vertex of gs, graph by graph on up
// to threads goroutines, and returns the time the workers spent on it.
func newGHWeights(ctx context.Context, gs []*graph.Graph, threads int) (*ghWeights, time.Duration, error) {
	w := &ghWeights{m: make([][]float64, len(gs)), d: make([]int, len(gs))}
	scs := make([]hopperScratch, max(1, min(threads, len(gs))))
	busy, err := forRowsTimed(ctx, len(gs), threads, func(wk, step int) error {
		i := probeGraph(ctx, step, len(gs))
		if v, ok := takeShared(ctx, i); ok {
			h := v.(*ghGraph)
			w.m[i], w.d[i] = h.m, h.d
			return nil
		}
		t := time.Now()
		w.m[i], w.d[i] = hopperPacked(nil, gs[i], &scs[wk])
		putShared(ctx, i, &ghGraph{m: w.m[i], d: w.d[i]}, time.Since(t))
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	for _, d := range w.d {
		w.delta = max(w.delta, d)
	}
	return w, busy, nil
}

func (w *ghWeights) block(g, u int) []float64 {
	t := triangle(w.d[g])
	return w.m[g][u*t : (u+1)*t]
}

// weight adds the products of the entries (i, j), i ≤ j < d, row by row,
// as the full matrices' rows would be summed.
func (w *ghWeights) weight(g, u, h, v int) float64 {
	a, b := w.block(g, u), w.block(h, v)
	dg, dh := w.d[g], w.d[h]
	d := min(dg, dh)
	var s float64
	for i, oa, ob := 0, 0, 0; i < d; i++ {
		ra, rb := a[oa:oa+d-i], b[ob:ob+d-i]
		rb = rb[:len(ra)] // no bounds check in the loop
		for j, x := range ra {
			s += x * rb[j]
		}
		oa += dg - i
		ob += dh - i
	}
	return s
}

func (w *ghWeights) features(dst []Feature, g, u int) []Feature {
	return ghFeatures(dst, w.block(g, u), w.d[g], w.delta)
}

// ghFeatures appends the non-zeros of a packed d×d block to dst as the
// features i·stride + j.
func ghFeatures(dst []Feature, block []float64, d, stride int) []Feature {
	o := 0
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			if x := block[o]; x != 0 {
				dst = append(dst, Feature{uint64(i*stride + j), x})
			}
			o++
		}
	}
	return dst
}

func (w *ghWeights) packed(g int) ([]float64, int, int) { return w.m[g], w.d[g], w.delta }

func (w *ghWeights) load(context.Context, int, *weightScratch) (weightFeatures, error) {
	return w, nil
}

func (w *ghWeights) dense() (int, func([]uint64)) { return w.delta * w.delta, nil }

// ghStream is GraphHopper's weights for the explicit map, which needs
// M(v) of a graph only while it sums the graph's pairs: each worker
// computes a graph's matrices into its own buffer as it takes the graph
// up. Keeping them for every graph, as the implicit method must, made the
// explicit map on MUTAG allocate 1.4 of its 2.6 MB, whose collection cost
// two threads the idle core that one thread has for it.
//
// δ, the largest d, is known only once every graph is summed, so the
// weight features are numbered i·stride + j with stride the most vertices
// of a graph, at least every d, and renumbered i·δ + j at the end: the same
// ids in the same order as ghWeights gives them.
type ghStream struct {
	gs     []*graph.Graph
	stride int
	d      []int // each graph's, set by the worker that sums it
}

// newGHStream returns the streaming weights of gs, or nil where they
// cannot stream (see ghStreams).
func newGHStream(gs []*graph.Graph) *ghStream {
	stride := ghStride(gs)
	if stride >= ghMaxStride {
		return nil
	}
	return &ghStream{gs: gs, stride: stride, d: make([]int, len(gs))}
}

// ghStride returns the stride of ghStream's provisional ids: the most
// vertices of a graph of gs.
func ghStride(gs []*graph.Graph) int {
	stride := 0
	for _, g := range gs {
		stride = max(stride, g.N())
	}
	return stride
}

// ghStreams reports whether the explicit map of gs can stream the
// matrices (ghStream): whether its provisional ids, below stride², fit the
// 32 bits of a weight feature in a pair's key.
func ghStreams(gs []*graph.Graph) bool { return ghStride(gs) < ghMaxStride }

// ghMaxStride bounds ghStream's stride, so that stride² fits 32 bits.
const ghMaxStride = 1 << 16

// load computes the matrices of graph g into sc and returns them, numbered
// by the stride.
//
// In a sampling probe, it takes the matrices from the other probe, or
// leaves a copy for it (see takeShared).
func (w *ghStream) load(ctx context.Context, g int, sc *weightScratch) (weightFeatures, error) {
	h := &sc.gh
	if v, ok := takeShared(ctx, g); ok {
		o := v.(*ghGraph)
		h.m, h.d = append(h.m[:0], o.m...), o.d
	} else if probing(ctx) {
		t := time.Now()
		h.m, h.d = hopperPacked(h.m, w.gs[g], &sc.hop)
		putShared(ctx, g, &ghGraph{m: slices.Clone(h.m), d: h.d}, time.Since(t))
	} else {
		h.m, h.d = hopperPacked(h.m, w.gs[g], &sc.hop)
	}
	h.stride = w.stride
	w.d[g] = h.d
	return h, nil
}

// dense rewrites the weight feature of every key from i·stride + j to
// i·δ + j, which keeps each graph's keys sorted, and returns δ².
func (w *ghStream) dense() (int, func([]uint64)) {
	delta := 0
	for _, d := range w.d {
		delta = max(delta, d)
	}
	if delta == w.stride {
		return delta * delta, nil
	}
	stride, d := uint64(w.stride), uint64(delta)
	return delta * delta, func(ks []uint64) {
		for t, k := range ks {
			wid := k >> 32
			ks[t] = (wid/stride*d+wid%stride)<<32 | k&(1<<32-1)
		}
	}
}

// ghGraph is the matrices of one graph as ghStream.load leaves them.
type ghGraph struct {
	m         []float64
	d, stride int
}

func (h *ghGraph) packed(int) ([]float64, int, int) { return h.m, h.d, h.stride }

func (h *ghGraph) features(dst []Feature, _, u int) []Feature {
	t := triangle(h.d)
	return ghFeatures(dst, h.m[u*t:(u+1)*t], h.d, h.stride)
}

// triangle returns d(d+1)/2, the entries of the upper triangle of a d×d
// matrix.
func triangle(d int) int { return d * (d + 1) / 2 }

// HopperMatrices returns M(v) of every vertex of g as one d×d block per
// vertex, row-major, where d is g's diameter plus one (1 for a graph
// without edges, 0 for the empty graph).
func HopperMatrices(g *graph.Graph) ([]float64, int) {
	P, d := hopperPacked(nil, g, &hopperScratch{})
	M := make([]float64, g.N()*d*d)
	o := 0
	for v := 0; v < g.N(); v++ {
		for i := 0; i < d; i++ {
			o += copy(M[v*d*d+i*d+i:(v*d+i+1)*d], P[o:o+d-i])
		}
	}
	return M, d
}

// growCap returns s with length n, reallocating, when it is too short, to
// at least twice its capacity, so that a buffer grown graph by graph
// allocates at most 4 times its largest length in all (the last
// allocation is below twice the largest, and each one at least doubles).
func growCap[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, max(n, 2*cap(s)))
	}
	return s[:n]
}

// hopperScratch is what computing M(v) needs besides the matrices, reused
// from graph to graph, as their garbage is collected at the cost of the
// other threads' time.
type hopperScratch struct {
	dist  []int32
	sigma []float64
	beta  []float64
	order []int32
	row   []int
}

// hopperPacked is HopperMatrices with only the upper triangle of each
// block, where every non-zero lies (M(v)_ij counts shortest paths of
// length j on which v is i edges from the start, so j ≥ i), packed row by
// row: entry (i, j) of vertex v's block at v·d(d+1)/2 + i·d − i(i−1)/2 +
// j − i. It halves what the matrices take.
//
// The matrices go in dst's storage when it has room.
func hopperPacked(dst []float64, g *graph.Graph, sc *hopperScratch) ([]float64, int) {
	n := g.N()
	sc.dist = graph.DistancesInto(growCap(sc.dist, n*n+n), g)
	dist := sc.dist
	d := 0
	for _, x := range dist {
		d = max(d, int(x)+1)
	}
	t := triangle(d)
	// row[i] is where row i of a block starts.
	sc.row = growCap(sc.row, d)
	row := sc.row
	for i := range row {
		row[i] = i*d - i*(i-1)/2
	}
	M := growCap(dst, n*t)
	clear(M)
	sc.sigma = growCap(sc.sigma, n)
	sc.beta = growCap(sc.beta, n*d) // β(v, k) at v*d+k
	sigma, beta, order := sc.sigma, sc.beta, growCap(sc.order, n)[:0]
	for s := 0; s < n; s++ {
		ds := dist[s*n : (s+1)*n]
		// BFS order and path counts: σ(s) = 1, σ(w) = Σ σ(preds).
		order = order[:0]
		order = append(order, int32(s))
		clear(sigma)
		sigma[s] = 1
		for head := 0; head < len(order); head++ {
			v := order[head]
			for _, w := range g.Neighbors(int(v)) {
				if ds[w] == ds[v]+1 {
					if sigma[w] == 0 {
						order = append(order, w)
					}
					sigma[w] += sigma[v]
				}
			}
		}
		// A shortest path from s ends at most e edges from it, the
		// last vertex's distance in BFS order, so β(v, k) = 0 for
		// k > e − dist(s, v), and those entries are neither cleared,
		// added nor read: a block's row d − i long holds e − i + 1
		// non-zeros at the most.
		e := int(ds[order[len(order)-1]])
		// Back-propagation in reverse BFS order: β(v,0) = 1,
		// β(v,k+1) = Σ_{w: v pred of w} β(w,k).
		for _, v := range order {
			b := beta[int(v)*d : int(v)*d+e-int(ds[v])+1]
			clear(b)
			b[0] = 1
		}
		for x := len(order) - 1; x >= 0; x-- {
			w := order[x]
			bw := beta[int(w)*d : int(w)*d+e-int(ds[w])+1]
			for _, v := range g.Neighbors(int(w)) {
				if ds[v] == ds[w]-1 {
					bv := beta[int(v)*d+1 : int(v)*d+1+len(bw)]
					for k, b := range bw {
						bv[k] += b
					}
				}
			}
		}
		for _, v := range order {
			i := int(ds[v])
			mv := M[int(v)*t+row[i] : int(v)*t+row[i]+e-i+1]
			bv := beta[int(v)*d : int(v)*d+len(mv)]
			for k := range mv {
				mv[k] += sigma[v] * bv[k]
			}
		}
	}
	sc.order = order
	return M, d
}

// Gram implements Kernel.
func (k *GraphHopper) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if err := k.Attr.validate(); err != nil {
		return nil, nil, fmt.Errorf("gh kernel: %w", err)
	}
	rep := &Report{Method: m}
	t := time.Now()
	threads := threadsOr(k.Threads)
	gs, err := k.Attr.scale(ctx, gs, threads)
	if err != nil {
		return nil, nil, err
	}
	if m == Explicit {
		if stream := newGHStream(gs); stream != nil {
			// The scaling, as below; the matrices are computed within
			// the map.
			rep.TPhi = time.Since(t)
			K, err := gramWVExplicit(ctx, "gh", gs, stream, &k.Attr, threads, nil, rep)
			return K, rep, err
		}
	}
	w, busy, err := newGHWeights(ctx, gs, threads)
	if err != nil {
		return nil, rep, err
	}
	// The matrices are part of either method's work, unlike the scaling:
	// of the explicit map, whose time is the wall time of its phase, and
	// of the implicit pairs, whose time is summed over the workers.
	if m == Explicit {
		rep.TPhi = time.Since(t)
	} else {
		rep.TWDPG = busy
	}
	K, err := gramWV(ctx, "gh", gs, m, w, &k.Attr, threads, nil, rep)
	return K, rep, err
}

// EstimateBytes implements MemoryEstimator with an upper bound for the
// explicit method (see wvBytes). It computes M(v) of every vertex to count
// its non-zeros, which costs a small part of the explicit map: a bound
// from the diameter alone, δ_g(δ_g+1)/2 a vertex, is about twice too high
// on ENZYMES.
func (k *GraphHopper) EstimateBytes(gs []*graph.Graph, m Method, _ int64) int64 {
	if m != Explicit {
		return 0
	}
	nnzW := make([]int64, len(gs))
	var (
		kept, most int64
		sc         hopperScratch
		M          []float64
	)
	for i, g := range gs {
		var d int
		M, d = hopperPacked(M, g, &sc)
		for _, x := range M {
			if x != 0 {
				nnzW[i]++
			}
		}
		// M, 8 bytes an entry of a triangle, and the scratch: the
		// distances and queue, 4 bytes a pair and a vertex, path counts,
		// the BFS order and where the rows of a block start.
		n, d64 := int64(g.N()), int64(d)
		m := 4*n*(d64+1)*d64 + 4*n*n + 4*n + 8*n*d64 + 12*n + 8*d64
		kept += m
		most = max(most, m)
	}
	// The streamed map's buffers, one set a worker, grow by doubling
	// (growCap) to at most 4 times the largest; the matrices of every
	// graph where it cannot stream. An eighth more for rounding.
	prep := 4 * most * int64(max(1, min(threadsOr(k.Threads), len(gs))))
	if !ghStreams(gs) {
		prep = kept
	}
	prep = prep * 9 / 8
	return wvBytes(gs, &k.Attr, nnzW, prep+32*int64(len(gs)), threadsOr(k.Threads), true)
}

// MemoryEstimator is implemented by kernels that can bound the memory a
// method will allocate before computing it, so that a caller can refuse a
// computation that would not fit instead of running out of memory.
type MemoryEstimator interface {
	// EstimateBytes returns an upper estimate of the bytes that the Gram
	// computation of gs by m allocates beyond its result, or 0 when it is
	// small. A positive limit lets an estimate that maps a sample of the
	// graphs stop as soon as it knows that the estimate exceeds limit:
	// it then returns a figure above limit, not the whole estimate, since
	// mapping the sample can cost what the estimate is there to avoid.
	EstimateBytes(gs []*graph.Graph, m Method, limit int64) int64
}
