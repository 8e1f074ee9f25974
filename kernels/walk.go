package kernels

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// Walk is the fixed-length walk kernel of Section 4.2 of the paper. With Max
// unset it is the l-walk kernel K=_l, which counts pairs of walks of length
// exactly Length whose vertices and edges match under the vertex and edge
// kernels; with Max set it is the Max-l-walk kernel K≤_l = Σ_{i=0..l} λ_i K=_i.
// A walk of length 0 is a single vertex.
//
// Both methods of the paper are available. The implicit method builds the
// weighted direct product graph of each pair (Algorithm 1) and counts
// weighted walks on it (Algorithm 2). The explicit method computes, per
// graph, the sparse vector of label-sequence counts by the recursion of
// Algorithm 3, where a length-i sequence is interned as the tuple
// (vertex feature, edge feature, id of a length-(i−1) sequence), and takes
// merge-join dot products.
//
// With the Dirac kernel on vertex and edge labels (nil Vertex and Edge, the
// default) both methods take integer-label fast paths, and both compute
// sums of integer walk counts: their results are exactly equal as long as
// every count stays below 2^53, which holds for all data sets of the paper at
// the walk lengths it uses.
type Walk struct {
	// Length is the walk length l ≥ 0.
	Length int
	// Max selects the Max-l-walk kernel.
	Max bool
	// Lambda holds the weights λ_0..λ_l of the Max-l-walk kernel. Nil means
	// all weights are 1.
	Lambda []float64
	// WL is the number of Weisfeiler-Lehman iterations applied to the vertex
	// labels before the kernel is computed (Section 5.3.4).
	WL int
	// Vertex and Edge are the base kernels; nil means Dirac on labels. The
	// explicit method needs them to implement VertexMap and EdgeMap.
	Vertex VertexKernel
	Edge   EdgeKernel
	// Threads is the number of goroutines of the implicit method, of the
	// explicit dot products and, for integer counts (Dirac kernels without
	// weights, below 2^26 walks a graph), of the explicit feature maps; 0
	// means 1, as in the paper. The matrix is the same for every number;
	// the ids of the feature vectors of a parallel map are not.
	Threads int

	// guard, if not nil, counts the graphs mapped by the explicit method,
	// for an automatic choice that may give way to the implicit one.
	guard *switchGuard
}

// maxWalkLength bounds the walk length accepted from parameters; beyond it
// walk counts overflow float64's exact integer range on every real data set.
const maxWalkLength = 64

func newWalkFromParams(p Params) (Kernel, error) {
	r := &paramReader{kernel: "walk", p: p}
	w := &Walk{
		Length:  r.int("length", 0, 0, maxWalkLength, true),
		Max:     r.bool("max", false),
		WL:      r.int("wl", 0, 0, 100, false),
		Threads: r.threads(),
	}
	lambda := r.floatAbove("lambda", 1, 0)
	if _, ok := p["lambda"]; ok && !w.Max && r.err == nil {
		r.fail("lambda", "only applies with max=true")
	}
	if r.err != nil {
		return nil, r.err
	}
	if w.Max && lambda != 1 {
		w.Lambda = make([]float64, w.Length+1)
		for i := range w.Lambda {
			w.Lambda[i] = math.Pow(lambda, float64(i))
		}
	}
	return w, nil
}

// Name implements Kernel.
func (k *Walk) Name() string { return "walk" }

// Methods implements Kernel.
func (k *Walk) Methods() []Method { return []Method{Explicit, Implicit} }

func (k *Walk) validate() error {
	if k.Length < 0 {
		return fmt.Errorf("walk kernel: negative length %d", k.Length)
	}
	if k.WL < 0 {
		return fmt.Errorf("walk kernel: negative WL iterations %d", k.WL)
	}
	if k.Lambda != nil {
		if !k.Max {
			return fmt.Errorf("walk kernel: weights given without Max")
		}
		if len(k.Lambda) != k.Length+1 {
			return fmt.Errorf("walk kernel: %d weights for length %d, want %d", len(k.Lambda), k.Length, k.Length+1)
		}
		for i, l := range k.Lambda {
			if !(l >= 0) || math.IsInf(l, 0) {
				return fmt.Errorf("walk kernel: weight λ_%d = %g, want finite and ≥ 0", i, l)
			}
		}
	}
	return nil
}

// lengthWeights reports whether the feature maps weigh each sequence by
// the λ of its length: the Max-l-walk kernel with weights, whose vectors
// hold sums of non-integer terms.
func (k *Walk) lengthWeights() bool { return k.Max && k.Lambda != nil }

// lambda returns λ_i.
func (k *Walk) lambda(i int) float64 {
	if k.Lambda == nil {
		return 1
	}
	return k.Lambda[i]
}

// prepare implements preparer: the label refinement, and the kernel
// without it.
func (k *Walk) prepare(ctx context.Context, gs []*graph.Graph) ([]*graph.Graph, Kernel, error) {
	if err := k.validate(); err != nil {
		return nil, nil, err
	}
	if k.WL == 0 {
		return gs, k, nil
	}
	plain := *k
	plain.WL = 0
	gs, err := k.refineLabels(ctx, gs)
	if err != nil {
		return nil, nil, err
	}
	return gs, &plain, nil
}

// refineLabels replaces the labels of gs by their colours after k.WL
// iterations of WL refinement, on the kernel's threads, in the signature
// tables of ctx's Workspace if it has them.
func (k *Walk) refineLabels(ctx context.Context, gs []*graph.Graph) ([]*graph.Graph, error) {
	threads := threadsOr(k.Threads)
	if streamRefines(gs, k.WL, threads) {
		return refineStreamed(ctx, gs, k.WL, threads)
	}
	t := takeStreamTables(ctx)
	out, err := graph.RefineGraphsOnWith(t, gs, k.WL, graph.FromLabels, graphParallel(ctx, threads))
	giveStreamTables(ctx, t)
	return out, err
}

// refineStreamed is graph.RefineGraphs from the labels, with the h
// iterations run as the stages of a pipeline on threads workers (see
// stagedStream), in the signature tables of ctx's Workspace if it has
// them.
func refineStreamed(ctx context.Context, gs []*graph.Graph, h, threads int) ([]*graph.Graph, error) {
	s := newStagedStream(ctx, gs, h, graph.FromLabels)
	err := forRows(ctx, threads, threads, func(w, _ int) error {
		return s.waitRefined(ctx, len(gs)-1, w, threads)
	})
	if err != nil {
		return nil, err
	}
	out := graph.Relabelled(gs, s.st.Colours()[h])
	s.giveBack(ctx)
	return out, nil
}

// streamRefines reports whether refineLabels refines gs by h iterations
// on threads workers as a pipeline (see refineStreamed) rather than by
// graph.RefineGraphsOn, split (graph.Splits) or in its shared table: from
// 2 to streamRefineMaxH iterations, where there are stages to run side by
// side, on at most streamRefineVertices vertices. Two threads, from the
// labels (a test binary, medians of 60 to 300, fast stretches), pipeline
// against shared table: MUTAG h = 2 79–85 µs against 96–97, h = 3 120
// against 146–149 (one thread 113 and 170); ENZYMES 741–745 against
// 788–796 and 1117–1140 against 1206–1208; PROTEINS 1707–1717 against
// 1844–1881 and 2512–2516 against 2758–2777; NCI1 2697 against 3250 and
// 4298 against 5593. Split, the refinement ran as fast as the pipeline in
// a test binary, and faster where the VM placed the vCPUs far apart, but
// under runexp in fast stretches the walk kernel's matrices on MUTAG
// after three iterations took longer than after the pipeline (length 2:
// 1.08–1.16 ms against 0.89–0.98, the refinement 0.22–0.25 against
// 0.17–0.21 and the maps after it 0.65–0.70 against 0.55–0.60; three
// rounds by turns), for reasons not found. With one iteration, one stage,
// the pipeline runs on one thread, and the split beats the shared table
// (0.074–0.088 ms against 0.087–0.100).
func streamRefines(gs []*graph.Graph, h, threads int) bool {
	vertices := 0
	for _, g := range gs {
		vertices += g.N()
	}
	return h >= 2 && streamBounded(h, threads, len(gs), vertices)
}

// streamBounded reports whether a pipelined refinement of h iterations of
// graphs graphs of vertices in all on threads workers is within
// streamRefineMaxH and streamRefineVertices, and has two graphs and two
// threads at least.
func streamBounded(h, threads, graphs, vertices int) bool {
	return threads >= 2 && graphs >= 2 && h >= 1 && h <= streamRefineMaxH && vertices <= streamRefineVertices
}

// streamRefineMaxH and streamRefineVertices bound the pipeline's
// refinements: a Stream keeps the colours and a signature table of every
// iteration, about 60 bytes a vertex each where graph.RefineGraphsOn keeps
// two labellings and one table, and it does not stop once the colours are
// stable.
const (
	streamRefineMaxH     = 4
	streamRefineVertices = 1 << 20
)

// Gram implements Kernel.
func (k *Walk) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if err := k.validate(); err != nil {
		return nil, nil, err
	}
	rep := &Report{Method: m}
	if m == Explicit {
		threads := threadsOr(k.Threads)
		if vb, eb, ok := k.streamPacks(gs, threads); ok {
			K, err := k.streamedPackedGram(ctx, gs, vb, eb, threads, rep)
			return K, rep, err
		}
	}
	if k.WL > 0 {
		t := time.Now()
		var err error
		if gs, err = k.refineLabels(ctx, gs); err != nil {
			return nil, nil, err
		}
		rep.TPrep = time.Since(t)
	}
	n := len(gs)
	switch m {
	case Explicit:
		if threads := threadsOr(k.Threads); threads > 1 && n > 1 {
			K, err := k.explicitGram(ctx, gs, threads, rep)
			return K, rep, err
		}
		t := time.Now()
		// The vectors are the Workspace's: they are not returned.
		wb := takeWalk(ctx)
		vecs, weights, err := k.featureVectors(ctx, gs, rep, wb)
		if err != nil {
			return nil, rep, err
		}
		rep.TPhi = time.Since(t)
		t = time.Now()
		K, err := gramFromVecsInto(ctx, newGramAhead(ctx, n, 1).matrix(), vecs, weights, threadsOr(k.Threads), rep, &wb.gram)
		rep.TDot = time.Since(t)
		if err == nil {
			wb.giveBack()
		}
		return K, rep, err
	case Implicit:
		if n == 0 {
			return &mat.SymDense{}, rep, nil
		}
		threads := threadsOr(k.Threads)
		pws := newPairWorkspace(k, gs, false).clones(threads, n)
		K, err := gramRows(ctx, n, threads, rep, func(w, i int, out []float64, r *Report) error {
			pw := pws[w]
			for j := i; j < n; j++ {
				if (j-i)%64 == 63 {
					if err := ctx.Err(); err != nil {
						return err
					}
				}
				out[j-i] = pw.pair(gs[i], gs[j], r)
			}
			return nil
		})
		return K, rep, err
	}
	return nil, nil, fmt.Errorf("walk kernel: unsupported method %q", m)
}

// FeatureVectors computes the explicit feature vector φ(G) of every graph
// (Algorithm 3), with ids from one interner so that the vectors are
// comparable. For the Max-l-walk kernel with non-unit weights it also
// returns the weight of every id, to be used in the dot product; otherwise
// weights is nil. rep, if not nil, receives the non-zero counts.
func (k *Walk) FeatureVectors(ctx context.Context, gs []*graph.Graph, rep *Report) (vecs []Vec, weights []float64, err error) {
	return k.featureVectors(ctx, gs, rep, nil)
}

// featureVectors is FeatureVectors in the buffers of wb, if not nil,
// where the vectors of the sequential map are stored too: they are valid
// until wb is lent again.
func (k *Walk) featureVectors(ctx context.Context, gs []*graph.Graph, rep *Report, wb *walkBufs) (vecs []Vec, weights []float64, err error) {
	if err := k.validate(); err != nil {
		return nil, nil, err
	}
	b, err := k.newMapper(gs)
	if err != nil {
		return nil, nil, err
	}
	if wb != nil {
		wb.lendMapper(b)
		defer func() {
			if err == nil {
				wb.maps[0] = b.mapBufs
			}
		}()
	}
	features := 0
	if threads := threadsOr(k.Threads); threads > 1 && b.dirac && !k.lengthWeights() && k.walksExact(gs) {
		// Integer counts small enough that the matrix does not depend
		// on how the ids are numbered; walksExact counted the walks that
		// parallelVectors checks, so it does not refuse them.
		vecs, features, err = b.parallelVectors(ctx, gs, threads)
		if err != nil {
			return nil, nil, err
		}
	}
	if vecs == nil {
		vecs = make([]Vec, len(gs))
		for i, g := range gs {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			if vecs[i], err = b.graphVector(ctx, g); err != nil {
				return nil, nil, err
			}
		}
		features = b.size()
	}
	if rep != nil {
		noteVecs(rep, vecs)
		rep.Features = int64(features)
	}
	return vecs, b.weights, nil
}
