package kernels

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPairMerge runs both workers' parts of pairMerge at once on
// interners and vectors built by hand, and checks the union's numbers of
// the second worker's sequences. The first worker met the sequences a =
// (label 1), b = (label 2) and a·5, numbered 0, 1 and 2; the second met
// b, c = (label 3) and b·7, its own 0, 1 and 2. The union holds b as 1
// and lacks c and b·7 (its key is the union's 1 with 7), which take 3
// and 4 in the second worker's order, whichever worker looks them up.
// The second worker may also have met no sequence (its graphs without
// vertices), which the race detector caught the first worker writing its
// part of then (go test -race), or the first may not help, where the
// second worker had no graph when the first finished.
func TestPairMerge(t *testing.T) {
	seq := func(prefix uint32, label uint32) key64 { return key64(uint64(prefix)<<32 | uint64(label)) }
	tests := []struct {
		name    string
		second  []key64 // the second worker's sequences, by its ids
		ids     []uint32
		helps   bool
		wantIDs []uint32 // the second worker's vector, in the union's ids
		wantDim int
	}{
		{"half each", []key64{seq(noPrev, 2), seq(noPrev, 3), seq(0, 7)}, []uint32{0, 1, 2}, true, []uint32{1, 3, 4}, 5},
		{"second alone", []key64{seq(noPrev, 2), seq(noPrev, 3), seq(0, 7)}, []uint32{0, 1, 2}, false, []uint32{1, 3, 4}, 5},
		{"no sequence", nil, nil, true, nil, 3},
		{"no sequence alone", nil, nil, false, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The workers' mappers share their kernel, whose
			// guard, nil here, the renumbering locks.
			p := &privateMap{ws: make([]privateWorker, 2)}
			k := &Walk{}
			p.ws[0].m.k, p.ws[1].m.k = k, k
			for _, k := range []key64{seq(noPrev, 1), seq(noPrev, 2), seq(0, 5)} {
				p.ws[0].m.fast.intern(k)
			}
			for _, k := range tt.second {
				p.ws[1].m.fast.intern(k)
			}
			vecs := []Vec{
				{IDs: []uint32{0, 1, 2}, Vals: []float64{1, 2, 3}},
				{IDs: slices.Clone(tt.ids), Vals: make([]float64, len(tt.ids))},
			}
			p.ws[0].items, p.ws[1].items = []int32{0}, []int32{1}
			m := &pairMerge{failed: new(atomic.Bool)}
			m.started.Store(tt.helps)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for w := range 2 {
				wg.Go(func() { errs[w] = m.merge(p, w, vecs) })
			}
			wg.Wait()
			for w, err := range errs {
				if err != nil {
					t.Fatalf("worker %d: %v", w, err)
				}
			}
			if got := p.ws[0].m.fast.len() + m.misses[0] + m.misses[1]; got != tt.wantDim {
				t.Errorf("union of %d sequences, want %d", got, tt.wantDim)
			}
			if !slices.Equal(vecs[1].IDs, tt.wantIDs) || !slices.Equal(vecs[0].IDs, []uint32{0, 1, 2}) {
				t.Errorf("vectors %v and %v, want [0 1 2] and %v", vecs[0].IDs, vecs[1].IDs, tt.wantIDs)
			}
			if len(p.ws[1].df) != tt.wantDim || p.ws[1].nnz != len(tt.ids) {
				t.Errorf("second worker: %d features, %d non-zeros; want %d, %d", len(p.ws[1].df), p.ws[1].nnz, tt.wantDim, len(tt.ids))
			}
		})
	}
}
