package kernels

import (
	"context"
	"testing"
	"time"

	"github.com/gkbench/gkbench/synth"
)

// TestAdviseRanking checks the cost model where the paper's phase
// transition makes the answer clear: on the walk generator's graphs with
// l = 7, explicit maps win by far with uniform labels (p_V = 0) and
// implicit computation with diverse labels after WL refinement. The
// advice must rank the methods as the measured times do, and its probes
// must cost little against the run they predict.
func TestAdviseRanking(t *testing.T) {
	tests := []struct {
		pv   float64
		d, l int
		wl   int
		want Method
	}{
		{0, 200, 7, 0, Explicit},
		{0.5, 80, 6, 2, Implicit},
	}
	for _, tc := range tests {
		ds, err := synth.Walk(synth.WalkConfig{PV: tc.pv}, tc.d, 3)
		if err != nil {
			t.Fatal(err)
		}
		k := &Walk{Length: tc.l, WL: tc.wl}
		a, err := k.Advise(context.Background(), ds.Graphs, AdviseOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var took [2]time.Duration
		for i, m := range []Method{Explicit, Implicit} {
			start := time.Now()
			if _, _, err := k.Gram(context.Background(), ds.Graphs, m); err != nil {
				t.Fatal(err)
			}
			took[i] = time.Since(start)
		}
		measured := Explicit
		if took[1] < took[0] {
			measured = Implicit
		}
		if a.Choice != tc.want || measured != tc.want {
			t.Errorf("p_V=%v wl=%d: advice %s, measured %s (explicit %v, implicit %v), want %s\n%v",
				tc.pv, tc.wl, a.Choice, measured, took[0], took[1], tc.want, a)
		}
		// The issue asks for the ranking, not absolute times: a run of a
		// few milliseconds is predicted from a handful of probes.
		got := took[0]
		if a.Choice == Implicit {
			got = took[1]
		}
		// The probes cost a twentieth of the chosen run, give or take
		// the fixed cost of a few probes on tiny runs.
		if a.Probe > got/10+10*time.Millisecond {
			t.Errorf("p_V=%v: probes took %v for a run of %v", tc.pv, a.Probe, got)
		}
		t.Logf("p_V=%v wl=%d: %v; measured explicit %v implicit %v", tc.pv, tc.wl, a, took[0], took[1])
	}
}
