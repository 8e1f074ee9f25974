package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gkbench/gkbench/eval"
	"github.com/gkbench/gkbench/kernels"
)

// cmdCV estimates a kernel's classification accuracy by the paper's nested
// cross-validation, selecting among the kernel parameters given as lists.
func cmdCV(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("cv")
	data := fs.String("data", "", "TU data folder, or data set name looked up on the data path")
	kname := fs.String("kernel", "", "kernel name: one of the registered kernels (walk)")
	method := fs.String("method", "explicit", "explicit or implicit")
	var grid gridFlag
	fs.Var(&grid, "p", "kernel parameter key=v1,v2,... (repeatable); the cartesian product of the lists gives the candidates, earlier ones winning ties")
	reps := fs.Int("reps", 10, "repetitions of the outer cross-validation")
	folds := fs.Int("folds", 10, "outer folds")
	inner := fs.Int("inner", 10, "folds of the inner cross-validation that selects the parameters")
	seed := fs.Uint64("seed", 1, "seed of the fold assignments")
	threads := fs.Int("threads", 0, "outer folds run in parallel (0: one per CPU); results do not depend on it")
	norm := fs.String("norm", "select", "kernel normalisation: select (by the inner cross-validation), always or never")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *kname == "" {
		return usagef("-kernel is required (known: %v)", kernels.Names())
	}
	m, err := kernels.ParseMethod(*method)
	if err != nil {
		return usageError{err}
	}
	nm, err := eval.ParseNormMode(*norm)
	if err != nil {
		return usageError{err}
	}
	switch {
	case *reps < 1:
		return usagef("-reps %d: must be ≥ 1", *reps)
	case *folds < 2:
		return usagef("-folds %d: must be ≥ 2", *folds)
	case *inner < 2:
		return usagef("-inner %d: must be ≥ 2", *inner)
	case *threads < 0:
		return usagef("-threads %d: must be ≥ 0", *threads)
	}
	// Every candidate kernel is built before any data are read, so that a
	// bad parameter value is reported at once.
	params := grid.product()
	ks := make([]kernels.Kernel, len(params))
	for i, p := range params {
		if ks[i], err = kernels.New(*kname, p.params); err != nil {
			return usageError{err}
		}
		if !kernels.Supports(ks[i], m) {
			return usagef("kernel %s has no %s method", *kname, m)
		}
	}
	ds, err := loadData(*data)
	if err != nil {
		return err
	}
	if *folds > ds.Len() {
		return usagef("-folds %d: data set %s has only %d graphs", *folds, ds.Name, ds.Len())
	}
	// The smallest outer training part leaves out the largest fold.
	if train := ds.Len() - (ds.Len()+*folds-1) / *folds; *inner > train {
		return usagef("-inner %d: the outer training parts of %s have only %d graphs", *inner, ds.Name, train)
	}

	start := time.Now()
	cands := make([]eval.Candidate, len(ks))
	for i, k := range ks {
		K, rep, err := k.Gram(ctx, ds.Graphs, m)
		if err != nil {
			return fmt.Errorf("kernel %s %s: %w", *kname, params[i].label, err)
		}
		fmt.Fprintf(stderr, "gram: %s %s %v\n", ds.Name, params[i].label, rep)
		cands[i] = eval.Candidate{Label: params[i].label, K: K}
	}
	tGram := time.Since(start)

	start = time.Now()
	tenths := 0
	opt := eval.Options{
		Reps: *reps, Folds: *folds, InnerFolds: *inner, Seed: *seed, Norm: nm, Threads: *threads,
		// Long runs (minutes on ENZYMES) report every tenth of the work.
		Progress: func(done, total int) {
			if t := 10 * done / total; t > tenths {
				tenths = t
				fmt.Fprintf(stderr, "cv: %d%% after %v\n", 10*t, shortDuration(time.Since(start)))
			}
		},
	}
	res, err := eval.CrossValidate(ctx, cands, ds.Classes, opt)
	if err != nil {
		return err
	}
	tCV := time.Since(start)

	st := ds.Stats()
	fmt.Fprintf(stdout, "data: %s, %d graphs, %d classes; kernel %s (%s), %d candidate(s)\n",
		ds.Name, st.Graphs, st.Classes, *kname, m, len(cands))
	fmt.Fprintf(stdout, "time: kernel matrices %v, cross-validation %v\n", shortDuration(tGram), shortDuration(tCV))
	writeCV(stdout, res)
	return nil
}

// writeCV prints a cross-validation result: the accuracy, the repetitions
// and how often each parameter value was chosen.
func writeCV(w io.Writer, r *eval.Result) {
	o := r.Options
	fmt.Fprintf(w, "protocol: %d×%d-fold, inner %d-fold, seed %d, normalisation %s, %d threads; %d fits, %d solver iterations, %d fits at LIBSVM's iteration cap\n",
		o.Reps, o.Folds, o.InnerFolds, o.Seed, o.Norm, o.Threads, r.Fits, r.Iterations, r.CapFits)
	fmt.Fprintf(w, "accuracy: %.2f ± %.2f %% (mean ± standard deviation over %d repetitions)\n",
		100*r.Accuracy, 100*r.Std, o.Reps)
	reps := make([]string, len(r.RepAccuracy))
	for i, a := range r.RepAccuracy {
		reps[i] = fmt.Sprintf("%.2f", 100*a)
	}
	fmt.Fprintf(w, "repetitions: %s\n", strings.Join(reps, " "))
	fmt.Fprintf(w, "chosen in %d outer folds:\n", o.Reps*o.Folds)
	width := len("unnormalised")
	for _, l := range r.Labels {
		width = max(width, len(l))
	}
	row := func(name string, n int) { fmt.Fprintf(w, "  %-*s %4d\n", width, name, n) }
	for i, l := range r.Labels {
		row(l, r.Chosen.Candidate[i])
	}
	row("normalised", r.Chosen.Normalized)
	row("unnormalised", r.Chosen.Unnormalized)
	for i, c := range o.Cs {
		row("C="+strconv.FormatFloat(c, 'g', -1, 64), r.Chosen.C[i])
	}
}

// shortDuration shortens a duration for printing.
func shortDuration(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// gridFlag collects repeated -p key=v1,v2,... flags: a list of candidate
// values per kernel parameter, keys in the order given.
type gridFlag struct {
	keys   []string
	values [][]string
}

func (f *gridFlag) String() string {
	parts := make([]string, len(f.keys))
	for i, k := range f.keys {
		parts[i] = k + "=" + strings.Join(f.values[i], ",")
	}
	return strings.Join(parts, " ")
}

func (f *gridFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("parameter %q: want key=value or key=v1,v2,...", s)
	}
	if slices.Contains(f.keys, k) {
		return fmt.Errorf("parameter %q given twice (list its values after one =, separated by commas)", k)
	}
	var vals []string
	for _, x := range strings.Split(v, ",") {
		x = strings.TrimSpace(x)
		if x == "" {
			return fmt.Errorf("parameter %q: empty value in %q", k, v)
		}
		if slices.Contains(vals, x) {
			return fmt.Errorf("parameter %q: value %q given twice", k, x)
		}
		vals = append(vals, x)
	}
	f.keys = append(f.keys, k)
	f.values = append(f.values, vals)
	return nil
}

// candidateParams is one combination of parameter values and its label.
type candidateParams struct {
	params kernels.Params
	label  string
}

// product returns the cartesian product of the value lists, the last key
// varying fastest, so that candidates come in the order the values were
// given. Without -p it is the one candidate of the kernel's defaults.
func (f *gridFlag) product() []candidateParams {
	out := []candidateParams{{params: kernels.Params{}}}
	for i, k := range f.keys {
		var next []candidateParams
		for _, c := range out {
			for _, v := range f.values[i] {
				p := make(kernels.Params, len(c.params)+1)
				for kk, vv := range c.params {
					p[kk] = vv
				}
				p[k] = v
				label := k + "=" + v
				if c.label != "" {
					label = c.label + " " + label
				}
				next = append(next, candidateParams{params: p, label: label})
			}
		}
		out = next
	}
	if len(f.keys) == 0 {
		out[0].label = "(defaults)"
	}
	return out
}
