package kernels

import (
	"runtime"
	"testing"
	"time"
)

// TestCoreLatency checks that CoreLatency measures a round trip between
// two threads where it has two, and gives up within its wait where it has
// one.
func TestCoreLatency(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU")
	}
	// The second thread may find no core of its own, as where go test
	// runs another package's tests beside this one, and the system puts
	// both threads on one core: one measure in 10 s must succeed.
	var (
		d  time.Duration
		ok bool
	)
	for start := time.Now(); !ok && time.Since(start) < 10*time.Second; {
		d, ok = CoreLatency()
	}
	// Tens to hundreds of nanoseconds: more than 10, under 100 µs even on
	// a loaded machine.
	if !ok || d < 10*time.Nanosecond || d > 100*time.Microsecond {
		t.Errorf("two threads: %v, %v", d, ok)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	start := time.Now()
	if d, ok := CoreLatency(); ok {
		t.Errorf("one thread at a time: %v, %v", d, ok)
	}
	// The wait, and up to the scheduler's preemption of the caller (10
	// ms) before the echoing thread may run and stop.
	if took := time.Since(start); took > latencyWait+50*time.Millisecond {
		t.Errorf("one thread at a time: gave up after %v", took)
	}
}
