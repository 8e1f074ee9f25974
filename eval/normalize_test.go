package eval

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNormalize(t *testing.T) {
	// Expected values computed by hand from k(x,y)/√(k(x,x)·k(y,y)).
	tests := []struct {
		name string
		k    []float64
		want []float64
	}{
		{
			name: "2×2: 2/√(4·9) = 1/3",
			k:    []float64{4, 2, 2, 9},
			want: []float64{1, 1.0 / 3, 1.0 / 3, 1},
		},
		{
			name: "3×3: 3/√(9·4) = 1/2, 6/√(9·16) = 1/2, 2/√(4·16) = 1/4",
			k:    []float64{9, 3, 6, 3, 4, 2, 6, 2, 16},
			want: []float64{1, 0.5, 0.5, 0.5, 1, 0.25, 0.5, 0.25, 1},
		},
		{
			name: "3×3 with a zero diagonal: that row and column stay 0; 0.5/√(1·4) = 1/4",
			k:    []float64{1, 0, 0.5, 0, 0, 0, 0.5, 0, 4},
			want: []float64{1, 0, 0.25, 0, 0, 0, 0.25, 0, 1},
		},
		{
			name: "walk-kernel magnitudes: 5e199/√(1e200·1e200) = 1/2 without overflow",
			k:    []float64{1e200, 5e199, 5e199, 1e200},
			want: []float64{1, 0.5, 0.5, 1},
		},
		{
			name: "negative diagonal treated as zero",
			k:    []float64{-1, 0, 0, 4},
			want: []float64{0, 0, 0, 1},
		},
	}
	for _, tt := range tests {
		n := int(math.Sqrt(float64(len(tt.k))))
		got := Normalize(mat.NewSymDense(n, tt.k))
		want := mat.NewSymDense(n, tt.want)
		if !mat.EqualApprox(got, want, 1e-15) {
			t.Errorf("%s: got\n%v\nwant\n%v", tt.name, mat.Formatted(got), mat.Formatted(want))
		}
	}
}

func TestMeanDiag(t *testing.T) {
	k := mat.NewSymDense(3, []float64{2, 1, 1, 1, 4, 1, 1, 1, 6})
	tests := []struct {
		k    *mat.SymDense
		idx  []int
		want float64
	}{
		{k, []int{0, 1, 2}, 4},                    // (2+4+6)/3
		{k, []int{0, 2}, 4},                       // (2+6)/2
		{k, []int{1}, 4},                          // 4/1
		{k, []int{2, 1}, 5},                       // (6+4)/2
		{mat.NewSymDense(2, nil), []int{0, 1}, 1}, // zero diagonal: no scaling
	}
	for _, tt := range tests {
		if got := meanDiag(tt.k, tt.idx); got != tt.want {
			t.Errorf("meanDiag(%v) = %v, want %v", tt.idx, got, tt.want)
		}
	}
}
