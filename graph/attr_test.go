package graph

import (
	"slices"
	"testing"
)

func TestScaleAttributes(t *testing.T) {
	// Two graphs with 2-dimensional attributes: dimension 0 spans [−1, 3],
	// dimension 1 is constant 5. Scaled: (x+1)/4 and 0.
	g1, _ := Build([]int32{0, 0}, nil, []float64{-1, 5, 3, 5}, 2)
	g2, _ := Build([]int32{0}, nil, []float64{1, 5}, 2)
	s := ScaleAttributes([]*Graph{g1, g2})
	if got, want := s[0].Attrs, []float64{0, 0, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("graph 1: %v, want %v", got, want)
	}
	if got, want := s[1].Attrs, []float64{0.5, 0}; !slices.Equal(got, want) {
		t.Errorf("graph 2: %v, want %v", got, want)
	}
	if g1.Attrs[0] != -1 {
		t.Error("the input was modified")
	}
}
