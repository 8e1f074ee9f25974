package kernels

import (
	"context"
	"sync"

	"github.com/gkbench/gkbench/graph"
)

// A Workspace keeps the large buffers of a Gram matrix for the next one
// computed under the same context: the interners' tables, the
// accumulators, the per-vertex vectors and the feature vectors of the
// walk kernel's explicit map, and the posting lists of its dot products;
// the signature tables of GI's and the walk kernel's WL refinements, run
// as pipelines (see stagedStream) or not (graph.RefineOnWith); the
// workers of the graphlet and csm kernels' maps (see glBufs); and the
// posting lists of the other kernels' dot products (see takePostings).
// Attach one to a context with WithWorkspace; without one, every Gram
// matrix allocates its buffers anew.
//
// Why: the collector runs once the heap has grown by as much as was live
// after the last collection, and a small data set leaves little live. The
// walk kernel's explicit Gram matrix of MUTAG allocated 4.5 MB at length 7
// and 29 MB at length 9, two and five collections a matrix, and on two
// threads each collection took a core from the kernel's pipeline: run
// with GOGC=400, the matrices took 23 ms at length 9 where they took 26,
// and 1.83 times one thread's time where they took 1.63. Kept from one
// matrix to the next, the buffers are allocated once.
//
// A Workspace lends its buffers to one Gram matrix at a time; a matrix
// computed while another has them allocates its own. The vectors of a
// matrix live in the Workspace's buffers until the next matrix reuses
// them, so a Workspace is only for Gram matrices, which return none. It
// holds what the largest matrix computed under it needed, until it is
// dropped or Released: attach one for a run of like matrices, such as the
// repetitions of a benchmark's cell, not for a whole program.
type Workspace struct {
	mu       sync.Mutex
	walk     *walkBufs // nil while lent
	streams  *graph.StreamTables
	graphlet *glBufs         // nil while lent
	postings *postingScratch // nil while lent
}

// NewWorkspace returns an empty Workspace.
func NewWorkspace() *Workspace { return new(Workspace) }

type workspaceKey struct{}

// WithWorkspace returns a copy of ctx that carries w, for the Gram
// matrices computed under it.
func WithWorkspace(ctx context.Context, w *Workspace) context.Context {
	return context.WithValue(ctx, workspaceKey{}, w)
}

func workspaceFrom(ctx context.Context) *Workspace {
	w, _ := ctx.Value(workspaceKey{}).(*Workspace)
	return w
}

// Bytes returns the bytes of the buffers w holds, not counting any that
// are lent.
func (w *Workspace) Bytes() int64 {
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.walk.bytes() + w.streams.Bytes() + w.graphlet.bytes() + w.postings.bytes()
}

// Release drops the buffers w holds, for the collector to take.
func (w *Workspace) Release() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.walk, w.streams, w.graphlet, w.postings = nil, nil, nil, nil
	w.mu.Unlock()
}

// takeStreamTables lends the signature tables of a refinement, pipelined
// (see stagedStream) or not, of ctx's Workspace, or new ones where it has
// none to lend.
func takeStreamTables(ctx context.Context) *graph.StreamTables {
	w := workspaceFrom(ctx)
	if w == nil {
		return new(graph.StreamTables)
	}
	return lendSlot(w, &w.streams)
}

// giveStreamTables keeps t in ctx's Workspace, if any, unless it holds
// larger ones.
func giveStreamTables(ctx context.Context, t *graph.StreamTables) {
	if w := workspaceFrom(ctx); w != nil {
		keepSlot(w, &w.streams, t, (*graph.StreamTables).Bytes)
	}
}

// takePostings lends the arrays of the posting lists of ctx's Workspace
// (see postingScratch), for the dot products of the kernels whose own
// buffers hold none (the walk kernel's do), or returns nil where ctx has
// no Workspace. Allocated anew for each matrix, the arrays of GI's
// 12,445 postings on 200 ENZYMES graphs took 37 µs of its dot products'
// 450 on two threads, before either thread could take a row; kept, the
// dot products took 440–448 µs against 467–503, and on one thread as
// long as before (a test binary, medians of 100–150 by turns).
func takePostings(ctx context.Context) *postingScratch {
	w := workspaceFrom(ctx)
	if w == nil {
		return nil
	}
	return lendSlot(w, &w.postings)
}

// givePostings keeps sc, if not nil, in ctx's Workspace, unless it holds
// larger arrays.
func givePostings(ctx context.Context, sc *postingScratch) {
	if w := workspaceFrom(ctx); w != nil && sc != nil {
		keepSlot(w, &w.postings, sc, (*postingScratch).bytes)
	}
}

// lendSlot takes the buffers in slot, one of w's fields, under w's lock,
// leaving it empty while they are lent, or returns new ones where it is
// empty.
func lendSlot[T any](w *Workspace, slot **T) *T {
	w.mu.Lock()
	b := *slot
	*slot = nil
	w.mu.Unlock()
	if b == nil {
		b = new(T)
	}
	return b
}

// keepSlot puts b, of size bytes, in slot, one of w's fields, under w's
// lock, unless the slot holds larger buffers, which another matrix gave
// back meanwhile.
func keepSlot[T any](w *Workspace, slot **T, b *T, size func(*T) int64) {
	w.mu.Lock()
	if *slot == nil || size(*slot) < size(b) {
		*slot = b
	}
	w.mu.Unlock()
}

// takeWalk lends the walk kernel's buffers of ctx's Workspace, or, with
// no Workspace or where they are lent, returns new ones.
func takeWalk(ctx context.Context) *walkBufs {
	w := workspaceFrom(ctx)
	if w == nil {
		return new(walkBufs)
	}
	b := lendSlot(w, &w.walk)
	b.lent = w
	return b
}

// giveBack returns b to the Workspace it was lent by, if any. It is called
// only after a matrix is done: one that failed may have left its
// accumulators dirty, and its buffers are dropped instead.
func (b *walkBufs) giveBack() {
	w := b.lent
	if w == nil {
		return
	}
	b.lent = nil
	keepSlot(w, &w.walk, b, (*walkBufs).bytes)
}

// glBufs are the workers of the graphlet map of a Gram matrix (graphletGram),
// which a Workspace keeps from one matrix to the next: their interners'
// tables, accumulators and vectors. Allocated anew for each matrix, they
// cost MUTAG's graphlet matrix a tenth of its time: 0.49–0.51 ms on one
// thread against 0.44–0.47 kept, 0.39–0.41 on two against 0.34–0.41
// (BenchmarkSubgraphGramThreads, ws=false and true); under runexp, three
// rounds of 20 matrices by turns, its map took 0.322 ms on one thread
// against 0.301–0.303 kept, 0.190–0.222 on two against 0.184–0.202. On
// ENZYMES, whose graphs count more patterns, the two are the same.
type glBufs struct {
	workers []glWorker
	lent    *Workspace
}

// takeGraphlet lends the graphlet map's workers of ctx's Workspace, or,
// with no Workspace or where they are lent, returns new ones.
func takeGraphlet(ctx context.Context) *glBufs {
	w := workspaceFrom(ctx)
	if w == nil {
		return new(glBufs)
	}
	b := lendSlot(w, &w.graphlet)
	b.lent = w
	return b
}

// take returns threads workers, emptied, which keep their vectors in
// their slabs if b is a Workspace's.
func (b *glBufs) take(threads int) []glWorker {
	for len(b.workers) < threads {
		b.workers = append(b.workers, glWorker{})
	}
	ws := b.workers[:threads]
	for i := range ws {
		ws[i].reuse(b.lent != nil)
	}
	return ws
}

// giveBack returns b to the Workspace it was lent by, if any, once the
// matrix is done; after a failed one its workers may be dirty, and are
// dropped instead.
func (b *glBufs) giveBack() {
	w := b.lent
	if w == nil {
		return
	}
	b.lent = nil
	keepSlot(w, &w.graphlet, b, (*glBufs).bytes)
}

func (b *glBufs) bytes() int64 {
	if b == nil {
		return 0
	}
	var n int64
	for i := range b.workers {
		n += b.workers[i].bytes()
	}
	return n
}

// walkBufs are the buffers of the walk kernel's explicit Gram matrix.
type walkBufs struct {
	// maps are the buffers of the mapper and of the pipeline's last
	// round (see mapPiped).
	maps [2]mapBufs
	// free are the pipeline's per-vertex vectors for reuse.
	free []csrVecs
	// vecs holds the graph vectors.
	vecs vecSlab
	// cols are the column workers' buffers, and gram those of the dot
	// products after the map. Taken from cols, the latter grew each of
	// them to its posting lists over the matrices, 8.6 MiB each on
	// MUTAG at walk length 9, where a block of columns takes 1–2.
	cols []colBufs
	gram postingScratch
	// private are the private map's workers' buffers (see
	// lendPrivate).
	private []privateBufs
	// lent is the Workspace that lent the buffers, if any.
	lent *Workspace
	mu   sync.Mutex // guards cols
}

// colBufs are a column worker's buffers (see overlapGram.work).
type colBufs struct {
	sc    postingScratch
	dense []float64
}

// takeCol lends a column worker's buffers.
func (b *walkBufs) takeCol() colBufs {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := len(b.cols)
	if k == 0 {
		return colBufs{}
	}
	c := b.cols[k-1]
	b.cols = b.cols[:k-1]
	return c
}

// putCol returns a column worker's buffers.
func (b *walkBufs) putCol(c colBufs) {
	b.mu.Lock()
	b.cols = append(b.cols, c)
	b.mu.Unlock()
}

// lendMapper makes b, a matrix's mapper, map in wb's first buffers of a
// map and store its graph vectors in wb's slab, emptied for the matrix.
// The pipeline's last round maps in the second (see mapPiped), into the
// same slab.
func (wb *walkBufs) lendMapper(b *walkMapper) {
	b.useBufs(&wb.maps[0], &wb.vecs)
	wb.vecs.reset()
}

// privateBufs are a private map's worker's buffers: those of its mapper,
// and the slab of its graph vectors.
type privateBufs struct {
	m    mapBufs
	vecs vecSlab
}

// lendPrivate makes the workers of p map in wb's buffers of the private
// map, and store their graph vectors in its slabs, emptied for the
// matrix. Allocated anew for each matrix, with each graph's vector, the
// private map of MUTAG at walk length 3 on two threads took 390–429 µs a
// worker against 351–405 kept (a scratch test, medians of 200 matrices),
// and under runexp (six rounds of 20 matrices by turns, far placement)
// the matrix took 0.788 ms against 0.715, ENZYMES's 1.396 against 1.288.
func (wb *walkBufs) lendPrivate(p *privateMap) {
	for len(wb.private) < len(p.ws) {
		wb.private = append(wb.private, privateBufs{})
	}
	for w := range p.ws {
		pb := &wb.private[w]
		p.ws[w].m.useBufs(&pb.m, &pb.vecs)
		pb.vecs.reset()
	}
}

// keepPrivate takes back the buffers of p's mappers, which lendPrivate
// lent, once the matrix is done with the vectors and wb.maps[0] holds the
// mapper's. The first worker numbered in the mapper's table, the union
// (see switchPrivate), which goes back to the mapper's buffers, so that
// each table keeps its size from one matrix to the next.
func (wb *walkBufs) keepPrivate(p *privateMap) {
	for w := range p.ws {
		wb.private[w].m = p.ws[w].m.mapBufs
	}
	wb.maps[0].fast, wb.private[0].m.fast = wb.private[0].m.fast, wb.maps[0].fast
}

// bytes returns the bytes of b's buffers.
func (b *walkBufs) bytes() int64 {
	if b == nil {
		return 0
	}
	n := b.maps[0].bytes() + b.maps[1].bytes() + b.vecs.bytes() + b.gram.bytes()
	for i := range b.private {
		n += b.private[i].m.bytes() + b.private[i].vecs.bytes()
	}
	for i := range b.free {
		n += b.free[i].capBytes()
	}
	for i := range b.cols {
		n += b.cols[i].sc.bytes() + int64(cap(b.cols[i].dense))*8
	}
	return n
}

// mapBufs are the buffers a walkMapper grows.
type mapBufs struct {
	fast interner[key64]
	// vacc accumulates per-vertex vectors, gacc the graph vector of Max
	// (see graphAcc); cur holds the per-vertex vectors of a round, and
	// nxt those of the next.
	vacc, gacc accumulator
	cur, nxt   csrVecs
	// groups holds the pairs around each vertex for pushLast, those of
	// v at groupOff[v]:groupOff[v+1].
	groups   []pairGroup
	groupOff []int32
}

// reuse readies m's buffers for a new map: the interner emptied, its
// table kept. The accumulators are empty after every map that finished.
func (m *mapBufs) reuse() { m.fast.reset() }

func (m *mapBufs) bytes() int64 {
	n := m.fast.bytes() + m.vacc.bytes() + m.gacc.bytes()
	n += m.cur.capBytes() + m.nxt.capBytes()
	n += int64(cap(m.groups))*16 + int64(cap(m.groupOff))*4
	return n
}

func (a *accumulator) bytes() int64 {
	return int64(cap(a.val))*9 + int64(cap(a.touched)+cap(a.spare))*4
}

func (c *csrVecs) capBytes() int64 {
	return int64(cap(c.off))*4 + int64(cap(c.ids))*4 + int64(cap(c.vals))*8
}

func (sc *postingScratch) bytes() int64 {
	if sc == nil {
		return 0
	}
	return int64(cap(sc.pos)+cap(sc.graphs)+cap(sc.self)+cap(sc.offs))*4 + int64(cap(sc.vals))*8
}

// slabChunk is the largest number of non-zeros of a vecSlab's chunks, but
// for a vector longer than that: 768 KiB. The first chunk holds
// slabFirst, and each next one twice the last, so that a small map's
// vectors, such as MUTAG's 7192 non-zeros at walk length 3, take little
// more than their size.
const (
	slabChunk = 1 << 16
	slabFirst = 1 << 12
)

// vecSlab stores graph vectors in chunks that are kept from one matrix to
// the next. A vector never spans two chunks, and the chunks never move,
// so the vectors stay valid while later ones are added.
type vecSlab struct {
	ids  [][]uint32
	vals [][]float64
	at   int // the chunk being filled
}

// reset empties s, keeping its chunks.
func (s *vecSlab) reset() {
	for i := range s.ids {
		s.ids[i], s.vals[i] = s.ids[i][:0], s.vals[i][:0]
	}
	s.at = 0
}

// flush moves a's non-zeros, sorted by id where sorted is set, into a
// vector of s.
func (s *vecSlab) flush(a *accumulator, sorted bool) Vec {
	n := len(a.touched)
	for s.at < len(s.ids) && cap(s.ids[s.at])-len(s.ids[s.at]) < n {
		if len(s.ids[s.at]) == 0 {
			// A chunk too small for the vector even empty: a larger
			// one takes its place.
			break
		}
		s.at++
	}
	if s.at == len(s.ids) || cap(s.ids[s.at])-len(s.ids[s.at]) < n {
		size := max(n, min(slabChunk, slabFirst<<min(s.at, 4)))
		if s.at == len(s.ids) {
			s.ids = append(s.ids, nil)
			s.vals = append(s.vals, nil)
		}
		s.ids[s.at], s.vals[s.at] = make([]uint32, 0, size), make([]float64, 0, size)
	}
	ids, vals := s.ids[s.at], s.vals[s.at]
	start := len(ids)
	if sorted {
		ids, vals = a.flush(ids, vals)
	} else {
		ids, vals = a.flushUnsorted(ids, vals)
	}
	s.ids[s.at], s.vals[s.at] = ids, vals
	end := len(ids)
	return Vec{IDs: ids[start:end:end], Vals: vals[start:end:end]}
}

func (s *vecSlab) bytes() int64 {
	var n int64
	for i := range s.ids {
		n += int64(cap(s.ids[i]))*4 + int64(cap(s.vals[i]))*8
	}
	return n
}
