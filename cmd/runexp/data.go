package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gkbench/gkbench/graph"
	"github.com/gkbench/gkbench/harness"
)

const dataUsage = "usage: runexp data fetch [-dir DIR] [-url BASE]... NAME... | runexp data verify [NAME...] | runexp data ensure NAME..."

// cmdData downloads the TU data sets and checks data sets against their
// recorded checksums, for machines without the shared data folder.
func cmdData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dataEnv{}.run(ctx, args, stdout, stderr)
}

// dataEnv is what the data subcommands take from outside their command
// line. The zero value is the real thing; tests set fake checksums and the
// client of a local server, so that they never touch the network.
type dataEnv struct {
	sums   graph.Sums   // nil: graph.RecordedSums
	client *http.Client // nil: graph.Fetch's default
}

func (env dataEnv) run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("%s", dataUsage)
	}
	switch args[0] {
	case "fetch":
		return env.fetch(ctx, args[1:], stdout, stderr)
	case "verify":
		return env.verify(args[1:], stdout, stderr)
	case "ensure":
		return env.ensure(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stderr, dataUsage)
		fmt.Fprintln(stderr, "run 'runexp data fetch -h' or 'runexp data verify -h' for their flags")
		return nil
	}
	return usagef("unknown data command %q; %s", args[0], dataUsage)
}

// recordedSums returns env.sums, or the embedded table.
func (env dataEnv) recordedSums() (graph.Sums, error) {
	if env.sums != nil {
		return env.sums, nil
	}
	return graph.RecordedSums()
}

// checkNames rejects names that have no recorded sums before any work
// starts: asking for such a set is a mistake in the call, and the error
// says what to use instead. It returns the names without repeats.
func checkNames(names []string, sums graph.Sums) ([]string, error) {
	var out []string
	for _, n := range names {
		if _, err := sums.Files(n); err != nil {
			return nil, usageError{err}
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// urlsFlag collects repeated -url flags.
type urlsFlag []string

func (f *urlsFlag) String() string { return strings.Join(*f, " ") }

func (f *urlsFlag) Set(s string) error {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return fmt.Errorf("base URL %q: want http:// or https://", s)
	}
	*f = append(*f, s)
	return nil
}

// fetch downloads the named data sets into -dir, skipping those already
// there and intact, and goes on after a failure so that one bad set does
// not stop the others.
func (env dataEnv) fetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data fetch")
	dir := fs.String("dir", "./data", "folder to download into; each data set goes to DIR/NAME")
	var urls urlsFlag
	fs.Var(&urls, "url", "base URL that holds NAME.zip (repeatable, tried in order; default: the TU Dortmund collection's addresses)")
	names, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usagef("no data set named; %s", dataUsage)
	}
	sums, err := env.recordedSums()
	if err != nil {
		return err
	}
	if names, err = checkNames(names, sums); err != nil {
		return err
	}
	opt := graph.FetchOptions{BaseURLs: urls, Client: env.client, Progress: stderr, Sums: sums}
	var errs []error
	for _, name := range names {
		target := filepath.Join(*dir, name)
		if _, err := os.Lstat(target); err == nil {
			if _, err := graph.VerifyDataset(target, name, sums); err != nil {
				errs = append(errs, fmt.Errorf("%s is present but differs from the recorded sums; remove it to download again: %w", target, err))
				continue
			}
			fmt.Fprintf(stderr, "data fetch %s: %s is present and verified, skipped\n", name, target)
			fmt.Fprintf(stdout, "present %s\n", target)
			continue
		}
		got, err := graph.Fetch(ctx, name, *dir, opt)
		if err != nil && ctx.Err() != nil {
			// The user stopped the program: the other sets are not wanted.
			return errors.Join(append(errs, err)...)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "fetched %s\n", got)
	}
	return errors.Join(errs...)
}

// verify checks the named data sets, or every recorded one, where the data
// path finds them: the copies that commands would read.
func (env dataEnv) verify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data verify")
	names, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	sums, err := env.recordedSums()
	if err != nil {
		return err
	}
	if names, err = checkNames(names, sums); err != nil {
		return err
	}
	all := len(names) == 0
	if all {
		for n := range sums {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	var errs []error
	found, files, bad := 0, 0, 0
	for _, name := range names {
		dir, err := graph.FindDataset(name)
		if err != nil {
			// Without names the user asks about whatever is there; a set
			// that is absent is then not a failure.
			if all {
				fmt.Fprintf(stderr, "data verify %s: not on the data path, skipped\n", name)
				continue
			}
			errs = append(errs, err)
			continue
		}
		found++
		fmt.Fprintf(stderr, "data verify %s: checking %s\n", name, dir)
		checks, err := graph.VerifyDataset(dir, name, sums)
		if checks == nil && err != nil {
			errs = append(errs, err)
			continue
		}
		for _, c := range checks {
			files++
			status, detail := checkStatus(c)
			if c.Err != nil {
				bad++
			}
			fmt.Fprintf(stdout, "%-8s %s%s\n", status, filepath.Join(dir, c.File), detail)
		}
	}
	if all && found == 0 {
		return fmt.Errorf("none of the recorded data sets (%s) is on the data path %s; set %s or run 'runexp data fetch'",
			strings.Join(names, ", "), strings.Join(graph.DataDirs(), string(os.PathListSeparator)), graph.DataEnv)
	}
	if bad > 0 {
		errs = append(errs, fmt.Errorf("%d of %d files differ from the recorded sums", bad, files))
	}
	return errors.Join(errs...)
}

// checkStatus returns the word and the explanation printed for one file.
func checkStatus(c graph.FileCheck) (status, detail string) {
	switch {
	case c.Err == nil && c.Missing:
		return "absent", " (optional)"
	case c.Err == nil:
		return "OK", ""
	case c.Missing:
		return "MISSING", fmt.Sprintf(": want sha256 %s (%d bytes)", c.Want.SHA256, c.Want.Size)
	case c.Got.SHA256 != "":
		return "MISMATCH", fmt.Sprintf(": sha256 %s (%d bytes), want %s (%d bytes)",
			c.Got.SHA256, c.Got.Size, c.Want.SHA256, c.Want.Size)
	}
	return "ERROR", ": " + c.Err.Error()
}

// ensure makes sure the named data sets can be found: a set on the data
// path is used as it is; a missing one is fetched into the first
// $GKBENCH_DATA folder or ./data; U251, which the TU collection lacks, is
// replaced by its fallback, which the runs then use and note.
func (env dataEnv) ensure(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("data ensure")
	names, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	sums, err := env.recordedSums()
	if err != nil {
		return err
	}
	opt := graph.FetchOptions{Client: env.client, Progress: stderr, Sums: sums}
	var errs []error
	for _, name := range names {
		if dir, err := graph.FindDataset(name); err == nil {
			fmt.Fprintf(stdout, "found %s\n", dir)
			continue
		}
		if fb, ok := harness.Fallbacks()[name]; ok {
			fmt.Fprintf(stderr, "data ensure: %s is not on the data path and not in the TU collection; its specs use %s instead\n", name, fb)
			name = fb
			if dir, err := graph.FindDataset(name); err == nil {
				fmt.Fprintf(stdout, "found %s\n", dir)
				continue
			}
		}
		dir, err := graph.Ensure(ctx, name, opt)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "fetched %s\n", dir)
	}
	return errors.Join(errs...)
}
