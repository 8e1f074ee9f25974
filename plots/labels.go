package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// contourLabel is the text to write along one contour line.
type contourLabel struct {
	line   polyline
	text   string
	colour color.NRGBA
}

// labelsPlot writes contour labels along their lines, rotated to follow
// them, on a white box that breaks the line so the text stays readable on
// any background. gonum has no contour labels; the placement is greedy:
// labels go where the line is straight for the text's length, inside the
// data area, clear of other labels and of cell markers, and a line too
// short for its label gets none.
type labelsPlot struct {
	labels []contourLabel
	// avoid are points (cell markers) no label may cover.
	avoid []xy
	// perLine bounds the labels of one polyline; spacing is the arc length
	// between them.
	perLine int
	spacing vg.Length
	size    vg.Length
}

// box is a rotated rectangle: centre, half extents along its own axes, and
// the angle of its x axis.
type box struct {
	c      vg.Point
	hw, hh vg.Length
	angle  float64
}

func (b box) corners() [4]vg.Point {
	s, co := math.Sincos(b.angle)
	ux, uy := vg.Length(co), vg.Length(s)
	ax := vg.Point{X: ux * b.hw, Y: uy * b.hw}
	ay := vg.Point{X: -uy * b.hh, Y: ux * b.hh}
	return [4]vg.Point{
		b.c.Sub(ax).Sub(ay), b.c.Add(ax).Sub(ay),
		b.c.Add(ax).Add(ay), b.c.Sub(ax).Add(ay),
	}
}

// overlaps tests two rotated rectangles by separating axes.
func (b box) overlaps(o box) bool {
	bc, oc := b.corners(), o.corners()
	for _, a := range []float64{b.angle, b.angle + math.Pi/2, o.angle, o.angle + math.Pi/2} {
		s, c := math.Sincos(a)
		proj := func(ps [4]vg.Point) (lo, hi float64) {
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, p := range ps {
				v := float64(p.X)*c + float64(p.Y)*s
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			return lo, hi
		}
		l1, h1 := proj(bc)
		l2, h2 := proj(oc)
		if h1 < l2 || h2 < l1 {
			return false
		}
	}
	return true
}

// Plot implements plot.Plotter.
func (lp *labelsPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	var placed []box
	for _, q := range lp.avoid {
		placed = append(placed, box{c: vg.Point{X: trX(q.X), Y: trY(q.Y)}, hw: 6, hh: 6})
	}
	for _, l := range lp.labels {
		sty := textStyle(lp.size, l.colour)
		sty.XAlign, sty.YAlign = text.XCenter, text.YCenter
		pts := make([]vg.Point, len(l.line))
		for i, q := range l.line {
			pts[i] = vg.Point{X: trX(q.X), Y: trY(q.Y)}
		}
		for _, b := range lp.place(pts, sty, l.text, c.Rectangle, placed) {
			placed = append(placed, b)
			cs := b.corners()
			c.FillPolygon(rgb(colWhite), cs[:])
			sty.Rotation = b.angle
			c.FillText(sty, b.c, l.text)
		}
	}
}

// place chooses the boxes of one line's labels.
func (lp *labelsPlot) place(pts []vg.Point, sty text.Style, txt string, area vg.Rectangle, placed []box) []box {
	if len(pts) < 2 {
		return nil
	}
	arc := make([]vg.Length, len(pts))
	for i := 1; i < len(pts); i++ {
		arc[i] = arc[i-1] + dist(pts[i-1], pts[i])
	}
	total := arc[len(arc)-1]
	pad := vg.Length(1.5)
	w := sty.Width(txt) + 2*pad
	h := sty.Height("0") + 2*pad
	if total < 1.3*w {
		return nil
	}
	n := int(total / lp.spacing)
	n = max(1, min(n, lp.perLine))
	var out []box
	step := total / vg.Length(n)
	for k := 0; k < n; k++ {
		for _, off := range []float64{0, 0.2, -0.2, 0.35, -0.35, 0.45, -0.45} {
			s := step*(vg.Length(k)+0.5) + vg.Length(off)*step
			b, ok := labelBox(pts, arc, s, w, h)
			if !ok || !inside(b, area) || collides(b, placed) || collides(b, out) {
				continue
			}
			out = append(out, b)
			break
		}
	}
	return out
}

// labelBox returns the box of a label centred at arc length s, or false
// where the line bends too much under it or the label runs off its end.
func labelBox(pts []vg.Point, arc []vg.Length, s, w, h vg.Length) (box, bool) {
	total := arc[len(arc)-1]
	if s-w/2 < 0 || s+w/2 > total {
		return box{}, false
	}
	a, b, m := pointAt(pts, arc, s-w/2), pointAt(pts, arc, s+w/2), pointAt(pts, arc, s)
	d := b.Sub(a)
	chord := math.Hypot(float64(d.X), float64(d.Y))
	if chord < float64(w)*0.8 {
		return box{}, false
	}
	// The line must stay near the chord, else the text would cut across
	// the curve and hide the wrong part of it.
	for i, p := range pts {
		if arc[i] <= s-w/2 || arc[i] >= s+w/2 {
			continue
		}
		e := p.Sub(a)
		if off := math.Abs(float64(e.X)*float64(d.Y)-float64(e.Y)*float64(d.X)) / chord; off > float64(h)*0.6 {
			return box{}, false
		}
	}
	angle := math.Atan2(float64(d.Y), float64(d.X))
	// Text reads left to right: never upside down.
	if angle > math.Pi/2 {
		angle -= math.Pi
	} else if angle < -math.Pi/2 {
		angle += math.Pi
	}
	return box{c: m, hw: w / 2, hh: h / 2, angle: angle}, true
}

// pointAt returns the point at arc length s along pts.
func pointAt(pts []vg.Point, arc []vg.Length, s vg.Length) vg.Point {
	for i := 1; i < len(pts); i++ {
		if arc[i] >= s {
			seg := arc[i] - arc[i-1]
			if seg == 0 {
				return pts[i]
			}
			t := (s - arc[i-1]) / seg
			return vg.Point{X: pts[i-1].X + t*(pts[i].X-pts[i-1].X), Y: pts[i-1].Y + t*(pts[i].Y-pts[i-1].Y)}
		}
	}
	return pts[len(pts)-1]
}

func dist(a, b vg.Point) vg.Length {
	return vg.Length(math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)))
}

func inside(b box, r vg.Rectangle) bool {
	for _, p := range b.corners() {
		if p.X < r.Min.X+1 || p.X > r.Max.X-1 || p.Y < r.Min.Y+1 || p.Y > r.Max.Y-1 {
			return false
		}
	}
	return true
}

func collides(b box, others []box) bool {
	for _, o := range others {
		if b.overlaps(o) {
			return true
		}
	}
	return false
}
