package plots

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The kinds of FigureSpec.
const (
	KindContour = "contour"
	KindLines   = "lines"
)

// FigureSpec chooses one set of figures of a results folder. The figures
// are inferred from the axes; a figures.json in the folder holding
// {"figures": [FigureSpec, ...]} replaces the inferred list.
type FigureSpec struct {
	// Kind is "contour" (time over X and Y, per method and compared) or
	// "lines" (time by X).
	Kind string `json:"kind"`
	X    string `json:"x"`
	// Y is the vertical axis of a contour.
	Y string `json:"y,omitempty"`
	// Series are the axes of a line figure with one line per value (and
	// method).
	Series []string `json:"series,omitempty"`
	// Panels are the axes with one figure file per value. For inferred
	// specs these are the remaining axes with more than one value.
	Panels []string `json:"panels,omitempty"`
}

// figureFile is the optional override of the inferred figures.
const figureFile = "figures.json"

// seriesAxes are axes drawn as one line per value rather than as a
// dimension of a contour, following the paper: Figure 8 draws the walk
// kernel's time by walk length with one line per number of
// Weisfeiler-Lehman iterations.
func seriesAxes() []string { return []string{"wl"} }

// sizeAxes are the data set size axes, which the paper puts on the
// vertical axis of its contour plots.
func sizeAxes() []string { return []string{"d", "size"} }

// Figures returns the figure sets of r: those of figures.json in r.Dir when
// it exists, else those inferred from the axes.
func Figures(r *Results) ([]FigureSpec, error) {
	path := filepath.Join(r.Dir, figureFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return inferFigures(r)
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Figures []FigureSpec `json:"figures"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Figures) == 0 {
		return nil, fmt.Errorf("%s: no figures listed", path)
	}
	for i, f := range doc.Figures {
		if err := checkSpec(r, f); err != nil {
			return nil, fmt.Errorf("%s: figure %d: %w", path, i+1, err)
		}
	}
	return doc.Figures, nil
}

// checkSpec validates a figure set against the folder's axes.
func checkSpec(r *Results, f FigureSpec) error {
	need := func(name, role string) error {
		a := r.axis(name)
		if a == nil {
			return fmt.Errorf("%s axis %q is not an axis of the results (have %s)", role, name, strings.Join(r.axisNames(), ", "))
		}
		if !a.Numeric {
			return fmt.Errorf("%s axis %q is not numeric (values %s)", role, name, strings.Join(a.Values, ", "))
		}
		return nil
	}
	switch f.Kind {
	case KindContour:
		if err := need(f.X, "x"); err != nil {
			return err
		}
		if err := need(f.Y, "y"); err != nil {
			return err
		}
		if f.X == f.Y {
			return fmt.Errorf("x and y are both %q", f.X)
		}
		for _, n := range []string{f.X, f.Y} {
			if a := r.axis(n); len(a.Values) < 3 {
				return fmt.Errorf("too few cells for a contour: axis %s has %d value(s) (%s); a contour needs at least 3",
					n, len(a.Values), strings.Join(a.Values, ", "))
			}
		}
	case KindLines:
		if err := need(f.X, "x"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown kind %q (known: %s, %s)", f.Kind, KindContour, KindLines)
	}
	for _, n := range append(slices.Clone(f.Series), f.Panels...) {
		if r.axis(n) == nil {
			return fmt.Errorf("axis %q is not an axis of the results (have %s)", n, strings.Join(r.axisNames(), ", "))
		}
	}
	return nil
}

// inferFigures chooses the figures from the axes with more than one value:
// two numeric axes with at least three values make a contour set, the rest
// panels; otherwise one numeric axis is the x of line figures, with series
// for the series axes and numeric axes of two values, and panels for the
// categorical axes.
func inferFigures(r *Results) ([]FigureSpec, error) {
	var varying []*Axis
	for i := range r.Axes {
		if len(r.Axes[i].Values) > 1 {
			varying = append(varying, &r.Axes[i])
		}
	}
	var grid []*Axis // numeric, not series, ≥ 3 values
	for _, a := range varying {
		if a.Numeric && len(a.Values) >= 3 && !slices.Contains(seriesAxes(), a.Name) {
			grid = append(grid, a)
		}
	}
	others := func(used ...string) (series, panels []string) {
		for _, a := range varying {
			switch {
			case slices.Contains(used, a.Name):
			case a.Numeric:
				series = append(series, a.Name)
			default:
				panels = append(panels, a.Name)
			}
		}
		return series, panels
	}
	if len(grid) >= 2 {
		x, y := grid[0], grid[1]
		if slices.Contains(sizeAxes(), x.Name) && !slices.Contains(sizeAxes(), y.Name) {
			x, y = y, x
		}
		series, panels := others(x.Name, y.Name)
		return []FigureSpec{{Kind: KindContour, X: x.Name, Y: y.Name, Panels: append(series, panels...)}}, nil
	}
	var x *Axis
	if len(grid) == 1 {
		x = grid[0]
	} else {
		for _, a := range varying {
			if a.Numeric {
				x = a
				break
			}
		}
	}
	if x == nil {
		var desc []string
		for _, a := range r.Axes {
			desc = append(desc, fmt.Sprintf("%s (%d value(s))", a.Name, len(a.Values)))
		}
		return nil, fmt.Errorf("results folder %s: no numeric axis with at least 2 values to draw against; axes: %s",
			r.Dir, strings.Join(desc, ", "))
	}
	series, panels := others(x.Name)
	return []FigureSpec{{Kind: KindLines, X: x.Name, Series: series, Panels: panels}}, nil
}

// axisLabel returns the axis title of a grid axis, in the paper's terms.
func axisLabel(name string) string {
	switch name {
	case "pv":
		return "label diversity p_V"
	case "d":
		return "data set size d (graphs)"
	case "size":
		return "data set size (graphs)"
	case "length":
		return "walk length ℓ"
	case "wl":
		return "Weisfeiler-Lehman iterations"
	case "labels":
		return "label alphabet size |L|"
	case "iterations":
		return "random binning iterations"
	}
	return name
}
