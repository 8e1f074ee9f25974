//go:build unix

package kernels

import (
	"runtime"
	"syscall"
	"testing"
)

// TestRuntimeMarkDisturbed checks what the sampling advisor counts as a
// disturbance of its probes (see runtimeMark.disturbed): a collection of
// the heap, or page faults by the dozen, and not a pause without either.
func TestRuntimeMarkDisturbed(t *testing.T) {
	if _, ok := minorFaults(); !ok {
		t.Skip("no fault count here")
	}
	tests := []struct {
		name                       string
		do                         func(t *testing.T)
		wantDisturbed, wantFaulted bool
	}{
		{"nothing", func(*testing.T) {}, false, false},
		{"a collection", func(*testing.T) { runtime.GC() }, true, false},
		// 4·disturbFaults pages mapped anew: each faults at its first
		// write.
		{"fresh pages", func(t *testing.T) {
			size := 4 * disturbFaults * syscall.Getpagesize()
			b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
			if err != nil {
				t.Skipf("mmap: %v", err)
			}
			defer syscall.Munmap(b)
			for i := 0; i < len(b); i += syscall.Getpagesize() {
				b[i] = 1
			}
		}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A collection under way would end within the mark.
			runtime.GC()
			m := markRuntime()
			tt.do(t)
			disturbed, faulted := m.disturbed()
			if disturbed != tt.wantDisturbed || faulted != tt.wantFaulted {
				t.Errorf("disturbed, faulted = %v, %v; want %v, %v", disturbed, faulted, tt.wantDisturbed, tt.wantFaulted)
			}
		})
	}
}
