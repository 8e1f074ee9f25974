package main

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/graph/graphtest"
	"github.com/gkbench/gkbench/kernels"
)

// runCV runs runexp cv with args and returns the exit status and outputs.
func runCV(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"cv"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestGridProduct(t *testing.T) {
	// Expected products written out by hand: the last key varies fastest.
	tests := []struct {
		flags  []string
		labels []string
		params []kernels.Params
	}{
		{
			flags:  nil,
			labels: []string{"(defaults)"},
			params: []kernels.Params{{}},
		},
		{
			flags:  []string{"length=0,1, 2"},
			labels: []string{"length=0", "length=1", "length=2"},
			params: []kernels.Params{{"length": "0"}, {"length": "1"}, {"length": "2"}},
		},
		{
			flags:  []string{"length=3,1", "wl=0,2"},
			labels: []string{"length=3 wl=0", "length=3 wl=2", "length=1 wl=0", "length=1 wl=2"},
			params: []kernels.Params{
				{"length": "3", "wl": "0"}, {"length": "3", "wl": "2"},
				{"length": "1", "wl": "0"}, {"length": "1", "wl": "2"},
			},
		},
		{
			flags:  []string{"max=true", "length=2"},
			labels: []string{"max=true length=2"},
			params: []kernels.Params{{"max": "true", "length": "2"}},
		},
	}
	for _, tt := range tests {
		var g gridFlag
		for _, f := range tt.flags {
			if err := g.Set(f); err != nil {
				t.Fatalf("Set(%q): %v", f, err)
			}
		}
		got := g.product()
		var labels []string
		var params []kernels.Params
		for _, c := range got {
			labels = append(labels, c.label)
			params = append(params, c.params)
		}
		if !reflect.DeepEqual(labels, tt.labels) || !reflect.DeepEqual(params, tt.params) {
			t.Errorf("%v: got %v %v, want %v %v", tt.flags, labels, params, tt.labels, tt.params)
		}
	}
}

// TestCVExitStatus checks that bad invocations of cv give one line on
// stderr and exit status 2, before any data are read.
func TestCVExitStatus(t *testing.T) {
	type cvCase struct {
		name string
		args []string
		msg  string
	}
	dir := t.TempDir()
	tests := []cvCase{
		{"no kernel", []string{"-data", dir}, "-kernel is required"},
		{"unknown kernel", []string{"-data", dir, "-kernel", "nope"}, `unknown kernel "nope"`},
		{"bad value in a list", []string{"-data", dir, "-kernel", "walk", "-p", "length=1,x"}, "not an integer"},
		{"unknown param", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-p", "foo=1,2"}, `parameter "foo": unknown parameter`},
		{"key twice", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-p", "length=2"}, "given twice"},
		{"value twice", []string{"-data", dir, "-kernel", "walk", "-p", "length=1,1"}, "given twice"},
		{"empty value", []string{"-data", dir, "-kernel", "walk", "-p", "length=1,,2"}, "empty value"},
		{"no =", []string{"-data", dir, "-kernel", "walk", "-p", "length"}, "want key=value"},
		{"bad method", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-method", "magic"}, `unknown method "magic"`},
		{"bad norm", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-norm", "yes"}, "normalisation mode"},
		{"reps 0", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-reps", "0"}, "-reps 0"},
		{"folds 1", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-folds", "1"}, "-folds 1"},
		{"inner 1", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-inner", "1"}, "-inner 1"},
		{"threads -1", []string{"-data", dir, "-kernel", "walk", "-p", "length=1", "-threads", "-1"}, "-threads -1"},
		{"missing data", []string{"-kernel", "walk", "-p", "length=1"}, "-data is required"},
	}
	if mutag := filepath.Join(graphtest.DataDir(), "MUTAG"); graphtest.DataDir() != "" {
		// MUTAG has 188 graphs: 94 per outer training part with 2 folds.
		tests = append(tests,
			cvCase{"more folds than graphs", []string{"-data", mutag, "-kernel", "walk", "-p", "length=1", "-folds", "189"}, "has only 188 graphs"},
			cvCase{"more inner folds than training graphs", []string{"-data", mutag, "-kernel", "walk", "-p", "length=1", "-folds", "2", "-inner", "95"}, "have only 94 graphs"},
		)
	}
	for _, tc := range tests {
		code, _, stderr := runCV(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", tc.name, code, stderr, tc.msg)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: stderr has more than one line: %q", tc.name, stderr)
		}
	}
}

// TestCVMUTAG runs a small cross-validation end to end and checks that the
// report names the candidates and adds up.
func TestCVMUTAG(t *testing.T) {
	graphtest.Dataset(t, "MUTAG") // skips when the data are absent
	dir := filepath.Join(graphtest.DataDir(), "MUTAG")
	code, out, stderr := runCV(t, "-data", dir, "-kernel", "walk", "-p", "length=1,2",
		"-reps", "2", "-folds", "3", "-inner", "3", "-seed", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"data: MUTAG, 188 graphs, 2 classes; kernel walk (explicit), 2 candidate(s)",
		"time: kernel matrices",
		"protocol: 2×3-fold, inner 3-fold, seed 5, normalisation select",
		// 2 reps × 3 folds × (2 candidates × 2 variants × 7 C × 3 inner + 1) = 6 × 85.
		"510 fits",
		"accuracy: ",
		"chosen in 6 outer folds:",
		"length=1", "length=2", "normalised", "C=1000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(stderr, "gram: MUTAG"); n != 2 {
		t.Errorf("%d gram reports on stderr, want one per candidate:\n%s", n, stderr)
	}
	// The same seed gives the same report, apart from the timings.
	_, again, _ := runCV(t, "-data", dir, "-kernel", "walk", "-p", "length=1,2",
		"-reps", "2", "-folds", "3", "-inner", "3", "-seed", "5", "-threads", "1")
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "time:") && !strings.HasPrefix(l, "protocol:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(out) != strip(again) {
		t.Errorf("same seed, different reports:\n%s\n%s", out, again)
	}
}
