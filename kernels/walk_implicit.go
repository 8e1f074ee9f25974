package kernels

import (
	"slices"
	"time"

	"github.com/gkbench/gkbench/graph"
)

// labelIndex prepares a graph for the Dirac fast path of the implicit
// method. It lists the vertices grouped by label, so that the compatible
// vertex pairs of two graphs come from a merge of their label lists instead
// of a test of every pair. It lists the edges sorted by their label triple
// (label(u), label(uv), label(v)): under Dirac kernels a product edge joins
// (u,v) and (u',v') exactly when the edges uu' and vv' have equal triples,
// so the product edges come from a merge of two sorted edge lists, without a
// single failed comparison.
type labelIndex struct {
	labels []int32 // distinct labels, ascending
	start  []int32 // verts[start[i]:start[i+1]] have labels[i]
	verts  []int32
	// und lists each undirected edge once, as the arc from its smaller to
	// its larger endpoint; arcs lists every edge in both directions.
	und, arcs []arc
}

// arc is a directed edge u→v with its label triple packed into key.
type arc struct {
	key  uint64
	u, v int32
}

// labelBits bounds the labels the packed triple key can hold; larger labels
// send the computation to the generic path.
const labelBits = 21

func tripleKey(lu, le, lv int32) uint64 {
	return uint64(lu)<<(2*labelBits) | uint64(le)<<labelBits | uint64(lv)
}

// fitsTripleKey reports whether every label of g fits the packed key.
func fitsTripleKey(g *graph.Graph) bool {
	vlo, vhi := g.VertexLabelRange()
	elo, ehi := g.EdgeLabelRange()
	return labelsWithin(vlo, vhi, 1<<labelBits) && labelsWithin(elo, ehi, 1<<labelBits)
}

func newLabelIndex(g *graph.Graph) labelIndex {
	n := g.N()
	verts := make([]int32, n)
	for v := range verts {
		verts[v] = int32(v)
	}
	slices.SortStableFunc(verts, func(a, b int32) int { return int(g.Labels[a] - g.Labels[b]) })
	var ix labelIndex
	ix.verts = verts
	for i, v := range verts {
		if i == 0 || g.Labels[v] != g.Labels[verts[i-1]] {
			ix.labels = append(ix.labels, g.Labels[v])
			ix.start = append(ix.start, int32(i))
		}
	}
	ix.start = append(ix.start, int32(n))
	ix.arcs = make([]arc, 0, len(g.Adj))
	for u := 0; u < n; u++ {
		for a := g.Offsets[u]; a < g.Offsets[u+1]; a++ {
			v := g.Adj[a]
			e := arc{tripleKey(g.Labels[u], g.EdgeLabels[a], g.Labels[v]), int32(u), v}
			ix.arcs = append(ix.arcs, e)
			if int32(u) < v {
				ix.und = append(ix.und, e)
			}
		}
	}
	byKey := func(a, b arc) int {
		switch {
		case a.key < b.key:
			return -1
		case a.key > b.key:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(ix.arcs, byKey)
	slices.SortStableFunc(ix.und, byKey)
	return ix
}

// pairWorkspace holds the buffers of the implicit method, reused across all
// pairs of one Gram computation so that the inner loops allocate nothing.
type pairWorkspace struct {
	k      *Walk
	dirac  bool
	vk     VertexKernel
	ek     EdgeKernel
	index  map[*graph.Graph]labelIndex
	idx    []int32 // idx[u*|V(H)|+v] is the product vertex (u,v), or −1
	pu, pv []int32
	// The Dirac path keeps each undirected product edge once, as ep[e]–eq[e].
	ep, eq []int32
	// The generic path keeps the product graph in CSR form with weights.
	off    []int32
	adj    []int32
	vw, ew []float64
	r, s   []float64
	lazy   bool
}

// newPairWorkspace returns the workspace of a Gram computation over gs; a
// lazy one indexes graphs only when a pair needs them (for probes), and
// must not be cloned, since its index grows.
func newPairWorkspace(k *Walk, gs []*graph.Graph, lazy bool) *pairWorkspace {
	pw := &pairWorkspace{k: k, vk: k.Vertex, ek: k.Edge}
	pw.dirac = isDirac(k.Vertex) && isDirac(k.Edge)
	maxN := 0
	for _, g := range gs {
		maxN = max(maxN, g.N())
		if !fitsTripleKey(g) {
			pw.dirac = false
		}
	}
	pw.idx = make([]int32, maxN*maxN)
	for i := range pw.idx {
		pw.idx[i] = -1
	}
	if pw.dirac {
		pw.index = make(map[*graph.Graph]labelIndex, len(gs))
		if !lazy {
			for _, g := range gs {
				if _, ok := pw.index[g]; !ok {
					pw.index[g] = newLabelIndex(g)
				}
			}
		}
	}
	pw.lazy = lazy
	return pw
}

// labelIndexOf returns g's label index, building it on first use in a lazy
// workspace, which probes a few pairs and should not index every graph.
func (pw *pairWorkspace) labelIndexOf(g *graph.Graph) labelIndex {
	ix, ok := pw.index[g]
	if !ok && pw.lazy {
		ix = newLabelIndex(g)
		pw.index[g] = ix
	}
	return ix
}

// clone returns a workspace for another goroutine: it shares the read-only
// label indexes and has buffers of its own.
func (pw *pairWorkspace) clone() *pairWorkspace {
	c := &pairWorkspace{k: pw.k, dirac: pw.dirac, vk: pw.vk, ek: pw.ek, index: pw.index}
	c.idx = make([]int32, len(pw.idx))
	for i := range c.idx {
		c.idx[i] = -1
	}
	return c
}

// clones returns pw and a clone of it for each further worker of
// gramRows on threads goroutines over n rows, so that every worker has a
// workspace of its own.
func (pw *pairWorkspace) clones(threads, n int) []*pairWorkspace {
	pws := []*pairWorkspace{pw}
	for w := 1; w < min(threads, n); w++ {
		pws = append(pws, pw.clone())
	}
	return pws
}

// pair returns the kernel value of g and h and adds the product graph's size
// and the phase times to rep.
func (pw *pairWorkspace) pair(g, h *graph.Graph, rep *Report) float64 {
	v, _ := pw.evaluate(g, h, rep, (*pairWorkspace).walks)
	return v
}

// walks counts the weighted walks of the product graph in pw.
func (pw *pairWorkspace) walks() (float64, error) {
	if pw.dirac {
		return pw.walksDirac(), nil
	}
	return pw.walksGeneric(), nil
}

// evaluate builds the weighted direct product graph of g and h, evaluates
// it by eval, clears it for the next pair, and adds its size and the two
// phases' times to rep: the walk kernel counts its walks, the geometric
// random walk kernel sums its series.
func (pw *pairWorkspace) evaluate(g, h *graph.Graph, rep *Report, eval func(*pairWorkspace) (float64, error)) (float64, error) {
	t0 := time.Now()
	if pw.dirac {
		pw.productDirac(g, h)
	} else {
		pw.productGeneric(g, h)
	}
	t1 := time.Now()
	val, err := eval(pw)
	pw.clearIndex(h)
	t2 := time.Now()
	rep.TWDPG += t1.Sub(t0)
	rep.TWalks += t2.Sub(t1)
	rep.ProductVertices += int64(len(pw.pu))
	rep.ProductEdges += pw.edges()
	rep.Pairs++
	return val, err
}

// clearIndex resets the product-vertex table after a pair with second graph
// h, touching only the entries that pair set.
func (pw *pairWorkspace) clearIndex(h *graph.Graph) {
	nh := h.N()
	for p, u := range pw.pu {
		pw.idx[int(u)*nh+int(pw.pv[p])] = -1
	}
}

// edges returns the number of undirected edges of the current product graph.
func (pw *pairWorkspace) edges() int64 {
	if pw.dirac {
		return int64(len(pw.ep))
	}
	return int64(len(pw.adj) / 2)
}

// productDirac builds G × H under Dirac vertex and edge kernels
// (Algorithm 1): vertices are the label-compatible pairs, and edges join
// (u,v) and (u',v') for edges uu' of G and vv' of H with equal label
// triples. Taking each edge of G once, from its smaller endpoint, and each
// edge of H in both directions yields every undirected product edge exactly
// once.
func (pw *pairWorkspace) productDirac(g, h *graph.Graph) {
	gi, hi := pw.labelIndexOf(g), pw.labelIndexOf(h)
	nh := h.N()
	pw.pu, pw.pv = pw.pu[:0], pw.pv[:0]
	// Vertices: merge the sorted label lists.
	for a, b := range equalAt(gi.labels, hi.labels) {
		for _, u := range gi.verts[gi.start[a]:gi.start[a+1]] {
			for _, v := range hi.verts[hi.start[b]:hi.start[b+1]] {
				pw.idx[int(u)*nh+int(v)] = int32(len(pw.pu))
				pw.pu = append(pw.pu, u)
				pw.pv = append(pw.pv, v)
			}
		}
	}
	// Edges: merge G's undirected edges with H's arcs by label triple.
	ep, eq := pw.ep[:0], pw.eq[:0]
	idx := pw.idx
	gu, ha := gi.und, hi.arcs
	x, y := 0, 0
	for x < len(gu) && y < len(ha) {
		kx, ky := gu[x].key, ha[y].key
		if kx < ky {
			x++
			continue
		}
		if kx > ky {
			y++
			continue
		}
		yb := y + 1
		for yb < len(ha) && ha[yb].key == kx {
			yb++
		}
		for ; x < len(gu) && gu[x].key == kx; x++ {
			ru, rv := int(gu[x].u)*nh, int(gu[x].v)*nh
			for _, e := range ha[y:yb] {
				ep = append(ep, idx[ru+int(e.u)])
				eq = append(eq, idx[rv+int(e.v)])
			}
		}
		y = yb
	}
	pw.ep, pw.eq = ep, eq
}

// walksDirac counts walks on the product graph (Algorithm 2 with unit
// weights): r_0 = 1, r_i(u) = Σ_{v ∈ N(u)} r_{i−1}(v), K = Σ_u r_l(u).
// Each undirected edge is stored once, so it contributes in both directions.
func (pw *pairWorkspace) walksDirac() float64 {
	nv := len(pw.pu)
	l := pw.k.Length
	r := grow(pw.r, nv)
	s := grow(pw.s, nv)
	for i := range r {
		r[i] = 1
	}
	total := 0.0
	if pw.k.Max {
		total = pw.k.lambda(0) * float64(nv)
	}
	for i := 1; i <= l; i++ {
		pw.matvecDirac(s, r)
		r, s = s, r
		if pw.k.Max {
			total += pw.k.lambda(i) * sum(r)
		}
	}
	pw.r, pw.s = r, s
	if pw.k.Max {
		return total
	}
	return sum(r)
}

// matvecDirac sets s = A× r for the unweighted product graph, whose
// undirected edges are stored once each.
func (pw *pairWorkspace) matvecDirac(s, r []float64) {
	clear(s)
	ep, eq := pw.ep, pw.eq[:len(pw.ep)]
	for e, p := range ep {
		q := eq[e]
		s[p] += r[q]
		s[q] += r[p]
	}
}

// matvecGeneric sets s(u) = w(u)·Σ_{uv} w(uv)·r(v), one step of the
// weighted recursion of Equation (walk-kernel:recursive:i).
func (pw *pairWorkspace) matvecGeneric(s, r []float64) {
	for p := range s {
		var x float64
		for e := pw.off[p]; e < pw.off[p+1]; e++ {
			x += pw.ew[e] * r[pw.adj[e]]
		}
		s[p] = x * pw.vw[p]
	}
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

// productGeneric builds the weighted direct product graph for arbitrary
// vertex and edge kernels: every vertex pair is evaluated by k_V, and every
// pair of edges between product vertices by k_E; zero weights are left out.
func (pw *pairWorkspace) productGeneric(g, h *graph.Graph) {
	vk, ek := pw.vk, pw.ek
	if vk == nil {
		vk = Dirac{}
	}
	if ek == nil {
		ek = Dirac{}
	}
	nh := h.N()
	pw.pu, pw.pv, pw.vw = pw.pu[:0], pw.pv[:0], pw.vw[:0]
	for u := 0; u < g.N(); u++ {
		for v := 0; v < nh; v++ {
			if w := vk.Vertex(g, u, h, v); w > 0 {
				pw.idx[u*nh+v] = int32(len(pw.pu))
				pw.pu = append(pw.pu, int32(u))
				pw.pv = append(pw.pv, int32(v))
				pw.vw = append(pw.vw, w)
			}
		}
	}
	pw.off = append(pw.off[:0], 0)
	pw.adj, pw.ew = pw.adj[:0], pw.ew[:0]
	for p, u := range pw.pu {
		v := pw.pv[p]
		for x := g.Offsets[u]; x < g.Offsets[u+1]; x++ {
			row := int(g.Adj[x]) * nh
			for y := h.Offsets[v]; y < h.Offsets[v+1]; y++ {
				q := pw.idx[row+int(h.Adj[y])]
				if q < 0 {
					continue
				}
				if w := ek.Edge(g, int(x), h, int(y)); w > 0 {
					pw.adj = append(pw.adj, q)
					pw.ew = append(pw.ew, w)
				}
			}
		}
		pw.off = append(pw.off, int32(len(pw.adj)))
	}
}

// walksGeneric is Algorithm 2: r_0(u) = w(u),
// r_i(u) = Σ_{uv} w(u)·w(uv)·r_{i−1}(v), K = Σ_u r_l(u).
func (pw *pairWorkspace) walksGeneric() float64 {
	nv := len(pw.pu)
	l := pw.k.Length
	r := grow(pw.r, nv)
	s := grow(pw.s, nv)
	copy(r, pw.vw)
	sum := 0.0
	for _, x := range r {
		sum += x
	}
	total := pw.k.lambda(0) * sum
	for i := 1; i <= l; i++ {
		pw.matvecGeneric(s[:nv], r)
		r, s = s, r
		sum = 0
		for _, x := range r[:nv] {
			sum += x
		}
		total += pw.k.lambda(i) * sum
	}
	pw.r, pw.s = r, s
	if pw.k.Max {
		return total
	}
	return sum
}

// grow returns buf resized to n, reallocating only when it is too short.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n, n+n/2)
	}
	return buf[:n]
}
