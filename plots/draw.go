package plots

import (
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Every colour is opaque NRGBA: a translucent fill darkens where shapes
// overlap in PDF, and color.RGBA is alpha-premultiplied, which invites
// colours that are not what they read as.
func rgb(hex uint32) color.NRGBA {
	return color.NRGBA{R: uint8(hex >> 16), G: uint8(hex >> 8), B: uint8(hex), A: 255}
}

// The colours of the figures, as hex RGB: one hue per method, throughout.
const (
	colImplicit     = 0x1f5fa8 // dark blue
	colExplicit     = 0xc2540a // dark orange
	colAccuracy     = 0x238b45 // green
	colNoData       = 0xd9d9d9
	colMarker       = 0x252525
	colContour      = 0x303030
	colWhite        = 0xffffff
	colImplicitWins = 0x9ecae1
	colExplicitWins = 0xfdbe85
)

// The sequential palettes of the heat maps, light enough that black lines
// and labels stay readable on their darkest colour.
func timePalette() []color.NRGBA {
	return []color.NRGBA{rgb(0xffffd9), rgb(0xd5eeb3), rgb(0x97d6b9), rgb(0x5bbdc2), rgb(0x3a9cc6), rgb(0x5a7fc0)}
}

func costPalette() []color.NRGBA {
	return []color.NRGBA{rgb(0xfff5eb), rgb(0xfdd9b4), rgb(0xfdb97d), rgb(0xfd9649), rgb(0xe8702a), rgb(0xc65a3f)}
}

// lerpColour returns the colour at t ∈ [0, 1] along the palette stops.
func lerpColour(stops []color.NRGBA, t float64) color.NRGBA {
	if len(stops) == 0 {
		return rgb(colNoData)
	}
	t = math.Max(0, math.Min(1, t))
	if math.IsNaN(t) {
		t = 0
	}
	f := t * float64(len(stops)-1)
	i := int(f)
	if i >= len(stops)-1 {
		return stops[len(stops)-1]
	}
	u := f - float64(i)
	a, b := stops[i], stops[i+1]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-u) + float64(y)*u)) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: 255}
}

// bandColours returns one colour per band of levels: len(levels)+1 bands,
// below the first level to above the last.
func bandColours(stops []color.NRGBA, levels []float64) []color.NRGBA {
	n := len(levels) + 1
	out := make([]color.NRGBA, n)
	for k := range out {
		t := 0.0
		if n > 1 {
			t = float64(k) / float64(n-1)
		}
		out[k] = lerpColour(stops, t)
	}
	return out
}

// band returns the index of the band of v among sorted levels.
func band(levels []float64, v float64) int {
	k := 0
	for k < len(levels) && v >= levels[k] {
		k++
	}
	return k
}

// textStyle returns the plain text style of the figures at size points.
func textStyle(size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(plot.DefaultFont, size),
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a plot with the figures' fonts and no legend of its own:
// legends are drawn beside the data, never over it.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 11
	p.Title.Padding = 6
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Tick.Marker = plainTicks{}
		a.Label.TextStyle.Font.Size = 11
		a.Tick.Label.Font.Size = 9
	}
	return p
}

// rasterPlot draws a field as an image: one colour per device pixel, so
// that there are no seams between cells (as vector rectangles leave) and
// no blur. It assumes linear axes.
type rasterPlot struct {
	xmin, xmax, ymin, ymax float64
	colour                 func(x, y float64) color.NRGBA
}

// Plot implements plot.Plotter.
func (r *rasterPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	min := vg.Point{X: trX(r.xmin), Y: trY(r.ymin)}
	max := vg.Point{X: trX(r.xmax), Y: trY(r.ymax)}
	w := int(math.Ceil((max.X - min.X).Dots(DPI)))
	h := int(math.Ceil((max.Y - min.Y).Dots(DPI)))
	if w <= 0 || h <= 0 {
		return
	}
	img := r.image(w, h)
	c.DrawImage(vg.Rectangle{Min: min, Max: max}, img)
}

// image renders the field into w×h pixels, row 0 at the top (ymax).
func (r *rasterPlot) image(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for py := 0; py < h; py++ {
		y := r.ymax - (float64(py)+0.5)/float64(h)*(r.ymax-r.ymin)
		for px := 0; px < w; px++ {
			x := r.xmin + (float64(px)+0.5)/float64(w)*(r.xmax-r.xmin)
			img.SetNRGBA(px, py, r.colour(x, y))
		}
	}
	return img
}

// DataRange implements plot.DataRanger.
func (r *rasterPlot) DataRange() (xmin, xmax, ymin, ymax float64) {
	return r.xmin, r.xmax, r.ymin, r.ymax
}

// linesPlot strokes polylines given in data coordinates.
type linesPlot struct {
	lines []polyline
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (l *linesPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, pl := range l.lines {
		if len(pl) < 2 {
			continue
		}
		pts := make([]vg.Point, len(pl))
		for i, q := range pl {
			pts[i] = vg.Point{X: trX(q.X), Y: trY(q.Y)}
		}
		c.StrokeLines(l.style, c.ClipLinesXY(pts)...)
	}
}

// Thumbnail implements plot.Thumbnailer.
func (l *linesPlot) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}

// swatch is a legend thumbnail of a filled colour.
type swatch struct{ fill color.NRGBA }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	pts := []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
	c.FillPolygon(s.fill, pts)
	c.StrokeLines(draw.LineStyle{Color: rgb(0x737373), Width: 0.5}, append(pts, pts[0]))
}

// glyphThumb is a legend thumbnail of one glyph.
type glyphThumb struct{ style draw.GlyphStyle }

// Thumbnail implements plot.Thumbnailer.
func (g glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(g.style, c.Center()) }

// statusGlyph returns the marker of a cell with the given status: each
// kind of failure is told apart in the figure and named in the legend.
func statusGlyph(status string) draw.GlyphStyle {
	g := draw.GlyphStyle{Color: rgb(colMarker), Radius: 4}
	switch statusKind(status) {
	case "timeout":
		g.Shape = draw.CrossGlyph{}
	case "oom":
		g.Shape = draw.TriangleGlyph{}
	case "error":
		g.Shape = draw.PlusGlyph{}
	default:
		g.Shape = draw.RingGlyph{}
	}
	return g
}

// statusKind folds "error: ..." to "error".
func statusKind(s string) string {
	if strings.HasPrefix(s, "error") {
		return "error"
	}
	return s
}

// statusNames are the legend texts of the failure kinds.
func statusName(kind string) string {
	switch kind {
	case "timeout":
		return "time limit hit"
	case "oom":
		return "out of memory"
	case "error":
		return "failed (error)"
	}
	return "not run (missing)"
}

// statusOrder lists the failure kinds in legend order.
func statusOrder() []string { return []string{"timeout", "oom", "error", statusMissing} }

// formatNum formats v briefly: 0.05, 2, 150, 2.5e+04 becomes 25k.
func formatNum(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e9:
		return trimFloat(v/1e9) + "G"
	case a >= 1e6:
		return trimFloat(v/1e6) + "M"
	case a >= 1e4:
		return trimFloat(v/1e3) + "k"
	case a < 1e-3:
		return strconv.FormatFloat(v, 'e', 0, 64)
	}
	return trimFloat(v)
}

// trimFloat formats v with at most 3 significant digits.
func trimFloat(v float64) string {
	return strconv.FormatFloat(roundSig3(v), 'f', -1, 64)
}

func roundSig3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// formatSeconds formats a time level for a contour label.
func formatSeconds(v float64) string { return formatNum(v) + " s" }

// logTicks marks a log axis with labelled decades, and with labelled 2 and
// 5 when the axis spans less than three decades, where decades alone would
// leave one or two labels.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	dense := hi/lo < 1000
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		d := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := roundSig(float64(m) * d)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (dense && (m == 2 || m == 5)) {
				t.Label = formatNum(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// plainTicks are gonum's default ticks with short labels (2.5, not 2.50).
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = formatNum(ticks[i].Value)
		}
	}
	return ticks
}

// valueTicks marks an axis at the grid's values when there are few, so
// that a reader sees where the measurements are.
func valueTicks(vals []float64) plot.Ticker {
	if len(vals) > 12 {
		return plainTicks{}
	}
	ticks := make(plot.ConstantTicks, len(vals))
	for i, v := range vals {
		ticks[i] = plot.Tick{Value: v, Label: formatNum(v)}
	}
	return ticks
}

// markersPlot draws the markers of cells that have no value.
type markersPlot struct {
	pts    []xy
	status []string
	// colours, when set, colours each marker by the method that failed.
	colours []color.NRGBA
}

// Plot implements plot.Plotter.
func (m *markersPlot) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, q := range m.pts {
		g := statusGlyph(m.status[i])
		if i < len(m.colours) {
			g.Color = m.colours[i]
		}
		pt := vg.Point{X: trX(q.X), Y: trY(q.Y)}
		// A white disc under the glyph keeps it visible on any colour.
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: rgb(colWhite), Radius: g.Radius + 1.5, Shape: draw.CircleGlyph{}}, pt)
		c.DrawGlyphNoClip(g, pt)
	}
}

// legendBox draws entries as a legend in the top-left corner of c.
func legendBox(c draw.Canvas, l plot.Legend) {
	l.Top, l.Left = true, true
	l.Draw(c)
}

// newLegend returns a legend with the figures' text style.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(9, color.Black)
	l.ThumbnailWidth = vg.Points(22)
	l.Padding = 3
	return l
}
