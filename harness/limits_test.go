package harness

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestWatchHeap checks the heap watch of a run: a heap already over the
// limit cancels the run before watchHeap returns, that is before its clock
// starts; a heap that grows over the limit while the run is in flight
// cancels it at a later sample; and the peak holds what the run
// allocated, with no limit too (the heap before it, some of it garbage,
// need not count). The run allocates 64 MiB and keeps it through five
// sampling periods, or until the watch cancels it.
func TestWatchHeap(t *testing.T) {
	const grow = 64 << 20
	hs := heapSampling{every: time.Millisecond}
	tests := []struct {
		name string
		// limit is the watch's limit given the heap before the run.
		limit      func(base int64) int64
		oomAtStart bool // cancelled before watchHeap returns
		oom        bool // cancelled by the end of the run
	}{
		{"over at start", func(base int64) int64 { return base / 2 }, true, true},
		{"grows over", func(base int64) int64 { return base + grow/2 }, false, true},
		{"within", func(base int64) int64 { return base + 4*grow }, false, false},
		{"no limit", func(int64) int64 { return 0 }, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GC()
			base := int64(hs.bytes())
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			w := watchHeap(cancel, tt.limit(base), hs)
			if got := errors.Is(context.Cause(ctx), errOOM); got != tt.oomAtStart {
				t.Errorf("cancelled for memory before the run: %v, want %v", got, tt.oomAtStart)
			}
			held := make([]byte, grow)
			for i := 0; i < len(held); i += 4096 {
				held[i] = 1
			}
			// Five sampling periods, or, where the watch is to cancel,
			// until it has, for up to a second on a busy machine.
			time.Sleep(5 * hs.every)
			for i := 0; tt.oom && ctx.Err() == nil && i < 1000; i++ {
				time.Sleep(hs.every)
			}
			peak := w.stop()
			runtime.KeepAlive(held)
			if got := errors.Is(context.Cause(ctx), errOOM); got != tt.oom {
				t.Errorf("cancelled for memory by the end: %v, want %v", got, tt.oom)
			}
			if got := !w.cancelled.IsZero(); got != tt.oom {
				t.Errorf("cancelled noted: %v, want %v", got, tt.oom)
			}
			if peak < grow {
				t.Errorf("peak %d bytes, want at least the run's %d", peak, grow)
			}
		})
	}
}
