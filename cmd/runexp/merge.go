package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gkbench/gkbench/harness"
)

// cmdMerge joins the results folders of shards into one result.
func cmdMerge(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge")
	out := fs.String("o", "", "results folder to write, e.g. results/fig-walk-wl (required)")
	dirs, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if *out == "" || len(dirs) == 0 {
		return usagef("usage: runexp merge -o OUT DIR... (e.g. -o results/fig-walk-wl results/fig-walk-wl/shard-*)")
	}
	res, err := harness.Merge(*out, dirs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d rows from %d folders into %s (%d identical duplicates dropped)\n",
		res.Rows, len(dirs), *out, res.Duplicates)
	if res.Conflicts > 0 {
		fmt.Fprintf(stderr, "warning: %d rows had a different row for the same cell, method and repetition in an earlier folder; kept the earlier\n", res.Conflicts)
	}
	if len(res.Missing) > 0 {
		fmt.Fprintf(stderr, "warning: no folder for shard %s; the merged result is incomplete\n", strings.Join(res.Missing, ", "))
	}
	return nil
}
