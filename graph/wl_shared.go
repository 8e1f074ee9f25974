package graph

import (
	"math/bits"
	"slices"
	"sync/atomic"
)

// sharedSigs numbers one iteration's signatures for several workers at
// once, in one table that all of them look up and insert into. A new
// signature is stored in its worker's own blocks, under the worker's next
// local id, and published by a compare-and-swap on an empty slot; a worker
// that loses the slot to the same signature takes the winner's id and
// drops its copy. An id, local id · 2^wbits + worker, depends on the order
// in which the workers met the signatures, so the refiner renumbers the
// colours by first appearance after each step (see refiner.renumber).
//
// Numbering each chunk of graphs in a table of its own, and then every
// chunk's distinct signatures in one table over all, the last sequentially,
// ENZYMES's refinement from uniform colours (h = 3) took 1.07 ms on two
// workers against 1.15 on one, PROTEINS's 3.0–3.5 ms against 2.9–3.0 and
// NCI1's 4.0 against 6.2–6.4; in the shared table they take 0.91–0.92,
// 1.94–1.95 and 3.5–3.7 ms (medians of 8 rounds of 40, a collection before
// each, on a Crew). ENZYMES gains least: most signatures of its third
// iteration are new, and each new one takes a cache line of the table
// from the other core. Partitioned by hash instead, each worker owning a
// table and sending the signatures of the others' parts to their owners,
// the refinement took about 1.04 ms, as the copying cost as much as the
// numbering it spread.
//
// The table does not grow, since a worker cannot move it under the
// others: it has room for a signature at every vertex, at most half full.
//
// Refinements of at most splitMaxVertices vertices and splitMaxH
// iterations are split instead (see splitRefiner), where the workers
// share far less than this table.
type sharedSigs struct {
	// slots holds the iteration's generation, 16 bits, 16 bits of an
	// entry's hash and its ref + 1; a slot of another generation is
	// empty. len is a power of two.
	slots []atomic.Uint64
	gen   uint64
	arena []sharedArena
	// A ref is ((block << obits) | offset) << wbits | worker: the
	// entry's place in its worker's blocks.
	wbits, obits uint
	// blockWords is the length of a block: a signature and its header
	// fit in half of one, so that every block but the last is more than
	// half used.
	blockWords int
}

// sharedArena is a worker's store of the signatures it added, in blocks
// that never move while the others read them: an entry is a header, local
// id << 32 | length, and the signature's words.
type sharedArena struct {
	blocks [][]uint64 // fixed length; blocks[b] is set before a ref into it is published
	n      int        // blocks in use
	used   int        // words used in blocks[n-1]
	count  int32      // entries stored, whose local ids are 0..count-1
	sig    []uint64   // the signature being numbered
	// Each worker writes its own arena at every new signature.
	_ [64]byte
}

// newSharedSigs returns a table for the signatures of workers workers over
// graphs of vertices vertices, words signature words in all (vertices and
// arcs) and a longest signature of longest words, or nil if the refs or
// ids would not fit in 32 bits.
func newSharedSigs(workers, vertices, words, longest int) *sharedSigs {
	s := &sharedSigs{
		gen:        1, // the slots' 0 is another generation
		wbits:      uint(bits.Len(uint(workers - 1))),
		blockWords: max(4096, 1<<bits.Len(uint(2*(longest+1)))),
	}
	s.obits = uint(bits.TrailingZeros(uint(s.blockWords)))
	// A worker may store every signature, each with its header.
	blocks := 2*(words+vertices)/s.blockWords + 2
	if uint64(blocks)<<s.obits<<s.wbits >= 1<<32-1 || uint64(vertices+1)<<s.wbits >= 1<<31 {
		return nil
	}
	n := 64
	for n < 2*vertices {
		n <<= 1
	}
	s.slots = make([]atomic.Uint64, n)
	s.arena = make([]sharedArena, workers)
	for w := range s.arena {
		s.arena[w].blocks = make([][]uint64, blocks)
	}
	return s
}

// reset empties s for the next iteration, by a new generation rather than
// by clearing the slots: cleared on the goroutine that calls reset, every
// line of them is then fetched from its core by the other workers, on
// MUTAG (8192 slots for 3371 vertices) more lines than the iteration's
// signatures take. No worker may be using it.
func (s *sharedSigs) reset() {
	s.gen++
	if s.gen == 1<<16 {
		clear(s.slots)
		s.gen = 1
	}
	for w := range s.arena {
		a := &s.arena[w]
		a.n, a.used, a.count = 0, 0, 0
	}
}

// intern returns the id of sig, of hash h, for worker w, adding it if it
// is new.
func (s *sharedSigs) intern(w int, sig []uint64, h uint64) int32 {
	tag := s.gen<<48 | h>>48<<32
	mask := uint64(len(s.slots) - 1)
	var mine uint64 // ref + 1 of w's copy of sig, once stored
	var n, used int // w's arena before the copy
	for i := h & mask; ; i = (i + 1) & mask {
		x := s.slots[i].Load()
		if x>>48 != s.gen {
			a := &s.arena[w]
			if mine == 0 {
				n, used = a.n, a.used
				mine = uint64(s.store(w, sig)) + 1
			}
			if s.slots[i].CompareAndSwap(x, tag|mine) {
				return (a.count-1)<<s.wbits | int32(w)
			}
			x = s.slots[i].Load()
		}
		if x&^(1<<32-1) != tag {
			continue
		}
		if e, id := s.entry(uint32(x) - 1); slices.Equal(e, sig) {
			if mine != 0 {
				// Unpublished, and the last stored: drop it.
				a := &s.arena[w]
				a.n, a.used = n, used
				a.count--
			}
			return id
		}
	}
}

// store appends sig to w's blocks and returns its ref.
func (s *sharedSigs) store(w int, sig []uint64) uint32 {
	a := &s.arena[w]
	if a.n == 0 || a.used+1+len(sig) > s.blockWords {
		if a.blocks[a.n] == nil {
			a.blocks[a.n] = make([]uint64, s.blockWords)
		}
		a.n++
		a.used = 0
	}
	b, off := a.n-1, a.used
	blk := a.blocks[b]
	blk[off] = uint64(a.count)<<32 | uint64(len(sig))
	copy(blk[off+1:], sig)
	a.used += 1 + len(sig)
	a.count++
	return uint32((b<<s.obits|off)<<s.wbits | w)
}

// entry returns the signature that ref points at and its id.
func (s *sharedSigs) entry(ref uint32) ([]uint64, int32) {
	w := int(ref & (1<<s.wbits - 1))
	at := int(ref >> s.wbits)
	blk := s.arena[w].blocks[at>>s.obits]
	off := at & (1<<s.obits - 1)
	hdr := blk[off]
	return blk[off+1 : off+1+int(uint32(hdr))], int32(hdr>>32)<<s.wbits | int32(w)
}

// len returns the number of entries: of distinct signatures, as a worker
// that lost a slot to the same signature dropped its copy.
func (s *sharedSigs) len() int {
	n := 0
	for w := range s.arena {
		n += int(s.arena[w].count)
	}
	return n
}

// ids returns a bound on the ids of the entries.
func (s *sharedSigs) ids() int {
	var most int32
	for w := range s.arena {
		most = max(most, s.arena[w].count)
	}
	return int(most) << s.wbits
}
