package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// StratifiedFolds assigns each sample to one of k folds such that every
// class is spread evenly: per class, the numbers of its samples in any two
// folds differ by at most one, and so do the fold sizes. Samples are
// shuffled within their class by r, so the assignment is random but fully
// determined by r's state. It returns fold[i] in [0, k) for each sample i.
func StratifiedFolds(classes []int64, k int, r *rand.Rand) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("stratified folds: %d folds, want at least 2", k)
	}
	if k > len(classes) {
		return nil, fmt.Errorf("stratified folds: %d folds for %d samples", k, len(classes))
	}
	byClass := make(map[int64][]int)
	for i, c := range classes {
		byClass[c] = append(byClass[c], i)
	}
	labels := make([]int64, 0, len(byClass))
	for c := range byClass {
		labels = append(labels, c)
	}
	// Map order is random; the classes are dealt in label order so that the
	// result depends on r alone.
	slices.Sort(labels)
	fold := make([]int, len(classes))
	// Dealing continues where the previous class stopped, which keeps the
	// fold sizes within one of each other; the random start keeps the
	// larger folds from always being the first ones.
	next := r.IntN(k)
	for _, c := range labels {
		idx := byClass[c]
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, i := range idx {
			fold[i] = next
			next = (next + 1) % k
		}
	}
	return fold, nil
}

// split returns the indices of samples in fold f (test) and outside it
// (train), both ascending.
func split(fold []int, f int) (train, test []int) {
	for i, g := range fold {
		if g == f {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	return train, test
}

// rng returns the generator of one fold assignment: stream 0 of repetition
// rep draws its outer folds, stream f+1 the inner folds of its outer fold f.
// Each assignment has its own generator, so no generator is shared between
// goroutines and the folds do not depend on the order jobs run in.
func rng(seed uint64, rep, stream int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(rep)<<32|uint64(stream)))
}
