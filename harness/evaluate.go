package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gkbench/gkbench/eval"
	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/kernels"
	"gonum.org/v1/gonum/mat"
)

// fileAccuracy is the results file of the evaluation, one AccuracyRow per
// line, appended and synced like cells.jsonl.
const fileAccuracy = "accuracy.jsonl"

// ReadAccuracy reads the accuracy rows of a results folder; a folder
// without them gives none. A truncated last line, from a run killed while
// writing it, is dropped: good is the length of the intact part.
func ReadAccuracy(dir string) (rows []AccuracyRow, good int64, err error) {
	return readJSONL[AccuracyRow](filepath.Join(dir, fileAccuracy))
}

func (r *AccuracyRow) key() string { return r.Cell + "|" + r.Method }

// evaluation runs a plan's accuracy protocol after its timings.
type evaluation struct {
	r    *Runner
	p    *Plan
	e    *Evaluation
	file *os.File
	done map[string]bool
	log  io.Writer

	dataKey string
	ds      *graph.Dataset
	dataErr error
}

// evaluate runs the evaluation of p over the cells of r's shard, skipping
// what accuracy.jsonl already holds.
func (r *Runner) evaluate(ctx context.Context, p *Plan, dir string, timed []Row) error {
	e := p.Evaluation
	if e == nil {
		return nil
	}
	// A cell whose timed runs all hit the time or memory limit is not
	// evaluated: its matrices would hit the limit again, or, for a kernel
	// that refused by its own memory estimate, blow it.
	limited := map[string]string{}
	finished := map[string]bool{}
	for i := range timed {
		k := timed[i].Cell + "|" + timed[i].Method
		switch timed[i].Status {
		case StatusOK:
			finished[k] = true
		case StatusTimeout, StatusOOM:
			limited[k] = timed[i].Status
		}
	}
	rows, good, err := ReadAccuracy(dir)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, fileAccuracy)
	if st, err := os.Stat(path); err == nil && st.Size() != good {
		if err := os.Truncate(path, good); err != nil {
			return fmt.Errorf("drop the unfinished last row of %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	ev := &evaluation{r: r, p: p, e: e, file: f, done: map[string]bool{}, log: r.Log}
	if ev.log == nil {
		ev.log = io.Discard
	}
	for _, row := range rows {
		ev.done[row.key()] = true
	}
	for i := range p.Cells {
		c := &p.Cells[i]
		if !r.Shard.Has(c.Index) {
			continue
		}
		m := e.Method
		if m == "" {
			m = c.Methods[0]
		} else if !slices.Contains(c.Methods, m) {
			continue
		}
		row := AccuracyRow{Cell: c.Key, Coords: coordMap(p, c, false), Data: c.Data.Key(), Kernel: c.Kernel,
			Params: paramText(c.Params), Method: string(m)}
		if st, ok := limited[row.key()]; ok && !finished[row.key()] && !ev.done[row.key()] {
			row.Status, row.Reps, row.Folds = st, e.Reps, e.Folds
			row.Note = "not evaluated: every timed run of the cell hit the " + map[string]string{StatusOOM: "memory", StatusTimeout: "time"}[st] + " limit"
			if err := ev.record(row, time.Now()); err != nil {
				return err
			}
			continue
		}
		if err := ev.run(ctx, c.Data, row, c.Params, selectionOf(c.Kernel, e.Select)); err != nil {
			return err
		}
	}
	// Extra kernels: once per data coordinate, in the shard of the first
	// cell of that coordinate.
	seen := map[string]bool{}
	for i := range p.Cells {
		c := &p.Cells[i]
		dk := c.Data.Key()
		if seen[dk] {
			continue
		}
		seen[dk] = true
		if !r.Shard.Has(c.Index) {
			continue
		}
		for _, x := range e.Extra {
			k, err := r.Kernels.New(x.Name, candidates(x.Params, x.Select)[0])
			if err != nil {
				return fmt.Errorf("evaluation: kernel %s: %w", x.Name, err)
			}
			m := k.Methods()[0]
			row := AccuracyRow{Cell: dk + " " + x.Name + "(" + paramText(x.Params) + ")", Coords: coordMap(p, c, true),
				Data: dk, Kernel: x.Name, Params: paramText(x.Params), Method: string(m)}
			if err := ev.run(ctx, c.Data, row, x.Params, x.Select); err != nil {
				return err
			}
		}
	}
	return nil
}

// coordMap returns a cell's coordinates by axis name; dataOnly leaves the
// kernel axes out, for the extra kernels, which have none of them.
func coordMap(p *Plan, c *Cell, dataOnly bool) map[string]string {
	m := make(map[string]string, len(p.Axes))
	for i, a := range p.Axes {
		if dataOnly && a.Target == KernelAxis {
			continue
		}
		m[a.Name] = c.Coords[i]
	}
	return m
}

// run computes one accuracy row: the kernel matrix of every candidate of
// the selected parameters, then the nested cross-validation among them.
func (ev *evaluation) run(ctx context.Context, dc DataCoord, row AccuracyRow, base kernels.Params, sel []Axis) error {
	if ev.done[row.key()] {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx))
	}
	if dk := dc.Key(); dk != ev.dataKey {
		ev.ds, ev.dataErr = nil, nil
		ev.ds, ev.dataErr = ev.r.Data.Load(ctx, dc)
		ev.dataKey = dk
	}
	row.Reps, row.Folds = ev.e.Reps, ev.e.Folds
	start := time.Now()
	if ev.dataErr != nil {
		row.Status = statusError + oneLine(ev.dataErr.Error())
		return ev.record(row, start)
	}
	m := kernels.Method(row.Method)
	// The candidates' matrices are independent and untimed, so they are
	// computed side by side on every core; explicit maps only one at a
	// time, since a map near the memory limit must not meet another.
	all := candidates(base, sel)
	type result struct {
		K   *mat.SymDense
		err error
	}
	results := make([]result, len(all))
	ks := make([]kernels.Kernel, len(all))
	for i, params := range all {
		k, err := ev.r.Kernels.New(row.Kernel, params)
		if err != nil {
			return fmt.Errorf("evaluation: kernel %s: %w", row.Kernel, err)
		}
		ks[i] = k
	}
	workers := 1
	if m == kernels.Implicit {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(all)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(all); i = int(next.Add(1) - 1) {
				if ctx.Err() != nil {
					return
				}
				K, err := ev.gram(ctx, ks[i], m)
				results[i] = result{K, err}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx))
	}
	var cands []eval.Candidate
	var failed []string
	for i, params := range all {
		label := selectionLabel(params, sel)
		if err := results[i].err; err != nil {
			// A candidate that cannot be computed (a diverging γ, a
			// time-out) is left out of the selection, and said so.
			failed = append(failed, label+": "+oneLine(err.Error()))
			continue
		}
		cands = append(cands, eval.Candidate{Label: label, K: results[i].K})
	}
	if len(failed) > 0 {
		row.Note = fmt.Sprintf("%d of %d candidates left out: %s", len(failed), len(failed)+len(cands), failed[0])
	}
	if len(cands) == 0 {
		row.Status = statusError + "no candidate kernel matrix could be computed"
		return ev.record(row, start)
	}
	res, err := eval.CrossValidate(ctx, cands, ev.ds.Classes, eval.Options{
		Reps: ev.e.Reps, Folds: ev.e.Folds, InnerFolds: ev.e.InnerFolds, Seed: ev.p.Spec.Seed,
	})
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx))
	}
	if err != nil {
		row.Status = statusError + oneLine(err.Error())
		return ev.record(row, start)
	}
	row.Status = StatusOK
	row.Mean, row.Std = 100*res.Accuracy, 100*res.Std
	row.Chosen = map[string]int{}
	if len(sel) > 0 {
		for i, n := range res.Chosen.Candidate {
			if n > 0 {
				row.Chosen[res.Labels[i]] = n
			}
		}
	}
	row.Chosen["normalise=true"] = res.Chosen.Normalized
	row.Chosen["normalise=false"] = res.Chosen.Unnormalized
	for i, n := range res.Chosen.C {
		if n > 0 {
			row.Chosen["C="+strconv.FormatFloat(res.Options.Cs[i], 'g', -1, 64)] = n
		}
	}
	row.Fits, row.CapFits = res.Fits, res.CapFits
	return ev.record(row, start)
}

// gram computes one candidate matrix under the plan's time limit.
func (ev *evaluation) gram(ctx context.Context, k kernels.Kernel, m kernels.Method) (K *mat.SymDense, err error) {
	if lim := ev.p.Limits.Time; lim > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, lim, errTimeout)
		defer cancel()
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("kernel %s panicked: %v", k.Name(), v)
		}
	}()
	K, _, err = k.Gram(ctx, ev.ds.Graphs, m)
	if err != nil && errors.Is(context.Cause(ctx), errTimeout) {
		err = fmt.Errorf("time limit %v exceeded", ev.p.Limits.Time)
	}
	return K, err
}

// record appends row to accuracy.jsonl, synced, and logs it.
func (ev *evaluation) record(row AccuracyRow, start time.Time) error {
	row.Seconds = time.Since(start).Seconds()
	b, err := json.Marshal(&row)
	if err != nil {
		return err
	}
	if _, err := ev.file.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append to %s: %w", ev.file.Name(), err)
	}
	if err := ev.file.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", ev.file.Name(), err)
	}
	ev.done[row.key()] = true
	if row.Status == StatusOK {
		fmt.Fprintf(ev.log, "%s accuracy %s %s [%s]: %.2f ± %.2f %% (%d×%d-fold, %.1fs)\n",
			time.Now().Format("15:04:05"), row.Kernel, row.Method, row.Cell, row.Mean, row.Std, row.Reps, row.Folds, row.Seconds)
	} else {
		fmt.Fprintf(ev.log, "%s accuracy %s %s [%s]: %s\n", time.Now().Format("15:04:05"), row.Kernel, row.Method, row.Cell, row.Status)
	}
	return nil
}
