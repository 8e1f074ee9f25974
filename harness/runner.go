package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/kernels"
)

// Shard selects a deterministic part of a grid: the cells whose index is
// Index modulo Count. Neighbouring cells, which cost about the same, go to
// different shards, so shards take about equally long. The zero value is
// the whole grid.
type Shard struct {
	Index, Count int
}

// ParseShard parses "i/N" with 0 ≤ i < N, the form of Slurm's
// SLURM_ARRAY_TASK_ID and Kubernetes' JOB_COMPLETION_INDEX.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/N, e.g. 0/4", s)
	}
	if n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want 0 ≤ i < N", s)
	}
	return Shard{i, n}, nil
}

// String formats the shard as "i/N", or "" for the whole grid.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Has reports whether the cell with the given index is in the shard.
func (s Shard) Has(index int) bool { return s.Count <= 1 || index%s.Count == s.Index }

// Dir returns the results folder of the shard under a spec's folder.
func (s Shard) Dir(specDir string) string {
	if s.Count <= 1 {
		return specDir
	}
	return filepath.Join(specDir, fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count))
}

// Runner runs the cells of a plan and records every run in a results
// folder. Its dependencies are interfaces so that tests can run fake
// kernels on fake data.
type Runner struct {
	Kernels  KernelFactory
	Data     DataSource
	Progress Progress
	Shard    Shard
	// Force resumes into a folder whose results came from a different spec
	// file or profile.
	Force bool
	// SampleEvery is the period of the heap sampling; 0 means 2ms.
	SampleEvery time.Duration
	// Log, if not nil, receives a line per accuracy of the evaluation.
	Log io.Writer
	// Costs are the cost constants the automatic method's advice uses,
	// as measured by runexp calibrate; nil means the kernels' defaults.
	Costs kernels.Costs
	// MemoryCap, if positive, is the most heap a run may take on this
	// machine: a spec's memory limit above it, or none, is lowered to it,
	// so that a run the machine cannot hold is recorded as oom rather
	// than ended by the operating system with the process. The full
	// profiles keep the paper's 64 GB.
	MemoryCap int64
	// GCFloor, if positive, is the least garbage the heap may gather
	// before the collector runs, beyond the default, which lets it
	// gather as much as is live: the runner holds a ballast of that many
	// bytes while it runs a plan, which the collector counts as live but
	// which nothing reads or writes (its pages stay unmapped where the
	// runtime takes them fresh from the system), and which the heap the
	// runner samples leaves out. It is capped at a sixteenth of the
	// plan's memory limit, so that garbage cannot take a run over the
	// limit where the default would not.
	GCFloor int64
}

// Limits returns the limits the runs of p keep: p's, with the memory
// limit lowered to MemoryCap.
func (r *Runner) Limits(p *Plan) Limits {
	l := p.Limits
	if r.MemoryCap > 0 && (l.Memory <= 0 || l.Memory > r.MemoryCap) {
		l.Memory = r.MemoryCap
	}
	return l
}

// refusedNote begins the note of a run refused by the kernel's memory
// estimate, which follows it.
const refusedNote = "not run: the kernel estimates "

// RefusedEstimate returns the estimate, such as "5.2 GiB", that a row's
// note gives for a run the runner refused because the kernel's memory
// estimate exceeded the limit, and whether the note says so.
func RefusedEstimate(note string) (string, bool) {
	_, est, ok := strings.Cut(note, refusedNote)
	if !ok {
		return "", false
	}
	est, _, _ = strings.Cut(est, ",")
	return est, true
}

// RunResult tells what a run did.
type RunResult struct {
	// Dir is the results folder.
	Dir string
	// Kept is the number of rows found from earlier runs, New the number
	// recorded now, Rows the total.
	Kept, New, Rows int
}

// ErrInterrupted is wrapped by Run's error when its context was cancelled.
var ErrInterrupted = errors.New("interrupted")

// ErrResumeRefused is wrapped by Run's error when the results folder holds
// results of a different spec file, profile or shard and Force is unset.
var ErrResumeRefused = errors.New("refusing to resume")

// Run runs every cell of p in r's shard that the results folder under out
// does not hold yet, and writes summary.csv and meta.json at the end, also
// when interrupted.
func (r *Runner) Run(ctx context.Context, p *Plan, out string) (*RunResult, error) {
	dir := r.Shard.Dir(filepath.Join(out, p.Spec.Name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create results folder: %w", err)
	}
	meta := newMeta(ctx, p, r.Shard)
	if l := r.Limits(p); l.Memory != p.Limits.Memory {
		meta.MemoryCap = l.Memory
	}
	prev, err := ReadMeta(dir)
	switch {
	case err == nil:
		if err := r.checkResume(prev, meta, dir); err != nil {
			return nil, err
		}
		meta.Started = prev.Started
		meta.Invocations = prev.Invocations + 1
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, fileMeta), err)
	}
	st, err := openStore(dir, meta.Axes)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	defer st.close()
	res := &RunResult{Dir: dir, Kept: len(st.rows)}
	meta.Rows = len(st.rows)
	if err := writeMeta(dir, meta); err != nil {
		return nil, fmt.Errorf("write meta: %w", err)
	}

	runErr := r.runCells(ctx, p, st, meta.Hostname)
	if runErr == nil {
		runErr = r.evaluate(ctx, p, dir, st.rows)
	}
	res.New = len(st.rows) - res.Kept
	res.Rows = len(st.rows)

	meta.Finished = time.Now().UTC()
	meta.Rows = len(st.rows)
	switch {
	case runErr == nil:
		meta.Status = "complete"
	case errors.Is(runErr, ErrInterrupted):
		meta.Status = "interrupted"
	default:
		meta.Status = "failed"
	}
	werr := errors.Join(
		writeSummary(filepath.Join(dir, fileSummary), meta.Axes, meta.Methods, st.rows),
		writeMeta(dir, meta),
	)
	if runErr != nil {
		return res, errors.Join(runErr, werr)
	}
	if werr != nil {
		return res, fmt.Errorf("write summary and meta: %w", werr)
	}
	return res, nil
}

// checkResume refuses to add rows to a folder that holds the results of a
// different spec file, profile or shard, unless forced.
func (r *Runner) checkResume(prev, now *Meta, dir string) error {
	if r.Force {
		return nil
	}
	short := func(h string) string { return h[:min(12, len(h))] }
	switch {
	case prev.SpecSHA256 != now.SpecSHA256:
		return fmt.Errorf("%w: %s holds results of a different version of %s (sha256 %s, now %s); "+
			"rerun with -force to resume into it anyway, or choose another -out", ErrResumeRefused, dir, now.SpecFile,
			short(prev.SpecSHA256), short(now.SpecSHA256))
	case prev.Profile != now.Profile:
		return fmt.Errorf("%w: %s holds results of profile %s, not %s; choose another -out or rerun with -force",
			ErrResumeRefused, dir, prev.Profile, now.Profile)
	case prev.Shard != now.Shard:
		return fmt.Errorf("%w: %s holds results of shard %q, not %q; rerun with -force to resume into it anyway",
			ErrResumeRefused, dir, prev.Shard, now.Shard)
	}
	return nil
}

// runCells runs the cells not yet done, building each data set once.
func (r *Runner) runCells(ctx context.Context, p *Plan, st *store, host string) error {
	floor := r.GCFloor
	if lim := r.Limits(p).Memory; lim > 0 {
		floor = min(floor, lim/16)
	}
	var ballast []byte
	if floor > 0 {
		ballast = make([]byte, floor)
		defer runtime.KeepAlive(ballast)
	}
	hs := heapSampling{every: r.SampleEvery, ballast: uint64(len(ballast))}
	var todo []*Cell
	runs := 0
	for i := range p.Cells {
		c := &p.Cells[i]
		if !r.Shard.Has(c.Index) {
			continue
		}
		n := 0
		for _, m := range c.Methods {
			for rep := 1; rep <= p.Measure.Repetitions; rep++ {
				if _, ok := st.done[rowKey{c.Key, string(m), rep}]; !ok {
					n++
				}
			}
		}
		if n > 0 {
			todo = append(todo, c)
			runs += n
		}
	}
	prog := r.Progress
	if prog == nil {
		prog = nopProgress{}
	}
	shown := *p // with the limits the runs keep
	shown.Limits = r.Limits(p)
	prog.Begin(&shown, len(todo), runs)
	defer prog.End()

	var (
		dataKey string
		ds      *graph.Dataset
		dataErr error
	)
	for _, c := range todo {
		if k := c.Data.Key(); k != dataKey {
			// Drop the previous data set before building the next.
			ds, dataErr = nil, nil
			runtime.GC()
			ds, dataErr = r.Data.Load(ctx, c.Data)
			dataKey = k
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx))
		}
		cr := &cellRun{r: r, p: p, st: st, c: c, ds: ds, dataErr: dataErr, host: host, prog: prog, hs: hs}
		if err := cr.methods(ctx, c.Methods); err != nil {
			return err
		}
		prog.CellDone(c)
	}
	return nil
}

// cellRun runs one cell's methods and repetitions.
type cellRun struct {
	r       *Runner
	p       *Plan
	st      *store
	c       *Cell
	ds      *graph.Dataset
	dataErr error
	host    string
	prog    Progress
	hs      heapSampling
	// live are the cell's methods, whose Workspaces hold buffers until
	// their last run (see keepRuns).
	live []*methodRun
}

// bufs returns the Workspaces of a run of mr: its own, and the other
// methods'.
func (cr *cellRun) bufs(mr *methodRun) runBufs {
	b := runBufs{own: mr.ws}
	for _, o := range cr.live {
		if o != mr {
			b.others = append(b.others, o.ws)
		}
	}
	return b
}

// joinNotes joins the non-empty notes of a row.
func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// fallbackNote says when the cell's data set was replaced by its fallback.
func (cr *cellRun) fallbackNote() string {
	asked := cr.c.Data.Dataset
	if cr.ds == nil || asked == "" || cr.ds.Name == asked {
		return ""
	}
	return FallbackNote(asked, cr.ds.Name)
}

func (cr *cellRun) row(m kernels.Method, rep int) Row {
	c, p := cr.c, cr.p
	coords := make(map[string]string, len(p.Axes))
	for i, a := range p.Axes {
		coords[a.Name] = c.Coords[i]
	}
	r := Row{
		CellIndex: c.Index,
		Cell:      c.Key,
		Coords:    coords,
		Data:      c.Data.Key(),
		Kernel:    c.Kernel,
		Params:    paramText(c.Params),
		Method:    string(m),
		Rep:       rep,
		Threads:   p.Measure.Threads,
		Started:   time.Now().UTC(),
		Host:      cr.host,
		Note:      cr.fallbackNote(),
	}
	if cr.ds != nil {
		r.Graphs = cr.ds.Len()
	}
	return r
}

func (cr *cellRun) record(r Row) error {
	if err := cr.st.append(r); err != nil {
		return fmt.Errorf("record %s %s rep %d: %w", r.Cell, r.Method, r.Rep, err)
	}
	cr.prog.Row(cr.c, &r)
	return nil
}

// recordAll records the repetitions reps, which did not run, with one
// status.
func (cr *cellRun) recordAll(m kernels.Method, reps []int, status, note string) error {
	for _, rep := range reps {
		r := cr.row(m, rep)
		r.Status, r.Note = status, note
		if err := cr.record(r); err != nil {
			return err
		}
	}
	return nil
}

// methodRun is what is left to run of one method in a cell.
type methodRun struct {
	m    kernels.Method
	k    kernels.Kernel
	todo []int // the repetitions not recorded yet
	// last is the wall time of the method's last run, which orders the
	// next round (see nextRound).
	last time.Duration
	// ws, where the spec reuses buffers (Measure.Reuse), keeps the
	// method's buffers from one run to the next: as a benchmark's loop
	// does, and as the program of a user who computes like matrices one
	// after another would.
	ws *kernels.Workspace
}

// methods runs the repetitions of the methods ms that are not recorded
// yet. Each method's warm-up runs come first, and order the first round
// as a round does the next; then the repetitions run round by round, a
// run of each method a round, so that the machine's
// drift falls on all methods alike rather than on whichever ran then: on
// the 2-core VM of issue 9, runs of a millisecond took 1.5–2 times as long
// for seconds at a time, and the three runs of one method in a row could
// all fall in such a stretch. Where that put auto at 2.6 times the oracle
// in a cell of the walk grid, its runs alone took 0.70–0.82 ms against
// the explicit method's 0.66–1.25 ms.
func (cr *cellRun) methods(ctx context.Context, ms []kernels.Method) error {
	var runs []*methodRun
	for _, m := range ms {
		mr, err := cr.prepare(m)
		if err != nil {
			return err
		}
		if mr != nil {
			runs = append(runs, mr)
		}
	}
	// Where the spec reuses buffers, each method keeps its Workspace
	// until its last run: the runs of MUTAG's walk kernel at length 9
	// allocated 29 MB each without one, five collections a run, which
	// took a core from the run's two threads (see kernels.Workspace).
	if cr.p.Measure.Reuse {
		for _, mr := range runs {
			mr.ws = kernels.NewWorkspace()
		}
	}
	cr.live = slices.Clone(runs)
	runs, err := keepRuns(runs, func(mr *methodRun) (bool, error) { return cr.warmUp(ctx, mr) })
	if cr.p.Measure.Warmup > 0 {
		// The warm-up runs are a round, which orders the first
		// recorded one: in the spec's order, auto's probes in the walk
		// grid's first round ran after the implicit run of 0.1–0.2 s
		// and took 66–77 µs, against 30–41 µs in the later rounds.
		runs = nextRound(runs)
	}
	for err == nil && len(runs) > 0 {
		runs, err = keepRuns(runs, func(mr *methodRun) (bool, error) { return cr.next(ctx, mr) })
		runs = nextRound(runs)
	}
	return err
}

// nextRound orders the methods for the next round: the one whose last run
// took longest goes last, and the others move up a place, the first going
// last but one. A run after a long one starts with the caches that run
// evicted: in the walk grid, where each round ran explicit, implicit and
// auto, auto's explicit maps after an implicit run of 0.25 s took up to
// 1.4 ms against the explicit method's 0.8–0.9 ms, and made auto's
// worst cell 1.79 times the oracle. Ordered so, the place after the long
// run, the first of the next round, falls to each other method in turn.
func nextRound(runs []*methodRun) []*methodRun {
	if len(runs) < 2 {
		return runs
	}
	long := 0
	for i, mr := range runs {
		if mr.last > runs[long].last {
			long = i
		}
	}
	next := make([]*methodRun, 0, len(runs))
	next = append(next, runs[:long]...)
	next = append(next, runs[long+1:]...)
	next = append(next[1:], next[0], runs[long])
	return next
}

// keepRuns calls step on each of runs in turn and returns those for which
// it reported true, in order, or step's first error. The methods it drops
// release their Workspaces, which then hold nothing for the others' runs
// to leave out.
func keepRuns(runs []*methodRun, step func(*methodRun) (bool, error)) ([]*methodRun, error) {
	kept := runs[:0]
	for _, mr := range runs {
		ok, err := step(mr)
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, mr)
		} else {
			mr.ws.Release()
		}
	}
	return kept, nil
}

// prepare returns what is left to run of method m, or nil where nothing
// is: every repetition is recorded, or the rest were recorded now, as
// hitting a limit an earlier invocation hit, or as failing for the data
// or the kernel.
func (cr *cellRun) prepare(m kernels.Method) (*methodRun, error) {
	var todo []int
	standStatus, standNote := "", ""
	for rep := 1; rep <= cr.p.Measure.Repetitions; rep++ {
		i, ok := cr.st.done[rowKey{cr.c.Key, string(m), rep}]
		if !ok {
			todo = append(todo, rep)
			continue
		}
		// A limit that was hit before is hit again: an earlier
		// invocation's timeout or oom stands for the remaining runs.
		if s := cr.st.rows[i].Status; (s == StatusTimeout || s == StatusOOM) && standStatus == "" {
			standStatus, standNote = s, fmt.Sprintf("not run: repetition %d hit the %s limit", rep, s)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	if standStatus != "" {
		return nil, cr.recordAll(m, todo, standStatus, standNote)
	}
	if cr.dataErr != nil {
		return nil, cr.recordAll(m, todo, statusError+"data: "+oneLine(cr.dataErr.Error()), "")
	}
	k, err := cr.r.Kernels.New(cr.c.Kernel, cr.c.Params)
	if err != nil {
		return nil, cr.recordAll(m, todo, statusError+oneLine(err.Error()), "")
	}
	return &methodRun{m: m, k: k, todo: todo}, nil
}

// warmUp runs the warm-up runs of mr, unrecorded, and reports whether
// they ended well; where one did not, the repetitions are recorded with
// its status.
func (cr *cellRun) warmUp(ctx context.Context, mr *methodRun) (bool, error) {
	for w := 1; w <= cr.p.Measure.Warmup; w++ {
		o := runOnce(ctx, mr.k, cr.ds.Graphs, mr.m, cr.r.Limits(cr.p), cr.p.Measure.Threads, cr.hs, cr.r.Costs, cr.bufs(mr))
		if o.interrupted {
			return false, fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx))
		}
		if o.status != StatusOK {
			return false, cr.recordAll(mr.m, mr.todo, o.status, fmt.Sprintf("not run: warm-up run %d ended %s", w, o.status))
		}
		mr.last = o.wall
	}
	return true, nil
}

// next runs and records the next repetition of mr and reports whether
// any is left to run.
func (cr *cellRun) next(ctx context.Context, mr *methodRun) (bool, error) {
	m, rep := mr.m, mr.todo[0]
	r := cr.row(m, rep)
	o := runOnce(ctx, mr.k, cr.ds.Graphs, m, cr.r.Limits(cr.p), cr.p.Measure.Threads, cr.hs, cr.r.Costs, cr.bufs(mr))
	if o.interrupted {
		return false, fmt.Errorf("%w (%v)", ErrInterrupted, context.Cause(ctx))
	}
	mr.last = o.wall
	r.Status = o.status
	r.Wall = o.wall.Seconds()
	r.Total = r.Wall
	r.HeapBase, r.PeakHeap = o.heapBase, o.peak
	if rp := o.report; rp != nil {
		r.Prep = rp.TPrep.Seconds()
		r.Total = (o.wall - rp.TPrep).Seconds()
		r.Phi, r.Dot = rp.TPhi.Seconds(), rp.TDot.Seconds()
		r.WDPG, r.Walks = rp.TWDPG.Seconds(), rp.TWalks.Seconds()
		r.FeatureNNZ, r.MaxFeatureNNZ, r.Features = rp.FeatureNNZ, rp.MaxFeatureNNZ, rp.Features
		r.ProductVertices, r.ProductEdges, r.Pairs = rp.ProductVertices, rp.ProductEdges, rp.Pairs
		r.Comparisons = rp.Comparisons
	}
	r.Ran, r.Switched, r.Probe = string(o.ran), o.switched, o.probe.Seconds()
	r.CPU = o.cpu.Seconds()
	r.C2C = o.c2c.Seconds()
	if o.note != "" {
		r.Note = joinNotes(r.Note, o.note)
	}
	if o.lag > time.Second {
		r.Note = joinNotes(r.Note, fmt.Sprintf("kernel returned %.1fs after the limit", o.lag.Seconds()))
	}
	if o.estimate > 0 {
		r.Note = joinNotes(r.Note, fmt.Sprintf(refusedNote+"%.3g GiB, over the memory limit", float64(o.estimate)/(1<<30)))
	}
	if err := cr.record(r); err != nil {
		return false, err
	}
	mr.todo = mr.todo[1:]
	if o.status == StatusTimeout || o.status == StatusOOM {
		// The paper's ">24h" and "OOM": the remaining repetitions
		// would hit the same limit, so they are recorded, not run.
		note := fmt.Sprintf("not run: repetition %d hit the %s limit", rep, o.status)
		return false, cr.recordAll(m, mr.todo, o.status, note)
	}
	return len(mr.todo) > 0, nil
}
