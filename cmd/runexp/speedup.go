package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/gkbench/gkbench/harness"
)

// cmdSpeedUp prints the speed-up of the runs of one results folder over
// another's, cell by cell: the same spec run on one thread and on more;
// over several such pairs, rounds run by turns, the median of each
// round's speed-up. It also counts the cells against the target by the
// fastest run of each side, and by where the machine had put the cores of
// the runs on more threads, near or far apart.
func cmdSpeedUp(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("speedup")
	target := fs.Float64("target", 1.8, "speed-up that the summary counts the cells against")
	far := fs.Duration("far", defaultFarC2C, "round trip between the cores, measured before each run (t_c2c), at or above which the run's cores count as far apart (0: no split)")
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
	if *far < 0 {
		return usagef("-far must be >= 0")
	}
	sets, err := readRowSets(dirs)
	if err != nil {
		return err
	}
	rounds := make([][2][]harness.Row, len(sets)/2)
	for k := range rounds {
		rounds[k] = [2][]harness.Row{sets[2*k], sets[2*k+1]}
	}
	ups, onlyA, onlyB := harness.SpeedUpRounds(rounds, far.Seconds())
	var ratios, fastest, near, apart []float64
	for _, u := range ups {
		fmt.Fprintln(stdout, u)
		if u.Ratio > 0 {
			ratios = append(ratios, u.Ratio)
		}
		if u.Fastest > 0 {
			fastest = append(fastest, u.Fastest)
		}
		if u.Near.Ratio > 0 {
			near = append(near, u.Near.Ratio)
		}
		if u.Far.Ratio > 0 {
			apart = append(apart, u.Far.Ratio)
		}
	}
	if len(ratios) == 0 {
		return fmt.Errorf("the folders share no cell with ok runs on both sides (%d only on fewer threads, %d only on more)", onlyA, onlyB)
	}
	reached := atLeast(ratios, *target)
	fmt.Fprintf(stdout, "%d cell methods with ok runs on both sides in %s: speed-up %.2f× in the median (%.2f–%.2f), %d at or above %g×, %d below; %d without ok runs on a side; %d only on fewer threads, %d only on more\n",
		len(ratios), roundsOf(len(rounds)), harness.Median(ratios), slices.Min(ratios), slices.Max(ratios), reached, *target, len(ratios)-reached,
		len(ups)-len(ratios), onlyA, onlyB)
	fmt.Fprintf(stdout, "by the fastest run of each side: %s\n", placedSummary(fastest, *target))
	if *far > 0 && len(near)+len(apart) > 0 {
		fmt.Fprintf(stdout, "by the cores' placement before each run (near: a round trip below %v, far: at or above): near %s; far %s\n",
			*far, placedSummary(near, *target), placedSummary(apart, *target))
	}
	return nil
}

// defaultFarC2C is -far's default: between the two modes of the 2-vCPU VM
// of issue 9, whose round trip between the cores reads 80–120 ns where its
// host puts the vCPUs on cores that share a cache and 380–600 ns where it
// does not.
const defaultFarC2C = 250 * time.Nanosecond

// atLeast counts the ratios at or above target.
func atLeast(ratios []float64, target float64) int {
	n := 0
	for _, r := range ratios {
		if r >= target {
			n++
		}
	}
	return n
}

// placedSummary says how many of the cell methods with runs in one
// placement, of speed-ups ratios, reach target, and their median.
func placedSummary(ratios []float64, target float64) string {
	if len(ratios) == 0 {
		return "no cell method"
	}
	return fmt.Sprintf("%d cell methods, %d at or above %g×, speed-up %.2f× in the median (%.2f–%.2f)",
		len(ratios), atLeast(ratios, target), target, harness.Median(ratios), slices.Min(ratios), slices.Max(ratios))
}

// roundsOf says n rounds in words.
func roundsOf(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}
