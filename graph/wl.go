package graph

import (
	"fmt"
	"math/bits"
	"slices"
)

// Start selects the labelling that WL refinement starts from.
type Start int

const (
	// FromLabels starts from the vertex labels of the graphs.
	FromLabels Start = iota
	// Uniform starts from one label for every vertex, so that refinement
	// sees only the unlabelled structure, as the graph invariant kernel of
	// Section 4.1.1 of the paper requires.
	Uniform
)

// Parallel spreads the loops of a computation over goroutines, for the
// functions that take one (RefineOn, RefineGraphsOn). The zero Parallel
// runs them on the calling goroutine. The package starts no goroutines of
// its own, so that the caller decides how its workers are kept (a pool, a
// crew that stays awake between loops).
type Parallel struct {
	// Workers is the number of goroutines Run may call body on.
	Workers int
	// Run calls body(w, i) for every i in [0, n), once each, where w <
	// Workers names the calling goroutine, so that two calls with the
	// same w never overlap. It returns once no call is running: with
	// nil when every i was done, else with an error that says why it
	// stopped (a cancelled context's, say).
	Run func(n int, body func(w, i int)) error
}

func (p Parallel) workers() int {
	if p.Run == nil {
		return 1
	}
	return max(1, p.Workers)
}

func (p Parallel) run(n int, body func(w, i int)) error {
	if p.workers() == 1 {
		for i := range n {
			body(0, i)
		}
		return nil
	}
	return p.Run(n, body)
}

// Refine runs h iterations of Weisfeiler-Lehman refinement over all graphs at
// once, with one shared injective colour map per iteration so that colours are
// comparable across graphs. It returns colours[i][g][v] for i = 0..h:
// colours[0] is the start labelling, colours[i] the colours after i
// iterations.
//
// colours[0] holds the vertex labels of the graphs unchanged for FromLabels
// (so label ids keep their meaning in the Dataset's dictionary) and 0 for
// every vertex for Uniform. For i ≥ 1 the colours are dense ids 0..k_i-1,
// numbered in order of first appearance when scanning the graphs in order
// and the vertices of each graph in order, so the result is deterministic.
//
// The signature of v in iteration i is the colour of v after i-1 iterations
// followed by the sorted multiset of pairs (label of the edge vu, colour of u)
// over the neighbours u of v. Pairing the neighbour colour with the edge label
// is our extension for edge-labelled graphs; with uniform edge labels it is
// exactly the refinement of Section 4.1.1 of the paper.
//
// Every returned slice is freshly allocated; callers may modify them. Refine
// panics if h is negative or start is not a known Start.
func Refine(gs []*Graph, h int, start Start) [][][]int32 {
	colours, _ := RefineOn(gs, h, start, Parallel{})
	return colours
}

// RefineOn is Refine with the work spread over par's workers; the colours
// are the same for any number of them. It returns Run's error if Run stops
// early.
//
// Where Splits says so, each worker refines a part of the graphs through
// every iteration in tables of its own, and one of them numbers the other
// parts' distinct signatures in the first's (see splitRefiner). Else the
// workers compute, sort and hash the signatures of chunks of graphs, an
// iteration at a time, and number them in one table that they share (see
// sharedSigs), in an order that depends on how they ran; one sequential
// pass then renumbers the colours by first appearance, a look-up in a
// small array a vertex.
func RefineOn(gs []*Graph, h int, start Start, par Parallel) ([][][]int32, error) {
	return RefineOnWith(nil, gs, h, start, par)
}

// RefineOnWith is RefineOn with the signature tables of t, if not nil,
// which it works in and leaves there, grown to what it needed, for the
// next refinement: a caller that refines again and again keeps them
// rather than allocate new ones each time. t must not serve two
// refinements at once.
func RefineOnWith(t *StreamTables, gs []*Graph, h int, start Start, par Parallel) ([][][]int32, error) {
	return refineOn(t, gs, h, start, par, Splits(gs, h, par.workers()))
}

// refineOn is RefineOnWith, split (see splitRefiner) if split is set.
func refineOn(t *StreamTables, gs []*Graph, h int, start Start, par Parallel, split bool) ([][][]int32, error) {
	if t == nil {
		t = &StreamTables{}
	}
	if split {
		return newSplitRefiner(t, gs, h, start, par.workers(), true).run(par)
	}
	r := newRefiner(gs, h, start, par)
	r.useTables(t)
	colours := make([][][]int32, h+1)
	colours[0] = r.startColours()
	prevK := -1
	for i := 1; i <= h; i++ {
		colours[i] = r.alloc()
		k, err := r.step(colours[i-1], colours[i], true)
		if err != nil {
			return nil, err
		}
		// A refinement with as many classes as the partition it refines is
		// that partition, and both are numbered by first appearance, so all
		// later iterations reproduce these colours exactly; copying them
		// saves the hashing.
		if k == prevK {
			for j := i + 1; j <= h; j++ {
				colours[j] = r.alloc()
			}
			return colours, r.finish(colours[i], colours[i+1:])
		}
		prevK = k
	}
	return colours, r.finish(colours[h], nil)
}

// RefineGraphs returns graphs sharing the structure of gs with the vertex
// labels replaced by the colours after h iterations of Refine (via
// Graph.WithLabels). For h = 0 and FromLabels the labels are copies of the
// original ones.
func RefineGraphs(gs []*Graph, h int, start Start) []*Graph {
	out, _ := RefineGraphsOn(gs, h, start, Parallel{})
	return out
}

// RefineGraphsOn is RefineGraphs with the work spread over par's workers
// (see RefineOn).
func RefineGraphsOn(gs []*Graph, h int, start Start, par Parallel) ([]*Graph, error) {
	return RefineGraphsOnWith(nil, gs, h, start, par)
}

// RefineGraphsOnWith is RefineGraphsOn with the signature tables of t (see
// RefineOnWith).
func RefineGraphsOnWith(t *StreamTables, gs []*Graph, h int, start Start, par Parallel) ([]*Graph, error) {
	return refineGraphsOn(t, gs, h, start, par, Splits(gs, h, par.workers()))
}

// refineGraphsOn is RefineGraphsOnWith, split (see splitRefiner) if split
// is set.
func refineGraphsOn(t *StreamTables, gs []*Graph, h int, start Start, par Parallel, split bool) ([]*Graph, error) {
	if t == nil {
		t = &StreamTables{}
	}
	var (
		cur [][]int32
		err error
	)
	if split {
		var cols [][][]int32
		if cols, err = newSplitRefiner(t, gs, h, start, par.workers(), false).run(par); err == nil {
			cur = cols[h]
		}
	} else {
		cur, err = refineLast(t, gs, h, start, par)
	}
	if err != nil {
		return nil, err
	}
	return Relabelled(gs, cur), nil
}

// refineLast returns the colours of the last of h iterations, refined an
// iteration at a time on par's workers in t's first table, or in their
// shared one (see refiner.step).
func refineLast(t *StreamTables, gs []*Graph, h int, start Start, par Parallel) ([][]int32, error) {
	r := newRefiner(gs, h, start, par)
	r.useTables(t)
	cur := r.startColours()
	// Only two generations are alive at a time, so memory stays at two
	// labellings however large h is.
	var spare [][]int32
	prevK := -1
	for i := 1; i <= h; i++ {
		if spare == nil {
			spare = r.alloc()
		}
		// Only the last colours are returned, and only they need
		// numbering by first appearance: an iteration's signatures
		// tell the same vertices apart under any names of the colours
		// before.
		k, err := r.step(cur, spare, false)
		if err != nil {
			return nil, err
		}
		cur, spare = spare, cur
		if k == prevK {
			break // stable: later iterations give the same colours (see Refine)
		}
		prevK = k
	}
	r.numbered(cur)
	return cur, r.finish(cur, nil)
}

// refiner holds what the iterations of one refinement share, so that the
// inner loops do not allocate once their storage has grown to size.
type refiner struct {
	gs    []*Graph
	start Start
	total int // vertices over all graphs
	words int // signature words over all graphs: vertices and arcs
	par   Parallel

	// chunks are the runs of consecutive graphs the workers take, one
	// at a time; a single one where the work is not spread.
	chunks []wlChunk
	// With one chunk, the signatures of the iteration and their table.
	sigs *sigList
	seq  *wlWorker
	// With several, the workers' shared table, and first[id], the
	// colour + 1 of the table's id id, 0 while unseen, for the
	// renumbering.
	shared *sharedSigs
	first  []int32
	// byDegree says that the next step, the first, numbers the vertices
	// by degree (see degreeColours).
	byDegree bool
	// unnumbered says that the last step left the shared table's ids
	// (see step).
	unnumbered bool
	// counts holds what the last refinement of these graphs in the one
	// worker's table counted, which sizes it (see refinementCounts);
	// iter is the iteration the last step refined.
	counts *refinementCounts
	iter   int
}

// A wlChunk is a run of consecutive graphs, gs[g0:g1], that one worker
// refines.
type wlChunk struct{ g0, g1 int }

// wlWorker numbers signatures in a table of its own: the refiner's on one
// goroutine, a Stream's for each iteration.
type wlWorker struct {
	index sigIndex
	sig   []uint64 // the signature being numbered
	// A graph's signatures, their ends and hashes, and the bitwise or
	// of the slots loaded ahead, kept so that those loads are not
	// dropped as dead (see number).
	sigs    []uint64
	ends    []int32
	hashes  []uint64
	touched uint64
}

// prepare empties l and wk's table for up to entries signatures of words
// words in all, in the arrays they have where those are large enough. The
// table is sized for expect signatures where 0 < expect < entries, and
// grows if more come (see sigIndex.intern), else for entries.
func (wk *wlWorker) prepare(l *sigList, entries, words, expect int) {
	if cap(l.bounds) > entries && cap(l.keys) >= words {
		l.reset()
	} else {
		l.init(entries, words)
	}
	if expect <= 0 || expect > entries {
		expect = entries
	}
	wk.index.reset(expect)
}

// number writes the numbers of the signatures of g's vertices under the
// colours p to out, adding the new ones to l.
//
// Where l holds more than numberAheadFrom signatures, their slots and
// signatures no longer stay in the cache, and each look-up waited for its
// slot before the next signature was built: a miss at a time, nearly all
// of the look-ups' time on PROTEINS from uniform colours (25,122
// signatures in the third iteration, a 1 MiB table). So number builds and
// hashes all of g's signatures first, then loads each one's slot, loads
// that do not wait for one another, and only then looks them up, finding
// the slots in the cache. With fewer signatures the slots stay cached and
// the extra passes cost more than they save (MUTAG, NCI1).
func (wk *wlWorker) number(l *sigList, g *Graph, p, out []int32) {
	if l.len() < numberAheadFrom {
		sig := wk.sig
		for v := range out {
			sig = appendSignature(sig[:0], g, p, v)
			out[v] = wk.index.intern(l, sig, hashUint64s(sig))
		}
		wk.sig = sig
		return
	}
	sigs, ends, hashes := wk.sigs[:0], wk.ends[:0], wk.hashes[:0]
	for v := range out {
		from := len(sigs)
		sigs = appendSignature(sigs, g, p, v)
		ends = append(ends, int32(len(sigs)))
		hashes = append(hashes, hashUint64s(sigs[from:]))
	}
	mask := uint64(len(wk.index.slots) - 1)
	var t uint64
	for _, h := range hashes {
		t |= wk.index.slots[h&mask]
	}
	wk.touched |= t
	from := int32(0)
	for v := range out {
		out[v] = wk.index.intern(l, sigs[from:ends[v]], hashes[v])
		from = ends[v]
	}
	wk.sigs, wk.ends, wk.hashes = sigs, ends, hashes
}

// numberAheadFrom is the number of signatures in a table from which
// wlWorker.number loads a graph's slots ahead of its look-ups, where their
// lines (a slot each, and the signatures' words) outgrow a core's 512 KiB
// of L2 cache. Three iterations by a Stream in tables kept from one
// refinement to the next, both ways by turns (medians of 30, two runs):
// from uniform colours, PROTEINS 10.0–10.6 ms against 12.4–14.6, ENZYMES
// 4.3–4.5 against 4.8–5.2, MUTAG and NCI1 as before; from the labels,
// PROTEINS 15.5–16.4 against 23.2–24.8, ENZYMES 6.6–6.8 against 7.9–8.0,
// NCI1 26.5–36.7 against 34.0–41.9. From 0, MUTAG (478 colours at most)
// took 20% longer and NCI1 from uniform colours (2,109) 12%.
const numberAheadFrom = 4096

// refineChunkVertices is the fewest vertices a chunk has when the work is
// spread: fewer, and the parallel loops cost more than the numbering.
const refineChunkVertices = 256

func newRefiner(gs []*Graph, h int, start Start, par Parallel) *refiner {
	if h < 0 {
		panic(fmt.Sprintf("graph: Refine with negative number of iterations %d", h))
	}
	if start != FromLabels && start != Uniform {
		panic(fmt.Sprintf("graph: Refine with unknown start %d", start))
	}
	r := &refiner{gs: gs, start: start, par: par, byDegree: degreeColours(gs, start), sigs: &sigList{}, seq: &wlWorker{}}
	for _, g := range gs {
		r.total += g.N()
		r.words += g.N() + len(g.Adj)
	}
	r.chunks = []wlChunk{{0, len(gs)}}
	if h == 0 {
		return r
	}
	workers := min(par.workers(), r.total/refineChunkVertices)
	if workers > 1 {
		longest := 0 // words of the longest signature
		for _, g := range gs {
			if g.N() > 0 {
				longest = max(longest, 1+g.MaxDegree())
			}
		}
		r.shared = newSharedSigs(par.workers(), r.total, r.words, longest)
	}
	if r.shared != nil {
		// Eight chunks a worker balance the load.
		target := max(refineChunkVertices, (r.total+8*workers-1)/(8*workers))
		r.chunks = r.chunks[:0]
		c, n := wlChunk{}, 0
		for i, g := range gs {
			if n += g.N(); n >= target || i == len(gs)-1 {
				c.g1 = i + 1
				r.chunks = append(r.chunks, c)
				c, n = wlChunk{g0: i + 1}, 0
			}
		}
	}
	return r
}

// useTables has r number a refinement on one worker in t's first table.
func (r *refiner) useTables(t *StreamTables) {
	t.grow(1)
	r.sigs, r.seq = &t.sigs[0], &t.iters[0]
	t.counts = t.counts.of(r.key())
	r.counts = &t.counts
}

// alloc returns one labelling of all graphs, backed by a single array so that
// an iteration costs one allocation rather than one per graph.
func (r *refiner) alloc() [][]int32 {
	flat := make([]int32, r.total)
	out := make([][]int32, len(r.gs))
	off := 0
	for i, g := range r.gs {
		n := g.N()
		out[i] = flat[off : off+n : off+n]
		off += n
	}
	return out
}

func (r *refiner) startColours() [][]int32 {
	c := r.alloc()
	if r.start == FromLabels {
		for i, g := range r.gs {
			copy(c[i], g.Labels)
		}
	}
	return c
}

// step writes the colours of one iteration computed from prev into next and
// returns the number of colours. Unless number is set, a step spread over
// several workers leaves the shared table's ids in next, in an order that
// depends on how the workers ran, for numbered to renumber: the
// renumbering is the one sequential pass of a step, and the other workers
// then read the colours it wrote.
func (r *refiner) step(prev, next [][]int32, number bool) (int, error) {
	r.unnumbered = false
	r.iter++
	if r.byDegree {
		// One pass over the degrees, far cheaper than the
		// signatures, so not spread.
		r.byDegree = false
		var d degreeNumbers
		for g, out := range next {
			d.number(r.gs[g], out)
		}
		return d.count, nil
	}
	if r.shared == nil {
		// Every vertex contributes one signature of 1 + degree words.
		r.seq.prepare(r.sigs, r.total, r.words, r.counts.expect(r.iter))
		for gi, g := range r.gs {
			r.seq.number(r.sigs, g, prev[gi], next[gi])
		}
		r.counts.counted(r.iter, r.sigs.len())
		return r.sigs.len(), nil
	}
	s := r.shared
	s.reset()
	err := r.par.run(len(r.chunks), func(w, c int) {
		sig := s.arena[w].sig
		for gi := r.chunks[c].g0; gi < r.chunks[c].g1; gi++ {
			g, p, out := r.gs[gi], prev[gi], next[gi]
			for v := range out {
				sig = appendSignature(sig[:0], g, p, v)
				out[v] = s.intern(w, sig, hashUint64s(sig))
			}
		}
		s.arena[w].sig = sig
	})
	if err != nil {
		return 0, err
	}
	if !number {
		r.unnumbered = true
		return s.len(), nil
	}
	return r.renumber(next), nil
}

// numbered renumbers cols, the colours of the last step, by first
// appearance where the step left the shared table's ids.
func (r *refiner) numbered(cols [][]int32) {
	if r.unnumbered {
		r.renumber(cols)
		r.unnumbered = false
	}
}

// renumber replaces the shared table's ids in next by colours numbered in
// order of first appearance, and returns their number. It is the one
// sequential pass of a spread step: on ENZYMES, a look-up in a small array
// for each of 19580 vertices.
func (r *refiner) renumber(next [][]int32) int {
	n := r.shared.ids()
	if cap(r.first) < n {
		r.first = make([]int32, n)
	} else {
		r.first = r.first[:n]
		clear(r.first)
	}
	first, k := r.first, int32(0)
	for _, out := range next {
		for v, x := range out {
			c := first[x]
			if c == 0 {
				k++
				c, first[x] = k, k
			}
			out[v] = c - 1
		}
	}
	return int(k)
}

// finish copies cols, the colours of the last step, into each of copies.
func (r *refiner) finish(cols [][]int32, copies [][][]int32) error {
	if len(copies) == 0 {
		return nil
	}
	return r.par.run(len(r.chunks), func(_, c int) {
		for _, dst := range copies {
			for g := r.chunks[c].g0; g < r.chunks[c].g1; g++ {
				copy(dst[g], cols[g])
			}
		}
	})
}

// degreeColours reports whether the first iteration of a refinement of gs
// from start numbers the vertices by their degrees alone: from uniform
// colours, where every arc of every graph has the same label (nil
// EdgeLabels read as 0), a vertex's signature is colour 0 and as many
// equal pairs as it has neighbours, so two signatures are equal exactly
// where the degrees are. Numbering the degrees skips the signatures'
// sorting, hashing and look-ups: the graph invariant kernel refines from
// uniform colours, and ENZYMES, PROTEINS and NCI1 have no edge labels.
func degreeColours(gs []*Graph, start Start) bool {
	if start != Uniform {
		return false
	}
	var label int32
	seen := false
	for _, g := range gs {
		if len(g.Adj) == 0 {
			continue
		}
		l := int32(0)
		if len(g.EdgeLabels) > 0 {
			lo, hi := g.EdgeLabelRange()
			if lo != hi {
				return false
			}
			l = lo
		}
		if seen && l != label {
			return false
		}
		label, seen = l, true
	}
	return true
}

// degreeNumbers numbers degrees in order of first appearance, for the first
// iteration where degreeColours holds.
type degreeNumbers struct {
	ids   []int32 // ids[d] is degree d's colour + 1, 0 while unseen
	count int
}

// number writes the colours of g's vertices to out.
func (d *degreeNumbers) number(g *Graph, out []int32) {
	for v := range out {
		out[v] = d.colour(int(g.Offsets[v+1] - g.Offsets[v]))
	}
}

// colour returns the colour of degree deg, numbering it if it is new.
func (d *degreeNumbers) colour(deg int) int32 {
	if deg >= len(d.ids) {
		d.ids = append(d.ids, make([]int32, deg+1-len(d.ids))...)
	}
	if d.ids[deg] == 0 {
		d.count++
		d.ids[deg] = int32(d.count)
	}
	return d.ids[deg] - 1
}

// appendSignature appends the signature of vertex v of g under the colours p
// to sig: p[v], then the sorted pairs (label of the edge vu, p[u]) of its
// neighbours u.
func appendSignature(sig []uint64, g *Graph, p []int32, v int) []uint64 {
	lo, hi := g.Offsets[v], g.Offsets[v+1]
	sig = append(sig, uint64(uint32(p[v])))
	if el := g.EdgeLabels; len(el) == 0 {
		// A hand-made graph may leave EdgeLabels nil; read that as the
		// uniform edge label 0, as Dataset does for sources without
		// edge labels.
		for _, u := range g.Adj[lo:hi] {
			sig = append(sig, uint64(uint32(p[u])))
		}
	} else {
		for k := lo; k < hi; k++ {
			sig = append(sig, uint64(uint32(el[k]))<<32|uint64(uint32(p[g.Adj[k]])))
		}
	}
	sortUint64s(sig[len(sig)-int(hi-lo):])
	return sig
}

// sortUint64s sorts s ascending. Neighbourhoods are mostly tiny, where a
// sorting network beats the general sort's setup, and insertion sort's
// mispredicted branches: on ENZYMES and PROTEINS, most of whose vertices
// have 3 to 5 neighbours, insertion sort took a quarter of the refinement.
func sortUint64s(s []uint64) {
	if len(s) > 16 {
		slices.Sort(s)
		return
	}
	if len(s) >= 2 && len(s) <= 8 {
		sortNetwork(s)
		return
	}
	for i := 1; i < len(s); i++ {
		x := s[i]
		j := i
		for j > 0 && s[j-1] > x {
			s[j] = s[j-1]
			j--
		}
		s[j] = x
	}
}

// sortNetwork sorts s, of 2 to 8 words, by an optimal network of
// compare-exchanges (Knuth, TAOCP vol. 3, §5.3.4), whose min and max
// compile to conditional moves. With it, BenchmarkRefineTU on one
// goroutine refined ENZYMES from uniform colours in 1.24–1.43 ms against
// 1.85–2.00 with insertion sort, and from its labels in 1.87–2.01 against
// 2.25–2.75; PROTEINS 3.09–3.38 against 4.12–4.94 and 4.17–4.48 against
// 5.45–5.82; NCI1 6.1–7.2 against 6.7–8.0 from uniform colours; MUTAG,
// whose vertices have at most 4 neighbours, as before (three rounds by
// turns).
func sortNetwork(s []uint64) {
	switch len(s) {
	case 2:
		_ = s[1]
		a0, a1 := s[0], s[1]
		a0, a1 = min(a0, a1), max(a0, a1)
		s[0], s[1] = a0, a1
	case 3:
		_ = s[2]
		a0, a1, a2 := s[0], s[1], s[2]
		a0, a2 = min(a0, a2), max(a0, a2)
		a0, a1 = min(a0, a1), max(a0, a1)
		a1, a2 = min(a1, a2), max(a1, a2)
		s[0], s[1], s[2] = a0, a1, a2
	case 4:
		_ = s[3]
		a0, a1, a2, a3 := s[0], s[1], s[2], s[3]
		a0, a1 = min(a0, a1), max(a0, a1)
		a2, a3 = min(a2, a3), max(a2, a3)
		a0, a2 = min(a0, a2), max(a0, a2)
		a1, a3 = min(a1, a3), max(a1, a3)
		a1, a2 = min(a1, a2), max(a1, a2)
		s[0], s[1], s[2], s[3] = a0, a1, a2, a3
	case 5:
		_ = s[4]
		a0, a1, a2, a3, a4 := s[0], s[1], s[2], s[3], s[4]
		a0, a1 = min(a0, a1), max(a0, a1)
		a3, a4 = min(a3, a4), max(a3, a4)
		a2, a4 = min(a2, a4), max(a2, a4)
		a2, a3 = min(a2, a3), max(a2, a3)
		a0, a3 = min(a0, a3), max(a0, a3)
		a0, a2 = min(a0, a2), max(a0, a2)
		a1, a4 = min(a1, a4), max(a1, a4)
		a1, a3 = min(a1, a3), max(a1, a3)
		a1, a2 = min(a1, a2), max(a1, a2)
		s[0], s[1], s[2], s[3], s[4] = a0, a1, a2, a3, a4
	case 6:
		_ = s[5]
		a0, a1, a2, a3, a4, a5 := s[0], s[1], s[2], s[3], s[4], s[5]
		a1, a2 = min(a1, a2), max(a1, a2)
		a4, a5 = min(a4, a5), max(a4, a5)
		a0, a2 = min(a0, a2), max(a0, a2)
		a3, a5 = min(a3, a5), max(a3, a5)
		a0, a1 = min(a0, a1), max(a0, a1)
		a3, a4 = min(a3, a4), max(a3, a4)
		a2, a5 = min(a2, a5), max(a2, a5)
		a0, a3 = min(a0, a3), max(a0, a3)
		a1, a4 = min(a1, a4), max(a1, a4)
		a2, a4 = min(a2, a4), max(a2, a4)
		a1, a3 = min(a1, a3), max(a1, a3)
		a2, a3 = min(a2, a3), max(a2, a3)
		s[0], s[1], s[2], s[3], s[4], s[5] = a0, a1, a2, a3, a4, a5
	case 7:
		_ = s[6]
		a0, a1, a2, a3, a4, a5, a6 := s[0], s[1], s[2], s[3], s[4], s[5], s[6]
		a1, a2 = min(a1, a2), max(a1, a2)
		a3, a4 = min(a3, a4), max(a3, a4)
		a5, a6 = min(a5, a6), max(a5, a6)
		a0, a2 = min(a0, a2), max(a0, a2)
		a3, a5 = min(a3, a5), max(a3, a5)
		a4, a6 = min(a4, a6), max(a4, a6)
		a0, a1 = min(a0, a1), max(a0, a1)
		a4, a5 = min(a4, a5), max(a4, a5)
		a2, a6 = min(a2, a6), max(a2, a6)
		a0, a4 = min(a0, a4), max(a0, a4)
		a1, a5 = min(a1, a5), max(a1, a5)
		a0, a3 = min(a0, a3), max(a0, a3)
		a2, a5 = min(a2, a5), max(a2, a5)
		a1, a3 = min(a1, a3), max(a1, a3)
		a2, a4 = min(a2, a4), max(a2, a4)
		a2, a3 = min(a2, a3), max(a2, a3)
		s[0], s[1], s[2], s[3], s[4], s[5], s[6] = a0, a1, a2, a3, a4, a5, a6
	case 8:
		_ = s[7]
		a0, a1, a2, a3, a4, a5, a6, a7 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
		a0, a2 = min(a0, a2), max(a0, a2)
		a1, a3 = min(a1, a3), max(a1, a3)
		a4, a6 = min(a4, a6), max(a4, a6)
		a5, a7 = min(a5, a7), max(a5, a7)
		a0, a4 = min(a0, a4), max(a0, a4)
		a1, a5 = min(a1, a5), max(a1, a5)
		a2, a6 = min(a2, a6), max(a2, a6)
		a3, a7 = min(a3, a7), max(a3, a7)
		a0, a1 = min(a0, a1), max(a0, a1)
		a2, a3 = min(a2, a3), max(a2, a3)
		a4, a5 = min(a4, a5), max(a4, a5)
		a6, a7 = min(a6, a7), max(a6, a7)
		a2, a4 = min(a2, a4), max(a2, a4)
		a3, a5 = min(a3, a5), max(a3, a5)
		a1, a4 = min(a1, a4), max(a1, a4)
		a3, a6 = min(a3, a6), max(a3, a6)
		a1, a2 = min(a1, a2), max(a1, a2)
		a3, a4 = min(a3, a4), max(a3, a4)
		a5, a6 = min(a5, a6), max(a5, a6)
		s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
}

// sigList holds signatures in order of first insertion in one flat
// arena.
type sigList struct {
	bounds []int // signature e is keys[bounds[e]:bounds[e+1]]
	keys   []uint64
}

// init sizes l for up to entries signatures of words words in all, so that
// adding them never reallocates.
func (l *sigList) init(entries, words int) {
	l.bounds = make([]int, 1, entries+1)
	l.keys = make([]uint64, 0, words)
}

func (l *sigList) reset() {
	l.bounds = l.bounds[:1]
	l.keys = l.keys[:0]
}

func (l *sigList) len() int { return len(l.bounds) - 1 }

// add appends sig.
func (l *sigList) add(sig []uint64) {
	l.keys = append(l.keys, sig...)
	l.bounds = append(l.bounds, len(l.keys))
}

func (l *sigList) at(e int) []uint64 { return l.keys[l.bounds[e]:l.bounds[e+1]] }

// sigIndex numbers the signatures of a sigList as dense ids 0, 1, ... in
// order of first insertion. It is an open-addressing hash table with an
// exact comparison on every hash match, so it never confuses two
// signatures and, sized up front, does not grow.
type sigIndex struct {
	// slots holds the high 32 bits of an entry's hash and its id + 1 in the
	// low 32 bits, or 0 for an empty slot, so that most mismatches are
	// rejected without touching the signatures. len is a power of two.
	slots []uint64
}

// reset empties t for entries signatures, keeping it at most half full.
func (t *sigIndex) reset(entries int) {
	n := 64
	for n < 2*entries {
		n <<= 1
	}
	t.size(n)
}

// size empties t and gives it n slots, in the array it has if that is
// large enough.
func (t *sigIndex) size(n int) {
	if cap(t.slots) < n {
		t.slots = make([]uint64, n)
	} else {
		t.slots = t.slots[:n]
		clear(t.slots)
	}
}

// intern returns the id of sig, of hash h, in l, adding it if it is new.
// A table that would be more than half full with it doubles first (see
// grow).
func (t *sigIndex) intern(l *sigList, sig []uint64, h uint64) int32 {
	tag := h &^ (1<<32 - 1)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id := int32(l.len())
			if 2*(l.len()+1) > len(t.slots) {
				t.grow(l)
				return t.intern(l, sig, h)
			}
			l.add(sig)
			t.slots[i] = tag | uint64(id+1)
			return id
		}
		if s&^(1<<32-1) != tag {
			continue
		}
		if e := int32(s) - 1; slices.Equal(l.at(int(e)), sig) {
			return e
		}
	}
}

// grow doubles t's slots and enters l's signatures in them again, each
// under its id. It hashes them anew, which costs about what numbering
// them did, once for each doubling: a table sized from what an earlier
// refinement of the same graphs counted does not grow (see
// refinementCounts).
func (t *sigIndex) grow(l *sigList) {
	t.size(2 * len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for e := range l.len() {
		h := hashUint64s(l.at(e))
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h&^(1<<32-1) | uint64(e+1)
	}
}

// hashUint64s mixes every word so that the low bits used for the slot index
// depend on all of the signature.
func hashUint64s(s []uint64) uint64 {
	h := uint64(len(s)) * 0x9e3779b97f4a7c15
	for _, x := range s {
		h = bits.RotateLeft64(h^x, 27) * 0xbf58476d1ce4e5b9
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
