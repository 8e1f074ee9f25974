package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gkbench/gkbench/eval/libsvm"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// DefaultCs returns the paper's grid of the SVM's cost C: 10^-3, 10^-2, …,
// 10^3.
func DefaultCs() []float64 {
	return []float64{1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3}
}

// NormMode says whether a kernel is normalised before training.
type NormMode int

const (
	// NormSelect lets the inner cross-validation choose between the
	// normalised and the unnormalised kernel, as in the paper.
	NormSelect NormMode = iota
	// NormAlways uses only the normalised kernel.
	NormAlways
	// NormNever uses only the unnormalised kernel.
	NormNever
)

// String returns the name ParseNormMode accepts.
func (m NormMode) String() string {
	switch m {
	case NormSelect:
		return "select"
	case NormAlways:
		return "always"
	case NormNever:
		return "never"
	}
	return fmt.Sprintf("NormMode(%d)", int(m))
}

// ParseNormMode returns the NormMode named s: select, always or never.
func ParseNormMode(s string) (NormMode, error) {
	for _, m := range []NormMode{NormSelect, NormAlways, NormNever} {
		if s == m.String() {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown normalisation mode %q (want select, always or never)", s)
}

// Candidate is one kernel matrix among which the nested cross-validation
// selects, typically the kernel for one combination of kernel parameters.
// Its matrix is computed once by the caller and shared by all folds.
type Candidate struct {
	// Label names the parameters the matrix was computed with, e.g.
	// "length=3".
	Label string
	// K is the n×n kernel matrix over all samples, in sample order.
	K *mat.SymDense
}

// Options configures CrossValidate. The zero value, apart from the seed,
// is the paper's protocol (Section 5.1).
type Options struct {
	// Reps is the number of repetitions of the outer cross-validation,
	// each with new random folds; 0 means 10.
	Reps int
	// Folds is the number of outer folds; 0 means 10.
	Folds int
	// InnerFolds is the number of folds of the cross-validation on each
	// outer training part that selects the parameters; 0 means 10.
	InnerFolds int
	// Seed determines every fold assignment.
	Seed uint64
	// Cs is the grid of the SVM's cost C; nil means DefaultCs. Its values
	// must be positive and distinct; the result lists them ascending.
	Cs []float64
	// Norm says whether the kernels are normalised or the choice is left
	// to the inner cross-validation.
	Norm NormMode
	// Threads bounds the number of outer folds processed in parallel;
	// 0 means runtime.GOMAXPROCS(0). The result does not depend on it.
	Threads int
	// Progress, if not nil, is called after each unit of work with the
	// number of units done and the total. A unit is the inner
	// cross-validation of one candidate in one outer fold, or the final fit
	// of one outer fold. Calls come from the worker goroutines, one at a
	// time.
	Progress func(done, total int)
}

// withDefaults returns o with zero fields replaced by their defaults, or an
// error for values out of range.
func (o Options) withDefaults() (Options, error) {
	def := func(v *int, d int, name string, lo int) error {
		if *v == 0 {
			*v = d
		}
		if *v < lo {
			return fmt.Errorf("%s = %d, want at least %d", name, *v, lo)
		}
		return nil
	}
	if err := errors.Join(
		def(&o.Reps, 10, "Reps", 1),
		def(&o.Folds, 10, "Folds", 2),
		def(&o.InnerFolds, 10, "InnerFolds", 2),
		def(&o.Threads, runtime.GOMAXPROCS(0), "Threads", 1),
	); err != nil {
		return o, err
	}
	if o.Cs == nil {
		o.Cs = DefaultCs()
	} else {
		o.Cs = slices.Clone(o.Cs)
	}
	if len(o.Cs) == 0 {
		return o, errors.New("empty grid of C")
	}
	slices.Sort(o.Cs)
	for i, c := range o.Cs {
		if !(c > 0) || math.IsInf(c, 0) {
			return o, fmt.Errorf("C = %v, want a positive finite value", c)
		}
		if i > 0 && c == o.Cs[i-1] {
			return o, fmt.Errorf("C = %v given twice", c)
		}
	}
	if o.Norm < NormSelect || o.Norm > NormNever {
		return o, fmt.Errorf("unknown normalisation mode %d", o.Norm)
	}
	return o, nil
}

// FoldResult is the outcome of one outer fold: what the inner
// cross-validation chose and how the chosen model did on the test part.
type FoldResult struct {
	// Test is the number of test samples and Correct the number predicted
	// correctly.
	Test, Correct int
	// Candidate is the index of the chosen kernel matrix.
	Candidate int
	// Normalized says whether the normalised kernel was chosen.
	Normalized bool
	// C is the chosen cost.
	C float64
	// InnerAccuracy is the chosen parameters' accuracy in the inner
	// cross-validation, over all samples of the outer training part.
	InnerAccuracy float64
}

// Choices counts how often each parameter value was chosen, over all outer
// folds of all repetitions.
type Choices struct {
	// Candidate counts the choices of each candidate, by index.
	Candidate []int
	// Normalized and Unnormalized count the choices of normalisation.
	Normalized, Unnormalized int
	// C counts the choices of each value of Options.Cs, by index.
	C []int
}

// Result is the outcome of a nested cross-validation.
type Result struct {
	// Options are the options used, with defaults filled in.
	Options Options
	// Labels are the candidates' labels, by index.
	Labels []string
	// Accuracy is the mean of RepAccuracy, and Std its sample standard
	// deviation (divisor Reps−1; 0 for a single repetition).
	Accuracy, Std float64
	// RepAccuracy is the accuracy of each repetition: correct predictions
	// over all its outer folds divided by the number of samples.
	RepAccuracy []float64
	// Folds holds the outcome of each outer fold, indexed [rep][fold].
	Folds [][]FoldResult
	// Chosen counts the parameter values chosen.
	Chosen Choices
	// Fits is the number of SVMs trained, inner and outer.
	Fits int
	// CapFits is the number of fits in which LIBSVM's solver stopped at its
	// iteration cap in at least one one-vs-one subproblem.
	CapFits int
	// Iterations is the total number of solver iterations.
	Iterations int64
}

// variant is the form of a kernel matrix given to the SVM. Its order is the
// tie-breaking preference: normalised before unnormalised.
type variant int

const (
	normalised variant = iota
	unnormalised
	numVariants
)

// innerFold is one fold of the inner cross-validation of an outer fold.
type innerFold struct {
	train, test []int
}

// job is one outer fold of one repetition: its samples, its inner folds,
// the inner accuracies of every parameter combination and the final
// outcome. A job is only ever touched by one goroutine at a time.
type job struct {
	rep, fold   int
	train, test []int
	inner       []innerFold
	// correct[c][v][ci] counts the correct inner predictions of candidate
	// c, variant v and cost Cs[ci].
	correct [][numVariants][]int

	cand         int
	vari         variant
	ci           int
	innerCorrect int
	testCorrect  int

	fits, capFits int
	iter          int64
}

// CrossValidate estimates the accuracy of a C-SVM on the kernel candidates
// by nested cross-validation as in Section 5.1 of the paper: Reps times,
// the samples are split into Folds stratified folds; for each outer fold, a
// stratified InnerFolds-fold cross-validation on the other folds alone
// selects the candidate, the normalisation and C, and an SVM trained with
// the selection on those folds predicts the outer fold.
//
// Ties in inner accuracy go to the smaller C, then the earlier candidate,
// then the normalised kernel: the most regularised, and with candidates in
// order of complexity, the simplest choice.
//
// The unnormalised kernel enters the SVM divided by the mean of its
// diagonal over the training samples of each fit: the inner training part
// in the inner cross-validation, the outer training part in the final fit.
// The grid of C suits kernels of unit scale; unnormalised walk kernels reach
// 10^5 to 10^12, where every C of the grid is effectively infinite and
// LIBSVM runs into its iteration cap (10^7 iterations, over a second for one
// MUTAG fit). The division is a positive constant factor, so it keeps the
// kernel's shape, and it uses no test sample. It is carried out by training
// with cost C/s on the unscaled matrix, which gives the decision function of
// cost C on the matrix divided by s (up to the solver's tolerance), so one
// node block serves all folds. Fits that still hit the cap are counted in
// Result.CapFits.
//
// Each candidate's matrices (normalised and unnormalised) are converted to
// LIBSVM's format once for the inner cross-validations of all outer folds,
// and once more for the final fits of the outer folds that chose it. At most
// one candidate's blocks are held at a time, 2·16·n² bytes.
//
// Outer folds run on up to Threads goroutines; each writes only its own
// result, and all randomness comes from per-fold generators derived from
// Seed, so the result does not depend on Threads. CrossValidate returns
// ctx's error when ctx is cancelled; it checks between fits.
func CrossValidate(ctx context.Context, cands []Candidate, classes []int64, opt Options) (*Result, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("cross-validation: %w", err)
	}
	if err := validate(cands, classes); err != nil {
		return nil, fmt.Errorf("cross-validation: %w", err)
	}
	codes := classCodes(classes)
	jobs, err := makeJobs(classes, len(cands), opt)
	if err != nil {
		return nil, fmt.Errorf("cross-validation: %w", err)
	}
	vars := variants(opt.Norm)
	tick := progress(opt.Progress, (len(cands)+1)*len(jobs))
	for c, cand := range cands {
		err := withBlocks(cand.K, vars, func(blk [numVariants]*libsvm.Block) error {
			return parallel(ctx, opt.Threads, jobs, tick, func(ctx context.Context, j *job) error {
				return j.innerCV(ctx, c, cand.K, blk, vars, codes, opt.Cs)
			})
		})
		if err != nil {
			return nil, fmt.Errorf("cross-validation: candidate %q: %w", cand.Label, err)
		}
	}
	for _, j := range jobs {
		j.choose(len(cands), vars, len(opt.Cs))
	}
	for c, cand := range cands {
		var mine []*job
		var used []variant
		for _, j := range jobs {
			if j.cand == c {
				mine = append(mine, j)
				if !slices.Contains(used, j.vari) {
					used = append(used, j.vari)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		err := withBlocks(cand.K, used, func(blk [numVariants]*libsvm.Block) error {
			return parallel(ctx, opt.Threads, mine, tick, func(ctx context.Context, j *job) error {
				return j.outer(ctx, cand.K, blk, codes, opt.Cs)
			})
		})
		if err != nil {
			return nil, fmt.Errorf("cross-validation: candidate %q: %w", cand.Label, err)
		}
	}
	return summarize(cands, len(classes), jobs, opt), nil
}

// validate checks that the candidates are usable matrices over the samples.
func validate(cands []Candidate, classes []int64) error {
	if len(cands) == 0 {
		return errors.New("no kernel candidates")
	}
	n := len(classes)
	distinct := make(map[int64]bool)
	for _, c := range classes {
		distinct[c] = true
	}
	if len(distinct) < 2 {
		return fmt.Errorf("%d class(es) among %d samples, want at least 2", len(distinct), n)
	}
	for _, c := range cands {
		if c.K == nil {
			return fmt.Errorf("candidate %q: no kernel matrix", c.Label)
		}
		if d := c.K.SymmetricDim(); d != n {
			return fmt.Errorf("candidate %q: %d×%d kernel matrix for %d samples", c.Label, d, d, n)
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if v := c.K.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("candidate %q: kernel value (%d,%d) is %v", c.Label, i, j, v)
				}
			}
		}
	}
	return nil
}

// classCodes maps the class labels to 0..k−1 in ascending order of label:
// LIBSVM takes labels as C ints, which int64 labels need not fit.
func classCodes(classes []int64) []int {
	sorted := slices.Clone(classes)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	codes := make([]int, len(classes))
	for i, c := range classes {
		codes[i], _ = slices.BinarySearch(sorted, c)
	}
	return codes
}

// variants returns the kernel variants that mode allows, in order of
// preference.
func variants(mode NormMode) []variant {
	switch mode {
	case NormAlways:
		return []variant{normalised}
	case NormNever:
		return []variant{unnormalised}
	}
	return []variant{normalised, unnormalised}
}

// makeJobs draws the outer folds of every repetition and the inner folds of
// every outer fold.
func makeJobs(classes []int64, ncand int, opt Options) ([]*job, error) {
	var jobs []*job
	sub := make([]int64, 0, len(classes))
	for rep := 0; rep < opt.Reps; rep++ {
		fold, err := StratifiedFolds(classes, opt.Folds, rng(opt.Seed, rep, 0))
		if err != nil {
			return nil, err
		}
		for f := 0; f < opt.Folds; f++ {
			j := &job{rep: rep, fold: f}
			j.train, j.test = split(fold, f)
			sub = sub[:0]
			for _, i := range j.train {
				sub = append(sub, classes[i])
			}
			inner, err := StratifiedFolds(sub, opt.InnerFolds, rng(opt.Seed, rep, f+1))
			if err != nil {
				return nil, fmt.Errorf("inner folds of repetition %d, fold %d: %w", rep, f, err)
			}
			for g := 0; g < opt.InnerFolds; g++ {
				tr, te := split(inner, g)
				// Positions in the training part to sample indices.
				j.inner = append(j.inner, innerFold{train: pick(j.train, tr), test: pick(j.train, te)})
			}
			j.correct = make([][numVariants][]int, ncand)
			for c := range j.correct {
				for v := range j.correct[c] {
					j.correct[c][v] = make([]int, len(opt.Cs))
				}
			}
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

func pick(s, idx []int) []int {
	out := make([]int, len(idx))
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

// withBlocks converts K to LIBSVM's format in the variants vars, calls fn
// and frees the blocks.
func withBlocks(K *mat.SymDense, vars []variant, fn func([numVariants]*libsvm.Block) error) error {
	var blk [numVariants]*libsvm.Block
	defer func() {
		for _, b := range blk {
			if b != nil {
				b.Free()
			}
		}
	}()
	for _, v := range vars {
		var m mat.Symmetric = K
		if v == normalised {
			m = Normalize(K)
		}
		b, err := libsvm.NewBlock(m)
		if err != nil {
			return err
		}
		blk[v] = b
	}
	return fn(blk)
}

// innerCV runs the inner cross-validation of candidate c for every variant
// and C.
func (j *job) innerCV(ctx context.Context, c int, K *mat.SymDense, blk [numVariants]*libsvm.Block, vars []variant, codes []int, Cs []float64) error {
	scale := make([]float64, len(j.inner))
	for g, in := range j.inner {
		scale[g] = meanDiag(K, in.train)
	}
	for _, v := range vars {
		for ci, C := range Cs {
			for g, in := range j.inner {
				cost := C
				if v == unnormalised {
					cost = C / scale[g]
				}
				n, err := j.fit(ctx, blk[v], in.train, in.test, codes, cost)
				if err != nil {
					return fmt.Errorf("repetition %d, fold %d, inner fold %d: %w", j.rep, j.fold, g, err)
				}
				j.correct[c][v][ci] += n
			}
		}
	}
	return nil
}

// choose selects the parameters with the most correct inner predictions,
// breaking ties by smaller C, then earlier candidate, then normalisation.
func (j *job) choose(ncand int, vars []variant, nC int) {
	best := -1
	for ci := 0; ci < nC; ci++ {
		for c := 0; c < ncand; c++ {
			for _, v := range vars {
				if n := j.correct[c][v][ci]; n > best {
					best = n
					j.cand, j.vari, j.ci = c, v, ci
				}
			}
		}
	}
	j.innerCorrect = best
}

// outer trains the chosen model on the outer training part and counts its
// correct predictions on the test part.
func (j *job) outer(ctx context.Context, K *mat.SymDense, blk [numVariants]*libsvm.Block, codes []int, Cs []float64) error {
	cost := Cs[j.ci]
	if j.vari == unnormalised {
		cost /= meanDiag(K, j.train)
	}
	n, err := j.fit(ctx, blk[j.vari], j.train, j.test, codes, cost)
	if err != nil {
		return fmt.Errorf("repetition %d, fold %d: %w", j.rep, j.fold, err)
	}
	j.testCorrect = n
	return nil
}

// fit trains an SVM on the rows train of b and returns the number of rows
// test it predicts correctly.
func (j *job) fit(ctx context.Context, b *libsvm.Block, train, test, codes []int, C float64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	y := make([]int, len(train))
	for i, r := range train {
		y[i] = codes[r]
	}
	m, err := libsvm.Train(b, train, y, libsvm.Params{C: C})
	if err != nil {
		return 0, fmt.Errorf("C=%g: %w", C, err)
	}
	defer m.Free()
	j.fits++
	j.iter += m.Iterations()
	if m.CapHits() > 0 {
		j.capFits++
	}
	pred, err := m.Predict(test)
	if err != nil {
		return 0, fmt.Errorf("C=%g: %w", C, err)
	}
	n := 0
	for i, r := range test {
		if pred[i] == codes[r] {
			n++
		}
	}
	return n, nil
}

// progress returns a function that counts units of work done and reports
// them to report, one call at a time; it does nothing if report is nil.
func progress(report func(done, total int), total int) func() {
	if report == nil {
		return func() {}
	}
	var mu sync.Mutex
	done := 0
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		report(done, total)
	}
}

// parallel runs fn on every job on up to threads goroutines, calling tick
// after each, and returns the first error, after which the remaining jobs
// are skipped.
func parallel(ctx context.Context, threads int, jobs []*job, tick func(), fn func(context.Context, *job) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(threads, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, jobs[i]); err != nil {
					cancel(err)
					return
				}
				tick()
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}

// summarize gathers the jobs' outcomes into a Result.
func summarize(cands []Candidate, n int, jobs []*job, opt Options) *Result {
	r := &Result{
		Options:     opt,
		Labels:      make([]string, len(cands)),
		RepAccuracy: make([]float64, opt.Reps),
		Folds:       make([][]FoldResult, opt.Reps),
		Chosen: Choices{
			Candidate: make([]int, len(cands)),
			C:         make([]int, len(opt.Cs)),
		},
	}
	for c, cand := range cands {
		r.Labels[c] = cand.Label
	}
	for rep := range r.Folds {
		r.Folds[rep] = make([]FoldResult, opt.Folds)
	}
	correct := make([]int, opt.Reps)
	for _, j := range jobs {
		r.Folds[j.rep][j.fold] = FoldResult{
			Test:          len(j.test),
			Correct:       j.testCorrect,
			Candidate:     j.cand,
			Normalized:    j.vari == normalised,
			C:             opt.Cs[j.ci],
			InnerAccuracy: float64(j.innerCorrect) / float64(len(j.train)),
		}
		correct[j.rep] += j.testCorrect
		r.Chosen.Candidate[j.cand]++
		r.Chosen.C[j.ci]++
		if j.vari == normalised {
			r.Chosen.Normalized++
		} else {
			r.Chosen.Unnormalized++
		}
		r.Fits += j.fits
		r.CapFits += j.capFits
		r.Iterations += j.iter
	}
	for rep, c := range correct {
		r.RepAccuracy[rep] = float64(c) / float64(n)
	}
	r.Accuracy = stat.Mean(r.RepAccuracy, nil)
	if opt.Reps > 1 {
		r.Std = stat.StdDev(r.RepAccuracy, nil)
	}
	return r
}
