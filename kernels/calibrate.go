package kernels

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/synth"
	"gonum.org/v1/gonum/mat"
)

// QuickCalibrator is implemented by calibrators that can also measure their
// constants on a smaller design, in a few seconds and with more noise.
type QuickCalibrator interface {
	Calibrator
	CalibrateQuick(ctx context.Context) (Costs, error)
}

// CostsFile is the file runexp calibrate writes: the constants of every
// calibrated kernel and where they were measured. It is JSON, which the
// standard library reads and writes and which holds a flat table of
// numbers as plainly as YAML would.
type CostsFile struct {
	// Host, Platform ("GOOS/GOARCH"), Go and CPUs describe the machine;
	// they are for people, the advisors use only Costs.
	Host     string    `json:"host,omitempty"`
	Platform string    `json:"platform,omitempty"`
	Go       string    `json:"go,omitempty"`
	CPUs     int       `json:"cpus,omitempty"`
	Written  time.Time `json:"written"`
	// Quick marks constants measured on the quick design.
	Quick bool  `json:"quick,omitempty"`
	Costs Costs `json:"costs"`
}

// Marshal returns the file's JSON, indented, with the constants sorted by
// name.
func (f *CostsFile) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode costs: %w", err)
	}
	return append(b, '\n'), nil
}

// ParseCostsFile parses a costs file. It rejects malformed JSON, fields it
// does not know, a missing costs table and constants that are negative;
// constants of unknown names are kept, since they may belong to a kernel
// of a newer version.
func ParseCostsFile(data []byte) (*CostsFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f CostsFile
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("line %d: %v", lineOf(data, se.Offset), err)
		case errors.As(err, &te):
			return nil, fmt.Errorf("line %d: %s is %s, want %s", lineOf(data, te.Offset), te.Field, te.Value, te.Type)
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("empty file")
		}
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("line %d: data after the JSON object", lineOf(data, dec.InputOffset()))
	}
	if f.Costs == nil {
		return nil, fmt.Errorf("no \"costs\" table")
	}
	for _, name := range slices.Sorted(maps.Keys(f.Costs)) {
		if v := f.Costs[name]; !(v >= 0) {
			return nil, fmt.Errorf("constant %q is %g, want ≥ 0", name, v)
		}
	}
	return &f, nil
}

// lineOf returns the line of the byte at offset.
func lineOf(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(data[:offset], []byte{'\n'})
}

// fitNonNeg returns the non-negative c that minimises
// Σ_i ((y_i − x_i·c)/w_i)², the least squares fit of relative errors when
// w = y. Runs of a millisecond and of a second then count alike, and no
// constant comes out negative, which would make large counts cheaper. With
// a handful of columns it solves every subset of them and keeps the best
// feasible solution, which is the constrained optimum.
func fitNonNeg(x [][]float64, y, w []float64) ([]float64, error) {
	rows, cols := len(x), len(x[0])
	if rows < cols {
		return nil, fmt.Errorf("fit of %d constants to %d measurements", cols, rows)
	}
	best, bestRes := []float64(nil), math.Inf(1)
	for mask := 1; mask < 1<<cols; mask++ {
		var sub []int
		for j := 0; j < cols; j++ {
			if mask&(1<<j) != 0 {
				sub = append(sub, j)
			}
		}
		a := mat.NewDense(rows, len(sub), nil)
		b := mat.NewVecDense(rows, nil)
		for i := range x {
			for t, j := range sub {
				a.Set(i, t, x[i][j]/w[i])
			}
			b.SetVec(i, y[i]/w[i])
		}
		var c mat.VecDense
		if err := c.SolveVec(a, b); err != nil {
			continue // singular: another subset covers it
		}
		full := make([]float64, cols)
		feasible := true
		for t, j := range sub {
			full[j] = c.AtVec(t)
			if full[j] < 0 {
				feasible = false
			}
		}
		if !feasible {
			continue
		}
		var res float64
		for i := range x {
			r := y[i]
			for j := range full {
				r -= x[i][j] * full[j]
			}
			res += (r / w[i]) * (r / w[i])
		}
		if res < bestRes {
			best, bestRes = full, res
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no non-negative fit of %d constants to %d measurements", cols, rows)
	}
	return best, nil
}

// walkDesign is a calibration design: synthetic data sets of the paper's
// walk generator, each timed at several walk lengths.
type walkDesign struct {
	sets []walkSet
	d    int
	// reps is the number of runs of each measurement, of which the
	// fastest counts: on a shared machine the others are slowed down by
	// what else runs.
	reps int
	// The generic paths, slower by a constant factor, are timed on a
	// small design of their own.
	generic  []walkSet
	genericD int
}

// walkSet is one configuration of the generator, the Weisfeiler-Lehman
// refinement of its labels, and the walk lengths it is timed at.
type walkSet struct {
	cfg     synth.WalkConfig
	wl      int
	lengths []int
}

// fullWalkDesign spans the phase transition of Section 5.3.1 (p_V from 0
// to 1 on the paper's graphs, walk lengths 1 to 9) and, so that the
// constants can be told apart, data of other shapes: tiny graphs, where
// the per-pair overhead dominates; dense ones, with many product edges per
// vertex; sparse ones, with few; and labels refined by Weisfeiler-Lehman,
// where nearly every label sequence is new and the interner outgrows the
// caches.
func fullWalkDesign() walkDesign {
	paper := []int{1, 3, 5, 7, 9}
	return walkDesign{
		sets: []walkSet{
			{synth.WalkConfig{PV: 0}, 0, paper},
			{synth.WalkConfig{PV: 0.25}, 0, paper},
			{synth.WalkConfig{PV: 0.5}, 0, paper},
			{synth.WalkConfig{PV: 1}, 0, paper},
			{synth.WalkConfig{PV: 0, MeanVertices: 4, EdgeProb: 0.3}, 0, []int{1, 5, 9}},
			{synth.WalkConfig{PV: 0.5, MeanVertices: 4, EdgeProb: 0.3}, 0, []int{1, 5, 9}},
			{synth.WalkConfig{PV: 0, EdgeProb: 0.25}, 0, []int{1, 3, 5}},
			{synth.WalkConfig{PV: 0.5, EdgeProb: 0.25}, 0, []int{1, 3, 5}},
			{synth.WalkConfig{PV: 0.5, MeanVertices: 40, EdgeProb: 0.03}, 0, []int{1, 5, 9}},
			{synth.WalkConfig{PV: 0.5}, 2, []int{2, 4, 6}},
		},
		d: 80, reps: 3,
		generic: []walkSet{
			{synth.WalkConfig{PV: 0}, 0, []int{2, 6}},
			{synth.WalkConfig{PV: 0.5}, 0, []int{2, 6}},
		},
		genericD: 50,
	}
}

// quickWalkDesign is a smaller design of the same kinds of data sets,
// timed once each.
func quickWalkDesign() walkDesign {
	return walkDesign{
		sets: []walkSet{
			{synth.WalkConfig{PV: 0}, 0, []int{2, 6}},
			{synth.WalkConfig{PV: 0.5}, 0, []int{2, 6, 9}},
			{synth.WalkConfig{PV: 1}, 0, []int{4, 8}},
			{synth.WalkConfig{PV: 0, MeanVertices: 4, EdgeProb: 0.3}, 0, []int{1, 5}},
			{synth.WalkConfig{PV: 0.5, EdgeProb: 0.25}, 0, []int{2, 4}},
			{synth.WalkConfig{PV: 0.5, MeanVertices: 40, EdgeProb: 0.03}, 0, []int{3, 7}},
			{synth.WalkConfig{PV: 0.5}, 2, []int{3, 5}},
		},
		d: 50, reps: 1,
		generic: []walkSet{
			{synth.WalkConfig{PV: 0}, 0, []int{2, 6}},
			{synth.WalkConfig{PV: 0.5}, 0, []int{2, 6}},
		},
		genericD: 30,
	}
}

// Calibrate implements Calibrator: it measures the constants of the walk
// kernel's cost model on synthetic data sets across the phase transition
// and beyond (see fullWalkDesign), fitting each phase's constants to its
// times by least squares of relative errors, the fastest of three runs
// each. It takes about fifteen seconds.
func (k *Walk) Calibrate(ctx context.Context) (Costs, error) {
	return calibrateWalk(ctx, fullWalkDesign())
}

// CalibrateQuick implements QuickCalibrator on a smaller design, timed
// once: a few seconds.
func (k *Walk) CalibrateQuick(ctx context.Context) (Costs, error) {
	return calibrateWalk(ctx, quickWalkDesign())
}

// genericDirac is the Dirac kernel in a type the walk kernel does not
// recognise, so that calibration times its generic paths on the same data.
type genericDirac struct{ Dirac }

// fitRows collects the measurements of one fit.
type fitRows struct {
	x    [][]float64
	y, w []float64
}

func (f *fitRows) add(y, w float64, x ...float64) {
	f.x = append(f.x, x)
	f.y = append(f.y, y)
	f.w = append(f.w, w)
}

func (f *fitRows) fit(what string) ([]float64, error) {
	c, err := fitNonNeg(f.x, f.y, f.w)
	if err != nil {
		return nil, fmt.Errorf("fit of the %s: %w", what, err)
	}
	return c, nil
}

// fitInto fits the constants names, in the order of the rows' counts, and
// sets them in c to 3 significant digits.
func (f *fitRows) fitInto(c Costs, what string, names ...string) error {
	v, err := f.fit(what)
	if err != nil {
		return err
	}
	for i, name := range names {
		c[name] = roundSignificant(v[i], 3)
	}
	return nil
}

// measure runs f and returns the shorter of its wall and CPU time. On an
// idle machine that is the wall time; when other processes share the
// cores, the CPU time, which does not count their turns.
func measure(f func() error) (time.Duration, error) {
	c0, ok := ProcessCPU()
	t := time.Now()
	if err := f(); err != nil {
		return 0, err
	}
	took := time.Since(t)
	if c1, _ := ProcessCPU(); ok && c1-c0 < took {
		took = c1 - c0
	}
	return max(took, time.Microsecond), nil
}

// fastest measures f reps times and returns the shortest time.
func fastest(reps int, f func() error) (time.Duration, error) {
	best := time.Duration(math.MaxInt64)
	for r := 0; r < reps; r++ {
		took, err := measure(f)
		if err != nil {
			return 0, err
		}
		best = min(best, took)
	}
	return best, nil
}

// ns returns d in nanoseconds, the unit of the constants.
func ns(d time.Duration) float64 { return float64(d.Nanoseconds()) }

func calibrateWalk(ctx context.Context, d walkDesign) (Costs, error) {
	var impl, phi, gather, merge, inverted fitRows
	for _, set := range d.sets {
		ds, err := synth.Walk(set.cfg, d.d, 1)
		if err != nil {
			return nil, err
		}
		gs := ds.Graphs
		if set.wl > 0 {
			gs = graph.RefineGraphs(gs, set.wl, graph.FromLabels)
		}
		for _, l := range set.lengths {
			k := &Walk{Length: l}
			if err := timeImplicit(ctx, k, gs, d.reps, &impl); err != nil {
				return nil, err
			}
			vecs, err := timeMaps(ctx, k, gs, d.reps, &phi)
			if err != nil {
				return nil, err
			}
			if err := timeDots(ctx, vecs, d.reps, &gather, &merge, &inverted); err != nil {
				return nil, err
			}
		}
	}
	ic, err := impl.fit("implicit computation")
	if err != nil {
		return nil, err
	}
	mp, err := phi.fit("feature maps")
	if err != nil {
		return nil, err
	}
	ga, err := gather.fit("gathered products")
	if err != nil {
		return nil, err
	}
	mg, err := merge.fit("merge joins")
	if err != nil {
		return nil, err
	}
	inv, err := inverted.fit("posting lists")
	if err != nil {
		return nil, err
	}
	c := Costs{
		costImplicitPair:        ic[0],
		costImplicitVertex:      ic[1],
		costImplicitEdge:        ic[2],
		costImplicitVertexStep:  ic[3],
		costImplicitEdgeStep:    ic[4],
		costExplicitExtend:      mp[0],
		costExplicitFeature:     mp[1],
		costExplicitNonzero:     mp[2],
		costExplicitStep:        mp[3],
		costExplicitGather:      ga[0],
		costExplicitGatherPair:  ga[1],
		costExplicitMergeStep:   mg[0],
		costExplicitMergeTurn:   mg[1],
		costExplicitMergePair:   mg[2],
		costExplicitProduct:     inv[0],
		costExplicitPosting:     inv[1],
		costExplicitPostingPair: inv[2],
	}
	if err := calibrateGeneric(ctx, d, c); err != nil {
		return nil, err
	}
	for name, v := range c {
		c[name] = roundSignificant(v, 3)
	}
	return c, nil
}

// timeImplicit times the implicit Gram matrix and adds the time to rows,
// with its pairs, product vertices and edges, and product vertices and
// edges times the steps.
func timeImplicit(ctx context.Context, k *Walk, gs []*graph.Graph, reps int, rows *fitRows) error {
	var rep *Report
	took, err := fastest(reps, func() error {
		var err error
		_, rep, err = k.Gram(ctx, gs, Implicit)
		return err
	})
	if err != nil {
		return err
	}
	p, v, e := float64(rep.Pairs), float64(rep.ProductVertices), float64(rep.ProductEdges)
	l := float64(k.Length)
	rows.add(ns(took), ns(took), p, v, e, l*v, l*e)
	return nil
}

// timeMaps times the explicit feature maps of gs, counting their work, and
// returns the vectors.
func timeMaps(ctx context.Context, k *Walk, gs []*graph.Graph, reps int, phi *fitRows) ([]Vec, error) {
	var work mapWork
	var vecs []Vec
	features := 0
	took, err := fastest(reps, func() error {
		b, err := newDiracWalkMapper(k, gs)
		if err != nil {
			return err
		}
		work = mapWork{}
		b.work = &work
		vecs = vecs[:0]
		for _, g := range gs {
			v, err := b.graphVector(ctx, g)
			if err != nil {
				return err
			}
			vecs = append(vecs, v)
		}
		features = b.size()
		return nil
	})
	if err != nil {
		return nil, err
	}
	t := ns(took)
	lf := log2Features(float64(features))
	phi.add(t, t, float64(work.extends)*lf, float64(features)*lf, float64(work.nonzeros)*lf, float64(work.steps))
	return vecs, nil
}

// maxDotWork bounds the steps of a dot-product scheme timed in
// calibration: the largest cells would take seconds and add nothing.
const maxDotWork = 1e8

// timeDots times the dot products of vecs by gramFromVecs and adds the
// time to the rows of the scheme it chooses, with the counts that scheme's
// cost model prices (see dotTerms). Where it chooses gramMergeInto, the
// merge joins it takes beyond scatterMaxDim ids are timed on the same
// vectors too, as no data set of the design has that many.
func timeDots(ctx context.Context, vecs []Vec, reps int, gather, merge, inverted *fitRows) error {
	n := float64(len(vecs))
	nnz, df := featureStats(vecs)
	var products float64
	for _, d := range df {
		products += float64(d) * float64(d+1) / 2
	}
	pairs := n * (n + 1) / 2
	// The rule of gramFromVecs.
	useMerge := mergeCheaper(n, float64(nnz), products)
	if useMerge && (n+1)*float64(nnz) > maxDotWork || !useMerge && products > maxDotWork {
		return nil
	}
	took, err := fastest(reps, func() error {
		_, err := gramFromVecs(ctx, vecs, nil, 1, nil)
		return err
	})
	if err != nil {
		return err
	}
	if !useMerge {
		inverted.add(ns(took), ns(took), products, float64(nnz), pairs)
		return nil
	}
	joins := took // gramMergeInto merges the ids beyond scatterMaxDim
	if len(df) <= scatterMaxDim {
		var gathers float64 // row i gathers φ_j for j ≥ i
		for j, v := range vecs {
			gathers += float64(j+1) * float64(v.Len())
		}
		gather.add(ns(took), ns(took), gathers, pairs)
		if joins, err = fastest(reps, func() error {
			return gramJoinInto(ctx, mat.NewSymDense(len(vecs), nil), vecs, nil, 1, 0)
		}); err != nil {
			return err
		}
	}
	var steps, turns int64
	for i, a := range vecs {
		for _, b := range vecs[i:] {
			s, t := mergeCounts(a, b)
			steps, turns = steps+s, turns+t
		}
	}
	merge.add(ns(joins), ns(joins), float64(steps), float64(turns), pairs)
	return nil
}

// calibrateGeneric measures the constants of the generic paths, taking
// those they share with the Dirac paths from c, and adds them to c.
func calibrateGeneric(ctx context.Context, d walkDesign, c Costs) error {
	var impl, phi fitRows
	gk := genericDirac{}
	for _, set := range d.generic {
		ds, err := synth.Walk(set.cfg, d.genericD, 2)
		if err != nil {
			return err
		}
		gs := ds.Graphs
		for _, l := range set.lengths {
			k := &Walk{Length: l, Vertex: gk, Edge: gk}
			took, err := fastest(d.reps, func() error {
				_, _, err := k.Gram(ctx, gs, Implicit)
				return err
			})
			if err != nil {
				return err
			}
			pw := newPairWorkspace(k, gs, true)
			var v, arcs, cand int64
			for i := range gs {
				for j := i; j < len(gs); j++ {
					pv, pa, pc := pw.genericCounts(gs[i], gs[j])
					v, arcs, cand = v+pv, arcs+pa, cand+pc
				}
			}
			pairs := float64(len(gs)) * float64(len(gs)+1) / 2
			t := ns(took)
			known := c[costImplicitPair]*pairs + c[costImplicitVertexStep]*float64(l)*float64(v)
			impl.add(t-known, t, float64(cand), float64(l)*float64(arcs))

			var work mapWork
			features := 0
			took, err = fastest(d.reps, func() error {
				b, err := newGenericWalkMapper(k)
				if err != nil {
					return err
				}
				work = mapWork{}
				b.work = &work
				for _, g := range gs {
					if _, err := b.graphVector(ctx, g); err != nil {
						return err
					}
				}
				features = b.size()
				return nil
			})
			if err != nil {
				return err
			}
			t = ns(took)
			lf := log2Features(float64(features))
			known = lf*(c[costExplicitFeature]*float64(features)+c[costExplicitNonzero]*float64(work.nonzeros)) + c[costExplicitStep]*float64(work.steps)
			phi.add(t-known, t, float64(work.extends)*lf)
		}
	}
	ic, err := impl.fit("generic product graphs")
	if err != nil {
		return err
	}
	mc, err := phi.fit("generic feature maps")
	if err != nil {
		return err
	}
	c[costImplicitCandidate] = ic[0]
	c[costImplicitArcStep] = ic[1]
	c[costExplicitGenericExtend] = mc[0]
	return nil
}

// roundSignificant rounds x to digits significant digits, which is all a
// timing on a shared machine has.
func roundSignificant(x float64, digits int) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
