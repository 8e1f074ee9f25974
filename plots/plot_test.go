package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gkbench/gkbench/harness"
)

// checkFiles checks that every format of a figure exists and is valid.
func checkFiles(t *testing.T, dir, name string) {
	t.Helper()
	read := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name+"."+ext))
		if err != nil {
			t.Fatalf("figure %s: %v", name, err)
		}
		return b
	}
	img, err := png.Decode(bytes.NewReader(read("png")))
	if err != nil {
		t.Errorf("%s.png: %v", name, err)
	} else if w := img.Bounds().Dx(); w < 5*DPI {
		t.Errorf("%s.png is %d pixels wide; want ≥ %d (150 dpi)", name, w, 5*DPI)
	}
	dec := xml.NewDecoder(bytes.NewReader(read("svg")))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Errorf("%s.svg: %v", name, err)
			break
		}
	}
	pdf := read("pdf")
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("/Page")) {
		t.Errorf("%s.pdf: no PDF header or no page", name)
	}
	if len(read("md")) == 0 {
		t.Errorf("%s.md is empty", name)
	}
}

func TestPlotFixtures(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fix     *fixture
		figures []string
		// caption of the first figure must contain these.
		caption []string
	}{
		{
			// Two numeric axes with ≥ 3 values: the contour set.
			name: "label-diversity", fix: labelDiversityFixture(),
			figures: []string{"pv_d_time_both", "pv_d_time_explicit", "pv_d_time_implicit", "pv_d_cost_explicit", "pv_d_cost_implicit"},
			caption: []string{"fig-walk-label-diversity", "`quick`", "pv=1, d=160, explicit: timeout", "pv=0.8, d=40, implicit",
				"spanning pv from 0.3 to 0.3 and d from 40 to 160"},
		},
		{
			// A categorical axis: one file per data set.
			name: "walk-length", fix: walkLengthFixture(true),
			figures: []string{"length_dataset-ENZYMES_time", "length_dataset-MUTAG_time", "length_dataset-ENZYMES_cost", "length_dataset-MUTAG_cost"},
			caption: []string{"dataset=ENZYMES, length=9, explicit: oom", "accuracy from accuracy.jsonl", "T_phi"},
		},
		{
			// The same without accuracy.jsonl: time only, and said so.
			name: "walk-length-no-accuracy", fix: walkLengthFixture(false),
			figures: []string{"length_dataset-ENZYMES_time"},
			caption: []string{"no accuracy.jsonl", "running time only"},
		},
		{
			// wl is a series axis: lines by length, one per wl and method.
			name: "wl", fix: wlFixture(),
			figures: []string{"length_time", "length_cost"},
			caption: []string{"One line per method and value of wl", "size=200"},
		},
		{
			// The implicit baseline without an iterations coordinate.
			name: "attributed", fix: attributedFixture(),
			figures: []string{"iterations_kernel-graphhopper_time", "iterations_kernel-graphinvariant_cost"},
			caption: []string{"horizontal baseline", "kernel=graphhopper"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.fix.write(t, t.TempDir())
			paths, err := Plot(dir)
			if err != nil {
				t.Fatalf("Plot: %v", err)
			}
			if len(paths) == 0 {
				t.Fatal("no files written")
			}
			out := filepath.Join(dir, FigureDir)
			for _, f := range tc.figures {
				checkFiles(t, out, f)
			}
			b, err := os.ReadFile(filepath.Join(out, tc.figures[0]+".md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.caption {
				if !strings.Contains(string(b), want) {
					t.Errorf("caption of %s lacks %q:\n%s", tc.figures[0], want, b)
				}
			}
			// No temporary file is left behind by the atomic writes.
			left, _ := filepath.Glob(filepath.Join(out, ".*tmp*"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestCrossoverFromData(t *testing.T) {
	// The fixture's times are equal at p_V = 0.3 for every d (see
	// labelDiversityFixture); the grid steps by 0.2 in p_V.
	dir := labelDiversityFixture().write(t, t.TempDir())
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := FigureSpec{Kind: KindContour, X: "pv", Y: "d"}
	var im, ex *methodGrids
	for _, mg := range contourGrids(r, f, map[string]string{}) {
		switch mg.method {
		case Implicit:
			im = mg
		case Explicit:
			ex = mg
		}
	}
	cross := crossover(im.time, ex.time)
	if len(cross) != 1 {
		t.Fatalf("crossover: %d lines; want 1", len(cross))
	}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, q := range cross[0] {
		if math.Abs(q.X-0.3) > 0.2 {
			t.Errorf("crossover point %v: p_V off 0.3 by more than one grid step", q)
		}
		ylo, yhi = min(ylo, q.Y), max(yhi, q.Y)
	}
	// The line runs across the whole d range: 40 to 160.
	if ylo != 40 || yhi != 160 {
		t.Errorf("crossover spans d from %g to %g; want 40 to 160", ylo, yhi)
	}
}

func TestTimeoutNotInterpolated(t *testing.T) {
	// Explicit computation timed out at (p_V, d) = (1, 160): the
	// rectangle [0.8, 1] × [120, 160] has no time, while [0.8, 1] × [80,
	// 120] has all four.
	dir := labelDiversityFixture().write(t, t.TempDir())
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := FigureSpec{Kind: KindContour, X: "pv", Y: "d"}
	for _, mg := range contourGrids(r, f, map[string]string{}) {
		if mg.method != Explicit {
			continue
		}
		if mg.status[3][5] != harness.StatusTimeout {
			t.Errorf("status at (1, 160) = %q; want timeout", mg.status[3][5])
		}
		_, _, levels := fieldLevels(mg.time)
		colour := heatColour(mg.time, levels, timePalette())
		if c := colour(0.9, 150); c != rgb(colNoData) {
			t.Errorf("colour next to the timeout = %v; want the no-data grey", c)
		}
		if c := colour(0.9, 100); c == rgb(colNoData) {
			t.Errorf("colour of a complete rectangle is the no-data grey")
		}
		for _, pl := range mg.time.refine(refinement).contour(50) {
			for _, q := range pl {
				if q.X > 0.8 && q.Y > 120 {
					t.Errorf("contour point %v inside the rectangle of the timeout", q)
				}
			}
		}
		pts, st := mg.badCells()
		if len(pts) != 1 || pts[0] != (xy{1, 160}) || st[0] != harness.StatusTimeout {
			t.Errorf("markers %v %v; want one timeout at (1, 160)", pts, st)
		}
	}
}

func TestTooFewCells(t *testing.T) {
	// Explicit computation ok only at d = 40: no rectangle has four ok
	// corners, so no explicit contour; the error names the folder.
	fix := labelDiversityFixture()
	for i := range fix.rows {
		if fix.rows[i].Method == Explicit && fix.rows[i].Coords["d"] != "40" {
			fix.rows[i].Status = harness.StatusTimeout
		}
	}
	dir := fix.write(t, t.TempDir())
	_, err := Plot(dir)
	if err == nil {
		t.Fatal("Plot succeeded with too few explicit cells")
	}
	for _, want := range []string{dir, "too few cells", "explicit", "6 ok of 24"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// The implicit figures are still drawn.
	checkFiles(t, filepath.Join(dir, FigureDir), "pv_d_time_implicit")

	// A figures.json asking for a contour over an axis of two values.
	fix = labelDiversityFixture()
	var kept []harness.Row
	for _, r := range fix.rows {
		if d := r.Coords["d"]; d == "40" || d == "80" {
			kept = append(kept, r)
		}
	}
	fix.rows = kept
	dir = fix.write(t, t.TempDir())
	spec := `{"figures": [{"kind": "contour", "x": "pv", "y": "d"}]}`
	if err := os.WriteFile(filepath.Join(dir, figureFile), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Plot(dir)
	if err == nil || !strings.Contains(err.Error(), "too few cells for a contour: axis d has 2 value(s) (40, 80)") ||
		!strings.Contains(err.Error(), dir) {
		t.Errorf("Plot with a 6×2 grid: %v; want a too-few-cells error naming the folder and axis d", err)
	}
	// Without figures.json the same folder gives line figures.
	os.Remove(filepath.Join(dir, figureFile))
	if _, err := Plot(dir); err != nil {
		t.Errorf("Plot of a 6×2 grid without figures.json: %v", err)
	}
}

func TestInferFigures(t *testing.T) {
	for _, tc := range []struct {
		name string
		fix  *fixture
		want FigureSpec
	}{
		// The size axis goes on y, as in the paper's Figure 5.
		{"label-diversity", labelDiversityFixture(), FigureSpec{Kind: KindContour, X: "pv", Y: "d"}},
		{"walk-length", walkLengthFixture(false), FigureSpec{Kind: KindLines, X: "length", Panels: []string{"dataset"}}},
		{"wl", wlFixture(), FigureSpec{Kind: KindLines, X: "length", Series: []string{"wl"}}},
		{"attributed", attributedFixture(), FigureSpec{Kind: KindLines, X: "iterations", Panels: []string{"kernel"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Load(tc.fix.write(t, t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Figures(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Kind != tc.want.Kind || got[0].X != tc.want.X || got[0].Y != tc.want.Y ||
				strings.Join(got[0].Series, ",") != strings.Join(tc.want.Series, ",") ||
				strings.Join(got[0].Panels, ",") != strings.Join(tc.want.Panels, ",") {
				t.Errorf("Figures = %+v; want %+v", got, tc.want)
			}
		})
	}
}

func TestLoadMedian(t *testing.T) {
	// Three repetitions of MUTAG, length 0, implicit: WDPG = 20·(1, 1.01,
	// 1.02), so the median is 20.2; see walkLengthFixture.
	r, err := Load(walkLengthFixture(false).write(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	p := r.find(Implicit, map[string]string{"dataset": "MUTAG", "length": "0"})
	if p == nil || p.Reps != 3 || p.OK != 3 || math.Abs(p.WDPG-20.2) > 1e-9 {
		t.Errorf("point = %+v; want 3 ok repetitions with median T_wdpg 20.2", p)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("Load of an empty folder succeeded")
	}
}

// pixelFigure draws a raster filling the whole canvas: red in the top-left
// quarter of the data space (x < 0.5, y > 0.5), blue elsewhere.
func pixelFigure() *figure {
	r := &rasterPlot{xmin: 0, xmax: 1, ymin: 0, ymax: 1, colour: func(x, y float64) color.NRGBA {
		if x < 0.5 && y > 0.5 {
			return rgb(0xff0000)
		}
		return rgb(0x0000ff)
	}}
	return &figure{name: "pixels", width: 2 * vg.Inch, height: 2 * vg.Inch, draw: func(c draw.Canvas) {
		p := plot.New()
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
		r.Plot(c, p)
	}}
}

// checkCorners checks the quarter pattern of pixelFigure in img.
func checkCorners(t *testing.T, format string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	at := func(fx, fy float64) color.NRGBA {
		return color.NRGBAModel.Convert(img.At(b.Min.X+int(fx*float64(b.Dx())), b.Min.Y+int(fy*float64(b.Dy())))).(color.NRGBA)
	}
	isRed := func(c color.NRGBA) bool { return c.R > 200 && c.B < 60 }
	isBlue := func(c color.NRGBA) bool { return c.B > 200 && c.R < 60 }
	// Image rows grow downwards: (0.1, 0.1) is the top-left.
	if c := at(0.1, 0.1); !isRed(c) {
		t.Errorf("%s: top-left pixel %v; want red", format, c)
	}
	for _, q := range [][2]float64{{0.9, 0.1}, {0.1, 0.9}, {0.9, 0.9}} {
		if c := at(q[0], q[1]); !isBlue(c) {
			t.Errorf("%s: pixel at %v = %v; want blue", format, q, c)
		}
	}
}

func TestRasterOrientation(t *testing.T) {
	b, err := render(pixelFigure(), "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	checkCorners(t, "png", img)

	// The PDF's image must not be upside down; vgpdf alone gets this
	// wrong. Checked by rasterising the PDF where poppler is installed.
	pdf, err := render(pixelFigure(), "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Log("pdftoppm not installed; PDF orientation checked through flipVertical only")
	} else {
		dir := t.TempDir()
		in := filepath.Join(dir, "f.pdf")
		if err := os.WriteFile(in, pdf, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("pdftoppm", "-png", "-r", "50", "-singlefile", in, filepath.Join(dir, "f")).CombinedOutput(); err != nil {
			t.Fatalf("pdftoppm: %v: %s", err, out)
		}
		fh, err := os.Open(filepath.Join(dir, "f.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		img, err := png.Decode(fh)
		if err != nil {
			t.Fatal(err)
		}
		checkCorners(t, "pdf", img)
	}
	// flipVertical turns the first row into the last.
	src := image.NewNRGBA(image.Rect(0, 0, 1, 2))
	src.SetNRGBA(0, 0, rgb(0xff0000))
	src.SetNRGBA(0, 1, rgb(0x0000ff))
	if f := flipVertical(src); f.NRGBAAt(0, 0) != rgb(0x0000ff) || f.NRGBAAt(0, 1) != rgb(0xff0000) {
		t.Errorf("flipVertical did not flip: %v", f.Pix)
	}
}

func TestOpaqueOutput(t *testing.T) {
	dir := labelDiversityFixture().write(t, t.TempDir())
	if _, err := Plot(dir); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, FigureDir)
	for _, name := range []string{"pv_d_time_both", "pv_d_time_explicit"} {
		b, err := os.ReadFile(filepath.Join(out, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		bd := img.Bounds()
		for y := bd.Min.Y; y < bd.Max.Y; y += 3 {
			for x := bd.Min.X; x < bd.Max.X; x += 3 {
				if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
					t.Fatalf("%s.png: pixel (%d, %d) is translucent (alpha %d)", name, x, y, a)
				}
			}
		}
		// No fill or stroke with an alpha below one in the vector files:
		// vgsvg writes opacity only for translucent colours, vgpdf an
		// ExtGState /ca or /CA below 1.
		svg, _ := os.ReadFile(filepath.Join(out, name+".svg"))
		if m := regexp.MustCompile(`opacity:0(\.\d+)?[;"]`).Find(svg); m != nil {
			t.Errorf("%s.svg has a translucent colour: %s", name, m)
		}
		pdf, _ := os.ReadFile(filepath.Join(out, name+".pdf"))
		if m := regexp.MustCompile(`/(ca|CA) 0(\.\d+)?\b`).Find(pdf); m != nil {
			t.Errorf("%s.pdf has a translucent colour: %s", name, m)
		}
	}
	// The rasters are NRGBA with every pixel opaque.
	r := &rasterPlot{xmin: 0, xmax: 1, ymin: 0, ymax: 1, colour: func(x, y float64) color.NRGBA {
		return lerpColour(timePalette(), x)
	}}
	img := r.image(16, 8)
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 255 {
			t.Fatalf("raster pixel %d has alpha %d", i/4, img.Pix[i])
		}
	}
}
