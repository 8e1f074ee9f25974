package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/harness"
)

func TestPaperTable3(t *testing.T) {
	tab, err := PaperTable3()
	if err != nil {
		t.Fatal(err)
	}
	// Values from the paper's Table 3 (tab:times_discrete).
	tests := []struct {
		kernel, method, data string
		want                 Time
	}{
		{"FLRW_3", "implicit", "MUTAG", Time{Seconds: 0.617, Status: "ok"}},
		{"FLRW_3", "explicit", "MUTAG", Time{Seconds: 0.035, Status: "ok"}},
		{"SP", "implicit", "ENZYMES", Time{Seconds: 9*60 + 8, Status: "ok"}},
		{"CSM", "implicit", "PROTEINS", Time{Status: "oom"}},
		{"CSM", "implicit", "Synthie", Time{Status: "timeout"}},
		{"GL", "explicit", "U251", Time{Seconds: 3.512, Status: "ok"}},
	}
	for _, tc := range tests {
		r := tab.find(tc.kernel, tc.method)
		if r == nil {
			t.Fatalf("no row %s %s", tc.kernel, tc.method)
		}
		if got := r.Paper[tc.data]; got != tc.want {
			t.Errorf("%s %s %s: %+v, want %+v", tc.kernel, tc.method, tc.data, got, tc.want)
		}
	}
	if len(tab.Rows) != 24 || len(tab.Datasets) != 6 {
		t.Errorf("%d rows × %d data sets, want 24 × 6", len(tab.Rows), len(tab.Datasets))
	}
}

func TestFormatSeconds(t *testing.T) {
	tests := []struct {
		s    float64
		want string
	}{
		{0.0351, "0.0351"},
		{28.18, "28.18"},
		{548, "9min8s"},      // the paper's 9′8″
		{7615, "2h6min55s"},  // the paper's 2h6′55″
		{14416, "4h0min16s"}, // the paper's 4h0′16″
		{59.99999, "60"},     // four significant digits
		{3600, "1h0min0s"},
	}
	for _, tc := range tests {
		if got := FormatSeconds(tc.s); got != tc.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// writeRows writes a fixture results folder.
func writeRows(t *testing.T, rows []harness.Row) string {
	dir := t.TempDir()
	var b strings.Builder
	for _, r := range rows {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "cells.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadTable3(t *testing.T) {
	row := func(kernel, params, method, data, status string, total float64) harness.Row {
		return harness.Row{Kernel: kernel, Params: params, Method: method, Status: status, Total: total,
			Coords: map[string]string{"dataset": data}, Data: data, Graphs: 188}
	}
	dir := writeRows(t, []harness.Row{
		row("walk", "length=3", "explicit", "MUTAG", "ok", 0.002),
		row("walk", "length=3", "explicit", "MUTAG", "ok", 0.004),
		row("walk", "length=3", "implicit", "MUTAG", "ok", 0.05),
		row("walk", "length=3", "implicit", "MUTAG", "timeout", 0),
		row("csm", "", "implicit", "PROTEINS", "timeout", 0),
		row("sp", "", "explicit", "ENZYMES", "oom", 0),
		row("graphlet", "", "explicit", "MUTAG", "error: boom", 0),
	})
	tab, err := ReadTable3(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kernel, method, data string
		want                 Time
	}{
		// The mean of the two finished runs, (0.002+0.004)/2.
		{"FLRW_3", "explicit", "MUTAG", Time{Seconds: 0.003, Status: "ok", Runs: 2, Graphs: 188}},
		// A timed-out repetition does not count when others finished.
		{"FLRW_3", "implicit", "MUTAG", Time{Seconds: 0.05, Status: "ok", Runs: 1, Graphs: 188}},
		{"CSM", "implicit", "PROTEINS", Time{Status: "timeout", Graphs: 188}},
		{"SP", "explicit", "ENZYMES", Time{Status: "oom", Graphs: 188}},
		{"GL", "explicit", "MUTAG", Time{Status: "error", Graphs: 188}},
		{"FLRW_9", "explicit", "U251", Time{Status: "missing"}},
	}
	for _, tc := range tests {
		if got := tab.find(tc.kernel, tc.method).Ours[tc.data]; got != tc.want {
			t.Errorf("%s %s %s: %+v, want %+v", tc.kernel, tc.method, tc.data, got, tc.want)
		}
	}
	var md, tex strings.Builder
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	// Ours beside the paper's, and the ratio 0.003/0.05 = 0.06 beside the
	// paper's 0.035/0.617 = 0.0567.
	for _, want := range []string{"| FLRW_3 | explicit | 0.003 (0.035) |", "| FLRW_3 / FLRW_3 | 0.06 (0.0567) |", ">limit (OOM)", "MUTAG: [188] graphs"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := tab.WriteLaTeX(&tex); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\\begin{tabular}", "FLRW$_3$ & explicit & 0.003 (0.035)", "$>$limit (OOM)"} {
		if !strings.Contains(tex.String(), want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, tex.String())
		}
	}
}
