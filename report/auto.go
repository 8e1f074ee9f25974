package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/gkbench/gkbench/harness"
)

// AutoSummary compares the automatic choice of the method with the oracle
// that always knows the faster one, over the cells of a results folder
// that ran explicit, implicit and auto.
type AutoSummary struct {
	// Cells counts the cells with all three methods finished, Picked those
	// where auto chose the method that was faster.
	Cells, Picked int
	// Auto and Oracle are the summed mean times; Worst is the largest
	// ratio of auto to oracle in one cell, at WorstCell.
	Auto, Oracle float64
	Worst        float64
	WorstCell    string
}

// Ratio returns the total time of auto against the oracle's.
func (s AutoSummary) Ratio() float64 { return s.Auto / s.Oracle }

// SummarizeAuto computes the summary from the rows of an auto-vs-oracle
// run.
func SummarizeAuto(rows []harness.Row) AutoSummary {
	type cell struct {
		mean  map[string]float64
		count map[string]int
		chose map[string]int
	}
	cells := map[string]*cell{}
	var order []string
	for i := range rows {
		r := &rows[i]
		if r.Status != harness.StatusOK {
			continue
		}
		c := cells[r.Cell]
		if c == nil {
			c = &cell{mean: map[string]float64{}, count: map[string]int{}, chose: map[string]int{}}
			cells[r.Cell] = c
			order = append(order, r.Cell)
		}
		n := float64(c.count[r.Method])
		c.mean[r.Method] = (c.mean[r.Method]*n + r.Total) / (n + 1)
		c.count[r.Method]++
		if r.Method == "auto" {
			for _, m := range []string{"explicit", "implicit"} {
				if strings.Contains(r.Note, "auto chose "+m) {
					c.chose[m]++
				}
			}
		}
	}
	var s AutoSummary
	for _, k := range order {
		c := cells[k]
		e, eok := c.mean["explicit"]
		i, iok := c.mean["implicit"]
		a, aok := c.mean["auto"]
		if !eok || !iok || !aok {
			continue
		}
		s.Cells++
		best, faster := math.Min(e, i), "explicit"
		if i < e {
			faster = "implicit"
		}
		if c.chose[faster] >= c.chose[other(faster)] {
			s.Picked++
		}
		s.Auto += a
		s.Oracle += best
		if r := a / best; r > s.Worst {
			s.Worst, s.WorstCell = r, k
		}
	}
	return s
}

func other(m string) string {
	if m == "explicit" {
		return "implicit"
	}
	return "explicit"
}

// String formats the summary for the report.
func (s AutoSummary) String() string {
	if s.Cells == 0 {
		return "no cell has finished runs of all three methods"
	}
	return fmt.Sprintf("auto picked the faster method in %d of %d cells; total time %.3g s against the oracle's %.3g s (%.2f×, target ≤ 1.15×); worst cell %.2f× (target ≤ 2×) at %s",
		s.Picked, s.Cells, s.Auto, s.Oracle, s.Ratio(), s.Worst, s.WorstCell)
}
