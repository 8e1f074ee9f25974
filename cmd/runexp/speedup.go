package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/gkbench/gkbench/harness"
)

// cmdSpeedUp prints the speed-up of the runs of one results folder over
// another's, cell by cell: the same spec run on one thread and on more.
func cmdSpeedUp(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("speedup")
	target := fs.Float64("target", 1.8, "speed-up that the summary counts the cells against")
	dirs, err := parseInterspersed(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(dirs) != 2 {
		return usagef("want two results folders of one spec: FEWER-THREADS MORE-THREADS")
	}
	if !(*target > 0) {
		return usagef("-target must be > 0")
	}
	sets, err := readRowPair(dirs)
	if err != nil {
		return err
	}
	ups, onlyA, onlyB := harness.SpeedUps(sets[0], sets[1])
	var ratios []float64
	reached := 0
	for _, u := range ups {
		fmt.Fprintln(stdout, u)
		if u.Ratio > 0 {
			ratios = append(ratios, u.Ratio)
			if u.Ratio >= *target {
				reached++
			}
		}
	}
	if len(ratios) == 0 {
		return fmt.Errorf("%s and %s share no cell with ok runs on both sides (%d only in the first, %d only in the second)", dirs[0], dirs[1], onlyA, onlyB)
	}
	fmt.Fprintf(stdout, "%d cell methods with ok runs on both sides: speed-up %.2f× in the median (%.2f–%.2f), %d at or above %g×, %d below; %d without ok runs on a side; %d only in %s, %d only in %s\n",
		len(ratios), harness.Median(ratios), slices.Min(ratios), slices.Max(ratios), reached, *target, len(ratios)-reached,
		len(ups)-len(ratios), onlyA, dirs[0], onlyB, dirs[1])
	return nil
}
