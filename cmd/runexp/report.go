package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/gkbench/gkbench/report"
)

// cmdReport compiles the results folders into the reproduction report.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report")
	root := fs.String("results", "results", "folder holding one results folder per spec")
	out := fs.String("o", "results/REPORT.md", "Markdown report; its HTML twin goes beside it")
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	// The report is renamed into place, which would replace a device
	// such as /dev/null, and its twin would land beside it.
	if fi, err := os.Stat(*out); err == nil && !fi.Mode().IsRegular() {
		return usagef("-o %s: not a regular file; the report is a Markdown file with its HTML twin beside it", *out)
	}
	if err := report.Write(*root, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and its HTML twin\n", *out)
	return nil
}
