package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gkbench/gkbench/plots"
)

// cmdPlot draws the figures of results folders into their figures/
// subfolders.
func cmdPlot(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot")
	dirs, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return usagef("usage: runexp plot DIR... (e.g. results/fig-walk-label-diversity)")
	}
	var errs []error
	for _, dir := range dirs {
		paths, err := plots.Plot(dir)
		fmt.Fprintf(stdout, "%s: wrote %d files to %s\n", dir, len(paths), dir+"/"+plots.FigureDir)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
