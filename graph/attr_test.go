package graph

import (
	"errors"
	"math/rand/v2"
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

// TestScaleAttributesOn checks that spreading the scaling over workers, in
// any order, gives ScaleAttributes's attributes to the bit, on random
// graphs of 0 to 3 attributes whose least and largest values lie in
// different graphs, and that a stopped Run's error is returned.
func TestScaleAttributesOn(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var gs []*Graph
	for k := range 40 {
		d := k % 4
		n := 1 + rng.IntN(6)
		attrs := make([]float64, n*d)
		for j := range attrs {
			attrs[j] = rng.NormFloat64() * float64(1+k)
		}
		g, err := Build(make([]int32, n), nil, attrs, d)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	want := ScaleAttributes(gs)
	for name, par := range map[string]Parallel{"go3": goParallel(3), "reversed2": reversed(2)} {
		got, err := ScaleAttributesOn(gs, par)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k := range gs {
			if !slices.Equal(got[k].Attrs, want[k].Attrs) {
				t.Errorf("%s: graph %d: %v, want %v", name, k, got[k].Attrs, want[k].Attrs)
			}
		}
	}
	stop := errors.New("stopped")
	failing := Parallel{Workers: 2, Run: func(int, func(w, i int)) error { return stop }}
	if _, err := ScaleAttributesOn(gs, failing); !errors.Is(err, stop) {
		t.Errorf("stopped Run: err = %v, want %v", err, stop)
	}
}
