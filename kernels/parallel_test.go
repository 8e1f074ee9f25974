package kernels

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForRows(t *testing.T) {
	boom := errors.New("boom")
	for _, n := range []int{0, 1, 5, 100} {
		for _, threads := range []int{1, 2, 3, 8} {
			// Every row is visited once, by a worker below
			// min(threads, n).
			visits := make([]atomic.Int32, n)
			var badWorker atomic.Bool
			err := forRows(context.Background(), n, threads, func(w, i int) error {
				if w < 0 || w >= max(1, min(threads, n)) {
					badWorker.Store(true)
				}
				visits[i].Add(1)
				return nil
			})
			if err != nil {
				t.Fatalf("n=%d threads=%d: %v", n, threads, err)
			}
			for i := range visits {
				if v := visits[i].Load(); v != 1 {
					t.Errorf("n=%d threads=%d: row %d visited %d times", n, threads, i, v)
				}
			}
			if badWorker.Load() {
				t.Errorf("n=%d threads=%d: worker index out of range", n, threads)
			}
			if n == 0 {
				continue
			}
			// A failing row's error is returned; on one thread no
			// row after it is visited. (On more, the other workers
			// stop at their next row, after as many rows as they
			// took meanwhile.)
			var after atomic.Int32
			err = forRows(context.Background(), n, threads, func(_, i int) error {
				if i == 0 {
					return boom
				}
				after.Add(1)
				return nil
			})
			if !errors.Is(err, boom) {
				t.Errorf("n=%d threads=%d: error %v, want boom", n, threads, err)
			}
			if a := after.Load(); threads == 1 && a != 0 {
				t.Errorf("n=%d threads=1: %d rows visited after the failing first", n, a)
			}
			// A cancelled context ends the rows with its error.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := forRows(ctx, n, threads, func(int, int) error { return nil }); !errors.Is(err, context.Canceled) {
				t.Errorf("n=%d threads=%d: cancelled context gave %v", n, threads, err)
			}
		}
	}
}

// BenchmarkForRowsFloor measures the speed-up that forRows allows a Gram
// matrix of MUTAG's 188 rows whose work is pure arithmetic, perfectly
// divisible, and allocates nothing: regions parallel stretches, as the
// explicit maps and the dot products are two, each of 188 rows of equal
// work, back to back. The jobs span the explicit Gram matrices of MUTAG,
// from the graphlet kernel's 0.75 ms to GI's 3.7 ms on one thread. It is
// the ceiling of a kernel's speed-up on the machine: on the 2-core VM of
// issue 9, starting and waking the second worker costs tens of
// microseconds a region, and more now and then. Over five rounds there, a
// job of 0.4 ms in two regions gained 1.05–1.11× on two threads, one of
// 0.75 ms 1.24–1.48×, one of 1.5 ms 1.70–1.85×, and one of 3.7 ms in
// three regions 1.72–1.91×.
func BenchmarkForRowsFloor(b *testing.B) {
	const rows = 188
	for _, c := range []struct {
		regions int
		ms      float64 // the job's time on one thread, about
	}{{2, 0.4}, {2, 0.75}, {2, 1.5}, {3, 3.7}} {
		// One step of the chain below takes about 1.1 ns here.
		steps := int(c.ms * 1e6 / 1.1 / rows / float64(c.regions))
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("regions=%d/ms=%g/threads=%d", c.regions, c.ms, threads), func(b *testing.B) {
				sums := make([]struct {
					x uint64
					_ [56]byte // a cache line a worker
				}, threads)
				for b.Loop() {
					for range c.regions {
						err := forRows(context.Background(), rows, threads, func(w, i int) error {
							// A chain of dependent multiply-adds:
							// the compiler can neither vectorise
							// nor drop it.
							x := uint64(i) + 1
							for range steps {
								x = x*6364136223846793005 + 1442695040888963407
							}
							sums[w].x += x
							return nil
						})
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				var total uint64
				for _, s := range sums {
					total += s.x
				}
				if total == 0 {
					b.Fatal("no work done")
				}
			})
		}
	}
}
