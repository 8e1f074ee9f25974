package harness

import (
	"fmt"
	"math"
	"sort"
)

// CompareOptions sets what counts as a change between two results folders.
type CompareOptions struct {
	// Alpha is the significance level of the Mann-Whitney U test; 0 means
	// 0.05.
	Alpha float64
	// Threshold is the smallest relative change of the median time that is
	// reported, e.g. 0.1 for 10 %; 0 means 0.1.
	Threshold float64
}

// Change is the comparison of one cell and method between two results.
type Change struct {
	Cell, Method string
	// Old and New are the median total times in seconds of the ok runs,
	// and NOld, NNew their numbers.
	Old, New   float64
	NOld, NNew int
	// Ratio is New/Old.
	Ratio float64
	// P is the two-sided p-value of the Mann-Whitney U test.
	P float64
	// Kind is "regression", "improvement", "unchanged" (not significant
	// or below the threshold), "status" (ok before, not ok now: a
	// regression), "fixed" (not ok before, ok now), "fewer-cores": a
	// regression of a cell on more than one thread whose new runs had
	// less than fewerCores of the cores the old ones had, or "far-cores":
	// one whose new runs found a round trip between cores at least
	// farCores times as long as the old runs did. The machine explains
	// those two, and the code need not (see CoresOld and C2COld).
	Kind string
	// CoresOld and CoresNew are the medians of t_cpu/t_wall over the ok
	// runs that know their CPU time, 0 where none does; C2COld and
	// C2CNew the medians of t_c2c, in seconds, over those that know it;
	// Threads is the most threads a run of the cell had.
	CoresOld, CoresNew float64
	C2COld, C2CNew     float64
	Threads            int
	// OldStatus and NewStatus are set for status changes.
	OldStatus, NewStatus string
}

// Comparison is the result of Compare.
type Comparison struct {
	Changes []Change
	// OnlyOld and OnlyNew count the cell methods present in one folder
	// only.
	OnlyOld, OnlyNew int
}

// Regressions returns the changes that are regressions.
func (c *Comparison) Regressions() []Change {
	var out []Change
	for _, ch := range c.Changes {
		if ch.Kind == "regression" || ch.Kind == "status" {
			out = append(out, ch)
		}
	}
	return out
}

// Compare compares two sets of result rows cell by cell: for each cell and
// method in both, it tests whether the repetitions' total times differ by
// the Mann-Whitney U test (as benchstat does, robust to outliers and
// without assuming a distribution) and reports the change of the median
// when it is significant and above the threshold.
func Compare(old, new []Row, opt CompareOptions) *Comparison {
	if opt.Alpha <= 0 {
		opt.Alpha = 0.05
	}
	if opt.Threshold <= 0 {
		opt.Threshold = 0.1
	}
	om, _ := groupRows(old, rowCell, rowTotal)
	nm, order := groupRows(new, rowCell, rowTotal)
	c := &Comparison{}
	for k := range om {
		if nm[k] == nil {
			c.OnlyOld++
		}
	}
	for _, k := range order {
		o, n := om[k], nm[k]
		if o == nil {
			c.OnlyNew++
			continue
		}
		ch := Change{Cell: k[0], Method: k[1], NOld: len(o.times), NNew: len(n.times), P: 1,
			Threads: max(o.threads, n.threads)}
		if len(o.cores) > 0 && len(n.cores) > 0 {
			ch.CoresOld, ch.CoresNew = Median(o.cores), Median(n.cores)
		}
		if oc, nc := o.knownC2C(), n.knownC2C(); len(oc) > 0 && len(nc) > 0 {
			ch.C2COld, ch.C2CNew = Median(oc), Median(nc)
		}
		switch {
		case len(o.times) > 0 && len(n.times) == 0:
			ch.Kind, ch.OldStatus, ch.NewStatus = "status", StatusOK, n.status
		case len(o.times) == 0 && len(n.times) > 0:
			ch.Kind, ch.OldStatus, ch.NewStatus = "fixed", o.status, StatusOK
		case len(o.times) == 0:
			ch.Kind = "unchanged"
		default:
			ch.Old, ch.New = Median(o.times), Median(n.times)
			ch.Ratio = ch.New / ch.Old
			ch.P = MannWhitney(o.times, n.times)
			ch.Kind = "unchanged"
			if ch.P < opt.Alpha {
				switch {
				case ch.Ratio > 1+opt.Threshold:
					ch.Kind = "regression"
				case ch.Ratio < 1/(1+opt.Threshold):
					ch.Kind = "improvement"
				}
			}
			if ch.Kind == "regression" && ch.Threads > 1 {
				switch {
				case ch.CoresNew > 0 && ch.CoresNew < fewerCores*ch.CoresOld:
					ch.Kind = "fewer-cores"
				case ch.C2COld > 0 && ch.C2CNew >= farCores*ch.C2COld:
					ch.Kind = "far-cores"
				}
			}
		}
		c.Changes = append(c.Changes, ch)
	}
	return c
}

// rowGroup is the runs of one cell method: a value of each ok run and,
// beside it, its round trip between the cores (0 where unknown), the
// cores of those that know them, the most threads a run had, and the
// first status other than ok.
type rowGroup struct {
	times, c2c, cores []float64
	threads           int
	status            string
}

// knownC2C returns the round trips of g's ok runs that know theirs.
func (g *rowGroup) knownC2C() []float64 {
	var known []float64
	for _, c := range g.c2c {
		if c > 0 {
			known = append(known, c)
		}
	}
	return known
}

// groupRows groups rows by cell, as cell names it, and method, in the
// order they first appear, each ok run's value taken by value.
func groupRows(rows []Row, cell func(*Row) string, value func(*Row) float64) (map[[2]string]*rowGroup, [][2]string) {
	m := map[[2]string]*rowGroup{}
	var order [][2]string
	for i := range rows {
		r := &rows[i]
		k := [2]string{cell(r), r.Method}
		g := m[k]
		if g == nil {
			g = &rowGroup{}
			m[k] = g
			order = append(order, k)
		}
		g.threads = max(g.threads, r.Threads)
		if r.Status != StatusOK {
			if g.status == "" {
				g.status = r.Status
			}
			continue
		}
		g.times = append(g.times, value(r))
		g.c2c = append(g.c2c, r.C2C)
		if c, ok := r.cores(); ok {
			g.cores = append(g.cores, c)
		}
	}
	return m, order
}

// rowCell and rowTotal are Compare's cell and value: the cell as its spec
// names it, and the run's time without preparation (t_total).
func rowCell(r *Row) string   { return r.Cell }
func rowTotal(r *Row) float64 { return r.Total }

// fewerCores is the share of the old runs' cores below which the new runs
// of a cell on several threads had fewer cores (see Change.Kind): 1.5 of
// 2, where the machine's scheduler put the threads of some runs on one
// core.
const fewerCores = 0.75

// farCores is how many times as long as the old runs' the new runs' round
// trip between cores is, at least, where their cores were far apart (see
// Change.Kind): on the 2-vCPU VM of issue 9, 400 ns where its host puts the
// vCPUs apart, against 80.
const farCores = 2

// MannWhitney returns the two-sided p-value of the Mann-Whitney U test of
// samples x and y. Without ties and for small samples it uses the exact
// null distribution of U, counted by the recurrence
// N(m,n,u) = N(m−1,n,u−n) + N(m,n−1,u); otherwise the normal approximation
// with tie correction and continuity correction.
func MannWhitney(x, y []float64) float64 {
	m, n := len(x), len(y)
	if m == 0 || n == 0 {
		return 1
	}
	// Ranks of the pooled sample, ties averaged.
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, m+n)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v < all[j].v })
	var r1, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		t := float64(j - i)
		if t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		i = j
	}
	u := r1 - float64(m*(m+1))/2
	mn := float64(m * n)
	if !ties && m*n <= 2500 {
		return exactMannWhitney(m, n, u)
	}
	mean := mn / 2
	N := float64(m + n)
	variance := mn / 12 * ((N + 1) - tieTerm/(N*(N-1)))
	if variance <= 0 {
		return 1
	}
	z := (math.Abs(u-mean) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactMannWhitney returns P(|U − mn/2| ≥ |u − mn/2|) under the null
// hypothesis, for samples of sizes m and n without ties.
func exactMannWhitney(m, n int, u float64) float64 {
	// counts[u] for the current (i, j), built up row by row.
	maxU := m * n
	prev := make([][]float64, n+1) // prev[j] = distribution for (i−1, j)
	for j := 0; j <= n; j++ {
		prev[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // i = 0: U = 0 in one way
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = make([]float64, maxU+1)
		cur[0][0] = 1 // j = 0: U = 0 in one way
		for j := 1; j <= n; j++ {
			cur[j] = make([]float64, maxU+1)
			for v := 0; v <= i*j; v++ {
				// The largest pooled value is from x (adds j to U) or
				// from y (adds nothing).
				c := cur[j-1][v]
				if v >= j {
					c += prev[j][v-j]
				}
				cur[j][v] = c
			}
		}
		prev = cur
	}
	dist := prev[n]
	var total, tail float64
	mean := float64(maxU) / 2
	d := math.Abs(u - mean)
	for v, c := range dist {
		total += c
		if math.Abs(float64(v)-mean) >= d-1e-9 {
			tail += c
		}
	}
	return tail / total
}

// String formats a change on one line.
func (ch Change) String() string {
	switch ch.Kind {
	case "status", "fixed":
		return fmt.Sprintf("%-11s %s [%s]: %s -> %s", ch.Kind, ch.Cell, ch.Method, ch.OldStatus, ch.NewStatus)
	}
	s := fmt.Sprintf("%-11s %s [%s]: %.4gs -> %.4gs (%+.1f%%, p=%.3g, n=%d+%d",
		ch.Kind, ch.Cell, ch.Method, ch.Old, ch.New, 100*(ch.Ratio-1), ch.P, ch.NOld, ch.NNew)
	if ch.Threads > 1 && ch.CoresOld > 0 {
		s += fmt.Sprintf(", cores %.2f -> %.2f", ch.CoresOld, ch.CoresNew)
	}
	if ch.Threads > 1 && ch.C2COld > 0 {
		s += fmt.Sprintf(", c2c %.0fns -> %.0fns", 1e9*ch.C2COld, 1e9*ch.C2CNew)
	}
	return s + ")"
}
