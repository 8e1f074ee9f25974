package harness

import (
	"fmt"
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
	// has no ok run.
	Ratio float64
	// C2C is the median round trip between cores measured before B's
	// runs (t_c2c, seconds), 0 where none knows it; Cores the median of
	// t_cpu/t_wall over B's runs, 0 where none knows it.
	C2C, Cores float64
	// StatusA and StatusB are the first status other than ok of a side
	// with no ok run, empty otherwise.
	StatusA, StatusB string
}

// SpeedUps matches the cells and methods of rows a and b, which must come
// from the same spec run on different numbers of threads (runexp run
// -threads), by their data, kernel and parameters but the threads one, and
// returns their speed-ups in the order of b, with the numbers of cell
// methods found in one of them only.
func SpeedUps(a, b []Row) (ups []SpeedUp, onlyA, onlyB int) {
	type group struct {
		walls, c2c, cores []float64
		threads           int
		status            string
	}
	collect := func(rows []Row) (map[string]*group, []string, map[string][2]string) {
		m := map[string]*group{}
		var order []string
		names := map[string][2]string{}
		for i := range rows {
			r := &rows[i]
			cell := r.Data + " " + r.Kernel + "(" + withoutThreads(r.Params) + ")"
			k := cell + "\x00" + r.Method
			g := m[k]
			if g == nil {
				g = &group{}
				m[k] = g
				order = append(order, k)
				names[k] = [2]string{cell, r.Method}
			}
			g.threads = max(g.threads, r.Threads, 1)
			if r.Status != StatusOK {
				if g.status == "" {
					g.status = r.Status
				}
				continue
			}
			g.walls = append(g.walls, r.Wall)
			if c, ok := r.c2c(); ok {
				g.c2c = append(g.c2c, c)
			}
			if c, ok := r.cores(); ok {
				g.cores = append(g.cores, c)
			}
		}
		return m, order, names
	}
	am, _, _ := collect(a)
	bm, order, names := collect(b)
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
		u := SpeedUp{Cell: names[k][0], Method: names[k][1], ThreadsA: ga.threads, ThreadsB: gb.threads,
			NA: len(ga.walls), NB: len(gb.walls)}
		if len(gb.c2c) > 0 {
			u.C2C = Median(gb.c2c)
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
			u.A, u.B = Median(ga.walls), Median(gb.walls)
			if u.B > 0 {
				u.Ratio = u.A / u.B
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
// threads, the speed-up, and where they are known the round trip between
// the cores and the cores B's runs used.
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
	s := fmt.Sprintf("%s [%s]: %.4gs on %s -> %.4gs on %s, %.2f× (n=%d+%d",
		u.Cell, u.Method, u.A, threadsOf(u.ThreadsA), u.B, threadsOf(u.ThreadsB), u.Ratio, u.NA, u.NB)
	if u.Cores > 0 {
		s += fmt.Sprintf(", cores %.2f", u.Cores)
	}
	if u.C2C > 0 {
		s += fmt.Sprintf(", c2c %.0fns", 1e9*u.C2C)
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
