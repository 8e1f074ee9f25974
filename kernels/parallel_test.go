package kernels

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForRows(t *testing.T) {
	// Without a Crew and with one, kept across all the cases, so that
	// its helpers carry over from one to the next.
	crewed := WithCrew(context.Background(), NewCrew(DefaultLinger))
	for _, base := range []context.Context{context.Background(), crewed} {
		testForRows(t, base)
	}
}

func testForRows(t *testing.T, base context.Context) {
	boom := errors.New("boom")
	for _, n := range []int{0, 1, 5, 100} {
		for _, threads := range []int{1, 2, 3, 8} {
			// Every row is visited once, by a worker below
			// min(threads, n).
			visits := make([]atomic.Int32, n)
			var badWorker atomic.Bool
			err := forRows(base, n, threads, func(w, i int) error {
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
			err = forRows(base, n, threads, func(_, i int) error {
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
			ctx, cancel := context.WithCancel(base)
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
// from the graphlet kernel's 0.5 ms to GI's 3.7 ms on one thread. It is
// the ceiling of a kernel's speed-up on the machine, with a Crew (as
// runexp runs) and without one (spawn/), where each stretch starts its
// workers anew. On the 2-core VM of issue 9, waking an idle core costs
// 60–130 µs. Over five interleaved rounds there (an Intel Xeon under
// Firecracker), two threads gained, in jobs of 0.4, 0.75, 1.5 and 3.7 ms:
// with a Crew 1.82, 1.91, 1.92 and 1.98× (1.77–2.16 in all); spawning
// 1.27, 1.44, 1.76 and 1.88× (1.19–1.96). The job lengths are nominal:
// the chain's steps took about 1.25 ns there, not 1.1.
func BenchmarkForRowsFloor(b *testing.B) {
	const rows = 188
	for _, c := range []struct {
		regions int
		ms      float64 // the job's time on one thread, about
	}{{2, 0.4}, {2, 0.75}, {2, 1.5}, {3, 3.7}} {
		// One step of the chain below takes about 1.1 ns here.
		steps := int(c.ms * 1e6 / 1.1 / rows / float64(c.regions))
		for _, m := range []struct {
			name    string
			threads int
			crew    bool
		}{{"", 1, false}, {"", 2, true}, {"spawn/", 2, false}} {
			threads := m.threads
			b.Run(fmt.Sprintf("regions=%d/ms=%g/%sthreads=%d", c.regions, c.ms, m.name, threads), func(b *testing.B) {
				ctx := context.Background()
				if m.crew {
					ctx = WithCrew(ctx, NewCrew(DefaultLinger))
				}
				sums := make([]struct {
					x uint64
					_ [56]byte // a cache line a worker
				}, threads)
				for b.Loop() {
					for range c.regions {
						err := forRows(ctx, rows, threads, func(w, i int) error {
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
