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

// TestSpeedUpRounds checks that the ratios are taken within each round,
// and their median across rounds.
func TestSpeedUpRounds(t *testing.T) {
	row := func(kernel, method string, threads int, status string, wall float64) Row {
		params := ""
		if threads > 1 {
			params = "threads=2"
		}
		return Row{Data: "M", Kernel: kernel, Params: params, Method: method, Threads: threads, Status: status, Wall: wall}
	}
	// gi takes 1, 2 and 3 s on one thread in the three rounds, as the
	// machine slows, and 0.5, 1.25 and 1.4 on two: ratios 2, 1.6 and
	// 2.14; sp fails on two threads in round 2; walk is in round 2's
	// two-thread runs alone.
	rounds := [][2][]Row{
		{{row("gi", "explicit", 1, StatusOK, 1), row("sp", "explicit", 1, StatusOK, 1)},
			{row("gi", "explicit", 2, StatusOK, 0.5), row("sp", "explicit", 2, StatusOK, 0.5)}},
		{{row("gi", "explicit", 1, StatusOK, 2), row("sp", "explicit", 1, StatusOK, 1.5)},
			{row("gi", "explicit", 2, StatusOK, 1.25), row("sp", "explicit", 2, StatusOOM, 0), row("walk", "explicit", 2, StatusOK, 1)}},
		{{row("gi", "explicit", 1, StatusOK, 3), row("sp", "explicit", 1, StatusOK, 1)},
			{row("gi", "explicit", 2, StatusOK, 1.4), row("sp", "explicit", 2, StatusOK, 0.5)}},
	}
	ups, onlyA, onlyB := SpeedUpRounds(rounds)
	if onlyA != 0 || onlyB != 1 {
		t.Errorf("only in A %d, in B %d; want 0 and 1 (walk, in round 2's B only)", onlyA, onlyB)
	}
	if len(ups) != 2 {
		t.Fatalf("got %d speed-ups, want 2: %v", len(ups), ups)
	}
	gi, sp := ups[0], ups[1]
	// By hand: the median of the rounds' ratios 2, 1.6 and 2.14 is 2;
	// the walls pooled over the rounds (medians 2 and 1.25) would give
	// 1.6. A and B are the medians of the rounds' walls.
	if gi.Ratio != 2 || len(gi.Ratios) != 3 || gi.Ratios[1] != 1.6 || gi.A != 2 || gi.B != 1.25 || gi.NA != 3 || gi.NB != 3 {
		t.Errorf("gi: %+v", gi)
	}
	if sp.Ratio != 0 || sp.StatusB != StatusOOM {
		t.Errorf("sp: %+v, want no ratio and oom on two threads", sp)
	}
	if s := gi.String(); !strings.Contains(s, "2.00× (1.60–2.14 over 3 rounds; n=3+3") {
		t.Errorf("String() = %q", s)
	}
}
