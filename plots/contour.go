package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// methodGrids are the values of one method over a contour's grid.
type methodGrids struct {
	method string
	time   *grid // median total time, NaN where not ok
	cost   *grid // feature non-zeros (explicit) or product-graph edges (implicit)
	// status[j][i] is the status of the cell at (x[i], y[j]).
	status [][]string
	pts    []*Point
}

// contourGrids collects the grids of every method for one panel of a
// contour figure set.
func contourGrids(r *Results, f FigureSpec, panel map[string]string) []*methodGrids {
	xa, ya := r.axis(f.X), r.axis(f.Y)
	var out []*methodGrids
	for _, m := range r.methods() {
		mg := &methodGrids{method: m, time: newGrid(xa.Nums, ya.Nums), cost: newGrid(xa.Nums, ya.Nums)}
		mg.status = make([][]string, len(ya.Nums))
		for j := range ya.Values {
			mg.status[j] = make([]string, len(xa.Nums))
			for i := range xa.Values {
				want := cloneCoords(panel)
				want[f.X], want[f.Y] = xa.Values[i], ya.Values[j]
				p := r.find(m, want)
				if p == nil {
					mg.status[j][i] = statusMissing
					continue
				}
				mg.pts = append(mg.pts, p)
				mg.status[j][i] = p.Status
				if p.Status != "ok" {
					continue
				}
				mg.time.z[j][i] = p.Total
				c := float64(p.FeatureNNZ)
				if m == Implicit {
					c = float64(p.ProductEdges)
				}
				mg.cost.z[j][i] = c
			}
		}
		out = append(out, mg)
	}
	return out
}

// find returns the point of method whose coordinates agree with want,
// preferring an ok one, or nil.
func (r *Results) find(method string, want map[string]string) *Point {
	var found *Point
	for i := range r.Points {
		p := &r.Points[i]
		if p.Method != method || !matches(p.Coords, want) {
			continue
		}
		if p.Status == "ok" {
			return p
		}
		if found == nil {
			found = p
		}
	}
	return found
}

// matches says whether coords agree with every entry of want; an empty
// wanted value asks for the coordinate to be absent.
func matches(coords, want map[string]string) bool {
	for k, v := range want {
		if coords[k] != v {
			return false
		}
	}
	return true
}

func cloneCoords(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+2)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// badCells returns the grid points of mg that have no value.
func (mg *methodGrids) badCells() (pts []xy, status []string) {
	for j, row := range mg.status {
		for i, s := range row {
			if s != "ok" {
				pts = append(pts, xy{mg.time.x[i], mg.time.y[j]})
				status = append(status, s)
			}
		}
	}
	return pts, status
}

// missingCells lists the grid points of mg without any row.
func (mg *methodGrids) missingCells(f FigureSpec) []string {
	var out []string
	for j, row := range mg.status {
		for i, s := range row {
			if s == statusMissing {
				out = append(out, fmt.Sprintf("%s=%s, %s=%s, %s", f.X, formatNum(mg.time.x[i]), f.Y, formatNum(mg.time.y[j]), mg.method))
			}
		}
	}
	return out
}

// contourFigures returns the figures of one contour panel: the time of
// each method, both in comparison, and the cost of each method.
func contourFigures(r *Results, f FigureSpec, panel map[string]string, stem string) ([]*figure, error) {
	grids := contourGrids(r, f, panel)
	var errs []error
	var ok []*methodGrids
	for _, mg := range grids {
		if mg.time.rectangles() == 0 {
			errs = append(errs, tooFewCells(r, f, panel, mg))
			continue
		}
		ok = append(ok, mg)
	}
	var figs []*figure
	byMethod := map[string]*methodGrids{}
	for _, mg := range ok {
		byMethod[mg.method] = mg
		figs = append(figs, timeContour(r, f, panel, stem, mg), costContour(r, f, panel, stem, mg))
	}
	if im, ex := byMethod[Implicit], byMethod[Explicit]; im != nil && ex != nil {
		figs = append(figs, bothContour(r, f, panel, stem, im, ex))
	}
	return figs, errors.Join(errs...)
}

// tooFewCells explains why a method has no contour.
func tooFewCells(r *Results, f FigureSpec, panel map[string]string, mg *methodGrids) error {
	okN, n := 0, 0
	var bad []string
	for j, row := range mg.status {
		for i, s := range row {
			n++
			if s == "ok" {
				okN++
				continue
			}
			if len(bad) < 8 {
				bad = append(bad, fmt.Sprintf("%s=%s %s=%s: %s", f.X, formatNum(mg.time.x[i]), f.Y, formatNum(mg.time.y[j]), s))
			}
		}
	}
	if len(bad) == 8 {
		bad = append(bad, "...")
	}
	return fmt.Errorf("results folder %s%s: too few cells for a contour of the %s time over %s × %s: "+
		"need ok times at the four corners of at least one grid rectangle, have %d ok of %d grid points (not ok: %s)",
		r.Dir, panelText(panel), mg.method, f.X, f.Y, okN, n, strings.Join(bad, "; "))
}

// contourLayout is the frame shared by the contour figures.
const (
	plotWidth     = 5.2 * vg.Inch
	contourHeight = 5 * vg.Inch
	minSide       = 1.3 * vg.Inch
)

// heatPlot returns a plot over the grid with a banded, log-coloured raster
// of g, its contour lines and labels, and markers at the cells without a
// value.
func heatPlot(title, xlabel, ylabel string, g *grid, levels []float64, pal []color.NRGBA,
	label func(float64) string, bad []xy, badStatus []string) *plot.Plot {
	p := newPlot(title, xlabel, ylabel)
	p.Add(&rasterPlot{
		xmin: g.x[0], xmax: g.x[len(g.x)-1], ymin: g.y[0], ymax: g.y[len(g.y)-1],
		colour: heatColour(g, levels, pal),
	})
	lines := &linesPlot{style: draw.LineStyle{Color: rgb(colContour), Width: 0.9}}
	labels := &labelsPlot{avoid: bad, perLine: 2, spacing: 2.2 * vg.Inch, size: 8}
	fine := g.refine(refinement)
	for _, lv := range levels {
		for _, pl := range fine.contour(lv) {
			lines.lines = append(lines.lines, pl)
			labels.labels = append(labels.labels, contourLabel{line: pl, text: label(lv), colour: rgb(colContour)})
		}
	}
	p.Add(lines)
	p.Add(&markersPlot{pts: bad, status: badStatus})
	p.Add(labels)
	p.X.Tick.Marker = valueTicks(g.x)
	p.Y.Tick.Marker = valueTicks(g.y)
	p.X.Min, p.X.Max = g.x[0], g.x[len(g.x)-1]
	p.Y.Min, p.Y.Max = g.y[0], g.y[len(g.y)-1]
	return p
}

// heatColour colours the bilinear interpolation of g by the band of
// levels it falls in, and grey where it cannot be interpolated.
func heatColour(g *grid, levels []float64, pal []color.NRGBA) func(x, y float64) color.NRGBA {
	bands := bandColours(pal, levels)
	return func(x, y float64) color.NRGBA {
		v, ok := g.at(x, y)
		if !ok {
			return rgb(colNoData)
		}
		return bands[band(levels, v)]
	}
}

// fieldLevels returns the contour levels of a positive field.
func fieldLevels(g *grid) (lo, hi float64, levels []float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, row := range g.z {
		for _, v := range row {
			if v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0, nil
	}
	return lo, hi, niceLevels(lo, hi, 9)
}

// timeContour draws the time of one method.
func timeContour(r *Results, f FigureSpec, panel map[string]string, stem string, mg *methodGrids) *figure {
	lo, hi, levels := fieldLevels(mg.time)
	bad, badStatus := mg.badCells()
	title := fmt.Sprintf("%s computation: running time%s", capitalise(mg.method), panelTitle(panel))
	p := heatPlot(title, axisLabel(f.X), axisLabel(f.Y), mg.time, levels, timePalette(), formatSeconds, bad, badStatus)
	what := fmt.Sprintf("Running time to compute the kernel matrix by %s computation over %s and %s: "+
		"the median total time of the ok repetitions, interpolated bilinearly on the grid, as bands at the "+
		"levels of the colour bar (log scale, seconds) with labelled contour lines at the same levels. "+
		"Grey areas touch a cell without a time and are not interpolated; markers show why.",
		mg.method, axisLabel(f.X), axisLabel(f.Y))
	sl := statusLegend(badStatus)
	side := sideWidth(sl)
	return &figure{
		name:   stem + "_time_" + mg.method,
		width:  plotWidth + side,
		height: contourHeight,
		draw: func(c draw.Canvas) {
			dataC := drawWithSide(c, p, side)
			sc := sideCanvas(c, dataC, side)
			drawColourBar(c, sc, "time (s)", lo, hi, levels, timePalette(), formatNum)
			drawStatusLegend(sc, sl)
		},
		caption: caption(r, title, what, mg.pts, panel, mg.missingCells(f)),
	}
}

// costContour draws the quantity that explains a method's time.
func costContour(r *Results, f FigureSpec, panel map[string]string, stem string, mg *methodGrids) *figure {
	lo, hi, levels := fieldLevels(mg.cost)
	bad, badStatus := mg.badCells()
	qty, unit := "feature-vector non-zeros", "non-zeros"
	if mg.method == Implicit {
		qty, unit = "product-graph edges", "edges"
	}
	title := fmt.Sprintf("%s computation: %s%s", capitalise(mg.method), qty, panelTitle(panel))
	p := heatPlot(title, axisLabel(f.X), axisLabel(f.Y), mg.cost, levels, costPalette(), formatNum, bad, badStatus)
	what := fmt.Sprintf("The cost behind the %s running time over %s and %s: the total number of %s "+
		"of the data set, interpolated bilinearly, as bands at the levels of the colour bar (log scale) with "+
		"labelled contour lines. Grey areas touch a cell without a value and are not interpolated.",
		mg.method, axisLabel(f.X), axisLabel(f.Y), qty)
	if lo == 0 && hi == 0 {
		what += " No cell recorded this quantity (all zero), so the figure is blank."
	}
	sl := statusLegend(badStatus)
	side := sideWidth(sl)
	return &figure{
		name:   stem + "_cost_" + mg.method,
		width:  plotWidth + side,
		height: contourHeight,
		draw: func(c draw.Canvas) {
			dataC := drawWithSide(c, p, side)
			sc := sideCanvas(c, dataC, side)
			drawColourBar(c, sc, unit, lo, hi, levels, costPalette(), formatNum)
			drawStatusLegend(sc, sl)
		},
		caption: caption(r, title, what, mg.pts, panel, mg.missingCells(f)),
	}
}

// bothContour draws both methods' contours on one axes over a background
// that marks where each method is faster, with the phase transition drawn
// thick.
func bothContour(r *Results, f FigureSpec, panel map[string]string, stem string, im, ex *methodGrids) *figure {
	union := newGrid(im.time.x, im.time.y)
	for j := range union.z {
		for i := range union.z[j] {
			a, b := im.time.z[j][i], ex.time.z[j][i]
			switch {
			case math.IsNaN(a):
				union.z[j][i] = b
			case math.IsNaN(b):
				union.z[j][i] = a
			default:
				union.z[j][i] = math.Max(a, b)
			}
		}
	}
	_, _, levels := fieldLevels(union)
	lr := logRatio(im.time, ex.time)
	cross := crossover(im.time, ex.time)
	title := "Implicit and explicit computation" + panelTitle(panel)
	p := newPlot(title, axisLabel(f.X), axisLabel(f.Y))
	g := im.time
	p.Add(&rasterPlot{
		xmin: g.x[0], xmax: g.x[len(g.x)-1], ymin: g.y[0], ymax: g.y[len(g.y)-1],
		colour: func(x, y float64) color.NRGBA { return winColour(lr, x, y) },
	})
	imLines := &linesPlot{style: draw.LineStyle{Color: rgb(colImplicit), Width: 1.1}}
	exLines := &linesPlot{style: draw.LineStyle{Color: rgb(colExplicit), Width: 1.1, Dashes: []vg.Length{5, 3}}}
	labels := &labelsPlot{perLine: 1, spacing: 3 * vg.Inch, size: 8}
	imFine, exFine := im.time.refine(refinement), ex.time.refine(refinement)
	for _, lv := range levels {
		for _, pl := range imFine.contour(lv) {
			imLines.lines = append(imLines.lines, pl)
			labels.labels = append(labels.labels, contourLabel{line: pl, text: formatSeconds(lv), colour: rgb(colImplicit)})
		}
		for _, pl := range exFine.contour(lv) {
			exLines.lines = append(exLines.lines, pl)
			labels.labels = append(labels.labels, contourLabel{line: pl, text: formatSeconds(lv), colour: rgb(colExplicit)})
		}
	}
	crossLines := &linesPlot{lines: cross, style: draw.LineStyle{Color: color.NRGBA{A: 255}, Width: 3}}
	var bad []xy
	var badStatus []string
	var badColour []color.NRGBA
	for _, mg := range []*methodGrids{im, ex} {
		pts, st := mg.badCells()
		bad = append(bad, pts...)
		badStatus = append(badStatus, st...)
		for range pts {
			badColour = append(badColour, methodColour(mg.method))
		}
	}
	// Labels must not hide the phase transition either.
	labels.avoid = bad
	for _, pl := range cross {
		labels.avoid = append(labels.avoid, pl...)
	}
	p.Add(imLines, exLines, crossLines, &markersPlot{pts: bad, status: badStatus, colours: badColour}, labels)
	p.X.Tick.Marker = valueTicks(g.x)
	p.Y.Tick.Marker = valueTicks(g.y)
	p.X.Min, p.X.Max = g.x[0], g.x[len(g.x)-1]
	p.Y.Min, p.Y.Max = g.y[0], g.y[len(g.y)-1]

	l := newLegend()
	l.Add("explicit faster", swatch{fill: rgb(0xfdae6b)})
	l.Add("implicit faster", swatch{fill: rgb(0x9ecae1)})
	l.Add("implicit time", imLines)
	l.Add("explicit time", exLines)
	l.Add("equal time", crossLines)
	if len(bad) > 0 {
		l.Add("no data (not interp.)", swatch{fill: rgb(colNoData)})
	}
	seen := map[string]bool{}
	for k, s := range badStatus {
		m := Implicit
		if badColour[k] == methodColour(Explicit) {
			m = Explicit
		}
		key := m + ": " + statusName(statusKind(s))
		if seen[key] {
			continue
		}
		seen[key] = true
		gs := statusGlyph(s)
		gs.Color = badColour[k]
		l.Add(key, glyphThumb{gs})
	}
	what := fmt.Sprintf("Both computations in comparison over %s and %s: implicit times as solid blue contour "+
		"lines, explicit times as dashed orange ones, at the same levels (seconds). The background is the "+
		"log ratio of the two times interpolated bilinearly: orange where explicit computation is faster, "+
		"blue where implicit computation is, deeper with the ratio (full at 100×). The thick black line is "+
		"the phase transition, the zero contour of log(T_implicit/T_explicit). %s",
		axisLabel(f.X), axisLabel(f.Y), crossoverText(f, cross, lr))
	pts := append(append([]*Point{}, im.pts...), ex.pts...)
	side := sideWidth(l)
	return &figure{
		name:   stem + "_time_both",
		width:  plotWidth + side,
		height: contourHeight,
		draw: func(c draw.Canvas) {
			dataC := drawWithSide(c, p, side)
			legendBox(sideCanvas(c, dataC, side), l)
		},
		caption: caption(r, title, what, pts, panel, append(im.missingCells(f), ex.missingCells(f)...)),
	}
}

// winColour colours the log ratio log10(T_implicit/T_explicit) at (x, y):
// orange where explicit is faster (ratio > 0), blue where implicit is,
// deeper up to two decades.
func winColour(lr *grid, x, y float64) color.NRGBA {
	v, ok := lr.at(x, y)
	if !ok {
		return rgb(colNoData)
	}
	t := math.Min(math.Abs(v)/2, 1)
	// Start the ramps away from white so that a small difference still
	// shows its side.
	if v > 0 {
		return lerpColour([]color.NRGBA{rgb(0xfee6ce), rgb(0xfdae6b)}, t)
	}
	return lerpColour([]color.NRGBA{rgb(0xdeebf7), rgb(0x9ecae1)}, t)
}

// crossoverText describes where the phase transition lies.
func crossoverText(f FigureSpec, cross []polyline, lr *grid) string {
	if len(cross) == 0 {
		pos, neg := 0, 0
		for _, row := range lr.z {
			for _, v := range row {
				if v > 0 {
					pos++
				} else if v < 0 {
					neg++
				}
			}
		}
		switch {
		case pos > 0 && neg == 0:
			return fmt.Sprintf("There is no phase transition in the grid: explicit computation is faster in all %d cells with both times.", pos)
		case neg > 0 && pos == 0:
			return fmt.Sprintf("There is no phase transition in the grid: implicit computation is faster in all %d cells with both times.", neg)
		}
		return "There is no phase transition line between cells with both times."
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, pl := range cross {
		for _, q := range pl {
			xlo, xhi = min(xlo, q.X), max(xhi, q.X)
			ylo, yhi = min(ylo, q.Y), max(yhi, q.Y)
		}
	}
	return fmt.Sprintf("The times are equal along %d line(s) spanning %s from %s to %s and %s from %s to %s.",
		len(cross), f.X, formatNum(xlo), formatNum(xhi), f.Y, formatNum(ylo), formatNum(yhi))
}

func methodColour(m string) color.NRGBA {
	if m == Explicit {
		return rgb(colExplicit)
	}
	return rgb(colImplicit)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// drawWithSide draws p on c less a strip of width side on the right for
// the colour bar or legend, and returns the data area.
func drawWithSide(c draw.Canvas, p *plot.Plot, side vg.Length) draw.Canvas {
	area := draw.Crop(c, 0, -side, 0, 0)
	p.Draw(area)
	return p.DataCanvas(area)
}

// sideCanvas returns the strip of width side right of the plot, spanning
// the data area's height.
func sideCanvas(c, dataC draw.Canvas, side vg.Length) draw.Canvas {
	s := c
	s.Min.X = c.Max.X - side + 12
	s.Max.X = c.Max.X - 4
	s.Min.Y = dataC.Min.Y
	s.Max.Y = dataC.Max.Y
	return s
}

// sideWidth returns the width of the strip that holds legend l: legends
// sit beside the data, never over it, and are never cut off.
func sideWidth(l plot.Legend) vg.Length {
	r := l.Rectangle(draw.Canvas{})
	// The margin allows for an SVG viewer's substitute font.
	return max(minSide, r.Max.X-r.Min.X+40)
}

// drawColourBar draws a vertical, log-scaled colour bar for [lo, hi] with
// the bands of levels in the upper part of side, and returns the height
// used. It is an image for the same reason as the heat map.
func drawColourBar(c, side draw.Canvas, title string, lo, hi float64, levels []float64, pal []color.NRGBA,
	format func(float64) string) {
	if !(lo > 0) || !(hi > 0) {
		return
	}
	if hi <= lo {
		hi = lo * 1.0001
	}
	tsty := textStyle(9, color.Black)
	th := tsty.Height(title)
	c.FillText(tsty, vg.Point{X: side.Min.X, Y: side.Max.Y - th}, title)
	bar := vg.Rectangle{
		Min: vg.Point{X: side.Min.X, Y: side.Min.Y + side.Size().Y*0.35},
		Max: vg.Point{X: side.Min.X + 14, Y: side.Max.Y - th - 6},
	}
	h := int(math.Ceil((bar.Max.Y - bar.Min.Y).Dots(DPI)))
	if h <= 0 {
		return
	}
	bands := bandColours(pal, levels)
	llo, lhi := math.Log(lo), math.Log(hi)
	img := image.NewNRGBA(image.Rect(0, 0, 4, h))
	for py := 0; py < h; py++ {
		v := math.Exp(lhi - (float64(py)+0.5)/float64(h)*(lhi-llo))
		for px := 0; px < 4; px++ {
			img.SetNRGBA(px, py, bands[band(levels, v)])
		}
	}
	c.DrawImage(bar, img)
	frame := []vg.Point{bar.Min, {X: bar.Max.X, Y: bar.Min.Y}, bar.Max, {X: bar.Min.X, Y: bar.Max.Y}, bar.Min}
	c.StrokeLines(draw.LineStyle{Color: color.NRGBA{A: 255}, Width: 0.5}, frame)
	lsty := textStyle(8, color.Black)
	lsty.YAlign = text.YCenter
	pos := func(v float64) vg.Length {
		return bar.Min.Y + vg.Length((math.Log(v)-llo)/(lhi-llo))*(bar.Max.Y-bar.Min.Y)
	}
	// Label the ends too, so the bar's range is readable, unless a level
	// label is close.
	marks := append([]float64{}, levels...)
	lastY := vg.Length(math.Inf(-1))
	minGap := lsty.Height("0") * 1.1
	for _, v := range marks {
		y := pos(v)
		c.StrokeLine2(draw.LineStyle{Color: color.NRGBA{A: 255}, Width: 0.5}, bar.Max.X, y, bar.Max.X+3, y)
		if y-lastY < minGap {
			continue
		}
		c.FillText(lsty, vg.Point{X: bar.Max.X + 5, Y: y}, format(v))
		lastY = y
	}
	rsty := textStyle(7.5, rgb(0x525252))
	rsty.YAlign = text.YTop
	c.FillText(rsty, vg.Point{X: side.Min.X, Y: bar.Min.Y - 4}, "range "+format(lo)+" – "+format(hi))
}

// statusLegend returns the legend of the markers of cells without a value.
func statusLegend(status []string) plot.Legend {
	l := newLegend()
	if len(status) == 0 {
		return l
	}
	counts := map[string]int{}
	for _, s := range status {
		counts[statusKind(s)]++
	}
	l.Add("no data (not interp.)", swatch{fill: rgb(colNoData)})
	for _, k := range statusOrder() {
		if n := counts[k]; n > 0 {
			l.Add(fmt.Sprintf("%s (%d)", statusName(k), n), glyphThumb{statusGlyph(k)})
		}
	}
	return l
}

// drawStatusLegend draws l in the lower part of side, below the colour bar.
func drawStatusLegend(side draw.Canvas, l plot.Legend) {
	lc := side
	lc.Max.Y = side.Min.Y + side.Size().Y*0.35 - 20
	legendBox(lc, l)
}
