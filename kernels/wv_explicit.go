package kernels

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/gkbench/gkbench/graph"
)

// wvVectors returns the explicit feature vectors φ^WV(G) = Σ_v φ^W(v) ⊗ φ^V(v)
// of a weighted vertex kernel (Proposition 4.2) and the number of distinct
// features among them.
//
// A feature is a pair (weight feature, vertex feature). Interning every pair
// of every vertex in one global hash table costs a cache miss a pair, and
// there are Σ_v nnz(φ^W(v))·nnz(φ^V(v)) of them (5M for GI with h = 3 and
// P = 64 on ENZYMES), about twice the distinct pairs of the graphs. So each
// graph's pairs are first summed locally: its vertices are grouped by weight
// feature, and each group's vertex features are summed in a dense array over
// the (few) vertex feature ids, which hands back the graph's distinct pairs
// in sorted order. Only these are given global ids, by their rank among all
// distinct pairs, so that a graph's ids stay sorted. The sums add each
// pair's products in vertex order, as one global accumulator would.
func wvVectors(ctx context.Context, gs []*graph.Graph, w explicitWeights, vm VertexMap) ([]Vec, int, error) {
	return wvVectorsOn(ctx, gs, w, vm, 1)
}

// wvVectorsOn is wvVectors on up to threads goroutines. The vertex
// features come from vm, whose ids (bins, interned labels) are numbered in
// the order met, and the parallel map gives them the same ids (see
// wvSumParallel); the sums of the pairs are computed graph by graph in
// parallel, each by the arithmetic of the sequential map, and ranked as
// there, so the vectors do not depend on threads. With one thread a
// graph's vertex features are summed as soon as they are computed, in one
// scratch.
func wvVectorsOn(ctx context.Context, gs []*graph.Graph, w explicitWeights, vm VertexMap, threads int) ([]Vec, int, error) {
	vx := newWVVertexMapper(vm, gs)
	keys := make([][]uint64, len(gs))
	vecs := make([]Vec, len(gs))
	var sm *sumMarks
	if threads = max(1, min(threads, len(gs))); threads == 1 {
		if err := waitRefined(ctx, w); err != nil {
			return nil, 0, err
		}
		var (
			vf wvVertexFeatures
			sc wvScratch
		)
		for i, g := range gs {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			noteGraph(ctx, i)
			vf = vx.graph(vf.reset(), g)
			var err error
			if keys[i], vecs[i].Vals, err = sc.sum(ctx, w, i, g.N(), &vf); err != nil {
				return nil, 0, err
			}
		}
	} else {
		// Where the weight features' ids are bounded before the sums,
		// and the vertex features are labels, their own ids below
		// vx.labels, each worker marks the pairs of its graphs as it
		// sums them, while they are in its cache (see sumMarks). Bins
		// are numbered as met.
		if b, ok := w.(keyBounder); ok && vx.labels > 0 {
			sm = newSumMarks(b.keyBound(), uint64(vx.labels), threads)
		}
		if err := wvSumParallel(ctx, gs, w, &vx, keys, vecs, threads, sm); err != nil {
			return nil, 0, err
		}
	}
	var nnz int
	for _, ks := range keys {
		nnz += len(ks)
	}
	// The bitmap where it ranks, as rankPairs's would (see there).
	if sm != nil && sm.space <= 32*uint64(nnz)+1<<16 {
		dim, err := rankMarked(ctx, keys, vecs, sm.dimV, sm.marks, nnz, threads)
		if err != nil {
			return nil, 0, err
		}
		return vecs, dim, nil
	}
	dimW, rewrite := w.dense()
	dim, err := rankPairs(ctx, keys, vecs, uint64(dimW), uint64(vx.dim()), rewrite, nnz, threads)
	if err != nil {
		return nil, 0, err
	}
	return vecs, dim, nil
}

// keyBounder is explicitWeights whose weight feature ids, as the sums
// key them, lie below keyBound before the sums: giStream's, whose
// iteration i sets the bits above those of every vertex.
type keyBounder interface {
	keyBound() uint64
}

// sumMarks holds the bitmaps in which the workers of wvSumParallel mark
// the pairs of the graphs they sum, over the places (wid·dimV + vid) of
// the keys as summed (see markKeys), so that rankMarked ranks them
// without the pass of rankPairs that marks them after the sums, reading
// each graph's keys again, half of them from the other core's cache: on
// two threads, that pass and the wait for it took 30–60 µs of GI's
// explicit map on MUTAG (0.6–0.7 ms), as long as it took one thread. So
// marked, GI's matrix on two threads took 772, 912 and 672 µs on MUTAG
// where it took 815, 941 and 686, and 1466, 1578 and 1020 on 200 ENZYMES
// graphs where it took 1475, 1603 and 1023 (a test binary, both ways by
// turns, medians of 300, three runs in a noisy stretch of the VM).
type sumMarks struct {
	dimV, space uint64
	marks       [][]uint64 // by worker, allocated as it sums its first graph
}

// sumMarksMax is the most places (bits) a worker's bitmap of sumMarks may
// have: 512 KiB. GI's streamed ids set the iteration above the bits of
// all vertices, so the places outnumber the pairs; on NCI1 (h = 3, 37
// labels) they would take 19M bits a worker, and rankPairs ranks there.
const sumMarksMax = 1 << 22

// newSumMarks returns the sumMarks of weight feature ids below dimW and
// vertex feature ids below dimV for threads workers, or nil where the
// bitmaps would be too large.
func newSumMarks(dimW, dimV uint64, threads int) *sumMarks {
	if dimV == 0 || dimW > sumMarksMax/dimV {
		return nil
	}
	return &sumMarks{dimV: dimV, space: dimW * dimV, marks: make([][]uint64, threads)}
}

// words returns the length of a worker's bitmap.
func (sm *sumMarks) words() int { return int((sm.space + 63) / 64) }

// mark marks the keys ks of worker w.
func (sm *sumMarks) mark(w int, ks []uint64) {
	if sm.marks[w] == nil {
		sm.marks[w] = make([]uint64, sm.words())
	}
	markKeys(sm.marks[w], ks, sm.dimV)
}

// wvSumParallel sets keys[i] and vecs[i].Vals to the sums of the pairs of
// graph i on threads workers, and marks them in sm, if not nil. The
// vertex features come from vx, which numbers them in graph order: bins
// are binned and numbered by all workers before the sums where they pack,
// else mapped one graph at a time, in order, and a worker sums a graph as
// soon as its bins are there (see wvVertexFeeder); other vertex features,
// unless they are their own ids, are numbered first, by all workers (see
// wvVertexMapper.number), and each worker then maps its own graphs.
func wvSumParallel(ctx context.Context, gs []*graph.Graph, w explicitWeights, vx *wvVertexMapper, keys [][]uint64, vecs []Vec, threads int, sm *sumMarks) error {
	scs := make([]wvScratch, threads)
	for i := range scs {
		scs[i].ws.worker, scs[i].ws.workers = i, threads
	}
	if !vx.dense() {
		if err := vx.number(ctx, gs, threads); err != nil {
			return err
		}
	}
	feed, err := newWVVertexFeeder(ctx, gs, vx, threads)
	if err != nil {
		return err
	}
	if err := waitRefined(ctx, w); err != nil {
		return err
	}
	err = forRows(ctx, len(gs), threads, func(wk, i int) error {
		f, err := feed.features(ctx, i, &scs[wk].vf)
		if err != nil {
			return err
		}
		keys[i], vecs[i].Vals, err = scs[wk].sum(ctx, w, i, gs[i].N(), f)
		feed.release(i)
		if err == nil && sm != nil {
			sm.mark(wk, keys[i])
		}
		return err
	})
	// The mapper must be done with vx before anyone reads it again.
	if ferr := feed.wait(); err == nil {
		err = ferr
	}
	return err
}

// wvVertexFeeder maps the vertices of the graphs for the workers of
// wvSumParallel. Binned attributes are binned by all workers ahead, where
// every bin packs into a key (see numberBins). Else they are mapped in
// graph order by a goroutine of its own (see goWith) that runs ahead of the
// workers: the binning of ENZYMES with P = 64 costs as much as the sums
// (about 55 ms each, GI with h = 3). Under a lock instead, taken by the
// worker that needed the next graph, the binning of ENZYMES took GI's Gram
// matrix from 265 to 323 ms on two threads, in workers parked while the
// other binned. Other vertex features are numbered ahead (see
// wvVertexMapper.number), unless they are labels that are their own ids,
// and each worker maps its own graphs: under the lock, which each worker
// took for its graph and to map those before it, the workers of GI on MUTAG
// spent 290 µs each of the sums' 730 µs on two threads waiting for it or
// mapping, and the sums ran 1.24× faster than on one thread.
type wvVertexFeeder struct {
	gs []*graph.Graph
	vx *wvVertexMapper

	// With a goroutine, for bins: vfs[i] holds graph i's once ready[i]
	// is closed, and mapped receives the goroutine's error.
	vfs    []wvVertexFeatures
	ready  []chan struct{}
	mapped chan error
	crew   *Crew // whose helper maps them, if any
	// bins, if not nil, holds every graph's bins, binned ahead.
	bins *wvBins
}

func newWVVertexFeeder(ctx context.Context, gs []*graph.Graph, vx *wvVertexMapper, threads int) (*wvVertexFeeder, error) {
	fd := &wvVertexFeeder{gs: gs, vx: vx}
	b, binned := vx.vm.(*Binning)
	if !binned {
		return fd, nil
	}
	bins, err := numberBins(ctx, gs, b, threads)
	if err != nil || bins != nil {
		fd.bins = bins
		return fd, err
	}
	fd.vfs = make([]wvVertexFeatures, len(gs))
	fd.ready = make([]chan struct{}, len(gs))
	for i := range fd.ready {
		fd.ready[i] = make(chan struct{})
	}
	fd.mapped = make(chan error, 1)
	fd.crew = crewFrom(ctx)
	goWith(ctx, func() {
		var f wvVertexFeatures
		for i, g := range gs {
			if err := ctx.Err(); err != nil {
				fd.mapped <- err
				return
			}
			// A copy of exactly its size, as it may be kept until
			// a worker is free.
			f = vx.graph(f.reset(), g)
			fd.vfs[i] = f.clone()
			close(fd.ready[i])
		}
		fd.mapped <- nil
	})
	return fd, nil
}

// features returns the vertex features of graph i, mapped into own, the
// worker's scratch, if the worker maps them.
func (fd *wvVertexFeeder) features(ctx context.Context, i int, own *wvVertexFeatures) (*wvVertexFeatures, error) {
	if fd.bins != nil {
		*own = fd.bins.features(own.reset(), i, fd.gs[i].N())
		return own, nil
	}
	if fd.ready != nil {
		if _, stopped := awaitOn(fd.crew, ctx.Done(), fd.ready[i]); stopped {
			return nil, ctx.Err()
		}
		return &fd.vfs[i], nil
	}
	*own = fd.vx.graph(own.reset(), fd.gs[i])
	return own, nil
}

// release drops graph i's vertex features, if the goroutine mapped them,
// once they are summed.
func (fd *wvVertexFeeder) release(i int) {
	if fd.vfs != nil {
		fd.vfs[i] = wvVertexFeatures{}
	}
	if fd.bins != nil {
		fd.bins.local[i] = nil
	}
}

// wvBins holds the bins of every vertex of the graphs, as numberBins
// binned them: those of graph i by the ids of the worker that binned it,
// owner[i], and global[w] maps worker w's ids to b's.
type wvBins struct {
	local  [][]uint32 // local[i][v·P + it] is vertex v's bin in iteration it
	owner  []int32
	global [][]uint32
	p      int
	scale  float64
}

// numberBins bins the attributes of every vertex of gs by b on up to
// threads workers, each with a fresh binning, which numbers the bins it
// meets itself; numbers the bins in the order in which a sequential map
// meets them (numberFirstMet); and interns them into b in that order, so
// that b and the features have the ids the sequential feeder gives them.
// It returns nil, for the sequential feeder, where a bin does not pack
// into a key (its key would be a worker's tuple id) or b has bins already.
//
// The sequential binning was the critical path of GI's parallel map where
// the iterations are many: on ENZYMES with P = 64 it took 109 ms, of a map
// of 141 ms on two threads and 207 on one.
func numberBins(ctx context.Context, gs []*graph.Graph, b *Binning, threads int) (*wvBins, error) {
	if b.Bins() > 0 || b.layout.w == 0 {
		return nil, nil
	}
	type worker struct {
		bins  *Binning
		first []uint64 // where the worker first met each bin, as firstMet notes it
		fv    []Feature
		_     [64]byte // written at every bin, side by side
	}
	ws := make([]worker, threads)
	for w := range ws {
		ws[w].bins = b.fresh()
	}
	bins := &wvBins{local: make([][]uint32, len(gs)), owner: make([]int32, len(gs)), p: b.p, scale: b.scale}
	var unpacked atomic.Bool
	err := forRows(ctx, len(gs), threads, func(w, i int) error {
		if unpacked.Load() {
			return nil
		}
		g, m := gs[i], &ws[w]
		ids := make([]uint32, g.N()*b.p)
		for v := range g.N() {
			m.fv = m.bins.VertexFeatures(m.fv[:0], g, v)
			if m.bins.buf != nil { // a tuple: see Binning.bin
				unpacked.Store(true)
				return nil
			}
			for it, f := range m.fv {
				r := v*b.p + it
				ids[r] = uint32(f.ID)
				if int(f.ID) == len(m.first) { // new, ids come in order
					m.first = append(m.first, uint64(i)<<32|uint64(r))
				}
			}
		}
		bins.local[i], bins.owner[i] = ids, int32(w)
		return nil
	})
	if err != nil || unpacked.Load() {
		return nil, err
	}
	numbered, global := numberWorkers(threads, func(w int) ([]key128, []uint64) { return ws[w].bins.bins.keys, ws[w].first })
	for _, k := range numbered {
		b.bins.intern(k)
	}
	bins.global = global
	return bins, nil
}

// features appends the bins of graph i, with n vertices, to f.
func (bs *wvBins) features(f wvVertexFeatures, i, n int) wvVertexFeatures {
	ids, global := bs.local[i], bs.global[bs.owner[i]]
	for v := range n {
		for _, id := range ids[v*bs.p : (v+1)*bs.p] {
			f.vf = append(f.vf, global[id])
			f.vv = append(f.vv, bs.scale)
		}
		f.vs = append(f.vs, int32(len(f.vf)))
	}
	return f
}

// wait waits for the goroutine, if any, to be done with vx, and returns
// its error.
func (fd *wvVertexFeeder) wait() error {
	if fd.mapped == nil {
		return nil
	}
	err, _ := awaitOn(fd.crew, nil, fd.mapped)
	return err
}

// wvVertexMapper gives the vertex features of vm dense ids: bin ids are
// dense already; other vertex features, such as labels, are made dense, as
// the sums are kept in an array indexed by them.
type wvVertexMapper struct {
	vm   VertexMap
	vIDs interner[key64]
	// numbered is set once vIDs holds the vertex features of all
	// graphs (see number): graph then only looks their ids up, and
	// goroutines may call it at once.
	numbered bool
	// labels, if positive, bounds the labels of the graphs, which are
	// then their own ids (see newWVVertexMapper).
	labels int
}

// directLabels bounds the labels that a Dirac vertex map uses as ids as
// they are: denseAcc has room for that many ids from the start.
const directLabels = 1024

// newWVVertexMapper returns a mapper of the vertex features of gs by vm.
// The labels of a data set are the ids of its dictionary, dense from 0, so
// that those of a Dirac map need no numbering unless they are negative or
// large: on MUTAG, numbering them on two threads took 51 µs of GI's 1.5
// ms, and the ids then depend on no order of the graphs.
func newWVVertexMapper(vm VertexMap, gs []*graph.Graph) wvVertexMapper {
	x := wvVertexMapper{vm: vm}
	if _, ok := vm.(Dirac); !ok {
		return x
	}
	bound := int32(0)
	for _, g := range gs {
		lo, hi := g.VertexLabelRange()
		if !labelsWithin(lo, hi, directLabels) {
			return x
		}
		if lo <= hi {
			bound = max(bound, hi+1)
		}
	}
	x.labels = int(bound)
	return x
}

// dense reports whether the vertex features are their own ids.
func (x *wvVertexMapper) dense() bool {
	_, binned := x.vm.(*Binning)
	return binned || x.labels > 0
}

// graph appends the vertex features of g to f.
func (x *wvVertexMapper) graph(f wvVertexFeatures, g *graph.Graph) wvVertexFeatures {
	dense := x.dense()
	for u := 0; u < g.N(); u++ {
		f.fv = x.vm.VertexFeatures(f.fv[:0], g, u)
		for _, y := range f.fv {
			id := uint32(y.ID)
			switch {
			case dense:
			case x.numbered:
				id, _ = x.vIDs.find(key64(y.ID))
			default:
				id, _ = x.vIDs.intern(key64(y.ID))
			}
			f.vf = append(f.vf, id)
			f.vv = append(f.vv, y.Val)
		}
		f.vs = append(f.vs, int32(len(f.vf)))
	}
	return f
}

// number gives the vertex features of gs, which must not be binned, the
// ids graph gives them in graph order, on up to threads goroutines (see
// numberFirstMet), so that goroutines may then map graphs at once.
func (x *wvVertexMapper) number(ctx context.Context, gs []*graph.Graph, threads int) error {
	type worker struct {
		firstMet[key64]
		fv []Feature
		_  [64]byte // written at every vertex, side by side
	}
	ws := make([]worker, threads)
	err := forRows(ctx, len(gs), threads, func(w, i int) error {
		m, g, rank := &ws[w], gs[i], 0
		for u := 0; u < g.N(); u++ {
			m.fv = x.vm.VertexFeatures(m.fv[:0], g, u)
			for _, y := range m.fv {
				m.intern(key64(y.ID), i, rank)
				rank++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	numbered, _ := numberWorkers(threads, func(w int) ([]key64, []uint64) { return ws[w].ids.keys, ws[w].first })
	for _, key := range numbered {
		x.vIDs.intern(key)
	}
	x.numbered = true
	return nil
}

// dim returns the number of distinct vertex feature ids so far.
func (x *wvVertexMapper) dim() int {
	if bins, ok := x.vm.(*Binning); ok {
		return bins.Bins()
	}
	if x.labels > 0 {
		return x.labels
	}
	return x.vIDs.len()
}

// wvVertexFeatures holds a graph's vertex features with dense ids: those
// of vertex u are vf[vs[u]:vs[u+1]] with values vv.
type wvVertexFeatures struct {
	vf []uint32
	vv []float64
	vs []int32
	fv []Feature // a vertex's features, for wvVertexMapper.graph
}

// reset empties f, keeping its storage, for the features of a graph.
func (f *wvVertexFeatures) reset() wvVertexFeatures {
	return wvVertexFeatures{f.vf[:0], f.vv[:0], append(f.vs[:0], 0), f.fv}
}

// clone returns a copy of f's features, of exactly their size.
func (f *wvVertexFeatures) clone() wvVertexFeatures {
	return wvVertexFeatures{vf: slices.Clone(f.vf), vv: slices.Clone(f.vv), vs: slices.Clone(f.vs)}
}

// wvScratch is the scratch of summing a graph's pairs, reused from graph
// to graph.
type wvScratch struct {
	fw []Feature
	// The current graph's weight features: wid<<32 | e, with the
	// vertex and the value of entry e in eu[e] and ew[e]; spare is
	// sortByHigh's buffer.
	groups, spare []uint64
	eu            []int32
	ew            []float64
	acc           denseAcc
	ks            []uint64 // wid<<32 | vertex feature id
	kv            []float64
	ws            weightScratch
	// vf holds the vertex features of the worker's own graphs, which it
	// maps itself (see wvVertexFeeder).
	vf wvVertexFeatures
	// out holds the sums that sum returns.
	out pairSlab[uint64]
}

// sum returns the distinct pairs of graph g, with n vertices and vertex
// features f, as sorted keys wid<<32 | vertex feature id, and their sums.
// It fails only if loading the weights does. GI's weights are summed by
// column and GraphHopper's by position; the loop that lists any weights
// and sorts them serves no kernel's now, but the tests hold the other two
// to it (TestGIColumnsSameVectors, TestGHPositionsSameVectors).
func (s *wvScratch) sum(ctx context.Context, w explicitWeights, g, n int, f *wvVertexFeatures) ([]uint64, []float64, error) {
	wf, err := w.load(ctx, g, &s.ws)
	if err != nil {
		return nil, nil, err
	}
	s.ks, s.kv = s.ks[:0], s.kv[:0]
	if cf, ok := wf.(columnFeatures); ok {
		s.sumColumns(cf, g, f)
		ks, kv := s.out.add(s.ks, s.kv)
		return ks, kv, nil
	}
	if pf, ok := wf.(packedFeatures); ok {
		s.sumPacked(pf, g, n, f)
		ks, kv := s.out.add(s.ks, s.kv)
		return ks, kv, nil
	}
	s.groups, s.eu, s.ew = s.groups[:0], s.eu[:0], s.ew[:0]
	var top uint64 // the largest wid
	for u := 0; u < n; u++ {
		s.fw = wf.features(s.fw[:0], g, u)
		for _, x := range s.fw {
			s.groups = append(s.groups, x.ID<<32|uint64(len(s.eu)))
			s.eu = append(s.eu, int32(u))
			s.ew = append(s.ew, x.Val)
			top = max(top, x.ID)
		}
	}
	// Entries are numbered in vertex order, so sorting by wid<<32|e keeps
	// each group in vertex order.
	s.groups, s.spare = sortByHigh(s.groups, s.spare, top)
	vf, vv, vs := f.vf, f.vv, f.vs
	for a := 0; a < len(s.groups); {
		wid := s.groups[a] >> 32
		for ; a < len(s.groups) && s.groups[a]>>32 == wid; a++ {
			e := uint32(s.groups[a])
			u, x := s.eu[e], s.ew[e]
			for t := vs[u]; t < vs[u+1]; t++ {
				s.acc.add(vf[t], x*vv[t])
			}
		}
		s.ks, s.kv = s.acc.flush(s.ks, s.kv, wid<<32)
	}
	ks, kv := s.out.add(s.ks, s.kv)
	return ks, kv, nil
}

// sumColumns is sum's loop for weight features in columns, appending to
// s.ks and s.kv. It sorts each column's vertices by their ids less the
// column's least, where sum sorts all entries at once, in the range of
// every column: GI's streamed colours, whose ids set the iteration above
// the bits of all vertices (see giStream), took three passes of radix sort
// a graph on ENZYMES, and on MUTAG two passes over counts four times as
// many. By column, GI's matrix (h = 3, Dirac) took 2.42 ms on ENZYMES on
// two threads against 2.67, 4.09 on one against 4.36, and on MUTAG 0.405
// and 0.715 ms against 0.442 and 0.766 (medians of 3 rounds of 1000, by
// turns). A vertex's weight is 1, so its sums are those of sum.
func (s *wvScratch) sumColumns(cf columnFeatures, g int, f *wvVertexFeatures) {
	vf, vv, vs := f.vf, f.vv, f.vs
	for c := range cf.columns() {
		ids, base := cf.column(g, c)
		if len(ids) == 0 {
			continue
		}
		lo, hi := ids[0], ids[0]
		for _, id := range ids {
			lo, hi = min(lo, id), max(hi, id)
		}
		// id−lo<<32 | u: sorted, each group is in vertex order.
		s.groups = s.groups[:0]
		for u, id := range ids {
			s.groups = append(s.groups, uint64(id-lo)<<32|uint64(u))
		}
		s.groups, s.spare = sortByHigh(s.groups, s.spare, uint64(hi-lo))
		// sum's loop over the groups, without its look-up of each
		// entry's vertex and weight: one loop for both, the look-up
		// behind a branch, took GI's matrix 5–8% longer on ENZYMES
		// (three rounds of 1000 by turns).
		for a := 0; a < len(s.groups); {
			id := s.groups[a] >> 32
			for ; a < len(s.groups) && s.groups[a]>>32 == id; a++ {
				u := uint32(s.groups[a])
				for t := vs[u]; t < vs[u+1]; t++ {
					s.acc.add(vf[t], vv[t])
				}
			}
			s.ks, s.kv = s.acc.flush(s.ks, s.kv, (base+uint64(lo)+id)<<32)
		}
	}
}

// sumPacked is sum's loop for GraphHopper's matrices, appending to s.ks
// and s.kv. The packed positions are in the order of their features' ids,
// so it sums them a position at a time, each over the vertices in order,
// where sum lists every vertex's non-zeros and sorts them by feature:
// the same products, added in the same order, without the list, 20 bytes
// a non-zero (50 MB of the explicit map's scratch on PROTEINS), or its
// sort. It reads the blocks a column at a time, n lines of 64 bytes that
// serve eight positions in turn.
func (s *wvScratch) sumPacked(pf packedFeatures, g, n int, f *wvVertexFeatures) {
	m, d, stride := pf.packed(g)
	t := triangle(d)
	m = m[:n*t]
	vf, vv, vs := f.vf, f.vv, f.vs
	p := 0
	for i := range d {
		for j := i; j < d; j++ {
			for u := range n {
				x := m[u*t+p]
				if x == 0 {
					continue
				}
				for q := vs[u]; q < vs[u+1]; q++ {
					s.acc.add(vf[q], x*vv[q])
				}
			}
			s.ks, s.kv = s.acc.flush(s.ks, s.kv, uint64(i*stride+j)<<32)
			p++
		}
	}
}

// rankPairs sets vecs[i].IDs to the ranks of keys[i] among the distinct keys
// of all graphs, which are pairs wid<<32 | vid with wid < dimW and vid <
// dimV once rewrite, if not nil, has rewritten them, and returns the number
// of distinct keys. Ranks keep each graph's sorted keys sorted. keys[i] is
// released. The graphs' keys are rewritten, and marked and ranked where a
// bitmap ranks them, on up to threads goroutines, each graph's by one.
//
// When the pair space dimW·dimV is at most 32 pairs a non-zero, a bitmap
// over it with a prefix count a word ranks a key in constant time, for at
// most 6 bytes a non-zero (a bit and a 64th of a uint32 per pair of the
// space), and as many bits again a thread; otherwise the keys are sorted
// with their places, which ranks them (see rankBySort), for 16 bytes a
// non-zero. Each thread marks its graphs' pairs in a bitmap of its own,
// and the bitmaps are merged: marked on one thread after the sums on two,
// GI's 6392 pairs on MUTAG took 50 µs, mostly in misses on the keys the
// other thread had summed, and 30 on two (medians of 400 matrices).
func rankPairs(ctx context.Context, keys [][]uint64, vecs []Vec, dimW, dimV uint64, rewrite func([]uint64), nnz, threads int) (int, error) {
	space := dimW * dimV
	if space > 32*uint64(nnz)+1<<16 {
		dim, err := rankBySort(ctx, keys, flatIDs(keys, vecs, nnz), dimW, dimV, rewrite, threads)
		clear(keys)
		return dim, err
	}
	threads = max(1, min(threads, len(keys)))
	marks := make([][]uint64, threads)
	err := forRows(ctx, len(keys), threads, func(w, i int) error {
		if marks[w] == nil {
			marks[w] = make([]uint64, (space+63)/64)
		}
		if rewrite != nil {
			rewrite(keys[i])
		}
		markKeys(marks[w], keys[i], dimV)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return rankMarked(ctx, keys, vecs, dimV, marks, nnz, threads)
}

// markKeys marks in m the place (k>>32)·dimV + k&(2^32−1) of each key k
// of ks, a pair of a weight and a vertex feature.
func markKeys(m []uint64, ks []uint64, dimV uint64) {
	for _, k := range ks {
		p := (k>>32)*dimV + k&(1<<32-1)
		m[p/64] |= 1 << (p % 64)
	}
}

// rankMarked sets vecs[i].IDs to the ranks of keys[i] among the keys that
// marks mark, a bitmap of the places of the keys of the graphs each worker
// marked (see markKeys; nil where a worker marked none), and returns the
// number of keys marked; keys[i] is released. The ranks follow the places,
// so keys whose weight features are numbered by a map that keeps their
// order, as giStream's are before dense rewrites them, rank the same
// whether rewritten or not. It ranks on up to threads goroutines, each
// graph's by one.
func rankMarked(ctx context.Context, keys [][]uint64, vecs []Vec, dimV uint64, marks [][]uint64, nnz, threads int) (int, error) {
	var words []uint64
	for _, m := range marks {
		if words == nil {
			words = m
			continue
		}
		for j, x := range m {
			words[j] |= x
		}
	}
	prefix := make([]uint32, len(words))
	var r uint32
	for j, x := range words {
		prefix[j] = r
		r += uint32(bits.OnesCount64(x))
	}
	flatIDs(keys, vecs, nnz)
	err := forRows(ctx, len(keys), threads, func(_, i int) error {
		ids := vecs[i].IDs
		for t, k := range keys[i] {
			p := (k>>32)*dimV + k&(1<<32-1)
			ids[t] = prefix[p/64] + uint32(bits.OnesCount64(words[p/64]&(1<<(p%64)-1)))
		}
		keys[i] = nil
		return nil
	})
	return int(r), err
}

// flatIDs points vecs[i].IDs into one array of nnz ids, as long as keys[i],
// and returns the array. Allocated graph by graph, the ids made the ranking
// of GI's pairs on MUTAG on one thread take 76 µs, against 49.
func flatIDs(keys [][]uint64, vecs []Vec, nnz int) []uint32 {
	all := make([]uint32, nnz)
	ids := all
	for i, ks := range keys {
		vecs[i].IDs, ids = ids[:len(ks):len(ks)], ids[len(ks):]
	}
	return all
}

// rankBySort sets ids to the ranks of the keys of keys, taken in order,
// among their distinct keys, pairs wid<<32 | vid with wid < dimW and vid <
// dimV once rewrite, if not nil, has rewritten them as it packs them, and
// returns the number of distinct keys. It sorts the keys, each
// packed into as few bits as the pairs' ranges need with its place in ids
// below them, by radix, and hands out the ranks in one pass over the
// sorted keys: GI's 445k pairs on Synthie (hat kernel, P = 4, h = 3), 26
// bits packed and 19 of place, took 4.5–4.9 ms in three passes, where
// sorting the keys as they are (slices.Sort) had taken 13.6 ms, and a
// binary search of the sorted keys for each key's rank 10.5 (one thread);
// its 92k pairs at P = 1 took 0.9–1.0 ms against 2.8 and 2.3. On up to
// threads goroutines each step takes a part of the keys: the packing, the
// radix passes (see radixSortOn) and the ranks, each part's first rank
// counted ahead: on two, 2.6–2.8 ms for the 445k pairs, 0.55–0.60 for the
// 92k, and 12–13 ms for the 1.8M at P = 16, against 21–22 on one. Where
// the packed keys and places do not fit in 64 bits, they are sorted by
// comparison, on one thread.
func rankBySort(ctx context.Context, keys [][]uint64, ids []uint32, dimW, dimV uint64, rewrite func([]uint64), threads int) (int, error) {
	b := bits.Len64(max(dimV, 1) - 1)
	width := b + bits.Len64(max(dimW, 1)-1)
	ob := bits.Len(uint(len(ids)))
	if width+ob > 64 {
		type placed struct {
			key   uint64
			place uint32
		}
		ps := make([]placed, 0, len(ids))
		for _, ks := range keys {
			if rewrite != nil {
				rewrite(ks)
			}
			for _, k := range ks {
				ps = append(ps, placed{k, uint32(len(ps))})
			}
		}
		slices.SortFunc(ps, func(x, y placed) int { return cmp.Compare(x.key, y.key) })
		r := -1
		for t, p := range ps {
			if t == 0 || p.key != ps[t-1].key {
				r++
			}
			ids[p.place] = uint32(r)
		}
		return r + 1, nil
	}
	if len(ids) < parallelRadixMin {
		threads = 1
	}
	all := make([]uint64, len(ids))
	starts := make([]int, len(keys)+1)
	for i, ks := range keys {
		starts[i+1] = starts[i] + len(ks)
	}
	if err := forRows(ctx, len(keys), threads, func(_, i int) error {
		if rewrite != nil {
			rewrite(keys[i])
		}
		for t, k := range keys[i] {
			p := starts[i] + t
			all[p] = (k>>32<<b|k&(1<<32-1))<<ob | uint64(p)
		}
		return nil
	}); err != nil {
		return 0, err
	}
	all, err := radixSortOn(ctx, all, ob, width, threads)
	if err != nil {
		return 0, err
	}
	// Part c's keys are all[cut(c):cut(c+1)]; first[c+1] counts the keys
	// of part c that differ from the key before them, where there are
	// parts after it. Each of those parts is counted in a piece a thread:
	// counted whole on one of two threads, part 0 of GI's 445k keys on
	// Synthie took 0.33 ms, in two pieces 0.23.
	parts := max(1, threads)
	cut := func(c int) int { return c * len(all) / parts }
	first := make([]int, parts+1)
	if parts > 1 {
		pieces := make([]int, (parts-1)*threads)
		if err := forRows(ctx, len(pieces), threads, func(_, q int) error {
			c, k := q/threads, q%threads
			lo, hi := cut(c), cut(c+1)
			pieces[q] = distinctFrom(all, lo+k*(hi-lo)/threads, lo+(k+1)*(hi-lo)/threads, ob)
			return nil
		}); err != nil {
			return 0, err
		}
		for q, d := range pieces {
			first[q/threads+1] += d
		}
		for c := range parts - 1 {
			first[c+1] += first[c]
		}
	}
	mask := uint64(1)<<ob - 1
	var dim int
	err = forRows(ctx, parts, threads, func(_, c int) error {
		r := first[c] - 1
		sorted, lo, hi := all, cut(c), cut(c+1)
		for t := lo; t < hi; t++ {
			if t == 0 || sorted[t]>>ob != sorted[t-1]>>ob {
				r++
			}
			ids[sorted[t]&mask] = uint32(r)
		}
		if c == parts-1 {
			dim = r + 1
		}
		return nil
	})
	return dim, err
}

// distinctFrom counts the keys of sorted[lo:hi] that differ from the key
// before them in sorted, compared above their ob low bits.
func distinctFrom(sorted []uint64, lo, hi, ob int) int {
	n := 0
	for t := lo; t < hi; t++ {
		if t == 0 || sorted[t]>>ob != sorted[t-1]>>ob {
			n++
		}
	}
	return n
}

// parallelRadixMin is the fewest keys that rankBySort sorts on more than
// one thread: 32k keys take about 0.3 ms on one.
const parallelRadixMin = 1 << 15

// denseAcc sums values by small dense ids in an array, marking the touched
// ids in a bitmap, and hands back the sums in id order: by scanning the
// bitmap between the smallest and largest touched id when they are close,
// else by sorting the touched ids.
type denseAcc struct {
	val     []float64
	bits    []uint64
	touched []uint32
	lo, hi  uint32 // smallest and largest touched id
}

func (a *denseAcc) add(id uint32, x float64) {
	if int(id) >= len(a.val) {
		// At least doubling, and to exactly the size asked, so that
		// wvBytes can bound what growth allocates.
		n := max(2*len(a.val), int(id)+1, 1024)
		val, marks := make([]float64, n), make([]uint64, (n+63)/64)
		copy(val, a.val)
		copy(marks, a.bits)
		a.val, a.bits = val, marks
	}
	if w, b := id/64, uint64(1)<<(id%64); a.bits[w]&b == 0 {
		a.bits[w] |= b
		if len(a.touched) == 0 {
			a.lo, a.hi = id, id
		}
		a.lo, a.hi = min(a.lo, id), max(a.hi, id)
		a.touched = append(a.touched, id)
	}
	a.val[id] += x
}

// flush appends prefix|id and the sum of every touched id with a non-zero
// sum to keys and vals, in increasing id, and resets the accumulator.
func (a *denseAcc) flush(keys []uint64, vals []float64, prefix uint64) ([]uint64, []float64) {
	t := len(a.touched)
	if t == 0 {
		return keys, vals
	}
	emit := func(id uint32) {
		if v := a.val[id]; v != 0 {
			keys = append(keys, prefix|uint64(id))
			vals = append(vals, v)
		}
		a.val[id] = 0
	}
	// Scanning costs a word a 64 ids of the span, sorting t·log t.
	if lo, span := a.lo/64, int(a.hi/64-a.lo/64)+1; span <= t*bits.Len(uint(t)) {
		for w, x := range a.bits[lo : int(lo)+span] {
			for x != 0 {
				emit((lo+uint32(w))*64 + uint32(bits.TrailingZeros64(x)))
				x &= x - 1
			}
		}
		clear(a.bits[lo : int(lo)+span])
	} else {
		slices.Sort(a.touched)
		for _, id := range a.touched {
			emit(id)
			a.bits[id/64] = 0
		}
	}
	a.touched = a.touched[:0]
	return keys, vals
}
