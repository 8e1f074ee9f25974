package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gkbench/gkbench/graph/graphtest"
)

// runCmd runs runexp with args and returns the exit status and outputs.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestExitStatus checks that bad invocations give one line on stderr and
// exit status 2, as the command line promises.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown flag", []string{"gram", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{"unknown kernel", []string{"gram", "-data", dir, "-kernel", "nope", "-p", "length=1"}, 2, `unknown kernel "nope"`},
		{"unknown param", []string{"gram", "-data", dir, "-kernel", "walk", "-p", "length=1", "-p", "foo=2"}, 2, `parameter "foo": unknown parameter`},
		{"length out of range", []string{"gram", "-data", dir, "-kernel", "walk", "-p", "length=-1"}, 2, "out of range"},
		{"param twice", []string{"gram", "-data", dir, "-kernel", "walk", "-p", "length=1", "-p", "length=2"}, 2, "given twice"},
		{"bad method", []string{"gram", "-data", dir, "-kernel", "walk", "-method", "magic", "-p", "length=1"}, 2, `unknown method "magic"`},
		{"no implicit-only explicit", []string{"gram", "-data", dir, "-kernel", "grw", "-method", "explicit", "-p", "gamma=0.01"}, 2, "has no explicit method"},
		{"missing data", []string{"gram", "-kernel", "walk", "-p", "length=1"}, 2, "-data is required"},
		{"synth bad pv", []string{"synth", "-pv", "1.5", "-o", filepath.Join(dir, "x")}, 2, "PV"},
		{"synth no output", []string{"synth"}, 2, "-o is required"},
		{"extra argument", []string{"stats", "-data", dir, "extra"}, 2, `unexpected argument "extra"`},
		{"missing data set", []string{"stats", "-data", "NoSuchSet"}, 1, "NoSuchSet"},
		{"auto with one method", []string{"gram", "-data", dir, "-kernel", "graphlet", "-method", "auto"}, 2, "cannot choose its method"},
		{"advise without a cost model", []string{"advise", "-data", dir, "-kernel", "graphlet"}, 2, "cannot predict"},
		{"report not to a file", []string{"report", "-results", dir, "-o", dir}, 2, "not a regular file"},
	}
	for _, tc := range tests {
		code, _, stderr := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, stderr, tc.code, tc.msg)
		}
		if tc.code == 2 && tc.name != "no command" && strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: stderr has more than one line: %q", tc.name, stderr)
		}
	}
}

// TestSynthStatsGram runs the three commands end to end on a synthetic data
// set: the files are deterministic, stats reads them back, and both methods
// of gram write the same matrix.
func TestSynthStatsGram(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a", "walk"), filepath.Join(dir, "b", "walk")
	for _, out := range []string{a, b} {
		if code, _, stderr := runCmd(t, "synth", "-generator", "walk", "-n", "30", "-pv", "0.3", "-seed", "5", "-o", out); code != 0 {
			t.Fatalf("synth: exit %d: %s", code, stderr)
		}
	}
	for _, f := range []string{"walk_A.txt", "walk_graph_indicator.txt", "walk_node_labels.txt"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, f))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", f)
		}
	}
	code, stdout, _ := runCmd(t, "stats", "-data", a)
	// 30 graphs, all of class 0 (see synth.Walk); three vertex labels.
	if fields := strings.Fields(lastLine(stdout)); code != 0 || len(fields) != 8 || fields[1] != "30" || fields[2] != "1" {
		t.Errorf("stats: exit %d, output %q", code, stdout)
	}
	var mats [2]string
	for i, m := range []string{"explicit", "implicit"} {
		out := filepath.Join(dir, m+".txt")
		code, _, stderr := runCmd(t, "gram", "-data", a, "-kernel", "walk", "-method", m, "-p", "length=3", "-subset", "12", "-seed", "3", "-o", out)
		if code != 0 {
			t.Fatalf("gram %s: exit %d: %s", m, code, stderr)
		}
		if !strings.Contains(stderr, "method="+m) || !strings.Contains(stderr, " cores=") || strings.Contains(stderr, " c2c=") {
			t.Errorf("gram %s: no timings or cores, or a round trip on one thread, on stderr: %q", m, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		mats[i] = string(data)
	}
	if mats[0] != mats[1] {
		t.Errorf("explicit and implicit matrices differ")
	}
	// On two threads, the same matrix, and the round trip between the
	// cores before the call, where the second thread gets a core of its
	// own: within 10 s where another package's tests hold one.
	if runtime.GOMAXPROCS(0) > 1 {
		var stderr string
		for start := time.Now(); !strings.Contains(stderr, " c2c=") && time.Since(start) < 10*time.Second; {
			var code int
			code, _, stderr = runCmd(t, "gram", "-data", a, "-kernel", "walk", "-p", "length=3", "-p", "threads=2", "-subset", "12", "-seed", "3", "-o", filepath.Join(dir, "two.txt"))
			if code != 0 {
				t.Fatalf("gram on two threads: exit %d: %s", code, stderr)
			}
		}
		if !strings.Contains(stderr, " c2c=") {
			t.Errorf("gram on two threads: no round trip on stderr: %q", stderr)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "two.txt")); err != nil || string(data) != mats[0] {
			t.Errorf("gram on two threads: the matrix differs from one thread's (%v)", err)
		}
	}
	// auto picks one of the two methods, says why, and so writes the same
	// matrix.
	auto := filepath.Join(dir, "auto.txt")
	code, _, stderr := runCmd(t, "gram", "-data", a, "-kernel", "walk", "-method", "auto", "-p", "length=3", "-subset", "12", "-seed", "3", "-o", auto)
	if data, err := os.ReadFile(auto); code != 0 || err != nil || string(data) != mats[0] || !strings.Contains(stderr, "auto: ") {
		t.Errorf("gram -method auto: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ = runCmd(t, "advise", "-data", a, "-p", "length=3")
	if code != 0 || !strings.Contains(stdout, "faster: ") || !strings.Contains(stdout, "auto runs: ") {
		t.Errorf("advise: exit %d, output %q", code, stdout)
	}
	rows := strings.Split(strings.TrimSuffix(mats[0], "\n"), "\n")
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12", len(rows))
	}
	for i, r := range rows {
		f := strings.Fields(r)
		if len(f) != 12 {
			t.Fatalf("row %d has %d numbers, want 12", i, len(f))
		}
		for j, s := range f {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || x < 0 || strconv.FormatFloat(x, 'g', -1, 64) != s {
				t.Fatalf("entry (%d,%d) = %q is not in shortest form", i, j, s)
			}
			// The matrix is symmetric.
			if y := strings.Fields(rows[j])[i]; y != s {
				t.Fatalf("K[%d,%d] = %s but K[%d,%d] = %s", i, j, s, j, i, y)
			}
		}
	}
}

// TestGramMUTAG checks the command on a real data set against a value
// derived independently: K=_0(G,G) counts the pairs of equally labelled
// vertices, Σ_label count(label)², taken from the graph's label histogram.
func TestGramMUTAG(t *testing.T) {
	ds := graphtest.Dataset(t, "MUTAG")
	code, stdout, stderr := runCmd(t, "gram", "-data", filepath.Join(graphtest.DataDir(), "MUTAG"), "-kernel", "walk", "-method", "implicit", "-p", "length=0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	first := strings.Fields(strings.SplitN(stdout, "\n", 2)[0])
	if len(first) != ds.Len() {
		t.Fatalf("first row has %d entries, want %d", len(first), ds.Len())
	}
	hist := map[int32]int{}
	for _, l := range ds.Graphs[0].Labels {
		hist[l]++
	}
	want := 0
	for _, c := range hist {
		want += c * c
	}
	if first[0] != strconv.Itoa(want) {
		t.Errorf("K[0,0] = %s, want Σ count² = %d", first[0], want)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
