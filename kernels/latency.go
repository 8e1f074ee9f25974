package kernels

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// CoreLatency returns the round-trip time of a cache line between two
// threads, each spinning on it until the other has written it, and
// whether it could tell: the median of latencyBatches batches of
// latencyTrips trips each, about 80 ns a trip where the two vCPUs of this
// VM share their cores' caches, and 400 where its host places them apart.
// The parallel kernels hand graphs, colours and counters from core to
// core: in stretches of minutes of the slow placement GI's explicit
// matrix on ENZYMES took 3.1–3.5 ms on two threads against 2.1–2.5, while
// the cores each thread had, and a spinning loop's speed on two threads
// against one, stayed as they were. The runner records it before each run
// on more than one thread (see harness.Row).
//
// It needs two threads at once. Where the second thread does not start
// spinning within latencyWait, as with GOMAXPROCS = 1 or both cores
// busy, it gives up and reports false.
func CoreLatency() (time.Duration, bool) {
	var p struct {
		_    [64]byte
		v    atomic.Int64 // odd: the caller's ping, even: the echo
		_    [64]byte
		stop atomic.Bool
	}
	echoed := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(echoed)
		for want := int64(1); ; want += 2 {
			for spins := 0; p.v.Load() != want; spins++ {
				if spins%1024 == 1023 && p.stop.Load() {
					return
				}
			}
			p.v.Store(want + 1)
		}
	}()
	defer func() {
		p.stop.Store(true)
		<-echoed
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	batches := make([]time.Duration, latencyBatches)
	deadline := time.Now().Add(latencyWait)
	var ping int64
	for b := range batches {
		start := time.Now()
		for range latencyTrips {
			ping++
			p.v.Store(2*ping - 1)
			for spins := 0; p.v.Load() != 2*ping; spins++ {
				if spins%1024 == 1023 && time.Now().After(deadline) {
					return 0, false
				}
			}
		}
		batches[b] = time.Since(start) / latencyTrips
	}
	slices.Sort(batches)
	return batches[len(batches)/2], true
}

const (
	// latencyTrips and latencyBatches size CoreLatency's measure: 250
	// trips take 20–100 µs.
	latencyTrips   = 50
	latencyBatches = 5
	// latencyWait bounds CoreLatency's wait for the second thread.
	latencyWait = 5 * time.Millisecond
)
