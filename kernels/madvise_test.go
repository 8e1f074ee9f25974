package kernels

import (
	"slices"
	"testing"
)

// TestMadvFreeEnv checks the environment a program runs itself again with:
// madvdontneed=0 added to GODEBUG, other settings kept, and none added
// where GODEBUG sets madvdontneed, so that a user's choice stands and the
// process runs itself again only once.
func TestMadvFreeEnv(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string // nil: not run again
	}{
		{"no GODEBUG", []string{"HOME=/root", "PATH=/bin"}, []string{"HOME=/root", "PATH=/bin", "GODEBUG=madvdontneed=0"}},
		{"empty GODEBUG", []string{"GODEBUG=", "PATH=/bin"}, []string{"PATH=/bin", "GODEBUG=madvdontneed=0"}},
		{"other settings", []string{"GODEBUG=gctrace=1,schedtrace=10", "PATH=/bin"}, []string{"PATH=/bin", "GODEBUG=gctrace=1,schedtrace=10,madvdontneed=0"}},
		{"set by the user", []string{"GODEBUG=madvdontneed=1"}, nil},
		{"set among others", []string{"PATH=/bin", "GODEBUG=gctrace=1,madvdontneed=0"}, nil},
		{"a longer name", []string{"GODEBUG=xmadvdontneed=1"}, []string{"GODEBUG=xmadvdontneed=1,madvdontneed=0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := madvFreeEnv(tt.env)
			if ok != (tt.want != nil) {
				t.Fatalf("run again = %v, want %v", ok, tt.want != nil)
			}
			if !ok {
				if !slices.Equal(got, tt.env) {
					t.Errorf("env = %q, want it unchanged", got)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("env = %q, want %q", got, tt.want)
			}
		})
	}
}
