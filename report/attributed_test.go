package report

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/harness"
)

// attrFolder builds a fig-attributed folder from accuracies given as
// dataset → kernel → {P=1, P=64, exact}; a negative value is an oom cell.
func attrFolder(acc map[string]map[string][3]float64) *Folder {
	f := &Folder{}
	for d, ks := range acc {
		f.Rows = append(f.Rows, harness.Row{Kernel: "gi", Method: "implicit", Coords: map[string]string{"dataset": d}})
		for k, v := range ks {
			for i, p := range []string{"1", "64", ""} {
				a := harness.AccuracyRow{Kernel: k, Method: "explicit", Mean: v[i], Status: harness.StatusOK, Reps: 3, Folds: 10,
					Coords: map[string]string{"dataset": d, "iterations": p}}
				if p == "" {
					a.Method = "implicit"
				}
				if v[i] < 0 {
					a.Status = harness.StatusOOM
				}
				f.Accuracy = append(f.Accuracy, a)
			}
		}
	}
	return f
}

// TestAttributedClaims checks the two accuracy claims of Section 5.2 on
// made-up accuracies: the paper's pattern (GI best on two sets and within
// 2 points on the others; explicit closing in on exact on ENZYMES and
// Synthie) and its breaking.
func TestAttributedClaims(t *testing.T) {
	paper := map[string]map[string][3]float64{
		"ENZYMES":      {"gh": {60, 68, 69}, "gi": {64, 72, 72}, "sp": {62, -1, 70}},
		"PROTEINS":     {"gh": {74, 74, 74}, "gi": {75, 75, 75}, "sp": {74, -1, 74}},
		"SYNTHETICnew": {"gh": {90, 80, 85}, "gi": {97, 95, 96}, "sp": {97, -1, 97}},
		"Synthie":      {"gh": {70, 80, 82}, "gi": {80, 90, 91}, "sp": {85, -1, 92}},
	}
	behind := map[string]map[string][3]float64{
		"ENZYMES": {"gh": {60, 68, 69}, "gi": {60, 61, 65}, "sp": {62, -1, 70}},
		"Synthie": {"gh": {70, 80, 82}, "gi": {80, 90, 91}, "sp": {85, -1, 92}},
	}
	diverging := map[string]map[string][3]float64{
		"ENZYMES": {"gh": {68, 60, 69}, "gi": {64, 72, 72}, "sp": {62, -1, 70}},
		"Synthie": {"gh": {70, 80, 82}, "gi": {80, 90, 91}, "sp": {85, -1, 90}},
	}
	tests := []struct {
		name        string
		acc         map[string]map[string][3]float64
		best, appr  string
		bestEvident string
	}{
		{"paper", paper, Reproduced, Reproduced, "Synthie: GI competitive, 91.0 % (SP 92.0 %)"},
		{"GI behind", behind, NotReproduced, Reproduced, "ENZYMES: GI behind, 65.0 % (SP 70.0 %)"},
		{"explicit diverging", diverging, Reproduced, NotReproduced, "ENZYMES: GI best"},
	}
	for _, tc := range tests {
		f := attrFolder(tc.acc)
		if st, ev := checkGIBest(f); st != tc.best || !strings.Contains(ev, tc.bestEvident) {
			t.Errorf("%s: GI best = %s (%s), want %s with %q", tc.name, st, ev, tc.best, tc.bestEvident)
		}
		if st, ev := checkExplicitApproaches(f); st != tc.appr {
			t.Errorf("%s: explicit approaches = %s (%s), want %s", tc.name, st, ev, tc.appr)
		}
	}
}

// TestSPAttributedOOM checks the claim that explicit SP runs out of memory
// from some number of binning iterations on every set, and that its
// evidence tells a cell refused by the estimate from one that ran out.
func TestSPAttributedOOM(t *testing.T) {
	row := func(d string, p int, status, note string) harness.Row {
		return harness.Row{Kernel: "sp", Method: "explicit", Status: status, Note: note,
			Coords: map[string]string{"dataset": d, "iterations": strconv.Itoa(p)}}
	}
	refused := "not run: the kernel estimates 5.2 GiB, over the memory limit"
	tests := []struct {
		name   string
		rows   []harness.Row
		status string
		ev     string
	}{
		{"ran out", []harness.Row{row("ENZYMES", 1, harness.StatusOK, ""), row("ENZYMES", 16, harness.StatusOK, ""), row("ENZYMES", 64, harness.StatusOOM, "")},
			Reproduced, "ENZYMES: explicit SP finished up to P = 16, out of memory from P = 64 ("},
		{"refused", []harness.Row{row("Synthie", 4, harness.StatusOK, ""), row("Synthie", 16, harness.StatusOOM, refused), row("Synthie", 64, harness.StatusOOM, "not run: repetition 1 hit the oom limit")},
			Reproduced, "Synthie: explicit SP finished up to P = 4, out of memory from P = 16 (not run: estimated 5.2 GiB)"},
		{"never", []harness.Row{row("ENZYMES", 16, harness.StatusOOM, ""), row("PROTEINS", 1, harness.StatusOK, ""), row("PROTEINS", 64, harness.StatusOK, "")},
			NotReproduced, "PROTEINS: explicit SP finished up to P = 64, out of memory from P = -1"},
	}
	for _, tc := range tests {
		st, ev := checkSPAttributedOOM(&Folder{Rows: tc.rows})
		if st != tc.status || !strings.Contains(ev, tc.ev) {
			t.Errorf("%s: %s (%s), want %s with %q", tc.name, st, ev, tc.status, tc.ev)
		}
	}
}
