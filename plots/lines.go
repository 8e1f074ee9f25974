package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// lineSeries is one method's points along the x axis for one combination
// of series values.
type lineSeries struct {
	method string
	combo  map[string]string
	// pts[i] is the point at x[i], nil where there is none.
	x   []float64
	pts []*Point
	// baseline is the method's point without an x coordinate (the exact
	// implicit computation against the binning iterations of explicit
	// maps), or nil.
	baseline *Point
}

// collectSeries gathers, for each method and combination of series
// values, the points along the x axis of one panel.
func collectSeries(r *Results, f FigureSpec, panel map[string]string) []*lineSeries {
	xa := r.axis(f.X)
	var out []*lineSeries
	for _, m := range r.methods() {
		for _, combo := range panels(r, f.Series) {
			s := &lineSeries{method: m, combo: combo, x: xa.Nums, pts: make([]*Point, len(xa.Nums))}
			want := cloneCoords(panel)
			for k, v := range combo {
				want[k] = v
			}
			any := false
			for i, v := range xa.Values {
				w := cloneCoords(want)
				w[f.X] = v
				s.pts[i] = r.find(m, w)
				any = any || s.pts[i] != nil
			}
			w := cloneCoords(want)
			w[f.X] = ""
			s.baseline = r.find(m, w)
			if any || s.baseline != nil {
				out = append(out, s)
			}
		}
	}
	return out
}

// allBaseline says whether the series is only a baseline.
func (s *lineSeries) allBaseline() bool {
	for _, p := range s.pts {
		if p != nil {
			return false
		}
	}
	return s.baseline != nil
}

// label names the series in a legend.
func (s *lineSeries) label(r *Results) string {
	l := s.method
	if c := coordText(r, s.combo); c != "" {
		l += ", " + c
	}
	if s.allBaseline() {
		l += " (baseline)"
	}
	return l
}

// quantity is one plotted measure of a point.
type quantity struct {
	name   string
	get    func(*Point) float64
	dashes []vg.Length
	width  vg.Length
	glyph  bool
}

// phases returns the measures drawn for a method: the total, solid, then
// its phases, dashed and dotted.
func phases(method string, split bool) []quantity {
	total := quantity{name: "total", get: func(p *Point) float64 { return p.Total }, width: 1.6, glyph: true}
	if !split {
		return []quantity{total}
	}
	dash, dot := []vg.Length{6, 3}, []vg.Length{1.5, 2.5}
	if method == Explicit {
		return []quantity{total,
			{name: "T_phi (feature maps)", get: func(p *Point) float64 { return p.Phi }, dashes: dash, width: 1.1},
			{name: "T_dot (dot products)", get: func(p *Point) float64 { return p.Dot }, dashes: dot, width: 1.3}}
	}
	return []quantity{total,
		{name: "T_wdpg (product graphs)", get: func(p *Point) float64 { return p.WDPG }, dashes: dash, width: 1.1},
		{name: "T_walks (walk counts)", get: func(p *Point) float64 { return p.Walks }, dashes: dot, width: 1.3}}
}

// seriesColour shades the method's hue by the series index, so that the
// series of one method stay recognisably one method.
func seriesColour(method string, k, n int) color.NRGBA {
	if n <= 1 {
		return methodColour(method)
	}
	t := float64(k) / float64(n-1)
	if method == Explicit {
		return lerpColour([]color.NRGBA{rgb(0xf08c3a), rgb(0x7f2704)}, t)
	}
	return lerpColour([]color.NRGBA{rgb(0x5a9fd4), rgb(0x08306b)}, t)
}

// seriesGlyphs tells series apart by marker shape as well as shade.
func seriesGlyph(k int) draw.GlyphDrawer {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
		draw.RingGlyph{}, draw.SquareGlyph{}}
	return shapes[k%len(shapes)]
}

// curve is one line of a line figure, in data coordinates; NaN breaks it.
type curve struct {
	x, y  []float64
	style draw.LineStyle
	glyph *draw.GlyphStyle
}

// Thumbnail implements plot.Thumbnailer.
func (cv *curve) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(cv.style, c.Min.X, y, c.Max.X, y)
	if cv.glyph != nil {
		c.DrawGlyph(*cv.glyph, c.Center())
	}
}

// plotters returns the curve as lines and markers, broken at values that
// are missing or, on a log axis, not positive.
func (cv *curve) plotters(logY bool) []plot.Plotter {
	var out []plot.Plotter
	var seg plotter.XYs
	flush := func() {
		if len(seg) > 1 {
			if l, err := plotter.NewLine(seg); err == nil {
				l.LineStyle = cv.style
				out = append(out, l)
			}
		}
		if len(seg) > 0 && cv.glyph != nil {
			if s, err := plotter.NewScatter(seg); err == nil {
				s.GlyphStyle = *cv.glyph
				out = append(out, s)
			}
		}
		seg = nil
	}
	for i := range cv.x {
		y := cv.y[i]
		if math.IsNaN(y) || math.IsInf(y, 0) || (logY && y <= 0) {
			flush()
			continue
		}
		seg = append(seg, plotter.XY{X: cv.x[i], Y: y})
	}
	flush()
	return out
}

// edgeMarkers marks, at the top of the data area, the x positions where a
// series has no value, in the series' colour: a time limit or a memory
// limit hit is a result too, and a line simply stopping would hide it.
type edgeMarkers struct {
	x      []float64
	status []string
	colour []color.NRGBA
}

// Plot implements plot.Plotter.
func (e *edgeMarkers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for i, x := range e.x {
		g := statusGlyph(e.status[i])
		g.Color = e.colour[i]
		// Stack markers of different series at one x downwards.
		k := 0
		for j := 0; j < i; j++ {
			if e.x[j] == x {
				k++
			}
		}
		pt := vg.Point{X: trX(x), Y: c.Max.Y - 6 - vg.Length(k)*10}
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: rgb(colWhite), Radius: g.Radius + 1.5, Shape: draw.CircleGlyph{}}, pt)
		c.DrawGlyphNoClip(g, pt)
	}
}

// xScale sets a log x axis for values that grow geometrically by a factor
// of two or more (binning iterations 1, 2, 4, ...), where a linear axis
// would crowd the small ones.
func xScale(p *plot.Plot, xs []float64) {
	p.X.Tick.Marker = valueTicks(xs)
	if len(xs) < 3 || xs[0] <= 0 {
		return
	}
	q := xs[1] / xs[0]
	if q < 1.9 {
		return
	}
	for i := 2; i < len(xs); i++ {
		if math.Abs(xs[i]/xs[i-1]-q) > 0.01*q {
			return
		}
	}
	p.X.Scale = plot.LogScale{}
}

// yScale makes the y axis logarithmic when the positive values span more
// than 1.5 decades.
func yScale(p *plot.Plot, ys []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range ys {
		if y > 0 {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	if math.IsInf(lo, 1) || hi/lo <= math.Pow(10, 1.5) {
		return false
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	return true
}

const (
	linePlotWidth  = 5.6 * vg.Inch
	lineHeight     = 4.6 * vg.Inch
	rightAxisWidth = 0.6 * vg.Inch
)

// lineFigures returns the time and cost figures of one panel of a line
// figure set.
func lineFigures(r *Results, f FigureSpec, panel map[string]string, stem string) ([]*figure, error) {
	ss := collectSeries(r, f, panel)
	if len(ss) == 0 {
		return nil, fmt.Errorf("results folder %s%s: no points along %s", r.Dir, panelText(panel), f.X)
	}
	return []*figure{timeLines(r, f, panel, stem, ss), costLines(r, f, panel, stem, ss)}, nil
}

// seriesIndex returns k, n: the index of s among the series of its method
// and their count.
func seriesIndex(ss []*lineSeries, s *lineSeries) (k, n int) {
	for _, o := range ss {
		if o.method != s.method {
			continue
		}
		if o == s {
			k = n
		}
		n++
	}
	return k, n
}

// lineFigure assembles a line plot with its legend, optional accuracy
// axis and markers for missing values.
type lineFigure struct {
	p       *plot.Plot
	legend  plot.Legend
	curves  []*curve
	names   []string
	marks   edgeMarkers
	acc     []*curve // on the right axis, in percent
	accName []string
}

// timeLines draws the running time by x, split into phases when there is
// one series per method, with the accuracy on a right axis.
func timeLines(r *Results, f FigureSpec, panel map[string]string, stem string, ss []*lineSeries) *figure {
	split := len(f.Series) == 0
	title := "Running time by " + axisLabel(f.X) + panelTitle(panel)
	lf := &lineFigure{p: newPlot(title, axisLabel(f.X), "running time (s)")}
	xScale(lf.p, r.axis(f.X).Nums)
	var pts []*Point
	var missing []string
	for _, s := range ss {
		k, n := seriesIndex(ss, s)
		col := seriesColour(s.method, k, n)
		for i, p := range s.pts {
			if p != nil {
				pts = append(pts, p)
			}
			if s.allBaseline() {
				continue
			}
			if p == nil || p.Status != "ok" {
				st := statusMissing
				if p != nil {
					st = p.Status
				} else {
					missing = append(missing, fmt.Sprintf("%s=%s, %s", f.X, formatNum(s.x[i]), s.label(r)))
				}
				lf.marks.x = append(lf.marks.x, s.x[i])
				lf.marks.status = append(lf.marks.status, st)
				lf.marks.colour = append(lf.marks.colour, col)
			}
		}
		if s.baseline != nil {
			pts = append(pts, s.baseline)
		}
		for qi, q := range phases(s.method, split && !s.allBaseline()) {
			if qi > 0 && !recorded(s.pts, q.get) {
				// A phase that is zero throughout was not timed.
				continue
			}
			cv := &curve{style: draw.LineStyle{Color: col, Width: q.width, Dashes: q.dashes}}
			if s.method == Explicit && !split {
				cv.style.Dashes = []vg.Length{5, 2.5}
			}
			if q.glyph {
				g := draw.GlyphStyle{Color: col, Radius: 2.6, Shape: seriesGlyph(k)}
				cv.glyph = &g
			}
			if s.allBaseline() {
				y := math.NaN()
				if s.baseline.Status == "ok" {
					y = q.get(s.baseline)
				}
				cv.x = []float64{s.x[0], s.x[len(s.x)-1]}
				cv.y = []float64{y, y}
				cv.glyph = nil
				cv.style.Dashes = []vg.Length{8, 3, 2, 3}
			} else {
				for i, p := range s.pts {
					cv.x = append(cv.x, s.x[i])
					y := math.NaN()
					if p != nil && p.Status == "ok" {
						y = q.get(p)
					}
					cv.y = append(cv.y, y)
				}
			}
			name := s.label(r)
			if qi > 0 {
				name = s.method + " " + q.name
			} else if split && !s.allBaseline() {
				name += ", total"
			}
			lf.curves = append(lf.curves, cv)
			lf.names = append(lf.names, name)
		}
	}
	accNote := lf.addAccuracy(r, f, panel)
	drawFn, width := lf.draw("accuracy (%)")
	what := fmt.Sprintf("Running time to compute the kernel matrix by %s, the median of the ok repetitions "+
		"(seconds%s). ", axisLabel(f.X), logNote(lf))
	if split {
		what += "Solid lines are the total time of each method (orange: explicit, blue: implicit); dashed and " +
			"dotted lines of the same colour its phases: T_phi (computing the feature vectors) and T_dot " +
			"(their dot products) for explicit maps, T_wdpg (the product graphs) and T_walks (counting walks " +
			"in them) for implicit computation. "
	} else {
		what += "One line per method and value of " + strings.Join(f.Series, ", ") + ": explicit dashed in " +
			"shades of orange, implicit solid in shades of blue. "
	}
	what += "A method without an x value is drawn as a horizontal baseline. Markers along the top edge " +
		"show x values where a method has no time (limit hit or missing). " + accNote
	return &figure{
		name:    stem + "_time",
		width:   width,
		height:  lineHeight,
		draw:    drawFn,
		caption: caption(r, title, what, pts, panel, missing),
	}
}

// recorded says whether some ok point has a non-zero value of get.
func recorded(pts []*Point, get func(*Point) float64) bool {
	for _, p := range pts {
		if p != nil && p.Status == "ok" && get(p) != 0 {
			return true
		}
	}
	return false
}

func logNote(lf *lineFigure) string {
	if _, ok := lf.p.Y.Scale.(plot.LogScale); ok {
		return ", log scale, since the times span more than 1.5 decades"
	}
	return ""
}

// addAccuracy adds the accuracy of each series combination from
// accuracy.jsonl and returns the caption's note on it.
func (lf *lineFigure) addAccuracy(r *Results, f FigureSpec, panel map[string]string) string {
	if len(r.Accuracy) == 0 {
		return "There is no accuracy.jsonl in the results folder, so the figure shows the running time only."
	}
	xa := r.axis(f.X)
	combos := panels(r, f.Series)
	for k, combo := range combos {
		want := cloneCoords(panel)
		for a, v := range combo {
			want[a] = v
		}
		cv := &curve{style: draw.LineStyle{Color: rgb(colAccuracy), Width: 1.3}}
		g := draw.GlyphStyle{Color: rgb(colAccuracy), Radius: 2.4, Shape: seriesGlyph(k)}
		cv.glyph = &g
		found := false
		for i, v := range xa.Values {
			w := cloneCoords(want)
			w[f.X] = v
			y, ok := accuracyAt(r, w)
			found = found || ok
			cv.x = append(cv.x, xa.Nums[i])
			if !ok {
				y = math.NaN()
			}
			cv.y = append(cv.y, y)
		}
		name := "accuracy"
		if c := coordText(r, combo); c != "" {
			name += ", " + c
		}
		if found {
			lf.acc = append(lf.acc, cv)
			lf.accName = append(lf.accName, name)
		}
		w := cloneCoords(want)
		w[f.X] = ""
		if y, ks, ok := accuracyKernelAt(r, w); ok {
			b := &curve{x: []float64{xa.Nums[0], xa.Nums[len(xa.Nums)-1]}, y: []float64{y, y},
				style: draw.LineStyle{Color: rgb(colAccuracy), Width: 1.3, Dashes: []vg.Length{8, 3, 2, 3}}}
			lf.acc = append(lf.acc, b)
			lf.accName = append(lf.accName, name+" ("+strings.Join(ks, ", ")+", baseline)")
		}
	}
	if len(lf.acc) == 0 {
		return "accuracy.jsonl has no ok row for these cells, so the figure shows the running time only."
	}
	return "The green line is the classification accuracy from accuracy.jsonl (right axis, percent, mean of " +
		"the outer cross-validation repetitions); it belongs to the kernel, not to a method, since both " +
		"compute the same matrix."
}

// accuracyAt returns the mean accuracy of the ok accuracy rows agreeing
// with want.
func accuracyAt(r *Results, want map[string]string) (float64, bool) {
	y, _, ok := accuracyKernelAt(r, want)
	return y, ok
}

// accuracyKernelAt is accuracyAt that also names the kernels of the rows,
// so that a baseline can say which kernel it is (the geometric random walk
// kernel beside the walk kernel).
func accuracyKernelAt(r *Results, want map[string]string) (float64, []string, bool) {
	var kernels []string
	sum, n := 0.0, 0
	for _, a := range r.Accuracy {
		if a.Status != "ok" && a.Status != "" {
			continue
		}
		ok := true
		for k, v := range want {
			got := strings.TrimSpace(a.Coords[k])
			if k == kernelAxis && got == "" {
				got = a.Kernel
			}
			if k == "dataset" && got == "" && v != "" {
				got = a.Data
			}
			if got != v {
				ok = false
				break
			}
		}
		if ok {
			sum += a.Mean
			n++
			if !slices.Contains(kernels, a.Kernel) {
				kernels = append(kernels, a.Kernel)
			}
		}
	}
	if n == 0 {
		return 0, nil, false
	}
	return sum / float64(n), kernels, true
}

// draw returns the drawing function of the figure (the plot, the accuracy
// on its own axis at the right, and the legend beside) and its width.
func (lf *lineFigure) draw(accLabel string) (func(c draw.Canvas), vg.Length) {
	var ys []float64
	for _, cv := range lf.curves {
		ys = append(ys, cv.y...)
	}
	logY := yScale(lf.p, ys)
	for _, cv := range lf.curves {
		lf.p.Add(cv.plotters(logY)...)
	}
	// Headroom keeps lines off the frame and leaves the top band to the
	// markers of missing values.
	room := 0.06
	if len(lf.marks.x) > 0 {
		room = 0.14
		lf.p.Add(&lf.marks)
	}
	if logY {
		if lf.p.Y.Min > 0 && lf.p.Y.Max > lf.p.Y.Min {
			lf.p.Y.Max *= math.Pow(lf.p.Y.Max/lf.p.Y.Min, room)
		}
	} else if lf.p.Y.Max > lf.p.Y.Min {
		lf.p.Y.Max += room * (lf.p.Y.Max - lf.p.Y.Min)
	}
	l := newLegend()
	for i, cv := range lf.curves {
		l.Add(lf.names[i], cv)
	}
	for i, cv := range lf.acc {
		l.Add(lf.accName[i], cv)
	}
	seen := map[string]bool{}
	for _, st := range lf.marks.status {
		k := statusKind(st)
		if !seen[k] {
			seen[k] = true
			l.Add("no value: "+statusName(k)+" (at top)", glyphThumb{statusGlyph(k)})
		}
	}
	side := sideWidth(l)
	width := linePlotWidth + side
	if len(lf.acc) > 0 {
		width += rightAxisWidth
	}
	return func(c draw.Canvas) {
		area := draw.Crop(c, 0, -side, 0, 0)
		if len(lf.acc) > 0 {
			area = draw.Crop(area, 0, -rightAxisWidth, 0, 0)
		}
		lf.p.Draw(area)
		dataC := lf.p.DataCanvas(area)
		if len(lf.acc) > 0 {
			drawAccuracy(c, dataC, lf.p, lf.acc, accLabel)
		}
		sc := sideCanvas(c, dataC, side)
		sc.Max.Y = c.Max.Y - 8
		legendBox(sc, l)
	}, width
}

// drawAccuracy draws curves against a second y axis on the right of the
// data area: gonum has one y axis per plot, so a second plot shares the x
// axis and its y axis is drawn by hand.
func drawAccuracy(c, dataC draw.Canvas, left *plot.Plot, curves []*curve, label string) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, cv := range curves {
		for _, y := range cv.y {
			if !math.IsNaN(y) {
				lo, hi = min(lo, y), max(hi, y)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return
	}
	lo, hi = math.Max(0, math.Floor(lo/5)*5-5), math.Min(100, math.Ceil(hi/5)*5+5)
	if hi <= lo {
		hi = lo + 10
	}
	q := plot.New()
	q.X = left.X
	q.Y.Min, q.Y.Max = lo, hi
	_, trY := q.Transforms(&dataC)
	for _, cv := range curves {
		for _, pl := range cv.plotters(false) {
			pl.Plot(dataC, q)
		}
	}
	x := dataC.Max.X
	axis := draw.LineStyle{Color: color.NRGBA{A: 255}, Width: 0.75}
	c.StrokeLine2(axis, x, dataC.Min.Y, x, dataC.Max.Y)
	lsty := textStyle(9, rgb(colAccuracy))
	lsty.YAlign = text.YCenter
	var maxw vg.Length
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value < lo || t.Value > hi {
			continue
		}
		y := trY(t.Value)
		if t.IsMinor() {
			c.StrokeLine2(axis, x, y, x+3, y)
			continue
		}
		c.StrokeLine2(axis, x, y, x+6, y)
		c.FillText(lsty, vg.Point{X: x + 8, Y: y}, t.Label)
		maxw = max(maxw, lsty.Width(t.Label))
	}
	tsty := textStyle(11, rgb(colAccuracy))
	tsty.Rotation = math.Pi / 2
	tsty.XAlign, tsty.YAlign = text.XCenter, text.YTop
	c.FillText(tsty, vg.Point{X: x + 12 + maxw + tsty.Height(label), Y: (dataC.Min.Y + dataC.Max.Y) / 2}, label)
}

// costLines draws the quantity behind each method's time by x: feature
// non-zeros for explicit maps, product-graph edges for implicit
// computation.
func costLines(r *Results, f FigureSpec, panel map[string]string, stem string, ss []*lineSeries) *figure {
	title := "Cost by " + axisLabel(f.X) + panelTitle(panel)
	lf := &lineFigure{p: newPlot(title, axisLabel(f.X), "count")}
	xScale(lf.p, r.axis(f.X).Nums)
	var pts []*Point
	for _, s := range ss {
		k, n := seriesIndex(ss, s)
		col := seriesColour(s.method, k, n)
		get, qty := func(p *Point) float64 { return float64(p.FeatureNNZ) }, "feature non-zeros"
		if s.method == Implicit {
			get, qty = func(p *Point) float64 { return float64(p.ProductEdges) }, "product-graph edges"
		}
		g := draw.GlyphStyle{Color: col, Radius: 2.6, Shape: seriesGlyph(k)}
		cv := &curve{style: draw.LineStyle{Color: col, Width: 1.4}, glyph: &g}
		if s.method == Explicit {
			cv.style.Dashes = []vg.Length{5, 2.5}
		}
		for i, p := range s.pts {
			y := math.NaN()
			if p != nil {
				pts = append(pts, p)
				if p.Status == "ok" {
					y = get(p)
				} else {
					lf.marks.x = append(lf.marks.x, s.x[i])
					lf.marks.status = append(lf.marks.status, p.Status)
					lf.marks.colour = append(lf.marks.colour, col)
				}
			}
			cv.x = append(cv.x, s.x[i])
			cv.y = append(cv.y, y)
		}
		if s.allBaseline() && s.baseline.Status == "ok" {
			y := get(s.baseline)
			cv = &curve{x: []float64{s.x[0], s.x[len(s.x)-1]}, y: []float64{y, y},
				style: draw.LineStyle{Color: col, Width: 1.4, Dashes: []vg.Length{8, 3, 2, 3}}}
		}
		lf.curves = append(lf.curves, cv)
		lf.names = append(lf.names, s.label(r)+": "+qty)
	}
	drawFn, width := lf.draw("")
	what := fmt.Sprintf("The cost behind the running time by %s: the total number of non-zero components of "+
		"the feature vectors of the data set for explicit maps (orange, dashed), and the total number of "+
		"edges of the product graphs of all pairs for implicit computation (blue, solid)%s. A value of 0 "+
		"means the results do not record it.", axisLabel(f.X), logNote(lf))
	return &figure{
		name:    stem + "_cost",
		width:   width,
		height:  lineHeight,
		draw:    drawFn,
		caption: caption(r, title, what, pts, panel, nil),
	}
}
