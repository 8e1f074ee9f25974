package main

import (
	"context"
	"io"

	"github.com/gkbench/gkbench/report"
)

// cmdTable prints the paper's Table 3 with the reproduced times beside the
// paper's, from a results folder of the table3-discrete spec.
func cmdTable(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("table")
	format := fs.String("format", "both", "md, latex or both")
	dirs, err := parseInterspersed(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usagef("want one results folder, e.g. results/table3-discrete")
	}
	switch *format {
	case "md", "latex", "both":
	default:
		return usagef("-format %q: want md, latex or both", *format)
	}
	t, err := report.ReadTable3(dirs[0])
	if err != nil {
		return err
	}
	if *format != "latex" {
		if err := t.WriteMarkdown(stdout); err != nil {
			return err
		}
	}
	if *format == "both" {
		io.WriteString(stdout, "\n")
	}
	if *format != "md" {
		return t.WriteLaTeX(stdout)
	}
	return nil
}
