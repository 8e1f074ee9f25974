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
	r := newRefiner(gs, h, start)
	colours := make([][][]int32, h+1)
	colours[0] = r.startColours()
	prevK := -1
	for i := 1; i <= h; i++ {
		colours[i] = r.alloc()
		k := r.step(colours[i-1], colours[i])
		// A refinement with as many classes as the partition it refines is
		// that partition, and both are numbered by first appearance, so all
		// later iterations reproduce these colours exactly; copying them
		// saves the hashing.
		if k == prevK {
			for j := i + 1; j <= h; j++ {
				colours[j] = r.alloc()
				for g := range colours[j] {
					copy(colours[j][g], colours[i][g])
				}
			}
			break
		}
		prevK = k
	}
	return colours
}

// RefineGraphs returns graphs sharing the structure of gs with the vertex
// labels replaced by the colours after h iterations of Refine (via
// Graph.WithLabels). For h = 0 and FromLabels the labels are copies of the
// original ones.
func RefineGraphs(gs []*Graph, h int, start Start) []*Graph {
	r := newRefiner(gs, h, start)
	cur := r.startColours()
	// Only two generations are alive at a time, so memory stays at two
	// labellings however large h is.
	var spare [][]int32
	prevK := -1
	for i := 1; i <= h; i++ {
		if spare == nil {
			spare = r.alloc()
		}
		k := r.step(cur, spare)
		cur, spare = spare, cur
		if k == prevK {
			break // stable: later iterations give the same colours (see Refine)
		}
		prevK = k
	}
	out := make([]*Graph, len(gs))
	for i, g := range gs {
		out[i] = g.WithLabels(cur[i])
	}
	return out
}

// refiner holds what the iterations of one refinement share: the graphs, the
// signature table and a scratch signature, so that the inner loop does not
// allocate once they have grown to size.
type refiner struct {
	gs    []*Graph
	start Start
	total int // vertices over all graphs
	tab   sigTable
	sig   []uint64
}

func newRefiner(gs []*Graph, h int, start Start) *refiner {
	if h < 0 {
		panic(fmt.Sprintf("graph: Refine with negative number of iterations %d", h))
	}
	if start != FromLabels && start != Uniform {
		panic(fmt.Sprintf("graph: Refine with unknown start %d", start))
	}
	r := &refiner{gs: gs, start: start}
	adj := 0
	for _, g := range gs {
		r.total += g.N()
		adj += len(g.Adj)
	}
	if h > 0 {
		// Every vertex contributes one signature of 1 + degree words.
		r.tab.init(r.total, r.total+adj)
	}
	return r
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
// returns the number of colours.
func (r *refiner) step(prev, next [][]int32) int {
	r.tab.reset()
	sig := r.sig
	for gi, g := range r.gs {
		p, out := prev[gi], next[gi]
		adj, el := g.Adj, g.EdgeLabels
		for v := range out {
			lo, hi := g.Offsets[v], g.Offsets[v+1]
			sig = append(sig[:0], uint64(uint32(p[v])))
			if len(el) == 0 {
				// A hand-made graph may leave EdgeLabels nil; read that as
				// the uniform edge label 0, as Dataset does for sources
				// without edge labels.
				for _, u := range adj[lo:hi] {
					sig = append(sig, uint64(uint32(p[u])))
				}
			} else {
				for k := lo; k < hi; k++ {
					sig = append(sig, uint64(uint32(el[k]))<<32|uint64(uint32(p[adj[k]])))
				}
			}
			sortUint64s(sig[1:])
			out[v] = r.tab.intern(sig)
		}
	}
	r.sig = sig
	return r.tab.len()
}

// sortUint64s sorts s ascending. Neighbourhoods are mostly tiny, where
// insertion sort beats the general sort's setup.
func sortUint64s(s []uint64) {
	if len(s) > 16 {
		slices.Sort(s)
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

// sigTable interns signatures as dense ids 0, 1, ... in order of first
// insertion. It is an open-addressing hash table over signatures kept in one
// flat arena, with an exact comparison on every hash match, so it never
// confuses two signatures and, sized up front, does not allocate at all.
type sigTable struct {
	// slots holds the high 32 bits of an entry's hash and its id + 1 in the
	// low 32 bits, or 0 for an empty slot, so that most mismatches are
	// rejected without touching the arena. len is a power of two.
	slots  []uint64
	bounds []int // entry e is keys[bounds[e]:bounds[e+1]]
	keys   []uint64
}

// init sizes the table for up to entries signatures of keys words in all,
// the most one iteration can produce, so that interning never reallocates
// and the table never needs to grow: it stays at most half full.
func (t *sigTable) init(entries, keys int) {
	n := 64
	for n < 2*entries {
		n <<= 1
	}
	t.slots = make([]uint64, n)
	t.bounds = make([]int, 1, entries+1)
	t.keys = make([]uint64, 0, keys)
}

func (t *sigTable) reset() {
	clear(t.slots)
	t.bounds = t.bounds[:1]
	t.keys = t.keys[:0]
}

func (t *sigTable) len() int { return len(t.bounds) - 1 }

func (t *sigTable) intern(sig []uint64) int32 {
	h := hashUint64s(sig)
	tag := h &^ (1<<32 - 1)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			id := int32(t.len())
			t.keys = append(t.keys, sig...)
			t.bounds = append(t.bounds, len(t.keys))
			t.slots[i] = tag | uint64(id+1)
			return id
		}
		if s&^(1<<32-1) != tag {
			continue
		}
		e := int32(s) - 1
		if slices.Equal(t.keys[t.bounds[e]:t.bounds[e+1]], sig) {
			return e
		}
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
