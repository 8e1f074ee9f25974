package plots

import (
	"math"
	"slices"
	"testing"
)

func TestBilinear(t *testing.T) {
	// z at (x, y): row y=0: 0, 2, 4 at x = 0, 1, 3; row y=2: 4, 6, 12.
	g := newGrid([]float64{0, 1, 3}, []float64{0, 2})
	g.z[0] = []float64{0, 2, 4}
	g.z[1] = []float64{4, 6, 12}
	for _, tc := range []struct {
		x, y float64
		want float64
		ok   bool
	}{
		{0, 0, 0, true},   // a grid point
		{3, 2, 12, true},  // the far corner
		{0.5, 1, 3, true}, // centre of the first rectangle: (0+2+4+6)/4
		{2, 0, 3, true},   // half way from 2 to 4 on the bottom edge
		{2, 1, 6, true},   // centre of the second: (2+4+6+12)/4
		{1, 0.5, 3, true}, // on the shared edge: 2 + 0.25·(6-2)
		{4, 0, 0, false},  // right of the grid
		{0, -1, 0, false}, // below it
	} {
		got, ok := g.at(tc.x, tc.y)
		if ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-12) {
			t.Errorf("at(%g, %g) = %g, %v; want %g, %v", tc.x, tc.y, got, ok, tc.want, tc.ok)
		}
	}
	// A missing corner removes its rectangles, not the others.
	g.z[1][2] = math.NaN()
	if _, ok := g.at(2, 1); ok {
		t.Errorf("at(2, 1) interpolated over a missing corner")
	}
	if v, ok := g.at(0.5, 1); !ok || v != 3 {
		t.Errorf("at(0.5, 1) = %g, %v next to a missing cell; want 3, true", v, ok)
	}
}

func TestNiceLevels(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		max    int
		want   []float64
	}{
		// 1-2-5 from 0.1 to 50: nine levels, within the limit.
		{0.07, 95, 9, []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50}},
		// Six decades: 1-2-5 gives 19 levels and 1-3 gives 13, so decades.
		{1, 1e6, 9, []float64{1, 10, 100, 1000, 1e4, 1e5, 1e6}},
		// Twelve decades: whole decades would be 13, so every second.
		{1e-6, 1e6, 9, []float64{1e-6, 1e-4, 1e-2, 1, 100, 1e4, 1e6}},
		// Within a factor of ten: linear steps of 1 (0.5 would give 11).
		{2, 7, 9, []float64{2, 3, 4, 5, 6, 7}},
		// Within a factor of ten, small: steps of 0.05.
		{0.12, 0.4, 9, []float64{0.15, 0.2, 0.25, 0.3, 0.35, 0.4}},
		// Degenerate input: none.
		{0, 5, 9, nil},
		{1, math.Inf(1), 9, nil},
	} {
		got := niceLevels(tc.lo, tc.hi, tc.max)
		if !slices.EqualFunc(got, tc.want, func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }) {
			t.Errorf("niceLevels(%g, %g, %d) = %v; want %v", tc.lo, tc.hi, tc.max, got, tc.want)
		}
	}
}

func TestContour(t *testing.T) {
	// z = x on x = 0, 1, 2 and y = 0, 1: the level 0.5 is the vertical
	// line x = 0.5 from y = 0 to y = 1; the level 1.5 is x = 1.5.
	g := newGrid([]float64{0, 1, 2}, []float64{0, 1})
	g.z[0] = []float64{0, 1, 2}
	g.z[1] = []float64{0, 1, 2}
	for _, level := range []float64{0.5, 1.5} {
		ls := g.contour(level)
		if len(ls) != 1 || len(ls[0]) != 2 {
			t.Fatalf("contour(%g) = %v; want one segment", level, ls)
		}
		ys := []float64{ls[0][0].Y, ls[0][1].Y}
		slices.Sort(ys)
		if ls[0][0].X != level || ls[0][1].X != level || ys[0] != 0 || ys[1] != 1 {
			t.Errorf("contour(%g) = %v; want x = %g from y = 0 to 1", level, ls, level)
		}
	}
	// Segments of neighbouring rectangles join into one polyline: z = y
	// on three columns gives one horizontal line through four points.
	h := newGrid([]float64{0, 1, 2, 3}, []float64{0, 1})
	h.z[0] = []float64{0, 0, 0, 0}
	h.z[1] = []float64{1, 1, 1, 1}
	if ls := h.contour(0.25); len(ls) != 1 || len(ls[0]) != 4 {
		t.Errorf("contour of z = y: %v; want one polyline of 4 points", ls)
	}
	// No line crosses a rectangle with a missing corner.
	g.z[1][2] = math.NaN()
	if ls := g.contour(1.5); len(ls) != 0 {
		t.Errorf("contour(1.5) next to a missing cell = %v; want none", ls)
	}
}

func TestRefineKeepsValues(t *testing.T) {
	// Refining samples the bilinear interpolant: the refined grid agrees
	// with at() at its points and keeps missing rectangles missing.
	g := newGrid([]float64{0, 1, 3}, []float64{0, 2})
	g.z[0] = []float64{0, 2, 4}
	g.z[1] = []float64{4, 6, math.NaN()}
	r := g.refine(4)
	if len(r.x) != 9 || len(r.y) != 5 {
		t.Fatalf("refine(4) of 3×2 points: %d×%d; want 9×5", len(r.x), len(r.y))
	}
	for j, y := range r.y {
		for i, x := range r.x {
			want, ok := g.at(x, y)
			got := r.z[j][i]
			if x <= 1 && (!ok || math.Abs(got-want) > 1e-12) {
				t.Errorf("refined (%g, %g) = %g; want %g", x, y, got, want)
			}
			if x > 1 && !math.IsNaN(got) {
				t.Errorf("refined (%g, %g) = %g inside a rectangle with a missing corner; want NaN", x, y, got)
			}
		}
	}
}
