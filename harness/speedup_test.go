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
		// gh's runs on one thread know their placement too.
		row("M", "gh", "", "explicit", 1, StatusOK, 1.0, 0, 100e-9, 1.0),
		row("M", "gh", "", "explicit", 1, StatusOK, 1.4, 0, 400e-9, 1.4),
	}
	two := []Row{
		row("M", "gi", "threads=2,vertex=dirac", "explicit", 2, StatusOK, 0.6, 0.01, 100e-9, 1.2),
		row("M", "gi", "threads=2,vertex=dirac", "explicit", 2, StatusOK, 0.5, 0.01, 300e-9, 0.9),
		row("M", "csm", "threads=2", "explicit", 2, StatusOK, 1, 0, 100e-9, 2),
		row("M", "csm", "threads=2", "implicit", 2, StatusOK, 4, 0, 100e-9, 8),
		row("M", "walk", "length=3,threads=2", "explicit", 2, StatusOK, 1, 0, 0, 0),
		row("M", "gh", "threads=2", "explicit", 2, StatusOK, 0.5, 0, 100e-9, 1.0),
		row("M", "gh", "threads=2", "explicit", 2, StatusOK, 1.0, 0, 400e-9, 2.0),
	}
	ups, onlyA, onlyB := SpeedUps(one, two, 250e-9)
	if onlyA != 1 || onlyB != 1 {
		t.Errorf("only in one: %d, only in two: %d; want 1 and 1 (sp, walk)", onlyA, onlyB)
	}
	// Expected by hand: GI's walls 1.0, 1.1, 1.2 (median 1.1) against
	// 0.5, 0.6 (0.55), 2×; its c2c the median of 100 and 300 ns, its
	// cores of 1.2/0.6 and 0.9/0.5; by placement, with far apart from
	// 250 ns, the run of 0.6 s near (1.1/0.6) and that of 0.5 far
	// (1.1/0.5); csm explicit 2/1, near; csm implicit timed out on one
	// thread, so no placement has a ratio; gh 1.2/0.75 in all, its near
	// runs 1.0/0.5 and its far ones 1.4/1.0, each against the run on
	// one thread placed alike. The fastest runs: GI 1.0 against 0.5, csm
	// 2 against 1, gh 1.0 against 0.5, 2× each, where gh's medians give
	// 1.6×.
	want := []SpeedUp{
		{Cell: "M gi(vertex=dirac)", Method: "explicit", ThreadsA: 1, ThreadsB: 2, A: 1.1, B: 0.55, NA: 3, NB: 2, Ratio: 2, Fastest: 2, C2C: 200e-9, Cores: 1.9,
			Near: Placement{1.1 / 0.6, 1}, Far: Placement{2.2, 1}},
		{Cell: "M csm()", Method: "explicit", ThreadsA: 1, ThreadsB: 2, A: 2, B: 1, NA: 1, NB: 1, Ratio: 2, Fastest: 2, C2C: 100e-9, Cores: 2,
			Near: Placement{2, 1}},
		{Cell: "M csm()", Method: "implicit", ThreadsA: 1, ThreadsB: 2, NB: 1, C2C: 100e-9, Cores: 2, StatusA: StatusTimeout},
		{Cell: "M gh()", Method: "explicit", ThreadsA: 1, ThreadsB: 2, A: 1.2, B: 0.75, NA: 2, NB: 2, Ratio: 1.6, Fastest: 2, C2C: 250e-9, Cores: 2,
			Near: Placement{2, 1}, Far: Placement{1.4, 1}},
	}
	if len(ups) != len(want) {
		t.Fatalf("got %d speed-ups, want %d: %v", len(ups), len(want), ups)
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	for i, w := range want {
		g := ups[i]
		if g.Cell != w.Cell || g.Method != w.Method || g.ThreadsA != w.ThreadsA || g.ThreadsB != w.ThreadsB ||
			g.NA != w.NA || g.NB != w.NB || g.StatusA != w.StatusA || g.StatusB != w.StatusB ||
			!near(g.A, w.A) || !near(g.B, w.B) || !near(g.Ratio, w.Ratio) || !near(g.Fastest, w.Fastest) || !near(g.C2C, w.C2C) || !near(g.Cores, w.Cores) ||
			!near(g.Near.Ratio, w.Near.Ratio) || g.Near.N != w.Near.N || !near(g.Far.Ratio, w.Far.Ratio) || g.Far.N != w.Far.N {
			t.Errorf("speed-up %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if s := ups[0].String(); !strings.Contains(s, "on 1 thread ->") || !strings.Contains(s, "2.00×") || !strings.Contains(s, "fastest 2.00×, ") || !strings.Contains(s, "c2c 200ns") ||
		!strings.Contains(s, "; cores near 1.83× n=1, far 2.20× n=1)") {
		t.Errorf("String() = %q", s)
	}
	if s := ups[1].String(); !strings.HasSuffix(s, "; cores near 2.00× n=1)") {
		t.Errorf("String() = %q", s)
	}
	// Without a threshold, no run is placed.
	if ups, _, _ := SpeedUps(one, two, 0); ups[0].Near != (Placement{}) || ups[0].Far != (Placement{}) || strings.Contains(ups[0].String(), "cores near") {
		t.Errorf("far = 0: %+v", ups[0])
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
// and their median across rounds, also by the cores' placement.
func TestSpeedUpRounds(t *testing.T) {
	row := func(kernel, method string, threads int, status string, wall float64) Row {
		params := ""
		if threads > 1 {
			params = "threads=2"
		}
		return Row{Data: "M", Kernel: kernel, Params: params, Method: method, Threads: threads, Status: status, Wall: wall}
	}
	placed := func(r Row, c2c float64) Row {
		r.C2C = c2c
		return r
	}
	// gi takes 1, 2 and 3 s on one thread in the three rounds, as the
	// machine slows, and 0.5, 1.25 and 1.4 on two: ratios 2, 1.6 and
	// 2.14; sp fails on two threads in round 2; walk is in round 2's
	// two-thread runs alone.
	// gi's runs on two threads are near (100 ns) in rounds 1 and 3, far
	// (400 ns) in round 2, where a second run, of 1.0 s, knows no round
	// trip.
	rounds := [][2][]Row{
		{{row("gi", "explicit", 1, StatusOK, 1), row("sp", "explicit", 1, StatusOK, 1)},
			{placed(row("gi", "explicit", 2, StatusOK, 0.5), 100e-9), row("sp", "explicit", 2, StatusOK, 0.5)}},
		{{row("gi", "explicit", 1, StatusOK, 2), row("gi", "explicit", 1, StatusOK, 2), row("sp", "explicit", 1, StatusOK, 1.5)},
			{placed(row("gi", "explicit", 2, StatusOK, 1.5), 400e-9), row("gi", "explicit", 2, StatusOK, 1.0),
				row("sp", "explicit", 2, StatusOOM, 0), row("walk", "explicit", 2, StatusOK, 1)}},
		{{row("gi", "explicit", 1, StatusOK, 3), row("sp", "explicit", 1, StatusOK, 1)},
			{placed(row("gi", "explicit", 2, StatusOK, 1.4), 100e-9), row("sp", "explicit", 2, StatusOK, 0.5)}},
	}
	ups, onlyA, onlyB := SpeedUpRounds(rounds, 250e-9)
	if onlyA != 0 || onlyB != 1 {
		t.Errorf("only in A %d, in B %d; want 0 and 1 (walk, in round 2's B only)", onlyA, onlyB)
	}
	if len(ups) != 2 {
		t.Fatalf("got %d speed-ups, want 2: %v", len(ups), ups)
	}
	gi, sp := ups[0], ups[1]
	// By hand: the median of the rounds' ratios 2, 1.6 (2 over the
	// median of 1.5 and 1.0) and 2.14 is 2; the walls pooled over the
	// rounds (medians 2 and 1.25) would give 1.6. A and B are the
	// medians of the rounds' walls. Near: the median of rounds 1's and
	// 3's ratios, 2 and 3/1.4; far: round 2's, 2/1.5.
	if gi.Ratio != 2 || len(gi.Ratios) != 3 || gi.Ratios[1] != 1.6 || gi.A != 2 || gi.B != 1.25 || gi.NA != 4 || gi.NB != 4 {
		t.Errorf("gi: %+v", gi)
	}
	// The fastest runs by round: 1/0.5, 2/1.0 and 3/1.4, median 2; sp's
	// last round 1/0.5, but its second has no ok run on two threads.
	if gi.Fastest != 2 || sp.Fastest != 0 {
		t.Errorf("fastest: gi %v, sp %v; want 2 and 0", gi.Fastest, sp.Fastest)
	}
	if want := (Placement{(2 + 3/1.4) / 2, 2}); math.Abs(gi.Near.Ratio-want.Ratio) > 1e-12 || gi.Near.N != want.N {
		t.Errorf("gi near: %+v, want %+v", gi.Near, want)
	}
	if want := (Placement{2 / 1.5, 1}); math.Abs(gi.Far.Ratio-want.Ratio) > 1e-12 || gi.Far.N != want.N {
		t.Errorf("gi far: %+v, want %+v", gi.Far, want)
	}
	if sp.Ratio != 0 || sp.StatusB != StatusOOM {
		t.Errorf("sp: %+v, want no ratio and oom on two threads", sp)
	}
	if s := gi.String(); !strings.Contains(s, "2.00× (1.60–2.14 over 3 rounds; n=4+4") || !strings.Contains(s, "cores near 2.07× n=2, far 1.33× n=1") {
		t.Errorf("String() = %q", s)
	}
}
