package kernels

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrewReuse checks that a second stretch within linger runs on the
// helper the first started, and that a helper left idle for longer exits.
func TestCrewReuse(t *testing.T) {
	before := runtime.NumGoroutine()
	c := NewCrew(200 * time.Millisecond)
	ctx := WithCrew(context.Background(), c)
	var rows atomic.Int32
	count := func(int, int) error { rows.Add(1); return nil }
	for range 3 {
		if err := forRows(ctx, 50, 2, count); err != nil {
			t.Fatal(err)
		}
	}
	if r := rows.Load(); r != 150 {
		t.Errorf("%d rows visited, want 150", r)
	}
	started, _ := helpers(c)
	// The first stretch starts the one helper of two threads; it then
	// spins for 200 ms, longer than the test takes to the next.
	if started != 1 {
		t.Errorf("%d helpers started for three stretches, want 1", started)
	}

	short := NewCrew(time.Millisecond)
	if err := forRows(WithCrew(context.Background(), short), 50, 3, count); err != nil {
		t.Fatal(err)
	}
	// The long crew's helper is still spinning; the short crew's two
	// exit after a millisecond. Helpers left by earlier tests may exit
	// meanwhile, so the count of goroutines alone does not tell that
	// the short crew's have.
	settled := func() bool {
		short.mu.Lock()
		defer short.mu.Unlock()
		return short.spinning == 0 && runtime.NumGoroutine() <= before+1
	}
	deadline := time.Now().Add(5 * time.Second)
	for !settled() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+1 {
		t.Errorf("%d goroutines after the short crew's linger, want at most %d", g, before+1)
	}
	short.mu.Lock()
	if short.spinning != 0 || short.open != 0 || len(short.queue) != 0 {
		t.Errorf("short crew left spinning %d, open %d, queue %d", short.spinning, short.open, len(short.queue))
	}
	short.mu.Unlock()
}

// helpers returns the helpers c started and those spinning, read under its
// lock.
func helpers(c *Crew) (started, spinning int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started, c.spinning
}

// TestHold checks that a held crew's helper outlasts its linger, so that
// the next stretch finds it and starts none, and that it retires once the
// hold is released (twice, which counts once), and that Hold without a
// crew does nothing.
func TestHold(t *testing.T) {
	c := NewCrew(time.Millisecond)
	ctx := WithCrew(context.Background(), c)
	count := func(int, int) error { return nil }
	release := Hold(ctx)
	if err := forRows(ctx, 50, 2, count); err != nil {
		t.Fatal(err)
	}
	// Twenty lingers idle: an unheld helper would have retired.
	time.Sleep(20 * time.Millisecond)
	if _, spinning := helpers(c); spinning != 1 {
		t.Errorf("held: %d helpers spinning after 20 lingers, want 1", spinning)
	}
	if err := forRows(ctx, 50, 2, count); err != nil {
		t.Fatal(err)
	}
	if started, _ := helpers(c); started != 1 {
		t.Errorf("held: %d helpers started for two stretches, want 1", started)
	}
	release()
	release()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.mu.Lock()
		spinning, holds := c.spinning, c.holds
		c.mu.Unlock()
		if holds != 0 {
			t.Fatalf("%d holds after release, want 0", holds)
		}
		if spinning == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("released: %d helpers still spinning after 5 s", spinning)
		}
		time.Sleep(time.Millisecond)
	}
	Hold(context.Background())() // no crew: nothing to hold
}

// TestCrewTaskWhileWaiting runs a stretch whose rows wait for a task that
// a row spawns, by goWith or goBrief: the task must get a helper of its
// own, although the crew's only helper is busy waiting in the stretch. A
// crew that handed the task to a busy helper would hang here.
func TestCrewTaskWhileWaiting(t *testing.T) {
	for _, tt := range []struct {
		name  string
		spawn func(context.Context, func())
	}{
		{"goWith", goWith},
		// A brief task too: the stretch queued ahead of it may hold
		// the helper that would take it (see Crew.offer).
		{"goBrief", goBrief},
	} {
		c := NewCrew(DefaultLinger)
		ctx := WithCrew(context.Background(), c)
		for range 20 {
			done := make(chan error, 1)
			go func() {
				ready := make(chan struct{})
				var once sync.Once
				done <- forRows(ctx, 8, 2, func(_, i int) error {
					once.Do(func() { tt.spawn(ctx, func() { close(ready) }) })
					<-ready
					return nil
				})
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: stretch still waiting for its task after 10 s", tt.name)
			}
		}
	}
}

// TestCrewShared runs stretches of different thread counts on one crew
// from several goroutines at once: each row is visited once, by a worker
// index below its stretch's thread count.
func TestCrewShared(t *testing.T) {
	ctx := WithCrew(context.Background(), NewCrew(DefaultLinger))
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			threads := g%3 + 2
			for round := range 30 {
				n := 20 + round
				visits := make([]atomic.Int32, n)
				err := forRows(ctx, n, threads, func(w, i int) error {
					if w < 0 || w >= threads {
						errs <- "worker index out of range"
					}
					visits[i].Add(1)
					return nil
				})
				if err != nil {
					errs <- err.Error()
				}
				for i := range visits {
					if visits[i].Load() != 1 {
						errs <- "a row not visited exactly once"
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// threadsContext returns the context of the determinism tests' runs on
// threads: two threads run with a Crew, the way runexp runs them, and
// other counts spawn their workers, so that both ways are checked against
// one thread.
func threadsContext(threads int) context.Context {
	if threads == 2 {
		return WithCrew(context.Background(), NewCrew(DefaultLinger))
	}
	return context.Background()
}

// TestCrewKeepsNothing checks that a finished stretch is not kept alive
// by the crew: a helper's slot taken from the queue must not leave the
// stretch, and the data its rows read, reachable.
func TestCrewKeepsNothing(t *testing.T) {
	// Long enough for the test, short enough not to hold a core
	// through the tests after it.
	c := NewCrew(200 * time.Millisecond)
	ctx := WithCrew(context.Background(), c)
	wait := func(int, int) error { time.Sleep(time.Millisecond); return nil }
	if err := forRows(ctx, 4, 2, wait); err != nil { // starts the helper
		t.Fatal(err)
	}
	freed := make(chan struct{})
	func() {
		big := make([]byte, 1<<20)
		runtime.AddCleanup(&big[0], func(struct{}) { close(freed) }, struct{}{})
		err := forRows(ctx, 4, 2, func(w, i int) error {
			big[i]++
			return wait(w, i)
		})
		if err != nil {
			t.Fatal(err)
		}
	}()
	if started, _ := helpers(c); started != 1 {
		t.Fatalf("%d helpers started, want 1: the second stretch did not go to the spinning helper", started)
	}
	for range 10 {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Error("the rows' data is still reachable after the stretch")
}

// TestWarm checks that Warm leaves threads−1 helpers of the crew spinning,
// which the next stretch runs on without starting another, also where
// there are more threads than cores; that it does nothing without a crew
// or on one thread; and that it gives up on a cancelled context.
func TestWarm(t *testing.T) {
	for _, threads := range []int{2, 3, 2 * runtime.GOMAXPROCS(0)} {
		c := NewCrew(time.Second)
		ctx := WithCrew(context.Background(), c)
		if err := Warm(ctx, threads); err != nil {
			t.Fatal(err)
		}
		if started, spinning := helpers(c); started != threads-1 || spinning != threads-1 {
			t.Errorf("%d threads: %d helpers started, %d spinning, want %d", threads, started, spinning, threads-1)
		}
		if err := forRows(ctx, 50, threads, func(int, int) error { return nil }); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		if c.started != threads-1 {
			t.Errorf("%d threads: the stretch after Warm started %d more helpers", threads, c.started-(threads-1))
		}
		c.mu.Unlock()
	}
	if err := Warm(context.Background(), 2); err != nil {
		t.Errorf("no crew: %v", err)
	}
	c := NewCrew(time.Millisecond)
	if err := Warm(WithCrew(context.Background(), c), 1); err != nil || c.started != 0 {
		t.Errorf("one thread: err %v, %d helpers started", err, c.started)
	}
	// On a cancelled context the first worker returns at once, before the
	// others arrive.
	ctx, cancel := context.WithCancel(WithCrew(context.Background(), NewCrew(time.Millisecond)))
	cancel()
	if err := Warm(ctx, 2); err == nil {
		t.Error("cancelled context: no error")
	}
}

// TestCrewBriefTask checks that a stretch offered while the crew's only
// helper runs a task of goBrief counts on that helper and starts no
// other, where a task of goWith, which may wait for anything, gets one.
// Either way the stretch completes while the task runs: its caller takes
// the rows the helper does not.
func TestCrewBriefTask(t *testing.T) {
	tests := []struct {
		name        string
		spawn       func(context.Context, func())
		wantStarted int // helpers started in all: the one of Warm, and one for the stretch or not
	}{
		{"goBrief", goBrief, 1},
		{"goWith", goWith, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCrew(time.Second)
			ctx := WithCrew(context.Background(), c)
			if err := Warm(ctx, 2); err != nil {
				t.Fatal(err)
			}
			var release, running atomic.Bool
			done := make(chan struct{})
			tt.spawn(ctx, func() {
				running.Store(true)
				for !release.Load() {
					runtime.Gosched()
				}
				close(done)
			})
			for !running.Load() {
				runtime.Gosched()
			}
			var rows atomic.Int32
			if err := forRows(ctx, 50, 2, func(int, int) error { rows.Add(1); return nil }); err != nil {
				t.Fatal(err)
			}
			release.Store(true)
			<-done
			if r := rows.Load(); r != 50 {
				t.Errorf("%d rows visited, want 50", r)
			}
			if started, _ := helpers(c); started != tt.wantStarted {
				t.Errorf("%d helpers started, want %d", started, tt.wantStarted)
			}
			// The task's helper counts as spinning again once it is back.
			deadline := time.Now().Add(5 * time.Second)
			for {
				c.mu.Lock()
				brief, spinning, open := c.brief, c.spinning, c.open
				c.mu.Unlock()
				if brief == 0 && spinning == tt.wantStarted && open == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the task: brief %d, spinning %d, open %d; want 0, %d, 0", brief, spinning, tt.wantStarted, open)
				}
				runtime.Gosched()
			}
		})
	}
}

// TestCrewBriefQueued checks a brief task that no helper has taken yet:
// a stretch offered behind it counts on the helper started for it, which
// runs the task and then comes back, and starts no other (on one P, so
// that the helper cannot take the task before the stretch is offered).
// A brief task offered behind a stretch's slot gets a helper of its own
// (TestCrewTaskWhileWaiting).
func TestCrewBriefQueued(t *testing.T) {
	t.Run("stretch behind", func(t *testing.T) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		c := NewCrew(time.Second)
		ctx := WithCrew(context.Background(), c)
		done := make(chan struct{})
		goBrief(ctx, func() { close(done) })
		var rows atomic.Int32
		if err := forRows(ctx, 50, 2, func(int, int) error { rows.Add(1); return nil }); err != nil {
			t.Fatal(err)
		}
		<-done
		if r := rows.Load(); r != 50 {
			t.Errorf("%d rows visited, want 50", r)
		}
		if started, _ := helpers(c); started != 1 {
			t.Errorf("%d helpers started, want 1", started)
		}
	})
}

// TestWarmupTogether runs warmup.together on workers of which all but the
// first come once the first has missed the first barrier: each must
// return, which they do only if they agree on the barrier they meet at.
func TestWarmupTogether(t *testing.T) {
	for _, threads := range []int{2, 3} {
		if threads > runtime.GOMAXPROCS(0) {
			continue
		}
		w := &warmup{ctx: context.Background(), threads: int32(threads)}
		errs := make(chan error, threads)
		for g := range threads {
			go func() {
				for g > 0 && !w.rounds[0].missed.Load() {
					runtime.Gosched()
				}
				errs <- w.together()
			}()
		}
		for range threads {
			select {
			case err := <-errs:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%d threads: a worker still waits after 10 s", threads)
			}
		}
	}
}

// TestAwait checks that await returns what a helper's task sends, and the
// zero value once the channel is closed, and that awaitCtx returns the
// context's error once it is done: spinning with a Crew, with GOMAXPROCS
// at 1 too, where the task runs only when the wait yields, and blocked
// without one.
func TestAwait(t *testing.T) {
	for _, c := range []struct {
		name  string
		procs int
		crew  bool
	}{
		{"crew, one P", 1, true},
		{"crew, two Ps", 2, true},
		{"no crew, one P", 1, false},
		{"no crew, two Ps", 2, false},
	} {
		prev := runtime.GOMAXPROCS(c.procs)
		ctx := context.Background()
		if c.crew {
			ctx = WithCrew(ctx, NewCrew(DefaultLinger))
		}
		sent := make(chan int, 1)
		goWith(ctx, func() { time.Sleep(time.Millisecond); sent <- 7 })
		if v := await(ctx, sent); v != 7 {
			t.Errorf("%s: await of a send = %d, want 7", c.name, v)
		}
		closed := make(chan int)
		goBrief(ctx, func() { close(closed) })
		if v := await(ctx, closed); v != 0 {
			t.Errorf("%s: await of a close = %d, want 0", c.name, v)
		}
		cctx, cancel := context.WithCancel(ctx)
		never := make(chan int)
		goWith(ctx, func() { time.Sleep(time.Millisecond); cancel() })
		if _, err := awaitCtx(cctx, never); err != context.Canceled {
			t.Errorf("%s: awaitCtx after cancel = %v, want %v", c.name, err, context.Canceled)
		}
		runtime.GOMAXPROCS(prev)
	}
}
