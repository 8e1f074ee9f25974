package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/gkbench/gkbench/harness"
)

// cmdValidate checks specs without running them: decoding, kernels and
// their parameters, ranges, profiles, and that TU data sets can be found.
func cmdValidate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate")
	files, err := parseInterspersed(fs, args, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("no spec given (usage: runexp validate SPEC...)")
	}
	bad := 0
	var last error
	for _, f := range files {
		if err := validateSpec(f, stdout); err != nil {
			bad++
			last = err
			if len(files) > 1 {
				fmt.Fprintln(stderr, err)
			}
		}
	}
	switch {
	case bad == 1 && len(files) == 1:
		return usageError{last}
	case bad > 0:
		return usagef("%d of %d specs have errors", bad, len(files))
	}
	return nil
}

// validateSpec checks one spec and prints its grid sizes.
func validateSpec(file string, stdout io.Writer) error {
	s, err := harness.LoadSpec(file)
	if err != nil {
		return err
	}
	if err := s.CheckData(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ok %s:", file)
	for _, prof := range harness.Profiles() {
		if !s.Defines(prof) {
			continue
		}
		p, err := s.Plan(prof, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		fmt.Fprintf(stdout, " %s %d cells (%d runs);", prof, len(p.Cells), p.Runs())
	}
	fmt.Fprintln(stdout)
	return nil
}
