package main

import (
	"context"
	"fmt"
	"io"

	"github.com/gkbench/gkbench/kernels"
)

// cmdAdvise predicts the time of both methods of a kernel on a data set
// from cheap probes, without computing the matrix.
func cmdAdvise(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("advise")
	data := fs.String("data", "", "TU data folder, or data set name looked up on the data path")
	kname := fs.String("kernel", "walk", "kernel name (one with both methods)")
	var params paramFlag
	fs.Var(&params, "p", "kernel parameter key=value (repeatable)")
	seed := fs.Uint64("seed", 1, "seed of the probes' samples")
	costsPath := fs.String("costs", "", "costs `file` of runexp calibrate (default: $"+costsEnv+", else the user's, else built-in)")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	k, err := kernels.New(*kname, params.p)
	if err != nil {
		return usageError{err}
	}
	adv, ok := k.(kernels.Advisor)
	if !ok {
		return usagef("kernel %s cannot predict its methods' times", *kname)
	}
	costs, source, err := loadCosts(*costsPath)
	if err != nil {
		return err
	}
	ds, err := loadData(*data)
	if err != nil {
		return err
	}
	a, err := adv.Advise(ctx, ds.Graphs, kernels.AdviseOptions{Seed: *seed, Costs: costs})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s, %d graphs, kernel %s\n", ds.Name, ds.Len(), *kname)
	fmt.Fprintf(stdout, "constants: %s\n", source)
	for _, p := range []kernels.Prediction{a.Explicit, a.Implicit} {
		fmt.Fprintf(stdout, "%-8s  %10.4g s  %s\n", p.Method, p.Seconds, p.Why())
		fmt.Fprint(stdout, kernels.FormatTerms(a.Terms.Of(p.Method), "    "))
	}
	fmt.Fprintf(stdout, "faster: %s (probes took %.3g s)\n", a.Choice, a.Probe.Seconds())
	switch first := a.First(k); {
	case first == kernels.Explicit && kernels.CanSwitch(k):
		fmt.Fprintf(stdout, "auto runs: explicit, switching to implicit if its maps are projected too slow\n")
	default:
		fmt.Fprintf(stdout, "auto runs: %s\n", first)
	}
	return nil
}
