package kernels

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gkbench/gkbench/graph"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// ShortestPath is the shortest-path kernel of Borgwardt and Kriegel (2005),
// Equation (sp) of the paper:
//
//	k(G,H) = Σ_{u≠v ∈ V(G)} Σ_{w≠z ∈ V(H)} k_V(u,w)·δ(d_uv, d_wz)·k_V(v,z),
//
// over ordered pairs of distinct vertices joined by a path, with the Dirac
// kernel δ on shortest-path lengths. The all-pairs distances of each graph
// are computed once per graph, by breadth-first search, and serve both
// methods.
//
// Explicit: each graph's vector counts the triples (label(u), d_uv,
// label(v)) with Dirac vertex kernels, or sums φ^V(u) ⊗ e_d ⊗ φ^V(v) for a
// vertex kernel with a feature map, which has P² non-zeros per vertex pair
// when φ^V has P. Implicit: the equation evaluated pair of graphs by pair of
// graphs, comparing every path of one with every path of the other that
// could match. With Dirac vertex kernels the paths are grouped by their
// endpoint labels first, so that only paths with equal endpoint labels are
// compared; with other vertex kernels they are grouped by length.
//
// In the Report, the implicit method's TWDPG holds the distance computation
// and grouping, and TWalks the pairwise evaluation; Comparisons counts the
// path pairs compared.
type ShortestPath struct {
	// Vertex compares the endpoints; nil means Dirac on labels.
	Vertex VertexKernel
	// Attr, when set, replaces Vertex by a kernel on the endpoints'
	// attributes (Section 5.2), scaled to [0, 1] first: exact for the
	// implicit method, approximated by random binning for the explicit one.
	Attr *AttrKernel
	// Threads is the number of goroutines of the explicit maps and dot
	// products and of the implicit pairs: 0 or 1 is one, a negative
	// number every core. The matrix is the same for any number.
	Threads int
}

// Name implements Kernel.
func (k *ShortestPath) Name() string { return "sp" }

// Methods implements Kernel.
func (k *ShortestPath) Methods() []Method { return []Method{Explicit, Implicit} }

// spMaxDist bounds the distances the packed keys hold; it is far beyond the
// diameter of any benchmark graph.
const spMaxDist = 1<<16 - 1

// Gram implements Kernel.
func (k *ShortestPath) Gram(ctx context.Context, gs []*graph.Graph, m Method) (*mat.SymDense, *Report, error) {
	rep := &Report{Method: m}
	for _, g := range gs {
		if g.N() > spMaxDist {
			return nil, nil, fmt.Errorf("sp kernel: graph with %d vertices exceeds the supported %d", g.N(), spMaxDist)
		}
	}
	if k.Attr != nil {
		if err := k.Attr.validate(); err != nil {
			return nil, nil, fmt.Errorf("sp kernel: %w", err)
		}
		t := time.Now()
		var err error
		if gs, err = k.Attr.scale(ctx, gs, threadsOr(k.Threads)); err != nil {
			return nil, nil, err
		}
		rep.TPrep = time.Since(t)
	}
	switch m {
	case Explicit:
		t := time.Now()
		threads := threadsOr(k.Threads)
		ahead := newGramAhead(ctx, len(gs), threads)
		vecs, dim, sorted, err := k.gramVectors(ctx, gs, threads)
		if err != nil {
			return nil, rep, err
		}
		rep.TPhi = time.Since(t)
		noteVecs(rep, vecs)
		rep.Features = int64(dim)
		t = time.Now()
		K, err := gramFromNumberedInto(ctx, ahead.matrix(), vecs, nil, dim, sorted, threads, rep)
		rep.TDot = time.Since(t)
		return K, rep, err
	case Implicit:
		return k.implicit(ctx, gs, rep)
	}
	return nil, nil, fmt.Errorf("sp kernel: unsupported method %q", m)
}

// noteVecs records the non-zero counts of explicit feature vectors.
func noteVecs(rep *Report, vecs []Vec) {
	for _, v := range vecs {
		nz := int64(v.Len())
		rep.FeatureNNZ += nz
		rep.MaxFeatureNNZ = max(rep.MaxFeatureNNZ, nz)
	}
}

// FeatureVectors returns the explicit feature vectors of gs, with ids from
// one interner: those of sequentialVectors, whichever map computes them.
//
// spParallelVectors computes them, on one thread too: it sums a graph's
// triples by packed keys before it numbers them, one look-up a distinct
// key of a graph rather than one a triple in a map keyed by three words.
// Binned attributes give a pair of vertices up to P² triples, so on one
// thread that took ENZYMES with the hat kernel (P = 64) from 0.98 s to
// 0.58 s. With labels a graph's triples are few, and its table of keys
// is small and dense: there it is 1.2× faster than the direct map of
// sequentialVectors on one thread (MUTAG 3.5 → 2.9 ms, ENZYMES 35 → 28
// ms), which takes over where a feature id does not fit a packed key.
func (k *ShortestPath) FeatureVectors(ctx context.Context, gs []*graph.Graph) ([]Vec, error) {
	if len(gs) > 1 {
		threads := threadsOr(k.Threads)
		if vecs, ok, err := k.parallelVectors(ctx, gs, threads); ok || err != nil {
			return vecs, err
		}
	}
	return k.sequentialVectors(ctx, gs)
}

// gramVectors returns the explicit feature vectors of gs for the Gram
// matrix on threads goroutines and their number of features: those of
// FeatureVectors, sorted, or, on more than one thread where the keys are
// the labels and every dot product of the counts is exact in any order
// (see countsExact), with ids in no order the sequential map would give
// (see renumberAnyOrder), unsorted, which it reports by sorted = false: the
// matrix is the same to the bit. Numbered by first meeting instead, and
// renumbered and sorted, sp's map of MUTAG on two threads spent 50–60 µs
// of its 1.0 ms after the graphs were mapped, a serial numbering between
// two stretches and then the renumbering; in any order, its matrix took
// 1206, 1412 and 1328 µs where it took 1281, 1555 and 1391, and on 200
// ENZYMES graphs 3569, 3144 and 3128 against 3662, 3207 and 3193 (a test
// binary, both ways by turns, medians of 300 and 200, three runs in a slow
// stretch of the VM).
func (k *ShortestPath) gramVectors(ctx context.Context, gs []*graph.Graph, threads int) (vecs []Vec, dim int, sorted bool, err error) {
	if threads > 1 && len(gs) > 1 && k.labelKeys(gs) {
		vecs, dim, sorted, _, err = spParallelVectors(ctx, gs, nil, threads, true)
		return vecs, dim, sorted, err
	}
	vecs, err = k.FeatureVectors(ctx, gs)
	if err != nil {
		return nil, 0, false, err
	}
	// The ids are numbered from 0 by one interner.
	return vecs, idBound(vecs), true, nil
}

// labelKeys reports whether the triples' keys are made of the labels
// alone: Dirac vertex kernels on labels below 2^24, which fit a packed
// key.
func (k *ShortestPath) labelKeys(gs []*graph.Graph) bool {
	return k.Attr == nil && isDirac(k.Vertex) && labelsBelow(gs, 1<<24)
}

// parallelVectors is spParallelVectors on the labels or on the kernel's
// vertex map.
func (k *ShortestPath) parallelVectors(ctx context.Context, gs []*graph.Graph, threads int) ([]Vec, bool, error) {
	if k.labelKeys(gs) {
		vecs, _, _, ok, err := spParallelVectors(ctx, gs, nil, threads, false)
		return vecs, ok, err
	}
	vm, err := k.vertexMap(gs)
	if err != nil {
		return nil, false, err
	}
	vecs, _, _, ok, err := spParallelVectors(ctx, gs, vm, threads, false)
	return vecs, ok, err
}

// sequentialVectors maps the graphs one after the other, each triple
// looked up as it is met: the reference of the other maps, and the map of
// the labels on one thread (see FeatureVectors).
func (k *ShortestPath) sequentialVectors(ctx context.Context, gs []*graph.Graph) ([]Vec, error) {
	vecs := make([]Vec, len(gs))
	var (
		acc  accumulator
		dist []int32
	)
	if k.labelKeys(gs) {
		// Key: label(u)<<40 | label(v)<<16 | d.
		ids := make(map[uint64]uint32)
		for i, g := range gs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			noteGraph(ctx, i)
			n := g.N()
			dist = graph.DistancesInto(dist, g)
			d := dist
			for u := 0; u < n; u++ {
				lu := uint64(g.Labels[u]) << 40
				for v, duv := range d[u*n : (u+1)*n] {
					if duv <= 0 {
						continue // u = v or unreachable
					}
					key := lu | uint64(g.Labels[v])<<16 | uint64(duv)
					id, ok := ids[key]
					if !ok {
						id = uint32(len(ids))
						ids[key] = id
					}
					acc.add(id, 1)
				}
			}
			vecs[i].IDs, vecs[i].Vals = acc.flush(nil, nil)
		}
		return vecs, nil
	}
	vm, err := k.vertexMap(gs)
	if err != nil {
		return nil, err
	}
	ids := make(map[[3]uint64]uint32)
	var fu, fv []Feature
	for i, g := range gs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		noteGraph(ctx, i)
		n := g.N()
		dist = graph.DistancesInto(dist, g)
		d := dist
		feats := make([][]Feature, n)
		for u := range feats {
			feats[u] = vm.VertexFeatures(nil, g, u)
		}
		var check workCheck
		for u := 0; u < n; u++ {
			fu = feats[u]
			for v, duv := range d[u*n : (u+1)*n] {
				if duv <= 0 {
					continue
				}
				fv = feats[v]
				// Within a graph too, as spScratch.vector does.
				if err := check.add(ctx, len(fu)*len(fv)); err != nil {
					return nil, err
				}
				for _, a := range fu {
					for _, b := range fv {
						key := [3]uint64{a.ID, uint64(duv), b.ID}
						id, ok := ids[key]
						if !ok {
							id = uint32(len(ids))
							ids[key] = id
						}
						acc.add(id, a.Val*b.Val)
					}
				}
			}
		}
		vecs[i].IDs, vecs[i].Vals = acc.flush(nil, nil)
	}
	return vecs, nil
}

// vertexMap returns the explicit map of the vertex kernel, a fresh one
// (with its own interner) for attributes.
func (k *ShortestPath) vertexMap(gs []*graph.Graph) (VertexMap, error) {
	if k.Attr != nil {
		dim, err := attrDim(gs)
		if err != nil {
			return nil, fmt.Errorf("sp kernel: %w", err)
		}
		vm, err := k.Attr.featureMap(dim)
		if err != nil {
			return nil, fmt.Errorf("sp kernel: %w", err)
		}
		return vm, nil
	}
	vm, ok := vertexMapOf(k.Vertex)
	if !ok {
		return nil, fmt.Errorf("sp kernel: vertex kernel %T has no explicit feature map", k.Vertex)
	}
	return vm, nil
}

// spLocal is one graph's explicit vector before its ids are numbered: the
// distinct keys in the order in which the sequential map meets them, and
// the sum of each.
type spLocal struct {
	keys []uint64
	vals []float64
}

// spParallelVectors computes the vectors of FeatureVectors, under vertex
// map vm, on threads goroutines, with the ids and values of the sequential
// map. The features of vm come first, in graph order, since a map such as
// Binning numbers its features as it meets them; they are cheap. A nil vm
// stands for the labels, below 2^24, whose Dirac features each worker
// makes as it needs them. Then, in parallel, each graph's distances and
// triples are counted into a vector of its own, keyed by the packed key
// a<<40 | b<<16 | d of the label path; that is the expensive part. Each
// worker numbers the keys of its graphs itself, and numberMapped gives
// every triple the id the sequential map gives it, while its sum is made
// of the same additions in the same order. It returns the number of
// features too, and sorted = true; where anyOrder is set, the keys are
// the labels (vm is nil), whose sums are counts, and the counts are exact
// in any order (see countsExact), the ids are in any order instead (see
// renumberAnyOrder), unsorted, and sorted is false. ok is false, and vm
// has numbered the vertex features of gs, when a feature id does not fit
// in the 24 bits of a packed key.
func spParallelVectors(ctx context.Context, gs []*graph.Graph, vm VertexMap, threads int, anyOrder bool) (vecs []Vec, dim int, sorted, ok bool, err error) {
	var feats []spFeatures
	if vm != nil {
		// All graphs' features in one array, which grows by doubling,
		// rather than one per graph, which would each leave their
		// growth as garbage.
		var all spFeatures
		for _, g := range gs {
			all.add(vm, g)
		}
		for _, a := range all.f {
			if a.ID >= 1<<24 {
				return nil, 0, false, false, nil
			}
		}
		feats = make([]spFeatures, len(gs))
		v0 := 0
		for i, g := range gs {
			feats[i] = spFeatures{all.f, all.off[v0 : v0+g.N()+1]}
			v0 += g.N()
		}
	}
	type worker struct {
		sc  spScratch
		met firstMet[key64]
		out pairSlab[uint32]
		_   [64]byte // the workers' scratch, side by side
	}
	threads = max(1, min(threads, len(gs)))
	ws := make([]worker, threads)
	vecs, mapped, err := mapWorkers(ctx, len(gs), threads, func(w, i int) (Vec, error) {
		noteGraph(ctx, i)
		sc, met := &ws[w].sc, &ws[w].met
		f := &sc.labels
		if feats == nil {
			f.f, f.off = f.f[:0], f.off[:0]
			f.add(Dirac{}, gs[i])
		} else {
			f = &feats[i]
		}
		l, err := sc.vector(ctx, i, gs[i], f)
		if err != nil {
			return Vec{}, err
		}
		var v Vec
		v.IDs, v.Vals = ws[w].out.take(len(l.keys))
		copy(v.Vals, l.vals)
		for s, key := range l.keys {
			v.IDs[s] = met.intern(key64(key), i, s)
		}
		return v, nil
	})
	if err != nil {
		return nil, 0, false, true, err
	}
	var exact func([]Vec) bool
	if anyOrder && vm == nil {
		exact = func(vecs []Vec) bool { return countsExact(vecs, 1) }
	}
	_, dim, sorted, err = numberMapped(ctx, vecs, mapped, func(w int) ([]key64, []uint64) {
		return ws[w].met.ids.keys, ws[w].met.first
	}, exact)
	if err != nil {
		return nil, 0, false, true, err
	}
	return vecs, dim, sorted, true, nil
}

// spFeatures holds vertex features: those of vertex u of a graph are
// f[off[u]:off[u+1]].
type spFeatures struct {
	f   []Feature
	off []int32
}

// add appends the features of g's vertices under vm.
func (s *spFeatures) add(vm VertexMap, g *graph.Graph) {
	if len(s.off) == 0 {
		s.off = append(s.off, 0)
	}
	for u := range g.N() {
		s.f = vm.VertexFeatures(s.f, g, u)
		s.off = append(s.off, int32(len(s.f)))
	}
}

// spScratch is a worker's scratch of spParallelVectors: the features of
// a graph's labels, its vector while it grows, and the positions of its
// keys, in a map or a table (see vector).
type spScratch struct {
	labels spFeatures
	spLocal
	slot  map[uint64]int32
	local map[uint64]int32 // feature id → index among the graph's
	li    []int32          // index of each feature
	table []int32          // slot of each dense key, or −1
	used  []int32          // the entries of table in use
	dist  []int32          // the graph's distances
}

// spDenseSlots bounds the table of dense keys of spScratch.vector: 1 MiB.
const spDenseSlots = 1 << 18

// vector counts the triples of g, graph i, whose vertices have the
// features fs, into a vector of keys in first-met order, which stays valid
// until the next call.
//
// A key's position is looked up in a table indexed by the graph's own
// numbering of its features, (a·L + b)·D + d for L features and distances
// below D, when the table is small, as it is on labels, where it costs a
// fifth of the hash look-up that dominates the map; else in a map.
//
// Where vertices have several features, it checks ctx every spCheckWork
// triples: a graph of ENZYMES with the hat kernel binned 64 times has up
// to 64² triples a pair of vertices, and took 1.8 s, which a probe of the
// advice had to sit out whatever its limit (see adviseBySampling).
func (sc *spScratch) vector(ctx context.Context, i int, g *graph.Graph, fs *spFeatures) (l spLocal, err error) {
	n := g.N()
	sc.dist = probeDistances(ctx, i, g, sc.dist, true)
	d := sc.dist
	off := fs.off
	f := fs.f[off[0]:off[n]]
	if sc.local == nil {
		sc.local, sc.slot = make(map[uint64]int32), make(map[uint64]int32)
	}
	clear(sc.local)
	sc.li = slices.Grow(sc.li[:0], len(f))[:len(f)]
	for x, a := range f {
		i, ok := sc.local[a.ID]
		if !ok {
			i = int32(len(sc.local))
			sc.local[a.ID] = i
		}
		sc.li[x] = i
	}
	var nd int32
	for _, duv := range d {
		nd = max(nd, duv+1)
	}
	nf := int32(len(sc.local))
	dense := int64(nf)*int64(nf)*int64(nd) <= spDenseSlots
	if dense && len(sc.table) < int(nf*nf*nd) {
		sc.table = slices.Repeat([]int32{-1}, int(nf*nf*nd))
	}
	if !dense {
		clear(sc.slot)
	}
	table, slot, li := sc.table, sc.slot, sc.li
	l = spLocal{keys: sc.keys[:0], vals: sc.vals[:0]}
	used := sc.used[:0]
	if dense && len(f) == n && oneEach(off[:n+1]) {
		// One feature a vertex, as labels give: the loop below without
		// its loops over features, the same additions in the same
		// order. It took the map of MUTAG's labels, 31 ns a pair in
		// that loop, from 4.3 to 3.1 ms on one thread.
		for u := 0; u < n; u++ {
			a := f[u]
			ka, ta := a.ID<<40, li[u]*nf*nd
			for v, duv := range d[u*n : (u+1)*n] {
				if duv <= 0 {
					continue
				}
				t := ta + li[v]*nd + duv
				s := table[t]
				if s < 0 {
					s = int32(len(l.keys))
					table[t] = s
					used = append(used, t)
					l.keys = append(l.keys, ka|f[v].ID<<16|uint64(duv))
					l.vals = append(l.vals, 0)
				}
				l.vals[s] += a.Val * f[v].Val
			}
		}
	} else {
		var check workCheck
	rows:
		for u := 0; u < n; u++ {
			xu := off[u] - off[0]
			fu := f[xu : off[u+1]-off[0]]
			for v, duv := range d[u*n : (u+1)*n] {
				if duv <= 0 {
					continue
				}
				xv := off[v] - off[0]
				fv := f[xv : off[v+1]-off[0]]
				if err = check.add(ctx, len(fu)*len(fv)); err != nil {
					break rows
				}
				for ia, a := range fu {
					ka := a.ID<<40 | uint64(duv)
					ta := li[xu+int32(ia)]*nf*nd + duv
					for ib, b := range fv {
						key := ka | b.ID<<16
						var s int32
						var ok bool
						if dense {
							t := ta + li[xv+int32(ib)]*nd
							if s = table[t]; s < 0 {
								s = int32(len(l.keys))
								table[t] = s
								used = append(used, t)
							} else {
								ok = true
							}
						} else if s, ok = slot[key]; !ok {
							s = int32(len(l.keys))
							slot[key] = s
						}
						if !ok {
							l.keys = append(l.keys, key)
							l.vals = append(l.vals, 0)
						}
						l.vals[s] += a.Val * b.Val
					}
				}
			}
		}
	}
	for _, t := range used {
		table[t] = -1
	}
	sc.spLocal, sc.used = l, used
	return l, err
}

// oneEach reports whether off, the offsets of vertices' features, gives
// every vertex exactly one.
func oneEach(off []int32) bool {
	for u := 1; u < len(off); u++ {
		if off[u]-off[u-1] != 1 {
			return false
		}
	}
	return true
}

// vertexMapOf returns k as a VertexMap, with nil meaning Dirac.
func vertexMapOf(k VertexKernel) (VertexMap, bool) {
	if k == nil {
		return Dirac{}, true
	}
	vm, ok := k.(VertexMap)
	return vm, ok
}

// labelsBelow reports whether every vertex label of gs is in [0, limit).
func labelsBelow(gs []*graph.Graph, limit int32) bool {
	for _, g := range gs {
		if lo, hi := g.VertexLabelRange(); !labelsWithin(lo, hi, limit) {
			return false
		}
	}
	return true
}

// spPaths holds one graph's shortest paths for the implicit method: the
// unordered pairs u < v joined by a path, grouped.
type spPaths struct {
	// Dirac: groups by endpoint labels (a ≤ b), keyed a<<32|b ascending;
	// dist[start[i]:start[i+1]] are the lengths of the paths of group i.
	keys  []uint64
	start []int32
	dist  []uint16
	// Generic: the pairs themselves, grouped by length; pairs of group i
	// are u[start[i]:start[i+1]], v[...], with length lens[i].
	lens []uint16
	u, v []int32
}

// probeDistances returns the distances of g, sample graph i in a probe
// of the advice: from the other probe, if it left them (see takeShared),
// else computed into buf's storage and, in a probe, left for the other,
// copied if keep, as the caller then computes its next graph's into them.
// Both of sp's methods start from them, and on 60 Synthie graphs they took
// half of both probes' time. Outside a probe they are only computed.
func probeDistances(ctx context.Context, i int, g *graph.Graph, buf []int32, keep bool) []int32 {
	if v, ok := takeShared(ctx, i); ok {
		if keep {
			return append(buf[:0], v.([]int32)...)
		}
		return v.([]int32)
	}
	if !probing(ctx) {
		return graph.DistancesInto(buf, g)
	}
	t := time.Now()
	d := graph.DistancesInto(buf, g)
	cost := time.Since(t)
	if keep {
		putShared(ctx, i, slices.Clone(d), cost)
	} else {
		putShared(ctx, i, d, cost)
	}
	return d
}

// newSPPathsDirac groups the paths of g, whose distances are d, by their
// endpoints' labels. Where the labels are below 2^spPackBits, a path
// packs into one word, its labels above its length, which sorts as the
// paths do: by a comparison function, the sort took 12 of the 43 µs of
// the shortest-path advice on MUTAG on two threads.
func newSPPathsDirac(g *graph.Graph, d []int32) spPaths {
	n := g.N()
	type path struct {
		key uint64
		d   uint16
	}
	var ps []path
	var packed []uint64
	if !slices.ContainsFunc(g.Labels, func(l int32) bool { return uint32(l) >= 1<<spPackBits }) {
		packed = make([]uint64, 0, n*(n-1)/2)
	}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			duv := d[u*n+v]
			if duv <= 0 {
				continue
			}
			a, b := g.Labels[u], g.Labels[v]
			if a > b {
				a, b = b, a
			}
			if packed != nil {
				packed = append(packed, uint64(a)<<(16+spPackBits)|uint64(b)<<16|uint64(uint16(duv)))
			} else {
				ps = append(ps, path{uint64(a)<<32 | uint64(b), uint16(duv)})
			}
		}
	}
	var sp spPaths
	add := func(i int, key uint64, d uint16) {
		if i == 0 || key != sp.keys[len(sp.keys)-1] {
			sp.keys = append(sp.keys, key)
			sp.start = append(sp.start, int32(i))
		}
		sp.dist[i] = d
	}
	if packed != nil {
		slices.Sort(packed)
		sp.dist = make([]uint16, len(packed))
		const mask = 1<<spPackBits - 1
		for i, x := range packed {
			add(i, x>>(16+spPackBits)<<32|x>>16&mask, uint16(x))
		}
	} else {
		slices.SortFunc(ps, func(x, y path) int {
			if x.key != y.key {
				if x.key < y.key {
					return -1
				}
				return 1
			}
			return int(x.d) - int(y.d)
		})
		sp.dist = make([]uint16, len(ps))
		for i, p := range ps {
			add(i, p.key, p.d)
		}
	}
	sp.start = append(sp.start, int32(len(sp.dist)))
	return sp
}

// spPackBits is the width of a label in newSPPathsDirac's packed paths:
// two labels and a 16-bit length fill a word.
const spPackBits = 24

// newSPPathsGeneric groups g's paths, whose distances are d, by length,
// counting them, in the order u < v within a length, as a stable sort by
// length of the pairs in order gives. A stable comparison sort took 90 µs
// of the 95 of a 30-vertex ENZYMES graph: most of the sampling advisor's
// implicit probe of sp with attributes.
func newSPPathsGeneric(g *graph.Graph, d []int32) spPaths {
	n := g.N()
	var count []int32 // count[l] paths of length l, then where they start
	for u := 0; u < n; u++ {
		for _, duv := range d[u*n+u+1 : u*n+n] {
			if duv > 0 {
				if int(duv) >= len(count) {
					count = append(count, make([]int32, int(duv)+1-len(count))...)
				}
				count[duv]++
			}
		}
	}
	var sp spPaths
	var total int32
	for l, c := range count {
		if c > 0 {
			sp.lens = append(sp.lens, uint16(l))
			sp.start = append(sp.start, total)
		}
		count[l] = total
		total += c
	}
	sp.start = append(sp.start, total)
	sp.u, sp.v = make([]int32, total), make([]int32, total)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if duv := d[u*n+v]; duv > 0 {
				at := count[duv]
				sp.u[at], sp.v[at] = int32(u), int32(v)
				count[duv]++
			}
		}
	}
	return sp
}

func (k *ShortestPath) implicit(ctx context.Context, gs []*graph.Graph, rep *Report) (*mat.SymDense, *Report, error) {
	n := len(gs)
	if n == 0 {
		return &mat.SymDense{}, rep, nil
	}
	vk := k.Vertex
	if k.Attr != nil {
		vk = k.Attr.exact()
	}
	dirac := isDirac(vk) && labelsBelow(gs, 1<<31-1)
	threads := threadsOr(k.Threads)
	paths := make([]spPaths, n)
	busy, err := forRowsTimed(ctx, n, threads, func(_, step int) error {
		i := probeGraph(ctx, step, n)
		d := probeDistances(ctx, i, gs[i], nil, false)
		if dirac {
			paths[i] = newSPPathsDirac(gs[i], d)
		} else {
			paths[i] = newSPPathsGeneric(gs[i], d)
		}
		return nil
	})
	rep.TWDPG += busy
	if err != nil {
		return nil, rep, err
	}
	ws := make([]spWorker, max(1, min(threads, n)))
	pc := newProbeCheck(ctx)
	K, err := gramRows(ctx, n, threads, rep, func(w, i int, out []float64, r *Report) error {
		t := time.Now()
		wk := &ws[w]
		for j := i; j < n; j++ {
			// One pair of large graphs with uniform labels compares
			// millions of paths.
			if err := ctx.Err(); err != nil {
				return err
			}
			var v float64
			var err error
			if dirac {
				v, err = spPairDirac(ctx, &paths[i], &paths[j], r)
			} else {
				if wk.kv, err = vertexKernelMatrix(wk.kv, vk, gs[i], gs[j], pc); err != nil {
					return err
				}
				v, wk.buf, err = spPairGeneric(ctx, &paths[i], &paths[j], wk.kv, gs[i].N(), gs[j].N(), wk.buf, pc, r)
			}
			if err != nil {
				return err
			}
			out[j-i] = v
			r.Pairs++
		}
		r.TWalks += time.Since(t)
		return nil
	})
	return K, rep, err
}

// spWorker is one goroutine's scratch of the implicit method: the vertex
// kernel matrix and the buffer of spPairGeneric.
type spWorker struct {
	kv, buf []float64
}

// spCheckWork is the size of a group of path comparisons from which the
// implicit method checks its context before the group, not only between
// pairs, so that a time limit stops it within a few microseconds. The
// pairs of a sample of 4 ENZYMES graphs took 0.14 ms on average; checked
// only between pairs, the sampling advisor's probes for sp on 100
// ENZYMES graphs took 0.47–0.48 ms, with these checks 0.33–0.36 ms, and
// on MUTAG 0.33 against 0.23–0.26 ms (medians of 5, twice).
const spCheckWork = 1 << 14

// workCheck checks a context once every units of work added, spCheckWork
// where every is 0: for the explicit maps, whose work inside one graph can
// take seconds, and for pairs of graphs whose cost varies with their
// sizes (see wvCheckWork).
type workCheck struct{ work, every int }

// add counts n units of work and returns ctx's error where they complete
// every since the last check.
func (c *workCheck) add(ctx context.Context, n int) error {
	every := c.every
	if every == 0 {
		every = spCheckWork
	}
	if c.work += n; c.work < every {
		return nil
	}
	c.work = 0
	return ctx.Err()
}

// spPairDirac evaluates Equation (sp) with Dirac kernels on two graphs'
// grouped paths. Over ordered pairs, a group of endpoint labels a ≠ b stands
// for the orientations (a,b) and (b,a), and a group a = b for both
// orientations of both paths, hence the factors 2 and 4 on the comparisons
// of unordered paths. It returns ctx's error if it ends first (see
// spCheckWork).
func spPairDirac(ctx context.Context, g, h *spPaths, rep *Report) (float64, error) {
	var total, comparisons int64
	for a, b := range equalAt(g.keys, h.keys) {
		dg := g.dist[g.start[a]:g.start[a+1]]
		dh := h.dist[h.start[b]:h.start[b+1]]
		if len(dg)*len(dh) >= spCheckWork {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		match := countEqual(dg, dh)
		comparisons += int64(len(dg)) * int64(len(dh))
		if ka := g.keys[a]; ka>>32 == ka&(1<<32-1) {
			total += 4 * match
		} else {
			total += 2 * match
		}
	}
	rep.Comparisons += comparisons
	return float64(total), nil
}

// countEqual returns the number of pairs of xs and ys that are equal.
// It is not inlined so that its loop keeps its counters in registers:
// inlined in spPairDirac, whose other variables take the registers, the
// inner index went to the stack and back on every comparison, and the
// implicit Gram matrix of MUTAG took 127–130 ms on one thread, 65–68 ms
// on two, against 77–81 and 38 ms now (runexp, medians of 10, three
// rounds by turns). Its time had also moved by 6–12% with the loop's
// place in the binary after a change elsewhere in the package.
//
// The inner loop compares four distances a turn, into four counters, as
// every pair is still compared: one a turn spent half its instructions
// on the loop itself. MUTAG's implicit matrix on one thread went from
// 64.2–64.3 to 49.9–50.2 ms (go test -bench SPThreads, two rounds).
//
//go:noinline
func countEqual(xs, ys []uint16) int64 {
	var n0, n1, n2, n3 int64
	for _, x := range xs {
		t := 0
		for ; t+4 <= len(ys); t += 4 {
			y := ys[t : t+4 : t+4]
			n0 += b2i(x == y[0])
			n1 += b2i(x == y[1])
			n2 += b2i(x == y[2])
			n3 += b2i(x == y[3])
		}
		for _, y := range ys[t:] {
			n0 += b2i(x == y)
		}
	}
	return n0 + n1 + n2 + n3
}

// b2i returns 1 for true and 0 for false.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// vertexKernelMatrix fills buf with k_V(u,w) for u in g, w in h, row-major,
// checking pc every row: the matrix of two 126-vertex ENZYMES graphs with
// the hat kernel takes half a millisecond.
func vertexKernelMatrix(buf []float64, vk VertexKernel, g, h *graph.Graph, pc probeCheck) ([]float64, error) {
	ng, nh := g.N(), h.N()
	buf = grow(buf, ng*nh)
	for u := 0; u < ng; u++ {
		if err := pc.err(); err != nil {
			return buf, err
		}
		for w := 0; w < nh; w++ {
			buf[u*nh+w] = vk.Vertex(g, u, h, w)
		}
	}
	return buf, nil
}

// spPairGeneric evaluates Equation (sp) for a general vertex kernel, given
// as the matrix kv, on paths grouped by length. Over ordered paths, the
// length-d groups contribute
//
//	S_d = Σ_{(u,v),(w,z)} k(u,w)·k(v,z) = Σ_{u,z} T[u,z]·(Σ_{w: (w,z)} k(u,w)),
//
// with T[u,z] = Σ_{v: d(u,v) = d} k(v,z). Comparing the paths pair by pair
// costs |P_G(d)|·|P_H(d)| random lookups; building T row by row costs
// 2|P_G(d)|·|V(H)| + 2|V(G)|·|P_H(d)| sequential operations, which on
// graphs of a hundred vertices is five to ten times less. Each group takes
// the cheaper way. An unordered path {u,v} of G and {w,z} of H stand for
// four ordered combinations, which pair up as k(u,w)k(v,z) + k(u,z)k(v,w),
// twice. buf is scratch for T; the grown buffer is returned, and ctx's
// error if it ends first (see spCheckWork).
func spPairGeneric(ctx context.Context, g, h *spPaths, kv []float64, ng, nh int, buf []float64, pc probeCheck, rep *Report) (float64, []float64, error) {
	var total float64
	for a, b := range equalAt(g.lens, h.lens) {
		pg := int(g.start[a+1] - g.start[a])
		ph := int(h.start[b+1] - h.start[b])
		if pg*ph >= spCheckWork || pc.on() {
			if err := ctx.Err(); err != nil {
				return 0, buf, err
			}
		}
		rep.Comparisons += int64(pg) * int64(ph)
		if spCompares(int64(pg), int64(ph), int64(ng), int64(nh)) {
			var s float64
			for x := g.start[a]; x < g.start[a+1]; x++ {
				ru, rv := kv[int(g.u[x])*nh:], kv[int(g.v[x])*nh:]
				for y := h.start[b]; y < h.start[b+1]; y++ {
					w, z := h.u[y], h.v[y]
					s += ru[w]*rv[z] + ru[z]*rv[w]
				}
			}
			total += 2 * s
		} else {
			var s float64
			s, buf = spGroupByRows(g, h, a, b, kv, ng, nh, buf)
			total += s
		}
	}
	return total, buf, nil
}

// spCompares reports whether spPairGeneric compares a length group's pg
// paths of a graph of ng vertices with the ph of one of nh pair by pair,
// or, where that is more steps, sums the vertex kernel's rows.
func spCompares(pg, ph, ng, nh int64) bool { return pg*ph <= 2*pg*nh+2*ng*ph }

// spGroupByRows returns S_d for length group a of g and b of h through the
// matrix T of spPairGeneric, built only for the rows of vertices on a path of
// the group.
func spGroupByRows(g, h *spPaths, a, b int, kv []float64, ng, nh int, buf []float64) (float64, []float64) {
	buf = grow(buf, ng*nh+ng)
	T, used := buf[:ng*nh], buf[ng*nh:ng*nh+ng]
	clear(used)
	for x := g.start[a]; x < g.start[a+1]; x++ {
		u, v := int(g.u[x]), int(g.v[x])
		for _, r := range [2]int{u, v} {
			if used[r] == 0 {
				used[r] = 1
				clear(T[r*nh : (r+1)*nh])
			}
		}
		tu, tv := T[u*nh:(u+1)*nh], T[v*nh:(v+1)*nh]
		ku, kvv := kv[u*nh:(u+1)*nh], kv[v*nh:(v+1)*nh]
		for z := range tu {
			tu[z] += kvv[z]
			tv[z] += ku[z]
		}
	}
	var total float64
	for u := 0; u < ng; u++ {
		if used[u] == 0 {
			continue
		}
		tu, ku := T[u*nh:(u+1)*nh], kv[u*nh:(u+1)*nh]
		var s float64
		for y := h.start[b]; y < h.start[b+1]; y++ {
			w, z := h.u[y], h.v[y]
			s += ku[w]*tu[z] + ku[z]*tu[w]
		}
		total += s
	}
	return total, buf
}

// spAttrBytes is the memory the closed-form estimate of SP with attributes
// charges a non-zero.
const spAttrBytes = 52

// spPackedBytes is what the packed map (see spParallelVectors) keeps per
// thread for a non-zero of the graph it maps: a key and a value in its
// scratch, a copy of the value, and the renumbering's order and value.
const spPackedBytes = 16 + 8 + 16

// spAttrBound bounds what the explicit map of SP with attributes makes:
// its non-zeros and a graph's most; the bytes of the vertices' features
// and scaled attributes; and the most slots of spScratch.vector's dense
// table that a graph takes.
type spAttrBound struct {
	nnz, maxNNZ        float64
	vertexBytes, table float64
}

// attrBound bounds the explicit map of gs under the vertex map vm,
// graph by graph. A path of length d from u to v makes the keys (a, b, d)
// of u's features a and v's b, so a graph has at most Σ|f_u|·|f_v| keys of
// length d over its paths of that length, and at most F² for the F
// distinct features of its vertices. The closed form counts the first
// alone, P² a pair. Where attributes have few dimensions, as on
// SYNTHETICnew and PROTEINS, a graph's vertices fall into few bins and F²
// is the smaller by far: on 60 graphs of SYNTHETICnew at P = 16 the
// closed form is 7.4 GiB, where the map's heap peaks at 6 MiB. On 60
// graphs of each attributed set at P = 1 and 4 the bound was 1.1–2.2
// times the map's non-zeros. It costs a pass over every graph's vertex
// features and distances, far less than the P² products of the map: 1–26
// ms on 60 to 600 graphs. The estimate takes it where attrCount cannot
// count, for a vertex map with other than P features a vertex or a graph
// whose table of keys would be too large. gs and vm are as attrMap
// returns them.
func attrBound(gs []*graph.Graph, vm VertexMap) spAttrBound {
	var (
		b    spAttrBound
		fs   spFeatures
		dist []int32
		perD []float64
	)
	local := make(map[uint64]bool) // a graph's distinct vertex features
	for _, g := range gs {
		n := g.N()
		fs.f, fs.off = fs.f[:0], fs.off[:0]
		fs.add(vm, g)
		b.vertexBytes += spVertexBytes(&fs, g)
		clear(local)
		for _, a := range fs.f {
			local[a.ID] = true
		}
		nf := float64(len(local))
		dist = graph.DistancesInto(dist, g)
		perD = perD[:0]
		for u := range n {
			cu := float64(fs.off[u+1] - fs.off[u])
			for v, d := range dist[u*n : (u+1)*n] {
				if d <= 0 {
					continue
				}
				for int(d) >= len(perD) {
					perD = append(perD, 0)
				}
				perD[d] += cu * float64(fs.off[v+1]-fs.off[v])
			}
		}
		var keys float64
		for _, x := range perD {
			keys += min(x, nf*nf)
		}
		b.nnz += keys
		b.maxNNZ = max(b.maxNNZ, keys)
		b.table = max(b.table, min(spDenseSlots, nf*nf*float64(len(perD))))
	}
	return b
}

// attrMap returns gs with their attributes scaled, as the explicit map
// sees them, and the map's vertex map: what attrCount and attrBound count
// the keys of.
func (k *ShortestPath) attrMap(gs []*graph.Graph) ([]*graph.Graph, VertexMap, error) {
	gs, err := k.Attr.scale(context.Background(), gs, 1)
	if err != nil {
		return nil, nil, err
	}
	vm, err := k.vertexMap(gs)
	return gs, vm, err
}

// spVertexBytes is what the vertex features fs of g and g's scaled
// attributes take.
func spVertexBytes(fs *spFeatures, g *graph.Graph) float64 {
	return float64(len(fs.f))*16 + float64(g.N()*g.AttrDim)*8
}

// spAttrPairs is how many pairs of binning iterations attrCount counts
// keys for, at most.
const spAttrPairs = 32

// spAttrSlots bounds the table in which attrCount finds a graph's keys of
// one pair of iterations: 16 MiB.
const spAttrSlots = 1 << 22

// spAttrCount estimates what the explicit map of SP with binned attributes
// makes: its non-zeros, a graph's most and its distinct features, with
// the bytes of the vertices' features and scaled attributes and the most
// slots of spScratch.vector's dense table that a graph takes, as in
// spAttrBound.
type spAttrCount struct {
	nnz, maxNNZ, features float64
	// big is the non-zeros of the graphs of more than half a
	// pairSlab's chunk, by their estimates.
	big                float64
	vertexBytes, table float64
	// maxID is the largest id of a bin.
	maxID uint64
}

// attrCount counts the keys of the explicit map of gs under k's binning
// for a random sample of the P² pairs (i, j) of iterations, all of them
// where P² ≤ spAttrPairs, and scales the counts by P² over the pairs
// counted. Binning gives every vertex one feature an iteration, whose bin
// id is of that iteration alone, so a key (a, b, d) of iteration i's bin a
// of u and j's bin b of v belongs to one pair (i, j), and the map's
// non-zeros, in a graph and in all, are the sums of the pairs' counts.
// The scaled mean of a sample of pairs is unbiased; the estimate adds two
// standard errors of it, since pairs differ (on 60 Synthie graphs at
// P = 16 a sample's mean came to 0.91 of the map's non-zeros and 0.85 of
// its features). A graph's keys of a pair are told apart in a table by
// the bins' indices among the graph's bins of their iteration, and the
// keys of all graphs are counted by a HyperLogLog sketch a pair (see
// hyperLogLog), within about 2%. ok is false where a vertex has not P
// features, for a vertex map other than Binning's. The pairs are drawn
// from the binning's seed, so an estimate is the same each time. gs and
// vm are as attrMap returns them.
func (k *ShortestPath) attrCount(gs []*graph.Graph, vm VertexMap) (c spAttrCount, ok bool) {
	p := max(k.Attr.Iterations, 1)
	var pairs [][2]int
	if p*p <= spAttrPairs {
		for i := range p {
			for j := range p {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	} else {
		r := rand.New(rand.NewPCG(k.Attr.Seed, 0x7370617474720001)) // "spattr"
		for range spAttrPairs {
			pairs = append(pairs, [2]int{r.IntN(p), r.IntN(p)})
		}
	}
	var (
		fs     spFeatures
		dist   []int32
		li     []int32            // a feature's index among its iteration's bins
		bins   = make([]int32, p) // a graph's bins an iteration
		index  = make(map[uint64]int32)
		table  []uint32
		stamp  uint32
		keys   = make([]float64, len(pairs)) // the pairs' non-zeros
		sketch = make([]hyperLogLog, len(pairs))
	)
	for _, g := range gs {
		n := g.N()
		fs.f, fs.off = fs.f[:0], fs.off[:0]
		fs.add(vm, g)
		for u := range n {
			if fs.off[u+1]-fs.off[u] != int32(p) {
				return c, false
			}
		}
		c.vertexBytes += spVertexBytes(&fs, g)
		clear(index)
		clear(bins)
		li = slices.Grow(li[:0], len(fs.f))[:len(fs.f)]
		for x, a := range fs.f {
			c.maxID = max(c.maxID, a.ID)
			i, seen := index[a.ID]
			if !seen {
				it := x % p
				i = bins[it]
				bins[it]++
				index[a.ID] = i
			}
			li[x] = i
		}
		dist = graph.DistancesInto(dist, g)
		var nd int32
		for _, d := range dist {
			nd = max(nd, d+1)
		}
		nf := float64(len(index))
		c.table = max(c.table, min(spDenseSlots, nf*nf*float64(nd)))
		var graphKeys float64
		for s, ij := range pairs {
			i, j := ij[0], ij[1]
			bj := int(bins[j])
			slots := int(bins[i]) * bj * int(nd)
			if slots > spAttrSlots {
				return c, false
			}
			if len(table) < slots {
				table = make([]uint32, min(max(slots, 2*len(table)), spAttrSlots))
				stamp = 0
			}
			if stamp++; stamp == 0 {
				clear(table)
				stamp = 1
			}
			var m int
			for u := range n {
				xu := int(fs.off[u]) + i
				a, ta := fs.f[xu].ID, int(li[xu])*bj
				for v, d := range dist[u*n : (u+1)*n] {
					if d <= 0 {
						continue
					}
					xv := int(fs.off[v]) + j
					t := (ta+int(li[xv]))*int(nd) + int(d)
					if table[t] != stamp {
						table[t] = stamp
						m++
						sketch[s].add(spAttrHash(a, fs.f[xv].ID, d))
					}
				}
			}
			keys[s] += float64(m)
			graphKeys += float64(m)
		}
		gk := graphKeys * float64(p*p) / float64(len(pairs))
		c.maxNNZ = max(c.maxNNZ, gk)
		if gk > pairSlabMost {
			c.big += gk
		}
	}
	feats := make([]float64, len(pairs))
	for s := range sketch {
		feats[s] = sketch[s].count()
	}
	exhaustive := p*p <= spAttrPairs
	c.nnz = scaledMean(keys, p*p, exhaustive)
	c.features = scaledMean(feats, p*p, exhaustive)
	return c, true
}

// scaledMean returns total times the mean of xs, a sample of total
// values, plus two standard errors unless the sample is all of them.
func scaledMean(xs []float64, total int, exhaustive bool) float64 {
	m := stat.Mean(xs, nil)
	if exhaustive || len(xs) < 2 {
		return float64(total) * m
	}
	se := stat.StdDev(xs, nil) / math.Sqrt(float64(len(xs)))
	return float64(total) * (m + 2*se)
}

// spAttrHash hashes the key (a, b, d) of attrCount.
func spAttrHash(a, b uint64, d int32) uint64 {
	return mix64(mix64(a<<32^b) ^ uint64(d))
}

// mix64 is SplitMix64's finaliser, which spreads every bit of x over the
// result, as a HyperLogLog's leading zeros need.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// hyperLogLog counts distinct hashes approximately in 2^hllBits bytes
// (Flajolet, Fusy, Gandouet and Meunier 2007, with the small-range
// correction): the relative standard error is 1.04/√2^hllBits, 1.6%.
type hyperLogLog [1 << hllBits]uint8

const hllBits = 12

// add counts hash h.
func (s *hyperLogLog) add(h uint64) {
	i := h >> (64 - hllBits)
	r := uint8(bits.LeadingZeros64(h<<hllBits|1<<(hllBits-1))) + 1
	s[i] = max(s[i], r)
}

// count estimates the number of distinct hashes added.
func (s *hyperLogLog) count() float64 {
	m := float64(len(s))
	var sum float64
	zeros := 0
	for _, r := range s {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return e
}

// EstimateBytes implements MemoryEstimator for the explicit method; the
// implicit one holds the paths of two graphs at a time, which is small.
// It estimates the map's non-zeros and distinct features: on labels by
// mapping a sample of the graphs and scaling what it produces to all
// graphs, here by their ordered pairs of vertices, as Walk.EstimateBytes
// does; with binned attributes by counting the keys of all graphs for a
// sample of pairs of iterations (see attrCount), where the closed form
// exceeds limit. The estimate is gcHeadroom times the larger of the data
// live while the vectors are computed and while they are multiplied (see
// spMapBytes).
func (k *ShortestPath) EstimateBytes(gs []*graph.Graph, m Method, limit int64) int64 {
	if m != Explicit || len(gs) == 0 {
		return 0
	}
	n := len(gs)
	pairs := make([]float64, n)
	var largest float64
	for i, g := range gs {
		ng := float64(g.N())
		pairs[i] = ng * (ng - 1)
		largest = max(largest, ng)
	}
	threads := float64(threadsOr(k.Threads))
	if k.Attr != nil {
		if k.Attr.validate() != nil {
			return 0
		}
		// With P binning iterations a pair has up to P² non-zeros, so
		// mapping even a sample costs what the estimate is there to
		// avoid. In closed form every ordered pair's P² non-zeros
		// count, each distinct, an id and a value in the vector and
		// about 40 bytes of interner each, and it is taken where it
		// is within limit. Otherwise the keys are counted for a sample
		// of pairs of iterations: on 60 graphs of ENZYMES at P = 64,
		// 16 ms against the map's 27 s. Where a vertex map is not
		// Binning's, a bound stands for them (see attrBound).
		p := float64(max(k.Attr.Iterations, 1))
		closed := spAttrBytes * sum(pairs) * p * p
		if limit > 0 && closed <= float64(limit) {
			return int64(closed)
		}
		scaled, vm, err := k.attrMap(gs)
		if err != nil {
			return int64(closed)
		}
		if c, ok := k.attrCount(scaled, vm); ok {
			// The packed map runs where the bins' ids fit its keys
			// (see spParallelVectors).
			perFeat := spFeatureBytes(n, threads, c.maxID < 1<<24)
			fixed := c.vertexBytes + 4*c.table*threads
			return int64(min(closed, spMapBytes(n, threads, c.nnz, c.big, c.maxNNZ, c.features, largest, perFeat, fixed)))
		}
		b := attrBound(scaled, vm)
		fixed := b.vertexBytes + 4*b.table*threads + vecBytes*float64(n) +
			spTransientBytes(n, threads, b.maxNNZ, largest)
		return int64(min(closed, spAttrBytes*b.nnz+gcHeadroom*fixed))
	}
	smp := drawSample(pairs, estimateSample, estimateTop)
	vecs, err := k.FeatureVectors(context.Background(), smp.graphs(gs))
	if err != nil {
		return 0
	}
	nnzs, bigs := make([]float64, len(vecs)), make([]float64, len(vecs))
	var maxNNZ float64
	for i, v := range vecs {
		nnzs[i] = float64(v.Len())
		maxNNZ = max(maxNNZ, nnzs[i])
		if nnzs[i] > pairSlabMost {
			bigs[i] = nnzs[i]
		}
	}
	nnz, big := smp.total(nnzs, pairs), smp.total(bigs, pairs)
	dim := smp.features(vecs, pairs)
	perFeat := spFeatureBytes(n, threads, true)
	if !k.labelKeys(gs) {
		// Labels at or above 2^24 may not fit the packed map's keys.
		perFeat = max(perFeat, spFeatureBytes(n, threads, false))
	}
	return int64(spMapBytes(n, threads, nnz, big, maxNNZ, dim, largest, perFeat, 0))
}

// spFeatureBytes is what the explicit map of n graphs on threads keeps
// per distinct feature. sequentialVectors, which maps one graph, or all
// where the packed map's keys do not fit, holds a map and an accumulator.
// The packed map's numbering (see mapFirstMet) holds what each worker that
// meets a feature keeps, its interner, where it met it and its number,
// and, for more than one worker, the union of the workers' features in an
// interner, their earliest meeting and order, and the numbered interner; a
// lone worker numbered its features itself (see numberFirstMet).
func spFeatureBytes(n int, threads float64, packed bool) float64 {
	if n == 1 || !packed {
		return mapBytes192 + accBytes
	}
	worker := float64(internBytes + 8 + 4)
	if threads <= 1 {
		return worker + 4
	}
	return threads*worker + 2*internBytes + 8 + 4 + 4
}

// spMapBytes estimates the memory of the explicit map of n graphs and its
// dot products from its non-zeros, big of them in graphs of more than half
// a pairSlab's chunk, a graph's most, its distinct features dim and the
// bytes perFeat of each, and the vertices of the largest graph:
// gcHeadroom times the larger of the data live while the vectors are
// computed (the vectors, in the workers' pairSlabs, the features, fixed,
// and the transient, see spTransientBytes) and while they are multiplied
// (see dotBytes).
func spMapBytes(n int, threads, nnz, big, maxNNZ, dim, largest, perFeat, fixed float64) float64 {
	big = min(big, nnz)
	vb := nonzeroBytes*slabPairs(nnz-big, big, min(maxNNZ, pairSlabMost), int(min(threads, float64(n)))) + vecBytes*float64(n)
	phi := vb + perFeat*dim + fixed + spTransientBytes(n, threads, maxNNZ, largest)
	return gcHeadroom * max(phi, dotBytes(vb, nnz, dim, 1))
}

// spTransientBytes is what the explicit map of n graphs holds for the
// graph it maps, whose vector has at most maxNNZ non-zeros and whose
// vertices at most largest: its distances on each of threads and, for
// more than one graph, the packed map's scratch of its vector (one graph
// alone is mapped in sequence, without it).
func spTransientBytes(n int, threads, maxNNZ, largest float64) float64 {
	t := 4 * largest * largest * threads
	if n > 1 {
		t += spPackedBytes * threads * maxNNZ
	}
	return t
}
