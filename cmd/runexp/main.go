// Command runexp runs gkbench: it computes kernel matrices, runs experiment
// specs, and reports on their results. See doc.go for the subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/gkbench/gkbench/kernels"
)

// command is one subcommand. run returns a usageError for bad invocations
// (exit status 2) and any other error for failures (exit status 1).
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// usageError marks errors in how runexp was called: bad flags, unknown
// kernels or parameters, values out of range.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func commands() map[string]command {
	return map[string]command{
		"stats":     {"print a data set's Table 2 row", cmdStats},
		"synth":     {"generate a synthetic data set in TU format", cmdSynth},
		"gram":      {"compute a kernel matrix", cmdGram},
		"advise":    {"predict both methods' times from cheap probes, without computing", cmdAdvise},
		"calibrate": {"measure this machine's cost constants for the advice of -method auto", cmdCalibrate},
		"table":     {"print the paper's Table 3 beside a table3-discrete results folder", cmdTable},
		"compare":   {"compare two results folders and fail on significant regressions", cmdCompare},
		"speedup":   {"print the speed-up of a spec's runs on more threads over its runs on fewer, by rounds", cmdSpeedUp},
		"report":    {"compile the results folders into results/REPORT.md and its HTML twin", cmdReport},
		"run":       {"run experiment specs and record their results", cmdRun},
		"validate":  {"check experiment specs without running them", cmdValidate},
		"list":      {"list experiment specs with grid sizes and estimated times", cmdList},
		"merge":     {"join the results folders of shards into one", cmdMerge},
		"plot":      {"draw the figures of results folders", cmdPlot},
		"cv":        {"estimate a kernel's accuracy by nested cross-validation", cmdCV},
		"data":      {"download the TU data sets and check them against their recorded sums", cmdData},
	}
}

func main() {
	kernels.ReexecMadvFree()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Gram matrices on several threads keep their helpers awake between
	// their parallel stretches and from one matrix to the next.
	ctx = kernels.WithCrew(ctx, kernels.NewCrew(kernels.DefaultLinger))
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the subcommand in args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" || args[0] == "--help" {
		printUsage(stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "runexp: unknown command %q (run 'runexp help' for the list)\n", args[0])
		return 2
	}
	err := c.run(ctx, args[1:], stdout, stderr)
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "runexp %s: %v\n", args[0], err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: runexp COMMAND [flags]")
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "run 'runexp COMMAND -h' for a command's flags")
}
