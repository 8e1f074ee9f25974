package harness

import (
	"fmt"
	"slices"
	"strings"
)

// SpeedUp is the speed-up of one cell and method between two results of
// the same spec run on different numbers of threads.
type SpeedUp struct {
	// Cell names the cell without its threads parameter; Method is the
	// method.
	Cell, Method string
	// ThreadsA and ThreadsB are the most threads a run of each had.
	ThreadsA, ThreadsB int
	// A and B are the median wall times in seconds (t_wall: the whole
	// call, preparation included, since a kernel may prepare on one
	// thread what it refines beside its map on several) of the ok runs,
	// and NA, NB their numbers.
	A, B   float64
	NA, NB int
	// Ratio is A/B, the speed-up of B's runs over A's; 0 where either
	// has no ok run. Over several rounds (see SpeedUpRounds), A, B and
	// Ratio are the medians of the rounds' and Ratios holds each round's
	// ratio, in order.
	Ratio  float64
	Ratios []float64
	// Fastest is the shortest wall time of A's ok runs over the shortest
	// of B's, over several rounds the median of the rounds'; 0 where
	// either side has no ok run. A virtual machine's slow stretches only
	// add time to a run, so each side's fastest run is the one they
	// disturbed least: where Fastest reaches a target that Ratio misses,
	// the machine's stretches, not the kernel, held the medians back.
	Fastest float64
	// C2C is the median round trip between cores measured before B's
	// runs (t_c2c, seconds), 0 where none knows it; Cores the median of
	// t_cpu/t_wall over B's runs, 0 where none knows it.
	C2C, Cores float64
	// StatusA and StatusB are the first status other than ok of a side
	// with no ok run, empty otherwise.
	StatusA, StatusB string
	// Near and Far are the speed-ups of B's runs whose cores were near
	// and far apart by the round trip measured before each (see
	// SpeedUps), against A's runs placed alike where A's runs know their
	// placement, else against all of A's runs. A virtual machine's host
	// may move its vCPUs from cores that share a cache to cores that do
	// not and back within a minute, which a run's round trip tells: on
	// the 2-vCPU VM of issue 9, 80–120 ns near and 380–600 ns far, where
	// a line that one thread writes and the other reads costs the reader
	// the far round trip. B's runs of one cell can fall on both sides.
	Near, Far Placement
}

// Placement is the speed-up of those runs on more threads whose cores
// were placed one way, near or far apart.
type Placement struct {
	// Ratio is the median wall time of A's runs (placed alike, where A's
	// runs know their placement) over the median of B's runs so placed,
	// over several rounds the median of the ratios of the rounds that
	// have such runs on both sides; 0 where none has.
	Ratio float64
	// N counts B's runs so placed, over all rounds.
	N int
}

// placed returns the values of times whose round trips, c2c, keep
// accepts; the runs whose round trip is unknown are left out.
func placed(times, c2c []float64, keep func(float64) bool) []float64 {
	var kept []float64
	for i, t := range times {
		if c2c[i] > 0 && keep(c2c[i]) {
			kept = append(kept, t)
		}
	}
	return kept
}

// placements returns the speed-ups of b's runs near and far apart, by
// far, over a's runs placed alike, or over all of a's runs where none of
// them knows its placement (rows written before runs on one thread
// measured it).
func placements(a, b *rowGroup, far float64) (near, apart Placement) {
	isNear := func(c float64) bool { return c < far }
	isFar := func(c float64) bool { return c >= far }
	aNear, aFar := placed(a.times, a.c2c, isNear), placed(a.times, a.c2c, isFar)
	if len(aNear)+len(aFar) == 0 {
		aNear, aFar = a.times, a.times
	}
	ratio := func(as, bs []float64) Placement {
		p := Placement{N: len(bs)}
		if len(as) > 0 && len(bs) > 0 {
			if m := Median(bs); m > 0 {
				p.Ratio = Median(as) / m
			}
		}
		return p
	}
	return ratio(aNear, placed(b.times, b.c2c, isNear)), ratio(aFar, placed(b.times, b.c2c, isFar))
}

// SpeedUps matches the cells and methods of rows a and b, which must come
// from the same spec run on different numbers of threads (runexp run
// -threads), by their data, kernel and parameters but the threads one, and
// returns their speed-ups in the order of b, with the numbers of cell
// methods found in one of them only. Where far is positive, the runs
// whose round trip between the cores (t_c2c) was below far count as near
// (SpeedUp.Near), the others that know it as far apart (SpeedUp.Far),
// and each kind of B's runs is set against A's of the same kind.
func SpeedUps(a, b []Row, far float64) (ups []SpeedUp, onlyA, onlyB int) {
	cell := func(r *Row) string { return r.Data + " " + r.Kernel + "(" + withoutThreads(r.Params) + ")" }
	wall := func(r *Row) float64 { return r.Wall }
	am, _ := groupRows(a, cell, wall)
	bm, order := groupRows(b, cell, wall)
	for k := range am {
		if bm[k] == nil {
			onlyA++
		}
	}
	for _, k := range order {
		ga, gb := am[k], bm[k]
		if ga == nil {
			onlyB++
			continue
		}
		u := SpeedUp{Cell: k[0], Method: k[1], ThreadsA: max(ga.threads, 1), ThreadsB: max(gb.threads, 1),
			NA: len(ga.times), NB: len(gb.times)}
		if known := gb.knownC2C(); len(known) > 0 {
			u.C2C = Median(known)
		}
		if len(gb.cores) > 0 {
			u.Cores = Median(gb.cores)
		}
		if u.NA == 0 {
			u.StatusA = ga.status
		}
		if u.NB == 0 {
			u.StatusB = gb.status
		}
		if u.NA > 0 && u.NB > 0 {
			u.A, u.B = Median(ga.times), Median(gb.times)
			if u.B > 0 {
				u.Ratio = u.A / u.B
			}
			if fb := slices.Min(gb.times); fb > 0 {
				u.Fastest = slices.Min(ga.times) / fb
			}
			if far > 0 {
				u.Near, u.Far = placements(ga, gb, far)
			}
		}
		ups = append(ups, u)
	}
	return ups, onlyA, onlyB
}

// SpeedUpRounds is SpeedUps over rounds: rounds[k] holds the rows of round
// k's runs on fewer threads and on more, run one after the other, so that
// each ratio is taken between runs close in time, on a machine whose speed
// drifts. The cell methods are those of the first round; the figures of
// each are the medians of those of the rounds that have it, NA and NB
// their runs in all, unless a round has no ok run of it on a side: then
// it is listed as SpeedUps lists it for the first such round. Cell
// methods of a round's folder only are counted over the rounds, and those
// of a later round missing from the first as in its B only. Where far is
// positive, the runs are split by the cores' placement as in SpeedUps.
func SpeedUpRounds(rounds [][2][]Row, far float64) (ups []SpeedUp, onlyA, onlyB int) {
	type acc struct {
		u                           SpeedUp
		as, bs, c2c, cores, fastest []float64
		near, far                   []float64 // the rounds' ratios by placement
		nearN, farN                 int
		failed                      bool
	}
	accs := map[[2]string]*acc{}
	var order [][2]string
	for k, r := range rounds {
		us, oa, ob := SpeedUps(r[0], r[1], far)
		onlyA += oa
		onlyB += ob
		for _, u := range us {
			key := [2]string{u.Cell, u.Method}
			a := accs[key]
			if a == nil {
				if k > 0 {
					// Missing from an earlier round.
					onlyB++
					continue
				}
				a = &acc{u: u}
				accs[key] = a
				order = append(order, key)
			}
			a.u.ThreadsA, a.u.ThreadsB = max(a.u.ThreadsA, u.ThreadsA), max(a.u.ThreadsB, u.ThreadsB)
			if a.failed {
				continue
			}
			if u.Ratio == 0 {
				a.failed = true
				a.u = u
				continue
			}
			a.u.Ratios = append(a.u.Ratios, u.Ratio)
			a.as, a.bs = append(a.as, u.A), append(a.bs, u.B)
			if u.Fastest > 0 {
				a.fastest = append(a.fastest, u.Fastest)
			}
			if u.C2C > 0 {
				a.c2c = append(a.c2c, u.C2C)
			}
			if u.Cores > 0 {
				a.cores = append(a.cores, u.Cores)
			}
			if u.Near.Ratio > 0 {
				a.near = append(a.near, u.Near.Ratio)
			}
			if u.Far.Ratio > 0 {
				a.far = append(a.far, u.Far.Ratio)
			}
			a.nearN += u.Near.N
			a.farN += u.Far.N
			if k > 0 {
				a.u.NA += u.NA
				a.u.NB += u.NB
			}
		}
	}
	for _, key := range order {
		a := accs[key]
		u := a.u
		if !a.failed {
			u.A, u.B, u.Ratio = Median(a.as), Median(a.bs), Median(u.Ratios)
			u.C2C, u.Cores, u.Fastest = 0, 0, 0
			if len(a.fastest) > 0 {
				u.Fastest = Median(a.fastest)
			}
			if len(a.c2c) > 0 {
				u.C2C = Median(a.c2c)
			}
			if len(a.cores) > 0 {
				u.Cores = Median(a.cores)
			}
			u.Near, u.Far = Placement{N: a.nearN}, Placement{N: a.farN}
			if len(a.near) > 0 {
				u.Near.Ratio = Median(a.near)
			}
			if len(a.far) > 0 {
				u.Far.Ratio = Median(a.far)
			}
		}
		ups = append(ups, u)
	}
	return ups, onlyA, onlyB
}

// withoutThreads returns the parameters params, "k=v" joined by commas,
// without the threads one.
func withoutThreads(params string) string {
	if params == "" {
		return ""
	}
	kept := make([]string, 0, strings.Count(params, ",")+1)
	for _, p := range strings.Split(params, ",") {
		if !strings.HasPrefix(p, "threads=") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ",")
}

// String formats u as one line: the two median wall times with their
// threads, the speed-up, that of the fastest runs, and where they are
// known the round trip between the cores and the cores B's runs used.
func (u SpeedUp) String() string {
	if u.Ratio == 0 {
		sa, sb := "ok", "ok"
		if u.StatusA != "" {
			sa = u.StatusA
		}
		if u.StatusB != "" {
			sb = u.StatusB
		}
		return fmt.Sprintf("%s [%s]: %s on %s, %s on %s", u.Cell, u.Method, sa, threadsOf(u.ThreadsA), sb, threadsOf(u.ThreadsB))
	}
	s := fmt.Sprintf("%s [%s]: %.4gs on %s -> %.4gs on %s, %.2f×",
		u.Cell, u.Method, u.A, threadsOf(u.ThreadsA), u.B, threadsOf(u.ThreadsB), u.Ratio)
	if len(u.Ratios) > 1 {
		s += fmt.Sprintf(" (%.2f–%.2f over %d rounds; ", slices.Min(u.Ratios), slices.Max(u.Ratios), len(u.Ratios))
	} else {
		s += " ("
	}
	s += fmt.Sprintf("n=%d+%d", u.NA, u.NB)
	if u.Fastest > 0 {
		s += fmt.Sprintf(", fastest %.2f×", u.Fastest)
	}
	if u.Cores > 0 {
		s += fmt.Sprintf(", cores %.2f", u.Cores)
	}
	if u.C2C > 0 {
		s += fmt.Sprintf(", c2c %.0fns", 1e9*u.C2C)
	}
	var placed []string
	for _, p := range []struct {
		name string
		Placement
	}{{"near", u.Near}, {"far", u.Far}} {
		if p.Ratio > 0 {
			placed = append(placed, fmt.Sprintf("%s %.2f× n=%d", p.name, p.Ratio, p.N))
		}
	}
	if len(placed) > 0 {
		s += "; cores " + strings.Join(placed, ", ")
	}
	return s + ")"
}

// threadsOf says n threads in words.
func threadsOf(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}
