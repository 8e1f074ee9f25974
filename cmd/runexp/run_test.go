package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/harness"
)

// tinySpec runs the real walk kernel on a 10-graph subset of MUTAG: 2 walk
// lengths × 2 methods = 4 runs of a few milliseconds.
const tinySpec = `name: tiny
seed: 1
data:
  dataset: MUTAG
kernels:
  - name: walk
methods: [explicit, implicit]
grid:
  size: [10]
  length: [0, 1]
limits: {time: 60s, memory: 1GiB}
`

// useSharedData points the data path at the project's shared data, from
// this package's folder, and skips the test when it is not there.
func useSharedData(t *testing.T) {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/data")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "MUTAG")); err != nil {
		t.Skipf("no shared data at %s", dir)
	}
	t.Setenv("GKBENCH_DATA", dir)
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommands(t *testing.T) {
	useSharedData(t)
	tmp := t.TempDir()
	tiny := writeFile(t, tmp, "tiny.yaml", tinySpec)
	bad := writeFile(t, tmp, "bad.yaml", strings.Replace(tinySpec, "seed: 1\n", "seed: 1\nbogus: 2\n", 1))
	missing := writeFile(t, tmp, "missing.yaml", strings.Replace(tinySpec, "MUTAG", "NOSUCHDATA", 1))
	out := filepath.Join(tmp, "results")
	out2 := filepath.Join(tmp, "results-threads")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name   string
		ctx    context.Context
		args   []string
		status int
		// stdout and stderr must contain these.
		stdout, stderr string
	}{
		// Exit statuses: main.go maps usageError to 2, other errors to 1.
		{"validate ok", nil, []string{"validate", tiny}, 0, "quick 2 cells (4 runs)", ""},
		{"validate bad key", nil, []string{"validate", bad}, 2, "", "bad.yaml:3: field bogus: unknown key"},
		{"validate missing data", nil, []string{"validate", missing}, 2, "", "field data.dataset: data set NOSUCHDATA not found"},
		{"validate several", nil, []string{"validate", tiny, bad}, 2, "", "1 of 2 specs have errors"},
		{"validate nothing", nil, []string{"validate"}, 2, "", "no spec given"},
		{"validate the project's specs", nil, append([]string{"validate"}, projectSpecs(t)...), 0, "fig-walk-wl.yaml", ""},
		{"validate the benchmark specs", nil, append([]string{"validate"}, projectSpecs(t, "bench")...), 0, "nightly-threads.yaml", ""},
		{"run", nil, []string{"run", tiny, "-out", out, "-progress", "log"}, 0, "tiny [quick]: 4 rows (4 new, 0 kept)", "ok"},
		{"run again resumes", nil, []string{"run", "-out", out, tiny}, 0, "4 rows (0 new, 4 kept)", ""},
		{"run on two threads", nil, []string{"run", "-out", out2, "-threads", "2", tiny}, 0, "4 rows (4 new, 0 kept)", ""},
		// The cells match across the threads parameter.
		{"speedup", nil, []string{"speedup", filepath.Join(out, "tiny"), filepath.Join(out2, "tiny")}, 0, "4 cell methods with ok runs on both sides in 1 round:", ""},
		{"speedup rounds", nil, []string{"speedup", filepath.Join(out, "tiny"), filepath.Join(out2, "tiny"), filepath.Join(out, "tiny"), filepath.Join(out2, "tiny")}, 0, "over 2 rounds", ""},
		{"speedup fastest", nil, []string{"speedup", filepath.Join(out, "tiny"), filepath.Join(out2, "tiny")}, 0, "by the fastest run of each side: 4 cell methods,", ""},
		{"speedup usage", nil, []string{"speedup", filepath.Join(out, "tiny")}, 2, "", "want results folders of one spec in pairs"},
		{"speedup bad target", nil, []string{"speedup", "-target", "0", out, out2}, 2, "", "-target must be > 0"},
		{"speedup bad far", nil, []string{"speedup", "-far", "-1ns", out, out2}, 2, "", "-far must be >= 0"},
		{"speedup unsplit", nil, []string{"speedup", "-far", "0", filepath.Join(out, "tiny"), filepath.Join(out2, "tiny")}, 0, "4 cell methods with ok runs on both sides in 1 round:", ""},
		{"speedup no results", nil, []string{"speedup", tmp, filepath.Join(out2, "tiny")}, 1, "", "holds no results"},
		{"run other profile refused", nil, []string{"run", "-out", out, "-profile", "full", tiny}, 2, "", "holds results of profile quick, not full"},
		{"run bad profile", nil, []string{"run", "-profile", "huge", tiny}, 2, "", `unknown profile "huge"`},
		{"run bad shard", nil, []string{"run", "-shard", "4/4", tiny}, 2, "", "want 0 ≤ i < N"},
		{"run bad threads", nil, []string{"run", "-threads", "two", tiny}, 2, "", "invalid value \"two\" for flag -threads"},
		{"run bad spec", nil, []string{"run", bad}, 2, "", "bad.yaml:3"},
		{"run interrupted", cancelled, []string{"run", "-out", filepath.Join(tmp, "int"), tiny}, 1, "", "run the same command again to resume"},
		// Shard 1/2 of 2 cells is cell 1: 2 methods × 1 repetition.
		{"run shard", nil, []string{"run", "-out", out, "-shard", "1/2", "-profile", "full", tiny}, 0, "2 rows (2 new, 0 kept)", ""},
		{"merge", nil, []string{"merge", "-o", filepath.Join(tmp, "merged"), filepath.Join(out, "tiny", "shard-1-of-2")}, 0, "merged 2 rows from 1 folders", "no folder for shard 0/2"},
		{"merge usage", nil, []string{"merge"}, 2, "", "usage: runexp merge"},
		{"list", nil, []string{"list", filepath.Dir(projectSpecs(t)[0])}, 0, "fig-walk-label-diversity", ""},
		{"list bad dir", nil, []string{"list", filepath.Join(tmp, "none")}, 2, "", "no specs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			var stdout, stderr bytes.Buffer
			status := run(ctx, tt.args, &stdout, &stderr)
			if status != tt.status || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("runexp %s: status %d, want %d\nstdout: %s\nstderr: %s\nwant stdout %q, stderr %q",
					strings.Join(tt.args, " "), status, tt.status, stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
		})
	}
}

// projectSpecs returns the specs in experiments/, or in its subfolder
// sub, such as the nightly benchmark's.
func projectSpecs(t *testing.T, sub ...string) []string {
	t.Helper()
	dir := filepath.Join(append([]string{"..", "..", "experiments"}, sub...)...)
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) == 0 {
		t.Skip("no specs in " + dir)
	}
	return files
}

// TestBenchSpecNames holds the nightly benchmark's specs to the Makefile's
// rule that experiments/bench/X.yaml is named bench-X: its bench-plot,
// bench-compare and bench-baseline find their results by it.
func TestBenchSpecNames(t *testing.T) {
	for _, file := range projectSpecs(t, "bench") {
		s, err := harness.LoadSpec(file)
		if err != nil {
			t.Fatal(err)
		}
		if want := "bench-" + strings.TrimSuffix(filepath.Base(file), ".yaml"); s.Name != want {
			t.Errorf("%s: name %s, want %s (see the Makefile's bench targets)", file, s.Name, want)
		}
	}
}

// TestBenchSpecData holds the nightly workflow to the data sets of the
// benchmark specs: the runner fetches nothing, so a spec whose data set the
// workflow's "runexp data fetch" step leaves out fails every night.
func TestBenchSpecData(t *testing.T) {
	flow, err := os.ReadFile(filepath.Join("..", "..", ".github", "workflows", "nightly.yml"))
	if err != nil {
		t.Skipf("no nightly workflow: %v", err)
	}
	fetched := map[string]bool{}
	for _, line := range strings.Split(string(flow), "\n") {
		if _, names, ok := strings.Cut(line, "runexp data fetch "); ok {
			for _, n := range strings.Fields(names) {
				fetched[n] = true
			}
		}
	}
	if len(fetched) == 0 {
		t.Fatal("the nightly workflow has no runexp data fetch step")
	}
	for _, file := range projectSpecs(t, "bench") {
		s, err := harness.LoadSpec(file)
		if err != nil {
			t.Fatal(err)
		}
		names := s.Data.Datasets
		if s.Data.Dataset != "" {
			names = append(names, s.Data.Dataset)
		}
		for _, n := range names {
			if !fetched[n] {
				t.Errorf("%s: data set %s is not fetched by the nightly workflow", file, n)
			}
		}
	}
}
