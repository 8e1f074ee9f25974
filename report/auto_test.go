package report

import (
	"math"
	"strings"
	"testing"

	"github.com/gkbench/gkbench/harness"
)

func TestSummarizeAutoLimits(t *testing.T) {
	row := func(cell, method, status string, total float64, note string) harness.Row {
		return harness.Row{Cell: cell, Method: method, Status: status, Total: total, Note: note}
	}
	ran := func(r harness.Row, method string, switched bool) harness.Row {
		r.Ran, r.Switched = method, switched
		return r
	}
	ok, over := harness.StatusOK, harness.StatusTimeout
	tests := []struct {
		name string
		rows []harness.Row
		want AutoSummary
	}{{
		name: "implicit over the limit",
		rows: []harness.Row{
			row("A", "explicit", ok, 0.2, ""), row("A", "implicit", over, 5.1, ""),
			row("A", "implicit", over, 0, "not run: repetition 1 hit the timeout limit"),
			row("A", "auto", ok, 0.25, "auto chose explicit (...)"),
		},
		want: AutoSummary{Cells: 1, Picked: 1, Auto: 0.25, Oracle: 0.2, Worst: 1.25, WorstCell: "A", Limited: 1},
	}, {
		name: "auto over the limit counts at the time it ran",
		rows: []harness.Row{
			row("B", "explicit", ok, 1, ""), row("B", "implicit", over, 5, ""),
			row("B", "auto", over, 5.5, "auto chose implicit (...)"),
		},
		want: AutoSummary{Cells: 1, Picked: 0, Auto: 5.5, Oracle: 1, Worst: 5.5, WorstCell: "B", Limited: 1},
	}, {
		name: "neither method finished",
		rows: []harness.Row{
			row("C", "explicit", over, 5, ""), row("C", "implicit", over, 5, ""),
			row("C", "auto", over, 5, "auto chose implicit (...)"),
		},
		want: AutoSummary{},
	}, {
		name: "means over repetitions, errors left out",
		rows: []harness.Row{
			row("D", "explicit", ok, 2, ""), row("D", "explicit", ok, 4, ""),
			row("D", "implicit", ok, 1, ""), row("D", "implicit", ok, 2, ""),
			row("D", "auto", ok, 1.5, "auto chose implicit (...)"), row("D", "auto", "error: boom", 0, ""),
		},
		want: AutoSummary{Cells: 1, Picked: 1, Auto: 1.5, Oracle: 1.5, Worst: 1, WorstCell: "D"},
	}, {
		// The note's text is the harness's (safeGram).
		name: "a switch to implicit counts as choosing implicit",
		rows: []harness.Row{
			row("E", "explicit", ok, 3, ""), row("E", "implicit", ok, 1, ""),
			row("E", "auto", ok, 1.2, "auto chose explicit (...), then switched to implicit after 0.2s: ..."),
		},
		want: AutoSummary{Cells: 1, Picked: 1, Auto: 1.2, Oracle: 1, Worst: 1.2, WorstCell: "E", Switched: 1},
	}, {
		// Rows with the ran and switched columns go by them, whatever
		// the note says.
		name: "the ran column over the note",
		rows: []harness.Row{
			row("F", "explicit", ok, 3, ""), row("F", "implicit", ok, 1, ""),
			ran(row("F", "auto", ok, 1.2, "auto chose explicit (...)"), "implicit", true),
			ran(row("F", "auto", ok, 1.4, ""), "implicit", false),
		},
		want: AutoSummary{Cells: 1, Picked: 1, Auto: 1.3, Oracle: 1, Worst: 1.3, WorstCell: "F", Switched: 1},
	}, {
		name: "the ran column, explicit",
		rows: []harness.Row{
			row("G", "explicit", ok, 3, ""), row("G", "implicit", ok, 1, ""),
			ran(row("G", "auto", ok, 3.1, "auto chose implicit (...)"), "explicit", false),
		},
		want: AutoSummary{Cells: 1, Picked: 0, Auto: 3.1, Oracle: 1, Worst: 3.1, WorstCell: "G"},
	}, {
		// One slow run of three: auto's mean is (1+1+4)/3 = 2 against
		// the explicit mean 1, its median 1 against the median 1.
		name: "a slow run moves the mean, not the median",
		rows: []harness.Row{
			row("H", "explicit", ok, 1, ""), row("H", "explicit", ok, 1, ""), row("H", "explicit", ok, 1, ""),
			row("H", "implicit", ok, 5, ""),
			ran(row("H", "auto", ok, 1, ""), "explicit", false), ran(row("H", "auto", ok, 4, ""), "explicit", false),
			ran(row("H", "auto", ok, 1, ""), "explicit", false),
		},
		want: AutoSummary{Cells: 1, Picked: 1, Auto: 2, Oracle: 1, Worst: 2, WorstCell: "H", WorstMedian: 1, WorstMedianCell: "H"},
	}, {
		// Medians of even counts: explicit (2+4)/2 = 3, implicit
		// (1+3)/2 = 2, auto (2+3)/2 = 2.5; the means are the same.
		name: "the median of two runs is their mean",
		rows: []harness.Row{
			row("I", "explicit", ok, 2, ""), row("I", "explicit", ok, 4, ""),
			row("I", "implicit", ok, 3, ""), row("I", "implicit", ok, 1, ""),
			ran(row("I", "auto", ok, 3, ""), "implicit", false), ran(row("I", "auto", ok, 2, ""), "implicit", false),
		},
		want: AutoSummary{Cells: 1, Picked: 1, Auto: 2.5, Oracle: 2, Worst: 1.25, WorstCell: "I", WorstMedian: 1.25, WorstMedianCell: "I"},
	}}
	for _, tc := range tests {
		if tc.want.WorstMedianCell == "" {
			// One run a method, or runs whose medians are their
			// means.
			tc.want.WorstMedian, tc.want.WorstMedianCell = tc.want.Worst, tc.want.WorstCell
		}
		got := SummarizeAuto(tc.rows)
		if got.Cells != tc.want.Cells || got.Picked != tc.want.Picked || got.Limited != tc.want.Limited || got.Switched != tc.want.Switched ||
			math.Abs(got.Auto-tc.want.Auto) > 1e-12 || math.Abs(got.Oracle-tc.want.Oracle) > 1e-12 ||
			math.Abs(got.Worst-tc.want.Worst) > 1e-12 || got.WorstCell != tc.want.WorstCell ||
			math.Abs(got.WorstMedian-tc.want.WorstMedian) > 1e-12 || got.WorstMedianCell != tc.want.WorstMedianCell {
			t.Errorf("%s: summary %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// Probes, from the t_probe column and from a note: the mean of
	// 0.1 s and 0.04 s is 0.07 s, over 5% of the oracle's 1 s; cell K's
	// 0.01 s is under 5% of its 0.5 s.
	probed := func(r harness.Row, p float64) harness.Row {
		r.Probe = p
		return r
	}
	probes := []harness.Row{
		row("J", "explicit", ok, 1, ""), row("J", "implicit", ok, 2, ""),
		probed(row("J", "auto", ok, 1.1, "auto chose explicit (predicted explicit 1s, implicit 2s; probes 0.5s)"), 0.1),
		row("J", "auto", ok, 1.1, "auto chose explicit (predicted explicit 1s, implicit 2s; probes 0.04s)"),
		row("K", "explicit", ok, 2, ""), row("K", "implicit", ok, 0.5, ""),
		probed(row("K", "auto", ok, 0.6, "auto chose implicit (...)"), 0.01),
	}
	got := SummarizeAuto(probes)
	if math.Abs(got.Probes-0.08) > 1e-12 || got.ProbesOver != 1 {
		t.Errorf("probes %g s, %d cells over 5%%; want 0.08 s, 1", got.Probes, got.ProbesOver)
	}
	if s := got.String(); !strings.Contains(s, "the probes took 4.7% of auto's total time, and over 5% of the oracle's time in 1 of the cells") {
		t.Errorf("summary %q lacks the probes' share", s)
	}

	s := SummarizeAuto(tests[0].rows).String()
	for _, want := range []string{"1 of 1 cells", "1.25×", "hit the time limit"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary %q lacks %q", s, want)
		}
	}
}

func TestAutoSection(t *testing.T) {
	r := &Report{}
	rows := []harness.Row{
		{Cell: "A", Method: "explicit", Status: "ok", Total: 1},
		{Cell: "A", Method: "implicit", Status: "ok", Total: 2},
		{Cell: "A", Method: "auto", Status: "ok", Total: 1, Note: "auto chose explicit (...)"},
	}
	r.autoSection(map[string]*Folder{"auto-vs-oracle-subgraph": {Rows: rows}})
	var text []string
	for _, b := range r.blocks {
		text = append(text, b.text)
	}
	all := strings.Join(text, "\n")
	for _, want := range []string{"Not run: no results of the auto-vs-oracle spec.", "The auto-vs-oracle-subgraph spec", "subgraph matching kernel", "1 of 1 cells", "Not run: no results of the auto-vs-oracle-attributed spec."} {
		if !strings.Contains(all, want) {
			t.Errorf("section %q lacks %q", all, want)
		}
	}
}
