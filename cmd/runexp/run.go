package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/term"

	"github.com/gkbench/gkbench/harness"
	"github.com/gkbench/gkbench/kernels"
)

// memoryCapTenths is the share of the machine's memory, in tenths, that a
// run's heap may take (see harness.Runner.MemoryCap): the rest is the
// runtime's and the system's, and the heap may pass the limit by what it
// allocates between two of the runner's samples.
const memoryCapTenths = 8

// gcFloorMiB is the default of run's -gc-floor (see harness.Runner.GCFloor).
// The collector's goal is twice the live heap, at least 4 MiB, and the
// runner collects before every run, so a run on MUTAG, whose live heap is
// under a MiB, went through a cycle every few MiB it allocated: the walk
// kernel at length 7 about once, at length 9 four or five times. On two
// threads each cycle stops both workers and its mark phase preempts them.
// Two threads took MUTAG's walk kernel at length 7 in 6.85–7.79 ms
// against one thread's 12.2–12.8 (1.57–1.79×), and gi on ENZYMES in
// 2.99–3.73 ms against 4.6–5.0 (1.31–1.57×); with a floor of 64 MiB,
// 6.02–6.64 ms (1.80–1.98×), and 2.50–2.62 ms (1.64–1.78×) in five rounds
// of six and 3.49 in one, one thread as before (rounds of 15 runs, the
// builds by turns). Cells whose live heap is much larger than the floor
// collect much as before.
const gcFloorMiB = 64

// gcFloorFlag defines the -gc-floor flag of fs, whose garbage what may
// leave; gcFloorBytes checks its value.
func gcFloorFlag(fs *flag.FlagSet, what string) *int {
	return fs.Int("gc-floor", gcFloorMiB, "least garbage, in `MiB`, "+what+" may leave before the collector runs (0: Go's default, as much as is live)")
}

// gcFloorBytes returns the -gc-floor value mib in bytes, or a usage error
// where it is out of range.
func gcFloorBytes(mib int) (int64, error) {
	if mib < 0 || mib > 1<<20 {
		return 0, usagef("-gc-floor %d: want 0 to %d MiB", mib, 1<<20)
	}
	return int64(mib) << 20, nil
}

// cmdRun runs experiment specs and records their results.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run")
	profile := fs.String("profile", harness.Quick, "profile: quick (minutes on 2 cores), medium (hours: real data, a smaller evaluation; where a spec defines it) or full (the paper's scale)")
	out := fs.String("out", "results", "results root; a spec writes `DIR`/<spec name>/")
	threads := fs.Int("threads", 0, "threads per kernel; 0 keeps the spec's (default 1, as in the paper)")
	shard := fs.String("shard", "", "run only shard `i/N` of each grid (0 ≤ i < N), into <out>/<spec>/shard-i-of-N/")
	force := fs.Bool("force", false, "resume into a results folder written from a different spec file or profile")
	progress := fs.String("progress", "auto", "progress display: auto (a bar on a terminal, else log lines), bar or log")
	gcFloor := gcFloorFlag(fs, "a run")
	costsPath := fs.String("costs", "", "costs `file` of runexp calibrate for method auto (default: $"+costsEnv+", else the user's, else built-in)")
	files, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("no spec given (usage: runexp run SPEC... [-profile quick|full] [-out DIR] [-threads N] [-shard i/N] [-force])")
	}
	if *threads < 0 {
		return usagef("-threads %d: must be ≥ 1 (or 0 for the spec's)", *threads)
	}
	floor, err := gcFloorBytes(*gcFloor)
	if err != nil {
		return err
	}
	var sh harness.Shard
	if *shard != "" {
		if sh, err = harness.ParseShard(*shard); err != nil {
			return usagef("-shard: %v", err)
		}
	}
	if *progress != "auto" && *progress != "bar" && *progress != "log" {
		return usagef("-progress %q: want auto, bar or log", *progress)
	}
	// Check every spec before running any, so that a typo in the third
	// spec does not surface after hours of the first.
	var plans []*harness.Plan
	for _, f := range files {
		s, err := harness.LoadSpec(f)
		if err != nil {
			return usageError{err}
		}
		if err := s.CheckData(); err != nil {
			return usageError{err}
		}
		prof := *profile
		if !s.Defines(prof) && prof == harness.Medium {
			// Medium exists where the full scale takes days; the other
			// specs' quick profile is already their hours-scale run.
			fmt.Fprintf(stderr, "run: %s defines no medium profile; running its quick profile\n", f)
			prof = harness.Quick
		}
		p, err := s.Plan(prof, *threads)
		if err != nil {
			return usagef("%s: %v", f, err)
		}
		plans = append(plans, p)
	}
	costs, err := costsForPlans(plans, *costsPath, stderr)
	if err != nil {
		return err
	}
	mem := harness.MachineMemory()
	memCap := mem / 10 * memoryCapTenths
	for _, p := range plans {
		r := &harness.Runner{
			Kernels:   harness.Registry{},
			Data:      &harness.StdData{},
			Progress:  newProgress(*progress, stderr),
			Shard:     sh,
			Force:     *force,
			Log:       stderr,
			Costs:     costs,
			MemoryCap: memCap,
			GCFloor:   floor,
		}
		if r.Limits(p).Memory != p.Limits.Memory {
			fmt.Fprintf(stderr, "run: %s: memory limit lowered to %.3gGiB, %d/10 of this machine's %.3gGiB\n",
				p.Spec.Name, float64(memCap)/(1<<30), memoryCapTenths, float64(mem)/(1<<30))
		}
		res, err := r.Run(ctx, p, *out)
		if errors.Is(err, harness.ErrResumeRefused) {
			return usageError{err}
		}
		if errors.Is(err, harness.ErrInterrupted) {
			return fmt.Errorf("%s: interrupted; %d rows kept in %s (summary.csv and meta.json written); "+
				"run the same command again to resume", p.Spec.Name, res.Rows, res.Dir)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p.Spec.Name, err)
		}
		fmt.Fprintf(stdout, "%s [%s]: %d rows (%d new, %d kept) in %s\n", p.Spec.Name, p.Profile, res.Rows, res.New, res.Kept, res.Dir)
	}
	return nil
}

// costsForPlans loads the cost constants when a plan runs the automatic
// method, or a costs file is named: a broken file in the user's config
// folder must not stop runs that never ask for advice.
func costsForPlans(plans []*harness.Plan, flagPath string, stderr io.Writer) (kernels.Costs, error) {
	auto := false
	for _, p := range plans {
		auto = auto || slices.Contains(p.Spec.Methods, kernels.Auto)
	}
	if !auto && flagPath == "" {
		return nil, nil
	}
	costs, source, err := loadCosts(flagPath)
	if err != nil {
		return nil, err
	}
	if auto {
		fmt.Fprintf(stderr, "runexp run: method auto's constants: %s\n", source)
	}
	return costs, nil
}

// newProgress returns a progress bar when stderr is a terminal (or bar is
// asked for) and plain log lines otherwise, e.g. in CI.
func newProgress(mode string, stderr io.Writer) harness.Progress {
	tty := false
	if f, ok := stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	if mode == "bar" || mode == "auto" && tty {
		return &harness.BarProgress{W: stderr}
	}
	return &harness.LogProgress{W: stderr}
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments, which it returns: "runexp run spec.yaml
// -profile full" reads as naturally as the other order.
func parseInterspersed(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fmt.Fprintf(stderr, "usage of %s:\n", fs.Name())
			fs.PrintDefaults()
			return nil, errHelp
		}
		if err != nil {
			return nil, usagef("%v", err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
