package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/harness"
)

// fixture writes a results folder for spec with the given rows.
func fixture(t *testing.T, root, spec string, rows []harness.Row, acc []harness.AccuracyRow) {
	t.Helper()
	dir := filepath.Join(root, spec)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta, _ := json.Marshal(harness.Meta{Spec: spec, Profile: "quick", Status: "complete", Rows: len(rows), CPUModel: "test CPU"})
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name string, v []any) {
		var b strings.Builder
		for _, x := range v {
			line, _ := json.Marshal(x)
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var rs, as []any
	for _, r := range rows {
		rs = append(rs, r)
	}
	for _, a := range acc {
		as = append(as, a)
	}
	write("cells.jsonl", rs)
	write("accuracy.jsonl", as)
}

func walkRow(coords map[string]string, method string, total float64, status string) harness.Row {
	return harness.Row{Cell: fmt.Sprint(coords), Coords: coords, Kernel: "walk", Method: method, Status: status, Total: total, WDPG: total / 2}
}

// diversityRows has explicit time 10·p_V and implicit time 3 at d = 300:
// equal at p_V = 0.3, implicit faster above. cross moves the crossing.
func diversityRows(cross float64) []harness.Row {
	var rows []harness.Row
	for i := 0; i <= 10; i++ {
		pv := fmt.Sprint(float64(i) / 10)
		c := map[string]string{"pv": pv, "d": "300"}
		rows = append(rows, walkRow(c, "explicit", float64(i)/10/cross+0.01, harness.StatusOK), walkRow(c, "implicit", 1, harness.StatusOK))
	}
	return rows
}

func TestClaimChecks(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		rows   []harness.Row
		acc    []harness.AccuracyRow
		claim  string
		status string
	}{
		// Explicit slower than implicit from p_V = 0.4 on.
		{"crossover at 0.3", "fig-walk-label-diversity", diversityRows(0.35), nil, "walk-crossover-pv", Reproduced},
		{"crossover at 0.7", "fig-walk-label-diversity", diversityRows(0.75), nil, "walk-crossover-pv", NotReproduced},
		// SP implicit 100× slower, or timed out, on both data sets.
		{"sp orders of magnitude", "table3-discrete", []harness.Row{
			{Kernel: "sp", Method: "explicit", Status: "ok", Total: 0.01, Coords: map[string]string{"dataset": "MUTAG"}},
			{Kernel: "sp", Method: "implicit", Status: "ok", Total: 1, Coords: map[string]string{"dataset": "MUTAG"}},
			{Kernel: "sp", Method: "explicit", Status: "ok", Total: 0.01, Coords: map[string]string{"dataset": "U251"}},
			{Kernel: "sp", Method: "implicit", Status: "timeout", Coords: map[string]string{"dataset": "U251"}},
		}, nil, "sp-explicit-faster", Reproduced},
		// Only 2× on one data set.
		{"sp only 2x", "table3-discrete", []harness.Row{
			{Kernel: "sp", Method: "explicit", Status: "ok", Total: 0.5, Coords: map[string]string{"dataset": "MUTAG"}},
			{Kernel: "sp", Method: "implicit", Status: "ok", Total: 1, Coords: map[string]string{"dataset": "MUTAG"}},
		}, nil, "sp-explicit-faster", NotReproduced},
		// An explicit map that ran out of memory is no win.
		{"gl oom", "table3-discrete", []harness.Row{
			{Kernel: "graphlet", Method: "explicit", Status: "oom", Coords: map[string]string{"dataset": "MUTAG"}},
			{Kernel: "csm", Method: "implicit", Status: "ok", Total: 1, Coords: map[string]string{"dataset": "MUTAG"}},
		}, nil, "gl-beats-csm", NotReproduced},
		// Accuracy peaks at l = 3 and 6 (±1 accepted).
		{"accuracy peaks", "fig-walk-length-mutag-enzymes", []harness.Row{walkRow(map[string]string{"dataset": "MUTAG", "length": "0"}, "explicit", 1, "ok")},
			[]harness.AccuracyRow{
				{Kernel: "walk", Status: "ok", Mean: 80, Coords: map[string]string{"dataset": "MUTAG", "length": "1"}},
				{Kernel: "walk", Status: "ok", Mean: 88, Coords: map[string]string{"dataset": "MUTAG", "length": "4"}},
				{Kernel: "walk", Status: "ok", Mean: 30, Coords: map[string]string{"dataset": "ENZYMES", "length": "2"}},
				{Kernel: "walk", Status: "ok", Mean: 40, Coords: map[string]string{"dataset": "ENZYMES", "length": "6"}},
			}, "walk-accuracy-peaks", Reproduced},
	}
	for _, tc := range tests {
		root := t.TempDir()
		fixture(t, root, tc.spec, tc.rows, tc.acc)
		folders, err := LoadFolders(root)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := CheckClaims(folders)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			switch {
			case o.Claim.ID == tc.claim && o.Status != tc.status:
				t.Errorf("%s: %s is %q, want %q (%s)", tc.name, tc.claim, o.Status, tc.status, o.Evidence)
			case o.Claim.Spec != tc.spec && o.Status != NotRun:
				t.Errorf("%s: %s is %q without its results", tc.name, o.Claim.ID, o.Status)
			}
		}
	}
}

// TestClaimsHaveChecks keeps the data file and the checks in step.
func TestClaimsHaveChecks(t *testing.T) {
	cs, err := Claims()
	if err != nil {
		t.Fatal(err)
	}
	impl := checks()
	for _, c := range cs {
		if impl[c.ID] == nil {
			t.Errorf("claim %s has no check", c.ID)
		}
		delete(impl, c.ID)
		if c.Sentence == "" || c.Spec == "" {
			t.Errorf("claim %s lacks its sentence or spec", c.ID)
		}
	}
	for id := range impl {
		t.Errorf("check %s has no claim in claims.yaml", id)
	}
}

// TestReport builds the report from fixtures with missing, timeout and
// oom cells, and checks both renderings.
func TestReport(t *testing.T) {
	root := t.TempDir()
	fixture(t, root, "fig-walk-label-diversity", diversityRows(0.35), nil)
	fixture(t, root, "table3-discrete", []harness.Row{
		{Kernel: "csm", Method: "implicit", Status: "timeout", Coords: map[string]string{"dataset": "Synthie"}, Data: "Synthie"},
		{Kernel: "sp", Method: "explicit", Status: "oom", Coords: map[string]string{"dataset": "PROTEINS"}, Data: "PROTEINS"},
	}, nil)
	figs := filepath.Join(root, "fig-walk-label-diversity", "figures")
	if err := os.MkdirAll(figs, 0o755); err != nil {
		t.Fatal(err)
	}
	// A one-pixel PNG and its caption.
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	os.WriteFile(filepath.Join(figs, "pv_d_time_both.png"), png, 0o644)
	os.WriteFile(filepath.Join(figs, "pv_d_time_both.md"), []byte("Both methods."), 0o644)
	out := filepath.Join(root, "REPORT.md")
	if err := Write(root, out); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out)
	for _, want := range []string{
		"## Claims checklist", "| 5.3.1 | reproduced |", "not run | no results of spec fig-attributed",
		">limit (>limit)", // CSM on Synthie: ours timed out, as the paper's >24h
		"OOM", "![pv_d_time_both.png](fig-walk-label-diversity/figures/pv_d_time_both.png)",
		"U251 graphs", "Not run: no accuracy rows",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	h, _ := os.ReadFile(filepath.Join(root, "REPORT.html"))
	if !strings.Contains(string(h), "data:image/png;base64,") || !strings.Contains(string(h), "<h2>Claims checklist</h2>") {
		t.Error("REPORT.html lacks the embedded figure or the checklist")
	}
}

func TestSummarizeAuto(t *testing.T) {
	row := func(cell, method string, total float64, note string) harness.Row {
		return harness.Row{Cell: cell, Method: method, Status: "ok", Total: total, Note: note}
	}
	s := SummarizeAuto([]harness.Row{
		// A: explicit is faster and auto picks it, at 1.1 s.
		row("A", "explicit", 1, ""), row("A", "implicit", 2, ""), row("A", "auto", 1.1, "auto chose explicit (...)"),
		// B: implicit is faster but auto picks explicit, at 2.5 s.
		row("B", "explicit", 3, ""), row("B", "implicit", 1, ""), row("B", "auto", 2.5, "auto chose explicit (...)"),
		// C: auto did not finish, so C is not compared.
		row("C", "explicit", 1, ""), row("C", "implicit", 1, ""),
	})
	// Totals 1.1+2.5 = 3.6 against 1+1 = 2; the worst cell is B, 2.5/1.
	if s.Cells != 2 || s.Picked != 1 || math.Abs(s.Auto-3.6) > 1e-12 || s.Oracle != 2 || s.Worst != 2.5 || s.WorstCell != "B" {
		t.Errorf("summary %+v", s)
	}
}
