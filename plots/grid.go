package plots

import (
	"math"
	"slices"
)

// grid is a field sampled on a rectilinear grid: z[j][i] is the value at
// (x[i], y[j]), NaN where there is none. x and y increase strictly.
type grid struct {
	x, y []float64
	z    [][]float64
}

// newGrid returns a grid over x and y with every value NaN.
func newGrid(x, y []float64) *grid {
	z := make([][]float64, len(y))
	for j := range z {
		z[j] = make([]float64, len(x))
		for i := range z[j] {
			z[j][i] = math.NaN()
		}
	}
	return &grid{x: x, y: y, z: z}
}

// xy is a point in data coordinates.
type xy struct{ X, Y float64 }

// polyline is a contour line in data coordinates.
type polyline []xy

// span returns the index i of the interval [v[i], v[i+1]] holding t and
// t's position in it, or ok false when t is outside v.
func span(v []float64, t float64) (i int, f float64, ok bool) {
	n := len(v)
	if n < 2 || t < v[0] || t > v[n-1] || math.IsNaN(t) {
		return 0, 0, false
	}
	i, _ = slices.BinarySearch(v, t)
	// BinarySearch gives the first v[i] ≥ t; the interval starts before it.
	i = max(i-1, 0)
	if i > n-2 {
		i = n - 2
	}
	return i, (t - v[i]) / (v[i+1] - v[i]), true
}

// at returns the bilinear interpolation of g at (x, y). It fails outside
// the grid and in any grid rectangle with a corner lacking a value: a
// missing or failed cell is never interpolated over.
func (g *grid) at(x, y float64) (float64, bool) {
	i, fx, ok := span(g.x, x)
	if !ok {
		return 0, false
	}
	j, fy, ok := span(g.y, y)
	if !ok {
		return 0, false
	}
	z00, z10 := g.z[j][i], g.z[j][i+1]
	z01, z11 := g.z[j+1][i], g.z[j+1][i+1]
	if math.IsNaN(z00) || math.IsNaN(z10) || math.IsNaN(z01) || math.IsNaN(z11) {
		return 0, false
	}
	return (1-fy)*((1-fx)*z00+fx*z10) + fy*((1-fx)*z01+fx*z11), true
}

// rectangles counts the grid rectangles whose four corners have values.
func (g *grid) rectangles() int {
	n := 0
	for j := 0; j+1 < len(g.y); j++ {
		for i := 0; i+1 < len(g.x); i++ {
			if !math.IsNaN(g.z[j][i]) && !math.IsNaN(g.z[j][i+1]) &&
				!math.IsNaN(g.z[j+1][i]) && !math.IsNaN(g.z[j+1][i+1]) {
				n++
			}
		}
	}
	return n
}

// minMax returns the extremes of the values, ok false when there are none.
func (g *grid) minMax() (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range g.z {
		for _, v := range row {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
				ok = true
			}
		}
	}
	return lo, hi, ok
}

// mapValues returns a grid of f applied to every value; NaN stays NaN.
func (g *grid) mapValues(f func(float64) float64) *grid {
	out := newGrid(g.x, g.y)
	for j, row := range g.z {
		for i, v := range row {
			if !math.IsNaN(v) {
				out.z[j][i] = f(v)
			}
		}
	}
	return out
}

// refine returns g sampled k times more finely by bilinear interpolation,
// each rectangle on its own so that one without a value at a corner stays
// without values and its neighbours keep theirs up to the shared edge.
// Marching squares on the refined grid follows the curved contours of the
// bilinear interpolant, which the heat map shows, instead of cutting
// straight across each rectangle.
func (g *grid) refine(k int) *grid {
	if k < 2 || len(g.x) < 2 || len(g.y) < 2 {
		return g
	}
	sub := func(v []float64) []float64 {
		out := make([]float64, 0, (len(v)-1)*k+1)
		for i := 0; i+1 < len(v); i++ {
			for s := 0; s < k; s++ {
				out = append(out, v[i]+float64(s)/float64(k)*(v[i+1]-v[i]))
			}
		}
		return append(out, v[len(v)-1])
	}
	out := newGrid(sub(g.x), sub(g.y))
	for j := 0; j+1 < len(g.y); j++ {
		for i := 0; i+1 < len(g.x); i++ {
			z00, z10 := g.z[j][i], g.z[j][i+1]
			z01, z11 := g.z[j+1][i], g.z[j+1][i+1]
			if math.IsNaN(z00) || math.IsNaN(z10) || math.IsNaN(z01) || math.IsNaN(z11) {
				continue
			}
			for b := 0; b <= k; b++ {
				fy := float64(b) / float64(k)
				for a := 0; a <= k; a++ {
					fx := float64(a) / float64(k)
					out.z[j*k+b][i*k+a] = (1-fy)*((1-fx)*z00+fx*z10) + fy*((1-fx)*z01+fx*z11)
				}
			}
		}
	}
	return out
}

// edge names a grid edge: the horizontal edge from (i, j) to (i+1, j), or
// the vertical one from (i, j) to (i, j+1). Neighbouring rectangles share
// it, which joins their segments into polylines.
type edge struct {
	i, j     int
	vertical bool
}

// contour returns the level set z = level as polylines, by marching squares
// over the rectangles whose corners all have values. Along each edge the
// crossing is placed by linear interpolation, which is where the bilinear
// interpolant crosses too; a saddle is resolved by the value at the
// rectangle's centre, the bilinear interpolant's own.
func (g *grid) contour(level float64) []polyline {
	type seg struct {
		a, b   edge
		pa, pb xy
	}
	var segs []seg
	cross := func(e edge) xy {
		i, j := e.i, e.j
		z0 := g.z[j][i]
		if e.vertical {
			z1 := g.z[j+1][i]
			t := (level - z0) / (z1 - z0)
			return xy{g.x[i], g.y[j] + t*(g.y[j+1]-g.y[j])}
		}
		z1 := g.z[j][i+1]
		t := (level - z0) / (z1 - z0)
		return xy{g.x[i] + t*(g.x[i+1]-g.x[i]), g.y[j]}
	}
	for j := 0; j+1 < len(g.y); j++ {
		for i := 0; i+1 < len(g.x); i++ {
			z00, z10 := g.z[j][i], g.z[j][i+1]
			z01, z11 := g.z[j+1][i], g.z[j+1][i+1]
			if math.IsNaN(z00) || math.IsNaN(z10) || math.IsNaN(z01) || math.IsNaN(z11) {
				continue
			}
			b00, b10, b01, b11 := z00 >= level, z10 >= level, z01 >= level, z11 >= level
			bottom, right := edge{i, j, false}, edge{i + 1, j, true}
			top, left := edge{i, j + 1, false}, edge{i, j, true}
			var es []edge
			if b00 != b10 {
				es = append(es, bottom)
			}
			if b10 != b11 {
				es = append(es, right)
			}
			if b01 != b11 {
				es = append(es, top)
			}
			if b00 != b01 {
				es = append(es, left)
			}
			add := func(a, b edge) { segs = append(segs, seg{a, b, cross(a), cross(b)}) }
			switch len(es) {
			case 2:
				add(es[0], es[1])
			case 4:
				centre := (z00 + z10 + z01 + z11) / 4
				if (centre >= level) == b00 {
					// The centre joins the corners (0,0) and (1,1), so
					// the line cuts off (1,0) and (0,1).
					add(bottom, right)
					add(top, left)
				} else {
					add(bottom, left)
					add(right, top)
				}
			}
		}
	}
	// Join segments that share an edge into polylines.
	byEdge := make(map[edge][]int)
	for k, s := range segs {
		byEdge[s.a] = append(byEdge[s.a], k)
		byEdge[s.b] = append(byEdge[s.b], k)
	}
	used := make([]bool, len(segs))
	other := func(k int, e edge) (int, bool) {
		for _, m := range byEdge[e] {
			if m != k && !used[m] {
				return m, true
			}
		}
		return 0, false
	}
	var out []polyline
	for k0 := range segs {
		if used[k0] {
			continue
		}
		used[k0] = true
		s := segs[k0]
		// follow walks from segment k0's end e along the joined segments
		// and returns the points passed.
		follow := func(e edge) []xy {
			var pts []xy
			for k := k0; ; {
				m, ok := other(k, e)
				if !ok {
					return pts
				}
				used[m] = true
				if segs[m].a == e {
					pts, e = append(pts, segs[m].pb), segs[m].b
				} else {
					pts, e = append(pts, segs[m].pa), segs[m].a
				}
				k = m
			}
		}
		// Walk forward from b, then backward from a.
		line := append([]xy{s.pa, s.pb}, follow(s.b)...)
		back := follow(s.a)
		slices.Reverse(back)
		out = append(out, append(back, line...))
	}
	return out
}

// crossover returns the phase-transition line between two time grids: the
// zero contour of log(T_implicit / T_explicit), interpolated bilinearly in
// the log ratio, where both methods have a time.
func crossover(implicit, explicit *grid) []polyline {
	return logRatio(implicit, explicit).refine(refinement).contour(0)
}

// refinement is the subdivision of grid rectangles for contour lines.
const refinement = 8

// logRatio returns log10(a/b) where both a and b have positive values.
func logRatio(a, b *grid) *grid {
	out := newGrid(a.x, a.y)
	for j := range a.z {
		for i := range a.z[j] {
			va, vb := a.z[j][i], b.z[j][i]
			if va > 0 && vb > 0 {
				out.z[j][i] = math.Log10(va / vb)
			}
		}
	}
	return out
}

// niceLevels returns contour levels between lo and hi (both > 0) at nice
// values for a log palette: 1-2-5 per decade, thinned to 1-3 or to whole
// decades (every second, third... decade) so that at most maxLevels remain;
// for a range within a factor of ten, nice linear steps instead, since a
// 1-2-5 ladder would leave one or two levels.
func niceLevels(lo, hi float64, maxLevels int) []float64 {
	if !(lo > 0) || !(hi > 0) || math.IsInf(hi, 0) || maxLevels < 2 {
		return nil
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	within := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	ladder := func(mants []float64, decStep int) []float64 {
		var out []float64
		for e := int(math.Floor(math.Log10(lo))) - 1; e <= int(math.Ceil(math.Log10(hi)))+1; e++ {
			if decStep > 1 && ((e%decStep)+decStep)%decStep != 0 {
				continue
			}
			for _, m := range mants {
				if v := m * math.Pow(10, float64(e)); within(v) {
					out = append(out, roundSig(v))
				}
			}
		}
		return out
	}
	if hi/lo < 10 {
		if lv := linearLevels(lo, hi, maxLevels); len(lv) >= 2 {
			return lv
		}
	}
	for _, c := range []struct {
		m    []float64
		step int
	}{{[]float64{1, 2, 5}, 1}, {[]float64{1, 3}, 1}, {[]float64{1}, 1}} {
		if lv := ladder(c.m, c.step); len(lv) <= maxLevels {
			return lv
		}
	}
	for step := 2; ; step++ {
		if lv := ladder([]float64{1}, step); len(lv) <= maxLevels {
			return lv
		}
	}
}

// linearLevels returns the multiples of a nice step (1, 2 or 5 times a
// power of ten) within [lo, hi], the smallest step giving at most
// maxLevels.
func linearLevels(lo, hi float64, maxLevels int) []float64 {
	span := hi - lo
	if !(span > 0) {
		return nil
	}
	e := math.Floor(math.Log10(span / float64(maxLevels)))
	for k := 0; k < 4; k++ {
		for _, m := range []float64{1, 2, 5} {
			step := m * math.Pow(10, e+float64(k))
			var out []float64
			for n := math.Ceil(lo/step - 1e-9); n*step <= hi*(1+1e-9); n++ {
				out = append(out, roundSig(n*step))
			}
			if len(out) <= maxLevels {
				return out
			}
		}
	}
	return nil
}

// roundSig rounds v to 12 significant digits, removing the noise of
// multiplying by powers of ten (0.30000000000000004).
func roundSig(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, 11-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
