package harness

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// validSpec is a small valid spec; the error cases below mutate one line
// of it, so their line numbers are those of this text:
//
//	 1 name  2 seed  3 data  4 synthetic  5 params  6 kernels  7 - name
//	 8 params  9 methods  10 grid  11 pv  12 d  13 measure  14 limits
//	15 profiles  16 quick  17 grid  18 d  19 measure
const validSpec = `name: t
seed: 1
data:
  synthetic: walk
  params: {mean_vertices: 5}
kernels:
  - name: walk
    params: {length: 2}
methods: [explicit, implicit]
grid:
  pv: {from: 0, to: 1, step: 0.5}
  d: [2, 3]
measure: {repetitions: 2}
limits: {time: 10s, memory: 1GiB}
profiles:
  quick:
    grid:
      d: [2]
    measure: {repetitions: 1}
`

// mutate returns validSpec with old replaced by new, failing the test when
// old is not there (a broken test case, not a passing one).
func mutate(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(validSpec, old) {
		t.Fatalf("test case: %q not in validSpec", old)
	}
	return strings.Replace(validSpec, old, new, 1)
}

func TestParseSpecValid(t *testing.T) {
	s, err := ParseSpec("x.yaml", []byte(validSpec))
	if err != nil {
		t.Fatal(err)
	}
	// Expected values: the settings written in validSpec, and the defaults
	// documented on Measure (warm-up 0, threads 1).
	if s.Name != "t" || s.Seed != 1 || len(s.Methods) != 2 || len(s.Grid) != 2 {
		t.Errorf("spec = %+v", s)
	}
	if s.Measure != (Measure{Repetitions: 2, Warmup: 0, Threads: 1}) {
		t.Errorf("measure = %+v", s.Measure)
	}
	if s.Limits != (Limits{Time: 10 * time.Second, Memory: 1 << 30}) {
		t.Errorf("limits = %+v", s.Limits)
	}
	if len(s.Hash) != 64 {
		t.Errorf("hash %q is not a hex sha256", s.Hash)
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		name string
		src  func(t *testing.T) string
		// want is the whole one-line message, or its start when it ends
		// in "*" (lists of kernels and parameters grow with the project).
		want string
	}{
		// Unknown keys, reported by yaml.v3's KnownFields at their line.
		{"unknown top-level key", func(t *testing.T) string { return mutate(t, "seed: 1\n", "seed: 1\nbogus: 2\n") },
			"x.yaml:3: field bogus: unknown key (known: name, title, paper, seed, data, kernels, methods, grid, measure, limits, profiles, evaluation)"},
		{"unknown kernel key", func(t *testing.T) string { return mutate(t, "    params: {length: 2}", "    parms: {length: 2}") },
			"x.yaml:8: field kernels[0].parms: unknown key (known: name, params, methods)"},
		{"unknown measure key in profile", func(t *testing.T) string { return mutate(t, "{repetitions: 1}", "{repetition: 1}") },
			"x.yaml:19: field profiles.quick.measure.repetition: unknown key (known: repetitions, warmup, threads, reuse)"},
		// Bad types.
		{"seed not a number", func(t *testing.T) string { return mutate(t, "seed: 1", "seed: abc") },
			`x.yaml:2: field seed: want an unsigned integer, got text "abc"`},
		{"negative seed", func(t *testing.T) string { return mutate(t, "seed: 1", "seed: -1") },
			`x.yaml:2: field seed: want an unsigned integer, got an integer "-1"`},
		{"params is a list", func(t *testing.T) string { return mutate(t, "{length: 2}", "[2]") },
			"x.yaml:8: field kernels[0].params: want a mapping, got a list"},
		{"repetitions is text", func(t *testing.T) string { return mutate(t, "{repetitions: 2}", "{repetitions: many}") },
			`x.yaml:13: field measure.repetitions: want an integer, got text "many"`},
		{"duplicate key", func(t *testing.T) string { return mutate(t, "seed: 1\n", "seed: 1\nseed: 2\n") },
			`x.yaml:3: field seed: key "seed" given twice (first at line 2)`},
		{"syntax error", func(t *testing.T) string { return mutate(t, "{length: 2}", "{length: 2") },
			// yaml.v3 reports the line where the enclosing block starts.
			"x.yaml:7: YAML syntax: did not find expected ',' or '}'"},
		{"empty file", func(*testing.T) string { return "# nothing\n" }, "x.yaml: empty spec"},
		{"not a mapping", func(*testing.T) string { return "- a\n" },
			"x.yaml:1: want a mapping, got a list"},
		// Missing or contradictory settings.
		{"missing seed", func(t *testing.T) string { return mutate(t, "seed: 1\n", "") },
			"x.yaml: field seed: missing; every spec names its seed so that its data are reproducible"},
		{"evaluation folds", func(t *testing.T) string { return mutate(t, "seed: 1\n", "seed: 1\nevaluation: {folds: 1}\n") },
			"x.yaml:3: field evaluation.folds: 1 out of range [2, 100]"},
		{"dataset and generator", func(t *testing.T) string {
			return mutate(t, "  synthetic: walk\n", "  synthetic: walk\n  dataset: MUTAG\n")
		},
			"x.yaml:3: field data: give either dataset or synthetic, not both"},
		{"unknown generator", func(t *testing.T) string { return mutate(t, "synthetic: walk", "synthetic: tree") },
			`x.yaml:4: field data.synthetic: unknown generator "tree" (known: subgraph, walk)`},
		{"unknown data parameter", func(t *testing.T) string { return mutate(t, "{mean_vertices: 5}", "{mean_vertex: 5}") },
			"x.yaml:5: field data.params.mean_vertex: unknown parameter of generator walk (known: d, edge_prob, mean_vertices, pv)"},
		{"data parameter out of range", func(t *testing.T) string { return mutate(t, "{mean_vertices: 5}", "{mean_vertices: 0}") },
			"x.yaml:5: field data.params.mean_vertices: 0 out of range (0, 10000]"},
		{"missing generator parameter", func(t *testing.T) string { return mutate(t, "  pv: {from: 0, to: 1, step: 0.5}\n", "") },
			"x.yaml:5: field data.params.pv: missing; generator walk needs pv (p_V, the probability of a non-zero vertex label), under data.params or as a grid axis"},
		// Kernels, their parameters, methods.
		{"unknown kernel", func(t *testing.T) string { return mutate(t, "name: walk", "name: nosuch") },
			`x.yaml:7: field kernels[0].name: unknown kernel "nosuch" (known: *`},
		{"unknown kernel parameter", func(t *testing.T) string { return mutate(t, "{length: 2}", "{length: 2, depth: 3}") },
			`x.yaml:8: field kernels[0].params.depth: kernel walk has no parameter "depth" (known: length, *`},
		{"kernel parameter out of range", func(t *testing.T) string { return mutate(t, "{length: 2}", "{length: -1}") },
			`x.yaml:8: field kernels[0].params.length: kernel walk: parameter length="-1": out of range [0, 64]`},
		{"required kernel parameter", func(t *testing.T) string { return mutate(t, "{length: 2}", "{max: true}") },
			`x.yaml:8: field kernels[0].params: kernel walk: parameter "length": required`},
		{"unknown method", func(t *testing.T) string { return mutate(t, "[explicit, implicit]", "[explicit, magic]") },
			`x.yaml:9: field methods[1]: unknown method "magic" (want explicit, implicit or auto)`},
		{"duplicate method", func(t *testing.T) string { return mutate(t, "[explicit, implicit]", "[explicit, explicit]") },
			"x.yaml:9: field methods[1]: method explicit listed twice"},
		{"no methods", func(t *testing.T) string { return mutate(t, "[explicit, implicit]", "[]") },
			"x.yaml:9: field methods: missing or empty; list explicit, implicit or both"},
		// Ranges and axes.
		{"step zero", func(t *testing.T) string { return mutate(t, "step: 0.5", "step: 0") },
			"x.yaml:11: field grid.pv.step: must be > 0"},
		{"step negative", func(t *testing.T) string { return mutate(t, "step: 0.5", "step: -0.5") },
			"x.yaml:11: field grid.pv.step: must be > 0"},
		{"empty range", func(t *testing.T) string { return mutate(t, "from: 0, to: 1", "from: 1, to: 0") },
			"x.yaml:11: field grid.pv.to: 0 is below from 1: empty range"},
		{"range key misspelt", func(t *testing.T) string { return mutate(t, "to: 1,", "stop: 1,") },
			"x.yaml:11: field grid.pv.stop: unknown key (known: from, to, step)"},
		{"range without step", func(t *testing.T) string { return mutate(t, ", step: 0.5", "") },
			"x.yaml:11: field grid.pv.step: missing; a range needs from, to and step"},
		{"range bound not a number", func(t *testing.T) string { return mutate(t, "to: 1,", "to: one,") },
			`x.yaml:11: field grid.pv.to: want a number, got "one"`},
		{"range too long", func(t *testing.T) string { return mutate(t, "step: 0.5", "step: 0.00001") },
			"x.yaml:11: field grid.pv: range has more than 10000 values"},
		{"empty axis list", func(t *testing.T) string { return mutate(t, "  d: [2, 3]", "  d: []") },
			"x.yaml:12: field grid.d: empty list: an axis needs at least one value"},
		{"null axis", func(t *testing.T) string { return mutate(t, "  d: [2, 3]", "  d:") },
			"x.yaml:12: field grid.d: empty axis; give a value, a list, or {from, to, step}"},
		{"data axis out of range", func(t *testing.T) string { return mutate(t, "to: 1,", "to: 1.5,") },
			"x.yaml:11: field grid.pv: value 4: 1.5 out of range [0, 1]"},
		{"data axis not an integer", func(t *testing.T) string { return mutate(t, "d: [2, 3]", "d: [2, 2.5]") },
			`x.yaml:12: field grid.d: value 2: "2.5" is not an integer`},
		{"duplicate axis value", func(t *testing.T) string { return mutate(t, "d: [2, 3]", "d: [2, 2.0]") },
			"x.yaml:12: field grid.d: value 2 listed twice"},
		{"unknown axis", func(t *testing.T) string { return mutate(t, "  d: [2, 3]", "  d: [2, 3]\n  depth: [1]") },
			"x.yaml:13: field grid.depth: unknown axis: not a parameter of generator walk nor of kernel walk (known: d, edge_prob, mean_vertices, pv, length, *"},
		{"axis also fixed", func(t *testing.T) string { return mutate(t, "  d: [2, 3]", "  d: [2, 3]\n  length: [1, 2]") },
			"x.yaml:13: field grid.length: length is both fixed under the params of kernel walk and a grid axis"},
		{"reserved axis name", func(t *testing.T) string { return mutate(t, "  d: [2, 3]", "  d: [2, 3]\n  status: [1]") },
			`x.yaml:13: field grid.status: axis name "status" is reserved for a results column (set threads under measure)`},
		// Settings and profiles.
		{"zero repetitions", func(t *testing.T) string { return mutate(t, "{repetitions: 2}", "{repetitions: 0}") },
			"x.yaml:13: field measure.repetitions: 0 out of range [1, 1000]"},
		{"negative warm-up", func(t *testing.T) string { return mutate(t, "{repetitions: 2}", "{repetitions: 2, warmup: -1}") },
			"x.yaml:13: field measure.warmup: -1 out of range [0, 1000]"},
		{"bad duration", func(t *testing.T) string { return mutate(t, "time: 10s", "time: soon") },
			`x.yaml:14: field limits.time: "soon" is not a duration (e.g. 90s, 10m, 24h, or none)`},
		{"bad memory", func(t *testing.T) string { return mutate(t, "memory: 1GiB", "memory: lots") },
			`x.yaml:14: field limits.memory: "lots" is not a memory size (e.g. 512MiB, 16GiB, or none)`},
		{"tiny memory", func(t *testing.T) string { return mutate(t, "memory: 1GiB", "memory: 10") },
			`x.yaml:14: field limits.memory: "10" out of range [1MiB, 1PiB]`},
		{"unknown profile", func(t *testing.T) string { return mutate(t, "  quick:", "  fast:") },
			`x.yaml:16: field profiles.fast: unknown profile "fast" (known: quick, medium, full)`},
		{"profile adds an axis", func(t *testing.T) string { return mutate(t, "      d: [2]", "      wl: [1]") },
			"x.yaml:18: field profiles.quick.grid.wl: not an axis of the spec's grid; a profile may only change the values of existing axes"},
		{"profile axis out of range", func(t *testing.T) string { return mutate(t, "      d: [2]", "      d: [0]") },
			"x.yaml:18: field profiles.quick.grid.d: value 1: 0 out of range [1, 1000000]"},
		{"profile repetitions out of range", func(t *testing.T) string { return mutate(t, "{repetitions: 1}", "{repetitions: 5000}") },
			"x.yaml:19: field profiles.quick.measure.repetitions: 5000 out of range [1, 1000]"},
		{"bad name", func(t *testing.T) string { return mutate(t, "name: t", "name: a/b") },
			`x.yaml:1: field name: "a/b" is not a valid results folder name (letters, digits, '-', '_', '.')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSpec("x.yaml", []byte(tt.src(t)))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *SpecError", err)
			}
			if got := err.Error(); got != tt.want && !(strings.HasSuffix(tt.want, "*") && strings.HasPrefix(got, strings.TrimSuffix(tt.want, "*"))) {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

// TestParseSpecKernelAxis checks that every value of a kernel axis is
// validated by the kernels package, at the axis's line.
func TestParseSpecKernelAxis(t *testing.T) {
	src := strings.Replace(validSpec, "    params: {length: 2}\n", "", 1)
	src = strings.Replace(src, "  d: [2, 3]\n", "  d: [2, 3]\n  length: [1, 70]\n", 1)
	_, err := ParseSpec("x.yaml", []byte(src))
	// Line 12 is the axis after removing line 8; the range is walk.go's
	// maxWalkLength.
	want := `x.yaml:12: field grid.length: kernel walk: parameter length="70": out of range [0, 64]`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestRangeValues(t *testing.T) {
	tests := []struct {
		axis int // 0: pv, 1: d
		rng  string
		want []string
	}{
		// The paper's p_V axis: 11 values, ending at exactly 1, where
		// summing 0.1 in float64 gives 0.9999999999999999.
		{0, "{from: 0, to: 1, step: 0.1}", []string{"0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"}},
		// The paper's d axis: 100..300 step 20.
		{1, "{from: 100, to: 300, step: 20}", []string{"100", "120", "140", "160", "180", "200", "220", "240", "260", "280", "300"}},
		// 0.3·3 is 0.8999999999999999 in float64; the range must say 0.9.
		{0, "{from: 0.3, to: 0.9, step: 0.3}", []string{"0.3", "0.6", "0.9"}},
		// 0.7 is reached exactly, though 7·0.1 = 0.7000000000000001.
		{0, "{from: 0, to: 0.7, step: 0.1}", []string{"0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}},
		// to not on the step: the range stops below it.
		{0, "{from: 0, to: 1, step: 0.4}", []string{"0", "0.4", "0.8"}},
		// One value.
		{0, "{from: 0.5, to: 0.5, step: 1}", []string{"0.5"}},
		// Lists and scalars are canonicalised: 0.50 and .5 are 0.5.
		{0, "[0.50, .25, 1.0]", []string{"0.5", "0.25", "1"}},
		{0, "0.10", []string{"0.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.rng, func(t *testing.T) {
			old := []string{"{from: 0, to: 1, step: 0.5}", "[2, 3]"}[tt.axis]
			src := mutate(t, old, tt.rng)
			s, err := ParseSpec("x.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Grid[tt.axis].Values; !slices.Equal(got, tt.want) {
				t.Errorf("values = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	src := mutate(t, "    params: {length: 2}\n", "")
	src = strings.Replace(src, "  d: [2, 3]\n", "  d: [2, 3]\n  length: [0, 1, 2]\n", 1)
	s, err := ParseSpec("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		profile   string
		cells     int
		runs      int
		reps      int
		firstKeys []string
	}{
		// full keeps the spec's grid: pv 3 values × d 2 × length 3 = 18
		// cells, × 2 methods × 2 repetitions = 72 runs.
		{Full, 18, 72, 2, []string{
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=0)",
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=1)",
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=2)",
			"walk(d=3,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=0)",
		}},
		// quick sets d: [2] and repetitions 1: 3 × 1 × 3 = 9 cells, 18 runs.
		{Quick, 9, 18, 1, []string{
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=0)",
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=1)",
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0,seed=1) walk(length=2)",
			"walk(d=2,edge_prob=0.1,mean_vertices=5,pv=0.5,seed=1) walk(length=0)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			p, err := s.Plan(tt.profile, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Cells) != tt.cells || p.Runs() != tt.runs || p.Measure.Repetitions != tt.reps {
				t.Errorf("cells %d runs %d reps %d, want %d %d %d", len(p.Cells), p.Runs(), p.Measure.Repetitions, tt.cells, tt.runs, tt.reps)
			}
			// The limits are the spec's: quick does not override them.
			if p.Limits.Time != 10*time.Second {
				t.Errorf("time limit %v, want 10s", p.Limits.Time)
			}
			seen := map[string]bool{}
			for i, c := range p.Cells {
				if c.Index != i {
					t.Errorf("cell %d has index %d", i, c.Index)
				}
				if seen[c.Key] {
					t.Errorf("key %q twice", c.Key)
				}
				seen[c.Key] = true
				if i < len(tt.firstKeys) && c.Key != tt.firstKeys[i] {
					t.Errorf("cell %d key %q, want %q", i, c.Key, tt.firstKeys[i])
				}
			}
		})
	}
	if _, err := s.Plan("medium", 0); err == nil {
		t.Error("unknown profile accepted")
	}
	// The walk kernel takes threads as a parameter, which -threads sets.
	p4, err := s.Plan(Quick, 4)
	if err != nil || p4.Cells[0].Params["threads"] != "4" {
		t.Errorf("-threads 4: %v, params %v", err, p4.Cells[0].Params)
	}
}

// TestKernelMethods checks a kernel's own methods list: the graphlet
// kernel is explicit only and the subgraph matching kernel implicit only,
// as in the paper's Table 3.
func TestKernelMethods(t *testing.T) {
	src := mutate(t, "kernels:\n  - name: walk\n    params: {length: 2}\n",
		"kernels:\n  - name: walk\n    params: {length: 2}\n  - name: graphlet\n    methods: [explicit]\n  - name: csm\n    methods: [implicit]\n")
	s, err := ParseSpec("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(Full, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 6 data coordinates (pv 3 × d 2) × 3 kernels = 18 cells; walk runs
	// 2 methods, graphlet and csm 1 each: 6 × 4 = 24 method runs, × 2
	// repetitions = 48.
	if len(p.Cells) != 18 || p.Runs() != 48 {
		t.Errorf("cells %d runs %d, want 18 and 48", len(p.Cells), p.Runs())
	}
	for _, c := range p.Cells {
		want := map[string]string{"walk": "[explicit implicit]", "graphlet": "[explicit]", "csm": "[implicit]"}[c.Kernel]
		if got := fmt.Sprint(c.Methods); got != want {
			t.Errorf("%s: methods %s, want %s", c.Kernel, got, want)
		}
	}
	errs := []struct{ src, want string }{
		// Lines: 10 graphlet's methods, 12 csm's, 13 the spec's (12 once csm's is gone).
		{strings.Replace(src, "methods: [explicit]\n", "methods: [implicit]\n", 1),
			"x.yaml:10: field kernels[1].methods[0]: kernel graphlet does not support method implicit (give the kernel its own methods list)"},
		{strings.Replace(src, "methods: [explicit]\n", "methods: [magic]\n", 1),
			`x.yaml:10: field kernels[1].methods[0]: unknown method "magic" (want explicit, implicit or auto)`},
		{strings.Replace(src, "methods: [explicit, implicit]", "methods: [explicit]", 1),
			"x.yaml:12: field kernels[2].methods[0]: method implicit is not among the spec's methods"},
		{strings.Replace(src, "  - name: graphlet\n    methods: [explicit]\n", "  - name: graphlet\n", 1),
			"x.yaml:12: field methods[1]: kernel graphlet does not support method implicit (give the kernel its own methods list)"},
	}
	for _, e := range errs {
		_, err := ParseSpec("x.yaml", []byte(e.src))
		if err == nil || err.Error() != e.want {
			t.Errorf("err = %v\nwant %s", err, e.want)
		}
	}
}

// TestAxisOfSomeKernels checks that a kernel axis varies only the kernels
// with that parameter: walk lengths beside one shortest-path cell per data
// coordinate, whose length coordinate is empty.
func TestAxisOfSomeKernels(t *testing.T) {
	src := mutate(t, "kernels:\n  - name: walk\n    params: {length: 2}\n", "kernels:\n  - name: walk\n  - name: sp\n")
	src = strings.Replace(src, "  d: [2, 3]\n", "  d: [2, 3]\n  length: [0, 1, 2]\n", 1)
	s, err := ParseSpec("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(Full, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 6 data coordinates × (3 walk lengths + 1 sp) = 24 cells.
	if len(p.Cells) != 24 {
		t.Fatalf("%d cells, want 24", len(p.Cells))
	}
	li := slices.Index(p.AxisNames(), "length")
	for _, c := range p.Cells {
		if (c.Kernel == "sp") != (c.Coords[li] == "") {
			t.Errorf("%s: length coordinate %q", c.Key, c.Coords[li])
		}
	}
	// An axis of no kernel is still an error.
	bad := strings.Replace(src, "  length: [0, 1, 2]\n", "  depth: [0, 1, 2]\n", 1)
	if _, err := ParseSpec("x.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "unknown axis") {
		t.Errorf("err = %v, want an unknown axis error", err)
	}
}

// TestExplicitOnlyAxis checks that an axis of an explicit-only parameter
// (binning iterations) varies the explicit cells only: implicit
// computation gives the same matrix for every value, so it gets one cell
// without the parameter, unless auto is among the methods. A selection of
// h applies to GI alone.
func TestExplicitOnlyAxis(t *testing.T) {
	src := `name: a
seed: 1
data:
  dataset: ENZYMES
kernels:
  - name: gi
  - name: gh
methods: [explicit, implicit]
grid:
  iterations: [1, 4, 16]
evaluation:
  select:
    h: [1, 3]
`
	s, err := ParseSpec("a.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(Full, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Per kernel: 3 explicit cells and 1 implicit cell.
	var got []string
	for _, c := range p.Cells {
		got = append(got, fmt.Sprintf("%s %v %s", c.Kernel, c.Methods, c.Coords[0]))
	}
	want := []string{
		"gi [explicit] 1", "gi [explicit] 4", "gi [explicit] 16", "gi [implicit] ",
		"gh [explicit] 1", "gh [explicit] 4", "gh [explicit] 16", "gh [implicit] ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("cells\n%q\nwant\n%q", got, want)
	}
	if sel := selectionOf("gh", s.Evaluation.Select); len(sel) != 0 {
		t.Errorf("gh selects %v, want nothing", sel)
	}
	if sel := selectionOf("gi", s.Evaluation.Select); len(sel) != 1 || sel[0].Name != "h" {
		t.Errorf("gi selects %v, want h", sel)
	}
	// With auto, every method runs at every value: auto's choice
	// depends on it, and so does the oracle's explicit time.
	withAuto := strings.Replace(src, "methods: [explicit, implicit]", "methods: [explicit, implicit, auto]", 1)
	if s, err = ParseSpec("a.yaml", []byte(withAuto)); err != nil {
		t.Fatal(err)
	}
	if p, err = s.Plan(Full, 0); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, c := range p.Cells {
		got = append(got, fmt.Sprintf("%s %v %s", c.Kernel, c.Methods, c.Coords[0]))
	}
	want = []string{
		"gi [explicit implicit auto] 1", "gi [explicit implicit auto] 4", "gi [explicit implicit auto] 16",
		"gh [explicit implicit auto] 1", "gh [explicit implicit auto] 4", "gh [explicit implicit auto] 16",
	}
	if !slices.Equal(got, want) {
		t.Errorf("cells with auto\n%q\nwant\n%q", got, want)
	}
	bad := strings.Replace(src, "    h: [1, 3]\n", "    depth: [1, 3]\n", 1)
	if _, err := ParseSpec("a.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), `no kernel of the spec has a parameter "depth" to select`) {
		t.Errorf("err = %v", err)
	}
}

// TestAutoMethod checks that auto is accepted for a kernel that can advise
// (walk) and refused for one with a single method (grw, implicit only).
func TestAutoMethod(t *testing.T) {
	src := mutate(t, "methods: [explicit, implicit]", "methods: [explicit, implicit, auto]")
	if _, err := ParseSpec("x.yaml", []byte(src)); err != nil {
		t.Errorf("walk with auto: %v", err)
	}
	bad := strings.Replace(src, "  - name: walk\n    params: {length: 2}\n", "  - name: grw\n    params: {gamma: 0.01}\n    methods: [implicit, auto]\n", 1)
	if _, err := ParseSpec("x.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), "kernel grw does not support method auto") {
		t.Errorf("grw with auto: err = %v", err)
	}
}

// TestRawTypeKeys checks that the keys an unknown-key error lists for each
// raw type are the yaml keys of its fields, in order: the list is written
// by hand, and a new field must join it.
func TestRawTypeKeys(t *testing.T) {
	types := []any{rawSpec{}, rawData{}, rawKernel{}, rawMeasure{}, rawLimits{}, rawProfile{}, rawEvaluation{}, rawExtra{}, rawEvalCounts{}}
	lists := rawTypeKeys()
	if len(lists) != len(types) {
		t.Errorf("rawTypeKeys lists %d types, the test knows %d", len(lists), len(types))
	}
	for _, v := range types {
		typ := reflect.TypeOf(v)
		var keys []string
		for i := range typ.NumField() {
			if tag, ok := typ.Field(i).Tag.Lookup("yaml"); ok && tag != "-" {
				keys = append(keys, strings.Split(tag, ",")[0])
			}
		}
		name := "harness." + typ.Name()
		if got := lists[name]; !slices.Equal(got, keys) {
			t.Errorf("rawTypeKeys()[%q] = %v, the type's keys are %v", name, got, keys)
		}
	}
}

// TestMeasureReuse checks measure.reuse: off unless a spec sets it, and a
// profile's setting overriding the spec's.
func TestMeasureReuse(t *testing.T) {
	tests := []struct {
		name        string
		src         func(t *testing.T) string
		quick, full bool
	}{
		{"unset", func(t *testing.T) string { return mutate(t, "", "") }, false, false},
		{"set", func(t *testing.T) string {
			return mutate(t, "measure: {repetitions: 2}", "measure: {repetitions: 2, reuse: true}")
		}, true, true},
		{"set, quick unsets", func(t *testing.T) string {
			src := mutate(t, "measure: {repetitions: 2}", "measure: {repetitions: 2, reuse: true}")
			return strings.Replace(src, "measure: {repetitions: 1}", "measure: {repetitions: 1, reuse: false}", 1)
		}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSpec("x.yaml", []byte(tt.src(t)))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				profile string
				want    bool
			}{{Quick, tt.quick}, {Full, tt.full}} {
				p, err := s.Plan(c.profile, 0)
				if err != nil {
					t.Fatal(err)
				}
				if p.Measure.Reuse != c.want {
					t.Errorf("%s: reuse %t, want %t", c.profile, p.Measure.Reuse, c.want)
				}
			}
		})
	}
}
