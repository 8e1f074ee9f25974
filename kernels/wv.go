package kernels

import (
	"context"
	"fmt"
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
	// features appends the explicit feature map φ^W(u) of vertex u of
	// graph g to dst.
	features(dst []Feature, g, u int) []Feature
	// nnz returns the number of non-zeros of φ^W(u), for memory estimates.
	nnz(g, u int) int
}

// gramWV computes K(G,H) = Σ_v Σ_v' k_W(v,v')·k_V(v,v') for the weights w
// and the attribute kernel a on graphs whose attributes are already scaled.
// Implicit is exact; explicit uses φ^WV(G) = Σ_v φ^W(v) ⊗ φ^V(v)
// (Proposition 4.2), approximate when φ^V is (random binning).
func gramWV(ctx context.Context, name string, gs []*graph.Graph, m Method, w vertexWeights, a *AttrKernel, rep *Report) (*mat.SymDense, error) {
	n := len(gs)
	if n == 0 {
		return &mat.SymDense{}, nil
	}
	switch m {
	case Implicit:
		vk := a.exact()
		t := time.Now()
		K := mat.NewSymDense(n, nil)
		raw := K.RawSymmetric()
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for j := i; j < n; j++ {
				g, h := gs[i], gs[j]
				var s float64
				for u := 0; u < g.N(); u++ {
					for v := 0; v < h.N(); v++ {
						if kw := w.weight(i, u, j, v); kw != 0 {
							s += kw * vk.Vertex(g, u, h, v)
						}
					}
				}
				rep.Comparisons += int64(g.N()) * int64(h.N())
				rep.Pairs++
				raw.Data[i*raw.Stride+j] = s
			}
		}
		rep.TWalks += time.Since(t)
		return K, nil
	case Explicit:
		dim, err := attrDim(gs)
		if err != nil {
			return nil, fmt.Errorf("%s kernel: %w", name, err)
		}
		vm, err := a.featureMap(dim)
		if err != nil {
			return nil, fmt.Errorf("%s kernel: %w", name, err)
		}
		t := time.Now()
		// A feature is the pair (weight feature, vertex feature); both
		// are interned to 32-bit ids so that the pair packs into one
		// uint64 key.
		var wIDs, vIDs, ids interner[key64]
		var acc accumulator
		var fw, fv []Feature
		vecs := make([]Vec, n)
		for i, g := range gs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for u := 0; u < g.N(); u++ {
				fw = w.features(fw[:0], i, u)
				fv = vm.VertexFeatures(fv[:0], g, u)
				for j := range fv {
					id, _ := vIDs.intern(key64(fv[j].ID))
					fv[j].ID = uint64(id)
				}
				for _, x := range fw {
					wid, _ := wIDs.intern(key64(x.ID))
					for _, y := range fv {
						id, _ := ids.intern(key64(uint64(wid)<<32 | y.ID))
						acc.add(id, x.Val*y.Val)
					}
				}
			}
			vecs[i].IDs, vecs[i].Vals = acc.flush(nil, nil)
		}
		rep.TPhi += time.Since(t)
		noteVecs(rep, vecs)
		rep.Features = int64(ids.len())
		t = time.Now()
		K, err := gramFromVecs(ctx, vecs, nil, 1)
		rep.TDot += time.Since(t)
		return K, err
	}
	return nil, fmt.Errorf("%s kernel: unsupported method %q", name, m)
}

// wvBytes estimates the memory of the explicit map of a weighted vertex
// kernel: every non-zero of every φ^W(v) ⊗ φ^V(v) may become one entry of a
// graph's vector (an id and a value, 12 bytes) and of the interner (about
// 40 bytes a feature, at worst one per entry).
func wvBytes(gs []*graph.Graph, w vertexWeights, p int) int64 {
	var nnz int64
	for i, g := range gs {
		for u := 0; u < g.N(); u++ {
			nnz += int64(w.nnz(i, u)) * int64(max(p, 1))
		}
	}
	return 52 * nnz
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
}

// Name implements Kernel.
func (k *GraphInvariant) Name() string { return "gi" }

// Methods implements Kernel.
func (k *GraphInvariant) Methods() []Method { return []Method{Explicit, Implicit} }

type giWeights struct{ colours [][][]int32 } // [iteration][graph][vertex]

func (w *giWeights) weight(g, u, h, v int) float64 {
	s := 0
	for _, c := range w.colours {
		if c[g][u] == c[h][v] {
			s++
		}
	}
	return float64(s)
}

func (w *giWeights) features(dst []Feature, g, u int) []Feature {
	for i, c := range w.colours {
		dst = append(dst, Feature{uint64(i)<<32 | uint64(uint32(c[g][u])), 1})
	}
	return dst
}

func (w *giWeights) nnz(int, int) int { return len(w.colours) }

// Gram implements Kernel.
func (k *GraphInvariant) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if k.H < 0 {
		return nil, nil, fmt.Errorf("gi kernel: negative h %d", k.H)
	}
	if err := k.Attr.validate(); err != nil {
		return nil, nil, fmt.Errorf("gi kernel: %w", err)
	}
	rep := &Report{Method: m}
	t := time.Now()
	gs = graph.ScaleAttributes(gs)
	w := &giWeights{graph.Refine(gs, k.H, graph.Uniform)}
	rep.TPrep = time.Since(t)
	K, err := gramWV(ctx, "gi", gs, m, w, &k.Attr, rep)
	return K, rep, err
}

// EstimateBytes implements MemoryEstimator.
func (k *GraphInvariant) EstimateBytes(gs []*graph.Graph, m Method) int64 {
	if m != Explicit {
		return 0
	}
	var nv int64
	for _, g := range gs {
		nv += int64(g.N())
	}
	return 52 * nv * int64(k.H+1) * int64(max(k.Attr.Iterations, 1))
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
}

// Name implements Kernel.
func (k *GraphHopper) Name() string { return "gh" }

// Methods implements Kernel.
func (k *GraphHopper) Methods() []Method { return []Method{Explicit, Implicit} }

// ghWeights holds M(v) for every vertex: graph g's matrices are m[g], one
// d[g]×d[g] block per vertex, with d[g] its own diameter plus one, so that
// small graphs store small blocks. Entries beyond a graph's block are 0.
type ghWeights struct {
	m     [][]float64
	d     []int
	delta int // over the data set
}

func (w *ghWeights) block(g, u int) []float64 {
	d := w.d[g]
	return w.m[g][u*d*d : (u+1)*d*d]
}

func (w *ghWeights) weight(g, u, h, v int) float64 {
	a, b := w.block(g, u), w.block(h, v)
	dg, dh := w.d[g], w.d[h]
	d := min(dg, dh)
	var s float64
	for i := 0; i < d; i++ {
		ra, rb := a[i*dg+i:i*dg+d], b[i*dh+i:i*dh+d]
		for j, x := range ra {
			s += x * rb[j]
		}
	}
	return s
}

func (w *ghWeights) features(dst []Feature, g, u int) []Feature {
	a, d := w.block(g, u), w.d[g]
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			if x := a[i*d+j]; x != 0 {
				dst = append(dst, Feature{uint64(i*w.delta + j), x})
			}
		}
	}
	return dst
}

func (w *ghWeights) nnz(g, _ int) int { return w.d[g] * (w.d[g] + 1) / 2 }

// HopperMatrices returns M(v) of every vertex of g as one d×d block per
// vertex, row-major, where d is g's diameter plus one (1 for a graph
// without edges, 0 for the empty graph).
func HopperMatrices(g *graph.Graph) ([]float64, int) {
	n := g.N()
	dist := graph.Distances(g)
	d := 0
	for _, x := range dist {
		d = max(d, int(x)+1)
	}
	M := make([]float64, n*d*d)
	sigma := make([]float64, n)
	beta := make([]float64, n*d) // β(v, k) at v*d+k
	order := make([]int32, 0, n)
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
		// Back-propagation in reverse BFS order: β(v,0) = 1,
		// β(v,k+1) = Σ_{w: v pred of w} β(w,k).
		for _, v := range order {
			b := beta[int(v)*d : int(v+1)*d]
			clear(b)
			b[0] = 1
		}
		for x := len(order) - 1; x >= 0; x-- {
			w := order[x]
			bw := beta[int(w)*d : int(w+1)*d]
			for _, v := range g.Neighbors(int(w)) {
				if ds[v] == ds[w]-1 {
					bv := beta[int(v)*d : int(v+1)*d]
					for k := 0; k+1 < d; k++ {
						bv[k+1] += bw[k]
					}
				}
			}
		}
		for _, v := range order {
			i := int(ds[v])
			mv := M[int(v)*d*d:]
			bv := beta[int(v)*d : int(v+1)*d]
			for k := 0; i+k < d; k++ {
				mv[i*d+i+k] += sigma[v] * bv[k]
			}
		}
	}
	return M, d
}

// Gram implements Kernel.
func (k *GraphHopper) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	if err := k.Attr.validate(); err != nil {
		return nil, nil, fmt.Errorf("gh kernel: %w", err)
	}
	rep := &Report{Method: m}
	t := time.Now()
	gs = graph.ScaleAttributes(gs)
	w := &ghWeights{m: make([][]float64, len(gs)), d: make([]int, len(gs))}
	for i, g := range gs {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		w.m[i], w.d[i] = HopperMatrices(g)
		w.delta = max(w.delta, w.d[i])
	}
	// The matrices are part of either method's work, unlike the scaling.
	if m == Explicit {
		rep.TPhi = time.Since(t)
	} else {
		rep.TWDPG = time.Since(t)
	}
	K, err := gramWV(ctx, "gh", gs, m, w, &k.Attr, rep)
	return K, rep, err
}

// EstimateBytes implements MemoryEstimator.
func (k *GraphHopper) EstimateBytes(gs []*graph.Graph, m Method) int64 {
	if m != Explicit {
		return 0
	}
	var nnz int64
	for _, g := range gs {
		// A vertex's M has at most δ_g(δ_g+1)/2 non-zeros, with δ_g the
		// graph's diameter plus one; the breadth-first searches cost a
		// fraction of the map they bound.
		d := int64(0)
		for _, x := range graph.Distances(g) {
			d = max(d, int64(x)+1)
		}
		nnz += int64(g.N()) * d * (d + 1) / 2
	}
	return 52 * nnz * int64(max(k.Attr.Iterations, 1))
}

// MemoryEstimator is implemented by kernels that can bound the memory a
// method will allocate before computing it, so that a caller can refuse a
// computation that would not fit instead of running out of memory.
type MemoryEstimator interface {
	// EstimateBytes returns an upper estimate of the bytes that the Gram
	// computation of gs by m allocates beyond its result, or 0 when it is
	// small.
	EstimateBytes(gs []*graph.Graph, m Method) int64
}
