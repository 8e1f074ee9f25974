package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/gkbench/gkbench/harness"
)

// cmdSpeedUp prints the speed-up of the runs of one results folder over
// another's, cell by cell: the same spec run on one thread and on more;
// over several such pairs, rounds run by turns, the median of each
// round's speed-up.
func cmdSpeedUp(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("speedup")
	target := fs.Float64("target", 1.8, "speed-up that the summary counts the cells against")
	dirs, err := parseInterspersed(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(dirs) < 2 || len(dirs)%2 != 0 {
		return usagef("want results folders of one spec in pairs, a round each: FEWER-THREADS MORE-THREADS [FEWER MORE ...]")
	}
	if !(*target > 0) {
		return usagef("-target must be > 0")
	}
	sets, err := readRowSets(dirs)
	if err != nil {
		return err
	}
	rounds := make([][2][]harness.Row, len(sets)/2)
	for k := range rounds {
		rounds[k] = [2][]harness.Row{sets[2*k], sets[2*k+1]}
	}
	ups, onlyA, onlyB := harness.SpeedUpRounds(rounds)
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
		return fmt.Errorf("the folders share no cell with ok runs on both sides (%d only on fewer threads, %d only on more)", onlyA, onlyB)
	}
	fmt.Fprintf(stdout, "%d cell methods with ok runs on both sides in %s: speed-up %.2f× in the median (%.2f–%.2f), %d at or above %g×, %d below; %d without ok runs on a side; %d only on fewer threads, %d only on more\n",
		len(ratios), roundsOf(len(rounds)), harness.Median(ratios), slices.Min(ratios), slices.Max(ratios), reached, *target, len(ratios)-reached,
		len(ups)-len(ratios), onlyA, onlyB)
	return nil
}

// roundsOf says n rounds in words.
func roundsOf(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}
