package harness

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
)

// summaryMeasures are the timed quantities that summary.csv aggregates,
// each as a column prefix and its field of Row.
func summaryMeasures() []struct {
	name string
	get  func(*Row) float64
} {
	return []struct {
		name string
		get  func(*Row) float64
	}{
		{"t_total", func(r *Row) float64 { return r.Total }},
		{"t_prep", func(r *Row) float64 { return r.Prep }},
		{"t_phi", func(r *Row) float64 { return r.Phi }},
		{"t_dot", func(r *Row) float64 { return r.Dot }},
		{"t_wdpg", func(r *Row) float64 { return r.WDPG }},
		{"t_walks", func(r *Row) float64 { return r.Walks }},
	}
}

func summaryHeader(axes []string) []string {
	h := []string{"cell_index", "cell"}
	h = append(h, axes...)
	h = append(h, "data", "graphs", "kernel", "params", "method", "reps", "ok", "status")
	for _, m := range summaryMeasures() {
		h = append(h, m.name+"_mean", m.name+"_median", m.name+"_min")
	}
	return append(h, "feature_nnz", "max_feature_nnz", "features", "product_vertices", "product_edges",
		"pairs", "comparisons", "peak_heap_max_bytes", "cores_median", "c2c_median_ns")
}

// summarize groups rows by cell and method, in cell order and the given
// method order, and returns one summary record per group.
func summarize(axes, methods []string, rows []Row) [][]string {
	type group struct {
		rows []*Row
	}
	type gkey struct {
		index  int
		cell   string
		method string
	}
	groups := make(map[gkey]*group)
	var keys []gkey
	for i := range rows {
		r := &rows[i]
		k := gkey{r.CellIndex, r.Cell, r.Method}
		g, ok := groups[k]
		if !ok {
			g = &group{}
			groups[k] = g
			keys = append(keys, k)
		}
		g.rows = append(g.rows, r)
	}
	morder := func(m string) int {
		if i := slices.Index(methods, m); i >= 0 {
			return i
		}
		return len(methods)
	}
	slices.SortStableFunc(keys, func(a, b gkey) int {
		if a.index != b.index {
			return a.index - b.index
		}
		return morder(a.method) - morder(b.method)
	})

	var out [][]string
	for _, k := range keys {
		g := groups[k]
		first := g.rows[0]
		var ok []*Row
		status := ""
		var peak uint64
		for _, r := range g.rows {
			peak = max(peak, r.PeakHeap)
			if r.Status == StatusOK {
				ok = append(ok, r)
			} else if status == "" {
				status = r.Status
			}
		}
		if status == "" {
			status = StatusOK
		}
		rec := []string{strconv.Itoa(first.CellIndex), first.Cell}
		for _, a := range axes {
			rec = append(rec, first.Coords[a])
		}
		rec = append(rec, first.Data, strconv.Itoa(first.Graphs), first.Kernel, first.Params, first.Method,
			strconv.Itoa(len(g.rows)), strconv.Itoa(len(ok)), status)
		for _, m := range summaryMeasures() {
			if len(ok) == 0 {
				rec = append(rec, "", "", "")
				continue
			}
			xs := make([]float64, len(ok))
			for i, r := range ok {
				xs[i] = m.get(r)
			}
			mean, median, lo := stats(xs)
			rec = append(rec, fmtFloat(mean), fmtFloat(median), fmtFloat(lo))
		}
		// The cost figures are the same in every ok repetition; they
		// describe the computation, not its timing.
		if len(ok) > 0 {
			r := ok[0]
			for _, x := range []int64{r.FeatureNNZ, r.MaxFeatureNNZ, r.Features, r.ProductVertices, r.ProductEdges, r.Pairs, r.Comparisons} {
				rec = append(rec, strconv.FormatInt(x, 10))
			}
		} else {
			rec = append(rec, "", "", "", "", "", "", "")
		}
		rec = append(rec, strconv.FormatUint(peak, 10), coresMedian(ok), c2cMedian(ok))
		out = append(out, rec)
	}
	return out
}

// coresMedian returns the median of t_cpu/t_wall over the rows whose CPU
// time is known, or "" where none is.
func coresMedian(rows []*Row) string {
	m, ok := medianOf(rows, (*Row).cores)
	if !ok {
		return ""
	}
	return strconv.FormatFloat(m, 'f', 2, 64)
}

// c2cMedian returns the median of t_c2c over the rows that know it, in
// whole nanoseconds, or "" where none does.
func c2cMedian(rows []*Row) string {
	m, ok := medianOf(rows, (*Row).c2c)
	if !ok {
		return ""
	}
	return strconv.FormatFloat(m*1e9, 'f', 0, 64)
}

// medianOf returns the median of f over the rows for which f knows it, and
// whether any does.
func medianOf(rows []*Row, f func(*Row) (float64, bool)) (float64, bool) {
	var xs []float64
	for _, r := range rows {
		if x, ok := f(r); ok {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	return Median(xs), true
}

// stats returns the mean, median and minimum of xs, which is not empty.
func stats(xs []float64) (mean, median, lo float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	return sum / float64(len(s)), sortedMedian(s), s[0]
}

// Median returns the median of xs, which is not empty: the mean of the two
// middle values for an even count. It is summary.csv's median, and the
// one the comparisons, figures and report take of runs' times.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return sortedMedian(s)
}

// sortedMedian is Median of s, sorted.
func sortedMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// writeSummary writes summary.csv of rows.
func writeSummary(path string, axes, methods []string, rows []Row) error {
	return writeAtomic(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write(summaryHeader(axes)); err != nil {
			return err
		}
		if err := cw.WriteAll(summarize(axes, methods, rows)); err != nil {
			return err
		}
		return cw.Error()
	})
}
