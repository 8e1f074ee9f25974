package harness

import (
	"context"
	"math"
	"strconv"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/kernels"
)

// Estimate is the expected wall time of running a plan.
type Estimate struct {
	// Seconds is the estimated time of all runs, warm-ups included.
	Seconds float64
	// Measured is the number of cell methods whose time comes from
	// earlier results rather than the model; Total is their number in all.
	Measured, Total int
}

// dataShape is what the cost model needs to know of a data set.
type dataShape struct {
	graphs       float64
	vertices     float64 // mean per graph
	degree       float64 // mean vertex degree
	labelCollide float64 // probability that two random vertices share a label
}

// EstimateCost estimates the time of running p. Where prior holds rows that
// ran (ok, timeout or oom) of a cell and method (from an earlier run of the same profile), their
// mean wall time is used; otherwise a crude cost model of walk kernels
// (pairs × product-graph size for the implicit method, graphs × label
// sequences for the explicit one), scaled by the ratio of measured to
// modelled time where there are measurements. It is an estimate, good for
// telling minutes from days, not more.
func EstimateCost(ctx context.Context, p *Plan, data DataSource, prior []Row) (Estimate, error) {
	type mk struct{ cell, method string }
	measured := make(map[mk][]float64)
	for _, r := range prior {
		// A run that hit a limit took its time too; rows recorded without
		// running (wall 0) and errors say nothing about the cost.
		if (r.Status == StatusOK || r.Status == StatusTimeout || r.Status == StatusOOM) && r.Wall > 0 {
			measured[mk{r.Cell, r.Method}] = append(measured[mk{r.Cell, r.Method}], r.Wall)
		}
	}
	shapes := make(map[string]dataShape)
	var est Estimate
	var sumMeasured, sumModelOfMeasured, sumModelOther float64
	perCell := float64(p.Measure.Repetitions + p.Measure.Warmup)
	for i := range p.Cells {
		c := &p.Cells[i]
		sh, err := shapeOf(ctx, c.Data, data, shapes)
		if err != nil {
			return est, err
		}
		for _, m := range c.Methods {
			est.Total++
			model := modelSeconds(sh, c.Params, m)
			if ts, ok := measured[mk{c.Key, string(m)}]; ok {
				mean := 0.0
				for _, t := range ts {
					mean += t
				}
				mean /= float64(len(ts))
				est.Measured++
				sumMeasured += mean * perCell
				sumModelOfMeasured += model * perCell
				continue
			}
			sumModelOther += model * perCell
		}
	}
	scale := 1.0
	if sumModelOfMeasured > 0 && sumMeasured > 0 {
		scale = sumMeasured / sumModelOfMeasured
	}
	est.Seconds = sumMeasured + scale*sumModelOther
	return est, nil
}

// shapeOf returns the shape of a data coordinate: from the generator's
// parameters without generating, or from the whole TU data set scaled to
// the subset size.
func shapeOf(ctx context.Context, d DataCoord, data DataSource, cache map[string]dataShape) (dataShape, error) {
	f := func(k string) float64 {
		v, _ := strconv.ParseFloat(d.Params[k], 64)
		return v
	}
	if d.Generator == "walk" {
		pv := f("pv")
		v := f("mean_vertices")
		return dataShape{graphs: f("d"), vertices: v, degree: (v - 1) * f("edge_prob"),
			labelCollide: (1-pv)*(1-pv) + pv*pv/2}, nil
	}
	if d.Generator == "subgraph" {
		v := f("mean_vertices")
		return dataShape{graphs: f("d"), vertices: v, degree: (v - 1) * f("edge_prob"),
			labelCollide: 1 / f("labels")}, nil
	}
	sh, ok := cache[d.Dataset]
	if !ok {
		ds, err := data.Load(ctx, DataCoord{Dataset: d.Dataset, Seed: d.Seed})
		if err != nil {
			return sh, err
		}
		sh = shapeOfDataset(ds)
		cache[d.Dataset] = sh
	}
	if sz, ok := d.Params["size"]; ok && sz != "all" {
		sh.graphs = math.Min(sh.graphs, f("size"))
	}
	return sh, nil
}

func shapeOfDataset(ds *graph.Dataset) dataShape {
	var nv, na float64
	counts := make(map[int32]float64)
	for _, g := range ds.Graphs {
		nv += float64(g.N())
		na += float64(len(g.Adj))
		for _, l := range g.Labels {
			counts[l]++
		}
	}
	sh := dataShape{graphs: float64(ds.Len())}
	if nv > 0 {
		sh.vertices = nv / sh.graphs
		sh.degree = na / nv
		for _, c := range counts {
			sh.labelCollide += (c / nv) * (c / nv)
		}
	}
	return sh
}

// modelSeconds is the crude cost model of one walk-kernel Gram
// computation. Its constants are rough fits to this project's kernels on
// one core of a 2020s x86 machine.
func modelSeconds(sh dataShape, p kernels.Params, m kernels.Method) float64 {
	l, _ := strconv.Atoi(p["length"])
	wl, _ := strconv.Atoi(p["wl"])
	q := sh.labelCollide
	for range wl {
		// Each refinement splits labels by neighbourhood, roughly by the
		// degree, down to (nearly) unique labels.
		q = math.Max(q/(1+sh.degree), 1/(sh.graphs*sh.vertices+1))
	}
	n := sh.graphs
	pairs := n * (n + 1) / 2
	V, deg := sh.vertices, sh.degree
	if m == kernels.Implicit {
		prodV := V * V * q
		prodE := prodV * deg * deg * q
		return pairs * (40e-9 + prodV*4e-9 + prodE*float64(l)*2e-9)
	}
	// Distinct label sequences per graph: bounded by the walks and by the
	// label combinations.
	walks := V * math.Pow(math.Max(deg, 1), float64(l))
	combos := math.Pow(1/math.Max(q, 1e-9), float64(l+1))
	nnz := math.Min(walks, combos)
	return n*V*deg*float64(l+1)*30e-9 + n*nnz*40e-9 + pairs*(20e-9+nnz*3e-9)
}
