package report

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/gkbench/gkbench/harness"
)

//go:embed paper/claims.yaml
var claimsYAML []byte

// Claim is a qualitative claim of the paper, with the sentence it tests.
type Claim struct {
	ID       string `yaml:"id"`
	Spec     string `yaml:"spec"`
	Section  string `yaml:"section"`
	Sentence string `yaml:"sentence"`
}

// The outcomes of a claim check.
const (
	Reproduced    = "reproduced"
	NotReproduced = "not reproduced"
	NotRun        = "not run"
)

// Outcome is the result of checking a claim on the results.
type Outcome struct {
	Claim  Claim
	Status string
	// Evidence gives the numbers behind the status.
	Evidence string
}

// Claims returns the paper's claims from the embedded data file.
func Claims() ([]Claim, error) {
	var cs []Claim
	dec := yaml.NewDecoder(strings.NewReader(string(claimsYAML)))
	dec.KnownFields(true)
	if err := dec.Decode(&cs); err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	return cs, nil
}

// Folder is one results folder as the report reads it.
type Folder struct {
	Dir      string
	Meta     *harness.Meta
	Rows     []harness.Row
	Accuracy []harness.AccuracyRow
}

// check computes a claim's outcome from its spec's results.
type check func(f *Folder) (status, evidence string)

// checks implements the claims by id.
func checks() map[string]check {
	return map[string]check{
		"walk-crossover-pv":          checkCrossoverPV,
		"walk-u251-length7":          checkU251Length,
		"walk-mutag-enzymes-length7": checkMutagEnzymesLength,
		"wdpg-constant":              checkWDPGConstant,
		"walk-accuracy-peaks":        checkAccuracyPeaks,
		"grw-accuracy":               checkGRW,
		"wl-implicit":                checkWL,
		"sp-explicit-faster":         checkSPFaster,
		"gl-beats-csm":               checkGLBeatsCSM,
		"csm-gl-crossover":           checkCSMCrossover,
		"gi-explicit-speedup":        checkGISpeedup,
		"sp-attributed-oom":          checkSPAttributedOOM,
		"attr-explicit-approaches":   checkExplicitApproaches,
		"gi-best-accuracy":           checkGIBest,
	}
}

// CheckClaims checks every claim on the folders, by spec name; a claim
// whose spec was not run is "not run".
func CheckClaims(folders map[string]*Folder) ([]Outcome, error) {
	cs, err := Claims()
	if err != nil {
		return nil, err
	}
	impl := checks()
	var out []Outcome
	for _, c := range cs {
		fn, ok := impl[c.ID]
		if !ok {
			return nil, fmt.Errorf("claim %s has no check", c.ID)
		}
		o := Outcome{Claim: c, Status: NotRun, Evidence: "no results of spec " + c.Spec}
		if f := folders[c.Spec]; f != nil && len(f.Rows) > 0 {
			o.Status, o.Evidence = fn(f)
		}
		out = append(out, o)
	}
	return out, nil
}

// cellTime is the mean total time of the ok runs of one point, or its
// failure status.
type cellTime struct {
	mean   float64
	ok     int
	status string // "ok", or the first other status
	wdpg   float64
}

// times aggregates rows by kernel, method and coordinates.
func times(rows []harness.Row) map[string]*cellTime {
	m := map[string]*cellTime{}
	for i := range rows {
		r := &rows[i]
		k := pointKey(r.Kernel, r.Method, r.Coords)
		c := m[k]
		if c == nil {
			c = &cellTime{}
			m[k] = c
		}
		c.add(r)
	}
	return m
}

// add counts one run: its times into the means when it finished, else its
// status when it is the first failure.
func (c *cellTime) add(r *harness.Row) {
	if r.Status != harness.StatusOK {
		if c.status == "" {
			c.status = r.Status
		}
		return
	}
	c.mean = (c.mean*float64(c.ok) + r.Total) / float64(c.ok+1)
	c.wdpg = (c.wdpg*float64(c.ok) + r.WDPG) / float64(c.ok+1)
	c.ok++
	c.status = harness.StatusOK
}

// where aggregates the rows of kernel and method whose coordinates include
// every given one, whatever their other coordinates.
func where(rows []harness.Row, kernel, method string, want map[string]string) *cellTime {
	var c *cellTime
	for i := range rows {
		r := &rows[i]
		if r.Kernel != kernel || r.Method != method {
			continue
		}
		match := true
		for k, v := range want {
			if r.Coords[k] != v {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if c == nil {
			c = &cellTime{}
		}
		c.add(r)
	}
	return c
}

func pointKey(kernel, method string, coords map[string]string) string {
	keys := make([]string, 0, len(coords))
	for k, v := range coords {
		if v != "" {
			keys = append(keys, k+"="+v)
		}
	}
	slices.Sort(keys)
	return kernel + "|" + method + "|" + strings.Join(keys, ",")
}

// values returns the distinct values of coordinate name, numerically
// sorted when they are numbers.
func values(rows []harness.Row, name string) []string {
	var vs []string
	for i := range rows {
		if v := rows[i].Coords[name]; v != "" && !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	sort.SliceStable(vs, func(i, j int) bool {
		a, e1 := strconv.ParseFloat(vs[i], 64)
		b, e2 := strconv.ParseFloat(vs[j], 64)
		if e1 == nil && e2 == nil {
			return a < b
		}
		return vs[i] < vs[j]
	})
	return vs
}

// with returns a copy of coords with k set to v.
func with(coords map[string]string, kv ...string) map[string]string {
	m := map[string]string{}
	for k, v := range coords {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// faster compares the explicit and implicit times of kernel at coords: +1
// when explicit is faster (or implicit failed while explicit finished), −1
// when implicit is, 0 when neither finished.
func faster(t map[string]*cellTime, kernelE, kernelI string, coords map[string]string) (int, string) {
	e, i := t[pointKey(kernelE, "explicit", coords)], t[pointKey(kernelI, "implicit", coords)]
	switch {
	case e == nil || i == nil:
		return 0, "missing"
	case e.ok > 0 && i.ok > 0:
		if e.mean < i.mean {
			return 1, fmt.Sprintf("%.3g<%.3g", e.mean, i.mean)
		}
		return -1, fmt.Sprintf("%.3g>%.3g", e.mean, i.mean)
	case e.ok > 0:
		return 1, "implicit " + i.status
	case i.ok > 0:
		return -1, "explicit " + e.status
	}
	return 0, "both " + e.status
}

func checkCrossoverPV(f *Folder) (string, string) {
	t := times(f.Rows)
	ds := values(f.Rows, "d")
	if len(ds) == 0 {
		return NotRun, "no d axis"
	}
	d := ds[len(ds)-1]
	var seq []string
	// The crossing is where log(T_explicit/T_implicit) first turns
	// positive, interpolated linearly between the grid's p_V values.
	cross := math.NaN()
	prevPV, prevLog := math.NaN(), math.NaN()
	for _, pv := range values(f.Rows, "pv") {
		c := map[string]string{"pv": pv, "d": d}
		_, ev := faster(t, "walk", "walk", c)
		seq = append(seq, fmt.Sprintf("p_V=%s: %s", pv, ev))
		e, i := t[pointKey("walk", "explicit", c)], t[pointKey("walk", "implicit", c)]
		if e == nil || i == nil || e.ok == 0 || i.ok == 0 || !math.IsNaN(cross) {
			continue
		}
		x, _ := strconv.ParseFloat(pv, 64)
		lg := math.Log(e.mean / i.mean)
		if lg > 0 {
			cross = x
			if !math.IsNaN(prevLog) && prevLog <= 0 {
				cross = prevPV + (x-prevPV)*(-prevLog)/(lg-prevLog)
			}
		}
		prevPV, prevLog = x, lg
	}
	ev := fmt.Sprintf("d=%s, explicit/implicit mean seconds: %s", d, strings.Join(seq, "; "))
	if math.IsNaN(cross) {
		return NotReproduced, "implicit never faster; " + ev
	}
	ev = fmt.Sprintf("equal times at p_V ≈ %.2f (interpolated; paper ≈ 0.3); %s", cross, ev)
	if cross >= 0.2 && cross <= 0.45 {
		return Reproduced, ev
	}
	return NotReproduced, ev
}

// firstImplicitWin returns the first walk length at which implicit is
// faster at coords, or −1.
func firstImplicitWin(f *Folder, t map[string]*cellTime, coords map[string]string) (int, string) {
	var seq []string
	first := -1
	for _, l := range values(f.Rows, "length") {
		w, ev := faster(t, "walk", "walk", with(coords, "length", l))
		seq = append(seq, "l="+l+": "+ev)
		if w < 0 && first < 0 {
			first, _ = strconv.Atoi(l)
		}
	}
	return first, strings.Join(seq, "; ")
}

func checkU251Length(f *Folder) (string, string) {
	t := times(f.Rows)
	sizes := values(f.Rows, "size")
	if len(sizes) == 0 {
		return NotRun, "no size axis"
	}
	s := sizes[len(sizes)-1]
	first, seq := firstImplicitWin(f, t, map[string]string{"size": s})
	ev := fmt.Sprintf("size %s: implicit first faster at l = %d (-1: never); explicit/implicit: %s", s, first, seq)
	if first >= 7 && first <= 9 {
		return Reproduced, ev
	}
	return NotReproduced, ev
}

func checkMutagEnzymesLength(f *Folder) (string, string) {
	t := times(f.Rows)
	status := Reproduced
	var evs []string
	for _, d := range values(f.Rows, "dataset") {
		first, _ := firstImplicitWin(f, t, map[string]string{"dataset": d})
		evs = append(evs, fmt.Sprintf("%s: implicit first faster at l = %d (-1: never within the grid)", d, first))
		if first < 7 || first > 9 { // −1, never, is below 7
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ")
}

func checkWDPGConstant(f *Folder) (string, string) {
	t := times(f.Rows)
	status := Reproduced
	var evs []string
	for _, d := range values(f.Rows, "dataset") {
		lo, hi := math.Inf(1), 0.0
		for _, l := range values(f.Rows, "length") {
			if c := t[pointKey("walk", "implicit", map[string]string{"dataset": d, "length": l})]; c != nil && c.ok > 0 {
				lo, hi = math.Min(lo, c.wdpg), math.Max(hi, c.wdpg)
			}
		}
		if hi == 0 {
			return NotRun, "no implicit times"
		}
		evs = append(evs, fmt.Sprintf("%s: T_wdpg %.3g..%.3g s over the walk lengths (max/min %.2f)", d, lo, hi, hi/lo))
		if hi/lo > 2 {
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ")
}

// accuracyBy returns the ok accuracy rows of kernel by data set.
func accuracyBy(f *Folder, kernel string) map[string][]harness.AccuracyRow {
	m := map[string][]harness.AccuracyRow{}
	for _, a := range f.Accuracy {
		if a.Kernel == kernel && a.Status == harness.StatusOK {
			d := a.Coords["dataset"]
			if d == "" {
				d, _, _ = strings.Cut(a.Data, "(")
			}
			m[d] = append(m[d], a)
		}
	}
	return m
}

func checkAccuracyPeaks(f *Folder) (string, string) {
	want := map[string]int{"MUTAG": 3, "ENZYMES": 6}
	by := accuracyBy(f, "walk")
	if len(by) == 0 {
		return NotRun, "no accuracy rows (the evaluation did not run)"
	}
	status := Reproduced
	var evs []string
	for _, d := range []string{"MUTAG", "ENZYMES"} {
		best, bestL := -1.0, -1
		for _, a := range by[d] {
			l, err := strconv.Atoi(a.Coords["length"])
			if err == nil && a.Mean > best {
				best, bestL = a.Mean, l
			}
		}
		if bestL < 0 {
			return NotRun, "no accuracy of " + d
		}
		evs = append(evs, fmt.Sprintf("%s: best %.1f %% at l = %d (paper: l = %d)", d, best, bestL, want[d]))
		if bestL < want[d]-1 || bestL > want[d]+1 {
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ")
}

func checkGRW(f *Folder) (string, string) {
	paper := map[string]float64{"MUTAG": 87.3, "ENZYMES": 31.6}
	grw, walk := accuracyBy(f, "grw"), accuracyBy(f, "walk")
	status := Reproduced
	var evs []string
	for _, d := range []string{"MUTAG", "ENZYMES"} {
		if len(grw[d]) == 0 || len(walk[d]) == 0 {
			return NotRun, "no GRW or walk accuracy of " + d
		}
		g := grw[d][0].Mean
		best := 0.0
		for _, a := range walk[d] {
			best = math.Max(best, a.Mean)
		}
		evs = append(evs, fmt.Sprintf("%s: GRW %.1f %% (paper %.1f), best walk kernel %.1f %%", d, g, paper[d], best))
		if math.Abs(g-paper[d]) > 5 {
			status = NotReproduced
		}
		if d == "ENZYMES" && best <= g || d == "MUTAG" && best < g-3 {
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ")
}

func checkWL(f *Folder) (string, string) {
	t := times(f.Rows)
	status := Reproduced
	var evs []string
	for _, wl := range values(f.Rows, "wl") {
		expl, impl := 0, 0
		for _, l := range values(f.Rows, "length") {
			coords := map[string]string{"wl": wl, "length": l}
			for _, s := range values(f.Rows, "size") {
				coords["size"] = s
			}
			w, _ := faster(t, "walk", "walk", coords)
			if n, _ := strconv.Atoi(l); n >= 2 || wl == "0" {
				if w > 0 {
					expl++
				} else if w < 0 {
					impl++
				}
			}
		}
		evs = append(evs, fmt.Sprintf("wl=%s: explicit faster at %d, implicit at %d lengths", wl, expl, impl))
		if wl == "0" && impl > 0 || wl != "0" && expl > 0 {
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ") + " (lengths ≥ 2 for wl ≥ 1)"
}

func checkSPFaster(f *Folder) (string, string) {
	return ratioCheck(f, "sp", "sp", 10)
}

func checkGLBeatsCSM(f *Folder) (string, string) {
	return ratioCheck(f, "graphlet", "csm", 10)
}

// ratioCheck requires the implicit time of kernelI to be at least factor
// times the explicit time of kernelE on every data set, or the implicit
// computation to have failed where the explicit one finished.
func ratioCheck(f *Folder, kernelE, kernelI string, factor float64) (string, string) {
	status := Reproduced
	var evs []string
	for _, d := range values(f.Rows, "dataset") {
		e := where(f.Rows, kernelE, "explicit", map[string]string{"dataset": d})
		i := where(f.Rows, kernelI, "implicit", map[string]string{"dataset": d})
		switch {
		case e == nil || i == nil:
			evs = append(evs, d+": missing")
			status = NotReproduced
		case e.ok > 0 && i.ok > 0:
			evs = append(evs, fmt.Sprintf("%s: %.3g s against %.3g s (%.0f×)", d, e.mean, i.mean, i.mean/e.mean))
			if i.mean/e.mean < factor {
				status = NotReproduced
			}
		case e.ok > 0:
			evs = append(evs, fmt.Sprintf("%s: %.3g s against %s", d, e.mean, i.status))
		default:
			evs = append(evs, fmt.Sprintf("%s: explicit %s", d, e.status))
			status = NotReproduced
		}
	}
	return status, fmt.Sprintf("explicit %s against implicit %s: %s", kernelE, kernelI, strings.Join(evs, "; "))
}

func checkCSMCrossover(f *Folder) (string, string) {
	t := times(f.Rows)
	ds := values(f.Rows, "d")
	if len(ds) == 0 {
		return NotRun, "no d axis"
	}
	d := ds[len(ds)-1]
	var seq []string
	cross := -1.0
	for _, l := range values(f.Rows, "labels") {
		w, ev := faster(t, "graphlet", "csm", map[string]string{"labels": l, "d": d})
		seq = append(seq, "|L|="+l+": "+ev)
		if w < 0 && cross < 0 {
			cross, _ = strconv.ParseFloat(l, 64)
		}
	}
	ev := fmt.Sprintf("d=%s, CSM first faster than GL at |L| = %g (paper: 20 to 30); GL/CSM seconds: %s", d, cross, strings.Join(seq, "; "))
	if cross >= 15 && cross <= 35 {
		return Reproduced, ev
	}
	return NotReproduced, ev
}

func checkGISpeedup(f *Folder) (string, string) {
	its := values(f.Rows, "iterations")
	if len(its) == 0 {
		return NotRun, "no iterations axis"
	}
	top := its[len(its)-1]
	status := Reproduced
	var evs []string
	for _, d := range values(f.Rows, "dataset") {
		e := where(f.Rows, "gi", "explicit", map[string]string{"dataset": d, "iterations": top})
		i := where(f.Rows, "gi", "implicit", map[string]string{"dataset": d})
		if e == nil || i == nil || e.ok == 0 || i.ok == 0 {
			evs = append(evs, d+": missing or failed")
			status = NotReproduced
			continue
		}
		r := i.mean / e.mean
		evs = append(evs, fmt.Sprintf("%s: implicit %.3g s, explicit (P=%s) %.3g s, %.1f×", d, i.mean, top, e.mean, r))
		if r < 10 {
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ")
}

// checkSPAttributedOOM checks the claim that explicit SP with binning
// runs out of memory beyond some number of iterations on every attributed
// set. A cell the runner refused by the kernel's memory estimate, before
// it ran, counts as out of memory, as the runner records it; the evidence
// says so, since the estimate is not a measurement: it allows for the
// collector's headroom, and came to 1.5–3.3 times the measured heap (see
// kernels.ShortestPath.EstimateBytes).
func checkSPAttributedOOM(f *Folder) (string, string) {
	status := Reproduced
	var evs []string
	for _, d := range values(f.Rows, "dataset") {
		var okMax, oomMin = -1, -1
		var oomNote string
		for i := range f.Rows {
			r := &f.Rows[i]
			if r.Kernel != "sp" || r.Method != "explicit" || r.Coords["dataset"] != d {
				continue
			}
			p, _ := strconv.Atoi(r.Coords["iterations"])
			switch r.Status {
			case harness.StatusOK:
				okMax = max(okMax, p)
			case harness.StatusOOM:
				if oomMin < 0 || p < oomMin {
					oomMin, oomNote = p, r.Note
				}
			}
		}
		ev := fmt.Sprintf("%s: explicit SP finished up to P = %d, out of memory from P = %d", d, okMax, oomMin)
		if est, ok := harness.RefusedEstimate(oomNote); ok {
			ev += " (not run: estimated " + est + ")"
		}
		evs = append(evs, ev)
		if oomMin < 0 || okMax < 1 {
			status = NotReproduced
		}
	}
	return status, strings.Join(evs, "; ") + " (within the profile's memory limit; the paper had 64 GB)"
}
