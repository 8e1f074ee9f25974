package plots

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// FigureDir is the subfolder of a results folder that holds its figures.
const FigureDir = "figures"

// Plot draws every figure that the results folder dir supports into
// dir/figures and returns the files written. A figure that cannot be drawn
// (too few cells for a contour, say) is reported in the error while the
// others are still written.
func Plot(dir string) ([]string, error) {
	r, err := Load(dir)
	if err != nil {
		return nil, err
	}
	specs, err := Figures(r)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, FigureDir)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("results folder %s: %w", dir, err)
	}
	var paths []string
	var errs []error
	for _, f := range specs {
		figs, err := build(r, f)
		if err != nil {
			errs = append(errs, err)
		}
		for _, fig := range figs {
			ps, err := writeFigure(out, fig)
			paths = append(paths, ps...)
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	return paths, errors.Join(errs...)
}

// build returns the figures of one figure set, one group per panel, and
// an error naming what could not be drawn.
func build(r *Results, f FigureSpec) ([]*figure, error) {
	if err := checkSpec(r, f); err != nil {
		return nil, fmt.Errorf("results folder %s: %w", r.Dir, err)
	}
	var figs []*figure
	var errs []error
	for _, panel := range panels(r, f.Panels) {
		var fs []*figure
		var err error
		switch f.Kind {
		case KindContour:
			fs, err = contourFigures(r, f, panel, stem(f, panel))
		default:
			fs, err = lineFigures(r, f, panel, stem(f, panel))
		}
		figs = append(figs, fs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return figs, errors.Join(errs...)
}

// panels returns the combinations of the panel axes' values that occur in
// the points, one map per figure file; a single empty map without panel
// axes.
func panels(r *Results, names []string) []map[string]string {
	out := []map[string]string{{}}
	for _, n := range names {
		a := r.axis(n)
		if a == nil {
			continue
		}
		var next []map[string]string
		for _, m := range out {
			for _, v := range a.Values {
				c := cloneCoords(m)
				c[n] = v
				if r.any(c) {
					next = append(next, c)
				}
			}
		}
		out = next
	}
	return out
}

// any says whether some point agrees with want.
func (r *Results) any(want map[string]string) bool {
	for i := range r.Points {
		if matches(r.Points[i].Coords, want) {
			return true
		}
	}
	return false
}

// stem names a figure group's files: the kind's axes and the panel's
// values, safe in a file name.
func stem(f FigureSpec, panel map[string]string) string {
	parts := []string{f.X}
	if f.Kind == KindContour {
		parts = append(parts, f.Y)
	}
	for _, n := range f.Panels {
		if v, ok := panel[n]; ok {
			parts = append(parts, n+"-"+v)
		}
	}
	s := strings.Join(parts, "_")
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			return c
		}
		return '-'
	}, s)
}
