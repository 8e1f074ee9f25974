package graph

import "fmt"

// Stream is Refine one graph at a time, in order, for a consumer that works
// on each graph as soon as its colours are known, beside the refinement of
// the graphs after it. Colours are numbered in order of first appearance,
// graph by graph, so a graph's colours after every iteration depend only on
// the graphs up to it: once Next has refined graph g, its colours are those
// Refine gives it, and they do not change.
//
// A Stream keeps a table of signatures for every iteration at once, where
// Refine keeps one, and it does not stop early once the colours are
// stable; its colours are the same.
type Stream struct {
	gs      []*Graph
	colours [][][]int32
	iters   []wlWorker // iters[i-1] numbers the signatures of iteration i
	sigs    []sigList
	next    int
	// stepped[i-1] is the graphs refined in iteration i, which Step
	// checks its order by.
	stepped []int
	// byDegree numbers the first iteration's colours where
	// degreeColours holds, nil elsewhere.
	byDegree *degreeNumbers
	// begun[i-1] says that iteration i's table is prepared (see
	// prepare); total and words size the tables, as do counts, which
	// the tables were handed over with (see refinementCounts).
	begun        []bool
	total, words int
	counts       refinementCounts
}

// NewStream returns a Stream of h iterations over gs from start, with no
// graph refined yet. It panics as Refine does if h is negative or start is
// not a known Start.
func NewStream(gs []*Graph, h int, start Start) *Stream {
	return NewStreamWith(nil, gs, h, start)
}

// NewStreamWith is NewStream with the signature tables of t, if not nil,
// which it takes over (see Stream.Tables).
func NewStreamWith(t *StreamTables, gs []*Graph, h int, start Start) *Stream {
	r := newRefiner(gs, h, start, Parallel{})
	s := &Stream{gs: gs, colours: make([][][]int32, h+1)}
	s.colours[0] = r.startColours()
	for i := 1; i <= h; i++ {
		s.colours[i] = r.alloc()
	}
	if r.byDegree && h > 0 {
		s.byDegree = &degreeNumbers{}
	}
	s.stepped = make([]int, h)
	s.begun = make([]bool, h)
	s.total, s.words = r.total, r.words
	if t == nil {
		t = &StreamTables{}
	}
	t.grow(h)
	s.sigs, s.iters = t.sigs[:h], t.iters[:h]
	s.counts = t.counts.of(r.key())
	return s
}

// StreamTables are signature tables that a Stream, one an iteration, or a
// refinement on one or more workers works in, and that a later one can
// take over rather than allocate its own (see NewStreamWith,
// RefineOnWith).
type StreamTables struct {
	sigs  []sigList
	iters []wlWorker
	// share is the merger's part of the next split refinement against
	// another worker's 1, 0 before the first (see splitRefiner.balance).
	share float64
	// counts are the signatures of each iteration of the last
	// refinement counted here, on one worker or streamed.
	counts refinementCounts
}

// refinementCounts holds the number of signatures of each iteration of a
// refinement, by which the next refinement of the same graphs sizes its
// tables: at most half full if the same signatures come again, rather
// than for every vertex, as the tables were before. MUTAG's, ENZYMES's,
// PROTEINS's and NCI1's third iterations from uniform colours have 478,
// 11,965, 25,122 and 2,109 signatures, where tables for every vertex had
// room for 3,371, 19,580, 43,471 and 122,747, emptied at every
// refinement and spread over more of the cache. Three iterations in kept
// tables (test binaries of both builds by turns, medians of 30, three
// runs each) so took, from uniform colours, streamed on ENZYMES
// 3.6–4.1 ms against 4.3–4.9 and on PROTEINS 9.2–9.6 against 9.9–10.7,
// refined on one worker 3.5–3.7 against 4.2–4.5 and 8.9–9.8 against
// 9.5–10.7; NCI1 from its labels 31–33 against 32–38 streamed; MUTAG
// within the noise. GI's matrix (a test binary of each build, by turns)
// took 17.1 ms on PROTEINS on two threads against 18.1–18.7, and 32.6
// against 33.8–34.2 on one, MUTAG 1.27–1.31 against 1.38–1.48 on two and
// 2.26–2.28 against 2.33–2.39 on one; ENZYMES alike. A table grows where
// more signatures come (see sigIndex.grow), at the price of hashing them
// again, so the counts are kept only for refinements of as many graphs
// and vertices from the same start: the walk kernel's from the labels
// and GI's from uniform colours, taking turns in one Workspace, would
// otherwise grow one another's tables.
type refinementCounts struct {
	key refinementKey
	n   []int // n[i-1] for iteration i, 0 where not counted
}

// refinementKey tells refinements apart for refinementCounts.
type refinementKey struct {
	graphs, vertices int
	start            Start
}

// key returns the refinementKey of r's refinement, from the vertices
// newRefiner counted.
func (r *refiner) key() refinementKey {
	return refinementKey{graphs: len(r.gs), vertices: r.total, start: r.start}
}

// of returns c for a refinement of key k: c itself if it counted one,
// else empty counts of k.
func (c refinementCounts) of(k refinementKey) refinementCounts {
	if c.key != k {
		return refinementCounts{key: k}
	}
	return c
}

// expect returns the signatures counted for iteration i, or 0 if none
// were.
func (c *refinementCounts) expect(i int) int {
	if i < 1 || i > len(c.n) {
		return 0
	}
	return c.n[i-1]
}

// counted notes that iteration i had n signatures.
func (c *refinementCounts) counted(i, n int) {
	for len(c.n) < i {
		c.n = append(c.n, 0)
	}
	c.n[i-1] = n
}

// grow gives t at least n tables.
func (t *StreamTables) grow(n int) {
	for len(t.sigs) < n {
		t.sigs = append(t.sigs, sigList{})
		t.iters = append(t.iters, wlWorker{})
	}
}

// Tables returns the tables of s for a later Stream to take over; s must
// not be used after, neither stepped nor counted.
func (s *Stream) Tables() *StreamTables {
	for i := range s.begun {
		// Of every graph only once Next has refined them all; a
		// stream given up before counts fewer, and the table grows.
		if s.begun[i] {
			s.counts.counted(i+1, s.sigs[i].len())
		}
	}
	t := &StreamTables{sigs: s.sigs, iters: s.iters, counts: s.counts}
	s.sigs, s.iters, s.counts = nil, nil, refinementCounts{}
	return t
}

// Bytes returns the bytes of the arrays of t's tables.
func (t *StreamTables) Bytes() int64 {
	if t == nil {
		return 0
	}
	var n int
	for i := range t.sigs {
		wk := &t.iters[i]
		n += 8 * (cap(t.sigs[i].bounds) + cap(t.sigs[i].keys) + cap(wk.index.slots) + cap(wk.sig) + cap(wk.sigs) + cap(wk.hashes))
		n += 4 * cap(wk.ends)
	}
	return int64(n)
}

// prepare empties the table of iteration i for its first step, sized as
// Refine sizes its one (see refinementCounts), in the arrays it has
// where they are large enough.
func (s *Stream) prepare(i int) {
	s.iters[i-1].prepare(&s.sigs[i-1], s.total, s.words, s.counts.expect(i))
}

// Colours returns the colours of every graph, colours[i][g][v] as Refine
// returns them. Those of graphs that Next has not refined yet are zero
// after the first iteration, and change.
func (s *Stream) Colours() [][][]int32 { return s.colours }

// Next refines the next graph and returns its index, or −1 once every graph
// is refined.
func (s *Stream) Next() int {
	gi := s.next
	if gi == len(s.gs) {
		return -1
	}
	for i := 1; i < len(s.colours); i++ {
		s.Step(i, gi)
	}
	s.next++
	return gi
}

// Step refines graph g in iteration i alone, 1 ≤ i ≤ h: Next's work split
// by iteration, so that the iterations can run as the stages of a
// pipeline. Each iteration takes the graphs in order, and graph g's step
// in iteration i must follow its step in iteration i − 1 (iteration 0 is
// the start). Steps of different iterations touch disjoint state, so they
// may run at once on different goroutines, if each step happens after the
// one it follows. A program that mixes Step and Next calls Next only
// where every iteration has stepped through the same graphs. Step panics
// on a graph out of order.
func (s *Stream) Step(i, g int) {
	if s.stepped[i-1] != g {
		panic(fmt.Sprintf("graph: Stream.Step of graph %d in iteration %d, want graph %d", g, i, s.stepped[i-1]))
	}
	if i == 1 && s.byDegree != nil {
		s.byDegree.number(s.gs[g], s.colours[1][g])
	} else {
		if !s.begun[i-1] {
			// An iteration's table is prepared by the first step
			// of the iteration, on the goroutine that runs it,
			// beside the steps of the others. Sized for the
			// average graph in NewStream and grown by doubling,
			// GI's matrix on two threads took 2.20–2.22 ms on
			// ENZYMES against 2.09–2.13 (medians of 200, five
			// rounds by turns), and as long on MUTAG, PROTEINS and
			// NCI1; sized for every vertex in NewStream, the caller
			// zeroed the tables for 57 µs while the other worker
			// had no graph to refine.
			s.prepare(i)
			s.begun[i-1] = true
		}
		s.iters[i-1].number(&s.sigs[i-1], s.gs[g], s.colours[i-1][g], s.colours[i][g])
	}
	s.stepped[i-1]++
}

// Count returns the number of colours of iteration i ≥ 1 among the graphs
// refined so far: once every graph is refined, the number Refine's
// colours[i] has.
func (s *Stream) Count(i int) int {
	switch {
	case i == 1 && s.byDegree != nil:
		return s.byDegree.count
	case !s.begun[i-1]:
		return 0 // the table may hold an earlier Stream's signatures
	}
	return s.sigs[i-1].len()
}
