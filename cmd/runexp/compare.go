package main

import (
	"context"
	"fmt"
	"io"

	"github.com/gkbench/gkbench/harness"
)

// cmdCompare compares two results folders cell by cell and fails when a
// cell got significantly slower.
func cmdCompare(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare")
	alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test")
	threshold := fs.Float64("threshold", 0.1, "smallest relative change of the median time reported, e.g. 0.1 for 10%")
	all := fs.Bool("all", false, "print unchanged cells too")
	dirs, err := parseInterspersed(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(dirs) != 2 {
		return usagef("want two results folders: OLD NEW")
	}
	if !(*alpha > 0 && *alpha < 1) || !(*threshold > 0) {
		return usagef("-alpha must be in (0,1) and -threshold > 0")
	}
	sets, err := readRowSets(dirs)
	if err != nil {
		return err
	}
	c := harness.Compare(sets[0], sets[1], harness.CompareOptions{Alpha: *alpha, Threshold: *threshold})
	counts := map[string]int{}
	for _, ch := range c.Changes {
		counts[ch.Kind]++
		if ch.Kind != "unchanged" || *all {
			fmt.Fprintln(stdout, ch)
		}
	}
	fmt.Fprintf(stdout, "%d cell methods compared: %d regressions, %d newly failing, %d improvements, %d fixed, %d unchanged, %d slower with fewer cores, %d slower with cores far apart; %d only in %s, %d only in %s\n",
		len(c.Changes), counts["regression"], counts["status"], counts["improvement"], counts["fixed"], counts["unchanged"],
		counts["fewer-cores"], counts["far-cores"], c.OnlyOld, dirs[0], c.OnlyNew, dirs[1])
	if n := len(c.Regressions()); n > 0 {
		return fmt.Errorf("%d significant regressions (p < %g, slower by more than %g%%)", n, *alpha, 100**threshold)
	}
	return nil
}

// readRowSets reads the results rows of each folder of dirs, each of
// which must hold some.
func readRowSets(dirs []string) ([][]harness.Row, error) {
	sets := make([][]harness.Row, len(dirs))
	for i, d := range dirs {
		rows, _, err := harness.ReadRows(d)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", d, err)
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("%s holds no results (no cells.jsonl rows)", d)
		}
		sets[i] = rows
	}
	return sets, nil
}
