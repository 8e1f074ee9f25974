package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/kernels"
)

// isolateCosts points the user's config folder and $GKBENCH_COSTS away from
// the machine's, so that a calibrated machine does not change the tests.
func isolateCosts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv(costsEnv, "")
	return dir
}

// synthData writes a small synthetic data set and returns its folder.
func synthData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "w")
	if code, _, stderr := runCmd(t, "synth", "-generator", "walk", "-n", "30", "-pv", "0.5", "-seed", "1", "-o", dir); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, stderr)
	}
	return dir
}

// TestCalibrateWritesCostsFile checks that calibrate writes a costs file
// that parses back with every constant of the walk kernel's model, and
// that leaves no temporary file behind.
func TestCalibrateWritesCostsFile(t *testing.T) {
	if testing.Short() {
		t.Skip("times the kernels for seconds")
	}
	isolateCosts(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "costs.json")
	code, stdout, stderr := runCmd(t, "calibrate", "-quick", "-o", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := kernels.ParseCostsFile(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	for name := range kernels.WalkCostDefaults() {
		if _, ok := f.Costs[name]; !ok {
			t.Errorf("%s missing from the costs file", name)
		}
	}
	if !f.Quick || f.Written.IsZero() {
		t.Errorf("file does not say how and when it was measured: %+v", f)
	}
	if !strings.Contains(stdout, "wrote "+path) {
		t.Errorf("stdout %q does not name the file", stdout)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want only the costs file", len(entries))
	}
}

// TestCostsSources checks where advise takes its constants from: the
// -costs flag, else $GKBENCH_COSTS, else the user's costs file, else the
// built-in defaults; and that it says which.
func TestCostsSources(t *testing.T) {
	cfg := isolateCosts(t)
	data := synthData(t)
	write := func(path string, c kernels.Costs) {
		t.Helper()
		f := &kernels.CostsFile{Host: "testhost", Costs: c}
		b, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A distinct edge-step constant in each file shows which was read.
	user := filepath.Join(cfg, "gkbench", "costs.json")
	env := filepath.Join(t.TempDir(), "env.json")
	flag := filepath.Join(t.TempDir(), "flag.json")
	advise := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runCmd(t, append([]string{"advise", "-data", data, "-p", "length=3"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return stdout
	}
	if out := advise(); !strings.Contains(out, "constants: built-in defaults") {
		t.Errorf("without files: %s", out)
	}
	write(user, kernels.Costs{"walk.implicit.ns_per_edge_step": 11})
	if out := advise(); !strings.Contains(out, user) || !strings.Contains(out, nsText(11)) {
		t.Errorf("with the user's file: %s", out)
	}
	write(env, kernels.Costs{"walk.implicit.ns_per_edge_step": 22})
	t.Setenv(costsEnv, env)
	if out := advise(); !strings.Contains(out, env) || !strings.Contains(out, nsText(22)) {
		t.Errorf("with $%s: %s", costsEnv, out)
	}
	write(flag, kernels.Costs{"walk.implicit.ns_per_edge_step": 33})
	out := advise("-costs", flag)
	if !strings.Contains(out, flag) || !strings.Contains(out, nsText(33)) {
		t.Errorf("with -costs: %s", out)
	}
	// The constants the file lacks come from the defaults.
	def := kernels.WalkCostDefaults()["walk.implicit.ns_per_pair"]
	if !strings.Contains(out, nsText(def)) {
		t.Errorf("a constant missing from the file is not its default %v: %s", def, out)
	}
}

// nsText is how advise prints the constant v, with the multiplication
// after it, so that 11 is not found in 311.
func nsText(v float64) string { return " " + strconv.FormatFloat(v, 'g', 3, 64) + " ns ×" }

// TestMalformedCostsFile checks that a malformed costs file stops gram,
// advise and run with one line naming the file, and exit status 2.
func TestMalformedCostsFile(t *testing.T) {
	isolateCosts(t)
	data := synthData(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{\n  \"costs\": {\"walk.implicit.ns_per_pair\": fast}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"advise", []string{"advise", "-data", data, "-p", "length=2", "-costs", bad}, "costs file " + bad + ": line 2"},
		{"gram", []string{"gram", "-data", data, "-kernel", "walk", "-method", "auto", "-p", "length=2", "-costs", bad}, "costs file " + bad},
		{"missing", []string{"advise", "-data", data, "-p", "length=2", "-costs", missing}, "costs file " + missing + " (from -costs): no such file"},
	}
	for _, tc := range tests {
		code, _, stderr := runCmd(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", tc.name, code, stderr, tc.want)
		}
	}
	t.Setenv(costsEnv, bad)
	if code, _, stderr := runCmd(t, "advise", "-data", data, "-p", "length=2"); code != 2 || !strings.Contains(stderr, bad) {
		t.Errorf("$%s: exit %d, stderr %q", costsEnv, code, stderr)
	}
	// Methods other than auto do not read the constants.
	if code, _, stderr := runCmd(t, "gram", "-data", data, "-kernel", "walk", "-method", "explicit", "-p", "length=2"); code != 0 {
		t.Errorf("explicit gram with a bad $%s: exit %d, %s", costsEnv, code, stderr)
	}
}
