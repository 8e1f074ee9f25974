package kernels

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
)

// Graphlet is the graphlet kernel of Section 5.4.1 of the paper, a subgraph
// kernel on connected induced subgraphs with three vertices and discrete
// vertex and edge labels: k(G,H) = Σ_P c_G(P)·c_H(P), where c_G(P) counts
// the induced subgraphs of G isomorphic to the labelled pattern P, a
// triangle or a path of length two. It is computed explicitly only.
//
// A pattern's canonical form is the lexicographically smallest label string
// over the traversals of the subgraph: for a path x–c–y the strings
// (l(x), l(xc), l(c), l(cy), l(y)) in both directions, for a triangle the
// strings (l(p), l(pq), l(q), l(qr), l(r), l(rp)) over its three starting
// vertices and two directions. Wedges and triangles are enumerated from
// each centre vertex's pairs of neighbours, so a graph costs O(Σ deg²·log deg)
// (the logarithm for the adjacency test), never O(n³).
type Graphlet struct {
	// Threads is the number of goroutines of the maps and dot products:
	// 0 or 1 is one, a negative number every core. The matrix is the
	// same for any number.
	Threads int
}

// Name implements Kernel.
func (k *Graphlet) Name() string { return "graphlet" }

// Methods implements Kernel.
func (k *Graphlet) Methods() []Method { return []Method{Explicit} }

// glLabelBits is the width of one label in a packed pattern key: seven
// fields (the kind and six labels) fill 126 of 128 bits.
const glLabelBits = 18

// glKey is a packed canonical pattern string.
type glKey [2]uint64

func packGL(f [7]int32) glKey {
	var k glKey
	// Fields 0..2 in the high word, 3..6 in the low word, 18 bits each.
	k[0] = uint64(f[0])<<(2*glLabelBits) | uint64(f[1])<<glLabelBits | uint64(f[2])
	k[1] = uint64(f[3])<<(3*glLabelBits) | uint64(f[4])<<(2*glLabelBits) | uint64(f[5])<<glLabelBits | uint64(f[6])
	return k
}

// The kinds of pattern, the first field of a key.
const (
	glPath     = 0
	glTriangle = 1
)

// glPathKey returns the canonical key of a path x–c–y with vertex labels
// lx, lc, ly and edge labels exc, ecy, and the number of its automorphisms.
//
// The two strings share the centre, so they compare as (lx, exc) against
// (ly, ecy): comparing all seven fields by slices.Compare took 18% of the
// graphlet kernel's time on MUTAG.
func glPathKey(lx, exc, lc, ecy, ly int32) (glKey, int) {
	fwd := [7]int32{glPath, lx, exc, lc, ecy, ly, 0}
	switch {
	case lx < ly || lx == ly && exc < ecy:
		return packGL(fwd), 1
	case lx > ly || exc > ecy:
		return packGL([7]int32{glPath, ly, ecy, lc, exc, lx, 0}), 1
	}
	return packGL(fwd), 2
}

// glTriangleKey returns the canonical key of a triangle with vertex labels
// l and edge labels e[i] between vertex i and vertex i+1 (mod 3), and the
// number of its automorphisms: the traversals that read the same string.
func glTriangleKey(l [3]int32, e [3]int32) (glKey, int) {
	var best [7]int32
	aut := 0
	for s := 0; s < 3; s++ {
		for _, dir := range [2]int{1, 2} { // +1 or −1 mod 3
			p, q, r := s, (s+dir)%3, (s+2*dir)%3
			// Edge between i and j (i ≠ j) is e[i] if j = i+1 else e[j].
			edge := func(i, j int) int32 {
				if (i+1)%3 == j {
					return e[i]
				}
				return e[j]
			}
			str := [7]int32{glTriangle, l[p], edge(p, q), l[q], edge(q, r), l[r], edge(r, p)}
			switch c := slices.Compare(str[:], best[:]); {
			case aut == 0 || c < 0:
				best, aut = str, 1
			case c == 0:
				aut++
			}
		}
	}
	return packGL(best), aut
}

// edgeLabel returns the label of the edge uv of g and whether it exists, by
// binary search in u's sorted adjacency.
func edgeLabel(g *graph.Graph, u, v int32) (int32, bool) {
	lo, hi := g.Offsets[u], g.Offsets[u+1]
	adj := g.Adj[lo:hi]
	if i, ok := slices.BinarySearch(adj, v); ok {
		return g.EdgeLabels[int(lo)+i], true
	}
	return 0, false
}

// glCounter enumerates patterns and interns their keys.
type glCounter struct {
	ids interner[key128]
	aut []int // automorphisms of each interned pattern
	acc accumulator
}

func (c *glCounter) add(key glKey, aut int) {
	id, added := c.ids.intern(key128(key))
	if added {
		c.aut = append(c.aut, aut)
	}
	c.acc.add(id, 1)
}

// count adds the connected induced three-vertex subgraphs of g to the
// accumulator.
func (c *glCounter) count(g *graph.Graph) {
	n := g.N()
	for ctr := 0; ctr < n; ctr++ {
		lo, hi := g.Offsets[ctr], g.Offsets[ctr+1]
		lc := g.Labels[ctr]
		for i := lo; i < hi; i++ {
			x := g.Adj[i]
			for j := i + 1; j < hi; j++ {
				y := g.Adj[j] // x < y: adjacency is sorted
				exy, adjacent := edgeLabel(g, x, y)
				if !adjacent {
					key, aut := glPathKey(g.Labels[x], g.EdgeLabels[i], lc, g.EdgeLabels[j], g.Labels[y])
					c.add(key, aut)
					continue
				}
				// A triangle is seen from each of its vertices; count it
				// from the smallest.
				if int32(ctr) < x {
					key, aut := glTriangleKey([3]int32{lc, g.Labels[x], g.Labels[y]},
						[3]int32{g.EdgeLabels[i], exy, g.EdgeLabels[j]})
					c.add(key, aut)
				}
			}
		}
	}
}

// checkGLLabels returns an error naming the first label of gs outside [0,
// 2^glLabelBits), a graph's vertex labels before its edge labels, or nil.
// A graph whose label ranges (which graph.Build keeps) lie inside is not
// scanned.
func checkGLLabels(gs []*graph.Graph) error {
	const top = 1 << glLabelBits
	for _, g := range gs {
		if lo, hi := g.VertexLabelRange(); !labelsWithin(lo, hi, top) {
			for _, l := range g.Labels {
				if l < 0 || l >= top {
					return fmt.Errorf("graphlet kernel: vertex label %d outside [0, %d)", l, top)
				}
			}
		}
		if lo, hi := g.EdgeLabelRange(); !labelsWithin(lo, hi, top) {
			for _, l := range g.EdgeLabels {
				if l < 0 || l >= top {
					return fmt.Errorf("graphlet kernel: edge label %d outside [0, %d)", l, top)
				}
			}
		}
	}
	return nil
}

// FeatureVectors returns the pattern count vectors of gs, with ids from one
// interner, and the number of automorphisms of each pattern id.
func (k *Graphlet) FeatureVectors(ctx context.Context, gs []*graph.Graph) ([]Vec, []int, error) {
	if threads := threadsOr(k.Threads); threads > 1 && len(gs) > 1 {
		return glParallelVectors(ctx, gs, threads)
	}
	return glSequential(ctx, gs, &glWorker{})
}

// glSequential maps gs on one goroutine with c's counter, which must be
// empty: the ids in the order met, each vector sorted by id, in c's slab
// where c keeps its vectors.
func glSequential(ctx context.Context, gs []*graph.Graph, c *glWorker) ([]Vec, []int, error) {
	if err := checkGLLabels(gs); err != nil {
		return nil, nil, err
	}
	vecs := make([]Vec, len(gs))
	for i, g := range gs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		c.count(g)
		if c.keep {
			vecs[i] = c.slab.flush(&c.acc, true)
		} else {
			vecs[i].IDs, vecs[i].Vals = c.acc.flush(nil, nil)
		}
	}
	return vecs, c.aut, nil
}

// glWorker counts one worker's graphs of glParallelVectors with ids of
// its own, kept from one graph to the next, so that it interns each
// pattern in a small table that stays in its cache.
type glWorker struct {
	glCounter
	first []uint64 // where the worker first met each pattern, as firstMet notes it
	// slab holds the worker's vectors where keep is set: a Workspace's
	// worker, whose vectors the Gram matrix drops (see glBufs).
	slab vecSlab
	keep bool
	// The workers sit side by side in a slice and write their counters
	// at every pattern.
	_ [64]byte
}

// reuse empties c for a new map, keeping its buffers, and its vectors in
// its slab where keep is set.
func (c *glWorker) reuse(keep bool) {
	c.ids.reset()
	c.aut, c.first = c.aut[:0], c.first[:0]
	c.slab.reset()
	c.keep = keep
}

func (c *glWorker) bytes() int64 {
	return c.ids.bytes() + int64(cap(c.aut)+cap(c.first))*8 + c.acc.bytes() + c.slab.bytes()
}

// vector counts the patterns of graph i, g, and returns them with the
// worker's ids, in the order met.
func (c *glWorker) vector(i int, g *graph.Graph) Vec {
	known := c.ids.len()
	c.count(g)
	// A pattern new to the worker is new to g too: its rank is its place
	// in the accumulator's list of g's patterns, in the order met.
	for r, id := range c.acc.touched {
		if int(id) >= known {
			c.first = append(c.first, uint64(i)<<32|uint64(r))
		}
	}
	if c.keep {
		return c.slab.flush(&c.acc, false)
	}
	var v Vec
	v.IDs, v.Vals = c.acc.flushUnsorted(nil, nil)
	return v
}

// glParallelVectors is FeatureVectors on up to threads goroutines, with
// the ids of the sequential map (see mapFirstMet), so that the vectors are
// the same for any number of threads.
func glParallelVectors(ctx context.Context, gs []*graph.Graph, threads int) ([]Vec, []int, error) {
	vecs, aut, _, err := glParallelMap(ctx, gs, make([]glWorker, max(1, min(threads, len(gs)))), false)
	return vecs, aut, err
}

// glParallelMap maps gs on up to threads goroutines, as glParallelVectors
// does, and returns the vectors with the automorphisms of each pattern id.
// Where anyOrder is set and the dot products of the counts are exact in
// any order (see countsExact), the ids are not the sequential map's and
// the vectors are unsorted, which it reports by sorted = false (see
// renumberAnyOrder): the Gram matrix is then the same to the bit, and
// costs less to number. It maps on as many goroutines as it is given
// workers, which must be empty.
func glParallelMap(ctx context.Context, gs []*graph.Graph, workers []glWorker, anyOrder bool) (vecs []Vec, aut []int, sorted bool, err error) {
	threads := len(workers)
	vecs, mapped, err := mapWorkers(ctx, len(gs), threads, func(w, i int) (Vec, error) {
		// Each worker checks the labels of its graphs, while they are
		// in its cache: the check of all graphs up front took 8% of the
		// map of U251, on one thread.
		if err := checkGLLabels(gs[i : i+1]); err != nil {
			return Vec{}, err
		}
		return workers[w].vector(i, gs[i]), nil
	})
	if err != nil {
		// The first graph with a bad label, as the sequential map reports.
		if lerr := checkGLLabels(gs); lerr != nil {
			return nil, nil, false, lerr
		}
		return nil, nil, false, err
	}
	var exact func([]Vec) bool
	if anyOrder {
		exact = func(vecs []Vec) bool { return countsExact(vecs, 6) }
	}
	// global: by worker, its ids' numbers; nil where they are their own.
	global, dim, sorted, err := numberMapped(ctx, vecs, mapped, func(w int) ([]key128, []uint64) {
		return workers[w].ids.keys, workers[w].first
	}, exact)
	if err != nil {
		return nil, nil, false, err
	}
	aut = make([]int, dim)
	for w := range workers {
		for id, a := range workers[w].aut {
			if global[w] != nil {
				id = int(global[w][id])
			}
			aut[id] = a
		}
	}
	return vecs, aut, sorted, nil
}

// Gram implements Kernel.
func (k *Graphlet) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if m != Explicit {
		return nil, nil, fmt.Errorf("graphlet kernel: only the explicit method exists (its implicit counterpart is the subgraph matching kernel, csm)")
	}
	K, rep, err := graphletGram(ctx, gs, false, threadsOr(k.Threads))
	if err != nil {
		return nil, rep, fmt.Errorf("graphlet kernel: %w", err)
	}
	return K, rep, nil
}

// graphletGram computes the Gram matrix of the graphlet counts, each
// pattern weighted by its automorphisms in the dot product when byAut is
// set. The weights go into the dot product rather than √|Aut| into the
// vectors, which keeps the arithmetic in integers and the weighted matrix
// equal to the implicit subgraph matching kernel's. The maps and the dot
// products run on threads goroutines.
func graphletGram(ctx context.Context, gs []*graph.Graph, byAut bool, threads int) (*mat.SymDense, *Report, error) {
	rep := &Report{Method: Explicit}
	t := time.Now()
	ahead := newGramAhead(ctx, len(gs), threads)
	var (
		vecs   []Vec
		aut    []int
		sorted = true
		err    error
	)
	bufs := takeGraphlet(ctx)
	if threads > 1 && len(gs) > 1 {
		// Numbered in any order where that leaves the matrix the same
		// (see glParallelMap).
		vecs, aut, sorted, err = glParallelMap(ctx, gs, bufs.take(min(threads, len(gs))), true)
	} else {
		vecs, aut, err = glSequential(ctx, gs, &bufs.take(1)[0])
	}
	if err != nil {
		return nil, rep, err
	}
	var w []float64
	if byAut {
		w = make([]float64, len(aut))
		for id, a := range aut {
			w[id] = float64(a)
		}
	}
	rep.TPhi = time.Since(t)
	noteVecs(rep, vecs)
	rep.Features = int64(len(aut))
	t = time.Now()
	K, err := gramFromNumberedInto(ctx, ahead.matrix(), vecs, w, len(aut), sorted, threads, rep)
	rep.TDot = time.Since(t)
	if err != nil {
		return nil, rep, err
	}
	bufs.giveBack()
	return K, rep, nil
}

// SubgraphMatching is the connected subgraph matching kernel of Kriege and
// Mutzel (2012) for subgraphs of three vertices, with Dirac vertex and edge
// kernels and no automorphism weighting, as in Section 5.4.1 of the paper:
// it counts the isomorphisms between connected induced three-vertex
// subgraphs of G and H.
//
// Implicitly, it works on the weighted association graph of G and H, whose
// vertices are the label-compatible vertex pairs and whose edges join
// (u,v) and (u',v') with u ≠ u', v ≠ v' when either uu' and vv' are edges
// with equal labels (a c-edge) or neither is an edge (a d-edge), and counts
// the cliques of three vertices whose c-edges connect them. Each such clique
// is one isomorphism between connected induced subgraphs of G and H. The
// cliques are enumerated from their c-edges: every connected clique has a
// vertex with two c-neighbours in it, so it is found from the pairs of
// c-neighbours of each association-graph vertex; a clique of three c-edges
// is found from each of its vertices and counted once. The c-edges are the
// edges of the walk kernel's product graph. In the Report, TWDPG is the
// construction of the association graphs, TWalks the clique enumeration,
// and Comparisons the pairs of c-neighbours examined.
//
// Explicitly, since the vertex and edge kernels are Dirac kernels, the
// isomorphisms between subgraphs isomorphic to a pattern P number
// |Aut(P)| per pair of occurrences (Section 4.4 of the paper), so the
// kernel is Σ_P |Aut(P)|·c_G(P)·c_H(P): the dot product of the graphlet
// kernel's count vectors with each pattern weighted by its automorphisms.
// Counts, weights and their products are integers, so both methods give
// the same matrix exactly (below 2^53).
type SubgraphMatching struct {
	// Threads is the number of goroutines of the explicit maps and dot
	// products and of the implicit pairs: 0 or 1 is one, a negative
	// number every core. The matrix is the same for any number.
	Threads int
}

// Name implements Kernel.
func (k *SubgraphMatching) Name() string { return "csm" }

// Methods implements Kernel.
func (k *SubgraphMatching) Methods() []Method { return []Method{Explicit, Implicit} }

// Gram implements Kernel.
func (k *SubgraphMatching) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	switch m {
	case Explicit:
		return k.explicit(ctx, gs)
	case Implicit:
		return k.implicit(ctx, gs, threadsOr(k.Threads))
	}
	return nil, nil, fmt.Errorf("csm kernel: unsupported method %q", m)
}

// explicit computes the Gram matrix from the graphlet counts, each pattern
// weighted by its automorphisms.
func (k *SubgraphMatching) explicit(ctx context.Context, gs []*graph.Graph) (*mat.SymDense, *Report, error) {
	K, rep, err := graphletGram(ctx, gs, true, threadsOr(k.Threads))
	if err != nil {
		return nil, rep, fmt.Errorf("csm kernel: %w", err)
	}
	return K, rep, nil
}

// implicit computes the Gram matrix pair by pair on association graphs, the
// rows of pairs on up to threads goroutines, each with workspaces and a
// Report of its own; the Report's phase times are then summed over them.
func (k *SubgraphMatching) implicit(ctx context.Context, gs []*graph.Graph, threads int) (*mat.SymDense, *Report, error) {
	rep := &Report{Method: Implicit}
	n := len(gs)
	if n == 0 {
		return &mat.SymDense{}, rep, nil
	}
	pw := newPairWorkspace(&Walk{}, gs, false)
	if !pw.dirac {
		return nil, rep, fmt.Errorf("csm kernel: labels too large for the packed product-graph keys")
	}
	// Dense edge-label matrices answer "is uu' an edge, with which label"
	// in O(1) for the clique test.
	elab := make([][]int32, n)
	for i, g := range gs {
		elab[i] = edgeLabelMatrix(g)
	}
	threads = max(1, min(threads, n))
	pws := pw.clones(threads, n)
	cws := make([]cliqueWorkspace, threads)
	K, err := gramRows(ctx, n, threads, rep, func(w, i int, out []float64, r *Report) error {
		pw, cw := pws[w], &cws[w]
		for j := i; j < n; j++ {
			// One pair of dense graphs with few labels can take seconds.
			if err := ctx.Err(); err != nil {
				return err
			}
			t0 := time.Now()
			pw.productDirac(gs[i], gs[j])
			cw.csr(pw)
			t1 := time.Now()
			v := cw.countCliques(pw, elab[i], gs[i].N(), elab[j], gs[j].N(), r)
			pw.clearIndex(gs[j])
			r.TWDPG += t1.Sub(t0)
			r.TWalks += time.Since(t1)
			r.ProductVertices += int64(len(pw.pu))
			r.ProductEdges += pw.edges()
			r.Pairs++
			out[j-i] = v
		}
		return nil
	})
	return K, rep, err
}

// edgeLabelMatrix returns the n×n matrix of edge labels of g, −1 where there
// is no edge.
func edgeLabelMatrix(g *graph.Graph) []int32 {
	n := g.N()
	m := make([]int32, n*n)
	for i := range m {
		m[i] = -1
	}
	for u := 0; u < n; u++ {
		for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
			m[u*n+int(g.Adj[a])] = g.EdgeLabels[a]
		}
	}
	return m
}

// cliqueWorkspace holds the c-edges of one association graph in CSR form.
type cliqueWorkspace struct {
	off, adj []int32
}

// csr turns the product graph's edge list into adjacency lists.
func (cw *cliqueWorkspace) csr(pw *pairWorkspace) {
	nv := len(pw.pu)
	off := slices.Grow(cw.off[:0], nv+1)[:nv+1]
	clear(off)
	for e, p := range pw.ep {
		off[p+1]++
		off[pw.eq[e]+1]++
	}
	for p := 0; p < nv; p++ {
		off[p+1] += off[p]
	}
	m := int(off[nv])
	adj := slices.Grow(cw.adj[:0], m)[:m]
	// Fill using off as cursors, then shift back.
	for e, p := range pw.ep {
		q := pw.eq[e]
		adj[off[p]] = q
		off[p]++
		adj[off[q]] = p
		off[q]++
	}
	for p := nv; p > 0; p-- {
		off[p] = off[p-1]
	}
	off[0] = 0
	cw.off, cw.adj = off, adj
}

// countCliques counts the connected three-cliques of the association graph
// whose c-edges are in cw.
func (cw *cliqueWorkspace) countCliques(pw *pairWorkspace, eg []int32, ng int, eh []int32, nh int, rep *Report) float64 {
	var dEdges, cEdges, pairs int64
	pu, pv := pw.pu, pw.pv
	for p := range pu {
		nb := cw.adj[cw.off[p]:cw.off[p+1]]
		pairs += int64(len(nb)) * int64(len(nb)-1) / 2
		for a, q := range nb {
			uq, vq := int(pu[q]), int(pv[q])
			rowG, rowH := eg[uq*ng:(uq+1)*ng], eh[vq*nh:(vq+1)*nh]
			for _, r := range nb[a+1:] {
				ur, vr := pu[r], pv[r]
				if int(ur) == uq || int(vr) == vq {
					continue // not a bijection
				}
				lg, lh := rowG[ur], rowH[vr]
				switch {
				case lg < 0 && lh < 0:
					dEdges++
				case lg >= 0 && lg == lh:
					cEdges++
				}
			}
		}
	}
	rep.Comparisons += pairs
	// A clique of three c-edges was found from each of its three vertices.
	return float64(dEdges + cEdges/3)
}
