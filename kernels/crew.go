package kernels

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// A Crew keeps the worker goroutines of a finished parallel stretch
// spinning for a short while, so that the next stretch starts on cores
// that are awake. Attach one to a context with WithCrew; without one, each
// stretch spawns its workers anew.
//
// Why: on a virtual machine a core with nothing to run is halted, and the
// host takes tens to hundreds of microseconds to wake it (on the 2-core VM
// of issue 9, 60–130 µs in the median after 2 ms idle). A Gram matrix has
// several parallel stretches, the maps and the dot products at least, with
// sequential steps between them, and a benchmark or a parameter sweep
// computes one Gram matrix after another. Spawning each stretch's workers
// anew pays the wake-up every time, which held a 0.4 ms job to about 1.2×
// on two threads. A Crew's helpers spin for a while after their work, as
// OpenMP's threads do after a parallel region, and exit when none comes.
// They yield to the scheduler as they spin, so that they hold up nothing
// queued behind them.
//
// All of the package's goroutines run as a Crew's helpers when there is
// one: a helper spinning on a core would otherwise hide a goroutine queued
// on another, which that core would have stolen had it been idle.
type Crew struct {
	linger time.Duration

	mu     sync.Mutex
	queue  []*stretch // stretches with slots open to helpers
	queued atomic.Int32
	// open counts the slots in queue, and spinning the helpers looking
	// for one. Every slot has a helper of its own, spinning >= open, so
	// that a task never waits for a helper that is busy in a stretch
	// whose workers wait for the task.
	open, spinning int
	// brief counts the helpers running a brief task (see goBrief),
	// which come back to spinning without waiting for anything, and
	// which a slot may count on as it counts on a spinning helper.
	brief int
	// openBrief counts the slots of brief tasks in queue (see offer).
	openBrief int
	started   int // helpers started, for the tests
	// holds counts the Holds in force: while there are any, no helper
	// retires.
	holds int
}

// DefaultLinger is how long a Crew's helper spins for more work: longer
// than most sequential steps between a Gram matrix's stretches (not GI's
// refinement of MUTAG, 0.4–0.7 ms), and short beside any Gram matrix
// worth two threads. A linger of 1 ms did no better on MUTAG's kernels.
const DefaultLinger = 300 * time.Microsecond

// NewCrew returns a Crew whose helpers spin for linger after their work.
func NewCrew(linger time.Duration) *Crew {
	return &Crew{linger: linger}
}

type crewKey struct{}

// WithCrew returns a copy of ctx that carries c, for the Gram matrices
// computed under it on more than one thread.
func WithCrew(ctx context.Context, c *Crew) context.Context {
	return context.WithValue(ctx, crewKey{}, c)
}

func crewFrom(ctx context.Context) *Crew {
	c, _ := ctx.Value(crewKey{}).(*Crew)
	return c
}

// A stretch is one parallel loop over rows, forRows's arguments and its
// workers' shared state, or a single task of one row. forRows runs it on
// a Crew's helpers or on goroutines of its own.
type stretch struct {
	ctx context.Context
	n   int
	fn  func(worker, i int) error
	// next is on a cache line of its own: each claim writes it, and
	// every row reads stop, which on the same line made each claim cost
	// the other workers a miss at their next row.
	_    [64]byte
	next atomic.Int64
	_    [56]byte
	stop atomic.Bool  // a worker failed
	slot atomic.Int32 // the next worker index
	// active counts the helpers that joined and are not back to
	// spinning: a helper joins in take and counts as spinning again
	// before it leaves, both under the Crew's lock, so that a caller that
	// has withdrawn the open slots and seen active at 0 leaves every
	// helper it had counted on spinning for the next stretch.
	active atomic.Int32
	errs   []error // by worker
	open   int     // slots left for helpers, under the Crew's lock
	brief  bool    // a task of goBrief
}

func newStretch(ctx context.Context, n, threads int, fn func(worker, i int) error) *stretch {
	return &stretch{ctx: ctx, n: n, fn: fn, errs: make([]error, threads)}
}

// err returns the first worker's error, once all are done.
func (s *stretch) err() error {
	for _, err := range s.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// work joins s as its next worker and takes rows until none are left.
func (s *stretch) work() {
	w := int(s.slot.Add(1) - 1)
	for {
		left := int64(s.n) - s.next.Load()
		k := claimRows(left, len(s.errs))
		if left == int64(s.n) {
			// The first claim is one row, so that the next worker
			// starts right behind it: GI's streamed refinement
			// (giStream) refines the graphs in order, and a worker
			// whose first graph lay far ahead would refine up to it
			// before summing any.
			k = 1
		}
		i0 := s.next.Add(k) - k
		for i := i0; i < min(i0+k, int64(s.n)); i++ {
			if s.stop.Load() {
				return
			}
			if err := s.ctx.Err(); err != nil {
				s.errs[w] = err
				return
			}
			if err := s.fn(w, int(i)); err != nil {
				s.errs[w] = err
				s.stop.Store(true) // stop the others at their next row
				return
			}
		}
		if i0+k >= int64(s.n) {
			return
		}
	}
}

// claimShare sets how many rows a worker of a stretch claims at a time: a
// claimShare·workers-th of the rows left, and at least one, as guided
// self-scheduling does. The claims shrink as the rows run out, so the
// workers still finish together, and a row takes no atomic operation on
// the counter all workers share: rows claimed one at a time held MUTAG's
// graphlet kernel, 188 rows of 1–4 µs in each of three stretches, to 1.54×
// on two threads where claims gave 1.66×, and the floor of 0.4 ms to
// 1.87× where claims gave 1.93× (BenchmarkForRowsFloor).
const claimShare = 4

// claimRows returns how many of left rows a worker of workers claims at a
// time (see claimShare).
func claimRows(left int64, workers int) int64 {
	return max(1, left/int64(claimShare*workers))
}

// run calls fn(worker, i) for every i in [0, n) on up to threads workers,
// the caller's goroutine first among them.
func (c *Crew) run(ctx context.Context, n, threads int, fn func(worker, i int) error) error {
	s := newStretch(ctx, n, threads, fn)
	c.offer(s, threads-1)
	s.work()
	// No helper joins once the slots are withdrawn, and the caller waits
	// for those that joined, even after the last row was taken, until
	// they spin again. A helper still on its way out would otherwise not
	// count as spinning when the next stretch is offered, which would
	// start a second helper beside it: TestCrewReuse failed so, now and
	// then, once the rows were claimed a share at a time and a caller
	// could take all rows of a short stretch before its helper joined.
	// The helpers finish within a row of the caller. Blocking would let
	// its core halt, and a helper that woke it would be left to spin
	// where it waits.
	c.withdraw(s)
	for s.active.Load() > 0 {
		relax()
	}
	return s.err()
}

// spawn runs task on a helper, as a go statement would; brief marks a
// task of goBrief.
func (c *Crew) spawn(task func(), brief bool) {
	s := newStretch(context.Background(), 1, 1, func(int, int) error { task(); return nil })
	s.brief = brief
	c.offer(s, 1)
}

// offer opens k slots of s to the helpers, and starts new helpers for
// those that no spinning helper will take.
func (c *Crew) offer(s *stretch, k int) {
	if k <= 0 {
		return
	}
	c.mu.Lock()
	s.open = k
	c.queue = append(c.queue, s)
	c.queued.Store(int32(len(c.queue)))
	c.open += k
	// Every open slot has a helper of its own, but for the brief tasks
	// queued ahead of a stretch's slots: the helper that takes one comes
	// back for them, as one running a brief task does (see goBrief).
	// Counted apart, a stretch offered right after an allocation ahead,
	// before the spinning helper had taken it, started a second helper,
	// which spun beside the two workers: in 1 to 4 of 50 Gram matrices
	// of MUTAG on two threads by sp, GI, gh, csm and the graphlets.
	// A brief task gets a helper of its own, as a stretch queued ahead
	// of it may hold the helper that takes it.
	need := c.open
	if s.brief {
		c.openBrief += k
	} else if c.openBrief > 0 {
		need = max(c.open-c.openBrief, 1)
	}
	start := max(0, need-c.spinning-c.brief)
	c.spinning += start // they spin until they find a slot
	c.started += start
	c.mu.Unlock()
	for range start {
		go c.helper()
	}
}

// withdraw closes the slots of s that no helper took.
func (c *Crew) withdraw(s *stretch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.open > 0 {
		c.open -= s.open
		s.open = 0
		c.queue = slices.DeleteFunc(c.queue, func(x *stretch) bool { return x == s })
		c.queued.Store(int32(len(c.queue)))
	}
}

// take claims an open slot, if there is one, for a spinning helper.
func (c *Crew) take() *stretch {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return nil
	}
	s := c.queue[0]
	c.open--
	if s.open--; s.open == 0 {
		// Delete, not reslice: the array behind the queue would keep
		// the stretch, and the vectors its rows read, alive.
		c.queue = slices.Delete(c.queue, 0, 1)
		c.queued.Store(int32(len(c.queue)))
	}
	c.spinning--
	if s.brief {
		c.brief++
		c.openBrief--
	}
	s.active.Add(1)
	return s
}

// retire ends a helper that found no slot within linger, unless the open
// slots count on it or a Hold keeps it.
func (c *Crew) retire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spinning+c.brief <= c.open || c.holds > 0 {
		return false // a slot counts on this helper, or a Hold keeps it
	}
	c.spinning--
	return true
}

// helper is a helper's goroutine. It counts as spinning from its start.
func (c *Crew) helper() {
	for {
		var s *stretch
		deadline := time.Now().Add(c.linger)
		for spins := 0; s == nil; spins++ {
			if c.queued.Load() > 0 {
				s = c.take()
				continue
			}
			if spins%64 == 63 {
				if time.Now().After(deadline) {
					if c.retire() {
						return
					}
					deadline = time.Now().Add(c.linger)
				}
				relax()
			}
		}
		s.work()
		c.mu.Lock()
		if s.brief {
			c.brief--
		}
		c.spinning++
		s.active.Add(-1)
		c.mu.Unlock()
	}
}

// Warm wakes the cores for a computation on threads goroutines that is
// about to be timed, if ctx carries a Crew: it runs a stretch of one row
// a worker whose workers wait for each other, so that threads−1 helpers
// have run beside the caller when it returns, and spin for the linger
// after. A thread pool that waits spinning, as OpenMP's does by default,
// starts its parallel regions on cores that are awake; a Crew idle for
// longer than its linger has retired its helpers, and their cores have
// halted, which the host takes 60–130 µs to undo (see Crew). The runner
// collects garbage before each timed run, for longer than the linger, so
// without Warm every run on two threads paid the wake-up in its time.
//
// Having run is not enough: the workers must run at the same time, each
// on a core of its own. A helper started by Warm is queued on the caller's
// core, and could arrive, and go back to spinning, there, by turns with
// the caller, while the other core was still halted, or woke and found
// nothing to run. The Go scheduler wakes no core for a goroutine that
// yields, so the helper then waited in the run queue until the caller
// yielded, after the first stretch of the timed run: in 314 of 400 maps of
// MUTAG's graphlets after a millisecond idle, the helper took no row. So,
// where there are no more threads than Ps, the workers then meet at
// barriers that none may wait at by yielding, until they meet at one (see
// warmup.together); with that, the helper took no row in 4–8 of 400. The
// host took up to 32 ms to run the other core again, now and then.
func Warm(ctx context.Context, threads int) error {
	c := crewFrom(ctx)
	if c == nil || threads < 2 {
		return nil
	}
	w := &warmup{ctx: ctx, threads: int32(threads)}
	together := threads <= runtime.GOMAXPROCS(0)
	return c.run(ctx, threads, threads, func(int, int) error {
		if err := w.meet(&w.arrived); err != nil || !together {
			return err
		}
		return w.together()
	})
}

// Hold keeps the helpers of ctx's Crew, if it has one, from retiring until
// release is called, however long they find no work: for one computation
// on several threads, whose sequential steps between its parallel stretches
// may outlast the linger. A helper that retires there lets its core halt,
// and the next stretch waits for the host to wake it, or runs on one thread
// where the host is slow: GI's dot products with the hat kernel on PROTEINS
// (P = 1), after their posting lists were built on one thread, ran so in
// 5–11 of 20 runs (runexp, two threads), and in none of 80 with a linger
// that outlasted the build. The runner holds the crew for each timed run,
// after Warm; between runs the linger stands. release may be called more
// than once.
func Hold(ctx context.Context) (release func()) {
	c := crewFrom(ctx)
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.holds--
			c.mu.Unlock()
		})
	}
}

// warmSpins is how many times a worker of Warm checks for the others
// between yields: some microseconds.
const warmSpins = 4096

// warmRounds is the most barriers the workers of Warm try to meet at
// without yielding, and warmWindow how long each waits at one before it
// yields: far longer than workers on cores of their own take to meet, and
// short beside the host's wake-up of a core. A round that is missed takes
// at least warmWindow, so the workers wait for at least 10 ms in all: in
// runexp's runs on two threads, after 64 rounds the other core had not
// run in 3–8% of them, and the run then took the time of one thread.
const (
	warmRounds = 512
	warmWindow = 20 * time.Microsecond
)

// warmup is the state the workers of one Warm share.
type warmup struct {
	ctx     context.Context
	threads int32
	arrived atomic.Int32
	rounds  [warmRounds]struct {
		in, out atomic.Int32
		missed  atomic.Bool // a worker yielded at in
	}
}

// meet waits, yielding now and then, until all workers counted
// themselves in n.
func (w *warmup) meet(n *atomic.Int32) error {
	n.Add(1)
	for spins := 0; n.Load() < w.threads; spins++ {
		// A worker that spun this long waits for one queued on its
		// own core.
		if spins%warmSpins == warmSpins-1 {
			if err := w.ctx.Err(); err != nil {
				return err
			}
			relax()
		}
	}
	return nil
}

// together returns once the workers met at a barrier where none yielded,
// or after warmRounds tries. A worker that waits at a barrier without
// yielding sees the others arrive only if they run on other cores, so a
// barrier that no worker missed had them all running at once. The workers
// agree on whether a barrier was missed at a second one, which each
// passes only after it noted its own miss.
func (w *warmup) together() error {
	for r := range w.rounds {
		rd := &w.rounds[r]
		if rd.in.Add(1) < w.threads && !w.within(&rd.in) {
			rd.missed.Store(true)
			if err := w.meet(&rd.in); err != nil {
				return err
			}
		}
		if err := w.meet(&rd.out); err != nil {
			return err
		}
		if !rd.missed.Load() {
			return nil
		}
	}
	return nil
}

// within reports whether all workers counted themselves in n within
// warmWindow, waited for without yielding.
func (w *warmup) within(n *atomic.Int32) bool {
	deadline := time.Now().Add(warmWindow)
	for spins := 0; n.Load() < w.threads; spins++ {
		if spins%256 == 255 && time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// relax is what a spinning goroutine of the package does now and then: it
// yields to the Go scheduler, for a goroutine queued behind it, and the
// thread to the system, for a thread queued on its core. Where the system
// puts two threads of a stretch on one core, as this virtual machine's
// scheduler does when its host gives it about one core (two threads that
// spin then ran 1.1 to 1.3 times as fast as one), a helper that spins by
// Go's yield alone takes turns on that core with the worker it waits for:
// GI's matrix on ENZYMES took 5.2–7.9 ms on two threads against 4.3 on
// one, and 3.3–4.3 ms where the helpers yield the thread too (runexp, by
// turns). The system's yield also brings the thread's CPU time up to date,
// which the runner reads (kernels.ProcessCPU).
func relax() {
	runtime.Gosched()
	osYield()
}

// await returns what ch sends, or its zero value once ch is closed, for a
// task started on a helper of ctx's Crew (goWith, goBrief); it does not
// stop at ctx's end, as the task may still use what the caller holds.
// Where ctx carries a Crew it waits spinning, as Crew.run waits for its
// helpers (see awaitOn); without one it blocks, as a stretch's own
// goroutines leave their cores then.
func await[T any](ctx context.Context, ch <-chan T) T {
	v, _ := awaitOn(crewFrom(ctx), nil, ch)
	return v
}

// awaitCtx is await that returns early, with ctx's error, once ctx is
// done.
func awaitCtx[T any](ctx context.Context, ch <-chan T) (T, error) {
	v, stopped := awaitOn(crewFrom(ctx), ctx.Done(), ch)
	if stopped {
		return v, ctx.Err()
	}
	return v, nil
}

// awaitOn returns what ch sends, or its zero value once ch is closed, or
// the zero value and true once stop is closed (a nil stop never is). With
// a Crew c it waits spinning. Blocked on the channel, a goroutine lets its
// thread park and its core halt; the helper's send then readied it on the
// helper's own core, where it took its turn while the other core stayed
// halted, and the helper, queued behind it, joined no stretch until the
// host ran the other core again. The shortest-path kernel's caller waited
// so for the advice's implicit probe: on 200 ENZYMES graphs on two
// threads, with a goroutine sampling the heap every 2 ms as the runner's
// does, 7 and 11 of 50 automatic runs took over 1.4 times the median
// (90th percentile 9.1–10.0 ms against a median of 5.2; the execution
// tracer showed the other core idle for 2.8 ms), and none waiting
// spinning (5.3–5.5 against 5.1). Under runexp speedup its automatic
// method went from 1.36× to 2.02× on MUTAG and from 1.38× to 2.17× on
// ENZYMES.
func awaitOn[T any](c *Crew, stop <-chan struct{}, ch <-chan T) (v T, stopped bool) {
	if c == nil {
		select {
		case v = <-ch:
			return v, false
		case <-stop:
			return v, true
		}
	}
	for {
		select {
		case v = <-ch:
			return v, false
		case <-stop:
			return v, true
		default:
		}
		relax()
	}
}

// goWith runs task on a helper of ctx's Crew, or else on a goroutine of
// its own.
func goWith(ctx context.Context, task func()) { goOn(ctx, task, false) }

// goBrief is goWith for a task that waits for nothing, such as a Gram
// matrix's allocation ahead (see gramAhead). A stretch offered while a
// helper runs it counts on that helper, and starts no other: the helper
// joins it late, by the rest of the task, but a second helper would wait
// queued on the caller's core, and then spin beside the two workers. On
// MUTAG's graphlet kernel on two threads, so the helper joined the dot
// products 28–91 µs late in half of the runs (runexp, after Warm).
func goBrief(ctx context.Context, task func()) { goOn(ctx, task, true) }

// goOn is goWith, or goBrief where brief is set.
func goOn(ctx context.Context, task func(), brief bool) {
	if c := crewFrom(ctx); c != nil {
		c.spawn(task, brief)
		return
	}
	go task()
}
