package harness

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		x, y []float64
		want float64
	}{
		// Complete separation of 3 and 3: 2 of the C(6,3) = 20 equally
		// likely rankings are as extreme, p = 0.1.
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		// 5 and 5 separated: 2/C(10,5) = 2/252.
		{[]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		// Interleaved perfectly: U = mn/2 = 4.5... for 3 and 3, U = 4 or
		// 5 is the centre; x = {1,3,5}, y = {2,4,6} gives U = 3, and
		// P(|U−4.5| ≥ 1.5) = 1 − P(U ∈ {4,5}) = 1 − 6/20 = 0.7.
		{[]float64{1, 3, 5}, []float64{2, 4, 6}, 0.7},
		{[]float64{1}, nil, 1},
	}
	for _, tc := range tests {
		if got := MannWhitney(tc.x, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("MannWhitney(%v, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
	// With ties the normal approximation applies; identical samples are
	// no evidence of a difference.
	if p := MannWhitney([]float64{1, 1, 2, 2}, []float64{1, 1, 2, 2}); p < 0.99 {
		t.Errorf("identical samples: p = %v, want 1", p)
	}
}

// rows makes results rows of cells c0..c(cells−1) with reps noisy total
// times: base × factor × lognormal noise of 5 %.
func noisyRows(r *rand.Rand, cells, reps int, factor func(cell int) float64) []Row {
	var rows []Row
	for c := 0; c < cells; c++ {
		base := 0.01 * float64(c+1)
		for rep := 1; rep <= reps; rep++ {
			rows = append(rows, Row{Cell: fmt.Sprintf("c%d", c), Method: "explicit", Rep: rep, Status: StatusOK,
				Total: base * factor(c) * math.Exp(0.05*r.NormFloat64())})
		}
	}
	return rows
}

func TestCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	same := func(int) float64 { return 1 }
	old := noisyRows(r, 40, 5, same)
	// Noise alone: no cell is flagged.
	if regs := Compare(old, noisyRows(r, 40, 5, same), CompareOptions{}).Regressions(); len(regs) != 0 {
		t.Errorf("noise flagged as regressions: %v", regs)
	}
	// A planted 2× regression of cell c7 is flagged, and only it.
	planted := noisyRows(r, 40, 5, func(c int) float64 {
		if c == 7 {
			return 2
		}
		return 1
	})
	regs := Compare(old, planted, CompareOptions{}).Regressions()
	if len(regs) != 1 || regs[0].Cell != "c7" || regs[0].Ratio < 1.7 || regs[0].P > 0.01 {
		t.Errorf("regressions %v, want c7 at about 2× with p = 2/252", regs)
	}
	// A cell that now times out is a regression too; one that recovers
	// is not.
	timedOut := noisyRows(r, 2, 3, same)
	for i := range timedOut[:3] {
		timedOut[i].Status = StatusTimeout
	}
	c := Compare(noisyRows(r, 2, 3, same), timedOut, CompareOptions{})
	if regs := c.Regressions(); len(regs) != 1 || regs[0].Kind != "status" || regs[0].NewStatus != StatusTimeout {
		t.Errorf("status regressions %v", regs)
	}
	if c := Compare(timedOut, noisyRows(r, 2, 3, same), CompareOptions{}); len(c.Regressions()) != 0 || c.Changes[0].Kind != "fixed" {
		t.Errorf("a recovered cell: %v", c.Changes)
	}
}

// TestCompareFewerCores checks that a cell on two threads that got slower
// while its runs had fewer cores (t_cpu/t_wall), or found the round trip
// between cores (t_c2c) at least twice as long, is told apart from a
// regression, and that one on a single thread, with the cores it had, or
// with a round trip that grew less or was not known before, is not; fewer
// cores take precedence.
func TestCompareFewerCores(t *testing.T) {
	// rows are 5 runs of one cell with total time total·(1 + i/100),
	// on threads threads, each with cores·t_wall of CPU time and a round
	// trip of c2c ns.
	rows := func(total, cores float64, threads int, c2c float64) []Row {
		var rs []Row
		for i := range 5 {
			x := total * (1 + float64(i)/100)
			rs = append(rs, Row{Cell: "c", Method: "explicit", Rep: i + 1, Status: StatusOK, Threads: threads,
				Total: x, Wall: x, CPU: cores * x, C2C: c2c * 1e-9})
		}
		return rs
	}
	tests := []struct {
		name     string
		old, new []Row
		want     string
	}{
		// 5 and 5 separated, p = 2/252, 1.5× slower: 1.0 of 2.0 cores.
		{"one core of two", rows(1, 2, 2, 0), rows(1.5, 1, 2, 0), "fewer-cores"},
		{"cores as before", rows(1, 2, 2, 0), rows(1.5, 1.9, 2, 0), "regression"},
		{"one thread", rows(1, 1, 1, 0), rows(1.5, 0.5, 1, 0), "regression"},
		// Rows written before t_cpu know no cores.
		{"cores unknown", rows(1, 0, 2, 0), rows(1.5, 0, 2, 0), "regression"},
		{"400 ns against 80", rows(1, 2, 2, 80), rows(1.5, 2, 2, 400), "far-cores"},
		{"twice as long", rows(1, 2, 2, 100), rows(1.5, 2, 2, 200), "far-cores"},
		{"1.5 times as long", rows(1, 2, 2, 100), rows(1.5, 2, 2, 150), "regression"},
		{"round trip unknown before", rows(1, 2, 2, 0), rows(1.5, 2, 2, 400), "regression"},
		{"far and one core", rows(1, 2, 2, 80), rows(1.5, 1, 2, 400), "fewer-cores"},
		{"faster", rows(1.5, 2, 2, 400), rows(1, 2, 2, 80), "improvement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare(tt.old, tt.new, CompareOptions{})
			if len(c.Changes) != 1 || c.Changes[0].Kind != tt.want {
				t.Fatalf("changes %v, want one %s", c.Changes, tt.want)
			}
			if regs := c.Regressions(); (len(regs) == 1) != (tt.want == "regression") {
				t.Errorf("regressions %v", regs)
			}
			if tt.want == "far-cores" && !strings.Contains(c.Changes[0].String(), "c2c ") {
				t.Errorf("%q does not give the round trips", c.Changes[0])
			}
		})
	}
}
