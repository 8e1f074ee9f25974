package eval

import (
	"slices"
	"testing"
)

// classes returns counts[c] samples of each class c+1, interleaved as in a
// data file whose classes come in runs.
func classes(labels []int64, counts []int) []int64 {
	var out []int64
	for c, n := range counts {
		for i := 0; i < n; i++ {
			out = append(out, labels[c])
		}
	}
	return out
}

func TestStratifiedFolds(t *testing.T) {
	tests := []struct {
		name    string
		classes []int64
		k       int
	}{
		// MUTAG's class sizes (125 mutagenic, 63 not; Table 2 of the paper).
		{"MUTAG-like 125/63, 10 folds", classes([]int64{1, -1}, []int{125, 63}), 10},
		// ENZYMES: 6 classes of 100.
		{"ENZYMES-like 6×100, 10 folds", classes([]int64{1, 2, 3, 4, 5, 6}, []int{100, 100, 100, 100, 100, 100}), 10},
		{"classes smaller than k", classes([]int64{7, 8, 9}, []int{3, 5, 2}), 4},
		{"large int64 labels", classes([]int64{1 << 40, -1 << 50}, []int{11, 12}), 5},
		{"k = n", classes([]int64{0, 1}, []int{3, 3}), 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fold, err := StratifiedFolds(tt.classes, tt.k, rng(1, 0, 0))
			if err != nil {
				t.Fatal(err)
			}
			size := make([]int, tt.k)
			perClass := make(map[int64][]int)
			for i, f := range fold {
				if f < 0 || f >= tt.k {
					t.Fatalf("sample %d in fold %d", i, f)
				}
				size[f]++
				if perClass[tt.classes[i]] == nil {
					perClass[tt.classes[i]] = make([]int, tt.k)
				}
				perClass[tt.classes[i]][f]++
			}
			if slices.Max(size)-slices.Min(size) > 1 {
				t.Errorf("fold sizes %v differ by more than 1", size)
			}
			for c, counts := range perClass {
				if slices.Max(counts)-slices.Min(counts) > 1 {
					t.Errorf("class %d: counts per fold %v differ by more than 1", c, counts)
				}
			}
			again, _ := StratifiedFolds(tt.classes, tt.k, rng(1, 0, 0))
			if !slices.Equal(fold, again) {
				t.Error("same seed, different folds")
			}
			// Different seeds or streams must give other folds; with k = n
			// and few samples a collision is possible but not for these.
			for _, r := range []struct{ seed uint64 }{{2}, {3}} {
				other, _ := StratifiedFolds(tt.classes, tt.k, rng(r.seed, 0, 0))
				if slices.Equal(fold, other) {
					t.Errorf("seed %d gives the folds of seed 1", r.seed)
				}
			}
			other, _ := StratifiedFolds(tt.classes, tt.k, rng(1, 1, 0))
			if slices.Equal(fold, other) {
				t.Error("repetition 1 gives the folds of repetition 0")
			}
		})
	}
}

func TestStratifiedFoldsErrors(t *testing.T) {
	tests := []struct {
		n, k int
	}{
		{10, 1}, {10, 0}, {10, -3}, {3, 4}, {0, 2},
	}
	for _, tt := range tests {
		if _, err := StratifiedFolds(make([]int64, tt.n), tt.k, rng(1, 0, 0)); err == nil {
			t.Errorf("n=%d k=%d: no error", tt.n, tt.k)
		}
	}
}
