package harness

import (
	"math"
	"strings"
	"testing"
)

// TestSpeedUps checks the matching of cells across thread counts, the
// medians of the wall times and what a side without ok runs gives.
func TestSpeedUps(t *testing.T) {
	row := func(data, kernel, params, method string, threads int, status string, wall, prep, c2c, cpu float64) Row {
		return Row{Data: data, Kernel: kernel, Params: params, Method: method, Threads: threads, Status: status,
			Wall: wall, Total: wall - prep, Prep: prep, C2C: c2c, CPU: cpu}
	}
	one := []Row{
		// GI on one thread refines in t_prep, which the wall counts.
		row("M", "gi", "vertex=dirac", "explicit", 1, StatusOK, 1.0, 0.25, 0, 1.0),
		row("M", "gi", "vertex=dirac", "explicit", 1, StatusOK, 1.2, 0.25, 0, 1.2),
		row("M", "gi", "vertex=dirac", "explicit", 1, StatusOK, 1.1, 0.25, 0, 1.1),
		row("M", "csm", "", "explicit", 1, StatusOK, 2, 0, 0, 2),
		row("M", "csm", "", "implicit", 1, StatusTimeout, 9, 0, 0, 9),
		row("M", "sp", "", "explicit", 1, StatusOK, 1, 0, 0, 1),
	}
	two := []Row{
		row("M", "gi", "threads=2,vertex=dirac", "explicit", 2, StatusOK, 0.6, 0.01, 100e-9, 1.2),
		row("M", "gi", "threads=2,vertex=dirac", "explicit", 2, StatusOK, 0.5, 0.01, 300e-9, 0.9),
		row("M", "csm", "threads=2", "explicit", 2, StatusOK, 1, 0, 100e-9, 2),
		row("M", "csm", "threads=2", "implicit", 2, StatusOK, 4, 0, 100e-9, 8),
		row("M", "walk", "length=3,threads=2", "explicit", 2, StatusOK, 1, 0, 0, 0),
	}
	ups, onlyA, onlyB := SpeedUps(one, two)
	if onlyA != 1 || onlyB != 1 {
		t.Errorf("only in one: %d, only in two: %d; want 1 and 1 (sp, walk)", onlyA, onlyB)
	}
	// Expected by hand: GI's walls 1.0, 1.1, 1.2 (median 1.1) against
	// 0.5, 0.6 (0.55), 2×; its c2c the median of 100 and 300 ns, its
	// cores of 1.2/0.6 and 0.9/0.5; csm explicit 2/1; csm implicit timed
	// out on one thread.
	want := []SpeedUp{
		{Cell: "M gi(vertex=dirac)", Method: "explicit", ThreadsA: 1, ThreadsB: 2, A: 1.1, B: 0.55, NA: 3, NB: 2, Ratio: 2, C2C: 200e-9, Cores: 1.9},
		{Cell: "M csm()", Method: "explicit", ThreadsA: 1, ThreadsB: 2, A: 2, B: 1, NA: 1, NB: 1, Ratio: 2, C2C: 100e-9, Cores: 2},
		{Cell: "M csm()", Method: "implicit", ThreadsA: 1, ThreadsB: 2, NB: 1, C2C: 100e-9, Cores: 2, StatusA: StatusTimeout},
	}
	if len(ups) != len(want) {
		t.Fatalf("got %d speed-ups, want %d: %v", len(ups), len(want), ups)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	for i, w := range want {
		g := ups[i]
		if g.Cell != w.Cell || g.Method != w.Method || g.ThreadsA != w.ThreadsA || g.ThreadsB != w.ThreadsB ||
			g.NA != w.NA || g.NB != w.NB || g.StatusA != w.StatusA || g.StatusB != w.StatusB ||
			!near(g.A, w.A) || !near(g.B, w.B) || !near(g.Ratio, w.Ratio) || !near(g.C2C, w.C2C) || !near(g.Cores, w.Cores) {
			t.Errorf("speed-up %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if s := ups[0].String(); !strings.Contains(s, "on 1 thread ->") || !strings.Contains(s, "2.00×") || !strings.Contains(s, "c2c 200ns") {
		t.Errorf("String() = %q", s)
	}
	if s := ups[2].String(); !strings.Contains(s, "timeout on 1 thread, ok on 2 threads") {
		t.Errorf("String() = %q", s)
	}
}

func TestWithoutThreads(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"threads=2", ""},
		{"threads=2,vertex=dirac", "vertex=dirac"},
		{"length=3,threads=4,wl=1", "length=3,wl=1"},
		{"length=3", "length=3"},
	} {
		if got := withoutThreads(tc.in); got != tc.want {
			t.Errorf("withoutThreads(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
