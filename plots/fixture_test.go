package plots

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gkbench/gkbench/harness"
)

// fixture is a results folder made up for a test.
type fixture struct {
	meta harness.Meta
	rows []harness.Row
	acc  []harness.AccuracyRow
}

// write writes the fixture as meta.json, cells.jsonl and, when it has
// accuracy rows, accuracy.jsonl into a new folder under dir.
func (f *fixture) write(t testing.TB, dir string) string {
	t.Helper()
	out := filepath.Join(dir, f.meta.Spec)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(&f.meta, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "meta.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	writeLines := func(name string, n int, row func(i int) any) {
		fh, err := os.Create(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(fh)
		for i := 0; i < n; i++ {
			if err := enc.Encode(row(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
	}
	writeLines("cells.jsonl", len(f.rows), func(i int) any { return &f.rows[i] })
	if len(f.acc) > 0 {
		writeLines("accuracy.jsonl", len(f.acc), func(i int) any { return &f.acc[i] })
	}
	return out
}

// add appends one ok row, or a failed one when status is not "ok".
func (f *fixture) add(coords map[string]string, method, status string, set func(r *harness.Row)) {
	r := harness.Row{Coords: coords, Method: method, Rep: 0, Status: status, Kernel: "walk"}
	r.Cell = fmt.Sprint(coords)
	if status == harness.StatusOK {
		set(&r)
	}
	f.rows = append(f.rows, r)
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// labelDiversityFixture is Figure 5 in small: p_V × d with the times of
// both methods equal at p_V = 0.3 for every d. The log ratio of the times
// is linear in p_V, -(a+b)(p_V-0.3), so its bilinear interpolation is exact
// and the crossover lies at 0.3. Explicit computation hits the time limit
// at the largest cell, and implicit computation lacks one cell.
func labelDiversityFixture() *fixture {
	f := &fixture{meta: harness.Meta{Spec: "fig-walk-label-diversity", Profile: "quick", Axes: []string{"pv", "d"},
		Methods: []string{Explicit, Implicit}, Repetitions: 1, Cells: 24, Status: "complete"}}
	const a, b = 3.0, 5.0
	for _, d := range []float64{40, 80, 120, 160} {
		for _, pv := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
			c := map[string]string{"pv": ftoa(pv), "d": ftoa(d)}
			base := 2e-4 * d * d
			st := harness.StatusOK
			if pv == 1 && d == 160 {
				st = harness.StatusTimeout
			}
			f.add(c, Explicit, st, func(r *harness.Row) {
				r.Total = base * math.Exp(b*(pv-0.3))
				r.Phi, r.Dot = r.Total*0.4, r.Total*0.6
				r.FeatureNNZ = int64(d * 100 * math.Exp(3*pv))
			})
			if pv == 0.8 && d == 40 {
				continue
			}
			f.add(c, Implicit, harness.StatusOK, func(r *harness.Row) {
				r.Total = base * math.Exp(-a*(pv-0.3))
				r.WDPG, r.Walks = r.Total*0.7, r.Total*0.3
				r.ProductEdges = int64(d * d * 50 * math.Exp(-3*pv))
			})
		}
	}
	return f
}

// walkLengthFixture is Figure 7 in small: MUTAG and ENZYMES by walk
// length 0..9, explicit times growing geometrically and implicit ones
// almost flat, crossing at length 7; with accuracy when withAcc is set.
// ENZYMES at length 9 hits the memory limit for explicit maps.
func walkLengthFixture(withAcc bool) *fixture {
	f := &fixture{meta: harness.Meta{Spec: "fig-walk-length-mutag-enzymes", Profile: "quick",
		Axes: []string{"dataset", "length"}, Methods: []string{Explicit, Implicit}, Repetitions: 3, Cells: 20, Status: "complete"}}
	for di, ds := range []string{"MUTAG", "ENZYMES"} {
		scale := float64(1 + 4*di)
		for l := 0; l <= 9; l++ {
			c := map[string]string{"dataset": ds, "length": strconv.Itoa(l)}
			st := harness.StatusOK
			if ds == "ENZYMES" && l == 9 {
				st = harness.StatusOOM
			}
			for rep := 0; rep < 3; rep++ {
				jitter := 1 + 0.01*float64(rep)
				f.add(c, Explicit, st, func(r *harness.Row) {
					r.Phi = scale * 0.01 * math.Pow(2, float64(l)) * jitter
					r.Dot = scale * 0.002 * math.Pow(3, float64(l)) * jitter
					r.Total = r.Phi + r.Dot
					r.FeatureNNZ = int64(scale * 1000 * math.Pow(2.5, float64(l)))
				})
				f.rows[len(f.rows)-1].Rep = rep
				f.add(c, Implicit, harness.StatusOK, func(r *harness.Row) {
					r.WDPG = scale * 20 * jitter
					r.Walks = scale * 0.5 * float64(l+1) * jitter
					r.Total = r.WDPG + r.Walks
					r.ProductEdges = int64(scale * 1e6)
				})
				f.rows[len(f.rows)-1].Rep = rep
			}
			if withAcc {
				f.acc = append(f.acc, harness.AccuracyRow{Coords: c, Data: ds, Kernel: "walk", Status: "ok",
					Mean: 70 + 10*math.Sin(float64(l)/3) + 5*float64(di), Reps: 10, Folds: 10})
			}
		}
	}
	return f
}

// wlFixture is Figure 8 in small: walk length × WL iterations, with a
// fixed data set size.
func wlFixture() *fixture {
	f := &fixture{meta: harness.Meta{Spec: "fig-walk-wl", Profile: "quick", Axes: []string{"size", "wl", "length"},
		Methods: []string{Explicit, Implicit}, Repetitions: 1, Cells: 40, Status: "complete"}}
	for wl := 0; wl <= 3; wl++ {
		for l := 0; l <= 9; l++ {
			c := map[string]string{"size": "200", "wl": strconv.Itoa(wl), "length": strconv.Itoa(l)}
			f.add(c, Explicit, harness.StatusOK, func(r *harness.Row) {
				r.Total = 0.01 * math.Pow(1.5+float64(min(wl, 1)), float64(l))
				r.FeatureNNZ = int64(1000 * math.Pow(2+float64(wl), float64(l)))
			})
			f.add(c, Implicit, harness.StatusOK, func(r *harness.Row) {
				r.Total = 2 / float64(1+3*min(wl, 1)) * (1 + 0.05*float64(l))
				r.ProductEdges = int64(1e6 / float64(1+3*wl))
			})
		}
	}
	return f
}

// attributedFixture is Figure 4 in small: two kernels on one data set,
// explicit maps by binning iterations 1..16 and the implicit computation
// as a baseline without an iterations coordinate, with accuracy.
func attributedFixture() *fixture {
	f := &fixture{meta: harness.Meta{Spec: "fig-attributed", Profile: "quick", Axes: []string{"dataset", "iterations"},
		Methods: []string{Explicit, Implicit}, Repetitions: 1, Cells: 12, Status: "complete"}}
	for ki, k := range []string{"graphhopper", "graphinvariant"} {
		for it := 1; it <= 16; it *= 2 {
			c := map[string]string{"dataset": "ENZYMES", "iterations": strconv.Itoa(it)}
			f.add(c, Explicit, harness.StatusOK, func(r *harness.Row) {
				r.Total = 0.5 * float64(it) / float64(1+9*ki)
				r.FeatureNNZ = int64(1e4 * it)
			})
			f.rows[len(f.rows)-1].Kernel = k
			f.acc = append(f.acc, harness.AccuracyRow{Coords: c, Data: "ENZYMES", Kernel: k, Status: "ok",
				Mean: 50 + 10*math.Log2(float64(it))/4 + 5*float64(ki)})
		}
		c := map[string]string{"dataset": "ENZYMES"}
		f.add(c, Implicit, harness.StatusOK, func(r *harness.Row) {
			r.Total = 12
			r.ProductEdges = 5e6
		})
		f.rows[len(f.rows)-1].Kernel = k
		f.acc = append(f.acc, harness.AccuracyRow{Coords: c, Data: "ENZYMES", Kernel: k, Status: "ok", Mean: 62 + 5*float64(ki)})
	}
	return f
}
