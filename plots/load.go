package plots

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gkbench/gkbench/harness"
)

// Method names as recorded in harness.Row.Method.
const (
	Explicit = "explicit"
	Implicit = "implicit"
)

// statusMissing marks a grid point that has no row at all.
const statusMissing = "missing"

// kernelAxis is the name of the axis made of Row.Kernel when a folder holds
// several kernels that no grid axis tells apart.
const kernelAxis = "kernel"

// Results is a results folder as read for drawing: its meta data, its rows,
// and the rows aggregated to one point per grid cell and method.
type Results struct {
	// Dir is the folder the results were read from.
	Dir  string
	Meta harness.Meta
	// Rows are the runs of cells.jsonl; Accuracy the rows of
	// accuracy.jsonl, empty when the file does not exist.
	Rows     []harness.Row
	Accuracy []harness.AccuracyRow
	// Axes are the grid axes in meta.json order, with their values as
	// found in the rows, plus a kernel axis when several kernels share
	// coordinates.
	Axes []Axis
	// Points holds one aggregate per cell and method, in row order.
	Points []Point

	index map[string]int // pointKey → index into Points
}

// Axis is one grid coordinate of a results folder.
type Axis struct {
	Name string
	// Values are the distinct non-empty values in the rows, in increasing
	// order when the axis is numeric and in order of appearance otherwise.
	Values []string
	// Numeric says whether every value parses as a number; Nums then holds
	// them, parallel to Values.
	Numeric bool
	Nums    []float64
}

// Point is the aggregate of the repetitions of one cell and method.
type Point struct {
	Coords map[string]string
	Method string
	Kernel string
	// Status is "ok" when at least one repetition was ok, and otherwise
	// the status of the first repetition ("timeout", "oom", "error: ...").
	Status string
	// Reps counts the repetitions, OK those with status ok.
	Reps, OK int
	// The times are medians over the ok repetitions, in seconds.
	Total, Phi, Dot, WDPG, Walks float64
	// The cost figures are the same in every ok repetition.
	FeatureNNZ, ProductEdges int64
}

// Load reads the results folder dir: meta.json, cells.jsonl and, when
// present, accuracy.jsonl.
func Load(dir string) (*Results, error) {
	meta, err := harness.ReadMeta(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder %s: %w", dir, err)
	}
	rows, _, err := harness.ReadRows(dir)
	if err != nil {
		return nil, fmt.Errorf("results folder %s: %w", dir, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("results folder %s: no rows in cells.jsonl", dir)
	}
	acc, err := readAccuracy(filepath.Join(dir, "accuracy.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("results folder %s: %w", dir, err)
	}
	return newResults(dir, *meta, rows, acc), nil
}

// readAccuracy reads an accuracy.jsonl; a missing file is no accuracy, not
// an error, since the evaluation is optional.
func readAccuracy(path string) ([]harness.AccuracyRow, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []harness.AccuracyRow
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		var r harness.AccuracyRow
		if err := json.Unmarshal(t, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// newResults aggregates rows into points and collects the axes' values.
func newResults(dir string, meta harness.Meta, rows []harness.Row, acc []harness.AccuracyRow) *Results {
	r := &Results{Dir: dir, Meta: meta, Rows: rows, Accuracy: acc, index: make(map[string]int)}
	names := slices.Clone(meta.Axes)
	// Several kernels in one spec share coordinates; without an axis of
	// their own their points would be merged. Kernels that each run their
	// own method (the explicit graphlet kernel against the implicit
	// subgraph matching kernel of Section 5.4) are told apart by the
	// method, and belong in one comparison.
	var kernels []string
	byMethod := map[string][]string{}
	shared := false
	for i := range rows {
		k, m := rows[i].Kernel, rows[i].Method
		if !slices.Contains(kernels, k) {
			kernels = append(kernels, k)
		}
		if !slices.Contains(byMethod[m], k) {
			byMethod[m] = append(byMethod[m], k)
			shared = shared || len(byMethod[m]) > 1
		}
	}
	addKernel := shared && !slices.Contains(names, kernelAxis)
	if addKernel {
		names = append(names, kernelAxis)
	}
	// Axes missing from meta.json (an older or hand-made folder) are
	// taken from the rows, in sorted order for determinism.
	var extra []string
	for i := range rows {
		for k := range rows[i].Coords {
			if !slices.Contains(names, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	names = append(names, extra...)

	type group struct {
		p    Point
		rows []*harness.Row
	}
	var groups []*group
	for i := range rows {
		row := &rows[i]
		coords := make(map[string]string, len(names))
		for _, n := range names {
			if v := strings.TrimSpace(row.Coords[n]); v != "" {
				coords[n] = v
			}
		}
		if addKernel {
			coords[kernelAxis] = row.Kernel
		}
		key := pointKey(names, coords, row.Method)
		j, ok := r.index[key]
		if !ok {
			j = len(groups)
			r.index[key] = j
			groups = append(groups, &group{p: Point{Coords: coords, Method: row.Method, Kernel: row.Kernel}})
		}
		groups[j].rows = append(groups[j].rows, row)
	}
	for _, g := range groups {
		r.Points = append(r.Points, aggregate(g.p, g.rows))
	}
	for _, n := range names {
		r.Axes = append(r.Axes, collectAxis(n, r.Points))
	}
	return r
}

// aggregate fills p from the repetitions of its cell and method.
func aggregate(p Point, rows []*harness.Row) Point {
	p.Reps = len(rows)
	var ok []*harness.Row
	for _, row := range rows {
		if row.Status == harness.StatusOK {
			ok = append(ok, row)
		} else if p.Status == "" {
			p.Status = row.Status
		}
	}
	p.OK = len(ok)
	if len(ok) == 0 {
		if p.Status == "" {
			p.Status = statusMissing
		}
		return p
	}
	p.Status = harness.StatusOK
	med := func(get func(*harness.Row) float64) float64 {
		xs := make([]float64, len(ok))
		for i, row := range ok {
			xs[i] = get(row)
		}
		return harness.Median(xs)
	}
	p.Total = med(func(r *harness.Row) float64 { return r.Total })
	p.Phi = med(func(r *harness.Row) float64 { return r.Phi })
	p.Dot = med(func(r *harness.Row) float64 { return r.Dot })
	p.WDPG = med(func(r *harness.Row) float64 { return r.WDPG })
	p.Walks = med(func(r *harness.Row) float64 { return r.Walks })
	p.FeatureNNZ = ok[0].FeatureNNZ
	p.ProductEdges = ok[0].ProductEdges
	return p
}

// collectAxis gathers the distinct values of axis name over the points.
func collectAxis(name string, pts []Point) Axis {
	a := Axis{Name: name}
	for _, p := range pts {
		if v, ok := p.Coords[name]; ok && !slices.Contains(a.Values, v) {
			a.Values = append(a.Values, v)
		}
	}
	nums := make([]float64, len(a.Values))
	a.Numeric = len(a.Values) > 0
	for i, v := range a.Values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			a.Numeric = false
			break
		}
		nums[i] = f
	}
	if a.Numeric {
		idx := make([]int, len(nums))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(i, j int) int {
			switch {
			case nums[i] < nums[j]:
				return -1
			case nums[i] > nums[j]:
				return 1
			}
			return 0
		})
		vals := make([]string, len(idx))
		a.Nums = make([]float64, len(idx))
		for k, i := range idx {
			vals[k], a.Nums[k] = a.Values[i], nums[i]
		}
		a.Values = vals
	}
	return a
}

// pointKey identifies a point by its coordinates on names and its method.
func pointKey(names []string, coords map[string]string, method string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(coords[n])
		b.WriteByte('\x00')
	}
	b.WriteString(method)
	return b.String()
}

// axis returns the axis called name, or nil.
func (r *Results) axis(name string) *Axis {
	for i := range r.Axes {
		if r.Axes[i].Name == name {
			return &r.Axes[i]
		}
	}
	return nil
}

// axisNames returns the names of r.Axes.
func (r *Results) axisNames() []string {
	names := make([]string, len(r.Axes))
	for i, a := range r.Axes {
		names[i] = a.Name
	}
	return names
}

// point returns the point of method at coords, which must give every axis
// (an absent key stands for a point without that coordinate), or nil.
func (r *Results) point(method string, coords map[string]string) *Point {
	j, ok := r.index[pointKey(r.axisNames(), coords, method)]
	if !ok {
		return nil
	}
	return &r.Points[j]
}

// methods returns the methods present, in meta.json order first.
func (r *Results) methods() []string {
	ms := slices.Clone(r.Meta.Methods)
	for _, p := range r.Points {
		if !slices.Contains(ms, p.Method) {
			ms = append(ms, p.Method)
		}
	}
	return slices.DeleteFunc(ms, func(m string) bool {
		return !slices.ContainsFunc(r.Points, func(p Point) bool { return p.Method == m })
	})
}
